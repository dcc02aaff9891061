//! Replaying a game: a start position and a list of move texts in, every
//! move checked and written canonically, the final position and the
//! outcome out.

use crate::board::bitboard::Bitboard;
use crate::board::fen::Fen;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{Color, Role, Square};
use crate::notation::echo::{Quoted, echo};
use crate::notation::illegal::{Illegal, IllegalReason, diagnose_san, diagnose_uci};
use crate::notation::san::{San, SanMove, SanString, push_check_mark, san, san_without_mark};
use crate::notation::uci::{ParseUciError, UciMove};
use crate::rules::dead::{self, Analysis, Finding, examine, per_ply_gate};
use crate::rules::outcome::{
    DrawClaims, GameResult, Outcome, Termination, is_insufficient_material, win_for,
};
use crate::rules::unwinnable::{Winnability, analyse};

/// How move texts are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Each move is read as UCI when it is UCI syntax, else as SAN.
    #[default]
    Auto,
    /// UCI only (`e2e4`, `e7e8q`, `e1g1` or `e1h1`).
    Uci,
    /// SAN and the variants of it people write.
    San,
}

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
    /// The [`structure`] of the last position the per-ply check
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
    /// with `analysis.full` (see [`dead`]).
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
    // call saved and restored registers (callgrind, session 13).
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
    /// to it: see [`Replayed::look_at_end`]).
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
    /// per-ply gate ([`dead`]).
    pub fn final_outcome(&self, moved: bool) -> Outcome {
        self.final_outcome_known(moved, None)
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

    /// [`Game::advance`] as a call, for `play_uci`: inlined there, the
    /// validate bench's UCI round took 15-20 % more time (session 13).
    #[inline(never)]
    fn advance_in_a_call(&mut self, m: Move, mated: Option<bool>) {
        self.advance(m, mated);
    }

    /// Records the position just reached by `m` (`mated` if `m` mates,
    /// `None` if that is not known yet) and what ends the game there.
    // Inlined into the plays of text: once a ply (callgrind, session 13).
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
        pos.legal_moves_filtered(from, Bitboard::FULL)
            .into_iter()
            .map(|m| LegalMove {
                uci: UciMove::from_move_in(m, pos.castling_mode()),
                san: san(pos, m),
                claims: if may_claim { self.claims_by(m) } else { DrawClaims::NONE },
            })
            .collect()
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

    /// Reads `text` in `notation`, checks it, and plays it.
    ///
    /// # Errors
    ///
    /// An [`Illegal`] naming the rule the move breaks; in `strict` mode also
    /// a legal move not written canonically.
    #[inline(always)]
    pub fn play_text(
        &mut self,
        text: &str,
        notation: Notation,
        strict: bool,
    ) -> Result<Played, Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let (found, uci) = match self.resolve(text, notation) {
            Ok(found) => found,
            Err(illegal) => return Err(self.explain_failure(illegal)),
        };
        let m = found.mv;
        // A rejected move must leave the game as it was: strict mode keeps
        // the position to put back.
        let before = strict.then(|| self.position.clone());
        let mut san = found.san_without_mark(&self.position);
        self.position.play_piece_unchecked(m, found.role);
        let mated = push_check_mark(&self.position, &mut san);
        let canonical_input = match uci {
            Some(uci) => uci == UciMove::from_move_in(m, self.position.castling_mode()),
            None => san.is(text.as_bytes()),
        };
        if let Some(before) = before
            && !canonical_input
        {
            self.position = before;
            let canonical =
                UciMove::from_move_in(m, self.position.castling_mode()).to_array_string();
            return Err(not_canonical(text, if uci.is_some() { &canonical } else { &san }));
        }
        self.advance(m, Some(mated));
        Ok(Played { mv: m, san, canonical_input })
    }

    /// [`Game::play_text`] (not strict) without writing the move's SAN: for
    /// callers that want the verdict and the position, not the notation (a
    /// bulk check whose output names no move). The game goes as with
    /// [`Game::play_text`], but for when a mate is found: not after the
    /// move (most moves that check do not mate, and looking for a legal
    /// reply costs more than the rest of the move), but as stalemate is,
    /// when the next move is tried or [`Game::outcome`] asked for; until
    /// then [`Game::is_over`] is false. Returns the move played.
    ///
    /// # Errors
    ///
    /// As [`Game::play_text`].
    ///
    /// ```
    /// use arbiter_chess::{Game, Notation};
    /// let (mut quiet, mut loud) = (Game::new(Default::default()), Game::new(Default::default()));
    /// for text in ["f3", "e5", "g4", "Qh4"] {
    ///     let m = quiet.play_text_quietly(text, Notation::Auto).unwrap();
    ///     assert_eq!(m, loud.play_text(text, Notation::Auto, false).unwrap().mv);
    /// }
    /// assert_eq!(quiet.outcome(), loud.outcome());
    /// assert_eq!(quiet.play_text_quietly("e4", Notation::Auto).unwrap_err().message, "the game is over (checkmate)");
    /// ```
    #[inline]
    pub fn play_text_quietly(&mut self, text: &str, notation: Notation) -> Result<Move, Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let (found, _) = match self.resolve(text, notation) {
            Ok(found) => found,
            Err(illegal) => return Err(self.explain_failure(illegal)),
        };
        let m = found.mv;
        self.position.play_piece_unchecked(m, found.role);
        self.advance(m, None);
        Ok(m)
    }

    /// Reads `text` as UCI, checks it and plays it, without writing SAN: for
    /// callers that want UCI in and UCI out. Returns the move and whether the
    /// text was canonical UCI.
    ///
    /// # Errors
    ///
    /// As [`Game::play_text`].
    ///
    /// ```
    /// use arbiter_chess::Game;
    /// let mut game = Game::new(Default::default());
    /// let (m, canonical) = game.play_uci("g1f3", false).unwrap();
    /// assert_eq!((m.to_string().as_str(), canonical), ("g1f3", true));
    /// ```
    #[inline]
    pub fn play_uci(&mut self, text: &str, strict: bool) -> Result<(Move, bool), Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let found = read_uci(text).and_then(|uci| Ok((self.find_uci(&uci)?, uci)));
        let ((m, role), uci) = match found {
            Ok(found) => found,
            Err(illegal) => return Err(self.explain_failure(illegal)),
        };
        // Read UCI writes back to the text it was read from.
        let canonical_input = uci == UciMove::from_move_in(m, self.position.castling_mode());
        if strict && !canonical_input {
            return Err(not_canonical(
                text,
                &UciMove::from_move_in(m, self.position.castling_mode()).to_array_string(),
            ));
        }
        self.position.play_piece_unchecked(m, role);
        let mated = self.position.is_check() && !self.position.has_legal_moves();
        self.advance_in_a_call(m, Some(mated));
        Ok((m, canonical_input))
    }

    /// The error for a move that could not be played: game over when the
    /// side to move has no legal move at all, else `illegal`.
    fn explain_failure(&self, illegal: Illegal) -> Illegal {
        if self.position.has_legal_moves() {
            illegal
        } else if self.position.is_check() {
            game_over(Termination::Checkmate)
        } else {
            game_over(Termination::Stalemate)
        }
    }

    /// The move `text` means here, and the UCI it was read as, if it was.
    #[inline(always)]
    fn resolve(
        &self,
        text: &str,
        notation: Notation,
    ) -> Result<(SanMove, Option<UciMove>), Illegal> {
        let pos = &self.position;
        let uci = match notation {
            Notation::San => None,
            // Most texts are SAN: only one with UCI's two rank digits is
            // read as UCI (the reading refuses the others anyway).
            Notation::Auto => match text.as_bytes() {
                [_, b'1'..=b'8', _, b'1'..=b'8'] | [_, b'1'..=b'8', _, b'1'..=b'8', _] => {
                    text.parse::<UciMove>().ok()
                }
                _ => None,
            },
            Notation::Uci => Some(read_uci(text)?),
        };
        if let Some(uci) = uci {
            let found = uci.find_san(pos).ok_or_else(|| diagnose_uci(pos, &uci))?;
            return Ok((found, Some(uci)));
        }
        let san: San = text.parse().map_err(|e| {
            Illegal::new(IllegalReason::Unparseable, format!("{} is {e}", Quoted(text)))
        })?;
        san.find(pos).map(|found| (found, None)).map_err(|_| diagnose_san(pos, &san))
    }

    /// The legal move `uci` means here, and the role of its piece.
    #[inline(always)]
    fn find_uci(&self, uci: &UciMove) -> Result<(Move, Role), Illegal> {
        uci.find(&self.position).ok_or_else(|| diagnose_uci(&self.position, uci))
    }
}

