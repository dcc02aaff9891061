"""Shared fixtures: the command line to compare with, the shared PGN files,
random games."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

import arbiter


def _cli() -> Path:
    binary = os.environ.get("ARBITER_BIN")
    if not binary or not Path(binary).is_file():
        pytest.skip("ARBITER_BIN (the arbiter binary to compare with) is not set")
    return Path(binary)


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `arbiter` binary the wheel's answers must equal."""
    return _cli()


def run_cli(cli: Path, *args: str, stdin: bytes | None = None) -> list[dict[str, Any]]:
    """The JSON lines the command line prints, with the analysis's default
    budgets (no ARBITER_UNWINNABLE_* from the environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_UNWINNABLE")}
    out = subprocess.run(
        [str(cli), *args], input=stdin, capture_output=True, env=env, timeout=300, check=False
    )
    assert out.returncode in (0, 1), out.stderr.decode()
    return [json.loads(line) for line in out.stdout.splitlines() if line]


@pytest.fixture(scope="session")
def shared_pgn() -> list[Path]:
    """The PGN files of the shared test data (ARBITER_TEST_DATA)."""
    data = os.environ.get("ARBITER_TEST_DATA")
    if not data or not (Path(data) / "pgn").is_dir():
        pytest.skip("ARBITER_TEST_DATA/pgn (the shared PGN files) is not there")
    return sorted((Path(data) / "pgn").rglob("*.pgn"))


def random_game(rng: random.Random, chess960: int | None = None) -> list[str]:
    """A random legal game (SAN), up to 120 plies, played through
    arbiter.validate's legal moves."""
    moves: list[str] = []
    for _ in range(rng.randrange(0, 120)):
        answer = arbiter.validate(moves, chess960=chess960)
        legal = answer["position"]["legalMoves"]
        if not legal:
            break
        moves.append(rng.choice(legal)["san"])
    return moves


def pgn_of(games: list[list[str]]) -> str:
    """PGN text of `games`, each with a few tags and a result."""
    out = []
    for number, moves in enumerate(games):
        result = ["1-0", "0-1", "1/2-1/2", "*"][number % 4]
        text = " ".join(
            (f"{i // 2 + 1}. " if i % 2 == 0 else "") + move for i, move in enumerate(moves)
        )
        out.append(
            f'[Event "random {number}"]\n[Site "here"]\n[White "w{number}"]\n'
            f'[Black "b{number}"]\n[Result "{result}"]\n[TimeControl "60+1"]\n\n'
            f"{text} {result}\n\n"
        )
    return "".join(out)


def assert_row_is_game(row: dict[str, Any], game: dict[str, Any]) -> None:
    """A row of `arbiter.pgn_table` (or of a table made from it) says what
    the game's `arbiter pgn --json` line says."""
    assert row["index"] == game["index"] and row["line"] == game["line"]
    tags = game["tags"]
    for column, tag in [("white", "White"), ("black", "Black"), ("result", "Result"),
                        ("time_control", "TimeControl"), ("site", "Site")]:
        assert row[column] == tags.get(tag)
    if "error" in game:
        assert row["error"] == game["error"]["message"]
        assert row["error_reason"] == game["error"]["reason"]
        assert row["plies"] is None and row["final_fen"] is None
        return
    assert row["error"] is None
    assert row["plies"] == game["plies"]
    assert row["termination"] == game["outcome"].get("termination")
    assert row["outcome_result"] == game["outcome"]["result"]
    assert row["result_tag"] == game.get("resultTag")
    assert row["result_consistent"] == game["resultConsistent"]
    assert row["final_fen"] == game["position"]["fen"]
    assert row["variation_errors"] == len(game["variationErrors"])
    illegal = game.get("illegalMove") or {}
    assert row["illegal_move_index"] == illegal.get("index")
    assert row["illegal_move"] == illegal.get("move")
    assert row["illegal_reason"] == illegal.get("reason")
