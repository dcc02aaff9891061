//! The hand-written requests held to prost's generated decoding: the
//! same messages, or the same errors, from the same bytes in one chunk or
//! many.

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
        illegal_moves: 2,
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
            proto::ValidateGamesRequest { id: String::new(), game: Some(second) }.encode_to_vec(),
        );
        let expected = <proto::ValidateGamesRequest as Message>::decode(bytes.as_slice()).unwrap();
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

/// `bytes` decoded by hand as prost's generated code decodes them (the
/// same message or the same error), in one chunk and split at `split`
/// (modulo their length).
fn decodes_as_prost(
    bytes: &[u8],
    split: usize,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let expected = <proto::ValidateGameRequest as Message>::decode(bytes);
    let split = split % (bytes.len() + 1);
    for got in [
        ValidateGameRequest::decode(bytes),
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
    Ok(())
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
        decodes_as_prost(&bytes, split)?;
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
        decodes_as_prost(&bytes, split)?;
    }
}
