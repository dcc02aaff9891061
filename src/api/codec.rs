//! The protobuf codec of the service: prost's, except that a request that
//! fails to decode (say, invalid UTF-8 in a string field) is the caller's
//! fault and is answered INVALID_ARGUMENT, not prost's INTERNAL.

use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::{Code, Status};
use tonic_prost::prost::Message;
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};
use tonic_types::{ErrorDetails, StatusExt};

/// [`ProstCodec`] with decode failures reported as INVALID_ARGUMENT.
#[derive(Debug, Default)]
pub struct ArbiterCodec<T, U>(ProstCodec<T, U>);

impl<T, U> Codec for ArbiterCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ArbiterDecoder<U>;

    fn encoder(&mut self) -> ProstEncoder<T> {
        self.0.encoder()
    }

    fn decoder(&mut self) -> ArbiterDecoder<U> {
        ArbiterDecoder(self.0.decoder())
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
