//! Notation on top of the board: SAN and UCI read and written, the reason
//! a move text is illegal, and a caller's text quoted in bounded length.

pub(crate) mod echo;
pub(crate) mod illegal;
pub(crate) mod san;
pub(crate) mod uci;
