//! Draw claims with the next move (FIDE 9.2.1, 9.3.1) against python-chess.
//!
//! `data/claims.jsonl` was written by `data/claims.py`
//! with python-chess 1.11.2: positions of seeded random games (pieces
//! shuffled back and forth, clocks near 100), each with the claims every
//! legal move allows and python-chess's `can_claim_threefold_repetition()`
//! and `can_claim_fifty_moves()`. Each legal move in our answer must carry
//! exactly python-chess's claims, and the position's claims together with
//! its moves' must equal python-chess's two answers (unless a move that
//! would allow a claim ends the game by itself, which python-chess still
//! counts).

use std::collections::BTreeMap;

use arbiter_chess::{ClaimableDraw, Notation, ReplayOptions, replay};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    fen: String,
    moves: Vec<String>,
    can_claim_threefold: bool,
    can_claim_fifty: bool,
    legal_moves: usize,
    claims: BTreeMap<String, Vec<String>>,
    ending_claims: bool,
}

fn names(draws: impl Iterator<Item = ClaimableDraw>) -> Vec<String> {
    let mut names: Vec<String> = draws
        .map(|d| match d {
            ClaimableDraw::FiftyMoveRule => "FIFTY",
            ClaimableDraw::ThreefoldRepetition => "THREEFOLD",
        })
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

#[test]
fn move_claims_match_python_chess() {
    let text = include_str!("../data/claims.jsonl");
    let options = ReplayOptions { notation: Notation::Uci, ..ReplayOptions::default() };
    let (mut positions, mut threefold, mut fifty) = (0, 0, 0);
    for (line, json) in text.lines().enumerate() {
        let case: Case = serde_json::from_str(json).unwrap();
        let context = format!("line {}: {} moves {}", line + 1, case.fen, case.moves.join(" "));
        let r = replay(case.fen.parse::<arbiter_chess::Position>().unwrap(), &case.moves, &options);
        assert!(r.illegal_move.is_none(), "{context}: {:?}", r.illegal_move);
        assert_eq!(r.legal_moves.len(), case.legal_moves, "{context}");
        let mut any = (false, false);
        for m in &r.legal_moves {
            let ours = names(m.claims.iter());
            let mut theirs =
                case.claims.get(m.uci.to_string().as_str()).cloned().unwrap_or_default();
            theirs.sort();
            assert_eq!(ours, theirs, "{context}: {}", m.uci);
            any.0 |= m.claims.threefold;
            any.1 |= m.claims.fifty_move;
        }
        threefold += usize::from(any.0);
        fifty += usize::from(any.1);
        if !case.ending_claims {
            let outcome = r.outcome;
            assert_eq!(outcome.threefold_claimable || any.0, case.can_claim_threefold, "{context}");
            assert_eq!(outcome.fifty_move_claimable || any.1, case.can_claim_fifty, "{context}");
        }
        positions += 1;
    }
    // The fixture exercises both claims many times.
    assert!(positions > 500 && threefold > 100 && fifty > 100, "{positions} {threefold} {fifty}");
}
