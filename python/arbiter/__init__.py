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

Each of them takes `analysis=True` to say what each game was, as the
command line's `--analysis` does: its opening (lichess's chess-openings
table), its phases (lichess's Divider) and each side's time use from the
clock record. A call without it computes none of that.

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
    analysis: bool = False,
    illegal_moves: str = "stop",
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

    With `analysis=True`, the answer has `analysis` after `outcome`, as
    `arbiter validate --analysis` prints it: `opening` (`eco`, `name`,
    `family`, `ply`; absent unless the game is standard chess from the
    standard start and reaches a named line), `phases` (`middlegamePly`,
    `endgamePly`: the plies where they start, each absent when none) and
    `timeUse` (one dict per side, White first, from `move_times`; empty
    without them): `timedMoves`, `totalMs`, `meanMs`, `sdMs`, `cv`,
    `minWindowCv`, `fastMoves`, `instantMoves`, `forcedMoves`, `forcedMs`,
    `openingMs`, `middlegameMs`, `endgameMs` and lichess's thresholds
    `noFastMoves`, `moderatelyConsistent`, `highlyConsistent`,
    `consistentStreak`. A side's first move is left out of its times, as
    lichess does.

    An illegal move is an answer (its `illegalMove`), not an exception.
    With `illegal_moves="fide"` (the Laws of 2023, 7.5.5) or "fide-2009"
    (7.4(b) of 2009), a move that reads as a move but is illegal is ruled
    on as an arbiter does over the board, not the end of the replay: it is
    taken back, the opponent gets time (`timeAdded`: 60 s in rapid and
    blitz under "fide", else 120 s) and the player's second ("fide") or
    third ("fide-2009") loses, or draws when the opponent cannot mate.
    Each ruling is a dict of `rulings` (`index`, `side`, `count`,
    `reason`, `message`, `action`, `timeAdded`); `plies` are the moves
    played, and `move_times` has one time per sent move, illegal ones
    included.

    Raises:
        ValueError: an invalid FEN, an unknown variant, notation, side or
            `illegal_moves`, a chess-only option with a lichess variant, a
            bad time control, or move times that do not fit the moves.
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
        analysis=analysis,
        illegal_moves=illegal_moves,
    )
    result: dict[str, Any] = json.loads(line)
    return result


def _dicts(lines: bytes) -> list[dict[str, Any]]:
    """The dicts of JSON lines, each ending in a newline."""
    return [json.loads(line) for line in lines.split(b"\n") if line]


def check_pgn(data: Union[str, bytes], *, analysis: bool = False) -> list[dict[str, Any]]:
    """Checks the games of PGN text: one dict per game, each the line
    `arbiter pgn --json` prints for it (`index`, `line`, `tags`, `plies`,
    `illegalMove`, `variationErrors`, `position`, `outcome`, `resultTag`,
    `resultConsistent`, `clock`, or `error` for a game that cannot be
    read). A game with a `Variant` tag naming one of lichess's variants
    (`Crazyhouse`, `Atomic`, `King of the Hill`, ...) is checked by that
    variant's rules.

    With `analysis=True`, each game that has a verdict also has
    `analysis`, as `arbiter pgn --json --analysis` prints it: `opening`,
    `phases` and `timeUse` (see `validate`), the times from `[%emt]`, else
    from consecutive `[%clk]` readings.

    Raises:
        ValueError: `data` is neither str nor bytes.
    """
    return _dicts(_arbiter.check_pgn_json(data, analysis=analysis))


def iter_pgn_file(
    path: Path, jobs: Optional[int] = None, *, analysis: bool = False
) -> Iterator[dict[str, Any]]:
    """The games of a PGN file (plain, .zst, .gz or .bz2, found by content)
    one by one, as `check_pgn` has them (with `analysis` when asked for),
    read and checked ahead on `jobs` threads (default: every core) in
    bounded memory.

    Raises:
        FileNotFoundError: there is no file at `path` (at once).
        OSError: the file cannot be read to its end (after its last game).
        ValueError: `jobs` is 0.
    """
    for batch in _arbiter.PgnLines(os.fspath(path), jobs, analysis):
        yield from _dicts(batch)


def check_pgn_file(
    path: Path, jobs: Optional[int] = None, *, analysis: bool = False
) -> list[dict[str, Any]]:
    """The games of a PGN file as a list: see `iter_pgn_file`.

    Raises:
        FileNotFoundError: there is no file at `path`.
        OSError: the file cannot be read to its end.
        ValueError: `jobs` is 0.
    """
    games: list[dict[str, Any]] = []
    for batch in _arbiter.PgnLines(os.fspath(path), jobs, analysis):
        games.extend(_dicts(batch))
    return games


def pgn_table(path: Path, jobs: Optional[int] = None, *, analysis: bool = False) -> pyarrow.Table:
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

    With `analysis=True`, what each game was (its `analysis`, as
    `check_pgn(..., analysis=True)` has it) follows: `eco`, `opening`
    (`opening.name`), `opening_family` (`opening.family`), `opening_ply`,
    `middlegame_ply` and `endgame_ply` (`phases`), and for each side, as
    `white_...` then `black_...`, its `timeUse` entry's `timed_moves`,
    `mean_ms`, `cv`, `min_window_cv`, `fast_moves`, `instant_moves` and
    `forced_moves`: null for an unreadable game, for a game with no
    opening named, a phase not reached, or no time known. Without it the
    table has none of these columns and none of it is computed.

    Raises:
        ImportError: pyarrow is not installed.
        FileNotFoundError: there is no file at `path`.
        OSError: the file cannot be read to its end.
        ValueError: `jobs` is 0.
    """
    return _arbiter.pgn_table(os.fspath(path), jobs, analysis)
