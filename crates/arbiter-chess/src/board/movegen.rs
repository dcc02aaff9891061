//! Fully legal move generation.
//!
//! The generator produces legal moves directly (no make-and-test): in double
//! check only the king moves; in single check the other pieces are limited to
//! capturing the checker or blocking its ray; pinned pieces move only along
//! their pin line; king steps are tested against attacks with the king
//! removed from the board; en passant is tested by removing both pawns, which
//! covers the horizontal pin and the discovered check from the captured
//! pawn's square. Moves reach a `MoveSink` as sets of targets, so counting
//! (for perft) costs a popcount per piece instead of a list.

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::{Position, castling_squares};
use crate::board::types::{File, Piece, Rank, Role, Square};

/// Receives generated moves as sets. Pawn moves arrive as a set of targets
/// with the step `delta` (target index minus origin index) they were made by.
pub(crate) trait MoveSink {
    /// Normal moves of the piece on `from` to each of `targets`.
    fn piece(&mut self, from: Square, targets: Bitboard);
    /// Non-promoting pawn moves to `targets`, each from `target - delta`.
    fn pawns(&mut self, targets: Bitboard, delta: i32);
    /// Promotions (four each) to `targets`, each from `target - delta`.
    fn promotions(&mut self, targets: Bitboard, delta: i32);
    /// An en-passant capture.
    fn en_passant(&mut self, from: Square, to: Square);
    /// Castling of the king on `king` with the rook on `rook`.
    fn castle(&mut self, king: Square, rook: Square);
    /// Whether the sink needs no more moves (generation may stop early).
    #[inline]
    fn satisfied(&self) -> bool {
        false
    }
    /// Whether one legal move is all the sink asks for: the king's steps
    /// then stop being tested at the first safe one.
    const ONE_IS_ENOUGH: bool = false;
}

/// Counts moves without listing them.
struct Counter(usize);

impl MoveSink for Counter {
    #[inline]
    fn piece(&mut self, _: Square, targets: Bitboard) {
        self.0 += targets.count() as usize;
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _: i32) {
        self.0 += targets.count() as usize;
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, _: i32) {
        self.0 += 4 * targets.count() as usize;
    }
    #[inline]
    fn en_passant(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
    #[inline]
    fn castle(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
}

/// Notes whether any move exists, and asks for no more once one does.
struct AnyMove(bool);

impl MoveSink for AnyMove {
    const ONE_IS_ENOUGH: bool = true;
    #[inline]
    fn piece(&mut self, _: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _: i32) {
        self.0 |= targets.any();
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, _: i32) {
        self.0 |= targets.any();
    }
    #[inline]
    fn en_passant(&mut self, _: Square, _: Square) {
        self.0 = true;
    }
    #[inline]
    fn castle(&mut self, _: Square, _: Square) {
        self.0 = true;
    }
    #[inline]
    fn satisfied(&self) -> bool {
        self.0
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            // Capacity is the proven maximum of legal moves in a position a
            // game can reach; one with more material (read leniently) may
            // have more, and the list keeps the first (see
            // `Position::every_legal_move`).
            let _ = self.try_push(Move::new(from, to, MoveKind::Normal));
        }
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            if let Some(from) = to.offset(-delta) {
                let _ = self.try_push(Move::new(from, to, MoveKind::Normal));
            }
        }
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            if let Some(from) = to.offset(-delta) {
                for role in Role::PROMOTIONS {
                    let _ = self.try_push(Move::new(from, to, MoveKind::Promotion(role)));
                }
            }
        }
    }
    #[inline]
    fn en_passant(&mut self, from: Square, to: Square) {
        let _ = self.try_push(Move::new(from, to, MoveKind::EnPassant));
    }
    #[inline]
    fn castle(&mut self, king: Square, rook: Square) {
        let _ = self.try_push(Move::new(king, rook, MoveKind::Castle));
    }
}

