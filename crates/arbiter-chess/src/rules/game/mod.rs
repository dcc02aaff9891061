//! A game as it is played: the current position, what the repetition
//! rules need of the past, and the rules that end the game or let a player
//! claim a draw. Reading a move text and replaying a move list are built
//! on it.

mod clocked;
mod reading;
mod replay;
mod ruling;

pub use crate::rules::record::{LegalMove, Notation, PlyRecord};
pub use clocked::replay_clocked;
pub use replay::{IllegalMove, Replay, ReplayOptions, ReplayTail, Replayer, replay};
pub use ruling::{
    IllegalMoves, PENALTY_MS, ParseIllegalMovesError, RAPID_PENALTY_MS, Ruling, RulingAction,
    played_times, replay_ruled,
};

use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{Color, Role, Square};
use crate::notation::san::{SanString, push_check_mark, san, san_without_mark, sans_of_all};
use crate::notation::uci::UciMove;
use crate::rules::dead::{self, Analysis, Finding, per_ply_gate};
use crate::rules::outcome::{
    DrawClaims, GameResult, Outcome, Termination, is_insufficient_material, win_for,
};
use crate::rules::unwinnable::{Winnability, analyse};

/// A game in progress: the current position and what the rules need of the
/// past (positions since the last capture or pawn move, for repetition).
///
/// ```
/// use arbiter_chess::{Game, Notation};
/// use arbiter_chess::{GameResult, Termination};
/// let mut game = Game::new(Default::default());
/// for text in ["f3", "e5", "g4", "Qh4"] {
///     game.play_text(text, Notation::San, false).unwrap();
/// }
/// let outcome = game.outcome();
/// assert_eq!(outcome.result, GameResult::BlackWins);
/// assert_eq!(outcome.termination, Some(Termination::Checkmate));
/// assert!(game.play_text("e4", Notation::San, false).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// Positions since the last irreversible move, for repetition.
    history: History,
    /// How often the current position has stood on the board.
    repetitions: usize,
    /// Set once a rule other than a claim has ended the game.
    ended: Option<(GameResult, Termination)>,
    /// The budgets of the dead-position analysis.
    analysis: Analysis,
    /// The [`dead::structure`] of the last position the per-ply check
    /// analysed (0: none yet).
    analysed: u64,
}

/// A move accepted by [`Game::play_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub mv: Move,
    /// Canonical SAN with `+` or `#`.
    pub san: SanString,
    /// The text was already canonical SAN or canonical UCI.
    pub canonical_input: bool,
}

impl Game {
    /// A game starting from `start` (its history starts there too), with
    /// the default budgets of the dead-position analysis.
    pub fn new(start: Position) -> Game {
        Game::with_analysis(start, Analysis::DEFAULT)
    }

    /// A game starting from `start`, whose plies get the dead-position
    /// analysis with `analysis.per_ply` and whose start position gets it
    /// with `analysis.full` (see [`Analysis`]).
    ///
    /// ```
    /// use arbiter_chess::Analysis;
    /// use arbiter_chess::Game;
    /// use arbiter_chess::Termination;
    /// // A pawn wall that neither king can get through: dead at the start.
    /// let wall = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
    /// let game = Game::with_analysis(wall, Analysis::DEFAULT);
    /// assert_eq!(game.outcome().termination, Some(Termination::DeadPosition));
    /// ```
    pub fn with_analysis(start: Position, analysis: Analysis) -> Game {
        let mut game = Game {
            history: History::new(&start),
            position: start,
            repetitions: 1,
            ended: None,
            analysis,
            analysed: 0,
        };
        let look = game.worth_a_quick_look();
        game.ended = game.termination_now(!game.position.has_legal_moves(), look).or_else(|| {
            game.full_look_finds_dead().then_some((GameResult::Draw, Termination::DeadPosition))
        });
        game
    }

