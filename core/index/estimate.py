"""How long (re-)indexing a workspace with an embedder is expected to take, before anything is started.

A switch of the app's embedder re-indexes the workspace (every node, edge and chunk text embedded again):
on MuSiQue with MiniLM about seven minutes on two cores. The app starts no job over
``EGX_ASK_BEFORE_S`` (30 s) unasked, so it needs this figure first. It rests on, in order of preference:

* the manifest's record of an index build by the same model here (seconds per text, per kind), or
* a measurement: the embedder encodes a few of the workspace's own texts of each kind now (well under a
  second for the bundled models; the texts' lengths differ per kind, and so does the rate), or
* for a graph store, whose texts are not in memory, :data:`STATED_SECONDS_PER_TEXT`.

A bundled sample that was never built (or whose recipe changed) is built from its recipe, indexes included
(:func:`sample_build_estimate`): MuSiQue with MiniLM is the same seven minutes, so it asks first too. Its
texts are read from the recipe's inputs (half a second for MuSiQue) and the rate is measured on them. An upload
is estimated the same way before its Build button (:func:`inputs_build_estimate`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.index.indexing import ITEM_KINDS

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.graph.chunking import PassageSplit
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace

#: Seconds per text assumed where nothing was recorded or measured (a sentence-transformer of bge-small's size on
#: two CPU cores, texts of about 512 characters); recorded and measured rates replace it. FastInsight's node
#: vector estimate (:mod:`core.methods.kg_nodes`) assumes the same.
STATED_SECONDS_PER_TEXT = 0.05

#: Texts of each kind the measurement embeds (after one warm-up text): enough to average the per-batch cost
#: out, few enough to stay under a second with a sentence-transformer on two cores.
SAMPLE_TEXTS = 16

#: Node and edge texts spaCy extracts per character of passage text: MuSiQue's 1,890 passages (915,192 characters)
#: give 16,777 nodes and 22,598 edges with spaCy v50 (0.043 a character); audit 55's 2-MB one-line file gave 0.046
#: (v49). A count per
#: passage (8, before) read a 1,200-character passage as a 480-character one: that file's 1,743 passages made
#: 95,644 texts where 8 a passage said 13,944.
ITEMS_PER_CHAR = 0.04
#: The mean characters (title, newline, text) of the passages :data:`core.index.create.EXTRACT_SECONDS` was measured
#: on (MuSiQue's): an extraction's seconds scale with a passage's length, not its count.
EXTRACT_REFERENCE_CHARS = 484
#: The share of those texts that are nodes (MuSiQue with spaCy v50: 16,777 of 39,375); the rest are edges.
NODE_SHARE = 0.43
#: Words of the texts timed for the node and for the edge rate before extraction (their texts are not known yet): a
#: node is a name of a few words, an edge "head relation tail" about three times that. bge-small embeds a 10-word
#: text in about twice a 4-word one's time (1.45 against 2.95 ms here), so one rate for both read an edge as a node.
NODE_WORDS, EDGE_WORDS = 4, 10
#: The fixed part of an upload's build: starting the worker process and loading the embedder there, and writing
#: the workspace (audit 56: 8 small files built in 5.5–6 s, of which the texts' extraction and embedding came to
#: about 1 s, spaCy's load 2.5 s); spaCy's load (2.55 s here, ``load_pipeline``) where it extracts.
BUILD_START_S, SPACY_LOAD_S = 2.0, 2.5


def index_counts(workspace: Workspace) -> dict[str, int]:
    """How many texts of each kind (nodes, edges, chunks) an index build embeds."""
    from core.graph.reader import question_graph

    g = question_graph(workspace)  # counts only: a store's graph is not loaded
    return {"nodes": int(g.n_nodes), "edges": int(g.n_edges), "chunks": int(g.n_chunks)}


def reindex_estimate(workspace: Workspace, embedder: Embedder, *, sample: int = SAMPLE_TEXTS,
                     clock: Callable[[], float] = time.perf_counter) -> tuple[float, str]:
    """Expected seconds to build ``workspace``'s node, edge and chunk indexes with ``embedder``, and what the
    figure rests on (a sentence to show next to it). ``sample``: texts of each kind a measurement embeds;
    ``clock``: what it is timed with.
    """
    from core.graph.reader import whole_graph_read

    counts = index_counts(workspace)
    total = sum(counts.values())
    what = _what(counts)
    recorded = _recorded_rates(workspace, embedder)
    if recorded is not None:
        return (sum(counts[k] * recorded[k] for k in ITEM_KINDS),
                f"{what}; at the rates {embedder.name} embedded them when this index was last built here")
    if whole_graph_read(workspace):
        return total * STATED_SECONDS_PER_TEXT, (f"{what}; a graph store's texts are not measured here, so "
                                                 f"{1000 * STATED_SECONDS_PER_TEXT:.0f} ms per text is assumed")
    rates = _measured_rates({k: workspace.texts(k)[:sample + 1] for k in ITEM_KINDS}, embedder, clock)
    seconds = sum(counts[k] * rates[k] for k in ITEM_KINDS)
    return seconds, f"{what}; {_measured(embedder, sample, seconds, total)}"


def sample_build_estimate(name: str, embedder: Embedder, *, sample: int = SAMPLE_TEXTS,
                          clock: Callable[[], float] = time.perf_counter) -> tuple[float, str]:
    """Expected seconds to build the bundled sample ``name`` from its recipe (:mod:`core.index.samples`) with
    ``embedder``'s indexes, and what the figure rests on (:func:`graph_build_estimate`; no graph is written).

    Raises
    ------
    core.errors.UnknownNameError
        ``name`` is not a bundled sample.
    """
    from core.errors import UnknownNameError
    from core.graph.formats.load import load_inputs
    from core.index.samples import sample_recipes

    recipes = {r.name: r for r in sample_recipes()}
    if name not in recipes:
        raise UnknownNameError("sample workspace", name, sorted(recipes))
    return graph_build_estimate(load_inputs(recipes[name].inputs, name=name).graph, embedder, sample=sample,
                                clock=clock)


def inputs_build_estimate(paths: Sequence[str | Path], embedder: Embedder, *, extractor: str = "spacy",
                          passages: PassageSplit | None = None, sample: int = SAMPLE_TEXTS,
                          clock: Callable[[], float] = time.perf_counter, load: float | None = None,
                          notes: list[str] | None = None) -> tuple[float, str]:
    """Expected seconds to build a workspace from the files ``paths`` (an upload) with ``extractor`` and
    ``embedder``, split into ``passages`` as the build will, and what the figure rests on. The files are read
    as the build reads them (seconds for megabytes; nothing is written); ``notes`` gets what the build will find
    in text that is no prose (:func:`prose_note`). Audit 55 built a 2-MB one-line file
    (1,743 passages, 12 minutes) with nothing said before the click.

    Raises
    ------
    core.errors.EgxError
        A file the build could not read either (its own message).
    """
    from core.graph.formats.load import load_inputs

    graph = load_inputs(list(paths), passages=passages).graph
    if notes is not None and graph.kind == "kg" and graph.n_edges == 0:  # what the text is, for the extractor
        notes += [n for n in (prose_note([c.passage for c in graph.chunks]),) if n]
    return graph_build_estimate(graph, embedder, extractor=extractor, sample=sample, clock=clock, load=load)


#: Words read from an upload's start to tell whether it is prose (a sample: a long book's words repeat more).
PROSE_SAMPLE_WORDS = 20_000
#: Under this share of distinct words in that sample a text is no prose (English prose of 20,000 words: 0.1–0.3).
PROSE_DISTINCT_LEAST = 0.02


def prose_note(texts: Sequence[str]) -> str:
    """What a build from ``texts`` will find, when it is no prose a KG extractor reads entities from ("" otherwise):
    a few words repeated, or not one capitalised word. Audit 57 built a 2-MB file of "word word …" for 7½ minutes into
    a workspace without a node, the estimate's warning saying only how long it would take; audit 58's "word river
    glass …" built 6,586 nodes, runs of its three words (the note had said "likely no nodes")."""
    what = _no_prose(texts)
    return (f"The text {what}: it reads as no prose, and the KG extractor reads entities from names and noun phrases, so "
            "the graph will hold no real entities — no nodes, or nodes that are runs of these words (dense retrieval "
            "over the passages still works). Check that these are the files you meant.") if what else ""


