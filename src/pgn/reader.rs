//! Cutting a PGN stream into games: line by line from any `BufRead`, in
//! memory bounded by the game size limit, without understanding moves.
//!
//! A game ends at a result token outside comments and variations, or where
//! the next one begins: a tag line (`[` at the start of a line, outside a
//! comment) after movetext, or after a blank line that closed a tag section
//! (files of tags only have no movetext and no result token). A game over the
//! size limit is not kept: the reader skips to the next line that starts
//! with `[`, reports the game as too large, and goes on from there.

use std::collections::{HashSet, VecDeque};
use std::io::{self, BufRead};

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

/// Bytes that end a movetext token.
#[inline]
pub(super) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'}' | b'(' | b')' | b';' | b'[' | b']' | b'$'
    )
}

/// The four game termination markers.
#[inline]
pub(super) fn is_result(token: &[u8]) -> bool {
    matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}

impl Scan {
    fn has_content(&self) -> bool {
        self.tags || self.movetext
    }

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

/// Cuts PGN text pushed in pieces of any size into games: the reader of a
/// stream that arrives in chunks (a gRPC stream), and the core of
/// [`GameReader`]. It holds at most the current game (up to the size limit
/// and one byte); an over-size game is skipped as it arrives.
///
/// ```
/// use arbiter::pgn::{ReaderOptions, Splitter};
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
    options: ReaderOptions,
    /// The number of the line being read, from 1.
    line: usize,
    next_index: usize,
    /// The hashes of the current game's tag names.
    names: HashSet<u64>,
    /// Whether the first line (and its byte-order mark) has been seen.
    started: bool,
    bytes_read: u64,
    /// The current game's text so far: whole lines, then a line in part.
    text: Vec<u8>,
    /// Where the line in part begins in `text`.
    line_start: usize,
    scan: Scan,
    /// The line the current game starts on.
    start_line: usize,
    /// An over-size game being skipped: its bytes so far, and whether the
    /// next byte begins a line.
    skipping: Option<(u64, bool)>,
}

impl Splitter {
    /// A splitter at the start of a stream.
    pub fn new(options: ReaderOptions) -> Splitter {
        Splitter {
            options,
            line: 1,
            next_index: 0,
            names: HashSet::new(),
            started: false,
            bytes_read: 0,
            text: Vec::new(),
            line_start: 0,
            scan: Scan::default(),
            start_line: 1,
            skipping: None,
        }
    }

    /// The bytes pushed so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Takes the next piece of the stream, adding to `games` every game it
    /// completes, in order.
    pub fn push(&mut self, mut data: &[u8], games: &mut VecDeque<RawGame>) {
        self.bytes_read += data.len() as u64;
        let max = self.options.max_game_bytes;
        while !data.is_empty() {
            if let Some((skipped, at_line_start)) = &mut self.skipping {
                if *at_line_start && data[0] == b'[' {
                    let bytes = *skipped;
                    self.skipping = None;
                    let line = self.start_line;
                    self.start_line = self.line;
                    games.push_back(self.emit(line, Err(bytes)));
                    continue;
                }
                let (n, end) = match memchr::memchr(b'\n', data) {
                    Some(k) => (k + 1, true),
                    None => (data.len(), false),
                };
                *skipped += n as u64;
                *at_line_start = end;
                self.line += usize::from(end);
                data = &data[n..];
                continue;
            }
            // Never more than the limit and one byte: that byte says the
            // game is over it.
            let room = (max + 1).saturating_sub(self.text.len()).max(1).min(data.len());
            let (n, end) = match memchr::memchr(b'\n', &data[..room]) {
                Some(k) => (k + 1, true),
                None => (room, false),
            };
            self.text.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.text.len() > max {
                // A line cut at the limit is counted when its end is skipped.
                self.line += usize::from(end);
                self.skipping = Some((self.text.len() as u64, end));
                self.text.clear();
                self.reset();
                continue;
            }
            if end {
                self.end_line(games);
                self.line += 1;
            }
        }
    }

