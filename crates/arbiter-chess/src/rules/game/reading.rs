//! Reading a move text in a game: SAN, UCI or either, checked against the
//! rules, with the error that names the rule a rejected move breaks.

use super::{Game, Notation, Played};
use crate::board::moves::Move;
use crate::board::types::Role;
use crate::notation::echo::{MoveText, Quoted};
use crate::notation::illegal::{Illegal, IllegalReason, diagnose_san, diagnose_uci};
use crate::notation::san::{ParseSanError, San, SanMove, push_check_mark};
use crate::notation::uci::{ParseUciError, UciMove};
use crate::rules::outcome::Termination;

impl Game {
    /// Reads `text` in `notation`, checks it, and plays it.
    ///
    /// # Errors
    ///
    /// An [`Illegal`] naming the rule the move breaks; in `strict` mode also
    /// a legal move not written canonically.
    #[inline(always)]
    pub fn play_text<T: MoveText + ?Sized>(
        &mut self,
        text: &T,
        notation: Notation,
        strict: bool,
    ) -> Result<Played, Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let (found, uci) = match self.resolve(text, notation) {
            Ok(found) => found,
            Err(why) => return Err(self.unresolved(text.text(), why)),
        };
        let m = found.mv;
        // A rejected move must leave the game as it was: strict mode keeps
        // the position to put back.
        let before = strict.then(|| self.position.clone());
        let mut san = found.san_without_mark(&self.position);
        self.position.play_piece_unchecked(m, found.role);
        let mated = push_check_mark(&self.position, &mut san);
        let canonical_input = match uci {
            Some(uci) => uci == UciMove::from_move_in(m, self.position.castling_mode()),
            None => san.is(text.bytes()),
        };
        if let Some(before) = before
            && !canonical_input
        {
            self.position = before;
            let canonical =
                UciMove::from_move_in(m, self.position.castling_mode()).to_array_string();
            return Err(not_canonical(text.text(), if uci.is_some() { &canonical } else { &san }));
        }
        self.advance(m, Some(mated));
        Ok(Played { mv: m, san, canonical_input })
    }

    /// [`Game::play_text`] (not strict) without writing the move's SAN: for
    /// callers that want the verdict and the position, not the notation (a
    /// bulk check whose output names no move). The game goes as with
    /// [`Game::play_text`], but for when a mate is found: not after the
    /// move (most moves that check do not mate, and looking for a legal
    /// reply costs more than the rest of the move), but as stalemate is,
    /// when the next move is tried or [`Game::outcome`] asked for; until
    /// then [`Game::is_over`] is false. Returns the move played.
    ///
    /// # Errors
    ///
    /// As [`Game::play_text`].
    ///
    /// ```
    /// use arbiter_chess::{Game, Notation};
    /// let (mut quiet, mut loud) = (Game::new(Default::default()), Game::new(Default::default()));
    /// for text in ["f3", "e5", "g4", "Qh4"] {
    ///     let m = quiet.play_text_quietly(text, Notation::Auto).unwrap();
    ///     assert_eq!(m, loud.play_text(text, Notation::Auto, false).unwrap().mv);
    /// }
    /// assert_eq!(quiet.outcome(), loud.outcome());
    /// assert_eq!(quiet.play_text_quietly("e4", Notation::Auto).unwrap_err().message, "the game is over (checkmate)");
    /// ```
    #[inline]
    pub fn play_text_quietly<T: MoveText + ?Sized>(
        &mut self,
        text: &T,
        notation: Notation,
    ) -> Result<Move, Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let (found, _) = match self.resolve(text, notation) {
            Ok(found) => found,
            Err(why) => return Err(self.unresolved(text.text(), why)),
        };
        let m = found.mv;
        self.position.play_piece_unchecked(m, found.role);
        self.advance(m, None);
        Ok(m)
    }

    /// Reads `text` as UCI, checks it and plays it, without writing SAN: for
    /// callers that want UCI in and UCI out. Returns the move and whether the
    /// text was canonical UCI.
    ///
    /// # Errors
    ///
    /// As [`Game::play_text`].
    ///
    /// ```
    /// use arbiter_chess::Game;
    /// let mut game = Game::new(Default::default());
    /// let (m, canonical) = game.play_uci("g1f3", false).unwrap();
    /// assert_eq!((m.to_string().as_str(), canonical), ("g1f3", true));
    /// ```
    #[inline]
    pub fn play_uci(&mut self, text: &str, strict: bool) -> Result<(Move, bool), Illegal> {
        if let Some((_, termination)) = self.ended {
            return Err(game_over(termination));
        }
        let found = read_uci(text).and_then(|uci| Ok((self.find_uci(&uci)?, uci)));
        let ((m, role), uci) = match found {
            Ok(found) => found,
            Err(illegal) => return Err(self.explain_failure(illegal)),
        };
        // Read UCI writes back to the text it was read from.
        let canonical_input = uci == UciMove::from_move_in(m, self.position.castling_mode());
        if strict && !canonical_input {
            return Err(not_canonical(
                text,
                &UciMove::from_move_in(m, self.position.castling_mode()).to_array_string(),
            ));
        }
        self.position.play_piece_unchecked(m, role);
        let mated = self.position.is_check() && !self.position.has_legal_moves();
        self.advance_in_a_call(m, Some(mated));
        Ok((m, canonical_input))
    }

    /// The error for a move that could not be played: game over when the
    /// side to move has no legal move at all, else `illegal`.
    fn explain_failure(&self, illegal: Illegal) -> Illegal {
        if self.position.has_legal_moves() {
            illegal
        } else if self.position.is_check() {
            game_over(Termination::Checkmate)
        } else {
            game_over(Termination::Stalemate)
        }
    }

    /// The error for a move text that names no legal move here, for the
    /// reason `why`: game over when the side to move has no legal move at
    /// all. Written only for a move refused, out of the way of the others.
    #[cold]
    #[inline(never)]
    fn unresolved(&self, text: &str, why: Unresolved) -> Illegal {
        let pos = &self.position;
        self.explain_failure(match why {
            Unresolved::Unparseable { uci: false } => Illegal::new(
                IllegalReason::Unparseable,
                format!("{} is {ParseSanError}", Quoted(text)),
            ),
            Unresolved::Unparseable { uci: true } => unparseable_uci(text, ParseUciError),
            Unresolved::San(san) => diagnose_san(pos, &san),
            Unresolved::Uci(uci) => diagnose_uci(pos, &uci),
        })
    }

    /// The move `text` means here, and the UCI it was read as, if it was.
    /// A refusal comes back as its reason, small: the message is written
    /// by [`Game::unresolved`], and a move played passes through registers
    /// rather than through an error's room on the stack.
    #[inline(always)]
    fn resolve<T: MoveText + ?Sized>(
        &self,
        text: &T,
        notation: Notation,
    ) -> Result<(SanMove, Option<UciMove>), Unresolved> {
        let pos = &self.position;
        let bytes = text.bytes();
        let uci = match notation {
            Notation::San => None,
            // Most texts are SAN: only one with UCI's two rank digits is
            // read as UCI (the reading refuses the others anyway).
            Notation::Auto => match bytes {
                [_, b'1'..=b'8', _, b'1'..=b'8'] | [_, b'1'..=b'8', _, b'1'..=b'8', _] => {
                    UciMove::read(bytes).ok()
                }
                _ => None,
            },
            Notation::Uci => {
                Some(UciMove::read(bytes).map_err(|_| Unresolved::Unparseable { uci: true })?)
            }
        };
        if let Some(uci) = uci {
            let found = uci.find_san(pos).ok_or(Unresolved::Uci(uci))?;
            return Ok((found, Some(uci)));
        }
        let san = San::read(text).map_err(|_| Unresolved::Unparseable { uci: false })?;
        san.find(pos).map(|found| (found, None)).map_err(|_| Unresolved::San(san))
    }

    /// The legal move `uci` means here, and the role of its piece.
    #[inline(always)]
    fn find_uci(&self, uci: &UciMove) -> Result<(Move, Role), Illegal> {
        uci.find(&self.position).ok_or_else(|| diagnose_uci(&self.position, uci))
    }
}