def built_prose_note(graph: KnowledgeGraph) -> str:
    """:func:`prose_note`'s word after the build, with what the graph holds ("" for prose): the build's note said
    nothing of it (audit 58: 6,586 nodes from "word river glass …", unwarned after the build)."""
    what = _no_prose([c.passage for c in graph.chunks])
    return (f"The text {what}: it reads as no prose, so this graph's {graph.n_nodes:,} nodes and {graph.n_edges:,} "
            "edges are runs of its words, not entities, and the graph methods have nothing real to go on (dense "
            "retrieval over the passages still works).") if what else ""


def _no_prose(texts: Sequence[str]) -> str:
    """How ``texts`` read as no prose ("repeats a few words (3 distinct in its first 20,000)", "has no capitalised
    word in its first 225"), "" for prose or under 200 words."""
    import re

    words: list[str] = []
    for t in texts:
        words += re.findall(r"[^\W\d_]+", t)
        if len(words) >= PROSE_SAMPLE_WORDS:
            break
    words = words[:PROSE_SAMPLE_WORDS]
    if len(words) < 200:
        return ""
    distinct = len({w.lower() for w in words})
    if distinct < PROSE_DISTINCT_LEAST * len(words):
        return f"repeats a few words ({distinct:,} distinct in its first {len(words):,})"
    if not any(w[:1].isupper() for w in words):
        return f"has no capitalised word in its first {len(words):,}"
    return ""


