//! The opening of a standard game, named as lichess names it: the last of
//! the positions after plies 1..=40, while 20 or more pieces stand, that
//! lichess's chess-openings table names (scalachess `OpeningDb.search`).
//!
//! The table (`data/openings.tsv`, CC0, see `data/README.md`) is compiled
//! in, its EPDs read into bitboards at build time (`build.rs`), and put
//! once, on first use (about 0.3 ms), into a hash table by the
//! Zobrist key of each line's position. A lookup hashes nothing anew (the
//! position keeps its key), probes the table and confirms a hit against the
//! line's exact position, so that a hash collision never names a wrong
//! opening.

use std::fmt;
use std::sync::LazyLock;

use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Role, Square};
use crate::board::zobrist;

/// The table's lines, as `build.rs` read them from `data/openings.tsv`.
static RAW_LINES: &[RawLine] = &include!(concat!(env!("OUT_DIR"), "/openings.rs"));

/// The pieces of [`RawLine::pieces`], in order: the letters
/// `PNBRQKpnbrqk` (`build.rs`), White's then Black's in [`Role::ALL`]'s
/// order.
fn raw_piece(index: usize) -> Piece {
    let color = if index < 6 { Color::White } else { Color::Black };
    Piece { color, role: Role::ALL[index % 6] }
}

/// One line of the table as the build read it.
struct RawLine {
    eco: &'static str,
    name: &'static str,
    /// The squares of the pieces of each letter of `PNBRQKpnbrqk`
    /// ([`raw_piece`]).
    pieces: [u64; 12],
    /// Whether Black is to move.
    black: bool,
    /// The castling field: `KQkq` or some of it, or `-`.
    castling: &'static str,
    /// The EPD of a line with an en passant square, set up at run time.
    epd: Option<&'static str>,
}

/// The last ply whose position may name the opening (scalachess
/// `SEARCH_MAX_PLIES`).
pub const OPENING_MAX_PLIES: u32 = 40;

/// The fewest pieces a position may hold to name the opening; the search
/// stops at the first position with fewer (scalachess `SEARCH_MIN_PIECES`).
pub const OPENING_MIN_PIECES: u32 = 20;

/// The seven families of openings, from the ECO code.
///
/// ```
/// use arbiter_chess::OpeningFamily;
/// assert_eq!(OpeningFamily::of_eco("C50"), Some(OpeningFamily::OpenGame));
/// assert_eq!(OpeningFamily::of_eco("E97"), Some(OpeningFamily::IndianDefence));
/// assert_eq!(OpeningFamily::IndianDefence.as_str(), "INDIAN_DEFENCE");
/// assert_eq!(OpeningFamily::of_eco("F00"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpeningFamily {
    /// A00.
    IrregularOpening,
    /// A01–A39: the English, Réti, Bird and other first moves but 1.e4 and 1.d4.
    FlankOpening,
    /// A40–A44 and A80–A99: 1.d4 answered otherwise than by 1...d5 or 1...Nf6
    /// (the Dutch among them).
    OtherD4Defence,
    /// A45–A79, D70–D99 and E00–E99: 1.d4 Nf6 (the Grünfeld and Benoni among them).
    IndianDefence,
    /// B00–C19: 1.e4 answered otherwise than by 1...e5.
    SemiOpenGame,
    /// C20–C99: 1.e4 e5.
    OpenGame,
    /// D00–D69: 1.d4 d5.
    ClosedGame,
}

impl OpeningFamily {
    /// Every family, in declaration order.
    pub const ALL: [OpeningFamily; 7] = [
        OpeningFamily::IrregularOpening,
        OpeningFamily::FlankOpening,
        OpeningFamily::OtherD4Defence,
        OpeningFamily::IndianDefence,
        OpeningFamily::SemiOpenGame,
        OpeningFamily::OpenGame,
        OpeningFamily::ClosedGame,
    ];

