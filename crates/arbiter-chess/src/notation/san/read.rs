//! Standard Algebraic Notation: reading the forms people write (leniently,
//! never guessing) and writing the one canonical form.
//!
//! Reading is split in two: [`San::from_str`] checks syntax only
//! ([`ParseSanError`]); [`San::to_move`] finds the move in a position and
//! fails with [`SanError::Illegal`] or [`SanError::Ambiguous`].

use std::fmt;
use std::str::FromStr;

use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::{File, Rank, Role, Square};

/// Which side a castling move goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// `O-O`, towards the h-file.
    KingSide,
    /// `O-O-O`, towards the a-file.
    QueenSide,
}

/// A move in SAN, read but not yet checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move.
    Normal {
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
    /// Castling.
    Castle(CastlingSide),
}

/// The text is not a move in SAN, nor a variant of it that Arbiter reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a move in san (expected e.g. e4, Nf3, exd5, e8=Q or O-O)")]
pub struct ParseSanError;

/// A well-formed SAN that does not name exactly one legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// No legal move fits.
    #[error("no legal move fits")]
    Illegal,
    /// More than one legal move fits.
    #[error("more than one legal move fits")]
    Ambiguous,
}

/// Canonical SAN with its check or mate mark, held inline: ASCII, never
/// longer than 7 bytes (`Qa1xb2#`, `exd8=Q+`), in 8 bytes with the length
/// last.
///
/// It is built in a register and stored with one write. A string pushed
/// byte by byte and then copied as a word (as a returned `ArrayString` is)
/// stalls the processor on every move: the word's load cannot be forwarded
/// from the byte stores still in flight (perf put a tenth of a SAN ply's
/// time there).
///
/// ```
/// use arbiter_chess::{Position, UciMove, san};
/// let pos = Position::default();
/// let m = "g1f3".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
/// let written = san(&pos, m);
/// assert_eq!((written.as_str(), written.len()), ("Nf3", 3));
/// assert_eq!(written, "Nf3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct SanString {
    /// The text's ASCII bytes, then zero bytes; the last byte is the length.
    bytes: [u8; 8],
}

impl SanString {
    /// The most text it holds: the longest SAN (`exd8=Q+`, `Qa1xb2#`).
    pub const CAPACITY: usize = 7;

    /// The text's bytes packed in a word, first byte lowest, and its length.
    #[inline]
    fn from_word(text: u64, len: usize) -> SanString {
        debug_assert!(len <= Self::CAPACITY && text >> (8 * len) == 0);
        SanString { bytes: (text | (len as u64) << 56).to_le_bytes() }
    }

    /// SAN text as written elsewhere (say, by a server's answer): `None`
    /// unless it is 1 to 7 ASCII characters with no NUL.
    ///
    /// ```
    /// use arbiter_chess::SanString;
    /// assert_eq!(SanString::from_text("exd8=Q+").unwrap(), "exd8=Q+");
    /// assert!(SanString::from_text("Qa1xb2#+").is_none());
    /// assert!(SanString::from_text("").is_none());
    /// ```
    pub fn from_text(text: &str) -> Option<SanString> {
        if text.is_empty() || text.len() > Self::CAPACITY {
            return None;
        }
        let mut writer = SanWriter::new();
        for c in text.chars() {
            if !c.is_ascii() || c == '\0' {
                return None;
            }
            writer.push(c);
        }
        Some(writer.finish())
    }

    /// Its length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.bytes[7])
    }

    /// Whether it is empty (a written move never is).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        // SAFETY: only `SanWriter::push` puts text in, and it takes ASCII
        // only, so every prefix of the first seven bytes is valid UTF-8;
        // `len` is at most 7 (`from_word`).
        unsafe { std::str::from_utf8_unchecked(&self.bytes[..self.len()]) }
    }

    /// The text's bytes, then padding: eight bytes of which the first
    /// [`len`](SanString::len) are the text, for writers that copy a
    /// fixed width and then count only the text.
    ///
    /// ```
    /// use arbiter_chess::SanString;
    /// let san = SanString::from_text("Nf3").unwrap();
    /// assert_eq!(&san.padded()[..san.len()], b"Nf3");
    /// ```
    #[inline]
    pub fn padded(&self) -> [u8; 8] {
        self.bytes
    }

    /// Whether `text` is this text: two overlapping fixed-width
    /// comparisons, no loop over the bytes and no call.
    ///
    /// ```
    /// use arbiter_chess::SanString;
    /// let san = SanString::from_text("Nbd7+").unwrap();
    /// assert!(san.is(b"Nbd7+") && !san.is(b"Nbd7") && !san.is(b"Nbd7#"));
    /// ```
    #[inline(always)]
    pub fn is(&self, text: &[u8]) -> bool {
        let (n, ours) = (self.len(), &self.bytes);
        if text.len() != n {
            return false;
        }
        let word = |bytes: &[u8], at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let half = |bytes: &[u8], at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        match n {
            4..=7 => word(text, 0) == word(ours, 0) && word(text, n - 4) == word(ours, n - 4),
            2 | 3 => half(text, 0) == half(ours, 0) && half(text, n - 2) == half(ours, n - 2),
            1 => text[0] == ours[0],
            _ => true,
        }
    }

    /// Appends a check or mate mark (`+` or `#`).
    #[inline]
    fn push_mark(&mut self, mark: u8) {
        debug_assert!(mark == b'+' || mark == b'#');
        let text = u64::from_le_bytes(self.bytes) & !(0xff << 56);
        let mut writer = SanWriter { text, len: self.len() };
        writer.push(char::from(mark));
        *self = writer.finish();
    }
}

