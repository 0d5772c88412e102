"""bubblerag's ablation rows (BubbleRAG §4.3, Table 3 (and §3.5 for d = 0)): the method with one configuration change, named as its paper
names it (``egx ablate --method bubblerag``)."""

from __future__ import annotations

from core.methods.base import AblationRow

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("full", "BubbleRAG (full method)"),
    AblationRow("no-specialization", "w/o anchor specialization", overrides={"specialization": False}),
    AblationRow("no-relaxation", "w/o schema relaxation", overrides={"relaxation": False}),
    AblationRow("no-ceg-ranking", "w/o CEG ranking (first valid CEG)", overrides={"ceg_ranking": False}),
    AblationRow("no-reasoning", "w/o reasoning-aware expansion (d = 0)", overrides={"d": 0}),
)
