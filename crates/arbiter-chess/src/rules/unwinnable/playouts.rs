//! The search phases of the unwinnability analysis: guided play-outs
//! towards a mate, and a short full-width search for a mate within three
//! plies, sharing one count of the positions visited.

use super::hasher::{KeyMap, KeySet};
use super::pawn_captures;
use super::static_proofs::material_cannot_mate;
use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::checks::Checks;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Role, Square};

/// The state shared by the phases of one analysis.
pub(super) struct Search {
    pub(super) winner: Color,
    /// Positions visited so far, by every phase.
    pub(super) used: u64,
    /// The whole budget.
    pub(super) limit: u64,
    /// Seed of the play-outs' random tie-break (fixed: answers are
    /// reproducible).
    rng: u64,
    /// How much randomness the current play-out adds to the scores.
    noise: u64,
    /// Play-outs run so far.
    round: usize,
    /// The corners where a mate can happen with the winner's material: a
    /// lone bishop's colour decides it.
    corners: Bitboard,
    /// The corner the losing king heads for in the current play-out.
    target: Square,
    /// Whether the current play-out has the loser give its pieces away to
    /// the winner's king (they could interpose or take the checking piece)
    /// rather than gather them round its own king as blockers.
    sacrifice: bool,
    /// Whether the loser's pieces gather next to the target corner (where
    /// the king will be mated) rather than next to the king itself.
    corner_blockers: bool,
    /// Whether the winning king goes for the loser's pawns (which may be
    /// all that keeps the winner's pawns from promoting) in the current
    /// play-out.
    hunt: bool,
    /// Whether the winner has pawns and none of them can move at the
    /// start (as behind every blocked structure [`crate::rules::dead`]
    /// analyses).
    stuck: bool,
    /// Positions near the target corner already searched for a mate in
    /// two moves.
    finished: KeySet<u64>,
}

impl Search {
    pub(super) fn new(start: &Position, winner: Color, limit: u64) -> Search {
        let ours = start.by_color(winner) - start.by_role(Role::King);
        let bishops = start.by_role(Role::Bishop);
        let pawns = start.pieces(Piece { color: winner, role: Role::Pawn });
        let mut corners = Bitboard::EMPTY;
        for corner in [Square::A1, Square::H1, Square::A8, Square::H8] {
            corners = corners.with(corner);
        }
        // With bishops of one square colour only (and no pawn to promote),
        // the checked king stands on that colour: a corner of it.
        if ours.any() && ours == ours & bishops {
            if ours == ours & Bitboard::LIGHT_SQUARES {
                corners &= Bitboard::LIGHT_SQUARES;
            } else if ours == ours & Bitboard::DARK_SQUARES {
                corners &= Bitboard::DARK_SQUARES;
            }
        }
        Search {
            winner,
            used: 0,
            limit,
            rng: 0x9e37_79b9_7f4a_7c15,
            noise: 12,
            round: 0,
            corners,
            target: Square::A1,
            sacrifice: false,
            corner_blockers: false,
            hunt: false,
            stuck: pawns.any()
                && (pawns.shift(winner.fold(8, -8)) - start.occupied()).is_empty()
                && pawn_captures(start, winner).is_empty(),
            finished: KeySet::default(),
        }
    }

    /// Counts a visited position; `false` once `limit` is spent.
    fn spend(&mut self, limit: u64) -> bool {
        self.used += 1;
        self.used <= limit.min(self.limit)
    }

