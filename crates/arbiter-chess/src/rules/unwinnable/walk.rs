//! The exhaustive phase of the unwinnability analysis: a breadth-first walk
//! over every position reachable from the start, pruned by the static
//! tests, that proves unwinnability when it runs out of positions and gives
//! a shortest helpmate when it meets a mate.

use std::collections::VecDeque;

use super::hasher::{KeySet, keys};
use super::playouts::Search;
use super::static_proofs::{FloodCache, material_cannot_mate, walled_in};
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::Square;

/// How a walk over the reachable positions ended.
pub(super) enum Walk {
    Mate(Vec<Move>),
    Exhausted,
    OutOfBudget,
}

/// A breadth-first walk over every position reachable from a start, which
/// can stop when its share of the budget is spent and resume later.
pub(super) struct Walker {
    seen: KeySet<(u64, u64)>,
    /// Each position found: its parent's index and the move from it.
    tree: Vec<(u32, Move)>,
    pub(super) queue: VecDeque<(Position, u32)>,
    floods: FloodCache,
}

impl Walker {
    pub(super) fn new(start: &Position) -> Walker {
        let mut seen = KeySet::default();
        seen.insert(keys(start));
        let mut queue = VecDeque::new();
        queue.push_back((start.clone(), 0));
        Walker {
            seen,
            tree: vec![(u32::MAX, Move::new(Square::A1, Square::A1, MoveKind::Normal))],
            queue,
            floods: FloodCache::default(),
        }
    }

    /// Walks on until a mate, the end of the positions, or `limit`
    /// positions visited in all. A position is expanded whole (its children
    /// may overshoot `limit` by a few), so that none is lost between turns.
    pub(super) fn resume(&mut self, search: &mut Search, limit: u64) -> Walk {
        let limit = limit.min(search.limit);
        while search.used < limit {
            let Some((pos, index)) = self.queue.pop_front() else {
                return Walk::Exhausted;
            };
            let winner_moves = pos.turn() == search.winner;
            // Every move, also past a full list (composed material): a
            // walk that misses one could prove a position unwinnable that
            // is not.
            let listed = pos.legal_moves();
            let all;
            let moves: &[Move] = if listed.is_full() {
                all = pos.every_legal_move();
                &all
            } else {
                &listed
            };
            for &m in moves {
                let next = pos.play(m);
                if !self.seen.insert(keys(&next)) {
                    continue;
                }
                search.used += 1;
                let Ok(child) = u32::try_from(self.tree.len()) else {
                    return Walk::OutOfBudget;
                };
                self.tree.push((index, m));
                if winner_moves && next.is_check() && !next.has_legal_moves() {
                    return Walk::Mate(line_to(&self.tree, child));
                }
                if material_cannot_mate(&next, search.winner)
                    || walled_in(&next, search.winner, &mut self.floods)
                {
                    continue;
                }
                self.queue.push_back((next, child));
            }
        }
        if self.queue.is_empty() { Walk::Exhausted } else { Walk::OutOfBudget }
    }
}

/// The moves from the root of `tree` to `index`.
fn line_to(tree: &[(u32, Move)], mut index: u32) -> Vec<Move> {
    let mut line = Vec::new();
    while index != 0 {
        let (parent, m) = tree[index as usize];
        line.push(m);
        index = parent;
    }
    line.reverse();
    line
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::board::moves::{MAX_LEGAL_MOVES, Move};
    use crate::board::position::Position;
    use crate::board::types::Color;
    use crate::rules::unwinnable::{SearchBudget, Winnability, analyse};

    fn pos(fen: &str) -> Position {
        Position::from_fen_lenient_material(fen).unwrap()
    }

    /// More legal moves than a list holds (24 queens): the walk's list has
    /// them all, as many as the count and shakmaty's 265.
    #[test]
    fn every_legal_move_beyond_a_full_list() {
        let crowded = pos("QQQQQQBk/Q6B/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1");
        assert_eq!(crowded.legal_moves().len(), MAX_LEGAL_MOVES);
        let every = crowded.every_legal_move();
        assert_eq!((every.len(), crowded.count_legal()), (265, 265));
        let distinct: HashSet<Move> = every.iter().copied().collect();
        assert_eq!(distinct.len(), 265);
        assert!(every.iter().all(|&m| crowded.is_legal(m)));
        // Below a full list, the list itself.
        let start = Position::default();
        assert_eq!(start.every_legal_move(), start.legal_moves().to_vec());
    }

    #[test]
    fn exhaustive_walk_proves_small_worlds() {
        // Kings behind a wall with a bishop that can only reach its own
        // side: the walk runs out of positions.
        // The kings alone behind a wall with a gap at the edge are kept
        // apart by the pawns' attacks; the walk finds every king walk.
        let fen = "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1";
        for winner in Color::ALL {
            assert_eq!(analyse(&pos(fen), winner, SearchBudget::FULL), Winnability::Unwinnable);
        }
    }
}
