//! The `arbiter` binary, run as a user would run it.

use std::process::Command;

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter")).args(args).output().expect("arbiter runs")
}

#[test]
fn perft_prints_the_count_last() {
    let out = arbiter(&["perft", "4"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("197281"));
}

#[test]
fn perft_divide_prints_a_line_per_move() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = arbiter(&["perft", "--fen", kiwipete, "--divide", "2"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 49);
    assert_eq!(lines.last(), Some(&"2039"));
    assert!(lines.contains(&"e1g1: 43"), "{stdout}");
    let sum: u64 = lines[..48]
        .iter()
        .map(|l| l.split_once(": ").expect("<uci>: <nodes>").1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 2039);
}

#[test]
fn perft_rejects_an_invalid_fen_on_stderr() {
    let out = arbiter(&["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "1"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("white has no king"), "{stderr}");
}
