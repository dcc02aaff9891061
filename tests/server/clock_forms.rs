//! The clock record's two forms over a real socket on 127.0.0.1: move
//! times as Durations (`GameClock.move_times`, each ply's time back as
//! `Ply.clock`) and packed (`move_times_ms`, back as `Ply.clock_ms`). The
//! same games sent both ways, alone and in a `ValidateGames` stream,
//! through the replay cache and without it, answer alike field by field;
//! both forms at once, a count of times that does not match the moves and
//! a ply's time past `uint32` are INVALID_ARGUMENT naming their field; the
//! unpacked encoding of `move_times_ms` reads as the packed one.

use arbiter::proto::rules_service_client::RulesServiceClient;
use arbiter::proto::{self, validate_games_response};
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use prost_types::Duration;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::common::server::{TestServer, details};

fn ms(ms: u64) -> Duration {
    Duration { seconds: (ms / 1000) as i64, nanos: (ms % 1000 * 1_000_000) as i32 }
}

fn tag(tag: &str) -> Option<proto::TimeControl> {
    Some(proto::TimeControl { tag: tag.into(), ..Default::default() })
}

/// A clocked game: its start, moves, control, move times and pending time
/// (ms), and whether it asks for FENs (a ply with a FEN is written field by
/// field) and from which ply on.
struct Game {
    fen: &'static str,
    moves: &'static [&'static str],
    control: Option<proto::TimeControl>,
    times: Vec<u32>,
    pending: u64,
    include_fens: bool,
    plies_from: u32,
}

impl Game {
    /// The request with its move times as Durations, or packed.
    fn request(&self, packed: bool) -> proto::ValidateGameRequest {
        let durations = self.times.iter().map(|&t| ms(u64::from(t))).collect();
        proto::ValidateGameRequest {
            fen: self.fen.into(),
            moves: self.moves.iter().map(|m| (*m).to_owned()).collect(),
            include_fens: self.include_fens,
            plies_from: self.plies_from,
            clock: Some(proto::GameClock {
                time_control: self.control.clone(),
                move_times: if packed { Vec::new() } else { durations },
                pending: Some(ms(self.pending)),
                move_times_ms: if packed { self.times.clone() } else { Vec::new() },
            }),
            ..Default::default()
        }
    }
}

/// Plain, flag falls (a move after the flag, a pending time past it, FIDE
/// 6.9 against a bare king), periods with move counts, a structured
/// control with a simple delay, FENs and a late `plies_from`, a remaining
/// time of 0 and a control that runs no clock.
fn games() -> Vec<Game> {
    let opening = &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"];
    let kqk = "8/8/4k3/8/8/4K3/4Q3/8 w - - 0 60";
    let game = |moves, control: &str, times: &[u32], pending| Game {
        fen: "",
        moves,
        control: tag(control),
        times: times.to_vec(),
        pending,
        include_fens: false,
        plies_from: 0,
    };
    vec![
        game(opening, "180+2", &[0, 0, 5_000, 12_500, 999, 1, 60_000, 7], 10_000),
        // White's third move after its flag fell: Black wins on time.
        game(&opening[..4], "60", &[30_000, 1_000, 30_001, 0], 0),
        Game { fen: kqk, ..game(&["Qd2"], "10", &[10_001], 0) },
        Game { fen: kqk, ..game(&["Qd2"], "10", &[1_000], 10_001) },
        // Two moves a side in 60 s + 1, then 30 s more each period; the
        // first move of each side takes all its time (a clock of 0 + 1).
        game(opening, "2/60+1:30", &[60_000, 60_000, 500, 500, 20_000, 0, 1, 2], 0),
        Game {
            control: Some(proto::TimeControl {
                tag: String::new(),
                periods: vec![
                    proto::TimePeriod { moves: 3, time: Some(ms(60_000)), increment: None },
                    proto::TimePeriod {
                        moves: 0,
                        time: Some(ms(30_000)),
                        increment: Some(ms(250)),
                    },
                ],
                delay: Some(proto::TimeDelay {
                    kind: proto::DelayKind::Simple as i32,
                    time: Some(ms(5_000)),
                }),
            }),
            include_fens: true,
            plies_from: 3,
            ..game(opening, "", &[64_000, 3_000, 1_000, 2_000, 4_000, 6_000, 0, 8_000], 0)
        },
        // A longer game, so that the cache keeps it: Black's 10th move
        // takes more than the time it has left.
        game(
            &[
                "e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5",
                "Nb3", "Be6", "f3", "Be7", "Qd2", "O-O", "O-O-O", "Nbd7",
            ],
            "30+1",
            &[
                0, 0, 2_000, 4_000, 0, 2_000, 4_000, 0, 2_000, 4_000, 0, 2_000, 4_000, 0, 2_000,
                4_000, 0, 2_000, 4_000, 60_000,
            ],
            500,
        ),
        // A sudden death of one second, used up exactly: times of 0.
        game(&opening[..2], "1", &[1_000, 1_000], 0),
        // An unknown control runs no clock: no ply carries a time.
        game(&opening[..2], "?", &[5, 5], 0),
    ]
}