/// `text` read as UCI.
// Inlined, the error apart: a call a UCI ply for a few dozen instructions.
#[inline(always)]
fn read_uci(text: &str) -> Result<UciMove, Illegal> {
    text.parse().map_err(|e| unparseable_uci(text, e))
}

#[cold]
#[inline(never)]
fn unparseable_uci(text: &str, e: ParseUciError) -> Illegal {
    Illegal::new(IllegalReason::Unparseable, format!("{} is {e}", Quoted(text)))
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
/// entries three or four times (1,548 games: 4,268 reallocations, 1.8 % of
/// `arbiter pgn`'s instructions).
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
    // Inlined into `Game::advance`: 2.7 M of 107 M instructions of `arbiter
    // pgn` went to the call (callgrind, session 13).
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

fn not_canonical(text: &str, canonical: &str) -> Illegal {
    Illegal::new(
        IllegalReason::NonCanonical,
        format!("{} is not canonical: write {canonical}", Quoted(text)),
    )
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

fn game_over(termination: Termination) -> Illegal {
    Illegal::new(
        IllegalReason::GameOver,
        format!("the game is over ({})", termination.as_str().replace('_', " ")),
    )
}

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
    /// of X-FEN (`KQkq`).
    pub shredder_fen: bool,
    /// List only the legal moves from this square.
    pub legal_moves_from: Option<Square>,
    /// The side whose flag fell after the last move (FIDE 6.9).
    pub flagged: Option<Color>,
    /// Report both colours' verdicts on the final position.
    pub winnability: bool,
    /// The budgets of the unwinnability analysis.
    pub analysis: Analysis,
}

/// One accepted move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    pub san: SanString,
    pub uci: UciMove,
    /// Boxed: most answers have no FENs, and a record without one stays
    /// small to build and read.
    pub fen_after: Option<Box<Fen>>,
    pub canonical_input: bool,
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

/// A legal move of the final position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegalMove {
    pub uci: UciMove,
    pub san: SanString,
    /// The draws its player could claim by stating it.
    pub claims: DrawClaims,
}

