//! The requests the server reads by hand: `ValidateGameRequest`,
//! `ValidateGamesRequest` and `LegalMovesRequest`, whose repeated `moves`
//! field decodes into one buffer with the end of each text ([`MoveTexts`])
//! rather than a `String` per move.
//!
//! Decoding keeps prost's rules and errors: texts must be UTF-8, a
//! malformed field fails with prost's own error, named by message and
//! field, so the codec answers INVALID_ARGUMENT `MALFORMED_MESSAGE` as for
//! any generated message.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, bool as pbool, decode_key, int32, message, skip_field, string, uint32,
};
use prost::{DecodeError, Message};

use crate::api::codec::Decode;
use crate::move_texts::MoveTexts;
use crate::proto;

/// The prost side of [`MoveTexts`]: a repeated `string` field decoded into
/// its one buffer.
trait DecodeMoveTexts {
    fn merge(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
        end: usize,
    ) -> Result<(), DecodeError>;
    fn merge_run(&mut self, key: u8, buf: &mut impl Buf, room: usize) -> bool;
}

impl DecodeMoveTexts for MoveTexts {
    /// Decodes the text of field `tag`, whose key prost has just read, as
    /// prost's `string::merge` would but into the shared buffer, and with
    /// it the texts of the same field that follow: a move list is a run of
    /// short texts, read here in one pass and checked as UTF-8 at once.
    /// Anything else (a text of 128 bytes or more, one split across
    /// chunks, invalid UTF-8) goes through prost, which copies it or gives
    /// its error. The message holding the texts ends where `end` bytes of
    /// `buf` remain (0 unless it is nested in another).
    fn merge(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
        end: usize,
    ) -> Result<(), DecodeError> {
        let room = buf.remaining().saturating_sub(end);
        if self.ends.is_empty() {
            // The rest of the message bounds the texts; most moves take five
            // bytes or more there (key, length, two letters or more), so a
            // quarter of it holds the ends of most lists without growing.
            self.text.reserve(room);
            self.ends.reserve(room / 4);
        }
        if wire_type == WireType::LengthDelimited
            && let Ok(key) = u8::try_from(tag << 3 | WireType::LengthDelimited as u32)
            && self.merge_run(key, &mut *buf, room)
        {
            return Ok(());
        }
        let mut text = String::new();
        string::merge(wire_type, &mut text, buf, ctx)?;
        self.push(&text);
        Ok(())
    }

    /// Takes the run of short texts in the first `room` bytes of `buf`'s
    /// first chunk:
    /// the length and bytes of the first, then key, length and bytes of
    /// each next one while the key is `key`, up to a text that starts
    /// inside a character. Keeps only the texts before the first byte that
    /// is not UTF-8, leaving the rest to prost. Returns whether it took any.
    fn merge_run(&mut self, key: u8, buf: &mut impl Buf, room: usize) -> bool {
        const WORD: usize = size_of::<u64>();
        let chunk = buf.chunk();
        let chunk = &chunk[..chunk.len().min(room)];
        let (base, first) = (self.text.len(), self.ends.len());
        // The first run is copied into the buffer reserved for it; a later
        // one into a new buffer, so that no byte is checked twice whatever
        // the number of runs. The buffer keeps a word's room past the last
        // text, so that a short text is copied as a whole word.
        let mut bytes =
            if base == 0 { std::mem::take(&mut self.text).into_bytes() } else { Vec::new() };
        let (mut run, mut len) = (0, 0);
        while let Some((start, stop)) = run_text(chunk, run, key) {
            let size = stop - start;
            if size > 0 && is_continuation(chunk[start]) {
                break;
            }
            let need = len + size + WORD;
            if need > bytes.len() {
                // Doubling, but within the capacity reserved when it holds
                // the texts, so that the buffer is allocated once.
                let double = 2 * bytes.len();
                let cap = bytes.capacity();
                bytes.resize(
                    if need <= cap { double.clamp(need, cap) } else { double.max(need) },
                    0,
                );
            }
            match chunk[start..].first_chunk::<WORD>() {
                Some(word) if size <= WORD => bytes[len..len + WORD].copy_from_slice(word),
                _ => bytes[len..len + size].copy_from_slice(&chunk[start..stop]),
            }
            len += size;
            // gRPC frames a message with a 32-bit length: its texts fit.
            self.ends.push(u32::try_from(base + len).expect("a message is under 4 GiB"));
            run = stop;
        }
        bytes.truncate(len);
        // Every text starts on a character's first byte, so the texts are
        // UTF-8 if their concatenation is.
        let text = String::from_utf8(bytes).unwrap_or_else(|error| {
            let valid = base + error.utf8_error().valid_up_to();
            let kept = self.ends[first..].partition_point(|&end| end as usize <= valid);
            self.ends.truncate(first + kept);
            run = (0..kept).fold(0, |at, _| run_text(chunk, at, key).map_or(at, |(_, stop)| stop));
            let mut bytes = error.into_bytes();
            bytes.truncate(self.end_of(self.ends.len()) - base);
            String::from_utf8(bytes).unwrap_or_default()
        });
        if base == 0 {
            self.text = text;
        } else {
            self.text.push_str(&text);
        }
        buf.advance(run);
        run > 0
    }
}

