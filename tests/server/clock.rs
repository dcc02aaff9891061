//! The clock over a real socket on 127.0.0.1: `ValidateGame` and
//! `ValidateGames` with a clock record (each ply's time, the final
//! times, flag falls decided from the record, FIDE 6.9 against an
//! opponent who cannot mate), a live clocked game through the cache, and
//! malformed records as INVALID_ARGUMENT naming their field.

use arbiter::proto::{self, validate_games_response};
use prost_types::Duration;
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::server::TestServer;

fn ms(ms: u64) -> Duration {
    Duration { seconds: (ms / 1000) as i64, nanos: (ms % 1000 * 1_000_000) as i32 }
}

fn tag(tag: &str) -> Option<proto::TimeControl> {
    Some(proto::TimeControl { tag: tag.into(), ..Default::default() })
}

/// A game with the clock record of `control`, `times` and `pending` (ms).
fn clocked(
    fen: &str,
    moves: &[&str],
    control: Option<proto::TimeControl>,
    times: &[u64],
    pending: u64,
) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest {
        fen: fen.into(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        clock: Some(proto::GameClock {
            time_control: control,
            move_times: times.iter().map(|&t| ms(t)).collect(),
            pending: Some(ms(pending)),
            move_times_ms: Vec::new(),
        }),
        ..Default::default()
    }
}

fn plies_clocks(r: &proto::ValidateGameResponse) -> Vec<Duration> {
    r.plies.iter().map(|p| p.clock.unwrap()).collect()
}

fn final_clocks(r: &proto::ValidateGameResponse) -> (Duration, Duration) {
    let clocks = r.position.as_ref().unwrap().clocks.unwrap();
    (clocks.white.unwrap(), clocks.black.unwrap())
}

fn ending(r: &proto::ValidateGameResponse) -> (i32, i32) {
    let outcome = r.outcome.as_ref().unwrap();
    (outcome.result, outcome.termination)
}

