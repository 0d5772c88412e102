"""γ: answer generation from matched subgraphs (sg_rag.txt §4.4, Appendix I, Table 15).

The context holds *all* matched subgraphs (§4.4: "semantic labels and descriptions from all subgraphs
g ∈ S"), best first: each edge as "Node h is related to Node t via: [relation : r]." (Table 15 Step 2)
and each node that has a description as "Node v: <description>.", cut where the whole prompt would
pass the §5 budget of 1,200 tokens (:func:`build_context`; the trace records tokens, subgraphs kept
and sentences dropped); the LLM must answer with one of the entity labels mentioned (Step 3) — an answer
outside that set, or one that is no answer at all (a refusal, a JSON fragment:
:func:`core.backends.answer_check.check_answer`), is rejected (JSON validation, the model is told why and
asked again) and the stage falls back visibly. The answer taken then goes through every method's one
answer check (:func:`core.methods.answer_gate.check_llm_answer`): a label that addresses the system or
carries markup (graph labels are user data) is flagged beside it, a reply cut at its token limit too.

With exact matches the answer is chosen among them (:func:`candidates`): §4.4 builds the prompt from S
"ensuring all constraints are satisfied", so every UNK binding of an exact match already satisfies each
relation of q*. The prompt lists those bindings first as the candidates and the answer must be one of them
(Table 15's "Unable to determine" stays for the fallback context g'', where nothing is known to satisfy
the question): a 1.5B model otherwise answered "Unable to determine" in 6 of the 11 recorded runs that
had exact matches, throwing the matches away. With ``reasoning`` (on for runs an LLM judge scores by
Emp.S, Table 17) the reply adds one line of reasoning, Table 14's "Answer: X. Reasoning: ..." shape; the
answer itself stays the bare label, so EM/F1 are unchanged by it.

``none`` mode (or an unusable LLM output; ours, the paper has an LLM here): when every exact match binds
``UNK`` to the same node, the query graph's constraints picked it and the answer is that binding
(``unk-binding``: the paper's ERQA stars, "Magnesium" for four relations). When the matches bind ``UNK`` to
several nodes, the structure did not decide: a one-entity star matches every neighbour of the entity, and
their rank (the mean query cosine of a subgraph's edges) picked "1904" for "In what year did Mattias Venn rescue
eleven passengers?" over the 1912 its passage states. The answer is then, as every method's ``none`` mode, the
extractive sentence (:func:`core.methods.extractive.pick_sentence`) of the passages the context's triples come
from (``extractive``; all distinct bindings are still kept in ``bindings``). A binding not of the answer type the
question asks (a town for "In what year …?") is not the answer (:mod:`core.methods.sgrag.answer_typing`): the next one
of that type is (``typed-binding``), else the extractive sentence. After the 1-hop fallback the same
sentence is taken when its passages hold text; else, and on a triples-only workspace, the binding or the
neighbour adjacent to the most known entities (ties: most query-similar), or "Unable to determine" when there
is none.

What the answer is handed (:class:`core.methods.answering.AnswerContext`, the step's ``data["context"]``):
the passages its context's triples come from (each edge's provenance chunks) and the WordPiece tokens of
its sentences. A comparison budget (:mod:`core.methods.budget`) adds two limits: ``answer_chunks`` — an
edge whose passages would take the context past that many is left out (with its nodes' descriptions,
unless another edge brings them) — and ``answer_tokens``, the sentences' WordPiece tokens, next to the
paper's whole-prompt ``context_tokens``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from core.backends.answer_check import check_answer
from core.backends.base import LLM
from core.graph.model import KnowledgeGraph
from core.methods.answer_gate import CheckedAnswer, check_llm_answer
from core.methods.answer_types import ANSWER_TYPES
from core.methods.answering import EXTRACTIVE_PASSAGES, AnswerContext
from core.methods.base import Backends
from core.methods.evidence.formats import AnswerStepData
from core.methods.extractive import SentencePick, pick_sentence
from core.methods.llm_steps import ask_json
from core.methods.sgrag import prompts
from core.methods.sgrag.answer_typing import answer_subgraph, asked_type, typed_bindings
from core.methods.sgrag.assembly import Assembly
from core.methods.sgrag.query_graph import QueryGraph
from core.pinning import pin
from core.text import normalize_name
from core.trace import Trace


@dataclass(frozen=True)
class SubgraphAnswer:
    text: str
    by: str  #: "llm", "unk-binding", "typed-binding", "extractive", "fallback-heuristic" or "none"
    bindings: tuple[str, ...]  #: UNK bindings in subgraph rank order (exact matches only)
    allowed: tuple[str, ...]  #: entity labels the answer may use
    paragraph: str
    candidates: tuple[str, ...] = ()  #: the exact matches' UNK-bound labels, best first (the answer's choices)
    reasoning: str = ""  #: Table 14's one line of reasoning (only when asked for, and only from the LLM)
    pick: SentencePick | None = None  #: ``extractive``: how the sentence was chosen
    subgraph: int | None = None  #: the matched subgraph the answer was read from (:func:`answer_subgraph`)

    @property
    def shown(self) -> str:
        """The answer as a judge of reasoning sees it (Table 14: "Answer: X. Reasoning: ...")."""
        return f"Answer: {self.text}. Reasoning: {self.reasoning}" if self.reasoning else self.text


#: Characters of one node description in the context (ours: one long description must not eat the budget).
DESCRIPTION_CHARS = 400


def context_edges(assembly: Assembly, *, top: int | None = None) -> list[int]:
    """Edges of every matched subgraph (§4.4: "from all subgraphs g ∈ S"), best first; g'' after the fallback.

    ``top`` keeps only the first ``top`` subgraphs (used by views; the answer step takes all of them
    and lets the token budget decide)."""
    if assembly.fallback:
        return list(assembly.fallback_edges)
    out: list[int] = []
    for s in assembly.subgraphs[:top]:
        out += [e for e in s.edges if e not in out]
    return out


@dataclass(frozen=True)
class Context:
    """The Table 15 context: relation sentences and node descriptions, cut to the token budget."""

    edges: tuple[int, ...]  #: edges whose relation sentence is in the context
    pieces: tuple[str, ...]  #: sentences in order: per subgraph its relations, then its nodes' descriptions
    tokens: int  #: tokens of the whole answer prompt (system + user)
    budget: int
    subgraphs_total: int
    subgraphs_used: int  #: subgraphs whose every piece fits (a partly cut subgraph is not counted)
    dropped_pieces: int
    tokenizer: str
    descriptions: int  #: node-description sentences in the context
    chunk_ids: tuple[str, ...] = ()  #: the passages the context's edges come from, in context order
    evidence_tokens: int = 0  #: WordPiece tokens of the sentences (what a comparison budget counts)
    dropped_edges: int = 0  #: edges a comparison budget's chunk count left out


def edge_passages(graph: KnowledgeGraph, e: int) -> list[str]:
    """The passages edge ``e`` comes from (its provenance chunks the workspace holds)."""
    return [c for c in graph.edge_chunks[e] if c in graph.chunk_index]


def _within_chunks(groups: list[tuple[int, ...]], graph: KnowledgeGraph, max_chunks: int) -> tuple[list[tuple[int, ...]], int]:
    """The groups' edges, best first, whose passages keep the context within ``max_chunks`` passages (an edge
    that would pass it is left out; a later one from passages already in still goes in)."""
    kept: list[str] = []
    left_out: set[int] = set()
    seen: set[int] = set()
    for eids in groups:
        for e in eids:
            if e in seen:
                continue
            seen.add(e)
            new = [c for c in dict.fromkeys(edge_passages(graph, e)) if c not in kept]
            if len(kept) + len(new) > max_chunks:
                left_out.add(e)
            else:
                kept += new
    return [tuple(e for e in eids if e not in left_out) for eids in groups], len(left_out)


def _groups(assembly: Assembly) -> list[tuple[int, ...]]:
    if assembly.fallback:
        return [tuple(assembly.fallback_edges)]
    return [tuple(s.edges) for s in assembly.subgraphs]


def candidates(qg: QueryGraph, assembly: Assembly, graph: KnowledgeGraph) -> list[str]:
    """The labels the exact matches bind to the query graph's ``UNK`` nodes, in subgraph rank order, each
    once (empty after the fallback): what the answer chooses among (§4.4)."""
    if assembly.fallback:
        return []
    unk = set(qg.unknown_ids)
    out: list[str] = []
    for s in assembly.subgraphs:
        for q, v in s.mapping:
            if q in unk and graph.node_names[v] not in out:
                out.append(graph.node_names[v])
    return out


def build_context(query: str, assembly: Assembly, graph: KnowledgeGraph, *, budget: int = 1200,
                  llm: LLM | None = None, max_chunks: int | None = None, max_tokens: int | None = None,
                  choices: list[str] | None = None, reasoning: bool = False) -> Context:
    """Relation sentences and node descriptions of all matched subgraphs under ``budget`` tokens (§4.4, §5).

    SG-RAG §4.4: γ "extracts semantic labels and descriptions from all subgraphs g ∈ S"; §5 fixes the
    answer model's context at 1,200 tokens per query. Subgraphs are taken best first; for each, its new
    relation sentences (Table 15 Step 2) and then a description sentence for each new node that has one
    ("Node X: <description>."). Pieces are added while the whole prompt — system, relations, the entity
    labels the answer may use, the question — stays within ``budget`` tokens, counted with the answering
    model's tokenizer when it has one (:func:`core.backends.tokens.count_tokens`); the first piece that
    does not fit ends the context, and the final prompt is re-counted and cut until it fits.

    A comparison budget (:mod:`core.methods.budget`) adds ``max_chunks`` — the context's edges come from at
    most that many passages (:func:`_within_chunks`) — and ``max_tokens``, the sentences' WordPiece tokens
    (the evidence every method's budget counts), checked with the whole prompt's. ``choices`` (the exact
    matches' candidates) and ``reasoning`` select the prompt that is counted (:func:`generate_answer`).
    """
    from core.backends.tokens import WORDPIECE, count_tokens

    pieces: list[tuple[str, int | None, int | None]] = []  # (sentence, edge or None, subgraph index)
    seen_e: set[int] = set()
    seen_v: set[int] = set()
    groups = _groups(assembly)
    dropped_edges = 0
    if max_chunks is not None:
        groups, dropped_edges = _within_chunks(groups, graph, max_chunks)
    for gi, eids in enumerate(groups):
        nodes: list[int] = []
        for e in eids:
            if e in seen_e:
                continue
            seen_e.add(e)
            h, t = int(graph.edge_head[e]), int(graph.edge_tail[e])
            pieces.append((f"Node {graph.node_names[h]} is related to Node {graph.node_names[t]} via: "
                           f"[relation : {graph.edge_relation[e]}].", e, gi))
            nodes += [v for v in (h, t) if v not in seen_v and v not in nodes]
        for v in nodes:
            seen_v.add(v)
            d = graph.node_descriptions[v].strip()
            if d:
                d = d if len(d) <= DESCRIPTION_CHARS else d[:DESCRIPTION_CHARS].rsplit(" ", 1)[0] + " …"
                pieces.append((f"Node {graph.node_names[v]}: {d.rstrip('.')}.", None, gi))

    def prompt(k: int) -> str:
        kept = pieces[:k]
        labels = _labels(graph, [e for _, e, _ in kept if e is not None])
        return prompts.answer_system(matched=bool(choices), reasoning=reasoning) + "\n" + prompts.answer_user(
            query, prompts.relation_paragraph([p for p, _, _ in kept]), labels, choices)

    counts, tokenizer = count_tokens([prompt(0), *(p for p, _, _ in pieces)], llm)
    base, sizes = counts[0], counts[1:]
    wp = sizes if tokenizer == WORDPIECE else count_tokens([p for p, _, _ in pieces], None)[0]
    k, used, ev_used = 0, base, 0
    for size, wsize, (_, edge, _) in zip(sizes, wp, pieces):
        extra = size + (_label_tokens(graph, edge) if edge is not None else 0)
        if used + extra > budget or (max_tokens is not None and ev_used + wsize > max_tokens):
            break
        used += extra
        ev_used += wsize
        k += 1
    total = count_tokens([prompt(k)], llm)[0][0]
    while k > 0 and total > budget:  # the sum of parts is an estimate; the whole prompt is what counts
        k -= 1
        total = count_tokens([prompt(k)], llm)[0][0]
    kept = pieces[:k]
    complete = sum(1 for gi in range(len(groups)) if all(i < k for i, p in enumerate(pieces) if p[2] == gi))
    edges = tuple(e for _, e, _ in kept if e is not None)
    passages = tuple(dict.fromkeys(c for e in edges for c in edge_passages(graph, e)))
    return Context(edges, tuple(p for p, _, _ in kept), total, budget, len(groups), complete, len(pieces) - k,
                   tokenizer, sum(1 for _, e, _ in kept if e is None), passages, int(sum(wp[:k])), dropped_edges)


def _labels(graph: KnowledgeGraph, eids: list[int]) -> list[str]:
    allowed: list[str] = []
    for e in eids:
        for v in (int(graph.edge_head[e]), int(graph.edge_tail[e])):
            if graph.node_names[v] not in allowed:
                allowed.append(graph.node_names[v])
    return allowed


def _label_tokens(graph: KnowledgeGraph, e: int) -> int:
    """A rough allowance for the two labels an edge adds to the answer-label list (re-counted at the end)."""
    return 2 + (len(graph.node_names[int(graph.edge_head[e])]) + len(graph.node_names[int(graph.edge_tail[e])])) // 3


def generate_answer(query: str, qg: QueryGraph, assembly: Assembly, graph: KnowledgeGraph, llm: LLM, *,
                    node_vecs: np.ndarray | None = None, qvec: np.ndarray | None = None, max_tokens: int = 128,
                    context_tokens: int = 1200, trace: Trace | None = None, answer_chunks: int | None = None,
                    answer_tokens: int | None = None, budget: str = "own", reasoning: bool = False,
                    backends: Backends | None = None) -> SubgraphAnswer:
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
    answer_chunks, answer_tokens, budget
        A comparison budget's limits and name (:func:`build_context`; None: the paper's context).
    reasoning
        Ask for Table 14's one line of reasoning besides the answer (for an Emp.S judge).
    backends
        Scores the extractive sentence when no LLM answers and the matches disagree on ``UNK`` (the
        reranker, else the embedder); None keeps the binding (module docstring).
    """
    tr = trace if trace is not None else Trace("sgrag", query)
    with tr.timed("answer", "Answer (Table 15 prompt, restricted to matched entity labels)",
                  section="SG-RAG §4.4, App. I, Table 15") as step:
        choices = candidates(qg, assembly, graph)
        ctx = build_context(query, assembly, graph, budget=context_tokens, llm=llm, max_chunks=answer_chunks,
                            max_tokens=answer_tokens, choices=choices, reasoning=reasoning)
        eids = list(ctx.edges)
        paragraph = prompts.relation_paragraph(list(ctx.pieces))
        allowed = _labels(graph, eids)
        unk = set(qg.unknown_ids)
        bindings: list[str] = []
        for s in assembly.subgraphs:
            b = ", ".join(graph.node_names[v] for q, v in s.mapping if q in unk) or \
                ", ".join(graph.node_names[v] for _, v in s.mapping)
            if b not in bindings:
                bindings.append(b)
        text, by, why = "", "none", ""
        check: CheckedAnswer | None = None
        rejected = ""
        if eids:
            keys = ({normalize_name(c) for c in choices} if choices else
                    {normalize_name(a) for a in allowed} | {normalize_name(prompts.UNDETERMINED)})
            listed = "candidates" if choices else "entity labels"

            def validate(d: object) -> None:
                got = str(d.get("answer", "")) if isinstance(d, dict) else ""
                if normalize_name(got) in keys:
                    return
                problem = check_answer(got).problem if isinstance(d, dict) else ""
                raise ValueError(f"the answer is unusable ({problem}); reply with one of the listed {listed}"
                                 if problem else f"the answer must be one of the listed {listed}")

            out = ask_json(llm, prompts.answer_system(matched=bool(choices), reasoning=reasoning),
                           prompts.answer_user(query, paragraph, allowed, choices),
                           prompts.answer_schema(allowed, candidates=choices, reasoning=reasoning),
                           max_tokens=max_tokens, validate=validate, step=step)
            if out.data is not None:  # the one answer check of every method (the label may carry an injection)
                check = check_llm_answer(str(out.data["answer"]), truncated=out.truncated, repaired=out.repaired)
                if check.ok:
                    text, by = check.text, "llm"
                    why = " ".join(str(out.data.get("reasoning", "") or "").split())[:prompts.REASONING_CHARS] \
                        if reasoning else ""
                else:
                    rejected = check.raw[:2000]
                    step.fallback = f"the LLM's answer was unusable ({check.problem}); heuristic answer instead"
        pick: SentencePick | None = None
        atype = asked_type(query) if not text else ""
        typed: list[str] | None = None  # the bindings of the asked type (checked only where one may be the answer)
        if not text and len(choices) <= 1 and not assembly.fallback:
            typed = typed_bindings(qg, assembly, graph, bindings, atype) if atype and bindings else list(bindings)
        untyped = bool(atype and bindings and typed == [])  # no binding is of the asked type: read a sentence
        how = _EXTRACTIVE_HOW
        if not text and backends is not None and (len(choices) > 1 or assembly.fallback or untyped):
            pick = _extractive(query, ctx.chunk_ids, graph, backends)
            if pick is not None:
                text, by = pick.text, "extractive"
                if untyped:
                    how = _UNTYPED_HOW.format(kind=ANSWER_TYPES[atype], bindings=", ".join(bindings[:5]))
        type_note = None
        if not text and typed is None:
            typed = typed_bindings(qg, assembly, graph, bindings, atype) if atype and bindings else list(bindings)
        if not text:
            if typed:  # the best-ranked binding of the asked type (the first one, unless an earlier one is not)
                text, by = typed[0], "unk-binding" if typed[0] == bindings[0] else "typed-binding"
                skipped = bindings[:bindings.index(typed[0])]
                if skipped:
                    type_note = (f"the question asks for {ANSWER_TYPES[atype]}; not of that type: "
                                 + ", ".join(skipped[:5]))
            elif bindings:  # none of the asked type and no passage text to read a sentence from: flagged
                text, by = bindings[0], "unk-binding"
                type_note = f"the question asks for {ANSWER_TYPES[atype]}, and no UNK binding is one"
            elif assembly.fallback:
                text = _fallback_guess(graph, assembly, node_vecs, qvec)
                # no neighbour touched the question's entities: nothing was guessed (the page said "the neighbour
                # that touches most of them" over "Unable to determine")
                by = "none" if text == prompts.UNDETERMINED else "fallback-heuristic"
            else:
                text, by = prompts.UNDETERMINED, "none"
        context_note = None
        if ctx.dropped_pieces:
            context_note = (f"the context budget of {ctx.budget} tokens (SG-RAG §5) held {len(ctx.pieces)} of "
                            f"{len(ctx.pieces) + ctx.dropped_pieces} relation/description sentences "
                            f"({ctx.subgraphs_used} of {ctx.subgraphs_total} subgraphs complete)")
        step.data = AnswerStepData(
            context_tokens=ctx.tokens, context_budget=ctx.budget, tokenizer=ctx.tokenizer,
            subgraphs_total=ctx.subgraphs_total, subgraphs_in_context=ctx.subgraphs_used,
            pieces_dropped=ctx.dropped_pieces, descriptions=ctx.descriptions,
            context=AnswerContext(ctx.chunk_ids, ctx.evidence_tokens, budget, answer_chunks, answer_tokens,
                                  "subgraph triples", ctx.dropped_pieces + ctx.dropped_edges).data(),
            budget_note=(f"the answer budget of {answer_chunks} passages left out {ctx.dropped_edges} matched edges "
                         "whose passages did not fit") if ctx.dropped_edges else None,
            context_note=context_note, candidates=choices[:50] or None,
            **(check.step_fields() if check is not None else {}), rejected_answer=rejected or None,
            answer=text, by=by, bindings=bindings[:20], allowed=allowed[:200], paragraph=paragraph[:4000],
            context_edges=eids, reasoning=why or None,
            extractive=pick.trace_data() if pick is not None else None, chunk_id=pick.chunk_id if pick else None,
            how=how + pick.trace_data()["rule"] + "." if pick is not None else None,
            answer_type=atype or None, type_note=type_note,
            subgraph=(match := answer_subgraph(qg, assembly, graph, text, by, pick.chunk_id if pick else None))).data()
    return SubgraphAnswer(text, by, tuple(bindings), tuple(allowed), paragraph, tuple(choices), why, pick, match)


_EXTRACTIVE_HOW = ("Extractive answer (no LLM reads the subgraphs): the exact matches bind UNK to several nodes, so "
                   "the answer is a sentence of the passages their triples come from: ")
_UNTYPED_HOW = ("Extractive answer (no LLM reads the subgraphs): the question asks for {kind}, and no UNK binding is "
                "one ({bindings}), so the answer is a sentence of the passages the matches' triples come from: ")


def _extractive(query: str, chunk_ids: tuple[str, ...], graph: KnowledgeGraph,
                backends: Backends) -> SentencePick | None:
    """The extractive sentence of the context's passages (best subgraph's first), or None when they hold no
    text (a triples-only workspace: the binding stays the answer)."""
    passages = [(c, graph.chunk(c).title, graph.chunk(c).text) for c in chunk_ids if c in graph.chunk_index]
    if not any(t.strip() for _, _, t in passages[:EXTRACTIVE_PASSAGES]):
        return None
    pick = pick_sentence(query, passages, backends, max_passages=EXTRACTIVE_PASSAGES)
    return pick if pick.text else None


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
    order = sorted(cands)
    sim = pin("sgrag.answer.fallback_similarity",
              np.array([float(node_vecs[v] @ qvec) if node_vecs is not None and qvec is not None else 0.0
                        for v in order], dtype=np.float32), ids=order)
    best = max(range(len(order)), key=lambda i: (hits[order[i]], sim[i]))  # ties: the lowest node id
    return graph.node_names[order[best]]
