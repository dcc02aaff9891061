//! The answers the server writes by hand: [`GameAnswer`] and
//! [`StreamAnswer`] write `ValidateGameResponse` and
//! `ValidateGamesResponse` straight from the replay, without a `String`
//! for every ply and legal move.
//!
//! The same answer's other forms sit in [`crate::answer`]: the generated
//! messages (which these bytes equal, byte for byte), the proto3 JSON of
//! `arbiter validate` and the JSON line of `arbiter pgn --json`.

use prost::bytes::BufMut;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len, message};
use tonic::Status;
use tonic::codec::{BufferSettings, EncodeBuf};

use crate::answer::winnability_message;
use crate::api::codec::Encode;
use crate::proto;
use arbiter_chess::{
    Color, GameAnalysis, LegalMove, MAX_FEN_LEN, Outcome, PlyRecord, Replay, SanString, UciMove,
};

/// The generated twins of the answers written here, each field named: a
/// field added to the contract does not compile until the encoders below
/// write it (and the byte-for-byte tests hold them to the generated code).
const _: fn(proto::ValidateGameResponse) = |proto::ValidateGameResponse {
                                                plies: _,
                                                illegal_move: _,
                                                position: _,
                                                outcome: _,
                                                analysis: _,
                                                rulings: _,
                                            }| {};
const _: fn(proto::Ply) =
    |proto::Ply { san: _, uci: _, fen_after: _, canonical_input: _, clock: _, clock_ms: _ }| {};
const _: fn(proto::LegalMove) = |proto::LegalMove { uci: _, san: _, claimable_draws: _ }| {};
const _: fn(proto::Position) = |proto::Position {
                                    fen: _,
                                    turn: _,
                                    in_check: _,
                                    halfmove_clock: _,
                                    fullmove_number: _,
                                    legal_moves: _,
                                    winnability: _,
                                    clocks: _,
                                }| {};
const _: fn(proto::Outcome) = |proto::Outcome {
                                   result: _,
                                   termination: _,
                                   claimable_draws: _,
                                   pgn_result: _,
                                   unproven: _,
                               }| {};
const _: fn(proto::ValidateGamesResponse) = |proto::ValidateGamesResponse { id: _, result: _ }| {};

/// `arbiter.v1.ValidateGameResponse`, written straight from the replay
/// when it is made: the bytes of the generated message that
/// `From<&Replay>` builds, without a `String` for every ply and every legal
/// move, in one pass of short fixed-width copies. Made where the game was
/// replayed, the answer then travels as its bytes alone (the replay is
/// dropped there), and the codec copies them once into tonic's buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnswer {
    bytes: Vec<u8>,
}

impl GameAnswer {
    /// The encoded message.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<&proto::ValidateGameResponse> for GameAnswer {
    /// A message built by prost: a variant game's answer, which the
    /// server does not write by hand.
    fn from(message: &proto::ValidateGameResponse) -> GameAnswer {
        GameAnswer { bytes: prost::Message::encode_to_vec(message) }
    }
}

/// How an answer writes each ply's clock: as the request sent its move
/// times (`GameClock.move_times` or `move_times_ms`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlyClockForm {
    /// `Ply.clock`, a `google.protobuf.Duration`.
    #[default]
    Duration,
    /// `Ply.clock_ms`, whole milliseconds as a `uint32`; the caller has
    /// checked that each fits.
    Millis,
}

/// The ply clocks in the Duration form, as a request without a clock
/// record or with `move_times` asks.
impl From<Replay> for GameAnswer {
    /// The answer to a replay with no rulings ([`GameAnswer::new`] writes
    /// them).
    fn from(replay: Replay) -> GameAnswer {
        debug_assert!(replay.rulings.is_empty(), "rulings are written by GameAnswer::new");
        GameAnswer::written(replay, PlyClockForm::Duration)
    }
}

impl GameAnswer {
    /// The answer to `replay`, each ply's clock (if any) in `form`.
    ///
    /// # Errors
    ///
    /// In the `Millis` form, the first returned ply's time past `uint32`
    /// (which `Ply.clock_ms` cannot hold), found before anything is
    /// written: the caller answers with an error instead.
    /// What the game was (`analysis`, field 5) and the rulings on its
    /// completed illegal moves (field 6) follow the fields written by
    /// hand, written by prost, for the calls that ask for them only.
    pub fn new(
        mut replay: Replay,
        form: PlyClockForm,
        analysis: Option<&GameAnalysis>,
    ) -> Result<GameAnswer, u64> {
        if form == PlyClockForm::Millis
            && let Some(clocks) = &replay.clocks
            && let Some(ms) = past_u32(&clocks.plies_ms)
        {
            return Err(ms);
        }
        let rulings = std::mem::take(&mut replay.rulings);
        let mut answer = GameAnswer::written(replay, form);
        if let Some(analysis) = analysis {
            message::encode(5, &proto::GameAnalysis::from(analysis), &mut answer.bytes);
        }
        for ruling in &rulings {
            message::encode(6, &proto::Ruling::from(ruling), &mut answer.bytes);
        }
        Ok(answer)
    }

