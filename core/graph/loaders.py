"""Loaders for every input a user can upload (DESIGN.md "Data").

Each ``read_*`` function adds what it reads to a :class:`~core.graph.model.GraphBuilder` and
returns the non-fatal warnings (e.g. LLM noise skipped in an OpenIE file). A malformed input raises
one :class:`~core.errors.InputFormatError` naming the file, the line or record, what is wrong and
what was expected. Nothing is written to disk here, so a failure cannot leave a partial workspace.

:func:`load_inputs` detects the format of each path and returns one merged graph.

Supported inputs
----------------
* triples: CSV / TSV (header optional; columns head, relation, tail and an optional source chunk
  column), JSON (list of objects or of ``[h, r, t]`` lists), JSONL
* GraphML (node attribute ``name``/``label``, edge attribute ``relation``/``label``)
* a text corpus: ``.txt`` / ``.md`` files (one document each, chunked), JSON / JSONL ``{title, text}``
* HippoRAG: a corpus JSON plus its OpenIE results file (``docs[].extracted_triples``)
* a corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}`` + edges CSV ``source,target``
* a named KG folder (UMLS / FB15k-237 style): id-form triples plus ``entity2text`` / ``relation2text``
* an ``egx`` graph export (JSON written by :meth:`KnowledgeGraph.to_dict`)

Any of these may be gzip-compressed (``.gz``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import EmptyGraphError, InputFormatError
from core.graph.chunking import chunk_text
from core.graph.model import GraphBuilder, GraphKind, KnowledgeGraph

HEAD_NAMES = ("head", "subject", "subj", "source_entity", "h", "s", "from_entity")
REL_NAMES = ("relation", "predicate", "rel", "relationship", "r", "p", "edge")
TAIL_NAMES = ("tail", "object", "obj", "target_entity", "t", "o", "to_entity")
SRC_NAMES = ("source", "chunk", "chunk_id", "source_chunk", "doc", "doc_id", "passage", "provenance")
EDGE_SRC_NAMES = ("source", "src", "from", "head", "source_id")
EDGE_DST_NAMES = ("target", "dst", "to", "tail", "target_id")
TRIPLE_EXPECTED = "3 columns (head, relation, tail) or 4 (head, relation, tail, source chunk)"

csv.field_size_limit(1 << 26)


@dataclass
class LoadedGraph:
    """A merged graph plus what the loaders noticed but tolerated."""

    graph: KnowledgeGraph
    warnings: list[str] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)  # path -> detected format


# --------------------------------------------------------------------------- file helpers
def _display(path: Path) -> str:
    return path.name


def _base_suffix(path: Path) -> str:
    """Suffix ignoring a trailing ``.gz`` (``a.jsonl.gz`` → ``.jsonl``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _stem(path: Path) -> str:
    name = path.name
    for suf in (".gz",):
        if name.lower().endswith(suf):
            name = name[: -len(suf)]
    return name.rsplit(".", 1)[0] if "." in name else name


def read_text(path: Path) -> str:
    """File contents as text (gzip transparently), with a clear error for binary/bad encodings."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputFormatError(str(path), "the file does not exist", "a path to an existing file") from None
    except IsADirectoryError:
        raise InputFormatError(str(path), "this is a folder", "a file (folders are accepted only for named KGs)") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputFormatError(_display(path), f"the gzip data is corrupt ({exc})", "a valid .gz file") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b"\x00" in raw[:4096]:
        raise InputFormatError(_display(path), "the file looks binary (it contains NUL bytes)",
                               "a UTF-8 text file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFormatError(_display(path), f"byte {exc.start} is not valid UTF-8", "UTF-8 encoded text",
                               line=line) from None


def _load_json(path: Path, text: str | None = None) -> Any:
    text = read_text(path) if text is None else text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(_display(path), f"invalid JSON ({exc.msg}, column {exc.colno})", "valid JSON",
                               line=exc.lineno) from None


def _iter_jsonl(path: Path, text: str | None = None) -> Iterator[tuple[int, Any]]:
    text = read_text(path) if text is None else text
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield i, json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(_display(path), f"invalid JSON ({exc.msg}, column {exc.colno})",
                                   "one JSON object per line", line=i) from None


def _sniff_delimiter(path: Path, text: str) -> str:
    suffix = _base_suffix(path)
    if suffix == ".tsv" or suffix == ".txt":
        return "\t"
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if "\t" in first and "," not in first:
        return "\t"
    return ","


def _rows(path: Path, text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        for row in reader:
            if not row or all(not c.strip() for c in row):
                continue
            if row[0].lstrip().startswith("#") and reader.line_num == 1:
                continue
            yield reader.line_num, row
    except csv.Error as exc:
        raise InputFormatError(_display(path), f"CSV parse error ({exc})",
                               "well-formed CSV/TSV (quote fields that contain the delimiter)",
                               line=reader.line_num) from None


def _pick(header: Sequence[str], names: Sequence[str]) -> int | None:
    low = [h.strip().lower() for h in header]
    for n in names:
        if n in low:
            return low.index(n)
    return None


# --------------------------------------------------------------------------- triples
def read_triples(path: Path, builder: GraphBuilder, *, text: str | None = None) -> list[str]:
    """Triples from CSV/TSV/JSON/JSONL.

    CSV/TSV: a header naming the columns (``head,relation,tail[,source]`` or the synonyms
    subject/predicate/object, chunk/chunk_id) is recognised; otherwise the columns are taken
    positionally. The optional source column holds the id of the chunk the triple came from; an id
    that is not a known chunk creates an empty stand-in chunk so provenance is never dropped.

    Raises
    ------
    InputFormatError
        On a row with the wrong number of columns or an empty head/relation/tail.
    """
    path = Path(path)
    text = read_text(path) if text is None else text
    suffix = _base_suffix(path)
    name = _display(path)
    if suffix == ".json":
        data = _load_json(path, text)
        if isinstance(data, dict) and isinstance(data.get("triples"), list):
            data = data["triples"]
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {type(data).__name__}",
                                   'a list of triples ({"head","relation","tail"} objects or [h, r, t] lists)')
        for i, rec in enumerate(data, start=1):
            _add_triple_record(builder, rec, name, record=i)
    elif suffix == ".jsonl":
        for line, rec in _iter_jsonl(path, text):
            _add_triple_record(builder, rec, name, line=line)
    else:
        delim = _sniff_delimiter(path, text)
        rows = _rows(path, text, delim)
        first = next(rows, None)
        if first is None:
            raise InputFormatError(name, "the file is empty", TRIPLE_EXPECTED)
        cols: tuple[int, int, int, int | None] = (0, 1, 2, 3)
        h, r, t = _pick(first[1], HEAD_NAMES), _pick(first[1], REL_NAMES), _pick(first[1], TAIL_NAMES)
        pending: Iterable[tuple[int, list[str]]]
        if h is not None and r is not None and t is not None:
            cols = (h, r, t, _pick(first[1], SRC_NAMES))
            width = len(first[1])
            pending = rows
        else:
            width = len(first[1])
            pending = _chain([first], rows)
        if width not in (3, 4) and not (h is not None and r is not None and t is not None):
            raise InputFormatError(name, f"found {width} columns", TRIPLE_EXPECTED, line=first[0])
        for line, row in pending:
            if len(row) != width:
                raise InputFormatError(name, f"found {len(row)} columns but the first row has {width}",
                                       TRIPLE_EXPECTED, line=line)
            src = row[cols[3]].strip() if cols[3] is not None and cols[3] < len(row) else ""
            _add_checked(builder, row[cols[0]], row[cols[1]], row[cols[2]], src, name, line=line)
    return []


def _chain(a: Iterable[Any], b: Iterable[Any]) -> Iterator[Any]:
    yield from a
    yield from b


def _add_triple_record(builder: GraphBuilder, rec: Any, name: str, *, line: int | None = None,
                       record: int | None = None) -> None:
    if isinstance(rec, list):
        if len(rec) not in (3, 4):
            raise InputFormatError(name, f"a triple list has {len(rec)} items", "[head, relation, tail]",
                                   line=line, record=record)
        h, r, t = (str(x) for x in rec[:3])
        src = str(rec[3]) if len(rec) == 4 and rec[3] is not None else ""
    elif isinstance(rec, dict):
        low = {str(k).lower(): v for k, v in rec.items()}
        vals = []
        for names in (HEAD_NAMES, REL_NAMES, TAIL_NAMES):
            key = next((n for n in names if n in low), None)
            if key is None:
                raise InputFormatError(name, f"the object has no {names[0]!r} field (keys: {sorted(rec)})",
                                       'objects with "head", "relation", "tail" (and optional "source")',
                                       line=line, record=record)
            vals.append(low[key])
        h, r, t = (str(v) if v is not None else "" for v in vals)
        skey = next((n for n in SRC_NAMES if n in low), None)
        src = str(low[skey]) if skey and low[skey] is not None else ""
    else:
        raise InputFormatError(name, f"a triple is a JSON {type(rec).__name__}",
                               'an object {"head","relation","tail"} or a list [h, r, t]', line=line, record=record)
    _add_checked(builder, h, r, t, src, name, line=line, record=record)


def _add_checked(builder: GraphBuilder, h: str, r: str, t: str, src: str, name: str, *,
                 line: int | None = None, record: int | None = None) -> None:
    for label, val in (("head", h), ("relation", r), ("tail", t)):
        if not str(val).strip():
            raise InputFormatError(name, f"the {label} is empty", "a non-empty head, relation and tail",
                                   line=line, record=record)
    chunk_id = None
    if src:
        chunk_id = src if builder.has_chunk(src) else builder.add_chunk("", "", chunk_id=src)
    builder.add_triple(h, r, t, chunk_id=chunk_id)


# --------------------------------------------------------------------------- GraphML
def read_graphml(path: Path, builder: GraphBuilder) -> list[str]:
    """A GraphML file: nodes keep their ids; ``name``/``label`` is the display name,
    ``description`` the description; edges take ``relation``/``label``/``type`` as relation and
    ``chunks`` (``|``-separated) or ``source_chunk`` as provenance."""
    import networkx as nx

    path = Path(path)
    name = _display(path)
    try:
        g = nx.read_graphml(io.BytesIO(read_text(path).encode("utf-8")))
    except Exception as exc:  # networkx raises bare Exceptions / ElementTree ParseError
        raise InputFormatError(name, f"not readable as GraphML ({exc})", "a GraphML XML document") from None
    for nid, attrs in g.nodes(data=True):
        label = attrs.get("name") or attrs.get("label") or str(nid)
        chunks = _split_chunks(attrs.get("chunks") or attrs.get("source_chunk") or "")
        for c in chunks:
            if not builder.has_chunk(c):
                builder.add_chunk("", "", chunk_id=c)
        builder.add_node(str(label), node_id=str(nid), description=str(attrs.get("description", "")),
                         chunk_ids=chunks)
    for i, (u, v, attrs) in enumerate(g.edges(data=True), start=1):
        rel = attrs.get("relation") or attrs.get("label") or attrs.get("type") or attrs.get("predicate")
        if not rel:
            raise InputFormatError(name, f"edge {u!r} -> {v!r} has no relation label",
                                   'an edge attribute "relation" (or "label")', record=i)
        chunks = _split_chunks(attrs.get("chunks") or attrs.get("source_chunk") or "")
        for c in chunks:
            if not builder.has_chunk(c):
                builder.add_chunk("", "", chunk_id=c)
        builder.add_edge(str(u), str(rel), str(v), chunk_ids=chunks)
    return []


def _split_chunks(value: Any) -> list[str]:
    return [c for c in str(value).split("|") if c.strip()] if value else []


# --------------------------------------------------------------------------- corpora
def read_text_document(path: Path, builder: GraphBuilder, *, max_chars: int = 1200) -> list[str]:
    """A ``.txt`` / ``.md`` file as one document, split into chunks (see :func:`chunk_text`).

    The title is the first Markdown heading when there is one, else the file name."""
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise InputFormatError(_display(path), "the document is empty", "some text")
    title = _stem(path).replace("_", " ")
    m = re.match(r"\s*#\s+(.+)", text)
    if m:
        title = m.group(1).strip()
        text = text[m.end():]
    pieces = chunk_text(text, max_chars=max_chars)
    for i, piece in enumerate(pieces):
        builder.add_chunk(title, piece, chunk_id=f"{_stem(path)}#{i}" if len(pieces) > 1 else _stem(path))
    return []


def read_corpus_json(path: Path, builder: GraphBuilder, *, text: str | None = None) -> list[str]:
    """A corpus as JSON list / JSONL of ``{title, text}`` (optional ``id``). Records without an id
    get ``<file stem>:<position>`` so an OpenIE file for the same corpus can refer to them."""
    path = Path(path)
    name = _display(path)
    records: Iterable[tuple[dict[str, int], Any]]
    if _base_suffix(path) == ".jsonl":
        records = (({"line": ln}, rec) for ln, rec in _iter_jsonl(path, text))
    else:
        data = _load_json(path, text)
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {type(data).__name__}",
                                   'a list of {"title", "text"} objects')
        records = (({"record": i}, rec) for i, rec in enumerate(data, start=1))
    stem = _stem(path)
    n = 0
    for pos, (where, rec) in enumerate(records):
        if not isinstance(rec, dict):
            raise InputFormatError(name, f"a passage is a JSON {type(rec).__name__}", '{"title": ..., "text": ...}',
                                   **where)
        body = rec.get("text", rec.get("paragraph_text", rec.get("contents")))
        if not isinstance(body, str):
            raise InputFormatError(name, f'the passage has no "text" string (keys: {sorted(rec)})',
                                   '{"title": ..., "text": ...}', **where)
        title = rec.get("title", "")
        if not isinstance(title, str):
            raise InputFormatError(name, f'"title" is a {type(title).__name__}', 'a string title', **where)
        cid = str(rec["id"]) if rec.get("id") is not None else f"{stem}:{pos}"
        builder.add_chunk(title, body, chunk_id=cid)
        n += 1
    if n == 0:
        raise InputFormatError(name, "the corpus has no passages", 'at least one {"title", "text"} record')
    return []


def read_openie(path: Path, builder: GraphBuilder, *, text: str | None = None) -> list[str]:
    """HippoRAG OpenIE results: ``{"docs": [{title?, passage, extracted_triples}, ...]}``.

    Each doc is matched to an already-loaded corpus chunk by (title, text) — ``passage`` is
    ``"title\\ntext"`` — or becomes a new chunk. Triples that are not exactly three non-empty
    strings are LLM noise (185 of 17,419 in the MuSiQue file): they are skipped and counted in the
    returned warnings rather than failing the whole upload.
    """
    path = Path(path)
    name = _display(path)
    data = _load_json(path, text)
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        raise InputFormatError(name, "there is no top-level \"docs\" list",
                               'HippoRAG OpenIE output: {"docs": [{"passage", "extracted_triples"}, ...]}')
    skipped = 0
    stem = _stem(path)
    for i, doc in enumerate(data["docs"], start=1):
        if not isinstance(doc, dict) or "extracted_triples" not in doc:
            raise InputFormatError(name, 'a doc has no "extracted_triples"',
                                   '{"passage": ..., "extracted_triples": [[s, p, o], ...]}', record=i)
        title = doc.get("title", "")
        passage = doc.get("passage", "")
        body = doc.get("text")
        if body is None:
            body = passage.split("\n", 1)[1] if title and passage.startswith(title + "\n") else passage
        cid = builder.find_chunk(title, body) or builder.add_chunk(title, body, chunk_id=f"{stem}:{i - 1}")
        triples = doc["extracted_triples"]
        if not isinstance(triples, list):
            raise InputFormatError(name, '"extracted_triples" is not a list', "a list of [s, p, o] lists", record=i)
        for tr in triples:
            if (not isinstance(tr, list) or len(tr) != 3
                    or not all(isinstance(x, (str, int, float)) and str(x).strip() for x in tr)):
                skipped += 1
                continue
            builder.add_triple(str(tr[0]), str(tr[1]), str(tr[2]), chunk_id=cid)
    if skipped:
        return [f"{name}: skipped {skipped} malformed triples (not exactly three non-empty strings)."]
    return []


# --------------------------------------------------------------------------- corpus graph
def read_corpus_graph(nodes_path: Path, edges_path: Path, builder: GraphBuilder) -> list[str]:
    """A corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}``, each one chunk, and
    edges CSV with columns ``source,target[,relation]`` (relation defaults to ``"references"``)."""
    nodes_path, edges_path = Path(nodes_path), Path(edges_path)
    nname, ename = _display(nodes_path), _display(edges_path)
    builder.kind = "corpus_graph"
    n = 0
    for line, rec in _iter_jsonl(nodes_path):
        if not isinstance(rec, dict) or rec.get("id") is None or not isinstance(rec.get("text"), str):
            raise InputFormatError(nname, "a node record lacks an \"id\" or a \"text\" string",
                                   '{"id": ..., "title": ..., "text": ...} per line', line=line)
        nid = str(rec["id"])
        if builder.has_node(nid):
            raise InputFormatError(nname, f"node id {nid!r} appears twice", "unique node ids", line=line)
        title = str(rec.get("title") or nid)
        cid = builder.add_chunk(title, rec["text"], chunk_id=nid)
        builder.add_node(title, node_id=nid, description=rec["text"], chunk_ids=(cid,))
        n += 1
    if n == 0:
        raise InputFormatError(nname, "there are no nodes", "one JSON object per line")
    text = read_text(edges_path)
    rows = _rows(edges_path, text, _sniff_delimiter(edges_path, text))
    first = next(rows, None)
    if first is None:
        return [f"{ename}: no edges; the corpus graph has isolated passages only."]
    s, t, r = _pick(first[1], EDGE_SRC_NAMES), _pick(first[1], EDGE_DST_NAMES), _pick(first[1], REL_NAMES)
    if s is None or t is None:
        raise InputFormatError(ename, f"the header {first[1]} has no source/target columns",
                               "a header row `source,target[,relation]`", line=first[0])
    for line, row in rows:
        if max(s, t) >= len(row):
            raise InputFormatError(ename, f"found {len(row)} columns", "source,target[,relation]", line=line)
        for col in (s, t):
            if not builder.has_node(row[col].strip()):
                raise InputFormatError(ename, f"node id {row[col].strip()!r} is not in {nname}",
                                       "edges between node ids defined in the nodes file", line=line)
        rel = row[r].strip() if r is not None and r < len(row) and row[r].strip() else "references"
        builder.add_edge(row[s].strip(), rel, row[t].strip())
    return []


# --------------------------------------------------------------------------- named KG folders
def read_named_kg(folder: Path, builder: GraphBuilder, *, splits: Sequence[str] = ("train", "dev", "test")) -> list[str]:
    """A KG folder with id-form triples and readable names (UMLS / FB15k-237 layouts).

    * ``entity2text.txt`` (or ``kgbert_entity2text.txt``): ``id<TAB>name``
    * ``relation2text.txt`` (optional): ``relation<TAB>readable phrase``
    * triples per split: ``<split>.tsv`` / ``kgbert_<split>.tsv`` (``h<TAB>r<TAB>t``) or OpenKE
      ``openke_<split>2id.txt`` (first line a count, then ``h_id t_id r_id``) with
      ``openke_entity2id.txt`` / ``openke_relation2id.txt``.

    The union of the splits found is the KG (a retrieval KG has no held-out edges). Entities keep
    their ids, so two Freebase entities that share a name stay apart.
    """
    folder = Path(folder)
    ent_file = _first_existing(folder, ("entity2text.txt", "kgbert_entity2text.txt"))
    if ent_file is None:
        raise InputFormatError(str(folder), "no entity2text.txt in this folder",
                               "a named-KG folder with entity2text.txt (id<TAB>name) and triples")
    names = _read_two_col(ent_file)
    rel_file = _first_existing(folder, ("relation2text.txt", "kgbert_relation2text.txt"))
    rels = _read_two_col(rel_file) if rel_file else {}
    triples: list[tuple[str, str, str, Path, int]] = []
    found = []
    for split in splits:
        tsv = _first_existing(folder, (f"{split}.tsv", f"kgbert_{split}.tsv"))
        oke = folder / f"openke_{'valid' if split == 'dev' else split}2id.txt"
        if tsv is not None:
            found.append(tsv.name)
            for line, row in _rows(tsv, read_text(tsv), "\t"):
                if len(row) != 3:
                    raise InputFormatError(_display(tsv), f"found {len(row)} columns",
                                           "head<TAB>relation<TAB>tail", line=line)
                triples.append((row[0], row[1], row[2], tsv, line))
        elif oke.exists():
            found.append(oke.name)
            ent_ids = {v: k for k, v in _read_two_col(folder / "openke_entity2id.txt", skip_count=True).items()}
            rel_ids = {v: k for k, v in _read_two_col(folder / "openke_relation2id.txt", skip_count=True).items()}
            for i, ln in enumerate(read_text(oke).splitlines()[1:], start=2):
                parts = ln.split()
                if not parts:
                    continue
                if len(parts) != 3 or parts[0] not in ent_ids or parts[1] not in ent_ids or parts[2] not in rel_ids:
                    raise InputFormatError(_display(oke), f"bad OpenKE triple {ln!r}",
                                           "head_id tail_id relation_id (ids from entity2id/relation2id)", line=i)
                triples.append((ent_ids[parts[0]], rel_ids[parts[2]], ent_ids[parts[1]], oke, i))
    if not found:
        raise InputFormatError(str(folder), "no triple files",
                               "train.tsv / dev.tsv / test.tsv, kgbert_<split>.tsv or openke_<split>2id.txt")
    for h, r, t, src, line in triples:
        for e in (h, t):
            if not builder.has_node(e):
                if e not in names:
                    raise InputFormatError(_display(src), f"entity {e!r} has no name in {ent_file.name}",
                                           "every entity listed in entity2text", line=line)
                builder.add_node(names[e], node_id=e)
        builder.add_edge(h, rels.get(r, r.replace("_", " ")), t)
    return []


def _first_existing(folder: Path, names: Sequence[str]) -> Path | None:
    for n in names:
        if (folder / n).exists():
            return folder / n
    return None


def _read_two_col(path: Path, *, skip_count: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = read_text(path).splitlines()
    for i, ln in enumerate(lines, start=1):
        if skip_count and i == 1:
            continue
        if not ln.strip():
            continue
        parts = ln.split("\t")
        if len(parts) < 2:
            raise InputFormatError(_display(path), "found 1 column", "id<TAB>text", line=i)
        out[parts[0].strip()] = parts[1].strip()
    return out


# --------------------------------------------------------------------------- detection
def detect_format(path: Path) -> str:
    """One of ``triples``, ``graphml``, ``corpus``, ``document``, ``openie``, ``corpus_nodes``,
    ``corpus_edges``, ``named_kg``, ``egx_graph``, ``questions``."""
    path = Path(path)
    if path.is_dir():
        return "named_kg"
    suffix = _base_suffix(path)
    if suffix in (".graphml", ".xml"):
        return "graphml"
    if suffix in (".md", ".markdown"):
        return "document"
    if suffix in (".csv", ".tsv"):
        head = read_text(path).split("\n", 1)[0].lower()
        cells = {c.strip().strip('"') for c in re.split(r"[,\t]", head)}
        if cells & {"source", "src", "from"} and cells & {"target", "dst", "to"}:
            return "corpus_edges"
        return "triples"
    if suffix == ".txt":
        first = read_text(path).split("\n", 1)[0]
        return "triples" if first.count("\t") in (2, 3) else "document"
    if suffix == ".json":
        data = _load_json(path)
        if isinstance(data, dict):
            if data.get("format") == "egx-graph":
                return "egx_graph"
            if isinstance(data.get("docs"), list):
                return "openie"
            if isinstance(data.get("triples"), list):
                return "triples"
        if isinstance(data, list) and data:
            rec = data[0]
            if isinstance(rec, list):
                return "triples"
            if isinstance(rec, dict):
                keys = {str(k).lower() for k in rec}
                if "question" in keys:
                    return "questions"
                if "text" in keys or "paragraph_text" in keys or "contents" in keys:
                    return "corpus"
                return "triples"
        raise InputFormatError(_display(path), "cannot tell what this JSON holds",
                               "a list of {title,text} passages, a list of triples, or a HippoRAG OpenIE file")
    if suffix == ".jsonl":
        first_rec = next(_iter_jsonl(path), None)
        if first_rec is None:
            raise InputFormatError(_display(path), "the file is empty", "one JSON object per line")
        rec = first_rec[1]
        if isinstance(rec, dict):
            keys = {str(k).lower() for k in rec}
            if "text" in keys and "id" in keys and "relation" not in keys:
                return "corpus_nodes"
            if "text" in keys or "paragraph_text" in keys:
                return "corpus"
        return "triples"
    raise InputFormatError(_display(path), f"unsupported file type {suffix or '(none)'!r}",
                           ".csv/.tsv/.json/.jsonl triples, .graphml, .txt/.md documents, "
                           "JSON(L) corpora, a HippoRAG OpenIE file, or a named-KG folder")


def load_inputs(paths: Sequence[str | Path], *, name: str = "",
                progress: Callable[[str, float], None] | None = None) -> LoadedGraph:
    """Detect and load any mix of supported inputs into one merged graph.

    Corpora load before triples so provenance ids resolve; a corpus-graph edges file needs a nodes
    file (``*.jsonl`` with ``id`` and ``text``) among the inputs.

    Raises
    ------
    InputFormatError
        For the first malformed input (nothing is returned, nothing written).
    EmptyGraphError
        When the inputs hold no content at all.
    """
    paths_: list[Path] = [Path(p) for p in paths]
    paths = paths_
    if not paths:
        raise EmptyGraphError("No input files were given. Pass triples, a corpus, a GraphML file or a KG folder.")
    fmts = {p: detect_format(p) for p in paths}
    if "questions" in fmts.values():
        q = next(p for p, f in fmts.items() if f == "questions")
        raise InputFormatError(_display(q), "this is a questions file, not a graph or corpus",
                               "questions to be given separately (they are used for evaluation)")
    nodes = [p for p, f in fmts.items() if f == "corpus_nodes"]
    edges = [p for p, f in fmts.items() if f == "corpus_edges"]
    if edges and len(nodes) != 1:
        raise InputFormatError(_display(edges[0]), "a corpus-graph edges file needs exactly one nodes file",
                               "a nodes JSONL ({id, title, text} per line) uploaded together with it")
    kind: GraphKind = "corpus_graph" if nodes and edges else "kg"
    if any(f == "egx_graph" for f in fmts.values()):
        if len(paths) != 1:
            raise InputFormatError(_display(paths[0]), "an egx graph export must be loaded on its own",
                                   "one egx-graph JSON file")
        g = KnowledgeGraph.from_dict(_load_json(paths[0]), source=_display(paths[0]))
        return LoadedGraph(g, [], {str(paths[0]): "egx_graph"})
    builder = GraphBuilder(kind=kind, name=name)
    warnings: list[str] = []
    order = {"corpus": 0, "document": 0, "corpus_nodes": 0, "openie": 1, "corpus_edges": 2,
             "triples": 3, "graphml": 3, "named_kg": 3}
    ordered = sorted(paths, key=lambda p: order.get(fmts[p], 9))
    for i, p in enumerate(ordered):
        fmt = fmts[p]
        if progress:
            progress(f"Reading {p.name} ({fmt})", i / len(ordered))
        if fmt == "corpus":
            warnings += read_corpus_json(p, builder)
        elif fmt == "document":
            warnings += read_text_document(p, builder)
        elif fmt == "openie":
            warnings += read_openie(p, builder)
        elif fmt == "triples":
            warnings += read_triples(p, builder)
        elif fmt == "graphml":
            warnings += read_graphml(p, builder)
        elif fmt == "named_kg":
            warnings += read_named_kg(p, builder)
        elif fmt == "corpus_nodes":
            if not edges:
                warnings += read_corpus_json(p, builder)
        elif fmt == "corpus_edges":
            warnings += read_corpus_graph(nodes[0], p, builder)
    if progress:
        progress("Merging", 1.0)
    graph = builder.build()
    return LoadedGraph(graph, warnings, {str(p): fmts[p] for p in paths})
