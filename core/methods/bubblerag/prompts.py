"""BubbleRAG prompts and their JSON schemas, in one module (as nano-graphrag keeps its prompts).

Each prompt states the stage's job in the paper's words (§3.2, §3.5, §3.6) and asks for one small
JSON object whose schema is handed to backends that constrain decoding (llama.cpp's grammar, an
OpenAI-compatible ``response_format``). They are written for the small local model we ship
(Qwen2.5-Coder-1.5B), which copies what a prompt shows:

* **No example values.** A format line shows the shape with placeholders in angle brackets
  (``"<a keyword of the question>"``), never a made-up entity, weight or reply that could be copied
  into a search term; :func:`template_copies` finds a reply that copies a placeholder anyway
  (:mod:`.checks`). The grouping template shows *several* groups, one per query concept.
* **Bounded schemas** (the default ``tight_json``): lists as long as the prompt allows, ids and
  passage numbers from the offered ones (enums), short strings, at least two groups when two or more
  concepts have candidates — so a reply cannot run on until ``max_tokens`` or name an id that does
  not exist.
* **A shared beginning.** The three stages that read the preview passages (sufficiency, keywords,
  relaxation) open with the same block, question first and passages after, and put their own task
  last, so llama.cpp reads that block once and reuses it (:class:`~core.backends.llm_local.LlamaCppLLM`
  keeps the prompt states of a question). The paper gives the stages' contents, not their layout:
  this order is ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

SYSTEM = ("You are the retrieval planner of a graph RAG system over a knowledge graph whose schema is unknown. "
          "Reply with the requested JSON object only.")

#: characters of each preview passage shown to the planning stages (one limit for all of them, so the
#: preview block is the same text in each and is read once)
PREVIEW_CHARS = 400


def _passages(chunks: Sequence[tuple[str, str]], limit: int = PREVIEW_CHARS) -> str:
    return "\n".join(f"[{i + 1}] {t}: {' '.join(x.split())[:limit]}" for i, (t, x) in enumerate(chunks))


def passage_lines(chunks: Sequence[tuple[str, str]], limit: int = PREVIEW_CHARS) -> list[str]:
    """Each ``(title, text)`` passage as a prompt line shows it (without its ``[i]`` number): what a comparison
    budget counts of it (:mod:`core.methods.budget`)."""
    return [f"{t}: {' '.join(x.split())[:limit]}" for t, x in chunks]


#: Characters of a source passage the answer prompt shows (§3.6).
ANSWER_PASSAGE_CHARS = 900


def preview_block(query: str, chunks: Sequence[tuple[str, str]]) -> str:
    """The opening every preview-reading stage shares: the question, then the preview passages."""
    return (f"Question: {query}\n\nPreview passages (retrieved by similarity; they may or may not be relevant):\n"
            f"{_passages(chunks) or '(none)'}\n\n")


# ---------------------------------------------------------------- §3.2 pre-retrieval sufficiency
def sufficiency_prompt(query: str, chunks: Sequence[tuple[str, str]]) -> str:
    return (preview_block(query, chunks) +
            "Task: do these passages alone state every fact needed to answer the question? A question with "
            "several steps (a person's relative, the place of an event of a work) needs each step stated in the "
            "passages. If they do, give the short answer as written in a passage; if not, say false and leave the "
            "answer empty.\n"
            'Format: {"sufficient": <true or false>, "answer": "<the short answer, or empty>"}')


# ---------------------------------------------------------------- §3.2 keywords + latent inference
def keywords_prompt(query: str, chunks: Sequence[tuple[str, str]] | None) -> str:
    """``chunks`` None: no pre-retrieval (§4.3, w/o Schema Relaxation), so no preview block and the
    implicit keywords are inferred from the question alone."""
    head, source = (preview_block(query, chunks), "the question and the passages") if chunks is not None \
        else (f"Question: {query}\n\n", "the question")
    return (head +
            "Task: list the keywords needed to find the evidence in a knowledge graph.\n"
            "- explicit: the entities, relations and attributes written in the question, in its own words;\n"
            f"- implicit: concepts the question needs but does not name, inferred from {source}, "
            "such as the entity that a description in the question refers to. Leave it empty when "
            "nothing is implied.\n"
            f"Give each keyword once; at most {MAX_KEYWORDS} explicit and {MAX_IMPLICIT} implicit.\n"
            'Format: {"explicit": ["<words of the question>", ...], "implicit": ["<an inferred concept>", ...]}')


# ---------------------------------------------------------------- §3.2 anchor specialization
def specialize_prompt(query: str, keywords: Sequence[str]) -> str:
    listed = "\n".join(f"- {k}" for k in keywords) or "- (none)"
    return (f"Question: {query}\n\nKeywords:\n{listed}\n\n"
            "Task: a generic keyword (a relation or a role, such as a family relation, a job, an event or a "
            "date) matches thousands of graph elements on its own. Rewrite each generic keyword into a "
            "constraint that binds it to the named entity of the question it belongs to, using only words "
            "of the question (a generic keyword K about the entity E becomes \"E's K\"). Do not answer the "
            "question and do not name anything the question does not name. Leave out keywords that are "
            "already specific (names, titles, dates, numbers).\n"
            'Format: {"rewrites": [{"keyword": "<a generic keyword>", "specialized": "<the entity\'s keyword>"}, '
            "...]}")


# ---------------------------------------------------------------- §3.2 schema relaxation
def relax_prompt(query: str, keywords: Sequence[str], chunks: Sequence[tuple[str, str]]) -> str:
    listed = "\n".join(f"- {k}" for k in keywords) or "- (none)"
    return (preview_block(query, chunks) + f"Keywords:\n{listed}\n\n"
            "Task: a knowledge graph may store a concept under a more general label than the question uses "
            "(without an ordinal, an adjective or a time). If a preview passage shows the question's other "
            "concepts together, relax such a qualified keyword to the general label it implies, by dropping the "
            "qualifier, and cite that passage's number. Relax nothing else; an empty list is a fine answer.\n"
            'Format: {"relaxations": [{"keyword": "<a keyword>", "relaxed": "<the keyword without its '
            'qualifier>", "passage": <passage number>}, ...]}')


# ---------------------------------------------------------------- §3.2 grouping + weights
def grouping_prompt(query: str, concepts: Sequence[str], candidates: Sequence[tuple[str, str, str, str]]) -> str:
    """``concepts``: the query's keywords; ``candidates``: ``(id, kind, text, keyword it was found for)``."""
    listed = "\n".join(f"- {c}" for c in concepts) or "- (none)"
    lines = "\n".join(f"{cid} [{kind}] {text} (found for: {kw})" for cid, kind, text, kw in candidates)
    return (f"Question: {query}\n\nQuery concepts:\n{listed}\n\nCandidate graph elements (id [node|edge] text, "
            f"and the concept whose search found it):\n{lines or '(none)'}\n\n"
            "Task: group the candidates by the query concept they stand for: one group per concept, holding the "
            "candidates that realise it (usually those found for it; a candidate found for another concept may "
            "belong to this one). Two concepts that name the same thing share one group. Leave out candidates "
            "that realise no concept. Weigh each group by how central it is to answering: the question's core "
            "subject highest, its relations next, peripheral modifiers (dates, attributes) lowest; the weights "
            "add up to 1.\n"
            'Format: {"groups": [{"concept": "<a query concept>", "weight": <0 to 1>, "members": ["<id>", ...]}, '
            '{"concept": "<another query concept>", "weight": <0 to 1>, "members": ["<id>", ...]}, ...]}')


