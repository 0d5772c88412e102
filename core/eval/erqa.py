"""ERQA-style multi-constraint questions from a KG by the bridge-star construction (sg_rag.txt §5.1,
Appendix G, Table 16 / Appendix J).

A *bridge-star subgraph* is a pair of star nodes (s, s') that share bridge nodes (common
neighbours). The question hides the star s (the gold answer) and names some of its *unique*
neighbours (adjacent to s, not to s') and the bridge nodes; s' is the plausible distractor that
satisfies the bridges but not the unique constraints (App. G, Fig. 7: Magnesium vs Zinc).

Decisions where the paper is open (each a parameter):

* stars are drawn from nodes with degree ≥ ``min_degree``; a question has ``n_bridge`` bridges and
  ``n_unique`` unique neighbours (defaults 1-2 each);
* constraints are added until s is the only common neighbour of all constraint entities, so the
  question has one gold answer (``max_answers`` relaxes this); a candidate that stays ambiguous after
  ``max_constraints`` is skipped. The gold answer list is computed from the KG (every node adjacent to all constraints), so it is
  correct by construction;
* entities whose name another node shares are never used (a question could not tell them apart);
* ``none`` mode: the Table 16 template filled in English —
  ``Which entity is related to "A" (relation), "B" (relation), and also "C" (relation)?`` — names
  are quoted so text-only linkers can find them; an LLM (optional) polishes it into one fluent
  sentence (Table 16 Step 2, in English), falling back to the template when its output drops an
  entity name.

Records are HotpotQA-like (``question``, ``answer`` list: gold first, ``supporting_facts`` with the
answer's and the constraints' names as titles) plus ``gold_triples``, ``query_entities``,
``distractor`` and ``bridges``/``unique``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import ConfigError, EmptyGraphError
from core.graph.model import KnowledgeGraph
from core.text import normalize_name

CORE_TYPE = "entity"


@dataclass(frozen=True)
class ERQAQuestion:
    id: str
    question: str
    answers: tuple[str, ...]  #: every node adjacent to all constraints (the hidden star first)
    star: str
    distractor: str
    bridges: tuple[str, ...]
    unique: tuple[str, ...]
    gold_triples: tuple[tuple[str, str, str], ...]
    polished: bool = False

    @property
    def query_entities(self) -> tuple[str, ...]:
        return self.unique + self.bridges

    def to_record(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "answer": list(self.answers),
                "supporting_facts": [[self.star, 0]] + [[e, 0] for e in self.query_entities],
                "gold_triples": [list(t) for t in self.gold_triples], "query_entities": list(self.query_entities),
                "star": self.star, "distractor": self.distractor, "bridges": list(self.bridges),
                "unique": list(self.unique), "type": "bridge-star", "polished": self.polished}


def _relation(graph: KnowledgeGraph, a: int, b: int) -> tuple[str, str, str]:
    """One triple joining a and b (as stored, head first), shortest relation text first."""
    nbr, eid = graph.csr.row(a)
    es = sorted((int(e) for n, e in zip(nbr.tolist(), eid.tolist()) if n == b),
                key=lambda e: (len(graph.edge_relation[e]), e))
    e = es[0]
    return (graph.node_names[int(graph.edge_head[e])], graph.edge_relation[e], graph.node_names[int(graph.edge_tail[e])])


def _desc(name: str, triple: tuple[str, str, str]) -> str:
    rel = triple[1].strip()
    if len(rel) > 60:
        rel = rel[:57].rsplit(" ", 1)[0] + "..."
    return f'"{name}" ({rel})'


def template_question(unique: Sequence[str], bridges: Sequence[str]) -> str:
    """Table 16 filled in English: 'Which {CORE_TYPE} is related to {UNIQUE_DESC}, and also {COMMON_DESC}?'"""
    def join(xs: Sequence[str]) -> str:
        xs = list(xs)
        return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]

    if unique and bridges:
        return f"Which {CORE_TYPE} is related to {join(unique)}, and also to {join(bridges)}?"
    return f"Which {CORE_TYPE} is related to {join(list(unique) + list(bridges))}?"


def build_erqa(graph: KnowledgeGraph, n: int, *, seed: int = 0, min_degree: int = 8, n_bridge: tuple[int, int] = (1, 2),
               n_unique: tuple[int, int] = (1, 2), max_constraints: int = 6, max_answers: int = 1,
               max_tries: int | None = None, llm: Any = None) -> list[ERQAQuestion]:
    """Generate ``n`` bridge-star questions with unique gold answers from ``graph`` (App. G).

    Parameters
    ----------
    graph
        A KG (UMLS, FB15k-237, or any workspace graph).
    n
        Number of questions.
    seed
        Seed of every random choice (same seed → same questions).
    min_degree
        Star nodes have at least this many distinct neighbours.
    n_bridge, n_unique
        Inclusive ranges of bridge / unique constraints per question.
    max_constraints
        Unique constraints are added beyond ``n_unique`` until the answer is unique, up to this total.
    max_answers
        Accept a question whose constraints admit up to this many answers (all listed as gold, the
        hidden star first); 1 = unique answers only (dense graphs such as UMLS need more).
    llm
        Optional LLM to polish the template question (``None``/``none`` = template text).

    Returns
    -------
    list of ERQAQuestion

    Raises
    ------
    ConfigError
        For n < 1 or empty ranges.
    EmptyGraphError
        When the graph has no two stars sharing a neighbour (no question can be built).
    """
    if n < 1:
        raise ConfigError(f"ERQA n={n} must be at least 1.")
    if n_bridge[0] < 1 or n_bridge[0] > n_bridge[1] or n_unique[0] < 0 or n_unique[0] > n_unique[1]:
        raise ConfigError(f"ERQA ranges n_bridge={n_bridge}, n_unique={n_unique} must be (lo, hi) with lo ≤ hi, "
                          "at least one bridge.")
    rng = np.random.default_rng(seed)
    nbrs = graph.neighbor_sets()
    name_count: dict[str, int] = {}
    for nm in graph.node_names:
        k = normalize_name(nm)
        name_count[k] = name_count.get(k, 0) + 1
    usable = np.array([name_count[normalize_name(nm)] == 1 and len(normalize_name(nm)) >= 2
                       for nm in graph.node_names])
    stars = [v for v in range(graph.n_nodes) if len(nbrs[v]) >= min_degree and usable[v]]
    if len(stars) < 2:
        raise EmptyGraphError(f"Graph {graph.name!r} has {len(stars)} node(s) with ≥ {min_degree} neighbours; "
                              "bridge-star questions need two. Lower min_degree.")
    star_set = set(stars)
    out: list[ERQAQuestion] = []
    seen: set[tuple[int, ...]] = set()
    tries = max_tries or n * 50
    for _ in range(tries):
        if len(out) >= n:
            break
        s = int(stars[rng.integers(len(stars))])
        partners = sorted({w for u in nbrs[s] for w in nbrs[u] if w != s and w in star_set})
        if not partners:
            continue
        s2 = int(partners[rng.integers(len(partners))])
        common = sorted(u for u in nbrs[s] & nbrs[s2] if usable[u])
        unique_pool = sorted(u for u in nbrs[s] - nbrs[s2] - {s2} if usable[u])
        if not common or not unique_pool:
            continue
        kb = min(int(rng.integers(n_bridge[0], n_bridge[1] + 1)), len(common))
        bridges = [int(x) for x in rng.choice(common, size=kb, replace=False)]
        order = [int(x) for x in rng.permutation(unique_pool)]
        ku = max(1, int(rng.integers(n_unique[0], n_unique[1] + 1)))
        uniq = order[:ku]
        rest = order[ku:]
        while True:
            cons = uniq + bridges
            answers = set.intersection(*(nbrs[c] for c in cons))
            if len(answers) <= max_answers or len(cons) >= max_constraints or not rest:
                break
            uniq.append(rest.pop(0))
        if s not in answers or len(answers) > max_answers:
            continue
        key = (*tuple(sorted(cons)), s)
        if key in seen:
            continue
        seen.add(key)
        triples = tuple(_relation(graph, s, c) for c in uniq + bridges)
        udesc = [_desc(graph.node_names[c], t) for c, t in zip(uniq, triples[:len(uniq)])]
        bdesc = [_desc(graph.node_names[c], t) for c, t in zip(bridges, triples[len(uniq):])]
        text = template_question(udesc, bdesc)
        polished = False
        if llm is not None and getattr(llm, "available", False):
            text, polished = _polish(llm, text, [graph.node_names[c] for c in cons])
        gold = (graph.node_names[s], *tuple(sorted(graph.node_names[a] for a in answers - {s})))
        out.append(ERQAQuestion(f"erqa-{seed}-{len(out)}", text, gold, graph.node_names[s],
                                graph.node_names[s2], tuple(graph.node_names[c] for c in bridges),
                                tuple(graph.node_names[c] for c in uniq), triples, polished))
    return out


def _polish(llm: Any, template: str, names: list[str]) -> tuple[str, bool]:
    """Table 16 Step 2 (in English): one fluent question; the template stays when a name is dropped."""
    from core.backends.base import ChatMessage
    from core.errors import LLMError

    system = ("Polish the question into one fluent, natural English question that starts with 'Which'. Keep every "
              "quoted entity name exactly as written (keep the quotes). Do not reveal or explain the answer. "
              "Return only the question sentence.")
    try:
        r = llm.chat([ChatMessage("system", system), ChatMessage("user", template)], max_tokens=120)
    except LLMError:
        return template, False
    text = r.text.strip().splitlines()[0].strip() if r.text.strip() else ""
    if not text or any(f'"{nm}"'.lower() not in text.lower() for nm in names):  # quoted, so "entity" ≠ "conceptual entity"
        return template, False
    return text, True


def write_erqa(questions: Sequence[ERQAQuestion], path: str | Path, *, flag: str = "") -> Path:
    """Write the questions JSON atomically (a list of HotpotQA-like records) to the user-named ``path``
    (:func:`core.outputs.write_output_json`: a regular file only; ``flag`` names the option in a refusal)."""
    from core.outputs import write_output_json

    return write_output_json(path, [q.to_record() for q in questions], flag=flag)
