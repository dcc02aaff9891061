//! A game's phases by lichess's Divider (scalachess `Divider.scala`, at
//! lichess-org/scalachess cbffc9d7): where the middlegame and the endgame
//! start, from the placement alone, so for every rule set.
//!
//! Over the positions after plies 0..=n (index = plies played), with
//! majors+minors the pieces that are neither kings nor pawns:
//!
//! - the middlegame starts at the first index where majors+minors ≤ 10,
//!   or White has fewer than 4 pieces on rank 1 or Black fewer than 4 on
//!   rank 8, or the mixedness is over 150;
//! - the endgame starts at the first index where majors+minors ≤ 6, looked
//!   for only if a middlegame start was found (it always is by then: ≤ 6
//!   is ≤ 10); a middlegame start that is not below the endgame start is
//!   dropped.

use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, Rank, Role};

/// Where a game's middlegame and endgame start, as plies played (the
/// index of the first position of the phase); `None` for a phase the game
/// never reached, or a middlegame the endgame swallowed.
///
/// ```
/// use arbiter_chess::{GamePhase, Phases};
/// let phases = Phases { middlegame_ply: Some(20), endgame_ply: Some(60) };
/// assert_eq!(phases.phase_at(19), GamePhase::Opening);
/// assert_eq!(phases.phase_at(20), GamePhase::Middlegame);
/// assert_eq!(phases.phase_at(60), GamePhase::Endgame);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Phases {
    /// The first position of the middlegame.
    pub middlegame_ply: Option<u32>,
    /// The first position of the endgame.
    pub endgame_ply: Option<u32>,
}

/// The phase a position belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GamePhase {
    Opening,
    Middlegame,
    Endgame,
}

impl Phases {
    /// The phase of the position after `ply` plies.
    pub fn phase_at(&self, ply: u32) -> GamePhase {
        if self.endgame_ply.is_some_and(|end| ply >= end) {
            GamePhase::Endgame
        } else if self.middlegame_ply.is_some_and(|middle| ply >= middle) {
            GamePhase::Middlegame
        } else {
            GamePhase::Opening
        }
    }
}

/// The phases of the positions after plies 0, 1, 2, ... (the start
/// position first).
///
/// ```
/// use arbiter_chess::{Position, game_phases};
/// let start = Position::default();
/// let phases = game_phases([&start]);
/// assert_eq!((phases.middlegame_ply, phases.endgame_ply), (None, None));
/// let bare: Position = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1".parse().unwrap();
/// let phases = game_phases([&start, &bare]);
/// assert_eq!((phases.middlegame_ply, phases.endgame_ply), (None, Some(1)));
/// ```
pub fn game_phases<'a>(positions: impl IntoIterator<Item = &'a Position>) -> Phases {
    let mut divider = Divider::default();
    for position in positions {
        if !divider.see(position) {
            break;
        }
    }
    divider.phases()
}

/// The Divider fed one position at a time.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Divider {
    /// Positions seen.
    seen: u32,
    middle: Option<u32>,
    end: Option<u32>,
    /// The mixedness of the last position, kept up to date square by
    /// square while the middlegame is looked for.
    mixedness: Mixedness,
}

impl Divider {
    /// Looks at the next position; `false` once both starts are known.
    #[inline]
    pub(crate) fn see(&mut self, position: &Position) -> bool {
        let index = self.seen;
        self.seen += 1;
        let majors_and_minors = (position.occupied()
            & !(position.by_role(Role::King) | position.by_role(Role::Pawn)))
        .count();
        if self.middle.is_none()
            && (majors_and_minors <= 10
                || backrank_sparse(position)
                || self.mixedness.update(position) > 150)
        {
            self.middle = Some(index);
        }
        if majors_and_minors <= 6 {
            self.end = Some(index);
            return false;
        }
        true
    }

    /// The phases of the positions seen.
    pub(crate) fn phases(&self) -> Phases {
        Phases {
            middlegame_ply: self.middle.filter(|&m| self.end.is_none_or(|e| m < e)),
            endgame_ply: self.end,
        }
    }
}

/// The mixedness of a placement, updated from the last one: a move
/// changes a few squares, and only the 2×2 squares holding them score
/// anew (at most 16 of the 49, most often 8).
#[derive(Clone, Copy, Debug)]
struct Mixedness {
    white: u64,
    black: u64,
    /// Each 2×2 square's score, by its lower-left corner.
    scores: [u8; 64],
    sum: u32,
    /// Whether `scores` hold a placement yet.
    primed: bool,
}

impl Default for Mixedness {
    fn default() -> Mixedness {
        Mixedness { white: 0, black: 0, scores: [0; 64], sum: 0, primed: false }
    }
}

/// The lower-left corners of the 49 2×2 squares: files a–g, ranks 1–7.
const CORNERS: u64 = 0x007f_7f7f_7f7f_7f7f;

impl Mixedness {
    /// The mixedness of `position`'s placement.
    fn update(&mut self, position: &Position) -> u32 {
        let (white, black) = (position.by_color(Color::White).0, position.by_color(Color::Black).0);
        let changed = if self.primed { (white ^ self.white) | (black ^ self.black) } else { !0 };
        self.primed = true;
        (self.white, self.black) = (white, black);
        // The corners of the 2×2 squares that hold a changed square.
        let corners = (changed | changed >> 1 | changed >> 8 | changed >> 9) & CORNERS;
        for corner in Bitboard(corners) {
            let shift = corner.index();
            let score = QUAD_SCORES[shift / 8][quad(white >> shift)][quad(black >> shift)];
            self.sum = self.sum + u32::from(score) - u32::from(self.scores[shift]);
            self.scores[shift] = score;
        }
        self.sum
    }
}