def grouping_review_prompt(query: str, groups: Sequence[tuple[str, str, Sequence[tuple[str, str, str]]]],
                           takeable: Mapping[str, Sequence[str]] | None = None) -> str:
    """§3.2 as a review of a proposed grouping (``BubbleConfig.review_grouping``, the default for small models).

    ``groups``: ``(group id, concept, [(candidate id, kind, text), ...])``, one per query concept, holding the
    candidates its search found; ``takeable``: per group, the elements of other groups its search also found.
    The LLM keeps the candidates that stand for a group's concept, takes those of another group that stand for
    it instead, names the groups that are one concept, and weighs each group: the paper's grouping and
    weighting, asked so that a small model cannot put every candidate into one group."""
    takeable = takeable or {}

    def block(gid: str, concept: str, mem: Sequence[tuple[str, str, str]]) -> str:
        also = f"\n  (its search also found: {', '.join(takeable[gid])})" if takeable.get(gid) else ""
        return f'{gid}: concept "{concept}"\n' + "\n".join(f"  {cid} [{kind}] {text}" for cid, kind, text in mem) + also

    blocks = "\n\n".join(block(gid, concept, mem) for gid, concept, mem in groups)
    ids = ", ".join(gid for gid, _, _ in groups)
    return (f"Question: {query}\n\nProposed anchor groups, one per query concept, each holding the graph elements "
            f"its search found (id [node|edge] text):\n\n{blocks}\n\n"
            "Task: review the groups. For each group, keep the elements that stand for its concept (leave out the "
            "others); under \"take\", list elements of other groups that its search also found and that stand for "
            "this group's concept rather than their own (usually none). Under \"same\", list pairs of groups that "
            "name one and the same concept (usually none). "
            "Weigh each group by how central its concept is to answering, whatever its place in the list: the "
            "question's core subject highest, its relations next, peripheral modifiers (dates, attributes) lowest; "
            "the weights add up to 1.\n"
            f'Format: one entry per group ({ids}): {{"<group id>": {{"weight": <0 to 1>, "keep": ["<element id>", ...], '
            '"take": ["<element id of another group>", ...]}, ..., "same": [["<group id>", "<group id>"], ...]}')


