"""The wheel against the command line: every function's dicts equal what
`arbiter validate` and `arbiter pgn --json` print, on the shared PGN files
and on random games; lichess's variants against games with known endings;
bad input raises as documented."""

from __future__ import annotations

import bz2
import gzip
import random
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_row_is_game, pgn_of, random_game, run_cli

import arbiter


def test_version_is_the_crates() -> None:
    cargo = (Path(__file__).parents[2] / "Cargo.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', cargo, re.M)
    assert version and arbiter.__version__ == version.group(1)


FLAGS = [
    ({}, []),
    ({"fens": True}, ["--fens"]),
    ({"legal_moves": False}, ["--no-legal-moves"]),
    ({"strict": True}, ["--strict"]),
    ({"flagged": "white", "winnability": True}, ["--flagged", "white", "--winnability"]),
    ({"notation": "san", "shredder_fen": True}, ["--notation", "san", "--shredder-fen"]),
]


def test_validate_equals_the_cli_on_random_games(cli: Path) -> None:
    rng = random.Random(35)
    for number in range(24):
        chess960 = rng.randrange(960) if number % 3 == 2 else None
        moves = random_game(rng, chess960)
        if number % 4 == 1:
            moves.append("Ke9" if number % 8 == 1 else "O-O-O")
        if number % 5 == 0 and moves:
            moves[0] = moves[0] + "+"  # not canonical
        kwargs, flags = FLAGS[number % len(FLAGS)]
        start = ["--chess960", str(chess960)] if chess960 is not None else []
        expected = run_cli(cli, "validate", *start, *flags, "--", *moves)
        assert [arbiter.validate(moves, chess960=chess960, **kwargs)] == expected, moves


def test_validate_from_a_fen_equals_the_cli(cli: Path) -> None:
    fen = "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"
    for moves in (["Qg7#"], ["Qf8+"], ["Kh6", "Kg8"], "Qf6 Kg8".split()):
        assert [arbiter.validate(moves, fen=fen)] == run_cli(cli, "validate", "--fen", fen, *moves)
    assert arbiter.validate("Qg7#", fen=fen)["outcome"]["termination"] == "TERMINATION_CHECKMATE"


def test_rulings_on_illegal_moves_equal_the_cli(cli: Path) -> None:
    # White's king to e3 twice (index 2 and 5), on a blitz clock.
    moves = ["e4", "e5", "Ke3", "Nf3", "Nc6", "Ke1e3", "Nf6"]
    times = [1, 2, 3, 4, 5, 6, 7]
    for rules in ("stop", "fide", "fide-2009"):
        flags = ["--illegal-moves", rules, "--time-control", "180+2"]
        flags += ["--move-times", ",".join(str(t) for t in times)]
        expected = run_cli(cli, "validate", *flags, "--", *moves)
        got = arbiter.validate(moves, time_control="180+2", move_times=times, illegal_moves=rules)
        assert [got] == expected, rules
    ruled = arbiter.validate(moves, illegal_moves="fide")
    assert [r["index"] for r in ruled["rulings"]] == [2, 5]
    assert ruled["rulings"][0]["timeAdded"] == "120s"
    assert ruled["outcome"]["termination"] == "TERMINATION_ILLEGAL_MOVES"
    assert "rulings" not in arbiter.validate(moves)
    with pytest.raises(ValueError, match="stop, fide or fide-2009"):
        arbiter.validate(moves, illegal_moves="uscf")


def test_a_clocked_game_equals_the_cli(cli: Path) -> None:
    moves = ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    cases = [
        ("180+2", [0, 0, 5, 12.5, 3], 10),  # the clock runs
        ("60", [30, 1, 30.001, 0, 0], 0),  # white's flag falls on Nf3
        ("40/5400+30:1800+30", [0.25, 1, 2, 3, 4], None),
    ]
    for tag, times, pending in cases:
        flags = ["--time-control", tag, "--move-times", ",".join(str(t) for t in times)]
        if pending is not None:
            flags += ["--pending-time", str(pending)]
        expected = run_cli(cli, "validate", *flags, "--", *moves)
        got = arbiter.validate(moves, time_control=tag, move_times=times, pending_time=pending)
        assert [got] == expected, tag
    flag = arbiter.validate(moves, time_control="60", move_times=[30, 1, 30.001, 0, 0])
    assert flag["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_FLAG_FELL"
    assert flag["position"]["clocks"] == {"white": "0s", "black": "59s"}


def compare_pgn(cli: Path, path: Path) -> None:
    expected = run_cli(cli, "pgn", "--json", "--quiet", "--jobs", "1", str(path))
    assert arbiter.check_pgn(path.read_bytes()) == expected
    assert arbiter.check_pgn(path.read_text(encoding="utf-8", errors="strict")) == expected
    for jobs in (1, 2):
        assert arbiter.check_pgn_file(path, jobs=jobs) == expected
    assert list(arbiter.iter_pgn_file(str(path))) == expected
    table = arbiter.pgn_table(path, jobs=2)
    assert table.num_rows == len(expected)
    for row, game in zip(table.to_pylist(), expected):
        assert_row_is_game(row, game)


def test_every_function_equals_the_cli_on_the_shared_files(
    cli: Path, shared_pgn: list[Path]
) -> None:
    assert len(shared_pgn) >= 10
    for path in shared_pgn:
        compare_pgn(cli, path)


def test_every_function_equals_the_cli_on_random_games(cli: Path, tmp_path: Path) -> None:
    rng = random.Random(3535)
    games = [random_game(rng) for _ in range(30)]
    games[3] = games[3] + ["Ke9"]  # an illegal move
    text = pgn_of(games) + '[Event "broken"]\n[FEN "not a fen"]\n\n1. e4 *\n\n'
    path = tmp_path / "random.pgn"
    path.write_text(text)
    compare_pgn(cli, path)
    games = arbiter.check_pgn(text)
    assert games[3]["illegalMove"]["move"] == "Ke9"
    assert "error" in games[-1]


def test_variant_games_read_by_their_rules(cli: Path, tmp_path: Path) -> None:
    path = tmp_path / "variants.pgn"
    path.write_text(
        '[Variant "Crazyhouse"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 @e4 *\n\n'
        '[Variant "Atomic"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Nxf7 1-0\n\n'
        '[Variant "Antichess"]\n\n1. e3 b5 2. Nf3 *\n\n'
        '[Variant "Bughouse"]\n\n1. e4 *\n\n'
    )
    compare_pgn(cli, path)
    zh, atomic, anti, unknown = arbiter.check_pgn(path.read_text())
    assert zh["position"]["fen"].startswith("rnb1kbnr/ppp1pppp/8/q7/3Pp3/2N5/PPPP1PPP/R1BQKBNR[]")
    assert atomic["outcome"]["termination"] == "TERMINATION_EXPLOSION"
    assert anti["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_CAPTURE_REQUIRED"
    assert unknown["error"]["reason"] == "UNKNOWN_VARIANT"


def test_compressed_files_read_as_the_plain_one(cli: Path, tmp_path: Path) -> None:
    rng = random.Random(7)
    text = pgn_of([random_game(rng) for _ in range(20)]).encode()
    plain = tmp_path / "g.pgn"
    plain.write_bytes(text)
    expected = run_cli(cli, "pgn", "--json", "--quiet", str(plain))
    for name, pack in [("g.pgn.gz", gzip.compress), ("g.pgn.bz2", bz2.compress)]:
        packed = tmp_path / name
        packed.write_bytes(pack(text))
        assert arbiter.check_pgn_file(packed, jobs=2) == expected
        assert arbiter.pgn_table(packed).num_rows == len(expected)


def test_a_file_of_no_games(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    assert arbiter.check_pgn_file(empty) == []
    assert arbiter.check_pgn("") == []
    table = arbiter.pgn_table(empty)
    assert table.num_rows == 0 and "final_fen" in table.column_names


def test_an_iterator_left_early_stops(shared_pgn: list[Path]) -> None:
    biggest = max(shared_pgn, key=lambda p: p.stat().st_size)
    games = arbiter.iter_pgn_file(biggest, jobs=2)
    assert next(games)["index"] == 0
    games.close()


def ending(answer: dict[str, Any]) -> tuple[str, str, str]:
    """A finished game's result, termination and last ply's SAN."""
    outcome = answer["outcome"]
    return outcome["result"], outcome["termination"], answer["plies"][-1]["san"]


def test_a_variant_answer_has_the_standard_shape() -> None:
    standard = arbiter.validate("e4 e5 Ke3", fens=True)
    answer = arbiter.validate("e4 e5 Ke3", variant="crazyhouse", fens=True)
    assert answer.keys() == standard.keys()
    assert answer["plies"][0].keys() == standard["plies"][0].keys()
    assert answer["position"].keys() == standard["position"].keys()
    assert answer["illegalMove"].keys() == standard["illegalMove"].keys()
    assert answer["illegalMove"]["index"] == 2
    assert answer["plies"][1]["fenAfter"] == (
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq e6 0 2"
    )


def test_crazyhouse_drops() -> None:
    # Knights traded: Black drops White's knight with check, the pocket in the FEN.
    game = arbiter.validate("e4 e5 Nf3 Nc6 Nxe5 Nxe5 d4 N@f3+", variant="crazyhouse")
    last = [(ply["san"], ply["uci"]) for ply in game["plies"][-2:]]
    assert last == [("d4", "d2d4"), ("N@f3+", "N@f3")]
    fen = game["position"]["fen"]
    assert fen.startswith("r1bqkbnr/pppp1ppp/8/4n3/3PP3/5n2/PPP2PPP/RNBQKB1R[P] w")
    assert game["outcome"]["result"] == "GAME_RESULT_ONGOING"
    # A rook dropped on the back rank mates.
    fen = "6k1/5ppp/8/8/8/8/8/4K3[R] w - - 0 1"
    mate = arbiter.validate("R@e8#", fen=fen, variant="crazyhouse")
    assert ending(mate) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_CHECKMATE", "R@e8#")
    assert mate["plies"][0]["uci"] == "R@e8"
    # No knight in the pocket; a drop on an occupied square.
    empty = arbiter.validate("e4 N@f6", variant="crazyhouse")
    assert empty["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_NO_PIECE"
    occupied = arbiter.validate("R@g8", fen=fen, variant="crazyhouse")
    assert occupied["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_INVALID_DROP"


def test_atomic_explosion() -> None:
    game = arbiter.validate("Nf3 a6 Ng5 a5 Nxf7", variant="atomic", fens=True)
    assert ending(game) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_EXPLOSION", "Nxf7#")
    # The knight, the king, the bishop and the knight around f7 are gone; the pawns stay.
    assert game["position"]["fen"] == "rnbq3r/1pppp1pp/8/p7/8/8/PPPPPPPP/RNBQKB1R b KQ - 0 3"


def test_antichess_a_side_without_pieces_wins() -> None:
    fen = "8/8/8/8/8/8/p7/1R6 b - - 0 1"
    game = arbiter.validate("axb1=Q", fen=fen, variant="antichess")
    assert ending(game) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_VARIANT_WIN", "axb1=Q#")
    refused = arbiter.validate("a1=Q", fen=fen, variant="antichess")
    assert refused["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_CAPTURE_REQUIRED"


def test_king_of_the_hill() -> None:
    game = arbiter.validate("e3 e6 Ke2 Ke7 Kd3 Kd6 Kd4", variant="king-of-the-hill")
    assert ending(game) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_KING_OF_THE_HILL", "Kd4#")
    assert game["position"]["legalMoves"] == []


def test_three_check() -> None:
    game = arbiter.validate("e4 d6 Bb5+ c6 Bxc6+ Nxc6 Qh5 a6 Qxf7+", variant="three-check")
    result, termination, _ = ending(game)
    assert (result, termination) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_THIRD_CHECK")
    assert " 0+3 " in game["position"]["fen"]
    # Lichess's checks given read as the remaining checks.
    given = arbiter.validate([], fen="4k3/8/8/8/8/8/8/4K2R w K - 0 1 +1+0", variant="three-check")
    assert given["position"]["fen"] == "4k3/8/8/8/8/8/8/4K2R w K - 2+3 0 1"


def test_horde_white_without_pieces_loses() -> None:
    game = arbiter.validate("Qxe2", fen="4k3/8/8/8/8/8/4P3/3q4 b - - 0 1", variant="horde")
    assert ending(game) == ("GAME_RESULT_BLACK_WINS", "TERMINATION_VARIANT_WIN", "Qxe2#")
    start = arbiter.validate([], variant="horde")
    assert start["position"]["fen"] == (
        "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"
    )


def test_racing_kings() -> None:
    start = arbiter.validate([], variant="racing-kings")
    assert start["position"]["fen"] == "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1"
    win = arbiter.validate("Kg8", fen="8/6K1/8/8/8/8/k7/8 w - - 0 1", variant="racing-kings")
    assert ending(win) == ("GAME_RESULT_WHITE_WINS", "TERMINATION_RACE", "Kg8#")
    # Black reaches the eighth rank on the next move: a draw.
    draw = arbiter.validate("Kg8 Kb8", fen="8/1k4K1/8/8/8/8/8/8 w - - 0 1", variant="racing-kings")
    assert draw["outcome"]["result"] == "GAME_RESULT_DRAW"
    assert draw["outcome"]["termination"] == "TERMINATION_RACE"


def test_a_clocked_variant_game() -> None:
    game = arbiter.validate("e4 e5", variant="three-check", time_control="60", move_times=[1, 70])
    assert game["illegalMove"]["reason"] == "ILLEGAL_MOVE_REASON_FLAG_FELL"
    assert game["outcome"]["termination"] == "TERMINATION_TIMEOUT"
    assert game["position"]["clocks"] == {"white": "59s", "black": "0s"}


def test_variant_errors_raise_value_error() -> None:
    with pytest.raises(ValueError, match="a pocket holds a king"):
        arbiter.validate("e4", fen="4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", variant="crazyhouse")
    with pytest.raises(ValueError, match="three-check counters"):
        arbiter.validate("e4", fen="4k3/8/8/8/8/8/8/4K3 w - - 4+3 0 1", variant="three-check")
    with pytest.raises(ValueError, match="a king in horde's white army"):
        arbiter.validate([], fen="4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", variant="horde")
    chess_only = "is for standard chess and Chess960, not variant \"atomic\""
    with pytest.raises(ValueError, match=f"winnability {chess_only}"):
        arbiter.validate("e4", variant="atomic", winnability=True)
    with pytest.raises(ValueError, match=f"shredder_fen {chess_only}"):
        arbiter.validate("e4", variant="atomic", shredder_fen=True)
    # A Chess960 start number is for the Chess960 rules: said, or unsaid.
    for rules in ("atomic", "standard"):
        with pytest.raises(ValueError, match=f"for the chess960 rules, not {rules}"):
            arbiter.validate("e4", variant=rules, chess960=518)
    fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
    assert arbiter.validate([], chess960=0)["position"]["fen"] == fen


def test_bad_arguments_raise_value_error() -> None:
    with pytest.raises(ValueError, match=r'unknown variant "shogi" \(expected standard, chess960, crazy'):
        arbiter.validate("e4", variant="shogi")
    with pytest.raises(ValueError, match="fen"):
        arbiter.validate("e4", fen="not a fen")
    with pytest.raises(ValueError, match="notation"):
        arbiter.validate("e4", notation="lan")
    with pytest.raises(ValueError, match="side"):
        arbiter.validate("e4", flagged="red")
    with pytest.raises(ValueError, match=r"960 is out of range \(0 to 959\)"):
        arbiter.validate("e4", chess960=960)
    with pytest.raises(ValueError, match="invalid time control"):
        arbiter.validate("e4", time_control="40/x", move_times=[1])
    with pytest.raises(ValueError, match="1 move times for 2 moves"):
        arbiter.validate("e4 e5", time_control="60", move_times=[1])
    with pytest.raises(ValueError, match="a move time of -1"):
        arbiter.validate("e4", time_control="60", move_times=[-1])
    with pytest.raises(ValueError, match="need a time_control"):
        arbiter.validate("e4", move_times=[1])
    with pytest.raises(ValueError, match="str or bytes"):
        arbiter.check_pgn(12)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="jobs"):
        arbiter.check_pgn_file(__file__, jobs=0)


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pgn"
    for read in (arbiter.check_pgn_file, arbiter.pgn_table, lambda p: next(arbiter.iter_pgn_file(p))):
        with pytest.raises(FileNotFoundError, match="missing.pgn"):
            read(missing)


def test_an_unreadable_stream_is_os_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pgn.gz"
    broken.write_bytes(gzip.compress(b'[Event "x"]\n\n1. e4 *\n' * 100)[:-30])
    with pytest.raises(OSError, match="cannot read"):
        arbiter.check_pgn_file(broken)
