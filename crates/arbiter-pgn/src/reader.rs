//! Cutting a PGN stream into games, from any `BufRead` ([`GameReader`]) or
//! from pieces pushed ([`Splitter`]), in memory bounded by the game size
//! limit. Each game is parsed as it is cut: the parser finds its end (one
//! pass over the text); a game whose movetext begins on a tag line is cut
//! by the line rules instead ([`Scan`]).
//!
//! A game ends at the line of a result token outside comments and
//! variations, or where the next one begins: a tag line (`[` at the start
//! of a line, outside a comment) after movetext, or after a blank line that
//! closed a tag section (files of tags only have no movetext and no result
//! token). A game over the size limit is not kept: the reader skips to the
//! next line that starts with `[`, reports the game as too large, and goes
//! on from there.

use std::collections::{HashSet, VecDeque};
use std::io::{self, BufRead, Read};

use super::parse::{Cut, Keep, Parsed, PgnGame, Spare, cut_game, parse_game};
use super::terms::{is_delimiter, is_result};

/// The most bytes [`GameReader`] reads from its input at a time, straight
/// into its buffer.
const READ_BYTES: usize = 64 << 10;

/// Limits of the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderOptions {
    /// The largest game kept, in bytes; a larger one is skipped and reported.
    pub max_game_bytes: usize,
}

impl Default for ReaderOptions {
    fn default() -> ReaderOptions {
        // The longest real games with comments are tens of kilobytes.
        ReaderOptions { max_game_bytes: 1 << 20 }
    }
}

/// One game's text as read, or the note that it was too large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawGame {
    /// Its place in the stream, from 0.
    pub index: usize,
    /// The line it starts on, from 1.
    pub line: usize,
    /// Its bytes (tags and movetext), or `Err(bytes)` with the size of a
    /// game over the limit, which was not kept.
    pub text: Result<Vec<u8>, u64>,
    /// The game as read while it was cut from the stream, if it was.
    pub(super) parsed: Option<Parsed>,
}

impl RawGame {
    /// Its place, its first line, and the game read (once only: a game
    /// [`GameReader`] cut was read as it was cut).
    pub fn into_game(self) -> (usize, usize, Result<PgnGame, u64>) {
        let RawGame { index, line, text, parsed } = self;
        let game = text.map(|text| match parsed {
            Some(parsed) => parsed.with_text(text),
            None => parse_game(text),
        });
        (index, line, game)
    }
}

/// What a line says about where the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feed {
    More,
    /// This line begins the next game.
    NextGame,
    /// The game ends with this line (its result token).
    Ended,
}

/// Where the scan of a game stands.
#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    in_comment: bool,
    depth: u32,
    tags: bool,
    blank_after_tags: bool,
    movetext: bool,
}

impl Scan {
    /// Takes one line (without its end) into account; `names` holds the
    /// hashes of the game's tag names so far.
    fn feed(&mut self, line: &[u8], names: &mut HashSet<u64>) -> Feed {
        if !self.in_comment {
            if line.first() == Some(&b'%') {
                return Feed::More;
            }
            let first = line.iter().position(|b| !b.is_ascii_whitespace());
            match first.map(|i| line[i]) {
                None => {
                    self.blank_after_tags |= self.tags && !self.movetext;
                    return Feed::More;
                }
                Some(b'[') => {
                    let name = tag_name_hash(&line[first.unwrap_or(0)..]);
                    if self.movetext || (self.blank_after_tags && names.contains(&name)) {
                        return Feed::NextGame;
                    }
                    names.insert(name);
                    self.tags = true;
                    self.blank_after_tags = false;
                    return Feed::More;
                }
                Some(_) => {}
            }
        }
        self.movetext = true;
        self.scan_movetext(line)
    }

    /// Follows comments and variations along a movetext line, looking for
    /// a result token at the top level.
    fn scan_movetext(&mut self, line: &[u8]) -> Feed {
        let mut i = 0;
        let n = line.len();
        while i < n {
            if self.in_comment {
                match memchr::memchr(b'}', &line[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.in_comment = false;
                    }
                    None => return Feed::More,
                }
                continue;
            }
            match line[i] {
                b'{' => self.in_comment = true,
                b';' => return Feed::More,
                b'(' => self.depth += 1,
                b')' => self.depth = self.depth.saturating_sub(1),
                b => {
                    if !is_delimiter(b) {
                        let start = i;
                        while i < n && !is_delimiter(line[i]) {
                            i += 1;
                        }
                        if self.depth == 0 && is_result(&line[start..i]) {
                            return Feed::Ended;
                        }
                        continue;
                    }
                }
            }
            i += 1;
        }
        Feed::More
    }
}

