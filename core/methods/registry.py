"""Names → retrieval methods, imported lazily (so ``import core`` stays light).

A method may declare its failure-diagnosis stages and diagnoser on its spec (``stages`` — a
tuple of :class:`core.eval.diagnosis.StageDecl` or a ``"module:ATTR"`` string naming one — and
``diagnoser`` — ``"module:function"``); :func:`core.eval.diagnosis.diagnose` reads them, and
methods that declare nothing get the generic diagnoser.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import UnknownNameError
from core.methods.base import MethodRunner

if TYPE_CHECKING:
    from core.eval.diagnosis import StageDecl


@dataclass(frozen=True)
class MethodSpec:
    name: str
    target: str  #: "module:function" of the runner
    title: str
    paper: str  #: the paper section it implements
    needs_reranker: bool = False
    #: failure diagnosis (core/eval/diagnosis.py): "module:function" with signature
    #: ``(result, workspace, gold, *, cut) -> Diagnosis``; "" = the generic diagnoser
    diagnoser: str = ""
    #: the stages the method can lose evidence at, in pipeline order: a tuple of
    #: ``core.eval.diagnosis.StageDecl`` or a "module:ATTR" string naming one (kept lazy so the
    #: registry imports nothing heavy); empty = the generic stages
    stages: tuple[StageDecl, ...] | str = ()
    #: the method's step-through page ("pages/x.py"); the Compare page links to it and hands the
    #: question over in st.session_state["egx.handoff.question"] (components/state.HANDOFF_QUESTION)
    page: str = ""

    def load(self) -> MethodRunner:
        module, func = self.target.split(":")
        runner: MethodRunner = getattr(importlib.import_module(module), func)
        return runner


METHODS: dict[str, MethodSpec] = {s.name: s for s in [
    MethodSpec("dense", "core.methods.baselines.dense:run", "Dense passage retrieval (NaiveRAG)",
               "FastInsight §4 baselines; BubbleRAG §4.1 NaiveRAG",
               diagnoser="core.methods.baselines.diagnosis:diagnose_dense",
               stages="core.methods.baselines.diagnosis:DENSE_STAGES"),
    MethodSpec("rerank", "core.methods.baselines.rerank:run", "Retrieve-then-rerank (Re2)",
               "FastInsight §4 (Re2)", needs_reranker=True,
               diagnoser="core.methods.baselines.diagnosis:diagnose_rerank",
               stages="core.methods.baselines.diagnosis:RERANK_STAGES"),
    MethodSpec("ppr", "core.methods.baselines.ppr:run", "HippoRAG-style personalized PageRank",
               "HippoRAG (Gutiérrez et al., 2024) §3",
               diagnoser="core.methods.baselines.diagnosis:diagnose_ppr",
               stages="core.methods.baselines.diagnosis:PPR_STAGES"),
    MethodSpec("fastinsight", "core.methods.fastinsight:run", "FastInsight (GRanker + STeX)",
               "FastInsight §3, Algorithms 1-3", needs_reranker=True,
               diagnoser="core.methods.fastinsight.diagnosis:diagnose",
               stages="core.methods.fastinsight.diagnosis:STAGES"),
    MethodSpec("bubblerag", "core.methods.bubblerag:run", "BubbleRAG", "BubbleRAG §3, Algorithm 1",
               diagnoser="core.methods.bubblerag.diagnosis:diagnose", stages="core.methods.bubblerag.diagnosis:STAGES"),
    MethodSpec("sgrag", "core.methods.sgrag:run", "SG-RAG (structure-guided subgraph matching)",
               "SG-RAG §4, Appendices C-F, K, M",
               diagnoser="core.methods.sgrag.diagnosis:diagnose", stages="core.methods.sgrag.diagnosis:STAGES"),
    MethodSpec("reg", "core.methods.reg:run", "ReG triple retriever + evidence chains", "ReG §4, Appendix D",
               diagnoser="core.methods.reg.diagnosis:diagnose", stages="core.methods.reg.diagnosis:STAGES"),
]}


def get_method(name: str) -> MethodSpec:
    """The spec of a registered method; unknown names list the valid ones."""
    if name not in METHODS:
        raise UnknownNameError("method", name, sorted(METHODS))
    return METHODS[name]


def method_names() -> list[str]:
    return list(METHODS)
