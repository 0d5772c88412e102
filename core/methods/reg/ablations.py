"""reg's ablation rows (ReG §4.1-4.2, Table 5): the method with one configuration change, named as its paper
names it (``egx ablate --method reg``)."""

from __future__ import annotations

from core.methods.base import AblationRow

ABLATIONS: tuple[AblationRow, ...] = (
    AblationRow("weak-chains", "weak supervision, evidence chains", "reg",
                {"model": "reg/weak", "untrained": "error", "evidence_format": "chains"}, "reg/weak",
                "egx train-reg --workspace WS --supervision weak --out WS/reg/weak"),
    AblationRow("weak-triples", "weak supervision, raw triples", "reg",
                {"model": "reg/weak", "untrained": "error", "evidence_format": "triples"}, "reg/weak",
                "egx train-reg --workspace WS --supervision weak --out WS/reg/weak"),
    AblationRow("refined-chains", "refined supervision, evidence chains", "reg",
                {"model": "reg/refined", "untrained": "error", "evidence_format": "chains"}, "reg/refined",
                "egx train-reg --workspace WS --supervision refined --llm local --out WS/reg/refined"),
    AblationRow("refined-triples", "refined supervision, raw triples", "reg",
                {"model": "reg/refined", "untrained": "error", "evidence_format": "triples"}, "reg/refined",
                "egx train-reg --workspace WS --supervision refined --llm local --out WS/reg/refined"),
    AblationRow("untrained", "untrained cosine scorer (not ReG's retriever)", "reg",
                {"model": "reg/none", "untrained": "cosine"}),
)
