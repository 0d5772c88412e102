"""§3.2: top-k candidate anchors per keyword over nodes AND enriched edges.

Each search term (specialized or relaxed keyword) is embedded and matched against both the node
index and the edge index ("head relation tail" texts, §3.1), and the k best of the union are kept
— so a relational keyword ("mother", "died in") can anchor on an edge. A term marked ``edges_only``
(`none` mode's verb keywords, see :mod:`.specialization`) searches the edges alone, and among its
4k nearest edges those whose relation label holds the verb ("died on" for "die") come first. An element retrieved by
several keywords appears once, remembering every keyword that found it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from core.backends.base import Embedder
from core.graph.reader import GraphLike, read_ahead
from core.index.workspace import Workspace
from core.methods.bubblerag import heuristics
from core.methods.bubblerag.specialization import SearchTerm
from core.pinning import pin_search
from core.trace import Step, Trace


@dataclass(frozen=True)
class Candidate:
    cid: str  #: short id used in prompts and the UI ("c1", "c2", ...)
    kind: str  #: "node" or "edge"
    index: int  #: node index or edge index in the graph
    text: str  #: node name or enriched edge text
    score: float  #: best cosine to any search term that found it
    keywords: tuple[str, ...]  #: original keywords whose search found it
    keyword_scores: tuple[float, ...] = ()  #: best cosine per keyword, aligned with ``keywords``

    @property
    def best_keyword(self) -> str:
        """The keyword this candidate matches best (ties: the first that found it)."""
        if not self.keyword_scores:
            return self.keywords[0]
        return self.keywords[max(range(len(self.keywords)), key=lambda i: (self.keyword_scores[i], -i))]


@dataclass(frozen=True)
class Candidates:
    items: tuple[Candidate, ...]
    terms: tuple[SearchTerm, ...]
    term_vectors: np.ndarray = field(repr=False)
    per_term: tuple[tuple[str, tuple[str, ...]], ...]  #: (search text, candidate ids) in rank order
    keyword_vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  #: original keywords

    def by_keyword(self, keyword: str) -> list[Candidate]:
        return [c for c in self.items if keyword in c.keywords]


def retrieve_candidates(terms: tuple[SearchTerm, ...], workspace: Workspace, embedder: Embedder, *, k: int = 5,
                        min_similarity: float = 0.0, trace: Trace | None = None,
                        graph: GraphLike | None = None) -> Candidates:
    """Top-``k`` of nodes ∪ edges for every search term (``graph``: the question's graph, default the
    workspace's; a store view reads only the candidates' names and edges)."""
    t0 = time.perf_counter()
    step = Step("candidates", "Candidate anchors per keyword (nodes and edges)", section="BubbleRAG §3.2")
    g = workspace.graph if graph is None else graph
    originals = list(dict.fromkeys(t.keyword for t in terms))
    all_vecs = embedder.embed([t.search for t in terms] + originals) if terms else np.zeros((0, embedder.dim), np.float32)
    vecs = all_vecs[:len(terms)]
    kw_vecs = {k: all_vecs[len(terms) + i] for i, k in enumerate(originals)}
    found: dict[tuple[str, int], dict] = {}
    order: list[tuple[str, int]] = []
    per_term: list[tuple[str, tuple[str, ...]]] = []
    for t, v in zip(terms, vecs):
        pool: list[tuple[float, str, int]] = []
        for kind, n in (("node", g.n_nodes), ("edge", g.n_edges)):
            if n and not (kind == "node" and t.edges_only):
                s, i = pin_search(f"bubblerag.candidates.{kind}_search", *workspace.index(
                    "nodes" if kind == "node" else "edges").search(v, k * 4 if t.edges_only else k), key=t.search)
                pool += [(float(a), kind, int(b)) for a, b in zip(s[0], i[0]) if int(b) >= 0]
        if t.edges_only:  # edges whose relation is the verb ("died on" for "die") first, then by cosine
            read_ahead(g, edges=[x[2] for x in pool if x[1] == "edge"])
            pool.sort(key=lambda x: (not heuristics.relation_matches(t.keyword, g.edge_relation[x[2]]), -x[0], x[2]))
        else:
            pool.sort(key=lambda x: (-x[0], x[1], x[2]))
        keys = []
        for score, kind, idx in pool[:k]:
            if score < min_similarity:
                continue
            key = (kind, idx)
            if key not in found:
                found[key] = {"score": score, "keywords": {t.keyword: score}}
                order.append(key)
            else:
                found[key]["score"] = max(found[key]["score"], score)
                kw = found[key]["keywords"]
                kw[t.keyword] = max(kw.get(t.keyword, -1.0), score)
            keys.append(key)
        per_term.append((t.search, tuple(f"c{order.index(key) + 1}" for key in keys)))
    read_ahead(g, names=[i for kind, i in order if kind == "node"], edges=[i for kind, i in order if kind == "edge"])
    items = tuple(
        Candidate(f"c{n + 1}", kind, idx, g.node_names[idx] if kind == "node" else g.edge_text(idx),
                  found[(kind, idx)]["score"], tuple(found[(kind, idx)]["keywords"]),
                  tuple(found[(kind, idx)]["keywords"].values()))
        for n, (kind, idx) in enumerate(order))
    step.data = {
        "k": k,
        "terms": [{"keyword": t.keyword, "search": t.search, "specialized": t.specialized,
                   "relaxed_from": t.relaxed_from, "edges_only": t.edges_only, "candidates": list(ids)} for t, (_, ids) in zip(terms, per_term)],
        "candidates": [{"cid": c.cid, "kind": c.kind, "index": c.index, "text": c.text, "score": round(c.score, 4),
                        "keywords": list(c.keywords)} for c in items],
    }
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return Candidates(items, terms, np.asarray(vecs, dtype=np.float32), tuple(per_term), kw_vecs)