    /// Whether the per-ply check analyses the current position: its pawns
    /// are all blocked and there is no queen or rook ([`per_ply_gate`]),
    /// and its pawns and material differ from the last position it analysed
    /// (an endgame with blocked pawns is analysed once, not at every move of
    /// its pieces). Records the position as analysed.
    // Inlined, as `advance` and `History::record` are: once a ply, and each
    // call saved and restored registers.
    #[inline(always)]
    fn worth_a_quick_look(&mut self) -> bool {
        if !per_ply_gate(&self.position) {
            return false;
        }
        let structure = dead::structure(&self.position);
        let new = structure != self.analysed;
        self.analysed = structure;
        new
    }

    /// Whether the start position, past the wide gate, is proven dead by the
    /// full analysis.
    fn full_look_finds_dead(&self) -> bool {
        dead::worth_a_full_look(&self.position) && dead::is_dead(&self.position, self.analysis.full)
    }

    /// Whether the final position of a game that has moved, past the
    /// per-ply gate, is proven dead by the full analysis, or by `known`
    /// (what an earlier look at this position found, or one carried over
    /// to it: see [`Replayer::look_at_end`]).
    fn final_look_finds_dead(&self, known: Option<&Finding>) -> bool {
        dead::per_ply_gate(&self.position)
            && match known {
                Some(finding) => *finding == Finding::Dead,
                None => dead::is_dead(&self.position, self.analysis.full),
            }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The outcome of the game as it stands.
    pub fn outcome(&self) -> Outcome {
        // Stalemate, and a mate that `play_text_quietly` left, are found here.
        let ended = self.ended.or_else(|| {
            (!self.position.has_legal_moves()).then(|| self.termination_now(true, false)).flatten()
        });
        match ended {
            Some((result, termination)) => Outcome::ended(result, termination),
            None => Outcome {
                fifty_move_claimable: self.position.halfmove_clock() >= 100,
                threefold_claimable: self.repetitions >= 3,
                ..Outcome::ONGOING
            },
        }
    }

    /// The outcome of a game whose moves are all in, as a replay's answer
    /// gives it: [`Game::outcome`], and when the game goes on and
    /// `moved` (the start position had its look when the game began), the
    /// final position given the full dead-position analysis behind the
    /// per-ply gate ([`per_ply_gate`]).
    pub fn final_outcome(&self, moved: bool) -> Outcome {
        self.final_outcome_known(moved, None)
    }

    /// Whether [`Game::final_outcome`] with `moved` may run the full
    /// dead-position analysis (up to about a second at the default
    /// budget): the game goes on as far as its moves found, has moved, and
    /// its position is past the per-ply gate. A caller that must not be
    /// held so long (an async worker) gives such a game's final look to a
    /// thread that may be.
    ///
    /// ```
    /// use arbiter_chess::Game;
    /// // A knight behind a locked wall: no static test settles it.
    /// let wall = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K1N1 w - - 0 1";
    /// let mut game = Game::new(wall.parse().unwrap());
    /// assert!(!game.final_look_pending(false), "the start had its look");
    /// game.play_text("Kd2", arbiter_chess::Notation::San, false).unwrap();
    /// assert!(game.final_look_pending(true));
    /// assert!(!Game::new(Default::default()).final_look_pending(true));
    /// ```
    pub fn final_look_pending(&self, moved: bool) -> bool {
        moved && !self.is_over() && dead::per_ply_gate(&self.position)
    }

    /// [`Game::final_outcome`], with the full analysis's finding on the
    /// current position when it is `known`.
    fn final_outcome_known(&self, moved: bool, known: Option<&Finding>) -> Outcome {
        let outcome = self.outcome();
        if !outcome.is_over() && moved && self.final_look_finds_dead(known) {
            Outcome::ended(GameResult::Draw, Termination::DeadPosition)
        } else {
            outcome
        }
    }

    /// [`Game::final_outcome`], and then, when the game goes on, the flag
    /// fall of `flagged` (FIDE 6.9): the opponent wins, unless the full
    /// unwinnability analysis proves that they cannot mate by any series of
    /// legal moves, which draws; a win the analysis could not decide is
    /// marked unproven.
    ///
    /// ```
    /// use arbiter_chess::Game;
    /// use arbiter_chess::{GameResult, Termination};
    /// use arbiter_chess::Color;
    /// // White has a bare king: Black's flag falls, and White cannot mate.
    /// let game = Game::new("8/8/4k3/8/8/4K3/5p2/8 b - - 0 60".parse().unwrap());
    /// let outcome = game.final_outcome_after_flag_fall(true, Color::Black);
    /// assert_eq!(outcome.result, GameResult::Draw);
    /// assert_eq!(outcome.termination, Some(Termination::TimeoutVsUnwinnable));
    /// let outcome = game.final_outcome_after_flag_fall(true, Color::White);
    /// assert_eq!(outcome.result, GameResult::BlackWins);
    /// ```
    pub fn final_outcome_after_flag_fall(&self, moved: bool, flagged: Color) -> Outcome {
        let outcome = self.final_outcome(moved);
        if outcome.is_over() {
            return outcome;
        }
        flag_fall(flagged, analyse(&self.position, !flagged, self.analysis.full))
    }

    /// Whether a rule has ended the game (stalemate, and a mate played by
    /// [`Game::play_text_quietly`], are found when the next move is tried,
    /// or by [`Game::outcome`]).
    pub fn is_over(&self) -> bool {
        self.ended.is_some()
    }

    /// The termination that holds in the current position, if any, in order
    /// of precedence: mate, stalemate, dead position (insufficient material,
    /// then the per-ply analysis when `look`), fivefold repetition, 75-move
    /// rule. `no_moves` says whether the side to move has no legal move; it
    /// is asked only when it matters.
    fn termination_now(&self, no_moves: bool, look: bool) -> Option<(GameResult, Termination)> {
        let pos = &self.position;
        if no_moves {
            return Some(if pos.is_check() {
                (win_for(pos.turn()), Termination::Checkmate)
            } else {
                (GameResult::Draw, Termination::Stalemate)
            });
        }
        if is_insufficient_material(pos) {
            Some((GameResult::Draw, Termination::InsufficientMaterial))
        } else if look && dead::is_dead(pos, self.analysis.per_ply) {
            Some((GameResult::Draw, Termination::DeadPosition))
        } else if self.repetitions >= 5 {
            Some((GameResult::Draw, Termination::FivefoldRepetition))
        } else if pos.halfmove_clock() >= 150 {
            Some((GameResult::Draw, Termination::SeventyFiveMoveRule))
        } else {
            None
        }
    }

    /// Plays the legal move `m` and returns its canonical SAN.
    pub fn play(&mut self, m: Move) -> SanString {
        let mut san = san_without_mark(&self.position, m);
        self.position.play_unchecked(m);
        let mated = push_check_mark(&self.position, &mut san);
        self.advance(m, Some(mated));
        san
    }

    /// [`Game::advance`] as a call, for `play_uci`: inlined there, it made
    /// the replay of UCI move lists slower.
    #[inline(never)]
    fn advance_in_a_call(&mut self, m: Move, mated: Option<bool>) {
        self.advance(m, mated);
    }

    /// Records the position just reached by `m` (`mated` if `m` mates,
    /// `None` if that is not known yet) and what ends the game there.
    // Inlined into the plays of text: it runs once a ply.
    #[inline(always)]
    fn advance(&mut self, m: Move, mated: Option<bool>) {
        self.repetitions = self.history.record(&self.position, m);
        self.ended = if mated == Some(true) {
            Some((win_for(self.position.turn()), Termination::Checkmate))
        } else {
            let look = self.worth_a_quick_look();
            let rare = look
                || is_insufficient_material(&self.position)
                || self.repetitions >= 5
                || self.position.halfmove_clock() >= 150;
            // Mate and stalemate take precedence over the draws that end the
            // game on their own; they are looked for only when one of them
            // holds. Else a mate not known yet is found when the next move is
            // tried (no legal move) or the outcome asked for, as stalemate is.
            rare.then(|| self.termination_now(!self.position.has_legal_moves(), look)).flatten()
        };
    }

    /// The legal moves from the squares in `from`, each with its canonical
    /// SAN and the draws its player could claim by stating it (FIDE 9.2.1,
    /// 9.3.1): threefold repetition when the position after it stands on
    /// the board for the third time or more, the fifty-move rule when the
    /// halfmove clock after it is 100 or more; neither on a move that ends
    /// the game by itself.
    ///
    /// ```
    /// use arbiter_chess::Bitboard;
    /// use arbiter_chess::Game;
    /// let game = Game::new("7k/8/6K1/8/8/8/8/R7 w - - 99 80".parse().unwrap());
    /// let moves = game.legal_moves(Bitboard::FULL);
    /// let ra8 = moves.iter().find(|m| m.san.as_str() == "Ra8#").unwrap();
    /// assert!(!ra8.claims.any(), "a mate ends the game by itself");
    /// let ra2 = moves.iter().find(|m| m.san.as_str() == "Ra2").unwrap();
    /// assert!(ra2.claims.fifty_move && !ra2.claims.threefold);
    /// ```
    pub fn legal_moves(&self, from: Bitboard) -> Vec<LegalMove> {
        let pos = &self.position;
        let may_claim = pos.halfmove_clock() >= 99 || self.history.may_repeat();
        let moves = pos.legal_moves_filtered(from, Bitboard::FULL);
        let listed = |m, san| LegalMove {
            uci: UciMove::from_move_in(m, pos.castling_mode()),
            san,
            claims: if may_claim { self.claims_by(m) } else { DrawClaims::NONE },
        };
        if from == Bitboard::FULL {
            // The whole list: its SAN worked out for the list at once.
            moves.iter().zip(sans_of_all(pos, &moves)).map(|(&m, san)| listed(m, san)).collect()
        } else {
            moves.iter().map(|&m| listed(m, san(pos, m))).collect()
        }
    }

    /// The draws the player to move could claim by stating the legal move
    /// `m`: the game after it, played out, says.
    #[cold]
    fn claims_by(&self, m: Move) -> DrawClaims {
        let next = self.position.play(m);
        let clock = next.halfmove_clock();
        if clock == 0 || (clock < 100 && !self.history.may_hold(next.zobrist())) {
            return DrawClaims::NONE;
        }
        let mut after = self.clone();
        after.play(m);
        if after.outcome().is_over() {
            return DrawClaims::NONE;
        }
        DrawClaims { fifty_move: clock >= 100, threefold: after.repetitions >= 3 }
    }
}

/// The positions since the last capture or pawn move, as the repetition
/// rules compare them: placement, side to move, castling rights, and the
/// en-passant square when a capture there is legal.
///
/// Each position is kept as its Zobrist hash and the move that reached it,
/// 16 bytes instead of a copy of the position, and marks a bit of a
/// 512-bit filter picked by its hash: a position whose bit is clear
/// repeats none, and the history is not scanned (long stretches of
/// reversible moves would otherwise cost a scan per ply). A position
/// repeats an earlier one only if their hashes are equal, and then the
/// placement is checked exactly: every move since the last capture or pawn move is an ordinary
/// move of a piece to an empty square, so undoing them one by one from the
/// current placement gives the earlier one. The other parts are equal by
/// construction: the side to move by taking every second position, the
/// castling rights by looking only as far back as they last changed, and
/// the en-passant square because only the first position can have one (it
/// follows a double step) and the current one, later, cannot.
#[derive(Debug)]
struct History {
    /// Each position's hash and the move that reached it, the current one
    /// last (the first one's move is never read).
    entries: Vec<(u64, Move)>,
    /// The first position with the current castling rights.
    rights_from: usize,
    /// The current castling rights.
    rights: Bitboard,
    /// Whether the first position has a legal en-passant capture.
    first_has_ep: bool,
    /// Bit `hash >> 55` is set for the hash of every position recorded.
    seen: [u64; 8],
}

/// Positions a copied history has room for before it grows: a game copied
/// from a start (each game of a PGN file is) would otherwise grow its
/// entries three or four times, a reallocation each.
const HISTORY_ROOM: usize = 32;

impl Clone for History {
    fn clone(&self) -> History {
        let mut entries = Vec::with_capacity(self.entries.len().max(HISTORY_ROOM));
        entries.extend_from_slice(&self.entries);
        let History { entries: _, rights_from, rights, first_has_ep, seen } = *self;
        History { entries, rights_from, rights, first_has_ep, seen }
    }
}

impl History {
    fn new(start: &Position) -> History {
        let mut history = History {
            entries: Vec::new(),
            rights_from: 0,
            rights: start.castling_rights(),
            first_has_ep: false,
            seen: [0; 8],
        };
        // The first position's move is never read.
        history.restart(start, Move::new(Square::A1, Square::A1, MoveKind::Normal));
        history
    }