    /// The answer; in the `Millis` form, each ply's time within `uint32`
    /// (as [`GameAnswer::new`] checks).
    fn written(replay: Replay, form: PlyClockForm) -> GameAnswer {
        let Replay {
            plies,
            illegal_move,
            position,
            legal_moves,
            outcome,
            winnability,
            shredder_fen,
            clocks,
            rulings: _,
        } = &replay;
        // Plies without FENs take at most 20 bytes, legal moves 20; the
        // writer grows if FENs, clocks or verdicts need more.
        let mut out = Writer::with_room(24 * plies.len() + 24 * legal_moves.len() + 256);
        match clocks {
            None => plies.iter().for_each(|ply| put_ply(ply, &mut out)),
            Some(clocks) => {
                let timed = plies.iter().zip(&clocks.plies_ms);
                match form {
                    PlyClockForm::Duration => {
                        timed.for_each(|(ply, &ms)| put_ply_timed::<DURATION>(ply, ms, &mut out));
                    }
                    PlyClockForm::Millis => {
                        timed.for_each(|(ply, &ms)| put_ply_timed::<MILLIS>(ply, ms, &mut out));
                    }
                }
            }
        }
        if let Some(bad) = illegal_move {
            out.with_vec(|bytes| message::encode(2, &proto::IllegalMove::from(bad), bytes));
        }
        out.nested(3, |out| {
            put_text_in(1, &position.fen_in(*shredder_fen), out);
            let turn = match position.turn() {
                Color::White => proto::Color::White,
                Color::Black => proto::Color::Black,
            };
            put_varint_field(2, turn as u64, out);
            if position.is_check() {
                out.push(&[key(3, WireType::Varint), 1]);
            }
            put_varint_field(4, position.halfmove_clock().into(), out);
            put_varint_field(5, position.fullmove_number().into(), out);
            for legal in legal_moves {
                put_legal_move(legal, out);
            }
            if let Some(verdicts) = winnability {
                let message = winnability_message(verdicts, position.castling_mode());
                out.with_vec(|bytes| message::encode(7, &message, bytes));
            }
            if let Some(clocks) = clocks {
                out.nested(8, |out| {
                    for (tag, ms) in [1, 2].into_iter().zip(clocks.remaining_ms) {
                        put_duration(tag, ms, out);
                    }
                });
            }
        });
        out.nested(4, |out| put_outcome(outcome, out));
        GameAnswer { bytes: out.finish() }
    }
}

/// The first of `times` past `uint32`, if any: any bit past 32 looked for
/// in all of them at once first (a vectorised OR), since none is the rule.
fn past_u32(times: &[u64]) -> Option<u64> {
    let high = times.iter().fold(0, |high, &ms| high | ms) >> 32;
    if high == 0 { None } else { times.iter().copied().find(|&ms| ms >> 32 != 0) }
}

/// A buffer written at its end through fixed-width copies: it keeps room
/// past what is written, a short text is copied with the bytes that pad it
/// to a fixed width, and the end moves by the text's length only (what
/// was copied past it is written over next, or cut at the end).
struct Writer {
    bytes: Vec<u8>,
    end: usize,
}

impl Writer {
    /// Room a field written by a fixed-width copy needs past the end.
    const SLACK: usize = 16;

    fn with_room(room: usize) -> Writer {
        Writer { bytes: vec![0; room], end: 0 }
    }

    /// Makes room for `len` more bytes and the slack of a fixed-width copy.
    #[inline]
    fn room(&mut self, len: usize) {
        let need = self.end + len + Self::SLACK;
        if need > self.bytes.len() {
            self.bytes.resize(need.max(2 * self.bytes.len()), 0);
        }
    }

