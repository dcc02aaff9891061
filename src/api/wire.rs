//! The messages the server reads and writes by hand, byte for byte the
//! contract's (the generated types in [`crate::proto`] stay the clients').
//!
//! - `ValidateGameRequest`, `ValidateGamesRequest` and `LegalMovesRequest`:
//!   the repeated `moves` field decodes into one buffer with the end of
//!   each text ([`MoveTexts`]) rather than a `String` per move.
//! - [`GameAnswer`] and [`StreamAnswer`] write `ValidateGameResponse` and
//!   `ValidateGamesResponse`
//!   straight from the replay, without a `String` for every ply and legal
//!   move.
//!
//! Decoding keeps prost's rules and errors: texts must be UTF-8, a
//! malformed field fails with prost's own error, named by message and
//! field, so the codec answers INVALID_ARGUMENT `MALFORMED_MESSAGE` as for
//! any generated message.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, bool as pbool, encode_key, encode_varint, encoded_len_varint, int32,
    key_len, message, skip_field, string, uint32,
};
use prost::{DecodeError, Message};
use tonic::Status;
use tonic::codec::{BufferSettings, EncodeBuf};

use super::codec::Encode;
use crate::answer::winnability_message;
use crate::api::MoveTexts;
use crate::proto;
use arbiter_chess::{
    Color, LegalMove, MAX_FEN_LEN, Outcome, PlyRecord, Replay, SanString, UciMove,
};

/// The prost side of [`MoveTexts`]: a repeated `string` field decoded into
/// its one buffer, and written back.
trait MoveTextsCodec {
    fn merge(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
        end: usize,
    ) -> Result<(), DecodeError>;
    fn merge_run(&mut self, key: u8, buf: &mut impl Buf, room: usize) -> bool;
    fn encode(&self, tag: u32, buf: &mut impl BufMut);
    fn encoded_len(&self, tag: u32) -> usize;
}

impl MoveTextsCodec for MoveTexts {
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

    fn encode(&self, tag: u32, buf: &mut impl BufMut) {
        for text in self.iter() {
            encode_key(tag, WireType::LengthDelimited, buf);
            encode_varint(text.len() as u64, buf);
            buf.put_slice(text.as_bytes());
        }
    }

    fn encoded_len(&self, tag: u32) -> usize {
        key_len(tag) * self.len()
            + self.text.len()
            + self.iter().map(|text| encoded_len_varint(text.len() as u64)).sum::<usize>()
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
}

impl Message for ValidateGameRequest {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let ValidateGameRequest {
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
        } = self;
        if !fen.is_empty() {
            string::encode(1, fen, buf);
        }
        moves.encode(2, buf);
        if *notation != 0 {
            int32::encode(3, notation, buf);
        }
        if *variant != 0 {
            int32::encode(4, variant, buf);
        }
        for (tag, flag) in [(5, strict_san), (6, include_fens), (7, skip_legal_moves)] {
            if *flag {
                pbool::encode(tag, flag, buf);
            }
        }
        if *plies_from != 0 {
            uint32::encode(8, plies_from, buf);
        }
        if let Some(number) = chess960_position {
            uint32::encode(9, number, buf);
        }
        if *shredder_fen {
            pbool::encode(10, shredder_fen, buf);
        }
        if *flagged != 0 {
            int32::encode(11, flagged, buf);
        }
        if *include_winnability {
            pbool::encode(12, include_winnability, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        self.merge_field_within(tag, wire_type, buf, ctx, 0)
    }

    fn encoded_len(&self) -> usize {
        let ValidateGameRequest {
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
        } = self;
        let flags = [strict_san, include_fens, skip_legal_moves, shredder_fen, include_winnability]
            .into_iter()
            .filter(|f| **f)
            .count();
        (if fen.is_empty() { 0 } else { string::encoded_len(1, fen) })
            + moves.encoded_len(2)
            + (if *notation == 0 { 0 } else { int32::encoded_len(3, notation) })
            + (if *variant == 0 { 0 } else { int32::encoded_len(4, variant) })
            + flags * 2
            + (if *plies_from == 0 { 0 } else { uint32::encoded_len(8, plies_from) })
            + chess960_position.as_ref().map_or(0, |number| uint32::encoded_len(9, number))
            + (if *flagged == 0 { 0 } else { int32::encoded_len(11, flagged) })
    }

    fn clear(&mut self) {
        *self = ValidateGameRequest::default();
    }
}

impl ValidateGameRequest {
    /// [`Message::merge_field`] for a message that ends where `end` bytes
    /// of `buf` remain (0 unless it is nested in another).
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

impl Message for Nested<'_> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        Message::encode_raw(&*self.game, buf);
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
        Message::encoded_len(&*self.game)
    }

