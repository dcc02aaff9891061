//! Validating a game read from PGN, under the rules and from the start its
//! tags set up ([`super::start`]: standard chess, Chess960 or one of
//! lichess's variants): the mainline replayed exactly as `ValidateGame`
//! replays a move list, every variation from its own position, and whether
//! the `Result` tag agrees with how the moves ended.

use std::borrow::Cow;
use std::sync::LazyLock;

use super::clock::{ClockReport, clock_report, lost_on_time};
use super::parse::{Line, PgnGame};
use super::plays::PlaysText;
use super::reader::RawGame;
use super::start::{GameError, set_up};
pub use super::terms::{ResultToken, VariationError, VariationReason};
use super::watch::{MainlineWatch, PlyWatch, finish_analysis};
use arbiter_chess::{
    Analysis, Analyzer, Color, Game, GameAnalysis, GamePosition, GameResult, Illegal, IllegalMove,
    MoveText, Outcome, Position, Termination, VariantGame, echo, worth_a_full_look,
};

/// The game from the standard start, as most games begin: set up once
/// (the position, and the looks for mate, stalemate and a dead position
/// that every game gets at its start), and copied for each game checked
/// with the default budgets.
static STANDARD_START: LazyLock<Game> =
    LazyLock::new(|| Game::with_analysis(Position::default(), Analysis::DEFAULT));

/// A game at its start, under its rules.
#[derive(Debug)]
enum Started {
    Chess(Game),
    Variant(VariantGame),
}

/// The game at the start of `game`, to replay its moves in (a chess game
/// with the budgets of `analysis`), and an analyzer of it when `analysed`.
fn start_game(
    game: &PgnGame,
    analysis: Analysis,
    analysed: bool,
) -> Result<(Started, Option<Box<Analyzer>>), GameError> {
    let start = set_up(game)?;
    let analyzer =
        analysed.then(|| Box::new(start.as_ref().map_or_else(Analyzer::standard, Analyzer::new)));
    let started = match start {
        None if analysis == Analysis::DEFAULT => Started::Chess(STANDARD_START.clone()),
        None => Started::Chess(Game::with_analysis(Position::default(), analysis)),
        Some(GamePosition::Chess(start)) => Started::Chess(Game::with_analysis(start, analysis)),
        Some(GamePosition::Variant(start)) => Started::Variant(VariantGame::new(start)),
    };
    Ok((started, analyzer))
}

/// Whether checking `game` may give a position the full unwinnability
/// analysis besides its final position's gated look (up to about a second
/// at the default budget): a game lost on time, for the flag fall, or one
/// whose set-up start position is past [`worth_a_full_look`]'s
/// gate. The service checks such games on its blocking pool, as it runs
/// such `ValidateGame` calls. A variant game gets no such analysis: its
/// dead positions are its insufficient material.
///
/// ```
/// use arbiter_pgn::{may_analyse_fully, parse_game};
/// let on_time = parse_game(b"[Termination \"Time forfeit\"]\n\n1. e4 1-0".to_vec());
/// assert!(may_analyse_fully(&on_time));
/// assert!(!may_analyse_fully(&parse_game(b"[Termination \"Normal\"]\n\n1. e4 1-0".to_vec())));
/// let wall = "[SetUp \"1\"]\n[FEN \"8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1\"]\n\n*";
/// assert!(may_analyse_fully(&parse_game(wall.as_bytes().to_vec())));
/// ```
pub fn may_analyse_fully(game: &PgnGame) -> bool {
    match set_up(game) {
        Ok(Some(GamePosition::Variant(_))) => false,
        Ok(Some(GamePosition::Chess(start))) => lost_on_time(game) || worth_a_full_look(&start),
        Ok(None) | Err(_) => lost_on_time(game),
    }
}

/// What validating a readable game found.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Mainline moves accepted.
    pub plies: usize,
    /// The mainline's first illegal move: nothing after it is looked at.
    pub illegal_move: Option<IllegalMove>,
    pub variation_errors: Vec<VariationError>,
    /// The position after the last accepted mainline move.
    pub position: GamePosition,
    pub outcome: Outcome,
    /// The `Result` tag as written, if any.
    pub result_tag: Option<String>,
    /// Whether the tag and the result token agree with each other and with
    /// how the moves ended.
    pub result_consistent: bool,
    /// The clock record against the time control, when the game has a
    /// `TimeControl` tag, a clock comment or a clock finding (and the
    /// options asked for it).
    pub clock: Option<ClockReport>,
    /// What the game of the accepted mainline was, when the options asked
    /// for it ([`CheckOptions::include_analysis`]): found as the mainline
    /// was played, with each ply's time as the clock record gives it.
    /// Boxed: a verdict that has none moves one word for it.
    pub analysis: Option<Box<GameAnalysis>>,
}

