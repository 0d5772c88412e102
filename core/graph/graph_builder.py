"""Building a :class:`~core.graph.model.KnowledgeGraph`: piece by piece (:class:`GraphBuilder`), from name
triples (:func:`graph_from_triples`) or from an egx graph export (:func:`graph_from_dict`, the inverse of
:meth:`~core.graph.model.KnowledgeGraph.to_dict`, which checks every field because an export is user data).

Every input reader (``core/graph/formats/``), the corpus → KG builder and the synonym edges add to a
:class:`GraphBuilder`, which merges entities, edges and chunks as it goes (its docstring says how) and
freezes the result with :meth:`GraphBuilder.build`. Not to be confused with :mod:`core.graph.builder`, the
corpus → KG stage (chunking and triple extraction), which uses this one to assemble its graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import EmptyGraphError, InputFormatError, UnknownNameError
from core.graph.model import Chunk, GraphKind, KnowledgeGraph
from core.text import clean_text, content_hash, normalize_name, safe_text


class BadNameError(InputFormatError):
    """A node name or relation with no letter or digit (``"..."``, ``"?"``): it would merge every
    such name into one empty key. Loaders re-raise it with the file and line."""

    def __init__(self, label: str, value: str) -> None:
        shown = value if len(value) <= 40 else value[:37] + "..."
        super().__init__(label, f"the {label} {shown!r} has no letter or digit (only punctuation or spaces)",
                         "names with at least one letter or digit")


@dataclass
class SourceNotes:
    """What the readers of one load noticed about the provenance of triples, for
    :func:`~core.graph.formats.load.load_inputs` to report once rather than per triple."""

    linked: dict[str, str] = field(default_factory=dict)  # a source naming a passage by its title -> that id
    n_linked: int = 0  # triples whose source was linked by title
    ambiguous: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a source titling several passages
    numbered: list[tuple[str, int, int, str, str]] = field(default_factory=list)  # corpus file, passages
    # without an id, passages, first and last made-up id


class GraphBuilder:
    """Accumulates chunks, nodes and edges from any number of inputs, merging as it goes.

    * Entities merge by :func:`~core.text.normalize_name` unless an explicit ``node_id`` is given
      (named KGs such as FB15k-237 keep their MIDs so distinct entities with one name stay apart).
      The first spelling seen becomes the display name.
    * Edges merge on (head, normalized relation, tail); provenance chunk ids are unioned.
    * Chunks merge by id; the same id with different text is an error.
    """

    def __init__(self, *, kind: GraphKind = "kg", name: str = "") -> None:
        self.kind: GraphKind = kind
        self.name = name
        self._chunks: dict[str, Chunk] = {}
        self._chunk_by_content: dict[tuple[str, str], str] = {}
        self._node_pos: dict[str, int] = {}
        self._names: list[str] = []
        self._ids: list[str] = []
        self._desc: list[str] = []
        self._nchunks: list[dict[str, None] | None] = []  # None until a node cites a chunk (saves memory)
        self._edge_pos: dict[tuple[int, str, int], int] = {}
        self._eh: list[int] = []
        self._et: list[int] = []
        self._er: list[str] = []
        self._echunks: list[dict[str, None] | None] = []
        # raw name -> (clean name, merge key): names repeat across triples, and cleaning plus
        # Unicode normalization is most of the cost of loading a large triples file
        self._name_keys: dict[str, tuple[str, str]] = {}
        self._rel_keys: dict[str, tuple[str, str]] = {}
        self._titles: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None  # built on first use
        self.source_notes = SourceNotes()

    @classmethod
    def of(cls, graph: KnowledgeGraph, *, edges: Iterable[int] | None = None) -> GraphBuilder:
        """A builder holding everything of ``graph`` (chunks, nodes with their ids, descriptions and
        provenance, edges), to which more can be added: extraction results, synonym edges. ``edges``
        keeps only those edge ids, in graph order (all by default): adding documents drops the synonym
        edges it then computes again over the merged nodes."""
        b = cls(kind=graph.kind, name=graph.name)
        for c in graph.chunks:
            b.add_chunk(c.title, c.text, chunk_id=c.id)
        for v in range(graph.n_nodes):
            b.add_node(graph.node_names[v], node_id=graph.node_ids[v], description=graph.node_descriptions[v],
                       chunk_ids=graph.node_chunks[v])
        for e in range(graph.n_edges) if edges is None else sorted(set(edges)):
            b.add_edge(graph.node_ids[int(graph.edge_head[e])], graph.edge_relation[e],
                       graph.node_ids[int(graph.edge_tail[e])], chunk_ids=graph.edge_chunks[e])
        return b

    # chunks -------------------------------------------------------------
    def add_chunk(self, title: str, text: str, *, chunk_id: str | None = None) -> str:
        """Add a passage and return its id (an identical passage already present is reused)."""
        title, text = clean_text(title), safe_text(text).strip()
        key = (title, text)
        if chunk_id is None:
            if key in self._chunk_by_content:
                return self._chunk_by_content[key]
            chunk_id = "c" + content_hash(title, text, n=12)
        chunk_id = str(chunk_id)
        old = self._chunks.get(chunk_id)
        if old is not None:
            if (old.title, old.text) != key:
                raise InputFormatError(f"chunk {chunk_id!r}", "the same chunk id is used for two different texts",
                                       "unique chunk ids")
            return chunk_id
        self._chunks[chunk_id] = Chunk(chunk_id, title, text)
        self._chunk_by_content.setdefault(key, chunk_id)
        if title:
            self._titles = None
        return chunk_id

    def find_chunk(self, title: str, text: str) -> str | None:
        return self._chunk_by_content.get((clean_text(title), str(text).strip()))

    def chunks(self) -> tuple[Chunk, ...]:
        """The passages added so far, in the order they were added."""
        return tuple(self._chunks.values())

    def has_chunk(self, chunk_id: str) -> bool:
        return chunk_id in self._chunks

    def passages_titled(self, title: str) -> tuple[str, ...]:
        """Ids of the passages titled ``title``: exactly, else ignoring case and whitespace. A passage split
        into chunks (``<id>``, ``<id>#2``, ...) counts once, by its first chunk."""
        if self._titles is None:  # once per run of lookups: passages load before the triples citing them
            exact: dict[str, list[str]] = {}
            loose: dict[str, list[str]] = {}
            for c in self._chunks.values():
                if c.title:
                    exact.setdefault(c.title, []).append(c.id)
                    loose.setdefault(_title_key(c.title), []).append(c.id)
            self._titles = exact, loose
        exact, loose = self._titles
        ids = exact.get(title) or loose.get(_title_key(title), [])
        within = set(ids)
        return tuple(i for i in ids if not (i.rpartition("#")[0] in within and i.rpartition("#")[2].isdigit()))

    # nodes --------------------------------------------------------------
    def add_node(self, name: str, *, node_id: str | None = None, description: str = "",
                 chunk_ids: Iterable[str] = (), _label: str = "node name") -> int:
        """Add (or merge into) a node and return its position.

        Raises
        ------
        BadNameError
            When the node has no id and its name has no letter or digit.
        """
        if node_id is not None:
            name, key = clean_text(name), safe_text(str(node_id))
        else:
            hit = self._name_keys.get(name)
            if hit is None:
                clean = clean_text(name)
                hit = (clean, normalize_name(clean))
                if not hit[1]:
                    raise BadNameError(_label, clean)
                if len(self._name_keys) < 4_000_000:
                    self._name_keys[name] = hit
            name, key = hit
        if not key:
            raise BadNameError(_label, name)
        pos = self._node_pos.get(key)
        if pos is None:
            pos = len(self._ids)
            self._node_pos[key] = pos
            self._ids.append(key)
            self._names.append(name or key)
            self._desc.append(clean_text(description) if description else "")
            self._nchunks.append(None)
        elif description and not self._desc[pos]:
            self._desc[pos] = clean_text(description)
        _add_ids(self._nchunks, pos, chunk_ids)
        return pos

    def has_node(self, node_id: str) -> bool:
        return node_id in self._node_pos

    def node_name(self, node_id: str) -> str | None:
        """The display name of the node ``node_id``; None when there is none."""
        pos = self._node_pos.get(node_id)
        return None if pos is None else self._names[pos]

    # edges --------------------------------------------------------------
    def add_triple(self, head: str, relation: str, tail: str, *, chunk_id: str | None = None) -> int:
        """Add ``(head, relation, tail)`` by entity *names* (merged by normalized name)."""
        cids = (chunk_id,) if chunk_id else ()
        h = self.add_node(head, chunk_ids=cids, _label="head")
        t = self.add_node(tail, chunk_ids=cids, _label="tail")
        return self._add_edge(h, relation, t, cids)

    def add_edge(self, head_id: str, relation: str, tail_id: str, *, chunk_ids: Iterable[str] = ()) -> int:
        """Add an edge between two nodes that already exist, by *id*."""
        for nid in (head_id, tail_id):
            if str(nid) not in self._node_pos:
                raise UnknownNameError("node id", str(nid), list(self._node_pos)[:20])
        return self._add_edge(self._node_pos[str(head_id)], relation, self._node_pos[str(tail_id)], chunk_ids)

    def _add_edge(self, h: int, relation: str, t: int, chunk_ids: Iterable[str]) -> int:
        hit = self._rel_keys.get(relation)
        if hit is None:
            clean = clean_text(relation)
            hit = (clean, normalize_name(clean))
            if not hit[1]:
                raise BadNameError("relation", clean)
            if len(self._rel_keys) < 1_000_000:
                self._rel_keys[relation] = hit
        relation, rkey = hit
        key = (h, rkey, t)
        pos = self._edge_pos.get(key)
        if pos is None:
            pos = len(self._er)
            self._edge_pos[key] = pos
            self._eh.append(h)
            self._et.append(t)
            self._er.append(relation)
            self._echunks.append(None)
        _add_ids(self._echunks, pos, chunk_ids)
        return pos

    # --------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self._ids)

    @property
    def n_edges(self) -> int:
        return len(self._er)

    @property
    def n_chunks(self) -> int:
        return len(self._chunks)

    def build(self, *, allow_empty: bool = False) -> KnowledgeGraph:
        """Freeze into a :class:`KnowledgeGraph`.

        Raises
        ------
        EmptyGraphError
            If nothing was added (unless ``allow_empty``).
        """
        if not allow_empty and not self._ids and not self._chunks:
            raise EmptyGraphError(
                "The inputs contain no chunks, nodes or edges. "
                "Upload triples (head, relation, tail), a corpus of passages, or a graph file with content.")
        return KnowledgeGraph(
            node_ids=tuple(self._ids),
            node_names=tuple(self._names),
            node_descriptions=tuple(self._desc),
            node_chunks=tuple(tuple(c) if c else () for c in self._nchunks),
            edge_head=np.asarray(self._eh, dtype=np.int32),
            edge_tail=np.asarray(self._et, dtype=np.int32),
            edge_relation=tuple(self._er),
            edge_chunks=tuple(tuple(c) if c else () for c in self._echunks),
            chunks=tuple(self._chunks.values()),
            kind=self.kind,
            name=self.name,
        )


def _title_key(title: str) -> str:
    return clean_text(title).casefold()


def _add_ids(store: list[dict[str, None] | None], pos: int, ids: Iterable[str]) -> None:
    for c in ids:
        if c:
            d = store[pos]
            if d is None:
                d = store[pos] = {}
            d[str(c)] = None


def graph_from_triples(triples: Sequence[tuple[str, str, str]], *, name: str = "") -> KnowledgeGraph:
    """Convenience for tests and notebooks: a KG from ``(head, relation, tail)`` name triples."""
    b = GraphBuilder(name=name)
    for h, r, t in triples:
        b.add_triple(h, r, t)
    return b.build()


def graph_from_dict(d: dict[str, Any], *, source: str = "graph") -> KnowledgeGraph:
    """The graph of an egx export: the inverse of :meth:`~core.graph.model.KnowledgeGraph.to_dict`, checking
    every field's type (an export is user data).

    Raises
    ------
    InputFormatError
        When it is not an egx export, or a field has the wrong type (``nodes`` not a list, a
        name that is not a string, ...), naming the list and the record.
    """
    if not isinstance(d, dict) or d.get("format") != "egx-graph":
        raise InputFormatError(source, "this is not an egx graph export",
                               'a JSON object with "format": "egx-graph" (written by `egx` or the Data page)')
    expected = "chunks {id,title,text}, nodes {id,name}, edges {head,relation,tail}"
    kind = d.get("kind", "kg")
    if kind not in ("kg", "corpus_graph"):
        raise InputFormatError(source, f'"kind" is {_short(kind)}', '"kg" or "corpus_graph"')
    b = GraphBuilder(kind=kind, name=_text(d.get("name", ""), source, '"name"'))
    for key in ("chunks", "nodes", "edges"):
        if not isinstance(d.get(key), list):
            problem = f"missing field {key!r}" if key not in d else f'"{key}" is a JSON {_jtype(d[key])}, not a list'
            raise InputFormatError(source, problem, expected)
    try:
        for i, c in enumerate(d["chunks"], start=1):
            where = f"chunks[{i - 1}]"
            c = _obj(c, source, where)
            b.add_chunk(_text(c["title"], source, f"{where}.title"), _text(c["text"], source, f"{where}.text"),
                        chunk_id=_text(c["id"], source, f"{where}.id"))
        for i, n in enumerate(d["nodes"], start=1):
            where = f"nodes[{i - 1}]"
            n = _obj(n, source, where)
            b.add_node(_text(n["name"], source, f"{where}.name"), node_id=_text(n["id"], source, f"{where}.id"),
                       description=_text(n.get("description", ""), source, f"{where}.description"),
                       chunk_ids=_texts(n.get("chunks", ()), source, f"{where}.chunks"))
        for i, e in enumerate(d["edges"], start=1):
            where = f"edges[{i - 1}]"
            e = _obj(e, source, where)
            b.add_edge(_text(e["head"], source, f"{where}.head"), _text(e["relation"], source, f"{where}.relation"),
                       _text(e["tail"], source, f"{where}.tail"),
                       chunk_ids=_texts(e.get("chunks", ()), source, f"{where}.chunks"))
    except UnknownNameError as exc:  # (a KeyError too: caught first)
        raise InputFormatError(source, f"an edge names node id {exc.name!r}, which is not among the nodes",
                               "edges between the ids of listed nodes") from None
    except KeyError as exc:
        raise InputFormatError(source, f"missing field {exc.args[0]!r}", expected) from None
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise InputFormatError(source, f'"meta" is a JSON {_jtype(meta)}', "a JSON object")
    g = b.build(allow_empty=True)
    object.__setattr__(g, "meta", dict(meta))
    return g


def _jtype(v: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(v), type(v).__name__)


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _obj(v: Any, source: str, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}, not an object",
                               "chunks {id,title,text}, nodes {id,name}, edges {head,relation,tail}")
    return v


def _text(v: Any, source: str, where: str) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    shown = "" if v is None or isinstance(v, bool) else f" ({_short(v)})"
    raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}{shown}", "a string")


def _texts(v: Any, source: str, where: str) -> list[str]:
    if not isinstance(v, (list, tuple)):
        raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}", "a list of chunk ids")
    return [_text(x, source, f"{where}[{i}]") for i, x in enumerate(v)]
