"""ReG configuration (ReG §4, Appendices D–E). Paper defaults where it gives one; ours otherwise, said in the help."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.methods.base import Check, MethodConfig
from core.methods.base import knob as _f
from core.methods.budget import Budget, answer_budget_knob, answer_chunks_knob, answer_tokens_knob, budget_checks


@dataclass(frozen=True)
class RegConfig(MethodConfig):
    """Knobs of the ``reg`` retrieval method (ReG@Triple + structure-aware reorganization)."""

    hops: int = _f(3, "Neighbourhood: triples within this many undirected hops of the linked query entities are "
                      "scored (SubgraphRAG / ReG score every triple of the question's subgraph; ours is h-hop).")
    region_max_nodes: int = _f(50_000, "Graph-store workspaces only: the region of the query entities "
                                       "read from the store stops before a hop that would take it past this many "
                                       "nodes (then fewer than `hops` hops are scored; the trace says so). In "
                                       "memory the whole graph is already loaded and this cap does not apply.")
    max_candidates: int = _f(5000, "Safety cap on scored triples; past it the triples most similar to the query "
                                   "by cosine are kept (visible in the trace).")
    top_k: int = _f(100, "K: top-scored triples kept (Appendix E: K=100 for GPT-4o(-mini); a smaller K, e.g. 30, "
                         "suits the small local models' 4k context).")
    max_length: int = _f(3, "L: maximum triples per evidence chain (Appendix E bounds L except on CWQ; the value "
                            "did not survive in our copy of the paper, 3 is ours).")
    answer_merge: Literal["same_prefix", "relation_path", "off"] = _f(
        "relation_path", "Multi-answer merging (D.4.2): 'relation_path' is the paper's rule (same root, same "
                         "relation path, different targets); 'same_prefix' (ours) also requires equal intermediate "
                         "entities; 'off' disables it.")
    entity_merge: bool = _f(True, "Multi-entity merging (D.4.2): spatial reordering + target refinement.")
    keep_unanchored: bool = _f(False, "Ours: keep triples no query-anchored chain reaches, as chains listed last "
                                      "(off = the paper's expansion, which starts only at query entities).")
    evidence_format: Literal["passages", "triples", "chains"] = _f(
        "chains", "What the answer prompt shows: ReG evidence chains (default), the raw triple list, or the "
                  "provenance passages.")
    max_chunks: int = _f(10, "ranked_chunks: at most this many provenance passages of the kept triples.")
    answer_passages: int = _f(5, "Passages in the prompt when evidence_format='passages'.")
    retriever: Literal["triple", "entity"] = _f(
        "triple", "Retrieval unit (App. E): 'triple' = ReG@Triple (an MLP scores each triple); 'entity' = ReG@Entity "
                  "(a PNA GNN scores entities, a triple scores by its two ends, parallel relations are merged into "
                  "one triple and K grows by 200), trained by `egx train-reg --unit entity`.")
    model: str = _f("", "Trained retriever folder; empty = <workspace>/reg/retriever, or reg/retriever-entity for "
                        "retriever='entity' (written by `egx train-reg`).")
    untrained: Literal["cosine", "error"] = _f(
        "cosine", "Without a trained retriever: 'cosine' scores triples by query–triple cosine (a recorded "
                  "fallback); 'error' raises, naming `egx train-reg`.")
    answer_chunks: int | None = answer_chunks_knob()
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        return [
            *budget_checks(self),
            ("hops", 1 <= self.hops <= 6, "an integer in [1, 6]"),
            ("region_max_nodes", self.region_max_nodes >= 1, "an integer >= 1"),
            ("max_candidates", self.max_candidates >= 1, "an integer >= 1"),
            ("top_k", self.top_k >= 1, "an integer >= 1"),
            ("max_length", self.max_length >= 1, "an integer >= 1"),
            ("max_chunks", self.max_chunks >= 1, "an integer >= 1"),
            ("answer_passages", self.answer_passages >= 1, "an integer >= 1"),
        ]


def reg_budget(config: RegConfig, budget: Budget) -> RegConfig:
    """How a comparison's answer budget (:mod:`core.methods.budget`) applies to ``reg``, by its evidence format.

    Chains or triples (the default; App. E hands the answer its top-K triples): ``chunks`` → ``answer_chunks``,
    the kept triples, best first, come from at most that many passages (the passages its triples come from are
    its chunks); ``tokens`` → ``answer_tokens``, the most top triples whose chains (or triple lines) fit.
    Passages: ``chunks`` → ``answer_passages``; ``tokens`` → ``answer_tokens`` over the provenance passages,
    best first. Either way ``max_chunks`` (the provenance list retrieval metrics read, and the passages the
    passage format draws from) becomes the chunk count. Both knobs are set, so the format can change after.
    """
    changes: dict[str, object] = {}
    if budget.chunks is not None:
        changes.update(answer_chunks=budget.chunks, answer_passages=budget.chunks, max_chunks=budget.chunks)
    elif budget.tokens is not None:
        changes["answer_passages"] = config.max_chunks  # every provenance passage may go in while the tokens last
    if budget.tokens is not None:
        changes["answer_tokens"] = budget.tokens
    return config.with_(**changes)


@dataclass(frozen=True)
class TrainConfig(MethodConfig):
    """ReG@Triple retriever training (Appendix D.3 Eq. 33, Appendix E)."""

    supervision: Literal["weak", "refined"] = _f("weak", "Labels: 'weak' = query→answer shortest paths; 'refined' "
                                                         "= the LLM-selected subset of the candidate pool (§4.1).")
    selection: Literal["auto", "stepwise", "one-shot"] = _f(
        "auto", "How refined supervision asks the LLM (§4.1): 'one-shot' = App. F's single prompt listing every "
                "candidate; 'stepwise' = two grammar-constrained choices (the query→answer chain, then at most two "
                "constraint facts), made for small local models whose one-shot replies select everything; 'auto' = "
                "stepwise for the bundled local models, one-shot for an API model.")
    cosine_residual: bool = _f(False, "Ours, not the paper's: score = scale·cosine(query, triple) + the MLP, the MLP's "
                                      "output starting at zero, so training learns a correction to the cosine "
                                      "ranking (a sample's hundred questions cannot teach the whole ranking).")
    epochs: int = _f(80, "Training epochs (App. E: a fixed 80; the best epoch on the validation split is kept).")
    hidden: int = _f(256, "MLP hidden width.")
    lr: float = _f(1e-3, "Adam learning rate.")
    weight_decay: float = _f(1e-4, "Adam weight decay.")
    dde_rounds: int = _f(2, "DDE forward propagation rounds (SubgraphRAG: 2).")
    dde_reverse_rounds: int = _f(2, "DDE backward propagation rounds (SubgraphRAG: 2).")
    hops: int = _f(3, "Neighbourhood hops around the query entities (must match RegConfig.hops at query time).")
    max_candidates: int = _f(3000, "Cap on triples per training question (most query-similar kept).")
    val_fraction: float = _f(0.2, "Share of questions held out for checkpoint selection.")
    test_fraction: float = _f(0.2, "Share of questions held out for the reported recall (never trained on).")
    hold_out_first: int = _f(0, "Ours: the first N questions (file order) are the test split, never trained or "
                                "validated on, and train / validation are drawn (seeded, App. E's sizes) from the "
                                "rest — so a benchmark or recording of the first N questions (`egx bench --limit "
                                "N`) tests the model on questions it never saw. 0 = the seeded split of all questions.")
    recall_k: int = _f(30, "K of the held-out triple recall@K.")
    max_path_len: int = _f(4, "Longest query→answer shortest path used as a candidate (D.1).")
    seed: int = _f(0, "Seed for the split, initialization and batch order.")
    device: str = _f("", "Torch device ('' = auto: CUDA when present, else CPU).")

    def checks(self) -> list[Check]:
        return [
            ("epochs", self.epochs >= 1, "an integer >= 1"),
            ("hidden", self.hidden >= 1, "an integer >= 1"),
            ("lr", self.lr > 0, "a number > 0"),
            ("val_fraction", 0 < self.val_fraction < 1, "a number in (0, 1)"),
            ("test_fraction", 0 < self.test_fraction < 1 and self.val_fraction + self.test_fraction < 1,
             "a number in (0, 1) with val_fraction + test_fraction < 1"),
            ("recall_k", self.recall_k >= 1, "an integer >= 1"),
            ("hold_out_first", self.hold_out_first >= 0, "an integer >= 0 (0: no fixed test questions)"),
        ]