/// The answers of one `ValidateGames` stream that sends `requests`.
pub(super) async fn stream(
    client: &mut RulesServiceClient<Channel>,
    requests: Vec<proto::ValidateGamesRequest>,
) -> Vec<proto::ValidateGamesResponse> {
    let answers = client.validate_games(tokio_stream::iter(requests)).await.unwrap();
    answers.into_inner().map(Result::unwrap).collect().await
}

/// `durations`, the answer to the Duration form, as the packed form must
/// answer it: each ply's `clock` as `clock_ms`, everything else alike.
fn as_packed(mut durations: proto::ValidateGameResponse) -> proto::ValidateGameResponse {
    for ply in &mut durations.plies {
        assert!(ply.clock_ms.is_none(), "{ply:?}");
        ply.clock_ms = ply.clock.take().map(|time| {
            assert!(time.seconds >= 0 && time.nanos % 1_000_000 == 0, "{time:?}");
            u32::try_from(time.seconds * 1000 + i64::from(time.nanos) / 1_000_000).unwrap()
        });
    }
    durations
}

/// Both forms of each game answer alike, field by field: from a server with
/// the replay cache, each form sent three times in turn (so that the cache
/// keeps the game, and answers one form from the entry the other made),
/// and from one without it.
#[tokio::test]
async fn both_forms_of_a_game_answer_alike() {
    let cached = TestServer::start(&[]).await;
    let uncached = TestServer::start(&["--cache-bytes", "0"]).await;
    let (mut with_cache, mut without) = (cached.client().await, uncached.client().await);
    let mut timed_plies = 0;
    for (i, game) in games().iter().enumerate() {
        let durations = without.validate_game(game.request(false)).await.unwrap().into_inner();
        let packed = without.validate_game(game.request(true)).await.unwrap().into_inner();
        assert!(packed.plies.iter().all(|ply| ply.clock.is_none()), "game {i}");
        timed_plies += durations.plies.iter().filter(|ply| ply.clock.is_some()).count();
        let expected = as_packed(durations.clone());
        assert_eq!(packed, expected, "game {i}");
        for round in 0..3 {
            for (form, answer) in [(false, &durations), (true, &expected)] {
                let got = with_cache.validate_game(game.request(form)).await.unwrap();
                assert_eq!(&got.into_inner(), answer, "game {i}, packed {form}, round {round}");
            }
        }
    }
    assert!(timed_plies > 20, "the games carry clocks: {timed_plies} plies");
    // The answers themselves, for the first game: 180 + 2 s a move.
    let first = without.validate_game(games()[0].request(true)).await.unwrap().into_inner();
    let clocks: Vec<_> = first.plies.iter().map(|ply| ply.clock_ms.unwrap()).collect();
    assert_eq!(clocks, [182_000, 182_000, 179_000, 171_500, 180_001, 173_499, 122_001, 175_492]);
    cached.shutdown().await.unwrap();
    uncached.shutdown().await.unwrap();
}

/// The same games in one `ValidateGames` stream, each both ways, in turn.
#[tokio::test]
async fn both_forms_answer_alike_in_a_stream() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let games = games();
    let requests: Vec<_> = games
        .iter()
        .enumerate()
        .flat_map(|(i, game)| {
            [false, true].map(|packed| proto::ValidateGamesRequest {
                id: format!("{i}-{packed}"),
                game: Some(game.request(packed)),
            })
        })
        .collect();
    let answers = stream(&mut client, requests).await;
    assert_eq!(answers.len(), 2 * games.len());
    for (i, pair) in answers.chunks(2).enumerate() {
        assert_eq!(
            (pair[0].id.clone(), pair[1].id.clone()),
            (format!("{i}-false"), format!("{i}-true"))
        );
        let game = |answer: &proto::ValidateGamesResponse| match &answer.result {
            Some(validate_games_response::Result::Game(game)) => game.clone(),
            other => panic!("game {i}: {other:?}"),
        };
        assert_eq!(game(&pair[1]), as_packed(game(&pair[0])), "game {i}");
        // And as `ValidateGame` answers it.
        let alone = client.validate_game(games[i].request(true)).await.unwrap().into_inner();
        assert_eq!(game(&pair[1]), alone, "game {i}");
    }
    server.shutdown().await.unwrap();
}

