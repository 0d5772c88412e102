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
from core.methods.bubblerag import heuristics, prompts
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
                        tight_json: bool = False, trace: Trace | None = None) -> Specialization:
    """Rewrite under-specified keywords into query-conditioned constraints.

    With no keyword there is nothing to specialize: the LLM is not called (source ``"empty"``).
    """
    t0 = time.perf_counter()
    step = Step("specialization", "Anchor specialization", section="BubbleRAG §3.2, Example 4")
    rewrites: dict[str, str] = {}
    source = "disabled"
    texts = [k.text for k in keywords.items]
    if enabled and not texts:
        source = "empty"
    elif enabled:
        out = ask_json(llm, prompts.SYSTEM, prompts.specialize_prompt(query, texts),
                       prompts.specialize_schema(tight_json, texts),
                       max_tokens=prompts.STAGE_MAX_TOKENS["specialization"], validate=_validate, step=step)
        if out.data is not None:
            source = "llm"
            known = {k.text.lower(): k.text for k in keywords.items}
            for r in out.data["rewrites"]:
                if isinstance(r, dict):
                    kw, sp = str(r.get("keyword", "")).strip(), str(r.get("specialized", "")).strip()
                    if kw.lower() in known and sp and sp.lower() != kw.lower():
                        rewrites[known[kw.lower()]] = sp
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
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.steps.append(step)
    return Specialization(terms, source)


def _term(k: Keyword, rewrites: dict[str, str], *, relation_cues: bool = False) -> SearchTerm:
    edges_only = relation_cues and k.kind == "explicit" and heuristics.is_relation_cue(k.text)
    if k.text in rewrites:
        return SearchTerm(k.text, rewrites[k.text], k.kind, specialized=True, edges_only=edges_only)
    return SearchTerm(k.text, k.text, k.kind, edges_only=edges_only)
