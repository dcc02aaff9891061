//! The games a PGN line's moves are played in, one a rule set: standard
//! chess and Chess960 ([`Game`]), lichess's variants ([`VariantGame`]).

use arbiter_chess::{
    Game, Illegal, MoveText, Notation, Position, SanString, VariantGame, legal_moves_to_two,
};

/// A game the moves of a PGN line are played in, by its rules.
pub(crate) trait PlaysText: Clone {
    /// Plays the move `text` (SAN or UCI: a token's bytes as the file has
    /// them), with its canonical SAN when `san`.
    fn play(&mut self, text: &[u8], san: bool) -> Result<Option<SanString>, Illegal>;
    /// The board (a variant's without its pockets or checks).
    fn board(&self) -> &Position;
    /// The legal moves of the side to move, counted to two at least
    /// ([`legal_moves_to_two`]).
    fn legal_moves_to_two(&self) -> usize;
}

impl PlaysText for Game {
    // Inlined into the mainline's loop, as the call was before variants:
    // out of line, it costs about 4 % of a whole `arbiter pgn` run.
    #[inline(always)]
    fn play(&mut self, text: &[u8], san: bool) -> Result<Option<SanString>, Illegal> {
        if san {
            self.play_text(text, Notation::Auto, false).map(|p| Some(p.san))
        } else {
            self.play_text_quietly(text, Notation::Auto).map(|_| None)
        }
    }

    fn board(&self) -> &Position {
        self.position()
    }

    fn legal_moves_to_two(&self) -> usize {
        legal_moves_to_two(self.position())
    }
}

impl PlaysText for VariantGame {
    /// The SAN is always made (the check needs it), and kept when `san`.
    fn play(&mut self, text: &[u8], san: bool) -> Result<Option<SanString>, Illegal> {
        let ply = self.play_checked(text.text(), Notation::Auto, false)?;
        Ok(san.then_some(ply.san))
    }

    fn board(&self) -> &Position {
        self.position().board()
    }

    fn legal_moves_to_two(&self) -> usize {
        self.position().legal_moves().len()
    }
}
