//! Who can still checkmate: the unwinnability analysis, being split into
//! its parts.

mod playouts;

pub use playouts::*;
