//! Game rules on top of notation: a game as it is played and replayed, its
//! outcome and draw claims, dead positions and unwinnability, the clock,
//! and lichess's variants.

pub(crate) mod clock;
pub(crate) mod dead;
pub(crate) mod game;
pub(crate) mod outcome;
pub(crate) mod record;
pub(crate) mod start;
pub(crate) mod unwinnable;
pub(crate) mod variant;