    /// The family of an ECO code (a letter A–E and two digits); `None`
    /// for anything else.
    pub fn of_eco(eco: &str) -> Option<OpeningFamily> {
        let &[volume, tens, units] = eco.as_bytes() else { return None };
        if !tens.is_ascii_digit() || !units.is_ascii_digit() {
            return None;
        }
        let number = (tens - b'0') * 10 + (units - b'0');
        Some(match (volume, number) {
            (b'A', 0) => OpeningFamily::IrregularOpening,
            (b'A', 1..=39) => OpeningFamily::FlankOpening,
            (b'A', 40..=44 | 80..=99) => OpeningFamily::OtherD4Defence,
            (b'A', 45..=79) | (b'D', 70..=99) | (b'E', _) => OpeningFamily::IndianDefence,
            (b'B', _) | (b'C', 0..=19) => OpeningFamily::SemiOpenGame,
            (b'C', _) => OpeningFamily::OpenGame,
            (b'D', _) => OpeningFamily::ClosedGame,
            _ => return None,
        })
    }

    /// The stable name, as the contract's enum values end.
    pub const fn as_str(self) -> &'static str {
        match self {
            OpeningFamily::IrregularOpening => "IRREGULAR_OPENING",
            OpeningFamily::FlankOpening => "FLANK_OPENING",
            OpeningFamily::OtherD4Defence => "OTHER_D4_DEFENCE",
            OpeningFamily::IndianDefence => "INDIAN_DEFENCE",
            OpeningFamily::SemiOpenGame => "SEMI_OPEN_GAME",
            OpeningFamily::OpenGame => "OPEN_GAME",
            OpeningFamily::ClosedGame => "CLOSED_GAME",
        }
    }
}

impl fmt::Display for OpeningFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game's opening: the table's line whose position the game reached,
/// and the ply it reached it at.
///
/// ```
/// use arbiter_chess::{Opening, OpeningFamily, Position};
/// let pos: Position = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -".parse().unwrap();
/// let opening = Opening::at(&pos, 2).unwrap();
/// assert_eq!((opening.eco, opening.name), ("B20", "Sicilian Defense"));
/// assert_eq!((opening.family, opening.ply), (OpeningFamily::SemiOpenGame, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    /// Its ECO code, e.g. `B20`.
    pub eco: &'static str,
    /// Its name, e.g. `Sicilian Defense: Najdorf Variation`.
    pub name: &'static str,
    /// Its family, from the ECO code.
    pub family: OpeningFamily,
    /// The ply (from 1) after which the game stood in the line's position.
    pub ply: u32,
}

