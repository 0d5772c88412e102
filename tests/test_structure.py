"""Project-structure invariants."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_core_never_imports_streamlit():
    offenders = []
    for f in (ROOT / "core").rglob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "streamlit" or n.startswith("streamlit.") for n in names):
                offenders.append(str(f.relative_to(ROOT)))
    assert offenders == [], f"core/ must stay free of streamlit: {offenders}"


def test_import_core_is_light():
    """`import core` and the graph/index modules must not pull in torch, faiss or streamlit."""
    code = ("import sys, core, core.graph, core.index, core.trace, core.cli, core.backends; "
            "heavy = [m for m in ('torch', 'faiss', 'streamlit', 'transformers', 'sentence_transformers', 'llama_cpp') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_layout_exists():
    for p in ["pyproject.toml", "app.py", "pages", "components", "core", "assets", "tests", "sample_data",
              "benchmarks", ".ci/run", "README.md", "Makefile", "scripts/bootstrap.sh"]:
        assert (ROOT / p).exists(), p
