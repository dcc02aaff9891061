//! The terms the parser and the checker share: result tokens and the
//! errors of side lines.

use arbiter_chess::{GameResult, IllegalReason};

/// Variations nested deeper than this are skipped and reported.
pub const MAX_VARIATION_DEPTH: usize = 64;

/// A result token or `Result` tag value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultToken {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: unfinished or unknown.
    Ongoing,
}

impl ResultToken {
    /// One of the four tokens, as [`super::reader`] recognises them.
    pub(super) fn from_bytes(token: &[u8]) -> ResultToken {
        match token {
            b"1-0" => ResultToken::WhiteWins,
            b"0-1" => ResultToken::BlackWins,
            b"1/2-1/2" => ResultToken::Draw,
            _ => ResultToken::Ongoing,
        }
    }

    /// The token for a tag value, if it is one.
    pub fn parse(text: &str) -> Option<ResultToken> {
        match text.trim() {
            "1-0" => Some(ResultToken::WhiteWins),
            "0-1" => Some(ResultToken::BlackWins),
            "1/2-1/2" => Some(ResultToken::Draw),
            "*" => Some(ResultToken::Ongoing),
            _ => None,
        }
    }

    /// The token as written.
    pub const fn as_str(self) -> &'static str {
        self.result().pgn()
    }

    /// The game result it states.
    pub const fn result(self) -> GameResult {
        match self {
            ResultToken::WhiteWins => GameResult::WhiteWins,
            ResultToken::BlackWins => GameResult::BlackWins,
            ResultToken::Draw => GameResult::Draw,
            ResultToken::Ongoing => GameResult::Ongoing,
        }
    }
}

/// Why a variation was not followed to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariationReason {
    /// A move of the variation is illegal where it stands.
    Illegal(IllegalReason),
    /// The variation comes before any move it could replace.
    NoMoveBefore,
    /// The variation is nested deeper than the reader follows.
    TooDeep,
}

impl VariationReason {
    pub(super) fn message(self) -> String {
        match self {
            VariationReason::Illegal(reason) => reason.to_string(),
            VariationReason::NoMoveBefore => "a variation before any move it could replace".into(),
            VariationReason::TooDeep => {
                format!("variations nested deeper than {} are not read", MAX_VARIATION_DEPTH)
            }
        }
    }
}

/// An error in a side line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariationError {
    /// Where the variation is: for each level, the index of the move it
    /// replaces in its line and its number among that move's variations.
    pub path: Vec<u32>,
    /// The index of the bad move in the variation.
    pub index: usize,
    /// The move as written (empty when the variation itself is at fault).
    pub text: String,
    pub reason: VariationReason,
    pub message: String,
}

/// Bytes that end a movetext token, by table: the tokenizer asks at every
/// byte, and a table lookup is one load where the `match` it replaces
/// compiled to an indirect jump.
static DELIMITERS: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b" \t\n\r{}();[]$";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Bytes that end a movetext token.
#[inline]
pub(super) fn is_delimiter(b: u8) -> bool {
    DELIMITERS[usize::from(b)]
}

/// Bytes a cut of movetext past a line's first move can pass over (see
/// `Parser::line`): all but those that open a comment, a variation, an
/// escape line, a NAG or the next game's tags, close a variation, or can
/// be part of a result token: every result token has a `-` but `*`. A
/// move number's `1` or a square's would stop the cut as often as a move
/// goes by; a `-` stops it at castling moves only.
static SKIMMED: [bool; 256] = {
    let mut table = [true; 256];
    let bytes = b"{;%()[$-*";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = false;
        i += 1;
    }
    table
};

/// Whether a cut of movetext may pass over `b` (see [`SKIMMED`]).
#[inline]
pub(super) fn skims(b: u8) -> bool {
    SKIMMED[usize::from(b)]
}

/// Bytes that begin a movetext token: not a delimiter, and not a form feed
/// (white space between tokens, though not inside one).
#[inline]
pub(super) fn starts_token(b: u8) -> bool {
    !is_delimiter(b) && b != b'\x0c'
}

/// The four game termination markers.
#[inline]
pub(super) fn is_result(token: &[u8]) -> bool {
    matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}