/// Where the text of the run in `bytes` at `at` lies: its length at `at`
/// for the run's first text (whose key was read already), else `key` then
/// the length; the length must take one byte and the text be whole.
fn run_text(bytes: &[u8], at: usize, key: u8) -> Option<(usize, usize)> {
    let len_at = if at == 0 { 0 } else { (*bytes.get(at)? == key).then_some(at + 1)? };
    let len = *bytes.get(len_at).filter(|&&len| len < 0x80)? as usize;
    let start = len_at + 1;
    (start + len <= bytes.len()).then_some((start, start + len))
}

/// Whether `byte` continues a character rather than starting one.
fn is_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

/// Names the field at fault, as prost's generated code does.
fn at(message: &'static str, field: &'static str) -> impl FnOnce(DecodeError) -> DecodeError {
    move |mut error| {
        error.push(message, field);
        error
    }
}

/// Reads a proto3 `optional uint32`: present, even when 0, once read.
fn merge_optional(
    wire_type: WireType,
    value: &mut Option<u32>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    uint32::merge(wire_type, value.get_or_insert(0), buf, ctx)
}

/// Reads the fields of a whole message from `buf` with `merge_field`, as
/// prost's `Message::decode` reads a generated message's.
fn merge_fields<B: Buf>(
    mut buf: B,
    mut merge_field: impl FnMut(u32, WireType, &mut B, DecodeContext) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let ctx = DecodeContext::default();
    while buf.has_remaining() {
        let (tag, wire_type) = decode_key(&mut buf)?;
        merge_field(tag, wire_type, &mut buf, ctx.clone())?;
    }
    Ok(())
}

/// `arbiter.v1.ValidateGameRequest`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidateGameRequest {
    pub fen: String,
    pub moves: MoveTexts,
    pub notation: i32,
    pub variant: i32,
    pub strict_san: bool,
    pub include_fens: bool,
    pub skip_legal_moves: bool,
    pub plies_from: u32,
    pub chess960_position: Option<u32>,
    pub shredder_fen: bool,
    pub flagged: i32,
    pub include_winnability: bool,
    pub clock: Option<GameClockFields>,
    pub include_analysis: bool,
}

impl Decode for ValidateGameRequest {
    fn decode(buf: impl Buf) -> Result<ValidateGameRequest, DecodeError> {
        let mut request = ValidateGameRequest::default();
        merge_fields(buf, |tag, wire_type, buf, ctx| {
            request.merge_field_within(tag, wire_type, buf, ctx, 0)
        })?;
        Ok(request)
    }
}

impl ValidateGameRequest {
    /// Reads field `tag`, whose key was just read, of a message that ends
    /// where `end` bytes of `buf` remain (0 unless it is nested in another).
    fn merge_field_within(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
        end: usize,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "ValidateGameRequest";
        match tag {
            1 => string::merge(wire_type, &mut self.fen, buf, ctx).map_err(at(NAME, "fen")),
            2 => self.moves.merge(tag, wire_type, buf, ctx, end).map_err(at(NAME, "moves")),
            3 => {
                int32::merge(wire_type, &mut self.notation, buf, ctx).map_err(at(NAME, "notation"))
            }
            4 => int32::merge(wire_type, &mut self.variant, buf, ctx).map_err(at(NAME, "variant")),
            5 => pbool::merge(wire_type, &mut self.strict_san, buf, ctx)
                .map_err(at(NAME, "strict_san")),
            6 => pbool::merge(wire_type, &mut self.include_fens, buf, ctx)
                .map_err(at(NAME, "include_fens")),
            7 => pbool::merge(wire_type, &mut self.skip_legal_moves, buf, ctx)
                .map_err(at(NAME, "skip_legal_moves")),
            8 => uint32::merge(wire_type, &mut self.plies_from, buf, ctx)
                .map_err(at(NAME, "plies_from")),
            9 => merge_optional(wire_type, &mut self.chess960_position, buf, ctx)
                .map_err(at(NAME, "chess960_position")),
            10 => pbool::merge(wire_type, &mut self.shredder_fen, buf, ctx)
                .map_err(at(NAME, "shredder_fen")),
            11 => int32::merge(wire_type, &mut self.flagged, buf, ctx).map_err(at(NAME, "flagged")),
            12 => pbool::merge(wire_type, &mut self.include_winnability, buf, ctx)
                .map_err(at(NAME, "include_winnability")),
            13 => message::merge(
                wire_type,
                &mut ClockMerge(self.clock.get_or_insert_default()),
                buf,
                ctx,
            )
            .map_err(at(NAME, "clock")),
            14 => pbool::merge(wire_type, &mut self.include_analysis, buf, ctx)
                .map_err(at(NAME, "include_analysis")),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }
}

/// A `ValidateGameRequest` nested in a `ValidateGamesRequest`, decoded by
/// prost's `message::merge` with the end of its bytes known, so that its
/// move texts are read up to there and not into the outer message's next
/// fields.
#[derive(Debug)]
struct Nested<'a> {
    game: &'a mut ValidateGameRequest,
    end: usize,
}

