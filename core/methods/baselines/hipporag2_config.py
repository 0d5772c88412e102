"""HippoRAG 2's knobs, with the defaults of its released code (OSU-NLP-Group/HippoRAG,
``src/hipporag/utils/config_utils.py``: ``linking_top_k`` 5, ``passage_node_weight`` 0.05, ``damping`` 0.5,
``synonymy_edge_sim_threshold`` 0.8, ``retrieval_top_k`` 200, ``qa_top_k`` 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.methods.base import Bounds, Check, MethodConfig, knob
from core.methods.baselines.config import HIPPORAG_DAMPING
from core.methods.budget import answer_budget_knob, answer_tokens_knob, budget_checks

#: HippoRAG 2's ``passage_node_weight``: the share of a passage's min-max-normalised dense score that seeds
#: its passage node, against 1 for a phrase seed (Gutiérrez et al. 2025, §3.2 and config_utils.py).
PASSAGE_NODE_WEIGHT = 0.05
#: HippoRAG 2's ``linking_top_k``: facts offered to recognition memory, and phrase seeds kept.
LINKING_TOP_K = 5
#: HippoRAG 2's ``retrieval_top_k``: passages returned per question.
RETRIEVAL_TOP_K = 200


@dataclass(frozen=True)
class HippoRAG2Config(MethodConfig):
    """HippoRAG 2 knobs (Gutiérrez et al. 2025, §3; the released code's defaults)."""

    linking_top_k: int = knob(LINKING_TOP_K, "Query-to-triple linking: facts (KG edges) most similar to the question "
                              "that recognition memory reviews, and phrase seeds kept after it (HippoRAG 2: 5).",
                              label="linking top-k (facts and phrase seeds)", bounds=Bounds(1, 20, 1))
    recognition_memory: bool = knob(True, "Let the LLM filter the linked facts (HippoRAG 2's recognition memory, "
                                    "§3.2). Off: every linked fact seeds the walk (the paper's ablation "
                                    "'w/o filter'). Without an LLM the facts stay unfiltered and the trace says so.",
                                    label="recognition memory", bounds=Bounds())
    passage_node_weight: float = knob(PASSAGE_NODE_WEIGHT, "Weight of the passage seeds: each passage node's reset "
                                      "weight is its min-max-normalised dense score times this, a phrase seed's is "
                                      "its fact score (HippoRAG 2: 0.05). 0: phrase seeds only.",
                                      label="passage node weight", bounds=Bounds(0.0, 1.0, 0.01))
    damping: float = knob(HIPPORAG_DAMPING, "Probability of following an edge at each step of the walk (1 − restart "
                          "probability). HippoRAG 2 uses 0.5.", label="damping", bounds=Bounds(0.0, 0.95, 0.05))
    synonym_threshold: float | None = knob(0.8, "Synonym edges join phrases whose name embeddings have cosine >= "
                                           "this (weight = cosine; HippoRAG 2: 0.8); empty to turn them off.")
    top_k: int = knob(RETRIEVAL_TOP_K, "Passages returned, highest PPR score of their passage node first "
                      "(HippoRAG 2's retrieval_top_k: 200).")
    answer_passages: int = knob(5, "Top passages given to the LLM for the answer (HippoRAG 2's qa_top_k: 5).")
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()
    evidence_format: Literal["passages", "triples", "chains"] = knob(
        "passages", "Answer prompt evidence (ReG §4.2): the passages, the KG triples of those passages as a raw list, "
                    "or the same triples as ReG evidence chains. Token counts of every format are recorded.")
    tol: float = knob(1e-10, "Power iteration stops when the L1 change per node is below this.")
    max_iter: int = knob(200, "Power iteration limit.")
    region_hops: int | None = knob(None, "Walk the region within this many hops of the phrase seeds instead of the "
                                   "whole graph. Empty: the whole graph for an in-memory workspace, 3 hops for a "
                                   "graph store (FalkorDB), where the whole graph is not in this process.")
    region_max_nodes: int = knob(50_000, "Node cap of the walked region: hop layers stop before the region passes "
                                 "this many phrase nodes.")

    def checks(self) -> list[Check]:
        return [
            ("linking_top_k", self.linking_top_k >= 1, "an integer >= 1"),
            ("passage_node_weight", 0.0 <= self.passage_node_weight <= 1.0, "a number in [0, 1]"),
            ("damping", 0.0 <= self.damping < 1.0, "a number in [0, 1)"),
            ("synonym_threshold", self.synonym_threshold is None or -1.0 <= self.synonym_threshold <= 1.0,
             "a cosine in [-1, 1] or None"),
            ("top_k", self.top_k >= 1, "an integer >= 1"),
            ("answer_passages", self.answer_passages >= 1, "an integer >= 1"),
            ("tol", self.tol > 0, "a number > 0"),
            ("max_iter", self.max_iter >= 1, "an integer >= 1"),
            ("region_hops", self.region_hops is None or self.region_hops >= 1, "an integer >= 1 or None"),
            ("region_max_nodes", self.region_max_nodes >= 1, "an integer >= 1"),
            *budget_checks(self),
        ]