    fn random(&mut self) -> u64 {
        // xorshift64*: fast, and good enough for breaking ties.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The random part of a move's score: below `self.noise`. Each of the
    /// play-outs' levels divides by a constant (a multiplication) rather
    /// than by a variable (tens of cycles, on every move scored).
    fn noise(&mut self) -> i32 {
        let r = self.random();
        let noise = match self.noise {
            12 => r % 12,
            40 => r % 40,
            400 => r % 400,
            n => r % n,
        };
        noise as i32
    }

    /// A mate by the winner within three plies, full width.
    pub(super) fn mate_in_three(&mut self, pos: &Position) -> Option<Vec<Move>> {
        let mut seen: KeyMap<u64, u8> = KeyMap::default();
        let plies: &[u8] = if pos.turn() == self.winner { &[1, 3] } else { &[2] };
        for &depth in plies {
            let mut line = Vec::new();
            if self.helpmate(pos, depth, &mut seen, &mut line) {
                line.reverse();
                return Some(line);
            }
        }
        None
    }

    /// Depth-first search for a mate by the winner in exactly `depth`
    /// plies (odd when the winner moves first). `line` receives the moves
    /// in reverse order.
    fn helpmate(
        &mut self,
        pos: &Position,
        depth: u8,
        seen: &mut KeyMap<u64, u8>,
        line: &mut Vec<Move>,
    ) -> bool {
        if !self.spend(self.limit) {
            return false;
        }
        if depth == 1 {
            return match self.mate_in_one(pos) {
                Some(m) => {
                    line.push(m);
                    true
                }
                None => false,
            };
        }
        let key = pos.zobrist();
        if seen.get(&key).is_some_and(|&d| d >= depth) {
            return false;
        }
        for m in pos.legal_moves() {
            let next = pos.play(m);
            if material_cannot_mate(&next, self.winner) {
                continue;
            }
            if self.helpmate(&next, depth - 1, seen, line) {
                line.push(m);
                return true;
            }
        }
        seen.insert(key, depth);
        false
    }

    /// A move of the winner (to move in `pos`) that mates.
    fn mate_in_one(&mut self, pos: &Position) -> Option<Move> {
        if pos.turn() != self.winner {
            return None;
        }
        mating_move(pos, &pos.legal_moves())
    }

    /// A winner's move, a reply and a mating move, from `pos` with the
    /// winner to move and `moves` its legal moves.
    fn mate_in_two_moves(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        limit: u64,
    ) -> Option<[Move; 3]> {
        for &first in moves {
            let after = pos.play(first);
            if material_cannot_mate(&after, self.winner) {
                continue;
            }
            for reply in after.legal_moves() {
                if !self.spend(limit) {
                    return None;
                }
                let next = after.play(reply);
                if let Some(mate) = mating_move(&next, &next.legal_moves()) {
                    return Some([first, reply, mate]);
                }
            }
        }
        None
    }

    /// Guided random play-outs until one mates or `limit` positions have
    /// been visited in all.
    pub(super) fn playouts(&mut self, start: &Position, limit: u64) -> Option<Vec<Move>> {
        const LENGTH: usize = 80;
        // Mostly guided, now and then nearly random: the guide finds most
        // helpmates fast, randomness those that need odd-looking moves.
        const NOISE: [u64; 4] = [12, 12, 40, 400];
        let loser_king = start.king_of(!self.winner);
        let winner_pawns = start.pieces(Piece { color: self.winner, role: Role::Pawn });
        while self.used < limit.min(self.limit) {
            self.noise = NOISE[self.round % NOISE.len()];
            // The nearest suitable corner first, then any of them.
            self.target = if self.round < 2 {
                self.corners
                    .into_iter()
                    .min_by_key(|&c| distance(c, loser_king))
                    .unwrap_or(Square::A1)
            } else {
                let n = self.corners.count().max(1);
                let k = (self.random() % u64::from(n)) as usize;
                self.corners.into_iter().nth(k).unwrap_or(Square::A1)
            };
            self.sacrifice = self.round % 3 == 2;
            self.corner_blockers = self.round % 2 == 1;
            // When none of the winner's pawns can move, taking the pawns
            // that block them may be its only way to mate: it hunts in two
            // play-outs of five rather than one.
            self.hunt =
                winner_pawns.any() && (self.round % 5 == 4 || (self.stuck && self.round % 5 == 1));
            self.round += 1;
            let mut pos = start.clone();
            // Every other play-out is long: a composed position may need
            // hundreds of plies of pawns unlocked one by one.
            let length = if self.round.is_multiple_of(2) { 8 * LENGTH } else { LENGTH };
            let mut line = Vec::with_capacity(length);
            for _ in 0..length {
                if !self.spend(limit) {
                    return None;
                }
                let moves = pos.legal_moves();
                if pos.turn() == self.winner
                    && let Some(m) = mating_move(&pos, &moves)
                {
                    line.push(m);
                    return Some(line);
                }
                // Near its corner, the losing king may be one winner's
                // move and one reply away from a mate the guide would not
                // find: look at every such pair, once per position (not in
                // the first play-outs, which find the easy helpmates
                // cheaply).
                if self.used > 20_000
                    && pos.turn() == self.winner
                    && distance(pos.king_of(!self.winner), self.target) <= 1
                    && self.finished.insert(pos.zobrist())
                    && let Some(end) = self.mate_in_two_moves(&pos, &moves, limit)
                {
                    line.extend(end);
                    return Some(line);
                }
                let Some(m) = self.pick(&pos, &moves) else {
                    break;
                };
                pos.play_unchecked(m);
                line.push(m);
                if material_cannot_mate(&pos, self.winner) {
                    break;
                }
            }
        }
        None
    }

    /// The next move of a play-out: the best by [`Search::winning_score`]
    /// or [`Search::losing_score`] after a random tie-break.
    fn pick(&mut self, pos: &Position, moves: &MoveList) -> Option<Move> {
        let guide = Guide::new(self, pos);
        // A loop for each side: whose move it is is asked once, not of
        // every move scored.
        if guide.winning {
            self.best(pos, moves, |search, m, role| search.winning_score(pos, &guide, m, role))
        } else {
            self.best(pos, moves, |search, m, role| search.losing_score(&guide, m, role))
        }
    }

    /// The move among `moves` with the best `score` after a random
    /// tie-break (the first of equals).
    #[inline(always)]
    fn best(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        score: impl Fn(&Search, Move, Role) -> i32,
    ) -> Option<Move> {
        let mut best = None;
        let mut best_score = i32::MIN;
        for (m, role) in pos.with_roles(moves) {
            let noise = self.noise();
            let score = score(self, m, role) + noise;
            if score > best_score {
                best_score = score;
                best = Some(m);
            }
        }
        best
    }

    /// How much a move of a piece of `role` of the winner's helps it mate:
    /// its pieces head for the losing king, its pawns for promotion. (A
    /// castling move's destination is its own rook: never a capture.)
    fn winning_score(&self, pos: &Position, guide: &Guide, m: Move, role: Role) -> i32 {
        let loser_king = guide.loser_king;
        let (from, to) = (m.from(), m.to());
        let capture = guide.theirs.contains(to);
        // Only a pawn's move can promote: its kind is asked of no other.
        let mut score = match role {
            Role::Pawn => match m.kind() {
                MoveKind::Promotion(Role::Queen) => 72,
                MoveKind::Promotion(_) => 22,
                _ => 12,
            },
            Role::King => match guide.prey_from {
                // Off to take the loser's pawns that block its own,
                // while there are any; then, as in other play-outs,
                // close to the losing king, but not next to it: two
                // squares away.
                Some(a) => 6 * (a - nearest(guide.prey, to)),
                None => {
                    4 * ((distance(from, loser_king) - 2).abs()
                        - (distance(to, loser_king) - 2).abs())
                }
            },
            _ => {
                // A piece next to the losing king with nothing guarding
                // it gets taken (often the king's only move): mates need
                // it guarded.
                let unguarded = guide.king_zone.contains(to)
                    && (pos.attackers_to(to, guide.us, pos.occupied().without(from)).without(from))
                        .is_empty();
                6 * (distance(from, loser_king) - distance(to, loser_king))
                    - if unguarded { 20 } else { 0 }
            }
        };
        if capture {
            score += if self.sacrifice || self.hunt { 30 } else { 3 };
        }
        score
    }

    /// How much a move of a piece of `role` of the loser's helps the winner
    /// mate: the losing king heads for the target corner, its pieces gather
    /// round it as blockers, and it takes none of the winner's material.
    fn losing_score(&self, guide: &Guide, m: Move, role: Role) -> i32 {
        let loser_king = guide.loser_king;
        let (from, to) = (m.from(), m.to());
        let capture = guide.theirs.contains(to);
        let target = self.target;
        let mut score = match role {
            Role::King => 6 * (distance(from, target) - distance(to, target)),
            Role::Pawn => match m.kind() {
                // A promoted piece makes a blocker; when heavy pieces
                // are given away, a minor one that cannot interpose
                // as easily.
                MoveKind::Promotion(Role::Knight | Role::Bishop) => 10,
                MoveKind::Promotion(_) if self.sacrifice => 0,
                MoveKind::Promotion(_) => 10,
                _ => 4,
            },
            // The loser's pieces make good blockers next to their king
            // or the corner; queens and rooks, which would interpose
            // or take the checking piece, may be given away to the
            // winning king instead.
            Role::Queen | Role::Rook if self.sacrifice => {
                let king = guide.winner_king;
                3 * (distance(from, king) - distance(to, king))
            }
            // Next to the corner the king heads for.
            _ if self.corner_blockers => {
                3 * ((distance(from, target) - 1).abs() - (distance(to, target) - 1).abs())
            }
            _ => 3 * (distance(from, loser_king) - distance(to, loser_king)),
        };
        if capture {
            score -= 40;
        }
        // A piece offered to a pawn of the winner frees that pawn.
        if role != Role::King
            && (attacks::pawn_attacks(!self.winner, to) & guide.winner_pawns).any()
        {
            score += 8;
        }
        score
    }
}

/// What the play-outs' scores ask of a position, worked out once for all of
/// its moves: scoring is most of a play-out's work, and these are the same
/// for every move.
struct Guide {
    us: Color,
    /// Whether the winner is to move.
    winning: bool,
    loser_king: Square,
    winner_king: Square,
    /// The pieces of the side not to move.
    theirs: Bitboard,
    /// The squares next to the losing king.
    king_zone: Bitboard,
    winner_pawns: Bitboard,
    /// The loser's pawns the winning king hunts.
    prey: Bitboard,
    /// When the winning king hunts (and there is prey), its distance from
    /// the nearest prey now.
    prey_from: Option<i32>,
}

impl Guide {
    fn new(search: &Search, pos: &Position) -> Guide {
        let us = pos.turn();
        let winner = search.winner;
        let loser_king = pos.king_of(!winner);
        let winner_king = pos.king_of(winner);
        let prey = pos.pieces(Piece { color: !winner, role: Role::Pawn });
        Guide {
            us,
            winning: us == winner,
            loser_king,
            winner_king,
            theirs: pos.by_color(!us),
            king_zone: attacks::king_attacks(loser_king),
            winner_pawns: pos.pieces(Piece { color: winner, role: Role::Pawn }),
            prey,
            prey_from: (search.hunt && prey.any()).then(|| nearest(prey, winner_king)),
        }
    }
}

/// King-step distance from `sq` to the nearest of `squares` (not empty).
fn nearest(squares: Bitboard, sq: Square) -> i32 {
    squares.into_iter().map(|p| distance(sq, p)).min().unwrap_or(0)
}

/// The first move among `moves` (the legal moves in `pos`) that
/// checkmates. A play-out asks this in every position of the winner's:
/// most moves are seen to give no check by two bit tests, and only the
/// others have their piece's role looked up.
fn mating_move(pos: &Position, moves: &MoveList) -> Option<Move> {
    let checks = Checks::new(pos);
    for &m in moves {
        if !checks.may_be_given_by(m) {
            continue;
        }
        let role = pos.role_at(m.from()).unwrap_or(Role::King);
        if checks.given_by_role(pos, m, role)
            && !checks.king_escapes_role(pos, m, role)
            && !pos.play(m).has_legal_moves()
        {
            return Some(m);
        }
    }
    None
}

/// King-step distance between two squares.
fn distance(a: Square, b: Square) -> i32 {
    // A play-out asks this of nearly every move it scores: a table.
    i32::from(DISTANCE[a.index()][b.index()])
}

/// [`distance`] for every pair of squares. Squares count from a1 along the
/// ranks: the file in the low 3 bits.
static DISTANCE: [[u8; 64]; 64] = {
    let mut table = [[0; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let (df, dr) = ((a & 7) as i32 - (b & 7) as i32, (a >> 3) as i32 - (b >> 3) as i32);
            let (df, dr) = (df.unsigned_abs(), dr.unsigned_abs());
            table[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::unwinnable::{SearchBudget, Winnability, analyse, replays_to_mate};

    fn pos(fen: &str) -> Position {
        Position::from_fen_lenient_material(fen).unwrap()
    }

    #[test]
    fn the_distance_table_counts_king_steps() {
        let squares = || (0..64).filter_map(Square::new);
        for a in squares() {
            for b in squares() {
                let files = (a.file() as i32 - b.file() as i32).abs();
                let ranks = (a.rank() as i32 - b.rank() as i32).abs();
                assert_eq!(distance(a, b), files.max(ranks), "{a} {b}");
            }
        }
        assert_eq!(distance(Square::A1, Square::H8), 7);
        assert_eq!(distance(Square::E4, Square::F6), 2);
    }

    #[test]
    fn blocked_pawn_endings_are_proven_alive_cheaply() {
        // Final positions of random games: each side's pawn is blocked by
        // the other's, and the winner's king must take the enemy pawn
        // before its own can promote (White's shortest helpmate here is
        // 19 plies). Play-outs that hunt the pawn and then bring the king
        // back to help the queen find it within the small budget below,
        // far less than the exhaustive walk needs.
        let kpk = "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101";
        let p = pos(kpk);
        match analyse(&p, Color::White, SearchBudget { nodes: 1_000 }) {
            Winnability::Winnable(line) => assert!(replays_to_mate(&p, Color::White, &line)),
            v => panic!("{kpk}: {v:?}"),
        }
        // With a bishop for Black: either side mates within 10,000.
        let kbpk = "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101";
        let p = pos(kbpk);
        for winner in Color::ALL {
            match analyse(&p, winner, SearchBudget { nodes: 10_000 }) {
                Winnability::Winnable(line) => assert!(replays_to_mate(&p, winner, &line)),
                v => panic!("{kbpk} {winner:?}: {v:?}"),
            }
        }
    }
}
