"""ψ, part 1: query → query graph q* with ``UNK`` for the asked-for node (sg_rag.txt §4.3, App. D,
Table 12).

With an LLM, the Table 12 prompt is sent with a JSON schema. In ``none`` mode (or when the LLM's
output is unusable) a documented heuristic builds the *bridge-star* shape of the paper's ERQA
questions (App. G): the entities mentioned in the question, each linked to one ``UNK`` node::

    entity_1 ─┐
    entity_2 ─┼─ UNK
    entity_3 ─┘

A question that names one entity is a *bridge chain* instead (``bridge_hops``, 2 by default):
``entity ─ UNK ─ UNK``, the target behind a bridge node ("Who built the ferry that Mattias Venn captained?"
asks past the ferry). A one-edge star matched every neighbour of the entity, so its subgraphs held only the
entity's own passages, never the bridge's (MuSiQue, 100 questions: R@5 +5.7 points, benchmarks/README.md).
The pipeline matches the chain with l = d_q (:func:`core.methods.sgrag.pipeline.chain_l`).

Mentions are found through the workspace's node name index (quoted spans when the question has
any, else the longest word n-grams whose normalized text is a node name; a possessive "'s" is no part of
a name, so "Lothair II's mother" links "Lothair II"; a lower-case kind the question writes as a
description, "the country Signmark is from", is not linked), so the heuristic only proposes entities the
graph knows; normalization (Alg. 3) then maps them by FAISS like any LLM-extracted label.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from core.backends.base import LLM
from core.graph.model import KnowledgeGraph
from core.methods.llm_steps import ask_json
from core.methods.sgrag import prompts
from core.methods.sgrag.stages import QueryGraphData
from core.text import STOPWORDS, normalize_name
from core.trace import Trace

UNK = "UNK"
_WORD = re.compile(r"[\w][\w\-\.'’&/]*")
_QUOTED = re.compile(r"[\"“”]([^\"“”]{1,120})[\"“”]")
_POSSESSIVE = re.compile(r"(\w)['’]s\b")


@dataclass(frozen=True)
class QNode:
    id: str
    label: str
    description: str = ""

    @property
    def unknown(self) -> bool:
        return self.label.strip().upper() == UNK


@dataclass(frozen=True)
class QueryGraph:
    """A query graph: nodes (``UNK`` label = target) and undirected edges between node ids."""

    nodes: tuple[QNode, ...]
    edges: tuple[tuple[str, str], ...]
    by: str = "heuristic"  #: "llm" or "heuristic"

    def node(self, qid: str) -> QNode:
        return next(n for n in self.nodes if n.id == qid)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)

    @property
    def unknown_ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes if n.unknown)

    def neighbors(self, qid: str) -> list[str]:
        out = [b for a, b in self.edges if a == qid] + [a for a, b in self.edges if b == qid]
        return sorted(set(out), key=self.ids.index)

    def degree(self, qid: str) -> int:
        return len(self.neighbors(qid))

    def diameter(self) -> int:
        """d_q: the longest shortest path (in edges) between two nodes of a connected part."""
        best = 0
        for s in self.ids:
            dist = {s: 0}
            frontier = [s]
            while frontier:
                nxt = []
                for u in frontier:
                    for v in self.neighbors(u):
                        if v not in dist:
                            dist[v] = dist[u] + 1
                            nxt.append(v)
                frontier = nxt
            best = max(best, max(dist.values()))
        return best

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": [{"id": n.id, "label": n.label, "description": n.description, "unknown": n.unknown}
                          for n in self.nodes], "edges": [list(e) for e in self.edges], "by": self.by}


def bridge_star(entities: list[str], *, hops: int = 1) -> QueryGraph:
    """The ``none``-mode shape: every entity joined to one ``UNK`` node (ids ``q0`` = UNK, ``q1``...).

    ``hops`` > 1 with one entity: a chain entity — UNK — … — UNK of that many edges (the bridge nodes ``q2``…
    are UNK too, the target ``q0`` at the far end), for a question that names one entity and describes the
    rest ("Who built the ferry that Mattias Venn captained?")."""
    nodes = [QNode("q0", UNK, "the asked-for entity")] + [QNode(f"q{i + 1}", e) for i, e in enumerate(entities)]
    if len(entities) == 1 and hops > 1:
        chain = ["q1"] + [f"q{i + 2}" for i in range(hops - 1)] + ["q0"]
        nodes += [QNode(q, UNK, "a bridge entity") for q in chain[1:-1]]
        return QueryGraph(tuple(nodes), tuple(pairwise(chain)), by="heuristic")
    return QueryGraph(tuple(nodes), tuple(("q0", n.id) for n in nodes[1:]), by="heuristic")


def possessive_relations(query: str, mentions: list[str]) -> dict[str, str]:
    """Mention → relation noun for each "Mention's noun" of ``query`` ("Lothair II's mother" → "mother").

    The bridge star has no place for such a relation (its edges carry no labels, and a chain through a
    second unknown node floods label completion in ``none`` mode); the trace and the page name it, because
    the answer is then a neighbour of the entity rather than of the entity's mother.
    """
    out: dict[str, str] = {}
    for m in mentions:
        hit = re.search(re.escape(m) + r"['’]s\s+([a-z]+)\b", query, flags=re.I)
        if hit and hit.group(1).lower() not in STOPWORDS:
            out[m] = hit.group(1).lower()
    return out


def link_mentions(query: str, graph: KnowledgeGraph, *, max_words: int = 8) -> list[str]:
    """Entity names of ``graph`` mentioned in ``query``: quoted spans, else longest n-gram name matches.

    When the question quotes names (as ERQA template questions do), only the quoted spans are
    used: words around them ("(film release region)") would otherwise link generic nodes such as
    "Film" or "Country" and add constraints the question does not make. A span made only of stop words, or shorter than 2 characters, is never linked (so "the", "is"
    or "a" never become query entities even when a graph has such a node).
    """
    names = graph._name_index
    found: list[str] = []
    seen: set[str] = set()
    text = query
    for m in _QUOTED.finditer(query):
        key = normalize_name(m.group(1))
        if key and key not in seen:
            seen.add(key)
            found.append(graph.node_names[names[key][0]] if key in names else m.group(1).strip())
        text = text.replace(m.group(0), " | ")
    if found:  # the question quotes its entities: trust that markup, not loose word matches around it
        return found
    # no quotes, so text == query here; the possessive is blanked with the offsets kept, so a span can be
    # read both ways below
    text = _POSSESSIVE.sub(r"\1  ", text)  # "Lothair II's mother" → "Lothair II   mother" (same offsets)
    words = [(m.group(0), m.start()) for m in _WORD.finditer(text)]
    used = [False] * len(words)
    for n in range(min(max_words, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if any(used[i:i + n]):
                continue
            span = words[i:i + n]
            start, end = span[0][1], span[-1][1] + len(span[-1][0])
            key = normalize_name(query[start:end])  # "Schindler's List" is a name as written
            if key not in names:
                key = normalize_name(text[start:end])  # "Lothair II's mother": the possessive dropped
            if len(key) < 2 or all(w.lower() in STOPWORDS for w, _ in span) or key in seen:
                continue
            if key in names:
                seen.add(key)
                found.append(graph.node_names[names[key][0]])
                for j in range(i, i + n):
                    used[j] = True
    return found


def extract_query_graph(query: str, graph: KnowledgeGraph, llm: LLM, *, trace: Trace | None = None,
                        bridge_hops: int = 1) -> QueryGraph:
    """ψ: build the query graph q* (Table 12); heuristic bridge star when the LLM is absent or unusable.

    Parameters
    ----------
    query
        The natural-language question q°.
    graph
        The knowledge graph (its name index links mentions in ``none`` mode).
    llm
        The LLM backend (``none`` → heuristic, recorded as a fallback).

    Returns
    -------
    QueryGraph
    """
    tr = trace if trace is not None else Trace("sgrag", query)
    with tr.timed("query_graph", "Query graph q* (UNK = asked-for node)", section="SG-RAG §4.3, App. D, Table 12") as step:
        out = ask_json(llm, prompts.QUERY_GRAPH_SYSTEM, prompts.query_graph_user(query), prompts.QUERY_GRAPH_SCHEMA,
                       max_tokens=QUERY_GRAPH_MAX_TOKENS, validate=_validate, step=step, parse=parse_hash_format)
        qg = _from_llm(out.data) if out.data is not None else None
        described: list[str] = []
        merged: list[list[str]] = []
        kinds: list[str] = []
        rejected: dict[str, Any] | None = None
        heuristic: str | None = None
        limitation: str | None = None
        mentions: list[str] | None = None
        rels: dict[str, str] | None = None
        if qg is not None:
            qg, described = unk_described(qg, graph._name_index, query)
            qg, merged = merge_repeated_unknowns(qg)
            why = query_graph_problem(qg, query)
            if why:
                step.fallback = f"check failed: {why}; used the `none`-mode bridge star"
                rejected = qg.to_dict()
                qg = None
        if qg is None:
            mentions = link_mentions(query, graph)
            kinds = [m for m in mentions if _written_kind(m, query)]
            if kinds:  # Table 12's rule here too: "the country" describes the asked-for entity, names no node
                mentions = [m for m in mentions if m not in kinds]
            rels = possessive_relations(query, mentions)
            qg = bridge_star(mentions, hops=bridge_hops)
            step.fallback = step.fallback or "LLM query graph unusable"
            chain = len(mentions) == 1 and bridge_hops > 1
            heuristic = (f"bridge chain: the one entity the question mentions (linked through the node name index), "
                         f"{bridge_hops} hops from UNK through UNK bridge nodes" if chain else
                         "bridge star: entities mentioned in the question (linked through the node "
                         "name index) each joined to one UNK node")
            if rels:
                asks = "the question asks about " + ", ".join(f"{m}'s {r}" for m, r in rels.items())
                limitation = (
                    asks + ", a relation the chain's unlabelled edges cannot say without an LLM: its bridge is any "
                    "neighbour of " + ", ".join(rels) + ", the one whose subgraph ranks best" if chain else
                    asks + ", a relation the bridge star cannot express without an LLM: UNK is matched among the "
                    "neighbours of " + ", ".join(rels) + ", so the answer may be about the entity itself")
        step.data = QueryGraphData(
            qg.to_dict(), described_as_unk=described or None, merged_unknowns=merged or None,
            described_not_linked=kinds or None, rejected=rejected, heuristic=heuristic, mentions=mentions,
            possessives=rels, limitation=limitation).data()
    return qg


#: Table 12's reply at the schema's bounds (12 nodes with short labels and descriptions, 16 edges) fits: about
#: 40 tokens a node and 10 an edge
QUERY_GRAPH_MAX_TOKENS = 640


_ARTICLE = re.compile(r"^(the|a|an|its|his|her|their)\s+", re.I)
#: "what currency", "which county": a kind the question asks about
_WH = frozenset("what which whose".split())
#: "the country where", "the author of Brand", "the country Signmark is from": a kind narrowed down by what
#: follows it, i.e. a description of one entity (Table 12 wants it UNK); "the immune system" alone names one
_DETERMINERS = frozenset("the a an this that these those its his her their".split())
_RESTRICTIVE = frozenset("of where which that who whom whose when in on at from with by for".split())


def _names_nothing(label: str) -> bool:
    """No capitalised word or digit once a leading article is dropped: a kind ("movie"), not a name."""
    return not any(c.isupper() or c.isdigit() for c in _ARTICLE.sub("", label.strip()))


def _written_kind(name: str, query: str) -> bool:
    """Whether ``query`` writes the node name ``name`` in lower case as a description (below), e.g. "the
    bone formation in the knee" for the node "Bone formation"."""
    if any(normalize_name(m.group(1)) == normalize_name(name) for m in _QUOTED.finditer(query)):
        return False  # quoted: the question marks it as a name
    hit = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", query, flags=re.I)
    return hit is not None and _names_nothing(hit.group(0)) and _written_as_description(hit.group(0), query)


