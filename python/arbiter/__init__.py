"""Arbiter in process: the Laws of Chess and a PGN checker, as `arbiter
validate` and `arbiter pgn --json` answer, without a server.

Every dict equals the JSON object the command line prints for the same
input (the same keys, proto3 JSON names, enum values by name): the Rust
extension writes it with the command line's own JSON writers and it is read
here with `json.loads`. The GIL is released while Rust works.

- `validate(moves, fen=None, variant=None, ...)`: one game, as
  `arbiter validate` prints it, in standard chess, Chess960 or one of
  lichess's seven variants.
- `check_pgn(data)`: the games of PGN text, as `arbiter pgn --json` prints
  them.
- `check_pgn_file(path, jobs=None)` and `iter_pgn_file(path, jobs=None)`:
  the games of a file (plain, .zst, .gz or .bz2), as a list or one by one
  for files larger than memory, checked on `jobs` threads (default: every
  core).
- `pgn_table(path, jobs=None)`: the games of a file as a `pyarrow.Table`,
  one row per game (needs pyarrow).

Bad arguments raise `ValueError` with the reason; a missing file raises
`FileNotFoundError`; a game that is illegal or unreadable is a result in
its dict or row, as on the command line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _arbiter

if TYPE_CHECKING:
    import pyarrow

__version__: str = _arbiter.__version__

__all__ = [
    "__version__",
    "check_pgn",
    "check_pgn_file",
    "iter_pgn_file",
    "pgn_table",
    "validate",
]

Path = Union[str, "os.PathLike[str]"]


def validate(
    moves: Union[str, Sequence[str]],
    fen: Optional[str] = None,
    variant: Optional[str] = None,
    *,
    chess960: Optional[int] = None,
    notation: str = "auto",
    strict: bool = False,
    fens: bool = False,
    legal_moves: bool = True,
    flagged: Optional[str] = None,
    winnability: bool = False,
    shredder_fen: bool = False,
    time_control: Optional[str] = None,
    move_times: Optional[Sequence[float]] = None,
    pending_time: Optional[float] = None,
) -> dict[str, Any]:
    """Checks a game move by move: the object `arbiter validate` prints.

    `moves` is a list of moves (UCI or SAN) or one string of them separated
    by spaces. `fen` is the start (default: the variant's start position);
    `variant` is "standard", "chess960" or one of lichess's variants
    ("crazyhouse", "atomic", "antichess", "king-of-the-hill",
    "three-check", "horde", "racing-kings"; default "standard", or
    "chess960" when `chess960` is given), and `chess960` a Chess960
    start by its number (0-959), which any other `variant` refuses. A variant's plies write drops as `N@f3`
    in SAN and UCI, its FENs carry crazyhouse's pockets and
    three-check's counters, and its game ends are terminations of their
    own (`TERMINATION_EXPLOSION`, `TERMINATION_KING_OF_THE_HILL`,
    `TERMINATION_THIRD_CHECK`, `TERMINATION_RACE`,
    `TERMINATION_VARIANT_WIN`). The other keywords are the command's flags:
    `notation` ("auto", "uci" or "san"), `strict`, `fens`, `legal_moves`
    (False for `--no-legal-moves`), `flagged` ("white" or "black"),
    `winnability` and `shredder_fen` (these two, and `chess960`, for
    standard chess and Chess960 only).

    With `time_control` (a PGN TimeControl tag such as "300+3"), the clock
    decides flag falls: `move_times` gives the seconds each move took (one
    per move, rounded to the millisecond), `pending_time` the seconds the
    side to move has used on its move in progress; each ply then carries
    its mover's `clock`, the position both `clocks`.

    An illegal move is an answer (its `illegalMove`), not an exception.

    Raises:
        ValueError: an invalid FEN, an unknown variant, notation or side,
            a chess-only option with a lichess variant, a bad time control,
            or move times that do not fit the moves.
    """
    if isinstance(moves, str):
        moves = moves.split()
    elif not all(isinstance(move, str) for move in moves):
        raise ValueError("moves must be strings")
    line = _arbiter.validate_json(
        list(moves),
        fen=fen,
        variant=variant,
        chess960=chess960,
        notation=notation,
        strict=strict,
        fens=fens,
        legal_moves=legal_moves,
        flagged=flagged,
        winnability=winnability,
        shredder_fen=shredder_fen,
        time_control=time_control,
        move_times=None if move_times is None else [float(t) for t in move_times],
        pending_time=pending_time,
    )
    result: dict[str, Any] = json.loads(line)
    return result


def _dicts(lines: bytes) -> list[dict[str, Any]]:
    """The dicts of JSON lines, each ending in a newline."""
    return [json.loads(line) for line in lines.split(b"\n") if line]


def check_pgn(data: Union[str, bytes]) -> list[dict[str, Any]]:
    """Checks the games of PGN text: one dict per game, each the line
    `arbiter pgn --json` prints for it (`index`, `line`, `tags`, `plies`,
    `illegalMove`, `variationErrors`, `position`, `outcome`, `resultTag`,
    `resultConsistent`, or `error` for a game that cannot be read). A game
    with a `Variant` tag naming one of lichess's variants (`Crazyhouse`,
    `Atomic`, `King of the Hill`, ...) is checked by that variant's rules.

    Raises:
        ValueError: `data` is neither str nor bytes.
    """
    return _dicts(_arbiter.check_pgn_json(data))


def iter_pgn_file(path: Path, jobs: Optional[int] = None) -> Iterator[dict[str, Any]]:
    """The games of a PGN file (plain, .zst, .gz or .bz2, found by content)
    one by one, as `check_pgn` has them, read and checked ahead on `jobs`
    threads (default: every core) in bounded memory.

    Raises:
        FileNotFoundError: there is no file at `path` (at once).
        OSError: the file cannot be read to its end (after its last game).
        ValueError: `jobs` is 0.
    """
    for batch in _arbiter.PgnLines(os.fspath(path), jobs):
        yield from _dicts(batch)


def check_pgn_file(path: Path, jobs: Optional[int] = None) -> list[dict[str, Any]]:
    """The games of a PGN file as a list: see `iter_pgn_file`.

    Raises:
        FileNotFoundError: there is no file at `path`.
        OSError: the file cannot be read to its end.
        ValueError: `jobs` is 0.
    """
    games: list[dict[str, Any]] = []
    for batch in _arbiter.PgnLines(os.fspath(path), jobs):
        games.extend(_dicts(batch))
    return games


def pgn_table(path: Path, jobs: Optional[int] = None) -> pyarrow.Table:
    """The games of a PGN file as a `pyarrow.Table`, one row per game, built
    in Rust and handed over through the Arrow C data interface.

    Columns (each value as `arbiter pgn --json` has it): `index`, `line`,
    `plies`, `outcome_result` (`outcome.result`), `termination`
    (`outcome.termination`), `result_tag` (`resultTag`),
    `result_consistent` (`resultConsistent`), `final_fen`
    (`position.fen`), `illegal_move_index`, `illegal_move` and
    `illegal_reason` (`illegalMove`'s `index`, `move` and `reason`),
    `variation_errors` (how many), `error_reason` and `error` (`error`'s
    `reason` and `message`), and the tags `white`, `black`, `result`,
    `time_control` and `site`. Values a game lacks are null.

    Raises:
        ImportError: pyarrow is not installed.
        FileNotFoundError: there is no file at `path`.
        OSError: the file cannot be read to its end.
        ValueError: `jobs` is 0.
    """
    return _arbiter.pgn_table(os.fspath(path), jobs)
