//! Validating a game read from PGN: the start position from its tags, the
//! mainline replayed exactly as `ValidateGame` replays a move list, every
//! variation from its own position, and whether the `Result` tag agrees with
//! how the moves ended.

use std::borrow::Cow;
use std::sync::LazyLock;

use thiserror::Error;

use super::clock::{ClockReport, clock_report, lost_on_time};
use super::parse::{Line, PgnGame};
use super::reader::RawGame;
pub use super::terms::{ResultToken, VariationError, VariationReason};
use arbiter_chess::{
    Analysis, CastlingMode, Color, FenError, Game, Illegal, IllegalMove, Notation, Outcome,
    Position, echo, worth_a_full_look,
};

/// The game a `Variant` tag names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Standard,
    Chess960,
}

/// Why a game cannot be validated at all.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GameError {
    #[error("game of {bytes} bytes is over the size limit")]
    TooLarge { bytes: u64 },
    #[error("FEN tag {fen:?}: {error}")]
    InvalidFen { fen: String, error: FenError },
    #[error("SetUp tag is 1 but there is no FEN tag")]
    MissingFen,
    #[error("unknown variant {name:?}")]
    UnknownVariant { name: String },
}

impl GameError {
    /// A stable machine-readable name.
    pub const fn reason(&self) -> &'static str {
        match self {
            GameError::TooLarge { .. } => "GAME_TOO_LARGE",
            GameError::InvalidFen { .. } => "INVALID_FEN",
            GameError::MissingFen => "MISSING_FEN",
            GameError::UnknownVariant { .. } => "UNKNOWN_VARIANT",
        }
    }
}

/// The variant a `Variant` tag names: Chess960 in any of the spellings in
/// use (`Chess960`, `chess 960`, `Fischerandom`, `Fischer Random` ...), the
/// standard game by its usual names, any case.
///
/// # Errors
///
/// [`GameError::UnknownVariant`] for any other variant.
pub fn variant_of(tag: &str) -> Result<Variant, GameError> {
    let key: String =
        tag.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    match key.as_str() {
        "" | "standard" | "chess" | "normal" | "standardchess" | "fromposition" => {
            Ok(Variant::Standard)
        }
        "chess960"
        | "960"
        | "fischerandom"
        | "fischerrandom"
        | "fischerrandomchess"
        | "frc"
        | "chess960fischerandom" => Ok(Variant::Chess960),
        _ => Err(GameError::UnknownVariant { name: tag.to_owned() }),
    }
}

/// The start position of `game` from its `Variant`, `SetUp` and `FEN` tags.
///
/// This is the one place that decides which variants can be replayed. A
/// Chess960 game reads its FEN tag as X-FEN or Shredder-FEN; without one it
/// starts from the standard array (position 518), as the service does.
///
/// # Errors
///
/// A [`GameError`] for a variant that cannot be played, a bad `FEN` tag or
/// a `SetUp` tag without one.
pub fn start_position(game: &PgnGame) -> Result<Position, GameError> {
    Ok(set_up(game)?.unwrap_or_default())
}

/// The start position of `game` as [`start_position`] reads it, `None`
/// for the standard one.
fn set_up(game: &PgnGame) -> Result<Option<Position>, GameError> {
    let variant = game.tag("Variant").map_or(Ok(Variant::Standard), |v| variant_of(&v))?;
    let mode = match variant {
        Variant::Standard => CastlingMode::Standard,
        Variant::Chess960 => CastlingMode::Chess960,
    };
    match game.tag("FEN") {
        Some(fen) => Position::from_fen(fen.trim(), mode)
            .map(Some)
            .map_err(|error| GameError::InvalidFen { fen: fen.into_owned(), error }),
        None if game.tag("SetUp").as_deref() == Some("1") => Err(GameError::MissingFen),
        None => Ok(match mode {
            CastlingMode::Standard => None,
            CastlingMode::Chess960 => {
                Some(Position::chess960_start(518).expect("518 is a Scharnagl number"))
            }
        }),
    }
}