MAX_SAME = 2  #: pairs of proposed groups one review may merge


MAX_TAKE = 3  #: elements of other groups one group may take in a review


def grouping_review_schema(groups: Sequence[tuple[str, Sequence[str]]],
                           takeable: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """Every proposed group, in order, with its weight, the ids it keeps (its own members only, at least one)
    and the ids it takes from other groups (``takeable[gid]`` only, at most :data:`MAX_TAKE`; no ``take`` key
    for a group with nothing takeable); at most
    ``min(MAX_SAME, len(groups) - 2)`` pairs of group ids under ``same``."""
    gids = [gid for gid, _ in groups]
    takeable = takeable or {}
    props: dict[str, Any] = {}
    for gid, members in groups:
        others = list(dict.fromkeys(takeable.get(gid, ())))
        entry: dict[str, Any] = {"weight": {"type": "number", "minimum": 0, "maximum": 1},
                                 "keep": {"type": "array", "items": _enum(members), "minItems": 1,
                                          "maxItems": len(set(members))}}
        # a group with nothing to take has no "take" key at all: llama.cpp's grammar builder bounds an array
        # only when it has "items", so {"maxItems": 0} alone let the 1.5B model write any JSON there (3 of 5
        # re-recorded demo reviews were unusable)
        if others:
            entry["take"] = {"type": "array", "items": _enum(others), "maxItems": min(MAX_TAKE, len(others))}
        props[gid] = _obj(entry)
    pair = {"type": "array", "items": _enum(gids), "minItems": 2, "maxItems": 2}
    # at most k - 2 merges (and 2): at least two groups remain, so no reply can collapse them (the 1.5B model
    # listed every pair of the Lothair question's four groups as "same")
    props["same"] = {"type": "array", "items": pair, "maxItems": min(MAX_SAME, max(0, len(gids) - 2))}
    return _obj(props)


def grouping_review_max_tokens(groups: Sequence[tuple[str, Sequence[str]]],
                               takeable: Mapping[str, Sequence[str]] | None = None) -> int:
    """``max_tokens`` for one review: room for the longest reply :func:`grouping_review_schema` allows,
    counted in Qwen2.5 tokens as the 1.5B model writes it (``"g1": {"weight": 0.5, "keep": [`` ≈ 16 tokens a
    group, ``"c12", `` ≈ 5 a kept or taken id, ``, "take": [`` ≈ 6, ``"same": [["g1", "g2"], ...]`` ≈ 12 a
    pair), never below ``STAGE_MAX_TOKENS["grouping_review"]``. A fixed 200 stopped 16 of the 19 review
    replies recorded on MuSiQue mid-reply (five to seven groups of five), so all three tries failed and the
    grouping fell back."""
    takeable = takeable or {}
    need = 8 + sum(22 + 5 * len(set(members)) + 5 * min(MAX_TAKE, len(set(takeable.get(gid, ()))))
                   for gid, members in groups)
    need += 12 * min(MAX_SAME, max(0, len(groups) - 2))
    return max(STAGE_MAX_TOKENS["grouping_review"], need)


# ---------------------------------------------------------------- §3.5 reasoning-aware expansion
def expand_prompt(query: str, evidence: Sequence[str], neighbours: Sequence[tuple[str, str]]) -> str:
    ev = "\n".join(f"- {t}" for t in evidence) or "- (none yet)"
    nb = "\n".join(f"{nid}: {t}" for nid, t in neighbours)
    return (f"Question: {query}\n\nCurrent evidence (triples):\n{ev}\n\nNeighbouring triples you may add:\n{nb}\n\n"
            "Task: select the neighbouring triples that lead toward the answer: the relation the question asks "
            "about, or the next step toward it. Skip attributes the question does not ask about. Select none if "
            "none helps. Say sufficient only if the evidence with your selection names the answer itself.\n"
            'Format: {"selected": ["<n id>", ...], "sufficient": <true or false>}')


# ---------------------------------------------------------------- §3.6 answer
ANSWER_SYSTEM = ("You answer questions from retrieved evidence: a knowledge-graph reasoning skeleton and source "
                 "passages. Answer with a short phrase (an entity, date or number), no explanation.")


def answer_prompt(query: str, triples: Sequence[str], chunks: Sequence[tuple[str, str]]) -> str:
    sk = "\n".join(f"- {t}" for t in triples) or "- (none)"
    return (f"Reasoning skeleton (triples from the evidence graph):\n{sk}\n\nSource passages:\n{_passages(chunks, ANSWER_PASSAGE_CHARS)}\n\n"
            f"Question: {query}\nAnswer:")


# ---------------------------------------------------------------- placeholders (checks)
_PLACEHOLDER = re.compile(r"<([^<>]{3,})>")


def placeholders(prompt: str) -> tuple[str, ...]:
    """The placeholder texts of a prompt's format line (``<a keyword of the question>``)."""
    return tuple(dict.fromkeys(m.group(1).strip() for m in _PLACEHOLDER.finditer(prompt)))


def template_copies(reply: Any, prompt: str) -> list[str]:
    """Strings of ``reply`` that copy a placeholder of ``prompt`` (e.g. ``"<a query concept>"`` or
    ``"a query concept"`` returned as a concept): the model filled the template with itself."""
    from core.methods.copy_check import reply_strings

    marks = {p.lower() for p in placeholders(prompt)}
    return [x for x in reply_strings(reply)
            if x.strip().strip("<>").strip().lower() in marks or ("<" in x and ">" in x)]


# ---------------------------------------------------------------- bounded JSON (tight_json, the default)
#: ``max_tokens`` per LLM stage, in one place (the answer's is ``BubbleConfig.answer_max_tokens``),
#: fitted to what the bounded schema lets a reply hold (a ceiling it does not reach while repeating
#: itself); the unbounded schemas (``tight_json=False``) use the same limits.
STAGE_MAX_TOKENS: dict[str, int] = {
    "preretrieval": 60,
    "keywords": 160,
    "specialization": 160,
    "relaxation": 200,
    "grouping": 400,
    "grouping_review": 200,
    "reasoning": 120,
}

#: Character limits of the bounded schemas: a keyword or concept is a short phrase.
SHORT, PHRASE = 60, 100
MAX_KEYWORDS = 6  #: explicit keywords the prompt allows
MAX_IMPLICIT = 3  #: implicit keywords the prompt allows


def _str(max_len: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len}


def _enum(values: Sequence[Any]) -> dict[str, Any]:
    return {"enum": list(dict.fromkeys(values))}


def _obj(props: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required if required is not None else props)}


