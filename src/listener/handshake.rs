//! Watching the first bytes a plaintext client sends for the end of the
//! HTTP/2 handshake: the connection preface and the SETTINGS frame after it.
//!
//! Only the opening of a connection is read, a few dozen bytes, and never
//! kept: once the handshake is over (or the bytes are not HTTP/2, so the
//! client speaks HTTP/1.1 and its first request marks the end) nothing more
//! is looked at.

/// What every HTTP/2 client sends first (RFC 9113, section 3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Length of an HTTP/2 frame header.
const FRAME_HEADER: usize = 9;
/// The SETTINGS frame type.
const SETTINGS: u8 = 0x4;

/// How far the client has got with the HTTP/2 handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// This many bytes of the preface have been read.
    Preface(usize),
    /// The preface, and this many bytes of the next frame's header.
    Header { read: usize, header: [u8; FRAME_HEADER] },
    /// The preface and a SETTINGS frame header; this much payload to come.
    Settings(usize),
    /// The preface and a whole SETTINGS frame: the handshake is complete.
    Done,
    /// Not HTTP/2 (an HTTP/1.1 request, or a frame other than SETTINGS
    /// after the preface, which h2 will refuse): another sign has to say
    /// whether the handshake completed.
    NotHttp2,
}

impl Default for Handshake {
    fn default() -> Handshake {
        Handshake::Preface(0)
    }
}

impl Handshake {
    /// Whether more bytes could still change the state.
    pub fn is_open(self) -> bool {
        !matches!(self, Handshake::Done | Handshake::NotHttp2)
    }

    /// The state after the client's next `bytes`.
    pub fn feed(mut self, mut bytes: &[u8]) -> Handshake {
        while !bytes.is_empty() {
            self = match self {
                Handshake::Preface(read) => {
                    let n = bytes.len().min(PREFACE.len() - read);
                    if bytes[..n] != PREFACE[read..read + n] {
                        return Handshake::NotHttp2;
                    }
                    bytes = &bytes[n..];
                    if read + n == PREFACE.len() {
                        Handshake::Header { read: 0, header: [0; FRAME_HEADER] }
                    } else {
                        Handshake::Preface(read + n)
                    }
                }
                Handshake::Header { read, mut header } => {
                    let n = bytes.len().min(FRAME_HEADER - read);
                    header[read..read + n].copy_from_slice(&bytes[..n]);
                    bytes = &bytes[n..];
                    if read + n < FRAME_HEADER {
                        Handshake::Header { read: read + n, header }
                    } else if header[3] != SETTINGS {
                        return Handshake::NotHttp2;
                    } else {
                        let length = u32::from_be_bytes([0, header[0], header[1], header[2]]);
                        Handshake::Settings(length as usize)
                    }
                }
                Handshake::Settings(left) => {
                    let n = bytes.len().min(left);
                    bytes = &bytes[n..];
                    Handshake::Settings(left - n)
                }
                done @ (Handshake::Done | Handshake::NotHttp2) => return done,
            };
            if self == Handshake::Settings(0) {
                return Handshake::Done;
            }
        }
        if self == Handshake::Settings(0) { Handshake::Done } else { self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preface and a SETTINGS frame with one setting, as a client
    /// sends them, then a HEADERS frame's first bytes.
    fn opening() -> Vec<u8> {
        let mut bytes = PREFACE.to_vec();
        bytes.extend_from_slice(&[0, 0, 6, SETTINGS, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0, 3, 0, 0, 0, 100]);
        bytes.extend_from_slice(&[0, 0, 10, 1, 4, 0, 0, 0, 1]);
        bytes
    }

    #[test]
    fn the_handshake_ends_with_the_settings_frame_however_the_bytes_arrive() {
        let bytes = opening();
        let settings_end = PREFACE.len() + FRAME_HEADER + 6;
        // At once.
        assert_eq!(Handshake::default().feed(&bytes), Handshake::Done);
        // One byte at a time: done exactly at the last byte of SETTINGS.
        let mut state = Handshake::default();
        for (i, byte) in bytes.iter().enumerate() {
            assert_eq!(state.is_open(), i < settings_end, "before byte {i}: {state:?}");
            state = state.feed(std::slice::from_ref(byte));
        }
        assert_eq!(state, Handshake::Done);
        // In every split in two.
        for cut in 0..bytes.len() {
            let state = Handshake::default().feed(&bytes[..cut]);
            assert_eq!(state.is_open(), cut < settings_end, "cut at {cut}: {state:?}");
            assert_eq!(state.feed(&bytes[cut..]), Handshake::Done, "cut at {cut}");
        }
    }

    #[test]
    fn an_empty_settings_frame_ends_the_handshake() {
        let mut bytes = PREFACE.to_vec();
        bytes.extend_from_slice(&[0, 0, 0, SETTINGS, 0, 0, 0, 0, 0]);
        assert_eq!(Handshake::default().feed(&bytes), Handshake::Done);
        assert!(Handshake::default().feed(&bytes[..bytes.len() - 1]).is_open());
    }

    #[test]
    fn other_openings_are_not_http2() {
        let http1 = b"POST /arbiter.v1.RulesService/ValidateGame HTTP/1.1\r\n";
        assert_eq!(Handshake::default().feed(http1), Handshake::NotHttp2);
        assert_eq!(Handshake::default().feed(b"PRI * HTTP/1.1"), Handshake::NotHttp2);
        // A TLS ClientHello sent to a plaintext port.
        assert_eq!(Handshake::default().feed(&[0x16, 3, 1, 0, 200]), Handshake::NotHttp2);
        // The preface, then a PING instead of SETTINGS.
        let mut bytes = PREFACE.to_vec();
        bytes.extend_from_slice(&[0, 0, 8, 6, 0, 0, 0, 0, 0]);
        assert_eq!(Handshake::default().feed(&bytes), Handshake::NotHttp2);
        // Nothing yet is nothing decided.
        assert_eq!(Handshake::default().feed(b""), Handshake::Preface(0));
        assert_eq!(Handshake::default().feed(b"PRI"), Handshake::Preface(3));
    }
}
