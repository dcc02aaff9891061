//! Lichess's variants against independent data: scalachess's variant perft
//! files and shakmaty's zobrist.csv move sequences (from the shared data
//! directory, skipped without it), python-chess's SAN, FEN and outcomes of
//! random games (`data/variants.py`), and a differential test against
//! shakmaty's variants on positions reached by seeded random play: legal
//! move sets, SAN, UCI, FEN, perft(2), outcomes and each side's
//! insufficient material.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use arbiter_chess::{
    CastlingMode, Color, FenError, GamePosition, GameResult, PositionError, Variant,
    VariantFenError, VariantPosition,
};
use arbiter_chess::{VariantEnd, VariantGame};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::variant::{Variant as TheirVariant, VariantPosition as TheirPosition};
use shakmaty::{EnPassantMode, KnownOutcome, Outcome, Position as _};

use crate::common::variants::python_chess_games;
use crate::common::{self, PerftCase, TestResult};

/// The scalachess perft files and their variants.
const PERFT_FILES: [(&str, Variant); 6] = [
    ("perft/scalachess/3check.perft", Variant::ThreeCheck),
    ("perft/scalachess/antichess.perft", Variant::Antichess),
    ("perft/scalachess/atomic.perft", Variant::Atomic),
    ("perft/scalachess/crazyhouse.perft", Variant::Crazyhouse),
    ("perft/scalachess/horde.perft", Variant::Horde),
    ("perft/scalachess/racingkings.perft", Variant::RacingKings),
];

/// The share of the perft node budget (`ARBITER_PERFT_NODES`) that one
/// count may take. The default budget checks every count of the files
/// (the largest is 9.5 million nodes, the whole set takes about a second);
/// a smaller budget skips the deep ones and lists them.
const BUDGET_SHARE_PER_COUNT: u64 = 10;
/// Reads a variant FEN, in Chess960 mode when its castling rights need it
/// (atomic's Chess960 positions).
fn read(fen: &str, variant: Variant) -> Result<VariantPosition, VariantFenError> {
    match VariantPosition::from_fen(fen, variant, CastlingMode::Standard) {
        Err(VariantFenError::Fen(FenError::Position(PositionError::Chess960Castling(_)))) => {
            VariantPosition::from_fen(fen, variant, CastlingMode::Chess960)
        }
        read => read,
    }
}

#[test]
fn scalachess_variant_perft() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let max_nodes = common::node_budget() / BUDGET_SHARE_PER_COUNT;
    let (mut checked, mut skipped, mut nodes) = (0, Vec::new(), 0);
    let mut deepest: HashMap<Variant, u32> = HashMap::new();
    for (file, variant) in PERFT_FILES {
        let cases = common::parse_perft_file(file, &common::read_data(&dir, file)?)?;
        assert!(!cases.is_empty(), "{file} has no positions");
        for PerftCase { id, epd, counts } in cases {
            let pos = read(&epd, variant).map_err(|err| format!("{file} {id}: {epd}: {err}"))?;
            for (depth, expected) in counts {
                if expected > max_nodes {
                    skipped.push(format!("{id} perft {depth}"));
                    continue;
                }
                assert_eq!(
                    GamePosition::Variant(pos.clone()).perft(depth),
                    expected,
                    "{file} {id} perft {depth}"
                );
                checked += 1;
                nodes += expected;
                let deepest = deepest.entry(variant).or_default();
                *deepest = (*deepest).max(depth);
            }
        }
    }
    eprintln!(
        "{checked} variant perft counts ({nodes} nodes) in {:.1?}; deepest per variant \
         {deepest:?}; over {max_nodes} nodes, skipped: {}",
        started.elapsed(),
        skipped.join(", ")
    );
    assert!(checked >= 60, "only {checked} counts checked");
    assert!(max_nodes < 20_000_000 || skipped.is_empty(), "{skipped:?}");
    Ok(())
}

