//! Standard Algebraic Notation, being split into reading and writing.

mod read;

pub use read::*;
