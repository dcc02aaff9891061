//! Perft: counting the leaves of the legal move tree, the standard check of
//! a move generator against known counts.

use crate::board::moves::Move;
use crate::board::position::Position;

/// The number of legal move sequences of length `depth` from `pos`.
/// The last ply is counted in bulk, without playing the moves.
///
/// ```
/// use arbiter_chess::{Position, divide, divide_until, perft};
/// assert_eq!(perft(&Position::default(), 3), 8_902);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // Safety: the CPU supports popcnt, checked just above. Bulk counting
        // is mostly population counts; the instruction makes perft about a
        // third faster than the portable bit-twiddling (see the README).
        return unsafe { perft_popcnt(pos, depth) };
    }
    perft_portable(pos, depth)
}

#[inline(always)]
fn perft_with(pos: &Position, depth: u32, recurse: impl Fn(&Position, u32) -> u64) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => {
            let mut nodes = 0;
            for &m in &pos.legal_moves() {
                nodes += recurse(&pos.play(m), depth - 1);
            }
            nodes
        }
    }
}

fn perft_portable(pos: &Position, depth: u32) -> u64 {
    perft_with(pos, depth, perft_portable)
}

/// [`perft`] compiled with the `popcnt` instruction enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn perft_popcnt(pos: &Position, depth: u32) -> u64 {
    perft_with(pos, depth, |pos, depth| perft_popcnt(pos, depth))
}

/// Perft split by first move: each legal move with the count below it.
/// At depth 0 there are no moves to split by.
///
/// ```
/// use arbiter_chess::{Position, divide, divide_until, perft};
/// let split = divide(&Position::default(), 2);
/// assert_eq!(split.len(), 20);
/// assert!(split.iter().all(|(_, n)| *n == 20));
/// ```
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|&m| (m, perft(&pos.play(m), depth - 1))).collect()
}

/// Below this depth a subtree is counted without asking whether to stop: it
/// takes at most a few milliseconds.
const UNINTERRUPTED_DEPTH: u32 = 3;

/// [`divide`] that gives up, returning `None`, as soon as `stop` says so. It
/// asks before each subtree deeper than a few plies, so a caller with a
/// deadline or a cancelled request is answered within milliseconds.
///
/// ```
/// use arbiter_chess::{Position, divide, divide_until, perft};
/// let split = divide_until(&Position::default(), 3, &|| false).unwrap();
/// assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
/// assert!(divide_until(&Position::default(), 6, &|| true).is_none());
/// ```
pub fn divide_until(
    pos: &Position,
    depth: u32,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(Move, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    pos.legal_moves()
        .iter()
        .map(|&m| Some((m, perft_until(&pos.play(m), depth - 1, stop)?)))
        .collect()
}

fn perft_until(pos: &Position, depth: u32, stop: &dyn Fn() -> bool) -> Option<u64> {
    if stop() {
        return None;
    }
    if depth <= UNINTERRUPTED_DEPTH {
        return Some(perft(pos, depth));
    }
    pos.legal_moves().iter().map(|&m| perft_until(&pos.play(m), depth - 1, stop)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_zero_is_one_leaf() {
        assert_eq!(perft(&Position::default(), 0), 1);
        assert!(divide(&Position::default(), 0).is_empty());
    }
}
