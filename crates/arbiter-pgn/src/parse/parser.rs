//! The parser of one game's text: tags, then lines of moves with their
//! comments, NAGs and nested variations. When cutting, it also finds where
//! the game ends in a stream (see [`super::cut_game`]).

use std::collections::HashSet;

use super::tokens::{
    NAME_END, PLAIN, Plain, TAG_BYTES, Token, VALUE_END, classify, plain_tokens, token_end,
};
use super::{Keep, KnownTags, Line, MoveNode, Parsed, Span, Spare, keep};
use crate::terms::{
    MAX_VARIATION_DEPTH, ResultToken, VariationError, VariationReason, is_delimiter, is_result,
    skims, starts_token,
};

/// `BUILD` off, the parser only finds where a game ends (see
/// [`cut_game`]): it follows the same bytes the same way, but keeps no tags,
/// moves or comments.
pub(super) struct Parser<'a, const BUILD: bool> {
    text: &'a [u8],
    pub(super) pos: usize,
    errors: Vec<VariationError>,
    /// Whether the parser also finds where the game ends in a stream (see
    /// [`cut_game`]); off, it reads a text already cut to one game.
    cutting: bool,
    /// Where the next game begins, once found: the start of a tag line.
    pub(super) stop: Option<usize>,
    /// The names of the tags that begin their line, for telling the next
    /// game's tags after a blank line.
    names: Vec<Span>,
    /// The same names as a set, once there are many of them (see
    /// [`Parser::named_before`]).
    many: Option<HashSet<&'a [u8]>>,
    /// A vector for the mainline's moves (see [`Spare`]).
    moves: Vec<MoveNode>,
    /// Whether comments are kept.
    comments: bool,
}

/// The tag names searched one by one (every real game has fewer).
const FEW_NAMES: usize = 32;

