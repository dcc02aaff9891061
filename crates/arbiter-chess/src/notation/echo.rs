//! A caller's text as answers and messages repeat it: whole when short,
//! else cut, so that no answer is much larger than the request that caused
//! it (a 3 MiB move of control characters must not come back as 18 MiB of
//! escapes, twice).

use std::borrow::Cow;
use std::fmt;

/// Most characters of a caller's text that an answer repeats.
pub const ECHO_CHARS: usize = 64;

/// The first [`ECHO_CHARS`] characters of `text`, and how many bytes follow.
fn head(text: &str) -> (&str, usize) {
    let end = text.char_indices().nth(ECHO_CHARS).map_or(text.len(), |(at, _)| at);
    (&text[..end], text.len() - end)
}

/// A move's text as a game reads it: a string, or bytes cut from a file
/// (a PGN reader's move token), read without checking them as UTF-8 first.
/// Bytes that are not UTF-8 are no move; messages show them as `U+FFFD`.
pub trait MoveText {
    /// The text's bytes, which the readers of SAN and UCI take.
    fn bytes(&self) -> &[u8];
    /// The text for messages.
    fn text(&self) -> &str;
}

impl MoveText for str {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }

    #[inline(always)]
    fn text(&self) -> &str {
        self
    }
}

impl MoveText for String {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }

    #[inline(always)]
    fn text(&self) -> &str {
        self
    }
}

impl<T: MoveText + ?Sized> MoveText for &T {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }

    #[inline(always)]
    fn text(&self) -> &str {
        (**self).text()
    }
}

impl MoveText for [u8] {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }

    /// ```
    /// use arbiter_chess::MoveText;
    /// assert_eq!(b"Nf3"[..].text(), "Nf3");
    /// assert_eq!(b"N\xfff3"[..].text(), "\u{fffd}");
    /// ```
    fn text(&self) -> &str {
        std::str::from_utf8(self).unwrap_or("\u{fffd}")
    }
}

/// `text` to repeat in a field of an answer: itself when it has at most
/// [`ECHO_CHARS`] characters, else those characters and `…`.
///
/// ```
/// use arbiter_chess::{ECHO_CHARS, echo};
/// assert_eq!(echo("Nf3"), "Nf3");
/// let long = "x".repeat(10_000);
/// assert_eq!(echo(&long), format!("{}…", "x".repeat(ECHO_CHARS)));
/// ```
pub fn echo(text: &str) -> Cow<'_, str> {
    match head(text) {
        (whole, 0) => Cow::Borrowed(whole),
        (head, _) => Cow::Owned(format!("{head}…")),
    }
}

/// `text` quoted for a message, with Rust's escapes for control
/// characters; a long text is cut after [`ECHO_CHARS`] characters and the
/// bytes left out are counted.
///
/// ```
/// use arbiter_chess::Quoted;
/// assert_eq!(Quoted("e9").to_string(), "\"e9\"");
/// let long = "\u{1}".repeat(1000);
/// let quoted = Quoted(&long).to_string();
/// assert!(quoted.ends_with("… (936 more bytes)"), "{quoted}");
/// assert!(quoted.len() < 500);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match head(self.0) {
            (whole, 0) => write!(f, "{whole:?}"),
            (head, rest) => write!(f, "{head:?}… ({rest} more bytes)"),
        }
    }
}