def graph_build_estimate(graph: KnowledgeGraph, embedder: Embedder, *, extractor: str = "spacy",
                         sample: int = SAMPLE_TEXTS, clock: Callable[[], float] = time.perf_counter,
                         load: float | None = 0.0) -> tuple[float, str]:
    """Expected seconds to build a workspace of the loaded ``graph`` (its indexes; first the triples of a corpus
    without any, by ``extractor``), and what the figure rests on. ``embedder`` embeds ``sample`` of the graph's
    texts of each kind now, timed with ``clock``. A corpus to extract is estimated by its characters: the
    extraction at :data:`core.index.create.EXTRACT_SECONDS`' rate per :data:`EXTRACT_REFERENCE_CHARS`, then
    :data:`ITEMS_PER_CHAR` node and edge texts a character at the rate of short texts cut from the passages; the
    extraction and the start stretched by the machine's load (:func:`load_slowdown`; ``load``: the load average, None
    to read it — an upload's estimate does, :func:`inputs_build_estimate`; a sample's, read at the server's start
    while the other samples build, does not)."""
    from core.index.create import EXTRACT_SECONDS, LLM_EXTRACT_SECONDS

    texts = _graph_texts(graph)
    if graph.kind == "kg" and graph.n_edges == 0 and graph.n_chunks > 0:  # create_workspace extracts these
        chunks = graph.n_chunks
        chars = sum(len(c) for c in texts["chunks"])
        per_passage = EXTRACT_SECONDS.get(extractor, LLM_EXTRACT_SECONDS)
        extract = chars / EXTRACT_REFERENCE_CHARS * per_passage
        items = int(chars * ITEMS_PER_CHAR)
        words = [t.split() for t in texts["chunks"][:sample + 1]]
        cut = {n: [" ".join(w[k:k + n]) for w in words for k in range(0, len(w), n)][:sample + 1]
               for n in (NODE_WORDS, EDGE_WORDS)}
        rates = _measured_rates({"chunks": texts["chunks"][:sample + 1], "nodes": cut[NODE_WORDS],
                                 "edges": cut[EDGE_WORDS]}, embedder, clock)
        embed = chunks * rates["chunks"] + items * (NODE_SHARE * rates["nodes"] + (1 - NODE_SHARE) * rates["edges"])
        # the start and the extraction are rates of a quiet machine: on a busy one they take as much longer as the
        # embedding timed just now does (audit 57: spaCy's load took 10–21 s, an 8-file build estimated 6 s took 19 s)
        slow = load_slowdown(load)
        fixed = (BUILD_START_S + (SPACY_LOAD_S if extractor == "spacy" else 0.0)) * slow
        extract *= slow
        who = {"spacy": "spaCy", "rules": "the rules"}.get(extractor, f"the {extractor} extractor")
        busy = f" (×{slow:.1f}: the machine is busy)" if slow > 1 else ""
        return fixed + extract + embed, (
            f"{chunks:,} passages ({chars:,} characters) whose triples {who} extracts first ("
            f"{_duration(extract)}{busy}), then about {items:,} node and edge texts and the passages to embed, and "
            f"{fixed:.1f} s to start; {_measured(embedder, sample, embed, chunks + items)}")
    rates = _measured_rates({k: v[:sample + 1] for k, v in texts.items()}, embedder, clock)
    counts = {k: len(v) for k, v in texts.items()}
    seconds = sum(counts[k] * rates[k] for k in ITEM_KINDS)
    return seconds, f"{_what(counts)}; {_measured(embedder, sample, seconds, sum(counts.values()))}"


