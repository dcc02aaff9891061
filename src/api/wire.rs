//! The request messages the server decodes, by hand: byte for byte the
//! contract's `ValidateGameRequest`, `ValidateGamesRequest` and
//! `LegalMovesRequest` (the generated types in [`crate::proto`] stay the
//! clients'), except that the repeated `moves` field decodes into one
//! buffer with the end of each text ([`MoveTexts`]) rather than a `String`
//! per move: a 300-ply game is one allocation instead of 300, and the
//! replay cache compares and copies its key as two slices.
//!
//! Decoding keeps prost's rules and errors: texts must be UTF-8, a
//! malformed field fails with prost's own error, named by message and
//! field, so the codec answers INVALID_ARGUMENT `MALFORMED_MESSAGE` as for
//! any generated message.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, bool as pbool, decode_varint, encode_key, encode_varint,
    encoded_len_varint, int32, key_len, message, skip_field, string, uint32,
};
use prost::{DecodeError, Message};

/// Move texts in one string, with the end of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveTexts {
    text: String,
    ends: Vec<u32>,
}

impl MoveTexts {
    /// How many texts.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No texts at all.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The texts, one by one.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The text at `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`MoveTexts::len`].
    pub fn get(&self, index: usize) -> &str {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before] as usize);
        &self.text[start..self.ends[index] as usize]
    }

    /// The first `len` texts, as one string and the end of each.
    ///
    /// # Panics
    ///
    /// If `len` is more than [`MoveTexts::len`].
    pub fn prefix(&self, len: usize) -> (&str, &[u32]) {
        let end = len.checked_sub(1).map_or(0, |last| self.ends[last] as usize);
        (&self.text[..end], &self.ends[..len])
    }

    /// The texts from `start` on, one by one, for the replay.
    pub fn tail(&self, start: usize) -> Vec<&str> {
        (start..self.len()).map(|i| self.get(i)).collect()
    }

    /// The first `len` texts, in a list of their own.
    ///
    /// # Panics
    ///
    /// If `len` is more than [`MoveTexts::len`].
    pub fn truncated(&self, len: usize) -> MoveTexts {
        let (text, ends) = self.prefix(len);
        MoveTexts { text: text.to_owned(), ends: ends.to_vec() }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * size_of::<u32>()
    }

    fn push(&mut self, text: &str) {
        self.text.push_str(text);
        // gRPC frames a message with a 32-bit length: its texts fit.
        self.ends.push(u32::try_from(self.text.len()).expect("a message is under 4 GiB"));
    }

    /// Decodes one more text, as prost's `string::merge` would, but into
    /// the shared buffer. A whole, valid text in the buffer's first chunk
    /// (always, for tonic's contiguous buffers) is copied from there;
    /// anything else goes through prost, which copies it or gives its error.
    fn merge(
        &mut self,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if wire_type == WireType::LengthDelimited {
            let mut chunk = buf.chunk();
            let header = chunk.len();
            if let Ok(len) = decode_varint(&mut chunk)
                && let Some(bytes) = usize::try_from(len).ok().and_then(|len| chunk.get(..len))
                && let Ok(text) = std::str::from_utf8(bytes)
            {
                let consumed = header - chunk.len() + bytes.len();
                self.push(text);
                buf.advance(consumed);
                return Ok(());
            }
        }
        let mut text = String::new();
        string::merge(wire_type, &mut text, buf, ctx)?;
        self.push(&text);
        Ok(())
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

impl<S: AsRef<str>> FromIterator<S> for MoveTexts {
    fn from_iter<I: IntoIterator<Item = S>>(texts: I) -> MoveTexts {
        let mut moves = MoveTexts::default();
        texts.into_iter().for_each(|text| moves.push(text.as_ref()));
        moves
    }
}

/// Names the field at fault, as prost's generated code does.
fn at(message: &'static str, field: &'static str) -> impl FnOnce(DecodeError) -> DecodeError {
    move |mut error| {
        error.push(message, field);
        error
    }
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
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "ValidateGameRequest";
        match tag {
            1 => string::merge(wire_type, &mut self.fen, buf, ctx).map_err(at(NAME, "fen")),
            2 => self.moves.merge(wire_type, buf, ctx).map_err(at(NAME, "moves")),
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
            _ => skip_field(wire_type, tag, buf, ctx),
        }
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
        } = self;
        let flags =
            [strict_san, include_fens, skip_legal_moves].into_iter().filter(|f| **f).count();
        (if fen.is_empty() { 0 } else { string::encoded_len(1, fen) })
            + moves.encoded_len(2)
            + (if *notation == 0 { 0 } else { int32::encoded_len(3, notation) })
            + (if *variant == 0 { 0 } else { int32::encoded_len(4, variant) })
            + flags * 2
            + (if *plies_from == 0 { 0 } else { uint32::encoded_len(8, plies_from) })
    }

    fn clear(&mut self) {
        *self = ValidateGameRequest::default();
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
            2 => message::merge(
                wire_type,
                self.game.get_or_insert_with(ValidateGameRequest::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "game")),
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
}

impl Message for LegalMovesRequest {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let LegalMovesRequest { fen, moves, notation, variant, from_square } = self;
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
            2 => self.moves.merge(wire_type, buf, ctx).map_err(at(NAME, "moves")),
            3 => {
                int32::merge(wire_type, &mut self.notation, buf, ctx).map_err(at(NAME, "notation"))
            }
            4 => int32::merge(wire_type, &mut self.variant, buf, ctx).map_err(at(NAME, "variant")),
            5 => string::merge(wire_type, &mut self.from_square, buf, ctx)
                .map_err(at(NAME, "from_square")),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let LegalMovesRequest { fen, moves, notation, variant, from_square } = self;
        (if fen.is_empty() { 0 } else { string::encoded_len(1, fen) })
            + moves.encoded_len(2)
            + (if *notation == 0 { 0 } else { int32::encoded_len(3, notation) })
            + (if *variant == 0 { 0 } else { int32::encoded_len(4, variant) })
            + (if from_square.is_empty() { 0 } else { string::encoded_len(5, from_square) })
    }

    fn clear(&mut self) {
        *self = LegalMovesRequest::default();
    }
}

/// The same request, as a client builds it.
impl From<crate::proto::ValidateGameRequest> for ValidateGameRequest {
    fn from(request: crate::proto::ValidateGameRequest) -> ValidateGameRequest {
        let crate::proto::ValidateGameRequest {
            fen,
            moves,
            notation,
            variant,
            strict_san,
            include_fens,
            skip_legal_moves,
            plies_from,
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto;

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
        assert_eq!(decoded.encoded_len(), bytes.len());
        assert_eq!(decoded.encode_to_vec(), bytes);

        let stream = proto::ValidateGamesRequest { id: "7".into(), game: Some(request) };
        let bytes = stream.encode_to_vec();
        let decoded = ValidateGamesRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.encode_to_vec(), bytes);

        let legal = proto::LegalMovesRequest {
            fen: String::new(),
            moves: vec!["d4".into(), "d5".into()],
            notation: 1,
            variant: 0,
            from_square: "c1".into(),
        };
        let bytes = legal.encode_to_vec();
        let decoded = LegalMovesRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.moves.iter().collect::<Vec<_>>(), legal.moves);
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
}
