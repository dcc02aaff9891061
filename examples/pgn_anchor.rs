//! The anchor of the PGN benchmark (`benches/pgn.rs`): what a Rust user
//! would write instead of `arbiter pgn` — pgn-reader 0.29 reading the files
//! and shakmaty 0.30.1 resolving and playing every mainline SAN, one
//! thread, as pgn-reader's own `validate` example does. Prints
//! `N games, M with errors` on standard output.
//!
//! ```text
//! cargo build --release --example pgn_anchor
//! target/release/examples/pgn_anchor FILE...
//! ```

use std::env;
use std::fs::File;
use std::ops::ControlFlow;
use std::process::ExitCode;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

/// Plays each game's mainline; the output says whether every move was legal.
struct Validator;

impl Visitor for Validator {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = bool;

    fn begin_tags(&mut self) -> ControlFlow<bool, Option<Chess>> {
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Option<Chess>,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<bool> {
        if name == b"FEN" {
            let Ok(fen) = Fen::from_ascii(value.as_bytes()) else {
                return ControlFlow::Break(false);
            };
            let Ok(pos) = fen.into_position(CastlingMode::Chess960) else {
                return ControlFlow::Break(false);
            };
            *tags = Some(pos);
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<bool, Chess> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<bool> {
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }

    fn end_game(&mut self, _pos: Chess) -> bool {
        true
    }
}

fn main() -> ExitCode {
    let (mut games, mut bad) = (0u64, 0u64);
    for path in env::args().skip(1) {
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(err) => {
                eprintln!("pgn_anchor: {path}: {err}");
                return ExitCode::from(2);
            }
        };
        let mut reader = Reader::new(file);
        loop {
            match reader.read_game(&mut Validator) {
                Ok(Some(ok)) => {
                    games += 1;
                    bad += u64::from(!ok);
                }
                Ok(None) => break,
                Err(err) => {
                    eprintln!("pgn_anchor: {path}: {err}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    println!("{games} games, {bad} with errors");
    ExitCode::SUCCESS
}
