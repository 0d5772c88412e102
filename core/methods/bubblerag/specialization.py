"""§3.2 "Anchor Specialization" (Example 4).

"We prompt the LLM to rewrite each underspecified keyword into a query-conditioned constraint,
explicitly binding it to other anchor intents already present in q" — "mother" becomes
"Lothair II's mother", so the similarity search prefers candidates near the subject. The rewritten
text replaces the keyword as the search signal; the original is kept for display.

`none` mode: a generic noun keyword (:func:`heuristics.is_underspecified`) is bound to the query's
entity by the possessive pattern ("X's mother") or to the nearest entity mention; a verb keyword
("die", "starred": :func:`heuristics.is_relation_cue`) names a relation and is searched among the
enriched edges only (``SearchTerm.edges_only``; with an LLM the paper's nodes ∪ edges search is kept).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from core.backends.base import LLM
from core.methods.bubblerag import checks, heuristics, prompts
from core.methods.bubblerag.keywords import Keyword, Keywords
from core.methods.llm_steps import ask_json
from core.trace import Step, Trace


@dataclass(frozen=True)
class SearchTerm:
    """One keyword as it will be searched: original text, the specialized/relaxed form used."""

    keyword: str
    search: str
    kind: str  #: explicit / implicit
    specialized: bool = False
    relaxed_from: str = ""  #: set when this term is a schema relaxation of ``keyword``
    edges_only: bool = False  #: `none` mode: a verb keyword ("die") is searched among edges only


@dataclass(frozen=True)
class Specialization:
    terms: tuple[SearchTerm, ...]
    source: str  #: "llm", "heuristic", "disabled" or "empty" (no keyword: the LLM was not asked)

    @property
    def rewrites(self) -> dict[str, str]:
        return {t.keyword: t.search for t in self.terms if t.specialized}


def _validate(data: Any) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("rewrites"), list):
        raise ValueError('expected {"rewrites": [{"keyword": ..., "specialized": ...}]}')


def specialize_keywords(query: str, keywords: Keywords, llm: LLM, *, enabled: bool = True,
                        tight_json: bool = True, trace: Trace | None = None) -> Specialization:
    """Rewrite under-specified keywords into query-conditioned constraints.

    Only keywords that are not names, titles, dates or numbers can be generic (the prompt leaves the
    others out): with none of them the LLM is not called (source ``"empty"``). Each rewrite must keep
    its keyword, bind it to something the question names and name nothing else
    (:func:`.checks.specialization_problem`); a rewrite that fails is dropped, its keyword searched as
    it is, and the trace says which check failed.
    """
    t0 = time.perf_counter()
    step = Step("specialization", "Anchor specialization", section="BubbleRAG §3.2, Example 4")
    rewrites: dict[str, str] = {}
    rejected: list[dict[str, str]] = []
    source = "disabled"
    texts = [k.text for k in keywords.items]
    generic = [k.text for k in keywords.items if not k.entity]
    if enabled and not (generic if llm.available else texts):
        source = "empty"  # nothing that could be generic: the answer is known, the LLM is not asked
    elif enabled:
        prompt = prompts.specialize_prompt(query, texts)
        out = ask_json(llm, prompts.SYSTEM, prompt, prompts.specialize_schema(tight_json, generic),
                       max_tokens=prompts.STAGE_MAX_TOKENS["specialization"], validate=_validate, step=step)
        copied = prompts.template_copies(out.data, prompt) if out.data is not None else []
        if copied:
            step.fallback = (f"check failed: the reply copies the prompt's template ({', '.join(map(repr, copied[:3]))}); "
                             "used the `none`-mode rule")
        if out.data is not None and not copied:
            source = "llm"
            known = {k.text.lower(): k.text for k in keywords.items}
            for r in out.data["rewrites"]:
                if isinstance(r, dict):
                    kw, sp = str(r.get("keyword", "")).strip(), str(r.get("specialized", "")).strip()
                    if kw.lower() in known and sp and sp.lower() != kw.lower():
                        why = checks.specialization_problem(kw, sp, query)
                        if why:
                            rejected.append({"keyword": known[kw.lower()], "specialized": sp, "check": why})
                        else:
                            rewrites[known[kw.lower()]] = sp
            if rejected:
                step.fallback = "check failed: " + "; ".join(
                    f"{r['keyword']!r} -> {r['specialized']!r}: {r['check']}" for r in rejected[:3]) + \
                    " — searched as it is"
        else:
            source = "heuristic"
            mentions = [k.text for k in keywords.items if k.entity]
            for k in keywords.items:
                if k.kind == "explicit" and heuristics.is_underspecified(k.text):
                    bound = heuristics.bind_to_entity(k.text, query, mentions)
                    if bound:
                        rewrites[k.text] = bound
    terms = tuple(_term(k, rewrites, relation_cues=source == "heuristic") for k in keywords.items)
    step.data = {"source": source, "rewrites": [{"keyword": k, "specialized": v} for k, v in rewrites.items()]}
    if rejected:
        step.data["rejected"] = rejected
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return Specialization(terms, source)


def _term(k: Keyword, rewrites: dict[str, str], *, relation_cues: bool = False) -> SearchTerm:
    edges_only = relation_cues and k.kind == "explicit" and heuristics.is_relation_cue(k.text)
    if k.text in rewrites:
        return SearchTerm(k.text, rewrites[k.text], k.kind, specialized=True, edges_only=edges_only)
    return SearchTerm(k.text, k.text, k.kind, edges_only=edges_only)