def _duration(seconds: float) -> str:
    """``"under a second"``, ``"about 40 s"`` or ``"about 3 min"``: a part of an estimate, in the unit a person reads."""
    return "under a second" if seconds < 1 else f"about {seconds:.0f} s" if seconds < 90 else f"about {seconds / 60:.0f} min"


def _graph_texts(graph: KnowledgeGraph) -> dict[str, list[str]]:
    """The texts an index build embeds, by kind (:meth:`core.index.workspace.Workspace.texts`)."""
    return {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts),
            "chunks": [c.passage for c in graph.chunks]}


def _what(counts: Mapping[str, int]) -> str:
    total = sum(counts.values())
    return (f"{total:,} texts ({counts['nodes']:,} nodes, {counts['edges']:,} edges, "
            f"{counts['chunks']:,} passages)")


def _measured(embedder: Embedder, sample: int, seconds: float, total: int) -> str:
    per = 1000 * seconds / max(1, total)
    return (f"{embedder.name} embedded {sample} texts of each kind just now on this machine, "
            f"{per:.2f} ms per text on average{busy_note()}")


#: The most a busy machine's load stretches the quiet-machine rates by (:func:`load_slowdown`).
MAX_SLOWDOWN = 4.0


def load_slowdown(load: float | None = None, cores: int | None = None) -> float:
    """How much longer single-process work takes now than on a quiet machine: with ``load`` tasks waiting for ``cores``
    (the 1-minute load average), one more gets about ``cores / (load + 1)`` of a core — 1 on a quiet machine, at most
    :data:`MAX_SLOWDOWN`; 1 where the load cannot be read."""
    import os

    try:
        load = os.getloadavg()[0] if load is None else load
    except OSError:
        return 1.0
    cores = cores or os.cpu_count() or 1
    return min(MAX_SLOWDOWN, max(1.0, (load + 1) / cores))


def busy_note(load: float | None = None, cores: int | None = None) -> str:
    """", measured while …" when more work was waiting for the CPU than it has cores (the 1-minute load average
    over the core count, above 1): the rate was shared with that work and the estimate may read high — an audit
    read "about 14 min" for a re-index measured during the sample's first build, which had read 2½ min idle.
    "" on a machine that was not busy, or where the load cannot be read."""
    import os

    try:
        load = os.getloadavg()[0] if load is None else load
    except OSError:
        return ""
    cores = cores or os.cpu_count() or 1
    if load <= cores:
        return ""
    return (f", measured while the machine was busy (load {load:.1f} on {cores} cores): other work shared the "
            f"CPU, so this may read high")


def _measured_rates(texts: Mapping[str, Sequence[str]], embedder: Embedder,
                    clock: Callable[[], float]) -> dict[str, float]:
    """Seconds per text by kind, ``embedder`` timed on the given texts of each kind: the first one embedded
    untimed (the first call may load or compile what later calls reuse), the rest twice, the faster time kept
    (the first batch once ran 30 times slower than the next: MuSiQue's half-second build with the hashing
    embedder was estimated at 12 s, near enough to the 30-s question on a busy machine)."""
    rates: dict[str, float] = {}
    for kind in ITEM_KINDS:
        some = [t for t in texts.get(kind, ()) if t]
        if len(some) < 2:
            rates[kind] = 0.0
            continue
        embedder.embed(some[:1])
        times = []
        for _ in range(2):
            t0 = clock()
            embedder.embed(some[1:])
            times.append(max(0.0, clock() - t0))
        rates[kind] = min(times) / (len(some) - 1)
    return rates


def _recorded_rates(workspace: Workspace, embedder: Embedder) -> dict[str, float] | None:
    """Seconds per text by kind from the manifest's last build, when it was by ``embedder``'s model and
    recorded every kind; else None."""
    if workspace.meta.index_model_id != embedder.model_id:
        return None
    builds = {str(b.get("kind")): b for b in workspace.meta.index_builds}
    rates: dict[str, float] = {}
    for kind in ITEM_KINDS:
        b = builds.get(kind) or {}
        items, seconds = int(b.get("items") or 0), float(b.get("seconds") or 0.0)
        if items <= 0 or seconds <= 0:
            return None
        rates[kind] = seconds / items
    return rates
