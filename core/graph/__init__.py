"""Knowledge-graph model, loaders, exporters and the corpus → KG builder."""

from __future__ import annotations

from core.graph.csr import CSR
from core.graph.formats.load import LoadedGraph, load_inputs
from core.graph.formats.registry import detect_format
from core.graph.graph_builder import GraphBuilder, graph_from_dict, graph_from_triples
from core.graph.model import Chunk, KnowledgeGraph

__all__ = ["CSR", "Chunk", "GraphBuilder", "KnowledgeGraph", "LoadedGraph", "detect_format",
           "graph_from_dict", "graph_from_triples", "load_inputs"]