impl Nested<'_> {
    /// Where the length-delimited field at the start of `buf` ends, counted
    /// as the bytes of `buf` that follow it; all of them when its length
    /// cannot be read from the first chunk or overruns `buf` (prost then
    /// reads it, or gives its error, and no run is taken).
    fn end(buf: &impl Buf) -> usize {
        let mut head = buf.chunk();
        let before = head.len();
        let remaining = buf.remaining();
        prost::encoding::decode_varint(&mut head)
            .ok()
            .and_then(|len| {
                let after_length = remaining.checked_sub(before - head.len())?;
                after_length.checked_sub(usize::try_from(len).ok()?)
            })
            .unwrap_or(remaining)
    }
}

/// The bound of prost's `message::merge`, which reads the nested game: it is
/// the one way into a nested message that keeps prost's recursion limit
/// (the context it hands on counts one level deeper, and prost keeps that
/// step to itself), so that a game nested in a stream fails where prost's
/// generated code fails. Only the decoding half is ever called: `merge`
/// never encodes, and the encoding half exists for the bound alone.
impl Message for Nested<'_> {
    fn encode_raw(&self, _: &mut impl BufMut) {
        unreachable!("a nested game is only decoded");
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        self.game.merge_field_within(tag, wire_type, buf, ctx, self.end)
    }

    fn encoded_len(&self) -> usize {
        unreachable!("a nested game is only decoded");
    }

    fn clear(&mut self) {
        *self.game = ValidateGameRequest::default();
    }
}

/// A `GameClock` decoded as prost decodes it, through prost's
/// `message::merge` (its recursion limit and length checks), but with each
/// move's `Duration` in the common form (seconds and nanoseconds as short
/// varints, nothing else) read in place: a clocked game sends one a move,
/// and prost's merge of each cost more than the clock's arithmetic. The
/// packed `move_times_ms` is read in place too, its varints straight into
/// the vector ([`packed_u32s`]). Any other form (a field split across
/// chunks, the unpacked encoding of `move_times_ms`, a malformed one) goes
/// through prost, which reads it or gives its error.
#[derive(Debug)]
struct ClockMerge<'a>(&'a mut GameClockFields);

/// `arbiter.v1.GameClock` as the server reads it: the generated message's
/// fields, but `move_times_ms` already widened to the `u64` milliseconds
/// the clock record takes, so that the packed times go from the wire into
/// the record's vector with no other copy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameClockFields {
    pub time_control: Option<proto::TimeControl>,
    pub move_times: Vec<prost_types::Duration>,
    pub pending: Option<prost_types::Duration>,
    /// Each a `uint32` as prost reads it (a varint past 32 bits keeps its
    /// low 32), widened.
    pub move_times_ms: Vec<u64>,
}

/// The same clock record, as a client builds it.
impl From<proto::GameClock> for GameClockFields {
    fn from(clock: proto::GameClock) -> GameClockFields {
        let proto::GameClock { time_control, move_times, pending, move_times_ms } = clock;
        let move_times_ms = move_times_ms.into_iter().map(u64::from).collect();
        GameClockFields { time_control, move_times, pending, move_times_ms }
    }
}

/// A `Duration`'s length and content at the start of `chunk`, when in the
/// common form: length under 128, within the chunk, fields 1 and 2 only
/// as varints of at most 9 bytes (a later field overwrites an earlier
/// one, as prost's merge does). With the bytes it takes.
fn short_duration(chunk: &[u8]) -> Option<(prost_types::Duration, usize)> {
    let len = usize::from(*chunk.first()?);
    let body = chunk.get(1..1 + len).filter(|_| len < 0x80)?;
    let mut duration = prost_types::Duration::default();
    let mut at = 0;
    while at < body.len() {
        let key = body[at];
        at += 1;
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let byte = *body.get(at)?;
            at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                break;
            }
            if shift >= 63 {
                return None;
            }
        }
        match key {
            // int64 and int32 as prost reads them: the varint's low bits.
            0x08 => duration.seconds = value as i64,
            0x10 => duration.nanos = value as i32,
            _ => return None,
        }
    }
    Some((duration, 1 + len))
}

/// Reads the packed `repeated uint32` at the start of `chunk` (its length,
/// then its varints) straight onto the end of `values`, widened, as prost
/// reads it (a value past 32 bits keeps its low 32), and gives the bytes it
/// took.
/// `None`, with `values` as it was, unless the field is whole within the
/// chunk and every varint in it is well formed and ends inside it: prost
/// then reads it across chunks, or gives its error.
fn packed_u32s(chunk: &[u8], values: &mut Vec<u64>) -> Option<usize> {
    let mut head = chunk;
    let len = usize::try_from(prost::encoding::decode_varint(&mut head).ok()?).ok()?;
    let start = chunk.len() - head.len();
    let body = head.get(..len)?;
    // Each varint ends on its one byte under 0x80: their count.
    let count = body.iter().filter(|&&byte| byte < 0x80).count();
    let kept = values.len();
    values.reserve(count);
    let mut at = 0;
    while at < body.len() {
        // A move's time takes one to three bytes (up to 34 minutes): two
        // read at once; a longer one byte by byte.
        let (low, high) = (body[at], body.get(at + 1).copied().unwrap_or(0x80));
        if low < 0x80 {
            values.push(u64::from(low));
            at += 1;
        } else if high < 0x80 {
            values.push(u64::from(low & 0x7f) | u64::from(high) << 7);
            at += 2;
        } else {
            let Some((value, taken)) = long_varint(&body[at..]) else {
                // Malformed, or running past the field.
                values.truncate(kept);
                return None;
            };
            values.push(u64::from(value as u32));
            at += taken;
        }
    }
    Some(start + len)
}

