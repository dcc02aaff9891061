//! The Prometheus endpoint over real HTTP: after OK, INVALID_ARGUMENT,
//! DEADLINE_EXCEEDED, shed, cancelled and illegal-move calls, the counters, histograms and
//! gauges carry the expected values and labels, and no request text.
//!
//! The metrics recorder is process-wide, so these tests have a binary of
//! their own: no other suite's calls can move their counters. They assert on
//! differences between two scrapes, since each other's calls share it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use arbiter::proto;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::{Code, Request};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

#[allow(dead_code)]
#[path = "common/server.rs"]
mod test_server;
use test_server::TestServer;

#[path = "common/zero_window.rs"]
mod zero_window;
use zero_window::{Headers, ZeroWindow};

const RULES: &str = "arbiter.v1.RulesService";
const HANDLED: &str = "arbiter_grpc_server_handled_total";
const BAD_FEN: &str = "8/8/8/8/8/8/8/8 w - - 0 1";

/// Status line, headers (lower-case names) and body of a plain HTTP/1.1 GET.
async fn http_get(addr: SocketAddr, path: &str) -> (u16, HashMap<String, String>, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect to the metrics port");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a complete HTTP response");
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// Health over a new connection.
async fn health_check(server: &TestServer) -> Result<(), Box<dyn std::error::Error>> {
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))?
        .connect()
        .await?;
    HealthClient::new(channel).check(HealthCheckRequest { service: String::new() }).await?;
    Ok(())
}

/// Scrapes until `name` reads `value` (connections close a moment after
/// their client drops them), or fails after a generous while.
async fn wait_for(server: &TestServer, name: &str, value: f64) -> Scrape {
    for _ in 0..500 {
        let (scrape, _) = Scrape::take(server).await;
        if scrape.value(name, &[]) == value {
            return scrape;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, text) = Scrape::take(server).await;
    panic!("{name} never reached {value}:\n{text}");
}

/// With `--max-connections 3` and the test's client connected (idle): two
/// more connections with a call open each, then a newcomer that finds no
/// free slot closes the idle client's connection (counted as evicted) and
/// is served; once all three have a call open, the next is closed on
/// arrival and counted as refused; once the calls end a new client gets in.
async fn connections_are_counted_and_bounded(server: &TestServer, before: &Scrape) {
    const OPEN: &str = "arbiter_connections_open";
    const REFUSED: &str = "arbiter_connections_refused_total";
    const CLOSED: &str = "arbiter_connections_closed_total";
    let evicted = [("reason", "evicted")];
    wait_for(server, OPEN, 1.0).await;
    let mut watches = Vec::new();
    let watch = async || {
        let mut watch = HealthClient::new(server.channel().await)
            .watch(HealthCheckRequest { service: String::new() })
            .await
            .unwrap()
            .into_inner();
        assert!(watch.message().await.unwrap().is_some());
        watch
    };
    for _ in 0..2 {
        watches.push(watch().await);
    }
    health_check(server).await.expect("the idle connection made room");
    let during = Scrape::take(server).await.0;
    assert!(during.value(CLOSED, &evicted) - before.value(CLOSED, &evicted) >= 1.0);
    watches.push(watch().await);
    assert!(health_check(server).await.is_err(), "a fourth busy connection was served");
    let during = wait_for(server, OPEN, 3.0).await;
    // The client may have tried twice (tonic reconnects a channel whose
    // connection closed before the call went out).
    let refused = during.value(REFUSED, &[]) - before.value(REFUSED, &[]);
    assert!(refused >= 1.0, "{refused} connections refused");
    drop(watches);
    wait_for(server, OPEN, 0.0).await;
    health_check(server).await.expect("a new connection once others closed");
}

/// One scrape: every sample as `(name, labels, value)`.
struct Scrape(Vec<(String, HashMap<String, String>, f64)>);

impl Scrape {
    async fn take(server: &TestServer) -> (Scrape, String) {
        let (status, _, text) = http_get(server.metrics_addr, "/metrics").await;
        assert_eq!(status, 200);
        let samples = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').expect("`series value`");
                let (name, labels) = match series.split_once('{') {
                    Some((name, labels)) => (name, labels.trim_end_matches('}')),
                    None => (series, ""),
                };
                let labels = labels
                    .split(',')
                    .filter_map(|pair| pair.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
                    .collect();
                (name.to_owned(), labels, value.parse().expect("a number"))
            })
            .collect();
        (Scrape(samples), text)
    }

    /// The sum of the samples of `name` whose labels include `labels`.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.0
            .iter()
            .filter(|(n, l, _)| {
                n == name && labels.iter().all(|(k, v)| l.get(*k).is_some_and(|x| x == v))
            })
            .map(|(_, _, value)| value)
            .sum()
    }

    fn has(&self, name: &str, labels: &[(&str, &str)]) -> bool {
        self.0.iter().any(|(n, l, _)| {
            n == name && labels.iter().all(|(k, v)| l.get(*k).is_some_and(|x| x == v))
        })
    }
}

