//! Attack tables, all built at compile time: pawn, knight and king attacks,
//! sliding attacks by fancy magic bitboards, and the `between` and `line`
//! tables that pins and evasions are made of.
//!
//! The magic multipliers below were found once by a seeded random search and
//! are checked against a plain ray walk for every square and every relevant
//! occupancy by the tests of this module. Magics rather than PEXT: the default
//! binary must run on any x86-64, and a magic lookup is one multiply and shift.

use crate::board::bitboard::Bitboard;
use crate::board::types::{Color, Square};

const KNIGHT_DELTAS: [(i32, i32); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_DELTAS: [(i32, i32); 8] =
    [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Squares reached from `sq` by single steps of `deltas` (file, rank).
const fn step_attacks(sq: usize, deltas: &[(i32, i32)]) -> u64 {
    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut att = 0;
    let mut i = 0;
    while i < deltas.len() {
        let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
        if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
            att |= 1 << (nr * 8 + nf);
        }
        i += 1;
    }
    att
}

/// Squares a slider on `sq` attacks along `dirs`, stopping at the first
/// occupied square (which is attacked).
const fn slide(sq: usize, occupied: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let mut att = 0;
    let mut d = 0;
    while d < 4 {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += dirs[d].0;
            r += dirs[d].1;
            if f < 0 || f >= 8 || r < 0 || r >= 8 {
                break;
            }
            let bit = 1 << (r * 8 + f);
            att |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
        d += 1;
    }
    att
}

/// The occupancy bits that matter for a slider on `sq`: its rays without the
/// board edge at their ends.
const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    let mut mask = 0;
    let mut d = 0;
    while d < 4 {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += dirs[d].0;
            r += dirs[d].1;
            let (nf, nr) = (f + dirs[d].0, r + dirs[d].1);
            if nf < 0 || nf >= 8 || nr < 0 || nr >= 8 {
                break;
            }
            mask |= 1 << (r * 8 + f);
        }
        d += 1;
    }
    mask
}

const fn step_table(deltas: &[(i32, i32)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = Bitboard(step_attacks(sq, deltas));
        sq += 1;
    }
    table
}

static KNIGHT_ATTACKS: [Bitboard; 64] = step_table(&KNIGHT_DELTAS);

const fn empty_board_table(dirs: &[(i32, i32); 4]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = Bitboard(slide(sq, 0, dirs));
        sq += 1;
    }
    table
}

/// Rook and bishop attacks on an empty board.
static ROOK_RAYS: [Bitboard; 64] = empty_board_table(&ROOK_DIRS);
static BISHOP_RAYS: [Bitboard; 64] = empty_board_table(&BISHOP_DIRS);
static KING_ATTACKS: [Bitboard; 64] = step_table(&KING_DELTAS);
static PAWN_ATTACKS: [[Bitboard; 64]; 2] =
    [step_table(&[(-1, 1), (1, 1)]), step_table(&[(-1, -1), (1, -1)])];

/// One square's entry in a magic table.
#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    factor: u64,
    shift: u32,
    offset: usize,
}

impl Magic {
    /// The entry for `occupied`, masked to the table's power-of-two size
    /// (a no-op for valid entries) so that lookups need no bounds check.
    #[inline(always)]
    const fn index(&self, occupied: u64) -> usize {
        (self.offset + ((occupied & self.mask).wrapping_mul(self.factor) >> self.shift) as usize)
            & (SLIDER_TABLE_SIZE - 1)
    }
}

