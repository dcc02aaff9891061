//! Replaying a game: a start position and a list of move texts in, every
//! move checked and written canonically, the final position and the
//! outcome out.

use super::{Game, LegalMove, Notation, Played, PlyRecord, flag_fall};
use crate::board::bitboard::Bitboard;
use crate::board::fen::Fen;
use crate::board::position::CastlingMode;
use crate::board::types::{Color, Square};
use crate::notation::echo::echo;
use crate::notation::illegal::{Illegal, IllegalReason};
use crate::notation::uci::UciMove;
use crate::rules::clock::record::Clocks;
use crate::rules::dead::{self, Analysis, Finding, examine};
use crate::rules::outcome::Outcome;
use crate::rules::start::GamePosition;
use crate::rules::unwinnable::{Winnability, analyse};
use crate::rules::variant::VariantGame;

use super::ruling::{IllegalMoves, Ruling, replay_ruled};

/// What to replay and what to return.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    pub notation: Notation,
    /// Accept only canonical SAN or exact UCI.
    pub strict: bool,
    /// Return the FEN after every returned ply.
    pub include_fens: bool,
    /// Leave out the legal moves of the final position.
    pub skip_legal_moves: bool,
    /// Return plies from this index on (earlier ones are still checked).
    pub plies_from: usize,
    /// Write the FENs with Shredder-FEN castling letters (`HAha`) instead
    /// of X-FEN (`KQkq`) (chess only).
    pub shredder_fen: bool,
    /// List only the legal moves from this square.
    pub legal_moves_from: Option<Square>,
    /// The side whose flag fell after the last move (FIDE 6.9).
    pub flagged: Option<Color>,
    /// Report both colours' verdicts on the final position (chess only).
    pub winnability: bool,
    /// The budgets of the unwinnability analysis (chess only: a variant's
    /// dead positions are its insufficient material).
    pub analysis: Analysis,
    /// Whether the first illegal move ends the replay or an arbiter rules
    /// on each completed one (FIDE 7.5.5).
    pub illegal_moves: IllegalMoves,
}

/// The first rejected move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// Index in the move list, from 0.
    pub index: usize,
    /// The text as given, cut after [`crate::ECHO_CHARS`] characters.
    pub text: String,
    pub reason: IllegalReason,
    pub message: String,
}

/// The answer for a replayed game, in any rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Accepted moves from `plies_from` on.
    pub plies: Vec<PlyRecord>,
    /// The first rejected move; the moves after it are not looked at.
    /// Under [`IllegalMoves`] rules that rule on completed illegal moves,
    /// only a move that is not one (or comes after the game ended).
    pub illegal_move: Option<IllegalMove>,
    /// The arbiter's rulings on the completed illegal moves, in order
    /// (none under [`IllegalMoves::Stop`]).
    pub rulings: Vec<Ruling>,
    /// The position after the last accepted move.
    pub position: GamePosition,
    /// Its legal moves (none once the game is over, or when skipped).
    pub legal_moves: Vec<LegalMove>,
    pub outcome: Outcome,
    /// Whether each colour (by [`Color::index`]) can still mate in the
    /// final position, when asked for (chess only).
    pub winnability: Option<[Winnability; 2]>,
    /// FENs are asked for with Shredder-FEN castling letters.
    pub shredder_fen: bool,
    /// The clocks, for a game replayed with a clock record
    /// ([`crate::replay_clocked`]).
    pub clocks: Option<Clocks>,
}

impl Replay {
    /// The FEN of the final position, in the castling notation asked for.
    pub fn position_fen(&self) -> Fen {
        self.position.fen_in(self.shredder_fen)
    }
}

/// Replays `moves` from `start`, a position of standard chess, Chess960 or
/// one of lichess's variants.
///
/// ```
/// use arbiter_chess::{IllegalReason, Position, ReplayOptions, Termination, Variant, VariantPosition, replay};
/// let r = replay(Position::default(), &["e4", "e5", "Ke3"], &ReplayOptions::default());
/// assert_eq!(r.plies.len(), 2);
/// let bad = r.illegal_move.unwrap();
/// assert_eq!((bad.index, bad.reason), (2, IllegalReason::NoPiece));
/// assert_eq!(bad.message, "no white king can move to e3");
/// assert_eq!(r.legal_moves.len(), 29);
///
/// let koth = VariantPosition::new(Variant::KingOfTheHill);
/// let r = replay(koth, &["e3", "e6", "Ke2", "Ke7", "Kd3", "Kd6", "Kd4", "Kc6"], &ReplayOptions::default());
/// assert_eq!(r.plies.len(), 7);
/// assert_eq!(r.plies[6].san, "Kd4#");
/// assert_eq!(r.outcome.termination, Some(Termination::KingOfTheHill));
/// assert_eq!(r.illegal_move.unwrap().reason, IllegalReason::GameOver);
/// ```
pub fn replay<S: AsRef<str>>(
    start: impl Into<GamePosition>,
    moves: &[S],
    options: &ReplayOptions,
) -> Replay {
    if options.illegal_moves != IllegalMoves::Stop {
        return replay_ruled(start, moves, options, None).0;
    }
    let mut replayer = Replayer::new(start, options.analysis);
    let tail = replayer.extend(moves, options);
    replayer.answer(tail, options)
}

