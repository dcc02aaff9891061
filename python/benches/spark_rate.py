"""Games per second of the Spark example on a standalone cluster of this
machine (a master and two one-core workers, examples/spark_standalone.py)
beside `arbiter pgn --jobs 2` on the same input files: wall-clock seconds of
the job (spark_map_in_arrow.py's own figure: the mapInArrow stage and its
Parquet write, not the JVMs' start) and of the command line. A report, no
goal: Spark pays its JVMs, Python workers and Parquet; the CLI pays none.

    python python/benches/spark_rate.py --arbiter target/release/arbiter \\
        [--copies 10] [--files 8] [--repeats 3] FILE.pgn ...

The input: the given files' text `--copies` times, cut into `--files`
files of whole games. Each repeat runs Spark, then the CLI (interleaved);
the figures are the medians.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
from spark_standalone import Standalone  # noqa: E402


def cut(text: bytes, files: int, into: Path) -> list[Path]:
    """`text` in `files` files, each cut before an `[Event ` line after a
    blank line."""
    starts = [m.start() + 2 for m in re.finditer(rb"\n\n\[Event ", text)]
    bounds = [0]
    for n in range(1, files):
        at = next((s for s in starts if s >= len(text) * n // files), len(text))
        bounds.append(at)
    bounds.append(len(text))
    paths = []
    for n in range(files):
        path = into / f"part{n}.pgn"
        path.write_bytes(text[bounds[n] : bounds[n + 1]])
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description="Spark example vs arbiter pgn --jobs 2")
    parser.add_argument("--arbiter", required=True)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("inputs", nargs="+", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        text = b"\n\n".join(p.read_bytes().strip() for p in args.inputs) + b"\n\n"
        paths = cut(text * args.copies, args.files, root)
        spark_rates, cli_rates = [], []
        with Standalone(root / "spark", workers=2, cores=1) as cluster:
            for n in range(args.repeats):
                out = subprocess.run(
                    [*cluster.submit(), str(EXAMPLES / "spark_map_in_arrow.py"),
                     str(root / f"out{n}"), *map(str, paths)],
                    env=cluster.env, capture_output=True, check=True, timeout=1800,
                )
                said = re.search(rb"(\d+) games from \d+ files in ([0-9.]+) s", out.stdout)
                assert said, out.stdout
                games, seconds = int(said[1]), float(said[2])
                spark_rates.append(games / seconds)
                started = time.perf_counter()
                cli = subprocess.run([args.arbiter, "pgn", "--jobs", "2", "--quiet", *map(str, paths)],
                                     capture_output=True, check=False)
                cli_seconds = time.perf_counter() - started
                cli_games = int(re.findall(rb"(\d+) games in ", cli.stderr)[-1])
                assert cli_games == games, (cli_games, games)
                cli_rates.append(cli_games / cli_seconds)
                print(f"repeat {n}: {games} games; Spark {seconds:.2f} s, CLI --jobs 2 {cli_seconds:.2f} s")
    spark, cli = statistics.median(spark_rates), statistics.median(cli_rates)
    load = os.getloadavg()
    print(f"{len(text) * args.copies} bytes in {args.files} files; {args.repeats} interleaved repeats; "
          f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"Spark standalone, 2 workers x 1 core: {spark:.0f} games/s (median)")
    print(f"arbiter pgn --jobs 2:                {cli:.0f} games/s (median)")
    print(f"Spark / CLI: {spark / cli:.3f}")


if __name__ == "__main__":
    main()