fn game(moves: &[&str]) -> proto::ValidateGameRequest {
    proto::ValidateGameRequest {
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    }
}

fn handled(method: &str, code: &str) -> [(&'static str, String); 3] {
    [
        ("grpc_service", RULES.to_owned()),
        ("grpc_method", method.to_owned()),
        ("grpc_code", code.to_owned()),
    ]
}

#[tokio::test]
async fn every_call_is_counted_by_method_code_and_domain() {
    let server = TestServer::start(&["--max-concurrency", "1", "--max-connections", "3"]).await;
    let mut client = server.client().await;
    let (before, _) = Scrape::take(&server).await;

    // OK: two legal moves, then a finished game, then an illegal move.
    client.validate_game(game(&["e4", "e5"])).await.unwrap();
    // Fool's mate from Chess960 position 518 (the standard array).
    let mate = proto::ValidateGameRequest {
        notation: proto::Notation::San as i32,
        variant: proto::Variant::Chess960 as i32,
        chess960_position: Some(518),
        ..game(&["f3", "e5", "g4", "Qh4#"])
    };
    client.validate_game(mate).await.unwrap();
    // Atomic: the queen's capture on f7 explodes the black king.
    let explosion = proto::ValidateGameRequest {
        variant: proto::Variant::Atomic as i32,
        ..game(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"])
    };
    client.validate_game(explosion).await.unwrap();
    let r = client
        .validate_game(game(&["e4", "e5", "Ng1-f3", "Ke7", "Bb5", "Ke6", "Bxe8", "a3"]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.illegal_move.unwrap().index, 6);
    // INVALID_ARGUMENT.
    let bad = proto::ValidateGameRequest { fen: BAD_FEN.into(), ..game(&["e4"]) };
    assert_eq!(client.validate_game(bad).await.unwrap_err().code(), Code::InvalidArgument);
    // DEADLINE_EXCEEDED: perft(6) of Kiwipete cannot finish in a second.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let mut perft =
        Request::new(proto::PerftRequest { fen: kiwipete.into(), depth: 6, ..Default::default() });
    perft.metadata_mut().insert("grpc-timeout", "1S".parse().unwrap());
    assert_eq!(client.perft(perft).await.unwrap_err().code(), Code::DeadlineExceeded);
    // Shed: an open stream holds the only slot.
    let (tx, stream) = test_server::hold_a_slot(&mut client).await;
    let (during, _) = Scrape::take(&server).await;
    let stream_labels = [("grpc_service", RULES), ("grpc_method", "ValidateGames")];
    assert_eq!(during.value("arbiter_grpc_server_in_flight_calls", &stream_labels), 1.0);
    let shed = client.validate_game(game(&["e4"])).await.unwrap_err();
    assert_eq!(shed.code(), Code::ResourceExhausted);
    // Cancelled: the client walks away from the open stream.
    drop(stream);
    drop(tx);
    // Health goes through the same layer.
    HealthClient::new(server.channel().await)
        .check(HealthCheckRequest { service: String::new() })
        .await
        .unwrap();

    // The server sees the reset stream a moment after the client drops it.
    let mut after = Scrape::take(&server).await;
    for _ in 0..100 {
        if after.0.value(HANDLED, &[("grpc_method", "ValidateGames")]) > 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        after = Scrape::take(&server).await;
    }
    let (after, text) = after;
    let delta = |name: &str, labels: &[(&str, &str)]| {
        after.value(name, labels) - before.value(name, labels)
    };
    let count = |method: &str, code: &str| {
        let labels = handled(method, code);
        let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
        delta(HANDLED, &labels)
    };
    assert_eq!(count("ValidateGame", "OK"), 4.0, "{text}");
    assert_eq!(count("ValidateGame", "INVALID_ARGUMENT"), 1.0, "{text}");
    assert_eq!(count("ValidateGame", "RESOURCE_EXHAUSTED"), 1.0, "{text}");
    assert_eq!(count("ValidateGames", "CANCELLED"), 1.0, "{text}");
    assert_eq!(count("Perft", "DEADLINE_EXCEEDED"), 1.0, "{text}");
    let health = [("grpc_service", "grpc.health.v1.Health"), ("grpc_method", "Check")];
    assert_eq!(delta(HANDLED, &[health[0], health[1], ("grpc_code", "OK")]), 1.0, "{text}");

    // Latency: a real histogram, one observation per finished call.
    let unary = [("grpc_service", RULES), ("grpc_method", "ValidateGame")];
    assert_eq!(delta("arbiter_grpc_server_handling_seconds_count", &unary), 6.0, "{text}");
    for le in ["0.00005", "0.0001", "0.001", "+Inf"] {
        let bucket = [unary[0], unary[1], ("le", le)];
        assert!(
            after.has("arbiter_grpc_server_handling_seconds_bucket", &bucket),
            "le={le}\n{text}"
        );
    }
    assert_eq!(
        delta("arbiter_grpc_server_handling_seconds_bucket", &[unary[0], unary[1], ("le", "+Inf")]),
        6.0
    );
    assert_eq!(after.value("arbiter_grpc_server_in_flight_calls", &stream_labels), 0.0, "{text}");

    // Domain metrics: 2 + 4 + 7 + 7 moves checked (the stream's e4 makes 21).
    assert_eq!(delta("arbiter_moves_validated_total", &[]), 21.0, "{text}");
    assert_eq!(delta("arbiter_illegal_moves_total", &[("reason", "PATH_BLOCKED")]), 1.0);
    assert_eq!(delta("arbiter_games_finished_total", &[("termination", "CHECKMATE")]), 1.0);
    assert_eq!(delta("arbiter_games_finished_total", &[("termination", "EXPLOSION")]), 1.0);
    let requests = |notation, variant| {
        delta("arbiter_game_requests_total", &[("notation", notation), ("variant", variant)])
    };
    assert_eq!(requests("AUTO", "STANDARD"), 3.0, "{text}");
    assert_eq!(requests("SAN", "CHESS960"), 1.0, "{text}");
    assert_eq!(requests("AUTO", "ATOMIC"), 1.0, "{text}");
    assert_eq!(requests("SAN", "STANDARD") + requests("AUTO", "CHESS960"), 0.0, "{text}");
    assert_eq!(after.value("arbiter_stream_games_in_flight", &[]), 0.0, "{text}");
    assert!(after.has("arbiter_stream_games_in_flight", &[]), "{text}");
    // The replay cache (on by default) records through the same registry;
    // every game goes through it, the variant game too.
    let lookups = delta("arbiter_cache_hits_total", &[]) + delta("arbiter_cache_misses_total", &[]);
    assert_eq!(lookups, 5.0, "{text}");

    // Low cardinality: no FEN, no move text in any label.
    assert!(!text.contains(BAD_FEN) && !text.contains("Bxe8") && !text.contains("Qh4"), "{text}");
    for line in [
        "# TYPE arbiter_grpc_server_handling_seconds histogram",
        "# TYPE arbiter_grpc_server_handled_total counter",
        "# HELP arbiter_illegal_moves_total illegal moves, by reason",
        "# HELP arbiter_cache_misses_total replay cache lookups that had to replay",
        "# TYPE arbiter_connections_open gauge",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }

    connections_are_counted_and_bounded(&server, &before).await;
    // Its connection was closed to make room: a new one.
    let mut client = server.client().await;

    let (status, headers, _) = http_get(server.metrics_addr, "/metrics").await;
    assert_eq!(status, 200);
    assert!(headers["content-type"].starts_with("text/plain; version=0.0.4"), "{headers:?}");
    assert_eq!(http_get(server.metrics_addr, "/").await.0, 404);

    // The cache's size is read at each scrape: nothing was kept so far (no
    // game reached 8 legal plies), then one entry, once a list is sent a
    // second time; the first sending counts as not kept.
    assert_eq!(before.value("arbiter_cache_entries", &[]), 0.0);
    assert_eq!(after.value("arbiter_cache_bytes", &[]), 0.0, "{text}");
    let ten_plies = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"];
    for _ in 0..2 {
        client.validate_game(game(&ten_plies)).await.unwrap();
    }
    let kept = wait_for(&server, "arbiter_cache_entries", 1.0).await;
    // One 10-ply game: its key's texts, the replay (position, history,
    // ten plies' records) and the cache's overhead: hundreds of bytes
    // (906 when written), not kilobytes.
    let bytes = kept.value("arbiter_cache_bytes", &[]);
    assert!((500.0..4096.0).contains(&bytes), "{bytes}");
    // The first sending was not kept: its game was not followed yet.
    assert_eq!(kept.value("arbiter_cache_not_kept_total", &[]), 1.0);

    // The clock: a game whose flag fell (its move after the flag is
    // illegal, the game ends on time) and a PGN game whose clock rose.
    let clock = |times: &[u64]| proto::GameClock {
        time_control: Some(proto::TimeControl { tag: "60".into(), ..Default::default() }),
        move_times: times
            .iter()
            .map(|&s| prost_types::Duration { seconds: s as i64, nanos: 0 })
            .collect(),
        pending: None,
        move_times_ms: Vec::new(),
    };
    // Both ask what the game was: one analysis request from each source.
    let flag = proto::ValidateGameRequest {
        clock: Some(clock(&[1, 1, 70])),
        include_analysis: true,
        ..game(&["e4", "e5", "Nf3"])
    };
    let r = client.validate_game(flag).await.unwrap().into_inner();
    assert_eq!(r.illegal_move.unwrap().reason, proto::IllegalMoveReason::FlagFell as i32);
    // Over the board: White's two completed illegal moves, ruled on.
    let ruled = proto::ValidateGameRequest {
        illegal_moves: proto::IllegalMoves::Fide as i32,
        ..game(&["e4", "e5", "Ke3", "Nf3", "Nc6", "Ke1e3"])
    };
    let r = client.validate_game(ruled).await.unwrap().into_inner();
    assert_eq!(r.rulings.len(), 2);
    let pgn = "[TimeControl \"60\"]\n\n1. e4 {[%clk 0:00:59]} e5 {[%clk 0:00:58]} 2. Nf3 {[%clk 0:00:58]} Nc6 {[%clk 0:01:30]} *\n";
    let chunk =
        proto::ValidatePgnRequest { chunk: pgn.as_bytes().to_vec(), include_analysis: true };
    let answers = client.validate_pgn(tokio_stream::iter([chunk])).await.unwrap().into_inner();
    let answers: Vec<_> = tokio_stream::StreamExt::collect::<Vec<_>>(answers).await;
    assert_eq!(answers.len(), 1);
    let (clocked, text) = Scrape::take(&server).await;
    let delta = |name: &str, labels: &[(&str, &str)]| {
        clocked.value(name, labels) - kept.value(name, labels)
    };
    assert_eq!(delta("arbiter_clocked_games_total", &[]), 1.0, "{text}");
    assert_eq!(delta("arbiter_illegal_moves_total", &[("reason", "FLAG_FELL")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_games_finished_total", &[("termination", "TIMEOUT")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_clock_findings_total", &[("kind", "CLOCK_ROSE")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_clock_findings_total", &[("kind", "EMT_MISMATCH")]), 0.0, "{text}");
    assert_eq!(delta("arbiter_analysis_requests_total", &[("source", "game")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_analysis_requests_total", &[("source", "pgn")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_rulings_total", &[("action", "TIME_ADDED")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_rulings_total", &[("action", "GAME_LOST")]), 1.0, "{text}");
    assert_eq!(delta("arbiter_rulings_total", &[("action", "GAME_DRAWN")]), 0.0, "{text}");
    assert_eq!(
        delta("arbiter_games_finished_total", &[("termination", "ILLEGAL_MOVES")]),
        1.0,
        "{text}"
    );
    server.shutdown().await.unwrap();
}

/// Every family whose labels are known in advance is there at start-up,
/// at zero, before any event: `rate()` and dashboards need the series to
/// exist. (No test here ends a call INTERNAL or pins a piece illegally.)
#[tokio::test]
async fn known_series_are_registered_at_zero_at_start_up() {
    let server = TestServer::start(&[]).await;
    let (_, text) = Scrape::take(&server).await;
    let has = |series: &str| text.lines().any(|line| line.starts_with(series));
    for series in [
        "arbiter_illegal_moves_total{reason=\"PINNED_PIECE\"}",
        "arbiter_illegal_moves_total{reason=\"CASTLING_THROUGH_CHECK\"}",
        "arbiter_games_finished_total{termination=\"FIVEFOLD_REPETITION\"}",
        "arbiter_games_finished_total{termination=\"TIMEOUT_VS_UNWINNABLE\"}",
        "arbiter_illegal_moves_total{reason=\"FLAG_FELL\"}",
        "arbiter_clock_findings_total{kind=\"START_ABOVE_BASE\"}",
        "arbiter_clock_findings_total{kind=\"FORFEIT_NOT_ON_MOVE\"}",
        "arbiter_clocked_games_total",
        "arbiter_analysis_requests_total{source=\"game\"}",
        "arbiter_analysis_requests_total{source=\"pgn\"}",
        "arbiter_rulings_total{action=\"GAME_DRAWN\"}",
        "arbiter_games_finished_total{termination=\"ILLEGAL_MOVES_VS_UNWINNABLE\"}",
        "arbiter_game_requests_total{notation=\"UCI\",variant=\"STANDARD\"}",
        "arbiter_game_requests_total{notation=\"SAN\",variant=\"CHESS960\"}",
        "arbiter_game_requests_total{notation=\"SAN\",variant=\"RACING_KINGS\"}",
        "arbiter_games_finished_total{termination=\"THIRD_CHECK\"}",
        "arbiter_illegal_moves_total{reason=\"CAPTURE_REQUIRED\"}",
        "arbiter_moves_validated_total",
        "arbiter_cache_hits_total",
        "arbiter_cache_misses_total",
        "arbiter_cache_evictions_total",
        "arbiter_cache_not_kept_total",
        "arbiter_encode_errors_total",
        "arbiter_connections_refused_total",
        "arbiter_calls_stalled_total{rpc=\"unary\",reason=\"timeout\"}",
        "arbiter_calls_stalled_total{rpc=\"unary\",reason=\"displaced\"}",
        "arbiter_calls_stalled_total{rpc=\"stream\",reason=\"timeout\"}",
        "arbiter_calls_stalled_total{rpc=\"stream\",reason=\"displaced\"}",
        "arbiter_connections_closed_total{reason=\"stalled\"}",
        "arbiter_stream_games_in_flight",
        &format!(
            "{HANDLED}{{grpc_service=\"{RULES}\",grpc_method=\"Perft\",grpc_code=\"INTERNAL\"}}"
        ),
        &format!(
            "{HANDLED}{{grpc_service=\"{RULES}\",grpc_method=\"ValidateGames\",grpc_code=\"RESOURCE_EXHAUSTED\"}}"
        ),
        &format!(
            "{HANDLED}{{grpc_service=\"{RULES}\",grpc_method=\"ValidatePgn\",grpc_code=\"OK\"}}"
        ),
        &format!(
            "{HANDLED}{{grpc_service=\"grpc.reflection.v1.ServerReflection\",grpc_method=\"ServerReflectionInfo\",grpc_code=\"OK\"}}"
        ),
    ] {
        assert!(has(series), "{series} is missing at start-up:\n{text}");
    }
}

/// A call whose answer the client never takes (a window of 0) is counted
/// as stalled (reason `timeout`) once past `--stall-timeout`, and its connection, whose only
/// call it was, as closed for that reason.
#[tokio::test]
async fn stalled_calls_and_their_connections_are_counted() {
    const STALLED: &str = "arbiter_calls_stalled_total";
    const CLOSED: &str = "arbiter_connections_closed_total";
    let server = TestServer::start(&["--stall-timeout", "200ms"]).await;
    let (before, _) = Scrape::take(&server).await;
    let mut client = ZeroWindow::connect(server.addr, [127, 0, 0, 1].into()).await;
    // A Perft: the other test here counts this suite's ValidateGame calls.
    let message =
        prost::Message::encode_to_vec(&proto::PerftRequest { depth: 2, ..Default::default() });
    assert_eq!(client.call("Perft", &message, true).await, Headers::Admitted);
    assert!(
        client.closed_within(Duration::from_secs(30)).await,
        "the stalled connection is closed"
    );
    let (after, text) = Scrape::take(&server).await;
    let moved = |name: &str, labels: &[(&str, &str)]| {
        after.value(name, labels) - before.value(name, labels)
    };
    assert_eq!(moved(STALLED, &[("rpc", "unary"), ("reason", "timeout")]), 1.0, "{text}");
    assert_eq!(moved(STALLED, &[("reason", "displaced")]), 0.0, "{text}");
    assert_eq!(moved(STALLED, &[("rpc", "stream")]), 0.0, "{text}");
    assert_eq!(moved(CLOSED, &[("reason", "stalled")]), 1.0, "{text}");
}