/// [`Notation`]s as numbers, for [`Replayer::extend_in`] (an enum cannot
/// be a const parameter).
const NOTATION_SAN: u8 = 0;
const NOTATION_UCI: u8 = 1;
const NOTATION_AUTO: u8 = 2;

/// A replay that can be taken further: the game so far and every move
/// accepted on the way. A caller that keeps it (the service's cache) checks
/// a longer move list by playing only the moves that follow.
///
/// ```
/// use arbiter_chess::{Position, replay, Replayer, ReplayOptions};
/// let options = ReplayOptions::default();
/// let mut replayer = Replayer::new(Position::default(), options.analysis);
/// replayer.extend(&["e4", "e5"], &options);
/// let tail = replayer.extend(&["Nf3"], &options);
/// assert_eq!(replayer.answer(tail, &options), replay(Position::default(), &["e4", "e5", "Nf3"], &options));
/// ```
#[derive(Clone, Debug)]
pub struct Replayer {
    line: GameLine,
}

/// A game so far, under its rules: the dispatch on the rules happens here,
/// once a call, and each loop runs its own rules' code only.
#[derive(Clone, Debug)]
enum GameLine {
    Chess {
        game: Game,
        plies: Vec<Played>,
        /// The full dead-position analysis's finding on the current
        /// position, once [`Replayer::look_at_end`] has looked (or a
        /// helpmate found earlier was carried over to it by
        /// [`Finding::after`]).
        end_look: Option<Finding>,
    },
    Variant {
        game: VariantGame,
        /// Without their FENs, which the tail carries.
        plies: Vec<PlyRecord>,
    },
}

