"""Load any mix of input files into one merged graph (DESIGN.md "Data").

Each file's format is detected (:func:`~core.graph.formats.registry.detect_format`), the files are read in
the order the formats' ranks give, each by its format's reader, into one
:class:`~core.graph.graph_builder.GraphBuilder`. A malformed input raises one :class:`~core.errors.InputFormatError`
naming the file, the line or record, what is wrong and what was expected. Nothing is written to disk here,
so a failure cannot leave a partial workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import EmptyGraphError, InputFormatError
from core.graph.chunking import PassageSplit
from core.graph.formats.bounds import InputLimits, base_suffix, display_name, resolve_limits
from core.graph.formats.documents import DOCUMENT_FORMATS
from core.graph.formats.registry import FORMATS, ReadContext, detect
from core.graph.formats.repeats import RepeatIndex
from core.graph.formats.sniff import looks_like_questions
from core.graph.graph_builder import GraphBuilder, SourceNotes, graph_from_dict
from core.graph.model import Chunk, GraphKind, KnowledgeGraph

#: formats whose files hold passages (the file-status table counts them)
PASSAGE_FORMATS = ("corpus", "corpus_nodes", *DOCUMENT_FORMATS)


@dataclass(frozen=True)
class FileStatus:
    """What became of one input file: its format, the passages it gave (None for a file of triples or a
    graph), or why it could not be read (``error``; the file was left out)."""

    file: str
    format: str
    passages: int | None = None
    error: str = ""
    #: passages of it left out because they repeat passages read before (:mod:`core.graph.formats.repeats`)
    duplicates: int = 0
    duplicate_of: tuple[str, ...] = ()  #: the titles of the first few passages it repeats


    @property
    def ok(self) -> bool:
        return not self.error

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"file": self.file, "format": self.format, "passages": self.passages, "error": self.error}
        if self.duplicates:  # said only when there were: a manifest without repeats reads as it always did
            d |= {"duplicates": self.duplicates, "duplicate_of": list(self.duplicate_of)}
        return d

    @property
    def duplicates_text(self) -> str:
        """What a person reads about the passages left out as repeats ("" for none)."""
        return duplicates_text(self.file, self.duplicates, self.duplicate_of)


def duplicates_text(file: str, n: int, of: Sequence[str]) -> str:
    """"3 passages of three_passages.pdf repeat passages already read (e.g. “Journal of Mathematical Physics”)
    and were left out", or "" when ``n`` is 0."""
    if not n:
        return ""
    eg = ", ".join(f"“{t}”" for t in dict.fromkeys(of).keys() if t)
    return (f"{n:,} passage{'s' if n != 1 else ''} of {file} repeat{'s' if n == 1 else ''} "
            f"{'passages' if n != 1 else 'a passage'} already read" + (f" (e.g. {eg})" if eg else "")
            + f" and {'were' if n != 1 else 'was'} left out")


@dataclass
class LoadedGraph:
    """A merged graph plus what the loaders noticed but tolerated, and each file's :class:`FileStatus`."""

    graph: KnowledgeGraph
    warnings: list[str] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)  # path -> detected format
    files: list[FileStatus] = field(default_factory=list)  # in the order the paths were given

    def other_notes(self) -> tuple[str, ...]:
        """The warnings less the repeats each file left out, which an insert's summary says itself (the Data page
        showed the summary and the notes, each sentence twice)."""
        said = {f.duplicates_text + "." for f in self.files if f.duplicates}
        return tuple(w for w in self.warnings if w not in said)


def questions_file_error(path: Path) -> InputFormatError:
    """The refusal of a questions file given as a graph or corpus input, with where it goes instead."""
    name = display_name(path)
    as_list = " (as one JSON list of question objects)" if base_suffix(path) == ".jsonl" else ""
    err = InputFormatError(
        name, 'this looks like a questions file (its records have a "question"), not a graph or corpus',
        f"graph or corpus files here, and the questions given separately{as_list}: egx index ... --questions FILE")
    err.app_message = (f"{name} looks like a questions file (its records have a “question”), not a graph or corpus: "
                       f"drop it on the “Questions with gold evidence” uploader{as_list}, and the graph or corpus files on "
                       "this one.")
    return err


