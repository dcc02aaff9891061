//! HTTP/2 frames written by hand, for clients no HTTP/2 library would
//! play: resets in a burst, header blocks that never end, HPACK bombs.

use tokio::io::AsyncReadExt;

/// What every HTTP/2 client sends first.
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Frame types.
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const GOAWAY: u8 = 0x7;
pub const CONTINUATION: u8 = 0x9;
/// The END_STREAM flag of HEADERS (and DATA).
pub const END_STREAM: u8 = 0x1;
/// The END_HEADERS flag of HEADERS and CONTINUATION.
pub const END_HEADERS: u8 = 0x4;

/// An HTTP/2 frame: 9-byte header and payload.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap().to_be_bytes();
    let mut bytes = vec![length[1], length[2], length[3], kind, flags];
    bytes.extend_from_slice(&stream.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The preface and an empty SETTINGS frame: the client's half of the
/// HTTP/2 handshake.
pub fn handshake() -> Vec<u8> {
    [PREFACE, &frame(0x4, 0, 0, &[])].concat()
}

/// The header block of a health check, HPACK-coded with literal fields
/// only.
pub fn health_block() -> Vec<u8> {
    let mut block = vec![0x83, 0x86]; // :method POST, :scheme http
    let mut literal = |index: u8, value: &[u8]| {
        block.push(index);
        block.push(u8::try_from(value.len()).unwrap());
        block.extend_from_slice(value);
    };
    literal(0x04, b"/grpc.health.v1.Health/Check"); // :path
    literal(0x01, b"localhost"); // :authority
    block.extend_from_slice(&[0x0f, 0x10]); // content-type (index 31)
    block.push(16);
    block.extend_from_slice(b"application/grpc");
    block
}

/// The HEADERS of a health check on `stream`, with END_HEADERS.
pub fn health_headers(stream: u32) -> Vec<u8> {
    frame(HEADERS, END_HEADERS, stream, &health_block())
}

/// The next frame from the server: type, stream and payload; `None` once
/// the connection has ended.
pub async fn read_frame(reader: &mut (impl AsyncReadExt + Unpin)) -> Option<(u8, u32, Vec<u8>)> {
    let mut header = [0u8; 9];
    reader.read_exact(&mut header).await.ok()?;
    let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
    let stream = u32::from_be_bytes(header[5..9].try_into().unwrap()) & 0x7fff_ffff;
    let mut payload = vec![0u8; length];
    reader.read_exact(&mut payload).await.ok()?;
    Some((header[3], stream, payload))
}
