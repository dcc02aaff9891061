//! SAN and UCI for variant moves: drops (`N@f3` in both, a pawn drop `@e4`
//! in SAN and `P@e4` in UCI), antichess's promotion to a king (`e8=K`,
//! `e7e8k`), and every other move as python-chess writes it, disambiguated
//! among the variant's legal moves, with `#` also for a move that wins or
//! loses by the variant's own rule.

use std::str::FromStr;

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::MoveKind;
use crate::board::types::{File, Role};
use crate::notation::san::{CastlingSide, San, SanString};
use crate::notation::uci::UciMove;
use crate::rules::variant::Variant;
use crate::rules::variant::position::{VariantMove, VariantPosition};

/// Why text does not name a legal move of a variant position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseVariantMoveError {
    /// Neither SAN nor UCI.
    #[error("not a move in san or uci (expected e.g. e4, Nf3, N@f3, e2e4 or P@e4)")]
    Syntax,
    /// Well formed, but no legal move fits.
    #[error("no legal move fits")]
    Illegal,
    /// More than one legal move fits.
    #[error("more than one legal move fits")]
    Ambiguous,
}

impl VariantPosition {
    /// The SAN of the legal move `m`, with `+` for a check and `#` for a
    /// mate or a move that decides the game by the variant's rule.
    ///
    /// ```
    /// use arbiter_chess::{Role, Square, Variant, VariantMove, VariantPosition};
    /// let pos = VariantPosition::from_fen("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1",
    ///     Variant::Crazyhouse, Default::default()).unwrap();
    /// assert_eq!(pos.san(VariantMove::Drop { role: Role::Knight, to: Square::F6 }), "N@f6+");
    /// ```
    pub fn san(&self, m: VariantMove) -> SanString {
        self.san_among(m, &self.legal_moves())
    }

    /// [`VariantPosition::san`] of `m`, disambiguated among `legal`: the
    /// legal moves, or only their board moves (a drop is nobody's rival).
    pub(crate) fn san_among(&self, m: VariantMove, legal: &[VariantMove]) -> SanString {
        self.san_without_mark(m, legal).written(self.mark_of(m))
    }

    /// The mark the legal move `m` earns in its SAN. The move is played only
    /// where it may earn one: in crazyhouse and three-check a move that gives
    /// no check earns none, nor on the hill one that also moves no king.
    fn mark_of(&self, m: VariantMove) -> Option<char> {
        let quiet = match self.variant {
            Variant::Crazyhouse | Variant::ThreeCheck => !self.gives_check(m),
            Variant::KingOfTheHill => {
                !self.gives_check(m)
                    && m.from().is_none_or(|from| self.board.role_at(from) != Some(Role::King))
            }
            _ => false,
        };
        if quiet { None } else { self.play(m).san_mark() }
    }

    /// Whether the legal move `m` checks the other king, by the standard rule
    /// (the variants with one king each that attacks as in chess).
    fn gives_check(&self, m: VariantMove) -> bool {
        match m {
            VariantMove::Board(mv) => self.board.gives_check(mv),
            VariantMove::Drop { role, to } => {
                // A drop only blocks lines: it checks directly or not at all.
                let occupied = self.board.occupied().with(to);
                let reach = match role {
                    Role::Pawn => attacks::pawn_attacks(self.turn(), to),
                    Role::Knight => attacks::knight_attacks(to),
                    Role::Bishop => attacks::bishop_attacks(to, occupied),
                    Role::Rook => attacks::rook_attacks(to, occupied),
                    Role::Queen => attacks::queen_attacks(to, occupied),
                    Role::King => Bitboard::EMPTY,
                };
                reach.contains(self.board.king_of(!self.turn()))
            }
        }
    }