impl Position {
    /// Every legal move: at most [`MAX_LEGAL_MOVES`](crate::MAX_LEGAL_MOVES),
    /// the most a position with a game's material has. A position with
    /// more (read by [`Position::from_fen_lenient_material`]) may have more
    /// moves than that, and the list then holds the first of them;
    /// [`Position::count_legal`] counts them all.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// assert_eq!(Position::default().legal_moves().len(), 20);
    /// ```
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.legal_moves_filtered(Bitboard::FULL, Bitboard::FULL)
    }

    /// Every legal move, also beyond [`MAX_LEGAL_MOVES`](crate::MAX_LEGAL_MOVES)
    /// in a position with more material than a game can have: piece by
    /// piece (none has more than 27 moves) when the whole list is full.
    /// For the searches that must see every move to prove anything.
    pub(crate) fn every_legal_move(&self) -> Vec<Move> {
        let listed = self.legal_moves();
        if !listed.is_full() {
            return listed.to_vec();
        }
        self.by_color(self.turn())
            .into_iter()
            .flat_map(|from| self.legal_moves_filtered(from.into(), Bitboard::FULL))
            .collect()
    }

    /// The legal moves that start on a square of `from` and end on a square
    /// of `to`. Castling counts as ending on both the rook's and the king's
    /// destination square.
    ///
    /// ```
    /// use arbiter_chess::{Bitboard, Position, Square};
    /// let pos = Position::default();
    /// assert_eq!(pos.legal_moves_filtered(Square::G1.into(), Bitboard::FULL).len(), 2);
    /// ```
    #[inline]
    pub fn legal_moves_filtered(&self, from: Bitboard, to: Bitboard) -> MoveList {
        let mut list = MoveList::new();
        self.generate(from, to, &mut list);
        list
    }

    /// How many legal moves there are, without listing them.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// assert_eq!(Position::default().count_legal(), 20);
    /// ```
    #[inline(always)]
    pub fn count_legal(&self) -> usize {
        let mut counter = Counter(0);
        self.generate(Bitboard::FULL, Bitboard::FULL, &mut counter);
        counter.0
    }

    /// Whether the side to move has any legal move. Stops at the first
    /// piece that has one, which is usually the king.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// let stalemate: Position = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
    /// assert!(!stalemate.has_legal_moves());
    /// assert!(Position::default().has_legal_moves());
    /// ```
    pub fn has_legal_moves(&self) -> bool {
        let mut any = AnyMove(false);
        self.generate(Bitboard::FULL, Bitboard::FULL, &mut any);
        any.0
    }

    /// Whether `m` is a legal move here.
    ///
    /// ```
    /// use arbiter_chess::{Move, MoveKind, Position, Square};
    /// let pos = Position::default();
    /// assert!(pos.is_legal(Move::new(Square::E2, Square::E4, MoveKind::Normal)));
    /// assert!(!pos.is_legal(Move::new(Square::E2, Square::E5, MoveKind::Normal)));
    /// ```
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves_filtered(m.from().into(), m.to().into()).contains(&m)
    }

    /// The pieces of `role` among `from` (of the side to move) that can
    /// legally move to `to` by a move other than castling: the reverse of
    /// the generator for one target square, without listing moves. Pawns
    /// count with pushes, double steps, captures and en passant.
    // Inlined: each caller knows the role or the from-square, and the call
    // itself was a sizeable part of a UCI ply.
    #[inline(always)]
    pub(crate) fn movers_to(&self, role: Role, from: Bitboard, to: Square) -> Bitboard {
        let us = self.turn;
        let them = !us;
        let ours = self.by_color(us);
        if ours.contains(to) {
            return Bitboard::EMPTY;
        }
        let occupied = ours | self.by_color(them);
        let pieces = from & self.pieces(Piece { color: us, role });
        let king = self.king_of(us);
        let candidates = pieces
            & match role {
                Role::Pawn => self.pawn_sources(to, occupied),
                Role::Knight => attacks::knight_attacks(to),
                Role::Bishop => attacks::unblocked(pieces & attacks::bishop_rays(to), to, occupied),
                Role::Rook => attacks::unblocked(pieces & attacks::rook_rays(to), to, occupied),
                Role::Queen => attacks::unblocked(
                    pieces & (attacks::rook_rays(to) | attacks::bishop_rays(to)),
                    to,
                    occupied,
                ),
                Role::King => {
                    let steps = pieces & attacks::king_attacks(to);
                    return if steps.any() && !self.is_attacked(to, them, occupied.without(king)) {
                        steps
                    } else {
                        Bitboard::EMPTY
                    };
                }
            };
        if candidates.is_empty() {
            return candidates;
        }
        if Some(to) == self.ep_square && role == Role::Pawn {
            // En passant has its own legality (both pawns leave their
            // squares); a push onto the square is an ordinary move.
            let pushes = candidates & Bitboard::from_file(to.file());
            return self.ordinary_movers(pushes, to, king) | (candidates & self.ep_capturers());
        }
        self.ordinary_movers(candidates, to, king)
    }

    /// Of `candidates`, pieces other than the king that reach `to` by how
    /// they move, those whose move there is legal: out of check (the target
    /// captures or blocks a single checker) and along their pin line.
    #[inline]
    fn ordinary_movers(&self, candidates: Bitboard, to: Square, king: Square) -> Bitboard {
        let candidates = match self.checkers.single_square() {
            None if self.checkers.any() => return Bitboard::EMPTY,
            None => candidates,
            Some(checker) => {
                if !(attacks::between(king, checker) | checker).contains(to) {
                    return Bitboard::EMPTY;
                }
                candidates - self.pinned
            }
        };
        let mut legal = candidates - self.pinned;
        for pinned in candidates & self.pinned {
            if attacks::line(king, pinned).contains(to) {
                legal |= pinned;
            }
        }
        legal
    }

    /// Squares from which a pawn of the side to move would reach `to` by how
    /// pawns move (ignoring legality): a capture onto an enemy piece or the
    /// en-passant square, a push or a double step onto an empty square.
    // Inlined into `movers_to`, which SAN's pawn moves go through.
    #[inline(always)]
    fn pawn_sources(&self, to: Square, occupied: Bitboard) -> Bitboard {
        let us = self.turn;
        if self.by_color(!us).contains(to) {
            return attacks::pawn_attacks(!us, to);
        }
        let mut sources = Bitboard::EMPTY;
        if Some(to) == self.ep_square {
            sources = attacks::pawn_attacks(!us, to);
        }
        let down = us.fold(-8, 8);
        if let Some(behind) = to.offset(down) {
            if occupied.contains(behind) {
                sources |= behind;
            } else if to.rank() == Rank::Fourth.relative_to(us)
                && let Some(start) = behind.offset(down)
            {
                sources |= start;
            }
        }
        sources
    }

    /// The kind of the move of a piece of `role` from `from` to `to` (not
    /// castling) asking for `promotion`, or `None` if the promotion does not
    /// fit: compulsory to a knight, bishop, rook or queen on the last rank,
    /// absent elsewhere.
    #[inline]
    pub(crate) fn move_kind(
        &self,
        role: Role,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<MoveKind> {
        if role == Role::Pawn && to.rank() == Rank::Eighth.relative_to(self.turn) {
            return promotion.filter(|p| Role::PROMOTIONS.contains(p)).map(MoveKind::Promotion);
        }
        if promotion.is_some() {
            return None;
        }
        Some(if role == Role::Pawn && from.file() != to.file() && !self.occupied().contains(to) {
            MoveKind::EnPassant
        } else {
            MoveKind::Normal
        })
    }

    #[inline(always)]
    pub(crate) fn generate<S: MoveSink>(
        &self,
        from_mask: Bitboard,
        to_mask: Bitboard,
        sink: &mut S,
    ) {
        let us = self.turn;
        let them = !us;
        let ours = self.by_color(us);
        let theirs = self.by_color(them);
        let occupied = ours | theirs;
        let king = self.king_of(us);

        if from_mask.contains(king) {
            let steps = attacks::king_attacks(king) & !ours & to_mask;
            let without_king = occupied.without(king);
            let mut safe = Bitboard::EMPTY;
            for to in steps {
                if !self.is_attacked(to, them, without_king) {
                    safe |= to;
                    if S::ONE_IS_ENOUGH {
                        break;
                    }
                }
            }
            if safe.any() {
                sink.piece(king, safe);
            }
            if sink.satisfied() {
                return;
            }
        }

        let (target, movable) = match self.checkers.single_square() {
            Some(checker) => {
                (attacks::between(king, checker) | checker, ours & from_mask & !self.pinned)
            }
            None if self.checkers.any() => return,
            None => (Bitboard::FULL, ours & from_mask),
        };
        let target = target & !ours & to_mask;

        for from in self.by_role(Role::Knight) & movable & !self.pinned {
            sink.piece(from, attacks::knight_attacks(from) & target);
        }
        if sink.satisfied() {
            return;
        }
        let queens = self.by_role(Role::Queen);
        for from in (self.by_role(Role::Bishop) | queens) & movable {
            let mut att = attacks::bishop_attacks(from, occupied) & target;
            if queens.contains(from) {
                att |= attacks::rook_attacks(from, occupied) & target;
            }
            if self.pinned.contains(from) {
                att &= attacks::line(king, from);
            }
            sink.piece(from, att);
        }
        for from in self.by_role(Role::Rook) & movable {
            let mut att = attacks::rook_attacks(from, occupied) & target;
            if self.pinned.contains(from) {
                att &= attacks::line(king, from);
            }
            sink.piece(from, att);
        }

        let pawns = self.by_role(Role::Pawn) & movable;
        self.generate_pawns(pawns - self.pinned, target, sink);
        for from in pawns & self.pinned {
            self.generate_pawns(from.into(), target & attacks::line(king, from), sink);
        }

        if let Some(ep) = self.ep_square
            && to_mask.contains(ep)
        {
            for from in self.ep_capturers() & from_mask {
                sink.en_passant(from, ep);
            }
        }

        if self.checkers.is_empty() && from_mask.contains(king) {
            self.generate_castling(king, to_mask, sink);
        }
    }

    /// Pushes, double steps, captures and promotions of `pawns`, onto `target`.
    #[inline]
    fn generate_pawns<S: MoveSink>(&self, pawns: Bitboard, target: Bitboard, sink: &mut S) {
        if pawns.is_empty() {
            return;
        }
        let us = self.turn;
        let empty = !self.occupied();
        let theirs = self.by_color(!us);
        let last_rank = Bitboard::relative_rank(us, Rank::Eighth);
        let up = us.fold(8, -8);

        let single = pawns.shift(up) & empty;
        let double = (single & Bitboard::relative_rank(us, Rank::Third)).shift(up) & empty & target;
        let single = single & target;
        sink.pawns(single - last_rank, up);
        sink.promotions(single & last_rank, up);
        sink.pawns(double, 2 * up);

        // Towards the a-file, then towards the h-file.
        for (edge, delta) in [(File::A, up - 1), (File::H, up + 1)] {
            let captures = (pawns - Bitboard::from_file(edge)).shift(delta) & theirs & target;
            sink.pawns(captures - last_rank, delta);
            sink.promotions(captures & last_rank, delta);
        }
    }

    /// Castling, with the six conditions: the right (king and rook unmoved),
    /// nothing between king and rook and their destinations, the king not in
    /// check (checked by the caller), not passing through an attacked square
    /// and not landing on one.
    pub(crate) fn generate_castling<S: MoveSink>(
        &self,
        king: Square,
        to_mask: Bitboard,
        sink: &mut S,
    ) {
        let us = self.turn;
        let them = !us;
        let occupied = self.occupied();
        for rook in self.castling & Bitboard::from_rank(us.back_rank()) {
            let (king_to, rook_to) = castling_squares(us, king, rook);
            if !(to_mask.contains(rook) || to_mask.contains(king_to)) {
                continue;
            }
            let king_path = attacks::between(king, king_to).with(king_to);
            let rook_path = attacks::between(rook, rook_to).with(rook_to);
            let must_be_empty = (king_path | rook_path).without(king).without(rook);
            if (occupied & must_be_empty).any() {
                continue;
            }
            let without_king = occupied.without(king);
            if attacks::between(king, king_to)
                .into_iter()
                .any(|sq| self.is_attacked(sq, them, without_king))
            {
                continue;
            }
            let after = (occupied ^ king ^ rook) | king_to | rook_to;
            if self.is_attacked(king_to, them, after) {
                continue;
            }
            sink.castle(king, rook);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(fen: &str) -> Vec<String> {
        let pos: Position = fen.parse().unwrap();
        let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn only_the_king_moves_in_double_check() {
        let m = moves("4k3/8/8/8/1b6/8/3N4/r3K3 w - - 0 1");
        assert!(m.iter().all(|m| m.starts_with("e1")), "{m:?}");
    }

    #[test]
    fn evasions_capture_or_block_the_checker() {
        // The rook checks along the e-file: the bishop blocks, the knight
        // captures, the king steps aside.
        let m = moves("4k3/8/8/8/4r3/8/3B1N2/4K3 w - - 0 1");
        assert_eq!(m, vec!["d2e3", "e1d1", "e1f1", "f2e4"]);
    }

    #[test]
    fn pinned_pieces_move_along_the_pin_only() {
        // The bishop on d2 is pinned by the bishop on a5 against the king on e1.
        let m = moves("4k3/8/8/b7/8/8/3B4/4K3 w - - 0 1");
        let bishop: Vec<_> = m.iter().filter(|m| m.starts_with("d2")).collect();
        assert_eq!(bishop, vec!["d2a5", "d2b4", "d2c3"]);
    }

    #[test]
    fn en_passant_through_a_horizontal_pin_is_illegal() {
        let m = moves("8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 2");
        assert!(!m.contains(&"d5e6".to_string()));
    }

    #[test]
    fn en_passant_may_capture_the_checking_pawn() {
        let m = moves("8/8/8/3k4/3Pp3/8/8/4K3 b - d3 0 1");
        assert!(m.contains(&"e4d3".to_string()), "{m:?}");
    }

    #[test]
    fn en_passant_cannot_expose_the_king_diagonally() {
        // Removing the captured pawn from e5 opens the h8-a1 diagonal.
        let m = moves("7b/8/8/3Pp3/8/8/8/K3k3 w - e6 0 2");
        assert!(!m.contains(&"d5e6".to_string()), "{m:?}");
        assert!(m.contains(&"d5d6".to_string()));
    }

    #[test]
    fn castling_conditions() {
        let free = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert!(moves(free).contains(&"e1g1".to_string()));
        assert!(moves(free).contains(&"e1c1".to_string()));
        // Through check (f1 attacked) and into check (c1 attacked).
        let m = moves("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1");
        assert!(!m.contains(&"e1g1".to_string()));
        let m = moves("r3k2r/8/8/8/8/8/2r5/R3K2R w KQkq - 0 1");
        assert!(!m.contains(&"e1c1".to_string()));
        // b1 attacked does not stop queen-side castling: the king does not cross it.
        let m = moves("r3k2r/8/8/8/8/8/1r6/R3K2R w KQkq - 0 1");
        assert!(m.contains(&"e1c1".to_string()));
        // A piece between king and rook.
        let m = moves("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1");
        assert!(!m.contains(&"e1c1".to_string()));
        // Out of check.
        let m = moves("r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1");
        assert!(!m.iter().any(|m| m == "e1g1" || m == "e1c1"));
        // Without the right.
        let m = moves("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
        assert!(!m.contains(&"e1g1".to_string()));
    }

    #[test]
    fn promotions_come_in_fours() {
        let m = moves("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        let promos: Vec<_> = m.iter().filter(|m| m.starts_with("e7")).collect();
        assert_eq!(promos, vec!["e7e8b", "e7e8n", "e7e8q", "e7e8r"]);
    }

    #[test]
    fn count_matches_list_length() {
        let pos: Position =
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".parse().unwrap();
        assert_eq!(pos.count_legal(), 48);
        assert_eq!(pos.legal_moves().len(), 48);
    }
}
