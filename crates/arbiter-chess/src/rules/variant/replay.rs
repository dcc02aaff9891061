//! A variant game's part in the one replay ([`crate::replay`]): a move
//! text read in the notation asked for, checked and written in canonical
//! SAN and UCI, the first illegal one named with its reason; the legal
//! moves with the draws each lets its player claim; and the outcome (a
//! flag fall included, decided by the variant's own material rule).

use crate::board::types::{Color, Square};
use crate::notation::echo::Quoted;
use crate::notation::illegal::{Illegal, IllegalReason};
use crate::rules::outcome::{DrawClaims, GameResult, Outcome, Termination, win_for};
use crate::rules::record::{LegalMove, Notation, PlyRecord};
use crate::rules::variant::game::VariantGame;
use crate::rules::variant::notation::ParseVariantMoveError;
use crate::rules::variant::position::VariantMove;

impl VariantGame {
    /// Reads the move `text` in `notation` (strictly when `strict`),
    /// checks and plays it, as [`crate::replay`] plays each move: the ply
    /// without its FEN.
    ///
    /// # Errors
    ///
    /// [`Illegal`] with the precise reason the move cannot be played (the
    /// game over, unreadable text, an invalid drop, a capture required ...).
    pub fn play_checked(
        &mut self,
        text: &str,
        notation: Notation,
        strict: bool,
    ) -> Result<PlyRecord, Illegal> {
        if let Some((_, end)) = self.outcome() {
            let termination = Termination::from(end);
            return Err(Illegal::new(IllegalReason::GameOver, termination.game_over_message()));
        }
        let pos = self.position();
        // One list of the legal moves reads the text and writes the SAN.
        let legal = pos.legal_moves();
        let (read, as_uci) = match notation {
            Notation::Uci => (pos.parse_uci_among(text, &legal), true),
            Notation::San => (pos.parse_san_among(text, &legal), false),
            Notation::Auto => match pos.parse_uci_among(text, &legal) {
                Err(ParseVariantMoveError::Syntax) => (pos.parse_san_among(text, &legal), false),
                read => (read, true),
            },
        };
        let m = read.map_err(|error| pos.diagnose(text, error))?;
        let (san, uci) = (pos.san_among(m, &legal), pos.uci(m));
        let canonical_input = if as_uci {
            text.as_bytes() == &uci.ascii()[..uci.text_len()]
        } else {
            san.is(text.as_bytes())
        };
        if strict && !canonical_input {
            let canonical = if as_uci { uci.to_string() } else { san.to_string() };
            return Err(Illegal::new(
                IllegalReason::NonCanonical,
                format!("{} is not canonical: write {canonical}", Quoted(text)),
            ));
        }
        self.play_legal(m);
        Ok(PlyRecord { san, uci, fen_after: None, canonical_input })
    }

    /// How the game stands: the variant's end or a game rule, else the flag
    /// fall of `flagged`, if any (the opponent wins unless the variant's
    /// material rule says it cannot), else the draws to claim.
    pub fn final_outcome(&self, flagged: Option<Color>) -> Outcome {
        if let Some((result, end)) = self.outcome() {
            return Outcome::ended(result, end.into());
        }
        if let Some(flag) = flagged {
            return if self.position().has_insufficient_material(!flag) {
                Outcome::ended(GameResult::Draw, Termination::TimeoutVsUnwinnable)
            } else {
                Outcome::ended(win_for(flag), Termination::Timeout)
            };
        }
        let claims = self.claims();
        Outcome {
            fifty_move_claimable: claims.fifty_move,
            threefold_claimable: claims.threefold,
            ..Outcome::ONGOING
        }
    }

