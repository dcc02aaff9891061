"""The native half of the package `arbiter` (Rust, PyO3): answers as the
command line's JSON bytes, which the package reads into dicts."""

from collections.abc import Iterator
from os import PathLike
from typing import Optional, Union

import pyarrow

__version__: str

def validate_json(
    moves: list[str],
    fen: Optional[str] = None,
    variant: Optional[str] = None,
    chess960: Optional[int] = None,
    notation: str = "auto",
    strict: bool = False,
    fens: bool = False,
    legal_moves: bool = True,
    flagged: Optional[str] = None,
    winnability: bool = False,
    shredder_fen: bool = False,
    time_control: Optional[str] = None,
    move_times: Optional[list[float]] = None,
    pending_time: Optional[float] = None,
    analysis: bool = False,
    illegal_moves: str = "stop",
) -> bytes:
    """The JSON line `arbiter validate` (`--analysis` when `analysis`,
    `--illegal-moves` as `illegal_moves`) prints for the game."""

def check_pgn_json(data: Union[str, bytes], analysis: bool = False) -> bytes:
    """The JSON lines `arbiter pgn --json` (`--analysis` when `analysis`)
    prints for the games of `data`."""

def pgn_table(
    path: Union[str, PathLike[str]], jobs: Optional[int] = None, analysis: bool = False
) -> pyarrow.Table:
    """The games of the file at `path`, one row each; the analysis's
    columns too when `analysis`."""

class PgnLines(Iterator[bytes]):
    """Batches of the JSON lines of `arbiter pgn --json` (`--analysis` when
    `analysis`) for a file's games."""

    def __init__(
        self, path: Union[str, PathLike[str]], jobs: Optional[int] = None, analysis: bool = False
    ) -> None: ...
    def __iter__(self) -> "PgnLines": ...
    def __next__(self) -> bytes: ...
