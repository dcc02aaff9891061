//! Helpers for the integration tests of the `arbiter` package: the rules
//! core's data helpers (the shared test data, the games of a PGN file, the
//! games python-chess played in lichess's variants), included from
//! `crates/arbiter-chess/tests/common` so that both packages read the data
//! one way; and for the service: HTTP/2 frames written by hand
//! ([`frames`]), a throw-away PKI for TLS ([`pki`]), a server in the test
//! process ([`server`]) and a client that takes no answer
//! ([`zero_window`]).
//!
//! Declared once, in `tests/tests.rs`; the suites use `crate::common::...`.

pub mod frames;
pub mod pki;
pub mod server;
pub mod zero_window;

// The core's suites use the rest of these helpers.
#[allow(dead_code)]
#[path = "../../crates/arbiter-chess/tests/common/mod.rs"]
mod data;

pub use data::{TestResult, data_dir_or_skip, variants};

use std::path::{Path, PathBuf};

/// The files of the shared `pgn/` folder (one level of subfolders), sorted.
///
/// # Panics
///
/// If the folder cannot be listed.
pub fn shared_pgn_files(dir: &Path) -> Vec<PathBuf> {
    let list = |dir: &Path| -> Vec<PathBuf> {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{dir:?}: {err}"));
        entries.map(|entry| entry.expect("a readable entry").path()).collect()
    };
    let mut files: Vec<PathBuf> = list(&dir.join("pgn")).iter().flat_map(|sub| list(sub)).collect();
    files.sort();
    files
}