def _written_as_description(label: str, query: str) -> bool:
    """Whether ``query`` writes ``label`` as a description of one entity: after "what" / "which" /
    "whose" ("What currency predated the Euro"), or after a determiner and followed by what narrows it
    down ("the country Signmark is from", "the author of Brand", "the usual average snowfall in the
    city"), with at most two other content words between the determiner and the label. "Rugby union" in
    "an international in rugby union" and "the immune system?" are names, not descriptions."""
    words = _WORD.findall(_POSSESSIVE.sub(r"\1", query))
    low = [w.lower() for w in words]
    target = [w.lower() for w in _WORD.findall(label)]
    if not target:
        return False
    for i in range(len(low) - len(target) + 1):
        if low[i:i + len(target)] != target:
            continue
        after = words[i + len(target)] if i + len(target) < len(words) else ""
        narrowed = after.lower() in _RESTRICTIVE or after[:1].isupper()
        for back in range(1, 4):  # the determiner itself, then up to two content words between
            j = i - back
            if j < 0:
                break
            if low[j] in _WH or (low[j] in _DETERMINERS and narrowed):
                return True
            if low[j] in STOPWORDS:
                break
    return False


def unk_described(qg: QueryGraph, names: Container[str], query: str = "") -> tuple[QueryGraph, list[str]]:
    """Table 12's rule that an entity the question only describes is ``UNK``, applied to the reply: a
    label with no capitalised word or digit once a leading article is dropped ("The movie", "his
    mother") names nothing, so it becomes ``UNK`` with the label kept as its description, unless
    ``names`` (the graph's normalized node names) has exactly that name and ``query`` does not write it
    as a description (:func:`_written_as_description`). A 1.5B model often writes the description as the
    label, which normalization (Alg. 3) would then map to whatever node is nearest to "movie"; and an
    OpenIE graph has nodes named "country" or "author", to which "the country Signmark is from" must not
    be mapped.

    >>> qg = QueryGraph((QNode("q1", "Keanu Reeves"), QNode("q2", "The movie")), (("q1", "q2"),), by="llm")
    >>> [n.label for n in unk_described(qg, set())[0].nodes]
    ['Keanu Reeves', 'UNK']
    >>> qg = QueryGraph((QNode("q1", "Signmark"), QNode("q2", "country")), (("q1", "q2"),), by="llm")
    >>> [n.label for n in unk_described(qg, {"country"}, "Which country is Signmark from?")[0].nodes]
    ['Signmark', 'UNK']
    """
    out, changed = [], []
    for n in qg.nodes:
        rest = _ARTICLE.sub("", n.label.strip())
        if (not n.unknown and _names_nothing(rest)
                and (normalize_name(n.label) not in names or _written_as_description(rest, query))):
            changed.append(n.label)
            n = QNode(n.id, UNK, ": ".join(x for x in (n.label, n.description) if x))
        out.append(n)
    return (QueryGraph(tuple(out), qg.edges, qg.by), changed) if changed else (qg, [])


