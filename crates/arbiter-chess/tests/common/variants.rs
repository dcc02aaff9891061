//! The games python-chess played in lichess's variants and wrote down
//! (`data/variants.jsonl`, made by `data/variants.py`), for the rules, PGN
//! and service suites.

use serde::Deserialize;

/// A game of `data/variants.jsonl`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PythonChessGame {
    /// The variant by its command-line name (`king-of-the-hill`).
    pub variant: String,
    pub fen: String,
    /// `[uci, san]` a ply.
    pub plies: Vec<[String; 2]>,
    pub final_fen: String,
    pub result: String,
    /// python-chess's name of how the game ended, if it did.
    pub termination: Option<String>,
}

/// Every game of the fixture, in order.
pub fn python_chess_games() -> Vec<PythonChessGame> {
    include_str!("../data/variants.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a game of the fixture"))
        .collect()
}
