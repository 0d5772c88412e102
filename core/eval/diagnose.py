"""Failure diagnosis: for one question × method, the first stage at which the gold evidence was lost.

:func:`diagnose` looks the method up in the registry and runs its own diagnoser
(:attr:`core.methods.base.Method.diagnose`), or :func:`~core.methods.diagnoser.generic_diagnosis`
for a method that has none. The words of the contract (:class:`StageDecl`, :class:`Gold`,
:class:`Diagnosis`, the stage keys) live in :mod:`core.methods.base` and the helpers every diagnoser
shares in :mod:`core.methods.diagnoser`, below the method packages; they are re-exported here, the
entry point for evaluation code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.methods.base import NO_GOLD, OK, Diagnoser, Diagnosis, Gold, StageDecl
from core.methods.diagnoser import GENERIC_STAGES, generic_diagnosis
from core.methods.registry import METHODS, get_method
from core.text import normalize_answer

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.base import MethodResult


def stages_for(method: str) -> tuple[StageDecl, ...]:
    """The stages ``method`` declares (the generic ones when it declares none)."""
    return get_method(method).stages or GENERIC_STAGES


def diagnoser_for(method: str) -> Diagnoser:
    """The diagnoser of ``method`` (:func:`~core.methods.diagnoser.generic_diagnosis` when it declares
    none or is not registered)."""
    spec = METHODS.get(method)
    return (spec.diagnose if spec is not None else None) or generic_diagnosis


def diagnose(result: MethodResult, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """Where ``result`` lost ``gold``: the method's own diagnoser via the registry, else the generic one.

    Parameters
    ----------
    result
        A method's result (its ``method`` names the registry entry).
    workspace
        The workspace it ran on.
    gold
        Gold chunk ids (and answers) of the question.
    cut
        Rank cut: gold below it counts as lost (default 5, as in R@5).

    Returns
    -------
    Diagnosis

    Raises
    ------
    ValueError
        If ``cut < 1``.
    """
    if cut < 1:
        raise ValueError(f"cut must be at least 1, got {cut}")
    gold = gold.narrowed([c.chunk_id for c in result.ranked_chunks])  # a gold document of several passages: once
    diag = with_off_gold(diagnoser_for(result.method)(result, workspace, gold, cut=cut), result, workspace, cut=cut,
                         answers=gold.answers)
    diag = with_near_ties(with_answer_context(diag, result, cut=cut), result, cut=cut)
    return with_source_title(with_unmatched_gold(with_chance_answer(diag, result, gold), gold, cut=cut), workspace)


def with_off_gold(diag: Diagnosis, result: MethodResult, workspace: Workspace, *, cut: int = 5,
                  answers: Sequence[str] = ()) -> Diagnosis:
    """SG-RAG's ``not_connected`` when exact subgraphs matched (§4.3, Alg. 8) but brought no lost gold passage
    (:func:`core.eval.verdicts.matched_off_gold`), its summary naming every lost gold passage by its title
    (:func:`core.eval.verdicts.off_gold_summary`): those no match passes through, those whose entities a match reaches
    through triples of other passages, those retrieved below the cut. An audit read "30 exact subgraph(s) matched,
    but none passes through the gold passage tea06": a chunk id, and the other lost passage (“Bellcastle Holdings”,
    its entity on a match as the asked-for one) unnamed. Its evidence gets ``gold_lost`` (chunk ids) and ``cut``;
    the stage is unchanged (its label follows the evidence: :func:`core.eval.verdicts.off_gold_verdict`). An answer
    that is a bridge of the chain (:func:`bridge_answer`) is said too, with its evidence ``bridge``."""
    from core.eval.verdicts import matched_off_gold, off_gold_summary
    from core.graph.model import passage_label

    subgraphs = getattr(getattr(result, "assembly", None), "subgraphs", None)
    if not matched_off_gold(diag.stage, diag.evidence) or subgraphs is None:
        return diag
    lost = [c for c, r in diag.gold_ranks.items() if r is None or r > cut]
    if not lost:
        return diag
    graph = workspace.graph
    on = {v for s in subgraphs for _, v in s.mapping}
    cap = getattr(getattr(result, "config", None), "max_chunks", None)
    known = not (isinstance(cap, int) and len(result.ranked_chunks) >= cap)  # capped: a reached passage may be cut
    off: list[str] = []
    reached: dict[str, list[str]] = {}
    below: dict[str, int] = {}
    for c in lost:
        title, rank = passage_label(graph, c), diag.gold_ranks[c]
        ents = [graph.node_names[e] for e in graph.chunk_entities(c) if e in on] if c in graph.chunk_index else []
        if rank is not None:
            below[title] = int(rank)
        elif ents and known:
            reached[title] = ents
        else:
            off.append(title)
    summary = off_gold_summary(int(diag.evidence["subgraphs"]), off, reached, below, cut=cut, known=known,
                               kept=len(subgraphs))
    ev = {**diag.evidence, "gold_lost": lost, "cut": cut}
    bridge = bridge_answer(str(getattr(result, "answer", "") or ""), graph, on, diag.gold_ranks, answers)
    if bridge:
        ev["bridge"] = bridge
        summary += (f" Its answer “{bridge['answer']}” is a bridge of the question's chain, not its end: an entity of "
                    f"the gold passage{'s' if len(bridge['in']) > 1 else ''} {_quoted(bridge['in'])}, one hop from "
                    f"{bridge['via']} (an entity of the lost gold passage “{bridge['next']}”): the match stopped a hop "
                    "short.")
    return replace(diag, summary=summary, evidence=ev)


def _quoted(titles: Sequence[str]) -> str:
    q = [f"“{t}”" for t in titles]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def bridge_answer(answer: str, graph: Any, on: set[int], gold_ranks: dict[str, int | None],
                  answers: Sequence[str] = ()) -> dict[str, Any] | None:
    """When an (un-LLM'd) SG-RAG answer names a node of a matched subgraph (§4.3: the ``UNK`` binding) that is an
    entity of a retrieved gold passage and one hop from an entity of a gold passage never retrieved, and holds no
    gold answer: the match bound ``UNK`` to a bridge of the chain and stopped a hop short (an audit's SG-RAG answered
    the bridge, "the daughter", for "who designed the bicycle the daughter rode"). ``{"answer", "in": titles of the
    retrieved gold passages holding it, "via": the neighbour's name, "next": the lost passage's title}``, else None."""
    from core.graph.model import passage_label
    from core.methods.diagnoser import extract_contains

    key = normalize_answer(answer)
    if not key or (answers and extract_contains(answer, list(answers))):
        return None
    node = next((v for v in sorted(on) if normalize_answer(graph.node_names[v]) == key), None)
    if node is None:
        return None
    held = [c for c, r in gold_ranks.items() if r is not None and c in graph.chunk_index
            and node in set(graph.chunk_entities(c))]
    near = set(graph.khop([node], 1).tolist()) - {node}
    for c, r in gold_ranks.items():
        if r is not None or c not in graph.chunk_index:
            continue
        ents = set(graph.chunk_entities(c))
        if held and node not in ents and ents & near:
            return {"answer": answer.strip(), "in": [passage_label(graph, h) for h in held],
                    "via": graph.node_names[min(ents & near)], "next": passage_label(graph, c)}
    return None


def with_source_title(diag: Diagnosis, workspace: Workspace) -> Diagnosis:
    """The summary names the passage an answer's sentence came from by its title, not its id (an audit read
    “passages:11” and had to look it up); the evidence keeps the id."""
    from core.graph.model import passage_label

    source = (diag.evidence.get("answer") or {}).get("source") if isinstance(diag.evidence, dict) else None
    if not source or f"“{source}”" not in diag.summary:
        return diag
    return replace(diag, summary=diag.summary.replace(f"“{source}”", f"“{passage_label(workspace.graph, str(source))}”"))


def with_chance_answer(diag: Diagnosis, result: MethodResult, gold: Gold) -> Diagnosis:
    """A retrieval verdict whose extractive answer holds the gold answer in a sentence of a passage that is not gold
    says so, as an ``answer_wrong`` one does (:data:`core.eval.verdicts.CHANCE_LABEL`): an audit read ReG's "It [Grey
    Heron] carried … on the Pellow Reach crossing" (the wrong ferry) as "holds the gold answer" under "below the cut,
    but read by the answer", unflagged. Its evidence gets ``answer`` with ``from_gold`` False and the ``source``; the
    stage is unchanged (retrieval lost the evidence first)."""
    from core.methods.diagnoser import OFF_GOLD_READINGS, extract_contains, off_gold_source

    if diag.stage in (OK, NO_GOLD, "answer_wrong") or not gold.answers or not result.answer.strip():
        return diag
    source = off_gold_source(result, gold.passages)
    if not source or not extract_contains(result.answer, gold.answers):
        return diag
    note = (f"Its extractive answer holds the gold answer, but in a sentence of “{source}”, a passage outside the gold "
            f"list: {OFF_GOLD_READINGS}.")
    ev = {**diag.evidence, "answer": {"text": result.answer, "gold": list(gold.answers), "from_gold": False,
                                      "source": source}}
    return replace(diag, summary=f"{diag.summary.rstrip()} {note}", evidence=ev)


#: How close (relative to the score at the cut) a gold passage just below the cut must score to be called a near tie.
NEAR_TIE = 0.01


def with_near_ties(diag: Diagnosis, result: MethodResult, *, cut: int = 5) -> Diagnosis:
    """A ``ranked_out`` verdict whose lost gold passage scored within :data:`NEAR_TIE` of the last passage inside the
    cut says so: int8 models and thread counts move such scores by a few thousandths between runs and machines, so
    another run (Compare's or a benchmark's, in another process) may put it inside (an audit saw a gold passage at
    rank 6 in one and 5 in the other, 0.004 of cosine apart). Its evidence gets ``near_tie`` (chunk id → the score
    gap); any other verdict is unchanged."""
    if diag.stage != "ranked_out" or len(result.ranked_chunks) < cut:
        return diag
    edge = float(result.ranked_chunks[cut - 1].score)
    scores = {c.chunk_id: float(c.score) for c in reversed(result.ranked_chunks)}  # the first (best) rank wins
    close = {c: round(edge - scores[c], 6) for c, r in diag.gold_ranks.items()
             if r is not None and r > cut and c in scores and abs(edge - scores[c]) <= NEAR_TIE * max(abs(edge), 1e-9)}
    if not close:
        return diag
    gap = min(close.values())
    # "within 0 of rank 2" read as nonsense: an equal score is a tie, put below the cut by the ranking's order
    how = (f"scored the same as rank {cut}" if abs(gap) < 5e-7 else f"scored within {gap:.2g} of rank {cut} (under 1 %)")
    note = (f"A near tie: {'a gold passage' if len(close) == 1 else f'{len(close)} gold passages'} below the cut "
            f"{how}, which another run or machine may order either way.")
    return replace(diag, summary=f"{diag.summary.rstrip()} {note}", evidence={**diag.evidence, "near_tie": close})


def with_answer_context(diag: Diagnosis, result: MethodResult, *, cut: int = 5) -> Diagnosis:
    """A ``ranked_out`` verdict with the gold passages below the cut that the answer read all the same.

    The cut is the diagnosis' (R@k), the answer's context the method's (its budget): a gold passage at rank 6 of
    10 passages handed to the answer is lost at cut 5 and still read. Its evidence gets ``cut``,
    ``read_by_answer`` (those gold chunk ids, in gold order) and ``answer_context`` (how many passages the answer
    read), and its summary a sentence saying so; :func:`core.eval.verdicts.diagnosis_verdict` labels it "below
    the cut, but read by the answer" when every lost passage was read. Any other verdict is returned unchanged
    (``cut`` is recorded on every ``ranked_out``, so its label can tell ranked low from never retrieved).
    """
    from core.methods.answering import context_of

    if diag.stage != "ranked_out":
        return diag
    ev = {**diag.evidence, "cut": diag.evidence.get("cut", cut)}
    ctx = context_of(result)
    lost = [c for c, r in diag.gold_ranks.items() if r is None or r > cut]
    read = [c for c in lost if ctx is not None and c in set(ctx.chunk_ids)]
    if ctx is None or not read:
        return replace(diag, evidence=ev)
    ev.update(read_by_answer=read, answer_context=ctx.chunks)
    n = len(read)
    whom = ("it" if n == 1 else "both" if n == 2 else f"all {n}") if n == len(lost) else f"{n} of the {len(lost)}"
    note = (f"The answer still read {whom}: {'it was' if n == 1 else 'they were'} among the {ctx.chunks} passages "
            f"it was handed (the cut judges the ranking, not the answer's context).")
    return replace(diag, summary=f"{diag.summary.rstrip()} {note}", evidence=ev)


def with_unmatched_gold(diag: Diagnosis, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """The verdict once the gold passages the workspace lacks (``gold.unmatched``) count as gold never retrieved.

    A method's diagnoser sees the matched gold only. When it found every one of them within the cut (``ok``,
    or ``answer_wrong``), the missing passage is what fails the question: the verdict becomes ``not_in_graph``
    (the first stage of :data:`~core.methods.base.STAGE_ORDER`), never ``ok``. When it lost a matched passage
    itself, its own verdict stands and its summary also names the missing ones. ``no_gold`` (nothing matched:
    the question is left out of a benchmark) is unchanged. Applied here, once, so no method's diagnoser
    needs to know about unmatched gold.
    """
    from core.eval.verdicts import unmatched_note

    if not gold.unmatched or not gold.chunk_ids or diag.stage == NO_GOLD:
        return diag
    note = unmatched_note(gold.unmatched, len(gold.chunk_ids) + len(gold.unmatched))
    ev = {**diag.evidence, "unmatched": list(gold.unmatched)}
    if diag.stage in (OK, "answer_wrong"):
        return Diagnosis(diag.method, "not_in_graph",
                         f"Every gold passage the workspace holds is in the top {cut}, but {note}, so the gold "
                         "evidence cannot all be retrieved.", ev, diag.gold_ranks)
    return replace(diag, summary=f"{diag.summary} Besides, {note}.", evidence=ev)
