"""LLM-guided candidate refinement (ReG §4.1, Appendix D.3, Appendix F Fig. 6 prompt style).

The compressed candidates are textualized as directed chains and numbered. Two ways to ask the LLM for
the "sufficient and logically coherent" subset (§4.1):

* ``one-shot`` — App. F's form: one prompt, ``{"explanation": ..., "selected": [ids]}``. Replies are
  checked against §4.1's own criteria: the subset must hold a query→answer chain (sufficient) and must
  not be every candidate of a pool larger than three (that drops nothing: no refinement); a reply that
  fails is sent back once with the reason, then the question keeps the weak signal.
* ``stepwise`` — the same decision as two grammar-constrained choices, made for the small local model
  (its one-shot replies list every candidate in order, or a subset that no longer reaches the answer):
  (1) which query→answer chains follow the relations the question asks about — one, or one per entity of a
  multi-entity question (skipped when there is one chain), (2) whether the question needs any 1-hop fact
  beyond them ("none" is a choice of its own: §4.1 asks for a *sufficient* subset, and App. D.1 adds facts
  only for a constraint, comparison or count the chains do not state) and, if so, which, at most
  ``context_most``. Sufficiency holds by construction: a chain is always kept.

Every prompt opens with App. F's explanation-based demonstration about made-up entities
(:mod:`.prompts`); a reply that names the demonstration's entities instead of its own question's copied it:
the check fails as BubbleRAG's template-copy check does — the one-shot reply and a chain reply fall back to
the weak signal, a copied fact reply keeps the chains without extra facts — and the fallback says so.

The triples of every selected candidate (all the paths it stands for) are the **refined**
supervision ``P*``.

``none`` mode, or unusable LLM output (no JSON after retries, ids out of range, nothing selected),
gives the **weak** signal instead — the query→answer shortest paths — and says so (``mode="weak"``
and ``fallback``); it is never silently mixed with refined labels.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from core.methods.reg import prompts
from core.methods.reg.candidates import CandidatePool
from core.methods.reg.compression import Compression, MergedCandidate

if TYPE_CHECKING:
    from core.backends.base import LLM
    from core.graph.model import KnowledgeGraph
    from core.trace import Step, Trace

WEAK_LABEL = "weak signal: query→answer shortest paths only (no LLM refinement)"


@dataclass(frozen=True)
class Selection:
    mode: Literal["llm", "weak"]
    selected: tuple[int, ...]  #: candidate indices the LLM kept (empty in weak mode)
    edges: tuple[int, ...]  #: positive triples (edge ids)
    weak_edges: tuple[int, ...]  #: the shortest-path signal, for comparison
    explanation: str = ""
    fallback: str = ""
    prompt: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    how: str = "one-shot"  #: "one-shot" (App. F's single prompt) or "stepwise" (two constrained choices)


def _parse_ids(data: Any, n: int) -> tuple[list[int], str]:
    if not isinstance(data, dict) or not isinstance(data.get("selected"), list):
        return [], 'the output has no "selected" list'
    ids = [int(x) for x in data["selected"] if isinstance(x, (int, float)) or (isinstance(x, str) and x.isdigit())]
    bad = [i for i in ids if not 0 <= i < n]
    ids = list(dict.fromkeys(i for i in ids if 0 <= i < n))
    if not ids:
        return [], ("every selected id was out of range " + str(bad[:5])) if bad else "the LLM selected no candidate"
    return ids, ""


SelectHow = Literal["one-shot", "stepwise"]


def select_candidates(query: str, answers: Sequence[str], comp: Compression, pool: CandidatePool,
                      graph: KnowledgeGraph, llm: LLM, *, how: SelectHow = "one-shot", max_candidates: int = 40,
                      max_tokens: int = 256, context_most: int = 2, trace: Trace | None = None) -> Selection:
    """Ask the LLM for the sufficient, coherent subset of the compressed candidates (§4.1).

    ``how`` picks the form of the question (module docstring); both fall back to the weak signal,
    visibly, when the LLM is absent or its reply unusable.

    Returns
    -------
    Selection
        ``mode="llm"`` with the selected candidates' triples, or ``mode="weak"`` with the
        shortest-path triples and the reason in ``fallback``.
    """
    from core.trace import Step

    t0 = time.perf_counter()
    weak = pool.shortest_edges
    cands = comp.candidates[:max_candidates]
    step = Step("selection", "LLM selection of supervision paths", section="ReG §4.1, Appendix D.3, Appendix F")
    if not cands:
        sel = Selection("weak", (), weak, weak, fallback="the candidate pool is empty; " + WEAK_LABEL, how=how)
    elif how == "stepwise":
        sel = _stepwise(query, answers, cands, weak, graph, llm, step, context_most=context_most)
    else:
        sel = _one_shot(query, answers, cands, weak, graph, llm, step, max_tokens=max_tokens)
    if trace is not None:
        step.data = {
            "mode": sel.mode, "how": sel.how,
            "label": "refined (LLM-selected)" if sel.mode == "llm" else WEAK_LABEL,
            "selected": list(sel.selected), "explanation": sel.explanation,
            "kept": [cands[i].text(graph) for i in sel.selected],
            "shortest_path_signal": [graph.edge_text(e) for e in weak[:100]],
            "positive_triples": [graph.edge_text(e) for e in sel.edges[:100]],
            "added_vs_weak": [graph.edge_text(e) for e in sorted(set(sel.edges) - set(weak))[:100]],
            "dropped_vs_weak": [graph.edge_text(e) for e in sorted(set(weak) - set(sel.edges))[:100]],
            "prompt": sel.prompt[:12000], "candidates_shown": len(cands), "candidates_total": len(comp.candidates)}
        step.fallback = sel.fallback or step.fallback  # a failed check of the fact step keeps the chains
        step.seconds = time.perf_counter() - t0
        trace.record(step)
    return sel


def _edges_of(cands: Sequence[MergedCandidate], ids: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted({e for i in ids for e in cands[i].edges}))


def _one_shot(query: str, answers: Sequence[str], cands: Sequence[MergedCandidate], weak: tuple[int, ...],
              graph: KnowledgeGraph, llm: LLM, step: Step, *, max_tokens: int) -> Selection:
    """App. F's single prompt, with the reply checked against §4.1's criteria (module docstring)."""
    from core.methods.llm_steps import ask_json

    user = prompts.select_prompt(query, list(answers), [c.text(graph) for c in cands])
    chains = {i for i, c in enumerate(cands) if c.kind == "shortest"}

    def check(data: Any) -> None:
        ids, problem = _parse_ids(data, len(cands))
        if problem:
            raise ValueError(problem)
        if chains and not chains.intersection(ids):
            raise ValueError("the selection holds no path that leads from the question to the answer (numbers "
                             f"{sorted(chains)[:8]}); it is not sufficient evidence")
        if len(cands) > 3 and len(ids) == len(cands):
            raise ValueError("every candidate was selected; keep only the paths the question needs")

    res = ask_json(llm, prompts.SELECT_SYSTEM, user, prompts.select_schema(len(cands)), max_tokens=max_tokens,
                   validate=check, step=step)
    copied = prompts.demo_copied(res.data, user, prompts.SELECT_DEMO) if res.data is not None else []
    if res.data is None or copied:  # a copied demonstration is not sent back (BubbleRAG's rule): the weak signal
        why = f"check failed: {_copy_problem(copied)}" if copied else res.fallback
        return Selection("weak", (), weak, weak, fallback=f"{why}; {WEAK_LABEL}", prompt=user,
                         prompt_tokens=res.prompt_tokens, completion_tokens=res.completion_tokens)
    ids, _ = _parse_ids(res.data, len(cands))
    return Selection("llm", tuple(ids), _edges_of(cands, ids), weak, str(res.data.get("explanation", "")), "", user,
                     res.prompt_tokens, res.completion_tokens)


def _stepwise(query: str, answers: Sequence[str], cands: Sequence[MergedCandidate], weak: tuple[int, ...],
              graph: KnowledgeGraph, llm: LLM, step: Step, *, context_most: int) -> Selection:
    """Two constrained choices: the chain, then at most ``context_most`` constraint facts (module docstring)."""
    from core.methods.llm_steps import ask_json

    chains = [i for i, c in enumerate(cands) if c.kind == "shortest"]
    facts = [i for i, c in enumerate(cands) if c.kind != "shortest"]
    if not chains:
        return Selection("weak", (), weak, weak, fallback="no query→answer chain among the candidates; " + WEAK_LABEL,
                         how="stepwise")
    if not llm.available:
        return Selection("weak", (), weak, weak, fallback="no LLM configured (`none` mode); " + WEAK_LABEL,
                         how="stepwise")
    shown, ptok, ctok, notes = [], 0, 0, []
    if len(chains) == 1:
        chosen = [chains[0]]
        notes.append("one query→answer chain: kept without asking")
    else:
        user = prompts.chain_prompt(query, answers, [(k, cands[i].text(graph)) for k, i in enumerate(chains)])
        res = ask_json(llm, prompts.SELECT_SYSTEM, user, prompts.chain_schema(range(len(chains))), max_tokens=96,
                       validate=_paths_in(len(chains)), step=step)
        shown.append(user)
        ptok, ctok = ptok + res.prompt_tokens, ctok + res.completion_tokens
        copied = prompts.demo_copied(res.data, user, prompts.CHAIN_DEMO) if res.data is not None else []
        if res.data is None or copied:  # a copied demonstration is not sent back (BubbleRAG's rule)
            why = f"check failed: {_copy_problem(copied)}" if copied else res.fallback
            return Selection("weak", (), weak, weak, fallback=f"{why}; {WEAK_LABEL}", prompt=user,
                             prompt_tokens=ptok, completion_tokens=ctok, how="stepwise")
        chosen = [chains[k] for k in dict.fromkeys(int(x) for x in res.data["paths"])]
        notes.append(f"{len(chosen)} of {len(chains)} chains chosen")
    picked: list[int] = []
    if facts and context_most > 0:
        most = min(context_most, len(facts))
        user = prompts.context_prompt(query, answers, "; ".join(cands[i].text(graph) for i in chosen),
                                      [(k, cands[i].text(graph)) for k, i in enumerate(facts)], most)
        res = ask_json(llm, prompts.SELECT_SYSTEM, user, prompts.context_schema(range(len(facts)), most),
                       max_tokens=96, validate=_ids_in(len(facts)), step=step)
        shown.append(user)
        ptok, ctok = ptok + res.prompt_tokens, ctok + res.completion_tokens
        copied = prompts.demo_copied(res.data, user, prompts.CONTEXT_DEMO) if res.data is not None else []
        if res.data is None:  # the chains stand; only the extra facts are missing
            notes.append(f"no constraint facts ({res.fallback})")
        elif copied:
            notes.append(f"no constraint facts (check failed: {_copy_problem(copied)})")
            step.fallback = f"check failed: {_copy_problem(copied)}; the chosen chains kept without extra facts"
        elif res.data["needed"] == "none":
            notes.append("no extra fact needed")
        else:
            picked = [facts[k] for k in dict.fromkeys(int(x) for x in res.data["selected"])][:most]
            notes.append(f"{len(picked)} of {len(facts)} facts chosen" if picked else "no extra fact needed")
    ids = (*chosen, *picked)
    return Selection("llm", ids, _edges_of(cands, ids), weak, "; ".join(notes), "", "\n\n---\n\n".join(shown),
                     ptok, ctok, how="stepwise")


def _copy_problem(copied: Sequence[str]) -> str:
    return ("the reply copies the prompt's demonstration (" + ", ".join(map(repr, copied[:3]))
            + "), not this question's candidates")


def _paths_in(n: int) -> Any:
    """The chain reply: one or more of the offered chain numbers."""
    def check(data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("paths"), list) or not data["paths"]:
            raise ValueError('the output has no non-empty "paths" list')
        if any(not isinstance(x, int) or not 0 <= x < n for x in data["paths"]):
            raise ValueError(f'"paths" may hold only the path numbers 0..{n - 1}')
    return check


def _ids_in(n: int) -> Any:
    def check(data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("selected"), list):
            raise ValueError('the output has no "selected" list')
        if data.get("needed") not in ("none", "some"):
            raise ValueError('"needed" must be "none" or "some"')
        if any(not isinstance(x, int) or not 0 <= x < n for x in data["selected"]):
            raise ValueError(f'"selected" may hold only the fact numbers 0..{n - 1}')
    return check