#[test]
fn shakmaty_zobrist_sequences_replay_with_the_same_transpositions() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let file = "zobrist/shakmaty/zobrist.csv";
    let text = common::read_data(&dir, file)?;
    // Per variant: their hash -> our hash, and our hash -> their hash.
    let mut theirs_to_ours: HashMap<(Variant, String), u64> = HashMap::new();
    let mut ours_to_theirs: HashMap<(Variant, u64), String> = HashMap::new();
    let (mut replayed, mut transpositions) = (0, 0);
    for (line, row) in text.lines().enumerate().skip(1) {
        let mut fields = row.split(',');
        let (Some(name), Some(moves), Some(hash)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("{file}:{}: expected variant,uci,zobrist", line + 1).into());
        };
        if name == "chess" {
            continue;
        }
        let variant: Variant = name.parse()?;
        let mut pos = VariantPosition::new(variant);
        for uci in moves.split_ascii_whitespace() {
            let m = pos
                .parse_uci(uci)
                .map_err(|err| format!("{file}:{}: {uci} in {pos}: {err}", line + 1))?;
            pos = pos.play(m);
        }
        replayed += 1;
        let ours = pos.zobrist();
        match theirs_to_ours.insert((variant, hash.to_owned()), ours) {
            Some(earlier) => {
                assert_eq!(earlier, ours, "{file}:{}: a transposition we miss", line + 1);
                transpositions += 1;
            }
            None => {
                let earlier = ours_to_theirs.insert((variant, ours), hash.to_owned());
                assert!(earlier.is_none(), "{file}:{}: positions shakmaty tells apart", line + 1);
            }
        }
    }
    eprintln!("replayed {replayed} variant games, {transpositions} transpositions");
    assert_eq!(replayed, 700);
    Ok(())
}

/// Endgames where random play soon meets the rarer rules: horde's
/// material rule, antichess's bishops and knights, atomic's lone pieces,
/// crazyhouse's promoted pieces, racing kings' last move for Black.
const ENDGAMES: &[(Variant, &str)] = &[
    (Variant::Horde, "4k3/pp6/8/8/8/8/1P6/N7 w - - 0 1"),
    (Variant::Horde, "2rnk3/1pp5/8/8/8/8/8/N2B4 w - - 0 1"),
    (Variant::Horde, "r3k3/2p5/8/8/8/8/PP6/R1B5 w q - 0 1"),
    (Variant::Horde, "1n2k1b1/8/8/8/8/8/4P3/2B1BN2 b - - 0 1"),
    (Variant::Antichess, "8/2b5/8/8/3B4/8/1n6/6N1 w - - 0 1"),
    (Variant::Atomic, "4k3/1p6/8/8/8/8/6P1/1B2K1N1 w - - 0 1"),
    (Variant::Crazyhouse, "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1"),
    (Variant::RacingKings, "8/2K5/k7/8/8/8/2bn1BR1/1r4R1 w - - 0 1"),
    (Variant::ThreeCheck, "4k3/8/8/8/8/8/8/R3K2R w KQ - 1+2 0 1"),
    (Variant::KingOfTheHill, "8/8/2k5/8/8/5K2/8/8 w - - 0 1"),
];

/// Positions compared per variant.
const POSITIONS_PER_VARIANT: usize = 2_000;

fn theirs(variant: Variant) -> TheirVariant {
    match variant {
        Variant::Crazyhouse => TheirVariant::Crazyhouse,
        Variant::Atomic => TheirVariant::Atomic,
        Variant::Antichess => TheirVariant::Antichess,
        Variant::KingOfTheHill => TheirVariant::KingOfTheHill,
        Variant::ThreeCheck => TheirVariant::ThreeCheck,
        Variant::Horde => TheirVariant::Horde,
        Variant::RacingKings => TheirVariant::RacingKings,
    }
}

/// The outcome as shakmaty states it.
fn outcome(pos: &VariantPosition) -> Outcome {
    match pos.variant_end() {
        None => Outcome::Unknown,
        Some((GameResult::WhiteWins, _)) => {
            Outcome::Known(KnownOutcome::Decisive { winner: shakmaty::Color::White })
        }
        Some((GameResult::BlackWins, _)) => {
            Outcome::Known(KnownOutcome::Decisive { winner: shakmaty::Color::Black })
        }
        Some((GameResult::Draw | GameResult::Ongoing, _)) => Outcome::Known(KnownOutcome::Draw),
    }
}