def merge_repeated_unknowns(qg: QueryGraph) -> tuple[QueryGraph, list[list[str]]]:
    """``UNK`` leaves on the same single node, merged into one (the first; descriptions joined).

    Subgraph matching is injective (§4.4: the match is isomorphic to q), so k ``UNK`` leaves on a node ask
    for k *distinct* unknown neighbours of it, which no question of one asked-for entity means: a 1.5B
    model lists the target several times ("the company", "the year", "the year the company dissolved"
    all hung on Novair International Airways), and the match then needs a KG node of degree k there.
    Leaves on different nodes, or an ``UNK`` with two neighbours, are left as they are.

    >>> qg = QueryGraph((QNode("q1", "Novair"), QNode("q2", "UNK", "company"), QNode("q3", "UNK", "year")),
    ...                 (("q1", "q2"), ("q1", "q3")), by="llm")
    >>> out, merged = merge_repeated_unknowns(qg)
    >>> out.ids, out.edges, merged
    (('q1', 'q2'), (('q1', 'q2'),), [['q2', 'q3']])
    """
    groups: dict[str, list[str]] = {}
    for n in qg.nodes:
        if n.unknown and qg.degree(n.id) == 1:
            groups.setdefault(qg.neighbors(n.id)[0], []).append(n.id)
    merged = [ids for ids in groups.values() if len(ids) > 1]
    if not merged:
        return qg, []
    drop = {q for ids in merged for q in ids[1:]}
    keep_desc = {ids[0]: "; ".join(dict.fromkeys(d for q in ids if (d := qg.node(q).description))) for ids in merged}
    nodes = tuple(QNode(n.id, n.label, keep_desc.get(n.id, n.description)) for n in qg.nodes if n.id not in drop)
    edges = tuple(e for e in qg.edges if not (set(e) & drop))
    return QueryGraph(nodes, edges, qg.by), merged


