//! One game's text read into tags and a tree of moves: comments, NAGs and
//! suffix annotations, clocks and nested variations. Nothing is copied:
//! tags, moves and comments are spans of the game's bytes, so reading a game
//! allocates only the vectors of its lines.
//!
//! The reading is in three parts: the tokenizer (`tokens`: what a byte or a
//! token is, and the loop over the commonest tokens), the parser
//! (`parser`: tags, lines of moves, comments and variations) and the cutter
//! (`cut`: the parser run over a stream to find where its first game
//! ends). This module holds the game they read into.

mod cut;
mod parser;
mod tokens;

use std::borrow::Cow;
use std::fmt;

pub use super::terms::MAX_VARIATION_DEPTH;
use super::terms::{ResultToken, VariationError};
use arbiter_chess::SanString;
pub(super) use cut::{Cut, cut_game};
use parser::{Parser, read};

/// A stretch of a game's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    fn new(start: usize, end: usize) -> Span {
        // Games are at most a few megabytes (the reader's limit).
        Span { start: start as u32, len: (end - start) as u32 }
    }

    /// Its bytes in `text`.
    pub fn bytes<'a>(&self, text: &'a [u8]) -> &'a [u8] {
        let start = self.start as usize;
        text.get(start..start + self.len as usize).unwrap_or_default()
    }
}

/// A time from a comment's `[%clk H:MM:SS]` (the mover's remaining time
/// after the move) or `[%emt H:MM:SS]` (the time the move took), to the
/// millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClockTime {
    pub millis: u64,
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.millis / 1000;
        write!(f, "{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)?;
        match self.millis % 1000 {
            0 => Ok(()),
            ms if ms % 100 == 0 => write!(f, ".{}", ms / 100),
            ms => write!(f, ".{ms:03}"),
        }
    }
}

/// One move of a line, with what follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNode {
    /// The move as written, without move number or suffix annotation.
    pub text: Span,
    /// Its canonical SAN, once checked and found legal.
    pub san: Option<SanString>,
    /// The first comment after the move (most moves have at most one).
    comment: Option<Span>,
    /// The rarer rest: more comments, NAGs, variations.
    extra: Option<Box<Extra>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Extra {
    comments: Vec<Span>,
    nags: Vec<u8>,
    variations: Vec<Line>,
}

impl MoveNode {
    /// Whether a comment follows the move.
    pub(crate) fn has_comment(&self) -> bool {
        self.comment.is_some()
    }

    /// The comments after the move, in order.
    pub fn comments(&self) -> impl Iterator<Item = Span> + '_ {
        self.comment.into_iter().chain(self.extra.iter().flat_map(|e| e.comments.iter().copied()))
    }

    /// Its NAGs, suffix annotations included (`!` is `$1` ... `?!` is `$6`).
    pub fn nags(&self) -> &[u8] {
        self.extra.as_ref().map_or(&[], |e| &e.nags)
    }

    /// The variations that replace this move.
    pub fn variations(&self) -> &[Line] {
        self.extra.as_ref().map_or(&[], |e| &e.variations)
    }

    /// The variations, to fill in their SAN.
    pub fn variations_mut(&mut self) -> &mut [Line] {
        self.extra.as_mut().map_or(&mut [], |e| &mut e.variations)
    }

    fn extra(&mut self) -> &mut Extra {
        self.extra.get_or_insert_default()
    }

    fn add_comment(&mut self, span: Span) {
        if self.comment.is_none() {
            self.comment = Some(span);
        } else {
            self.extra().comments.push(span);
        }
    }
}

/// A line of moves: the mainline or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// Comments before its first move.
    pub comments: Vec<Span>,
    pub moves: Vec<MoveNode>,
}

impl Line {
    /// Puts a comment after the line's last move, or before its first.
    #[inline]
    fn attach_comment(&mut self, span: Span) {
        match self.moves.last_mut() {
            Some(last) => last.add_comment(span),
            None => self.comments.push(span),
        }
    }
}

/// What a reader keeps of each game beyond what checking it needs (its
/// moves, its result token, the [`KNOWN_TAGS`]): every game's line number,
/// comments and tags, unless its output is a summary, which prints none of
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Keep {
    /// The line each game starts on (else 0).
    pub(crate) lines: bool,
    /// The comments (else none: no clocks either).
    pub(crate) comments: bool,
    /// Every tag (else only the known ones).
    pub(crate) tags: bool,
}