const ROOK_MAGICS: [u64; 64] = [
    0x1080004008801020,
    0x0840092002c03000,
    0x1900200010400900,
    0x0880100008000480,
    0x4200100420080200,
    0x8100020100080400,
    0x0200040110886200,
    0x0200008040220411,
    0x0404800084400220,
    0x0000401000402000,
    0x0086001081220440,
    0x0408800800100280,
    0x000a001201040820,
    0x8848800200840080,
    0x4001000100040200,
    0x0442000102105084,
    0x9080010020804100,
    0x0040404000201009,
    0x0000808010002009,
    0x2200090021d00100,
    0x0008008008040080,
    0x0004004002010040,
    0x0011040008015042,
    0x00000a0001768104,
    0x0000800080204009,
    0x2010004140002001,
    0x9800200280100080,
    0x1000100080080080,
    0x0442000a00049020,
    0x2100040080020080,
    0x0800120400900148,
    0x0010040a00128541,
    0x2800804000800030,
    0x1010002000400041,
    0x4000200011004100,
    0x0610008410800800,
    0x0400802402800800,
    0xc100020080800400,
    0x0002000802000401,
    0x0182085882000401,
    0x0220204000808000,
    0x2860100040024022,
    0x0001002004110040,
    0x99101042000a0020,
    0x0004080004008080,
    0x0010040002008080,
    0x2012004881020004,
    0x8300842444820011,
    0x0088403882010200,
    0x0820400080210100,
    0x0110910040a00300,
    0x0801100280080480,
    0x0242009008200600,
    0x1002000489500200,
    0x0040800200010080,
    0x0091800041000080,
    0x0000209300488001,
    0x04c1002414824001,
    0x020020000b001041,
    0x7000100004200901,
    0x8002002004100802,
    0x30010002084c0007,
    0x0888221800813004,
    0x4000002840840112,
];
const BISHOP_MAGICS: [u64; 64] = [
    0xa010041108003100,
    0x006082020a002900,
    0x6810010619200000,
    0x08281a0520000408,
    0x0001104001000400,
    0x0018901008048400,
    0x00040a0210245280,
    0x000200210808a402,
    0x9140048410821200,
    0x0800091010820041,
    0x20504804832202c0,
    0x0100091401081000,
    0x8021011140000012,
    0x0810020804450400,
    0x208b0542109008a2,
    0x0080084a08040204,
    0x0040e2a80811244c,
    0x2505022008008108,
    0x0430220100420040,
    0x010a040420220040,
    0x1105000290400000,
    0x0093001200822120,
    0x4000a62048043004,
    0x280120048a015004,
    0x006090002a020814,
    0x44042000240800d0,
    0x01102800040a4400,
    0x1004080080220040,
    0x0001001011004024,
    0x0010044000805040,
    0x0914041200820100,
    0x0004821012821480,
    0x0024040500c05021,
    0x0088611002080200,
    0x0116080a00040020,
    0x4000020080080080,
    0x2450450140840040,
    0x0000880201484100,
    0x0222020404020092,
    0x8081110600002e00,
    0x2842101105000801,
    0x1100809008001025,
    0x00020202221c0400,
    0x0422014022009020,
    0x0210046102100c00,
    0xc004008082029102,
    0x00aa461801101200,
    0x0404080080201108,
    0x020542108c205002,
    0x0410544804100100,
    0x0040910841100000,
    0x0400200042021100,
    0x00004204850400c0,
    0x0200100410a42102,
    0x1040020801210102,
    0x0805040410420000,
    0x2884804130100200,
    0x800c262201242000,
    0x1058000194108800,
    0x0014221054420204,
    0x0104000012a02200,
    0x0200881003300100,
    0x0140400202840100,
    0x0402020801010201,
];

const fn magics(dirs: &[(i32, i32); 4], factors: &[u64; 64], start: usize) -> [Magic; 64] {
    let mut out = [Magic { mask: 0, factor: 0, shift: 0, offset: 0 }; 64];
    let mut offset = start;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic { mask, factor: factors[sq], shift: 64 - bits, offset };
        offset += 1 << bits;
        sq += 1;
    }
    out
}

/// Entries of the rook part of the shared table (sum of 2^bits over squares).
const ROOK_TABLE_SIZE: usize = 102_400;
/// Entries of the bishop part.
const BISHOP_TABLE_SIZE: usize = 5_248;
/// The shared table, rounded up to a power of two.
const SLIDER_TABLE_SIZE: usize = (ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE).next_power_of_two();

