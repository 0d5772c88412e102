"""A corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}`` + edges CSV ``source,target``."""

from __future__ import annotations

from itertools import chain
from pathlib import Path

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name, resolve_limits
from core.graph.formats.delimited import csv_rows, pick_column, sniff_delimiter
from core.graph.formats.jsonio import iter_jsonl
from core.graph.formats.records import REL_NAMES, as_name
from core.graph.formats.textio import iter_lines
from core.graph.graph_builder import BadNameError, GraphBuilder

#: the column headers an edge's two ends may go by (matched in this order)
EDGE_SRC_NAMES = ("source", "src", "from", "head", "source_id")
EDGE_DST_NAMES = ("target", "dst", "to", "tail", "target_id")


def read_corpus_graph(nodes_path: Path, edges_path: Path, builder: GraphBuilder, *,
                      limits: InputLimits | None = None) -> list[str]:
    """A corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}``, each one chunk, and
    edges CSV with columns ``source,target[,relation]`` (relation defaults to ``"references"``)."""
    nodes_path, edges_path = Path(nodes_path), Path(edges_path)
    lim = resolve_limits(limits)
    nname, ename = display_name(nodes_path), display_name(edges_path)
    builder.kind = "corpus_graph"
    n = 0
    for line, rec in iter_jsonl(nodes_path, limits=lim):
        if not isinstance(rec, dict) or rec.get("id") is None or not isinstance(rec.get("text"), str):
            raise InputFormatError(nname, "a node record lacks an \"id\" or a \"text\" string",
                                   '{"id": ..., "title": ..., "text": ...} per line', line=line)
        nid = as_name(rec["id"], '"id"', nname, line=line, record=None)
        if builder.has_node(nid):
            raise InputFormatError(nname, f"node id {nid!r} appears twice", "unique node ids", line=line)
        title = rec.get("title") or nid
        title = as_name(title, '"title"', nname, line=line, record=None)
        cid = builder.add_chunk(title, rec["text"], chunk_id=nid)
        builder.add_node(title, node_id=nid, description=rec["text"], chunk_ids=(cid,))
        n += 1
    if n == 0:
        raise InputFormatError(nname, "there are no nodes", "one JSON object per line")
    lines = iter(iter_lines(edges_path, lim))
    peeked = []
    for item in lines:
        peeked.append(item)
        if item[1].strip():
            break
    delim = sniff_delimiter(edges_path, peeked[-1][1] if peeked else "")
    rows = csv_rows(edges_path, chain(peeked, lines), delim)
    first = next(rows, None)
    if first is None:
        return [f"{ename}: no edges; the corpus graph has isolated passages only."]
    s, t, r = (pick_column(first[1], names) for names in (EDGE_SRC_NAMES, EDGE_DST_NAMES, REL_NAMES))
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
        try:
            builder.add_edge(row[s].strip(), rel, row[t].strip())
        except BadNameError as exc:
            raise InputFormatError(ename, exc.problem, exc.expected, line=line) from None
    return []
