//! Data-driven tests against third-party vectors: perft files from
//! python-chess, scalachess and shakmaty, FEN lists from cozy-chess.
//!
//! The data lives outside the repository, in the directory named by
//! `ARBITER_TEST_DATA` (see its README.md for the formats). Without it the
//! tests skip, so a plain `cargo test` passes anywhere; CI sets the variable
//! and then a missing directory fails. `ARBITER_PERFT_NODES` bounds the perft
//! work of each perft test.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write as _};
use std::mem;
use std::time::Instant;

use arbiter_chess::{CastlingMode, Color, FenError, Position, PositionError, perft};

use crate::common;
use crate::common::{PerftCase, TestResult};

/// Failures listed in a panic message; the rest are only counted.
const MAX_REPORTED: usize = 20;

const TRICKY_FILES: [&str; 3] = [
    "perft/python-chess/tricky.perft",
    "perft/scalachess/tricky.perft",
    "perft/shakmaty/tricky.perft",
];

/// A tricky position our parser must reject, and the rejections that name
/// its defect.
struct KnownRejection {
    id: &'static str,
    why: &'static str,
    /// One example of each acceptable [`PositionError`] variant.
    expected: &'static [PositionError],
}

impl KnownRejection {
    fn find(list: &'static [KnownRejection], id: &str) -> Option<&'static KnownRejection> {
        list.iter().find(|known| known.id == id)
    }

    fn accepts(&self, err: &PositionError) -> bool {
        self.expected.iter().any(|e| mem::discriminant(e) == mem::discriminant(err))
    }

    fn expected_names(&self) -> String {
        let names: Vec<String> = self.expected.iter().map(variant_name).collect();
        names.join(" or ")
    }
}

const IMPOSSIBLE_CHECK: PositionError = PositionError::ImpossibleCheck("");
const INVALID_CASTLING: PositionError = PositionError::InvalidCastlingRight('-');
const CHESS960_CASTLING: PositionError = PositionError::Chess960Castling('-');

/// Tricky positions no game can reach, decided from the position (shakmaty's
/// own test loads them only while ignoring IMPOSSIBLE_CHECK,
/// TOO_MUCH_MATERIAL and invalid castling rights).
const IMPOSSIBLE_POSITIONS: &[KnownRejection] = &[
    KnownRejection {
        id: "two-pawn-checkers",
        why: "black king on g8 checked by the pawns on f7 and h7 at once",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "two-stepper-checkers",
        why: "black king on g8 checked by the pawn on f7 and the knight on f6 at once",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "two-knight-checkers",
        why: "white king on c1 checked by the knights on b3 and d3 at once, and right K \
              without the king on e1",
        expected: &[IMPOSSIBLE_CHECK, INVALID_CASTLING, CHESS960_CASTLING],
    },
    KnownRejection {
        id: "max-legals-too-much-material",
        why: "white has 43 pieces",
        expected: &[
            PositionError::TooManyPieces(Color::White),
            PositionError::TooManyPromotedPieces(Color::White),
        ],
    },
    KnownRejection {
        id: "asymmetrical-and-king-on-h",
        why: "right q with the black king on h8 while white's rights need a king on e1",
        expected: &[INVALID_CASTLING, CHESS960_CASTLING],
    },
    KnownRejection {
        id: "align-diag-1",
        why: "white king on c4 checked from both sides of one diagonal (a6 queen, d3 bishop)",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "align-diag-2",
        why: "white king on c7 checked from both sides of one diagonal (d8 queen, b6 bishop)",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "align-horizontal",
        why: "white king on e3 checked from both sides of the third rank (d3 and h3 rooks)",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "align-ep",
        why: "after d2-d4 the black king on b5 is checked by the f1 queen, whose diagonal \
              the pawn never blocked",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "align-ep-pinned",
        why: "after d7-d5 the white king on e5 is checked by the b8 bishop, whose diagonal \
              the pawn never blocked",
        expected: &[IMPOSSIBLE_CHECK],
    },
    KnownRejection {
        id: "ep-unrelated-check",
        why: "after c7-c5 the white king on e1 is checked by the f2 pawn",
        expected: &[IMPOSSIBLE_CHECK],
    },
];

/// Tricky positions with Chess960 castling rights: X-FEN letters with the
/// king off the e-file or naming an inner rook, or Shredder file letters.
/// Read as standard chess they must be rejected as such; read as Chess960
/// they must match their perft counts.
const CHESS960_POSITIONS: &[KnownRejection] = &[
    KnownRejection {
        id: "xfen-00",
        why: "KQkq with the kings on c1/c8 and rooks on a1/e1, a8/e8",
        expected: &[CHESS960_CASTLING],
    },
    KnownRejection {
        id: "xfen-01",
        why: "KQkq with the kings on c1/c8 and rooks on a1/f1, a8/f8",
        expected: &[CHESS960_CASTLING],
    },
    KnownRejection {
        id: "xfen-02",
        why: "Q with the king on e1 and the queen-side rook on c1",
        expected: &[CHESS960_CASTLING],
    },
    KnownRejection {
        id: "xfen-03",
        why: "K with the king on d1 and the rook on e1",
        expected: &[CHESS960_CASTLING],
    },
    KnownRejection {
        id: "xfen-04",
        why: "KQ with the king on d1 and rooks on b1 and f1",
        expected: &[CHESS960_CASTLING],
    },
    KnownRejection {
        id: "hside-rook-blocks-aside-castling",
        why: "Shredder Ff with the kings on g1/g8 and rooks on f1/f8",
        expected: &[CHESS960_CASTLING],
    },
];

/// Every position of the three tricky files parses and matches every perft
/// count within the node budget, or is a listed impossible or Chess960
/// position that our parser rejects for the listed reason.
#[test]
fn tricky_perft_positions_match_or_are_known_rejections() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let budget = common::node_budget();