/// The game from the standard start, as most games begin: set up once
/// (the position, and the looks for mate, stalemate and a dead position
/// that every game gets at its start), and copied for each game checked
/// with the default budgets.
static STANDARD_START: LazyLock<Game> =
    LazyLock::new(|| Game::with_analysis(Position::default(), Analysis::DEFAULT));

/// The game at the start of `game`, to replay its moves in with the
/// budgets of `analysis`.
fn start_game(game: &PgnGame, analysis: Analysis) -> Result<Game, GameError> {
    Ok(match set_up(game)? {
        None if analysis == Analysis::DEFAULT => STANDARD_START.clone(),
        None => Game::with_analysis(Position::default(), analysis),
        Some(start) => Game::with_analysis(start, analysis),
    })
}

/// Whether checking `game` may give a position the full unwinnability
/// analysis besides its final position's gated look (up to about a second
/// at the default budget): a game lost on time, for the flag fall, or one
/// whose set-up start position is past [`worth_a_full_look`]'s
/// gate. The service checks such games on its blocking pool, as it runs
/// such `ValidateGame` calls.
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
    lost_on_time(game) || set_up(game).ok().flatten().is_some_and(|start| worth_a_full_look(&start))
}

/// What validating a readable game found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Mainline moves accepted.
    pub plies: usize,
    /// The mainline's first illegal move: nothing after it is looked at.
    pub illegal_move: Option<IllegalMove>,
    pub variation_errors: Vec<VariationError>,
    /// The position after the last accepted mainline move.
    pub position: Position,
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
}

impl CheckOptions {
    /// The default budgets, clocks read with a tolerance of 1 s.
    pub const DEFAULT: CheckOptions =
        CheckOptions { analysis: Analysis::DEFAULT, clock_tolerance_ms: 1000, read_clocks: true };
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    pub index: usize,
    /// Its first line in the input.
    pub line: usize,
    /// The game, unless it was too large to keep.
    pub game: Option<PgnGame>,
    pub verdict: Result<Verdict, GameError>,
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
    let (index, line, game) = raw.into_game();
    check_read_game(index, line, game, sans, options)
}