/// How games are checked: the unwinnability analysis's budgets and the
/// clock record's tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// The budgets of dead positions' and flag falls' analysis, as the
    /// server's `--unwinnable-nodes` and `--unwinnable-ply-nodes` bound it
    /// for `ValidateGame`.
    pub analysis: Analysis,
    /// How far a clock reading may be from what the record implies before
    /// it is a finding (lichess exports whole seconds): 1 s by default.
    pub clock_tolerance_ms: u64,
    /// Whether to read the clock record ([`Verdict::clock`]): a caller whose
    /// output has no clock (a summary) leaves it unread.
    pub read_clocks: bool,
    /// Whether to say what the game was ([`Verdict::analysis`]): its
    /// opening, its phases and each side's time use. The check feeds the
    /// analysis as it plays the mainline; a check that does not ask pays
    /// nothing for it.
    pub include_analysis: bool,
}

impl CheckOptions {
    /// The default budgets, clocks read with a tolerance of 1 s.
    pub const DEFAULT: CheckOptions = CheckOptions {
        analysis: Analysis::DEFAULT,
        clock_tolerance_ms: 1000,
        read_clocks: true,
        include_analysis: false,
    };
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions::DEFAULT
    }
}

impl Verdict {
    /// Legal moves, a result that agrees, clean side lines.
    pub fn is_valid(&self) -> bool {
        self.illegal_move.is_none() && self.result_consistent && self.variation_errors.is_empty()
    }
}

/// One game's answer: the game as read (canonical SAN filled in), and the
/// verdict or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReport {
    pub index: usize,
    /// Its first line in the input.
    pub line: usize,
    /// The game, unless it was too large to keep.
    pub game: Option<PgnGame>,
    pub verdict: Result<Verdict, GameError>,
}

impl GameReport {
    /// The report on game `index` (first line `line`) of `bytes`, too large
    /// to keep.
    fn too_large(index: usize, line: usize, bytes: u64) -> GameReport {
        GameReport { index, line, game: None, verdict: Err(GameError::TooLarge { bytes }) }
    }
}

/// Whether a `Result` tag and result token fit how the moves ended.
///
/// A tag and a token that disagree, or a tag that is no result, are
/// inconsistent. A game the rules ended (mate, stalemate, dead position,
/// fivefold repetition, 75-move rule, or a flag fall that [`check_parsed`]
/// applied for a `Termination "time forfeit"` tag) must carry that result.
/// A game that did not end so may carry any result: a decisive one is a
/// resignation, a draw an agreement or a claim, `*` unfinished.
///
/// ```
/// use arbiter_chess::{GameResult, Outcome, Termination};
/// use arbiter_pgn::{ResultToken, result_consistent};
/// let mate = Outcome::ended(GameResult::BlackWins, Termination::Checkmate);
/// assert!(result_consistent(Some("0-1"), Some(ResultToken::BlackWins), &mate));
/// assert!(!result_consistent(Some("1/2-1/2"), None, &mate));
/// assert!(result_consistent(Some("1-0"), None, &Outcome::ONGOING));
/// assert!(!result_consistent(Some("1-0"), Some(ResultToken::Ongoing), &Outcome::ONGOING));
/// ```
pub fn result_consistent(tag: Option<&str>, token: Option<ResultToken>, outcome: &Outcome) -> bool {
    let tag = match tag.map(ResultToken::parse) {
        Some(None) => return false,
        Some(Some(tag)) => Some(tag),
        None => None,
    };
    if let (Some(tag), Some(token)) = (tag, token)
        && tag != token
    {
        return false;
    }
    match tag.or(token) {
        Some(stated) if outcome.is_over() => stated.result() == outcome.result,
        _ => true,
    }
}

/// Reads and validates one game as the reader cut it, with the default
/// options.
pub fn check_game(raw: RawGame) -> GameReport {
    check_game_with(raw, true, CheckOptions::DEFAULT)
}

/// [`check_game`], with the mainline's canonical SAN written into the game
/// only when `sans`, and `options` (see [`check_parsed_with`]).
pub fn check_game_with(raw: RawGame, sans: bool, options: CheckOptions) -> GameReport {
    check_raw(raw, sans, options, Proofs::Kept)
}

