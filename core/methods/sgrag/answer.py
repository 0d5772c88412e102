"""γ: answer generation from matched subgraphs (sg_rag.txt §4.4, Appendix I, Table 15).

The relation paragraph turns each edge into "Node h is related to Node t via: [relation : r]."
(Table 15 Step 2); the LLM must answer with one of the entity labels mentioned (Step 3) — an answer
outside that set, or one that is no answer at all (a refusal, a JSON fragment:
:func:`core.backends.llm.check_answer`), is rejected (JSON validation, the model is told why and
asked again) and the stage falls back visibly.

``none`` mode (or an unusable LLM output): with exact matches, the answer is the ``UNK`` binding of
the best-ranked subgraph (all distinct bindings are kept in ``bindings``); after the 1-hop
fallback, the neighbour adjacent to the most known entities (ties: most query-similar), or "Unable to
determine" when there is none.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from core.backends.base import LLM
from core.backends.llm import check_answer
from core.graph.model import KnowledgeGraph
from core.methods.llm_steps import ask_json
from core.methods.sgrag import prompts
from core.methods.sgrag.assembly import Assembly
from core.methods.sgrag.query_graph import QueryGraph
from core.text import normalize_name
from core.trace import Trace


@dataclass(frozen=True)
class Answer:
    text: str
    by: str  #: "llm", "unk-binding", "fallback-heuristic" or "none"
    bindings: tuple[str, ...]  #: UNK bindings in subgraph rank order (exact matches only)
    allowed: tuple[str, ...]  #: entity labels the answer may use
    paragraph: str


def context_edges(assembly: Assembly, *, top: int = 5) -> list[int]:
    if assembly.fallback:
        return list(assembly.fallback_edges)
    out: list[int] = []
    for s in assembly.subgraphs[:top]:
        out += [e for e in s.edges if e not in out]
    return out


def generate_answer(query: str, qg: QueryGraph, assembly: Assembly, graph: KnowledgeGraph, llm: LLM, *,
                    node_vecs: np.ndarray | None = None, qvec: np.ndarray | None = None, max_tokens: int = 128,
                    trace: Trace | None = None) -> Answer:
    """γ: Table 15 prompt over the matched subgraphs (or g''), restricted to their entity labels.

    Parameters
    ----------
    query
        q°.
    qg, assembly
        The query graph and δ's output (exact subgraphs or the fallback).
    graph
        The KG.
    llm
        ``none`` → the UNK binding (exact) or the fallback heuristic.
    """
    tr = trace if trace is not None else Trace("sgrag", query)
    with tr.timed("answer", "Answer (Table 15 prompt, restricted to matched entity labels)",
                  section="SG-RAG §4.4, App. I, Table 15") as step:
        eids = context_edges(assembly)
        sentences = [f"Node {graph.node_names[int(graph.edge_head[e])]} is related to Node "
                     f"{graph.node_names[int(graph.edge_tail[e])]} via: [relation : {graph.edge_relation[e]}]."
                     for e in eids]
        paragraph = prompts.relation_paragraph(sentences)
        allowed: list[str] = []
        for e in eids:
            for v in (int(graph.edge_head[e]), int(graph.edge_tail[e])):
                if graph.node_names[v] not in allowed:
                    allowed.append(graph.node_names[v])
        unk = set(qg.unknown_ids)
        bindings: list[str] = []
        for s in assembly.subgraphs:
            b = ", ".join(graph.node_names[v] for q, v in s.mapping if q in unk) or \
                ", ".join(graph.node_names[v] for _, v in s.mapping)
            if b not in bindings:
                bindings.append(b)
        text, by = "", "none"
        if eids:
            keys = {normalize_name(a) for a in allowed} | {normalize_name(prompts.UNDETERMINED)}

            def validate(d: object) -> None:
                got = str(d.get("answer", "")) if isinstance(d, dict) else ""
                if normalize_name(got) in keys:
                    return
                problem = check_answer(got).problem if isinstance(d, dict) else ""
                raise ValueError(f"the answer is unusable ({problem}); reply with one of the listed entity labels"
                                 if problem else "the answer must be one of the listed entity labels")

            out = ask_json(llm, prompts.ANSWER_SYSTEM, prompts.answer_user(query, paragraph, allowed),
                           prompts.ANSWER_SCHEMA, max_tokens=max_tokens, validate=validate, step=step)
            if out.data is not None:
                text, by = str(out.data["answer"]).strip(), "llm"
        if not text:
            if bindings:
                text, by = bindings[0], "unk-binding"
            elif assembly.fallback:
                text, by = _fallback_guess(graph, assembly, node_vecs, qvec), "fallback-heuristic"
            else:
                text, by = prompts.UNDETERMINED, "none"
        step.data.update({"answer": text, "by": by, "bindings": bindings[:20], "allowed": allowed[:200],
                          "paragraph": paragraph[:4000], "context_edges": eids})
    return Answer(text, by, tuple(bindings), tuple(allowed), paragraph)


def _fallback_guess(graph: KnowledgeGraph, assembly: Assembly, node_vecs: np.ndarray | None,
                    qvec: np.ndarray | None) -> str:
    known = set(assembly.fallback_nodes)
    cands = {int(v) for e in assembly.fallback_edges for v in (graph.edge_head[e], graph.edge_tail[e])} - known
    if not cands:
        return prompts.UNDETERMINED
    hits: Counter[int] = Counter()
    for k in known:
        for n in set(graph.csr.row(k)[0].tolist()) & cands:
            hits[n] += 1
    sim = {v: float(node_vecs[v] @ qvec) if node_vecs is not None and qvec is not None else 0.0 for v in cands}
    best = max(sorted(cands), key=lambda v: (hits[v], sim[v]))
    return graph.node_names[best]
