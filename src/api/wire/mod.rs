//! The messages the server reads and writes by hand, byte for byte the
//! contract's (the generated types in [`crate::proto`] stay the clients').
//!
//! - `requests`: `ValidateGameRequest`, `ValidateGamesRequest` and
//!   `LegalMovesRequest`: the repeated `moves` field decodes into one
//!   buffer with the end of each text ([`MoveTexts`](crate::move_texts::MoveTexts))
//!   rather than a `String` per move. They are read through the codec's
//!   [`Decode`](crate::api::codec::Decode), not prost's `Message`: the
//!   server never writes them.
//! - `answers`: [`GameAnswer`] and [`StreamAnswer`] write
//!   `ValidateGameResponse` and `ValidateGamesResponse` straight from the
//!   replay, without a `String` for every ply and legal move, through the
//!   codec's [`Encode`](crate::api::codec::Encode): the server never reads
//!   them. Each ply's clock is written in the form the request sent its
//!   move times ([`PlyClockForm`]): `Ply.clock` for `GameClock.move_times`,
//!   `Ply.clock_ms` for the packed `move_times_ms` (which `requests`
//!   decodes in place, straight into its vector).

mod answers;
mod requests;

pub use answers::{GameAnswer, PlyClockForm, StreamAnswer, StreamResult};
pub use requests::{GameClockFields, LegalMovesRequest, ValidateGameRequest, ValidateGamesRequest};
