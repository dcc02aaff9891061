//! Reading one PGN stream on many threads: the stream split into chunks
//! where a game most likely begins, each chunk cut into games on its own,
//! and the chunks joined again in order.
//!
//! Where a game ends depends on everything before it (a comment may hold a
//! line that looks like the next game's first tag), so a split found by a
//! byte search ([`ChunkReader`]: a tag line after a line of movetext, far
//! cheaper than cutting) is only likely to be a game boundary. Each chunk's
//! reader ([`ChunkGames`]) checks whether its end is one, given that its
//! start is: it reads the chunk's last game again with the next chunk's
//! first line after it ([`Cutter::ends_before`]). The [`Joiner`] takes the
//! chunks in order; after a chunk whose end is no boundary it cuts the
//! stream itself, from that chunk's last game, until a later chunk starts
//! at a boundary again. The games come out exactly as [`super::GameReader`]
//! cuts the whole stream, in memory bounded by the chunk size.

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::reader::{Cutter, Next, RawGame, ReaderOptions, Splitter};

/// The text a chunk aims at, before its split is looked for.
const CHUNK_BYTES: usize = 256 << 10;

/// How a chunk ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// The next chunk starts at a line, most likely a game's first.
    #[default]
    Line,
    /// The next chunk starts inside a line: no place for a split was found
    /// within the chunk's limit.
    MidLine,
    /// The stream ends with this chunk.
    End,
    /// Reading the stream failed after this chunk's text: its last game is
    /// read no further, as [`super::GameReader`] leaves it.
    Broken,
}

/// A chunk of a stream: whole lines from where a game most likely begins.
#[derive(Clone, Debug, Default)]
pub struct Chunk {
    pub text: Vec<u8>,
    /// The line `text` starts on, from 1.
    pub line: usize,
    /// Whether `text` starts the stream (a byte-order mark is looked for).
    pub first: bool,
    /// Whether `text` starts at the start of a line.
    pub starts_line: bool,
    pub split: Split,
    /// With [`Split::Line`], the next chunk's first line, its end included.
    pub next_line: Vec<u8>,
}

/// The first line of `text` with its end, if it has one.
fn first_line(text: &[u8]) -> Option<&[u8]> {
    memchr::memchr(b'\n', text).map(|k| &text[..=k])
}

/// Whether the line ending just before `at` (a line start), or the last
/// line before it with more than whitespace, holds movetext: neither a tag
/// nor an escape line. `None` when there is none in `text`.
fn movetext_before(text: &[u8], at: usize) -> Option<bool> {
    let mut end = at.checked_sub(1)?;
    loop {
        let start = memchr::memrchr(b'\n', &text[..end]).map_or(0, |k| k + 1);
        if let Some(&first) = text[start..end].iter().find(|b| !b.is_ascii_whitespace()) {
            return Some(first != b'[' && first != b'%');
        }
        end = start.checked_sub(1)?;
    }
}

/// Where the search for a split stands in a chunk's text.
enum SplitSearch {
    /// A split before this line start: the line is whole in the text.
    Found(usize),
    /// None yet: the search goes on from here when more text comes.
    From(usize),
}

/// Whether the line before the line start `at` has only whitespace.
fn blank_line_before(text: &[u8], at: usize) -> bool {
    let Some(end) = at.checked_sub(1) else { return false };
    let start = memchr::memrchr(b'\n', &text[..end]).map_or(0, |k| k + 1);
    text[start..end].iter().all(u8::is_ascii_whitespace)
}

/// The first place at or after `from` where a game most likely begins: a
/// `[` starting a line whose whole line is in `text`, after a line of
/// movetext, or an `Event` tag after a blank line (files of tags only).
fn find_split(text: &[u8], from: usize) -> SplitSearch {
    let finder = memchr::memmem::Finder::new(b"\n[");
    let mut search = from.saturating_sub(1);
    while let Some(k) = finder.find(&text[search..]) {
        let at = search + k + 1;
        if memchr::memchr(b'\n', &text[at..]).is_none() {
            return SplitSearch::From(at - 1);
        }
        let event = text[at..].starts_with(b"[Event ") && blank_line_before(text, at);
        if event || movetext_before(text, at) == Some(true) {
            return SplitSearch::Found(at);
        }
        search = at;
    }
    SplitSearch::From(text.len().saturating_sub(1).max(from.saturating_sub(1)))
}

