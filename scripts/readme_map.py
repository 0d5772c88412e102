"""Write the README's "Where things live" map from the tree: one line per module, its docstring's first line.

The map lies between two markers in README.md (:data:`START`, :data:`END`); everything else of the README is
left as it is. Run it after adding, moving or renaming a module::

    python scripts/readme_map.py          # rewrite the map
    python scripts/readme_map.py --check  # exit 1 when the map is not the tree's (what the test runs)

A module without a docstring stops the map with its path: the map line is the module's own first line, so the
fix is to write one.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = "<!-- where-things-live: written by scripts/readme_map.py, do not edit by hand -->"
END = "<!-- where-things-live: end -->"
#: The folders of code the map covers, in the order a reader meets them; app.py opens it.
FOLDERS = ("pages", "components", "core", "scripts")
#: Where the descriptions start, so that they line up.
COLUMN = 34


def first_line(path: Path) -> str:
    """The first line of ``path``'s module docstring.

    Raises
    ------
    ValueError
        If the module has none (the map would have nothing to say of it).
    """
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    if not doc or not doc.strip():
        raise ValueError(f"{path} has no module docstring; write one (its first line is its line in the README map)")
    return doc.strip().splitlines()[0].strip()


def _line(indent: int, name: str, text: str) -> str:
    head = "  " * indent + name
    return f"{head.ljust(COLUMN - 1)} {text}".rstrip()


def _folder(root: Path, folder: Path, indent: int) -> list[str]:
    init = folder / "__init__.py"
    rel = folder.relative_to(root).as_posix() if indent == 0 else folder.name
    # a package's __init__ may hold nothing at all; then its folder line is its name alone
    lines = [_line(indent, rel + "/", first_line(init) if init.exists() and init.read_text().strip() else "")]
    files = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    lines += [_line(indent + 1, p.name, first_line(p)) for p in files]
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and any(p.rglob("*.py"))
                      and p.name != "__pycache__"):
        lines += _folder(root, sub, indent + 1)
    return lines


def render_map(root: Path = ROOT) -> str:
    """The map of the tree under ``root``: app.py, then each of :data:`FOLDERS`, as a fenced block.

    Raises
    ------
    ValueError
        If a module has no docstring.
    """
    lines = [_line(0, "app.py", first_line(root / "app.py"))] if (root / "app.py").exists() else []
    for name in FOLDERS:
        if (root / name).is_dir():
            lines += _folder(root, root / name, 0)
    return "\n".join(["```", *lines, "```"])


def updated_readme(text: str, root: Path = ROOT) -> str:
    """``text`` (a README) with the part between :data:`START` and :data:`END` made the tree's map.

    Raises
    ------
    ValueError
        If the README lacks either marker (put both where the map belongs), or a module has no docstring.
    """
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise ValueError(f"README.md needs the map's two markers, {START!r} then {END!r}, on lines of their "
                         "own where the map belongs")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{render_map(root)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md's map is not the tree's")
    args = parser.parse_args(argv)
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    new = updated_readme(text)
    if args.check:
        if new != text:
            print("README.md's map is out of date: run python scripts/readme_map.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        sys.path.insert(0, str(ROOT))
        from core.fsio import atomic_write_text

        atomic_write_text(readme, new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
