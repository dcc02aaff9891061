"""Games per CPU second, side by side in one run, on the same PGN files:
arbiter.pgn_table(jobs=1), arbiter.check_pgn_file(jobs=1) and
arbiter.check_pgn (dicts), `arbiter pgn --jobs 1 --quiet` (a child
process), python-chess's read_game with a replay of the mainline, and
rust-pgn-reader-python-binding's parse_games_from_strings(num_threads=1)
(a PyO3 wrapper of pgn-reader that checks no rules); those two only when
installed (else left out, and said so).

    python python/benches/pgn_rate.py --arbiter target/release/arbiter [--repeats 5] FILE...

Each repeat runs every contender once, in turn (interleaved, so that a
change in the machine's load falls on all of them); the figure is the
median of the repeats. CPU time is the process's (all its threads) for the
in-process contenders, the child's for the command line. Needs chess and
rust-pgn-reader-python-binding installed beside the wheel.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import arbiter


def games_of(text: str) -> list[str]:
    """The games of PGN text, cut before each `[Event ` line after a blank
    line (for the reader that takes one string per game)."""
    games: list[str] = []
    start = 0
    at = text.find("\n\n[Event ")
    while at >= 0:
        games.append(text[start : at + 1])
        start = at + 2
        at = text.find("\n\n[Event ", start)
    if text[start:].strip():
        games.append(text[start:])
    return games


def python_chess(paths: list[Path]) -> int:
    import chess.pgn

    games = 0
    for path in paths:
        with path.open(encoding="utf-8-sig", errors="replace") as file:
            while (game := chess.pgn.read_game(file)) is not None:
                board = game.board()
                for move in game.mainline_moves():
                    board.push(move)
                board.outcome()
                games += 1
    return games


def rust_pgn_reader(paths: list[Path]) -> int:
    import rust_pgn_reader_python_binding as reader

    games = 0
    for path in paths:
        parsed = reader.parse_games_from_strings(
            games_of(path.read_text(encoding="utf-8-sig", errors="replace")), num_threads=1
        )
        games += parsed.num_games
    return games


def in_process(run: Callable[[], int]) -> tuple[int, float]:
    """Games, and the process's CPU seconds running `run`."""
    start = time.process_time()
    games = run()
    return games, time.process_time() - start


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description="games per CPU second, side by side")
    parser.add_argument("--arbiter", required=True, help="the arbiter binary")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    paths: list[Path] = args.files
    data = [path.read_bytes() for path in paths]

    def cli() -> tuple[int, float]:
        before = child_cpu()
        out = subprocess.run(
            [args.arbiter, "pgn", "--jobs", "1", "--quiet", *map(str, paths)],
            capture_output=True,
            check=False,
        )
        last = out.stderr.decode().strip().splitlines()[-1]
        games = int(last.split(" games")[0].rsplit(" ", 1)[-1])
        return games, child_cpu() - before

    contenders: dict[str, Callable[[], tuple[int, float]]] = {
        "arbiter.pgn_table(jobs=1)": lambda: in_process(
            lambda: sum(arbiter.pgn_table(p, jobs=1).num_rows for p in paths)
        ),
        "arbiter pgn --jobs 1 (CLI)": cli,
        "arbiter.check_pgn_file(jobs=1) (dicts)": lambda: in_process(
            lambda: sum(len(arbiter.check_pgn_file(p, jobs=1)) for p in paths)
        ),
        "arbiter.check_pgn(bytes) (dicts)": lambda: in_process(
            lambda: sum(len(arbiter.check_pgn(d)) for d in data)
        ),
        "python-chess read_game + replay": lambda: in_process(lambda: python_chess(paths)),
        "rust-pgn-reader-python-binding (1 thread)": lambda: in_process(
            lambda: rust_pgn_reader(paths)
        ),
    }
    for name, module in [("python-chess read_game + replay", "chess.pgn"),
                         ("rust-pgn-reader-python-binding (1 thread)", "rust_pgn_reader_python_binding")]:
        try:
            __import__(module)
        except ImportError:
            print(f"left out: {name} ({module} is not installed)")
            del contenders[name]
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    counts: dict[str, int] = {}
    for _ in range(args.repeats):
        for name, run in contenders.items():
            games, cpu = run()
            counts[name] = games
            rates[name].append(games / cpu)
    load = os.getloadavg()
    out = io.StringIO()
    out.write(f"{sum(map(len, data))} bytes in {len(paths)} files; {args.repeats} interleaved repeats; ")
    out.write(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    cli_rate = statistics.median(rates["arbiter pgn --jobs 1 (CLI)"])
    chess = rates.get("python-chess read_game + replay")
    chess_rate = statistics.median(chess) if chess else float("nan")
    out.write(f"{'contender':44} {'games':>6} {'games/CPU s':>12} {'vs CLI':>7} {'vs python-chess':>16}\n")
    for name, values in rates.items():
        rate = statistics.median(values)
        out.write(
            f"{name:44} {counts[name]:6d} {rate:12.0f} {rate / cli_rate:7.2f} {rate / chess_rate:16.1f}\n"
            f"{'':44} {'':6} {'repeats:':>12} {' '.join(f'{v:.0f}' for v in values)}\n"
        )
    print(out.getvalue(), end="")


if __name__ == "__main__":
    main()
