//! Writing SAN: the one canonical form of a legal move, with its check or
//! mate mark, held inline in a [`SanString`].

use std::fmt;

use super::{San, SanMove};
use crate::board::bitboard::Bitboard;
use crate::board::checks::Checks;
use crate::board::moves::{MAX_LEGAL_MOVES, Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::{Role, Square};

/// Canonical SAN with its check or mate mark, held inline: ASCII, never
/// longer than 7 bytes (`Qa1xb2#`, `exd8=Q+`), in 8 bytes with the length
/// last.
///
/// It is built in a register and stored with one write. A string pushed
/// byte by byte and then copied as a word (as a returned `ArrayString` is)
/// stalls the processor on every move: the word's load cannot be forwarded
/// from the byte stores still in flight.
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

impl San {
    /// This SAN, as its `Display` writes it, with the check or mate
    /// `mark` (`+`, `#`) if any: for a move whose SAN is chosen elsewhere
    /// (a variant's, disambiguated among the variant's legal moves).
    pub(crate) fn written(&self, mark: Option<char>) -> SanString {
        let mut writer = SanWriter::new();
        self.each_char(|c| writer.push(c));
        mark.into_iter().for_each(|c| writer.push(c));
        writer.finish()
    }
}

/// The name of `sq`, file letter then rank digit, in the low two bytes.
#[inline(always)]
fn square_name(sq: Square) -> u64 {
    let index = sq.index() as u64;
    (u64::from(b'a') + (index & 7)) | (u64::from(b'1') + (index >> 3)) << 8
}

impl SanMove {
    /// Its canonical SAN in `pos`, without check or mate mark.
    #[inline(always)]
    pub(crate) fn san_without_mark(&self, pos: &Position) -> SanString {
        write_san(pos, self)
    }
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

/// The canonical SAN, with `+` or `#`, of each of `moves`, which must be
/// every legal move of `pos`, in their order: [`san`] of each, worked out
/// for the list at once. A piece's rivals (the other pieces of its role
/// that can go to its square) are read from the list, where most squares
/// are reached by one piece of a role; the checks are told by [`Checks`],
/// and a check is played, to tell it from mate, only when the king may
/// have no square to step to.
pub(crate) fn sans_of_all<'a>(
    pos: &'a Position,
    moves: &'a MoveList,
) -> impl Iterator<Item = SanString> + 'a {
    let mut roles = [Role::Pawn; MAX_LEGAL_MOVES];
    let (mut reached, mut crowded) = ([Bitboard::EMPTY; 6], [Bitboard::EMPTY; 6]);
    for (i, (m, role)) in pos.with_roles(moves).enumerate() {
        let to = m.to();
        roles[i] = role;
        if reached[role.index()].contains(to) {
            crowded[role.index()] |= to;
        }
        reached[role.index()] |= to;
    }
    let checks = Checks::new(pos);
    moves.iter().zip(roles).map(move |(&m, role)| {
        let to = m.to();
        let movers = if crowded[role.index()].contains(to) {
            moves
                .iter()
                .zip(&roles)
                .filter(|&(n, &r)| r == role && n.to() == to)
                .fold(Bitboard::EMPTY, |movers, (n, _)| movers.with(n.from()))
        } else {
            Bitboard::from(m.from())
        };
        let mut out = write_san(pos, &SanMove::from_movers(m, role, movers));
        if checks.given_by(pos, m) {
            let mated = !checks.king_escapes(pos, m) && !pos.play(m).has_legal_moves();
            out.push_mark(if mated { b'#' } else { b'+' });
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::san::San;

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

    /// The list's SAN is [`san`]'s, move by move, on the positions of
    /// seeded random games from starts rich in rivals (three queens, knights
    /// and rooks that share squares), pins, promotions, checks and mates.
    #[test]
    fn the_sans_of_a_list_are_each_moves_san() {
        let starts = [
            crate::board::fen::STARTING_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/8/7k/8/Q7/1p6/Q1Q4K w - - 0 1",
            "4k3/8/8/8/8/8/8/N3K2N w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "1r2k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        ];
        let (mut rng, mut seen, mut rivals, mut checks, mut mates) = (0x2545_f491_u64, 0, 0, 0, 0);
        let (mut castles, mut promotions) = (0, 0);
        // Chess960 starts too: castling written from king takes rook.
        let starts = starts
            .iter()
            .map(|fen| Position::from_fen_lenient_material(fen).unwrap())
            .chain([0, 518, 959].map(|n| Position::chess960_start(n).unwrap()));
        for start in starts {
            for _ in 0..30 {
                let mut pos = start.clone();
                for _ in 0..150 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for (&m, listed) in moves.iter().zip(sans_of_all(&pos, &moves)) {
                        let one = san(&pos, m);
                        assert_eq!(listed.as_str(), one.as_str(), "{} {m}", pos.fen());
                        let text = one.as_str().as_bytes();
                        seen += 1;
                        rivals += usize::from(
                            text[0].is_ascii_uppercase()
                                && text[0] != b'K'
                                && text[0] != b'O'
                                && text.iter().filter(|b| b.is_ascii_digit()).count()
                                    + text.iter().filter(|b| (b'a'..=b'h').contains(b)).count()
                                    > 2,
                        );
                        checks += usize::from(text.ends_with(b"+"));
                        mates += usize::from(text.ends_with(b"#"));
                        castles += usize::from(m.is_castle());
                        promotions += usize::from(m.promotion().is_some());
                    }
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(
            seen > 100_000
                && rivals > 1_000
                && checks > 2_000
                && mates > 50
                && castles > 100
                && promotions > 100,
            "{seen} moves, {rivals} disambiguated, {checks} checks, {mates} mates, \
             {castles} castles, {promotions} promotions"
        );
    }
}
