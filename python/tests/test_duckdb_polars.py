"""`pgn_table` straight into DuckDB (a query over the Arrow table by its
Python name) and polars (`pl.from_arrow`): the share of games ending in each
termination, and the games with an illegal move, equal the CLI's counts on
the shared lichess and TWIC samples. The queries are python/README.md's."""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import run_cli

import arbiter


def _need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed")


@pytest.fixture(scope="module")
def samples(shared_pgn: list[Path]) -> list[Path]:
    """The lichess and TWIC samples (a thousand kilobytes each)."""
    found = [p for p in shared_pgn if p.name in ("lichess_db_1000k.pgn", "twic1599_1000k.pgn")]
    assert len(found) == 2, shared_pgn
    return found


@pytest.fixture(scope="module")
def table(samples: list[Path]) -> pa.Table:
    return pa.concat_tables(arbiter.pgn_table(path) for path in samples)


@pytest.fixture(scope="module")
def cli_counts(cli: Path, samples: list[Path]) -> tuple[int, Counter[str | None], int]:
    """Games, games by termination (None: still going, or unreadable) and
    games with an illegal move, from `arbiter pgn --json`."""
    games = [game for path in samples for game in run_cli(cli, "pgn", "--json", "--quiet", str(path))]
    terminations = Counter((game.get("outcome") or {}).get("termination") for game in games)
    illegal = sum("illegalMove" in game for game in games)
    assert len(games) > 1000 and terminations["TERMINATION_CHECKMATE"] > 0
    return len(games), terminations, illegal


def test_duckdb_over_the_arrow_table(table: pa.Table, cli_counts: tuple) -> None:
    _need("duckdb")
    import duckdb

    games, terminations, illegal = cli_counts
    tbl = table  # DuckDB finds the Arrow table by its Python name
    shares = duckdb.sql(
        """SELECT termination, count(*) AS games,
                  count(*) / sum(count(*)) OVER () AS share
           FROM tbl GROUP BY termination ORDER BY games DESC, termination"""
    ).fetchall()
    assert {t: n for t, n, _ in shares} == dict(terminations)
    for termination, n, share in shares:
        assert share == pytest.approx(float(Fraction(terminations[termination], games)), rel=1e-12)
    assert duckdb.sql("SELECT count(*) FROM tbl WHERE illegal_move IS NOT NULL").fetchall() == [(illegal,)]
    assert duckdb.sql("SELECT count(*) FROM tbl").fetchall() == [(games,)]


def test_polars_from_arrow(table: pa.Table, cli_counts: tuple) -> None:
    _need("polars")
    import polars as pl

    games, terminations, illegal = cli_counts
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame) and df.height == games
    shares = (
        df.group_by("termination")
        .agg(pl.len().alias("games"))
        .with_columns((pl.col("games") / pl.col("games").sum()).alias("share"))
        .sort("games", descending=True)
    )
    assert dict(zip(shares["termination"], shares["games"])) == dict(terminations)
    for termination, share in zip(shares["termination"], shares["share"]):
        assert share == pytest.approx(float(Fraction(terminations[termination], games)), rel=1e-12)
    assert df.filter(pl.col("illegal_move").is_not_null()).height == illegal