/// Splits a stream into [`Chunk`]s of about `CHUNK_BYTES` (or the size given
/// to [`ChunkReader::with_size`]), each ending where a game most likely
/// begins; where none does within the game size limit past that, at a line
/// end (or anywhere, on a line longer than the limit). A chunk holds at
/// most that and the input's last read.
#[derive(Debug)]
pub struct ChunkReader<R> {
    input: R,
    /// Text read past the last split.
    carry: Vec<u8>,
    line: usize,
    first: bool,
    starts_line: bool,
    ended: bool,
    size: usize,
    limit: usize,
}

impl<R: BufRead> ChunkReader<R> {
    /// A reader of `input` in chunks fit for games up to the limit of
    /// `options`.
    pub fn new(input: R, options: ReaderOptions) -> ChunkReader<R> {
        ChunkReader::with_size(input, options, CHUNK_BYTES)
    }

    /// As [`ChunkReader::new`], the chunks aiming at `size` bytes.
    pub fn with_size(input: R, options: ReaderOptions, size: usize) -> ChunkReader<R> {
        let size = size.max(1);
        ChunkReader {
            input,
            carry: Vec::new(),
            line: 1,
            first: true,
            starts_line: true,
            ended: false,
            size,
            limit: size + options.max_game_bytes,
        }
    }

    /// Fills `chunk` with the next chunk of the stream (its buffers are
    /// reused); `false` once the stream is over.
    ///
    /// # Errors
    ///
    /// What reading the input fails with. `chunk` then holds the text read
    /// before the failure, as a [`Split::Broken`] chunk, and the stream is
    /// over.
    pub fn next_into(&mut self, chunk: &mut Chunk) -> io::Result<bool> {
        chunk.text.clear();
        chunk.next_line.clear();
        chunk.text.append(&mut self.carry);
        chunk.line = self.line;
        chunk.first = self.first;
        chunk.starts_line = self.starts_line;
        let mut from = self.size;
        let (split, at) = loop {
            let len = chunk.text.len();
            if len >= self.size {
                match find_split(&chunk.text, from) {
                    SplitSearch::Found(at) => break (Split::Line, at),
                    SplitSearch::From(at) => from = at,
                }
            }
            if self.ended {
                if chunk.text.is_empty() && !self.first {
                    return Ok(false);
                }
                if len <= self.limit {
                    break (Split::End, len);
                }
            }
            if len >= self.limit {
                let end = memchr::memrchr(b'\n', &chunk.text[..self.limit]);
                match end {
                    Some(k) => break (Split::Line, k + 1),
                    None => break (Split::MidLine, self.limit),
                }
            }
            let read = loop {
                match self.input.fill_buf() {
                    Ok(bytes) => break Ok(bytes),
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(err) => break Err(err),
                }
            };
            match read {
                Ok([]) => self.ended = true,
                Ok(bytes) => {
                    let n = bytes.len();
                    chunk.text.extend_from_slice(bytes);
                    self.input.consume(n);
                }
                Err(err) => {
                    chunk.split = Split::Broken;
                    self.ended = true;
                    self.first = false;
                    return Err(err);
                }
            }
        };
        self.carry.extend_from_slice(&chunk.text[at..]);
        chunk.text.truncate(at);
        chunk.split = split;
        if split == Split::Line {
            // A split at a line end found by the limit may leave no whole
            // line after it: then the next chunk cannot be checked against.
            chunk.next_line.extend_from_slice(first_line(&self.carry).unwrap_or_default());
        }
        self.line += memchr::memchr_iter(b'\n', &chunk.text).count();
        self.first = false;
        self.starts_line = split != Split::MidLine;
        Ok(split != Split::End || !chunk.text.is_empty() || chunk.first)
    }
}

/// What a chunk's reading found about its end, for the [`Joiner`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// Whether the chunk ends at a game boundary (if it starts at one): its
    /// games are the stream's.
    pub clean: bool,
    /// Otherwise, the games of the chunk that stand (all but the last),
    /// and where the last one starts in the chunk's text.
    pub keep: usize,
    pub rest: usize,
}

/// The games of one chunk, cut as if the chunk were the whole stream (or,
/// for a [`Split::Broken`] chunk, a stream that stops there).
#[derive(Debug)]
pub struct ChunkGames<'a> {
    chunk: &'a Chunk,
    options: ReaderOptions,
    cutter: Cutter,
    fed_end: bool,
    games: usize,
    /// Where the last game handed out starts in the chunk's text.
    last: Option<usize>,
}