/// A varint at the start of `bytes` as prost reads it (up to ten bytes, a
/// tenth adding only the top bit of 64), with its length; `None` if it runs
/// past `bytes` or is malformed.
fn long_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        if i == 9 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Only the decoding half is called, as for [`Nested`].
impl Message for ClockMerge<'_> {
    fn encode_raw(&self, _: &mut impl BufMut) {
        unreachable!("a clock is only decoded");
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "GameClock";
        let clock = &mut *self.0;
        match tag {
            1 => message::merge(wire_type, clock.time_control.get_or_insert_default(), buf, ctx)
                .map_err(at(NAME, "time_control")),
            2 => {
                if wire_type == WireType::LengthDelimited
                    && let Some((duration, taken)) = short_duration(buf.chunk())
                {
                    buf.advance(taken);
                    clock.move_times.push(duration);
                    return Ok(());
                }
                let mut duration = prost_types::Duration::default();
                message::merge(wire_type, &mut duration, buf, ctx)
                    .map_err(at(NAME, "move_times"))?;
                clock.move_times.push(duration);
                Ok(())
            }
            3 => message::merge(wire_type, clock.pending.get_or_insert_default(), buf, ctx)
                .map_err(at(NAME, "pending")),
            4 => {
                if wire_type == WireType::LengthDelimited
                    && let Some(taken) = packed_u32s(buf.chunk(), &mut clock.move_times_ms)
                {
                    buf.advance(taken);
                    return Ok(());
                }
                let mut times = Vec::new();
                uint32::merge_repeated(wire_type, &mut times, buf, ctx)
                    .map_err(at(NAME, "move_times_ms"))?;
                clock.move_times_ms.extend(times.into_iter().map(u64::from));
                Ok(())
            }
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        unreachable!("a clock is only decoded");
    }

    fn clear(&mut self) {
        *self.0 = GameClockFields::default();
    }
}

/// `arbiter.v1.ValidateGamesRequest`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidateGamesRequest {
    pub id: String,
    pub game: Option<ValidateGameRequest>,
}

impl Decode for ValidateGamesRequest {
    fn decode(buf: impl Buf) -> Result<ValidateGamesRequest, DecodeError> {
        let mut request = ValidateGamesRequest::default();
        merge_fields(buf, |tag, wire_type, buf, ctx| {
            request.merge_field(tag, wire_type, buf, ctx)
        })?;
        Ok(request)
    }
}

impl ValidateGamesRequest {
    /// Reads field `tag`, whose key was just read.
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "ValidateGamesRequest";
        match tag {
            1 => string::merge(wire_type, &mut self.id, buf, ctx).map_err(at(NAME, "id")),
            2 => {
                let game = self.game.get_or_insert_with(ValidateGameRequest::default);
                let end = Nested::end(buf);
                message::merge(wire_type, &mut Nested { game, end }, buf, ctx)
                    .map_err(at(NAME, "game"))
            }
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }
}

/// `arbiter.v1.LegalMovesRequest`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LegalMovesRequest {
    pub fen: String,
    pub moves: MoveTexts,
    pub notation: i32,
    pub variant: i32,
    pub from_square: String,
    pub chess960_position: Option<u32>,
    pub shredder_fen: bool,
}

impl Decode for LegalMovesRequest {
    fn decode(buf: impl Buf) -> Result<LegalMovesRequest, DecodeError> {
        let mut request = LegalMovesRequest::default();
        merge_fields(buf, |tag, wire_type, buf, ctx| {
            request.merge_field(tag, wire_type, buf, ctx)
        })?;
        Ok(request)
    }
}

impl LegalMovesRequest {
    /// Reads field `tag`, whose key was just read.
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "LegalMovesRequest";
        match tag {
            1 => string::merge(wire_type, &mut self.fen, buf, ctx).map_err(at(NAME, "fen")),
            2 => self.moves.merge(tag, wire_type, buf, ctx, 0).map_err(at(NAME, "moves")),
            3 => {
                int32::merge(wire_type, &mut self.notation, buf, ctx).map_err(at(NAME, "notation"))
            }
            4 => int32::merge(wire_type, &mut self.variant, buf, ctx).map_err(at(NAME, "variant")),
            5 => string::merge(wire_type, &mut self.from_square, buf, ctx)
                .map_err(at(NAME, "from_square")),
            6 => merge_optional(wire_type, &mut self.chess960_position, buf, ctx)
                .map_err(at(NAME, "chess960_position")),
            7 => pbool::merge(wire_type, &mut self.shredder_fen, buf, ctx)
                .map_err(at(NAME, "shredder_fen")),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }
}

