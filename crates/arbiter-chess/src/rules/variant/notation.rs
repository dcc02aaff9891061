//! SAN and UCI for variant moves: drops (`N@f3` in both, a pawn drop `@e4`
//! in SAN and `P@e4` in UCI), antichess's promotion to a king (`e8=K`,
//! `e7e8k`), and every other move as python-chess writes it, disambiguated
//! among the variant's legal moves, with `#` also for a move that wins or
//! loses by the variant's own rule.

use std::str::FromStr;

use crate::board::moves::MoveKind;
use crate::board::types::{File, Role, Square};
use crate::notation::san::{CastlingSide, San};
use crate::notation::uci::UciMove;
use crate::rules::outcome::GameResult;
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

/// A drop as SAN or UCI writes it: `N@f3`, `P@e4` or `@e4`.
pub(super) fn read_drop(text: &str) -> Option<(Role, Square)> {
    let (role, square) = match *text.as_bytes() {
        [b'@', f, r] => (Role::Pawn, (f, r)),
        [p, b'@', f, r] => (Role::from_char(char::from(p)).filter(|&r| r != Role::King)?, (f, r)),
        _ => return None,
    };
    Some((role, Square::from_name(square.0, square.1)?))
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
    pub fn san(&self, m: VariantMove) -> String {
        let mut san = self.san_without_suffix(m, &self.legal_moves());
        let after = self.play(m);
        let decided = after.variant_end().is_some_and(|(result, _)| result != GameResult::Draw);
        let check = after.is_check();
        if decided || (check && after.legal_moves().is_empty()) {
            san.push('#');
        } else if check {
            san.push('+');
        }
        san
    }

    /// The SAN of `m` without the check mark, disambiguated among `legal`.
    fn san_without_suffix(&self, m: VariantMove, legal: &[VariantMove]) -> String {
        let mv = match m {
            VariantMove::Drop { role: Role::Pawn, to } => return format!("@{to}"),
            VariantMove::Drop { role, to } => return format!("{}@{to}", role.upper_char()),
            VariantMove::Board(mv) => mv,
        };
        let (from, to) = (mv.from(), mv.to());
        if mv.is_castle() {
            return if to > from { "O-O" } else { "O-O-O" }.to_owned();
        }
        let role = self.board.role_at(from).unwrap_or(Role::Pawn);
        let capture = mv.kind() == MoveKind::EnPassant || self.board.occupied().contains(to);
        let mut san = String::with_capacity(8);
        if role == Role::Pawn {
            if capture {
                san.push(from.file().char());
            }
        } else {
            san.push(role.upper_char());
            let rivals: Vec<_> = legal
                .iter()
                .filter_map(|&other| match other {
                    VariantMove::Board(o)
                        if !o.is_castle()
                            && o.to() == to
                            && o.from() != from
                            && self.board.role_at(o.from()) == Some(role) =>
                    {
                        Some(o.from())
                    }
                    _ => None,
                })
                .collect();
            if !rivals.is_empty() {
                let same_file = rivals.iter().any(|sq| sq.file() == from.file());
                let same_rank = rivals.iter().any(|sq| sq.rank() == from.rank());
                if !same_file {
                    san.push(from.file().char());
                } else if !same_rank {
                    san.push(from.rank().char());
                } else {
                    san.push_str(&from.to_string());
                }
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&to.to_string());
        if let Some(promotion) = mv.promotion() {
            san.push('=');
            san.push(promotion.upper_char());
        }
        san
    }

    /// The UCI of the legal move `m` under the position's castling mode.
    pub fn uci(&self, m: VariantMove) -> String {
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
    /// assert_eq!(pos.uci(m), "e7e8k");
    /// ```
    pub fn parse_san(&self, text: &str) -> Result<VariantMove, ParseVariantMoveError> {
        let body = text.trim_end_matches(['+', '#', '!', '?']);
        if let Some((role, to)) = read_drop(body) {
            let m = VariantMove::Drop { role, to };
            return if self.is_legal(m) { Ok(m) } else { Err(ParseVariantMoveError::Illegal) };
        }
        // Standard SAN has no promotion to a king: read antichess's as a
        // queen's and put the king back.
        let king_promotion = self.variant == Variant::Antichess && body.ends_with("=K");
        let san = if king_promotion {
            San::from_str(&format!("{}=Q", &body[..body.len() - 2]))
        } else {
            San::from_str(body)
        }
        .map_err(|_| ParseVariantMoveError::Syntax)?;
        let legal = self.legal_moves();
        let fits = |m: &&VariantMove| {
            let VariantMove::Board(mv) = **m else { return false };
            match san {
                San::Castle(side) => {
                    mv.is_castle() && (side == CastlingSide::KingSide) == (mv.to() > mv.from())
                }
                San::Normal { role, file, rank, to, promotion, .. } => {
                    let promotion = if king_promotion { Some(Role::King) } else { promotion };
                    !mv.is_castle()
                        && mv.to() == to
                        && self.board.role_at(mv.from()) == Some(role)
                        && file.is_none_or(|f: File| mv.from().file() == f)
                        && rank.is_none_or(|r| mv.from().rank() == r)
                        && mv.promotion() == promotion
                }
            }
        };
        let mut found = legal.iter().filter(fits);
        match (found.next(), found.next()) {
            (Some(&m), None) => Ok(m),
            (Some(_), Some(_)) => Err(ParseVariantMoveError::Ambiguous),
            (None, _) => Err(ParseVariantMoveError::Illegal),
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
        if let Some((role, to)) = read_drop(text).filter(|_| !text.starts_with('@')) {
            let m = VariantMove::Drop { role, to };
            return if self.is_legal(m) { Ok(m) } else { Err(ParseVariantMoveError::Illegal) };
        }
        let uci = UciMove::from_str(text).map_err(|_| ParseVariantMoveError::Syntax)?;
        let mode = self.castling_mode();
        self.legal_moves()
            .into_iter()
            .find(|m| match *m {
                VariantMove::Board(mv) => UciMove::from_move_in(mv, mode) == uci,
                VariantMove::Drop { .. } => false,
            })
            .ok_or(ParseVariantMoveError::Illegal)
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
                assert_eq!(p.parse_uci(&p.uci(m)), Ok(m), "{} in {fen}", p.uci(m));
                assert_eq!(p.parse_move(&p.uci(m)), Ok(m));
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