#[tokio::test]
async fn the_clock_runs_and_decides_flag_falls() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let opening = ["e4", "e5", "Nf3", "Nc6"];

    // 3 minutes + 2 s, the first moves not timed, White thinking 10 s.
    let r = client
        .validate_game(clocked("", &opening, tag("180+2"), &[0, 0, 5_000, 12_500], 10_000))
        .await
        .unwrap()
        .into_inner();
    assert!(r.illegal_move.is_none());
    assert_eq!(plies_clocks(&r), [ms(182_000), ms(182_000), ms(179_000), ms(171_500)]);
    assert_eq!(final_clocks(&r), (ms(169_000), ms(171_500)));
    assert_eq!(ending(&r), (proto::GameResult::Ongoing as i32, 0));
    assert_eq!(r.position.unwrap().legal_moves.len(), 27);

    // White's third move took longer than it had: not played, and Black,
    // who can mate, wins on time.
    let r = client
        .validate_game(clocked("", &opening, tag("60"), &[30_000, 1_000, 30_001, 0], 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.plies.len(), 2);
    let bad = r.illegal_move.clone().unwrap();
    assert_eq!((bad.index, bad.r#move.as_str()), (2, "Nf3"));
    assert_eq!(bad.reason, proto::IllegalMoveReason::FlagFell as i32);
    assert_eq!(bad.message, "white's flag fell: the move took 30001 ms with 30000 ms left");
    let black_wins = proto::GameResult::BlackWins as i32;
    assert_eq!(ending(&r), (black_wins, proto::Termination::Timeout as i32));
    assert_eq!(final_clocks(&r), (ms(0), ms(59_000)));
    assert!(r.position.unwrap().legal_moves.is_empty());

    // Against a bare king the flag fall is a draw (FIDE 6.9).
    let kqk = "8/8/4k3/8/8/4K3/4Q3/8 w - - 0 60";
    let r = client
        .validate_game(clocked(kqk, &["Qd2"], tag("10"), &[10_001], 0))
        .await
        .unwrap()
        .into_inner();
    let draw = proto::GameResult::Draw as i32;
    assert_eq!(ending(&r), (draw, proto::Termination::TimeoutVsUnwinnable as i32));
    // Black's pending time past its clock, against a queen: White wins.
    let r = client
        .validate_game(clocked(kqk, &["Qd2"], tag("10"), &[1_000], 10_001))
        .await
        .unwrap()
        .into_inner();
    let white_wins = proto::GameResult::WhiteWins as i32;
    assert_eq!(ending(&r), (white_wins, proto::Termination::Timeout as i32));
    assert!(r.illegal_move.is_none());
    assert_eq!(final_clocks(&r), (ms(9_000), ms(0)));

    // A move after mate is after the end, whatever its time.
    let mate = ["f3", "e5", "g4", "Qh4", "a3"];
    let r = client
        .validate_game(clocked("", &mate, tag("60"), &[0, 0, 0, 0, 99_000], 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ending(&r), (black_wins, proto::Termination::Checkmate as i32));
    assert_eq!(r.illegal_move.unwrap().reason, proto::IllegalMoveReason::GameOver as i32);

    // Periods and a simple delay, structured: the delay holds the flag.
    let g1_delay = Some(proto::TimeControl {
        tag: String::new(),
        periods: vec![proto::TimePeriod { moves: 0, time: Some(ms(60_000)), increment: None }],
        delay: Some(proto::TimeDelay {
            kind: proto::DelayKind::Simple as i32,
            time: Some(ms(5_000)),
        }),
    });
    let r = client
        .validate_game(clocked("", &["e4", "e5"], g1_delay, &[64_000, 3_000], 0))
        .await
        .unwrap()
        .into_inner();
    assert!(r.illegal_move.is_none());
    assert_eq!(plies_clocks(&r), [ms(1_000), ms(60_000)]);

    // The same in a stream, after a request that is no game.
    let requests = vec![
        proto::ValidateGamesRequest {
            id: "bad".into(),
            game: Some(clocked("", &opening, tag("60"), &[1_000], 0)),
        },
        proto::ValidateGamesRequest {
            id: "flag".into(),
            game: Some(clocked("", &opening, tag("60"), &[30_000, 1_000, 30_001, 0], 0)),
        },
    ];
    let answers = super::clock_forms::stream(&mut client, requests).await;
    let Some(validate_games_response::Result::Error(error)) = &answers[0].result else {
        panic!("{answers:?}")
    };
    assert_eq!(
        (error.field.as_str(), error.reason.as_str()),
        ("game.clock.move_times", "INVALID_CLOCK")
    );
    let Some(validate_games_response::Result::Game(r)) = &answers[1].result else { panic!() };
    assert_eq!(r.illegal_move.as_ref().unwrap().reason, proto::IllegalMoveReason::FlagFell as i32);
    server.shutdown().await.unwrap();
}

/// A live clocked game sent move by move, as a platform does, answers
/// alike with and without the replay cache, up to the flag fall and after
/// it; and a longer list whose flag fell early does not resume from a
/// cached longer game.
#[tokio::test]
async fn a_live_clocked_game_answers_alike_with_and_without_the_cache() {
    let cached = TestServer::start(&[]).await;
    let uncached = TestServer::start(&["--cache-bytes", "0"]).await;
    let (mut with_cache, mut without) = (cached.client().await, uncached.client().await);
    let moves = [
        "e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3",
        "Be6", "f3", "Be7", "Qd2", "O-O", "O-O-O", "Nbd7",
    ];
    // Black's 10th move (ply 20) takes more than the 20 s it has left.
    let times: Vec<u64> =
        (0..moves.len()).map(|i| if i == 19 { 60_000 } else { 2_000 * (i as u64 % 3) }).collect();
    for len in 1..=moves.len() {
        let mut request = clocked("", &moves[..len], tag("30+1"), &times[..len], 500);
        request.plies_from = u32::try_from(len - 1).unwrap();
        let a = with_cache.validate_game(request.clone()).await.unwrap().into_inner();
        let b = without.validate_game(request).await.unwrap().into_inner();
        assert_eq!(a, b, "{len} plies");
    }
    let last = with_cache
        .validate_game(clocked("", &moves, tag("30+1"), &times, 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(last.illegal_move.unwrap().index, 19);
    // The same moves, timed so that White's flag falls at ply 3: the cached
    // 19-ply game must not answer it.
    let mut early = times.clone();
    early[2] = 31_001;
    let a = with_cache
        .validate_game(clocked("", &moves, tag("30+1"), &early, 0))
        .await
        .unwrap()
        .into_inner();
    let b = without.validate_game(clocked("", &moves, tag("30+1"), &early, 0)).await.unwrap();
    assert_eq!(a, b.into_inner());
    assert_eq!((a.plies.len(), a.illegal_move.unwrap().index), (2, 2));
    cached.shutdown().await.unwrap();
    uncached.shutdown().await.unwrap();
}

#[tokio::test]
async fn malformed_clock_records_name_their_field() {
    let server = TestServer::start(&[]).await;
    let mut client = server.client().await;
    let period = |time: Duration| proto::TimePeriod { moves: 0, time: Some(time), increment: None };
    let structured = |periods: Vec<proto::TimePeriod>, delay: Option<proto::TimeDelay>| {
        Some(proto::TimeControl { tag: String::new(), periods, delay })
    };
    let cases = [
        (
            clocked("", &["e4"], tag("40/x"), &[0], 0),
            "clock.time_control.tag",
            "INVALID_TIME_CONTROL",
        ),
        (clocked("", &["e4"], None, &[0], 0), "clock.time_control.tag", "MISSING_FIELD"),
        (
            clocked(
                "",
                &["e4"],
                Some(proto::TimeControl {
                    tag: "60".into(),
                    periods: vec![period(ms(1))],
                    delay: None,
                }),
                &[0],
                0,
            ),
            "clock.time_control.tag",
            "CONFLICTING_FIELDS",
        ),
        (clocked("", &["e4", "e5"], tag("60"), &[0], 0), "clock.move_times", "INVALID_CLOCK"),
        (
            clocked(
                "",
                &["e4"],
                structured(vec![period(Duration { seconds: -1, nanos: 0 })], None),
                &[0],
                0,
            ),
            "clock.time_control.periods[0].time",
            "INVALID_DURATION",
        ),
        (
            clocked("", &["e4"], structured(vec![period(ms(1)); 17], None), &[0], 0),
            "clock.time_control.periods",
            "INVALID_TIME_CONTROL",
        ),
        (
            clocked(
                "",
                &["e4"],
                structured(
                    vec![period(ms(60_000))],
                    Some(proto::TimeDelay { kind: 0, time: Some(ms(5_000)) }),
                ),
                &[0],
                0,
            ),
            "clock.time_control.delay.kind",
            "MISSING_FIELD",
        ),
        (
            {
                let mut r = clocked("", &["e4"], tag("60"), &[0], 0);
                r.clock.as_mut().unwrap().move_times[0] = Duration { seconds: 1, nanos: 500 };
                r
            },
            "clock.move_times[0]",
            "INVALID_DURATION",
        ),
        (clocked("", &["e4"], tag("60"), &[0], 10_000_000_001), "clock.pending", "INVALID_CLOCK"),
        (
            proto::ValidateGameRequest {
                flagged: proto::Color::White as i32,
                ..clocked("", &["e4"], tag("60"), &[0], 0)
            },
            "clock",
            "CONFLICTING_FIELDS",
        ),
    ];
    for (request, field, reason) in cases {
        let status = client.validate_game(request).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        let details = status.get_error_details();
        let violation = &details.bad_request().expect("BadRequest").field_violations[0];
        assert_eq!(
            (violation.field.as_str(), details.error_info().unwrap().reason.as_str()),
            (field, reason),
            "{}",
            status.message()
        );
    }
    server.shutdown().await.unwrap();
}