    let mut failures: Vec<String> = Vec::new();
    let (mut counted, mut rejected_impossible, mut rejected_chess960) = (0, 0, 0);
    // Distinct (FEN, depth) checks: the files share most positions.
    let mut checks: HashMap<(String, u32), (u64, Position, String)> = HashMap::new();
    let mut lines_in_files = 0;
    // Each accepted rejection once, with the number of files holding it.
    let mut rejection_notes: BTreeMap<String, usize> = BTreeMap::new();
    for file in TRICKY_FILES {
        let cases = common::parse_perft_file(file, &common::read_data(&dir, file)?)?;
        for PerftCase { id, epd, counts } in cases {
            let label = format!("{file} {id}");
            let impossible = KnownRejection::find(IMPOSSIBLE_POSITIONS, &id);
            let known = impossible.or_else(|| KnownRejection::find(CHESS960_POSITIONS, &id));
            match (parse(&epd), known) {
                (Ok(pos), None) => {
                    counted += 1;
                    lines_in_files += counts.len();
                    for (depth, nodes) in counts {
                        let key = (epd.clone(), depth);
                        match checks.get(&key) {
                            Some((known, ..)) if *known != nodes => failures.push(format!(
                                "{label}: files disagree on perft {depth} of {epd}: \
                                 {known} vs {nodes}"
                            )),
                            Some(_) => {}
                            None => {
                                checks.insert(key, (nodes, pos.clone(), label.clone()));
                            }
                        }
                    }
                }
                (Ok(pos), Some(known)) => failures.push(format!(
                    "{label}: {epd}\n    expected rejection as {} ({})\n    got      {pos}",
                    known.expected_names(),
                    known.why,
                )),
                (Err(FenError::Position(err)), Some(known)) if known.accepts(&err) => {
                    let kind = if impossible.is_some() {
                        rejected_impossible += 1;
                        "impossible"
                    } else {
                        rejected_chess960 += 1;
                        match parse_chess960(&epd) {
                            Ok(pos) => {
                                for (depth, nodes) in counts {
                                    let key = (epd.clone(), depth);
                                    checks.entry(key).or_insert((
                                        nodes,
                                        pos.clone(),
                                        label.clone(),
                                    ));
                                }
                            }
                            Err(err) => {
                                failures.push(format!("{label}: chess960 rejects {epd}: {err}"))
                            }
                        }
                        "in standard chess, counted as chess960"
                    };
                    let note = format!("rejected {kind}: {id} ({}): {err}", known.why);
                    *rejection_notes.entry(note).or_default() += 1;
                }
                (Err(err), Some(known)) => failures.push(format!(
                    "{label}: {epd}\n    expected rejection as {} ({})\n    got      {err}",
                    known.expected_names(),
                    known.why,
                )),
                (Err(err), None) => failures.push(format!("{label}: rejected {epd}: {err}")),
            }
        }
    }