impl Keep {
    pub(crate) const ALL: Keep = Keep { lines: true, comments: true, tags: true };
    pub(crate) const SUMMARY: Keep = Keep { lines: false, comments: false, tags: false };
}

/// The tags the checks of a game read: their values are found as it is
/// read, so that looking one up costs no search.
const KNOWN_TAGS: usize = 5;

/// The place of a tag called `name` among the known ones, if it is one.
#[inline]
fn known_tag(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"Result" => 0,
        b"Termination" => 1,
        b"SetUp" => 2,
        b"FEN" => 3,
        b"Variant" => 4,
        _ => return None,
    })
}

/// The raw value of the first tag of each known name a game has (a span
/// that starts at [`KnownTags::NONE`]: no such tag), kept small: the game
/// read is handed on by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownTags([Span; KNOWN_TAGS]);

impl Default for KnownTags {
    fn default() -> KnownTags {
        KnownTags([Span { start: KnownTags::NONE, len: 0 }; KNOWN_TAGS])
    }
}

impl KnownTags {
    /// Where a missing tag's span starts: past any game's text.
    const NONE: u32 = u32::MAX;

    /// Notes the tag `name` with the value `value`, if its name is known
    /// and it is the first of that name.
    #[inline]
    pub(crate) fn note(&mut self, name: &[u8], value: Span) {
        if let Some(k) = known_tag(name)
            && self.0[k].start == KnownTags::NONE
        {
            self.0[k] = value;
        }
    }

    /// The value of the known tag at `k`, if the game has it.
    fn get(&self, k: usize) -> Option<Span> {
        Some(self.0[k]).filter(|span| span.start != KnownTags::NONE)
    }
}

/// One game read from PGN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The game's text, which the spans point into.
    pub text: Vec<u8>,
    /// Tag names and raw values (escapes kept), in order (a reader for a
    /// summary keeps none: only the known ones, in `known`).
    tags: Vec<(Span, Span)>,
    /// The known tags' values.
    known: KnownTags,
    pub mainline: Line,
    /// The result token closing the movetext, if any.
    pub result_token: Option<ResultToken>,
    /// Variations that could not be read (before any move, or too deep).
    pub syntax_errors: Vec<VariationError>,
}

/// Text as UTF-8, or as Latin-1 (the PGN standard's character set) when it
/// is not valid UTF-8.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

impl PgnGame {
    /// The tags in order, values unescaped.
    pub fn tags(&self) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
        self.tags.iter().map(|(name, value)| {
            (decode(name.bytes(&self.text)), unescape(value.bytes(&self.text)))
        })
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<Cow<'_, str>> {
        if let Some(k) = known_tag(name.as_bytes()) {
            return self.known.get(k).map(|value| unescape(value.bytes(&self.text)));
        }
        self.tags
            .iter()
            .find(|(n, _)| n.bytes(&self.text) == name.as_bytes())
            .map(|(_, value)| unescape(value.bytes(&self.text)))
    }

    /// The clock after the move `node` of this game and the time the move
    /// took: the first `[%clk]` and the first `[%emt]` of its comments.
    /// Read when asked, one pass over the comments' `%` signs.
    pub fn times(&self, node: &MoveNode) -> Times {
        let mut times = Times::default();
        // Most moves have one comment or none: no iterator over the rest.
        let Some(first) = node.comment else { return times };
        read_times(first.bytes(&self.text), &mut times);
        if let Some(extra) = &node.extra {
            for span in &extra.comments {
                if times.clk.is_some() && times.emt.is_some() {
                    break;
                }
                read_times(span.bytes(&self.text), &mut times);
            }
        }
        times
    }

    /// The text of `span` (a move or a comment).
    pub fn str(&self, span: Span) -> Cow<'_, str> {
        decode(span.bytes(&self.text))
    }
}