impl<'a, const BUILD: bool> Parser<'a, BUILD> {
    /// A parser of `text` that takes its vectors from `spare` (see
    /// [`Parser::give_back`]).
    pub(super) fn new(
        text: &'a [u8],
        cutting: bool,
        keep: Keep,
        spare: &mut Spare,
    ) -> Parser<'a, BUILD> {
        let names = std::mem::take(&mut spare.names);
        let moves = std::mem::take(&mut spare.moves);
        Parser {
            text,
            pos: 0,
            errors: Vec::new(),
            cutting,
            stop: None,
            names,
            many: None,
            moves,
            comments: keep.comments,
        }
    }

    /// Puts the vectors it took back in `spare`, emptied.
    pub(super) fn give_back(self, spare: &mut Spare) {
        let Parser { names, moves, .. } = self;
        keep(&mut spare.names, names);
        keep(&mut spare.moves, moves);
    }

    /// The start of the line `at` is on, if only whitespace comes before
    /// `at` on it.
    pub(super) fn line_start_before(&self, at: usize) -> Option<usize> {
        let mut k = at;
        while k > 0 && matches!(self.text[k - 1], b' ' | b'\t' | b'\r' | b'\x0c') {
            k -= 1;
        }
        (k == 0 || self.text[k - 1] == b'\n').then_some(k)
    }

    /// When cutting, whether the `[` at `at` begins the next game (a tag
    /// line after movetext); if so the game stops there.
    fn next_game_at(&mut self, at: usize) -> bool {
        if !self.cutting {
            return false;
        }
        self.stop = self.line_start_before(at);
        self.stop.is_some()
    }

    /// Where the token that `at` is in begins as the tokenizer reads,
    /// `entry` (at or before `at`) being a place between tokens: after a
    /// delimiter or at `entry`, past the form feeds there (white space
    /// between tokens; inside a token, a form feed is part of it).
    fn token_start(&self, at: usize, entry: usize) -> usize {
        let mut k = at;
        while k > entry && !is_delimiter(self.text[k - 1]) {
            k -= 1;
        }
        while self.text[k] == b'\x0c' {
            k += 1;
        }
        k
    }

    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.text[self.pos - 1] == b'\n'
    }

    fn skip_line(&mut self) -> usize {
        let end =
            memchr::memchr(b'\n', &self.text[self.pos..]).map_or(self.text.len(), |k| self.pos + k);
        self.pos = end;
        end
    }

    /// Whether a tag called `name` began a line of this game before: by a
    /// search while the names are few, by a set once they are many, so
    /// that a game of many tags each after a blank line (a file of tags
    /// only) does not cost the square of its tags (a megabyte of them took
    /// seconds).
    fn named_before(&mut self, name: &[u8]) -> bool {
        let text = self.text;
        if self.names.len() <= FEW_NAMES {
            return self.names.iter().any(|n| n.bytes(text) == name);
        }
        let names = &self.names;
        let many = self.many.get_or_insert_with(|| names.iter().map(|n| n.bytes(text)).collect());
        many.contains(name)
    }

    fn add_name(&mut self, name: Span) {
        self.names.push(name);
        if let Some(many) = &mut self.many {
            many.insert(name.bytes(self.text));
        }
    }

    /// The tag pairs at the start; `None` once the movetext begins.
    #[inline(always)]
    pub(super) fn tag(&mut self, first: bool) -> Option<(Span, Span)> {
        // Whether a blank line (whitespace only) came since the last tag.
        let mut blank = false;
        // Whether the line being skipped has had anything but whitespace.
        let mut content = true;
        loop {
            while self.pos < self.text.len() && self.text[self.pos].is_ascii_whitespace() {
                if self.text[self.pos] == b'\n' {
                    blank |= !content;
                    content = false;
                }
                self.pos += 1;
            }
            if self.pos < self.text.len() && self.text[self.pos] == b'%' && self.at_line_start() {
                self.skip_line();
                content = true;
                continue;
            }
            break;
        }
        if self.text.get(self.pos) != Some(&b'[') {
            return None;
        }
        let text = self.text;
        let line_start = self.line_start_before(self.pos);
        let mut i = self.pos + 1;
        let skip_space = |i: &mut usize| {
            while *i < text.len() && text[*i].is_ascii_whitespace() && text[*i] != b'\n' {
                *i += 1;
            }
        };
        skip_space(&mut i);
        let name_start = i;
        while i < text.len() && TAG_BYTES[usize::from(text[i])] & NAME_END == 0 {
            i += 1;
        }
        let name = Span::new(name_start, i);
        if self.cutting
            && let Some(start) = line_start
        {
            // After a blank line, a tag the game already has begins the
            // next game (files of tags only); another goes on the same tag
            // section (ChessBase writes blank lines between tags).
            let bytes = name.bytes(text);
            if !first && blank && self.named_before(bytes) {
                self.stop = Some(start);
                return None;
            }
            self.add_name(name);
        }
        skip_space(&mut i);
        let mut value = Span::new(i, i);
        if text.get(i) == Some(&b'"') {
            i += 1;
            let value_start = i;
            // To the closing quote: an escape skips the byte after it,
            // unless that ends the line. By table rather than memchr: values
            // are a dozen bytes, shorter than a search costs to set up.
            loop {
                while i < text.len() && TAG_BYTES[usize::from(text[i])] & VALUE_END == 0 {
                    i += 1;
                }
                if i == text.len() || text[i] != b'\\' {
                    break;
                }
                i += if i + 1 < text.len() && text[i + 1] != b'\n' { 2 } else { 1 };
            }
            value = Span::new(value_start, i.min(text.len()));
            i += usize::from(text.get(i) == Some(&b'"'));
        }
        // The rest of the tag up to its `]`, on this line.
        while i < text.len() && text[i] != b']' && text[i] != b'\n' {
            i += 1;
        }
        self.pos = (i + usize::from(text.get(i) == Some(&b']'))).min(text.len());
        Some((name, value))
    }

    /// Reads a line of moves up to its `)` (a variation, `depth` > 0) or the
    /// result token or the end (the mainline). `path` names the line.
    fn line(&mut self, depth: usize, path: &mut Vec<u32>) -> (Line, Option<ResultToken>) {
        let mut line = Line::default();
        if BUILD && depth == 0 {
            line.moves = std::mem::take(&mut self.moves);
            // Room for the mainline's moves at once (a move takes five
            // bytes or more with its number), rather than growing through
            // seven reallocations in a game of a hundred moves.
            line.moves.reserve(((self.text.len() - self.pos) / 5).min(1024));
        }
        // Moves read on this line (only counted when not `BUILD`ing).
        let mut count = 0usize;
        let text = self.text;
        while self.pos < text.len() && self.stop.is_none() {
            if !BUILD && count > 0 {
                // Only cutting, past the line's first move: what is left to
                // find is a result token, a comment, a variation, an escape
                // line or the next game. Bytes that can change none of that
                // are skimmed; at a `-` or `*` the token around it is read
                // whole. The rest goes the general way below. `entry` is
                // where the tokenizer stands between tokens (as at every
                // turn of this loop, after a NAG's digits too).
                let entry = self.pos;
                while self.pos < text.len() && skims(text[self.pos]) {
                    self.pos += 1;
                }
                let Some(&b) = text.get(self.pos) else { break };
                if matches!(b, b'-' | b'*') {
                    let start = self.token_start(self.pos, entry);
                    let end = token_end(text, start);
                    self.pos = end;
                    let token = &text[start..end];
                    if depth == 0 && is_result(token) {
                        return (line, Some(ResultToken::from_bytes(token)));
                    }
                    continue;
                }
            }
            let b = text[self.pos];
            // The commonest bytes first: white space, moves and move
            // numbers in a loop of their own when reading the game; else a
            // space, then by table the first byte of a token (a move, a
            // move number, a result ...).
            if BUILD && PLAIN[usize::from(b)] != Plain::Other {
                let end = plain_tokens(text, self.pos, &mut line, self.comments);
                if end > self.pos {
                    self.pos = end;
                    continue;
                }
            }
            if b == b' ' {
                self.pos += 1;
                continue;
            }
            // A `%` at the start of a line begins an escape line.
            if !starts_token(b) || (b == b'%' && self.at_line_start()) {
                match b {
                    b'[' if self.next_game_at(self.pos) => break,
                    // Whitespace as `line_start_before` counts it (a form feed
                    // before a tag line too), so that a game cut at a tag line
                    // reads as its cut text does.
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => self.pos += 1,
                    b'{' => {
                        let start = self.pos + 1;
                        let end =
                            memchr::memchr(b'}', &text[start..]).map_or(text.len(), |k| start + k);
                        self.pos = (end + 1).min(text.len());
                        if BUILD && self.comments {
                            line.attach_comment(Span::new(start, end));
                        }
                    }
                    b';' => {
                        let start = self.pos + 1;
                        let end = self.skip_line();
                        let end = if end > start && text[end - 1] == b'\r' { end - 1 } else { end };
                        if BUILD && self.comments {
                            line.attach_comment(Span::new(start, end));
                        }
                    }
                    b'%' if self.at_line_start() => {
                        self.skip_line();
                    }
                    b'(' if !BUILD => {
                        self.pos += 1;
                        if count == 0 || depth + 1 > MAX_VARIATION_DEPTH {
                            self.skip_variation();
                        } else {
                            self.line(depth + 1, path);
                        }
                    }
                    b'(' => {
                        self.pos += 1;
                        let ply = line.moves.len();
                        let Some(last) = line.moves.last_mut() else {
                            self.skip_variation();
                            self.error(path, VariationReason::NoMoveBefore);
                            continue;
                        };
                        let number = last.variations().len() as u32;
                        path.extend([ply as u32 - 1, number]);
                        if depth + 1 > MAX_VARIATION_DEPTH {
                            self.skip_variation();
                            self.error(path, VariationReason::TooDeep);
                        } else {
                            let (variation, _) = self.line(depth + 1, path);
                            last.extra().variations.push(variation);
                        }
                        path.truncate(path.len() - 2);
                    }
                    b')' => {
                        self.pos += 1;
                        if depth > 0 {
                            return (line, None);
                        }
                    }
                    b'$' => {
                        let start = self.pos + 1;
                        let mut end = start;
                        while end < text.len() && text[end].is_ascii_digit() {
                            end += 1;
                        }
                        self.pos = end.max(start);
                        let value = std::str::from_utf8(&text[start..end])
                            .ok()
                            .and_then(|d| d.parse().ok());
                        if BUILD && let (Some(nag), Some(last)) = (value, line.moves.last_mut()) {
                            last.extra().nags.push(nag);
                        }
                    }
                    _ => self.pos += 1,
                }
                continue;
            }
            let start = self.pos;
            let end = token_end(text, start);
            self.pos = end;
            let token = &text[start..end];
            if !BUILD {
                // Only a result token ends the line, and only the
                // first move matters (a variation before it is
                // skipped): the rest need no reading.
                if is_result(token) {
                    if depth == 0 {
                        return (line, Some(ResultToken::from_bytes(token)));
                    }
                } else if count == 0 && matches!(classify(token, start), Token::Move(..)) {
                    count = 1;
                }
                continue;
            }
            // A move with nothing glued on, as `classify` reads it, here.
            if token[0].is_ascii_alphabetic() && !matches!(token[token.len() - 1], b'!' | b'?') {
                line.moves.push(MoveNode { text: Span::new(start, end), ..MoveNode::default() });
                continue;
            }
            // A move number (`12.`, `12...`, `12`): digits then dots only.
            let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && token[digits..].iter().all(|&b| b == b'.') {
                continue;
            }
            match classify(token, start) {
                Token::Nothing => {}
                Token::Result(result) => {
                    if depth == 0 {
                        return (line, Some(result));
                    }
                }
                Token::Nag(nag) => {
                    if BUILD && let Some(last) = line.moves.last_mut() {
                        last.extra().nags.push(nag);
                    }
                }
                Token::Move(mv, at, nag) => {
                    let mut node =
                        MoveNode { text: Span::new(at, at + mv.len()), ..MoveNode::default() };
                    if let Some(nag) = nag {
                        node.extra().nags.push(nag);
                    }
                    line.moves.push(node);
                }
            }
        }
        (line, None)
    }

    /// Skips to the end of a variation whose `(` was read, comments and
    /// nested variations included, without recursion.
    fn skip_variation(&mut self) {
        let mut depth = 1usize;
        while self.pos < self.text.len() && depth > 0 {
            let b = self.text[self.pos];
            match b {
                b'[' if self.next_game_at(self.pos) => return,
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'{' => {
                    let start = self.pos + 1;
                    self.pos = memchr::memchr(b'}', &self.text[start..])
                        .map_or(self.text.len(), |k| start + k);
                }
                b';' => {
                    self.skip_line();
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn error(&mut self, path: &[u32], reason: VariationReason) {
        self.errors.push(VariationError {
            path: path.to_vec(),
            index: 0,
            text: String::new(),
            message: reason.message(),
            reason,
        });
    }
}

pub(super) fn read(parser: &mut Parser<'_, true>) -> Parsed {
    let mut tags = Vec::new();
    let mut known = KnownTags::default();
    while let Some((name, value)) = parser.tag(tags.is_empty()) {
        known.note(name.bytes(parser.text), value);
        tags.push((name, value));
    }
    read_after_tags(parser, tags, known)
}

pub(super) fn read_after_tags<const BUILD: bool>(
    parser: &mut Parser<'_, BUILD>,
    tags: Vec<(Span, Span)>,
    known: KnownTags,
) -> Parsed {
    let (mainline, result_token) = if parser.stop.is_some() {
        (Line::default(), None)
    } else {
        parser.line(0, &mut Vec::new())
    };
    let syntax_errors = std::mem::take(&mut parser.errors);
    Parsed { tags, known, mainline, result_token, syntax_errors }
}
