"""Non-template ERQA-style questions: paraphrased multi-constraint questions with answer *sets*
(a check of SG-RAG §5 beyond its own ERQA construction).

SG-RAG's ERQA questions (sg_rag.txt §5.1, App. G; :mod:`core.eval.erqa`) are built so that the
hidden star is the one node adjacent to every constraint, and in ``none`` mode their text quotes the
KG's exact entity names and relation labels. An exact subgraph matcher is then in its best case by
construction. This module builds the same kind of question — "which X satisfies constraints c1 … ck"
— without those two properties:

* **Wording.** Each constraint ``(relation, entity)`` is phrased from a hand-written, reviewed lexicon
  of natural phrasings per FB15k-237 relation (:mod:`core.eval.erqa_lexicon`; "films helmed by
  …", "people who studied at …"); no relation label of the KG is quoted. Entity names appear as a
  person would write them: hand-written aliases ("the US" for "United States of America"), trailing
  "Language" or a parenthesised disambiguator dropped, or lower case (:func:`surface_form`).
* **Answers.** The constraints are typed relations with a direction (``X -[r]-> e`` or
  ``e -[r]-> X``), drawn from the facts of a random *anchor* node; nothing is added to make the answer
  unique. The gold answer is the *set* of every node that satisfies all constraints, computed by
  :func:`answer_set`, a brute-force scan of all edges of the whole KG (not the generator's sample);
  questions with more than ``max_answers`` answers are skipped (a list of hundreds is no question).

Each record keeps its construction: the constraints (Freebase relation, the KG label matched, entity,
its surface form, which side the answer is on, the clause), the answer type, the answer set and the
KG it was computed on. The records use the HotpotQA-like questions format of :mod:`core.index.questions`
(``answer`` = the list of all answers, ``supporting_facts`` = the answers' and the constraints' names),
so ``egx bench`` and ``egx ablate`` read them and score answer-set Precision/Recall/F1 and Hit@1
(:mod:`core.eval.paper_metrics`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import ConfigError, EmptyGraphError
from core.eval.erqa_lexicon import (
    ALIASES,
    LEXICON,
    RelationPhrasing,
    Side,
    last_step,
    relation_phrase,
)
from core.graph.model import KnowledgeGraph
from core.text import normalize_name

#: Question frames: ``{noun}`` is the answer type in the plural (an answer set may hold several; the
#: clauses' "who were …" agree with it), ``{clauses}`` the constraint clauses joined with commas and "and".
FRAMES: tuple[str, ...] = (
    "Which {noun} {clauses}?",
    "Name the {noun} {clauses}.",
    "List all {noun} {clauses}.",
    "What are the {noun} {clauses}?",
    "I'm looking for {noun} {clauses} — which are they?",
    "Can you find all the {noun} {clauses}?",
)

_PAREN = re.compile(r"\s*\([^()]*\)\s*$")
_LANGUAGE = re.compile(r"\s+language$", re.IGNORECASE)
_REGION_TAG = re.compile(r"-(?:GB|US)$")  #: FB15k-237 names such as "Actor-GB"


@dataclass(frozen=True)
class Constraint:
    """One condition on the answer X: ``X -[relation]-> entity`` (answer_side "head") or
    ``entity -[relation]-> X`` ("tail")."""

    relation: str  #: the Freebase path of the lexicon entry
    label: str  #: the KG's edge label it was matched to
    entity: str  #: the KG name of the constraint entity
    surface: str  #: how the question writes the entity
    answer_side: str  #: "head" or "tail"
    clause: str  #: the clause as it appears in the question

    def to_dict(self) -> dict[str, str]:
        return {"relation": self.relation, "label": self.label, "entity": self.entity, "surface": self.surface,
                "answer_side": self.answer_side, "clause": self.clause}


@dataclass(frozen=True)
class ParaphraseQuestion:
    id: str
    question: str
    answers: tuple[str, ...]  #: every node satisfying all constraints (the oracle's set), sorted
    answer_type: str  #: the answer-type noun used ("films", "person", ...)
    kind: str  #: the answer type ("film", "person", ...)
    anchor: str  #: the node whose facts the constraints were drawn from (one of the answers)
    constraints: tuple[Constraint, ...]
    kg: str  #: the KG the answer set was computed on ("name: nodes, edges")

    @property
    def query_entities(self) -> tuple[str, ...]:
        return tuple(c.entity for c in self.constraints)

    def to_record(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "answer": list(self.answers),
                "supporting_facts": [[a, 0] for a in self.answers] + [[e, 0] for e in self.query_entities],
                "query_entities": list(self.query_entities), "type": "paraphrase", "answer_type": self.answer_type,
                "kind": self.kind, "anchor": self.anchor, "n_answers": len(self.answers),
                "constraints": [c.to_dict() for c in self.constraints],
                "oracle": f"brute-force scan of every edge of {self.kg}"}


# ------------------------------------------------------------------------------ relation matching
def _lexicon_by_path(relations: Sequence[str] | None) -> dict[str, RelationPhrasing]:
    by_path = {e.path: e for e in LEXICON}
    if relations is None:
        return by_path
    unknown = [r for r in relations if r not in by_path]
    if unknown:
        raise ConfigError(f"Unknown relation {unknown[0]!r} for paraphrased ERQA questions: the lexicon covers "
                          f"{len(by_path)} FB15k-237 relations (for example {LEXICON[0].path}); "
                          "give Freebase paths listed in core/eval/erqa_lexicon.py.")
    return {r: by_path[r] for r in relations}


def relation_labels(graph: KnowledgeGraph, relations: Sequence[str] | None = None) -> dict[str, tuple[str, ...]]:
    """The KG edge labels that stand for each lexicon relation.

    A label matches a relation when its normalized text equals the Freebase path or its ``relation2text``
    phrase ("film film directed by"). A bare last step ("directed by", "contains") is never matched:
    twelve of the lexicon's last steps are shared by several FB15k-237 relations, and other KGs use
    such words for other relations (UMLS's "contains" is not a place containing a place).

    Raises
    ------
    ConfigError
        For a relation that is not in the lexicon.
    """
    lex = _lexicon_by_path(relations)
    forms: dict[str, str] = {}
    for path in lex:
        forms[normalize_name(path)] = path
        forms[normalize_name(relation_phrase(path))] = path
    out: dict[str, list[str]] = {}
    for label in sorted(set(graph.edge_relation)):
        hit = forms.get(normalize_name(label))
        if hit is not None:
            out.setdefault(hit, []).append(label)
    return {p: tuple(ls) for p, ls in out.items()}


# ------------------------------------------------------------------------------ the oracle
def answer_set(graph: KnowledgeGraph, constraints: Sequence[tuple[Sequence[str], int, str]]) -> set[int]:
    """Every node X that satisfies all ``constraints``, by a brute-force scan of all edges.

    Parameters
    ----------
    graph
        The whole KG.
    constraints
        ``(labels, entity, answer_side)`` triples: the edge labels of the relation, the constraint
        entity's node index, and "head" (``X -[r]-> entity``) or "tail" (``entity -[r]-> X``).

    Returns
    -------
    set of int
        Node indices; empty for no constraints.
    """
    if not constraints:
        return set()
    codes, rel = graph.derived("erqa_paraphrase.relation_codes", lambda: _relation_codes(graph))
    out: set[int] | None = None
    for labels, entity, side in constraints:
        on_rel = np.isin(rel, [codes[lab] for lab in labels if lab in codes])
        if side == "head":
            hits = graph.edge_head[on_rel & (graph.edge_tail == entity)]
        elif side == "tail":
            hits = graph.edge_tail[on_rel & (graph.edge_head == entity)]
        else:
            raise ConfigError(f"answer_side {side!r} must be 'head' or 'tail'.")
        found = {int(v) for v in hits.tolist()}
        out = found if out is None else out & found
        if not out:
            return set()
    return out or set()


def _relation_codes(graph: KnowledgeGraph) -> tuple[dict[str, int], np.ndarray]:
    """Label → code, and every edge's label code (so a scan compares integers, not strings)."""
    codes: dict[str, int] = {}
    rel = np.fromiter((codes.setdefault(r, len(codes)) for r in graph.edge_relation), dtype=np.int64,
                      count=graph.n_edges)
    return codes, rel


# ------------------------------------------------------------------------------ wording
def surface_form(name: str, rng: np.random.Generator, *, p_lower: float = 0.35) -> str:
    """How a person might write the entity ``name``: a hand-written alias, the name without a trailing
    "Language", "-GB"/"-US" tag or parenthesised disambiguator, lower case, or the name itself (seeded
    choice; with such variants at hand, one of them 80 % of the time)."""
    options = list(ALIASES.get(name, ()))
    stripped = _LANGUAGE.sub("", _PAREN.sub("", _REGION_TAG.sub("", name))).strip()
    if stripped and stripped != name:
        options.append(stripped)
    if options and rng.random() < 0.8:
        return str(options[int(rng.integers(len(options)))])
    if rng.random() < p_lower and name.lower() != name:
        return name.lower()
    return name


def quotes_label(question: str, constraints: Sequence[Constraint], nouns: Sequence[str] = ()) -> str | None:
    """The first relation label of ``constraints`` that ``question`` quotes outside its entity mentions
    (its ``relation2text`` phrase, Freebase path or readable last step, as whole words), or ``None``.
    The answer-type noun is allowed ("films" may be asked for although one relation ends in "film")."""
    text = question
    for c in sorted(constraints, key=lambda c: -len(c.surface)):
        text = re.sub(re.escape(c.surface), " ", text, flags=re.IGNORECASE)
    allowed = {normalize_name(n) for n in nouns}
    for c in constraints:
        for form in (c.label, relation_phrase(c.relation), last_step(c.relation), c.relation):
            f = normalize_name(form)
            if not f or f in allowed or f.rstrip("s") in {a.rstrip("s") for a in allowed}:
                continue
            if re.search(r"(?<!\w)" + re.escape(f) + r"(?!\w)", normalize_name(text)):
                return form
    return None


def _join(xs: Sequence[str]) -> str:
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


# ------------------------------------------------------------------------------ the builder
def build_paraphrased(graph: KnowledgeGraph, n: int, *, seed: int = 0, n_constraints: tuple[int, int] = (2, 3),
                      max_answers: int = 10, relations: Sequence[str] | None = None,
                      max_tries: int | None = None) -> list[ParaphraseQuestion]:
    """Generate ``n`` paraphrased multi-constraint questions with oracle answer sets from ``graph``.

    Parameters
    ----------
    graph
        An FB15k-237-style KG: edge labels are Freebase paths or their ``relation2text`` phrases
        (see :func:`relation_labels`).
    n
        Number of questions.
    seed
        Seed of every random choice (same graph and seed → the same questions).
    n_constraints
        Inclusive range of constraints per question.
    max_answers
        Skip a question whose answer set has more answers than this.
    relations
        Restrict to these lexicon relations (Freebase paths); default all.
    max_tries
        Anchors to try (default ``60 * n``).

    Returns
    -------
    list of ParaphraseQuestion
        Fewer than ``n`` when the KG does not allow more.

    Raises
    ------
    ConfigError
        For n < 1, a bad range, or a relation not in the lexicon.
    EmptyGraphError
        For a KG without edges, or without any edge of a lexicon relation.
    """
    if n < 1:
        raise ConfigError(f"paraphrased ERQA n={n} must be at least 1.")
    lo, hi = n_constraints
    if lo < 1 or lo > hi:
        raise ConfigError(f"paraphrased ERQA n_constraints={n_constraints} must be (lo, hi) with 1 ≤ lo ≤ hi.")
    if max_answers < 1:
        raise ConfigError(f"paraphrased ERQA max_answers={max_answers} must be at least 1.")
    lex = _lexicon_by_path(relations)
    if graph.n_edges == 0:
        raise EmptyGraphError(f"Graph {graph.name!r} has no edges; paraphrased ERQA questions need a KG such as "
                              "../shared/data/fb15k237_named.")
    labels = relation_labels(graph, relations)
    if not labels:
        raise EmptyGraphError(f"Graph {graph.name!r} has no edge of the {len(lex)} relations the paraphrase lexicon "
                              "covers; it needs FB15k-237 relation paths or their relation2text phrases as labels "
                              "(for example ../shared/data/fb15k237_named).")
    label_path = {lab: p for p, labs in labels.items() for lab in labs}
    name_count: dict[str, int] = {}
    for nm in graph.node_names:
        k = normalize_name(nm)
        name_count[k] = name_count.get(k, 0) + 1
    usable = [name_count[normalize_name(nm)] == 1 and len(normalize_name(nm)) >= 2 for nm in graph.node_names]
    # facts[x][kind] = [(path, side, other)] — the lexicon facts of node x with x as the answer
    facts: dict[int, dict[str, list[tuple[str, str, int]]]] = {}
    for e in range(graph.n_edges):
        path = label_path.get(graph.edge_relation[e])
        if path is None:
            continue
        h, t = int(graph.edge_head[e]), int(graph.edge_tail[e])
        entry = lex[path]
        for x, other, side, spec in ((h, t, "head", entry.as_head), (t, h, "tail", entry.as_tail)):
            if spec is not None and usable[other] and other != x:
                facts.setdefault(x, {}).setdefault(spec.kind, []).append((path, side, other))
    anchors = sorted(x for x, by in facts.items() if any(len(set(fs)) >= lo for fs in by.values()))
    if not anchors:
        raise EmptyGraphError(f"Graph {graph.name!r} has no node with {lo} facts of the lexicon's relations; "
                              "lower n_constraints.")
    kg = f"{graph.name or 'graph'} ({graph.n_nodes} nodes, {graph.n_edges} edges)"
    rng = np.random.default_rng(seed)
    out: list[ParaphraseQuestion] = []
    seen: set[tuple[Any, ...]] = set()
    for _ in range(max_tries or 60 * n):
        if len(out) >= n:
            break
        x = anchors[int(rng.integers(len(anchors)))]
        kinds = sorted(k for k, fs in facts[x].items() if len(set(fs)) >= lo)
        kind = kinds[int(rng.integers(len(kinds)))]
        pool = sorted(set(facts[x][kind]))
        size = min(int(rng.integers(lo, hi + 1)), len(pool))
        picked: list[tuple[str, str, int]] = []
        for i in rng.permutation(len(pool)).tolist():
            f = pool[int(i)]
            if all(f[2] != g[2] for g in picked):
                picked.append(f)
            if len(picked) == size:
                break
        if len(picked) < lo:
            continue
        key = (kind, *sorted(picked))
        if key in seen:
            continue
        seen.add(key)
        answers = answer_set(graph, [(labels[p], o, s) for p, s, o in picked])
        if x not in answers or len(answers) > max_answers:
            continue
        sides: list[Side] = []
        for p, s, _o in picked:
            spec = lex[p].as_head if s == "head" else lex[p].as_tail
            assert spec is not None
            sides.append(spec)
        frame = FRAMES[int(rng.integers(len(FRAMES)))]
        noun = sides[0].plural
        cons: list[Constraint] = []
        for (p, s, o), spec in zip(picked, sides):
            surface = surface_form(graph.node_names[o], rng)
            clause = spec.phrases[int(rng.integers(len(spec.phrases)))].format(e=surface)
            lab = next(lab for lab in labels[p] if lab in _edge_labels(graph, o, x, labels[p]))
            cons.append(Constraint(p, lab, graph.node_names[o], surface, s, clause))
        text = frame.format(noun=noun, clauses=_join([c.clause for c in cons]))
        text = text[0].upper() + text[1:]
        if quotes_label(text, cons, (noun,)) is not None:
            continue
        names = sorted({graph.node_names[a] for a in answers}, key=lambda s: (s.casefold(), s))
        out.append(ParaphraseQuestion(f"para-{seed}-{len(out)}", text, tuple(names), noun, kind,
                                      graph.node_names[x], tuple(cons), kg))
    return out


def _edge_labels(graph: KnowledgeGraph, a: int, b: int, labels: Sequence[str]) -> set[str]:
    """The labels (among ``labels``) of the edges between nodes a and b."""
    nbr, eid = graph.csr.row(a)
    return {graph.edge_relation[int(e)] for n, e in zip(nbr.tolist(), eid.tolist())
            if n == b and graph.edge_relation[int(e)] in labels}


def write_paraphrased(questions: Sequence[ParaphraseQuestion], path: str | Path, *, flag: str = "") -> Path:
    """Write the questions JSON atomically (a list of HotpotQA-like records with their construction) to the
    user-named ``path`` (:func:`core.outputs.write_output_json`: a regular file only)."""
    from core.outputs import write_output_json

    return write_output_json(path, [q.to_record() for q in questions], flag=flag)