/// Compares one position with shakmaty's: FEN, legal moves (UCI), SAN of
/// every move, perft(2), check and outcome.
fn compare(ours: &VariantPosition, theirs: &TheirPosition) {
    let fen = ours.fen();
    let their_fen = Fen::from_position(theirs, EnPassantMode::Always).to_string();
    // Pockets differ in order only (python-chess writes the queen first,
    // shakmaty the pawn): their FEN must read as this very position.
    let read_back = VariantPosition::from_fen(&their_fen, ours.variant(), CastlingMode::Standard);
    assert_eq!(read_back.as_ref(), Ok(ours), "shakmaty's fen {their_fen}");
    let legal = ours.legal_moves();
    let ucis: BTreeSet<String> = legal.iter().map(|&m| ours.uci(m).to_string()).collect();
    let their_moves = theirs.legal_moves();
    let their_ucis: BTreeSet<String> = their_moves
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect();
    assert_eq!(ucis, their_ucis, "legal moves of {fen}");
    for &m in &legal {
        let uci = ours.uci(m).to_string();
        let their_move = UciMove::from_ascii(uci.as_bytes()).unwrap().to_move(theirs).unwrap();
        let their_san = SanPlus::from_move(theirs.clone(), their_move).to_string();
        let san = ours.san(m);
        // python-chess (and so Arbiter) marks a move that wins or loses by
        // the variant's rule with `#`; shakmaty marks only checks and mates.
        let decided =
            ours.play(m).variant_end().is_some_and(|(result, _)| result != GameResult::Draw);
        if decided {
            let body = their_san.trim_end_matches(['+', '#']);
            assert_eq!(san.as_str(), format!("{body}#"), "san of {uci} in {fen}");
        } else {
            assert_eq!(san.as_str(), their_san, "san of {uci} in {fen}");
        }
        assert_eq!(ours.parse_san(&their_san), Ok(m), "{their_san} read in {fen}");
    }
    let perft = GamePosition::Variant(ours.clone()).perft(2);
    assert_eq!(perft, shakmaty::perft(theirs, 2), "perft(2) of {fen}");
    assert_eq!(ours.is_check(), theirs.is_check(), "check in {fen}");
    assert_eq!(outcome(ours), theirs.outcome(), "outcome of {fen}");
    for (color, their_color) in
        [(Color::White, shakmaty::Color::White), (Color::Black, shakmaty::Color::Black)]
    {
        assert_eq!(
            ours.has_insufficient_material(color),
            theirs.has_insufficient_material(their_color),
            "insufficient material of {color:?} in {fen}"
        );
    }
}

#[test]
fn variants_match_shakmaty_on_random_play() {
    let mut rng = SmallRng::seed_from_u64(0x7661_7269_616e_7473);
    for variant in Variant::ALL {
        let (mut compared, mut games, mut ended) = (0, 0, 0);
        let mut ends: BTreeMap<&str, usize> = BTreeMap::new();
        while compared < POSITIONS_PER_VARIANT {
            let endgames: Vec<&str> =
                ENDGAMES.iter().filter(|(v, _)| *v == variant).map(|(_, fen)| *fen).collect();
            let (mut ours, mut theirs) = if !endgames.is_empty() && rng.random_bool(0.5) {
                let fen = endgames[rng.random_range(0..endgames.len())];
                let setup = Fen::from_ascii(fen.as_bytes()).unwrap().into_setup();
                let mode = shakmaty::CastlingMode::Standard;
                let theirs = TheirPosition::from_setup(self::theirs(variant), setup, mode).unwrap();
                (read(fen, variant).unwrap(), theirs)
            } else {
                (VariantPosition::new(variant), TheirPosition::new(self::theirs(variant)))
            };
            games += 1;
            for _ in 0..rng.random_range(20..300) {
                common::with_context(|| format!("{variant}: {ours}"), || compare(&ours, &theirs));
                compared += 1;
                let legal = ours.legal_moves();
                if let Some((_, end)) = ours.variant_end() {
                    *ends.entry(end.as_str()).or_default() += 1;
                }
                if legal.is_empty() {
                    ended += 1;
                    break;
                }
                // Captures half the time, to reach endings and their
                // material rules sooner.
                let captures: Vec<_> = legal
                    .iter()
                    .filter(|m| m.from().is_some_and(|_| ours.piece_at(m.to()).is_some()))
                    .collect();
                let m = if !captures.is_empty() && rng.random_bool(0.5) {
                    *captures[rng.random_range(0..captures.len())]
                } else {
                    legal[rng.random_range(0..legal.len())]
                };
                let uci = ours.uci(m).to_string();
                let their_move =
                    UciMove::from_ascii(uci.as_bytes()).unwrap().to_move(&theirs).unwrap();
                theirs.play_unchecked(their_move);
                ours = ours.play(m);
            }
        }
        eprintln!(
            "{variant}: {compared} positions from {games} games, {ended} played to the end; \
             ends seen {ends:?}"
        );
        assert!(ended > 0, "{variant}: no random game reached its end");
    }
}

