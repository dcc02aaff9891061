//! The clock: time controls (the PGN TimeControl tag and a structured
//! form with a delay) and the arithmetic that runs both sides' clocks
//! move by move and tells when a flag fell, and a move list's clock
//! record run on it.

pub(crate) mod control;
pub(crate) mod record;
pub(crate) mod running;
