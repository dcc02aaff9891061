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
    pub illegal_moves: i32,
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
            15 => int32::merge(wire_type, &mut self.illegal_moves, buf, ctx)
                .map_err(at(NAME, "illegal_moves")),
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
    // Each varint ends on its one byte under 0x80: their count, eight
    // bytes at a time.
    let words = body.chunks_exact(8);
    let tail = words.remainder().iter().filter(|&&byte| byte < 0x80).count();
    let count = words.fold(tail, |count, word| {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        count + (!word & 0x8080_8080_8080_8080).count_ones() as usize
    });
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
            illegal_moves,
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
            illegal_moves,
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
mod tests;
