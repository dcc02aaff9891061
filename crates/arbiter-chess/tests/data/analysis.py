#!/usr/bin/env python3
"""Writes crates/arbiter-chess/tests/data/analysis.jsonl: what a game was (its
opening, its phases, each side's time use) by an independent oracle, for
tests/rules/analysis.rs. The oracle is python-chess 1.11.2 and lichess's
chess-openings files (shared/data/openings/{a..e}.tsv), with the rules of
issue 48 written out here from their text:

- opening: standard chess from the standard start; the positions after plies
  1..min(n, 40), stopping at the first with fewer than 20 pieces; the last
  whose EPD (python-chess's Board.epd(): en passant only where a legal
  capture exists) is a line's names the opening, with the ply;
- phases: lichess's Divider over the positions after plies 0..n;
- time use: per side, its move times without its first move and without
  unknown ones; statistics.mean/stdev, the windows of 15, the thresholds.

Seeded games, one JSON line each: `kind` (`line`: a table line extended by
random moves; `transposed`: a line's moves in another order that reaches the
same position, extended; `random`: random play from the start; `fen`: random
play from another standard position, which names no opening), `fen` (null =
the standard start), `moves` (UCI), `times` (ms or null, one per move), `tc`
(the TimeControl tag), and the oracle's `opening` ({eco, name, ply} or null),
`phases` ({middlegame, endgame}, null where absent) and `timeUse`: [] when
no time of T is known, else two arrays, White first, of timedMoves, totalMs,
meanMs, sdMs, cv, minWindowCv (floats to 12 significant digits, null where
absent), fastMoves, instantMoves, forcedMoves, forcedMs, openingMs,
middlegameMs, endgameMs, and the flags as bits (1 noFastMoves, 2
moderatelyConsistent, 4 highlyConsistent, 8 consistentStreak).

Then one line per game of the shared lichess sample
(pgn/shakmaty/lichess_db_1000k.pgn: `kind` `lichess`, `index` in the file,
`site`: the game's id), its times from consecutive [%clk] readings (previous + increment −
reading, unknown where negative), with the same three answers and no moves.

Run with python-chess 1.11.2 from the repository's root:
    python3 crates/arbiter-chess/tests/data/analysis.py [SHARED_DATA_DIR]

Imported, it writes nothing: the wheel's tests (python/tests/test_analysis.py)
call `load_openings`, `analyse`, `clock_times` and `family` as their oracle.
"""
import io
import json
import math
import pathlib
import random
import statistics
import sys

import chess
import chess.pgn

ROOT = pathlib.Path(__file__).resolve().parents[4]
OUT = pathlib.Path(__file__).resolve().parent / "analysis.jsonl"

# -- opening ------------------------------------------------------------------

LINES = []  # (eco, name, moves as UCI)
BY_EPD = {}


def load_openings(data):
    """Reads the table's lines from `data`/openings/{a..e}.tsv (once)."""
    if BY_EPD:
        return
    for volume in "abcde":
        rows = (data / "openings" / f"{volume}.tsv").read_text(encoding="utf-8").splitlines()[1:]
        for row in rows:
            eco, name, pgn = row.split("\t")
            game = chess.pgn.read_game(io.StringIO(pgn))
            board = game.end().board()
            BY_EPD[board.epd()] = (eco, name)
            LINES.append((eco, name, [m.uci() for m in game.mainline_moves()]))


def family(eco):
    """The family of an ECO code, by the ranges of issue 48."""
    letter, number = eco[0], int(eco[1:])
    if letter == "A":
        if number == 0:
            return "IRREGULAR_OPENING"
        if number <= 39:
            return "FLANK_OPENING"
        if number <= 44 or number >= 80:
            return "OTHER_D4_DEFENCE"
        return "INDIAN_DEFENCE"
    if letter == "B" or (letter == "C" and number <= 19):
        return "SEMI_OPEN_GAME"
    if letter == "C":
        return "OPEN_GAME"
    if letter == "D":
        return "CLOSED_GAME" if number <= 69 else "INDIAN_DEFENCE"
    return "INDIAN_DEFENCE"


def opening(positions_after):
    """positions_after: boards after plies 1, 2, ..."""
    found = None
    for ply, board in enumerate(positions_after[:40], start=1):
        if chess.popcount(board.occupied) < 20:
            break
        hit = BY_EPD.get(board.epd())
        if hit:
            found = {"eco": hit[0], "name": hit[1], "ply": ply}
    return found


# -- phases -------------------------------------------------------------------


