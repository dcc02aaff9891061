//! The protobuf codec of the service: prost's, except that a request that
//! fails to decode (say, invalid UTF-8 in a string field) is the caller's
//! fault and is answered INVALID_ARGUMENT, not prost's INTERNAL, and that
//! what it writes is any [`Encode`] message: prost's, and the answers that
//! [`super::wire`] writes straight from the rules core.

use std::marker::PhantomData;

use prost::bytes::BufMut;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};
use tonic_prost::ProstDecoder;
use tonic_prost::prost::Message;
use tonic_types::{ErrorDetails, StatusExt};

/// A message the server or a client writes.
pub trait Encode: Send + 'static {
    /// The length of the encoded message.
    fn encoded_len(&self) -> usize;

    /// Writes the message, without a length prefix.
    fn encode_raw(&self, buf: &mut impl BufMut);
}

impl<M: Message + 'static> Encode for M {
    fn encoded_len(&self) -> usize {
        Message::encoded_len(self)
    }

    fn encode_raw(&self, buf: &mut impl BufMut) {
        Message::encode_raw(self, buf);
    }
}

/// Writes `T`, reads `U` with decode failures reported as INVALID_ARGUMENT.
#[derive(Debug)]
pub struct ArbiterCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ArbiterCodec<T, U> {
    fn default() -> Self {
        ArbiterCodec(PhantomData)
    }
}

impl<T, U> Codec for ArbiterCodec<T, U>
where
    T: Encode,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ArbiterEncoder<T>;
    type Decoder = ArbiterDecoder<U>;

    fn encoder(&mut self) -> ArbiterEncoder<T> {
        ArbiterEncoder(PhantomData)
    }

    fn decoder(&mut self) -> ArbiterDecoder<U> {
        ArbiterDecoder(ProstDecoder::default())
    }
}

/// Writes any [`Encode`] message, as prost's encoder writes a prost one.
#[derive(Debug)]
pub struct ArbiterEncoder<T>(PhantomData<T>);

impl<T: Encode> Encoder for ArbiterEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // The buffer grows as needed, so the message never runs out of room.
        item.encode_raw(buf);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}
/// INVALID_ARGUMENT for a message prost could not decode, with the field it
/// names (prost says e.g. `ValidateGameRequest.moves: invalid string value`)
/// in `BadRequest` and the reason `MALFORMED_MESSAGE` in `ErrorInfo`.
fn malformed(detail: &str) -> Status {
    let field = detail
        .split(": ")
        .find_map(|part| part.split_once('.').map(|(_, field)| field))
        .filter(|field| field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or("");
    let message = format!("malformed request message: {detail}");
    let mut details = ErrorDetails::with_bad_request_violation(field, message.clone());
    details.set_error_info(
        "MALFORMED_MESSAGE",
        super::ERROR_DOMAIN,
        std::collections::HashMap::new(),
    );
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// [`ProstDecoder`] with decode failures reported as INVALID_ARGUMENT.
#[derive(Debug)]
pub struct ArbiterDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for ArbiterDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| match status.code() {
            Code::Internal => malformed(status.message()),
            _ => status,
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