impl<'a> ChunkGames<'a> {
    /// A reader of `chunk`'s games.
    pub fn new(chunk: &'a Chunk, options: ReaderOptions) -> ChunkGames<'a> {
        let mut cutter =
            if chunk.first { Cutter::new(options) } else { Cutter::mid_stream(options) };
        cutter.feed(&chunk.text);
        ChunkGames { chunk, options, cutter, fed_end: false, games: 0, last: None }
    }

    /// The next game, numbered within the chunk, its line in the stream.
    pub fn next_game(&mut self) -> Option<RawGame> {
        loop {
            match self.cutter.next() {
                Next::Game(game) => {
                    self.games += 1;
                    self.last = Some(game.start as usize);
                    let mut raw = self.cutter.raw(game);
                    raw.line += self.chunk.line - 1;
                    return Some(raw);
                }
                Next::Done => return None,
                Next::More if self.fed_end || self.chunk.split == Split::Broken => return None,
                Next::More => {
                    self.cutter.feed(&[]);
                    self.fed_end = true;
                }
            }
        }
    }

    /// Hands back a game read here, once done with it: the next games are
    /// read into its vectors (see [`super::GameReader::recycle`]).
    pub fn recycle(&mut self, game: super::PgnGame) {
        self.cutter.recycle(game);
    }

    /// Once every game is read: whether the chunk ends at a boundary, and
    /// if not what stands.
    pub fn ending(&self) -> Ending {
        let options = self.options;
        let rest = self.last.unwrap_or(0);
        let keep = self.games.saturating_sub(1);
        let clean = match self.chunk.split {
            Split::End | Split::Broken => true,
            Split::MidLine => false,
            Split::Line if self.chunk.next_line.is_empty() => false,
            Split::Line => {
                let mut last = if self.chunk.first && rest == 0 {
                    Cutter::new(options)
                } else {
                    Cutter::mid_stream(options)
                };
                last.feed(&self.chunk.text[rest..]);
                last.ends_before(&self.chunk.next_line)
            }
        };
        Ending { clean, keep, rest }
    }
}

/// Joins the chunks' games in order (see the module's documentation): the
/// games of a chunk that stand, and those it cuts itself where a chunk's
/// end is no boundary.
#[derive(Debug)]
pub struct Joiner {
    options: ReaderOptions,
    /// The stream cut here, from the last game of a chunk whose end was no
    /// boundary, and the line it started on.
    reading: Option<Splitter>,
    /// Games cut here that come before the next chunk's.
    held: VecDeque<RawGame>,
}

impl Joiner {
    /// A joiner at the start of a stream (or of several, one after the
    /// other, each ending with a [`Split::End`] or [`Split::Broken`] chunk).
    pub fn new(options: ReaderOptions) -> Joiner {
        Joiner { options, reading: None, held: VecDeque::new() }
    }

    /// Takes the next chunk, with its [`Ending`]: appends to `games` the
    /// games cut here that come before the chunk's own, and returns how many
    /// of the chunk's own games stand, from its first (the rest, if any, are
    /// cut here and handed out with the next chunk or by [`Joiner::finish`]).
    pub fn join(&mut self, chunk: &Chunk, ending: Ending, games: &mut VecDeque<RawGame>) -> usize {
        games.append(&mut self.held);
        if let Some(splitter) = &mut self.reading {
            let resumes = chunk.starts_line
                && first_line(&chunk.text).is_some_and(|line| splitter.ends_before(line));
            if resumes {
                splitter.finish(games);
                self.reading = None;
            } else {
                splitter.push(&chunk.text, games);
                match chunk.split {
                    Split::End => splitter.finish(games),
                    Split::Broken => {}
                    Split::Line | Split::MidLine => return 0,
                }
                self.reading = None;
                return 0;
            }
        }
        if ending.clean {
            return usize::MAX;
        }
        let rest = &chunk.text[ending.rest..];
        let line = chunk.line + memchr::memchr_iter(b'\n', &chunk.text[..ending.rest]).count();
        let mut splitter = if chunk.first && ending.rest == 0 {
            Splitter::new(self.options)
        } else {
            Splitter::mid_stream(self.options, line)
        };
        splitter.push(rest, &mut self.held);
        self.reading = Some(splitter);
        ending.keep
    }