const ROOK_MAGIC_ENTRIES: [Magic; 64] = magics(&ROOK_DIRS, &ROOK_MAGICS, 0);
const BISHOP_MAGIC_ENTRIES: [Magic; 64] = magics(&BISHOP_DIRS, &BISHOP_MAGICS, ROOK_TABLE_SIZE);
static ROOK_MAGIC: [Magic; 64] = ROOK_MAGIC_ENTRIES;
static BISHOP_MAGIC: [Magic; 64] = BISHOP_MAGIC_ENTRIES;

const fn fill(table: &mut [u64; SLIDER_TABLE_SIZE], magic: &[Magic; 64], dirs: &[(i32, i32); 4]) {
    let mut sq = 0;
    while sq < 64 {
        // Carry-Rippler enumeration of every subset of the mask.
        let mask = magic[sq].mask;
        let mut subset: u64 = 0;
        loop {
            table[magic[sq].index(subset)] = slide(sq, subset, dirs);
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
}

#[allow(long_running_const_eval)]
static SLIDER_TABLE: [u64; SLIDER_TABLE_SIZE] = {
    let mut table = [0; SLIDER_TABLE_SIZE];
    let rooks = ROOK_MAGIC_ENTRIES;
    let bishops = BISHOP_MAGIC_ENTRIES;
    assert!(rooks[63].offset + (1 << (64 - rooks[63].shift)) == ROOK_TABLE_SIZE);
    assert!(
        bishops[63].offset + (1 << (64 - bishops[63].shift)) == ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE
    );
    fill(&mut table, &rooks, &ROOK_DIRS);
    fill(&mut table, &bishops, &BISHOP_DIRS);
    table
};

/// `BETWEEN[a][b]`: squares strictly between `a` and `b` on a shared line.
/// `LINE[a][b]`: the whole line through `a` and `b`, edge to edge.
static BETWEEN_AND_LINE: [[[Bitboard; 64]; 64]; 2] = {
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let (ba, bb) = (1u64 << a, 1u64 << b);
            if a != b {
                let mut dirs = &ROOK_DIRS;
                let mut k = 0;
                while k < 2 {
                    if slide(a, 0, dirs) & bb != 0 {
                        between[a][b] = Bitboard(slide(a, bb, dirs) & slide(b, ba, dirs));
                        line[a][b] = Bitboard((slide(a, 0, dirs) & slide(b, 0, dirs)) | ba | bb);
                    }
                    dirs = &BISHOP_DIRS;
                    k += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    [between, line]
};

/// Squares a pawn of `color` on `sq` attacks.
///
/// ```
/// use arbiter_chess::{Color, Square, attacks};
/// let att = attacks::pawn_attacks(Color::White, Square::E4);
/// assert!(att.contains(Square::D5) && att.contains(Square::F5) && att.count() == 2);
/// ```
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    PAWN_ATTACKS[color.index()][sq.index()]
}

/// Squares a knight on `sq` attacks.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::knight_attacks(Square::A1).count(), 2);
/// ```
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    KNIGHT_ATTACKS[sq.index()]
}

/// Squares a king on `sq` attacks.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::king_attacks(Square::E4).count(), 8);
/// ```
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING_ATTACKS[sq.index()]
}

/// Squares a rook on `sq` attacks, given the occupied squares.
///
/// ```
/// use arbiter_chess::{Bitboard, Square, attacks};
/// let att = attacks::rook_attacks(Square::A1, Bitboard::from(Square::A3));
/// assert!(att.contains(Square::A3) && !att.contains(Square::A4));
/// assert_eq!(att.count(), 9);
/// ```
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(SLIDER_TABLE[ROOK_MAGIC[sq.index()].index(occupied.0)])
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
///
/// ```
/// use arbiter_chess::{Bitboard, Square, attacks};
/// assert_eq!(attacks::bishop_attacks(Square::A1, Bitboard::EMPTY).count(), 7);
/// ```
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(SLIDER_TABLE[BISHOP_MAGIC[sq.index()].index(occupied.0)])
}

