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


def _import_graph_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_core_has_no_import_cycle():
    """No import cycle anywhere in core/: between modules, between packages (``core.methods.bubblerag``,
    ``core.eval.runner``, ...) and between core's subpackages (``core.eval`` sits on ``core.methods``).
    Every import counts — module level, inside a function, under ``TYPE_CHECKING``.
    ``python scripts/import_graph.py [--depth 3|2]`` prints the graph and any cycle."""
    ig = _import_graph_script()
    for depth in (None, 3, 2):
        g = ig.import_graph("core", ROOT, depth=depth)
        assert g.number_of_edges() > (300 if depth is None else 20)  # the parser sees the imports
        assert ig.cycles(g) == [], f"import cycles at depth {depth or 'modules'}: {ig.cycles(g)}"


def test_the_cycle_check_finds_cycles(tmp_path):
    """The checker itself: a lazy import and a TYPE_CHECKING import closing a loop are both cycles."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from pkg import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import d\n")
    (pkg / "d.py").write_text("import pkg.c\n")
    ig = _import_graph_script()
    assert ig.cycles(ig.import_graph("pkg", tmp_path)) == [["pkg.a", "pkg.sub.b"], ["pkg.c", "pkg.d"]]
    assert ig.cycles(ig.import_graph("pkg", tmp_path, kinds=["top"])) == []
    assert ig.cycles(ig.import_graph("pkg", tmp_path, depth=2)) == [["pkg.a", "pkg.sub"], ["pkg.c", "pkg.d"]]


def test_no_module_of_core_is_over_500_lines():
    """A module does one job, and one job fits in 500 lines: the modules that did four to seven jobs were split
    along their seams (llm, loaders → graph/formats, workspace → index/*, cli → cli/*, runner, ppr, model,
    falkor, spacy_extractor, llm_cache); a face that re-exports stays a face."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
             for p in (ROOT / "core").rglob("*.py")}
    too_long = {m: n for m, n in sizes.items() if n > 500}
    assert not too_long, f"split these along their seams: {too_long}"
    assert sizes["core/backends/llm.py"] <= 150  # NoLLM and the map of the LLM modules


def _method_packages() -> list[str]:
    """The method packages: ``core/methods/<name>/`` with a ``METHOD`` (what the registry discovers)."""
    return sorted(p.parent.name for p in (ROOT / "core" / "methods").glob("*/__init__.py")
                  if "METHOD" in p.read_text(encoding="utf-8"))


def test_no_paper_package_imports_another_and_shared_code_imports_none():
    """Each method package stands beside the others: it may import the shared modules of ``core/methods``
    (``evidence``, ``answering``, ``passages``, ...) and anything below, never another method package; the
    shared modules import no method package, except ``core.methods.registry``, whose job is to list them.
    Every import counts (module level, lazy, TYPE_CHECKING)."""
    ig = _import_graph_script()
    g = ig.import_graph("core", ROOT, depth=3)
    papers = {f"core.methods.{p}" for p in _method_packages()}
    assert {"core.methods.bubblerag", "core.methods.fastinsight", "core.methods.sgrag", "core.methods.reg"} <= papers
    crossing = sorted((a, b) for a, b in g.edges() if b in papers and a != b and a.startswith("core.methods")
                      and a != "core.methods.registry")
    assert crossing == [], f"a method package or shared module imports a method package: {crossing}"


def test_methods_never_ask_which_store_holds_the_graph():
    """The graph store is a backend, not a branch: a method reads the question's graph through
    ``core.graph.reader`` (one protocol, dispatched on the graph's type outside the algorithm body), so no
    module under core/methods asks whether the workspace is on a store or tests a store type."""
    import re

    leak = re.compile(r"remote_store\(|isinstance\([^)]*Store|store_url\s*[!=]=|\.remote\b")
    offenders = [f"{f.relative_to(ROOT)}:{i}" for f in (ROOT / "core" / "methods").rglob("*.py")
                 for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1) if leak.search(line)]
    assert offenders == [], f"store branches in core/methods: {offenders}"


def test_pages_read_stage_results_by_type_not_by_key():
    """Pages and components read a stage's result through its typed value (``XData.of(trace).field``, see
    core.trace.StageData), never by indexing a step's data dict: a renamed key then fails a type check."""
    import re

    untyped = re.compile(r"\.stage\(|\.data\[|\.data\.get\(|\bs\.data\b|\bstep\.data\b")
    files = [*(ROOT / "pages").glob("*.py"), *(ROOT / "components").glob("*.py")]
    offenders = [f"{f.relative_to(ROOT)}:{i}" for f in files
                 for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1) if untyped.search(line)]
    assert offenders == [], f"step data read by key in the UI: {offenders}"


def test_components_have_no_import_cycle():
    """The UI wing too: no module of components/ imports one that imports it back (lazily or not)."""
    ig = _import_graph_script()
    g = ig.import_graph("components", ROOT)
    assert g.number_of_edges() > 15
    assert ig.cycles(g) == [], f"import cycles in components/: {ig.cycles(g)}"


def test_the_workspace_manifest_is_read_through_its_type():
    """Outside core/index (which writes it), a workspace's manifest is read through
    :class:`core.index.manifest.Manifest` (``workspace.meta``), never by ``.get`` chains on the dict."""
    import re

    chain = re.compile(r"\bws\.manifest\b|\bworkspace\.manifest\b|\bcurrent\.manifest\b")
    files = [*(ROOT / "pages").glob("*.py"), *(ROOT / "components").glob("*.py"),
             *(p for p in (ROOT / "core").rglob("*.py") if "index" not in p.relative_to(ROOT / "core").parts[:1]
               and p.name != "cli.py" and "cli" not in p.relative_to(ROOT / "core").parts[:1])]
    offenders = [f"{f.relative_to(ROOT)}:{i}" for f in files
                 for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1) if chain.search(line)]
    assert offenders == [], f"read the manifest through workspace.meta: {offenders}"


def test_figures_are_built_in_one_layer():
    """Every plotly figure of the app is built in components/charts.py (from plain data); pages only show them."""
    import re

    build = re.compile(r"\bgo\.(Figure|Scatter|Bar|Histogram|Heatmap)\(|import plotly")
    offenders = [f"{f.relative_to(ROOT)}:{i}" for f in (ROOT / "pages").glob("*.py")
                 for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1) if build.search(line)]
    assert offenders == [], f"build figures in components/charts.py: {offenders}"


def test_no_module_of_core_re_exports_another_modules_names():
    """No compatibility faces: a name in a core module's (not a package's) ``__all__`` is defined there (a class, function or
    assignment), not imported from another module — callers import each name from the module that defines it
    (``core/backends/llm.py`` was such a face for nine modules)."""
    faces = {}
    for p in (ROOT / "core").rglob("*.py"):
        if p.name == "__init__.py":  # a package's public API, as in networkx: its face by design
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        exported: list[str] = []
        defined: set[str] = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            defined.add(n.id)
                            if n.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                                exported = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
        borrowed = sorted(set(exported) - defined)
        if borrowed:
            faces[str(p.relative_to(ROOT))] = borrowed
    assert not faces, f"import these from where they are defined: {faces}"