    /// Starts again from `pos`, after an irreversible move or at the start.
    fn restart(&mut self, pos: &Position, m: Move) {
        let hash = pos.zobrist();
        self.entries.clear();
        self.entries.push((hash, m));
        self.seen = [0; 8];
        self.mark(hash);
        self.rights_from = 0;
        self.rights = pos.castling_rights();
        self.first_has_ep = pos.legal_ep_square().is_some();
    }

    /// Records `pos`, reached by the move `m`, and returns how often it has
    /// stood on the board.
    // Inlined into `Game::advance`: it runs once a ply, and the call was a
    // measurable part of reading a PGN file.
    #[inline(always)]
    fn record(&mut self, pos: &Position, m: Move) -> usize {
        if pos.halfmove_clock() == 0 {
            self.restart(pos, m);
            return 1;
        }
        let hash = pos.zobrist();
        let now = self.entries.len();
        if pos.castling_rights() != self.rights {
            self.rights = pos.castling_rights();
            self.rights_from = now;
        }
        self.entries.push((hash, m));
        if !self.mark(hash) {
            return 1;
        }
        self.occurrences(pos, hash, now, None)
    }

    /// How often `pos` (hash `hash`, which would be or is entry `now`) has
    /// stood on the board, itself included. `last` is the move that would
    /// reach it when it is not recorded yet.
    fn occurrences(&self, pos: &Position, hash: u64, now: usize, last: Option<Move>) -> usize {
        // Same side to move: every second position back, from four plies
        // back (two plies cannot bring a position back: each side has moved
        // a piece of its own).
        let mut repetitions = 1;
        let mut earlier = now.wrapping_sub(4);
        while earlier < now && earlier >= self.rights_from {
            if self.entries[earlier].0 == hash && self.same_as(pos, earlier, last) {
                repetitions += 1;
            }
            earlier = earlier.wrapping_sub(2);
        }
        repetitions
    }

