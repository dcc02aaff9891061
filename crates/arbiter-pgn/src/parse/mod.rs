//! One game's text read into tags and a tree of moves: comments, NAGs and
//! suffix annotations, clocks and nested variations. Nothing is copied:
//! tags, moves and comments are spans of the game's bytes, so reading a game
//! allocates only the vectors of its lines.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

pub use super::terms::MAX_VARIATION_DEPTH;
use super::terms::{
    ResultToken, VariationError, VariationReason, is_delimiter, is_result, skims, starts_token,
};
use arbiter_chess::SanString;

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

/// A clock reading from a `[%clk H:MM:SS]` comment, to the millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Clock {
    pub millis: u64,
}

impl fmt::Display for Clock {
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

/// One game read from PGN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The game's text, which the spans point into.
    pub text: Vec<u8>,
    /// Tag names and raw values (escapes kept), in order.
    tags: Vec<(Span, Span)>,
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
        self.tags
            .iter()
            .find(|(n, _)| n.bytes(&self.text) == name.as_bytes())
            .map(|(_, value)| unescape(value.bytes(&self.text)))
    }

    /// The clock after the move `node` of this game, from the first of its
    /// comments with a `[%clk]` command. Read when asked: the validation
    /// and the outputs need no clock, and reading every comment for one
    /// cost a twentieth of reading a game of lichess's.
    pub fn clock(&self, node: &MoveNode) -> Option<Clock> {
        node.comments().find_map(|span| read_clock(span.bytes(&self.text)))
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

/// The clock in a comment's `[%clk H:MM:SS(.f)]`, if there is one.
fn read_clock(comment: &[u8]) -> Option<Clock> {
    // By `%` and a comparison: a memmem searcher costs more to set up than
    // a short comment costs to search.
    let mut from = 0;
    let at = loop {
        let k = from + memchr::memchr(b'%', &comment[from..])?;
        if k > 0 && comment[k - 1] == b'[' && comment[k + 1..].starts_with(b"clk") {
            break k - 1;
        }
        from = k + 1;
    };
    let rest = comment[at + 5..].trim_ascii_start();
    let end = rest.iter().position(|&b| b == b']' || b.is_ascii_whitespace())?;
    let mut parts = rest[..end].split(|&b| b == b':');
    let number = |part: &[u8]| -> Option<u64> {
        if part.is_empty() || part.len() > 9 || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        part.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
    };
    let hours = number(parts.next()?)?;
    let minutes = number(parts.next()?)?;
    let seconds = parts.next()?;
    if parts.next().is_some() || minutes >= 60 {
        return None;
    }
    let (whole, fraction) = match seconds.iter().position(|&b| b == b'.') {
        Some(dot) => (&seconds[..dot], &seconds[dot + 1..]),
        None => (seconds, &b""[..]),
    };
    let whole = number(whole)?;
    if whole >= 60 {
        return None;
    }
    let mut millis = 0;
    if !fraction.is_empty() {
        let digits = number(fraction.get(..fraction.len().min(3))?)?;
        millis = digits * [100, 10, 1][fraction.len().min(3) - 1];
    }
    let total = ((hours * 60 + minutes) * 60 + whole).checked_mul(1000)?.checked_add(millis)?;
    Some(Clock { millis: total })
}

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
enum Token<'a> {
    /// A move number, an ellipsis or anything else with no move in it.
    Nothing,
    Result(ResultToken),
    /// A move's text, and the NAG of its suffix annotation.
    Move(&'a [u8], usize, Option<u8>),
    /// A suffix annotation standing alone.
    Nag(u8),
}

#[inline]
fn classify(token: &[u8], start: usize) -> Token<'_> {
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

/// `BUILD` off, the parser only finds where a game ends (see
/// [`cut_game`]): it follows the same bytes the same way, but keeps no tags,
/// moves or comments.
struct Parser<'a, const BUILD: bool> {
    text: &'a [u8],
    pos: usize,
    errors: Vec<VariationError>,
    /// Whether the parser also finds where the game ends in a stream (see
    /// [`cut_game`]); off, it reads a text already cut to one game.
    cutting: bool,
    /// Where the next game begins, once found: the start of a tag line.
    stop: Option<usize>,
    /// The names of the tags that begin their line, for telling the next
    /// game's tags after a blank line.
    names: Vec<Span>,
    /// The same names as a set, once there are many of them (see
    /// [`Parser::named_before`]).
    many: Option<HashSet<&'a [u8]>>,
    /// A vector for the mainline's moves (see [`Spare`]).
    moves: Vec<MoveNode>,
}

