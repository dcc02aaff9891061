//! Why a text names no legal move of a variant position: the rule it
//! breaks, as precisely as for standard chess. A drop names its defect
//! (nothing of that kind in hand, an occupied square, a pawn on a back
//! rank); a board move breaks either the way the pieces move, which the
//! standard diagnosis names wherever the mover has its one king, or the
//! variant's own filter: antichess's compulsory capture, atomic's
//! explosions, racing kings' ban on checks, or chess's checks.

use crate::board::attacks::king_attacks;
use crate::board::moves::{Move, MoveKind};
use crate::board::types::{Piece, Rank, Role, Square};
use crate::notation::echo::Quoted;
use crate::notation::illegal::{Illegal, IllegalReason, diagnose_san, diagnose_uci};
use crate::notation::san::San;
use crate::notation::uci::UciMove;
use crate::rules::variant::Variant;
use crate::rules::variant::notation::ParseVariantMoveError;
use crate::rules::variant::position::{VariantMove, VariantPosition};

impl VariantPosition {
    /// Why `text`, which [`VariantPosition::parse_move`] (or the reading of
    /// one notation) refused with `error`, is not a legal move here.
    pub(crate) fn diagnose(&self, text: &str, error: ParseVariantMoveError) -> Illegal {
        match error {
            ParseVariantMoveError::Syntax => {
                Illegal::new(IllegalReason::Unparseable, format!("{} is {error}", Quoted(text)))
            }
            ParseVariantMoveError::Ambiguous => {
                let fits: Vec<String> = self
                    .legal_moves()
                    .into_iter()
                    .filter(|&m| self.parse_san(&self.san(m)).is_ok() && self.names(text, m))
                    .map(|m| self.san(m).to_string())
                    .collect();
                Illegal::new(
                    IllegalReason::AmbiguousSan,
                    format!("{} fits more than one legal move: {}", Quoted(text), fits.join(", ")),
                )
            }
            ParseVariantMoveError::Illegal => self.diagnose_illegal(text),
        }
    }

    /// Whether SAN `text` could stand for the legal move `m` (same piece
    /// kind and target): for listing the moves an ambiguous text fits.
    fn names(&self, text: &str, m: VariantMove) -> bool {
        let body = text.trim_end_matches(['+', '#', '!', '?']);
        match (body.parse::<San>().ok(), m) {
            (Some(San::Normal { role, to, .. }), VariantMove::Board(mv)) => {
                mv.to() == to && self.board.role_at(mv.from()) == Some(role)
            }
            _ => false,
        }
    }

    fn diagnose_illegal(&self, text: &str) -> Illegal {
        let body = text.trim_end_matches(['+', '#', '!', '?']);
        if let Ok(UciMove::Put { role, to }) = body.parse() {
            return self.diagnose_drop(role, to);
        }
        if let Ok(San::Put { role, to }) = body.parse() {
            return self.diagnose_drop(role, to);
        }
        let Some(candidates) = self.read_board_move(body) else {
            return Illegal::new(
                IllegalReason::Unparseable,
                format!("{} is not a move", Quoted(text)),
            );
        };
        // A move the pieces can make but the variant's filter refuses.
        if let Some(&m) = candidates.first() {
            return self.diagnose_filtered(m);
        }
        let us = self.turn();
        if let Some(to) = self.atomic_king_capture(body) {
            return Illegal::new(
                IllegalReason::ExplodesOwnKing,
                format!("the {} king cannot capture on {to}: it would explode", us.name()),
            );
        }
        // The pieces cannot move so: the standard diagnosis names why,
        // where the mover has its one king (it reads checks from it).
        let one_king = (self.board.by_color(us) & self.board.by_role(Role::King)).count() == 1
            && self.variant != Variant::Antichess;
        if one_king {
            if let Ok(uci) = body.parse::<UciMove>() {
                return diagnose_uci(&self.board, &uci);
            }
            if let Ok(san) = body.parse::<San>() {
                return diagnose_san(&self.board, &san);
            }
        }
        Illegal::new(
            IllegalReason::CannotMoveThatWay,
            format!("no {} piece can make the move {}", us.name(), Quoted(text)),
        )
    }