    /// Whether the next position could stand on the board for the third
    /// time: its two earlier times are four plies apart or more, and the
    /// first of them four plies or more before it, all with the current
    /// castling rights.
    fn may_repeat(&self) -> bool {
        self.entries.len() >= self.rights_from + 8
    }

    /// Whether a position of hash `hash` may have been recorded (the
    /// filter's bit is set).
    fn may_hold(&self, hash: u64) -> bool {
        let bit = (hash >> 55) as usize;
        self.seen[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Sets the filter bit of `hash`; returns whether it was set already.
    #[inline]
    fn mark(&mut self, hash: u64) -> bool {
        let was_set = self.may_hold(hash);
        let bit = (hash >> 55) as usize;
        self.seen[bit / 64] |= 1 << (bit % 64);
        was_set
    }

    /// Whether the position at `earlier`, whose hash equals that of `pos`
    /// (the current position, or the one `last` would reach from it), is
    /// the same position.
    #[cold]
    fn same_as(&self, pos: &Position, earlier: usize, last: Option<Move>) -> bool {
        if earlier == 0 && self.first_has_ep {
            return false;
        }
        let (mut by_role, mut by_color) = (pos.by_role, pos.by_color);
        let undone = last.into_iter().chain(self.entries[earlier + 1..].iter().rev().map(|e| e.1));
        for m in undone {
            // Castling changes the rights, so it lies before `rights_from`;
            // anything else irreversible restarted the history.
            debug_assert_eq!(m.kind(), MoveKind::Normal);
            let (from, to) = (m.from(), m.to());
            let Some(role) = Role::ALL.into_iter().find(|r| by_role[r.index()].contains(to)) else {
                return false;
            };
            let color = usize::from(by_color[1].contains(to));
            let both = Bitboard::from(from) | to;
            by_role[role.index()] ^= both;
            by_color[color] ^= both;
        }
        by_role == pos.by_role && by_color == pos.by_color
    }

    /// The bytes it holds on the heap.
    fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<(u64, Move)>()
    }
}

/// The outcome of `flagged`'s flag fall (FIDE 6.9), given what the
/// unwinnability analysis says of the opponent.
fn flag_fall(flagged: Color, opponent: Winnability) -> Outcome {
    match opponent {
        Winnability::Unwinnable => {
            Outcome::ended(GameResult::Draw, Termination::TimeoutVsUnwinnable)
        }
        Winnability::Winnable(_) => Outcome::ended(win_for(flagged), Termination::Timeout),
        Winnability::Undetermined => {
            Outcome { unproven: true, ..Outcome::ended(win_for(flagged), Termination::Timeout) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(game: &mut Game, moves: &[&str]) {
        for text in moves {
            game.play_text(text, Notation::San, false).unwrap();
        }
    }

    #[test]
    fn equal_hashes_of_different_positions_are_not_a_repetition() {
        let mut game = Game::new(Position::default());
        play_all(&mut game, &["Nf3", "Nf6", "Nc3", "Nc6"]);
        // Forge a hash collision: the position after 1. Nf3, black to move,
        // gets the hash of the position after 3. Ng1, black to move too.
        let ng1 = "f3g1".parse::<UciMove>().unwrap().to_move(game.position()).unwrap();
        let hash = game.position().play(ng1).zobrist();
        let mut forged = game.clone();
        forged.history.entries[1].0 = hash;
        forged.history.mark(hash);
        forged.play(ng1);
        assert_eq!(forged.repetitions, 1, "equal hashes, different placement");
        // The real thing: knights back home twice over is the start again.
        play_all(&mut game, &["Ng1", "Ng8", "Nb1", "Nb8"]);
        assert_eq!(game.repetitions, 2);
        play_all(&mut game, &["Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(game.repetitions, 3);
        assert!(game.outcome().threefold_claimable);
    }

    #[test]
    fn a_legal_en_passant_capture_makes_the_first_position_unique() {
        // Black can take on e3 en passant: the position is not the one the
        // knights come back to, with the same placement but no capture.
        let start = "4k1n1/8/8/8/3pP3/8/8/4K1N1 b - e3 0 1";
        let mut game = Game::new(start.parse().unwrap());
        play_all(&mut game, &["Nf6", "Nf3", "Ng8", "Ng1"]);
        assert_eq!(game.repetitions, 1);
        play_all(&mut game, &["Nf6", "Nf3", "Ng8", "Ng1"]);
        assert_eq!(game.repetitions, 2);
        // Without the capture, the first position counts like any other.
        let mut game = Game::new("4k1n1/8/8/8/3pP3/8/8/4K1N1 b - - 0 1".parse().unwrap());
        play_all(&mut game, &["Nf6", "Nf3", "Ng8", "Ng1"]);
        assert_eq!(game.repetitions, 2);
    }
}
