"""Triple extractors: passages → (head, relation, tail) triples (BubbleRAG §3.1 step 2).

* :class:`LLMTripleExtractor` — OpenIE-style extraction by an LLM with JSON-schema output.
* :class:`RuleBasedExtractor` — deterministic capitalization/year rules for the LLM-free
  ``none`` mode.

Both offer ``extract(passages)`` (the protocol) and ``extract_detailed(passages)`` returning an
:class:`ExtractionResult` that also says what was dropped or fell back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.backends import prompts
from core.backends.base import ChatMessage, ExtractedTriple, split_passage
from core.backends.llm_errors import LLMOutputError
from core.backends.llm_json import chat_json
from core.errors import LLMUnavailableError
from core.text import ABBREVIATIONS, clean_text, normalize_name, split_sentences


@dataclass(frozen=True)
class ExtractionResult:
    """Triples per passage plus the accounting a UI or cache needs."""

    triples: list[list[ExtractedTriple]]
    dropped: int = 0  #: malformed triples discarded (not 3 items, or an empty item)
    failed: tuple[int, ...] = ()  #: passages whose LLM output stayed unusable (they got no triples)
    calls: int = 0  #: LLM calls made (0 for rules)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)


_TRIPLE_KEYS = (("subject", "relation", "object"), ("head", "relation", "tail"),
                ("s", "r", "o"), ("subject", "predicate", "object"))


def _as_triple(item: Any) -> ExtractedTriple | None:
    """A well-formed triple, or None. Accepts [s, r, o] and {"subject", "relation", "object"}."""
    if isinstance(item, dict):
        for keys in _TRIPLE_KEYS:
            if all(k in item for k in keys):
                item = [item[k] for k in keys]
                break
        else:
            return None
    if not isinstance(item, (list, tuple)) or len(item) != 3:
        return None
    parts = []
    for x in item:
        if isinstance(x, bool) or not isinstance(x, (str, int, float)):
            return None
        s = clean_text(str(x))
        if not s:
            return None
        parts.append(s)
    return ExtractedTriple(parts[0], parts[1], parts[2])


def _clean_triples(raw: Any) -> tuple[list[ExtractedTriple], int]:
    """Well-formed, de-duplicated triples and the number dropped as malformed."""
    if not isinstance(raw, list):
        return [], 0
    out: list[ExtractedTriple] = []
    seen: set[tuple[str, str, str]] = set()
    dropped = 0
    for item in raw:
        t = _as_triple(item)
        if t is None:
            dropped += 1
            continue
        key = (normalize_name(t.head), normalize_name(t.relation), normalize_name(t.tail))
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out, dropped


def _validate_single(data: Any) -> None:
    if not isinstance(data.get("triples"), list):
        raise ValueError('"triples" must be a list of [subject, relation, object] lists')
    if data["triples"] and not _clean_triples(data["triples"])[0]:
        # Every item malformed is an unusable output, not "no triples": retried, and never cached.
        raise ValueError("none of the triples is a [subject, relation, object] list of three non-empty strings")


class LLMTripleExtractor:
    """OpenIE-style triple extraction with an LLM (prompts in :mod:`core.backends.prompts`).

    The LLM is asked for ``{"triples": [["subject", "relation", "object"], ...]}`` under a JSON
    schema (constrained decoding on llama.cpp, structured output on OpenAI-compatible servers),
    through :func:`~core.backends.llm_json.chat_json` (repair + retries). Malformed triples (not three
    items, or an empty item) are dropped and counted; ``{"subject", "relation", "object"}``
    objects are accepted too.

    Batching: consecutive *short* passages (each at most ``short_chars`` characters, together at
    most ``batch_chars``) are sent ``batch_size`` at a time as numbered passages, answered as
    ``{"passages": [{"index": i, "triples": [...]}]}``. Longer passages go one per call. If a
    batched answer is unusable or lacks an index, those passages are re-asked one per call, so
    batching never loses a passage. ``batch_size=1`` always uses one call per passage (best for
    small local models, which mix up numbered passages more often).

    Parameters
    ----------
    llm : LLM
        An available LLM backend.
    batch_size : int
        Most passages per call.
    max_tokens : int
        Output budget per passage (scaled by the number of passages in a batch).
    short_chars, batch_chars : int
        Length limits for batching, see above.

    Raises
    ------
    LLMUnavailableError
        If ``llm.available`` is False; use the ``spacy`` or ``rules`` extractor instead.
    """

    def __init__(self, llm: Any, batch_size: int = 4, *, max_tokens: int = 512,
                 short_chars: int = 600, batch_chars: int = 1800) -> None:
        if not getattr(llm, "available", False):
            raise LLMUnavailableError(
                "The 'llm' triple extractor needs an LLM, but none is configured (backend "
                f"{getattr(llm, 'name', llm)!r}). Use the 'spacy' or 'rules' extractor or configure an LLM "
                "('local' or 'openai')."
            )
        self.llm = llm
        self.batch_size = max(1, int(batch_size))
        self.max_tokens = int(max_tokens)
        self.short_chars = int(short_chars)
        self.batch_chars = int(batch_chars)
        self.name = "llm"
        self.model_id = f"llm-{prompts.TRIPLES_VERSION}:{llm.model_id}"

    def __repr__(self) -> str:
        return f"LLMTripleExtractor(llm={self.llm.model_id!r}, batch_size={self.batch_size})"

    def _groups(self, passages: Sequence[str]) -> list[list[int]]:
        groups: list[list[int]] = []
        cur: list[int] = []
        cur_chars = 0
        for i, p in enumerate(passages):
            short = len(p) <= self.short_chars
            if short and cur and len(cur) < self.batch_size and cur_chars + len(p) <= self.batch_chars:
                cur.append(i)
                cur_chars += len(p)
                continue
            if cur:
                groups.append(cur)
            cur, cur_chars = [i], len(p)
            if not short or self.batch_size == 1:
                groups.append(cur)
                cur, cur_chars = [], 0
        if cur:
            groups.append(cur)
        return groups

    def extract(self, passages: Sequence[str]) -> list[list[ExtractedTriple]]:
        """One list of triples per passage, in order (see :meth:`extract_detailed`)."""
        return self.extract_detailed(passages).triples

    def extract_detailed(self, passages: Sequence[str]) -> ExtractionResult:
        """Extract triples and report drops, failures, calls and tokens.

        Parameters
        ----------
        passages : sequence of str
            Passage texts (``"title\\ntext"`` is fine: the title gives the model context).

        Returns
        -------
        ExtractionResult
            A passage whose output stayed unusable after retries (not JSON, or only malformed
            triples) gets no triples and is listed in ``failed`` (a visible fallback, not a
            silent one); callers must not cache it as a result.

        Raises
        ------
        LLMError
            Transport failures (timeouts, unreachable server, a reply that is no chat completion,
            an open circuit breaker) stop the whole batch.
        """
        out: list[list[ExtractedTriple]] = [[] for _ in passages]
        acc = {"dropped": 0, "calls": 0, "p": 0, "c": 0}
        failed: list[int] = []
        notes: list[str] = []

        def account(resp: Any) -> None:
            acc["calls"] += resp.attempts
            acc["p"] += resp.prompt_tokens
            acc["c"] += resp.completion_tokens
            if resp.repaired:
                notes.append("an output needed JSON repair")

        for group in self._groups(passages):
            redo = group
            if len(group) > 1:
                redo = self._extract_batch([passages[i] for i in group], group, out, acc, account,
                                           notes)
            for i in redo:
                msgs = [ChatMessage("system", prompts.TRIPLES_SYSTEM),
                        ChatMessage("user", prompts.triples_prompt(passages[i]))]
                try:
                    resp = chat_json(self.llm, msgs, prompts.TRIPLES_SCHEMA,
                                     max_tokens=self.max_tokens, validate=_validate_single)
                except LLMOutputError as exc:
                    failed.append(i)
                    notes.append(f"passage {i}: no triples, output unusable ({exc})")
                    continue
                account(resp)
                triples, dropped = _clean_triples(resp.data["triples"])
                out[i] = triples
                acc["dropped"] += dropped
        if acc["dropped"]:
            notes.append(f"dropped {acc['dropped']} malformed triple(s)")
        return ExtractionResult(triples=out, dropped=acc["dropped"], failed=tuple(failed),
                                calls=acc["calls"], prompt_tokens=acc["p"],
                                completion_tokens=acc["c"], notes=tuple(notes))

    def _extract_batch(self, texts: list[str], idx: list[int], out: list[list[ExtractedTriple]],
                       acc: dict[str, int], account: Any, notes: list[str]) -> list[int]:
        """Fill ``out`` for a batch; return the indices that must be re-asked one by one."""
        msgs = [ChatMessage("system", prompts.TRIPLES_SYSTEM),
                ChatMessage("user", prompts.triples_batch_prompt(texts))]

        def validate(data: Any) -> None:
            if not isinstance(data.get("passages"), list):
                raise ValueError('"passages" must be a list of {"index", "triples"} objects')

        try:
            resp = chat_json(self.llm, msgs, prompts.TRIPLES_BATCH_SCHEMA, retries=1,
                             max_tokens=self.max_tokens * len(texts), validate=validate)
        except LLMOutputError:
            notes.append(f"batch of {len(texts)} passages unusable; asked one per call")
            return idx
        account(resp)
        got: dict[int, Any] = {}
        for entry in resp.data["passages"]:
            if isinstance(entry, dict) and isinstance(entry.get("index"), int) \
                    and 1 <= entry["index"] <= len(texts) and entry["index"] not in got:
                got[entry["index"]] = entry.get("triples")
        redo = []
        for k, i in enumerate(idx, start=1):
            if k not in got or not isinstance(got[k], list) or (got[k] and not _clean_triples(got[k])[0]):
                redo.append(i)
                continue
            triples, dropped = _clean_triples(got[k])
            out[i] = triples
            acc["dropped"] += dropped
        if redo:
            notes.append(f"batched answer lacked {len(redo)} passage{'' if len(redo) == 1 else 's'}; asked them one per call")
        return redo


# --- rule-based extraction ----------------------------------------------------------------------

_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]", re.UNICODE)
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_NUMBER = re.compile(r"^\d+$")
CONNECTORS = frozenset({"of", "the", "de", "da", "di", "del", "della", "des", "du", "von", "van",
                        "der", "den", "la", "le", "y", "al", "bin", "ibn"})
_ARTICLES = frozenset({"The", "A", "An"})
#: Capitalized words that are not names when they open a mention (sentence starts, pronouns).
LEADING_STOPWORDS = frozenset("""
I He She It We They You His Her Its Our Their My Your This That These Those There Here In On At By
For From With Without Into Onto Of To As After Before During Since Until While When Where Which Who
Whom Whose What Why How If Although Though Because But And Or Nor So Yet Also However Then Thus
Meanwhile Later Today Yesterday Tomorrow Each Every Some Many Most Several Both All Any No Not
According Under Over Between Among About Around Near Through Throughout Upon Within Despite
Besides Beside Apart Aside Except Unlike Like Beyond Against Along Following Including Excluding
Regarding Concerning Unless Whereas Whether Once
""".split())
_STOP_PUNCT = "\"'`“”‘’.,;:!?()[]{}-–—"


def _is_cap(tok: str) -> bool:
    return tok[:1].isupper() and tok[:1].isalpha()


def _is_abbrev_dot(tokens: list[str], j: int) -> bool:
    """``tokens[j]`` is a "." closing an initial or abbreviation inside a name ("J. R. R.")."""
    prev = tokens[j - 1]
    return tokens[j] == "." and j + 1 < len(tokens) and _is_cap(tokens[j + 1]) and (
        (len(prev) == 1 and prev.isupper()) or prev.lower() in ABBREVIATIONS)


def _mentions(tokens: list[str]) -> list[tuple[int, int]]:
    """Token spans ``[start, end)`` of entity mentions in one sentence."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if _is_cap(tok):
            end = j = i + 1
            while j < n:
                t = tokens[j]
                if _is_cap(t) or (_NUMBER.match(t) and not _YEAR.match(t)):
                    j += 1
                    end = j
                    continue
                if _YEAR.match(t) and j + 1 < n and _is_cap(tokens[j + 1]):
                    j += 1  # an inner year ("FIFA 2018 World Cup") stays in the name
                    continue
                if _is_abbrev_dot(tokens, j):
                    j += 1
                    continue
                if t.lower() in CONNECTORS:
                    k = j
                    while k < n and tokens[k].lower() in CONNECTORS:
                        k += 1
                    if k < n and _is_cap(tokens[k]):
                        j = k
                        continue
                break
            s = i
            while s < end and tokens[s] in LEADING_STOPWORDS:
                s += 1
            if s < end and not all(t in _ARTICLES for t in tokens[s:end]):
                spans.append((s, end))
            i = end
        elif _YEAR.match(tok):
            spans.append((i, i + 1))
            i += 1
        else:
            i += 1
    return spans


