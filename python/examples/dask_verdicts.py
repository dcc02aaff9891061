"""Arbiter on Dask: a PGN file cut into chunks of whole games, each chunk
checked by `arbiter.check_pgn` on a worker process of a LocalCluster, the
verdicts summed.

    python python/examples/dask_verdicts.py FILE.pgn [--workers N] [--games-per-chunk N]

Prints one JSON object: games, valid, illegal, inconsistent, unreadable.
The cluster listens on 127.0.0.1 only and is shut down at the end.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import arbiter

Counts = dict[str, int]


def chunks(path: Path, games_per_chunk: int) -> Iterator[bytes]:
    """The file's text in chunks of about `games_per_chunk` games, each cut
    before an `[Event ` line that follows a blank line (where a game most
    likely starts; arbiter.check_pgn reads whatever it is given)."""
    chunk: list[bytes] = []
    games = 0
    blank = True
    with path.open("rb") as file:
        for line in file:
            if blank and line.startswith(b"[Event "):
                if games == games_per_chunk:
                    yield b"".join(chunk)
                    chunk, games = [], 0
                games += 1
            blank = not line.strip()
            chunk.append(line)
    if chunk:
        yield b"".join(chunk)


def verdicts(text: bytes) -> Counts:
    """The sums of one chunk's verdicts, run on a worker."""
    counts = {"games": 0, "valid": 0, "illegal": 0, "inconsistent": 0, "unreadable": 0}
    for game in arbiter.check_pgn(text):
        counts["games"] += 1
        if "error" in game:
            counts["unreadable"] += 1
            continue
        illegal = "illegalMove" in game
        consistent = game["resultConsistent"]
        counts["illegal"] += illegal
        counts["inconsistent"] += not consistent
        counts["valid"] += not illegal and consistent and not game["variationErrors"]
    return counts


def total(parts: list[Counts]) -> Counts:
    """The sums of the chunks' sums."""
    out: Counts = {}
    for part in parts:
        for key, value in part.items():
            out[key] = out.get(key, 0) + value
    return out


def run(path: Path, workers: int = 2, games_per_chunk: int = 200) -> Counts:
    """Checks the file on a LocalCluster of `workers` processes (one thread
    each) bound to 127.0.0.1, and shuts it down."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit="1GiB",
    ) as cluster, Client(cluster) as client:
        futures = client.map(verdicts, list(chunks(path, games_per_chunk)))
        result: Counts = client.submit(total, futures).result(timeout=300)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description="Sums arbiter's verdicts on a Dask LocalCluster.")
    parser.add_argument("file", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games-per-chunk", type=int, default=200)
    args = parser.parse_args()
    print(json.dumps(run(args.file, args.workers, args.games_per_chunk)))


if __name__ == "__main__":
    main()