/// A tag value without its escapes (`\"` and `\\`).
fn unescape(raw: &[u8]) -> Cow<'_, str> {
    if !raw.contains(&b'\\') {
        return decode(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter();
    while let Some(&b) = bytes.next() {
        out.push(if b == b'\\' { bytes.next().copied().unwrap_or(b) } else { b });
    }
    Cow::Owned(decode(&out).into_owned())
}

/// The clock and the time taken that a move's comments give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Times {
    /// `[%clk H:MM:SS(.f)]`: the mover's remaining time after the move.
    pub clk: Option<ClockTime>,
    /// `[%emt H:MM:SS(.f)]`: the time the move took.
    pub emt: Option<ClockTime>,
}

/// Reads the first `[%clk ...]` and `[%emt ...]` of a comment into the
/// `times` not yet found.
fn read_times(comment: &[u8], times: &mut Times) {
    // A byte loop, not memchr: a clock comment is a dozen bytes, shorter
    // than what a vector search costs to set up, and is read once a move.
    let mut k = 0;
    while k < comment.len() {
        if comment[k] != b'%' || k == 0 || comment[k - 1] != b'[' {
            k += 1;
            continue;
        }
        let slot = match comment.get(k + 1..k + 4) {
            Some(b"clk") => &mut times.clk,
            Some(b"emt") => &mut times.emt,
            _ => {
                k += 1;
                continue;
            }
        };
        if slot.is_none() {
            *slot = read_time(&comment[k + 4..]);
            if times.clk.is_some() && times.emt.is_some() {
                return;
            }
        }
        k += 4;
    }
}

/// The `H:MM:SS(.f)` at the start of `rest` (after spaces), ended by `]`
/// or a space: at most nine digits a number, minutes and seconds under
/// 60, the fraction to the millisecond (digits past the third dropped).
/// One pass over the bytes: a lichess game has one a move.
fn read_time(rest: &[u8]) -> Option<ClockTime> {
    let mut at = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let number = |at: &mut usize| -> Option<u64> {
        let start = *at;
        let mut value: u64 = 0;
        while let Some(&d) = rest.get(*at).filter(|d| d.is_ascii_digit()) {
            value = value.saturating_mul(10).saturating_add(u64::from(d - b'0'));
            *at += 1;
        }
        (1..=9).contains(&(*at - start)).then_some(value)
    };
    let hours = number(&mut at)?;
    (rest.get(at) == Some(&b':')).then_some(())?;
    at += 1;
    let minutes = number(&mut at).filter(|&m| m < 60)?;
    (rest.get(at) == Some(&b':')).then_some(())?;
    at += 1;
    let seconds = number(&mut at).filter(|&s| s < 60)?;
    let mut millis = 0;
    if rest.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while let Some(&d) = rest.get(at).filter(|d| d.is_ascii_digit()) {
            if at - start < 3 {
                millis = millis * 10 + u64::from(d - b'0');
            }
            at += 1;
        }
        match at - start {
            0 => return None,
            1 => millis *= 100,
            2 => millis *= 10,
            _ => {}
        }
    }
    rest.get(at).filter(|&&b| b == b']' || b.is_ascii_whitespace())?;
    Some(ClockTime { millis: ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis })
}

/// Reads one game's text (as [`super::GameReader`] cuts it).
///
/// ```
/// use arbiter_pgn::parse_game;
/// let game = parse_game(b"[White \"A \\\"B\\\"\"]\n\n1. e4!? {good} (1. d4 $1) 1... e5 1-0".to_vec());
/// assert_eq!(game.tag("White").unwrap(), "A \"B\"");
/// let e4 = &game.mainline.moves[0];
/// assert_eq!(game.str(e4.text), "e4");
/// assert_eq!(e4.nags(), [5]);
/// assert_eq!(e4.variations()[0].moves.len(), 1);
/// assert_eq!(game.mainline.moves.len(), 2);
/// ```
pub fn parse_game(text: Vec<u8>) -> PgnGame {
    let parts = read(&mut Parser::<true>::new(&text, false, Keep::ALL, &mut Spare::default()));
    parts.with_text(text)
}

/// Vectors kept from games handed back (see [`super::GameReader::recycle`])
/// to read the next games into, rather than allocating them anew and
/// freeing them again game after game: the text, the tags, the mainline's
/// moves, and the tag names the cut compares. Only vectors of ordinary
/// size are kept, so that one huge game does not hold its memory after it.
#[derive(Clone, Debug, Default)]
pub(super) struct Spare {
    pub(super) text: Vec<u8>,
    tags: Vec<(Span, Span)>,
    moves: Vec<MoveNode>,
    names: Vec<Span>,
}

