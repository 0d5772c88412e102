#!/usr/bin/env python
"""Print the import graph of a package and every import cycle in it.

    .venv/bin/python scripts/import_graph.py                 # cycles between modules of core/
    .venv/bin/python scripts/import_graph.py --depth 3       # ... between packages (core.methods.bubblerag, ...)
    .venv/bin/python scripts/import_graph.py --edges         # every edge too, "a -> b  [kind]"
    .venv/bin/python scripts/import_graph.py --dot > g.dot   # Graphviz

Every ``import`` / ``from ... import`` in the source counts, wherever it is written: at module level
(``top``), inside a function (``lazy`` — still a dependency, only deferred) or under
``if TYPE_CHECKING:`` (``typing``). ``--kinds top`` restricts to the imports that run at import time.
``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b``.

Exit status 1 when there is a cycle, so the script can gate CI; tests/test_structure.py uses
:func:`import_graph` and :func:`cycles` directly.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("top", "lazy", "typing")


def _modules(root: Path, package: str) -> dict[str, Path]:
    base = root / package.replace(".", "/")
    out: dict[str, Path] = {}
    for f in sorted(base.rglob("*.py")):
        parts = list(f.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module, module: str, is_package: bool) -> Iterable[tuple[str, str]]:
    """(imported name, kind) for every import statement of one module."""

    def visit(node: ast.AST, kind: str) -> Iterable[tuple[str, str]]:
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, kind
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against this module's package
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:
                yield f"{base}.{a.name}", kind  # resolved to a module or its parent below
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, "typing")
            for child in node.orelse:
                yield from visit(child, kind)
            return
        inner = "lazy" if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and kind == "top" \
            else kind
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)

    for stmt in tree.body:
        yield from visit(stmt, "top")


def import_graph(package: str = "core", root: Path = ROOT, *, kinds: Iterable[str] = KINDS,
                 depth: int | None = None) -> nx.DiGraph:
    """Directed graph module -> imported module inside ``package`` (edge attribute ``kinds``).

    ``depth`` collapses module names to their first ``depth`` dotted parts (``core.methods.bubblerag``),
    giving the graph between packages; edges inside one collapsed package are dropped.
    """
    wanted = set(kinds)
    mods = _modules(root, package)
    g = nx.DiGraph()

    def name(m: str) -> str:
        return ".".join(m.split(".")[:depth]) if depth else m

    for m in mods:
        g.add_node(name(m))
    for m, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for target, kind in _imports(tree, m, path.name == "__init__.py"):
            if kind not in wanted:
                continue
            while target and target not in mods:  # `from a.b import f` -> a.b; `import a.b.c` -> a.b.c
                target = target.rpartition(".")[0]
            if not target or not (target == package or target.startswith(package + ".")):
                continue
            a, b = name(m), name(target)
            if a == b:
                continue
            if g.has_edge(a, b):
                g[a][b]["kinds"].add(kind)
            else:
                g.add_edge(a, b, kinds={kind})
    return g


def cycles(g: nx.DiGraph) -> list[list[str]]:
    """One shortest cycle through every edge that lies on a cycle, deduplicated, shortest first.

    (All simple cycles can be exponentially many; this lists each problem edge once.)"""
    found: dict[tuple[str, ...], list[str]] = {}
    for scc in nx.strongly_connected_components(g):
        if len(scc) < 2:
            continue
        sub = g.subgraph(scc)
        for a, b in sub.edges:
            back = nx.shortest_path(sub, b, a)  # b ... a
            cyc = [a, *back[:-1]]
            i = cyc.index(min(cyc))
            key = tuple(cyc[i:] + cyc[:i])
            found.setdefault(key, list(key))
    return sorted(found.values(), key=lambda c: (len(c), c))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("package", nargs="?", default="core")
    ap.add_argument("--depth", type=int, default=None, help="collapse modules to this many dotted parts")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma list of top,lazy,typing (default: all)")
    ap.add_argument("--edges", action="store_true", help="print every edge")
    ap.add_argument("--dot", action="store_true", help="print Graphviz dot instead")
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        ap.error(f"unknown kind(s) {bad}; use {','.join(KINDS)}")
    g = import_graph(args.package, kinds=kinds, depth=args.depth)
    cyc = cycles(g)
    if args.dot:
        on_cycle = {(c[i], c[(i + 1) % len(c)]) for c in cyc for i in range(len(c))}
        print("digraph imports {\n  rankdir=LR; node [shape=box, fontsize=10];")
        for a, b, d in sorted(g.edges(data=True)):
            style = ' [color=red]' if (a, b) in on_cycle else (' [style=dashed]' if "top" not in d["kinds"] else "")
            print(f'  "{a}" -> "{b}"{style};')
        print("}")
        return 1 if cyc else 0
    print(f"{args.package}: {g.number_of_nodes()} modules, {g.number_of_edges()} import edges "
          f"(kinds: {','.join(kinds)}; depth: {args.depth or 'modules'})")
    if args.edges:
        for a, b, d in sorted(g.edges(data=True)):
            print(f"  {a} -> {b}  [{','.join(sorted(d['kinds']))}]")
    sccs = [s for s in nx.strongly_connected_components(g) if len(s) > 1]
    print(f"{len(sccs)} strongly connected group(s) of mutually importing modules, {len(cyc)} cycle(s):")
    for c in cyc:
        labels = [f"{c[i]} -[{','.join(sorted(g[c[i]][c[(i + 1) % len(c)]]['kinds']))}]->" for i in range(len(c))]
        print("  " + " ".join(labels) + f" {c[0]}")
    return 1 if cyc else 0


if __name__ == "__main__":
    sys.exit(main())