impl std::ops::Deref for SanString {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SanString {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for SanString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SanString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for SanString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for SanString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Builds a [`SanString`] in a register, a byte at a time.
struct SanWriter {
    text: u64,
    len: usize,
}

impl SanWriter {
    #[inline]
    fn new() -> SanWriter {
        SanWriter { text: 0, len: 0 }
    }

    /// Appends an ASCII character; past 7 bytes (never reached by SAN)
    /// nothing is kept.
    #[inline]
    fn push(&mut self, c: char) {
        debug_assert!(c.is_ascii() && c != '\0');
        if self.len < SanString::CAPACITY && c.is_ascii() {
            self.text |= u64::from(c as u8) << (8 * self.len);
            self.len += 1;
        }
    }

    #[inline]
    fn finish(self) -> SanString {
        SanString::from_word(self.text, self.len)
    }
}

/// Strips what may trail a move: annotations (`!`, `?`), check and mate
/// marks, and an en-passant remark (`e.p.`, with or without a space).
#[inline]
fn strip_suffixes(mut s: &str) -> &str {
    loop {
        match s.as_bytes().last() {
            // An ASCII byte: the slice stays on a character boundary.
            Some(b'!' | b'?' | b'+' | b'#') => s = &s[..s.len() - 1],
            Some(b'.') => match s.strip_suffix("e.p.") {
                Some(rest) => s = rest.trim_end(),
                None => return s,
            },
            _ => return s,
        }
    }
}

/// The file of a letter `a` to `h`.
#[inline]
fn file_of(c: u8) -> Option<File> {
    File::new(u32::from(c.wrapping_sub(b'a')))
}

/// The rank of a digit `1` to `8`.
#[inline]
fn rank_of(c: u8) -> Option<Rank> {
    Rank::new(u32::from(c.wrapping_sub(b'1')))
}

impl FromStr for San {
    type Err = ParseSanError;