def query_graph_size_problem(data: Any) -> str:
    """Why a Table 12 reply is larger than a query graph may be ("" when it is not): more than
    :data:`~core.methods.sgrag.prompts.MAX_QUERY_NODES` nodes or
    :data:`~core.methods.sgrag.prompts.MAX_QUERY_EDGES` edges (a runaway reply, not a question).

    >>> query_graph_size_problem({"nodes": [{"id": f"q{i}", "label": "x"} for i in range(13)], "edges": []})
    'the query graph has 13 nodes, more than the 12 a question may have; reply with the entities of the question only'
    """
    if not isinstance(data, dict):
        return ""
    for key, bound in (("nodes", prompts.MAX_QUERY_NODES), ("edges", prompts.MAX_QUERY_EDGES)):
        items = data.get(key)
        if isinstance(items, list) and len(items) > bound:
            return (f"the query graph has {len(items)} {key}, more than the {bound} a question may have; reply "
                    "with the entities of the question only")
    return ""


def _validate(data: Any) -> None:
    too_big = query_graph_size_problem(data)
    if too_big:
        raise ValueError(too_big)
    if _from_llm(data) is None:
        raise ValueError("the query graph needs ≥ 1 node and edges between listed node ids")


def query_graph_problem(qg: QueryGraph, query: str) -> str:
    """Why an LLM's query graph cannot be matched as the question's ("" when it can): it must have an
    ``UNK`` node (Table 12: the target), every node on an edge, and every other label written in the
    question (a label the question does not write is the model's guess of an answer, which normalization
    would then map to a node as if the question named it).

    >>> q = "When did Lothair II's mother die?"
    >>> query_graph_problem(QueryGraph((QNode("q1", "Lothair II"), QNode("q2", "UNK")), (("q1", "q2"),)), q)
    ''
    >>> query_graph_problem(QueryGraph((QNode("q1", "Ermengarde of Tours"), QNode("q2", "UNK")), (("q1", "q2"),)), q)
    "the label 'Ermengarde of Tours' is not written in the question"
    """
    if not qg.unknown_ids:
        return "no node is UNK (the asked-for target)"
    if len(qg.unknown_ids) == len(qg.nodes):
        return "every node is UNK (no entity of the question anchors the match)"
    on_edge = {a for e in qg.edges for a in e}
    lonely = [n.label for n in qg.nodes if n.id not in on_edge]
    if lonely:
        return f"{', '.join(map(repr, lonely))} is on no edge"
    text = normalize_name(_POSSESSIVE.sub(r"\1", query))
    for n in qg.nodes:
        if not n.unknown and normalize_name(_POSSESSIVE.sub(r"\1", n.label)) not in text:
            return f"the label {n.label!r} is not written in the question"
    return ""