    // Cheapest counts first, so the budget covers as many as possible.
    let mut checks: Vec<_> = checks.into_iter().collect();
    checks.sort_by(|((fen_a, depth_a), (a, ..)), ((fen_b, depth_b), (b, ..))| {
        (a, fen_a, depth_a).cmp(&(b, fen_b, depth_b))
    });
    let mut spent = 0u64;
    let affordable = checks
        .iter()
        .take_while(|(_, (nodes, ..))| {
            spent = spent.saturating_add(*nodes);
            spent <= budget
        })
        .count();
    let (checked, skipped) = checks.split_at(affordable);
    let results = common::parallel_map(checked, |((epd, depth), (nodes, pos, label))| {
        let got = guarded_perft(pos, *depth);
        (got != *nodes)
            .then(|| format!("{label}: perft {depth} of {epd}: expected {nodes}, got {got}"))
    });
    failures.extend(results.into_iter().flatten());
    let checked_nodes: u64 = checked.iter().map(|(_, (nodes, ..))| nodes).sum();
    let skipped_nodes: u64 = skipped.iter().map(|(_, (nodes, ..))| nodes).sum();

    for (note, files) in &rejection_notes {
        eprintln!("{note} [in {files} of the files]");
    }
    let distinct_counted = checks.iter().map(|((epd, _), _)| epd).collect::<HashSet<_>>().len();
    eprintln!(
        "tricky perft: {counted} positions counted ({distinct_counted} distinct) / {rejected_impossible} rejected as impossible \
         / {rejected_chess960} rejected as standard chess and counted as chess960"
    );
    eprintln!(
        "tricky perft: {lines_in_files} perft lines in files of counted positions, {} distinct; \
         checked {} ({checked_nodes} nodes), skipped {} over the budget of {budget} nodes \
         ({skipped_nodes} nodes); {:.1?}",
        checks.len(),
        checked.len(),
        skipped.len(),
        started.elapsed(),
    );
    assert_no_failures("tricky perft", &failures);
    Ok(())
}

/// Every position of random.perft parses, and its node counts match at the
/// depths the node budget allows (always depths 1 and 2).
#[test]
fn random_perft_positions_match_within_node_budget() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let started = Instant::now();
    let file = "perft/scalachess/random.perft";
    let mut cases = common::parse_perft_file(file, &common::read_data(&dir, file)?)?;
    for case in &mut cases {
        case.counts.sort_unstable();
    }
    let budget = common::node_budget();
    let cap = fair_node_cap(&cases, budget);

    let results = common::parallel_map(&cases, |case| -> Result<(u64, u32), String> {
        let pos =
            parse(&case.epd).map_err(|err| format!("{} rejected: {err}: {}", case.id, case.epd))?;
        let mut nodes_checked = 0;
        let mut max_depth = 0;
        for &(depth, nodes) in planned_depths(case, cap) {
            let got = guarded_perft(&pos, depth);
            if got != nodes {
                return Err(format!(
                    "{} perft {depth} of {}: expected {nodes}, got {got}",
                    case.id, case.epd
                ));
            }
            nodes_checked += nodes;
            max_depth = depth;
        }
        Ok((nodes_checked, max_depth))
    });

    let mut failures = Vec::new();
    let mut nodes_checked = 0u64;
    let mut deepest: BTreeMap<u32, usize> = BTreeMap::new();
    for result in results {
        match result {
            Ok((nodes, depth)) => {
                nodes_checked += nodes;
                *deepest.entry(depth).or_default() += 1;
            }
            Err(failure) => failures.push(failure),
        }
    }
    let file_nodes: u64 = cases.iter().flat_map(|c| &c.counts).map(|&(_, n)| n).sum();
    eprintln!(
        "random perft: {} positions, {} passed; checked {nodes_checked} of {file_nodes} nodes \
         (budget {budget}, per-position cap {cap} beyond depth 2); deepest depth checked: {}; {:.1?}",
        cases.len(),
        cases.len() - failures.len(),
        deepest.iter().map(|(d, n)| format!("{d}: {n}")).collect::<Vec<_>>().join(", "),
        started.elapsed(),
    );
    assert_no_failures("random perft", &failures);
    Ok(())
}

