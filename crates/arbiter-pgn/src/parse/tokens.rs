//! The tokenizer of the movetext: what a token is ([`classify`]), byte
//! tables for the tag and token loops, and the loop over the commonest
//! tokens (moves and move numbers) with its eight-bytes-at-a-time end
//! search.

use super::{Line, MoveNode, Span};
use crate::terms::{ResultToken, is_delimiter, is_result};

/// The NAG a suffix annotation stands for.
fn suffix_nag(suffix: &[u8]) -> Option<u8> {
    Some(match suffix {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        _ => return None,
    })
}

/// What a movetext token is.
pub(super) enum Token<'a> {
    /// A move number, an ellipsis or anything else with no move in it.
    Nothing,
    Result(ResultToken),
    /// A move's text, and the NAG of its suffix annotation.
    Move(&'a [u8], usize, Option<u8>),
    /// A suffix annotation standing alone.
    Nag(u8),
}

#[inline]
pub(super) fn classify(token: &[u8], start: usize) -> Token<'_> {
    // The commonest token by far: a move starting with a letter and no
    // suffix annotation.
    if token[0].is_ascii_alphabetic() && !matches!(token[token.len() - 1], b'!' | b'?') {
        return Token::Move(token, start, None);
    }
    if is_result(token) {
        return Token::Result(ResultToken::from_bytes(token));
    }
    let mut text = token;
    let mut start = start;
    if text[0].is_ascii_digit() && !text.starts_with(b"0-0") {
        // A move number, maybe with the move glued on: `12.`, `12...e5`.
        let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
        let dots = text[digits..].iter().take_while(|&&b| b == b'.').count();
        if digits + dots == text.len() {
            return Token::Nothing;
        }
        if dots > 0 {
            text = &text[digits + dots..];
            start += digits + dots;
        }
    }
    if text.iter().all(|&b| b == b'.') {
        return Token::Nothing;
    }
    let bare = text.iter().rposition(|&b| b != b'!' && b != b'?').map_or(0, |i| i + 1);
    let nag = suffix_nag(&text[bare..]);
    if bare == 0 {
        return nag.map_or(Token::Nothing, Token::Nag);
    }
    Token::Move(&text[..bare], start, nag)
}

/// Bytes that end a tag's name: white space, `"` and `]`.
pub(super) const NAME_END: u8 = 1;
/// Bytes that end the text of a tag's value, or escape the next byte.
pub(super) const VALUE_END: u8 = 2;

/// [`NAME_END`] and [`VALUE_END`] by byte: one load each where the tests
/// they replace took several.
pub(super) static TAG_BYTES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_whitespace() || c == b'"' || c == b']' {
            table[b] |= NAME_END;
        }
        if c == b'"' || c == b'\n' || c == b'\\' {
            table[b] |= VALUE_END;
        }
        b += 1;
    }
    table
};

/// What a byte begins or is, for [`plain_tokens`]: each kind a bit of its
/// own, so that the loop tells them apart by bit tests, branches that the
/// processor learns the rhythm of (number, move, comment), rather than by
/// one jump through a table, whose target it guessed wrong about as often
/// as not.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Plain {
    Other = 0,
    /// White space that is a delimiter (a form feed is not).
    Space = 1,
    Letter = 2,
    Digit = 4,
    /// `{`, which begins a comment.
    Brace = 8,
}

impl Plain {
    /// Whether `class` (a [`Plain`] as its bit) is `self`.
    #[inline(always)]
    fn holds(self, class: u8) -> bool {
        class & self as u8 != 0
    }
}

pub(super) static PLAIN: [Plain; 256] = {
    let mut table = [Plain::Other; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b' ' | b'\t' | b'\n' | b'\r' => Plain::Space,
            _ if c.is_ascii_alphabetic() => Plain::Letter,
            _ if c.is_ascii_digit() => Plain::Digit,
            b'{' => Plain::Brace,
            _ => Plain::Other,
        };
        b += 1;
    }
    table
};

