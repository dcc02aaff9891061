//! The move texts of a request in one buffer: one string holding every
//! text and the end of each, so that a 300-ply game is one allocation
//! instead of 300, and the replay cache hashes and compares a list as two
//! slices and keeps a request's buffers as its key.

use std::ops::Range;

/// Move texts in one string, with the end of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveTexts {
    // Filled in place by the gRPC decoder (`api::wire`), which keeps
    // `ends` ascending, each at a character boundary of `text`.
    pub(crate) text: String,
    pub(crate) ends: Vec<u32>,
}

impl MoveTexts {
    /// How many texts.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No texts at all.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The texts, one by one.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The text at `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`MoveTexts::len`].
    pub fn get(&self, index: usize) -> &str {
        &self.text[self.end_of(index)..self.ends[index] as usize]
    }

    /// The texts in `range`, as one string and the end of each (counted
    /// from the start of the first text of all).
    ///
    /// # Panics
    ///
    /// If `range` reaches past [`MoveTexts::len`].
    pub fn span(&self, range: Range<usize>) -> (&str, &[u32]) {
        (&self.text[self.end_of(range.start)..self.end_of(range.end)], &self.ends[range])
    }

    /// The texts from `start` on, one by one, for the replay.
    pub fn tail(&self, start: usize) -> Vec<&str> {
        let mut begin = self.end_of(start);
        self.ends[start..]
            .iter()
            .map(|&end| {
                let text = &self.text[begin..end as usize];
                begin = end as usize;
                text
            })
            .collect()
    }

    /// Keeps the first `len` texts.
    pub fn truncate(&mut self, len: usize) {
        self.text.truncate(self.end_of(len.min(self.len())));
        self.ends.truncate(len);
    }

    /// Where the first `len` texts end in the shared string.
    pub(crate) fn end_of(&self, len: usize) -> usize {
        len.checked_sub(1).map_or(0, |last| self.ends[last] as usize)
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * size_of::<u32>()
    }

    pub fn push(&mut self, text: &str) {
        self.text.push_str(text);
        // gRPC frames a message with a 32-bit length: its texts fit.
        self.ends.push(u32::try_from(self.text.len()).expect("a message is under 4 GiB"));
    }
}

impl<S: AsRef<str>> FromIterator<S> for MoveTexts {
    fn from_iter<I: IntoIterator<Item = S>>(texts: I) -> MoveTexts {
        let mut moves = MoveTexts::default();
        texts.into_iter().for_each(|text| moves.push(text.as_ref()));
        moves
    }
}