    /// The square of the enemy piece that `body` has the king take, in
    /// atomic, where kings never capture (they would explode).
    fn atomic_king_capture(&self, body: &str) -> Option<Square> {
        let king = self.king_of(self.turn()).filter(|_| self.variant == Variant::Atomic)?;
        let to = match (body.parse::<UciMove>(), body.parse::<San>()) {
            (Ok(UciMove::Normal { from, to, .. }), _) if from == king => to,
            (_, Ok(San::Normal { role: Role::King, to, .. })) => to,
            _ => return None,
        };
        let enemy = self.board.by_color(!self.turn());
        (king_attacks(king) & enemy).contains(to).then_some(to)
    }

    /// A drop that is not legal: why.
    fn diagnose_drop(&self, role: Role, to: Square) -> Illegal {
        let us = self.turn();
        let piece = Piece { color: us, role };
        if self.variant != Variant::Crazyhouse {
            return Illegal::new(
                IllegalReason::InvalidDrop,
                format!("there are no drops in {}", self.variant.pgn_name()),
            );
        }
        if self.pockets[us.index()].count(role) == 0 {
            return Illegal::new(
                IllegalReason::NoPiece,
                format!("{} has no {} in hand", us.name(), role.name()),
            );
        }
        if let Some(there) = self.board.piece_at(to) {
            return Illegal::new(
                IllegalReason::InvalidDrop,
                format!("{to} is taken by the {} {}", there.color.name(), there.role.name()),
            );
        }
        if role == Role::Pawn && matches!(to.rank(), Rank::First | Rank::Eighth) {
            return Illegal::new(
                IllegalReason::InvalidDrop,
                format!("a pawn cannot be dropped on the {} rank", rank_name(to.rank())),
            );
        }
        Illegal::new(
            IllegalReason::KingInCheck,
            format!(
                "dropping the {} {} on {to} leaves the {} king in check",
                piece.color.name(),
                role.name(),
                us.name()
            ),
        )
    }

    /// The moves the pieces could make (by the variant's way of moving, the
    /// filter aside) that the text names: `None` when it is neither UCI nor
    /// SAN.
    fn read_board_move(&self, body: &str) -> Option<Vec<Move>> {
        let unfiltered = self.unfiltered_moves();
        let mode = self.castling_mode();
        if let Ok(uci) = body.parse::<UciMove>() {
            return Some(
                unfiltered.into_iter().filter(|&m| UciMove::from_move_in(m, mode) == uci).collect(),
            );
        }
        let san = body.parse::<San>().ok()?;
        Some(unfiltered.into_iter().filter(|&m| self.fits(&san, VariantMove::Board(m))).collect())
    }

    /// Why the variant refuses `m`, a move its pieces can make.
    fn diagnose_filtered(&self, m: Move) -> Illegal {
        let us = self.turn();
        let mover = self.board.role_at(m.from()).map_or("piece", Role::name);
        match self.variant {
            Variant::Antichess => Illegal::new(
                IllegalReason::CaptureRequired,
                format!("capturing is compulsory: {} can capture", us.name()),
            ),
            Variant::RacingKings if self.board.gives_check(m) => Illegal::new(
                IllegalReason::GivesCheck,
                format!("the {mover} would give check, and no check may be given"),
            ),
            Variant::Atomic
                if self.board.piece_at(m.to()).is_some() || m.kind() == MoveKind::EnPassant =>
            {
                let mut after = self.clone();
                after.play_board(m);
                if after.king_of(us).is_none() {
                    Illegal::new(
                        IllegalReason::ExplodesOwnKing,
                        format!("capturing on {} explodes the {} king", m.to(), us.name()),
                    )
                } else {
                    self.check_reason(m, mover)
                }
            }
            _ => self.check_reason(m, mover),
        }
    }

    /// A move refused because of a check: it leaves the king in check, or
    /// walks it into one, or moves a pinned piece.
    fn check_reason(&self, m: Move, mover: &str) -> Illegal {
        let us = self.turn().name();
        if m.is_castle() {
            return Illegal::new(
                IllegalReason::CastlingThroughCheck,
                format!("the {us} king cannot castle through, out of or into check"),
            );
        }
        if self.is_check() {
            Illegal::new(
                IllegalReason::KingInCheck,
                format!("the {us} king is in check and the {mover} move does not answer it"),
            )
        } else if self.board.role_at(m.from()) == Some(Role::King) {
            Illegal::new(
                IllegalReason::KingIntoCheck,
                format!("the {us} king would be in check on {}", m.to()),
            )
        } else {
            Illegal::new(
                IllegalReason::PinnedPiece,
                format!("the {mover} on {} is pinned to the {us} king", m.from()),
            )
        }
    }
}

