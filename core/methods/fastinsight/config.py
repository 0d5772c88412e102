"""FastInsight configuration (FastInsight §3.2, §4.1.1: BATCH=10, b_max=100, α=0.2, β=1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from core.graph.passage_graph import DEFAULT_MAX_ENTITY_PASSAGES
from core.methods.base import Bounds, Check, MethodConfig
from core.methods.budget import Budget, answer_budget_knob, answer_tokens_knob, budget_checks, passage_budget
from core.methods.fastinsight.loop import OnExhausted
from core.methods.fastinsight.node_graph import NODE_TEXT_CHARS

SearchGraph = Literal["kg_nodes", "passages"]
NodeVectorsMode = Literal["precomputed", "lazy"]


@dataclass(frozen=True)
class FastInsightConfig(MethodConfig):
    """FastInsight knobs with the paper's defaults (§3.2, §4.1.1: BATCH=10, b_max=100, α=0.2, β=1)."""

    graph: SearchGraph = field(default="kg_nodes", metadata={
        "help": "KG workspaces: the graph FastInsight searches. 'kg_nodes' (paper §4.2.2, text-rich KGs) retrieves "
                "KG nodes (text = name + description + linked passage text) over the KG's edges, then maps the "
                "ranked nodes to their passages; 'passages' searches a passage graph derived from the KG (passages "
                "sharing an entity). Corpus graphs are searched as they are either way.",
        "label": "Graph searched", "bounds": Bounds(choices=("kg_nodes", "passages"))})
    node_text_chars: int = field(default=NODE_TEXT_CHARS, metadata={
        "help": "kg_nodes only: a node's text (name, description, linked passage text) is cut to this many "
                "characters before it is embedded and reranked. Embedding every node's text is FastInsight's "
                "one-off preparation on a KG: 256 embeds them 1.9x faster than 512 (a 48k-node KG: about 4 "
                "instead of 8 minutes on 2 cores) at -3.8 R@5 / -0.3 R@10 on MuSiQue (benchmarks/README.md)."})
    node_vectors: NodeVectorsMode = field(default="precomputed", metadata={
        "help": "kg_nodes only: 'precomputed' embeds every node text once per workspace before the first question "
                "(the paper's search over all nodes; on a 6k-passage corpus the largest stage of "
                "`egx index --prepare all`); 'lazy' embeds only the nodes a question reaches, kept in the workspace "
                "for later questions, and runs the initial vector search over the nodes of the chunk index's top "
                "lazy_pool_passages passages instead of every node (an approximation; its R@5 against the "
                "precompute is in benchmarks/README.md)."})
    lazy_pool_passages: int = field(default=20, metadata={
        "help": "node_vectors='lazy' only: the initial vector search runs over the nodes linked to this many "
                "passages nearest the question (chunk index); on MuSiQue 20 passages give about 200 nodes and "
                "held the precompute's initial top 10 for 89 of 100 questions (10 passages: 79; 40: 95), at "
                "-1.5 R@5 [-4.0, +0.8] (benchmarks/README.md)."})
    batch: int = field(default=10, metadata={"help": "BATCH: passages STeX adds per round, and the size of the "
                                                    "initial vector search (FastInsight §3.2; paper: 10).",
                                                    "label": "BATCH", "bounds": Bounds(choices=(5, 10, 20))})
    b_max: int = field(default=100, metadata={"help": "Node budget b_max: the loop stops when this many passages "
                                                     "have been retrieved and reranked (§3.2; paper: 100).",
                                                     "label": "b_max (node budget)", "bounds": Bounds(10, 100, 10)})
    alpha: float = field(default=0.2, metadata={"help": "GRanker smoothing factor α: H' = (1−α)H + αPH. 0 is plain "
                                                       "reranking; 1 uses only the neighbours (§3.3; paper: 0.2).",
                                                       "label": "α (GRanker smoothing)", "bounds": Bounds(0.0, 1.0, 0.05)})
    beta: float = field(default=1.0, metadata={"help": "STeX score ratio β: S = I_Sim + β·I_Struct. 0 expands by "
                                                      "similarity only; large β by structure only (§3.4; paper: 1).",
                                                      "label": "β (STeX score ratio)", "bounds": Bounds(0.0, 3.0, 0.1)})
    top_k: int = field(default=10, metadata={"help": "Passages returned as the ranked result (the paper evaluates "
                                                    "the top 10 of N_ret)."})
    on_exhausted: OnExhausted = field(default="vector", metadata={
        "help": "When STeX has no unretrieved neighbour left but budget remains: 'vector' fills the round "
                "with the next passages by similarity (a recorded fallback), 'stop' ends early. The paper "
                "does not cover this case."})
    max_entity_passages: int = field(default=DEFAULT_MAX_ENTITY_PASSAGES, metadata={
        "help": "KG workspaces only: passages are linked when they share an entity; entities in more "
                "passages than this are hubs and link nothing."})
    answer_passages: int = field(default=5, metadata={"help": "Top passages given to the LLM for the answer."})
    evidence_format: Literal["passages", "triples", "chains"] = field(default="passages", metadata={
        "help": "Answer prompt evidence (ReG §4.2): the passages, the KG triples of those passages as a raw list, "
                "or the same triples as ReG evidence chains. Token counts of every format are recorded."})
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        return [
            ("batch", self.batch >= 1, "an integer >= 1"),
            ("b_max", self.b_max >= 1, "an integer >= 1"),
            ("alpha", 0.0 <= self.alpha <= 1.0, "a number in [0, 1]"),
            ("beta", bool(np.isfinite(self.beta)) and self.beta >= 0, "a finite number >= 0"),
            ("top_k", self.top_k >= 1, "an integer >= 1"),
            ("max_entity_passages", self.max_entity_passages >= 2, "an integer >= 2"),
            ("node_text_chars", self.node_text_chars >= 16, "an integer >= 16"),
            ("node_vectors", self.node_vectors in ("precomputed", "lazy"), "'precomputed' or 'lazy'"),
            ("lazy_pool_passages", self.lazy_pool_passages >= 1, "an integer >= 1"),
            ("answer_passages", self.answer_passages >= 1, "an integer >= 1"),
            *budget_checks(self),
        ]


def fastinsight_budget(config: FastInsightConfig, budget: Budget) -> FastInsightConfig:
    """How a comparison's answer budget (:mod:`core.methods.budget`) applies to FastInsight: like every
    passage method (:func:`~core.methods.budget.passage_budget`: ``chunks`` → ``answer_passages`` and the
    ranked list's ``top_k``; ``tokens`` → ``answer_tokens``), with the node budget ``b_max`` raised to
    ``top_k`` where lower, so the loop retrieves that many passages (§3.2)."""
    out = passage_budget(config, budget)
    return out.with_(b_max=out.top_k) if out.top_k > out.b_max else out