/// Reads from `pos` the commonest tokens by far, and the white space
/// between them, in a loop of their own: moves with no suffix annotation
/// (pushed on `line`), move numbers (digits, then dots) and comments in
/// braces (attached to `line` if `comments`: lichess writes one a move).
/// Returns where it stopped: the end of the text, or the start of anything
/// else (a variation, a NAG, a result, a move with a suffix ...), which the
/// general way reads. Delimiters are as [`is_delimiter`] says.
#[inline(always)]
pub(super) fn plain_tokens(text: &[u8], mut pos: usize, line: &mut Line, comments: bool) -> usize {
    while let Some(&b) = text.get(pos) {
        let class = PLAIN[usize::from(b)] as u8;
        let end = if Plain::Letter.holds(class) {
            let end = move_end(text, pos);
            if matches!(text[end - 1], b'!' | b'?') {
                break;
            }
            line.moves.push(MoveNode { text: Span::new(pos, end), ..MoveNode::default() });
            end
        } else if Plain::Digit.holds(class) {
            let mut end = pos + 1;
            while end < text.len() && text[end].is_ascii_digit() {
                end += 1;
            }
            while end < text.len() && text[end] == b'.' {
                end += 1;
            }
            if end < text.len() && !is_delimiter(text[end]) {
                break;
            }
            end
        } else if Plain::Space.holds(class) {
            pos + 1
        } else if Plain::Brace.holds(class) {
            let start = pos + 1;
            let end = memchr::memchr(b'}', &text[start..]).map_or(text.len(), |k| start + k);
            if comments {
                line.attach_comment(Span::new(start, end));
            }
            // Past the `}`; a comment is a token of its own, ended by
            // itself: no delimiter need follow.
            (end + 1).min(text.len())
        } else {
            break;
        };
        // What follows a token is a delimiter, most often one space: it is
        // passed over here rather than going round the loop for it.
        pos = end + usize::from(text.get(end) == Some(&b' '));
    }
    pos
}

/// [`token_end`] for a token that starts with a letter (a move, most
/// likely: two to seven bytes), eight bytes at a time: the first delimiter
/// among them is found by arithmetic on a `u64` rather than by a loop whose
/// end, at a length that varies from move to move, the processor guesses
/// wrong about as often as not.
#[inline(always)]
fn move_end(text: &[u8], start: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let Some(chunk) = text.get(start..start + 8) else {
        return token_end(text, start);
    };
    let mut bytes = [0; 8];
    bytes.copy_from_slice(chunk);
    let x = u64::from_le_bytes(bytes);
    // Each flags, at its lowest flagged byte exactly (the bytes above
    // may be flagged by a borrow, and are not looked at), the first byte
    // that is zero in `v`.
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    // Bytes below `*`: the white space, `$`, `(` and `)` delimiters, and
    // a few that are none (`!`, `#` ...). ASCII only: `!x` drops the rest.
    let low = x.wrapping_sub(ONES * b'*' as u64) & !x & HIGHS;
    // `[` and `]` read as `{` and `}` with bit 5 set.
    let folded = x | (ONES * 0x20);
    let found = low
        | zero(folded ^ (ONES * b'{' as u64))
        | zero(folded ^ (ONES * b'}' as u64))
        | zero(x ^ (ONES * b';' as u64));
    if found == 0 {
        // Eight bytes of one token: on from the eighth.
        return token_end(text, start + 7);
    }
    let k = (found.trailing_zeros() / 8) as usize;
    if is_delimiter(chunk[k]) {
        start + k
    } else {
        // A byte below `*` that is no delimiter (`Qh4#`): on from it.
        token_end(text, start + k)
    }
}

/// The end of the token that starts at `start` (a byte that is no
/// delimiter): the next delimiter or the end of the text.
#[inline]
pub(super) fn token_end(text: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    while end < text.len() && !is_delimiter(text[end]) {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `move_end` ends a token where `token_end` does, whatever the bytes
    /// around it: delimiters, bytes below `*` that are none, `[` `]` and
    /// their neighbours in the table, non-ASCII, tokens of eight bytes and
    /// more, the end of the text.
    #[test]
    fn move_end_agrees_with_token_end() {
        const BYTES: &[u8] =
            b"eNx4#!?+=-O \t\n\r{}();[]$%\x0c\x00\"*/.Z[\\]^_`z|~\x7f\xc3\xa9\x80\xff";
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let len = 1 + (next() % 24) as usize;
            let mut text: Vec<u8> =
                (0..len).map(|_| BYTES[(next() % BYTES.len() as u64) as usize]).collect();
            text[0] = b'N';
            for start in 0..text.len() {
                if text[start].is_ascii_alphabetic() {
                    assert_eq!(move_end(&text, start), token_end(&text, start), "{text:?} {start}");
                }
            }
        }
    }
}