    /// The SAN of `m` without the check mark, disambiguated among `legal`.
    fn san_without_mark(&self, m: VariantMove, legal: &[VariantMove]) -> San {
        let mv = match m {
            VariantMove::Drop { role, to } => return San::Put { role, to },
            VariantMove::Board(mv) => mv,
        };
        let (from, to) = (mv.from(), mv.to());
        if mv.is_castle() {
            let side = if to > from { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            return San::Castle(side);
        }
        let role = self.board.role_at(from).unwrap_or(Role::Pawn);
        let capture = mv.kind() == MoveKind::EnPassant || self.board.occupied().contains(to);
        let (mut file, mut rank) = (None, None);
        if role == Role::Pawn {
            file = capture.then_some(from.file());
        } else {
            let rivals = legal.iter().filter_map(|&other| match other {
                VariantMove::Board(o)
                    if !o.is_castle()
                        && o.to() == to
                        && o.from() != from
                        && self.board.role_at(o.from()) == Some(role) =>
                {
                    Some(o.from())
                }
                _ => None,
            });
            let (mut any, mut same_file, mut same_rank) = (false, false, false);
            for sq in rivals {
                any = true;
                same_file |= sq.file() == from.file();
                same_rank |= sq.rank() == from.rank();
            }
            if any {
                file = (!same_file || same_rank).then_some(from.file());
                rank = same_file.then_some(from.rank());
            }
        }
        San::Normal { role, file, rank, capture, to, promotion: mv.promotion() }
    }

    /// The UCI of the legal move `m` under the position's castling mode.
    pub fn uci(&self, m: VariantMove) -> UciMove {
        m.uci(self.castling_mode())
    }

    /// The legal move that SAN `text` names, read as leniently as standard
    /// SAN (see [`San`]'s `FromStr`), drops as `N@f3` or `@e4`.
    ///
    /// # Errors
    ///
    /// [`ParseVariantMoveError`]: not SAN, no legal move fits, or more than
    /// one does.
    ///
    /// ```
    /// use arbiter_chess::{Variant, VariantPosition};
    /// let pos = VariantPosition::from_fen("8/4P3/8/8/8/8/8/k7 w - - 0 1",
    ///     Variant::Antichess, Default::default()).unwrap();
    /// let m = pos.parse_san("e8=K").unwrap();
    /// assert_eq!(pos.uci(m).to_string(), "e7e8k");
    /// ```
    pub fn parse_san(&self, text: &str) -> Result<VariantMove, ParseVariantMoveError> {
        self.parse_san_among(text, &self.legal_moves())
    }

    /// [`VariantPosition::parse_san`], given `legal`, the legal moves.
    pub(crate) fn parse_san_among(
        &self,
        text: &str,
        legal: &[VariantMove],
    ) -> Result<VariantMove, ParseVariantMoveError> {
        let san = San::from_str(text).map_err(|_| ParseVariantMoveError::Syntax)?;
        if let San::Put { role, to } = san {
            let m = VariantMove::Drop { role, to };
            return if legal.contains(&m) { Ok(m) } else { Err(ParseVariantMoveError::Illegal) };
        }
        let mut found = legal.iter().filter(|&&m| self.fits(&san, m));
        match (found.next(), found.next()) {
            (Some(&m), None) => Ok(m),
            (Some(_), Some(_)) => Err(ParseVariantMoveError::Ambiguous),
            (None, _) => Err(ParseVariantMoveError::Illegal),
        }
    }

    /// Whether the move `m` is one that `san` may name.
    pub(super) fn fits(&self, san: &San, m: VariantMove) -> bool {
        let VariantMove::Board(mv) = m else { return false };
        match *san {
            San::Castle(side) => {
                mv.is_castle() && (side == CastlingSide::KingSide) == (mv.to() > mv.from())
            }
            San::Normal { role, file, rank, to, promotion, .. } => {
                !mv.is_castle()
                    && mv.to() == to
                    && self.board.role_at(mv.from()) == Some(role)
                    && file.is_none_or(|f: File| mv.from().file() == f)
                    && rank.is_none_or(|r| mv.from().rank() == r)
                    && mv.promotion() == promotion
            }
            San::Put { .. } => false,
        }
    }

    /// The legal move that UCI `text` names: `e2e4`, `e7e8q`, castling as
    /// the position's castling mode writes it, drops as `N@f3`.
    ///
    /// # Errors
    ///
    /// [`ParseVariantMoveError`]: not UCI, or no legal move fits.
    ///
    /// ```
    /// use arbiter_chess::{Variant, VariantPosition};
    /// let pos = VariantPosition::from_fen("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1",
    ///     Variant::Crazyhouse, Default::default()).unwrap();
    /// assert_eq!(pos.san(pos.parse_uci("P@e4").unwrap()), "@e4");
    /// ```
    pub fn parse_uci(&self, text: &str) -> Result<VariantMove, ParseVariantMoveError> {
        self.parse_uci_among(text, &self.legal_moves())
    }

    /// [`VariantPosition::parse_uci`], given `legal`, the legal moves.
    pub(crate) fn parse_uci_among(
        &self,
        text: &str,
        legal: &[VariantMove],
    ) -> Result<VariantMove, ParseVariantMoveError> {
        let uci = UciMove::from_str(text).map_err(|_| ParseVariantMoveError::Syntax)?;
        let mode = self.castling_mode();
        legal.iter().copied().find(|m| m.uci(mode) == uci).ok_or(ParseVariantMoveError::Illegal)
    }

    /// The legal move that `text` names in UCI or, failing that, in SAN.
    ///
    /// # Errors
    ///
    /// As [`VariantPosition::parse_san`] when the text is not UCI.
    pub fn parse_move(&self, text: &str) -> Result<VariantMove, ParseVariantMoveError> {
        match self.parse_uci(text) {
            Err(ParseVariantMoveError::Syntax) => self.parse_san(text),
            found => found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;
    use crate::rules::variant::Variant;

    fn pos(fen: &str, variant: Variant) -> VariantPosition {
        VariantPosition::from_fen(fen, variant, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn every_legal_move_reads_back_from_its_san_and_uci() {
        let starts = [
            (
                "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PP3PPP/R1BQK2R[p] b KQkq - 0 1",
                Variant::Crazyhouse,
            ),
            ("rn2kb1r/1pp1p2p/p2q1pp1/3P4/2P3b1/4PN2/PP3PPP/R2QKB1R b KQkq - 0 1", Variant::Atomic),
            ("8/1P6/8/8/8/8/5p2/2N1N3 w - - 0 1", Variant::Antichess),
            ("8/8/1rk4K/8/8/8/2bnNBR1/qrbnNBRQ b - - 0 1", Variant::RacingKings),
        ];
        for (fen, variant) in starts {
            let p = pos(fen, variant);
            let legal = p.legal_moves();
            assert!(!legal.is_empty(), "{fen}");
            for m in legal {
                assert_eq!(p.parse_san(&p.san(m)), Ok(m), "{} in {fen}", p.san(m));
                let uci = p.uci(m).to_string();
                assert_eq!(p.parse_uci(&uci), Ok(m), "{uci} in {fen}");
                assert_eq!(p.parse_move(&uci), Ok(m));
            }
        }
    }

    #[test]
    fn variant_wins_are_marked_as_mates() {
        // Atomic: capturing next to the king explodes it.
        let p = pos("rnbqkbnr/pppp1ppp/8/4p2Q/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", Variant::Atomic);
        let m = p.parse_uci("h5f7").unwrap();
        assert_eq!(p.san(m), "Qxf7#");
        // King of the hill: onto the centre.
        let p = pos("4k3/8/8/8/8/4K3/8/8 w - - 0 1", Variant::KingOfTheHill);
        assert_eq!(p.san(p.parse_uci("e3e4").unwrap()), "Ke4#");
    }

    #[test]
    fn bad_moves_are_told_apart() {
        let p = VariantPosition::new(Variant::Crazyhouse);
        assert_eq!(p.parse_move("N@f3"), Err(ParseVariantMoveError::Illegal));
        assert_eq!(p.parse_move("K@f3"), Err(ParseVariantMoveError::Syntax));
        assert_eq!(p.parse_move("e5"), Err(ParseVariantMoveError::Illegal));
        let p = pos("4k3/8/8/8/8/8/8/N3K2N[] w - - 0 1", Variant::Crazyhouse);
        assert_eq!(p.parse_san("Ng3"), Ok(p.parse_uci("h1g3").unwrap()));
        let p = pos("4k3/8/8/8/8/8/8/1N3N1K[] w - - 0 1", Variant::Crazyhouse);
        assert_eq!(p.parse_san("Nd2"), Err(ParseVariantMoveError::Ambiguous));
    }
}
