"""scripts/readme_map.py: the README's "Where things live" map is the tree's, one line per module."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _readme_map():
    spec = importlib.util.spec_from_file_location("readme_map", ROOT / "scripts" / "readme_map.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_readme_map_is_current():
    """A module added, moved or renamed without ``python scripts/readme_map.py`` fails here."""
    rm = _readme_map()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rm.updated_readme(text) == text, "README.md's map is out of date: run python scripts/readme_map.py"


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text('"""The entry point."""\n')
    (tmp_path / "core" / "eval").mkdir(parents=True)
    (tmp_path / "core" / "__init__.py").write_text('"""The engine.\n\nMore."""\n')
    (tmp_path / "core" / "eval" / "__init__.py").write_text("")
    (tmp_path / "core" / "eval" / "stats.py").write_text('"""Paired intervals.\n\nDetails."""\nX = 1\n')
    (tmp_path / "core" / "fsio.py").write_text('"""Atomic writes."""\n')
    return tmp_path


def test_one_line_per_module_from_its_docstring(tmp_path):
    rm = _readme_map()
    lines = rm.render_map(_tree(tmp_path)).splitlines()
    assert lines[0] == "```" and lines[-1] == "```"
    assert [ln.split()[0] for ln in lines[1:-1]] == ["app.py", "core/", "fsio.py", "eval/", "stats.py"]
    by_name = {ln.split()[0]: ln for ln in lines[1:-1]}
    assert by_name["core/"].endswith(" The engine.")  # the first line only
    assert by_name["stats.py"].startswith("    stats.py") and by_name["stats.py"].endswith(" Paired intervals.")
    assert by_name["eval/"].rstrip() == "  eval/"  # a package without a docstring of its own: its name alone


def test_only_the_part_between_the_markers_is_rewritten(tmp_path):
    rm = _readme_map()
    root = _tree(tmp_path)
    text = f"# Title\n\nBefore.\n{rm.START}\nstale map\n{rm.END}\nAfter.\n"
    new = rm.updated_readme(text, root)
    assert new.startswith("# Title\n\nBefore.\n") and new.endswith(f"{rm.END}\nAfter.\n")
    assert "stale map" not in new and "fsio.py" in new
    assert rm.updated_readme(new, root) == new


def test_a_module_without_a_docstring_is_named(tmp_path):
    rm = _readme_map()
    root = _tree(tmp_path)
    (root / "core" / "bare.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match=r"bare\.py has no module docstring; write one"):
        rm.render_map(root)


def test_a_readme_without_markers_says_where_they_go(tmp_path):
    rm = _readme_map()
    with pytest.raises(ValueError, match=r"README\.md needs the map's two markers"):
        rm.updated_readme("# Title\n", _tree(tmp_path))