    fn clear(&mut self) {
        self.game.clear();
    }
}

/// `arbiter.v1.ValidateGamesRequest`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidateGamesRequest {
    pub id: String,
    pub game: Option<ValidateGameRequest>,
}

impl Message for ValidateGamesRequest {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let ValidateGamesRequest { id, game } = self;
        if !id.is_empty() {
            string::encode(1, id, buf);
        }
        if let Some(game) = game {
            message::encode(2, game, buf);
        }
    }

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

    fn encoded_len(&self) -> usize {
        let ValidateGamesRequest { id, game } = self;
        (if id.is_empty() { 0 } else { string::encoded_len(1, id) })
            + game.as_ref().map_or(0, |game| message::encoded_len(2, game))
    }

    fn clear(&mut self) {
        *self = ValidateGamesRequest::default();
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

impl Message for LegalMovesRequest {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let LegalMovesRequest {
            fen,
            moves,
            notation,
            variant,
            from_square,
            chess960_position,
            shredder_fen,
        } = self;
        if !fen.is_empty() {
            string::encode(1, fen, buf);
        }
        moves.encode(2, buf);
        if *notation != 0 {
            int32::encode(3, notation, buf);
        }
        if *variant != 0 {
            int32::encode(4, variant, buf);
        }
        if !from_square.is_empty() {
            string::encode(5, from_square, buf);
        }
        if let Some(number) = chess960_position {
            uint32::encode(6, number, buf);
        }
        if *shredder_fen {
            pbool::encode(7, shredder_fen, buf);
        }
    }

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

    fn encoded_len(&self) -> usize {
        let LegalMovesRequest {
            fen,
            moves,
            notation,
            variant,
            from_square,
            chess960_position,
            shredder_fen,
        } = self;
        (if fen.is_empty() { 0 } else { string::encoded_len(1, fen) })
            + moves.encoded_len(2)
            + (if *notation == 0 { 0 } else { int32::encoded_len(3, notation) })
            + (if *variant == 0 { 0 } else { int32::encoded_len(4, variant) })
            + (if from_square.is_empty() { 0 } else { string::encoded_len(5, from_square) })
            + chess960_position.as_ref().map_or(0, |number| uint32::encoded_len(6, number))
            + if *shredder_fen { 2 } else { 0 }
    }

    fn clear(&mut self) {
        *self = LegalMovesRequest::default();
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

/// The generated twins of the answers written here, each field named: a
/// field added to the contract does not compile until the encoders below
/// write it (and the byte-for-byte tests hold them to the generated code).
const _: fn(proto::ValidateGameResponse) =
    |proto::ValidateGameResponse { plies: _, illegal_move: _, position: _, outcome: _ }| {};
const _: fn(proto::Ply) = |proto::Ply { san: _, uci: _, fen_after: _, canonical_input: _ }| {};
const _: fn(proto::LegalMove) = |proto::LegalMove { uci: _, san: _, claimable_draws: _ }| {};
const _: fn(proto::Position) = |proto::Position {
                                    fen: _,
                                    turn: _,
                                    in_check: _,
                                    halfmove_clock: _,
                                    fullmove_number: _,
                                    legal_moves: _,
                                    winnability: _,
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

impl From<Replay> for GameAnswer {
    fn from(replay: Replay) -> GameAnswer {
        let Replay {
            plies,
            illegal_move,
            position,
            legal_moves,
            outcome,
            winnability,
            shredder_fen,
        } = &replay;
        // Plies without FENs take at most 20 bytes, legal moves 20; the
        // writer grows if FENs or verdicts need more.
        let mut out = Writer::with_room(24 * plies.len() + 24 * legal_moves.len() + 256);
        for ply in plies {
            put_ply(ply, &mut out);
        }
        if let Some(bad) = illegal_move {
            out.with_vec(|bytes| message::encode(2, &proto::IllegalMove::from(bad), bytes));
        }
        out.nested(3, |out| {
            let fen = if *shredder_fen { position.shredder_fen() } else { position.fen() };
            put_text_in(1, &fen, out);
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
        });
        out.nested(4, |out| put_outcome(outcome, out));
        GameAnswer { bytes: out.finish() }
    }
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
fn varint(mut value: u64) -> ([u8; 10], usize) {
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
// fields have tags below 16 and every length in them stays under 128 (SAN
// is at most 7 bytes, UCI 5, a FEN 103), so each key and each length is
// one byte.

/// The longest ply's content: SAN, UCI, the FEN after it and the flag.
const MAX_PLY_LEN: usize =
    short_len(SanString::CAPACITY) + short_len(UciMove::MAX_LEN) + short_len(MAX_FEN_LEN) + 2;

// Every length in a ply, and the ply's own, is written as one byte
// (`as u8`): a one-byte varint holds less than 128.
const _: () = assert!(MAX_PLY_LEN < 128, "a ply's length must be a one-byte varint");
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
    let PlyRecord { san, uci, fen_after, canonical_input } = ply;
    if let Some(fen) = fen_after {
        return put_ply_with_fen(ply, fen, out);
    }
    let (san_len, uci_len) = (san.len() & 7, uci.text_len() & 7);
    let flag = 2 * usize::from(*canonical_input);
    let len = short_len(san_len) + short_len(uci_len) + flag;
    let window = out.window::<32>();
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
    out.end += at + flag;
}

/// A ply with the FEN after it, field by field.
fn put_ply_with_fen(ply: &PlyRecord, fen: &str, out: &mut Writer) {
    let PlyRecord { san, uci, fen_after: _, canonical_input } = ply;
    let len = short_len(san.len()) + short_len(uci.text_len()) + short_len(fen.len());
    let len = len + 2 * usize::from(*canonical_input);
    out.room(2 + MAX_PLY_LEN);
    out.push(&[key(1, WireType::LengthDelimited), len as u8]);
    out.push(&[key(1, WireType::LengthDelimited), san.len() as u8]);
    out.push_prefix(san.padded(), san.len());
    out.push_prefix(uci_field(2, *uci), short_len(uci.text_len()));
    out.push(&[key(3, WireType::LengthDelimited), fen.len() as u8]);
    out.push(fen.as_bytes());
    out.push_prefix([key(4, WireType::Varint), 1], 2 * usize::from(*canonical_input));
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
    pub result: GameResult,
}

/// The `result` of a [`ValidateGamesResponse`].
// Games are the common case; boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum GameResult {
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
                GameResult::Game(game) => nested_len(2, game.encoded_len()),
                GameResult::Error(error) => message::encoded_len(3, error),
            }
    }

    fn encode_raw(&self, buf: &mut impl BufMut) {
        put_text(1, &self.id, buf);
        match &self.result {
            GameResult::Game(game) => {
                put_header(2, game.encoded_len(), buf);
                game.encode_raw(buf);
            }
            GameResult::Error(error) => message::encode(3, error, buf),
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

    /// The hand-written messages read and write the generated ones' bytes.
    #[test]
    fn requests_are_byte_compatible_with_the_contract() {
        let request = game();
        let bytes = request.encode_to_vec();
        let decoded = ValidateGameRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded, ValidateGameRequest::from(request.clone()));
        assert_eq!(decoded.moves.iter().collect::<Vec<_>>(), request.moves);
        assert_eq!(Message::encoded_len(&decoded), bytes.len());
        assert_eq!(decoded.encode_to_vec(), bytes);

        let stream = proto::ValidateGamesRequest { id: "7".into(), game: Some(request) };
        let bytes = stream.encode_to_vec();
        let decoded = ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.encode_to_vec(), bytes);

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
        assert_eq!(Message::encoded_len(&decoded), bytes.len());
        assert_eq!(decoded.encode_to_vec(), bytes);
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
            let expected = proto::ValidateGameRequest::decode(bytes.as_slice()).unwrap_err();
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
            let expected = proto::ValidateGamesRequest::decode(nested.as_slice()).unwrap_err();
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
            let expected = proto::ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
            assert_eq!(expected.game.as_ref().unwrap().moves, whole.moves);
            let got = ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
            assert_eq!(got.encode_to_vec(), expected.encode_to_vec(), "split at {at}");
        }
    }

    proptest::proptest! {
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
            let expected = proto::ValidateGameRequest::decode(bytes.as_slice());
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

    fn written(message: &impl Encode) -> Vec<u8> {
        let mut bytes = Vec::new();
        message.encode_raw(&mut bytes);
        assert_eq!(bytes.len(), message.encoded_len());
        bytes
    }

    /// Answers are written as the generated messages write them (the
    /// random workloads of tests/cache.rs check many more).
    #[test]
    fn answers_are_byte_compatible_with_the_contract() {
        use arbiter_chess::{ReplayOptions, replay};
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
            let stream = StreamAnswer { id: "g1".into(), result: GameResult::Game(game) };
            let expected = proto::ValidateGamesResponse {
                id: "g1".into(),
                result: Some(proto::validate_games_response::Result::Game(expected)),
            };
            assert_eq!(written(&stream), expected.encode_to_vec());
        }
        let error = proto::GameError { code: "INVALID_ARGUMENT".into(), ..Default::default() };
        let stream = StreamAnswer { id: String::new(), result: GameResult::Error(error.clone()) };
        let expected = proto::ValidateGamesResponse {
            id: String::new(),
            result: Some(proto::validate_games_response::Result::Error(error)),
        };
        assert_eq!(written(&stream), expected.encode_to_vec());
    }
}
