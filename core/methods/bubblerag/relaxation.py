"""§3.2 "Schema Relaxation" (Example 5).

The pre-retrieved chunks are previews of local communities. "If a chunk confirms the presence of
highly relevant neighbors, a strict structural condition may be relaxed to a necessary (but not
sufficient) one" — "second marriage" → "marriage" when a chunk mentions the marriage, the son and
the war together. A relaxation *adds* the relaxed form as a further search term of the same
keyword (so recall can only grow) and records which chunk justified it and why.

`none` mode: a multi-word concept keyword with a qualifying modifier is relaxed to its head
(:func:`heuristics.relax_keyword`) when some preview chunk mentions the relaxed form and at least
one other keyword of the query — the co-occurrence the paper asks the chunk to confirm.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from core.backends.base import LLM
from core.graph.reader import GraphLike
from core.methods.bubblerag import checks, heuristics, prompts
from core.methods.bubblerag.preretrieval import PreRetrieval
from core.methods.bubblerag.specialization import SearchTerm, Specialization
from core.methods.llm_steps import ask_json
from core.trace import Step, Trace


@dataclass(frozen=True)
class Relaxed:
    keyword: str
    relaxed: str
    chunk_id: str
    reason: str


@dataclass(frozen=True)
class Relaxation:
    terms: tuple[SearchTerm, ...]  #: the specialized terms plus one per relaxation
    relaxed: tuple[Relaxed, ...]
    source: str  #: "llm", "heuristic", "disabled" or "empty" (no keyword: the LLM was not asked)


def _validate(data: Any) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("relaxations"), list):
        raise ValueError('expected {"relaxations": [...]}')


def relax_schema(query: str, spec: Specialization, pre: PreRetrieval, graph: GraphLike, llm: LLM, *,
                 enabled: bool = True, tight_json: bool = True, trace: Trace | None = None) -> Relaxation:
    """Relax schema-sensitive keywords where a preview chunk confirms the neighbourhood.

    Only a concept keyword of two or more words can lose a qualifier: with none the LLM is not asked. A
    relaxation must be its keyword with a qualifier dropped (:func:`.checks.relaxation_problem`); one that
    is not is dropped and the trace says so.
    """
    t0 = time.perf_counter()
    step = Step("relaxation", "Schema relaxation from preview chunks", section="BubbleRAG §3.2, Example 5")
    relaxed: list[Relaxed] = []
    rejected: list[dict[str, str]] = []
    source = "disabled"
    keywords = list(dict.fromkeys(t.keyword for t in spec.terms))
    # a concept with a qualifier ("second marriage"), not a name: a name is no schema label to relax
    qualified = [k for k in keywords if len(k.split()) >= 2 and not any(c.isupper() or c.isdigit() for c in k)]
    chunks = [graph.chunk(c) for c in pre.chunk_ids]
    if enabled and chunks and not (qualified if llm.available else keywords):
        source = "empty"  # no keyword has a qualifier to drop: the LLM is not asked
    elif enabled and chunks:
        prompt = prompts.relax_prompt(query, keywords, [(c.title, c.text) for c in chunks])
        out = ask_json(llm, prompts.SYSTEM, prompt, prompts.relax_schema(tight_json, qualified, len(chunks)),
                       max_tokens=prompts.STAGE_MAX_TOKENS["relaxation"], validate=_validate, step=step)
        copied = prompts.template_copies(out.data, prompt) if out.data is not None else []
        if copied:
            step.fallback = (f"check failed: the reply copies the prompt's template ({', '.join(map(repr, copied[:3]))}); "
                             "used the `none`-mode rule")
        known = {k.lower(): k for k in keywords}
        if out.data is not None and not copied:
            source = "llm"
            for r in out.data["relaxations"]:
                if not isinstance(r, dict):
                    continue
                kw, rx = str(r.get("keyword", "")).strip(), str(r.get("relaxed", "")).strip()
                idx = r.get("passage")
                if kw.lower() in known and rx and rx.lower() != kw.lower() and isinstance(idx, int) \
                        and 1 <= idx <= len(chunks):
                    why = checks.relaxation_problem(kw, rx)
                    if why:
                        rejected.append({"keyword": known[kw.lower()], "relaxed": rx, "check": why})
                        continue
                    c = chunks[idx - 1]
                    body = f"{c.title} {c.text}".lower()
                    others = [o for o in keywords if o.lower() != kw.lower() and o.lower() in body]
                    relaxed.append(Relaxed(known[kw.lower()], rx, c.id, str(r.get("reason", "")) or (
                        f"passage {idx} mentions {', '.join(map(repr, others[:3]))}" if others else f"passage {idx}")))
            if rejected:
                ruled = _rule_relaxations([r["keyword"] for r in rejected], keywords, chunks)
                relaxed.extend(ruled)
                by_rule = {r.keyword for r in ruled}
                step.fallback = "check failed: " + "; ".join(
                    f"{r['keyword']!r} -> {r['relaxed']!r}: {r['check']}" for r in rejected[:3]) + (
                    " — used the `none`-mode rule for " + ", ".join(map(repr, sorted(by_rule))) if by_rule
                    else " — not relaxed")
        else:
            source = "heuristic"
            relaxed.extend(_rule_relaxations([t.keyword for t in spec.terms if t.kind == "explicit" and t.keyword.islower()],
                                             keywords, chunks))
    elif enabled:
        step.fallback = "no preview chunks to confirm a relaxation"
    terms = list(spec.terms)
    kinds = {t.keyword: t.kind for t in spec.terms}
    for r in relaxed:
        terms.append(SearchTerm(r.keyword, r.relaxed, kinds.get(r.keyword, "explicit"), relaxed_from=r.keyword))
    step.data = {"source": source, "relaxed": [r.__dict__ for r in relaxed]}
    if rejected:
        step.data["rejected"] = rejected
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return Relaxation(tuple(terms), tuple(relaxed), source)


def _rule_relaxations(candidates: list[str], keywords: list[str], chunks: list[Any]) -> list[Relaxed]:
    """The `none`-mode rule (also what a rejected LLM relaxation falls back on): each keyword of
    ``candidates`` loses its qualifying modifier (:func:`.heuristics.relax_keyword`, kept only when it is a
    relaxation by :func:`.checks.relaxation_problem`) where a preview chunk mentions the relaxed form
    together with another keyword of the query — the co-occurrence Example 5 asks the chunk to confirm."""
    out: list[Relaxed] = []
    for kw in dict.fromkeys(candidates):
        rx = heuristics.relax_keyword(kw)
        if not rx or checks.relaxation_problem(kw, rx):
            continue
        others = [k for k in keywords if k != kw]
        for c in chunks:
            body = f"{c.title} {c.text}".lower()
            hits = [o for o in others if o.lower() in body]
            if rx.lower() in body and hits:
                out.append(Relaxed(kw, rx, c.id, f"chunk mentions {rx!r} together with {', '.join(map(repr, hits[:3]))}"))
                break
    return out
