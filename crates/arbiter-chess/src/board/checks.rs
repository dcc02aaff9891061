//! Which moves check, and which checks surely do not mate, worked out once
//! for a position and then asked of each of its legal moves.

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{Role, Square};

/// Which moves of the side to move check the other king, worked out once
/// for a position and asked of each of its moves: by the unwinnability
/// play-outs, in every position of the winner's, and by the SAN of a whole
/// list of legal moves. Most moves are plain moves whose answer is then two
/// bit tests (where [`Position::gives_check`] works it out afresh for each
/// move).
pub(crate) struct Checks {
    /// The king in question.
    king: Square,
    /// By role, the squares from which a piece of that role would check it
    /// (none for the king).
    squares: [Bitboard; 6],
    /// The mover's pieces that alone stand between one of its sliders and
    /// the king: moving one off that line uncovers a check.
    discoverers: Bitboard,
    /// The squares a piece of any role would check the king from.
    targets: Bitboard,
}

impl Checks {
    pub(crate) fn new(pos: &Position) -> Checks {
        let us = pos.turn();
        let king = pos.king_of(!us);
        let occupied = pos.occupied();
        let ours = pos.by_color(us);
        let queens = pos.by_role(Role::Queen);
        let (diagonal, straight) =
            (attacks::bishop_attacks(king, occupied), attacks::rook_attacks(king, occupied));
        let mut squares = [Bitboard::EMPTY; 6];
        squares[Role::Pawn.index()] = attacks::pawn_attacks(!us, king);
        squares[Role::Knight.index()] = attacks::knight_attacks(king);
        squares[Role::Bishop.index()] = diagonal;
        squares[Role::Rook.index()] = straight;
        squares[Role::Queen.index()] = diagonal | straight;
        let snipers = ours
            & ((attacks::bishop_rays(king) & (pos.by_role(Role::Bishop) | queens))
                | (attacks::rook_rays(king) & (pos.by_role(Role::Rook) | queens)));
        let mut discoverers = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(sniper, king) & occupied;
            if blockers.more_than_one() {
                continue;
            }
            discoverers |= blockers & ours;
        }
        let targets = squares[Role::Pawn.index()]
            | squares[Role::Knight.index()]
            | squares[Role::Queen.index()];
        Checks { king, squares, discoverers, targets }
    }

    /// Whether the legal move `m` may check, told without the role of its
    /// piece: `false` means [`Checks::given_by`] is `false`. Most moves are
    /// told so by two bit tests.
    #[inline]
    pub(crate) fn may_be_given_by(&self, m: Move) -> bool {
        m.kind() != MoveKind::Normal
            || self.targets.contains(m.to())
            || self.discoverers.contains(m.from())
    }

    /// Whether the legal move `m` checks: as [`Position::gives_check`].
    /// A plain move checks from its destination, or uncovers a check by
    /// leaving the line of a slider (it cannot open its own line: a slider
    /// that moves away from the king along it was checking already). The
    /// rest (castling, en passant, promotion) ask the position.
    pub(crate) fn given_by(&self, pos: &Position, m: Move) -> bool {
        self.given_by_role(pos, m, pos.role_at(m.from()).unwrap_or(Role::King))
    }

    /// [`Checks::given_by`] for a move of a piece of `role`, known already
    /// (as [`Position::with_roles`] gives it).
    #[inline]
    pub(crate) fn given_by_role(&self, pos: &Position, m: Move, role: Role) -> bool {
        if m.kind() != MoveKind::Normal {
            return pos.gives_check(m);
        }
        let (from, to) = (m.from(), m.to());
        self.squares[role.index()].contains(to)
            || (self.discoverers.contains(from) && !attacks::aligned(from, to, self.king))
    }

    /// Whether, after the legal move `m`, the king in question surely has
    /// a square to step to: one next to it, not held by its own side, that
    /// no piece of the mover's side would attack even on a board emptier
    /// than the one after the move (the mover gone from `from` and not yet
    /// on `to`, the king gone from its square; fewer blockers, more squares
    /// attacked). Then `m` does not mate, and most checks are told so without
    /// playing them. Moves other than plain ones are not
    /// judged (false).
    pub(crate) fn king_escapes(&self, pos: &Position, m: Move) -> bool {
        self.king_escapes_role(pos, m, pos.role_at(m.from()).unwrap_or(Role::King))
    }

    /// [`Checks::king_escapes`] for a move of a piece of `role`, known
    /// already.
    pub(crate) fn king_escapes_role(&self, pos: &Position, m: Move, role: Role) -> bool {
        if m.kind() != MoveKind::Normal {
            return false;
        }
        let us = pos.turn();
        let (from, to) = (m.from(), m.to());
        let occupied = pos.occupied().without(from).without(self.king);
        let mover = match role {
            Role::Pawn => attacks::pawn_attacks(us, to),
            Role::Knight => attacks::knight_attacks(to),
            Role::Bishop => attacks::bishop_attacks(to, occupied),
            Role::Rook => attacks::rook_attacks(to, occupied),
            Role::Queen => {
                attacks::bishop_attacks(to, occupied) | attacks::rook_attacks(to, occupied)
            }
            Role::King => attacks::king_attacks(to),
        };
        let held = pos.by_color(!us).without(to);
        let flights = attacks::king_attacks(self.king) - held - mover;
        flights.into_iter().any(|sq| pos.attackers_to(sq, us, occupied).without(from).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen_lenient_material(fen).unwrap()
    }

    /// The check test against the position's own, on every
    /// legal move of the positions of seeded random games from starts rich
    /// in pins, uncovered checks, promotions and en passant.
    #[test]
    fn checks_worked_out_once_agree_with_the_position() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "4k3/8/2P5/1B6/4N3/8/4R3/R3K2B w Q - 0 1",
        ];
        let (mut rng, mut checks, mut uncovered, mut moves_seen) =
            (0x9e37_79b9_7f4a_7c15_u64, 0, 0, 0);
        let (mut escaped, mut boxed_in, mut mated) = (0, 0, 0);
        for start in starts {
            for _ in 0..40 {
                let mut p = pos(start);
                for _ in 0..120 {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let worked_out = Checks::new(&p);
                    for &m in &moves {
                        let expected = p.gives_check(m);
                        assert_eq!(worked_out.given_by(&p, m), expected, "{} {m}", p.fen());
                        // A king said to escape has a legal move after `m`.
                        let escapes = worked_out.king_escapes(&p, m);
                        let mates = expected && !p.play(m).has_legal_moves();
                        assert!(!(escapes && mates), "{} {m}", p.fen());
                        escaped += usize::from(expected && escapes);
                        boxed_in += usize::from(expected && !escapes);
                        mated += usize::from(mates);
                        checks += usize::from(expected);
                        let role = p.role_at(m.from()).unwrap();
                        uncovered += usize::from(
                            expected
                                && m.kind() == MoveKind::Normal
                                && !worked_out.squares[role.index()].contains(m.to()),
                        );
                        moves_seen += 1;
                    }
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    p.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(
            moves_seen > 100_000 && checks > 2_000 && uncovered > 100,
            "{moves_seen} moves, {checks} checks, {uncovered} uncovered"
        );
        // Most checks are seen not to mate without being played; the rest,
        // every mate among them, are left to the full test.
        assert!(
            escaped > checks / 2 && boxed_in > 1_000 && mated > 100,
            "{escaped} escaped, {boxed_in} boxed in, {mated} mates"
        );
    }
}