def score(r, w, b):
    table = {
        (0, 1): 1 + r,
        (0, 2): 2 + (6 - r) if r < 6 else 0,
        (0, 3): 3 + (7 - r) if r < 7 else 0,
        (0, 4): 3 + (7 - r) if r < 7 else 0,
        (1, 0): 1 + (8 - r),
        (1, 1): 5 + abs(4 - r),
        (1, 2): 4 + (7 - r),
        (1, 3): 5 + (7 - r),
        (2, 0): 2 + (r - 2) if r > 2 else 0,
        (2, 1): 4 + (r - 1),
        (2, 2): 7,
        (3, 0): 3 + (r - 1) if r > 1 else 0,
        (3, 1): 5 + (r - 1),
        (4, 0): 3 + (r - 1) if r > 1 else 0,
    }
    return table.get((w, b), 0)


def mixedness(board):
    total = 0
    for y in range(7):
        for x in range(7):
            w = b = 0
            for dx in (0, 1):
                for dy in (0, 1):
                    piece = board.piece_at(chess.square(x + dx, y + dy))
                    if piece is not None:
                        if piece.color == chess.WHITE:
                            w += 1
                        else:
                            b += 1
            total += score(y + 1, w, b)
    return total


def majors_and_minors(board):
    return sum(1 for p in board.piece_map().values() if p.piece_type not in (chess.KING, chess.PAWN))


def phases(positions):
    """positions: boards after plies 0..n."""
    middle = end = None
    for index, board in enumerate(positions):
        sparse = (
            sum(1 for sq in chess.SquareSet(chess.BB_RANK_1) if board.color_at(sq) == chess.WHITE) < 4
            or sum(1 for sq in chess.SquareSet(chess.BB_RANK_8) if board.color_at(sq) == chess.BLACK) < 4
        )
        if majors_and_minors(board) <= 10 or sparse or mixedness(board) > 150:
            middle = index
            break
    if middle is not None:
        for index, board in enumerate(positions):
            if majors_and_minors(board) <= 6:
                end = index
                break
    if middle is not None and end is not None and not middle < end:
        middle = None
    return {"middlegame": middle, "endgame": end}


def phase_at(ph, ply):
    if ph["endgame"] is not None and ply >= ph["endgame"]:
        return "endgame"
    if ph["middlegame"] is not None and ply >= ph["middlegame"]:
        return "middlegame"
    return "opening"


# -- time use -----------------------------------------------------------------


def long_enough(tc):
    """lichess's estimateTotalSeconds > 60, over the first period."""
    if tc in ("", "?", "-") or tc.startswith("*"):
        return False
    first = tc.split(":")[0]
    if "/" in first:
        first = first.split("/")[1]
    seconds, _, inc = first.partition("+")
    return float(seconds) + 40 * float(inc or 0) > 60


def cv_of(times):
    return statistics.stdev(times) / (statistics.mean(times) + 100)


def short(x):
    """A float to 12 significant digits (the test allows 1e-9 relative)."""
    return None if x is None else float(f"{x:.12g}")


def time_use(moves, ph, tc):
    """moves: per ply (ply index before it, mover, ms or None, legal count)."""
    out = []
    longer = long_enough(tc)
    for side in (chess.WHITE, chess.BLACK):
        own = [m for m in moves if m[1] == side][1:]
        T = [m for m in own if m[2] is not None]
        times = [m[2] for m in T]
        n = len(times)
        cv = cv_of(times) if n >= 2 else None
        windows = [
            cv_of(times[i : i + 15])
            for i in range(0, n - 14)
            if times[i : i + 15].count(0) < 4
        ]
        mwcv = min(windows) if windows else None
        fast = sum(1 for t in times if t < 500)
        by_phase = {"opening": 0, "middlegame": 0, "endgame": 0}
        for m in T:
            by_phase[phase_at(ph, m[0])] += m[2]
        flags = [
            fast <= n // 20 + 2,
            cv is not None and cv < 0.4,
            longer and cv is not None and cv < 0.25,
            longer and mwcv is not None and mwcv < 0.13,
        ]
        out.append(
            [
                n,
                sum(times),
                short(statistics.mean(times)) if n else 0,
                short(statistics.stdev(times)) if n >= 2 else 0,
                short(cv),
                short(mwcv),
                fast,
                times.count(0),
                sum(1 for m in T if m[3] == 1),
                sum(m[2] for m in T if m[3] == 1),
                by_phase["opening"],
                by_phase["middlegame"],
                by_phase["endgame"],
                sum(1 << i for i, flag in enumerate(flags) if flag),
            ]
        )
    if all(t[0] == 0 for t in out):
        return []
    return out


def analyse(start, ucis, times, tc, names_opening):
    board = chess.Board(start) if start else chess.Board()
    positions = [board.copy()]
    moves = []
    for i, uci in enumerate(ucis):
        moves.append((i, board.turn, times[i], board.legal_moves.count()))
        board.push_uci(uci)
        positions.append(board.copy())
    ph = phases(positions)
    return {
        "opening": opening(positions[1:]) if names_opening else None,
        "phases": ph,
        "timeUse": time_use(moves, ph, tc),
    }


# -- games --------------------------------------------------------------------