    /// Appends `bytes`, for which there is room.
    #[inline]
    fn push(&mut self, bytes: &[u8]) {
        self.bytes[self.end..self.end + bytes.len()].copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Appends the first `len` bytes of `bytes`, copying all of them.
    #[inline]
    fn push_prefix<const N: usize>(&mut self, bytes: [u8; N], len: usize) {
        debug_assert!(len <= N);
        self.bytes[self.end..self.end + N].copy_from_slice(&bytes);
        self.end += len;
    }

    /// The next `N` bytes past the end, made room for.
    #[inline]
    fn window<const N: usize>(&mut self) -> &mut [u8; N] {
        if self.bytes.len() - self.end < N {
            self.room(N);
        }
        self.bytes[self.end..].first_chunk_mut().expect("room was made for the window")
    }

    /// Lets `write` append to the written bytes as a vector (for the rare
    /// parts that prost writes).
    fn with_vec(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        self.bytes.truncate(self.end);
        write(&mut self.bytes);
        self.end = self.bytes.len();
        self.room(0);
    }

    /// Field `tag` holding the message that `write` appends: the content
    /// is written after room for the longest key and length, then moved
    /// back to its header (a short move: the position is a few hundred
    /// bytes).
    fn nested(&mut self, tag: u32, write: impl FnOnce(&mut Writer)) {
        const HEADER: usize = 1 + 5;
        debug_assert!(tag < 16, "a one-byte key");
        self.room(HEADER);
        let at = self.end;
        self.end += HEADER;
        write(self);
        let len = self.end - at - HEADER;
        let (length, width) = varint(len as u64);
        self.bytes[at] = key(tag as u8, WireType::LengthDelimited);
        self.bytes[at + 1..at + 1 + width].copy_from_slice(&length[..width]);
        self.bytes.copy_within(at + HEADER..self.end, at + 1 + width);
        self.end -= HEADER - 1 - width;
    }

    fn finish(mut self) -> Vec<u8> {
        self.bytes.truncate(self.end);
        self.bytes
    }
}

/// `value` as a varint: its bytes and how many of them it takes.
#[inline]
const fn varint(mut value: u64) -> ([u8; 10], usize) {
    let mut bytes = [0; 10];
    let mut len = 0;
    while value >= 0x80 {
        bytes[len] = value as u8 | 0x80;
        value >>= 7;
        len += 1;
    }
    bytes[len] = value as u8;
    (bytes, len + 1)
}

/// A varint field (`uint32`, `int32` of a non-negative value, an enum),
/// nothing when 0 (proto3).
fn put_varint_field(tag: u8, value: u64, out: &mut Writer) {
    if value != 0 {
        let (bytes, len) = varint(value);
        out.room(1 + len);
        out.push(&[key(tag, WireType::Varint)]);
        out.push_prefix(bytes, len);
    }
}

/// A string field, nothing when empty (proto3).
fn put_text_in(tag: u8, text: &str, out: &mut Writer) {
    if !text.is_empty() {
        let (length, width) = varint(text.len() as u64);
        out.room(1 + width + text.len());
        out.push(&[key(tag, WireType::LengthDelimited)]);
        out.push_prefix(length, width);
        out.push(text.as_bytes());
    }
}

/// The length of a length-delimited field whose content is `len` bytes.
fn nested_len(tag: u32, len: usize) -> usize {
    key_len(tag) + encoded_len_varint(len as u64) + len
}

/// The length of a string field, nothing when empty (proto3).
fn text_len(tag: u32, text: &str) -> usize {
    if text.is_empty() { 0 } else { nested_len(tag, text.len()) }
}

/// The key and length of a length-delimited field.
fn put_header(tag: u32, len: usize, buf: &mut impl BufMut) {
    encode_key(tag, WireType::LengthDelimited, buf);
    encode_varint(len as u64, buf);
}

fn put_text(tag: u32, text: &str, buf: &mut impl BufMut) {
    if !text.is_empty() {
        put_header(tag, text.len(), buf);
        buf.put_slice(text.as_bytes());
    }
}

// Plies and legal moves are most of an answer: hundreds of small messages
// of short fields. They are written with few copies, all of fixed width
// but the FENs (which compile to plain stores), and no varint loops: their
// fields have tags below 16 and every length in them but a FEN's stays
// under 128 (SAN is at most 7 bytes, UCI 5), so each key and each length is
// one byte. A ply with a FEN (up to `MAX_FEN_LEN` bytes, a crazyhouse
// pocket's included) is written field by field, its lengths as varints.

/// The longest ply's content without a FEN: SAN, UCI and the flag.
const MAX_PLY_LEN: usize = short_len(SanString::CAPACITY) + short_len(UciMove::MAX_LEN) + 2;

// Every length in a ply without a FEN, and the ply's own, is written as one
// byte (`as u8`): a one-byte varint holds less than 128.
const _: () = assert!(MAX_PLY_LEN < 128, "a ply's length must be a one-byte varint");
// A FEN's length is at most two bytes of varint.
const _: () = assert!(MAX_FEN_LEN < 1 << 14);
// A legal move also carries at most two claims, packed: four bytes.
const MAX_LEGAL_MOVE_LEN: usize = short_len(UciMove::MAX_LEN) + short_len(SanString::CAPACITY) + 4;
const _: () = assert!(MAX_LEGAL_MOVE_LEN < 128, "a legal move's length must be a one-byte varint");
// The fixed-width copies (SAN's eight bytes, UCI's eight with key and
// length) reach at most this far past a field's end.
const _: () = assert!(size_of::<SanString>() + 8 <= Writer::SLACK);

/// The one-byte key of field `tag`.
const fn key(tag: u8, wire_type: WireType) -> u8 {
    tag << 3 | wire_type as u8
}

/// The length of a string field of `len` bytes, `len` under 128.
const fn short_len(len: usize) -> usize {
    2 + len
}

/// A UCI move as string field `tag`: key, length and text, then padding.
#[inline]
fn uci_field(tag: u8, uci: UciMove) -> [u8; 8] {
    let [a, b, c, d, promotion] = uci.ascii();
    [key(tag, WireType::LengthDelimited), uci.text_len() as u8, a, b, c, d, promotion, 0]
}

/// `arbiter.v1.Ply` as field 1 of the answer. Without a FEN (the common
/// case) a ply is at most 20 bytes: written into one window of the buffer,
/// at offsets the compiler can bound (SAN's length masked to 7), so that
/// its four copies need no bounds check each.
#[inline]
fn put_ply(ply: &PlyRecord, out: &mut Writer) {
    put_ply_timed::<NO_CLOCK>(ply, 0, out);
}

// How [`put_ply_timed`] writes the mover's clock: not at all, as `clock`
// (a Duration) or as `clock_ms` (a varint).
const NO_CLOCK: u8 = 0;
const DURATION: u8 = 1;
const MILLIS: u8 = 2;

/// The field that holds a ply's clock of `ms` in form `FORM` (`DURATION`
/// or `MILLIS`): key, then length and content or the varint; its length.
#[inline(always)]
fn ply_clock_field<const FORM: u8>(ms: u64) -> ([u8; 20], usize) {
    let mut field = [0; 20];
    if FORM == MILLIS {
        // Within `uint32`, as `GameAnswer::new` checks.
        let (word, len) = millis_field(ms as u32);
        field[..8].copy_from_slice(&word.to_le_bytes());
        (field, len)
    } else {
        let (content, len) = duration_content(ms);
        field[..2].copy_from_slice(&[key(5, WireType::LengthDelimited), len as u8]);
        field[2..].copy_from_slice(&content);
        (field, short_len(len))
    }
}

/// `Ply.clock_ms` of `ms` milliseconds: the key and the varint as the low
/// bytes of a little-endian word, and their length. Without a loop: the
/// varint's 7-bit groups spread to bytes, the continuation bits set on all
/// but the last; the common width (three bytes, 16 s to 35 min) without
/// working the width out.
#[inline(always)]
fn millis_field(ms: u32) -> (u64, usize) {
    let value = u64::from(ms);
    if (1 << 14..1 << 21).contains(&value) {
        let groups = (value & 0x7f) | (value << 1 & 0x7f00) | (value << 2 & 0x7f_0000);
        return (u64::from(key(6, WireType::Varint)) | (groups | 0x8080) << 8, 4);
    }
    let width = ((value | 1).ilog2() / 7 + 1) as usize;
    let groups = (value & 0x7f)
        | (value << 1 & 0x7f00)
        | (value << 2 & 0x7f_0000)
        | (value << 3 & 0x7f00_0000)
        | (value << 4 & 0xf_0000_0000);
    let more = 0x80_8080_8080 & ((1u64 << (8 * (width - 1))) - 1);
    (u64::from(key(6, WireType::Varint)) | (groups | more) << 8, 1 + width)
}

/// [`put_ply`], with its mover's clock after it (`clock_ms`) in form
/// `FORM` unless `NO_CLOCK`: one more field in the same window (a ply
/// stays under 128 bytes).
#[inline]
fn put_ply_timed<const FORM: u8>(ply: &PlyRecord, clock_ms: u64, out: &mut Writer) {
    let PlyRecord { san, uci, fen_after, canonical_input } = ply;
    if fen_after.is_some() {
        let clock = match FORM {
            NO_CLOCK => None,
            _ => Some(ply_clock_field::<FORM>(clock_ms)),
        };
        return put_ply_in_full(ply, clock, out);
    }
    let (san_len, uci_len) = (san.len() & 7, uci.text_len() & 7);
    let flag = 2 * usize::from(*canonical_input);
    // `clock_ms` is one word (its key and varint in the low six bytes);
    // a Duration field up to 20 bytes.
    let (millis, millis_len) = if FORM == MILLIS { millis_field(clock_ms as u32) } else { (0, 0) };
    let (clock, clock_field) = match FORM {
        DURATION => ply_clock_field::<FORM>(clock_ms),
        MILLIS => ([0; 20], millis_len),
        _ => ([0; 20], 0),
    };
    let len = short_len(san_len) + short_len(uci_len) + flag + clock_field;
    let window = out.window::<48>();
    window[..4].copy_from_slice(&[
        key(1, WireType::LengthDelimited),
        len as u8,
        key(1, WireType::LengthDelimited),
        san_len as u8,
    ]);
    window[4..12].copy_from_slice(&san.padded());
    let at = 4 + san_len;
    window[at..at + 8].copy_from_slice(&uci_field(2, *uci));
    let at = at + short_len(uci_len);
    window[at..at + 2].copy_from_slice(&[key(4, WireType::Varint), 1]);
    let at = at + flag;
    if FORM == MILLIS {
        window[at..at + 8].copy_from_slice(&millis.to_le_bytes());
    } else if FORM == DURATION {
        window[at..at + 20].copy_from_slice(&clock);
    }
    out.end += at + clock_field;
}

/// A ply with the FEN after it, and its mover's clock field (from
/// [`ply_clock_field`]) if any, field by field.
fn put_ply_in_full(ply: &PlyRecord, clock: Option<([u8; 20], usize)>, out: &mut Writer) {
    let PlyRecord { san, uci, fen_after, canonical_input } = ply;
    let fen = fen_after.as_ref().map_or("", |fen| fen.as_str());
    let len = short_len(san.len())
        + short_len(uci.text_len())
        + if fen.is_empty() { 0 } else { 1 + varint(fen.len() as u64).1 + fen.len() }
        + 2 * usize::from(*canonical_input)
        + clock.map_or(0, |(_, len)| len);
    // With a FEN and a clock, a ply may pass 127 bytes: a longer length.
    let (length, width) = varint(len as u64);
    out.room(1 + width + len);
    out.push(&[key(1, WireType::LengthDelimited)]);
    out.push_prefix(length, width);
    out.push(&[key(1, WireType::LengthDelimited), san.len() as u8]);
    out.push_prefix(san.padded(), san.len());
    out.push_prefix(uci_field(2, *uci), short_len(uci.text_len()));
    if !fen.is_empty() {
        let (length, width) = varint(fen.len() as u64);
        out.push(&[key(3, WireType::LengthDelimited)]);
        out.push_prefix(length, width);
        out.push(fen.as_bytes());
    }
    out.push_prefix([key(4, WireType::Varint), 1], 2 * usize::from(*canonical_input));
    if let Some((field, len)) = clock {
        out.push(&field[..len]);
    }
}

/// The content of a `google.protobuf.Duration` of `ms` milliseconds, the
/// one writer of its wire bytes: the bytes prost writes for the message
/// that [`crate::answer::millis::duration`] builds, seconds and
/// nanoseconds each left out when 0, at most 17 bytes (the seconds' key
/// and up to 10 bytes of varint, the nanoseconds' key and up to 5). The
/// nanoseconds' field comes from a table of the thousand: a clocked answer
/// writes one a ply.
#[inline]
fn duration_content(ms: u64) -> ([u8; 18], usize) {
    let mut content = [0; 18];
    let mut len = 0;
    let seconds = ms / 1000;
    if seconds != 0 {
        let (bytes, width) = varint(seconds);
        content[0] = key(1, WireType::Varint);
        content[1..11].copy_from_slice(&bytes);
        len = 1 + width;
    }
    let (nanos, nanos_len) = NANOS_FIELDS[(ms % 1000) as usize];
    content[len..len + 6].copy_from_slice(&nanos);
    (content, len + usize::from(nanos_len))
}

/// For each count of milliseconds under a second, the `nanos` field of a
/// `Duration` (key and varint, nothing for 0) and its length.
static NANOS_FIELDS: [([u8; 6], u8); 1000] = {
    let mut table = [([0; 6], 0); 1000];
    let mut ms = 1;
    while ms < 1000 {
        let (bytes, width) = varint(ms as u64 * 1_000_000);
        let field = [key(2, WireType::Varint), bytes[0], bytes[1], bytes[2], bytes[3], bytes[4]];
        table[ms] = (field, width as u8 + 1);
        ms += 1;
    }
    table
};

/// A `google.protobuf.Duration` of `ms` milliseconds as field `tag`.
fn put_duration(tag: u8, ms: u64, out: &mut Writer) {
    let (content, len) = duration_content(ms);
    out.room(2 + len);
    out.push(&[key(tag, WireType::LengthDelimited), len as u8]);
    out.push(&content[..len]);
}

/// `arbiter.v1.LegalMove` as field 6 of `arbiter.v1.Position`, in one
/// window as a ply is.
#[inline]
fn put_legal_move(legal: &LegalMove, out: &mut Writer) {
    let LegalMove { uci, san, claims } = legal;
    let (san_len, uci_len) = (san.len() & 7, uci.text_len() & 7);
    let claims_len = if claims.any() { 2 + claims.iter().count() } else { 0 };
    let len = short_len(uci_len) + short_len(san_len) + claims_len;
    let window = out.window::<32>();
    window[..2].copy_from_slice(&[key(6, WireType::LengthDelimited), len as u8]);
    window[2..10].copy_from_slice(&uci_field(1, *uci));
    let at = 2 + short_len(uci_len);
    window[at..at + 2].copy_from_slice(&[key(2, WireType::LengthDelimited), san_len as u8]);
    window[at + 2..at + 10].copy_from_slice(&san.padded());
    out.end += at + short_len(san_len);
    if claims.any() {
        put_draws(3, claims.iter(), claims_len - 2, out);
    }
}

/// Claimable draws as packed repeated enum field `tag`: each value a
/// one-byte varint.
fn put_draws(
    tag: u8,
    draws: impl Iterator<Item = arbiter_chess::ClaimableDraw>,
    count: usize,
    out: &mut Writer,
) {
    out.push(&[key(tag, WireType::LengthDelimited), count as u8]);
    for draw in draws {
        out.push(&[proto::ClaimableDraw::from(draw) as u8]);
    }
}

/// The content of `arbiter.v1.Outcome`, as `proto::Outcome::from` fills it.
fn put_outcome(outcome: &Outcome, out: &mut Writer) {
    let Outcome { result, termination, fifty_move_claimable: _, threefold_claimable: _, unproven } =
        outcome;
    out.room(32);
    put_varint_field(1, proto::GameResult::from(*result) as u64, out);
    let termination = termination.map_or(proto::Termination::Unspecified, proto::Termination::from);
    put_varint_field(2, termination as u64, out);
    let count = outcome.claimable_draws().count();
    if count > 0 {
        put_draws(3, outcome.claimable_draws(), count, out);
    }
    put_text_in(4, result.pgn(), out);
    if *unproven {
        out.push(&[key(5, WireType::Varint), 1]);
    }
}

impl Encode for GameAnswer {
    fn encoded_len(&self) -> usize {
        self.bytes.len()
    }

    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.bytes);
    }

    /// Its bytes, as they are: their lengths were set from what was written.
    fn encode_to(&self, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        self.encode_raw(buf);
        Ok(())
    }
}