    /// Reads canonical SAN and the harmless variants people write: `0-0`,
    /// missing or extra `+`/`#`, `e8Q`, long algebraic (`Ng1-f3`, `Ng1f3`,
    /// `Bb5xc6`, `e2-e4`), over-disambiguation, `exd6 e.p.`, `!`/`?`
    /// annotations, and lower-case piece letters where the text cannot be a
    /// pawn move (`ng1-f3`, `rd3`, `bb5xc6`; but `bxc6` is a pawn capture).
    ///
    /// # Errors
    ///
    /// [`ParseSanError`] if the text is none of these.
    ///
    /// ```
    /// use arbiter_chess::San;
    /// assert_eq!("Ng1-f3".parse::<San>(), "Ng1f3".parse::<San>());
    /// assert_eq!("0-0".parse::<San>(), "O-O".parse::<San>());
    /// assert!("Nf9".parse::<San>().is_err());
    /// ```
    // Inlined into the replay, as `San::find` is: the parsed SAN went
    // through memory between the calls (callgrind, session 13).
    #[inline(always)]
    fn from_str(text: &str) -> Result<San, ParseSanError> {
        match San::read_common(text.as_bytes()) {
            Some(san) => Ok(san),
            None => San::read_any(text),
        }
    }
}

/// The piece an upper-case letter names in SAN (not `P`: a pawn has none).
#[inline(always)]
fn piece_letter(c: u8) -> Option<Role> {
    match c {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

impl San {
    /// The forms nearly every game is written in, read straight from the
    /// bytes: `e4`, `Nf3`, `Nxe5`, `exd5`, `Nbd7`, `R1e2`, `e8=Q` and
    /// castling, each with or without one `+` or `#`. `None` for any other
    /// text, which [`San::read_any`] then reads: for the texts it takes this
    /// gives what that would (a test compares them over every short text).
    #[inline(always)]
    fn read_common(text: &[u8]) -> Option<San> {
        let b = match *text {
            [ref body @ .., _, _, b'+' | b'#'] => &text[..body.len() + 2],
            _ => text,
        };
        let normal = |role, file, rank, capture, to| San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion: None,
        };
        let square = Square::from_name;
        Some(match *b {
            [f, r] => normal(Role::Pawn, None, None, false, square(f, r)?),
            [p, f, r] => match piece_letter(p) {
                Some(role) => normal(role, None, None, false, square(f, r)?),
                None if b == b"O-O" => San::Castle(CastlingSide::KingSide),
                None => return None,
            },
            [p, x, f, r] => {
                let to = square(f, r)?;
                match (piece_letter(p), x) {
                    (Some(role), b'x') => normal(role, None, None, true, to),
                    (Some(role), _) => match (file_of(x), rank_of(x)) {
                        (Some(file), _) => normal(role, Some(file), None, false, to),
                        (_, Some(rank)) => normal(role, None, Some(rank), false, to),
                        _ => return None,
                    },
                    (None, b'x') => normal(Role::Pawn, Some(file_of(p)?), None, true, to),
                    (None, _) => {
                        // `e8=Q`: the target square first.
                        let (to, promotion) = match (square(p, x), f, piece_letter(r)) {
                            (Some(to), b'=', Some(role)) if role != Role::King => (to, role),
                            _ => return None,
                        };
                        San::Normal {
                            role: Role::Pawn,
                            file: None,
                            rank: None,
                            capture: false,
                            to,
                            promotion: Some(promotion),
                        }
                    }
                }
            }
            _ if b == b"O-O-O" => San::Castle(CastlingSide::QueenSide),
            _ => return None,
        })
    }

    /// Reads any form [`San::from_str`] takes, the lenient ones too.
    #[inline(never)]
    fn read_any(text: &str) -> Result<San, ParseSanError> {
        // Most texts have nothing to trim: an ASCII letter, digit or sign at
        // either end is not white space.
        let ends = text.as_bytes().first().zip(text.as_bytes().last());
        let trimmed = match ends {
            Some((first, last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
            _ => text.trim(),
        };
        let s = strip_suffixes(trimmed);
        let mut b = s.as_bytes();
        if let [b'O' | b'0' | b'o', ..] = b {
            match b {
                b"O-O" | b"0-0" | b"o-o" => return Ok(San::Castle(CastlingSide::KingSide)),
                b"O-O-O" | b"0-0-0" | b"o-o-o" => {
                    return Ok(San::Castle(CastlingSide::QueenSide));
                }
                _ => {}
            }
        }
        // Every byte left is checked below against ASCII letters, digits and
        // signs, so any other text is refused on the way.

        // Promotion: `=Q`, `/Q`, `(Q)` or a bare `Q` after the target square.
        let mut promotion = None;
        let letter = match *b {
            [ref rest @ .., b'(', l, b')'] | [ref rest @ .., b'=' | b'/', l] => Some((rest, l)),
            [.., d, l] if d.is_ascii_digit() && l.is_ascii_alphabetic() => {
                Some((&b[..b.len() - 1], l))
            }
            _ => None,
        };
        if let Some((rest, l)) = letter {
            promotion = Some(Role::from_char(l as char).ok_or(ParseSanError)?);
            b = rest;
        }

        // Target square.
        let [ref rest @ .., f, r] = *b else { return Err(ParseSanError) };
        let to = Square::from_name(f, r).ok_or(ParseSanError)?;
        b = rest;

        // Separator: capture mark or long-algebraic dash.
        let (capture, dash) = match *b {
            [ref rest @ .., b'x' | b':'] => {
                b = rest;
                (true, false)
            }
            [ref rest @ .., b'-'] => {
                b = rest;
                (false, true)
            }
            _ => (false, false),
        };

        // Disambiguation or the from-square of long algebraic.
        let mut rank = None;
        if let [ref rest @ .., c] = *b
            && let Some(r) = rank_of(c)
        {
            rank = Some(r);
            b = rest;
        }
        let mut file = None;
        if let [ref rest @ .., c] = *b
            && let Some(f) = file_of(c)
        {
            file = Some(f);
            b = rest;
        }
        if dash && (file.is_none() || rank.is_none()) {
            return Err(ParseSanError);
        }

        let role = match *b {
            [] => {
                // `bc6` (a file, no capture mark, no rank) is not pawn syntax:
                // it is the bishop move written in lower case.
                if file == Some(File::B) && rank.is_none() && !capture && promotion.is_none() {
                    file = None;
                    Role::Bishop
                } else {
                    Role::Pawn
                }
            }
            [c] if c.is_ascii_uppercase() => Role::from_char(c as char).ok_or(ParseSanError)?,
            [c @ (b'n' | b'b' | b'r' | b'q' | b'k' | b'p')] => {
                Role::from_char(c as char).ok_or(ParseSanError)?
            }
            _ => return Err(ParseSanError),
        };
        if role == Role::Pawn && file.is_none() && capture {
            return Err(ParseSanError);
        }
        Ok(San::Normal { role, file, rank, capture, to, promotion })
    }
}

impl San {
    /// The one legal move this SAN names in `pos`.
    ///
    /// # Errors
    ///
    /// [`SanError::Illegal`] if no legal move fits, [`SanError::Ambiguous`]
    /// if several do. Why a move is illegal is answered by
    /// [`crate::notation::illegal::diagnose_san`].
    ///
    /// ```
    /// use arbiter_chess::{Position, San, SanError};
    /// let pos: Position = "4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1".parse().unwrap();
    /// let nd2: San = "Nd2".parse().unwrap();
    /// assert_eq!(nd2.to_move(&pos), Err(SanError::Ambiguous));
    /// let nbd2: San = "Nbd2".parse().unwrap();
    /// assert!(nbd2.to_move(&pos).is_ok());
    /// let ng4: San = "Ng4".parse().unwrap();
    /// assert_eq!(ng4.to_move(&pos), Err(SanError::Illegal));
    /// ```
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        self.find(pos).map(|found| found.mv)
    }

    /// As [`San::to_move`], keeping what writing the move's canonical SAN
    /// needs, so that it is not looked up twice.
    // Inlined into the replay: its result went through memory.
    #[inline(always)]
    pub(crate) fn find(&self, pos: &Position) -> Result<SanMove, SanError> {
        let (role, file, rank, to, promotion) = match *self {
            San::Castle(side) => return find_castle(pos, side),
            San::Normal { role, file, rank, to, promotion, .. } => {
                (role, file, rank, to, promotion)
            }
        };
        // The promotion asked for fits or not whichever piece moves: it is
        // compulsory for a pawn reaching the last rank, absent elsewhere.
        let kind = if role == Role::Pawn && to.rank() == Rank::Eighth.relative_to(pos.turn()) {
            match promotion {
                Some(p @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => {
                    MoveKind::Promotion(p)
                }
                _ => return Err(SanError::Illegal),
            }
        } else if promotion.is_some() {
            return Err(SanError::Illegal);
        } else {
            MoveKind::Normal
        };
        // Every piece of the kind that can go there: those the text names
        // are the candidates, the others are what disambiguation is about.
        let movers = pos.movers_to(role, Bitboard::FULL, to);
        let mut named = movers;
        if let Some(f) = file {
            named &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            named &= Bitboard::from_rank(r);
        }
        let Some(from) = named.single_square() else {
            return Err(if named.any() { SanError::Ambiguous } else { SanError::Illegal });
        };
        // A pawn that goes to another file onto an empty square takes en
        // passant.
        let kind = if role == Role::Pawn
            && kind == MoveKind::Normal
            && from.file() != to.file()
            && !pos.occupied().contains(to)
        {
            MoveKind::EnPassant
        } else {
            kind
        };
        Ok(SanMove { mv: Move::new(from, to, kind), role, rivals: movers.without(from) })
    }
}

/// The castling move to `side` in `pos`: [`San::find`] for `O-O` and `O-O-O`.
#[inline(never)]
fn find_castle(pos: &Position, side: CastlingSide) -> Result<SanMove, SanError> {
    // Only castling itself is generated: the king's steps never end on
    // its own rook, and a king in check does not castle.
    let mut moves = MoveList::new();
    if !pos.is_check() {
        pos.generate_castling(pos.king_of(pos.turn()), castling_rooks(pos, side), &mut moves);
    }
    let mut castles = moves.iter().filter(|m| m.is_castle());
    match (castles.next(), castles.next()) {
        (Some(&mv), None) => Ok(SanMove::castle(mv)),
        (Some(_), Some(_)) => Err(SanError::Ambiguous),
        (None, _) => Err(SanError::Illegal),
    }
}

/// A legal move with what its canonical SAN depends on besides its squares:
/// the role of the moving piece and its rivals, the other pieces of that
/// role that could legally go to the same square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SanMove {
    pub(crate) mv: Move,
    pub(crate) role: Role,
    rivals: Bitboard,
}

impl SanMove {
    /// The legal move `mv` of a piece of `role` in `pos`.
    #[inline]
    pub(crate) fn new(pos: &Position, mv: Move, role: Role) -> SanMove {
        let rivals = match (mv.kind(), role) {
            (MoveKind::Normal, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) => {
                pos.movers_to(role, Bitboard::FULL.without(mv.from()), mv.to())
            }
            _ => Bitboard::EMPTY,
        };
        SanMove { mv, role, rivals }
    }

    /// The legal move `mv` of a piece of `role` in `pos`, given `movers`:
    /// every piece of `role` that can legally move to its target
    /// (`movers_to` from the whole board), `mv`'s own included.
    /// One look at the target gives both the move and its rivals, where
    /// [`SanMove::new`] takes a second.
    #[inline(always)]
    pub(crate) fn from_movers(mv: Move, role: Role, movers: Bitboard) -> SanMove {
        let rivals = match (mv.kind(), role) {
            (MoveKind::Normal, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) => {
                movers.without(mv.from())
            }
            _ => Bitboard::EMPTY,
        };
        SanMove { mv, role, rivals }
    }

    fn castle(mv: Move) -> SanMove {
        SanMove { mv, role: Role::King, rivals: Bitboard::EMPTY }
    }

    /// Its canonical SAN in `pos`, without check or mate mark.
    #[inline(always)]
    pub(crate) fn san_without_mark(&self, pos: &Position) -> SanString {
        write_san(pos, self)
    }
}

/// Castling rooks of the side to move on `side` of its king.
pub(crate) fn castling_rooks(pos: &Position, side: CastlingSide) -> Bitboard {
    let king = pos.king_of(pos.turn());
    let rights = pos.castling_rights() & Bitboard::from_rank(pos.turn().back_rank());
    rights.into_iter().filter(|&rook| (rook > king) == (side == CastlingSide::KingSide)).collect()
}

/// The name of `sq`, file letter then rank digit, in the low two bytes.
#[inline(always)]
fn square_name(sq: Square) -> u64 {
    let index = sq.index() as u64;
    (u64::from(b'a') + (index & 7)) | (u64::from(b'1') + (index >> 3)) << 8
}

/// The canonical SAN of the legal move `found` in `pos`, without check mark,
/// put together in a word: the piece letter, the disambiguation, the capture
/// mark and the squares each shifted to their place.
#[inline(always)]
fn write_san(pos: &Position, found: &SanMove) -> SanString {
    let SanMove { mv, role, rivals } = *found;
    let (from, to) = (mv.from(), mv.to());
    let kind = mv.kind();
    if kind == MoveKind::Castle {
        return if to > from {
            SanString::from_word(u64::from_le_bytes(*b"O-O\0\0\0\0\0"), 3)
        } else {
            SanString::from_word(u64::from_le_bytes(*b"O-O-O\0\0\0"), 5)
        };
    }
    let capture = kind == MoveKind::EnPassant || pos.occupied().contains(to);
    let file = square_name(from) & 0xff;
    let (mut text, mut len) = if role == Role::Pawn {
        if capture { (file | u64::from(b'x') << 8, 2) } else { (0, 0) }
    } else {
        let letter = u64::from(role.upper_char() as u8);
        let (sign, signs) = if rivals.is_empty() {
            (0, 0)
        } else if (rivals & Bitboard::from_file(from.file())).is_empty() {
            (file, 1)
        } else if (rivals & Bitboard::from_rank(from.rank())).is_empty() {
            (square_name(from) >> 8, 1)
        } else {
            (square_name(from), 2)
        };
        let (mut text, mut len) = (letter | sign << 8, 1 + signs);
        if capture {
            text |= u64::from(b'x') << (8 * len);
            len += 1;
        }
        (text, len)
    };
    text |= square_name(to) << (8 * len);
    len += 2;
    if let Some(promoted) = mv.promotion() {
        text |= (u64::from(b'=') | u64::from(promoted.upper_char() as u8) << 8) << (8 * len);
        len += 2;
    }
    SanString::from_word(text, len)
}

/// Canonical SAN of the legal move `m` in `pos`, given the position after it:
/// `+` if it gives check, `#` if it mates.
pub fn san_with_after(pos: &Position, m: Move, after: &Position) -> SanString {
    let mut out = san_without_mark(pos, m);
    push_check_mark(after, &mut out);
    out
}

/// Canonical SAN of the legal move `m` in `pos`, without its check or mate
/// mark: for callers that play the move in place and add the mark after.
pub(crate) fn san_without_mark(pos: &Position, m: Move) -> SanString {
    let role = pos.role_at(m.from()).unwrap_or(Role::Pawn);
    SanMove::new(pos, m, role).san_without_mark(pos)
}

/// Adds `+` or `#` to `san` if the move that led to `after` gives check or
/// mate; returns whether it mates.
pub(crate) fn push_check_mark(after: &Position, san: &mut SanString) -> bool {
    if !after.is_check() {
        return false;
    }
    let mated = !after.has_legal_moves();
    san.push_mark(if mated { b'#' } else { b'+' });
    mated
}

/// Canonical SAN of the legal move `m` in `pos`, with `+` or `#`.
///
/// ```
/// use arbiter_chess::{Position, UciMove, san};
/// let pos: Position = "4k3/8/8/8/8/8/8/N3K2N w - - 0 1".parse().unwrap();
/// let m = "h1g3".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
/// assert_eq!(san(&pos, m).as_str(), "Ng3");
/// ```
pub fn san(pos: &Position, m: Move) -> SanString {
    let mut out = san_without_mark(pos, m);
    // Only a checking move is played, to tell check from mate.
    if pos.gives_check(m) {
        push_check_mark(&pos.play(m), &mut out);
    }
    out
}

impl fmt::Display for San {
    /// Writes the SAN back in its normalised form (upper-case piece letters,
    /// `x` for captures, `=` before a promotion), keeping the
    /// disambiguation that was read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            San::Castle(CastlingSide::KingSide) => f.write_str("O-O"),
            San::Castle(CastlingSide::QueenSide) => f.write_str("O-O-O"),
            San::Normal { role, file, rank, capture, to, promotion } => {
                if role != Role::Pawn {
                    write!(f, "{}", role.upper_char())?;
                }
                if let Some(file) = file {
                    write!(f, "{}", file.char())?;
                }
                if let Some(rank) = rank {
                    write!(f, "{}", rank.char())?;
                }
                if capture {
                    f.write_str("x")?;
                }
                write!(f, "{to}")?;
                if let Some(p) = promotion {
                    write!(f, "={}", p.upper_char())?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(text: &str) -> (Role, Option<File>, Option<Rank>, bool, Square, Option<Role>) {
        match text.parse::<San>() {
            Ok(San::Normal { role, file, rank, capture, to, promotion }) => {
                (role, file, rank, capture, to, promotion)
            }
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn san_strings_hold_the_longest_moves_with_their_marks() {
        // Seven bytes, the most SAN ever needs: a fully disambiguated
        // capture with a mark, and a capturing promotion with a mark.
        let pos: Position = "8/8/8/7k/8/Q7/1p6/Q1Q4K w - - 0 1".parse().unwrap();
        let m =
            pos.legal_moves().into_iter().find(|m| (m.from(), m.to()) == (Square::A1, Square::B2));
        let mut text = san(&pos, m.unwrap());
        assert_eq!((text.as_str(), text.len()), ("Qa1xb2", 6));
        text.push_mark(b'+');
        assert_eq!((text.as_str(), text.len()), ("Qa1xb2+", 7));
        let pos: Position = "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let m = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.promotion() == Some(Role::Queen) && m.to() == Square::D8);
        let text = san(&pos, m.unwrap());
        assert_eq!((text.as_str(), text.len()), ("exd8=Q+", 7));
        let mut over = text;
        over.push_mark(b'#');
        assert_eq!(over, text, "an eighth byte is dropped, never written out of bounds");
        assert_eq!(format!("{text} {text:?}"), "exd8=Q+ \"exd8=Q+\"");
        assert!(!text.is_empty() && SanWriter::new().finish().is_empty());
    }

    /// `SanString::is` says what comparing the bytes says, for texts that
    /// differ in any one byte, are cut short or run on.
    #[test]
    fn san_strings_compare_as_their_bytes_do() {
        for text in ["e4", "Nf3", "O-O", "Nxe5", "exd8=Q", "Qa1xb2#", "O-O-O+", "K", "Rd1+"] {
            let san = SanString::from_text(text).unwrap();
            let mut others =
                vec![Vec::new(), format!("{text}+").into_bytes(), b"\0".repeat(text.len())];
            for cut in 0..text.len() {
                others.push(text.as_bytes()[..cut].to_vec());
                let mut changed = text.as_bytes().to_vec();
                changed[cut] ^= 0x20;
                others.push(changed);
            }
            assert!(san.is(text.as_bytes()), "{text}");
            for other in others {
                assert_eq!(san.is(&other), san.as_bytes() == other.as_slice(), "{text} {other:?}");
            }
        }
    }

    #[test]
    fn reads_the_variants_people_write() {
        use Role::*;
        assert_eq!(normal("e4"), (Pawn, None, None, false, Square::E4, None));
        assert_eq!(normal("exd5"), (Pawn, Some(File::E), None, true, Square::D5, None));
        assert_eq!(normal("e8=Q+"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("e8Q"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("e8(Q)"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("exd8=N#"), (Pawn, Some(File::E), None, true, Square::D8, Some(Knight)));
        assert_eq!(
            normal("e7e8b"),
            (Pawn, Some(File::E), Some(Rank::Seventh), false, Square::E8, Some(Bishop))
        );
        assert_eq!(
            normal("Ng1-f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("ng1-f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("Ng1f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("Bb5xc6"),
            (Bishop, Some(File::B), Some(Rank::Fifth), true, Square::C6, None)
        );
        assert_eq!(
            normal("bb5xc6"),
            (Bishop, Some(File::B), Some(Rank::Fifth), true, Square::C6, None)
        );
        assert_eq!(normal("bxc6"), (Pawn, Some(File::B), None, true, Square::C6, None));
        assert_eq!(normal("bc6"), (Bishop, None, None, false, Square::C6, None));
        assert_eq!(normal("rd3"), (Rook, None, None, false, Square::D3, None));
        assert_eq!(
            normal("e2-e4"),
            (Pawn, Some(File::E), Some(Rank::Second), false, Square::E4, None)
        );
        assert_eq!(normal("exd6 e.p."), (Pawn, Some(File::E), None, true, Square::D6, None));
        assert_eq!(normal("exd6e.p."), (Pawn, Some(File::E), None, true, Square::D6, None));
        assert_eq!(normal("Nf3!?"), (Knight, None, None, false, Square::F3, None));
        assert_eq!(
            normal("Qh4xe1#"),
            (Queen, Some(File::H), Some(Rank::Fourth), true, Square::E1, None)
        );
        assert_eq!("0-0".parse(), Ok(San::Castle(CastlingSide::KingSide)));
        assert_eq!("O-O-O+".parse(), Ok(San::Castle(CastlingSide::QueenSide)));
    }

    #[test]
    fn rejects_what_is_not_san() {
        for bad in [
            "", "e9", "Xe4", "xd5", "Nf", "N-f3", "e4e", "Nff", "é4", "++", "ee.p.", "O-O-O-O",
            "NNf3",
        ] {
            assert_eq!(bad.parse::<San>(), Err(ParseSanError), "{bad:?}");
        }
    }

    #[test]
    fn writes_minimal_disambiguation() {
        // Rooks on a1 and h1 both reach d1: the file tells them apart.
        let pos: Position = "4k3/8/8/8/8/8/K7/R6R w - - 0 1".parse().unwrap();
        let m = "Rad1".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert_eq!(san(&pos, m).as_str(), "Rad1");
        // Same file: disambiguate by rank.
        let pos: Position = "4k3/8/R7/8/8/8/8/R3K3 w - - 0 1".parse().unwrap();
        let m = "R1a3".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert_eq!(san(&pos, m).as_str(), "R1a3");
        // Three queens: need both.
        let pos: Position = "7k/8/8/8/Q1Q5/8/Q7/7K w - - 0 1".parse().unwrap();
        let m = "Qa4b3".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert_eq!(san(&pos, m).as_str(), "Qa4b3");
        // A pinned rival does not count.
        let pos: Position = "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1".parse().unwrap();
        let m = "Nbc3".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert_eq!(san(&pos, m).as_str(), "Nc3");
    }

    #[test]
    fn found_moves_write_as_generated_ones() {
        // What finding a move keeps (its piece, the rivals) writes the same
        // SAN as looking them up afresh, however the move was named.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "7k/8/8/8/Q1Q5/8/Q7/7K w - - 0 1",
            "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1",
            "n1n3k1/PPPP4/8/8/8/8/4pppp/1K4N1 w - - 0 1",
            "rnbqkbnr/1pp1pppp/8/p2pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        ] {
            let pos: Position = fen.parse().unwrap();
            for m in pos.legal_moves() {
                let written = san_without_mark(&pos, m);
                let role = pos.role_at(m.from()).unwrap();
                let mut long = format!("{}{}-{}", role.upper_char(), m.from(), m.to());
                if let Some(p) = m.promotion() {
                    long.push(p.upper_char());
                }
                let texts = if m.is_castle() {
                    vec![written.to_string()]
                } else {
                    vec![written.to_string(), long]
                };
                for text in texts {
                    let found = text.parse::<San>().unwrap().find(&pos).unwrap();
                    assert_eq!((found.mv, found.role), (m, role), "{text} in {fen}");
                    assert_eq!(found.san_without_mark(&pos), written, "{text} in {fen}");
                }
            }
        }
    }

    /// The common forms read straight from the bytes give what the general
    /// reading gives, over every text of up to four characters from SAN's
    /// alphabet and its neighbours, alone and with each trailing mark.
    #[test]
    fn common_forms_read_as_the_general_reading_does() {
        let alphabet: Vec<u8> = b"abeghi0128x=-O+#NBRQKPnbqo!( e".to_vec();
        let mut text = Vec::new();
        let (mut read, mut common) = (0, 0);
        let mut check = |text: &[u8]| {
            let Ok(s) = std::str::from_utf8(text) else { return };
            let quick = San::read_common(text);
            if let Some(san) = quick {
                assert_eq!(Ok(san), San::read_any(s), "{s:?}");
                common += 1;
            }
            assert_eq!(s.parse::<San>(), San::read_any(s), "{s:?}");
            read += 1;
        };
        for len in 0..=4u32 {
            for mut n in 0..alphabet.len().pow(len) {
                text.clear();
                for _ in 0..len {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                check(&text);
                for mark in [b'+', b'#'] {
                    text.push(mark);
                    check(&text);
                    text.pop();
                }
            }
        }
        for long in ["O-O-O", "O-O-O+", "0-0-0", "O-O-O#", "O-O-O-", "o-o-o", "O-O-0", "é4", "Né4"]
        {
            check(long.as_bytes());
        }
        assert!(read > 2_000_000 && common > 4_000, "{read} texts, {common} common");
    }

    /// The candidates' loop that [`San::find`] replaced: each piece the
    /// text names asked for its move's kind.
    fn find_by_candidates(san: &San, pos: &Position) -> Result<SanMove, SanError> {
        let San::Normal { role, file, rank, to, promotion, .. } = *san else {
            return san.find(pos);
        };
        let movers = pos.movers_to(role, Bitboard::FULL, to);
        let mut named = movers;
        if let Some(f) = file {
            named &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            named &= Bitboard::from_rank(r);
        }
        let mut found = None;
        for from in named {
            if let Some(kind) = pos.move_kind(role, from, to, promotion) {
                if found.is_some() {
                    return Err(SanError::Ambiguous);
                }
                found = Some(Move::new(from, to, kind));
            }
        }
        let mv = found.ok_or(SanError::Illegal)?;
        Ok(SanMove { mv, role, rivals: movers.without(mv.from()) })
    }

    /// Every SAN a position could be asked (each role to each square,
    /// with no, a file or a rank disambiguation, and promotions fitting or
    /// not) is found, refused or called ambiguous as the candidates' loop
    /// does, in positions of random games rich in pins, checks, en passant
    /// and promotions.
    #[test]
    fn find_agrees_with_the_candidates_loop() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n3k1/PPPP4/8/8/8/8/4pppp/1K4N1 w - - 0 1",
            "4k3/8/8/1pPpPp2/8/8/8/4K3 w - d6 0 1",
            "3qk3/8/8/Q7/7Q/8/8/Q3K2Q w - - 0 1",
            "8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 2",
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let (mut found, mut ambiguous, mut positions) = (0, 0, 0);
        for fen in starts {
            let mut pos: Position = fen.parse().unwrap();
            for _ in 0..24 {
                positions += 1;
                for role in Role::ALL {
                    for to in Bitboard::FULL {
                        let files = std::iter::once(None).chain(File::ALL.map(Some));
                        for file in files {
                            let ranks: Vec<Option<Rank>> = if file.is_none() {
                                std::iter::once(None).chain(Rank::ALL.map(Some)).collect()
                            } else {
                                vec![None, Some(to.rank()), Some(Rank::Second)]
                            };
                            for rank in ranks {
                                for promotion in [
                                    None,
                                    Some(Role::Queen),
                                    Some(Role::Knight),
                                    Some(Role::King),
                                    Some(Role::Pawn),
                                ] {
                                    let san = San::Normal {
                                        role,
                                        file,
                                        rank,
                                        capture: false,
                                        to,
                                        promotion,
                                    };
                                    let (new, old) =
                                        (san.find(&pos), find_by_candidates(&san, &pos));
                                    let key = |r: Result<SanMove, SanError>| {
                                        r.map(|f| (f.mv, f.role, f.rivals))
                                    };
                                    assert_eq!(key(new), key(old), "{san} in {pos}");
                                    found += usize::from(new.is_ok());
                                    ambiguous +=
                                        usize::from(matches!(new, Err(SanError::Ambiguous)));
                                }
                            }
                        }
                    }
                }
                let Some(m) = crate::rules::dead::tests::random_move(&pos, &mut rng) else { break };
                pos = pos.play(m);
            }
        }
        assert!(
            found > 10_000 && ambiguous > 150,
            "{positions} positions: {found} found, {ambiguous} ambiguous"
        );
    }

    #[test]
    fn ambiguity_is_never_guessed() {
        let pos: Position = "4k3/8/8/8/8/8/K7/R6R w - - 0 1".parse().unwrap();
        assert_eq!("Rd1".parse::<San>().unwrap().to_move(&pos), Err(SanError::Ambiguous));
    }
}