fn rank_name(rank: Rank) -> &'static str {
    if rank == Rank::First { "first" } else { "last" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;

    fn why(fen: &str, variant: Variant, text: &str) -> (IllegalReason, String) {
        let pos = VariantPosition::from_fen(fen, variant, CastlingMode::Standard).unwrap();
        let error = pos.parse_move(text).unwrap_err();
        let illegal = pos.diagnose(text, error);
        (illegal.reason, illegal.message)
    }

    #[test]
    fn drops_name_their_defect() {
        let zh = "4k3/8/8/8/8/8/4P3/4K3[Pn] w - - 0 1";
        let reason = |text| why(zh, Variant::Crazyhouse, text).0;
        assert_eq!(reason("N@f3"), IllegalReason::NoPiece);
        assert_eq!(reason("P@e2"), IllegalReason::InvalidDrop);
        assert_eq!(reason("P@e8"), IllegalReason::InvalidDrop);
        assert_eq!(
            why(zh, Variant::Crazyhouse, "@a1").1,
            "a pawn cannot be dropped on the first rank"
        );
        let checked = "4k3/8/8/8/8/8/8/r3K3[N] w - - 0 1";
        assert_eq!(why(checked, Variant::Crazyhouse, "N@h5").0, IllegalReason::KingInCheck);
        assert_eq!(why(crate::STARTING_FEN, Variant::Atomic, "N@f3").0, IllegalReason::InvalidDrop);
    }

    #[test]
    fn variant_filters_are_named() {
        // Antichess: e2e3 while the knight can take.
        let anti = "8/8/8/8/8/2n5/4P3/1N6 w - - 0 1";
        assert_eq!(why(anti, Variant::Antichess, "e3").0, IllegalReason::CaptureRequired);
        // Atomic: taking next to one's own king.
        let atomic = "4k3/8/8/8/8/8/3pK3/3R4 w - - 0 1";
        assert_eq!(why(atomic, Variant::Atomic, "Rxd2").0, IllegalReason::ExplodesOwnKing);
        // Atomic: a king never captures, in SAN or UCI.
        for text in ["Kxd2", "e2d2"] {
            assert_eq!(why(atomic, Variant::Atomic, text).0, IllegalReason::ExplodesOwnKing);
        }
        // Racing kings: no checks.
        let racing = "8/8/8/8/8/k7/8/1R5K w - - 0 1";
        assert_eq!(why(racing, Variant::RacingKings, "Rb3").0, IllegalReason::GivesCheck);
        // Three-check: chess's checks.
        let three = "4k3/8/8/8/8/8/r7/4K3 w - - 3+3 0 1";
        assert_eq!(why(three, Variant::ThreeCheck, "Kf2").0, IllegalReason::KingIntoCheck);
    }

    #[test]
    fn geometry_is_named_as_in_chess() {
        let koth = crate::STARTING_FEN;
        assert_eq!(why(koth, Variant::KingOfTheHill, "e2e5").0, IllegalReason::CannotMoveThatWay);
        assert_eq!(why(koth, Variant::KingOfTheHill, "Nd4").0, IllegalReason::NoPiece);
        assert_eq!(why(koth, Variant::KingOfTheHill, "zz").0, IllegalReason::Unparseable);
        // Antichess has no kings to read checks from: still a reason.
        let anti = "8/8/8/8/8/8/4P3/8 w - - 0 1";
        assert_eq!(why(anti, Variant::Antichess, "e2e5").0, IllegalReason::CannotMoveThatWay);
    }

    #[test]
    fn ambiguity_lists_the_moves() {
        let zh = "4k3/8/8/8/8/8/8/1N3N1K[] w - - 0 1";
        let (reason, message) = why(zh, Variant::Crazyhouse, "Nd2");
        assert_eq!(reason, IllegalReason::AmbiguousSan);
        assert!(message.contains("Nbd2") && message.contains("Nfd2"), "{message}");
    }
}