/// [`check_game_with`] for an output that counts the verdicts and carries
/// no outcome (a summary): a flag fall is analysed only where the game's
/// stated result turns on it, that is where it states the opponent's win
/// (which a proven draw would contradict) or a draw (which only a proven
/// draw bears out). Elsewhere the flagged side loses, marked unproven:
/// never a draw that was not proven. [`Verdict::is_valid`] and
/// [`Verdict::result_consistent`] are as [`check_game_with`] gives them.
///
/// ```
/// use arbiter_pgn::{CheckOptions, GameReader, ReaderOptions, check_game_for_counts};
/// // White, with a bare king, cannot mate: a draw only if proven, and here
/// // the stated result (Black's win) does not turn on it.
/// let text = "[SetUp \"1\"]\n[FEN \"8/8/4k3/8/8/4K3/5p2/8 b - - 0 60\"]\n\
///             [Termination \"Time forfeit\"]\n\n0-1\n";
/// let mut reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
/// let report = check_game_for_counts(reader.next_game().unwrap().unwrap(), CheckOptions::DEFAULT);
/// let verdict = report.verdict.unwrap();
/// assert!(!verdict.result_consistent && verdict.outcome.unproven);
/// ```
pub fn check_game_for_counts(raw: RawGame, options: CheckOptions) -> GameReport {
    check_raw(raw, false, options, Proofs::WhereCounted)
}

/// Whether a flag fall's outcome is proven for the output, or only where
/// the counts of a summary turn on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proofs {
    Kept,
    WhereCounted,
}

fn check_raw(raw: RawGame, sans: bool, options: CheckOptions, proofs: Proofs) -> GameReport {
    // Not through `play_read_game`: the game is checked where it lies, not
    // moved through the steps' structs (half a percent of `arbiter pgn`).
    let (index, line, game) = raw.into_game();
    match game {
        Ok(mut game) => {
            let verdict = play_parsed(&mut game, sans, options)
                .map(|played| played.verdict(&game, options, proofs));
            GameReport { index, line, game: Some(game), verdict }
        }
        Err(bytes) => GameReport::too_large(index, line, bytes),
    }
}

/// [`check_game_with`] in two steps, for a caller that must not be held by
/// a long final look (the service's async workers): the game already read
/// from its [`RawGame`] ([`RawGame::into_game`]'s parts), or the size of
/// one too large to keep, with its mainline played. [`PlayedReport::finish`]
/// looks at the final position and makes the report.
pub fn play_read_game(
    index: usize,
    line: usize,
    game: Result<PgnGame, u64>,
    sans: bool,
    options: CheckOptions,
) -> PlayedReport {
    let game = game.map(|mut game| {
        let played = play_parsed(&mut game, sans, options);
        (game, played)
    });
    PlayedReport { index, line, game, options }
}

/// A game whose mainline is played, before the final position's look: see
/// [`play_read_game`].
#[derive(Debug)]
pub struct PlayedReport {
    index: usize,
    line: usize,
    game: Result<(PgnGame, Result<PlayedGame, GameError>), u64>,
    options: CheckOptions,
}

impl PlayedReport {
    /// Whether [`PlayedReport::finish`] may run the full dead-position
    /// analysis of the final position (up to about a second at the default
    /// budget; see [`Game::final_look_pending`]). A flag fall's analysis is
    /// not counted here: [`may_analyse_fully`] says which games may have it.
    pub fn final_look_pending(&self) -> bool {
        matches!(&self.game, Ok((_, Ok(played))) if played.final_look_pending())
    }

    /// The report: the final position's outcome, the result and the clocks.
    pub fn finish(self) -> GameReport {
        let PlayedReport { index, line, game, options } = self;
        match game {
            Ok((game, played)) => {
                let verdict = played.map(|played| played.verdict(&game, options, Proofs::Kept));
                GameReport { index, line, game: Some(game), verdict }
            }
            Err(bytes) => GameReport::too_large(index, line, bytes),
        }
    }
}

/// Validates a parsed game, writing each legal move's canonical SAN into it.
///
/// # Errors
///
/// A [`GameError`] when the game cannot be validated at all (bad `FEN`
/// tag, a variant that cannot be played).
pub fn check_parsed(game: &mut PgnGame) -> Result<Verdict, GameError> {
    check_parsed_with(game, true, CheckOptions::DEFAULT)
}

/// [`check_parsed`], writing the mainline's canonical SAN into the game
/// only when `sans` (the canonical export needs it; the JSON and the
/// summary do not). Side lines always get theirs. The verdict is the same
/// either way. `options.analysis` bounds the unwinnability analysis of
/// dead positions and of a flag fall; the clock record is read with
/// `options.clock_tolerance_ms` ([`clock_report`]).
///
/// # Errors
///
/// As [`check_parsed`].
pub fn check_parsed_with(
    game: &mut PgnGame,
    sans: bool,
    options: CheckOptions,
) -> Result<Verdict, GameError> {
    play_parsed(game, sans, options).map(|played| played.verdict(game, options, Proofs::Kept))
}

