//! The canonical PGN of a checked game: the seven-tag roster first, then
//! the other tags (a lichess variant's `Variant` by lichess's name, its
//! `FEN` as the variant's FEN); canonical SAN with move numbers; comments,
//! NAGs and variations kept; movetext lines of at most 80 characters.

use std::fmt::Write as _;

use arbiter_chess::{GamePosition, VariantPosition};

use super::check::{ResultToken, Verdict};
use super::parse::{Line, PgnGame};
use super::start::start_position;

/// The seven-tag roster, in its order, with the value written when a tag is
/// missing.
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// The longest movetext line.
const WIDTH: usize = 80;

/// Movetext written word by word, wrapped at [`WIDTH`].
struct Wrapper<'a> {
    out: &'a mut Vec<u8>,
    column: usize,
    /// The next word follows the last without a space (after `(`).
    glue: bool,
}

impl Wrapper<'_> {
    /// Writes `word`, after a space when `spaced` and the line is not empty.
    fn word(&mut self, word: &[u8], spaced: bool) {
        let spaced = spaced && !std::mem::take(&mut self.glue);
        let space = usize::from(spaced && self.column > 0);
        if self.column > 0 && self.column + space + word.len() > WIDTH {
            self.out.push(b'\n');
            self.column = 0;
        } else if space == 1 {
            self.out.push(b' ');
            self.column += 1;
        }
        if self.column == 0 && word.first() == Some(&b'%') {
            // A line starting with `%` is an escape line, skipped by readers.
            self.out.push(b' ');
            self.column += 1;
        }
        self.out.extend_from_slice(word);
        self.column += word.len();
    }

    /// A comment as `{words}`, its words re-spaced; a `}` inside (from a
    /// `;` comment) would end it early and becomes `)`.
    fn comment(&mut self, text: &[u8]) {
        let mut words =
            text.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).peekable();
        let mut first = true;
        let mut word = Vec::new();
        if words.peek().is_none() {
            self.word(b"{}", true);
        }
        while let Some(w) = words.next() {
            word.clear();
            if first {
                word.push(b'{');
            }
            word.extend(w.iter().map(|&b| if b == b'}' { b')' } else { b }));
            if words.peek().is_none() {
                word.push(b'}');
            }
            self.word(&word, true);
            first = false;
        }
    }
}

/// Writes `value` as a tag value, escaping `"` and `\`.
fn push_tag(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b'[');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" \"");
    for b in value.bytes() {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.extend_from_slice(b"\"]\n");
}

/// Appends the canonical PGN of `game`, whose `verdict` filled in its SAN,
/// and a blank line after it. Moves not validated (from a line's first
/// illegal move on) are left out. The result is the `Result` tag when it is
/// a result, else the result token, else `*`, in the tag and at the end.
pub fn write_canonical(game: &PgnGame, verdict: &Verdict, out: &mut Vec<u8>) {
    let result = verdict
        .result_tag
        .as_deref()
        .and_then(ResultToken::parse)
        .or(game.result_token)
        .unwrap_or(ResultToken::Ongoing);
    for (name, default) in ROSTER {
        match name {
            "Result" => push_tag(out, name, result.as_str()),
            _ => push_tag(out, name, game.tag(name).as_deref().unwrap_or(default)),
        }
    }
    let start = start_position(game);
    // A variant game's tags as lichess writes them: the variant by its
    // name, and a FEN (with `SetUp`) only for a start of its own.
    let variant = match &start {
        Ok(GamePosition::Variant(pos)) => Some((pos, *pos != VariantPosition::new(pos.variant()))),
        _ => None,
    };
    for (name, value) in game.tags() {
        if ROSTER.iter().any(|(roster, _)| *roster == name) {
            continue;
        }
        match (variant, &*name) {
            (Some((pos, _)), "Variant") => push_tag(out, &name, pos.variant().pgn_name()),
            (Some((pos, true)), "FEN") => push_tag(out, &name, &pos.fen()),
            (Some((_, false)), "FEN" | "SetUp") => {}
            _ => push_tag(out, &name, &value),
        }
    }
    out.push(b'\n');
    // The ply the game starts on: 2 × (fullmove - 1), + 1 with black to move.
    let start = start.map_or(0, |pos| {
        2 * (pos.fullmove_number() as usize).saturating_sub(1) + pos.turn().index()
    });
    let mut wrapper = Wrapper { out, column: 0, glue: false };
    write_line(game, &game.mainline, start, &mut wrapper);
    wrapper.word(result.as_str().as_bytes(), true);
    wrapper.out.extend_from_slice(b"\n\n");
}

/// Writes a line of moves whose first move is ply `ply` of the game.
fn write_line(game: &PgnGame, line: &Line, ply: usize, w: &mut Wrapper<'_>) {
    for &span in &line.comments {
        w.comment(span.bytes(&game.text));
    }
    // Black's move takes a number (`12...`) at the start of a line and
    // after a comment or a variation.
    let mut numbered = false;
    let mut word = String::new();
    for (i, node) in line.moves.iter().enumerate() {
        let Some(san) = node.san else { break };
        let ply = ply + i;
        if ply.is_multiple_of(2) || !numbered {
            word.clear();
            let dots = if ply.is_multiple_of(2) { "." } else { "..." };
            let _ = write!(word, "{}{dots}", ply / 2 + 1);
            w.word(word.as_bytes(), true);
        }
        w.word(san.as_str().as_bytes(), true);
        for &nag in node.nags() {
            word.clear();
            let _ = write!(word, "${nag}");
            w.word(word.as_bytes(), true);
        }
        numbered = true;
        for span in node.comments() {
            w.comment(span.bytes(&game.text));
            numbered = false;
        }
        for variation in node.variations() {
            let empty = variation.moves.first().is_none_or(|m| m.san.is_none());
            if empty && variation.comments.is_empty() {
                continue;
            }
            w.word(b"(", true);
            w.glue = true;
            write_line(game, variation, ply, w);
            w.glue = false;
            w.word(b")", false);
            numbered = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_parsed;
    use crate::parse::parse_game;

    fn canonical(text: &str) -> String {
        let mut game = parse_game(text.as_bytes().to_vec());
        let verdict = check_parsed(&mut game).unwrap();
        let mut out = Vec::new();
        write_canonical(&game, &verdict, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_variant_game_carries_lichess_s_name_and_its_own_fen() {
        let out = canonical(
            "[Variant \"koth\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. e3 e6 *",
        );
        assert!(out.contains("[Variant \"King of the Hill\"]\n"), "{out}");
        assert!(!out.contains("[FEN ") && !out.contains("[SetUp "), "{out}");
        assert!(out.ends_with("\n\n1. e3 e6 *\n\n"), "{out}");
        // Lichess's checks given, written as remaining checks; a drop's SAN.
        let out = canonical(
            "[Variant \"3-check\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 5 40 +1+0\"]\n\n40... Kd7 41. Rh7+ *",
        );
        assert!(out.contains("[Variant \"Three-check\"]\n[SetUp \"1\"]\n"), "{out}");
        assert!(out.contains("[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 2+3 5 40\"]\n"), "{out}");
        assert!(out.ends_with("\n\n40... Kd7 41. Rh7+ *\n\n"), "{out}");
        let out =
            canonical("[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 *");
        assert!(out.ends_with("4. @d4 *\n\n"), "{out}");
        // A chess game's tags are left as written.
        let out = canonical("[Variant \"Standard\"]\n\n1. e4 *");
        assert!(out.contains("[Variant \"Standard\"]\n"), "{out}");
    }
}
