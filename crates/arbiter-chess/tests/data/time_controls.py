#!/usr/bin/env python3
"""Writes time_controls.tsv beside it: PGN TimeControl tags and
python-chess's parse of each (chess.pgn.parse_time_control, which
Game.time_control() calls), for tests/time_control.rs.

One line a tag, three tab-separated fields: the kind, the tag, and
python-chess's answer: `unknown`, `unlimited`, `periods M,S,I;M,S,I...`
(moves, seconds, the increment as Python's repr of the float) or `error
TYPE: MESSAGE`. The kinds say what Arbiter must do:

- `same`: Arbiter accepts the tag iff python-chess does, with equal
  periods (well-formed tags, malformed ones, seeded random strings);
- `sandclock`: `*SECONDS`, which python-chess rejects and Arbiter reads;
- `lenient`: tags python-chess accepts that Arbiter rejects as malformed
  (Python's int()/float() leniency: signs, spaces, underscores, exponents,
  inf and nan, non-ASCII digits; text after `?` or `-`; fields past a
  second `+` or `/`; a `d` delay, which does not say its kind; finer than
  a millisecond; numbers past Arbiter's bounds).

Run with python-chess 1.11.2:  python3 crates/arbiter-chess/tests/data/time_controls.py
"""
import random

import chess.pgn

SAME = [
    "", "?", "-", "0", "60", "180", "300+3", "180+2", "15+0", "0+1", "5400+30",
    "40/5400+30:1800+30", "40/7200:3600", "40/7200:20/3600", "40/7200:20/3600:900+30",
    "0/60", "40/60:0/30", "060", "0060+005", "60+0.5", "60+.5", "60+5.", "60+0.5000",
    "60+0.001", "60+1.25", "120+0.1", "1/1", "10000/10000000+10000000",
    # rejected by both
    "60.5", "40/60.5", "4.5/60", "1800:40/5400", "60:60", "0/60:30", "x", "60+", "+5",
    "40/", "/60", ":", "60:", ":60", "60+x", "*", "*x", "60+.", ".", "60+d", "G/90", "90m",
    "1:30:00", "40/90min", "60+1/2", "60//", "60++1",
    "+60", "40/+60", ":".join(["60"] * 17),
]

SANDCLOCK = ["*60", "*180", "*0", "*0060"]

LENIENT = [
    "?x", "??", "?60", "-5", "--", "-60+1", " 60", "60 ", "60 + 2",
    "60+-5", "60+-0.5", "40/-60", "40/60+ 1", "1_000", "60+1_0", "60+1e3",
    "60+1E-1", "60+inf", "60+nan", "60+infinity", "60+\u0663", "\u0663\u0660",
    "60+1+2", "60+1+x", "60/40/", "40/60/7", "40/60/x+1", "300+5d", "300+5D", "40/5400+30d:1800+30",
    "60+0.0005", "60+0.1234", "60+1.0001", "20000/60", "99999999999999999999",
    "60+10000001", "10000001",
    "40/60:" * 20 + "60", "60+" + "1" * 30,
]

ALPHABET = "0123456789/+:."


def answer(tag):
    try:
        tc = chess.pgn.parse_time_control(tag)
    except Exception as e:  # noqa: BLE001 - the type is part of the answer
        return f"error {type(e).__name__}: {e}"
    if tc.type == chess.pgn.TimeControlType.UNKNOWN and not tc.parts:
        return "unknown"
    if tc.type == chess.pgn.TimeControlType.UNLIMITED:
        return "unlimited"
    return "periods " + ";".join(f"{p.moves},{p.time},{p.increment!r}" for p in tc.parts)


def lenient(tag):
    """Whether a tag python-chess accepts (of ALPHABET) is one of its
    lenient acceptances: a second `+` or `/` in a period, a decimal finer
    than a millisecond, a number past Arbiter's bounds, over 16 periods."""
    for part in tag.split(":"):
        moves_time, *bonus = part.split("+")
        if len(bonus) > 1 or moves_time.count("/") > 1:
            return True
        if bonus and "." in bonus[0] and len(bonus[0].split(".")[1].rstrip("0")) > 3:
            return True
    for p in chess.pgn.parse_time_control(tag).parts:
        if p.moves > 10_000 or p.time > 10_000_000 or p.increment > 10_000_000:
            return True
    return len(tag.split(":")) > 16


def main():
    rng = random.Random(33)
    rows = [("same", t) for t in SAME] + [("sandclock", t) for t in SANDCLOCK]
    rows += [("lenient", t) for t in LENIENT]
    # Well-formed tags with random numbers.
    for _ in range(150):
        parts = []
        for i in range(rng.randint(1, 4)):
            moves = f"{rng.randint(1, 60)}/" if rng.random() < 0.6 else ""
            inc = ""
            if rng.random() < 0.5:
                inc = f"+{rng.randint(0, 60)}"
                if rng.random() < 0.3:
                    inc += "." + str(rng.randint(0, 999)).zfill(rng.randint(1, 3))
            parts.append(f"{moves}{rng.randint(0, 10800)}{inc}")
        rows.append(("same", ":".join(parts)))
    # Random strings: mostly malformed.
    for _ in range(150):
        tag = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 10)))
        rows.append(("lenient" if answer(tag).startswith("periods") and lenient(tag) else "same", tag))
    seen = set()
    with open(__file__.replace(".py", ".tsv"), "w", encoding="utf-8") as out:
        for kind, tag in rows:
            if tag in seen:
                continue
            seen.add(tag)
            assert "\t" not in tag and "\n" not in tag
            out.write(f"{kind}\t{tag}\t{answer(tag)}\n")


if __name__ == "__main__":
    main()
