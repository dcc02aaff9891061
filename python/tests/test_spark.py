"""The Spark example on a Spark standalone cluster started here, as a data
team runs it: a master and two workers (one core each) from the pyspark
package's bin/spark-class, on 127.0.0.1 (examples/spark_standalone.py); the
example submitted with bin/spark-submit; its Parquet rows equal
`arbiter pgn --json` game for game on the shared PGN files, the large ones
cut into several input files. Every process started here is stopped by its
id at the end, pass or fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_row_is_game, run_cli

EXAMPLES = Path(__file__).parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
import dask_verdicts  # noqa: E402  (its chunker cuts a file into whole games)

# CI installs all this test needs (python/requirements.txt, Debian's JRE):
# there a missing piece fails; elsewhere it skips with the reason.
if shutil.which("java") is None:
    if os.environ.get("CI"):
        raise RuntimeError("no java on PATH (Debian's openjdk-17-jre-headless)")
    pytest.skip("no java on PATH", allow_module_level=True)
if not os.environ.get("CI"):
    pytest.importorskip("pyspark", reason="pyspark is not installed")
import pyarrow.parquet as pq  # noqa: E402
from spark_standalone import Standalone  # noqa: E402

# Bounded: the job takes well under a minute; a loaded machine gets slack.
JOB_SECONDS = 900


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Standalone]:
    with Standalone(tmp_path_factory.mktemp("spark"), workers=2, cores=1) as spark:
        yield spark


def split_inputs(shared: list[Path], into: Path, games_per_file: int) -> list[Path]:
    """The shared files as Spark's input: those of more than
    `games_per_file` games cut into files of whole games, the rest as
    they are."""
    inputs: list[Path] = []
    for path in shared:
        pieces = list(dask_verdicts.chunks(path, games_per_file))
        if len(pieces) == 1:
            inputs.append(path)
            continue
        for n, piece in enumerate(pieces):
            part = into / f"{path.stem}.{n}.pgn"
            part.write_bytes(piece)
            inputs.append(part)
    return inputs


def test_spark_standalone_equals_the_cli(
    cluster: Standalone, cli: Path, shared_pgn: list[Path], tmp_path: Path
) -> None:
    parts = tmp_path / "in"
    parts.mkdir()
    inputs = split_inputs(shared_pgn, parts, games_per_file=200)
    assert len(inputs) > len(shared_pgn), "the large files are cut"
    expected = {str(path): run_cli(cli, "pgn", "--json", "--quiet", "--jobs", "1", str(path))
                for path in inputs}
    # The pieces hold the whole files' games: none lost or added by the cut.
    whole = sum(len(run_cli(cli, "pgn", "--json", "--quiet", str(p))) for p in shared_pgn)
    assert sum(len(games) for games in expected.values()) == whole

    out = tmp_path / "out"
    submit = subprocess.run(
        [*cluster.submit(), str(EXAMPLES / "spark_map_in_arrow.py"), str(out), *map(str, inputs)],
        env=cluster.env,
        capture_output=True,
        timeout=JOB_SECONDS,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert submit.returncode == 0, submit.stderr.decode(errors="replace")[-5000:]
    said = rf"{whole} games from {len(inputs)} files in [0-9.]+ s"
    assert re.search(said, submit.stdout.decode()), submit.stdout.decode()

    rows = pq.read_table(out).to_pylist()
    assert len(rows) == whole
    by_file: dict[str, list[dict]] = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    assert sorted(by_file) == sorted(path for path, games in expected.items() if games)
    for path, games in expected.items():
        got = sorted(by_file.get(path, []), key=lambda row: row["index"])
        assert len(got) == len(games), path
        for row, game in zip(got, games):
            assert_row_is_game(row, game)
    # The workers launched executors for the job (one core each, at most two
    # at a time; one more if Spark replaced a lost one): it ran on the cluster.
    executors = list((cluster.root / "work").glob("app-*/*"))
    assert len(executors) >= 2, executors
