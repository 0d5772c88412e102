"""Configuration of the baselines: dense retrieval, retrieve-then-rerank (Re2) and HippoRAG (v1) PPR."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.methods.base import Check, MethodConfig
from core.methods.budget import answer_budget_knob, answer_tokens_knob, budget_checks

#: HippoRAG's damping (probability of following an edge), HippoRAG §3.2 and its released code.
HIPPORAG_DAMPING = 0.5

#: what ``node_level`` does, for dense retrieval and Re2 alike (the second sentence is each one's own)
NODE_LEVEL_HELP = ("Also rank the KG's nodes, for node-level R@10 / nDCG@10 (FastInsight §4.3.1, Table 3: every "
                   "retriever scored on the same nodes): vector search over the node texts and vectors FastInsight "
                   "searches (embedded once per workspace). {own} The passages retrieved do not change. "
                   "`egx bench --node-level` turns it on.")


@dataclass(frozen=True)
class DenseConfig(MethodConfig):
    """Dense retrieval knobs."""

    top_k: int = field(default=10, metadata={"help": "Passages returned, most similar first."})
    answer_passages: int = field(default=5, metadata={"help": "Top passages given to the LLM for the answer."})
    evidence_format: Literal["passages", "triples", "chains"] = field(default="passages", metadata={
        "help": "Answer prompt evidence (ReG §4.2): the passages, the KG triples of those passages as a raw list, "
                "or the same triples as ReG evidence chains. Token counts of every format are recorded."})
    node_level: bool = field(default=False, metadata={"help": NODE_LEVEL_HELP.format(
        own="The top_k nodes by cosine similarity are the node ranking.")})
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        return [*((name, getattr(self, name) >= 1, "an integer >= 1") for name in ("top_k", "answer_passages")),
                *budget_checks(self)]


@dataclass(frozen=True)
class RerankConfig(MethodConfig):
    """Re2 knobs with the paper's defaults (FastInsight §4.1.1: rerank the top-100)."""

    candidates: int = field(default=100, metadata={"help": "Passages retrieved by vector search and then reranked "
                                                          "(FastInsight §4.1.1; paper: 100)."})
    top_k: int = field(default=10, metadata={"help": "Reranked passages kept (paper: 10)."})
    answer_passages: int = field(default=5, metadata={"help": "Top passages given to the LLM for the answer."})
    evidence_format: Literal["passages", "triples", "chains"] = field(default="passages", metadata={
        "help": "Answer prompt evidence (ReG §4.2): the passages, the KG triples of those passages as a raw list, "
                "or the same triples as ReG evidence chains. Token counts of every format are recorded."})
    node_level: bool = field(default=False, metadata={"help": NODE_LEVEL_HELP.format(
        own="The reranker then scores the top `candidates` nodes (FastInsight §4.1.1: Re2 reranks the top-100), "
            "a second reranker pass per question, and its top_k are the node ranking.")})
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        return [*((name, getattr(self, name) >= 1, "an integer >= 1") for name in ("candidates", "top_k", "answer_passages")),
                *budget_checks(self)]


@dataclass(frozen=True)
class PPRConfig(MethodConfig):
    """HippoRAG (v1) PPR knobs (HippoRAG §3.2 and its released defaults)."""

    damping: float = field(default=HIPPORAG_DAMPING, metadata={
        "help": "Probability of following an edge at each step (1 − restart probability). HippoRAG uses 0.5."})
    top_k: int = field(default=10, metadata={"help": "Passages returned, highest PPR score first."})
    node_specificity: bool = field(default=True, metadata={
        "help": "Weight each seed by 1/(number of passages it appears in), HippoRAG's node specificity."})
    synonym_threshold: float | None = field(default=0.8, metadata={
        "help": "Add synonymy edges between entities whose name embeddings have cosine >= this (HippoRAG: 0.8); "
                "empty to turn them off."})
    corpus_seeds: int = field(default=5, metadata={
        "help": "Corpus graphs only: seed passages taken by vector similarity."})
    tol: float = field(default=1e-10, metadata={"help": "Power iteration stops when the L1 change per node is below this."})
    max_iter: int = field(default=200, metadata={"help": "Power iteration limit."})
    answer_passages: int = field(default=5, metadata={"help": "Top passages given to the LLM for the answer."})
    evidence_format: Literal["passages", "triples", "chains"] = field(default="passages", metadata={
        "help": "Answer prompt evidence (ReG §4.2): the passages, the KG triples of those passages as a raw list, "
                "or the same triples as ReG evidence chains. Token counts of every format are recorded."})
    region_hops: int | None = field(default=None, metadata={
        "help": "Run PPR on the region within this many hops of the seed entities instead of the whole graph "
                "Empty: the whole graph for an in-memory workspace, 3 hops for a graph store "
                "(FalkorDB), where the whole graph is not in this process."})
    region_max_nodes: int = field(default=50_000, metadata={
        "help": "Node cap of the PPR region: hop layers stop before the region passes this many nodes."})
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        return [
            ("region_hops", self.region_hops is None or self.region_hops >= 1, "an integer >= 1 or None"),
            ("region_max_nodes", self.region_max_nodes >= 1, "an integer >= 1"),
            ("damping", 0.0 <= self.damping < 1.0, "a number in [0, 1)"),
            ("top_k", self.top_k >= 1, "an integer >= 1"),
            ("synonym_threshold", self.synonym_threshold is None or -1.0 <= self.synonym_threshold <= 1.0,
             "a cosine in [-1, 1] or None"),
            ("corpus_seeds", self.corpus_seeds >= 1, "an integer >= 1"),
            ("tol", self.tol > 0, "a number > 0"),
            ("max_iter", self.max_iter >= 1, "an integer >= 1"),
            ("answer_passages", self.answer_passages >= 1, "an integer >= 1"),
            *budget_checks(self),
        ]