/// The records of a line's plies, the rules matched once for them all.
enum PlyRecords<'a> {
    Chess { plies: std::slice::Iter<'a, Played>, mode: CastlingMode },
    Variant(std::slice::Iter<'a, PlyRecord>),
}

impl Iterator for PlyRecords<'_> {
    type Item = PlyRecord;

    #[inline]
    fn next(&mut self) -> Option<PlyRecord> {
        match self {
            PlyRecords::Chess { plies, mode } => plies.next().map(|played| PlyRecord {
                san: played.san,
                uci: UciMove::from_move_in(played.mv, *mode),
                fen_after: None,
                canonical_input: played.canonical_input,
            }),
            PlyRecords::Variant(plies) => plies.next().cloned(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            PlyRecords::Chess { plies, .. } => plies.size_hint(),
            PlyRecords::Variant(plies) => plies.size_hint(),
        }
    }
}

impl ExactSizeIterator for PlyRecords<'_> {}

/// What [`Replayer::extend`] found beyond the moves already played: the
/// first illegal move, and the FENs the options ask for.
#[derive(Clone, Debug, Default)]
pub struct ReplayTail {
    illegal_move: Option<IllegalMove>,
    /// FENs after the plies from `max(plies_from, first new ply)` on.
    fens: Vec<Fen>,
}

impl ReplayTail {
    /// The first illegal move among those [`Replayer::extend`] played, if
    /// any.
    pub fn illegal_move(&self) -> Option<&IllegalMove> {
        self.illegal_move.as_ref()
    }

    /// Takes out the FENs the options asked for (after the plies from
    /// `max(plies_from, first new ply)` on, in order): for a caller that
    /// writes them beside [`Replayer::plies`] rather than through a
    /// [`PlyRecord`] each, which boxes its FEN. An answer from the tail
    /// afterwards must return no ply.
    pub fn take_fens(&mut self) -> Vec<Fen> {
        std::mem::take(&mut self.fens)
    }

    /// Takes out the first illegal move.
    pub(super) fn take_illegal_move(&mut self) -> Option<IllegalMove> {
        self.illegal_move.take()
    }

    /// A tail with no illegal move and these FENs, for an answer.
    pub(super) fn with_fens(fens: Vec<Fen>) -> ReplayTail {
        ReplayTail { illegal_move: None, fens }
    }
}

impl Replayer {
    /// Nothing played yet from `start`, a chess game with the
    /// dead-position analysis of `analysis` (see [`Game::with_analysis`]).
    pub fn new(start: impl Into<GamePosition>, analysis: Analysis) -> Replayer {
        let line = match start.into() {
            GamePosition::Chess(start) => GameLine::Chess {
                game: Game::with_analysis(start, analysis),
                plies: Vec::new(),
                end_look: None,
            },
            GamePosition::Variant(start) => {
                GameLine::Variant { game: VariantGame::new(start), plies: Vec::new() }
            }
        };
        Replayer { line }
    }

    /// The number of moves accepted so far.
    pub fn len(&self) -> usize {
        match &self.line {
            GameLine::Chess { plies, .. } => plies.len(),
            GameLine::Variant { plies, .. } => plies.len(),
        }
    }

    /// The side to move in the position reached.
    pub fn turn(&self) -> Color {
        match &self.line {
            GameLine::Chess { game, .. } => game.position.turn(),
            GameLine::Variant { game, .. } => game.position().turn(),
        }
    }

    /// Whether no move has been accepted yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The accepted moves from index `from` on (none past the last),
    /// without their FENs.
    pub fn plies(&self, from: usize) -> impl ExactSizeIterator<Item = PlyRecord> + '_ {
        match &self.line {
            GameLine::Chess { game, plies, .. } => PlyRecords::Chess {
                plies: plies[from.min(plies.len())..].iter(),
                mode: game.position.castling_mode(),
            },
            GameLine::Variant { plies, .. } => {
                PlyRecords::Variant(plies[from.min(plies.len())..].iter())
            }
        }
    }

    /// Plays `moves`, the texts that follow the ones already played, up to
    /// the first illegal one (whose index counts from the start of the game).
    pub fn extend<S: AsRef<str>>(&mut self, moves: &[S], options: &ReplayOptions) -> ReplayTail {
        // A loop of its own for each notation, which reads the moves
        // without the others' code in its way.
        match (&mut self.line, options.notation) {
            (GameLine::Chess { game, plies, end_look }, notation) => {
                let mut chess = ChessLine { game, plies, end_look };
                match notation {
                    Notation::San => chess.extend::<S, NOTATION_SAN>(moves, options),
                    Notation::Uci => chess.extend::<S, NOTATION_UCI>(moves, options),
                    Notation::Auto => chess.extend::<S, NOTATION_AUTO>(moves, options),
                }
            }
            (GameLine::Variant { game, plies }, _) => extend_variant(game, plies, moves, options),
        }
    }
}

/// A chess game's parts of a [`Replayer`], borrowed.
struct ChessLine<'a> {
    game: &'a mut Game,
    plies: &'a mut Vec<Played>,
    end_look: &'a mut Option<Finding>,
}

impl ChessLine<'_> {
    /// [`Replayer::extend`] in the notation numbered `NOTATION`.
    #[inline(never)]
    fn extend<S: AsRef<str>, const NOTATION: u8>(
        &mut self,
        moves: &[S],
        options: &ReplayOptions,
    ) -> ReplayTail {
        let notation = match NOTATION {
            NOTATION_SAN => Notation::San,
            NOTATION_UCI => Notation::Uci,
            _ => Notation::Auto,
        };
        let mut tail = ReplayTail::default();
        self.plies.reserve(moves.len());
        if options.include_fens {
            // A FEN a ply (fewer past `plies_from`): one allocation, not a
            // copy of all of them at each doubling.
            tail.fens.reserve(moves.len());
        }
        for text in moves {
            let text = text.as_ref();
            let index = self.plies.len();
            match self.game.play_text(text, notation, options.strict) {
                Ok(played) => {
                    self.plies.push(played);
                    // Looked at before taking: most replays carry nothing,
                    // and taking moves the whole option every ply.
                    if self.end_look.is_some()
                        && let Some(finding) = self.end_look.take()
                    {
                        // Only the final look asks, and only behind the
                        // per-ply gate: a proof is carried while it may
                        // be asked for.
                        let position = self.game.position();
                        *self.end_look = dead::per_ply_gate(position)
                            .then(|| finding.after(played.mv, position))
                            .flatten();
                    }
                    if options.include_fens && index >= options.plies_from {
                        let position = self.game.position();
                        tail.fens.push(if options.shredder_fen {
                            position.shredder_fen()
                        } else {
                            position.fen()
                        });
                    }
                }
                Err(Illegal { reason, message }) => {
                    tail.illegal_move =
                        Some(IllegalMove { index, text: echo(text).into_owned(), reason, message });
                    break;
                }
            }
        }
        tail
    }
}

