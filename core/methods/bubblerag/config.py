"""BubbleRAG configuration (paper defaults: B=10, h=6, d=6, α=1.0, at most 15 chunks; §4.1, Table 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.methods.base import Bounds, Check, MethodConfig
from core.methods.base import knob as _f
from core.methods.budget import Budget, answer_budget_knob, answer_tokens_knob, budget_checks

#: α presets for the query semantics of §3.4 ("Supporting Diverse Query Semantics").
ALPHA_PRESETS: dict[str, float] = {"AND": 10.0, "balanced": 1.0, "OR": 0.0}


@dataclass(frozen=True)
class BubbleConfig(MethodConfig):
    """Every knob BubbleRAG §3 names, with the paper's defaults where it gives one.

    Where the paper names a parameter without a value (k, n, ε, the intra-group penalty), the
    default is ours and the help text says so.
    """

    k_chunks: int = _f(5, "Pre-retrieval: top-k chunks fetched before graph search (§3.2; paper gives no k).")
    pre_retrieval: bool = _f(True, "Pre-retrieval (§3.2 ¶2): the top-k chunks retrieved before anchor selection — "
                                   "the sufficiency check's input and the preview that keyword extraction and "
                                   "schema relaxation read. Off = no chunk is retrieved before anchor selection "
                                   "(no early exit, keywords from the question alone, nothing to relax by): with "
                                   "relaxation off, the §4.3 ablation 'w/o Schema Relaxation', which 'removed the "
                                   "retrieval of text chunks prior to anchor selection'.")
    sufficiency_check: bool = _f(True, "Ask the LLM whether the pre-retrieved chunks already answer the query; "
                                       "if so, exit early (§3.2). Skipped in `none` mode.")
    none_implicit: int = _f(2, "`none` mode: how many titles of the top pre-retrieved chunks that the query does not "
                               "mention become implicit keywords (the LLM-free stand-in for latent inference, §3.2 "
                               "Example 3); 0 = none. The LLM path is unchanged.")
    keyword_extraction: Literal["latent", "ner"] = _f(
        "latent", "How the keywords are found. 'latent' (§3.2, Example 3): the LLM lists the question's explicit "
                  "keywords and infers implicit ones from the question and the preview (`none` mode: the "
                  "heuristic rule). 'ner': a standard extractor, no LLM and no implicit keyword — spaCy "
                  "en_core_web_sm's named entities, then the question's other noun runs searched as written. With "
                  "specialization off, the §4.3 ablation 'w/o Anchor Specialization': 'we extract explicit "
                  "entities from the query using a standard extractor and map them to graph nodes without "
                  "refining generic terms'.")
    specialization: bool = _f(True, "Anchor specialization: rewrite under-specified keywords into "
                                    "query-conditioned constraints (§3.2, Example 4). Off skips the rewrite only; "
                                    "the §4.3 ablation also sets keyword_extraction='ner' (`egx ablate` row "
                                    "no-specialization).")
    relaxation: bool = _f(True, "Schema relaxation guided by the pre-retrieved chunks (§3.2, Example 5). Off skips "
                                "this stage only; the §4.3 ablation also sets pre_retrieval off (`egx ablate` row "
                                "no-relaxation).")
    none_entity_share: float = _f(0.0, "Ours, `none` mode (default off): when > 0, the entity groups (capitalised "
                                       "mentions, numbers) share this fraction of the importance weights and the concept "
                                       "and implicit groups the rest, each side keeping the keyword rule's proportions — so "
                                       "many concept words cannot outweigh the question's entities (§3.2's example gives "
                                       "the subject ≈ 0.5, relation 0.3, attribute 0.2). 0 = the keyword rule alone (2 per "
                                       "entity, 1 per concept, ×1.5 for the first entity, normalized).")
    k_candidates: int = _f(5, "Top-k candidate anchors per keyword, over nodes AND enriched edges (§3.2; "
                              "paper gives no k).")
    min_similarity: float = _f(0.0, "Drop candidates whose cosine to the keyword is below this.")
    h: int = _f(6, "Localization hop h: G' is the union of the anchors' h-hop neighbourhoods (§3.3; default 6).",
                label="Localization hops h", bounds=Bounds(1, 8))
    max_local_nodes: int = _f(50_000, "Safety cap on |V'|: if the h-hop union grows past it, h is reduced "
                                      "(visible in the trace).")
    B: int = _f(10, "Expansion budget B: stop after B distinct CEGs (Algorithm 1 line 8; default 10).",
                label="Budget B (CEGs)", bounds=Bounds(1, 30))
    intra_group: bool = _f(True, "Allow intra-group connections (two anchors of one group meeting) as CEGs (§3.3).")
    intra_counts: bool = _f(False, "Whether intra-group CEGs consume the budget B (the paper does not say; "
                                   "off so same-group meetings cannot crowd out inter-group collisions).")
    intra_group_penalty: float = _f(1.2, "Mild ranking penalty: an intra-group CEG's composite cost is "
                                         "multiplied by this (§3.3 says 'mild'; value is ours).")
    alpha: float = _f(1.0, "Penalty factor α in Penalty_miss = exp(α·r_miss) (Eq. 6; default 1.0). "
                           "Large α = AND semantics, α≈0 = OR semantics.",
                label="α (missing-group penalty)", bounds=Bounds(0.0, 20.0, 0.1))
    n: int = _f(3, "Top-n CEGs kept for reasoning-aware expansion and the answer (§3.4; paper gives no n).",
                label="n (CEGs kept)", bounds=Bounds(1, 30))
    epsilon: float = _f(1e-6, "ε in Score = 1/(Cost_sem·Penalty_miss + ε) (Eq. 5).")
    d: int = _f(6, "Reasoning depth d: hops of LLM-guided expansion per CEG (§3.5; default 6).")
    max_neighbors: int = _f(30, "Neighbours (edges) shown to the LLM per hop, the most query-similar first.")
    none_select: int = _f(3, "`none` mode: at most this many neighbour edges added per hop.")
    time_budget_s: float = _f(120.0, "Anytime budget for reasoning-aware expansion over CEGs in rank order (§3.5).")
    max_chunks: int = _f(15, "At most this many source chunks reach the answer prompt (§4.1: 15).")
    chunk_ranking: Literal["support", "interleave"] = _f(
        "support", "Source chunks of the answer context. 'support' (paper §3.6): only the chunks linked to G_final, "
                   "ordered by how much of the evidence graph cites them (the order is ours; §3.6 does not rank "
                   "them). 'interleave' (ours: +dense fill) alternates that order with query similarity over the "
                   "evidence AND the pre-retrieved chunks, so up to half of the chunks are dense retrieval "
                   "(measured delta: benchmarks/README.md).")
    fill_with_preview: bool = _f(False, "Ours (+dense fill), with chunk_ranking='support': if the evidence graph cites "
                                        "fewer than max_chunks chunks, fill the remaining slots with pre-retrieved "
                                        "chunks (marked 'preview'). Off = the paper's context (§3.6).")
    ceg_ranking: bool = _f(True, "CEG ranking (§3.4, Eqs. 5-6). Off = the §4.3 ablation 'w/o CEG ranking': the first "
                                 "valid CEG returned by the bubble expansion is used, unranked.")
    answer_max_tokens: int = _f(256, "Token limit for the final answer.")
    evidence_format: Literal["passages", "triples", "chains"] = _f(
        "triples", "Reasoning skeleton in the answer prompt (§3.6 + ReG §4.2): 'triples' (the paper's serialized "
                   "G_final), 'chains' (ReG evidence chains) or 'passages' (no skeleton). The source passages are "
                   "kept in every format.")
    seed: int = _f(0, "Seed for LLM sampling (temperature 0 is used everywhere).")
    tight_json: bool = _f(True, "Bounded JSON for every LLM stage (constrained decoding on backends that support it): "
                                "at most 6 explicit and 3 implicit keywords, one rewrite or relaxation per keyword, "
                                "group concepts and members, neighbour ids and passage numbers only from the offered "
                                "ones, at least two groups when two concepts have candidates, at most 5 neighbours "
                                "a hop — so a small model cannot repeat itself until max_tokens, name an id that "
                                "does not exist, or collapse the groups. Off = open schemas (the replies' content "
                                "is the same the prompts ask for).")
    review_grouping: bool = _f(True, "§3.2 asked as a review (ours, for small models): the LLM gets one proposed group "
                                     "per query concept (the candidates its search found), drops the elements that do "
                                     "not stand for it, takes elements of another group its own search also found, "
                                     "names groups that are one concept, and weighs them (weights that are no "
                                     "judgement give way to the none-mode weights, visibly). Off = the "
                                     "paper's free grouping of all candidates, which a 1.5B model collapses into one "
                                     "group (benchmarks/README.md, 'LLM stages on the 1.5B model').")
    answer_tokens: int | None = answer_tokens_knob()
    answer_budget: str = answer_budget_knob()

    def checks(self) -> list[Check]:
        at_least_1 = "an integer >= 1"
        return [
            ("k_chunks", self.k_chunks >= 1, at_least_1),
            ("none_implicit", self.none_implicit >= 0, "an integer >= 0"),
            ("none_entity_share", 0.0 <= self.none_entity_share < 1.0, "a fraction in [0, 1)"),
            ("k_candidates", self.k_candidates >= 1, at_least_1),
            ("min_similarity", -1.0 <= self.min_similarity <= 1.0, "a cosine in [-1, 1]"),
            ("h", self.h >= 0, "an integer >= 0"),
            ("max_local_nodes", self.max_local_nodes >= 1, at_least_1),
            ("B", self.B >= 1, at_least_1),
            ("intra_group_penalty", self.intra_group_penalty > 0, "a number > 0 (1 = no penalty)"),
            ("alpha", self.alpha >= 0, "a number >= 0"),
            ("n", self.n >= 1, at_least_1),
            ("epsilon", self.epsilon > 0, "a number > 0"),
            ("d", self.d >= 0, "an integer >= 0"),
            ("max_neighbors", self.max_neighbors >= 1, at_least_1),
            ("none_select", self.none_select >= 0, "an integer >= 0"),
            ("time_budget_s", self.time_budget_s > 0, "a number of seconds > 0"),
            ("max_chunks", self.max_chunks >= 1, at_least_1),
            ("answer_max_tokens", self.answer_max_tokens >= 1, at_least_1),
            *budget_checks(self),
        ]


def bubble_budget(config: BubbleConfig, budget: Budget) -> BubbleConfig:
    """How a comparison's answer budget (:mod:`core.methods.budget`) applies to BubbleRAG (§3.6: G_final's
    triples and its source chunks go to the answer).

    ``chunks`` → ``max_chunks`` (§4.1's own knob: 15), and the pre-retrieved ``k_chunks`` cut to it where
    larger, since an early exit (§3.2) answers from those. ``tokens`` → ``answer_tokens``: the reasoning
    skeleton's triples, best CEG first, then the source chunks, best first, while they fit (an early exit's
    pre-retrieved chunks the same way). The triples are not counted as chunks: they come from the graph,
    and the chunks beside them are the text the answer observes (§4.1's "text chunks").
    """
    changes: dict[str, object] = {}
    if budget.chunks is not None:
        changes["max_chunks"] = budget.chunks
        if config.k_chunks > budget.chunks:
            changes["k_chunks"] = budget.chunks
    if budget.tokens is not None:
        changes["answer_tokens"] = budget.tokens
    return config.with_(**changes)
