//! The protobuf codec of the service: prost's, except that a request that
//! fails to decode (say, invalid UTF-8 in a string field) is the caller's
//! fault and is answered INVALID_ARGUMENT, not tonic-prost's INTERNAL, and that
//! what it reads is any [`Decode`] message and what it writes any [`Encode`]
//! message: prost's, and the requests and answers that [`super::wire`] reads
//! and writes by hand (each implements only the half it needs).

use std::marker::PhantomData;

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};
use tonic_prost::prost::Message;
use tonic_types::{ErrorDetails, StatusExt};

use crate::telemetry::prometheus::ENCODE_ERRORS;

/// A message the server or a client writes.
pub trait Encode: Send + 'static {
    /// The length of the encoded message.
    fn encoded_len(&self) -> usize;

    /// Writes the message, without a length prefix.
    fn encode_raw(&self, buf: &mut impl BufMut);

    /// How tonic buffers the messages of a call before it hands them to
    /// the transport.
    fn buffer_settings() -> BufferSettings
    where
        Self: Sized,
    {
        BufferSettings::default()
    }

    /// Writes the message into tonic's buffer: into a vector first, its
    /// length checked, then copied in one go (an answer of hundreds of
    /// short fields would make each write to tonic's buffer go through
    /// several calls and a capacity check). A message made of bytes
    /// already written, whose lengths are those of the bytes, writes them
    /// straight.
    ///
    /// # Errors
    ///
    /// INTERNAL if the message's length was miscounted.
    fn encode_to(&self, buf: &mut EncodeBuf<'_>) -> Result<(), Status>
    where
        Self: Sized,
    {
        buf.put_slice(&written(self)?);
        Ok(())
    }
}

impl<M: Message + 'static> Encode for M {
    fn encoded_len(&self) -> usize {
        Message::encoded_len(self)
    }

    fn encode_raw(&self, buf: &mut impl BufMut) {
        Message::encode_raw(self, buf);
    }
}

/// A message the server or a client reads.
pub trait Decode: Sized + Send + 'static {
    /// Reads a whole message from `buf`, without a length prefix, as prost's
    /// `Message::decode` does.
    ///
    /// # Errors
    ///
    /// prost's error for bytes that are not such a message, naming the
    /// message and field at fault.
    fn decode(buf: impl Buf) -> Result<Self, DecodeError>;
}

impl<M: Message + Default + 'static> Decode for M {
    fn decode(buf: impl Buf) -> Result<M, DecodeError> {
        Message::decode(buf)
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
    U: Decode,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ArbiterEncoder<T>;
    type Decoder = ArbiterDecoder<U>;

    fn encoder(&mut self) -> ArbiterEncoder<T> {
        ArbiterEncoder(PhantomData)
    }

    fn decoder(&mut self) -> ArbiterDecoder<U> {
        ArbiterDecoder(PhantomData)
    }
}

/// Writes any [`Encode`] message, as prost's encoder writes a prost one.
#[derive(Debug)]
pub struct ArbiterEncoder<T>(PhantomData<T>);

impl<T: Encode> Encoder for ArbiterEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode_to(buf)
    }

    fn buffer_settings(&self) -> BufferSettings {
        T::buffer_settings()
    }
}

/// `item` written out. `encoded_len` should be exact (the byte-for-byte
/// tests hold it to the generated code), but a mistake in it must cost one
/// call, not the process (the release build aborts on a panic): the vector
/// grows if the length is short, and an answer whose length differs from
/// the one counted is never sent, since its framing would be wrong.
fn written(item: &impl Encode) -> Result<Vec<u8>, Status> {
    let expected = item.encoded_len();
    let mut message = Vec::with_capacity(expected);
    item.encode_raw(&mut message);
    if message.len() == expected {
        return Ok(message);
    }
    metrics::counter!(ENCODE_ERRORS).increment(1);
    tracing::error!(expected, written = message.len(), "an answer's length was miscounted");
    Err(Status::internal("the answer could not be written"))
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

/// Reads any [`Decode`] message, with decode failures reported as
/// INVALID_ARGUMENT. tonic hands over one contiguous buffer per message; it
/// is decoded as a byte slice, which prost reads much faster than through
/// tonic's `DecodeBuf` (every varint and string of a long move list goes
/// through the `Buf` calls).
#[derive(Debug)]
pub struct ArbiterDecoder<U>(PhantomData<U>);

impl<U: Decode> Decoder for ArbiterDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let len = buf.remaining();
        let decoded = if buf.chunk().len() == len {
            let decoded = U::decode(buf.chunk());
            buf.advance(len);
            decoded
        } else {
            U::decode(buf)
        };
        decoded.map(Some).map_err(|error| malformed(&error.to_string()))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer that counts `claimed` bytes and writes `actual`.
    struct Miscounted {
        claimed: usize,
        actual: usize,
    }

    impl Encode for Miscounted {
        fn encoded_len(&self) -> usize {
            self.claimed
        }

        fn encode_raw(&self, buf: &mut impl BufMut) {
            buf.put_bytes(b'x', self.actual);
        }
    }

    /// A length counted short or long is an INTERNAL answer, never a panic
    /// (which the release build turns into an abort of the whole server).
    #[test]
    fn a_miscounted_answer_is_an_error_not_an_abort() {
        for (claimed, actual) in [(3, 10), (10, 3), (0, 1 << 16)] {
            let status = written(&Miscounted { claimed, actual }).unwrap_err();
            assert_eq!(status.code(), Code::Internal, "{claimed} vs {actual}");
        }
        assert_eq!(written(&Miscounted { claimed: 5, actual: 5 }).unwrap(), b"xxxxx");
    }
}
