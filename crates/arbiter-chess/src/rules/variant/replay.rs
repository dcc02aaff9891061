//! Replaying a variant game as [`replay`](crate::replay) replays a chess
//! game: every move read in the notation asked for, checked, written in
//! canonical SAN and UCI, the first illegal one named with its reason; then
//! the final position, its legal moves with the draws each lets its player
//! claim, and the outcome (a flag fall included, decided by the variant's
//! own material rule).

use crate::board::types::{Color, Square};
use crate::notation::echo::{Quoted, echo};
use crate::notation::illegal::{Illegal, IllegalReason};
use crate::rules::clock::record::{ClockRecord, ClockRun, Clocks};
use crate::rules::game::{IllegalMove, Notation, ReplayOptions, settle};
use crate::rules::outcome::{DrawClaims, GameResult, Outcome, Termination, win_for};
use crate::rules::variant::game::VariantGame;
use crate::rules::variant::notation::ParseVariantMoveError;
use crate::rules::variant::position::{VariantMove, VariantPosition};

/// One accepted move of a variant game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantPly {
    /// Canonical SAN, with `+` or `#`.
    pub san: String,
    /// UCI (`N@f3` for a drop).
    pub uci: String,
    /// The FEN after the move, when asked for.
    pub fen_after: Option<String>,
    /// The text was canonical SAN or canonical UCI.
    pub canonical_input: bool,
}

/// A legal move of a variant game's final position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantLegalMove {
    pub uci: String,
    pub san: String,
    /// The draws its player could claim by stating it.
    pub claims: DrawClaims,
}

/// The answer for a replayed variant game: the fields of a
/// [`Replay`](crate::Replay), with the variant's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantReplay {
    /// Accepted moves from `plies_from` on.
    pub plies: Vec<VariantPly>,
    /// The first rejected move; the moves after it are not looked at.
    pub illegal_move: Option<IllegalMove>,
    /// The position after the last accepted move.
    pub position: VariantPosition,
    /// Its legal moves (none once the game is over, or when skipped).
    pub legal_moves: Vec<VariantLegalMove>,
    pub outcome: Outcome,
    /// The clocks, for a game replayed with a clock record.
    pub clocks: Option<Clocks>,
}

/// Replays `moves` from `start` under `options` (`winnability`,
/// `shredder_fen` and `analysis` are chess's and not read here).
///
/// ```
/// use arbiter_chess::{IllegalReason, ReplayOptions, Termination, Variant, VariantPosition, variant_replay};
/// let start = VariantPosition::new(Variant::KingOfTheHill);
/// let r = variant_replay(start, &["e3", "e6", "Ke2", "Ke7", "Kd3", "Kd6", "Kd4", "Kc6"], &ReplayOptions::default());
/// assert_eq!(r.plies.len(), 7);
/// assert_eq!(r.plies[6].san, "Kd4#");
/// assert_eq!(r.outcome.termination, Some(Termination::KingOfTheHill));
/// let bad = r.illegal_move.unwrap();
/// assert_eq!((bad.index, bad.reason), (7, IllegalReason::GameOver));
/// ```
pub fn variant_replay<S: AsRef<str>>(
    start: VariantPosition,
    moves: &[S],
    options: &ReplayOptions,
) -> VariantReplay {
    let mut game = VariantGame::new(start);
    let mut plies = Vec::new();
    let mut illegal_move = None;
    for (index, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        match game.play_checked(text, options) {
            Ok(ply) if index >= options.plies_from => plies.push(ply),
            Ok(_) => {}
            Err(Illegal { reason, message }) => {
                let text = echo(text).into_owned();
                illegal_move = Some(IllegalMove { index, text, reason, message });
                break;
            }
        }
    }
    let outcome = game.final_outcome(options.flagged);
    let position = game.position().clone();
    let legal_moves = if outcome.is_over() || options.skip_legal_moves {
        Vec::new()
    } else {
        legal_moves(&game, options.legal_moves_from)
    };
    VariantReplay { plies, illegal_move, position, legal_moves, outcome, clocks: None }
}

impl VariantReplay {
    /// Completes a replay of the first [`ClockRun::plies`] of the `sent`
    /// moves, as [`Replay::complete`](crate::Replay::complete) completes a
    /// chess replay.
    pub fn complete(
        &mut self,
        run: &ClockRun,
        sent: usize,
        late: Option<&str>,
        options: &ReplayOptions,
    ) {
        let turn = self.position.turn();
        let clocks = settle(run, &mut self.illegal_move, &self.outcome, turn, sent, late, options);
        self.clocks = Some(clocks);
    }
}