RNG = random.Random(48)
CONTROLS = ["600+0", "180+2", "60+0", "15+0", "20+1", "30+1", "40/5400+30:1800+30",
            "40/7200:3600", "-", "?", "300+3", "*60"]


def extend(board, plies):
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal or board.is_game_over(claim_draw=False):
            break
        m = RNG.choice(legal)
        # Captures now and then, so that phases move on.
        captures = [x for x in legal if board.is_capture(x)]
        if captures and RNG.random() < 0.5:
            m = RNG.choice(captures)
        board.push(m)
        moves.append(m.uci())
    return moves


def transposed(line):
    """Another order of the line's moves (each side's own reordered) that is
    legal throughout and reaches the same position, if one is found."""
    target = chess.Board()
    for u in line:
        target.push_uci(u)
    for _ in range(40):
        white, black = line[0::2], line[1::2]
        white, black = RNG.sample(white, len(white)), RNG.sample(black, len(black))
        order = [m for pair in zip(white, black + [None]) for m in pair if m is not None]
        order = order[: len(line)]
        if order == line:
            continue
        board = chess.Board()
        try:
            for u in order:
                move = chess.Move.from_uci(u)
                if move not in board.legal_moves:
                    raise ValueError
                board.push(move)
        except ValueError:
            continue
        if board.epd() == target.epd():
            return order
    return None


def times_for(n, style):
    if style == "flat":
        return [2000] * n
    if style == "whole":
        return [RNG.randrange(0, 20) * 1000 for _ in range(n)]
    if style == "instant":
        return [0 if RNG.random() < 0.3 else RNG.randrange(1, 3000) for _ in range(n)]
    if style == "unknown":
        return [None if RNG.random() < 0.2 else RNG.randrange(0, 60000) for _ in range(n)]
    if style == "none":
        return [None] * n
    if style == "steady":
        return [1000 + RNG.randrange(0, 200) for _ in range(n)]
    return [int(RNG.lognormvariate(8, 1)) for _ in range(n)]


STYLES = ["flat", "whole", "instant", "unknown", "none", "steady", "varied"]


def game_line(kind, start, ucis, names_opening):
    n = len(ucis)
    style = RNG.choice(STYLES)
    times = times_for(n, style)
    tc = RNG.choice(CONTROLS)
    record = {"kind": kind, "style": style, "fen": start, "moves": ucis, "times": times, "tc": tc}
    record.update(analyse(start, ucis, times, tc, names_opening))
    return record


def clock_times(game):
    """A game's moves (UCI), each move's time from consecutive [%clk]
    readings (previous + increment - reading, unknown where negative or
    without a previous reading), and its TimeControl tag."""
    tc = game.headers.get("TimeControl", "?")
    inc = int(tc.split("+")[1]) * 1000 if "+" in tc else 0
    times, last = [], {}
    for node in game.mainline():
        mover = not node.board().turn
        clk = node.clock()
        ms = None
        if clk is not None:
            clk = round(clk * 1000)
            if mover in last and last[mover] + inc - clk >= 0:
                ms = last[mover] + inc - clk
            last[mover] = clk
        times.append(ms)
    return [m.uci() for m in game.mainline_moves()], times, tc


def main():
    data = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/data"
    load_openings(data)
    out = []
    for eco, name, line in RNG.sample(LINES, 120):
        board = chess.Board()
        for u in line:
            board.push_uci(u)
        ext = extend(board, RNG.choice([0, 1, 2, 5, 10, 30, 60, 100]))
        out.append(game_line("line", None, line + ext, True))
    found = 0
    for eco, name, line in RNG.sample(LINES, 600):
        if found == 60 or len(line) < 4:
            continue
        order = transposed(line)
        if order is None:
            continue
        found += 1
        board = chess.Board()
        for u in order:
            board.push_uci(u)
        ext = extend(board, RNG.choice([0, 1, 3, 20, 80]))
        out.append(game_line("transposed", None, order + ext, True))
    for _ in range(30):
        out.append(game_line("random", None, extend(chess.Board(), RNG.randrange(1, 200)), True))
    starts = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ]
    for _ in range(24):
        start = RNG.choice(starts)
        board = chess.Board(start)
        out.append(game_line("fen", start, extend(board, RNG.randrange(1, 120)), False))

    sample = data / "pgn/shakmaty/lichess_db_1000k.pgn"
    with open(sample, encoding="utf-8") as f:
        index = 0
        while (game := chess.pgn.read_game(f)) is not None:
            ucis, times, tc = clock_times(game)
            record = {"kind": "lichess", "index": index, "site": game.headers.get("Site", "")[-8:]}
            record.update(analyse(None, ucis, times, tc, True))
            out.append(record)
            index += 1
    with open(OUT, "w", encoding="utf-8") as f:
        for record in out:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
    kinds = {}
    for r in out:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"{len(out)} games written to {OUT.relative_to(ROOT)}: {kinds}")


if __name__ == "__main__":
    main()