/// The same request, as a client builds it.
impl From<proto::ValidateGameRequest> for ValidateGameRequest {
    fn from(request: proto::ValidateGameRequest) -> ValidateGameRequest {
        let proto::ValidateGameRequest {
            fen,
            moves,
            notation,
            variant,
            strict_san,
            include_fens,
            skip_legal_moves,
            plies_from,
            chess960_position,
            shredder_fen,
            flagged,
            include_winnability,
            clock,
            include_analysis,
        } = request;
        ValidateGameRequest {
            fen,
            moves: moves.into_iter().collect(),
            notation,
            variant,
            strict_san,
            include_fens,
            skip_legal_moves,
            plies_from,
            chess960_position,
            shredder_fen,
            flagged,
            include_winnability,
            clock: clock.map(GameClockFields::from),
            include_analysis,
        }
    }
}

impl From<proto::ValidateGamesRequest> for ValidateGamesRequest {
    fn from(request: proto::ValidateGamesRequest) -> ValidateGamesRequest {
        let proto::ValidateGamesRequest { id, game } = request;
        ValidateGamesRequest { id, game: game.map(ValidateGameRequest::from) }
    }
}

impl From<proto::LegalMovesRequest> for LegalMovesRequest {
    fn from(request: proto::LegalMovesRequest) -> LegalMovesRequest {
        let proto::LegalMovesRequest {
            fen,
            moves,
            notation,
            variant,
            from_square,
            chess960_position,
            shredder_fen,
        } = request;
        LegalMovesRequest {
            fen,
            moves: moves.into_iter().collect(),
            notation,
            variant,
            from_square,
            chess960_position,
            shredder_fen,
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> proto::ValidateGameRequest {
        proto::ValidateGameRequest {
            fen: "8/8/8/8/8/8/8/K1k5 w - - 0 1".into(),
            moves: ["e4", "", "Nf3", "é", &"x".repeat(200)].map(str::to_owned).to_vec(),
            notation: 2,
            variant: -1,
            strict_san: true,
            include_fens: false,
            skip_legal_moves: true,
            plies_from: 300,
            // Present though 0: proto3 `optional` keeps it.
            chess960_position: Some(0),
            shredder_fen: true,
            flagged: 2,
            include_winnability: true,
            // After the moves: their run must stop before it, nested too.
            clock: Some(proto::GameClock {
                time_control: Some(proto::TimeControl {
                    tag: String::new(),
                    periods: vec![proto::TimePeriod {
                        moves: 40,
                        time: Some(prost_types::Duration { seconds: 5400, nanos: 0 }),
                        increment: Some(prost_types::Duration { seconds: 30, nanos: 0 }),
                    }],
                    delay: Some(proto::TimeDelay { kind: 2, time: None }),
                }),
                move_times: vec![prost_types::Duration { seconds: 1, nanos: 500_000_000 }; 5],
                pending: Some(prost_types::Duration::default()),
                // Both forms at once decode: the check of their use is
                // the request's, not the decoder's.
                move_times_ms: vec![0, 1, 127, 128, 300_000],
            }),
            include_analysis: true,
        }
    }

    #[test]
    fn move_texts_split_as_they_were_given() {
        let given = ["e4", "", "Nf3", "é", "O-O-O"];
        let moves: MoveTexts = given.iter().collect();
        for start in 0..=given.len() {
            assert_eq!(moves.tail(start), given[start..]);
            let (texts, ends) = moves.span(start..given.len());
            assert_eq!(texts, given[start..].concat());
            assert_eq!(ends.len(), given.len() - start);
            let mut cut = moves.clone();
            cut.truncate(start);
            assert_eq!(cut.iter().collect::<Vec<_>>(), given[..start]);
        }
    }

    /// The hand-written messages read the generated ones' bytes as the
    /// generated ones do.
    #[test]
    fn requests_read_the_contracts_bytes() {
        let request = game();
        let bytes = request.encode_to_vec();
        let decoded = ValidateGameRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded, ValidateGameRequest::from(request.clone()));
        assert_eq!(decoded.moves.iter().collect::<Vec<_>>(), request.moves);

        let stream = proto::ValidateGamesRequest { id: "7".into(), game: Some(request) };
        let bytes = stream.encode_to_vec();
        let decoded = ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded, ValidateGamesRequest::from(stream));

        let legal = proto::LegalMovesRequest {
            fen: String::new(),
            moves: vec!["d4".into(), "d5".into()],
            notation: 1,
            variant: 2,
            from_square: "c1".into(),
            chess960_position: Some(959),
            shredder_fen: true,
        };
        let bytes = legal.encode_to_vec();
        let decoded = LegalMovesRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.moves.iter().collect::<Vec<_>>(), legal.moves);
        assert_eq!((decoded.chess960_position, decoded.shredder_fen), (Some(959), true));
        assert_eq!(decoded, LegalMovesRequest::from(legal));
    }

    /// Move times in every form read as prost reads them: the common form
    /// in place, any other (an unknown field, a long varint, a time split
    /// across chunks, a wrong wire type, a cut message) through prost.
    #[test]
    fn move_times_read_as_prost_reads_them() {
        use prost::bytes::Buf as _;
        // ValidateGameRequest field 13 (GameClock), holding field 2 items.
        let with_times = |items: &[&[u8]]| {
            let mut clock = Vec::new();
            for item in items {
                clock.push(0x12);
                clock.push(item.len() as u8);
                clock.extend_from_slice(item);
            }
            let mut bytes = vec![0x6a, clock.len() as u8];
            bytes.extend_from_slice(&clock);
            bytes
        };
        let cases: [&[&[u8]]; 6] = [
            &[&[0x08, 0x05, 0x10, 0x80, 0xe1, 0xeb, 0x17], &[], &[0x10, 0x01, 0x08, 0x02]],
            &[&[0x08, 0x05, 0x18, 0x07]],
            &[&[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
            &[&[0x08, 0x05, 0x08, 0x06]],
            &[&[0x09, 0x05, 0, 0, 0, 0, 0, 0, 0]],
            &[&[0x08]],
        ];
        for items in cases {
            let bytes = with_times(items);
            let by_hand = ValidateGameRequest::decode(bytes.as_slice());
            let by_prost = <proto::ValidateGameRequest as Message>::decode(bytes.as_slice());
            match (&by_hand, &by_prost) {
                (Ok(hand), Ok(prost)) => {
                    assert_eq!(hand, &ValidateGameRequest::from(prost.clone()))
                }
                (Err(_), Err(_)) => {}
                _ => panic!("{items:?}: {by_hand:?} vs {by_prost:?}"),
            }
            // Split into one-byte chunks: no time is read in place.
            let split = bytes.iter().map(|&b| prost::bytes::Bytes::copy_from_slice(&[b]));
            let chained = split.fold(None::<Box<dyn prost::bytes::Buf>>, |acc, b| {
                Some(match acc {
                    None => Box::new(b),
                    Some(acc) => Box::new(acc.chain(b)),
                })
            });
            let chunked = ValidateGameRequest::decode(chained.unwrap());
            assert_eq!(chunked.is_ok(), by_prost.is_ok(), "{items:?}");
            if let (Ok(chunked), Ok(prost)) = (chunked, &by_prost) {
                assert_eq!(chunked, ValidateGameRequest::from(prost.clone()));
            }
        }
        let decoded = ValidateGameRequest::decode(with_times(cases[0]).as_slice()).unwrap();
        let times = decoded.clock.unwrap().move_times;
        assert_eq!(times[0], prost_types::Duration { seconds: 5, nanos: 50_000_000 });
        assert_eq!(times[2], prost_types::Duration { seconds: 2, nanos: 1 });
    }

    /// The packed `move_times_ms` read by hand as prost reads it: packed
    /// (one field or several, which concatenate), unpacked (a varint field
    /// a value, which protobuf parsers must also accept), both mixed, and
    /// malformed (a varint of 11 bytes, one cut at the field's end, a
    /// length past the message), in one chunk and in one-byte chunks.
    #[test]
    fn packed_move_times_read_as_prost_reads_them() {
        use prost::bytes::Buf as _;
        // ValidateGameRequest field 13 (GameClock) holding `clock`.
        let in_request = |clock: &[u8]| {
            let mut bytes = vec![0x6a];
            prost::encoding::encode_varint(clock.len() as u64, &mut bytes);
            bytes.extend_from_slice(clock);
            bytes
        };
        // GameClock field 4, packed: key 0x22, length, varints.
        let packed = |body: &[u8]| {
            let mut field = vec![0x22, body.len() as u8];
            field.extend_from_slice(body);
            field
        };
        // 1, 300 (two bytes), 2^32 + 5 (kept as 5), u32::MAX, 0.
        let values: &[u8] =
            &[0x01, 0xac, 0x02, 0x85, 0x80, 0x80, 0x80, 0x10, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        // The same values unpacked: key 0x20 before each varint.
        let unpacked: Vec<u8> = [&[0x01][..], &[0xac, 0x02], &[0x85, 0x80, 0x80, 0x80, 0x10]]
            .iter()
            .chain([&[0xff, 0xff, 0xff, 0xff, 0x0f][..], &[0x00]].iter())
            .flat_map(|varint| [&[0x20][..], varint].concat())
            .collect();
        let ten_bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        let eleven_bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x01];
        // A packed field longer than the clock message holding it: the
        // clock's length says two bytes fewer.
        let mut overrun = in_request(&packed(values));
        overrun[1] -= 2;
        let cases: Vec<Vec<u8>> = vec![
            in_request(&packed(values)),
            in_request(&packed(&[])),
            in_request(&[packed(&values[..3]), packed(&values[3..])].concat()),
            in_request(&unpacked),
            // 1 and 300 packed, the rest unpacked.
            in_request(&[packed(&values[..3]), unpacked[5..].to_vec()].concat()),
            in_request(&packed(&ten_bytes)),
            in_request(&packed(&eleven_bytes)),
            in_request(&packed(&[0x01, 0x80])),
            // A length past the end of the clock and of the request.
            in_request(&[0x22, 0x05, 0x01]),
            overrun,
        ];
        let expected_values = [1, 300, 5, u32::MAX, 0];
        for (i, bytes) in cases.iter().enumerate() {
            let by_prost = <proto::ValidateGameRequest as Message>::decode(bytes.as_slice());
            let split = bytes.iter().map(|&b| prost::bytes::Bytes::copy_from_slice(&[b]));
            let chained = split.fold(None::<Box<dyn prost::bytes::Buf>>, |acc, b| {
                Some(match acc {
                    None => Box::new(b),
                    Some(acc) => Box::new(acc.chain(b)),
                })
            });
            for by_hand in [
                ValidateGameRequest::decode(bytes.as_slice()),
                ValidateGameRequest::decode(chained.unwrap()),
            ] {
                match (&by_hand, &by_prost) {
                    (Ok(hand), Ok(prost)) => {
                        assert_eq!(hand, &ValidateGameRequest::from(prost.clone()), "case {i}")
                    }
                    (Err(hand), Err(prost)) => {
                        assert_eq!(hand.to_string(), prost.to_string(), "case {i}")
                    }
                    _ => panic!("case {i}: {by_hand:?} vs {by_prost:?}"),
                }
            }
            match i {
                0 | 2..=4 => {
                    let times = by_prost.unwrap().clock.unwrap().move_times_ms;
                    assert_eq!(times, expected_values, "case {i}");
                }
                1 | 5 => assert!(by_prost.is_ok(), "case {i}"),
                _ => assert!(by_prost.is_err(), "case {i}"),
            }
        }
        // The same field nested in a stream's game, with a field after the
        // game: read up to the game's end only.
        let game = in_request(&packed(values));
        let mut stream = vec![0x12, game.len() as u8];
        stream.extend_from_slice(&game);
        stream.extend_from_slice(&[0x0a, 0x01, b'7']);
        let decoded = ValidateGamesRequest::decode(stream.as_slice()).unwrap();
        assert_eq!(decoded.id, "7");
        let times = decoded.game.unwrap().clock.unwrap().move_times_ms;
        assert_eq!(times, expected_values.map(u64::from));
    }

    /// Bad input fails as prost's generated decoding fails, with the same
    /// error, whether the bytes come in one chunk or many.
    #[test]
    fn malformed_moves_fail_as_prost_fails() {
        let good = game().encode_to_vec();
        let at = good.windows(3).position(|w| w == b"Nf3").unwrap();
        let mut cases = Vec::new();
        let mut not_utf8 = good.clone();
        not_utf8[at] = 0xff;
        cases.push(not_utf8);
        cases.push(good[..at + 1].to_vec());
        let mut long = good.clone();
        long[at - 1] = 0x7f;
        cases.push(long);
        for bytes in cases {
            let expected =
                <proto::ValidateGameRequest as Message>::decode(bytes.as_slice()).unwrap_err();
            let got = ValidateGameRequest::decode(bytes.as_slice()).unwrap_err();
            assert_eq!(got.to_string(), expected.to_string());
            // Two chunks, split inside the third text.
            let chained = bytes[..at].chain(&bytes[at..]);
            let got = ValidateGameRequest::decode(chained).unwrap_err();
            assert_eq!(got.to_string(), expected.to_string());
            let stream = proto::ValidateGamesRequest { id: String::new(), game: None };
            let mut nested = stream.encode_to_vec();
            nested.push(0x12);
            prost::encoding::encode_varint(bytes.len() as u64, &mut nested);
            nested.extend_from_slice(&bytes);
            let expected =
                <proto::ValidateGamesRequest as Message>::decode(nested.as_slice()).unwrap_err();
            let got = ValidateGamesRequest::decode(nested.as_slice()).unwrap_err();
            assert_eq!(got.to_string(), expected.to_string());
        }
        let chained = good[..at].chain(&good[at..]);
        let decoded = ValidateGameRequest::decode(chained).unwrap();
        assert_eq!(decoded, ValidateGameRequest::from(game()));
    }

    /// A game sent as two occurrences of the `game` field merges into one,
    /// as protobuf merges a message field given twice: its move texts are
    /// read up to the end of each occurrence, never into the next field.
    #[test]
    fn a_game_sent_in_parts_merges_as_prost_merges() {
        let whole = proto::ValidateGameRequest {
            moves: ["e4", "e5", "", "Nf3", "é", "Nc6"].map(str::to_owned).to_vec(),
            // All of it UTF-8, as a text swallowed by mistake would be.
            variant: 0,
            plies_from: 5,
            ..game()
        };
        for at in 0..=whole.moves.len() {
            // The first part ends with its moves; the second is short, so
            // that its length takes one byte, as a move text's does.
            let first = proto::ValidateGameRequest {
                fen: whole.fen.clone(),
                moves: whole.moves[..at].to_vec(),
                ..Default::default()
            };
            let second = proto::ValidateGameRequest {
                fen: String::new(),
                moves: whole.moves[at..].to_vec(),
                ..whole.clone()
            };
            let mut bytes =
                proto::ValidateGamesRequest { id: "g".into(), game: Some(first) }.encode_to_vec();
            bytes.extend(
                proto::ValidateGamesRequest { id: String::new(), game: Some(second) }
                    .encode_to_vec(),
            );
            let expected =
                <proto::ValidateGamesRequest as Message>::decode(bytes.as_slice()).unwrap();
            assert_eq!(expected.game.as_ref().unwrap().moves, whole.moves);
            let got = ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
            assert_eq!(got, ValidateGamesRequest::from(expected), "split at {at}");
        }
    }

    /// An unknown field of groups nested deep inside a stream's game fails
    /// at the depth where prost's generated code fails: the game is entered
    /// through prost's `message::merge`, which counts the nesting (the
    /// reason [`Nested`] is a prost `Message`).
    #[test]
    fn deep_groups_in_a_nested_game_fail_where_prost_fails() {
        for depth in 95..=101 {
            let mut game = Vec::new();
            for _ in 0..depth {
                prost::encoding::encode_key(20, WireType::StartGroup, &mut game);
            }
            for _ in 0..depth {
                prost::encoding::encode_key(20, WireType::EndGroup, &mut game);
            }
            let mut bytes = vec![0x12];
            prost::encoding::encode_varint(game.len() as u64, &mut bytes);
            bytes.extend_from_slice(&game);
            let expected = <proto::ValidateGamesRequest as Message>::decode(bytes.as_slice());
            let got = ValidateGamesRequest::decode(bytes.as_slice());
            match (expected, got) {
                (Ok(expected), Ok(got)) => assert_eq!(got, expected.into(), "depth {depth}"),
                (Err(expected), Err(got)) => assert_eq!(got.to_string(), expected.to_string()),
                (expected, got) => panic!("depth {depth}: prost {expected:?}, ours {got:?}"),
            }
        }
    }

    proptest::proptest! {
        /// Any packed move times, short and long varints, possibly with one
        /// byte changed: decoded as prost decodes them, in one chunk or two.
        #[test]
        fn packed_times_decode_as_prost_decodes(
            times in proptest::collection::vec(
                proptest::prop_oneof![0u32..128, 128u32..16_384, 0u32..300_000, proptest::num::u32::ANY],
                0..100,
            ),
            flip in proptest::option::of((proptest::num::usize::ANY, proptest::num::u8::ANY)),
            split in proptest::num::usize::ANY,
        ) {
            let clock = proto::GameClock { move_times_ms: times, ..Default::default() };
            let request = proto::ValidateGameRequest { clock: Some(clock), ..Default::default() };
            let mut bytes = request.encode_to_vec();
            if let Some((at, byte)) = flip.filter(|_| !bytes.is_empty()) {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            let expected = <proto::ValidateGameRequest as Message>::decode(bytes.as_slice());
            let split = split % (bytes.len() + 1);
            for got in [
                ValidateGameRequest::decode(bytes.as_slice()),
                ValidateGameRequest::decode(bytes[..split].chain(&bytes[split..])),
            ] {
                match (&expected, got) {
                    (Ok(expected), Ok(got)) => {
                        proptest::prop_assert_eq!(got, ValidateGameRequest::from(expected.clone()));
                    }
                    (Err(expected), Err(got)) => {
                        proptest::prop_assert_eq!(got.to_string(), expected.to_string());
                    }
                    (expected, got) => {
                        proptest::prop_assert!(false, "prost: {expected:?}, ours: {got:?}");
                    }
                }
            }
        }

        /// Any move list, its texts short or long, ASCII or not, with other
        /// fields between them, and possibly one byte changed: decoded as
        /// prost's generated code decodes it, in one chunk or two.
        #[test]
        fn move_runs_decode_as_prost_decodes(
            moves in proptest::collection::vec("[a-h1-8NBRQKx=+#-]{0,8}|.{0,3}|x{120,140}", 0..40),
            between in proptest::option::of(0usize..40),
            flip in proptest::option::of((proptest::num::usize::ANY, proptest::num::u8::ANY)),
            split in proptest::num::usize::ANY,
        ) {
            let request = proto::ValidateGameRequest { moves, notation: 1, ..game() };
            let mut bytes = request.encode_to_vec();
            // Fields are written in tag order; a field between the moves is
            // also valid protobuf.
            if let Some(at) = between.filter(|&at| at < request.moves.len()) {
                let mut head = proto::ValidateGameRequest {
                    moves: request.moves[..at].to_vec(),
                    ..Default::default()
                }
                .encode_to_vec();
                head.extend([3 << 3, 2]);
                head.extend(
                    proto::ValidateGameRequest {
                        moves: request.moves[at..].to_vec(),
                        ..request.clone()
                    }
                    .encode_to_vec(),
                );
                bytes = head;
            }
            if let Some((at, byte)) = flip.filter(|_| !bytes.is_empty()) {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            let expected = <proto::ValidateGameRequest as Message>::decode(bytes.as_slice());
            let split = split % (bytes.len() + 1);
            for got in [
                ValidateGameRequest::decode(bytes.as_slice()),
                ValidateGameRequest::decode(bytes[..split].chain(&bytes[split..])),
            ] {
                match (&expected, got) {
                    (Ok(expected), Ok(got)) => {
                        proptest::prop_assert_eq!(got, ValidateGameRequest::from(expected.clone()));
                    }
                    (Err(expected), Err(got)) => {
                        proptest::prop_assert_eq!(got.to_string(), expected.to_string());
                    }
                    (expected, got) => {
                        proptest::prop_assert!(false, "prost: {expected:?}, ours: {got:?}");
                    }
                }
            }
        }
    }
}