/// Why a move text names no legal move: what [`Game::unresolved`] writes
/// the error from.
#[derive(Clone, Copy)]
enum Unresolved {
    /// Not SAN (`uci: false`), or not UCI where UCI was asked for.
    Unparseable { uci: bool },
    /// SAN that names no single legal move.
    San(San),
    /// UCI that names no legal move.
    Uci(UciMove),
}

/// `text` read as UCI.
// Inlined, the error apart: a call a UCI ply, for little work.
#[inline(always)]
fn read_uci(text: &str) -> Result<UciMove, Illegal> {
    text.parse().map_err(|e| unparseable_uci(text, e))
}

#[cold]
#[inline(never)]
fn unparseable_uci(text: &str, e: ParseUciError) -> Illegal {
    Illegal::new(IllegalReason::Unparseable, format!("{} is {e}", Quoted(text)))
}

fn not_canonical(text: &str, canonical: &str) -> Illegal {
    Illegal::new(
        IllegalReason::NonCanonical,
        format!("{} is not canonical: write {canonical}", Quoted(text)),
    )
}

fn game_over(termination: Termination) -> Illegal {
    Illegal::new(IllegalReason::GameOver, termination.game_over_message())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::Position;

    /// A quiet replay finds mates late, not differently: the same outcome
    /// and the same answer to a move after the end, a mate still before
    /// the 75-move rule, and stalemate and the draws as before.
    #[test]
    fn quiet_play_ends_games_as_loud_play_does() {
        let cases: [(&str, &[&str]); 5] = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &["f3", "e5", "g4", "Qh4"],
            ),
            // The mate comes with the 150th halfmove: mate wins.
            ("7k/8/6K1/8/8/8/8/R7 w - - 149 100", &["Ra8"]),
            ("7k/8/6K1/8/8/8/8/R7 w - - 149 100", &["Ra7"]),
            // Stalemate, then a bare-kings draw.
            ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", &["Qf7"]),
            ("7k/8/8/8/8/8/5K2/6r1 w - - 0 1", &["Kxg1"]),
        ];
        for (fen, moves) in cases {
            let start: Position = fen.parse().unwrap();
            let (mut quiet, mut loud) = (Game::new(start.clone()), Game::new(start));
            for text in moves {
                let m = quiet.play_text_quietly(text, Notation::Auto).unwrap();
                assert_eq!(m, loud.play_text(text, Notation::Auto, false).unwrap().mv, "{fen}");
                assert_eq!(quiet.outcome(), loud.outcome(), "{fen} after {text}");
            }
            assert!(loud.outcome().is_over(), "{fen}");
            let after =
                |game: &mut Game| game.play_text_quietly("Kh1", Notation::Auto).unwrap_err();
            assert_eq!(after(&mut quiet), after(&mut loud), "{fen}");
        }
    }
}
