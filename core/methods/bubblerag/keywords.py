"""§3.2 "Keyword Extraction and Latent Inference" (Example 3).

The LLM extracts explicit keywords (entities, relations, attributes) and infers implicit concepts
the query needs but does not name ("the winner of the 1921 Nobel Prize in Physics" → "Albert
Einstein"). The implicit slots (``max_implicit``, 3) go to inferred names first: a name the reply lists
as explicit but the question does not write ("The Matrix" on the Keanu question) is such an inference,
ahead of the reply's implicit concepts; an "implicit" word the question writes ("movie") is an explicit
keyword, never an inference. `none` mode: explicit keywords from :mod:`.heuristics` (capitalised mentions, numbers,
concept words); implicit concepts are the titles of the top pre-retrieved chunks that the query
does not already mention — an LLM-free stand-in for latent inference that reads the same preview
the LLM would see.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from core.backends.base import LLM
from core.graph.reader import GraphLike, nodes_named
from core.methods.bubblerag import checks, heuristics, prompts
from core.methods.bubblerag.preretrieval import PreRetrieval
from core.methods.llm_steps import ask_json
from core.text import normalize_name
from core.trace import Step, Trace


@dataclass(frozen=True)
class Keyword:
    text: str
    kind: str  #: "explicit" or "implicit"
    entity: bool  #: looks like a named entity (capitalised / number) rather than a concept word


@dataclass(frozen=True)
class Keywords:
    items: tuple[Keyword, ...]
    source: str  #: "llm" or "heuristic"

    @property
    def explicit(self) -> tuple[str, ...]:
        return tuple(k.text for k in self.items if k.kind == "explicit")

    @property
    def implicit(self) -> tuple[str, ...]:
        return tuple(k.text for k in self.items if k.kind == "implicit")


def _key(text: str) -> str:
    """What makes two keywords one: case and a leading article aside ("The Matrix" is "Matrix")."""
    words = text.lower().split()
    return " ".join(words[1:] if len(words) > 1 and words[0] in ("the", "a", "an") else words)


def _is_entity(text: str) -> bool:
    return any(c.isupper() or c.isdigit() for c in text)


def _join_node_names(query: str, mentions: list[str], graph: GraphLike) -> list[str]:
    """The `none`-mode mentions with "A and B" joined into one where a graph node has that name ("Procter
    and Gamble", or "Procter & Gamble" when the node writes the "&"), as the question writes it; names
    the graph does not join stay two keywords ("Tom and Jerry met")."""
    pairs = heuristics.conjoined_names(query, mentions)
    if not pairs:
        return mentions
    known = nodes_named(graph, [normalize_name(n) for _, names in pairs for n in names])
    out = list(mentions)
    for i, names in reversed(pairs):  # from the right, so an earlier index still points at its mention
        if any(normalize_name(n) in known for n in names) and out[i + 1] == mentions[i + 1]:
            out[i:i + 2] = [names[0]]
    return out


def _validate(data: Any) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("explicit"), list) or not isinstance(data.get("implicit"), list):
        raise ValueError('expected {"explicit": [...], "implicit": [...]}')
    if not [k for k in data["explicit"] if isinstance(k, str) and k.strip()]:
        raise ValueError("no explicit keywords were given")


def extract_keywords(query: str, pre: PreRetrieval | None, graph: GraphLike, llm: LLM, *, max_keywords: int = 8,
                     max_implicit: int = prompts.MAX_IMPLICIT, none_implicit: int | None = 2, tight_json: bool = True,
                     trace: Trace | None = None) -> Keywords:
    """Explicit + implicit keywords for ``query``.

    Parameters
    ----------
    pre
        The pre-retrieval result; its chunks are the preview shown to the LLM (and, in `none`
        mode, the source of implicit concepts). None: no pre-retrieval (the §4.3 ablation "w/o
        Schema Relaxation"): the prompt has no preview block at all.
    max_keywords
        Upper bound on explicit keywords kept (the first ones in query order).
    none_implicit
        `none` mode only: implicit keywords taken from the preview titles (None: ``max_implicit``).
    """
    t0 = time.perf_counter()
    step = Step("keywords", "Keyword extraction with latent inference", section="BubbleRAG §3.2, Example 3")
    preview = [(graph.chunk(c).title, graph.chunk(c).text) for c in pre.chunk_ids] if pre is not None else []
    prompt = prompts.keywords_prompt(query, preview if pre is not None else None)
    out = ask_json(llm, prompts.SYSTEM, prompt, prompts.keywords_schema(tight_json),
                   max_tokens=prompts.STAGE_MAX_TOKENS["keywords"], validate=_validate, step=step)
    copied = prompts.template_copies(out.data, prompt) if out.data is not None else []
    if copied:  # the format line copied instead of filled: not keywords of this question
        step.fallback = (f"check failed: the reply copies the prompt's template ({', '.join(map(repr, copied[:3]))}); "
                         "used the `none`-mode keywords")
        out = replace(out, data=None)
    items: list[Keyword] = []
    seen: set[str] = set()

    def add(text: str, kind: str) -> None:
        t = " ".join(str(text).split()).strip(" .,;:?!")
        if t and _key(t) not in seen:
            seen.add(_key(t))
            items.append(Keyword(t, kind, _is_entity(t)))

    moved: list[str] = []
    written: list[str] = []
    if out.data is not None:
        source = "llm"
        explicit = [str(k) for k in out.data["explicit"]][:max_keywords]
        implicit = [str(k) for k in out.data["implicit"]]
        # "explicit" means written in the question; a name the reply lists there but the question does not
        # write is an inference (from the preview): it is an implicit keyword, and the first kind kept
        moved = [k for k in explicit if not checks.written_in(k, query)]
        # an "implicit" word the question writes ("movie", "villain") is no inference: it is a keyword of
        # the question, kept as explicit (within the explicit limit), never in an implicit slot
        written = [k for k in implicit if checks.written_in(k, query)]
        for k in [*[k for k in explicit if k not in moved], *written]:
            if len([i for i in items if i.kind == "explicit"]) < max_keywords:
                add(k, "explicit")
        inferred = [*moved, *[k for k in implicit if k not in written]]
        for k in inferred:
            if len([i for i in items if i.kind == "implicit"]) >= max_implicit:
                break
            add(k, "implicit")
    else:
        source = "heuristic"
        mentions = _join_node_names(query, heuristics.entity_mentions(query), graph)
        for m in mentions:
            add(m, "explicit")
        for w in heuristics.concept_words(query, mentions):
            if len([k for k in items if k.kind == "explicit"]) < max_keywords:
                add(w, "explicit")
        ql = query.lower()
        n_implicit = max_implicit if none_implicit is None else none_implicit
        for title, _ in preview:
            if len([k for k in items if k.kind == "implicit"]) >= n_implicit:
                break
            if title and title.lower() not in ql:
                add(title, "implicit")
        if not items:  # a query of only stopwords: search with the query itself
            add(query, "explicit")
    step.data = {"source": source, "explicit": [k.text for k in items if k.kind == "explicit"],
                 "implicit": [k.text for k in items if k.kind == "implicit"]}
    if moved:
        step.data["moved_to_implicit"] = moved  # listed as explicit, not written in the question
    if written:
        step.data["moved_to_explicit"] = written  # listed as implicit, but written in the question
    if source == "llm":
        step.data["rule"] = ("implicit = names the reply infers (listed as explicit but not written in the question) "
                             "first, then its implicit concepts, at most "
                             f"{max_implicit}; implicit words the question writes count as explicit (§3.2)")
    if pre is None:
        step.data["preview"] = "none: no chunk was retrieved before anchor selection (BubbleRAG §4.3)"
    if source == "heuristic":
        step.data["rule"] = ("explicit = capitalised mentions, numbers and concept words of the query; "
                             "implicit = titles of the top pre-retrieved chunks the query does not mention")
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return Keywords(tuple(items), source)