/// A hash of the name of the tag on `line` (from its `[`), for telling a
/// repeated tag: after a blank line, a tag already in the game begins a new
/// game of tags only, and another goes on the same tag section (ChessBase
/// writes blank lines between tags). FNV-1a: short names, no allocation.
fn tag_name_hash(line: &[u8]) -> u64 {
    line[1..]
        .iter()
        .take_while(|b| !b.is_ascii_whitespace() && **b != b'"' && **b != b']')
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// `line` without its line end (`\n` or `\r\n`).
fn without_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Where the game at the start of `text` (whole lines, but for the last
/// one `at_end`) ends by the line-by-line rules; `None` when the text may
/// go on. Only games whose movetext begins on a tag line are cut this way.
fn cut_by_lines(text: &[u8], at_end: bool) -> Option<usize> {
    let mut scan = Scan::default();
    // A set: a game of many tags each after a blank line would make a
    // search through a list cost the square of its tags.
    let mut names = HashSet::new();
    let mut start = 0;
    while start < text.len() {
        let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |k| start + k + 1);
        match scan.feed(without_end(&text[start..end]), &mut names) {
            Feed::More => {}
            Feed::Ended => return Some(end),
            Feed::NextGame => return Some(start),
        }
        start = end;
    }
    at_end.then_some(text.len())
}

/// The lines in `text`.
fn newlines(text: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', text).count()
}

/// Where a game's text is in a buffer, or the size of a game over the
/// limit, which was not kept.
type TextRange = Result<std::ops::Range<usize>, u64>;

/// A game the cutter has cut: its place, its first line, where it starts
/// in the stream, where its text is in the cutter's buffer (until the next
/// piece is fed) or the size of a game over the limit, and the game as read
/// if the cutter parses.
pub(super) struct CutGame {
    index: usize,
    line: usize,
    pub(super) start: u64,
    text: TextRange,
    parsed: Option<Parsed>,
}

impl CutGame {
    /// Its size: the length of its text, or of a game over the limit.
    pub(super) fn size(&self) -> GameSize {
        match &self.text {
            Ok(range) => Ok(range.len()),
            Err(bytes) => Err(*bytes),
        }
    }
}

/// A game's size as the cutter saw it: its text's length, or `Err` with
/// the size of a game over the limit.
pub(super) type GameSize = Result<usize, u64>;

/// What the cutter has next.
pub(super) enum Next {
    Game(CutGame),
    /// More text, or the end of it, is needed.
    More,
    /// The stream is over.
    Done,
}

/// The core of [`GameReader`] and [`Splitter`]: text in, games out, each
/// parsed as it is cut (one pass over the text).
#[derive(Clone, Debug)]
pub(super) struct Cutter {
    options: ReaderOptions,
    /// Text taken and not yet handed out, from `pos` to `len`. The bytes
    /// past `len` mean nothing: they stay so that a read from the input
    /// goes straight into the buffer, with no copy and no zeroing first.
    buf: Vec<u8>,
    /// Where the text taken ends in `buf`.
    len: usize,
    /// Where `buf` starts in the stream (a byte-order mark counted).
    offset: u64,
    /// Where the unread text starts in `buf`: the start of a line, unless
    /// a game over the limit is being skipped.
    pos: usize,
    ended: bool,
    /// Whether the byte-order mark has been looked for.
    started: bool,
    /// The number of the line at `pos`, from 1.
    line: usize,
    next_index: usize,
    bytes_read: u64,
    /// The complete bytes past `pos` to have before trying to cut again,
    /// after a try found the game unfinished: twice what it saw, so that a
    /// long game is read again only a few times.
    need: usize,
    /// A game over the limit being skipped: its first line, where it
    /// starts, its bytes so far, and whether `pos` is at the start of a line.
    skipping: Option<(usize, u64, u64, bool)>,
    /// Whether an escape line (`%`) before a game is being skipped.
    escape: bool,
    /// Whether games are parsed as they are cut (else only cut).
    parse: bool,
    /// What of a game is kept beyond what its check needs.
    keep: Keep,
    /// Vectors of games handed back, to read the next ones into.
    spare: Spare,
}

impl Cutter {
    pub(super) fn new(options: ReaderOptions) -> Cutter {
        Cutter {
            options,
            buf: Vec::new(),
            len: 0,
            offset: 0,
            pos: 0,
            ended: false,
            started: false,
            line: 1,
            next_index: 0,
            bytes_read: 0,
            need: 0,
            skipping: None,
            escape: false,
            parse: true,
            keep: Keep::ALL,
            spare: Spare::default(),
        }
    }

    /// A cutter that takes a stream from a place where a game may begin
    /// (not its start: no byte-order mark is looked for).
    pub(super) fn mid_stream(options: ReaderOptions) -> Cutter {
        Cutter { started: true, ..Cutter::new(options) }
    }

    /// Takes the next piece of text; an empty one ends the stream.
    pub(super) fn feed(&mut self, data: &[u8]) {
        self.compact();
        self.buf.truncate(self.len);
        self.buf.extend_from_slice(data);
        self.took(data.len());
    }

    /// Reads the next piece of text from `input` straight into the buffer
    /// (at most [`READ_BYTES`]); `Ok(0)` ends the stream.
    fn read_from(&mut self, input: &mut impl Read) -> io::Result<usize> {
        self.compact();
        if self.buf.len() < self.len + READ_BYTES {
            // Zeroed once, when the buffer grows; then reused as it is.
            self.buf.resize(self.len + READ_BYTES, 0);
        }
        let n = loop {
            match input.read(&mut self.buf[self.len..self.len + READ_BYTES]) {
                Ok(n) => break n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        };
        self.took(n);
        Ok(n)
    }

    /// Moves the text not yet handed out to the start of the buffer.
    fn compact(&mut self) {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.offset += self.pos as u64;
            self.pos = 0;
        }
    }

    /// Counts `n` bytes just put past the text (none: the stream ends), and
    /// drops a byte-order mark at the start of the stream.
    fn took(&mut self, n: usize) {
        self.len += n;
        self.bytes_read += n as u64;
        self.ended |= n == 0;
        if !self.started && (self.len >= 3 || self.ended) {
            self.started = true;
            if self.buf[..self.len].starts_with(b"\xEF\xBB\xBF") {
                self.buf.copy_within(3..self.len, 0);
                self.len -= 3;
                self.offset += 3;
            }
        }
    }

    /// The text taken, handed out or not.
    fn text(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn emit(&mut self, line: usize, start: u64, text: TextRange, parsed: Option<Parsed>) -> Next {
        let line = if self.keep.lines { line } else { 0 };
        let index = self.next_index;
        self.next_index += 1;
        Next::Game(CutGame { index, line, start, text, parsed })
    }

    /// A game cut, with a copy of its text.
    /// (Into a vector kept from a game handed back, if there is one.)
    pub(super) fn raw(&mut self, game: CutGame) -> RawGame {
        let CutGame { index, line, text, parsed, .. } = game;
        let text = text.map(|range| {
            let mut copy = std::mem::take(&mut self.spare.text);
            copy.extend_from_slice(&self.text()[range]);
            copy
        });
        RawGame { index, line, text, parsed }
    }

    /// Keeps the vectors of a game handed out, to read the next games into.
    pub(super) fn recycle(&mut self, game: PgnGame) {
        self.spare.keep(game);
    }

    /// Where the game at the start of `text` ends (see [`cut_game`]), and
    /// the game read on the way if `parse`.
    fn cut(
        parse: bool,
        keep: Keep,
        spare: &mut Spare,
        text: &[u8],
        at_end: bool,
    ) -> Option<(usize, Option<Parsed>)> {
        let cut = if parse {
            cut_game::<true>(text, at_end, keep, spare)
        } else {
            cut_game::<false>(text, at_end, keep, spare)
        };
        match cut {
            Cut::Game(parsed, end) => Some((end, parse.then_some(parsed))),
            Cut::More => None,
            Cut::ByLines => cut_by_lines(text, at_end).map(|end| (end, None)),
        }
    }

    /// Hands out the game of `len` bytes at `pos`.
    fn take(&mut self, len: usize, parsed: Option<Parsed>) -> Next {
        let text = self.pos..self.pos + len;
        let (line, start) = (self.line, self.offset + self.pos as u64);
        if self.keep.lines {
            self.line += newlines(&self.text()[text.clone()]);
        }
        self.pos += len;
        self.need = 0;
        self.emit(line, start, Ok(text), parsed)
    }

    /// Starts skipping the game at `pos`, which is over the limit (more
    /// than the limit of it is here): its first bytes up to the limit and
    /// one, then whole lines up to the next that starts with `[`.
    fn skip(&mut self) {
        let start = self.pos + self.options.max_game_bytes + 1;
        let (line, offset) = (self.line, self.offset + self.pos as u64);
        if self.keep.lines {
            self.line += newlines(&self.text()[self.pos..start]);
        }
        let at_line_start = self.text()[start - 1] == b'\n';
        self.skipping = Some((line, offset, (start - self.pos) as u64, at_line_start));
        self.pos = start;
    }

    pub(super) fn next(&mut self) -> Next {
        let max = self.options.max_game_bytes;
        if let Some((line, start, mut bytes, mut at_line_start)) = self.skipping.take() {
            while self.pos < self.len && !(at_line_start && self.buf[self.pos] == b'[') {
                let (n, end) = match memchr::memchr(b'\n', &self.text()[self.pos..]) {
                    Some(k) => (k + 1, true),
                    None => (self.len - self.pos, false),
                };
                self.pos += n;
                bytes += n as u64;
                self.line += usize::from(end);
                at_line_start = end;
            }
            if self.pos == self.len && !self.ended {
                self.skipping = Some((line, start, bytes, at_line_start));
                return Next::More;
            }
            self.need = 0;
            return self.emit(line, start, Err(bytes), None);
        }
        if self.escape {
            match memchr::memchr(b'\n', &self.text()[self.pos..]) {
                Some(k) => {
                    self.pos += k + 1;
                    self.line += 1;
                    self.escape = false;
                }
                None => {
                    self.pos = self.len;
                    return if self.ended { Next::Done } else { Next::More };
                }
            }
        }
        if !self.started {
            return Next::More;
        }
        // Whole lines only, but for the last of the stream.
        let avail = if self.ended {
            self.len
        } else {
            memchr::memrchr(b'\n', &self.text()[self.pos..]).map_or(self.pos, |k| self.pos + k + 1)
        };
        // Blank or escape lines before a game are not part of it.
        while self.pos < avail {
            let end = memchr::memchr(b'\n', &self.buf[self.pos..avail])
                .map_or(avail, |k| self.pos + k + 1);
            let line = without_end(&self.buf[self.pos..end]);
            if line.first() != Some(&b'%') && !line.iter().all(u8::is_ascii_whitespace) {
                break;
            }
            self.line += usize::from(self.buf[end - 1] == b'\n');
            self.pos = end;
            self.need = 0;
        }
        if self.len - self.pos > max {
            // More than the limit is here: the game ends within it or is
            // over it. A line in part that may begin the next game (a tag
            // line) is looked at up to the limit.
            let partial = &self.text()[avail..];
            if avail == self.pos && partial.first() == Some(&b'%') {
                // An escape line before a game, longer than a game may be:
                // not kept, whatever its length.
                self.escape = true;
                return self.next();
            }
            let first = partial.iter().find(|b| !b.is_ascii_whitespace());
            let tag_like = first == Some(&b'[');
            if (tag_like || first.is_none()) && partial.len() <= max + 1 && avail - self.pos <= max
            {
                // Wait for that line, within a limit of its own.
                return Next::More;
            }
            // Copied only to end the partial line: all the text here may be
            // a whole file, and a copy of it a game would take time that
            // grows with its square.
            let end = if tag_like {
                let mut text = self.buf[self.pos..avail].to_vec();
                text.extend_from_slice(&partial[..partial.len().min(max + 1)]);
                text.push(b'\n');
                Cutter::cut(self.parse, self.keep, &mut self.spare, &text, false)
            } else {
                Cutter::cut(
                    self.parse,
                    self.keep,
                    &mut self.spare,
                    &self.buf[self.pos..avail],
                    false,
                )
            };
            return match end {
                Some((end, parsed)) if end <= (avail - self.pos).min(max) => self.take(end, parsed),
                _ => {
                    self.skip();
                    self.next()
                }
            };
        }
        if self.pos < avail && (avail - self.pos >= self.need || self.ended) {
            let text = &self.buf[self.pos..avail];
            let end = Cutter::cut(self.parse, self.keep, &mut self.spare, text, self.ended);
            match end {
                Some((end, _)) if end > max => {
                    self.skip();
                    return self.next();
                }
                Some((end, parsed)) => return self.take(end, parsed),
                None => self.need = 2 * (avail - self.pos),
            }
        }
        if self.ended { Next::Done } else { Next::More }
    }

    /// Whether the stream, going on after the text fed so far with the
    /// line `next` (its end included), has a game boundary right there: the
    /// games this cutter has yet to hand out end before `next`, and are the
    /// games it would hand out if the stream ended there instead.
    ///
    /// This is what lets chunks of one stream be read apart
    /// ([`super::ChunkGames`]): a chunk read to its end gives the games the
    /// whole stream gives from its start to the chunk's end iff it starts
    /// and ends at boundaries.
    pub(super) fn ends_before(&self, next: &[u8]) -> bool {
        let boundary = self.offset + self.len as u64;
        let mut ahead = self.clone();
        ahead.parse = false;
        ahead.feed(next);
        let mut sizes = Vec::new();
        let stands = loop {
            match ahead.next() {
                Next::Game(game) if game.start < boundary => sizes.push(game.size()),
                Next::Game(game) => break game.start == boundary,
                Next::More => {
                    break ahead.offset + ahead.pos as u64 == boundary
                        && ahead.skipping.is_none()
                        && !ahead.escape;
                }
                Next::Done => break false,
            }
        };
        stands && sizes == self.sizes_at_end()
    }

    /// The sizes of the games this cutter has yet to hand out if the stream
    /// ended here.
    fn sizes_at_end(&self) -> Vec<GameSize> {
        let mut rest = self.clone();
        rest.parse = false;
        rest.feed(&[]);
        std::iter::from_fn(|| match rest.next() {
            Next::Game(game) => Some(game.size()),
            Next::More | Next::Done => None,
        })
        .collect()
    }
}

/// Cuts PGN text pushed in pieces of any size into games: the reader of a
/// stream that arrives in chunks (a gRPC stream). It holds the current
/// game (up to the size limit and one byte) and the last piece pushed; an
/// over-size game is skipped as it arrives.
///
/// ```
/// use arbiter_pgn::{ReaderOptions, Splitter};
/// let mut splitter = Splitter::new(ReaderOptions::default());
/// let mut games = std::collections::VecDeque::new();
/// splitter.push(b"[Event \"a\"]\n\n1. e4 e", &mut games);
/// assert!(games.is_empty());
/// splitter.push(b"5 *\n[Event \"b\"]\n1. d4", &mut games);
/// assert_eq!(games.len(), 1);
/// splitter.finish(&mut games);
/// assert_eq!(games[1].text.as_deref(), Ok(&b"[Event \"b\"]\n1. d4"[..]));
/// ```
#[derive(Debug)]
pub struct Splitter {
    cutter: Cutter,
}

impl Splitter {
    /// A splitter at the start of a stream.
    pub fn new(options: ReaderOptions) -> Splitter {
        Splitter { cutter: Cutter::new(options) }
    }

    /// A splitter taking a stream from a place where a game may begin,
    /// the games numbered from there, their lines from `line`.
    pub(super) fn mid_stream(options: ReaderOptions, line: usize) -> Splitter {
        Splitter { cutter: Cutter { line, ..Cutter::mid_stream(options) } }
    }

    /// Whether the stream has a game boundary after what was pushed, going
    /// on with the line `next` (see [`Cutter::ends_before`]).
    pub(super) fn ends_before(&self, next: &[u8]) -> bool {
        self.cutter.ends_before(next)
    }

    /// The bytes pushed so far.
    pub fn bytes_read(&self) -> u64 {
        self.cutter.bytes_read
    }

    fn drain(&mut self, games: &mut VecDeque<RawGame>) {
        while let Next::Game(game) = self.cutter.next() {
            games.push_back(self.cutter.raw(game));
        }
    }

    /// Takes the next piece of the stream, adding to `games` every game it
    /// completes, in order.
    pub fn push(&mut self, data: &[u8], games: &mut VecDeque<RawGame>) {
        if !data.is_empty() {
            self.cutter.feed(data);
            self.drain(games);
        }
    }

    /// Ends the stream: the game in progress, if any, is complete.
    pub fn finish(&mut self, games: &mut VecDeque<RawGame>) {
        self.cutter.feed(&[]);
        self.drain(games);
    }
}

/// Reads games one by one from a PGN stream, in one pass: each game is
/// parsed as it is cut (see [`parse_game`](crate::parse_game)), and handed
/// out read.
///
/// ```
/// use arbiter_pgn::{GameReader, ReaderOptions};
/// let text = "[Event \"a\"]\n\n1. e4 e5 *\n[Event \"b\"]\n1. d4 1-0\n";
/// let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
/// let first = reader.next_game().unwrap().unwrap();
/// assert_eq!((first.index, first.line), (0, 1));
/// assert_eq!(first.text.as_deref().unwrap(), b"[Event \"a\"]\n\n1. e4 e5 *\n");
/// let second = reader.next_game().unwrap().unwrap();
/// assert_eq!((second.index, second.line), (1, 4));
/// let (_, _, game) = second.into_game();
/// assert_eq!(game.unwrap().mainline.moves.len(), 1);
/// assert!(reader.next_game().unwrap().is_none());
/// ```
#[derive(Debug)]
pub struct GameReader<R> {
    input: R,
    cutter: Cutter,
}

impl<R: BufRead> GameReader<R> {
    /// A reader of the games in `input`.
    pub fn new(input: R, options: ReaderOptions) -> GameReader<R> {
        GameReader { input, cutter: Cutter::new(options) }
    }

    /// The bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.cutter.bytes_read
    }

    /// This reader, keeping of each game only what a summary of the checks
    /// needs: no line numbers (every [`RawGame::line`] is 0), no comments
    /// (so no clock comments either), and of the tags only those the
    /// checks read (`Result`, `Termination`, `SetUp`, `FEN`, `Variant`).
    /// The verdicts are the same when the clocks are not read; the games'
    /// JSON and canonical PGN would not be.
    ///
    /// ```
    /// use arbiter_pgn::{GameReader, ReaderOptions};
    /// let text = "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 {best} *\n";
    /// let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default()).for_summary();
    /// let (_, line, game) = reader.next_game().unwrap().unwrap().into_game();
    /// let game = game.unwrap();
    /// assert_eq!((line, game.tags().count()), (0, 0));
    /// assert_eq!(game.tag("Result").unwrap(), "*");
    /// assert_eq!(game.mainline.moves[0].comments().count(), 0);
    /// ```
    pub fn for_summary(mut self) -> GameReader<R> {
        self.cutter.keep = Keep::SUMMARY;
        self
    }

    /// The next game, or `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// What reading the input fails with.
    pub fn next_game(&mut self) -> io::Result<Option<RawGame>> {
        Ok(match self.next_cut()? {
            Some(game) => Some(self.cutter.raw(game)),
            None => None,
        })
    }

    /// Hands back a game this reader read, once done with it: the next
    /// games are read into its vectors (text, tags, mainline) rather than
    /// into new ones. Optional; only vectors of ordinary size are kept.
    ///
    /// ```
    /// use arbiter_pgn::{GameReader, ReaderOptions, check_game};
    /// let text = "[Event \"a\"]\n\n1. e4 e5 *\n[Event \"b\"]\n\n1. d4 d5 *\n";
    /// let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
    /// let first = check_game(reader.next_game().unwrap().unwrap());
    /// reader.recycle(first.game.unwrap());
    /// let (_, _, second) = reader.next_game().unwrap().unwrap().into_game();
    /// assert_eq!(second.unwrap().tag("Event").unwrap(), "b");
    /// ```
    pub fn recycle(&mut self, game: PgnGame) {
        self.cutter.recycle(game);
    }

    fn next_cut(&mut self) -> io::Result<Option<CutGame>> {
        loop {
            match self.cutter.next() {
                Next::Game(game) => return Ok(Some(game)),
                Next::Done => return Ok(None),
                Next::More => {}
            }
            self.cutter.read_from(&mut self.input)?;
        }
    }
}

impl<R: BufRead> Iterator for GameReader<R> {
    type Item = io::Result<RawGame>;

    fn next(&mut self) -> Option<io::Result<RawGame>> {
        self.next_game().transpose()
    }
}

#[cfg(test)]
pub(super) mod tests;