/// A game's mainline played under its rules, before the final position's
/// outcome.
#[derive(Debug)]
struct PlayedGame {
    mainline: Mainline,
    /// The side to move at the start.
    turn: Color,
    /// The side whose flag fell, if the game was lost on time and every
    /// mainline move is legal.
    flagged: Option<Color>,
    played: Started,
    /// The analysis of the mainline's accepted moves, when asked for,
    /// waiting for their times (boxed: a check that does not ask moves
    /// one word for it).
    analyzer: Option<Box<Analyzer>>,
}

/// Plays the mainline of `game` as [`check_parsed_with`] does.
fn play_parsed(
    game: &mut PgnGame,
    sans: bool,
    options: CheckOptions,
) -> Result<PlayedGame, GameError> {
    let (started, analyzer) = start_game(game, options.analysis, options.include_analysis)?;
    let turn = match &started {
        Started::Chess(played) => played.position().turn(),
        Started::Variant(played) => played.position().turn(),
    };
    let (mainline, played, analyzer) = match started {
        Started::Chess(played) => {
            let (mainline, played, analyzer) = watch_mainline(game, played, sans, analyzer);
            (mainline, Started::Chess(played), analyzer)
        }
        Started::Variant(played) => {
            let (mainline, played, analyzer) = watch_mainline(game, played, sans, analyzer);
            (mainline, Started::Variant(played), analyzer)
        }
    };
    // As `ValidateGame` answers: a game lost on time ends with the flag
    // fall of the side to move, whose clock was the one running (FIDE 6.9:
    // a draw when the opponent cannot mate), unless a move was illegal.
    let flagged = flagged_side(game, turn).filter(|_| mainline.illegal_move.is_none());
    Ok(PlayedGame { mainline, turn, flagged, played, analyzer })
}

impl PlayedGame {
    /// Whether [`PlayedGame::verdict`] may give the final position the full
    /// dead-position analysis.
    fn final_look_pending(&self) -> bool {
        match &self.played {
            Started::Chess(played) => played.final_look_pending(self.mainline.plies > 0),
            // A variant's dead positions are its insufficient material.
            Started::Variant(_) => false,
        }
    }

    /// The verdict on `game`, whose mainline this is.
    fn verdict(self, game: &PgnGame, options: CheckOptions, proofs: Proofs) -> Verdict {
        let PlayedGame { mainline, turn, flagged, played, analyzer } = self;
        let (position, outcome) = match played {
            Started::Chess(played) => {
                // The final position gets the full dead-position analysis.
                let moved = mainline.plies > 0;
                let outcome = match flagged {
                    Some(flagged) if proofs == Proofs::Kept || flag_fall_counts(game, flagged) => {
                        played.final_outcome_after_flag_fall(moved, flagged)
                    }
                    Some(flagged) => {
                        let outcome = played.final_outcome(moved);
                        if outcome.is_over() { outcome } else { unproven_loss(flagged) }
                    }
                    None => played.final_outcome(moved),
                };
                (GamePosition::Chess(played.position().clone()), outcome)
            }
            // A variant's dead positions are its insufficient material,
            // which also decides a flag fall.
            Started::Variant(played) => {
                let outcome = played.final_outcome(flagged);
                (GamePosition::Variant(played.position().clone()), outcome)
            }
        };
        let Mainline { plies, illegal_move, variation_errors } = mainline;
        let result_tag = game.tag("Result").map(Cow::into_owned);
        let result_consistent =
            result_consistent(result_tag.as_deref(), game.result_token, &outcome);
        // The analysis needs the plies' times even where the clock is not
        // reported.
        let clock = (options.read_clocks || analyzer.is_some())
            .then(|| clock_report(game, plies, turn, options.clock_tolerance_ms))
            .flatten();
        let analysis =
            analyzer.map(|analyzer| Box::new(finish_analysis(*analyzer, clock.as_ref())));
        let clock = clock.filter(|_| options.read_clocks);
        Verdict {
            plies,
            illegal_move,
            variation_errors,
            position,
            outcome,
            result_tag,
            result_consistent,
            clock,
            analysis,
        }
    }
}

/// Whether `game`'s stated result (its `Result` tag, else its result
/// token) turns on whether `flagged`'s opponent can mate: it states that
/// opponent's win or a draw. Against any other (none, `flagged`'s win,
/// `*`) a flag fall's outcome is inconsistent, or never looked at,
/// whatever the analysis would say.
fn flag_fall_counts(game: &PgnGame, flagged: Color) -> bool {
    let tag = game.tag("Result");
    let stated = match tag.as_deref().map(ResultToken::parse) {
        // An unreadable tag is inconsistent with any outcome.
        Some(None) => return false,
        Some(Some(tag)) => Some(tag),
        None => game.result_token,
    };
    let opponent_wins = flagged.fold(ResultToken::BlackWins, ResultToken::WhiteWins);
    matches!(stated, Some(stated) if stated == opponent_wins || stated == ResultToken::Draw)
}