/// The buffer that tonic fills with a stream's answers.
const STREAM_BUFFER: usize = 64 << 10;

/// `arbiter.v1.ValidateGamesResponse`, its game written as
/// [`GameAnswer`].
#[derive(Clone, Debug, PartialEq)]
pub struct StreamAnswer {
    pub id: String,
    pub result: StreamResult,
}

/// The `result` of a [`StreamAnswer`] (`ValidateGamesResponse`).
// Games are the common case; boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum StreamResult {
    Game(GameAnswer),
    Error(proto::GameError),
}

impl Encode for StreamAnswer {
    /// tonic writes a stream's answers into one buffer until it holds the
    /// yield threshold, then hands that much to the transport and keeps
    /// the rest of the buffer. With its defaults (8 KiB, growing to the
    /// 32 KiB threshold) every block was copied three times as the buffer
    /// doubled, then a fresh 8 KiB buffer began the next. A buffer of four
    /// blocks fills without growing, and only the answers begun when it runs
    /// out are copied to the next.
    fn buffer_settings() -> BufferSettings {
        BufferSettings::new(STREAM_BUFFER, STREAM_BUFFER / 4)
    }

    fn encoded_len(&self) -> usize {
        text_len(1, &self.id)
            + match &self.result {
                StreamResult::Game(game) => nested_len(2, game.encoded_len()),
                StreamResult::Error(error) => message::encoded_len(3, error),
            }
    }

