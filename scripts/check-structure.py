#!/usr/bin/env python3
"""Checks two rules of the house on the Rust sources, from their text:

- no circle of imports between modules: each crate's modules are taken at
  their first two path levels (`rules/clock`, `api/wire`, `cli`), and every
  `crate::` or `super::` path outside comments and test modules is an arrow
  from the module it is written in to the module it names;
- one meaning per type name: no struct, enum, trait or type alias defined
  twice across the workspace's sources (associated types and test modules
  left out).

Prints what it finds and exits 1 if anything breaks a rule. Run from the
repository's root: `python3 scripts/check-structure.py`.
"""

import collections
import pathlib
import re
import sys

CRATES = ["crates/arbiter-chess/src", "crates/arbiter-pgn/src", "src", "python/src"]
PATH = re.compile(r"\b(crate|super)((?:::\w+)+)")
DEFINITION = re.compile(
    r"^[ \t]*(?:pub(?:\([a-z]+\))? )?(?:struct|enum|trait|type) ([A-Z]\w*)(\s*[=:])?", re.M
)


def code_of(path: pathlib.Path) -> str:
    """The file's text up to its test module, comment lines blanked (so
    that line numbers stay)."""
    lines = ["" if line.strip().startswith("//") else line for line in path.read_text().split("\n")]
    return re.split(r"#\[cfg\(test\)\]\s*mod tests \{", "\n".join(lines))[0]


def modules(src: pathlib.Path) -> dict[pathlib.Path, list[str]]:
    """Each source file and its module path (`rules/clock/record` -> [rules, clock, record])."""
    found = {}
    for path in sorted(src.rglob("*.rs")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "mod":
            parts.pop()
        found[path] = parts
    return found


def key(parts: list[str]) -> str:
    """A module at its first two path levels; the crate root is `lib`."""
    return "/".join(parts[:2]) or "lib"


def circles(src: pathlib.Path) -> list[str]:
    """The modules of the crate at `src` that lie on a circle of imports."""
    files = modules(src)
    known = {key(parts) for parts in files.values()}
    arrows = collections.defaultdict(set)
    for path, parts in files.items():
        here = key(parts)
        # `super` is the parent of a file's module (a `mod.rs` is its module).
        parent = parts[:-1]
        for kind, rest in PATH.findall(code_of(path)):
            segments = [s for s in rest.split("::") if s]
            target = key((segments if kind == "crate" else parent + segments)[:2])
            if target != here and target in known:
                arrows[here].add(target)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in arrows[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return sorted(m for m in list(arrows) if m in reach(m))


def twice_defined() -> dict[str, list[str]]:
    """Type names defined in more than one place, with the places."""
    places = collections.defaultdict(list)
    for crate in CRATES:
        for path in sorted(pathlib.Path(crate).rglob("*.rs")):
            text = code_of(path)
            for match in DEFINITION.finditer(text):
                # `type X = ...` or `type X: ...` indented: an associated type.
                if match.group(2) and match.group(0)[0].isspace():
                    continue
                line = text.count("\n", 0, match.start()) + 1
                places[match.group(1)].append(f"{path}:{line}")
    return {name: where for name, where in places.items() if len(where) > 1}


def main() -> int:
    failed = False
    for crate in CRATES:
        on_circle = circles(pathlib.Path(crate))
        if on_circle:
            failed = True
            print(f"{crate}: modules on a circle of imports: {', '.join(on_circle)}")
    for name, where in sorted(twice_defined().items()):
        failed = True
        print(f"type {name} is defined more than once: {', '.join(where)}")
    if not failed:
        print("structure: no circle of imports between modules, no type name defined twice")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