def mentions(text: str) -> list[str]:
    """Entity mentions of ``text``, sentence by sentence, verbatim and in order, by the mention rules
    of :class:`RuleBasedExtractor` (step 3). HippoRAG (v1) PPR finds query entities with it, so that
    query entities and `none`-mode KG entities follow the same rules.

    >>> mentions("Keanu Reeves starred in The Matrix in 1999.")
    ['Keanu Reeves', 'The Matrix', '1999']
    """
    out: list[str] = []
    for sent in split_sentences(clean_text(text)):
        found = list(_TOKEN.finditer(sent))
        out += [sent[found[s].start():found[e - 1].end()] for s, e in _mentions([m.group() for m in found])]
    return out


class RuleBasedExtractor:
    """Deterministic, LLM-free triple extraction for the ``none`` mode.

    For each passage:

    1. **Title.** If the passage contains a newline, its first line is the title and the rest is
       the text (pass passages as ``"title\\ntext"``); otherwise there is no title.
    2. **Sentences.** The text is split after ``.``, ``!`` or ``?`` followed by whitespace, except
       after single-letter initials and common abbreviations (see :func:`split_sentences`).
    3. **Mentions.** Words are tokens of word characters (with inner ``-``, ``'`` or ``.``). A
       mention is a maximal run of Capitalized words, which may contain runs of lower-case
       connectors (:data:`CONNECTORS`: "of", "the", "de", "von", ...) when a Capitalized word
       follows them, numbers ("Apollo 11"), 4-digit years when a Capitalized word follows
       ("FIFA 2018 World Cup"), and the dots of initials and abbreviations ("J. R. R. Tolkien",
       "Warner Bros. Pictures"). The mention text is taken verbatim from the sentence. Leading words from :data:`LEADING_STOPWORDS` (pronouns,
       prepositions, sentence-initial adverbs: "He", "In", "After", ...) are stripped; a mention
       left empty or made only of "The"/"A"/"An" is discarded. A standalone 4-digit year
       (1000–2099) is a mention of its own.
    4. **Relations.** For each pair of consecutive mentions in a sentence, the relation is the
       words between them, lower-cased, keeping only words with a letter (punctuation and bare
       numbers go); if it has more than 6 words the pair is too far apart and yields no triple;
       trailing articles are trimmed ("directed by the" → "directed by"); if no word is left
       (e.g. "Paris, France") the relation is "related to".
    5. **Title triples.** With a title, each distinct mention whose normalized name differs from
       the title's adds ``(title, "mentions", mention)``.

    Triples are de-duplicated per passage (by normalized names), keeping first occurrences.
    The output depends only on the input text.

    Examples
    --------
    >>> RuleBasedExtractor().extract(["Keanu Reeves starred in The Matrix."])[0][0]
    ExtractedTriple(head='Keanu Reeves', relation='starred in', tail='The Matrix')
    """

    name = "rules"
    model_id = "rules-v3"  # v2: an untitled passage's first line is no title; v3: "Besides", "Unlike", ... open no mention
    max_relation_words = 6

    def __repr__(self) -> str:
        return "RuleBasedExtractor()"

    def extract(self, passages: Sequence[str]) -> list[list[ExtractedTriple]]:
        """One list of triples per passage, in order."""
        return [self._extract_one(p) for p in passages]

    def extract_detailed(self, passages: Sequence[str]) -> ExtractionResult:
        """Same as :meth:`extract`, wrapped in an :class:`ExtractionResult` (no LLM calls)."""
        return ExtractionResult(triples=self.extract(passages))

    def _extract_one(self, passage: str) -> list[ExtractedTriple]:
        title, text = split_passage(passage)
        triples: list[ExtractedTriple] = []
        mentioned: list[str] = []
        for sent in split_sentences(clean_text(text)):
            found = list(_TOKEN.finditer(sent))
            tokens = [m.group() for m in found]
            spans = _mentions(tokens)
            names = [sent[found[s].start():found[e - 1].end()] for s, e in spans]
            mentioned.extend(names)
            for (_, e1), (s2, _), a, b in zip(spans, spans[1:], names, names[1:], strict=False):
                words = [t.strip(_STOP_PUNCT).lower() for t in tokens[e1:s2]]
                words = [w for w in words if any(c.isalpha() for c in w)]
                if len(words) > self.max_relation_words:
                    continue
                while words and words[-1] in ("the", "a", "an"):
                    words.pop()
                triples.append(ExtractedTriple(a, " ".join(words) or "related to", b))
        if title:
            t_key = normalize_name(title)
            for m in mentioned:
                if normalize_name(m) != t_key:
                    triples.append(ExtractedTriple(title, "mentions", m))
        seen: set[tuple[str, str, str]] = set()
        unique = []
        for t in triples:
            key = (normalize_name(t.head), t.relation, normalize_name(t.tail))
            if key not in seen and key[0] != key[2]:
                seen.add(key)
                unique.append(t)
        return unique