def refuse_questions_files(paths: Sequence[str | Path]) -> None:
    """Refuse a questions file among the inputs of a build before the build starts, from the start of each
    file only (:func:`~core.graph.formats.sniff.looks_like_questions`); :func:`load_inputs` refuses the rest.

    Raises
    ------
    InputFormatError
        Naming the first questions file and where it goes instead.
    """
    for p in map(Path, paths):
        if looks_like_questions(p):
            raise questions_file_error(p)


def load_inputs(paths: Sequence[str | Path], *, name: str = "",
                progress: Callable[[str, float], None] | None = None,
                limits: InputLimits | None = None, known: Iterable[Chunk] | None = None,
                passages: PassageSplit | None = None) -> LoadedGraph:
    """Detect and load any mix of supported inputs into one merged graph.

    Corpora load before triples so provenance ids resolve; a corpus-graph edges file needs a nodes
    file (``*.jsonl`` with ``id`` and ``text``) among the inputs. Documents load after the JSON corpora and
    leave out the passages they repeat word for word (compared without case, whitespace or quote spelling)
    from those corpora or the documents before them; ``known`` (the passages of a workspace documents are
    added to) are checked too, and then a JSON corpus skips its records that repeat a passage read before as
    well. A build keeps every record of a JSON corpus, as its dataset published it (see
    :mod:`core.graph.formats.repeats`). Each file's :class:`FileStatus` counts what it left out, and a warning
    says it. A document (PDF, HTML, Word, Markdown,
    text) that cannot be read is left out when other files were read, so that one scanned PDF in a folder
    does not stop the rest: the result's ``files`` says what became of each file and a warning names it. Every file is read within
    ``limits`` (default :meth:`~core.graph.formats.bounds.InputLimits.from_env`): bounded decompression,
    no NUL bytes, names of bounded length; line-based files are streamed. Documents are split into passages
    as ``passages`` says (default: paragraphs packed up to 1,200 characters); a JSON corpus's records stay whole.

    Raises
    ------
    InputFormatError
        For a malformed input other than a document, or when no file could be read (nothing is returned,
        nothing written).
    EmptyGraphError
        When the inputs hold no content at all.
    """
    lim = resolve_limits(limits)
    paths_: list[Path] = [Path(p) for p in paths]
    paths = paths_
    if not paths:
        raise EmptyGraphError("No input files were given. Pass triples, a corpus, a GraphML file or a KG folder.")
    detected = {p: detect(p, lim) for p in paths}
    fmts = {p: f for p, (f, _) in detected.items()}
    parsed = {p: d for p, (_, d) in detected.items() if d is not None}
    if "questions" in fmts.values():
        raise questions_file_error(next(p for p, f in fmts.items() if f == "questions"))
    nodes = [p for p, f in fmts.items() if f == "corpus_nodes"]
    edges = [p for p, f in fmts.items() if f == "corpus_edges"]
    if edges and len(nodes) != 1:
        raise InputFormatError(display_name(edges[0]), "a corpus-graph edges file needs exactly one nodes file",
                               "a nodes JSONL ({id, title, text} per line) uploaded together with it")
    kind: GraphKind = "corpus_graph" if nodes and edges else "kg"
    for p in nodes if not edges else ():  # {id, title, text} lines without an edges file are a corpus, read and
        fmts[p] = "corpus"  # recorded as one (an audit's manifest called its passages "corpus nodes")
    if any(f == "egx_graph" for f in fmts.values()):
        if len(paths) != 1:
            raise InputFormatError(display_name(paths[0]), "an egx graph export must be loaded on its own",
                                   "one egx-graph JSON file")
        g = graph_from_dict(parsed[paths[0]], source=display_name(paths[0]))
        return LoadedGraph(g, [], {str(paths[0]): "egx_graph"}, [FileStatus(display_name(paths[0]), "egx_graph")])
    builder = GraphBuilder(kind=kind, name=name)
    warnings: list[str] = []
    status: dict[Path, FileStatus] = {}
    failed: list[InputFormatError] = []
    # documents after the JSON corpora of their rank, so a PDF of a corpus's passages repeats them, not the reverse
    ordered = sorted(paths, key=lambda p: (FORMATS[fmts[p]].rank, fmts[p] in DOCUMENT_FORMATS))
    repeats = RepeatIndex()
    if known is not None:
        repeats.add_all((c.title, c.text) for c in known)
    seeded = False
    for i, p in enumerate(ordered):
        fmt = fmts[p]
        data = parsed.pop(p, None)  # dropped as soon as it is read: peak memory holds one document
        if progress:
            progress(f"Reading {p.name} ({fmt})", i / len(ordered))
        before = builder.n_chunks
        if fmt in DOCUMENT_FORMATS and not seeded:  # the passages of the JSON corpora read so far
            repeats.add_all((c.title, c.text) for c in builder.chunks())
            seeded = True
        try:
            warnings += FORMATS[fmt].read(p, builder, ReadContext(data, lim, fmts, repeats, known is not None,
                                                                     passages or PassageSplit()))
        except InputFormatError as exc:
            if fmt not in DOCUMENT_FORMATS:  # read as it streams: what it added cannot be taken back
                raise
            failed.append(exc)  # a document adds nothing until it is read whole
            repeats.found.pop(display_name(p), None)
            status[p] = FileStatus(display_name(p), fmt, error=str(exc))
            continue
        finally:
            del data
        dups = repeats.found.pop(display_name(p), [])
        status[p] = FileStatus(display_name(p), fmt, builder.n_chunks - before if fmt in PASSAGE_FORMATS else None,
                               duplicates=len(dups), duplicate_of=tuple(dict.fromkeys(dups))[:3])
    files = [status[p] for p in paths]
    warnings += [f.duplicates_text + "." for f in files if f.duplicates]
    if failed and len(failed) == len(paths):
        if len(failed) == 1:
            raise failed[0]
        raise InputFormatError(f"{len(failed)} files", "none of them could be read (" + "; ".join(
            str(e).rstrip(".") for e in failed) + ")", "at least one readable file")
    if failed:
        warnings.append(f"{len(failed)} of {len(paths)} files could not be read and were left out: "
                        + "; ".join(str(e).rstrip(".") for e in failed) + ".")
    if progress:
        progress("Merging", 1.0)
    graph = builder.build(allow_empty=any(f.duplicates for f in files))  # every passage was read before
    warnings += _source_warnings(graph, builder.source_notes)
    return LoadedGraph(graph, warnings, {str(p): fmts[p] for p in paths if status[p].ok}, files)


