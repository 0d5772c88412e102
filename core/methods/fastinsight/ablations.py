"""fastinsight's ablation rows (FastInsight §3.3-3.4): the method with one configuration change, named as its paper
names it (``egx ablate --method fastinsight``)."""

from __future__ import annotations

from core.methods.base import AblationRow

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("full", "FastInsight (full method)"),
    AblationRow("no-granker", "w/o GRanker (α = 0: plain reranking)", overrides={"alpha": 0.0}),
    AblationRow("no-stex", "w/o STeX structure (β = 0: similarity-only expansion)", "fastinsight",
                {"beta": 0.0}),
)