/// The most items (moves, tags, names) a vector kept holds room for.
const SPARE_ITEMS: usize = 1024;
/// The most bytes of text a vector kept holds room for.
const SPARE_TEXT: usize = 64 << 10;

impl Spare {
    /// Keeps the vectors of `game`, emptied, if they are of ordinary size.
    pub(super) fn keep(&mut self, game: PgnGame) {
        let PgnGame { mut text, tags, mainline, .. } = game;
        if text.capacity() <= SPARE_TEXT {
            text.clear();
            self.text = text;
        }
        keep(&mut self.tags, tags);
        keep(&mut self.moves, mainline.moves);
    }

    /// Takes back the vectors of a game read and not handed out.
    fn give_back(&mut self, parsed: Parsed) {
        let Parsed { tags, mainline, .. } = parsed;
        keep(&mut self.tags, tags);
        keep(&mut self.moves, mainline.moves);
    }
}

/// Keeps `vector` in `place`, emptied, if it has room for at most
/// [`SPARE_ITEMS`] items.
fn keep<T>(place: &mut Vec<T>, mut vector: Vec<T>) {
    if vector.capacity() <= SPARE_ITEMS {
        vector.clear();
        *place = vector;
    }
}

/// A game read, but for its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    tags: Vec<(Span, Span)>,
    known: KnownTags,
    mainline: Line,
    result_token: Option<ResultToken>,
    syntax_errors: Vec<VariationError>,
}

impl Parsed {
    /// The game, with the text its spans point into.
    pub(super) fn with_text(self, text: Vec<u8>) -> PgnGame {
        let Parsed { tags, known, mainline, result_token, syntax_errors } = self;
        PgnGame { text, tags, known, mainline, result_token, syntax_errors }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::VariationReason;

    pub(super) fn game(text: &str) -> PgnGame {
        parse_game(text.as_bytes().to_vec())
    }

    pub(super) fn moves(game: &PgnGame, line: &Line) -> Vec<String> {
        line.moves.iter().map(|m| game.str(m.text).into_owned()).collect()
    }

    #[test]
    fn move_numbers_in_every_form() {
        let g = game("1. e4 1... e5 2.Nf3 2...Nc6 3. ... Bb5 a6 4 Ba4 5.. Nf6 0-0 1/2-1/2");
        assert_eq!(
            moves(&g, &g.mainline),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "0-0"]
        );
        assert_eq!(g.result_token, Some(ResultToken::Draw));
    }

    #[test]
    fn suffix_annotations_and_nags() {
        let g = game("1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 ! $14 Nf6 ?? *");
        let nags: Vec<&[u8]> = g.mainline.moves.iter().map(MoveNode::nags).collect();
        assert_eq!(nags, [&[1][..], &[2], &[3], &[4], &[5], &[6], &[1, 14], &[4]]);
        assert_eq!(moves(&g, &g.mainline)[6], "Ba4");
        assert_eq!(g.result_token, Some(ResultToken::Ongoing));
    }

    #[test]
    fn comments_of_every_kind() {
        let g = game("{before} 1. e4 {a { inside} ; rest of line\n% escape e5\ne5 {x} {y} *");
        assert_eq!(g.str(g.mainline.comments[0]), "before");
        let e4 = &g.mainline.moves[0];
        let comments: Vec<_> = e4.comments().map(|c| g.str(c).into_owned()).collect();
        assert_eq!(comments, ["a { inside", " rest of line"]);
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5"]);
        assert_eq!(g.mainline.moves[1].comments().count(), 2);
    }

    #[test]
    fn nested_variations_attach_to_the_move_they_replace() {
        let g = game("1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) d6) (1... e6) 2. Nf3 *");
        let e5 = &g.mainline.moves[1];
        assert_eq!(e5.variations().len(), 2);
        let sicilian = &e5.variations()[0];
        assert_eq!(moves(&g, sicilian), ["c5", "Nf3", "d6"]);
        assert_eq!(moves(&g, &sicilian.moves[1].variations()[0]), ["c3", "d5"]);
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5", "Nf3"]);
        assert!(g.syntax_errors.is_empty());
    }