/// [`Replayer::extend`] for a variant game.
fn extend_variant<S: AsRef<str>>(
    game: &mut VariantGame,
    plies: &mut Vec<PlyRecord>,
    moves: &[S],
    options: &ReplayOptions,
) -> ReplayTail {
    let mut tail = ReplayTail::default();
    plies.reserve(moves.len());
    for text in moves {
        let text = text.as_ref();
        let index = plies.len();
        match game.play_checked(text, options.notation, options.strict) {
            Ok(ply) => {
                plies.push(ply);
                if options.include_fens && index >= options.plies_from {
                    tail.fens.push(game.position().fen());
                }
            }
            Err(Illegal { reason, message }) => {
                tail.illegal_move =
                    Some(IllegalMove { index, text: echo(text).into_owned(), reason, message });
                break;
            }
        }
    }
    tail
}

impl Replayer {
    /// Gives the final position the full dead-position analysis that an
    /// answer would, and keeps what it found (with its helpmate), unless
    /// that is known already: a caller that keeps the replay (the
    /// service's cache) answers a repeat of the list without analysing
    /// again, and the next move's answer from the helpmate carried over
    /// ([`Finding::after`]) while it holds. Answers do not change: the
    /// analysis is a function of the position, and a helpmate proves it
    /// alive.
    ///
    /// ```
    /// use arbiter_chess::{Position, replay, Replayer, ReplayOptions};
    /// let options = ReplayOptions::default();
    /// let moves = ["e4", "d5", "exd5", "Qxd5"];
    /// let mut replayer = Replayer::new(Position::default(), options.analysis);
    /// replayer.extend(&moves, &options);
    /// replayer.look_at_end();
    /// assert_eq!(replayer.answer(Default::default(), &options), replay(Position::default(), &moves, &options));
    /// ```
    pub fn look_at_end(&mut self) {
        if self.final_look_pending()
            && let GameLine::Chess { game, end_look, .. } = &mut self.line
        {
            *end_look = Some(examine(&game.position, game.analysis.full));
        }
    }

    /// Whether the answer (or [`Replayer::look_at_end`]) will give the
    /// final position the full dead-position analysis, which may take up to
    /// about a second at the default budget: a game that has moved, goes on
    /// and ends past [`per_ply_gate`](crate::per_ply_gate), with no finding
    /// kept. A few bitboard operations: a caller on an async worker asks it
    /// before the answer, to move a long look off the worker.
    ///
    /// ```
    /// use arbiter_chess::{Position, Replayer, ReplayOptions};
    /// let options = ReplayOptions::default();
    /// // A knight behind a locked wall: no static test settles it.
    /// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K1N1 w - - 0 1".parse().unwrap();
    /// let mut replayer = Replayer::new(wall, options.analysis);
    /// assert!(!replayer.final_look_pending(), "nothing played yet");
    /// replayer.extend(&["Kd2"], &options);
    /// assert!(replayer.final_look_pending());
    /// replayer.look_at_end();
    /// assert!(!replayer.final_look_pending(), "looked at already");
    /// ```
    pub fn final_look_pending(&self) -> bool {
        match &self.line {
            GameLine::Chess { game, plies, end_look } => {
                end_look.is_none() && game.final_look_pending(!plies.is_empty())
            }
            GameLine::Variant { .. } => false,
        }
    }

    /// The answer for the whole game, given the tail the last
    /// [`Replayer::extend`] returned. With `include_fens`, that call must
    /// have played every ply from `plies_from` on (the FENs of earlier calls
    /// are not kept).
    ///
    /// The final position gets the full dead-position analysis (see
    /// [`Analysis`]); then a flag fall of `options.flagged` after the last
    /// move, when every move was legal and the game goes on, ends it (FIDE 6.9):
    /// the opponent wins, unless the analysis proves that they cannot mate.
    ///
    /// # Panics
    ///
    /// If FENs are asked for plies that `tail` did not play.
    pub fn answer(&self, tail: ReplayTail, options: &ReplayOptions) -> Replay {
        self.answer_with(tail, options, |replayer| replayer.legal_moves(None))
    }

    /// The legal moves of the position reached, only those from `from`
    /// when given (no drops then), each with its SAN and the draws its
    /// player could claim by stating it ([`Game::legal_moves`]).
    pub fn legal_moves(&self, from: Option<Square>) -> Vec<LegalMove> {
        match &self.line {
            GameLine::Chess { game, .. } => {
                game.legal_moves(from.map_or(Bitboard::FULL, Bitboard::from))
            }
            GameLine::Variant { game, .. } => game.legal_moves(from),
        }
    }