/// A flag fall's outcome without the analysis: `flagged` loses, unproven.
fn unproven_loss(flagged: Color) -> Outcome {
    let winner = flagged.fold(GameResult::BlackWins, GameResult::WhiteWins);
    Outcome { unproven: true, ..Outcome::ended(winner, Termination::Timeout) }
}

/// What replaying a game's mainline found.
#[derive(Debug)]
struct Mainline {
    plies: usize,
    illegal_move: Option<IllegalMove>,
    variation_errors: Vec<VariationError>,
}

/// [`check_mainline`], feeding `analyzer`, if any, each accepted move.
// One loop for both: a second copy of it, the analysed one, made
// `play_parsed` call the move's own code out of line (3 % more
// instructions for a game that asks for no analysis); one branch a ply
// costs a tenth of that.
#[inline(always)]
fn watch_mainline<G: PlaysText>(
    game: &mut PgnGame,
    played: G,
    sans: bool,
    analyzer: Option<Box<Analyzer>>,
) -> (Mainline, G, Option<Box<Analyzer>>) {
    let mut watch = analyzer.map(|analyzer| PlyWatch::new(analyzer, &game.mainline.moves, &played));
    let (mainline, played) = check_mainline(game, played, sans, &mut watch);
    (mainline, played, watch.map(PlyWatch::into_analyzer))
}

/// Replays the mainline of `game` in `played`, writing each move's
/// canonical SAN into it when `sans`, and checks its side lines; the game
/// after the last legal move. `watch` sees each accepted mainline move.
// Inlined into each of its two callers: out of line, the loop's code for
// chess costs about 2 % more of an `arbiter pgn` run.
#[inline(always)]
fn check_mainline<G: PlaysText, W: MainlineWatch<G>>(
    game: &mut PgnGame,
    mut played: G,
    sans: bool,
    watch: &mut W,
) -> (Mainline, G) {
    let PgnGame { text, mainline, syntax_errors, .. } = game;
    let mut variation_errors = syntax_errors.clone();
    let mut path = Vec::new();
    let mut plies = 0;
    let mut illegal_move = None;
    // Move by move as `ValidateGame` replays a list (see
    // [`arbiter_chess::Replayer::extend`]); the side lines of a move
    // are checked from the position before it, and only when the move is
    // legal: nothing after the mainline's first illegal move is.
    for (index, node) in mainline.moves.iter_mut().enumerate() {
        // The token's bytes: the readers take them as they are, and only a
        // message reads them as text.
        let mv = node.text.bytes(text);
        let before = (!node.variations().is_empty()).then(|| played.clone());
        match played.play(mv, sans) {
            Ok(san) => {
                node.san = san;
                plies += 1;
                watch.played(&played);
            }
            Err(Illegal { reason, message }) => {
                let text = echo(mv.text()).into_owned();
                illegal_move = Some(IllegalMove { index, text, reason, message });
                break;
            }
        }
        if let Some(before) = before {
            path.clear();
            let variations = node.variations_mut();
            check_variations(text, variations, index, &before, &mut path, &mut variation_errors);
        }
    }
    (Mainline { plies, illegal_move, variation_errors }, played)
}

/// The side whose flag fell, when the `Termination` tag says that the game
/// was lost on time (`time forfeit` in the PGN standard, any case; lichess
/// writes `Time forfeit`): the side to move after the mainline from a start
/// with `turn` to move, whose clock was running. Its flag fall counts only
/// when every mainline move is legal.
///
/// ```
/// use arbiter_chess::Color;
/// use arbiter_pgn::{flagged_side, parse_game};
/// let game = parse_game(b"[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Nf3 1-0".to_vec());
/// assert_eq!(flagged_side(&game, Color::White), Some(Color::Black));
/// let game = parse_game(b"[Termination \"Normal\"]\n\n1. e4 e5 2. Nf3 1-0".to_vec());
/// assert_eq!(flagged_side(&game, Color::White), None);
/// ```
pub fn flagged_side(game: &PgnGame, turn: Color) -> Option<Color> {
    lost_on_time(game)
        .then(|| if game.mainline.moves.len().is_multiple_of(2) { turn } else { !turn })
}

/// Checks the variations replacing move `ply` of a line, each from `before`.
fn check_variations<G: PlaysText>(
    text: &[u8],
    variations: &mut [Line],
    ply: usize,
    before: &G,
    path: &mut Vec<u32>,
    errors: &mut Vec<VariationError>,
) {
    for (number, variation) in variations.iter_mut().enumerate() {
        path.extend([ply as u32, number as u32]);
        check_line(text, variation, before.clone(), path, errors);
        path.truncate(path.len() - 2);
    }
}