def sufficiency_schema(tight: bool = True) -> dict[str, Any]:
    """§3.2 sufficiency check: a verdict and a short answer."""
    return _obj({"sufficient": {"type": "boolean"}, "answer": _str(PHRASE) if tight else {"type": "string"}})


def keywords_schema(tight: bool = True) -> dict[str, Any]:
    """§3.2 keywords; bounded: at most 6 explicit and 3 implicit short items, as the prompt asks."""
    if not tight:
        return _obj({"explicit": {"type": "array", "items": {"type": "string"}},
                     "implicit": {"type": "array", "items": {"type": "string"}}})
    return _obj({"explicit": {"type": "array", "items": _str(SHORT), "minItems": 1, "maxItems": MAX_KEYWORDS},
                 "implicit": {"type": "array", "items": _str(SHORT), "maxItems": MAX_IMPLICIT}})


def specialize_schema(tight: bool, keywords: Sequence[str]) -> dict[str, Any]:
    """§3.2 specialization; bounded: at most one rewrite per keyword, naming one of the given keywords."""
    if not tight or not keywords:
        return _obj({"rewrites": {"type": "array", "items": _obj({"keyword": {"type": "string"},
                                                                 "specialized": {"type": "string"}})}})
    item = _obj({"keyword": _enum(keywords), "specialized": _str(PHRASE)})
    return _obj({"rewrites": {"type": "array", "items": item, "maxItems": len(set(keywords))}})