impl Opening {
    /// The table's line whose moves reach `position` (placement, side to
    /// move, castling, and the en passant square only where a legal
    /// capture exists), as reached at `ply`; `None` when no line does.
    pub fn at(position: &Position, ply: u32) -> Option<Opening> {
        let table = &*LINES;
        let key = position.zobrist();
        let mask = table.slots.len() - 1;
        let mut slot = key as usize & mask;
        loop {
            let (k, index) = table.slots[slot];
            if index == EMPTY {
                return None;
            }
            if k == key {
                let line = &table.lines[usize::from(index)];
                // The key matched: the position must too, so that a hash
                // collision never names a wrong opening.
                if line.matches(position) {
                    return Some(Opening {
                        eco: line.eco,
                        name: line.name,
                        family: line.family,
                        ply,
                    });
                }
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// The opening of a standard game from the standard start, by lichess's
/// rule, from the positions after plies 1, 2, ... (the start position left
/// out): the last of the first [`OPENING_MAX_PLIES`] that the table names,
/// looking no further than the first position with fewer than
/// [`OPENING_MIN_PIECES`] pieces.
///
/// ```
/// use arbiter_chess::{Position, UciMove, find_opening};
/// let mut positions = Vec::new();
/// let mut pos = Position::default();
/// for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"] {
///     pos = pos.play(uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap());
///     positions.push(pos.clone());
/// }
/// let opening = find_opening(&positions).unwrap();
/// assert_eq!((opening.eco, opening.name, opening.ply), ("C60", "Ruy Lopez", 5));
/// ```
pub fn find_opening<'a>(after_plies: impl IntoIterator<Item = &'a Position>) -> Option<Opening> {
    let mut search = OpeningSearch::default();
    for position in after_plies {
        if !search.see(position) {
            break;
        }
    }
    search.found
}

/// The opening search fed one position at a time.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpeningSearch {
    /// Positions seen.
    plies: u32,
    /// Whether the search has stopped: past the plies or the pieces.
    done: bool,
    /// The last position found in the table.
    pub(crate) found: Option<Opening>,
}

impl OpeningSearch {
    /// Looks at the position after the next ply; `false` once no later
    /// position can name the opening.
    #[inline]
    pub(crate) fn see(&mut self, position: &Position) -> bool {
        if self.done {
            return false;
        }
        self.plies += 1;
        if position.occupied().count() < OPENING_MIN_PIECES {
            self.done = true;
            return false;
        }
        if let Some(opening) = Opening::at(position, self.plies) {
            self.found = Some(opening);
        }
        self.done = self.plies >= OPENING_MAX_PLIES;
        !self.done
    }
}

/// Whether two positions have the same EPD: placement, side to move,
/// castling and a legal en passant square.
pub(crate) fn same_epd(a: &Position, b: &Position) -> bool {
    EpdKey::of(a) == EpdKey::of(b)
}

/// What of a position makes its EPD: placement, side to move, castling
/// and a legal en passant square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EpdKey {
    by_role: [u64; 6],
    white: u64,
    castling: u64,
    /// The side to move (bit 7: black) and the legal en passant square
    /// (bit 6: none).
    turn_ep: u8,
}

impl EpdKey {
    fn of(position: &Position) -> EpdKey {
        let turn = match position.turn() {
            Color::White => 0,
            Color::Black => 0x80,
        };
        let ep = position.legal_ep_square().map_or(0x40, |sq: Square| sq.index() as u8);
        EpdKey {
            by_role: Role::ALL.map(|role| position.by_role(role).0),
            white: position.by_color(Color::White).0,
            castling: position.castling_rights().0,
            turn_ep: turn | ep,
        }
    }
}

/// One line of the table.
#[derive(Debug)]
struct TableLine {
    eco: &'static str,
    name: &'static str,
    family: OpeningFamily,
    board: EpdKey,
}

impl TableLine {
    /// Whether `position` is this line's. Out of line: most probes find
    /// no key, and inlined, its copy of the position was made for each.
    #[inline(never)]
    fn matches(&self, position: &Position) -> bool {
        self.board == EpdKey::of(position)
    }
}

/// The table, read once: its lines, and an open-addressing hash table
/// (linear probing, at most half full) of their positions' Zobrist keys,
/// each with its line's index ([`EMPTY`] in a free slot). One probe finds
/// most keys, where a search of sorted keys took a dozen.
#[derive(Debug)]
struct Lines {
    lines: Vec<TableLine>,
    slots: Vec<(u64, u16)>,
}

/// The line index of a free slot.
const EMPTY: u16 = u16::MAX;

static LINES: LazyLock<Lines> = LazyLock::new(|| {
    let mut lines = Vec::with_capacity(RAW_LINES.len());
    let mut keys = Vec::with_capacity(RAW_LINES.len());
    for raw in RAW_LINES {
        let (key, board) = read_line(raw);
        let family = OpeningFamily::of_eco(raw.eco)
            .unwrap_or_else(|| unreachable!("the opening table's ECO {} is valid", raw.eco));
        keys.push(key);
        lines.push(TableLine { eco: raw.eco, name: raw.name, family, board });
    }
    assert!(lines.len() < usize::from(EMPTY), "the opening table fits u16 indices");
    let mut slots = vec![(0, EMPTY); (2 * keys.len()).next_power_of_two()];
    let mask = slots.len() - 1;
    for (index, &key) in keys.iter().enumerate() {
        let mut slot = key as usize & mask;
        while slots[slot].1 != EMPTY {
            slot = (slot + 1) & mask;
        }
        slots[slot] = (key, index as u16);
    }
    Lines { lines, slots }
});

/// The Zobrist key ([`Position::zobrist`]) and the [`EpdKey`] of one of
/// the table's lines, from its bitboards; a line with an en passant square
/// (16 of the 3,807) is set up as a position, which says whether the
/// capture is legal.
fn read_line(line: &RawLine) -> (u64, EpdKey) {
    if let Some(epd) = line.epd {
        let position: Position = epd
            .parse()
            .unwrap_or_else(|e| unreachable!("the opening table's EPD {epd} is valid: {e}"));
        return (position.zobrist(), EpdKey::of(&position));
    }
    let turn = if line.black { Color::Black } else { Color::White };
    let mut board = EpdKey {
        by_role: [0; 6],
        white: 0,
        castling: 0,
        turn_ep: if line.black { 0xc0 } else { 0x40 },
    };
    let mut key = zobrist::turn_key(turn);
    for (index, &squares) in line.pieces.iter().enumerate() {
        let piece = raw_piece(index);
        board.by_role[piece.role.index()] |= squares;
        if piece.color == Color::White {
            board.white |= squares;
        }
        for sq in Bitboard(squares) {
            key ^= zobrist::piece_key(piece, sq);
        }
    }
    for c in line.castling.chars().filter(|&c| c != '-') {
        let rook = match c {
            'K' => Square::H1,
            'Q' => Square::A1,
            'k' => Square::H8,
            'q' => Square::A8,
            _ => unreachable!("the build let castling {c} through"),
        };
        board.castling |= Bitboard::from(rook).0;
        key ^= zobrist::castling_key(rook);
    }
    (key, board)
}

/// Reads the table now rather than on the first lookup (a server may
/// call it at start-up, so that no request pays for it).
///
/// ```
/// arbiter_chess::load_openings();
/// ```
pub fn load_openings() {
    LazyLock::force(&LINES);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_cover_every_code() {
        let family = |eco| OpeningFamily::of_eco(eco).unwrap();
        assert_eq!(family("A00"), OpeningFamily::IrregularOpening);
        assert_eq!(family("A01"), OpeningFamily::FlankOpening);
        assert_eq!(family("A39"), OpeningFamily::FlankOpening);
        assert_eq!(family("A40"), OpeningFamily::OtherD4Defence);
        assert_eq!(family("A44"), OpeningFamily::OtherD4Defence);
        assert_eq!(family("A45"), OpeningFamily::IndianDefence);
        assert_eq!(family("A79"), OpeningFamily::IndianDefence);
        assert_eq!(family("A80"), OpeningFamily::OtherD4Defence);
        assert_eq!(family("A99"), OpeningFamily::OtherD4Defence);
        assert_eq!(family("B00"), OpeningFamily::SemiOpenGame);
        assert_eq!(family("C19"), OpeningFamily::SemiOpenGame);
        assert_eq!(family("C20"), OpeningFamily::OpenGame);
        assert_eq!(family("C99"), OpeningFamily::OpenGame);
        assert_eq!(family("D00"), OpeningFamily::ClosedGame);
        assert_eq!(family("D69"), OpeningFamily::ClosedGame);
        assert_eq!(family("D70"), OpeningFamily::IndianDefence);
        assert_eq!(family("E00"), OpeningFamily::IndianDefence);
        assert_eq!(family("E99"), OpeningFamily::IndianDefence);
        for bad in ["", "A", "A0", "A000", "a00", "F00", "A0x", "Z99"] {
            assert_eq!(OpeningFamily::of_eco(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_table_reads_with_unique_keys() {
        let table = &*LINES;
        assert_eq!(table.lines.len(), 3_807);
        let boards: std::collections::HashSet<_> =
            table.lines.iter().map(|line| format!("{:?}", line.board)).collect();
        assert_eq!(boards.len(), 3_807);
        let used = table.slots.iter().filter(|&&(_, index)| index != EMPTY).count();
        assert_eq!(used, 3_807);
    }

    /// The lines as the build read them are the table's, each read as a
    /// position set up from its EPD would be: the same Zobrist key and the
    /// same EPD.
    #[test]
    fn the_build_reads_the_table_as_a_position_would() {
        let table = include_str!("../../data/openings.tsv");
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert_eq!(rows.len(), RAW_LINES.len());
        for (row, raw) in rows.iter().zip(RAW_LINES) {
            let fields: Vec<&str> = row.split('\t').collect();
            assert_eq!((fields[0], fields[1]), (raw.eco, raw.name));
            let position: Position = fields[3].parse().unwrap();
            assert_eq!(read_line(raw), (position.zobrist(), EpdKey::of(&position)), "{row}");
        }
    }

    #[test]
    fn the_start_names_nothing_and_a_collision_is_refused() {
        assert_eq!(Opening::at(&Position::default(), 0), None);
        // The Sicilian's position with white to move but black's hash: a
        // key that matches while the position does not.
        let sicilian: Position =
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -".parse().unwrap();
        let mut forged = sicilian.clone();
        forged.by_color = [Default::default(); 2];
        assert!(Opening::at(&sicilian, 2).is_some());
        assert_eq!(Opening::at(&forged, 2), None);
    }
}