_HASH_NODE = re.compile(r"^\s*<?(q\d+)>?\s*<([^<>]*)>\s*(?:<([^<>]*)>)?\s*$|^\s*(q\d+)\s+(.+?)\s*$", re.I)
_HASH_EDGE = re.compile(r"^\s*<?(e\d+)>?\s*<?(q\d+)>?\s*<?(q\d+)>?\s*$", re.I)


def parse_hash_format(text: str) -> dict[str, Any] | None:
    """Table 12's own output format, ``<id><label><description>`` nodes and ``<edge id><q_i><q_j>`` edges
    separated by ``#`` and ended by ``<COMPLETE>``, as the JSON the schema describes (None when ``text``
    is not in that format): what a backend without constrained decoding may return.

    >>> parse_hash_format("<q1><Lothair II><king> # <q2><UNK><> # <e1><q1><q2> # <COMPLETE>")["edges"]
    [{'source': 'q1', 'target': 'q2'}]
    """
    if "#" not in text:
        return None
    nodes: list[dict[str, str]] = []
    edges: list[dict[str, str]] = []
    for part in text.replace("\n", "#").split("#"):
        part = part.strip()
        if not part or part.upper().strip("<>⟨⟩ $\\").startswith("COMPLETE"):
            continue
        e = _HASH_EDGE.match(part)
        if e:
            edges.append({"source": e.group(2).lower(), "target": e.group(3).lower()})
            continue
        n = _HASH_NODE.match(part)
        if n:
            qid = (n.group(1) or n.group(4)).lower()
            nodes.append({"id": qid, "label": (n.group(2) or n.group(5) or "").strip(),
                          "description": (n.group(3) or "").strip()})
    return {"nodes": nodes, "edges": edges} if nodes and edges else None


def _from_llm(data: Any) -> QueryGraph | None:
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) or not data["nodes"]:
        return None
    nodes: list[QNode] = []
    for n in data["nodes"]:
        if not isinstance(n, dict) or not str(n.get("id", "")).strip() or not str(n.get("label", "")).strip():
            return None
        nodes.append(QNode(str(n["id"]).strip(), str(n["label"]).strip(), str(n.get("description", "") or "")))
    ids = {n.id for n in nodes}
    if len(ids) != len(nodes):
        return None
    edges: list[tuple[str, str]] = []
    for e in data.get("edges") or []:
        if not isinstance(e, dict):
            return None
        a, b = str(e.get("source", "")).strip(), str(e.get("target", "")).strip()
        if a not in ids or b not in ids:
            return None
        if a != b and (a, b) not in edges and (b, a) not in edges:
            edges.append((a, b))
    return QueryGraph(tuple(nodes), tuple(edges), by="llm")