def relax_schema(tight: bool, keywords: Sequence[str], n_passages: int) -> dict[str, Any]:
    """§3.2 relaxation; bounded: at most one relaxation per keyword, citing a shown passage."""
    if not tight or not keywords or n_passages < 1:
        return _obj({"relaxations": {"type": "array", "items": _obj({
            "keyword": {"type": "string"}, "relaxed": {"type": "string"}, "passage": {"type": "integer"}})}})
    item = _obj({"keyword": _enum(keywords), "relaxed": _str(SHORT), "passage": _enum(range(1, n_passages + 1))})
    return _obj({"relaxations": {"type": "array", "items": item, "maxItems": len(set(keywords))}})


def grouping_schema(tight: bool, concepts: Sequence[str], candidate_ids: Sequence[str], *,
                    min_groups: int = 1) -> dict[str, Any]:
    """§3.2 grouping; bounded: a group per query concept (named from the given ones), members from the
    offered candidate ids, and at least ``min_groups`` groups (two when two concepts have candidates)."""
    if not tight or not candidate_ids or not concepts:
        return _obj({"groups": {"type": "array", "items": _obj({
            "concept": {"type": "string"}, "weight": {"type": "number"},
            "members": {"type": "array", "items": {"type": "string"}}})}})
    n = len(set(candidate_ids))
    item = _obj({"concept": _enum(concepts), "weight": {"type": "number", "minimum": 0, "maximum": 1},
                 "members": {"type": "array", "items": _enum(candidate_ids), "minItems": 1, "maxItems": n}})
    k = len(set(concepts))
    return _obj({"groups": {"type": "array", "items": item, "minItems": max(1, min(min_groups, k)), "maxItems": k}})


def expand_schema(tight: bool, labels: Sequence[str]) -> dict[str, Any]:
    """§3.5 expansion hop; bounded: only the offered neighbour labels, at most 5 a hop."""
    if not tight or not labels:
        return _obj({"selected": {"type": "array", "items": {"type": "string"}}, "sufficient": {"type": "boolean"}})
    return _obj({"selected": {"type": "array", "items": _enum(labels), "maxItems": min(MAX_SELECTED, len(set(labels)))},
                 "sufficient": {"type": "boolean"}})


MAX_SELECTED = 5  #: neighbour triples one §3.5 hop may select (the prompt's "the relation ... or the next step")