/// Both forms at once, a count of packed times that does not match the
/// moves, and a ply's remaining time past `uint32`: INVALID_ARGUMENT
/// naming the field, alone and in a stream (where the field is the
/// game's).
#[tokio::test]
async fn clock_form_errors_name_their_field() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let opening: &'static [&'static str] = &["e4", "e5"];
    let game = |control: &str, times: &[u32]| Game {
        fen: "",
        moves: opening,
        control: tag(control),
        times: times.to_vec(),
        pending: 0,
        include_fens: false,
        plies_from: 0,
    };
    let mut both = game("60", &[1_000, 2_000]).request(true);
    both.clock.as_mut().unwrap().move_times = vec![ms(1_000), ms(2_000)];
    let cases = [
        (both, "clock.move_times_ms", "CONFLICTING_FIELDS", "and move_times are both given"),
        (game("60", &[1_000]).request(true), "clock.move_times_ms", "INVALID_CLOCK", "1 move"),
        // The Duration form's count names its own field, as before.
        (game("60", &[1_000]).request(false), "clock.move_times", "INVALID_CLOCK", "1 move"),
        // 9,999,999 s: more milliseconds than a uint32 holds.
        (
            game("9999999", &[1_000, 2_000]).request(true),
            "clock.move_times_ms",
            "INVALID_CLOCK",
            "more than Ply.clock_ms holds",
        ),
    ];
    for (request, field, reason, words) in &cases {
        let status = client.validate_game(request.clone()).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert_eq!(details(&status), ((*field).to_owned(), (*reason).to_owned()));
        assert!(status.message().contains(words), "{}", status.message());
    }
    // The long control answers in the Duration form.
    let long = client.validate_game(game("9999999", &[1_000, 2_000]).request(false)).await;
    assert_eq!(long.unwrap().into_inner().plies[0].clock, Some(ms(9_999_998_000)));

    let requests = cases.iter().enumerate().map(|(i, (request, ..))| proto::ValidateGamesRequest {
        id: i.to_string(),
        game: Some(request.clone()),
    });
    let answers = stream(&mut client, requests.collect()).await;
    for (answer, (_, field, reason, _)) in answers.iter().zip(&cases) {
        let Some(validate_games_response::Result::Error(error)) = &answer.result else {
            panic!("{answer:?}")
        };
        assert_eq!(
            (error.field.as_str(), error.reason.as_str(), error.code.as_str()),
            (format!("game.{field}").as_str(), *reason, "INVALID_ARGUMENT")
        );
    }
    server.shutdown().await.unwrap();
}

/// `move_times_ms` sent unpacked (a varint field a time, which protobuf
/// parsers must accept for a packed field) and split over two packed
/// fields, as bytes written by hand: answered as the packed form.
#[tokio::test]
async fn unpacked_move_times_read_as_packed() {
    let server = TestServer::start(&[]).await;
    let game = &games()[0];
    let packed = game.request(true);
    let expected = server.client().await.validate_game(packed.clone()).await.unwrap().into_inner();
    // The request without its move times, then GameClock field 4 by hand.
    let clock = packed.clock.clone().unwrap();
    let bare = proto::GameClock { move_times_ms: Vec::new(), ..clock.clone() }.encode_to_vec();
    let unpacked = clock.move_times_ms.iter().fold(Vec::new(), |mut bytes, &ms| {
        encode_key(4, WireType::Varint, &mut bytes);
        encode_varint(u64::from(ms), &mut bytes);
        bytes
    });
    let (head, tail) = clock.move_times_ms.split_at(3);
    let split = [head, tail].iter().fold(Vec::new(), |mut bytes, part| {
        let mut body = Vec::new();
        part.iter().for_each(|&ms| encode_varint(u64::from(ms), &mut body));
        encode_key(4, WireType::LengthDelimited, &mut bytes);
        encode_varint(body.len() as u64, &mut bytes);
        bytes.extend(body);
        bytes
    });
    for times in [unpacked, split] {
        let mut request =
            proto::ValidateGameRequest { clock: None, ..packed.clone() }.encode_to_vec();
        let clock = [bare.clone(), times].concat();
        encode_key(13, WireType::LengthDelimited, &mut request);
        encode_varint(clock.len() as u64, &mut request);
        request.extend(clock);
        let answer: proto::ValidateGameResponse =
            super::adversarial::raw_unary(server.channel().await, "ValidateGame", request)
                .await
                .unwrap();
        assert_eq!(answer, expected);
    }
    server.shutdown().await.unwrap();
}
