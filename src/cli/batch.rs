//! The `--batch` pipeline of `validate` and `winnable`: one item per input
//! line, answered on every core and written in input order.
//!
//! The reading thread cuts the input into blocks of whole lines and hands
//! them to one worker per core; each worker writes a block's answers into
//! the block's own output buffer; the reading thread writes the buffers in
//! block order and hands the blocks back to be filled again. Blocks and
//! their buffers are reused for the whole run, so that after the first few
//! blocks the run neither allocates them nor faults their pages in again (a
//! block per chunk of lines, freed once written, had cost a tenth of the
//! command's CPU time in page faults), and memory stays bounded by the
//! blocks in flight: twice as many as workers.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read, Write};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, mpsc};
use std::thread;

/// A block is handed to a worker once it holds this many bytes of input.
/// Large enough that the channels' cost is nothing against a block's work
/// (a few dozen games), small enough that a block's answers (about ten
/// times its input) stay in the core's cache while they are written, and
/// again when the block is reused.
const BLOCK_BYTES: usize = 16 << 10;

/// One input line: its bytes (end of line included), or the note that it
/// was longer than the limit (and skipped).
pub(super) enum BatchLine<'a> {
    Text(&'a [u8]),
    TooLong,
}

/// Lines of input, and the answers to them once a worker has been by.
#[derive(Default)]
struct Block {
    /// The block's place in the input.
    seq: u64,
    text: Vec<u8>,
    /// Each line's bytes in `text`, or `None` for a line over the limit.
    lines: Vec<Option<Range<usize>>>,
    out: Vec<u8>,
    /// The first error the block's answers met.
    error: Option<io::Error>,
}

impl Block {
    /// Fills the block with the next lines of `input`, each at most
    /// `max_line` bytes (longer ones are skipped and noted). Returns
    /// whether the input has ended.
    fn fill(&mut self, input: &mut dyn BufRead, max_line: usize) -> io::Result<bool> {
        self.text.clear();
        self.lines.clear();
        while self.text.len() < BLOCK_BYTES {
            let start = self.text.len();
            let read = input.take(max_line as u64 + 1).read_until(b'\n', &mut self.text)?;
            if read == 0 {
                return Ok(true);
            }
            if read > max_line && self.text.last() != Some(&b'\n') {
                self.text.truncate(start);
                skip_line(input)?;
                self.lines.push(None);
            } else {
                self.lines.push(Some(start..self.text.len()));
            }
        }
        Ok(false)
    }

    /// Answers every line of the block into its output buffer.
    fn answer(&mut self, answer: &(impl Fn(BatchLine<'_>, &mut Vec<u8>) -> io::Result<()> + Sync)) {
        self.out.clear();
        self.error = None;
        for range in &self.lines {
            let line = range.clone().map_or(BatchLine::TooLong, |r| BatchLine::Text(&self.text[r]));
            if let Err(err) = answer(line, &mut self.out) {
                self.error = Some(err);
                return;
            }
        }
    }
}

/// Skips the rest of an over-long line, in bounded pieces.
fn skip_line(input: &mut dyn BufRead) -> io::Result<()> {
    let mut rest = Vec::new();
    loop {
        rest.clear();
        let n = input.take(64 * 1024).read_until(b'\n', &mut rest)?;
        if n == 0 || rest.last() == Some(&b'\n') {
            return Ok(());
        }
    }
}

/// Reads `input` line by line (lines over `max_line` bytes are skipped and
/// given to `answer` as [`BatchLine::TooLong`]), has `answer` write each line's
/// answer on `workers` threads, and writes the answers to `out` in input
/// order.
///
/// # Errors
///
/// The first error reading `input`, answering a line or writing `out`.
pub(super) fn run(
    input: &mut dyn BufRead,
    max_line: usize,
    workers: usize,
    out: &mut impl Write,
    answer: impl Fn(BatchLine<'_>, &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let workers = workers.max(1);
    let in_flight = 2 * workers as u64;
    let (work_tx, work_rx) = mpsc::channel::<Block>();
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<thread::Result<Block>>();
    thread::scope(|scope| {
        // Owned here, so that a return of any kind closes the queue and
        // lets the workers finish.
        let work_tx = work_tx;
        for _ in 0..workers {
            let (work_rx, done_tx, answer) = (&work_rx, done_tx.clone(), &answer);
            scope.spawn(move || {
                loop {
                    // The lock is held only while taking a block.
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok(mut block)) = next else { return };
                    // A panic is a bug: handed to the reading thread, which
                    // raises it, instead of leaving it waiting for the block.
                    let done = panic::catch_unwind(AssertUnwindSafe(|| block.answer(answer)))
                        .map(|()| block);
                    let failed = done.is_err();
                    if done_tx.send(done).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(done_tx);

        let (mut read, mut written, mut ended) = (0u64, 0u64, false);
        let mut spare: Vec<Block> = Vec::new();
        let mut done: BTreeMap<u64, Block> = BTreeMap::new();
        loop {
            while !ended && read - written < in_flight {
                let mut block = spare.pop().unwrap_or_default();
                ended = block.fill(input, max_line)?;
                if block.lines.is_empty() {
                    break;
                }
                block.seq = read;
                read += 1;
                if work_tx.send(block).is_err() {
                    return Err(io::Error::other("the batch workers stopped"));
                }
            }
            if written == read {
                return Ok(());
            }
            let block = match done_rx.recv() {
                Ok(Ok(block)) => block,
                Ok(Err(panic)) => panic::resume_unwind(panic),
                Err(_) => return Err(io::Error::other("the batch workers stopped")),
            };
            done.insert(block.seq, block);
            while let Some(mut block) = done.remove(&written) {
                if let Some(err) = block.error.take() {
                    return Err(err);
                }
                out.write_all(&block.out)?;
                written += 1;
                spare.push(block);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Echoes each line's length, or `long`.
    fn lengths(input: &[u8], max_line: usize, workers: usize) -> String {
        let mut out = Vec::new();
        run(&mut &input[..], max_line, workers, &mut out, |line, out| match line {
            BatchLine::Text(text) => writeln!(out, "{}", text.len()),
            BatchLine::TooLong => writeln!(out, "long"),
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn answers_come_out_in_input_order_with_long_lines_noted() {
        // Many blocks' worth of lines of varied lengths, some over the limit.
        let mut input = Vec::new();
        let mut expected = String::new();
        for i in 0..40_000usize {
            let len = (i * 7919) % 60;
            input.extend(std::iter::repeat_n(b'x', len));
            input.push(b'\n');
            // The limit counts the line's bytes before its end.
            if len > 50 {
                expected.push_str("long\n");
            } else {
                expected.push_str(&format!("{}\n", len + 1));
            }
        }
        input.extend(b"no end of line");
        expected.push_str("14\n");
        for workers in [1, 2, 5] {
            assert!(lengths(&input, 50, workers) == expected, "{workers} workers");
        }
        assert_eq!(lengths(b"", 50, 2), "");
    }

    #[test]
    fn an_answer_error_stops_the_run() {
        let input = "a\n".repeat(100_000);
        let mut out = Vec::new();
        let err = run(&mut input.as_bytes(), 10, 2, &mut out, |_, out| {
            if out.len() > 1000 {
                return Err(io::Error::other("full"));
            }
            out.extend(b"ok\n");
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "full");
    }

    #[test]
    #[should_panic(expected = "a bug")]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let input = "a\n".repeat(100_000);
        let _ = run(&mut input.as_bytes(), 10, 2, &mut Vec::new(), |_, _| panic!("a bug"));
    }
}
