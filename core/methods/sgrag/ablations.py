"""sgrag's ablation rows (``egx ablate --method sgrag``), in two groups.

* **Table 5** (SG-RAG §5.3, "Performance Comparison with Naive Baselines"): SG-RAG and the paper's four naive
  baselines, named exactly as the table prints them: NaiveRAG (our ``dense``), Entity-based Retrieval,
  LightRAG (1-hop) and 2-hop Graph Retrieval (SG-RAG with ``retrieval`` set:
  :mod:`core.methods.sgrag.baselines`).
* **our variants**: configuration changes of ours that the paper does not print (the dominance filter off;
  Algorithm 5 as printed), named as ours, so no row of ours reads as one of the paper's.
"""

from __future__ import annotations

from core.methods.base import AblationRow

TABLE_5 = "Table 5"
OURS = "our variants"

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("full", "SG-RAG", group=TABLE_5, definition="§4: structure-guided exact subgraph matching"),
    AblationRow("naive-rag", "NaiveRAG", "dense", group=TABLE_5,
                definition="§5.3: 'purely semantic retrieval' (Lewis et al., 2020); our dense passage retrieval"),
    AblationRow("entity-based", "Entity-based Retrieval", "sgrag", {"retrieval": "entity"}, group=TABLE_5,
                definition="§5.2: 'returns chunks that mention any query entity'"),
    AblationRow("lightrag-1hop", "LightRAG (1-hop)", "sgrag", {"retrieval": "1-hop"}, group=TABLE_5,
                definition="§5.3: LightRAG's 'shallow neighborhood expansion', one hop"),
    AblationRow("2hop-graph", "2-hop Graph Retrieval", "sgrag", {"retrieval": "2-hop"}, group=TABLE_5,
                definition="§5.2: 'expands each query entity to its two-hop neighbors'"),
    AblationRow("no-dominance", "ours: w/o dominance filter (label-only matching)", "sgrag",
                {"dominance_filter": False}, group=OURS),
    AblationRow("alg5-as-printed", "ours: Algorithm 5 as printed (no candidate intersection)", "sgrag",
                {"intersect_completion": False}, group=OURS),
)