/// [`check_game_with`] for a game already read from its [`RawGame`]
/// ([`RawGame::into_game`]'s parts), or the size of one too large to keep.
pub fn check_read_game(
    index: usize,
    line: usize,
    game: Result<PgnGame, u64>,
    sans: bool,
    options: CheckOptions,
) -> GameReport {
    match game {
        Ok(mut game) => {
            let verdict = check_parsed_with(&mut game, sans, options);
            GameReport { index, line, game: Some(game), verdict }
        }
        Err(bytes) => {
            GameReport { index, line, game: None, verdict: Err(GameError::TooLarge { bytes }) }
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
    let mut played = start_game(game, options.analysis)?;
    let turn = played.position().turn();
    let flagged = flagged_side(game, played.position());
    let PgnGame { text, mainline, result_token, syntax_errors, .. } = game;
    // Checked as UTF-8 once: moves are cut at ASCII delimiters, so each is
    // a slice of it on character boundaries.
    let whole = std::str::from_utf8(text).ok();
    let mut variation_errors = syntax_errors.clone();
    let mut path = Vec::new();
    let mut plies = 0;
    let mut illegal_move = None;
    // Move by move as `ValidateGame` replays a list (see
    // [`arbiter_chess::Replayer::extend`]); the side lines of a move
    // are checked from the position before it, and only when the move is
    // legal: nothing after the mainline's first illegal move is.
    for (index, node) in mainline.moves.iter_mut().enumerate() {
        let (start, end) = (node.text.start as usize, (node.text.start + node.text.len) as usize);
        let mv = whole
            .and_then(|w| w.get(start..end))
            .unwrap_or_else(|| move_text(node.text.bytes(text)));
        let before = (!node.variations().is_empty()).then(|| played.clone());
        let result = if sans {
            played.play_text(mv, Notation::Auto, false).map(|p| Some(p.san))
        } else {
            played.play_text_quietly(mv, Notation::Auto).map(|_| None)
        };
        match result {
            Ok(san) => {
                node.san = san;
                plies += 1;
            }
            Err(Illegal { reason, message }) => {
                let text = echo(mv).into_owned();
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
    // As `ValidateGame` answers: the final position gets the full
    // dead-position analysis, and a game lost on time the flag fall of the
    // side to move, whose clock was the one running (FIDE 6.9: a draw when
    // the opponent cannot mate), unless a move was illegal.
    let outcome = match flagged {
        Some(flagged) if illegal_move.is_none() => {
            played.final_outcome_after_flag_fall(plies > 0, flagged)
        }
        _ => played.final_outcome(plies > 0),
    };
    let result_token = *result_token;
    let result_tag = game.tag("Result").map(Cow::into_owned);
    let result_consistent = result_consistent(result_tag.as_deref(), result_token, &outcome);
    let clock = options
        .read_clocks
        .then(|| clock_report(game, plies, turn, options.clock_tolerance_ms))
        .flatten();
    Ok(Verdict {
        plies,
        illegal_move,
        variation_errors,
        position: played.position().clone(),
        outcome,
        result_tag,
        result_consistent,
        clock,
    })
}

/// The side whose flag fell, when the `Termination` tag says that the game
/// was lost on time (`time forfeit` in the PGN standard, any case; lichess
/// writes `Time forfeit`): the side to move after the mainline from
/// `start`, whose clock was running. Its flag fall counts only when every
/// mainline move is legal.
///
/// ```
/// use arbiter_chess::{Color, Position};
/// use arbiter_pgn::{flagged_side, parse_game};
/// let game = parse_game(b"[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Nf3 1-0".to_vec());
/// assert_eq!(flagged_side(&game, &Position::default()), Some(Color::Black));
/// let game = parse_game(b"[Termination \"Normal\"]\n\n1. e4 e5 2. Nf3 1-0".to_vec());
/// assert_eq!(flagged_side(&game, &Position::default()), None);
/// ```
pub fn flagged_side(game: &PgnGame, start: &Position) -> Option<Color> {
    let turn = start.turn();
    lost_on_time(game)
        .then(|| if game.mainline.moves.len().is_multiple_of(2) { turn } else { !turn })
}

/// A move's text as the replay takes it: non-UTF-8 bytes can be no move.
fn move_text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("\u{fffd}")
}

/// Checks the variations replacing move `ply` of a line, each from `before`.
fn check_variations(
    text: &[u8],
    variations: &mut [Line],
    ply: usize,
    before: &Game,
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
fn check_line(
    text: &[u8],
    line: &mut Line,
    mut game: Game,
    path: &mut Vec<u32>,
    errors: &mut Vec<VariationError>,
) {
    for (index, node) in line.moves.iter_mut().enumerate() {
        let before = (!node.variations().is_empty()).then(|| game.clone());
        let mv = move_text(node.text.bytes(text));
        match game.play_text(mv, Notation::Auto, false) {
            Ok(played) => node.san = Some(played.san),
            Err(Illegal { reason, message }) => {
                errors.push(VariationError {
                    path: path.clone(),
                    index,
                    text: mv.to_owned(),
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
        let (_, verdict) = check("[Variant \"Crazyhouse\"]\n\n1. e4 *");
        assert!(matches!(verdict, Err(GameError::UnknownVariant { .. })));
        let (_, verdict) = check("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*");
        assert_eq!(verdict.unwrap_err().reason(), "INVALID_FEN");
        let (_, verdict) = check("[SetUp \"1\"]\n\n*");
        assert_eq!(verdict.unwrap_err(), GameError::MissingFen);
        for name in ["chess960", "Chess 960", "FISCHERRANDOM", "fischer random", "Chess960"] {
            assert_eq!(variant_of(name), Ok(Variant::Chess960), "{name}");
        }
        for name in ["Standard", "From Position", "chess"] {
            assert_eq!(variant_of(name), Ok(Variant::Standard), "{name}");
        }
    }
}
