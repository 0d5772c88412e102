"""PPR's query entities (HippoRAG §3.2): the question's named entities, by LLM NER when an LLM is available,
else by the rule-based extractor's mention rules, else the whole question."""

from __future__ import annotations

import re

from core.errors import LLMError
from core.methods.base import Backends
from core.text import normalize_name


def query_entities(query: str, backends: Backends) -> tuple[list[str], str, dict[str, int], list[str]]:
    """Named entities of the query, how they were found, the LLM token counts, and the LLM's entities
    dropped because they name nothing.

    LLM NER (HippoRAG's query NER prompt) when an LLM is available; otherwise, or when the LLM
    fails, the rule-based mentions; with none found, the whole query. Of the LLM's entities, one the
    question does not write is a guess (of an answer) and one the question writes with no capital
    letter or digit ("country", "the author", "bomb") is a kind, not a named entity (HippoRAG's NER asks
    for named entities; a 1.5B model adds the question's nouns, which link to generic nodes of an OpenIE
    graph and took the walk there): both are dropped, and the trace names the kinds.
    """
    tokens = {"prompt": 0, "completion": 0}
    how = ""
    kinds: list[str] = []
    if backends.llm.available:
        from core.backends import prompts
        from core.backends.base import ChatMessage
        from core.backends.llm_json import chat_json

        msgs = [ChatMessage("system", prompts.QUERY_NER_SYSTEM), ChatMessage("user", prompts.query_ner_prompt(query))]
        try:
            resp = chat_json(backends.llm, msgs, prompts.QUERY_NER_SCHEMA, max_tokens=128)
            tokens = {"prompt": resp.prompt_tokens, "completion": resp.completion_tokens}
            ents = [str(e).strip() for e in resp.data.get("named_entities", []) if str(e).strip()]
            # "mentioned in this question": a name the question does not write is a guess (of an answer)
            written = normalize_name(query)
            kept = [e for e in ents if normalize_name(_POSSESSIVE.sub("", e)) in written]
            kinds = [e for e in kept if not _written_as_name(_POSSESSIVE.sub("", e), query)]
            kept = [e for e in kept if e not in kinds]
            if kept:
                return list(dict.fromkeys(kept)), "llm", tokens, kinds
            how = (f"the LLM's entities {', '.join(map(repr, ents[:4]))} are not names written in the question; "
                   if ents else "the LLM found no entity; ")
        except LLMError as exc:
            how = f"the LLM failed ({exc}); "
    ents = rule_mentions(query)
    if ents:
        return ents, how + "rules", tokens, kinds
    return [query.strip()], how + "whole-query", tokens, kinds


def _written_as_name(entity: str, query: str) -> bool:
    """Whether ``query`` writes ``entity`` with a capital letter or a digit in one of its words (the question's
    first word counts unless it is a function word: "What", "The" are capitalised as sentence starts).

    >>> _written_as_name("Germany", "Germany had imperial interests where?"), _written_as_name("country", "Which country?")
    (True, False)
    """
    from core.text import STOPWORDS

    for hit in re.finditer(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", query, flags=re.I):
        words = re.findall(r"\w[\w'’\-.]*", hit.group(0))
        if hit.start() == len(query) - len(query.lstrip()) and words and words[0].lower() in STOPWORDS:
            words = words[1:]
        if any(c.isdigit() for c in hit.group(0)) or any(w[:1].isupper() for w in words):
            return True
    return False


_POSSESSIVE = re.compile(r"['’]s$")


def rule_mentions(text: str) -> list[str]:
    """Capitalized-name mentions and years in ``text`` (the rule-based extractor's mention rules),
    without a possessive ``'s`` ("Lothair II's mother" → "Lothair II")."""
    from core.backends.extractors import mentions

    out = [_POSSESSIVE.sub("", m) for m in mentions(text)]
    return list(dict.fromkeys(m for m in out if m))