    fn encode_raw(&self, buf: &mut impl BufMut) {
        put_text(1, &self.id, buf);
        match &self.result {
            StreamResult::Game(game) => {
                put_header(2, game.encoded_len(), buf);
                game.encode_raw(buf);
            }
            StreamResult::Error(error) => message::encode(3, error, buf),
        }
    }

    /// Straight into tonic's buffer: the id, then a game's bytes under the
    /// header of their own length, or an error as prost writes it.
    fn encode_to(&self, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        self.encode_raw(buf);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::millis::duration;
    use prost::Message;

    fn written(message: &impl Encode) -> Vec<u8> {
        let mut bytes = Vec::new();
        message.encode_raw(&mut bytes);
        assert_eq!(bytes.len(), message.encoded_len());
        bytes
    }

    /// A ply's clock (a Duration) in milliseconds.
    fn ply_ms(ply: &proto::Ply) -> u64 {
        let time = ply.clock.expect("a clocked ply");
        time.seconds as u64 * 1000 + time.nanos as u64 / 1_000_000
    }

    /// `clock_ms`'s bytes are prost's for a `uint32`, at each varint width.
    #[test]
    fn millis_fields_are_written_as_prost_writes_them() {
        let edges = (7..=28).step_by(7).flat_map(|bits| [(1u32 << bits) - 1, 1 << bits]);
        for ms in [0, 1, 999, 180_000, u32::MAX].into_iter().chain(edges) {
            let (word, len) = millis_field(ms);
            let mut expected = Vec::new();
            prost::encoding::uint32::encode(6, &ms, &mut expected);
            assert_eq!(&word.to_le_bytes()[..len], expected, "{ms}");
        }
    }

    /// A Duration's bytes are prost's for any count of milliseconds.
    #[test]
    fn durations_are_written_as_prost_writes_them() {
        for ms in [0, 1, 999, 1000, 12_500, 59_999, 1 << 40, u64::MAX / 2, u64::MAX] {
            let (content, len) = duration_content(ms);
            assert_eq!(&content[..len], duration(ms).encode_to_vec(), "{ms}");
        }
    }

    /// Answers are written as the generated messages write them (the
    /// random workloads of tests/cache.rs check many more).
    #[test]
    fn answers_are_byte_compatible_with_the_contract() {
        use arbiter_chess::{ClockRecord, ReplayOptions, replay, replay_clocked};
        let fools_mate = ["f3", "e5", "g4", "Qh4#", "a3"];
        let with_fens = ReplayOptions { include_fens: true, ..ReplayOptions::default() };
        let later = ReplayOptions { plies_from: 3, skip_legal_moves: true, ..with_fens };
        let verdicts = ReplayOptions { winnability: true, ..ReplayOptions::default() };
        let flagged = ReplayOptions { flagged: Some(Color::Black), ..verdicts };
        // Knights out and back twice: Ng8 would be the third time.
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
        let start = arbiter_chess::Position::default();
        // The fifty-move rule a move away, and a mate.
        let late: arbiter_chess::Position = "7k/8/6K1/8/8/8/8/R7 w - - 99 80".parse().unwrap();
        let clocked = |start: &arbiter_chess::Position, moves: &[&str], tc: &str, times: &[u64]| {
            let record =
                ClockRecord::new(tc.parse().unwrap(), times.to_vec(), 2_500, moves.len()).unwrap();
            replay_clocked(start.clone(), moves, &with_fens, &record)
        };
        let long_fen: arbiter_chess::Position =
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4".parse().unwrap();
        let clocked_games = [
            // Whole seconds, milliseconds, none (0 s) and a long time.
            clocked(&start, &fools_mate[..4], "300+2", &[0, 1_500, 2_000, 10_000]),
            // The flag falls on the third move.
            clocked(&start, &fools_mate[..4], "1", &[0, 500, 999, 0]),
            // A FEN and a clock past 127 bytes a ply, a clock of 0.
            clocked(&long_fen, &["O-O", "Nxe4"], "9999999", &[9_999_999_999, 0]),
            replay_clocked(
                start.clone(),
                &shuffle[..],
                &later,
                &ClockRecord::new("40/5400+30:1800+30".parse().unwrap(), vec![100; 7], 0, 7)
                    .unwrap(),
            ),
        ];
        for replayed in clocked_games {
            assert!(replayed.clocks.is_some());
            let mut expected = proto::ValidateGameResponse::from(&replayed);
            let millis = GameAnswer::new(replayed.clone(), PlyClockForm::Millis, None);
            assert_eq!(written(&GameAnswer::from(replayed)), expected.encode_to_vec());
            // The packed form: `clock_ms` where `clock` was, the rest alike
            // (for times within uint32, as the service checks).
            let clocks: Vec<u64> = expected.plies.iter().map(ply_ms).collect();
            if clocks.iter().all(|&ms| ms <= u64::from(u32::MAX)) {
                for (ply, ms) in expected.plies.iter_mut().zip(clocks) {
                    (ply.clock, ply.clock_ms) = (None, Some(ms as u32));
                }
                assert_eq!(written(&millis.unwrap()), expected.encode_to_vec());
            } else {
                assert!(millis.is_err_and(|ms| ms > u64::from(u32::MAX)));
            }
        }
        for (start, moves, options) in [
            (&start, &fools_mate[..0], ReplayOptions::default()),
            (&start, &fools_mate[..2], with_fens),
            (&start, &fools_mate[..], ReplayOptions::default()),
            (&start, &fools_mate[..], later),
            (&start, &["e4", "Ke9"][..], ReplayOptions::default()),
            (&start, &shuffle[..], verdicts),
            (&start, &shuffle[..], flagged),
            (&late, &[][..], verdicts),
        ] {
            let replayed = replay(start.clone(), moves, &options);
            let expected = proto::ValidateGameResponse::from(&replayed);
            let game = GameAnswer::from(replayed);
            assert_eq!(written(&game), expected.encode_to_vec(), "{moves:?}");
            let stream = StreamAnswer { id: "g1".into(), result: StreamResult::Game(game) };
            let expected = proto::ValidateGamesResponse {
                id: "g1".into(),
                result: Some(proto::validate_games_response::Result::Game(expected)),
            };
            assert_eq!(written(&stream), expected.encode_to_vec());
        }
        let error = proto::GameError { code: "INVALID_ARGUMENT".into(), ..Default::default() };
        let stream = StreamAnswer { id: String::new(), result: StreamResult::Error(error.clone()) };
        let expected = proto::ValidateGamesResponse {
            id: String::new(),
            result: Some(proto::validate_games_response::Result::Error(error)),
        };
        assert_eq!(written(&stream), expected.encode_to_vec());
    }

    /// Rulings are field 6 as prost writes it, after the analysis, and
    /// with or without a clock.
    #[test]
    fn an_answer_with_rulings_is_the_contracts() {
        use arbiter_chess::{
            ClockRecord, GameAnalysis, IllegalMoves, ReplayOptions, played_times, replay_ruled,
        };
        let fide = ReplayOptions { illegal_moves: IllegalMoves::Fide, ..ReplayOptions::default() };
        let moves = ["e4", "e5", "Ke3", "Nf3", "Nc6", "Ke1e3", "Nf6"];
        let times = vec![1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000];
        let record = ClockRecord::new("180+2".parse().unwrap(), times.clone(), 0, 7).unwrap();
        let start = arbiter_chess::Position::default();
        for record in [None, Some(&record)] {
            let (replayed, played) = replay_ruled(start.clone(), &moves, &fide, record);
            assert_eq!(replayed.rulings.len(), 2);
            let analysis = GameAnalysis::of_replay(
                &start.clone().into(),
                &played,
                &played_times(&replayed.rulings, &times),
                None,
            );
            let mut expected = proto::ValidateGameResponse::from(&replayed);
            expected.analysis = Some(proto::GameAnalysis::from(&analysis));
            assert_eq!(expected.rulings.len(), 2);
            let game = GameAnswer::new(replayed, PlyClockForm::Duration, Some(&analysis)).unwrap();
            assert_eq!(written(&game), expected.encode_to_vec());
        }
    }

    /// The analysis is field 5 as prost writes it, after the rest.
    #[test]
    fn an_answer_with_its_analysis_is_the_contracts() {
        use arbiter_chess::{GameAnalysis, GamePosition, ReplayOptions, Replayer, Rules};
        let options = ReplayOptions::default();
        let start = GamePosition::new(Rules::Standard);
        let mut replayer = Replayer::new(start.clone(), options.analysis);
        let tail = replayer.extend(&["e4", "c5", "Nf3", "d6", "d4"], &options);
        let times = [Some(0), Some(0), Some(1_200), Some(800), Some(0)];
        let analysis = GameAnalysis::of_replay(&start, &replayer, &times, None);
        let replayed = replayer.answer(tail, &options);
        let mut expected = proto::ValidateGameResponse::from(&replayed);
        expected.analysis = Some(proto::GameAnalysis::from(&analysis));
        // lichess's b.tsv: `B50 Sicilian Defense 1. e4 c5 2. Nf3 d6 3. d4`.
        let opening = expected.analysis.as_ref().unwrap().opening.as_ref().unwrap();
        assert_eq!(
            (opening.eco.as_str(), opening.name.as_str(), opening.ply),
            ("B50", "Sicilian Defense", 5)
        );
        let game = GameAnswer::new(replayed, PlyClockForm::Duration, Some(&analysis)).unwrap();
        assert_eq!(written(&game), expected.encode_to_vec());
    }
}