/// [`variant_replay`] with a clock record, as
/// [`replay_clocked`](crate::replay_clocked) replays a chess game: the
/// moves up to the first one made after its mover's flag fell, which is
/// named as the illegal move and ends the game, and the clocks.
///
/// ```
/// use arbiter_chess::{ClockRecord, IllegalReason, ReplayOptions, Termination, Variant, VariantPosition, variant_replay_clocked};
/// let record = ClockRecord::new("60".parse().unwrap(), vec![1_000, 2_000, 59_500], 0, 3).unwrap();
/// let start = VariantPosition::new(Variant::Crazyhouse);
/// let r = variant_replay_clocked(start, &["e4", "e5", "Nf3"], &ReplayOptions::default(), &record);
/// assert_eq!(r.plies.len(), 2);
/// assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::FlagFell);
/// assert_eq!(r.outcome.termination, Some(Termination::Timeout));
/// assert_eq!(r.clocks.unwrap().remaining_ms, [0, 58_000]);
/// ```
pub fn variant_replay_clocked<S: AsRef<str>>(
    start: VariantPosition,
    moves: &[S],
    options: &ReplayOptions,
    record: &ClockRecord,
) -> VariantReplay {
    let Some(run) = record.run(start.turn()) else {
        return variant_replay(start, moves, options);
    };
    let options = ReplayOptions { flagged: run.flagged(), ..*options };
    let played = run.plies(moves.len());
    let mut answer = variant_replay(start, &moves[..played], &options);
    answer.complete(&run, moves.len(), moves.get(played).map(AsRef::as_ref), &options);
    answer
}

impl VariantGame {
    /// Reads the move `text` in `options.notation` (strictly when
    /// `options.strict`), checks and plays it, as [`variant_replay`] plays
    /// each move; the FEN after it when `options.include_fens`.
    ///
    /// # Errors
    ///
    /// [`Illegal`] with the precise reason the move cannot be played (the
    /// game over, unreadable text, an invalid drop, a capture required ...).
    pub fn play_checked(
        &mut self,
        text: &str,
        options: &ReplayOptions,
    ) -> Result<VariantPly, Illegal> {
        if let Some((_, end)) = self.outcome() {
            let termination = Termination::from(end);
            return Err(Illegal::new(IllegalReason::GameOver, termination.game_over_message()));
        }
        let pos = self.position();
        let (read, as_uci) = match options.notation {
            Notation::Uci => (pos.parse_uci(text), true),
            Notation::San => (pos.parse_san(text), false),
            Notation::Auto => match pos.parse_uci(text) {
                Err(ParseVariantMoveError::Syntax) => (pos.parse_san(text), false),
                read => (read, true),
            },
        };
        let m = read.map_err(|error| pos.diagnose(text, error))?;
        let (san, uci) = (pos.san(m), pos.uci(m));
        let canonical = if as_uci { &uci } else { &san };
        let canonical_input = text == canonical;
        if options.strict && !canonical_input {
            return Err(Illegal::new(
                IllegalReason::NonCanonical,
                format!("{} is not canonical: write {canonical}", Quoted(text)),
            ));
        }
        self.play(m).map_err(|_| unreachable_illegal(text))?;
        let fen_after = options.include_fens.then(|| self.position().fen());
        Ok(VariantPly { san, uci, fen_after, canonical_input })
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
}

/// A move read as legal that the game refused: cannot happen, but named
/// rather than panicking.
#[cold]
fn unreachable_illegal(text: &str) -> Illegal {
    Illegal::new(IllegalReason::CannotMoveThatWay, format!("{} cannot be played", Quoted(text)))
}

/// The legal moves, only those from `from` when asked (no drops then).
fn legal_moves(game: &VariantGame, from: Option<Square>) -> Vec<VariantLegalMove> {
    let pos = game.position();
    pos.legal_moves()
        .into_iter()
        .filter(|m: &VariantMove| from.is_none_or(|from| m.from() == Some(from)))
        .map(|m| VariantLegalMove { uci: pos.uci(m), san: pos.san(m), claims: game.claims_with(m) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;
    use crate::rules::variant::Variant;

    fn run(fen: &str, variant: Variant, moves: &[&str], options: &ReplayOptions) -> VariantReplay {
        let start = VariantPosition::from_fen(fen, variant, CastlingMode::Standard).unwrap();
        variant_replay(start, moves, options)
    }

    #[test]
    fn drops_replay_in_both_notations() {
        let zh = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
        let moves = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d4"];
        let options = ReplayOptions { include_fens: true, ..ReplayOptions::default() };
        let r = run(zh, Variant::Crazyhouse, &moves, &options);
        assert_eq!(r.illegal_move, None);
        let last = r.plies.last().unwrap();
        assert_eq!((last.san.as_str(), last.uci.as_str()), ("@d4", "P@d4"));
        // Read as UCI, which it is: canonical.
        assert!(last.canonical_input);
        assert_eq!(last.fen_after.as_deref(), Some(r.position.fen().as_str()));
        let uci = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "P@d4"];
        let options = ReplayOptions { notation: Notation::Uci, strict: true, ..options };
        let by_uci = run(zh, Variant::Crazyhouse, &uci, &options);
        assert_eq!(by_uci.illegal_move, None);
        assert_eq!(by_uci.position, r.position);
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
        let r = variant_replay(start, &[] as &[&str], &from);
        let ucis: Vec<&str> = r.legal_moves.iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(ucis, ["b5b6"]);
        // The kings step out and back: Black's return to a2 makes the start
        // stand for the third time.
        let shuffle = ["Kh3", "Ka3", "Kh2", "Ka2", "Kh3", "Ka3", "Kh2"];
        let start = VariantPosition::new(Variant::RacingKings);
        let r = variant_replay(start, &shuffle, &ReplayOptions::default());
        assert_eq!(r.illegal_move, None);
        let back = r.legal_moves.iter().find(|m| m.uci == "a3a2").unwrap();
        assert!(back.claims.threefold);
        assert!(!r.legal_moves.iter().find(|m| m.uci == "a3b3").unwrap().claims.threefold);
    }
}
