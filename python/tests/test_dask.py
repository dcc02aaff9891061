"""The Dask example on a LocalCluster of two worker processes (127.0.0.1):
its sums equal those of the same file checked in this process."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from conftest import pgn_of, random_game

import arbiter

pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import dask_verdicts  # noqa: E402


def test_dask_sums_equal_one_process(tmp_path: Path) -> None:
    rng = random.Random(99)
    games = [random_game(rng) for _ in range(40)]
    games[5] = games[5] + ["Ke9"]
    path = tmp_path / "games.pgn"
    path.write_text(pgn_of(games) * 5)
    expected = dask_verdicts.total(
        [dask_verdicts.verdicts(chunk) for chunk in dask_verdicts.chunks(path, 10**9)]
    )
    assert expected["games"] == 200 and expected["illegal"] == 5
    assert len(arbiter.check_pgn_file(path)) == 200
    assert dask_verdicts.run(path, workers=2, games_per_chunk=17) == expected
