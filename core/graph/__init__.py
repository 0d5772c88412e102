"""Knowledge-graph model, loaders, exporters and the corpus → KG builder."""

from __future__ import annotations

from core.graph.formats.load import LoadedGraph, load_inputs
from core.graph.formats.registry import detect_format
from core.graph.model import CSR, Chunk, GraphBuilder, KnowledgeGraph, graph_from_triples

__all__ = ["CSR", "Chunk", "GraphBuilder", "KnowledgeGraph", "LoadedGraph", "detect_format",
           "graph_from_triples", "load_inputs"]
