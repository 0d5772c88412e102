"""Names → retrieval methods, imported lazily (so ``import core`` stays light)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from core.errors import UnknownNameError
from core.methods.base import MethodRunner


@dataclass(frozen=True)
class MethodSpec:
    name: str
    target: str  #: "module:function" of the runner
    title: str
    paper: str  #: the paper section it implements
    needs_reranker: bool = False

    def load(self) -> MethodRunner:
        module, func = self.target.split(":")
        runner: MethodRunner = getattr(importlib.import_module(module), func)
        return runner


METHODS: dict[str, MethodSpec] = {s.name: s for s in [
    MethodSpec("dense", "core.methods.baselines.dense:run", "Dense passage retrieval (NaiveRAG)",
               "FastInsight §4 baselines; BubbleRAG §4.1 NaiveRAG"),
    MethodSpec("rerank", "core.methods.baselines.rerank:run", "Retrieve-then-rerank (Re2)",
               "FastInsight §4 (Re2)", needs_reranker=True),
    MethodSpec("ppr", "core.methods.baselines.ppr:run", "HippoRAG-style personalized PageRank",
               "HippoRAG (Gutiérrez et al., 2024) §3"),
    MethodSpec("fastinsight", "core.methods.fastinsight:run", "FastInsight (GRanker + STeX)",
               "FastInsight §3, Algorithms 1-3", needs_reranker=True),
    MethodSpec("bubblerag", "core.methods.bubblerag:run", "BubbleRAG", "BubbleRAG §3, Algorithm 1"),
]}


def get_method(name: str) -> MethodSpec:
    """The spec of a registered method; unknown names list the valid ones."""
    if name not in METHODS:
        raise UnknownNameError("method", name, sorted(METHODS))
    return METHODS[name]


def method_names() -> list[str]:
    return list(METHODS)