    /// Ends the stream: the game in progress, if any, is complete.
    pub fn finish(&mut self, games: &mut VecDeque<RawGame>) {
        if let Some((skipped, _)) = self.skipping.take() {
            let line = self.start_line;
            games.push_back(self.emit(line, Err(skipped)));
            return;
        }
        if self.line_start < self.text.len() {
            self.end_line(games);
        }
        if self.scan.has_content() {
            let text = std::mem::take(&mut self.text);
            let line = self.start_line;
            games.push_back(self.emit(line, Ok(text)));
        }
        self.text.clear();
        self.reset();
    }

    fn reset(&mut self) {
        self.line_start = 0;
        self.scan = Scan::default();
        self.names.clear();
    }

    /// Takes the line at `line_start` (whole, or the last of the stream)
    /// into account; `self.line` is its number.
    fn end_line(&mut self, games: &mut VecDeque<RawGame>) {
        if !self.started {
            self.started = true;
            if self.text.starts_with(b"\xEF\xBB\xBF") {
                self.text.drain(..3);
            }
        }
        let was_empty = !self.scan.has_content();
        match self.scan.feed(without_end(&self.text[self.line_start..]), &mut self.names) {
            Feed::More => {
                if !self.scan.has_content() {
                    // Blank or escape lines before a game are not part of it.
                    self.text.clear();
                    self.start_line = self.line + 1;
                } else if was_empty {
                    self.start_line = self.line;
                }
                self.line_start = self.text.len();
            }
            Feed::Ended => {
                let text = std::mem::take(&mut self.text);
                let line = self.start_line;
                games.push_back(self.emit(line, Ok(text)));
                self.reset();
                self.start_line = self.line + 1;
            }
            Feed::NextGame => {
                let carried = self.text.split_off(self.line_start);
                let text = std::mem::replace(&mut self.text, carried);
                let line = self.start_line;
                games.push_back(self.emit(line, Ok(text)));
                self.reset();
                // The line is a tag line that starts the next game.
                self.start_line = self.line;
                self.scan.feed(without_end(&self.text), &mut self.names);
                self.line_start = self.text.len();
            }
        }
    }

    fn emit(&mut self, line: usize, text: Result<Vec<u8>, u64>) -> RawGame {
        let index = self.next_index;
        self.next_index += 1;
        RawGame { index, line, text }
    }
}

/// Reads games one by one from a PGN stream.
///
/// ```
/// use arbiter::pgn::{GameReader, ReaderOptions};
/// let text = "[Event \"a\"]\n\n1. e4 e5 *\n[Event \"b\"]\n1. d4 1-0\n";
/// let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
/// let first = reader.next_game().unwrap().unwrap();
/// assert_eq!((first.index, first.line), (0, 1));
/// assert_eq!(first.text.unwrap(), b"[Event \"a\"]\n\n1. e4 e5 *\n");
/// let second = reader.next_game().unwrap().unwrap();
/// assert_eq!((second.index, second.line), (1, 4));
/// assert!(reader.next_game().unwrap().is_none());
/// ```
#[derive(Debug)]
pub struct GameReader<R> {
    input: R,
    splitter: Splitter,
    /// Games cut from what was read and not yet handed out.
    ready: VecDeque<RawGame>,
    ended: bool,
}

impl<R: BufRead> GameReader<R> {
    /// A reader of the games in `input`.
    pub fn new(input: R, options: ReaderOptions) -> GameReader<R> {
        GameReader { input, splitter: Splitter::new(options), ready: VecDeque::new(), ended: false }
    }

