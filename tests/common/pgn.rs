//! A minimal PGN reader shared by the real-games tests and the load
//! generator (`examples/load`), each including it with `#[path = ...]`:
//! tag pairs and the main line's SAN tokens, nothing more.

use arbiter::chess::{FenError, Position};

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

    /// The start position: the `FEN` tag, else the standard start.
    ///
    /// # Errors
    ///
    /// The reason the `FEN` tag is not a legal position.
    pub fn start(&self) -> Result<Position, FenError> {
        self.tag("FEN").map_or_else(|| Ok(Position::default()), str::parse)
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result_token.is_none()
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// A minimal PGN reader: tag pairs, movetext with `{}` and `;` comments,
/// `%` escape lines, nested `()` variations, NAGs, move numbers and result
/// tokens. Only the main line's SAN tokens are kept (with `!`/`?` glyphs
/// removed, `+`/`#` kept).
pub fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame { line: 1, ..PgnGame::default() };
    let mut in_movetext = false;
    let mut depth = 0usize;
    let mut line = 1;
    // Tag sections end at a blank line; some exports have no movetext at
    // all, so a tag after a blank line also starts a new game.
    let mut line_has_content = false;
    let mut blank_since_tag = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let finish = |game: &mut PgnGame, games: &mut Vec<PgnGame>, line: usize| {
        let done = std::mem::replace(game, PgnGame { line, ..PgnGame::default() });
        if !done.is_empty() {
            games.push(done);
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let at_line_start = i == 0 || chars[i - 1] == '\n';
        if !c.is_whitespace() {
            line_has_content = true;
        }
        match c {
            '\n' => {
                blank_since_tag |= !line_has_content;
                line_has_content = false;
                line += 1;
                i += 1;
            }
            _ if c.is_whitespace() => i += 1,
            '%' if at_line_start => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '{' => {
                while i < chars.len() && chars[i] != '}' {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
                i += 1;
            }
            '(' => {
                depth += 1;
                i += 1;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            '[' if depth == 0 => {
                if in_movetext || (blank_since_tag && !game.tags.is_empty()) {
                    // Tags after movetext without a result token, or after a
                    // finished tag section: a new game.
                    finish(&mut game, &mut games, line);
                    in_movetext = false;
                }
                if game.is_empty() {
                    game.line = line;
                }
                i += 1;
                let mut name = String::new();
                while i < chars.len() && !chars[i].is_whitespace() && chars[i] != ']' {
                    name.push(chars[i]);
                    i += 1;
                }
                while i < chars.len() && chars[i] != '"' && chars[i] != ']' {
                    i += 1;
                }
                let mut value = String::new();
                if i < chars.len() && chars[i] == '"' {
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' && i + 1 < chars.len() {
                            i += 1;
                        }
                        value.push(chars[i]);
                        i += 1;
                    }
                }
                while i < chars.len() && chars[i] != ']' {
                    i += 1;
                }
                i += 1;
                game.tags.push((name, value));
                blank_since_tag = false;
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '{' | '}' | '(' | ')' | ';' | '[' | ']')
                {
                    i += 1;
                }
                if i == start {
                    // A stray closing bracket or brace.
                    i += 1;
                    continue;
                }
                let token: String = chars[start..i].iter().collect();
                if depth > 0 {
                    continue;
                }
                in_movetext = true;
                if RESULTS.contains(&token.as_str()) {
                    game.result_token = Some(token);
                    finish(&mut game, &mut games, line);
                    in_movetext = false;
                    continue;
                }
                if token.starts_with('$') {
                    continue;
                }
                // Move numbers, possibly glued to the move: `12.`, `12...`, `12.e4`.
                let token = if token.starts_with(|c: char| c.is_ascii_digit())
                    && token.contains('.')
                {
                    token.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.')
                } else {
                    token.as_str()
                };
                let token = token.trim_end_matches(['!', '?']);
                if !token.is_empty() {
                    game.moves.push(token.to_owned());
                }
            }
        }
    }
    finish(&mut game, &mut games, line);
    games
}
