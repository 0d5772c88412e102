"""Loaders for every input a user can upload: the face of :mod:`core.graph.formats`.

Each format family, the registry that detects and orders them, and the shared bounds and checks live in
a module of their own under ``core/graph/formats/`` (its docstring lists them and the supported inputs);
this module re-exports their public names so that ``from core.graph.loaders import load_inputs`` keeps
working.
"""

from __future__ import annotations

from core.graph.formats.bounds import InputLimits, open_input
from core.graph.formats.corpus import read_corpus_json, read_text_document
from core.graph.formats.corpus_graph import EDGE_DST_NAMES, EDGE_SRC_NAMES, read_corpus_graph
from core.graph.formats.graphml import read_graphml
from core.graph.formats.jsonio import MAX_INT_DIGITS, parse_json, strict_loads
from core.graph.formats.load import LoadedGraph, load_inputs
from core.graph.formats.named_kg import read_named_kg
from core.graph.formats.openie import read_openie
from core.graph.formats.records import HEAD_NAMES, REL_NAMES, SRC_NAMES, TAIL_NAMES
from core.graph.formats.registry import detect_format
from core.graph.formats.textio import iter_lines, read_text
from core.graph.formats.triples import TRIPLE_EXPECTED, read_triples

__all__ = [
    "EDGE_DST_NAMES", "EDGE_SRC_NAMES", "HEAD_NAMES", "MAX_INT_DIGITS", "REL_NAMES", "SRC_NAMES", "TAIL_NAMES",
    "TRIPLE_EXPECTED", "InputLimits", "LoadedGraph", "detect_format", "iter_lines", "load_inputs", "open_input",
    "parse_json", "read_corpus_graph", "read_corpus_json", "read_graphml", "read_named_kg", "read_openie",
    "read_text", "read_text_document", "read_triples", "strict_loads",
]