#[test]
fn python_chess_writes_and_ends_variant_games_as_we_do() {
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    for (line, case) in python_chess_games().into_iter().enumerate() {
        let variant: Variant = case.variant.parse().unwrap();
        let context = format!("line {}: {variant}", line + 1);
        let start = read(&case.fen, variant).unwrap();
        assert_eq!(start.fen().as_str(), case.fen, "{context}");
        let mut game = VariantGame::new(start);
        for [uci, san] in &case.plies {
            let pos = game.position().clone();
            let m = pos.parse_uci(uci).unwrap_or_else(|e| panic!("{context}: {uci} in {pos}: {e}"));
            assert_eq!(pos.san(m).as_str(), san, "{context}: {uci} in {pos}");
            assert_eq!(pos.parse_san(san), Ok(m), "{context}: {san} in {pos}");
            game.play(m).unwrap();
        }
        // python-chess 1.11 leaves the half-move clock running over a pawn
        // drop (its push returns before zeroing; its own is_zeroing and
        // shakmaty say a pawn drop zeroes). Crazyhouse has no move-count
        // rule, so the clock is all that differs: compare the rest.
        let without_halfmoves = |fen: &str| -> Vec<String> {
            let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
            if variant == Variant::Crazyhouse && fields.len() == 6 {
                fields.remove(4);
            }
            fields
        };
        assert_eq!(
            without_halfmoves(&game.position().fen()),
            without_halfmoves(&case.final_fen),
            "{context}"
        );
        let outcome = game.outcome();
        let result = outcome.map_or(GameResult::Ongoing, |(result, _)| result);
        assert_eq!(result.pgn(), case.result, "{context}: {}", case.final_fen);
        // python-chess names every variant rule's end VARIANT_WIN, _LOSS or
        // _DRAW (as the side to move sees it); Arbiter names the rule.
        let termination = outcome.map(|(_, end)| match end {
            VariantEnd::Checkmate => "CHECKMATE",
            VariantEnd::Stalemate => "STALEMATE",
            VariantEnd::InsufficientMaterial => "INSUFFICIENT_MATERIAL",
            VariantEnd::SeventyFiveMoveRule => "SEVENTYFIVE_MOVES",
            VariantEnd::FivefoldRepetition => "FIVEFOLD_REPETITION",
            VariantEnd::Explosion
            | VariantEnd::KingOfTheHill
            | VariantEnd::ThirdCheck
            | VariantEnd::Race
            | VariantEnd::VariantWin => "VARIANT",
        });
        let theirs = case
            .termination
            .as_deref()
            .map(|t| if t.starts_with("VARIANT_") { "VARIANT" } else { t });
        assert_eq!(termination, theirs, "{context}: {}", case.final_fen);
        *ends.entry(format!("{variant}: {}", termination.unwrap_or("ongoing"))).or_default() += 1;
    }
    eprintln!("python-chess games: {ends:?}");
    assert!(ends.len() >= 12, "{ends:?}");
}
