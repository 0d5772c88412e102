"""Every input format by name: how a file is recognised as it, when it loads, which function reads it.

:data:`FORMATS` maps a format name to its :class:`Format`; :func:`detect_format` names the format of a path:
a folder is a named KG, an extension that one format claims (``Format.suffixes``) is that format, and an
extension several formats share is told apart by content (:data:`SNIFFERS`, in
:mod:`core.graph.formats.sniff`). Detection also names two formats that no reader adds to a graph:
``egx_graph`` (a whole graph export, which :func:`~core.graph.formats.load.load_inputs` loads on its own) and
``questions`` (refused: questions are given separately, for evaluation).

Adding a format
---------------
1. Write ``core/graph/formats/<family>.py`` with a ``read_<name>(path, builder, *, limits=None)``. It opens
   its file only through :mod:`~core.graph.formats.textio`, :mod:`~core.graph.formats.jsonio` or
   :func:`~core.graph.formats.bounds.open_input` (so the size and decompression bounds hold), adds what it
   reads to the :class:`~core.graph.graph_builder.GraphBuilder`, returns the warnings it tolerated, and raises one
   :class:`~core.errors.InputFormatError` naming the file, the line or record, what is wrong and what was
   expected (the checks other readers share are in :mod:`~core.graph.formats.records`).
2. Add its line to :data:`FORMATS`: its name, its rank in the load order, a call of the reader, and the
   extensions that are its alone, e.g.
   ``Format("turtle", 3, lambda p, b, c: read_turtle(p, b, limits=c.limits), suffixes=(".ttl",)),``.
   Name the extension in :data:`SUPPORTED` too, which the error for an unsupported file shows.

A format sharing an extension with others (``.csv``/``.tsv``, ``.txt``, ``.json``, ``.jsonl``) leaves
``suffixes`` empty and adds its test to that extension's sniffer instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.chunking import PassageSplit
from core.graph.formats.bounds import InputLimits, base_suffix, display_name, resolve_limits
from core.graph.formats.corpus import read_corpus_json
from core.graph.formats.corpus_graph import read_corpus_graph
from core.graph.formats.documents import HTML_SUFFIXES, MARKDOWN_SUFFIXES, read_document
from core.graph.formats.graphml import read_graphml
from core.graph.formats.named_kg import read_named_kg
from core.graph.formats.openie import read_openie
from core.graph.formats.repeats import RepeatIndex
from core.graph.formats.sniff import Sniffer, sniff_delimited, sniff_json, sniff_jsonl, sniff_txt
from core.graph.formats.triples import read_triples
from core.graph.graph_builder import GraphBuilder


@dataclass(frozen=True)
class ReadContext:
    """What a reader gets besides its path and the builder."""

    data: Any  # the file's JSON document, already parsed by detection (None for every other file)
    limits: InputLimits
    formats: Mapping[Path, str]  # every path of this load and its format
    #: the passages read so far, which a document (and, when adding documents, a JSON corpus) leaves out
    #: when it repeats them (:mod:`core.graph.formats.repeats`); None: every passage is kept
    repeats: RepeatIndex | None = None
    skip_known_records: bool = False  #: a JSON corpus's records are checked against ``repeats`` too
    passages: PassageSplit = field(default_factory=PassageSplit)  #: how documents are split (a JSON corpus's records stay whole)

    def paths(self, fmt: str) -> list[Path]:
        """The paths of this load detected as ``fmt``, in the order they were given."""
        return [p for p, f in self.formats.items() if f == fmt]


#: adds one file to the builder and returns the warnings it tolerated
Reader = Callable[[Path, GraphBuilder, ReadContext], list[str]]


@dataclass(frozen=True)
class Format:
    """One input format.

    ``rank`` orders the files of a load: passages first (0), so that OpenIE docs (1) find their passages
    and the source chunk ids of triples resolve; a corpus graph's edges (2) after its nodes; triples,
    GraphML and named KGs last (3). ``suffixes``: the extensions that are this format's alone.
    """

    name: str
    rank: int
    read: Reader
    suffixes: tuple[str, ...] = ()


def _document(path: Path, builder: GraphBuilder, ctx: ReadContext) -> list[str]:
    return read_document(path, builder, limits=ctx.limits, repeats=ctx.repeats, max_chars=ctx.passages.max_chars,
                         per_paragraph=ctx.passages.per_paragraph)


def _corpus(path: Path, builder: GraphBuilder, ctx: ReadContext) -> list[str]:
    return read_corpus_json(path, builder, data=ctx.data, limits=ctx.limits,
                            repeats=ctx.repeats if ctx.skip_known_records else None)


def _corpus_nodes(path: Path, builder: GraphBuilder, ctx: ReadContext) -> list[str]:
    # loaded with an edges file, the nodes are read by the edges file's reader; alone they are a corpus
    return [] if ctx.paths("corpus_edges") else read_corpus_json(
        path, builder, limits=ctx.limits, repeats=ctx.repeats if ctx.skip_known_records else None)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("corpus", 0, _corpus),
    Format("document", 0, _document),  # plain text (a .txt that is not triples)
    Format("markdown", 0, _document, suffixes=MARKDOWN_SUFFIXES),
    Format("pdf", 0, _document, suffixes=(".pdf",)),
    Format("html", 0, _document, suffixes=HTML_SUFFIXES),
    Format("docx", 0, _document, suffixes=(".docx",)),
    Format("corpus_nodes", 0, _corpus_nodes),
    Format("openie", 1, lambda p, b, c: read_openie(p, b, data=c.data, limits=c.limits)),
    Format("corpus_edges", 2, lambda p, b, c: read_corpus_graph(c.paths("corpus_nodes")[0], p, b, limits=c.limits)),
    Format("triples", 3, lambda p, b, c: read_triples(p, b, data=c.data, limits=c.limits)),
    Format("graphml", 3, lambda p, b, c: read_graphml(p, b, limits=c.limits), suffixes=(".graphml", ".xml")),
    Format("named_kg", 3, lambda p, b, c: read_named_kg(p, b, limits=c.limits)),
)}

#: the extensions several formats share, each with the function that tells them apart by content
SNIFFERS: dict[str, Sniffer] = {".csv": sniff_delimited, ".tsv": sniff_delimited, ".txt": sniff_txt,
                                ".json": sniff_json, ".jsonl": sniff_jsonl}

#: what an unsupported file is told the loader accepts
SUPPORTED = (".csv/.tsv/.json/.jsonl triples, .graphml, documents (.txt, .md, .pdf, .html, .docx), "
             "JSON(L) corpora, a HippoRAG OpenIE file, or a named-KG folder")

_BY_SUFFIX = {s: f.name for f in FORMATS.values() for s in f.suffixes}


def detect_format(path: Path, *, limits: InputLimits | None = None) -> str:
    """One of ``triples``, ``graphml``, ``corpus``, ``document`` (plain text), ``markdown``, ``pdf``, ``html``,
    ``docx``, ``openie``, ``corpus_nodes``, ``corpus_edges``, ``named_kg``, ``egx_graph``, ``questions``."""
    return detect(Path(path), resolve_limits(limits))[0]


def detect(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """The format of ``path`` and, for a ``.json`` file, its parsed content (so it is read once)."""
    if path.is_dir():
        return "named_kg", None
    suffix = base_suffix(path)
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix], None
    if suffix in SNIFFERS:
        return SNIFFERS[suffix](path, lim)
    raise InputFormatError(display_name(path), f"unsupported file type {suffix or '(none)'!r}", SUPPORTED)