/// Parses a FEN, naming it if the parser panics.
fn parse(fen: &str) -> Result<Position, FenError> {
    common::with_context(|| format!("parsing {fen}"), || fen.parse())
}

/// Parses a FEN as Chess960, naming it if the parser panics.
fn parse_chess960(fen: &str) -> Result<Position, FenError> {
    common::with_context(
        || format!("parsing {fen}"),
        || Position::from_fen(fen, CastlingMode::Chess960),
    )
}

/// Perft, naming the position and depth if move generation panics.
fn guarded_perft(pos: &Position, depth: u32) -> u64 {
    common::with_context(|| format!("perft {depth} of {pos}"), || perft(pos, depth))
}

/// The depths checked for one position: depths 1 and 2 always, then deeper
/// ones in order while their node count stays within `cap`.
fn planned_depths(case: &PerftCase, cap: u64) -> &[(u32, u64)] {
    let n = case.counts.iter().take_while(|&&(depth, nodes)| depth <= 2 || nodes <= cap).count();
    &case.counts[..n]
}

/// The largest per-position node cap whose plan fits the budget, so every
/// position gets the same allowance and small positions leave their unused
/// share to the others (water filling).
fn fair_node_cap(cases: &[PerftCase], budget: u64) -> u64 {
    let cost = |cap| -> u64 {
        cases.iter().flat_map(|case| planned_depths(case, cap)).map(|&(_, nodes)| nodes).sum()
    };
    let mut caps: Vec<u64> = cases.iter().flat_map(|c| &c.counts).map(|&(_, n)| n).collect();
    caps.push(0);
    caps.sort_unstable();
    caps.dedup();
    // cost is monotone in cap: find the last cap that fits.
    let fits = caps.partition_point(|&cap| cost(cap) <= budget);
    caps[fits.saturating_sub(1)]
}

/// Every line of cozy-chess's invalid.sfens is rejected, in standard chess
/// and in Chess960 alike.
#[test]
fn invalid_sfens_are_all_rejected() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let file = "fen/cozy-chess/invalid.sfens";
    let text = common::read_data(&dir, file)?;
    let mut accepted = Vec::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut lines = 0;
    for (line_no, fen) in common::fen_lines(&text) {
        lines += 1;
        if let Ok(pos) = parse(fen) {
            accepted.push(format!("{file}:{line_no}: standard chess accepted {fen} (as {pos})"));
        }
        match parse_chess960(fen) {
            Ok(pos) => {
                accepted.push(format!("{file}:{line_no}: chess960 accepted {fen} (as {pos})"))
            }
            Err(err) => *kinds.entry(error_kind(&err)).or_default() += 1,
        }
    }
    eprintln!("invalid sfens: {lines} lines; {} accepted", accepted.len());
    for (kind, count) in &kinds {
        eprintln!("  {count:>5}  {kind} (chess960)");
    }
    assert_no_failures("invalid sfens", &accepted);
    Ok(())
}

/// Every line of cozy-chess's valid.sfens is accepted as Chess960 and
/// written back as the same Shredder-FEN; the lines with standard castling
/// rights are accepted as standard chess too and written back with `KQkq`
/// castling, and the others are rejected there for their Chess960 rights.
#[test]
fn valid_sfens_round_trip() -> TestResult {
    let Some(dir) = common::data_dir_or_skip() else { return Ok(()) };
    let file = "fen/cozy-chess/valid.sfens";
    let text = common::read_data(&dir, file)?;
    let mut failures = Vec::new();
    let (mut lines, mut standard, mut chess960) = (0, 0, 0);
    for (line_no, fen) in common::fen_lines(&text) {
        lines += 1;
        let at = format!("{file}:{line_no}");
        match parse_chess960(fen) {
            Ok(pos) => {
                let got = pos.shredder_fen();
                if got.as_str() != fen {
                    failures
                        .push(format!("{at}: chess960\n    expected {fen}\n    got      {got}"));
                }
                // X-FEN out reads back as the same position.
                match parse_chess960(&pos.to_string()) {
                    Ok(again) if again == pos => {}
                    other => failures.push(format!("{at}: X-FEN {pos} reads back as {other:?}")),
                }
            }
            Err(err) => failures.push(format!("{at}: chess960 rejects {fen}: {err}")),
        }
        match (standard_fen(fen), parse(fen)) {
            (Some(expected), Ok(pos)) => {
                standard += 1;
                let got = pos.to_string();
                if got != expected {
                    failures
                        .push(format!("{at}: {fen}\n    expected {expected}\n    got      {got}"));
                }
            }
            (Some(expected), Err(err)) => failures.push(format!(
                "{at}: {fen}\n    expected {expected}\n    got      rejected: {err}"
            )),
            (None, Err(err)) if is_chess960_rejection(&err) => chess960 += 1,
            (None, Err(err)) => failures.push(format!(
                "{at}: {fen}\n    expected rejection for chess960 castling\n    got      {err}"
            )),
            (None, Ok(pos)) => failures.push(format!(
                "{at}: {fen}\n    expected rejection for chess960 castling\n    got      {pos}"
            )),
        }
    }
    eprintln!(
        "valid sfens: {lines} lines accepted as chess960; {standard} with standard castling \
         accepted as standard chess, {chess960} rejected there for chess960 castling rights, \
         {} failures",
        failures.len()
    );
    assert_no_failures("valid sfens", &failures);
    Ok(())
}

