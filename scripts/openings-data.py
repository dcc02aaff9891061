#!/usr/bin/env python3
"""Writes crates/arbiter-chess/data/openings.tsv, the opening table that
arbiter-chess compiles in (src/analysis/opening.rs), from lichess's
chess-openings files (a.tsv ... e.tsv: `eco`, `name`, `pgn`).

Each line keeps its `eco`, `name` and `pgn` as they are and gains `epd`:
the position its moves reach from the standard start, as python-chess
writes it (placement, side to move, castling, and the en passant square
only where a legal capture exists: Board.epd()'s default). The script
checks that no two lines reach the same position (the table's keys are
unique) and that no line is longer than 40 plies (the lookup looks no
further).

The data is CC0 1.0 (public domain); see crates/arbiter-chess/data/README.md.

Run with python-chess 1.11.2:
    python3 scripts/openings-data.py [DIR]
DIR holds a.tsv ... e.tsv; by default ../shared/data/openings beside the
repository (lichess-org/chess-openings at 51b886249b9e418498d25b6e39b926c3de99c29a).
"""
import io
import pathlib
import sys

import chess
import chess.pgn

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/data/openings"
OUT = ROOT / "crates/arbiter-chess/data/openings.tsv"


def main() -> None:
    rows = []
    seen = {}
    for volume in "abcde":
        lines = (SOURCE / f"{volume}.tsv").read_text(encoding="utf-8").splitlines()
        assert lines[0] == "eco\tname\tpgn", lines[0]
        for line in lines[1:]:
            eco, name, pgn = line.split("\t")
            game = chess.pgn.read_game(io.StringIO(pgn))
            assert game is not None and not game.errors, (eco, name, pgn)
            board = game.end().board()
            assert 0 < board.ply() <= 40, (eco, name, board.ply())
            epd = board.epd()
            assert epd not in seen, f"{name} and {seen[epd]} reach {epd}"
            seen[epd] = name
            rows.append(f"{eco}\t{name}\t{pgn}\t{epd}")
    OUT.write_text("eco\tname\tpgn\tepd\n" + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} lines written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