    /// [`Replayer::answer`], with the final position's legal moves from
    /// `list` when the answer has them (not skipped, game not over, not
    /// only from one square): for a caller that keeps them.
    pub fn answer_with(
        &self,
        tail: ReplayTail,
        options: &ReplayOptions,
        list: impl FnOnce(&Replayer) -> Vec<LegalMove>,
    ) -> Replay {
        let ReplayTail { illegal_move, fens } = tail;
        let mut fens = fens.into_iter();
        let plies = self
            .plies(options.plies_from)
            .map(|ply| PlyRecord {
                fen_after: options
                    .include_fens
                    .then(|| Box::new(fens.next().expect("the FEN of every returned ply"))),
                ..ply
            })
            .collect();
        let (position, outcome, winnability) = match &self.line {
            GameLine::Chess { game, plies, end_look } => {
                let full = game.analysis.full;
                let mut outcome = game.final_outcome_known(!plies.is_empty(), end_look.as_ref());
                let winnability = options
                    .winnability
                    .then(|| Color::ALL.map(|c| analyse(&game.position, c, full)));
                if let Some(flagged) = options.flagged
                    && illegal_move.is_none()
                    && !outcome.is_over()
                {
                    let opponent = !flagged;
                    let verdict = match &winnability {
                        Some(verdicts) => verdicts[opponent.index()].clone(),
                        None => analyse(&game.position, opponent, full),
                    };
                    outcome = flag_fall(flagged, verdict);
                }
                (GamePosition::Chess(game.position.clone()), outcome, winnability)
            }
            GameLine::Variant { game, .. } => {
                let flagged = options.flagged.filter(|_| illegal_move.is_none());
                let outcome = game.final_outcome(flagged);
                (GamePosition::Variant(game.position().clone()), outcome, None)
            }
        };
        let legal_moves = if options.skip_legal_moves || outcome.is_over() {
            Vec::new()
        } else if options.legal_moves_from.is_some() {
            self.legal_moves(options.legal_moves_from)
        } else {
            list(self)
        };
        Replay {
            plies,
            illegal_move,
            rulings: Vec::new(),
            position,
            legal_moves,
            outcome,
            winnability,
            shredder_fen: options.shredder_fen,
            clocks: None,
        }
    }

    /// A rough count of the bytes this replay holds, for bounded caches.
    pub fn heap_bytes(&self) -> usize {
        match &self.line {
            GameLine::Chess { game, plies, end_look } => {
                game.history.heap_bytes()
                    + plies.capacity() * std::mem::size_of::<Played>()
                    + end_look.as_ref().map_or(0, Finding::heap_bytes)
            }
            GameLine::Variant { game, plies } => {
                game.heap_bytes() + plies.capacity() * std::mem::size_of::<PlyRecord>()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blocked ending sent move by move, as a live game is: the replay
    /// kept between requests, extended by each move and given the final
    /// look, answers as a replay from the start every time, and carries
    /// the final look's helpmate over most moves rather than analyse.
    #[test]
    fn a_kept_final_look_answers_as_a_full_replay() {
        let mut rng = 0x2545_f491_4f6c_dd1d;
        let (mut carried, mut gated) = (0, 0);
        for fen in dead::tests::LIVE_BLOCKED_ENDINGS {
            let start: crate::Position = fen.parse().unwrap();
            let options = ReplayOptions::default();
            let mut kept = Replayer::new(start.clone(), options.analysis);
            let mut game = Game::new(start.clone());
            let mut moves = Vec::new();
            for _ in 0..40 {
                let Some(m) = dead::tests::random_move(game.position(), &mut rng) else { break };
                moves.push(game.play(m).to_string());
                let tail = kept.extend(&moves[moves.len() - 1..], &options);
                if dead::per_ply_gate(game.position()) && !game.is_over() {
                    gated += 1;
                    let GameLine::Chess { end_look, .. } = &kept.line else { unreachable!() };
                    carried += usize::from(end_look.is_some());
                }
                kept.look_at_end();
                for repeat in [false, true] {
                    let tail = if repeat { ReplayTail::default() } else { tail.clone() };
                    let fresh = replay(start.clone(), &moves, &options);
                    assert_eq!(kept.answer(tail, &options), fresh, "{moves:?}");
                }
                if game.is_over() {
                    break;
                }
            }
        }
        assert!(carried * 2 > gated, "{carried} of {gated}");
    }
}