    /// The legal moves, only those from `from` when asked (no drops then),
    /// each with its SAN and the draws its player could claim by stating
    /// it.
    pub fn legal_moves(&self, from: Option<Square>) -> Vec<LegalMove> {
        let pos = self.position();
        let legal = pos.legal_moves();
        // Only a board move can make another's SAN name its square: drops,
        // a crazyhouse position's most moves, need no scan.
        let rivals: Vec<VariantMove> =
            legal.iter().copied().filter(|m| m.from().is_some()).collect();
        let may_claim = self.may_claim();
        legal
            .iter()
            .filter(|m| from.is_none_or(|from| m.from() == Some(from)))
            .map(|&m| LegalMove {
                uci: pos.uci(m),
                san: pos.san_among(m, &rivals),
                claims: if may_claim { self.claims_with(m) } else { DrawClaims::NONE },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;
    use crate::rules::game::{Replay, ReplayOptions, replay};
    use crate::rules::start::GamePosition;
    use crate::rules::variant::Variant;
    use crate::rules::variant::position::VariantPosition;

    fn run(fen: &str, variant: Variant, moves: &[&str], options: &ReplayOptions) -> Replay {
        let start = VariantPosition::from_fen(fen, variant, CastlingMode::Standard).unwrap();
        replay(start, moves, options)
    }

    #[test]
    fn drops_replay_in_both_notations() {
        let zh = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
        let moves = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d4"];
        let options = ReplayOptions { include_fens: true, ..ReplayOptions::default() };
        let r = run(zh, Variant::Crazyhouse, &moves, &options);
        assert_eq!(r.illegal_move, None);
        let last = r.plies.last().unwrap();
        assert_eq!((last.san.as_str(), last.uci.to_string().as_str()), ("@d4", "P@d4"));
        // Read as UCI, which it is: canonical.
        assert!(last.canonical_input);
        assert_eq!(last.fen_after.as_deref(), Some(&r.position.fen()));
        let uci = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "P@d4"];
        let options = ReplayOptions { notation: Notation::Uci, strict: true, ..options };
        let by_uci = run(zh, Variant::Crazyhouse, &uci, &options);
        assert_eq!(by_uci.illegal_move, None);
        assert_eq!(by_uci.position, r.position);
        assert!(matches!(r.position, GamePosition::Variant(_)));
        assert!(by_uci.plies.iter().all(|ply| ply.canonical_input));
    }

    #[test]
    fn strict_san_refuses_what_it_would_write_otherwise() {
        let options = ReplayOptions { strict: true, notation: Notation::San, ..Default::default() };
        let r = run(
            crate::STARTING_FEN,
            Variant::Atomic,
            &["e4", "e5", "Nf3", "Nc6", "Ng5", "d5", "Nxf7"],
            &options,
        );
        let bad = r.illegal_move.unwrap();
        assert_eq!((bad.index, bad.reason), (6, IllegalReason::NonCanonical));
        assert_eq!(bad.message, "\"Nxf7\" is not canonical: write Nxf7#");
        let anti = ReplayOptions { strict: true, ..Default::default() };
        let r = run("6n1/8/8/8/4P3/8/8/8 w - - 0 1", Variant::Antichess, &["e4e5", "Nf6"], &anti);
        assert_eq!(r.illegal_move, None);
        assert!(r.plies.iter().all(|ply| ply.canonical_input));
        // White must take the knight.
        assert_eq!(r.legal_moves.iter().map(|m| m.san.as_str()).collect::<Vec<_>>(), ["exf6#"]);
    }

    #[test]
    fn flag_falls_follow_the_variant_material_rule() {
        let kings = "4k3/8/8/8/8/8/8/4K2N w - - 3+3 0 1";
        let flagged = |color| ReplayOptions { flagged: Some(color), ..Default::default() };
        let r = run(kings, Variant::ThreeCheck, &[], &flagged(Color::Black));
        assert_eq!(r.outcome, Outcome::ended(GameResult::WhiteWins, Termination::Timeout));
        let r = run(kings, Variant::ThreeCheck, &[], &flagged(Color::White));
        assert_eq!(r.outcome, Outcome::ended(GameResult::Draw, Termination::TimeoutVsUnwinnable));
        assert!(r.legal_moves.is_empty());
    }

    #[test]
    fn legal_moves_carry_their_claims_and_a_from_square() {
        let start = VariantPosition::new(Variant::Horde);
        let from = ReplayOptions { legal_moves_from: Some(Square::B5), ..Default::default() };
        let r = replay(start, &[] as &[&str], &from);
        let ucis: Vec<String> = r.legal_moves.iter().map(|m| m.uci.to_string()).collect();
        assert_eq!(ucis, ["b5b6"]);
        // The kings step out and back: Black's return to a2 makes the start
        // stand for the third time.
        let shuffle = ["Kh3", "Ka3", "Kh2", "Ka2", "Kh3", "Ka3", "Kh2"];
        let start = VariantPosition::new(Variant::RacingKings);
        let r = replay(start, &shuffle, &ReplayOptions::default());
        assert_eq!(r.illegal_move, None);
        let by_uci = |uci: &str| r.legal_moves.iter().find(|m| m.uci.to_string() == uci).unwrap();
        assert!(by_uci("a3a2").claims.threefold);
        assert!(!by_uci("a3b3").claims.threefold);
    }
}
