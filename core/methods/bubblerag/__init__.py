"""BubbleRAG (bubblerag.txt §3): evidence-driven retrieval over black-box knowledge graphs.

Start at :func:`run` (pipeline.py); each stage is its own module, listed in pipeline.py's docstring
with the paper section it implements; the knobs are in config.py, the failure diagnosis in
diagnosis.py. :func:`iter_bubble_expansion` yields the search frame by frame for step-through replay;
:func:`rank_cegs` re-ranks live.
"""

from __future__ import annotations

from core.methods.base import Method
from core.methods.bubblerag.ablations import ABLATIONS
from core.methods.bubblerag.config import ALPHA_PRESETS, BubbleConfig, bubble_budget
from core.methods.bubblerag.diagnosis import STAGES, diagnose
from core.methods.bubblerag.expansion import (
           CEG,
           BubbleExpansion,
           ExpansionFrame,
           bubble_expansion,
           iter_bubble_expansion,
)
from core.methods.bubblerag.grouping import AnchorGroup, AnchorGroups
from core.methods.bubblerag.intros import INTROS
from core.methods.bubblerag.localize import LocalGraph, localized_graph
from core.methods.bubblerag.pipeline import BubbleResult, highlights, run
from core.methods.bubblerag.ranking import RankedCEG, rank_cegs

__all__ = ["ALPHA_PRESETS", "CEG", "METHOD", "AnchorGroup", "AnchorGroups", "BubbleConfig", "BubbleExpansion", "BubbleResult",
           "ExpansionFrame", "LocalGraph", "RankedCEG", "bubble_expansion", "iter_bubble_expansion",
           "localized_graph", "rank_cegs", "run"]

METHOD: Method[BubbleConfig, BubbleResult] = Method(
    "bubblerag", "BubbleRAG", "BubbleRAG §3, Algorithm 1", run=run, config=BubbleConfig, stages=STAGES,
    diagnose=diagnose, page="pages/bubble_anchors.py",
    ablations=ABLATIONS, intros=INTROS, highlights=highlights, budget=bubble_budget)