    /// The bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.splitter.bytes_read()
    }

    /// The next game, or `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// What reading the input fails with.
    pub fn next_game(&mut self) -> io::Result<Option<RawGame>> {
        loop {
            if let Some(game) = self.ready.pop_front() {
                return Ok(Some(game));
            }
            if self.ended {
                return Ok(None);
            }
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                self.ended = true;
                self.splitter.finish(&mut self.ready);
                continue;
            }
            let n = buf.len();
            self.splitter.push(buf, &mut self.ready);
            self.input.consume(n);
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
mod tests {
    use super::*;

    fn games(text: &str, max: usize) -> Vec<RawGame> {
        let reader = GameReader::new(text.as_bytes(), ReaderOptions { max_game_bytes: max });
        reader.collect::<io::Result<Vec<_>>>().unwrap()
    }

    fn texts(text: &str) -> Vec<String> {
        games(text, 1 << 20)
            .into_iter()
            .map(|g| String::from_utf8(g.text.unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn games_end_at_result_tokens_and_tag_lines() {
        let text = "\u{feff}[Event \"a\"]\r\n\r\n1. e4 {1-0 in a comment} (1. d4 1-0) e5 *\r\n\
                    [Event \"b\"]\n\n1. d4\n[Event \"c\"]\n";
        assert_eq!(
            texts(text),
            [
                "[Event \"a\"]\r\n\r\n1. e4 {1-0 in a comment} (1. d4 1-0) e5 *\r\n",
                "[Event \"b\"]\n\n1. d4\n",
                "[Event \"c\"]\n"
            ]
        );
        let lines: Vec<usize> = games(text, 1 << 20).iter().map(|g| g.line).collect();
        assert_eq!(lines, [1, 4, 7]);
    }

    #[test]
    fn tag_only_games_end_at_a_blank_line() {
        let text = "[Event \"a\"]\n[Result \"*\"]\n\n[Event \"b\"]\n\n\n\n[Event \"c\"]\n";
        assert_eq!(texts(text).len(), 3);
        // A blank line between tags of one game (ChessBase).
        let text = "[Event \"a\"]\n\n[Date \"?\"]\n\n1. e4 *\n[Event \"b\"]\n\n[Event \"c\"]\n";
        assert_eq!(texts(text).len(), 3);
    }

    #[test]
    fn blank_lines_inside_movetext_and_comments_do_not_split() {
        let text =
            "[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 {a comment\n[%clk 0:01:00]\n\nstill} Nc6 1-0\n";
        assert_eq!(texts(text).len(), 1);
    }

    #[test]
    fn a_game_over_the_limit_is_skipped_and_reading_goes_on() {
        let long = "1. e4 e5 ".repeat(50);
        let text = format!("[Event \"a\"]\n\n{long}\n{long} 1-0\n[Event \"b\"]\n\n1. d4 *\n");
        let read = games(&text, 300);
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].text, Err(text.find("[Event \"b\"]").unwrap() as u64));
        assert_eq!(read[1].line, 5);
        assert_eq!(read[1].text.as_deref(), Ok(&b"[Event \"b\"]\n\n1. d4 *\n"[..]));
        // A single line over the limit, with no line end at all.
        let read = games(&"x".repeat(10_000), 100);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].text, Err(10_000));
    }

    #[test]
    fn escape_lines_and_leading_blank_lines_are_not_games() {
        assert!(texts("\n\n% nothing here\n\n").is_empty());
        let read = games("\n% x\n\n[Event \"a\"]\n1. e4 *\n", 1 << 20);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].line, 4);
    }

    /// Pushed in pieces of any size, the stream cuts into the same games.
    #[test]
    fn pieces_of_any_size_cut_the_same_games() {
        let long = "1. e4 e5 ".repeat(40);
        let text = format!(
            "\u{feff}\n% x\n[Event \"a\"]\r\n\r\n1. e4 {{1-0}} (1. d4 1-0) e5 *\r\n\
             [Event \"b\"]\n\n{long}\n{long} 1-0\n[Event \"c\"]\n\n[Event \"d\"]\n1. d4"
        );
        let whole = games(&text, 300);
        assert_eq!(whole.len(), 4);
        assert_eq!(
            whole[1].text,
            Err((text.find("[Event \"c").unwrap() - text.find("[Event \"b").unwrap()) as u64)
        );
        for size in 1..=text.len() {
            let mut splitter = Splitter::new(ReaderOptions { max_game_bytes: 300 });
            let mut cut = VecDeque::new();
            for piece in text.as_bytes().chunks(size) {
                splitter.push(piece, &mut cut);
            }
            splitter.finish(&mut cut);
            assert_eq!(Vec::from(cut), whole, "pieces of {size} bytes");
        }
    }
}
