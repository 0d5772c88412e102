"""Splitting documents into passages (BubbleRAG §3.1 step 1: "chunking the corpus into passages")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import ConfigError
from core.text import split_sentences

_PARA = re.compile(r"\n\s*\n")
#: a paragraph that ends as a sentence ends (a heading or a label does not)
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019\u00bb)\]]*$")


#: the chunker's size: characters per chunk of a text document, and of a corpus passage too long to keep whole
CHUNK_CHARS = 1200
#: a corpus passage longer than this is split into chunks of :data:`CHUNK_CHARS` before any extractor or
#: embedder sees it. Benchmark corpora's passages are their retrieval (and gold) unit and stay whole: the
#: longest MuSiQue passage has 1,909 characters, HotpotQA's and 2Wiki's are shorter; a 10 MB "passage" is not
#: one, and read whole it took the server past 4 GB in spaCy
PASSAGE_SPLIT_CHARS = 4 * CHUNK_CHARS
#: the range of passage sizes a workspace may choose for its documents (:class:`PassageSplit`)
MIN_PASSAGE_CHARS, MAX_PASSAGE_CHARS = 100, PASSAGE_SPLIT_CHARS
#: the passage sizes the Data page offers (Upload › Passages), smallest first; advice names only these
OFFERED_PASSAGE_SIZES = (300, 600, CHUNK_CHARS, 2 * CHUNK_CHARS)
#: the longest paragraph that is a heading when it does not end as a sentence ends (:func:`is_heading`)
HEADING_CHARS = 100


def chunk_text(text: str, *, max_chars: int = CHUNK_CHARS, per_paragraph: bool = False) -> list[str]:
    """Greedy, paragraph-aware chunking.

    Paragraphs (blank-line separated) are packed into chunks of at most ``max_chars`` characters;
    a paragraph longer than that is split at sentence boundaries (:func:`core.text.split_sentences`),
    and a sentence longer than that at word boundaries. No text is dropped or duplicated: joining the chunks with spaces gives back the
    words of the input in order.

    With ``per_paragraph``, no chunk holds more than one paragraph, except that a heading (a line of at most
    :data:`HEADING_CHARS` characters that does not end as a sentence ends: "Results", "Methods:") is kept
    with the paragraph after it; a paragraph longer than ``max_chars`` is still split at sentences.

    >>> chunk_text("A b.\\n\\nC d.", max_chars=100)
    ['A b.\\n\\nC d.']
    >>> chunk_text("A b.\\n\\nC d.", max_chars=100, per_paragraph=True)
    ['A b.', 'C d.']
    """
    if max_chars < 20:
        raise ValueError(f"max_chars={max_chars} is too small; use at least 20 characters per chunk")
    units: list[tuple[str, str]] = []  # (piece, separator before it)
    for p in _PARA.split(text.strip()):
        p = " ".join(p.split()) if "\n" not in p.strip() else "\n".join(ln.strip() for ln in p.strip().splitlines())
        if not p:
            continue
        if len(p) <= max_chars:
            units.append((p, "\n\n"))
            continue
        for j, s in enumerate(split_sentences(p)):
            sep = "\n\n" if j == 0 else " "
            while len(s) > max_chars:
                cut = s.rfind(" ", 0, max_chars)
                cut = cut if cut > 0 else max_chars
                units.append((s[:cut].strip(), sep))
                s, sep = s[cut:].strip(), " "
            if s:
                units.append((s, sep))
    chunks: list[str] = []
    cur = ""
    glue = False  # the chunk so far ends with a heading, which keeps the next paragraph with it
    for piece, sep in units:
        fits = bool(cur) and len(cur) + len(sep) + len(piece) <= max_chars
        if fits and (not per_paragraph or sep != "\n\n" or glue):
            cur += sep + piece
        else:
            if cur:
                chunks.append(cur)
            cur = piece
        glue = per_paragraph and sep == "\n\n" and is_heading(piece)
    if cur:
        chunks.append(cur)
    return chunks


def is_heading(paragraph: str) -> bool:
    """Whether a paragraph reads as a heading: one short line that does not end as a sentence ends."""
    p = paragraph.strip()
    return 0 < len(p) <= HEADING_CHARS and "\n" not in p and not _SENTENCE_END.search(p)


@dataclass(frozen=True)
class PassageSplit:
    """How a workspace splits its documents (.txt, .md, .pdf, .html, .docx) into passages, chosen at build
    time: paragraphs packed into passages of up to ``max_chars`` characters (the default, 1,200), or one
    passage per paragraph (``per_paragraph``; a paragraph longer than ``max_chars`` split at sentences). A
    JSON(L) corpus's passages are its records, kept whole whatever this says. Every passage keeps its
    document's title, so questions' gold titles match either way."""

    per_paragraph: bool = False
    max_chars: int = CHUNK_CHARS

    def __post_init__(self) -> None:
        if not MIN_PASSAGE_CHARS <= self.max_chars <= MAX_PASSAGE_CHARS:
            raise ConfigError(f"A passage size of {self.max_chars:,} characters is out of range: give "
                              f"{MIN_PASSAGE_CHARS:,} to {MAX_PASSAGE_CHARS:,} characters, or 'paragraph'.")

    @classmethod
    def parse(cls, spec: str | int) -> PassageSplit:
        """``"paragraph"`` (one passage per paragraph), ``"paragraph:<chars>"`` (with that limit for a long
        paragraph), ``"<chars>"`` (packed up to that many characters) or ``"packed"`` (the default).

        >>> PassageSplit.parse("paragraph"), PassageSplit.parse("600").max_chars
        (PassageSplit(per_paragraph=True, max_chars=1200), 600)
        """
        text = str(spec).strip().lower().replace(",", "").replace("_", "")
        head, _, chars = text.partition(":")
        if head in ("packed", "default") and not chars:
            return cls()
        per_paragraph = head in ("paragraph", "paragraphs")
        size = chars if per_paragraph and chars else str(CHUNK_CHARS) if per_paragraph else text
        if not size.isdigit():
            raise ConfigError(f"Passages {spec!r}: give 'paragraph' (one passage per paragraph), a number of "
                              f"characters to pack paragraphs up to (e.g. 600; the default is {CHUNK_CHARS:,}), "
                              "or 'packed' for the default.")
        return cls(per_paragraph, int(size))

    @classmethod
    def from_record(cls, chunking: Mapping[str, Any] | None) -> PassageSplit:
        """The split a manifest's ``chunking`` records (:func:`chunking_settings`); the default when it names
        none (a workspace built before the choice existed was split so)."""
        rec = (chunking or {}).get("documents")
        if not isinstance(rec, Mapping):
            return cls()
        try:
            return cls(bool(rec.get("per_paragraph", False)), int(rec.get("max_chars", CHUNK_CHARS)))
        except (TypeError, ValueError):
            raise ConfigError(f"The workspace records a document split this egx cannot read: {dict(rec)}.") from None

    @property
    def spec(self) -> str:
        """What ``egx index --passages`` takes for this split."""
        if self.per_paragraph:
            return "paragraph" if self.max_chars == CHUNK_CHARS else f"paragraph:{self.max_chars}"
        return str(self.max_chars)

    def describe(self) -> str:
        """The split in words, e.g. "one passage per paragraph"."""
        if self.per_paragraph:
            return ("one passage per paragraph" + ("" if self.max_chars == CHUNK_CHARS else
                                                   f" (longer ones split at {self.max_chars:,} characters)"))
        return (f"short paragraphs packed into passages of up to {self.max_chars:,} characters"
                + (" (the default)" if self.max_chars == CHUNK_CHARS else ""))


def chunking_settings(split: PassageSplit | None = None) -> dict[str, Any]:
    """What a workspace's manifest records of the chunker (``chunking``), so documents added later are
    split alike or refused when this egx would split them otherwise: the sizes (``chunk_chars``,
    ``passage_split_chars``) and the workspace's :class:`PassageSplit` of documents (``documents``, which a
    workspace built before the choice existed lacks: it was split by the default)."""
    split = split or PassageSplit()
    return {"chunk_chars": CHUNK_CHARS, "passage_split_chars": PASSAGE_SPLIT_CHARS,
            "documents": {"per_paragraph": split.per_paragraph, "max_chars": split.max_chars}}


#: The widest recall cut the reports show (R@10), which :func:`few_passages_warning` also checks.
WIDE_K = 10


def few_passages_warning(n_passages: int, *, split: PassageSplit | None = None, top_k: int = 5) -> str:
    """A warning when a corpus has so few passages that a method's top ``top_k`` (or top :data:`WIDE_K`, recall@10's,
    beside it) holds a third of it or more, so
    recall cannot (half or more) or can hardly (a third or more: a random top 5 of 12 passages finds 42 % of the gold)
    tell methods apart ("" when it has more than ``3 * top_k``, or none; an audit's 11 passages got no warning and
    recall@5 of 64–100 for every method). ``split``: how its documents were split (None: no passage came from a
    document, so no finer split would make more).

    >>> few_passages_warning(4, split=PassageSplit())[:60]
    "Only 4 passages: a method's top 5 holds all of them, so reca"
    >>> few_passages_warning(12)[:100]
    "Only 12 passages: a method's top 5 holds 5 of them (42 % of the corpus), so recall@5 can hardly tell"
    >>> few_passages_warning(19)[:91]
    "Only 19 passages: a method's top 10 holds 10 of them (53 % of the corpus), so recall@10 can"
    """
    if 0 < n_passages <= 3 * WIDE_K and top_k < WIDE_K and n_passages > 3 * top_k:
        # recall@10, which every report shows beside recall@5: an audit read Re2's "R@10 100 [100, 100]" on 19 passages
        how = "cannot" if n_passages <= 2 * WIDE_K else "can hardly"
        return (f"Only {n_passages} passages: a method's top {WIDE_K} holds {WIDE_K} of them ({100 * WIDE_K / n_passages:.0f} % "
                f"of the corpus), so recall@{WIDE_K} {how} tell methods apart; read recall@{top_k} (its top {top_k} holds "
                f"{100 * top_k / n_passages:.0f} %).")
    if not 0 < n_passages <= 3 * top_k:
        return ""
    held = min(top_k, n_passages)
    share = "all of them" if held == n_passages else f"{held} of them ({100 * held / n_passages:.0f} % of the corpus)"
    if split is None:
        fix = "Add more passages to tell methods apart."
    elif split.per_paragraph:
        fix = "Its documents are already one passage per paragraph: add more documents to tell methods apart."
    else:  # a smaller size only when one is offered (an audit at 300 characters, the smallest, was told to go smaller)
        smaller = [n for n in OFFERED_PASSAGE_SIZES if n < split.max_chars]
        size = f" or passages packed up to {smaller[0]:,} characters" if smaller else ""
        fix = (f"Build it again with one passage per paragraph{size} (Data › Upload: Passages; "
               "egx index … --passages paragraph), or add more documents.")
    how = "cannot" if n_passages <= 2 * top_k else "can hardly"
    return (f"Only {n_passages} passage{'s' if n_passages != 1 else ''}: a method's top {top_k} holds {share}, so "
            f"recall@{top_k} {how} tell methods apart. {fix}")