/// Squares a rook on `sq` attacks on an empty board.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::rook_rays(Square::D4).count(), 14);
/// ```
#[inline]
pub fn rook_rays(sq: Square) -> Bitboard {
    ROOK_RAYS[sq.index()]
}

/// Squares a bishop on `sq` attacks on an empty board.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::bishop_rays(Square::D4).count(), 13);
/// ```
#[inline]
pub fn bishop_rays(sq: Square) -> Bitboard {
    BISHOP_RAYS[sq.index()]
}

/// Squares a queen on `sq` attacks, given the occupied squares.
#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares strictly between `a` and `b` if they share a rank, file or
/// diagonal; empty otherwise.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::between(Square::A1, Square::D4).count(), 2);
/// assert!(attacks::between(Square::A1, Square::B3).is_empty());
/// ```
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN_AND_LINE[0][a.index()][b.index()]
}

/// The full line (rank, file or diagonal) through `a` and `b`, edge to edge;
/// empty if they share none.
///
/// ```
/// use arbiter_chess::{Square, attacks};
/// assert_eq!(attacks::line(Square::B2, Square::C3).count(), 8);
/// ```
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    BETWEEN_AND_LINE[1][a.index()][b.index()]
}

/// Of `sliders`, pieces already on a line with `sq` that they move along,
/// those with nothing of `occupied` between them and `sq`: one look at the
/// small between-squares table per piece, instead of a magic lookup in the
/// large attack table. Most squares have one or two such pieces, and the
/// large table's entries are mostly out of cache in a game replay.
///
/// ```
/// use arbiter_chess::{Bitboard, Square, attacks};
/// let rooks = Bitboard::from(Square::A1) | Square::H8;
/// let occupied = rooks | Square::A4;
/// assert_eq!(attacks::unblocked(rooks, Square::A8, occupied), Bitboard::from(Square::H8));
/// ```
#[inline(always)]
pub fn unblocked(sliders: Bitboard, sq: Square, occupied: Bitboard) -> Bitboard {
    let mut found = Bitboard::EMPTY;
    for from in sliders {
        if (between(from, sq) & occupied).is_empty() {
            found |= from;
        }
    }
    found
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subset of every mask, against the plain ray walk.
    #[test]
    fn magic_lookups_match_ray_walks() {
        for sq in Bitboard::FULL {
            for (magic, dirs, lookup) in [
                (&ROOK_MAGIC, &ROOK_DIRS, rook_attacks as fn(Square, Bitboard) -> Bitboard),
                (&BISHOP_MAGIC, &BISHOP_DIRS, bishop_attacks),
            ] {
                let mask = magic[sq.index()].mask;
                let mut subset: u64 = 0;
                loop {
                    // Bits outside the mask must not change the answer.
                    let noisy = Bitboard(subset | !mask & 0x8142_2418_1824_4281);
                    let expected = slide(sq.index(), noisy.0, dirs);
                    assert_eq!(lookup(sq, noisy).0, expected, "{sq:?} {subset:x}");
                    subset = subset.wrapping_sub(mask) & mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn between_and_line_are_symmetric() {
        for a in Bitboard::FULL {
            for b in Bitboard::FULL {
                assert_eq!(between(a, b), between(b, a));
                assert_eq!(line(a, b), line(b, a));
                assert!((between(a, b) - line(a, b)).is_empty());
            }
        }
        assert_eq!(between(Square::E1, Square::H1).count(), 2);
        assert_eq!(line(Square::E1, Square::H1), Bitboard::from_rank(crate::Rank::First));
        assert!(line(Square::A1, Square::B3).is_empty());
    }

    #[test]
    fn pawn_attacks_respect_edges() {
        assert_eq!(pawn_attacks(Color::White, Square::A2).count(), 1);
        assert_eq!(pawn_attacks(Color::Black, Square::H7).count(), 1);
        assert!(pawn_attacks(Color::White, Square::E8).is_empty());
    }
}
