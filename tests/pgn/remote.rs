//! `arbiter pgn --remote`: the real binary against a real server on
//! 127.0.0.1 gives the same output (JSON lines, canonical PGN, summary
//! counts, exit status) as local validation, on a text with variations,
//! illegal moves and unreadable games and on every shared PGN file; a
//! server that sheds the stream is retried, and one that keeps shedding it
//! ends the run with exit status 2; over mutual TLS with `--tls-ca`,
//! `--tls-cert`, `--tls-key` and `--tls-domain`. With `--analysis`, what
//! each game was is the same too.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::pki;
use crate::common::server::{self as test_server, TestServer};

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("arbiter-pgn-remote-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `arbiter pgn ARGS FILES` (off the test's runtime).
async fn pgn(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("pgn")
            .arg("--quiet")
            .args(args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// The summary's counts: its first line (the second has the time).
fn counts(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() >= 2, "{stderr}");
    let games = lines[lines.len() - 1].split(" in ").next().unwrap();
    format!("{}\n{games}", lines[lines.len() - 2])
}

/// Runs the file locally and remotely, with JSON and canonical PGN, and
/// checks that everything but the timing is the same; returns the output.
async fn same_output(server: &TestServer, file: &Path, concurrency: u32) -> Output {
    same_output_with(server, file, concurrency, &[]).await
}

/// [`same_output`], with the options `extra` on both runs.
async fn same_output_with(
    server: &TestServer,
    file: &Path,
    concurrency: u32,
    extra: &[&str],
) -> Output {
    let dir = scratch(&format!("{concurrency}{}", extra.join("")));
    let local_pgn = dir.join("local.pgn");
    let remote_pgn = dir.join("remote.pgn");
    let path = file.to_str().unwrap().to_owned();
    let extra = extra.iter().map(|&option| option.to_owned());
    let local = pgn(["--json", "--canonical", local_pgn.to_str().unwrap(), &path]
        .into_iter()
        .map(str::to_owned)
        .chain(extra.clone())
        .collect())
    .await;
    let remote = pgn([
        "--json",
        "--canonical",
        remote_pgn.to_str().unwrap(),
        "--remote",
        &server.addr.to_string(),
        "--concurrency",
        &concurrency.to_string(),
        &path,
    ]
    .into_iter()
    .map(str::to_owned)
    .chain(extra)
    .collect())
    .await;
    let label = file.display();
    assert_eq!(remote.status.code(), local.status.code(), "{label}: exit status");
    assert_eq!(counts(&remote), counts(&local), "{label}: summary");
    assert!(!local.stdout.is_empty(), "{label}: no JSON lines");
    assert!(
        remote.stdout == local.stdout,
        "{label}: the JSON lines differ; local:\n{}\nremote:\n{}",
        String::from_utf8_lossy(&local.stdout),
        String::from_utf8_lossy(&remote.stdout)
    );
    let (a, b) = (std::fs::read(&local_pgn).unwrap(), std::fs::read(&remote_pgn).unwrap());
    assert!(a == b, "{label}: the canonical PGN differs");
    remote
}

const TRICKY: &str = "[Event \"mate\"]\n[Result \"0-1\"]\n\n\
    1. f3 {weak} e5 2. g4?? (2. e4 Nc6 (2... Nf6 3. Ke3) 3. Nf3) (2. Bxh7) Qh4# 0-1\n\n\
    [Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 (1... Nf6 2. Ke3) 2. Ke3 (2. Nf3 Nc6) Nc6 *\n\n\
    [Event \"bad fen\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n\n\
    [Event \"crazyhouse\"]\n[Variant \"Crazyhouse\"]\n\n\
    1. e4 d5 2. exd5 Qxd5 (2... Nf6 3. P@e5) 3. Nc3 Qa5 4. P@d4 (4. N@f3) @e4 *\n\n\
    [Event \"atomic\"]\n[Variant \"Atomic\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7 1-0\n\n\
    [Event \"three-check on time\"]\n[Variant \"Three-check\"]\n[FEN \"4k2n/8/8/8/8/8/8/4K3 w - - 3+3 0 1\"]\n\
    [Result \"1/2-1/2\"]\n[Termination \"Time forfeit\"]\n\n1. Kd1 1/2-1/2\n\n\
    [Event \"unknown variant\"]\n[Variant \"Bughouse\"]\n\n1. e4 *\n\n\
    [Event \"from a FEN\"]\n[FEN \"k7/8/8/2Q5/8/8/8/2K5 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Qb6 1-0\n\n\
    [Event \"960\"]\n[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n\
    1. g3 g6 2. Ng2 Nf6 3. O-O *\n\n\
    [Event \"variation first\"]\n\n(1. d4) 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2\n\n\
    [Event \"unfinished\"]\n\n1. d4 d5 2. c4\n\n\
    [Event \"on time, no mate\"]\n[FEN \"8/8/4k3/8/8/4K3/5p2/8 w - - 0 60\"]\n[Result \"1-0\"]\n\
    [Termination \"Time forfeit\"]\n\n1. Kd3 1-0\n\n\
    [Event \"on time\"]\n[Result \"0-1\"]\n[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Nf3 0-1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_output_is_the_local_output() {
    let server = TestServer::start(&[]).await;
    let file = scratch("tricky").join("tricky.pgn");
    // Many copies: more games than the streams keep in flight.
    std::fs::write(&file, format!("{TRICKY}\n\n").repeat(40)).unwrap();
    for concurrency in [1, 3] {
        let output = same_output(&server, &file, concurrency).await;
        assert_eq!(output.status.code(), Some(1));
        assert!(counts(&output).ends_with("520 games"), "{}", counts(&output));
    }
    // Over the server's moves limit: the game is checked locally instead.
    let small = TestServer::start(&["--max-moves", "4"]).await;
    same_output(&small, &file, 2).await;
    small.shutdown().await.unwrap();
    server.shutdown().await.unwrap();
}

/// Games whose clocks say how each side spent its time, in two records:
/// `[%clk]` readings under an increment, and `[%emt]` times.
const CLOCKED: &str = "[Event \"clocks\"]\n[TimeControl \"180+2\"]\n[Result \"*\"]\n\n\
    1. e4 {[%clk 0:03:00]} c5 {[%clk 0:03:00]} 2. Nf3 {[%clk 0:02:58]} d6 {[%clk 0:02:51]} \
    3. d4 {[%clk 0:02:57]} cxd4 {[%clk 0:02:49]} 4. Nxd4 {[%clk 0:02:59]} Nf6 {[%clk 0:02:40]} \
    5. Nc3 {[%clk 0:02:55]} a6 {[%clk 0:02:41]} *\n\n\
    [Event \"emt\"]\n[Result \"*\"]\n\n1. d4 {[%emt 0:00:01]} Nf6 {[%emt 0:00:03]} \
    2. c4 {[%emt 0:00:02]} e6 {[%emt 0:00:04]} 3. Nc3 {[%emt 0:00:00]} Bb4 {[%emt 0:00:09]} *";

/// `--remote --analysis` prints what each game was exactly as a local run
/// does: the opening, the phases and each side's time use (found here
/// from the moves the server accepted and the PGN's own clock record).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_analysis_is_the_local_analysis() {
    let server = TestServer::start(&[]).await;
    let file = scratch("analysis").join("games.pgn");
    std::fs::write(&file, format!("{TRICKY}\n\n{CLOCKED}\n\n").repeat(5)).unwrap();
    let output = same_output_with(&server, &file, 2, &["--analysis"]).await;
    let lines = String::from_utf8(output.stdout).unwrap();
    let games: Vec<serde_json::Value> =
        lines.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 5 * 15);
    // Every game with a verdict has its analysis, the others none.
    for game in &games {
        assert_eq!(game.get("analysis").is_some(), game.get("error").is_none(), "{game}");
    }
    let sicilian = &games[13]["analysis"];
    assert_eq!(sicilian["opening"]["eco"], "B90", "{sicilian}");
    assert_eq!(sicilian["timeUse"][0]["timedMoves"], 4, "{sicilian}");
    let nimzo = &games[14]["analysis"];
    assert_eq!(nimzo["opening"]["eco"], "E20", "{nimzo}");
    // Black's 2... e6 took 4 s and 3... Bb4 9 s: its first move is left out.
    assert_eq!(nimzo["timeUse"][1]["totalMs"], 13_000, "{nimzo}");
    if let Some(dir) = common::data_dir_or_skip() {
        let lichess = dir.join("pgn/shakmaty/lichess_db_1000k.pgn");
        same_output_with(&server, &lichess, 4, &["--analysis"]).await;
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_pgn_files_give_the_same_output_remotely() {
    let Some(dir) = common::data_dir_or_skip() else { return };
    let server = TestServer::start(&[]).await;
    let files = common::shared_pgn_files(&dir);
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        same_output(&server, file, 4).await;
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shed_stream_is_sent_again_and_one_always_shed_ends_the_run() {
    let server = TestServer::start(&["--max-concurrency", "1"]).await;
    let file = scratch("shed").join("games.pgn");
    std::fs::write(&file, TRICKY).unwrap();
    let args = |file: &Path| {
        vec![
            "--remote".to_owned(),
            server.addr.to_string(),
            "--concurrency".into(),
            "1".into(),
            file.to_str().unwrap().into(),
        ]
    };
    // Always shed: four attempts (50 + 100 + 200 ms apart), then exit 2.
    let mut holder = server.client().await;
    let slot = test_server::hold_a_slot(&mut holder).await;
    let started = Instant::now();
    let output = pgn(args(&file)).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("resource") || stderr.contains("RESOURCE"), "{stderr}");
    assert!(started.elapsed() >= Duration::from_millis(350), "{:?}", started.elapsed());
    // Shed at first, then the slot is freed: the retries get through.
    let run = tokio::spawn(pgn(args(&file)));
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(slot);
    let output = run.await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.lines().last().unwrap().contains("13 games"), "{stderr}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mutual_tls() {
    let ca = pki::Ca::new("pgn remote test CA");
    let dir = pki::scratch_dir("pgn-remote");
    let server_pem = ca.server();
    let client_pem = ca.client();
    let cert = pki::write(&dir, "server.pem", &server_pem.cert);
    let key = pki::write(&dir, "server.key", &server_pem.key);
    let ca_file = pki::write(&dir, "ca.pem", &ca.cert_pem);
    let client_cert = pki::write(&dir, "client.pem", &client_pem.cert);
    let client_key = pki::write(&dir, "client.key", &client_pem.key);
    let server =
        TestServer::start(&["--tls-cert", &cert, "--tls-key", &key, "--tls-client-ca", &ca_file])
            .await;
    let file = scratch("tls").join("games.pgn");
    std::fs::write(&file, TRICKY).unwrap();
    let path = file.to_str().unwrap().to_owned();
    let local = pgn(vec!["--json".into(), path.clone()]).await;
    let remote = |identity: bool| {
        let mut args = vec![
            "--json".to_owned(),
            "--remote".into(),
            format!("localhost:{}", server.addr.port()),
            "--tls-ca".into(),
            ca_file.clone(),
            "--tls-domain".into(),
            "localhost".into(),
        ];
        if identity {
            args.extend([
                "--tls-cert".into(),
                client_cert.clone(),
                "--tls-key".into(),
                client_key.clone(),
            ]);
        }
        args.push(path.clone());
        pgn(args)
    };
    let output = remote(true).await;
    assert_eq!(
        output.status.code(),
        local.status.code(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.stdout, local.stdout);
    // Without a client certificate the server refuses the handshake.
    let refused = remote(false).await;
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    server.shutdown().await.unwrap();
}
