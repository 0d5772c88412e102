"""sgrag's ablation rows (SG-RAG §4.3, Table 5): the method with one configuration change, named as its paper
names it (``egx ablate --method sgrag``)."""

from __future__ import annotations

from core.methods.base import AblationRow

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("full", "SG-RAG (full method)"),
    AblationRow("no-dominance", "w/o dominance filter (label-only matching)", "sgrag",
                {"dominance_filter": False}),
    AblationRow("alg5-as-printed", "Algorithm 5 as printed (no candidate intersection)", "sgrag",
                {"intersect_completion": False}),
    AblationRow("naive-rag", "NaiveRAG (dense retrieval)", "dense"),
)