    #[test]
    fn unreadable_variations_are_reported_not_followed() {
        let g = game("(1. d4) 1. e4 e5 *");
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5"]);
        assert_eq!(g.syntax_errors[0].reason, VariationReason::NoMoveBefore);
        let deep = format!("1. e4 {} e5 *", "(1. d4 ".repeat(100) + &")".repeat(100));
        let g = game(&deep);
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5"]);
        assert_eq!(g.syntax_errors.len(), 1);
        assert_eq!(g.syntax_errors[0].reason, VariationReason::TooDeep);
        assert_eq!(g.syntax_errors[0].path.len(), 2 * (MAX_VARIATION_DEPTH + 1));
    }

    #[test]
    fn tags_with_escapes_and_latin1() {
        let g = parse_game(
            b"[Event \"a \\\\ b \\\"c\\\"\"]\r\n[Site \"M\xfcnchen\"] [Round \"1\"]\r\n\r\n*"
                .to_vec(),
        );
        let tags: Vec<(String, String)> =
            g.tags().map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
        assert_eq!(tags[0], ("Event".into(), "a \\ b \"c\"".into()));
        assert_eq!(tags[1].1, "München");
        assert_eq!(g.tag("Round").unwrap(), "1");
        assert!(g.mainline.moves.is_empty());
    }

    #[test]
    fn clocks() {
        let g = game(
            "1. e4 { [%eval 0.2] [%clk 0:03:12] } e5 {[%clk 1:00:00.5]} 2. Nf3 {[%clk 0:99:00]} *",
        );
        let clocks: Vec<Option<u64>> =
            g.mainline.moves.iter().map(|m| g.times(m).clk.map(|c| c.millis)).collect();
        assert_eq!(clocks, [Some(192_000), Some(3_600_500), None]);
        let g = game(
            "1. e4 {[%emt 0:00:02.25] [%clk 0:03:12] [%clk 0:00:01]} e5 {[%emt 1:2:3]} {[%clk 0:0:1]} \
             2. Nf3 {[%emt]} {[%emt 0:00:04]} 2... Nc6 {%clk 0:00:01 [% clk 0:00:01]} *",
        );
        let times: Vec<(Option<u64>, Option<u64>)> = g
            .mainline
            .moves
            .iter()
            .map(|m| {
                let Times { clk, emt } = g.times(m);
                (clk.map(|c| c.millis), emt.map(|c| c.millis))
            })
            .collect();
        assert_eq!(
            times,
            [
                (Some(192_000), Some(2_250)),
                (Some(1_000), Some(3_723_000)),
                (None, Some(4_000)),
                (None, None)
            ]
        );
        assert_eq!(ClockTime { millis: 3_600_500 }.to_string(), "1:00:00.5");
        // Every shape read or refused, with no overflow on long numbers.
        for (text, millis) in [
            ("0:05:00]", Some(300_000)),
            ("  1:2:3 ", Some(3_723_000)),
            ("0:00:01.5]", Some(1_500)),
            ("0:00:01.25]", Some(1_250)),
            ("0:00:01.2349]", Some(1_234)),
            ("999999999:59:59]", Some(3_599_999_999_999_000)),
            ("1000000000:00:00]", None),
            ("0:60:00]", None),
            ("0:00:60]", None),
            ("0:00:01.]", None),
            ("0:00:01", None),
            ("0:00:01x]", None),
            (":00:01]", None),
            ("0::01]", None),
            (&format!("{}:00:00]", "9".repeat(40)), None),
            (&format!("0:00:00.{}]", "9".repeat(40)), Some(999)),
        ] {
            assert_eq!(read_time(text.as_bytes()).map(|c| c.millis), millis, "{text}");
        }
        assert_eq!(ClockTime { millis: 192_000 }.to_string(), "0:03:12");
    }

    #[test]
    fn uci_movetext_and_castling_with_zeros() {
        let g = game("1. e2e4 e7e5 2. g1f3 b8c6 3. O-O 0-0-0+ *");
        assert_eq!(moves(&g, &g.mainline), ["e2e4", "e7e5", "g1f3", "b8c6", "O-O", "0-0-0+"]);
    }
}