    /// Ends the stream: appends the games cut here and not handed out yet.
    pub fn finish(&mut self, games: &mut VecDeque<RawGame>) {
        games.append(&mut self.held);
        if let Some(mut splitter) = self.reading.take() {
            splitter.finish(games);
        }
    }
}

/// Every game of `input`, read in chunks of about `size` bytes one after
/// the other and joined: the games [`super::GameReader`] cuts, by the path
/// that `arbiter pgn --jobs N` takes on N threads. For testing and fuzzing
/// that path on one thread.
///
/// # Errors
///
/// What reading the input fails with.
pub fn read_in_chunks<R: BufRead>(
    input: R,
    options: ReaderOptions,
    size: usize,
) -> io::Result<Vec<RawGame>> {
    read_in_chunks_with(input, options, size, |_, _| {})
}

/// [`read_in_chunks`], showing `seen` each chunk and its ending.
fn read_in_chunks_with<R: BufRead>(
    input: R,
    options: ReaderOptions,
    size: usize,
    mut seen: impl FnMut(&Chunk, Ending),
) -> io::Result<Vec<RawGame>> {
    let mut reader = ChunkReader::with_size(input, options, size);
    let mut joiner = Joiner::new(options);
    let (mut out, mut games, mut chunk) = (Vec::new(), VecDeque::new(), Chunk::default());
    let mut failed = None;
    loop {
        match reader.next_into(&mut chunk) {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => failed = Some(err),
        }
        let mut read = ChunkGames::new(&chunk, options);
        let own: Vec<RawGame> = std::iter::from_fn(|| read.next_game()).collect();
        let ending = read.ending();
        seen(&chunk, ending);
        let keep = joiner.join(&chunk, ending, &mut games);
        out.extend(games.drain(..));
        out.extend(own.into_iter().take(keep));
        if let Some(err) = failed {
            return Err(err);
        }
    }
    joiner.finish(&mut games);
    out.extend(games);
    for (index, game) in out.iter_mut().enumerate() {
        game.index = index;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::GameReader;

    /// The games of `text` read in chunks of about `size` bytes, joined,
    /// and the endings of the chunks split at a line: (clean, not).
    fn joined_counting(
        text: &[u8],
        size: usize,
        options: ReaderOptions,
    ) -> (Vec<RawGame>, [usize; 2]) {
        let mut endings = [0, 0];
        let games = read_in_chunks_with(text, options, size, |chunk, ending| {
            if chunk.split == Split::Line {
                endings[usize::from(!ending.clean)] += 1;
            }
        });
        (games.unwrap(), endings)
    }

    fn joined(text: &[u8], size: usize, options: ReaderOptions) -> Vec<RawGame> {
        read_in_chunks(text, options, size).unwrap()
    }

    fn cut(games: &[RawGame]) -> Vec<(usize, Result<Vec<u8>, u64>)> {
        games.iter().map(|g| (g.line, g.text.clone())).collect()
    }

    #[test]
    fn chunks_join_into_the_games_of_the_whole() {
        let text = "[Event \"a\"]\n\n1. e4 {a comment\n[Event \"no\"]\n} e5 *\n\n[Event \"b\"]\n\
                    1. d4\n\n[Event \"c\"]\n[Site \"x\"]\n\n1. c4 1-0\n1. f4 *\n\
                    [Event \"d\"]\n[Site \"y\"]\n\n[Event \"e\"]\n\n[Site \"z\"]\n\n1. e4 *\n";
        let options = ReaderOptions::default();
        let whole: Vec<RawGame> =
            GameReader::new(text.as_bytes(), options).map(Result::unwrap).collect();
        assert_eq!(whole.len(), 6);
        for size in 1..=text.len() + 1 {
            assert_eq!(cut(&joined(text.as_bytes(), size, options)), cut(&whole), "size {size}");
        }
    }

    /// Random texts (comments holding tag lines, games over the limit, lines
    /// longer than a chunk may be ...) in chunks of many sizes: the games
    /// joined are the whole text's, lines and sizes of games over the limit
    /// included.
    #[test]
    fn random_texts_join_into_the_games_of_the_whole() {
        let mut endings = [0, 0];
        for (case, text) in crate::reader::tests::random_texts(3000).enumerate() {
            let max = [40, 120, 1 << 20][case % 3];
            let options = ReaderOptions { max_game_bytes: max };
            let whole: Vec<RawGame> =
                GameReader::new(text.as_bytes(), options).map(Result::unwrap).collect();
            for size in [1, 2, 5, 13, 40, 100] {
                let (chunks, counted) = joined_counting(text.as_bytes(), size, options);
                assert_eq!(cut(&chunks), cut(&whole), "{text:?} (size {size}, limit {max})");
                endings = [endings[0] + counted[0], endings[1] + counted[1]];
            }
        }
        // Both ways of going on after a chunk were taken, many times.
        assert!(endings.iter().all(|&n| n > 1000), "{endings:?}");
    }
}
