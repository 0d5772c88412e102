"""bubblerag's ablation rows (BubbleRAG §4.3, Table 3 (and §3.5 for d = 0)): the method with one component
removed as the paper removes it, named as its paper names it (``egx ablate --method bubblerag``).

Each row's ``definition`` quotes the paper. Two rows change more than one knob, because the paper's variant
does: "w/o Schema Relaxation" retrieves no chunk before anchor selection (so no keyword sees a preview and
nothing can be relaxed), and "w/o Anchor Specialization" takes its keywords from a standard NER extractor
instead of the LLM and rewrites none.
"""

from __future__ import annotations

from core.methods.base import AblationRow

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("full", "BubbleRAG (full method)", definition="§4.3, Table 3: 'The Full Method row represents the standard BubbleRAG performance.'"),
    AblationRow("no-specialization", "w/o anchor specialization",
                overrides={"keyword_extraction": "ner", "specialization": False},
                definition="§4.3: 'we extract explicit entities from the query using a standard extractor and map "
                           "them to graph nodes without refining generic terms (e.g., mother)' — spaCy NER "
                           "keywords, no LLM keyword extraction, no rewrite."),
    AblationRow("no-relaxation", "w/o schema relaxation",
                overrides={"pre_retrieval": False, "relaxation": False},
                definition="§4.3: 'we retained the constraint refinement but removed the retrieval of text chunks "
                           "prior to anchor selection' — no pre-retrieval, so no early exit, no preview for the "
                           "keywords and no relaxation."),
    AblationRow("no-ceg-ranking", "w/o CEG ranking (first valid CEG)", overrides={"ceg_ranking": False},
                definition="§4.3: 'we removed the scoring function defined in Eq. (5) ... selected the first valid "
                           "connected subgraph returned by the heuristic expansion'."),
    AblationRow("no-reasoning", "w/o reasoning-aware expansion (d = 0)", overrides={"d": 0},
                definition="§3.5 with depth d = 0 (not a Table 3 row): the ranked CEGs are not expanded."),
)
