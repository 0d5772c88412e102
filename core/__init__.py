"""Evidence Graph Explorer engine: pure Python, never imports streamlit.

Subpackages
-----------
graph     KnowledgeGraph model (CSR arrays + text), loaders, savers, corpus -> KG builder
backends  Embedder / Reranker / LLM / TripleExtractor protocols, registry and implementations
index     FAISS vector indexes and persisted workspaces
methods   retrieval methods (one package per paper, plus baselines)
trace     Step / Trace records every method writes for replay in the UI
"""

from __future__ import annotations

__version__ = "0.1.0"