/// The answer for a replayed game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Accepted moves from `plies_from` on.
    pub plies: Vec<PlyRecord>,
    /// The first rejected move; the moves after it are not looked at.
    pub illegal_move: Option<IllegalMove>,
    /// The position after the last accepted move.
    pub position: Position,
    /// Its legal moves (none once the game is over, or when skipped).
    pub legal_moves: Vec<LegalMove>,
    pub outcome: Outcome,
    /// Whether each colour (by [`Color::index`]) can still mate in the
    /// final position, when asked for.
    pub winnability: Option<[Winnability; 2]>,
    /// FENs are asked for with Shredder-FEN castling letters.
    pub shredder_fen: bool,
}

impl Replay {
    /// The FEN of the final position, in the castling notation asked for.
    pub fn position_fen(&self) -> Fen {
        if self.shredder_fen { self.position.shredder_fen() } else { self.position.fen() }
    }
}

/// Replays `moves` from `start`.
///
/// ```
/// use arbiter_chess::{replay, ReplayOptions};
/// use arbiter_chess::IllegalReason;
/// let r = replay(Default::default(), &["e4", "e5", "Ke3"], &ReplayOptions::default());
/// assert_eq!(r.plies.len(), 2);
/// let bad = r.illegal_move.unwrap();
/// assert_eq!((bad.index, bad.reason), (2, IllegalReason::NoPiece));
/// assert_eq!(bad.message, "no white king can move to e3");
/// assert_eq!(r.legal_moves.len(), 29);
/// ```
pub fn replay<S: AsRef<str>>(start: Position, moves: &[S], options: &ReplayOptions) -> Replay {
    let mut replayed = Replayed::new(start, options.analysis);
    let tail = replayed.extend(moves, options);
    replayed.answer(tail, options)
}

/// [`Notation`]s as numbers, for [`Replayed::extend_in`] (an enum cannot
/// be a const parameter).
const NOTATION_SAN: u8 = 0;
const NOTATION_UCI: u8 = 1;
const NOTATION_AUTO: u8 = 2;

/// A replay that can be taken further: the game so far and every move
/// accepted on the way. A caller that keeps it (the service's cache) checks
/// a longer move list by playing only the moves that follow.
///
/// ```
/// use arbiter_chess::{replay, Replayed, ReplayOptions};
/// let options = ReplayOptions::default();
/// let mut replayed = Replayed::new(Default::default(), options.analysis);
/// replayed.extend(&["e4", "e5"], &options);
/// let tail = replayed.extend(&["Nf3"], &options);
/// assert_eq!(replayed.answer(tail, &options), replay(Default::default(), &["e4", "e5", "Nf3"], &options));
/// ```
#[derive(Clone, Debug)]
pub struct Replayed {
    game: Game,
    plies: Vec<Played>,
    /// The full dead-position analysis's finding on the current position,
    /// once [`Replayed::look_at_end`] has looked (or a helpmate found
    /// earlier was carried over to it by [`Finding::after`]).
    end_look: Option<Finding>,
}

