//! The games of a PGN file as the real-games tests and the load generator
//! (`examples/load`, which includes this file with `#[path = ...]`) use
//! them: tag pairs and the main line's SAN tokens, nothing more.

use arbiter_chess::{CastlingMode, FenError, Position};
use arbiter_pgn::{GameReader, ReaderOptions, parse_game};

/// One game of a PGN file: its tags and the SAN tokens of its main line.
#[derive(Clone, Debug, Default)]
pub struct PgnGame {
    /// Where the game starts in the file (1-based line), for messages.
    pub line: usize,
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// The result token closing the movetext, if any.
    pub result_token: Option<String>,
}

impl PgnGame {
    /// The value of the tag `name`, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Where the game is, for messages: file, line, site and round.
    pub fn label(&self, source: &str) -> String {
        let site = self.tag("Site").unwrap_or("?");
        let round = self.tag("Round").unwrap_or("?");
        format!("{source}:{} (site {site}, round {round})", self.line)
    }

    /// The start position: the `FEN` tag, else the standard start; read as
    /// Chess960 when the `Variant` tag says so (`chess960`, `fischerandom`).
    ///
    /// # Errors
    ///
    /// The reason the `FEN` tag is not a legal position.
    pub fn start(&self) -> Result<Position, FenError> {
        let variant = self.tag("Variant").unwrap_or_default().to_ascii_lowercase();
        let mode = if variant.contains("960") || variant.starts_with("fischer") {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        self.tag("FEN").map_or_else(|| Ok(Position::default()), |fen| Position::from_fen(fen, mode))
    }
}

/// The games of a PGN text, read with arbiter's own reader
/// ([`arbiter::pgn`]): tags, and the main line's tokens as written (move
/// numbers and `!`/`?` suffixes removed, `+`/`#` kept).
pub fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let reader = GameReader::new(text.as_bytes(), ReaderOptions::default());
    reader
        .map(|raw| {
            let raw = raw.expect("reading from memory does not fail");
            let text = raw.text.expect("no test game is over the size limit");
            let game = parse_game(text);
            PgnGame {
                line: raw.line,
                tags: game.tags().map(|(n, v)| (n.into_owned(), v.into_owned())).collect(),
                moves: game.mainline.moves.iter().map(|m| game.str(m.text).into_owned()).collect(),
                result_token: game.result_token.map(|r| r.as_str().to_owned()),
            }
        })
        .collect()
}
