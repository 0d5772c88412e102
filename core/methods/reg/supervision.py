"""Weak vs LLM-refined supervision for one question (ReG §4.1 end to end: D.1 → D.2 → D.3).

Questions come with answers (and, for MuSiQue, a ``question_decomposition``). Query entities are
linked from the question and from each decomposition sub-question (with the ``#k`` references
removed); answer entities from the answer and its aliases (:mod:`.linking`).

* **weak** labels — the triples on query→answer shortest paths (all answers, uncompressed);
* **refined** labels — the triples of the candidates the LLM selected from the compressed pool; when
  the LLM is absent or its output unusable, the question keeps the weak labels and the selection
  says so (``selection.mode == "weak"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputFormatError
from core.methods.evidence.linking import Linked, link_answers, link_query_entities
from core.methods.reg.candidates import CandidatePool, candidate_pool
from core.methods.reg.compression import Compression, compress
from core.methods.reg.selection import SelectHow, Selection, select_candidates

if TYPE_CHECKING:
    import numpy as np

    from core.backends.base import LLM, Embedder
    from core.graph.model import KnowledgeGraph
    from core.index.questions import ChunkTable
    from core.trace import Trace


@dataclass(frozen=True)
class QAItem:
    qid: str
    question: str
    answers: tuple[str, ...]  #: answer first, then aliases
    gold_chunks: tuple[str, ...] = ()
    sub_questions: tuple[str, ...] = ()


def load_qa(path: str | Path, graph: KnowledgeGraph | ChunkTable) -> list[QAItem]:
    """Questions with answers from a JSON list (MuSiQue / HippoRAG format, or ``{question, answer(s)}``).

    Gold chunks are matched with :func:`core.index.questions.parse_questions` when the records carry
    ``paragraphs`` / ``supporting_facts`` / ``ground_truth`` (titles: the form the app documents for a user's own
    questions; left out, an upload's held-out gold-passage recall was "n/a" with its gold passages in the workspace).

    Raises
    ------
    InputFormatError
        If the file is not a JSON list of objects with a ``question`` and an ``answer``/``answers``.
    """
    from core.graph.formats.jsonio import parse_json
    from core.graph.formats.textio import read_text

    p = Path(path)
    data = parse_json(read_text(p), p.name, expected="a JSON list of questions with answers")
    if not isinstance(data, list):
        raise InputFormatError(p.name, "the top level is not a list", "a JSON list of questions with answers")
    gold: dict[int, tuple[str, ...]] = {}
    if data and isinstance(data[0], dict) and any(k in data[0] for k in ("paragraphs", "supporting_facts", "ground_truth")):
        from core.index.questions import parse_questions

        gold = {i: q.gold_chunks for i, q in enumerate(parse_questions(data, graph, source=p.name))}
    out = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict) or not isinstance(rec.get("question"), str):
            raise InputFormatError(p.name, 'a record has no "question" string', '{"question": ..., "answer": ...}',
                                   record=i + 1)
        ans = rec.get("answers", rec.get("answer"))
        answers = [str(a) for a in ans] if isinstance(ans, list) else ([str(ans)] if ans not in (None, "") else [])
        answers += [str(a) for a in rec.get("answer_aliases", []) or []]
        if not answers:
            raise InputFormatError(p.name, 'a record has no "answer"', 'an "answer" (or "answers" list) per question',
                                   record=i + 1)
        subs = tuple(re.sub(r"#\d+", " ", str(d.get("question", ""))).strip()
                     for d in rec.get("question_decomposition", []) or [] if isinstance(d, dict))
        out.append(QAItem(str(rec.get("id", rec.get("_id", i + 1))), rec["question"],
                          tuple(dict.fromkeys(answers)), gold.get(i, ()), subs))
    return out


@dataclass(frozen=True)
class Supervision:
    item: QAItem
    query: Linked
    answer: Linked
    pool: CandidatePool
    compression: Compression
    selection: Selection

    @property
    def weak(self) -> tuple[int, ...]:
        return self.pool.shortest_edges

    @property
    def refined(self) -> tuple[int, ...]:
        return self.selection.edges

    def to_dict(self) -> dict[str, Any]:
        """The cacheable part (what an LLM call produced)."""
        s = self.selection
        return {"mode": s.mode, "how": s.how, "selected": list(s.selected), "edges": list(s.edges),
                "explanation": s.explanation, "fallback": s.fallback, "prompt_tokens": s.prompt_tokens,
                "completion_tokens": s.completion_tokens}


def link_item(item: QAItem, graph: KnowledgeGraph, *, embedder: Embedder | None = None,
              node_vectors: np.ndarray | None = None) -> tuple[Linked, Linked]:
    """Query entities (question + sub-questions, by name) and answer entities of ``item``."""
    names: list[int] = []
    for text in (item.question, *item.sub_questions):
        names += link_query_entities(text, graph).nodes
    nodes = tuple(dict.fromkeys(names))
    q = Linked(nodes, tuple(graph.node_names[v] for v in nodes), "string match" if nodes else "none",
               "" if nodes else "no node name occurs in the question or its decomposition")
    a = link_answers(item.answers, graph, embedder=embedder, node_vectors=node_vectors)
    return q, a


def build_supervision(item: QAItem, graph: KnowledgeGraph, llm: LLM, *, embedder: Embedder | None = None,
                      node_vectors: np.ndarray | None = None, refine: bool = True, max_len: int = 4,
                      how: SelectHow = "one-shot", cached: dict[str, Any] | None = None,
                      trace: Trace | None = None) -> Supervision:
    """Candidate pool → compression → selection for one question (ReG §4.1).

    ``refine=False`` (or ``none`` LLM) yields the weak signal only; so does a question whose answer is
    not reachable within ``max_len`` hops (ReG's datasets drop such questions; the LLM is not asked). ``how`` —
    App. F's one-shot prompt or the stepwise choices (:mod:`.selection`). ``cached`` — a previous
    :meth:`Supervision.to_dict` for the same question — replaces the LLM call.
    """
    q, a = link_item(item, graph, embedder=embedder, node_vectors=node_vectors)
    pool = candidate_pool(graph, q.nodes, a.nodes, max_len=max_len, trace=trace)
    comp = compress(pool, graph, trace=trace)
    weak = pool.shortest_edges
    if cached is not None:
        sel = Selection(cached["mode"], tuple(cached["selected"]), tuple(cached["edges"]), weak,
                        cached.get("explanation", ""), cached.get("fallback", ""), "",
                        int(cached.get("prompt_tokens", 0)), int(cached.get("completion_tokens", 0)),
                        str(cached.get("how", "one-shot")))
    elif not refine or not weak:
        from core.methods.reg.selection import WEAK_LABEL

        why = ("refinement not requested" if not refine else
               f"no query→answer path within {max_len} hops (answer not linked or not connected); nothing to refine")
        sel = Selection("weak", (), weak, weak, fallback=f"{why}; {WEAK_LABEL}")
    else:
        sel = select_candidates(item.question, item.answers[:1], comp, pool, graph, llm, how=how, trace=trace)
    return Supervision(item, q, a, pool, comp, sel)