/// The tag names searched one by one (every real game has fewer).
const FEW_NAMES: usize = 32;

impl<'a, const BUILD: bool> Parser<'a, BUILD> {
    /// A parser of `text` that takes its vectors from `spare` (see
    /// [`Parser::give_back`]).
    fn new(text: &'a [u8], cutting: bool, spare: &mut Spare) -> Parser<'a, BUILD> {
        let names = std::mem::take(&mut spare.names);
        let moves = std::mem::take(&mut spare.moves);
        Parser { text, pos: 0, errors: Vec::new(), cutting, stop: None, names, many: None, moves }
    }

    /// Puts the vectors it took back in `spare`, emptied.
    fn give_back(self, spare: &mut Spare) {
        let Parser { names, moves, .. } = self;
        keep(&mut spare.names, names);
        keep(&mut spare.moves, moves);
    }

    /// The start of the line `at` is on, if only whitespace comes before
    /// `at` on it.
    fn line_start_before(&self, at: usize) -> Option<usize> {
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
    fn tag(&mut self, first: bool) -> Option<(Span, Span)> {
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
                let end = plain_tokens(text, self.pos, &mut line);
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
                        if BUILD {
                            attach_comment(&mut line, Span::new(start, end));
                        }
                    }
                    b';' => {
                        let start = self.pos + 1;
                        let end = self.skip_line();
                        let end = if end > start && text[end - 1] == b'\r' { end - 1 } else { end };
                        if BUILD {
                            attach_comment(&mut line, Span::new(start, end));
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

/// Bytes that end a tag's name: white space, `"` and `]`.
const NAME_END: u8 = 1;
/// Bytes that end the text of a tag's value, or escape the next byte.
const VALUE_END: u8 = 2;

/// [`NAME_END`] and [`VALUE_END`] by byte: one load each where the tests
/// they replace took several.
static TAG_BYTES: [u8; 256] = {
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

/// What a byte begins or is, for [`plain_tokens`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plain {
    Other,
    /// White space that is a delimiter (a form feed is not).
    Space,
    Letter,
    Digit,
}

static PLAIN: [Plain; 256] = {
    let mut table = [Plain::Other; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b' ' | b'\t' | b'\n' | b'\r' => Plain::Space,
            _ if c.is_ascii_alphabetic() => Plain::Letter,
            _ if c.is_ascii_digit() => Plain::Digit,
            _ => Plain::Other,
        };
        b += 1;
    }
    table
};

/// Reads from `pos` the commonest tokens by far, and the white space
/// between them, in a loop of their own: moves with no suffix annotation
/// (pushed on `line`) and move numbers (digits, then dots). Returns where
/// it stopped: the end of the text, or the start of anything else (a
/// comment, a variation, a NAG, a result, a move with a suffix ...), which
/// the general way reads. Delimiters are as [`is_delimiter`] says.
#[inline(always)]
fn plain_tokens(text: &[u8], mut pos: usize, line: &mut Line) -> usize {
    while let Some(&b) = text.get(pos) {
        let class = PLAIN[usize::from(b)];
        let end = if class == Plain::Letter {
            let end = move_end(text, pos);
            if matches!(text[end - 1], b'!' | b'?') {
                break;
            }
            line.moves.push(MoveNode { text: Span::new(pos, end), ..MoveNode::default() });
            end
        } else if class == Plain::Digit {
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
        } else if class == Plain::Space {
            pos + 1
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

/// Puts a comment after the line's last move, or before its first.
#[inline]
fn attach_comment(line: &mut Line, span: Span) {
    match line.moves.last_mut() {
        Some(last) => last.add_comment(span),
        None => line.comments.push(span),
    }
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
    let parts = read(&mut Parser::<true>::new(&text, false, &mut Spare::default()));
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
    mainline: Line,
    result_token: Option<ResultToken>,
    syntax_errors: Vec<VariationError>,
}

impl Parsed {
    /// The game, with the text its spans point into.
    pub(super) fn with_text(self, text: Vec<u8>) -> PgnGame {
        let Parsed { tags, mainline, result_token, syntax_errors } = self;
        PgnGame { text, tags, mainline, result_token, syntax_errors }
    }
}

fn read(parser: &mut Parser<'_, true>) -> Parsed {
    let mut tags = Vec::new();
    while let Some(tag) = parser.tag(tags.is_empty()) {
        tags.push(tag);
    }
    read_after_tags(parser, tags)
}

fn read_after_tags<const BUILD: bool>(
    parser: &mut Parser<'_, BUILD>,
    tags: Vec<(Span, Span)>,
) -> Parsed {
    let (mainline, result_token) = if parser.stop.is_some() {
        (Line::default(), None)
    } else {
        parser.line(0, &mut Vec::new())
    };
    let syntax_errors = std::mem::take(&mut parser.errors);
    Parsed { tags, mainline, result_token, syntax_errors }
}

/// Where the game at the start of a stream's text ends.
pub(super) enum Cut {
    /// The game, read, and the length of its text.
    Game(Parsed, usize),
    /// The text may go on: more is needed to tell.
    More,
    /// The movetext begins on a line with a tag (`[A "x"] 1. e4`): where
    /// such a game ends is for the line-by-line rules to say.
    ByLines,
}

/// Reads the game at the start of `text` (whole lines; the last may lack
/// its end only `at_end`, at the end of the stream) and finds where it
/// ends, in one pass: the end of the line of its result token outside
/// comments and variations, or the start of a tag line after its movetext,
/// or (tags only) of a tag line repeating one of its tags after a blank
/// line, or the end of the stream.
///
/// `BUILD` off, the game is not kept (its [`Parsed`] is empty): the end is
/// found the same way, for a caller that reads the game elsewhere.
pub(super) fn cut_game<const BUILD: bool>(text: &[u8], at_end: bool, spare: &mut Spare) -> Cut {
    let mut parser = Parser::<BUILD>::new(text, true, spare);
    let mut tags = Vec::new();
    if BUILD {
        tags = std::mem::take(&mut spare.tags);
        // Room for the tags of nearly every game at once (lichess writes
        // 17 or 18), rather than growing through four reallocations.
        tags.reserve(24);
    }
    let mut first = true;
    while let Some(tag) = parser.tag(first) {
        first = false;
        if BUILD {
            tags.push(tag);
        }
    }
    if parser.stop.is_none()
        && parser.pos < text.len()
        && parser.line_start_before(parser.pos).is_none()
    {
        parser.give_back(spare);
        keep(&mut spare.tags, tags);
        return Cut::ByLines;
    }
    let parts = read_after_tags(&mut parser, tags);
    let end = match (parser.stop, parts.result_token) {
        (Some(stop), _) => Some(stop),
        (None, Some(_)) => match memchr::memchr(b'\n', &text[parser.pos..]) {
            Some(k) => Some(parser.pos + k + 1),
            None if at_end => Some(text.len()),
            None => None,
        },
        (None, None) if at_end => Some(text.len()),
        (None, None) => None,
    };
    parser.give_back(spare);
    match end {
        Some(end) => Cut::Game(parts, end),
        None => {
            spare.give_back(parts);
            Cut::More
        }
    }
}

/// The end of the token that starts at `start` (a byte that is no
/// delimiter): the next delimiter or the end of the text.
#[inline]
fn token_end(text: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    while end < text.len() && !is_delimiter(text[end]) {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(text: &str) -> PgnGame {
        parse_game(text.as_bytes().to_vec())
    }

    fn moves(game: &PgnGame, line: &Line) -> Vec<String> {
        line.moves.iter().map(|m| game.str(m.text).into_owned()).collect()
    }

    /// Found by the `pgn` fuzz target: a form feed before the next game's
    /// tag line was read as a move of the game cut before it.
    #[test]
    fn a_form_feed_before_the_next_tag_line_is_whitespace() {
        let text = b"[Event \"a\"]\n\n1. f3 e5\n\x0c[Event \"b\"]\n\n1. e4 *\n";
        let Cut::Game(parsed, end) = cut_game::<true>(text, true, &mut Spare::default()) else {
            panic!("a game")
        };
        assert_eq!(&text[end..end + 2], b"\x0c[");
        assert_eq!(parsed.with_text(text[..end].to_vec()), parse_game(text[..end].to_vec()));
        let g = game("1. e4 \x0c e5 *");
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5"]);
    }

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
            g.mainline.moves.iter().map(|m| g.clock(m).map(|c| c.millis)).collect();
        assert_eq!(clocks, [Some(192_000), Some(3_600_500), None]);
        assert_eq!(Clock { millis: 3_600_500 }.to_string(), "1:00:00.5");
        assert_eq!(Clock { millis: 192_000 }.to_string(), "0:03:12");
    }

    #[test]
    fn uci_movetext_and_castling_with_zeros() {
        let g = game("1. e2e4 e7e5 2. g1f3 b8c6 3. O-O 0-0-0+ *");
        assert_eq!(moves(&g, &g.mainline), ["e2e4", "e7e5", "g1f3", "b8c6", "O-O", "0-0-0+"]);
    }
}