/// The FEN with its Shredder castling field rewritten as `KQkq`, or `None`
/// when a right is not standard: a rook off the a- and h-files, or the king
/// off its e-file square.
fn standard_fen(fen: &str) -> Option<String> {
    let mut fields: Vec<&str> = fen.split_ascii_whitespace().collect();
    let (placement, castling) = (*fields.first()?, *fields.get(2)?);
    let mut letters = Vec::new();
    if castling != "-" {
        for c in castling.chars() {
            let letter = standard_castling_letter(c)?;
            let white = c.is_ascii_uppercase();
            if king_file(placement, white) != Some('e') {
                return None;
            }
            letters.push(letter);
        }
    }
    let rights: String = "KQkq".chars().filter(|c| letters.contains(c)).collect();
    let rights = if rights.is_empty() { "-".to_owned() } else { rights };
    fields[2] = &rights;
    Some(fields.join(" "))
}

/// `K`, `Q`, `k` or `q` for a castling letter naming an h- or a-file rook.
fn standard_castling_letter(c: char) -> Option<char> {
    match c {
        'K' | 'H' => Some('K'),
        'Q' | 'A' => Some('Q'),
        'k' | 'h' => Some('k'),
        'q' | 'a' => Some('q'),
        _ => None,
    }
}

/// The file of the king of one side when it stands on its back rank.
fn king_file(placement: &str, white: bool) -> Option<char> {
    let ranks: Vec<&str> = placement.split('/').collect();
    let (back_rank, king) = if white { (ranks.last()?, 'K') } else { (ranks.first()?, 'k') };
    let mut file = 0u8;
    for c in back_rank.chars() {
        match c.to_digit(10) {
            Some(empty) => file += empty as u8,
            None if c == king => return Some(char::from(b'a' + file)),
            None => file += 1,
        }
    }
    None
}

/// A short name for the kind of error, for the histogram: the variant, with
/// the reason for an impossible check.
fn error_kind(err: &FenError) -> String {
    match err {
        FenError::Syntax(err) => format!("syntax: {}", variant_name(err)),
        FenError::Position(PositionError::ImpossibleCheck(why)) => {
            format!("position: ImpossibleCheck ({why})")
        }
        FenError::Position(err) => format!("position: {}", variant_name(err)),
    }
}

/// The name of an enum variant, from its `Debug` form.
fn variant_name(value: &impl fmt::Debug) -> String {
    let debug = format!("{value:?}");
    debug.split(['(', ' ', '{']).next().unwrap_or_default().to_owned()
}

/// Whether the standard-chess parser turned a FEN down because its castling
/// rights are Chess960 ones.
fn is_chess960_rejection(err: &FenError) -> bool {
    matches!(err, FenError::Position(PositionError::Chess960Castling(_)))
}

/// Panics listing up to [`MAX_REPORTED`] failures, if there are any.
fn assert_no_failures(what: &str, failures: &[String]) {
    if failures.is_empty() {
        return;
    }
    let mut message = format!("{what}: {} failures", failures.len());
    for failure in failures.iter().take(MAX_REPORTED) {
        let _ = write!(message, "\n  {failure}");
    }
    if failures.len() > MAX_REPORTED {
        let _ = write!(message, "\n  ... and {} more", failures.len() - MAX_REPORTED);
    }
    panic!("{message}");
}
