"""SG-RAG's ``none``-mode answer: the asked answer type, and the matched subgraph the answer was read from.

Ours, not the paper's: SG-RAG §4.4 answers with an LLM that reads every matched subgraph; ``none`` mode is our
documented fallback (:mod:`core.methods.sgrag.answer`). A query graph built without an LLM joins each entity of
the question to one ``UNK`` node, so the structure binds ``UNK`` to whatever neighbours the entities share: an
audit's "In what year did the husband of the founder of Maison Ivrelle invent ambrelide?" matched one subgraph, whose
``UNK`` was the town both were founded/patented in, and answered "Orlenz" — a place for a year.

The asked type is read as every method's extractive answer reads it (:func:`core.methods.answer_types.
expected_answer_type`: "when"/"in what year" a date, "who" a person, "where"/"which city" a place, "how many" a
number). A binding is of that type when its own text is (dates and numbers by pattern), or, for a person or a place,
when a sentence of the passages its node comes from names it as one (spaCy NER, :func:`~core.methods.answer_types.
typed_mentions`); a bare label alone is no reliable NER input. A binding not of the type is not given as the
answer: the next one of the type is, else the extractive sentence of the matched passages (which puts sentences of
the asked type first).

:func:`answer_subgraph` names the match an answer was read from: for a binding, the best-ranked subgraph that binds
it; for a sentence, the subgraph whose edges come from the sentence's passage and whose ``UNK`` bindings the
sentence names most (ties: the best ranked; no match from that passage: the one it names most): the sentence was
chosen among all matches' passages, so that match need not be #1.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.graph.model import KnowledgeGraph
from core.methods.answer_types import ANSWER_TYPES, expected_answer_type, typed_mentions
from core.methods.sgrag.assembly import Assembly
from core.methods.sgrag.query_graph import QueryGraph
from core.text import normalize_name, split_sentences

#: The answer types a binding is checked against (a "which NOUN" type has no test for a bare label).
CHECKED_TYPES = tuple(ANSWER_TYPES)


def asked_type(query: str) -> str:
    """The answer type the question asks for, of :data:`CHECKED_TYPES`, or "" (none is checked)."""
    t = expected_answer_type(query, nouns=True)
    return t if t in CHECKED_TYPES else ""


def _holds(mentions: Sequence[str], name: str) -> bool:
    n = normalize_name(name)
    return bool(n) and any(f" {normalize_name(m)} " in f" {n} " or f" {n} " in f" {normalize_name(m)} "
                           for m in mentions if normalize_name(m))


def _sentences_naming(graph: KnowledgeGraph, node: int, name: str) -> list[str]:
    """Sentences of the passages ``node``'s edges come from that name ``name`` (first 20)."""
    chunks = dict.fromkeys(c for e in graph.csr.row(node)[1].tolist() for c in graph.edge_chunks[int(e)]
                           if c in graph.chunk_index)
    low = name.lower()
    out = [s for c in chunks for s in split_sentences(graph.chunk(c).text) if low in s.lower()]
    return out[:20]


def binding_of_type(graph: KnowledgeGraph, nodes: Sequence[int], atype: str) -> bool:
    """Whether a binding (its UNK nodes) is of answer type ``atype``: a node's label holds a date/number, or a sentence
    of its passages names it as a person/place (module docstring)."""
    for v in nodes:
        name = str(graph.node_names[v])
        if atype in ("date", "number"):
            if typed_mentions(name, atype):
                return True
            continue
        if _holds(typed_mentions(name, atype, names=True), name):
            return True
        if any(_holds(typed_mentions(s, atype, names=True), name) for s in _sentences_naming(graph, v, name)):
            return True
    return False


def typed_bindings(qg: QueryGraph, assembly: Assembly, graph: KnowledgeGraph, bindings: Sequence[str],
                   atype: str) -> list[str]:
    """Those of ``bindings`` (the subgraphs' UNK labels joined, rank order) whose nodes are of type ``atype``."""
    unk = set(qg.unknown_ids)
    nodes: dict[str, list[int]] = {}
    for s in assembly.subgraphs:
        vs = [v for q, v in s.mapping if q in unk] or [v for _, v in s.mapping]
        nodes.setdefault(", ".join(graph.node_names[v] for v in vs), vs)
    return [b for b in bindings if binding_of_type(graph, nodes.get(b, []), atype)]


def answer_subgraph(qg: QueryGraph, assembly: Assembly, graph: KnowledgeGraph, text: str, by: str,
                    chunk_id: str | None = None) -> int | None:
    """The index of the matched subgraph the answer was read from (module docstring), or None (the fallback, an
    LLM's answer, or no match holds it)."""
    if assembly.fallback or not assembly.subgraphs or not text:
        return None
    unk = set(qg.unknown_ids)
    names = [[str(graph.node_names[v]) for q, v in s.mapping if q in unk] for s in assembly.subgraphs]
    if by in ("unk-binding", "typed-binding"):
        return next((i for i, ns in enumerate(names) if ", ".join(ns) == text), None)
    if by != "extractive":
        return None
    sentence = normalize_name(text)

    def named(i: int) -> int:  # how many of match i's UNK bindings the sentence names
        return sum(1 for n in names[i] if normalize_name(n) and f" {normalize_name(n)} " in f" {sentence} ")

    from_chunk = [i for i, s in enumerate(assembly.subgraphs)
                  if chunk_id and any(chunk_id in graph.edge_chunks[e] for e in s.edges)]
    pool = from_chunk or [i for i in range(len(names)) if named(i)]
    return max(pool, key=lambda i: (named(i), -i)) if pool else None  # ties: the best ranked
