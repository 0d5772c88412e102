"""Query- and answer-entity linking to KG nodes (what ReG assumes given as topic entities).

ReG's KGQA datasets ship topic entities and answer entities; a black-box OpenIE KG does not, so
we link them ourselves, deterministically:

* **query entities** — every word n-gram (up to 8 words) of the question whose normalized form is a
  node name; overlapping matches keep the longest; matches containing a capitalized word (not the
  first word) or a digit are preferred over plain lower-case words ("president", "river") when any
  exist. If nothing matches, the nodes nearest to the question embedding are taken (``fallback``
  says so).
* **answer entities** — a node whose normalized name equals the answer or an alias; else the
  nodes whose name contains the answer (or vice versa) for answers of at least 4 characters; else
  the nearest node by embedding when its cosine is at least ``min_cosine``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.graph.reader import GraphLike, nodes_named, read_ahead
from core.pinning import pin_search
from core.text import FUNCTION_WORDS, normalize_name

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.graph.model import KnowledgeGraph

_WORD = re.compile(r"[\w][\w'’.\-&]*", re.UNICODE)
@dataclass(frozen=True)
class Linked:
    nodes: tuple[int, ...]
    names: tuple[str, ...]
    how: str  #: "string match", "embedding", "none"
    fallback: str = ""


def node_name_index(graph: KnowledgeGraph) -> dict[str, int]:
    """Normalized node name → first node index (kept on the graph)."""
    return graph.derived("reg.node_name_index",
                         lambda: {normalize_name(n): i for i, n in reversed(list(enumerate(graph.node_names)))})


def _spans(text: str) -> list[tuple[int, int, str, bool]]:
    """(start word, end word, normalized n-gram, 'proper') for every n-gram up to 8 words."""
    text = re.sub(r"['’]s\b", "   ", text)  # possessives: "Hello Love's performer" → "Hello Love"
    words = [(m.group(0), m.start()) for m in _WORD.finditer(text)]
    out = []
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + 8) + 1):
            toks = [w for w, _ in words[i:j]]
            if all(t.lower() in FUNCTION_WORDS for t in toks):
                continue
            s = text[words[i][1]: words[j - 1][1] + len(words[j - 1][0])]
            proper = any((w[:1].isupper() and k + i > 0) or any(ch.isdigit() for ch in w) for k, w in enumerate(toks))
            out.append((i, j, normalize_name(s.rstrip("?.!,;:")), proper))
    return out


def link_query_entities(query: str, graph: GraphLike, *, node_vectors: np.ndarray | None = None,
                        qvec: np.ndarray | None = None, k_fallback: int = 3) -> Linked:
    """Link the entities mentioned in ``query`` to KG nodes (see the module docstring). Every n-gram of the
    question is looked up in one batch by normalized name (:func:`~core.graph.reader.nodes_named`, one
    store read on a graph store); the first node of a name wins, as in :func:`node_name_index`."""
    def lookup(keys: list[str]) -> dict[str, int]:
        return {s: vs[0] for s, vs in nodes_named(graph, keys).items() if vs}

    def names_of(nodes: Sequence[int]) -> list[str]:
        read_ahead(graph, names=nodes)
        return [graph.node_names[v] for v in nodes]

    return _link(query, lookup, names_of, node_vectors, qvec, k_fallback)


def _link(query: str, lookup: Callable[[list[str]], dict[str, int]], names_of: Callable[[Sequence[int]], list[str]],
          node_vectors: np.ndarray | None, qvec: np.ndarray | None, k_fallback: int) -> Linked:
    spans = [(i, j, s, p) for i, j, s, p in _spans(query) if s and len(s) >= 2]
    names = lookup(list(dict.fromkeys(s for _, _, s, _ in spans)))
    hits = [(i, j, s, p) for i, j, s, p in spans if s in names]
    if any(p for *_, p in hits):
        hits = [h for h in hits if h[3]]
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    taken: list[tuple[int, int, str, bool]] = []
    for h in hits:
        if all(h[1] <= t[0] or h[0] >= t[1] for t in taken):
            taken.append(h)
    taken.sort(key=lambda h: h[0])
    nodes = tuple(dict.fromkeys(names[s] for _, _, s, _ in taken))
    if nodes:
        return Linked(nodes, tuple(names_of(nodes)), "string match")
    if node_vectors is not None and qvec is not None and len(node_vectors):
        sims = node_vectors @ np.asarray(qvec, dtype=np.float32).reshape(-1)
        top = np.argsort(-sims, kind="stable")[:k_fallback]
        _, top = pin_search("reg.link.nearest_nodes", sims[top], top)  # the choice, not every node's cosine
        nodes = tuple(int(v) for v in top)
        return Linked(nodes, tuple(names_of(nodes)), "embedding",
                      f"no node name occurs in the question; took the {len(nodes)} nodes nearest to the question embedding")
    return Linked((), (), "none", "no node name occurs in the question and no embeddings were given")


def link_answers(answers: Sequence[str], graph: KnowledgeGraph, *, embedder: Embedder | None = None,
                 node_vectors: np.ndarray | None = None, min_cosine: float = 0.85) -> Linked:
    """Link answer strings (answer + aliases) to KG nodes (see the module docstring)."""
    names = node_name_index(graph)
    keys = [normalize_name(a) for a in answers if a and normalize_name(a)]
    exact = [names[a] for a in keys if a in names]
    if exact:
        nodes = tuple(dict.fromkeys(exact))
        return Linked(nodes, tuple(graph.node_names[v] for v in nodes), "exact name")
    contain = []
    for a in keys:
        if len(a) < 4:
            continue
        pat = re.compile(r"(^|\W)" + re.escape(a) + r"($|\W)")
        contain += [i for n, i in names.items() if a in n and pat.search(n)]
        contain += [names[s] for *_, s, _ in _spans(a) if s in names and len(s) >= 4 and s != a]
    if contain:
        nodes = tuple(dict.fromkeys(contain))[:5]
        return Linked(nodes, tuple(graph.node_names[v] for v in nodes), "name containment")
    if embedder is not None and node_vectors is not None and keys and len(node_vectors):
        vec = embedder.embed([answers[0]])[0]
        sims = node_vectors @ np.asarray(vec, dtype=np.float32)
        best = int(np.argmax(sims))
        if float(sims[best]) >= min_cosine:
            return Linked((best,), (graph.node_names[best],), "embedding",
                          f"no exact name; nearest node by embedding (cosine {float(sims[best]):.2f})")
    return Linked((), (), "none", "the answer matches no node")