/// Whether White has fewer than 4 pieces on rank 1 or Black fewer than 4
/// on rank 8: pieces have been developed.
fn backrank_sparse(position: &Position) -> bool {
    (position.by_color(Color::White) & Bitboard::from_rank(Rank::First)).count() < 4
        || (position.by_color(Color::Black) & Bitboard::from_rank(Rank::Eighth)).count() < 4
}

/// scalachess's `Divider.score`: what a 2×2 square with `white` and
/// `black` pieces, its lower rank `r` (1 to 7), adds to the mixedness.
const fn score(r: i32, white: u32, black: u32) -> i32 {
    match (white, black) {
        (0, 1) => 1 + r,
        (0, 2) if r < 6 => 2 + (6 - r),
        (0, 3 | 4) if r < 7 => 3 + (7 - r),
        (1, 0) => 1 + (8 - r),
        (1, 1) => 5 + (4 - r).abs(),
        (1, 2) => 4 + (7 - r),
        (1, 3) => 5 + (7 - r),
        (2, 0) if r > 2 => 2 + (r - 2),
        (2, 1) => 4 + (r - 1),
        (2, 2) => 7,
        (3, 0) if r > 1 => 3 + (r - 1),
        (3, 1) => 5 + (r - 1),
        (4, 0) if r > 1 => 3 + (r - 1),
        _ => 0,
    }
}

/// [`score`] for every lower rank index (0 to 6) and count of White and
/// Black pieces (0 to 4 each).
static SCORES: [[[u8; 5]; 5]; 7] = {
    let mut table = [[[0; 5]; 5]; 7];
    let mut y = 0;
    while y < 7 {
        let mut w = 0;
        while w < 5 {
            let mut b = 0;
            while b < 5 {
                table[y][w][b] = score(y as i32 + 1, w as u32, b as u32) as u8;
                b += 1;
            }
            w += 1;
        }
        y += 1;
    }
    table
};

/// The four squares of the 2×2 square at the corner of `bits` (bits 0, 1,
/// 8 and 9) as a 4-bit pattern.
#[inline(always)]
fn quad(bits: u64) -> usize {
    ((bits & 0b11) | ((bits >> 6) & 0b1100)) as usize
}

/// [`SCORES`] by the 4-bit patterns ([`quad`]) of the White and Black
/// pieces in a 2×2 square rather than their counts: no population count a
/// square (the build's baseline CPU has no instruction for it).
static QUAD_SCORES: [[[u8; 16]; 16]; 7] = {
    let mut table = [[[0; 16]; 16]; 7];
    let mut y = 0;
    while y < 7 {
        let mut w = 0;
        while w < 16 {
            let mut b = 0;
            while b < 16 {
                let (cw, cb) = ((w as u32).count_ones(), (b as u32).count_ones());
                table[y][w][b] = SCORES[y][cw as usize][cb as usize];
                b += 1;
            }
            w += 1;
        }
        y += 1;
    }
    table
};

/// The mixedness from scratch: the sum of [`score`] over the 49 2×2
/// squares whose lower-left corner is on files a–g and ranks 1–7.
#[cfg(test)]
fn mixedness(position: &Position) -> u32 {
    const SQUARE: u64 = 0x0303;
    let (white, black) = (position.by_color(Color::White).0, position.by_color(Color::Black).0);
    let mut sum = 0;
    for (y, row) in SCORES.iter().enumerate() {
        for x in 0..7 {
            let shift = 8 * y + x;
            let w = ((white >> shift) & SQUARE).count_ones() as usize;
            let b = ((black >> shift) & SQUARE).count_ones() as usize;
            sum += u32::from(row[w][b]);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_table_is_scalachess() {
        // scalachess Divider.score at cbffc9d7 (after 0be471fc, "Fix asymetry
        // in heuristic function for middlegame phase"), a few cases by hand.
        assert_eq!(score(1, 4, 0), 0); // a group of four on the home row
        assert_eq!(score(2, 4, 0), 4);
        assert_eq!(score(1, 1, 1), 8);
        assert_eq!(score(4, 1, 1), 5);
        assert_eq!(score(7, 0, 4), 0);
        assert_eq!(score(6, 0, 2), 0);
        assert_eq!(score(5, 0, 2), 3);
        assert_eq!(score(3, 2, 1), 6);
        assert_eq!(score(3, 1, 3), 9);
        assert_eq!(score(3, 5, 0), 0);
        // No square scores below 0 or above a byte.
        for r in 1..=7 {
            for w in 0..=4 {
                for b in 0..=4 {
                    assert!((0..=255).contains(&score(r, w, b)), "{r} {w} {b}");
                }
            }
        }
    }

    #[test]
    fn the_start_is_the_opening() {
        let start = Position::default();
        // Every 2×2 square holds one colour: four on the home ranks (0),
        // two on ranks 2 and 7 (0 at r = 2 and r = 6), none between.
        assert_eq!(mixedness(&start), 0);
        assert!(!backrank_sparse(&start));
        assert_eq!(game_phases([&start]), Phases::default());
    }

    #[test]
    fn the_kept_mixedness_is_the_mixedness() {
        // Random play, the kept sum against the sum from scratch.
        let mut kept = Mixedness::default();
        let mut pos = Position::default();
        let mut seed = 0x4172_6269_7465_7221_u64;
        for _ in 0..2_000 {
            assert_eq!(kept.update(&pos), mixedness(&pos), "{pos}");
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::default();
                continue;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos = pos.play(moves[(seed % moves.len() as u64) as usize]);
        }
    }
}