/// Plays a variation from `game`, up to its first illegal move.
fn check_line<G: PlaysText>(
    text: &[u8],
    line: &mut Line,
    mut game: G,
    path: &mut Vec<u32>,
    errors: &mut Vec<VariationError>,
) {
    for (index, node) in line.moves.iter_mut().enumerate() {
        let before = (!node.variations().is_empty()).then(|| game.clone());
        let mv = node.text.bytes(text);
        match game.play(mv, true) {
            Ok(san) => node.san = san,
            Err(Illegal { reason, message }) => {
                errors.push(VariationError {
                    path: path.clone(),
                    index,
                    text: mv.text().to_owned(),
                    reason: VariationReason::Illegal(reason),
                    message,
                });
                return;
            }
        }
        if let Some(before) = before {
            check_variations(text, node.variations_mut(), index, &before, path, errors);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_game;
    use arbiter_chess::IllegalReason;
    use arbiter_chess::{GameResult, Outcome, Termination};

    fn check(text: &str) -> (PgnGame, Result<Verdict, GameError>) {
        let mut game = parse_game(text.as_bytes().to_vec());
        let verdict = check_parsed(&mut game);
        (game, verdict)
    }

    #[test]
    fn a_mate_fits_only_its_own_result() {
        let (game, verdict) = check("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4 0-1");
        let verdict = verdict.unwrap();
        assert_eq!(verdict.plies, 4);
        assert_eq!(verdict.outcome.termination, Some(Termination::Checkmate));
        assert!(verdict.result_consistent && verdict.is_valid());
        assert_eq!(game.mainline.moves[3].san.unwrap(), "Qh4#");
        let (_, verdict) = check("[Result \"1/2-1/2\"]\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2");
        assert!(!verdict.unwrap().result_consistent);
        let (_, verdict) = check("[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1");
        assert!(!verdict.unwrap().result_consistent);
    }

    #[test]
    fn an_unfinished_game_may_end_by_resignation_or_agreement() {
        for result in ["1-0", "0-1", "1/2-1/2", "*"] {
            let (_, verdict) = check(&format!("[Result \"{result}\"]\n\n1. e4 e5 {result}"));
            assert!(verdict.unwrap().result_consistent, "{result}");
        }
        let (_, verdict) = check("[Result \"white won\"]\n\n1. e4 e5");
        assert!(!verdict.unwrap().result_consistent);
    }

    #[test]
    fn a_stalemate_or_dead_position_is_a_draw() {
        // Stalemate: black king a8, white queen b6, white king c1... after Qb6.
        let (_, verdict) =
            check("[FEN \"k7/8/8/2Q5/8/8/8/2K5 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Qb6 1-0");
        let verdict = verdict.unwrap();
        assert_eq!(verdict.outcome.termination, Some(Termination::Stalemate));
        assert!(!verdict.result_consistent);
        let (_, verdict) = check(
            "[FEN \"k7/8/8/8/8/8/1r6/K7 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1. Kxb2 1/2-1/2",
        );
        let verdict = verdict.unwrap();
        assert_eq!(verdict.outcome.termination, Some(Termination::InsufficientMaterial));
        assert!(verdict.result_consistent);
    }

    #[test]
    fn a_flag_fall_against_a_side_that_cannot_mate_is_a_draw() {
        // After 1. Kd3 Black is to move: it is Black's flag that falls, and
        // White's bare king cannot mate.
        let game = |result: &str, termination: &str| {
            check(&format!(
                "[FEN \"8/8/4k3/8/8/4K3/5p2/8 w - - 0 60\"]\n[Result \"{result}\"]\n\
                 [Termination \"{termination}\"]\n\n1. Kd3 {result}"
            ))
            .1
            .unwrap()
        };
        let verdict = game("1-0", "Time forfeit");
        assert_eq!(verdict.outcome.termination, Some(Termination::TimeoutVsUnwinnable));
        assert_eq!(verdict.outcome.result, GameResult::Draw);
        assert!(!verdict.result_consistent && !verdict.is_valid());
        for termination in ["Time forfeit", "time forfeit", " TIME FORFEIT "] {
            assert!(game("1/2-1/2", termination).result_consistent, "{termination}");
        }
        assert!(!game("0-1", "Time forfeit").result_consistent);
        // Without the tag, a decisive result is a resignation.
        let verdict = game("1-0", "Normal");
        assert_eq!(verdict.outcome, Outcome::ONGOING);
        assert!(verdict.result_consistent);
    }

    #[test]
    fn a_flag_fall_against_a_side_that_can_mate_loses() {
        let game = |result: &str| {
            check(&format!(
                "[FEN \"8/8/4k3/8/8/4K3/5P2/8 w - - 0 60\"]\n[Result \"{result}\"]\n\
                 [Termination \"Time forfeit\"]\n\n1. Kd3 {result}"
            ))
            .1
            .unwrap()
        };
        let verdict = game("1-0");
        assert_eq!(verdict.outcome.termination, Some(Termination::Timeout));
        assert_eq!(verdict.outcome.result, GameResult::WhiteWins);
        assert!(verdict.result_consistent && verdict.is_valid());
        assert!(!game("1/2-1/2").result_consistent);
        // A game the rules ended first keeps that ending: here a mate.
        let (_, verdict) =
            check("[Result \"0-1\"]\n[Termination \"Time forfeit\"]\n\n1. f3 e5 2. g4 Qh4 0-1");
        let verdict = verdict.unwrap();
        assert_eq!(verdict.outcome.termination, Some(Termination::Checkmate));
        assert!(verdict.result_consistent);
        // After an illegal move, no flag falls: the game is judged on the
        // moves before it, which did not end it.
        let (_, verdict) =
            check("[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n\n1. e4 Ke6 1-0");
        let verdict = verdict.unwrap();
        assert!(verdict.illegal_move.is_some());
        assert_eq!(verdict.outcome, Outcome::ONGOING);
    }

    #[test]
    fn an_illegal_move_stops_the_game_and_its_later_side_lines() {
        let (game, verdict) = check("1. e4 e5 (1... Nf6 2. Ke3) 2. Ke3 (2. Nf3 Nc6) Nc6 *");
        let verdict = verdict.unwrap();
        let illegal = verdict.illegal_move.as_ref().unwrap();
        assert_eq!((illegal.index, illegal.text.as_str()), (2, "Ke3"));
        assert_eq!(verdict.plies, 2);
        // The side line before the illegal move is checked, the one at it not.
        assert_eq!(verdict.variation_errors.len(), 1);
        let error = &verdict.variation_errors[0];
        assert_eq!(
            (error.path.as_slice(), error.index, error.text.as_str()),
            (&[1, 0][..], 1, "Ke3")
        );
        assert_eq!(error.reason, VariationReason::Illegal(IllegalReason::NoPiece));
        assert_eq!(game.mainline.moves[1].variations()[0].moves[0].san.unwrap(), "Nf6");
        assert!(game.mainline.moves[2].variations()[0].moves[0].san.is_none());
    }

    #[test]
    fn a_bad_side_line_leaves_the_mainline_whole() {
        let (game, verdict) =
            check("1. e4 (1. e5) (1. d4 d5 (1... Nf6 2. c4 (2. Bxf7)) 2. c4) e5 2. Nf3 *");
        let verdict = verdict.unwrap();
        assert!(verdict.illegal_move.is_none());
        assert_eq!(verdict.plies, 3);
        let paths: Vec<&[u32]> =
            verdict.variation_errors.iter().map(|e| e.path.as_slice()).collect();
        assert_eq!(paths, [&[0, 0][..], &[0, 1, 1, 0, 1, 0]]);
        let nested = &game.mainline.moves[0].variations()[1].moves[1].variations()[0];
        assert_eq!(nested.moves[1].san.unwrap(), "c4");
        assert!(!verdict.is_valid());
    }

    #[test]
    fn tags_that_make_a_game_unreadable() {
        let (_, verdict) =
            check("[Variant \"Fischerandom\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*");
        assert!(matches!(verdict, Err(GameError::InvalidFen { .. })));
        let (_, verdict) = check("[Variant \"Bughouse\"]\n\n1. e4 *");
        assert!(matches!(verdict, Err(GameError::UnknownVariant { .. })));
        let (_, verdict) = check("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*");
        assert_eq!(verdict.unwrap_err().reason(), "INVALID_FEN");
        let (_, verdict) = check("[SetUp \"1\"]\n\n*");
        assert_eq!(verdict.unwrap_err(), GameError::MissingFen);
    }

    /// Checks a game of `variant` from its start, or from `fen`.
    fn variant_game(variant: &str, fen: Option<&str>, result: &str, moves: &str) -> Verdict {
        let fen = fen.map(|fen| format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")).unwrap_or_default();
        let text =
            format!("[Variant \"{variant}\"]\n{fen}[Result \"{result}\"]\n\n{moves} {result}");
        let (game, verdict) = check(&text);
        let verdict = verdict.unwrap_or_else(|e| panic!("{variant}: {e}"));
        let sans = game.mainline.moves.iter().filter_map(|m| m.san).count();
        assert_eq!(sans, verdict.plies, "{variant}");
        verdict
    }

    #[test]
    fn a_crazyhouse_game_drops_pieces() {
        let verdict = variant_game(
            "Crazyhouse",
            None,
            "*",
            "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 @e4 5. Nxe4",
        );
        assert!(verdict.is_valid());
        assert_eq!(verdict.plies, 9);
        let GamePosition::Variant(pos) = &verdict.position else { panic!("not a variant") };
        assert_eq!((pos.pocket(Color::White).total(), pos.pocket(Color::Black).total()), (1, 0));
        assert!(verdict.position.fen().contains("[P]"), "{}", verdict.position);
        // Only pieces in hand, and only on an empty square.
        let drop = |moves: &str| {
            let illegal = variant_game("crazyhouse", None, "*", moves).illegal_move.unwrap();
            (illegal.index, illegal.reason)
        };
        assert_eq!(drop("1. e4 d5 2. exd5 N@f6"), (3, IllegalReason::NoPiece));
        assert_eq!(drop("1. e4 d5 2. exd5 Qxd5 3. P@d5"), (4, IllegalReason::InvalidDrop));
    }

    #[test]
    fn an_atomic_capture_explodes_the_king() {
        let verdict = variant_game("Atomic", None, "1-0", "1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7");
        assert_eq!(verdict.outcome.termination, Some(Termination::Explosion));
        assert_eq!(verdict.outcome.result, GameResult::WhiteWins);
        assert!(verdict.is_valid());
        // The result must be the explosion's.
        let verdict =
            variant_game("Atomic", None, "1/2-1/2", "1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7");
        assert!(!verdict.result_consistent);
    }

    #[test]
    fn antichess_forces_captures_and_kings_are_pieces() {
        let verdict = variant_game("Antichess", None, "*", "1. e3 b5 2. Nf3");
        let illegal = verdict.illegal_move.unwrap();
        assert_eq!((illegal.index, illegal.reason), (2, IllegalReason::CaptureRequired));
        let (_, verdict) = check(
            "[Variant \"Antichess\"]\n[FEN \"6n1/8/8/8/4P3/8/8/8 w - - 0 1\"]\n\n1. e5 Nf6 2. exf6 0-1",
        );
        let verdict = verdict.unwrap();
        assert_eq!(verdict.outcome.termination, Some(Termination::VariantWin));
        assert!(verdict.result_consistent);
    }

    #[test]
    fn the_hill_the_third_check_and_the_race_end_games() {
        let verdict =
            variant_game("King of the Hill", None, "1-0", "1. e3 e6 2. Ke2 Ke7 3. Kd3 Kd6 4. Kd4");
        assert_eq!(verdict.outcome.termination, Some(Termination::KingOfTheHill));
        assert!(verdict.is_valid());
        let verdict = variant_game(
            "Three-check",
            None,
            "1-0",
            "1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 4. Qh5+ Ke7 5. Qxe5+",
        );
        assert_eq!(verdict.outcome.termination, Some(Termination::ThirdCheck));
        assert!(verdict.is_valid());
        assert!(verdict.position.fen().contains("0+3"), "{}", verdict.position);
        let verdict =
            variant_game("Racing Kings", Some("8/6K1/8/8/8/8/k7/8 w - - 0 1"), "1-0", "1. Kg8");
        assert_eq!(verdict.outcome.termination, Some(Termination::Race));
        assert!(verdict.is_valid());
    }

    #[test]
    fn horde_games_start_from_the_horde() {
        let verdict = variant_game("Horde", None, "*", "1. e5 d6 2. exd6 cxd6 3. a5");
        assert!(verdict.is_valid());
        assert_eq!(verdict.plies, 5);
        let (_, verdict) =
            check("[Variant \"Horde\"]\n[FEN \"4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1\"]\n\n*");
        let error = verdict.unwrap_err();
        assert!(matches!(error, GameError::InvalidVariantFen { .. }), "{error}");
        assert_eq!(error.reason(), "INVALID_FEN");
    }

    #[test]
    fn a_variant_flag_fall_follows_the_variant_material_rule() {
        // Black's flag falls: a bare king cannot win, a queen can.
        let game = |fen: &str, result: &str| {
            check(&format!(
                "[Variant \"Three-check\"]\n[FEN \"{fen}\"]\n[Result \"{result}\"]\n\
                 [Termination \"Time forfeit\"]\n\n1. Kd1 {{[%clk 0:00:05]}} {result}"
            ))
            .1
            .unwrap()
        };
        let verdict = game("4k2n/8/8/8/8/8/8/4K3 w - - 3+3 0 1", "1/2-1/2");
        assert_eq!(verdict.outcome.termination, Some(Termination::TimeoutVsUnwinnable));
        assert!(verdict.result_consistent);
        assert!(verdict.clock.is_some());
        let verdict = game("4k3/8/8/8/8/8/8/Q3K3 w - - 3+3 0 1", "1-0");
        assert_eq!(verdict.outcome.termination, Some(Termination::Timeout));
        assert!(verdict.result_consistent);
    }
}
