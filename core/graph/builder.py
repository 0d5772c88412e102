"""Corpus → KG (BubbleRAG §3.1): chunk the corpus, extract triples per chunk, merge into one graph.

"(1) chunking the corpus into passages, (2) using an LLM to extract triplets from each passage,
and (3) indexing the triplets into a graph structure. Crucially, entities appearing in different
chunks, potentially from different source documents, are linked into a single graph."

Extraction is batched, cached per chunk (key: extractor id + chunk content hash, with the text of the
passage before it for an extractor that reads it; one small JSON file each, written atomically), and therefore resumable: an interrupted build restarts where it
stopped. Only successes are cached: a chunk whose LLM output stayed unusable gets no triples, is
listed in :attr:`ExtractionResult.failed` (the build summary and the workspace manifest report it)
and is asked again by the next build; an endpoint that fails outright stops the build with an
error that says the chunks done so far are cached. Entities merge by normalized name
(:func:`core.text.normalize_name`), and every node and edge keeps the ids of the chunks it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.backends.base import (
    BatchExtraction,
    BatchRunner,
    ExtractedTriple,
    TripleExtractor,
    extract_batch,
    with_previous,
)
from core.errors import LLMError, LLMUnavailableError
from core.fsio import atomic_write_text
from core.graph.graph_builder import GraphBuilder
from core.graph.model import Chunk, KnowledgeGraph
from core.text import canonical_entity, content_hash, normalize_name, singular

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class ExtractionResult:
    """Triples per chunk id plus the accounting shown in the UI."""

    triples: dict[str, tuple[ExtractedTriple, ...]]
    extractor: str
    from_cache: int
    extracted: int
    failed: tuple[str, ...] = ()  #: chunk ids whose extraction failed: no triples, not cached, retried next build
    notes: tuple[str, ...] = ()  #: the extractor's notes on failures and repairs (at most 20)

    @property
    def n_triples(self) -> int:
        return sum(len(t) for t in self.triples.values())


def _cache_file(cache_dir: Path, extractor_id: str, chunk: Chunk, previous: str = "") -> Path:
    """The cache entry of ``chunk``'s extraction; ``previous``: the text the extractor read before it (the passage
    before it in its document, :func:`previous_texts`), part of the key."""
    key = content_hash(chunk.passage, previous, n=24) if previous else content_hash(chunk.passage, n=24)
    return cache_dir / content_hash(extractor_id, n=12) / f"{key}.json"


_CACHE_VERSION = 2  # entries {"v": 2, "triples": [...]}; a bare list is the v1 format


def _read_cache(f: Path) -> tuple[ExtractedTriple, ...] | None:
    """A cached result, or None when there is none to trust.

    A v1 entry that is an empty list is not trusted: v1 also cached failed extractions as empty.
    """
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("v") == _CACHE_VERSION and isinstance(data.get("triples"), list):
            rows = data["triples"]
        elif isinstance(data, list) and data:
            rows = data
        else:
            return None
        return tuple(ExtractedTriple(*r) for r in rows)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, TypeError, RecursionError):
        return None  # a corrupt cache entry is simply recomputed


#: characters of one chunk an extractor reads at most (bounded memory: spaCy's parse grows with its input).
#: Corpus passages are split long before this (:data:`core.graph.chunking.PASSAGE_SPLIT_CHARS`); only a
#: passage kept whole for its graph (a corpus-graph node, an OpenIE passage) can be longer, and its tail is
#: then not read for triples
EXTRACT_MAX_CHARS = 20_000


#: characters of the passage before a chunk that an extractor reading it (``reads_previous``) gets: its end, from a
#: sentence start where one is near
PREVIOUS_CHARS = 1_000

_PART = re.compile(r"^(.+)#(\d+)$")


def previous_ids(chunk_id: str) -> list[str]:
    """The ids the passage before ``chunk_id`` in its document may have (``stem#1`` → ``stem#0``; ``id#2`` → ``id``,
    a corpus passage's second chunk); [] for a passage that opens its document or is one of its own."""
    m = _PART.match(chunk_id)
    if m is None:
        return []
    base, k = m.group(1), int(m.group(2))
    return [f"{base}#{k - 1}"] + ([base] if k in (1, 2) else [])


def previous_texts(chunks: Sequence[Chunk]) -> dict[str, str]:
    """Chunk id -> the end of the text of the passage before it in the same document (at most
    :data:`PREVIOUS_CHARS` characters), for the chunks that have one among ``chunks``.

    Passages of one document are the ids a document or a long corpus passage is split into: ``stem#0``,
    ``stem#1``, … (:func:`core.graph.formats.documents.document_passages`) and ``id``, ``id#2``, … (a corpus
    passage split into chunks); the one before must also carry the same title. Corpus passages are documents of
    their own (MuSiQue's, HotpotQA's: ``corpus:3`` and ``corpus:4`` are never chained, whatever their titles).
    """
    by_id = {c.id: c for c in chunks}
    out: dict[str, str] = {}
    for c in chunks:
        prev = next((by_id[p] for p in previous_ids(c.id) if p in by_id and by_id[p].title == c.title), None)
        if prev is None or not prev.text.strip():
            continue
        tail = prev.text[-EXTRACT_MAX_CHARS:].strip()
        if len(tail) > PREVIOUS_CHARS:
            tail = tail[-PREVIOUS_CHARS:]
            cut = re.search(r"[.!?]\s+(?=\S)", tail)
            tail = tail[cut.end():] if cut is not None and cut.end() < len(tail) // 2 else tail
        out[c.id] = tail
    return out


def _texts(chunks: Sequence[Chunk], previous: dict[str, str] | None = None) -> list[str]:
    """What an extractor reads: ``"title\ntext"``, or ``"\ntext"`` for an untitled chunk (so its first
    line is not taken for a title; :func:`core.backends.base.split_passage`), at most
    :data:`EXTRACT_MAX_CHARS` characters; with ``previous`` (:func:`previous_texts`), after the text of the
    passage before it (:func:`core.backends.base.with_previous`)."""
    out = [(c.passage if c.title else "\n" + c.text)[:EXTRACT_MAX_CHARS] for c in chunks]
    if previous:
        out = [with_previous(t, previous.get(c.id, "")) for c, t in zip(chunks, out, strict=True)]
    return out


def extract_triples(chunks: Sequence[Chunk], extractor: TripleExtractor, *, cache_dir: Path | None,
                    batch_size: int | None = None, progress: Progress | None = None,
                    runner: BatchRunner | None = None) -> ExtractionResult:
    """Run ``extractor`` over ``chunks`` in batches, reusing and filling the per-chunk cache.

    Parameters
    ----------
    chunks
        Passages to extract from (``Chunk.passage`` — title and text — is what the extractor sees).
    extractor
        Any :class:`~core.backends.base.TripleExtractor` (LLM-based or the rule-based fallback).
    cache_dir
        Folder for the per-chunk cache; ``None`` disables caching.
    batch_size
        Chunks handed to the extractor per call; ``None`` takes the extractor's own ``batch_size``
        attribute (the spaCy extractor parses 64 at a time with ``nlp.pipe``), else 8. With a
        ``runner`` and an extractor whose triples do not depend on the batch (spaCy: ``pipe_batch``),
        ``None`` cuts the chunks into at most ``pipe_batch`` and about four batches per worker; other
        extractors (an LLM's prompt holds its batch) keep their own ``batch_size``.
    progress
        ``progress(message, fraction)`` after every batch.
    runner
        Where the batches run (:class:`~core.backends.base.BatchRunner`, e.g. Ray actors holding the
        extractor); ``None``: here, one batch after another. The result is the same: results are
        cached as batches finish and assembled in chunk order.
    """
    spread = batch_size is None and runner is not None and getattr(extractor, "pipe_batch", None)
    if batch_size is None:
        batch_size = int(getattr(extractor, "batch_size", 8) or 8)
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    ext_id = f"{extractor.name}:{extractor.model_id}"
    # an extractor that reads the passage before (spaCy: a paragraph's opening "He"): that text is part of the key
    previous = previous_texts(chunks) if getattr(extractor, "reads_previous", False) else {}
    hits: dict[str, tuple[ExtractedTriple, ...]] = {}
    todo: list[Chunk] = []
    for c in chunks:
        f = _cache_file(cache_dir, ext_id, c, previous.get(c.id, "")) if cache_dir else None
        hit = _read_cache(f) if f is not None and f.exists() else None
        if hit is not None:
            hits[c.id] = hit
        else:
            todo.append(c)
    cached = len(hits)
    n = len(chunks)
    if spread and runner is not None:  # spaCy's triples do not depend on the batch: give every actor work
        workers = max(1, int(runner.describe().get("workers", 1)))
        batch_size = max(1, min(int(spread), -(-len(todo) // (4 * workers))))
    batches = [todo[start:start + batch_size] for start in range(0, len(todo), batch_size)]
    failed: dict[int, list[str]] = {}
    notes: dict[int, list[str]] = {}
    fresh: dict[str, tuple[ExtractedTriple, ...]] = {}
    where = "" if runner is None else f" on {runner.describe().get('backend', 'a runner')}"
    finished = 0

    def say(done_now: int = 0) -> None:  # also within a call, as an extractor's worker parts finish
        if progress:
            waiting = getattr(extractor, "waiting_on", None) if runner is None else None
            note = waiting() if callable(waiting) and not (finished or done_now) else None
            progress(f"Extracting triples ({extractor.name}){where}: {cached + finished + done_now}/{n} chunks"
                     + (f" ({note})" if note else ""), (cached + finished + done_now) / max(n, 1))

    if runner is None:
        results: Iterator[tuple[int, BatchExtraction]] = _reporting_parts(extractor, say, (
            (k, extract_batch(extractor, _texts(b, previous))) for k, b in enumerate(batches)))
    else:
        results = iter(runner.extract(extractor, [_texts(b, previous) for b in batches]))
    while True:
        say()
        try:
            item = next(results, None)
        except LLMUnavailableError:
            raise
        except LLMError as exc:
            raise type(exc)(
                f"Triple extraction stopped at chunk {cached + finished + 1} of {n}: {exc} The {cached + finished} "
                "chunk(s) done so far are cached; fix the LLM endpoint and run the same command again to resume."
            ) from None
        if item is None:
            break
        k, (triples_per_passage, bad, batch_notes) = item
        batch = batches[k]
        if len(triples_per_passage) != len(batch):
            raise RuntimeError(f"extractor {extractor.name!r} returned {len(triples_per_passage)} results for "
                               f"{len(batch)} passages")
        notes[k] = list(batch_notes)
        for i, (c, triples) in enumerate(zip(batch, triples_per_passage)):
            fresh[c.id] = tuple(triples)
            if i in bad:
                failed.setdefault(k, []).append(c.id)  # not cached: the next build asks again
            elif cache_dir:
                # no fsync per entry: an entry a power cut damaged fails _read_cache and is redone
                atomic_write_text(_cache_file(cache_dir, ext_id, c, previous.get(c.id, "")), json.dumps(
                    {"v": _CACHE_VERSION, "triples": [[t.head, t.relation, t.tail] for t in triples]}), durable=False)
        finished += len(batch)
    # in chunk order whichever came from the cache: the graph merges in this order, so a build with a warm,
    # a cold or a half-filled cache gives the same nodes and edges in the same order (the same content hash)
    out = {c.id: hits[c.id] if c.id in hits else fresh[c.id] for c in chunks}
    failed_ids = [cid for k in sorted(failed) for cid in failed[k]]
    all_notes = [note for k in sorted(notes) for note in notes[k]]
    if progress:
        progress(f"Extracted triples from {n} chunks ({cached} from cache"
                 + (f", {len(failed_ids)} failed" if failed_ids else "") + ")", 1.0)
    return ExtractionResult(out, ext_id, cached, len(todo), tuple(failed_ids), tuple(all_notes[:20]))


def _reporting_parts(extractor: Any, say: Callable[[int], None],
                     results: Iterator[tuple[int, BatchExtraction]]) -> Iterator[tuple[int, BatchExtraction]]:
    """``results``, with an extractor that reports its calls' parts (spaCy's worker processes: ``parts_done``)
    reporting them to ``say`` meanwhile, and no longer once they are read (the extractor outlives this build)."""
    if not hasattr(extractor, "parts_done"):
        yield from results
        return
    extractor.parts_done = say
    try:
        yield from results
    finally:
        extractor.parts_done = None


def add_extracted(builder: GraphBuilder, result: ExtractionResult) -> None:
    """Merge extracted triples into ``builder`` with provenance.

    Entity names of every extractor are canonicalized first (:func:`core.text.canonical_entity`:
    parenthesized disambiguations, possessives, leading articles and honorifics dropped) and merge by
    the normalized canonical name, so "David Bradley (director)" meets "David Bradley". A proper name's phrase
    with a plural head ("Heron flying boats") is the singular's node where the graph or these triples have the
    singular ("The Heron flying boat entered service"; :func:`_singular_keys`), and a river, lake or mountain named with
    its kind word ("the Amsel river", "the River Amsel", "Lake Morra") is the node of its bare name where the text
    makes that clear (:func:`_feature_keys`). Loaded graphs do not pass through here and keep their own names.
    """
    def named(name: str) -> tuple[str, str]:
        shown = canonical_entity(name, drop_article=False)
        return shown, normalize_name(canonical_entity(shown))

    ones = _singular_keys(builder, [named(n) for ts in result.triples.values() for t in ts for n in (t.head, t.tail)])
    ones.update((k, v) for k, v in _feature_keys(builder, result.triples, named).items() if k not in ones)
    for chunk_id, triples in result.triples.items():
        cids = (chunk_id,)
        for t in triples:
            if not (t.head.strip() and t.relation.strip() and t.tail.strip()):
                continue
            (h, hk), (tl, tk) = named(t.head), named(t.tail)
            h, hk = ones.get(hk, (h, hk))
            tl, tk = ones.get(tk, (tl, tk))
            if not hk or not tk or hk == tk or not normalize_name(t.relation):
                continue  # a name or relation without a letter or digit, or a self-loop after canonicalization
            builder.add_node(h, node_id=hk, chunk_ids=cids)
            builder.add_node(tl, node_id=tk, chunk_ids=cids)
            builder.add_edge(hk, t.relation, tk, chunk_ids=cids)


def _singular_keys(builder: GraphBuilder, names: Sequence[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Plural name key -> (singular name, key) for a proper name's phrase with a lower-case plural head whose singular
    is a node of ``builder`` or one of ``names`` ((shown name, key) pairs), spelt the same there: an audit's KG had
    "Heron flying boats" beside "Heron flying boat". Only "<Capitalised …> <noun>s" without "and", "&" or a comma
    ("the Nepean and Hawkesbury rivers" are two rivers) and a plural :func:`core.text.singular` is sure of; "NATO
    officials" stays where no "NATO official" is, and "Winter storms" opening a sentence where "Winter Storm" is (a
    node of the graph's before a later insert is found; a singular inserted after the plural is not)."""
    spelt: dict[str, set[str]] = {}
    for shown, k in names:
        spelt.setdefault(k, set()).add(shown)
    out: dict[str, tuple[str, str]] = {}
    for shown, key in names:
        words = shown.split()
        if key in out or len(words) < 2 or not words[0][:1].isupper() or any(c in shown for c in ",&") \
                or "and" in words or not (words[-1].isalpha() and words[-1].islower()):
            continue
        one = singular(words[-1])
        one_key = key[:-1] if one is not None and key.endswith(words[-1]) else ""
        one_name = " ".join([*words[:-1], one or ""])
        if one_key and (one_name in spelt.get(one_key, ()) or builder.node_name(one_key) == one_name):
            out[key] = (one_name, one_key)  # "Winter storms" is no "Winter Storm"
    return out


#: geographic kind words a feature's name may carry (kind -> the words that name it: "Mount Tarn" is the Tarn
#: mountain): "the Amsel river" and "the Amsel" are one river where the text makes it clear (:func:`_feature_keys`); a
#: creek is no river ("Conestoga Creek" and "Conestoga River" are two), and the words that end many a place's own name
#: ("Tarn", "-mere", "Fell", "Beck", "Wood") are none
FEATURE_KINDS: dict[str, frozenset[str]] = {
    **{w: frozenset({w}) for w in ("river", "stream", "creek", "brook", "canal", "lake", "loch", "lough", "reservoir",
                                   "hill", "peak", "volcano", "forest", "glacier")},
    "mountain": frozenset({"mountain", "mount"}),
    "island": frozenset({"island", "isle"}),
}
_FEATURE_OF = {w: kind for kind, words in FEATURE_KINDS.items() for w in words}
#: kind words written before the name ("River Amsel", "Lake Morra", "Mount Tarn", "Isle of Dunmore" is no such name)
_FEATURE_FIRST = frozenset({"river", "lake", "loch", "lough", "mount", "isle", "forest"})
#: relations that make their head a person or a settlement ("born in", "mayor of"), no river or mountain
_NOT_FEATURE_HEAD = ("born", "died", "married", "son of", "daughter of", "wife of", "husband of", "father of",
                     "mother of", "founded", "wrote", "starred")
_NOT_FEATURE_TAIL = ("born in", "died in", "mayor of", "lived in", "grew up in", "raised in", "moved to")
_PAREN = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")


def _feature_name(shown: str) -> tuple[str, str] | None:
    """(bare name, kind group) of a feature's name with its kind word: "Amsel river"/"Amsel River"/"River Amsel" ->
    ("Amsel", "river"), "Lake Morra" -> ("Morra", "lake"); None for other names ("Red River Valley", "river Amsel
    bridge", a lower-case or one-word name)."""
    words = canonical_entity(shown).split()
    if len(words) < 2 or any(c in shown for c in ",&()") or "and" in words or "of" in words:
        return None
    last, first = words[-1].lower(), words[0].lower()
    if last in _FEATURE_OF and first in _FEATURE_FIRST:
        return None  # "Forest Hill", "Mount Lake": which is the kind?
    if last in _FEATURE_OF and words[-2][:1].isupper() and words[0][:1].isupper():
        bare = words[:-1]
        kind = _FEATURE_OF[last]
    elif first in _FEATURE_FIRST and words[0][:1].isupper() and words[1][:1].isupper():
        bare = words[1:]
        kind = _FEATURE_OF[first]
    else:
        return None
    if not all(w[:1].isupper() or w.lower() in ("de", "la", "le", "du", "von", "van") for w in bare):
        return None
    return " ".join(bare), kind


def _feature_keys(builder: GraphBuilder, triples: dict[str, tuple[ExtractedTriple, ...]],
                  named: Callable[[str], tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Name key -> (name, key) of the node a geographic feature named with its kind word is: "the Amsel river" and
    "the River Amsel" are the Amsel's node where "the Amsel" is named too (an audit's KG had "Amsel river", "River
    Amsel" and "Amsel (river)" as three nodes), or one node with each other where the bare name is not.

    Conservative: only the kind words of :data:`FEATURE_KINDS`; the bare name must be told by the text as that feature:
    a name with the kind in parentheses (the title "Amsel (river)"), or said to be one ("The Amsel is a long river").
    Being named in the same passage is not enough: MuSiQue's "Ohio River" passages name the state Ohio, "Utah Lake"'s
    the state Utah, "Hong Kong Island"'s the city. Never where the text makes the bare name something else: an edge between
    the two ("Amsel · located on · Amsel River": a town on its river), "is" a thing of another kind ("Amsel is a
    town"), a person's or a settlement's relation (:data:`_NOT_FEATURE_HEAD`, :data:`_NOT_FEATURE_TAIL`), or the kind
    words of two kinds ("Morra Lake" and "Morra River")."""
    names: dict[str, str] = {}  # key -> first shown name
    told: dict[str, set[str]] = {}  # bare key -> kinds the text gives it
    other: set[str] = set()  # keys the text makes something else
    pairs: set[tuple[str, str]] = set()
    for ts in triples.values():
        for t in ts:
            (h, hk), (tl, tk) = named(t.head), named(t.tail)
            rel = t.relation.strip().lower()
            titled = False  # "Amsel (river) · mentions · Amsel River" ties no two things
            for raw, shown, key in ((t.head, h, hk), (t.tail, tl, tk)):
                names.setdefault(key, shown)
                m = _PAREN.match(raw.strip())
                if m is not None and m.group(2).strip().lower() in _FEATURE_OF:
                    told.setdefault(key, set()).add(_FEATURE_OF[m.group(2).strip().lower()])
                    titled = True
            if not titled:
                pairs.update(((hk, tk), (tk, hk)))
            if rel in ("is", "was", "is a", "are", "were"):
                kind = _FEATURE_OF.get((tl.split() or [""])[-1].lower())
                if kind is not None and tl.split()[-1].islower():
                    told.setdefault(hk, set()).add(kind)
                elif tl[:1].islower():  # "a town", "market town": something else (a name is no kind: "is · Weser")
                    other.add(hk)
            if rel.startswith(_NOT_FEATURE_HEAD):
                other.add(hk)
            if rel in _NOT_FEATURE_TAIL:
                other.add(tk)
    groups: dict[str, dict[str, set[str]]] = {}  # bare key -> kind -> feature-name keys
    for key, shown in names.items():
        got = _feature_name(shown)
        if got is not None:
            groups.setdefault(normalize_name(got[0]), {}).setdefault(got[1], set()).add(key)
    out: dict[str, tuple[str, str]] = {}
    for bare, kinds in groups.items():
        if len(kinds) != 1:
            continue
        (kind, keys), = kinds.items()
        keys = {k for k in keys if k not in other}
        if not keys:
            continue
        bare_name = names.get(bare) or builder.node_name(bare)
        if bare_name is not None and bare not in other and not told.get(bare, set()) - {kind} \
                and not any((bare, k) in pairs for k in keys) \
                and kind in told.get(bare, set()):
            out.update((k, (bare_name, bare)) for k in keys)
        elif len(keys) > 1:  # "the Amsel River" and "the River Amsel": one river (a town may be "Amsel"), as first met
            first = next(k for k in names if k in keys)
            out.update((k, (names[first], first)) for k in keys if k != first)
    return out


def build_kg_from_corpus(graph: KnowledgeGraph, extractor: TripleExtractor, *, cache_dir: Path | None,
                         batch_size: int | None = None, progress: Progress | None = None,
                         runner: BatchRunner | None = None) -> tuple[KnowledgeGraph, ExtractionResult]:
    """Extract triples from every chunk of ``graph`` and return the graph with them merged in.

    Existing nodes and edges are kept; chunk ids are preserved so provenance stays valid.
    """
    result = extract_triples(graph.chunks, extractor, cache_dir=cache_dir, batch_size=batch_size, progress=progress,
                             runner=runner)
    b = GraphBuilder.of(graph)
    add_extracted(b, result)
    return b.build(), result


@dataclass(frozen=True)
class PassageTriples:
    """One passage and the triples the KG cites it for (what the Data page shows as a sample)."""

    chunk: Chunk
    triples: tuple[tuple[str, str, str], ...]  #: (head, relation, tail) by node display name
    total: int  #: triples citing this passage (``triples`` may be cut)


def sample_passage_triples(graph: KnowledgeGraph, *, passages: int = 3, per_passage: int = 15,
                           seed: int = 0) -> list[PassageTriples]:
    """A reproducible sample of passages with the triples extracted from them, so a person can judge
    an extractor's KG against the text it came from.

    Parameters
    ----------
    graph : KnowledgeGraph
    passages : int
        Passages drawn (uniformly, among those that some edge cites).
    per_passage : int
        Most triples listed per passage, in edge order.
    seed : int
        Seed of the draw.

    Returns
    -------
    list of PassageTriples
        In corpus order; empty when no edge cites a passage of the graph.
    """
    import numpy as np

    prov = graph.chunk_provenance()
    cited = [i for i, c in enumerate(graph.chunks) if prov.get(c.id, ([], []))[1]]
    if not cited:
        return []
    rng = np.random.default_rng(seed)
    pick = sorted(rng.choice(len(cited), size=min(passages, len(cited)), replace=False).tolist())
    out = []
    for k in pick:
        c = graph.chunks[cited[k]]
        edges = prov[c.id][1]
        rows = tuple((graph.node_names[int(graph.edge_head[e])], graph.edge_relation[e],
                      graph.node_names[int(graph.edge_tail[e])]) for e in edges[:per_passage])
        out.append(PassageTriples(c, rows, len(edges)))
    return out
