"""SG-RAG, "Structure Guided Retrieval-Augmented Generation for Factual Queries" (Xie et al., 2026;
sg_rag.txt §4): structure-guided exact subgraph matching for multi-constraint questions.

Start at :func:`run` (pipeline.py, whose docstring maps every module to its paper section); the
knobs are in config.py, the failure diagnosis in diagnosis.py. :func:`prepare` builds/caches the
dominance model ℳ and the R*-tree path indexes.
"""

from __future__ import annotations

from core.methods.base import Artifacts, Method
from core.methods.sgrag.ablations import ABLATIONS
from core.methods.sgrag.config import DominanceConfig, SGRAGConfig, sgrag_budget
from core.methods.sgrag.diagnosis import STAGES, diagnose
from core.methods.sgrag.intros import INTROS
from core.methods.sgrag.pipeline import PREPARATION, SGRAGResult, prepare, run, stamp
from core.methods.sgrag.query_graph import QNode, QueryGraph, bridge_star
from core.methods.sgrag.training_jobs import TRAIN_DOMINANCE

__all__ = ["METHOD", "DominanceConfig", "QNode", "QueryGraph", "SGRAGConfig", "SGRAGResult", "bridge_star", "prepare",
           "run"]

METHOD: Method[SGRAGConfig, SGRAGResult] = Method(
    "sgrag", "SG-RAG (Structure Guided RAG for Factual Queries)", "SG-RAG §4, Appendices C-F, K, M", run=run,
    config=SGRAGConfig, stages=STAGES, diagnose=diagnose, page="pages/subgraph.py",
    ablations=ABLATIONS, intros=INTROS, prepare=PREPARATION, stamp=stamp, budget=sgrag_budget,
    tasks=(TRAIN_DOMINANCE,),
    artifacts=Artifacts("sgrag", "SG-RAG's dominance models (trained again on first use)",
                        stamp_files=("dominance-*.pt",)))
