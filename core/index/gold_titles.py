"""Gold titles of a questions file that match no passage of a workspace, each with the questions that name it and
the nearest title the workspace has (a typo such as "Tessany Ferry Co" for "Tessany Ferry Company" is the commonest
mistake in a hand-written questions file, and a count alone left it to be found by hand).

:func:`unmatched_gold` reads matched questions (:class:`~core.index.questions.Question`, whose ``unmatched`` holds
such titles) against the workspace's titles; :func:`documents_unmatched_gold` does the same before a build, from
the documents or JSON(L) corpora about to be built (titled as the build will title them,
:func:`~core.graph.formats.documents.document_passages`, :func:`~core.graph.formats.corpus.read_corpus_json`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: how alike (difflib's ratio, case ignored) a workspace title must be to an unmatched one to be offered for it
NEAREST_CUTOFF = 0.6
#: documents read whole at drop time to title them, at most this many bytes in all (more: no check before the build)
DROP_CHECK_BYTES = 20 << 20


@dataclass(frozen=True)
class UnmatchedTitle:
    """One gold title that matches no passage: the ids of the questions naming it (file order), the nearest
    workspace title ("" when none is close), and whether the title is one here whose paragraph text matched none
    of its passages (a MuSiQue-style ``paragraphs`` gold; then there is no nearest title to offer)."""

    title: str
    questions: tuple[str, ...]
    nearest: str = ""
    is_title: bool = False


@dataclass(frozen=True)
class UnmatchedGold:
    """The first :class:`UnmatchedTitle` entries (``shown``, with their nearest titles) of ``total`` unmatched."""

    shown: tuple[UnmatchedTitle, ...]
    total: int


def nearest_title(title: str, titles: Sequence[str], *, cutoff: float = NEAREST_CUTOFF) -> str:
    """The title in ``titles`` most like ``title`` (case ignored), "" when none reaches ``cutoff``.

    >>> nearest_title("Tessany Ferry Co", ["Ferries and Landings", "Tessany Ferry Company"])
    'Tessany Ferry Company'
    >>> nearest_title("Point Break", ["Speed", "The Matrix"])
    ''
    """
    by_low: dict[str, str] = {}
    for t in titles:
        by_low.setdefault(t.lower(), t)
    got = difflib.get_close_matches(title.lower(), list(by_low), n=1, cutoff=cutoff)
    return by_low[got[0]] if got else ""


def unmatched_gold(questions: Iterable[Any], titles: Iterable[str], *, limit: int = 3) -> UnmatchedGold:
    """The gold titles of ``questions`` (each with ``id`` and ``unmatched``) that match no passage, in file order:
    the first ``limit`` with their questions and nearest title among ``titles`` (the workspace's passage titles),
    and how many there are in all."""
    named: dict[str, list[str]] = {}
    for q in questions:
        for t in getattr(q, "unmatched", ()):
            ids = named.setdefault(t, [])
            if str(q.id) not in ids:
                ids.append(str(q.id))
    if not named:
        return UnmatchedGold((), 0)
    known = sorted({t for t in titles if t})
    have = set(known)
    shown = tuple(UnmatchedTitle(t, tuple(ids), "" if t in have else nearest_title(t, known), t in have)
                  for t, ids in list(named.items())[:limit])
    return UnmatchedGold(shown, len(named))


def documents_unmatched_gold(paths: Sequence[Path], questions: Path, *, split: Any = None,
                             limit: int = 3) -> UnmatchedGold | None:
    """:func:`unmatched_gold` for a questions file against documents not built yet, each read and split as the
    build will (``split``: a :class:`~core.graph.chunking.PassageSplit`, None for the default), so their passages
    carry the build's titles. None when that cannot be told before the build: a file that is neither a document nor
    a JSON(L) corpus (triples, OpenIE, a corpus graph's edges), more than :data:`DROP_CHECK_BYTES` in all, or a questions file
    that cannot be read (its own check says why). A document that cannot be read gives no passage (the build
    leaves it out too)."""
    from core.errors import EgxError
    from core.graph.chunking import PassageSplit
    from core.graph.formats.documents import DOCUMENT_FORMATS, document_passages
    from core.graph.formats.registry import detect_format
    from core.graph.model import Chunk
    from core.index.questions import ChunkTable, load_questions_file
    from core.text import clean_text

    split = split or PassageSplit()
    try:
        if not paths or sum(Path(p).stat().st_size for p in paths) > DROP_CHECK_BYTES:
            return None
        formats = [detect_format(Path(p)) for p in paths]
        if any(f not in (*DOCUMENT_FORMATS, *JSON_CORPORA) for f in formats):
            return None  # triples, a corpus graph's edges, OpenIE: the titles come from more than one file
    except (OSError, EgxError):
        return None
    chunks: list[Chunk] = []
    for p, fmt in zip(paths, formats, strict=True):
        try:
            if fmt in JSON_CORPORA:  # {title, text} records: titled by their reader, as the build reads them
                chunks += [Chunk(f"{len(chunks)}:{c.id}", c.title, c.text) for c in _corpus_chunks(Path(p))]
                continue
            passages, _ = document_passages(Path(p), max_chars=split.max_chars, per_paragraph=split.per_paragraph)
        except EgxError:
            continue
        chunks += [Chunk(f"{len(chunks) + i}:{cid}", clean_text(title), text.strip())
                   for i, (cid, title, text) in enumerate(passages)]
    table = ChunkTable(tuple(chunks))
    try:
        qs = load_questions_file(questions, table)
    except EgxError:
        return None
    return unmatched_gold(qs, (c.title for c in chunks), limit=limit)


#: JSON(L) corpora of ``{title, text}`` records (with ids or not), whose titles the drop check reads as the build does
JSON_CORPORA = ("corpus", "corpus_nodes")


def _corpus_chunks(path: Path) -> tuple[Any, ...]:
    """The passages a JSON(L) corpus gives the build (its reader's titles and splits)."""
    from core.graph.formats.corpus import read_corpus_json
    from core.graph.graph_builder import GraphBuilder

    builder = GraphBuilder()
    read_corpus_json(path, builder)
    return builder.chunks()


def workspace_unmatched_gold(workspace: Any, questions: Iterable[Any], *, limit: int = 3) -> UnmatchedGold:
    """:func:`unmatched_gold` of ``questions`` (matched to ``workspace``) against its passages' titles (read only
    when some gold title matches nothing)."""
    from core.index.questions import chunk_table

    qs = list(questions)
    if not any(getattr(q, "unmatched", ()) for q in qs):
        return UnmatchedGold((), 0)
    return unmatched_gold(qs, (c.title for c in chunk_table(workspace).chunks), limit=limit)
