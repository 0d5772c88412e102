"""SG-RAG configuration (sg_rag.txt §4 and appendices C-F, K, M).

The paper fixes the rule l ∈ [⌈d_q/2⌉, d_q] for the path length and gives no values for the
dominance dimension, the candidate caps or the normalization threshold; those defaults are ours
and each help text says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.errors import ConfigError
from core.methods.base import Bounds, Check, MethodConfig
from core.methods.base import knob as _f
from core.methods.budget import Budget, answer_budget_knob, answer_chunks_knob, answer_tokens_knob, budget_checks

#: SG-RAG's retrieval, or one of Table 5's naive baselines in its place (core.methods.sgrag.baselines)
Retrieval = Literal["subgraph", "entity", "1-hop", "2-hop"]


@dataclass(frozen=True)
class SGRAGConfig(MethodConfig):
    """Every knob SG-RAG names, plus the caps that keep exact enumeration bounded (reported when hit)."""

    l: int = _f(0, "Path length l in edges (§4.3, App. E). 0 = automatic: the smallest value the paper's "  # noqa: E741 - l is the paper's path length
                   "rule l ∈ [⌈d_q/2⌉, d_q] allows (d_q = the query graph's diameter). A value outside the "
                   "rule is an error.", label="path length l (0 = auto)", bounds=Bounds(0, 6, number=True))
    doubtful_below: float = _f(0.75, "Entity normalization (Alg. 3): a mapping whose cosine similarity is below "
                                     "this is flagged doubtful (value is ours; the paper keeps no threshold).",
                                label="doubtful below", bounds=Bounds(0.0, 1.0, 0.05))
    normalize_k: int = _f(5, "FAISS neighbours kept per query entity for the normalization table.")
    max_candidates: int = _f(50, "Label completion (Alg. 5): at most this many candidate labels per unknown "
                                 "node (cap reported in the trace; value is ours, the paper observes t ≤ 10).",
                                label="max candidates / UNK", bounds=Bounds(1, 1000, number=True))
    intersect_completion: bool = _f(True, "Label completion: intersect the candidate labels an unknown node "
                                          "gets from every query path through it (result-preserving: a label "
                                          "missing from one path can never match). Off = Alg. 5 as printed, "
                                          "one path per unknown node.")
    max_instantiations: int = _f(200, "Alg. 6: at most this many label-completed path sets Q' (cap reported).",
                                 label="max instantiations", bounds=Bounds(1, 5000, number=True))
    max_subgraphs: int = _f(20, "Alg. 8: at most this many assembled subgraphs are kept (cap reported).",
                            label="max subgraphs", bounds=Bounds(1, 200, number=True))
    max_combinations: int = _f(100_000, "Alg. 8: at most this many partial path combinations are explored "
                                        "per Q' (cap reported).")
    dominance_filter: bool = _f(True, "Use the GNN dominance test o(p_q) ⪯ o(p_z) in index pruning and at the "
                                      "leaves (§4.3, Eq. 5). Off = label-only exact matching.",
                                label="dominance filter (GNN pruning)", bounds=Bounds())
    tolerance: float = _f(1e-4, "Float tolerance of the dominance test (the same star embedded in two batches "
                                "differs by rounding).")
    sem_dims: int = _f(2, "φ: per-node size of the fixed random projection of o_0 used for the R*-tree's semantic "
                          "MBRs (exact label equality is checked at the leaves; see index.py).")
    max_index_paths: int = _f(3_000_000, "φ: refuse to index more than this many paths of length l (a hub-heavy "
                                         "graph at l ≥ 2 explodes; the error says to lower l).")
    max_train_stars: int = _f(3000, "ℳ: stars sampled per training epoch (all of them on small graphs).")
    bridge_hops: int = _f(2, "none-mode query graph (ours; the paper's comes from an LLM): hops from the question's "
                             "entity to UNK when it names only one. 1 = the bridge star; 2 = a chain through one "
                             "UNK bridge node (multi-hop questions). Runs without an LLM only: an LLM's unusable "
                             "query graph falls back to the bridge star.", label="none-mode bridge hops",
                          bounds=Bounds(1, 3, number=True))
    max_fallback_edges: int = _f(40, "Fallback (§4.4): at most this many 1-hop edges around the known entities, "
                                     "the most query-similar first.")
    max_chunks: int = _f(15, "Provenance chunks returned as ranked_chunks.")
    answer_max_tokens: int = _f(128, "Token limit for the answer (Table 15 prompt).")
    answer_reasoning: bool = _f(False, "Ask the answer for one line of reasoning besides the label (Table 14's "
                                       "'Answer: X. Reasoning: ...'), for an LLM judge of reasoning (Emp.S, "
                                       "Table 17); `egx bench`/`egx reproduce` turn it on when they judge. The "
                                       "answer scored by EM/F1 stays the bare label.",
                                label="one line of reasoning (Emp.S)", bounds=Bounds())
    context_tokens: int = _f(1200, "Token budget of the whole answer prompt (§5: 'a context window fixed at 1,200 "
                                   "tokens per query'): relation sentences and node descriptions of all matched "
                                   "subgraphs, best first, until it is full (enforced, recorded in the trace).")
    seed: int = _f(0, "Seed of the dominance model, the semantic projection and sampled substructures.")
    retrieval: Retrieval = field(default="subgraph", metadata={
        "help": "What retrieves the answer's triples: 'subgraph' is SG-RAG's structure-guided exact matching; "
                "'entity', '1-hop' and '2-hop' are Table 5's naive baselines (Entity-based Retrieval, LightRAG "
                "(1-hop), 2-hop Graph Retrieval, §5.2-5.3) on the same query entities and answer prompt."})
    answer_chunks: int | None = answer_chunks_knob()
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def validate(self) -> None:
        """The rules of :class:`MethodConfig`, worded the way the SG-RAG page and its tests know them."""
        for name in ("max_candidates", "max_instantiations", "max_subgraphs", "max_combinations", "normalize_k"):
            if getattr(self, name) < 1:
                raise ConfigError(f"SG-RAG {name}={getattr(self, name)} must be at least 1.")
        if self.l < 0:
            raise ConfigError(f"SG-RAG l={self.l} must be 0 (automatic) or a path length ≥ 1.")
        if not 0.0 <= self.doubtful_below <= 1.0:
            raise ConfigError(f"SG-RAG doubtful_below={self.doubtful_below} must be within [0, 1].")
        super().validate()

    def checks(self) -> list[Check]:
        return [
            ("tolerance", self.tolerance >= 0, "a number >= 0"),
            ("sem_dims", self.sem_dims >= 1, "an integer >= 1"),
            ("max_index_paths", self.max_index_paths >= 1, "an integer >= 1"),
            ("max_train_stars", self.max_train_stars >= 1, "an integer >= 1"),
            ("max_fallback_edges", self.max_fallback_edges >= 0, "an integer >= 0"),
            ("max_chunks", self.max_chunks >= 1, "an integer >= 1"),
            ("answer_max_tokens", self.answer_max_tokens >= 1, "an integer >= 1"),
            ("context_tokens", self.context_tokens >= 100, "an integer >= 100 (the prompt's instructions alone "
                                                           "take ~100 tokens)"),
            *budget_checks(self),
        ]


def sgrag_budget(config: SGRAGConfig, budget: Budget) -> SGRAGConfig:
    """How a comparison's answer budget (:mod:`core.methods.budget`) applies to SG-RAG, whose answer reads
    the matched subgraphs' triples (§4.4, Table 15).

    ``chunks`` → ``answer_chunks``: the context's triples come from at most that many passages (the passages
    its triples come from are its chunks), and ``max_chunks`` (the provenance list retrieval metrics read).
    ``tokens`` → ``context_tokens``, the paper's own whole-prompt window (§5: 1,200 tokens; instructions and
    question included, so SG-RAG's evidence is under the budget by their size), and ``answer_tokens``, the
    evidence cap every method shares (WordPiece), so its context's tokens are counted as every other's.
    """
    changes: dict[str, object] = {}
    if budget.chunks is not None:
        changes.update(answer_chunks=budget.chunks, max_chunks=budget.chunks)
    if budget.tokens is not None:
        changes.update(context_tokens=budget.tokens, answer_tokens=budget.tokens)
    return config.with_(**changes)


@dataclass(frozen=True)
class DominanceConfig(MethodConfig):
    """The GNN ℳ of Appendix C (GAT layer, sum readout, projection). Dimensions and epochs are ours."""

    hidden: int = _f(32, "F': width of the input projection and the GAT layer (Eqs. 9-11).")
    dim: int = _f(4, "d: dominance embedding size per node (Eq. 13). Small, because it becomes R*-tree "
                     "dimensions (l+1)·d.")
    heads: int = _f(1, "GAT attention heads.")
    lr: float = _f(5e-3, "Learning rate η (Alg. 2).")
    max_epochs: int = _f(60, "Training stops at loss 0 (Alg. 2 line 16) or after this many epochs.")
    subsets_per_star: int = _f(6, "Random proper substructures sampled per star per epoch, besides the "
                                  "leave-one-out ones and the lone centre (all 2^deg subsets are infeasible).")
    max_leaves: int = _f(64, "Hub stars with more leaves than this get only 2 leave-one-out and 2 random "
                             "substructures per epoch (each is as large as the hub; keeps epochs affordable).")
    batch_stars: int = _f(256, "Stars per training batch.")
    margin: float = _f(0.01, "Train with o(s) ≤ o(g) − margin so the constraint holds with slack on unseen "
                             "substructures (0 = the paper's loss exactly).")
    seed: int = _f(0, "Seed of initialisation and substructure sampling.")
    device: str = _f("", "Torch device ('' = auto-select: CUDA when present, else CPU).")

    def checks(self) -> list[Check]:
        at_least_1 = "an integer >= 1"
        return [("hidden", self.hidden >= 1, at_least_1), ("dim", self.dim >= 1, at_least_1),
                ("heads", self.heads >= 1, at_least_1), ("lr", self.lr > 0, "a number > 0"),
                ("max_epochs", self.max_epochs >= 1, at_least_1), ("subsets_per_star", self.subsets_per_star >= 0,
                                                                    "an integer >= 0"),
                ("max_leaves", self.max_leaves >= 1, at_least_1), ("batch_stars", self.batch_stars >= 1, at_least_1),
                ("margin", self.margin >= 0, "a number >= 0")]