def _source_warnings(graph: KnowledgeGraph, notes: SourceNotes) -> list[str]:
    """What became of the triples' source chunk ids that are no passage id: linked to the one passage they
    name by title, or kept as empty stand-in passages (with why: no such id, a title several passages
    share, ids the corpus never had)."""
    out = []
    if notes.linked:
        shown = ", ".join(f"{t!r} → {c!r}" for t, c in list(notes.linked.items())[:5])
        out.append(f"{notes.n_linked:,} triple{' names its' if notes.n_linked == 1 else 's name their'} passage by "
                   f"title, not by id; linked by title: {shown}{', ...' if len(notes.linked) > 5 else ''}.")
    stand_ins = [c.id for c in graph.chunks if not c.text.strip() and not c.title]
    if not stand_ins:
        return out
    corpus = len(stand_ins) < len(graph.chunks)
    msg = (f"{len(stand_ins):,} source chunk id{'s' if len(stand_ins) != 1 else ''} "
           f"({', '.join(map(repr, stand_ins[:5]))}{', ...' if len(stand_ins) > 5 else ''}) "
           + ("name no passage of the corpus" if corpus else "name passages, but no corpus was loaded")
           + ": they are kept as empty stand-in passages (the provenance stays, the text is missing). ")
    if not corpus:
        return [*out, msg + "Load the corpus with the triples to give them text."]
    if notes.ambiguous:
        shared = list(notes.ambiguous.items())
        msg += (f"{len(shared):,} of them {'is a title' if len(shared) == 1 else 'are titles'} that several "
                "passages share, so not linked by title: " + "; ".join(
                    f"{t!r} (passages {', '.join(map(repr, ids[:5]))}{', ...' if len(ids) > 5 else ''})"
                    for t, ids in shared[:3]) + ("; ..." if len(shared) > 3 else "") + ". ")
    msg += "Check the ids against the corpus's passage ids (a source may also name a passage by its exact title)"
    for file, k, n, first, last in notes.numbered:
        msg += (f"; {file}'s passages have no 'id' field" if k == n
                else f"; {k:,} of {file}'s {n:,} passages have no 'id' field")
        msg += f"; they were numbered {first}" + (f"…{last}" if last != first else "") + " by position"
    return [*out, msg + "."]
