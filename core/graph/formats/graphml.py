"""GraphML: node attribute ``name``/``label``, edge attribute ``relation``/``label``."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name, resolve_limits
from core.graph.formats.records import short_repr
from core.graph.formats.textio import read_text
from core.graph.graph_builder import BadNameError, GraphBuilder

_GRAPHML_EXPECTED = "a GraphML XML document"

#: the encoding named by an XML declaration, replaced once the text is decoded (see read_graphml)
_XML_ENCODING = re.compile(r"""\A(\ufeff?\s*<\?xml\b[^>]*?\bencoding\s*=\s*["'])[^"']*(["'])""")


def read_graphml(path: Path, builder: GraphBuilder, *, limits: InputLimits | None = None) -> list[str]:
    """A GraphML file: nodes keep their ids; ``name``/``label`` is the display name,
    ``description`` the description; edges take ``relation``/``label``/``type`` as relation and
    ``chunks`` (``|``-separated) or ``source_chunk`` as provenance.

    A document type declaration is refused outright: GraphML needs none, and entities are how XML
    reads local files (XXE) or expands a few bytes into gigabytes ("billion laughs"). Every node
    needs an ``id`` and every edge a ``source`` and a ``target`` (networkx would name them
    ``None``)."""
    import xml.etree.ElementTree as ET

    import networkx as nx

    path = Path(path)
    lim = resolve_limits(limits)
    name = display_name(path)
    # read_text decoded the file (UTF-8 or UTF-16), so the bytes below are UTF-8 whatever the XML declaration
    # said: it must say so too, or a valid UTF-16 document is parsed as UTF-16 a second time and refused
    text = _XML_ENCODING.sub(r"\1UTF-8\2", read_text(path, lim), count=1)
    raw = text.encode("utf-8")
    del text
    if re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw, re.I):
        raise InputFormatError(name, "the document declares a DOCTYPE or entities, which GraphML never needs "
                               "(refused: entities can read local files or expand without bound)",
                               "a GraphML document without <!DOCTYPE ...> / <!ENTITY ...>")
    try:
        counts = {"node": 0, "edge": 0}
        for _, el in ET.iterparse(io.BytesIO(raw), events=("end",)):
            tag = el.tag.rsplit("}", 1)[-1]
            if tag in counts:
                counts[tag] += 1
            if tag == "node" and not el.get("id"):
                raise InputFormatError(name, f"<node> number {counts['node']} has no id attribute",
                                       '<node id="..."> for every node')
            if tag == "edge" and (not el.get("source") or not el.get("target")):
                missing = "source" if not el.get("source") else "target"
                raise InputFormatError(name, f"<edge> number {counts['edge']} has no {missing} attribute",
                                       '<edge source="node id" target="node id"> for every edge')
        g = nx.read_graphml(io.BytesIO(raw))
    except InputFormatError:
        raise
    except Exception as exc:  # networkx raises bare Exceptions / ElementTree ParseError
        raise InputFormatError(name, f"not readable as GraphML ({exc})", _GRAPHML_EXPECTED) from None
    for i, (nid, attrs) in enumerate(g.nodes(data=True), start=1):
        label = attrs.get("name") or attrs.get("label") or str(nid)
        if len(str(label)) > lim.max_name_chars:
            raise InputFormatError(name, f"node {short_repr(str(nid))} has a {len(str(label)):,}-character name",
                                   f"names of at most {lim.max_name_chars:,} characters", record=i)
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
        try:
            builder.add_edge(str(u), str(rel), str(v), chunk_ids=chunks)
        except BadNameError as exc:
            raise InputFormatError(name, f"edge {u!r} -> {v!r}: {exc.problem}", exc.expected, record=i) from None
    return []


def _split_chunks(value: Any) -> list[str]:
    return [c for c in str(value).split("|") if c.strip()] if value else []