/// What [`Replayed::extend`] found beyond the moves already played: the
/// first illegal move, and the FENs the options ask for.
#[derive(Clone, Debug, Default)]
pub struct Extension {
    illegal_move: Option<IllegalMove>,
    /// FENs after the plies from `max(plies_from, first new ply)` on.
    fens: Vec<Fen>,
}

impl Extension {
    /// The first illegal move of the extension, if any.
    pub fn illegal_move(&self) -> Option<&IllegalMove> {
        self.illegal_move.as_ref()
    }
}

impl Replayed {
    /// Nothing played yet from `start`, with the dead-position analysis
    /// of `analysis` (see [`Game::with_analysis`]).
    pub fn new(start: Position, analysis: Analysis) -> Replayed {
        Replayed { game: Game::with_analysis(start, analysis), plies: Vec::new(), end_look: None }
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The moves accepted so far, in order.
    pub fn plies(&self) -> &[Played] {
        &self.plies
    }

    /// Plays `moves`, the texts that follow the ones already played, up to
    /// the first illegal one (whose index counts from the start of the game).
    pub fn extend<S: AsRef<str>>(&mut self, moves: &[S], options: &ReplayOptions) -> Extension {
        // A loop of its own for each notation, which reads the moves
        // without the others' code in its way (callgrind, session 14).
        match options.notation {
            Notation::San => self.extend_in::<S, NOTATION_SAN>(moves, options),
            Notation::Uci => self.extend_in::<S, NOTATION_UCI>(moves, options),
            Notation::Auto => self.extend_in::<S, NOTATION_AUTO>(moves, options),
        }
    }

    /// [`Replayed::extend`] in the notation numbered `NOTATION`.
    #[inline(never)]
    fn extend_in<S: AsRef<str>, const NOTATION: u8>(
        &mut self,
        moves: &[S],
        options: &ReplayOptions,
    ) -> Extension {
        let notation = match NOTATION {
            NOTATION_SAN => Notation::San,
            NOTATION_UCI => Notation::Uci,
            _ => Notation::Auto,
        };
        let mut tail = Extension::default();
        self.plies.reserve(moves.len());
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
                        self.end_look = dead::per_ply_gate(position)
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
    /// use arbiter_chess::{replay, Replayed, ReplayOptions};
    /// let options = ReplayOptions::default();
    /// let moves = ["e4", "d5", "exd5", "Qxd5"];
    /// let mut replayed = Replayed::new(Default::default(), options.analysis);
    /// replayed.extend(&moves, &options);
    /// replayed.look_at_end();
    /// assert_eq!(replayed.answer(Default::default(), &options), replay(Default::default(), &moves, &options));
    /// ```
    pub fn look_at_end(&mut self) {
        let game = &self.game;
        if self.end_look.is_none()
            && !self.plies.is_empty()
            && !game.is_over()
            && dead::per_ply_gate(&game.position)
        {
            self.end_look = Some(examine(&game.position, game.analysis.full));
        }
    }

    /// The answer for the whole game, given what the last extension found.
    /// With `include_fens`, that extension must have played every ply from
    /// `plies_from` on (the FENs of earlier extensions are not kept).
    ///
    /// The final position gets the full dead-position analysis (see
    /// [`dead`]); then a flag fall of `options.flagged` after the last move,
    /// when every move was legal and the game goes on, ends it (FIDE 6.9):
    /// the opponent wins, unless the analysis proves that they cannot mate.
    ///
    /// # Panics
    ///
    /// If FENs are asked for plies that `tail` did not play.
    pub fn answer(&self, tail: Extension, options: &ReplayOptions) -> Replay {
        self.answer_with(tail, options, |game| game.legal_moves(Bitboard::FULL))
    }

    /// [`Replayed::answer`], with the final position's legal moves from
    /// `list` when the answer has them (not skipped, game not over): for a
    /// caller that keeps them.
    pub fn answer_with(
        &self,
        tail: Extension,
        options: &ReplayOptions,
        list: impl FnOnce(&Game) -> Vec<LegalMove>,
    ) -> Replay {
        let Extension { illegal_move, fens } = tail;
        let returned = self.plies.get(options.plies_from..).unwrap_or_default();
        let mut fens = fens.into_iter();
        let plies = returned
            .iter()
            .map(|played| PlyRecord {
                san: played.san,
                uci: UciMove::from_move_in(played.mv, self.game.position.castling_mode()),
                fen_after: options
                    .include_fens
                    .then(|| Box::new(fens.next().expect("the FEN of every returned ply"))),
                canonical_input: played.canonical_input,
            })
            .collect();
        let game = &self.game;
        let full = game.analysis.full;
        let mut outcome = game.final_outcome_known(!self.plies.is_empty(), self.end_look.as_ref());
        let winnability =
            options.winnability.then(|| Color::ALL.map(|c| analyse(&game.position, c, full)));
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
        let legal_moves = if options.skip_legal_moves || outcome.is_over() {
            Vec::new()
        } else if let Some(from) = options.legal_moves_from {
            game.legal_moves(Bitboard::from(from))
        } else {
            list(game)
        };
        Replay {
            plies,
            illegal_move,
            position: game.position.clone(),
            legal_moves,
            outcome,
            winnability,
            shredder_fen: options.shredder_fen,
        }
    }

    /// A rough count of the bytes this replay holds, for bounded caches.
    pub fn heap_bytes(&self) -> usize {
        self.game.history.heap_bytes()
            + self.plies.capacity() * std::mem::size_of::<Played>()
            + self.end_look.as_ref().map_or(0, Finding::heap_bytes)
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

    /// A quiet replay finds mates late, not differently: the same outcome
    /// and the same answer to a move after the end, a mate still before
    /// the 75-move rule, and stalemate and the draws as before.
    #[test]
    fn quiet_play_ends_games_as_loud_play_does() {
        let cases: [(&str, &[&str]); 5] = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &["f3", "e5", "g4", "Qh4"],
            ),
            // The mate comes with the 150th halfmove: mate wins.
            ("7k/8/6K1/8/8/8/8/R7 w - - 149 100", &["Ra8"]),
            ("7k/8/6K1/8/8/8/8/R7 w - - 149 100", &["Ra7"]),
            // Stalemate, then a bare-kings draw.
            ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", &["Qf7"]),
            ("7k/8/8/8/8/8/5K2/6r1 w - - 0 1", &["Kxg1"]),
        ];
        for (fen, moves) in cases {
            let start: Position = fen.parse().unwrap();
            let (mut quiet, mut loud) = (Game::new(start.clone()), Game::new(start));
            for text in moves {
                let m = quiet.play_text_quietly(text, Notation::Auto).unwrap();
                assert_eq!(m, loud.play_text(text, Notation::Auto, false).unwrap().mv, "{fen}");
                assert_eq!(quiet.outcome(), loud.outcome(), "{fen} after {text}");
            }
            assert!(loud.outcome().is_over(), "{fen}");
            let after =
                |game: &mut Game| game.play_text_quietly("Kh1", Notation::Auto).unwrap_err();
            assert_eq!(after(&mut quiet), after(&mut loud), "{fen}");
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

    /// A blocked ending sent move by move, as a live game is: the replay
    /// kept between requests, extended by each move and given the final
    /// look, answers as a replay from the start every time, and carries
    /// the final look's helpmate over most moves rather than analyse.
    #[test]
    fn a_kept_final_look_answers_as_a_full_replay() {
        let mut rng = 0x2545_f491_4f6c_dd1d;
        let (mut carried, mut gated) = (0, 0);
        for fen in dead::tests::LIVE_BLOCKED_ENDINGS {
            let start: Position = fen.parse().unwrap();
            let options = ReplayOptions::default();
            let mut kept = Replayed::new(start.clone(), options.analysis);
            let mut game = Game::new(start.clone());
            let mut moves = Vec::new();
            for _ in 0..40 {
                let Some(m) = dead::tests::random_move(game.position(), &mut rng) else { break };
                moves.push(game.play(m).to_string());
                let tail = kept.extend(&moves[moves.len() - 1..], &options);
                if dead::per_ply_gate(game.position()) && !game.is_over() {
                    gated += 1;
                    carried += usize::from(kept.end_look.is_some());
                }
                kept.look_at_end();
                for repeat in [false, true] {
                    let tail = if repeat { Extension::default() } else { tail.clone() };
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
