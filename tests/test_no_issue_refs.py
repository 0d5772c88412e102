"""The code states its reasons instead of pointing at an issue number: a reader of the code cannot open the
tracker, so "(issue 19)" in a comment, docstring or message tells them nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ISSUE_REF = re.compile(r"\bissues? ?#?\d+\b", re.IGNORECASE)
PLACES = ["core", "components", "pages", "app.py", "scripts", "benchmarks", "tests"]


def _python_files(place: str) -> list[Path]:
    path = ROOT / place
    files = [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [f for f in files
            if f.resolve() != Path(__file__).resolve()]


@pytest.mark.parametrize("place", PLACES)
def test_no_issue_numbers_in_the_code(place: str) -> None:
    assert (ROOT / place).exists(), f"{place} is not in the repository; update PLACES"
    hits = [f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
            for f in _python_files(place)
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
            if ISSUE_REF.search(line)]
    assert not hits, "say the reason instead of the issue number:\n" + "\n".join(hits)
