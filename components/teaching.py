"""What a method page opens with (issue 16, item 7): three sentences on what you are looking at and a
link to the paper section it shows. The citations come from :mod:`core.papers` (one place)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from components.ui import md_escape
from core.papers import Paper, get_paper


@dataclass(frozen=True)
class Intro:
    paper: str  #: key of :data:`core.papers.PAPERS`
    section: str  #: the section(s) the page shows, e.g. "§3.2"
    text: tuple[str, str, str]  #: what you are looking at, in three sentences

    @property
    def cited(self) -> Paper:
        return get_paper(self.paper)


#: Page file → its intro. Every method page (``Method.page`` and the other BubbleRAG pages) has one.
INTROS: dict[str, Intro] = {
    "pages/bubble_anchors.py": Intro("BubbleRAG", "§3.2", (
        "BubbleRAG first turns the question into concepts: keywords (with latent ones the question only implies), "
        "specialized to the question's entity and relaxed where the graph's schema differs.",
        "Each concept gets anchor candidates among the graph's nodes and edges, and the anchors are grouped into "
        "weighted semantic groups whose weights sum to 1.",
        "Step through the stages with the slider: each one shows what it added and which fallback the "
        "LLM-free mode took.")),
    "pages/bubble_expansion.py": Intro("BubbleRAG", "§3.3, Algorithm 1", (
        "Every anchor group grows a bubble through the h-hop neighbourhood G' of the anchors, settling the "
        "cheapest node first, where a node costs 1 − cos(question, node).",
        "Where bubbles of different groups meet, the paths back to their anchors form a candidate evidence "
        "graph (CEG), outlined in red; the search stops after B CEGs.",
        "Play the frames or drag the slider; the side panel shows the queue and each bubble's cost.")),
    "pages/bubble_ranking.py": Intro("BubbleRAG", "§3.4–§3.5", (
        "Each CEG is scored by Score(T) = 1 / (Cost_sem(T) · e^(α·r_miss) + ε): cheap paths rank high, and α "
        "penalizes CEGs that miss some of the question's concepts.",
        "α = 10 asks for every concept (AND), α = 0 ignores coverage (OR); the top n CEGs go on to "
        "reasoning-aware expansion.",
        "Move α and n to re-rank the same CEGs instantly, then follow the expansion hop by hop below.")),
    "pages/bubble_ask.py": Intro("BubbleRAG", "§3.6", (
        "This is BubbleRAG's end result: the unified evidence graph of the best CEGs after reasoning expansion, "
        "with the source passages (at most 15) that the answer step reads.",
        "The table below times every stage and counts its LLM tokens; a stage that fell back to the LLM-free "
        "heuristic says so.",
        "Export the evidence graph or the full trace, and load a saved trace to replay it.")),
    "pages/granker.py": Intro("FastInsight", "§3.3–§3.4, §4.2.2, Algorithms 2–3", (
        "FastInsight retrieves graph nodes in rounds — on a KG its entity nodes (§4.2.2; each node's text is its "
        "name, description and passage), on a corpus graph its passages: a vector search first, then STeX adds "
        "the unretrieved neighbours that are both similar to the question and structurally important.",
        "After every round GRanker reranks with the reranker's features smoothed over the graph, "
        "H′ = (1−α)H + αPH, so a node borrows evidence from its retrieved neighbours; ranked KG nodes lead to "
        "their passages.",
        "Both columns score the same candidates with the same reranker; move α and β to see the rank shifts.")),
    "pages/subgraph.py": Intro("SG-RAG", "§4", (
        "SG-RAG turns the question into a small query graph whose UNK node stands for the answer, and maps "
        "its entities onto the knowledge graph.",
        "The query graph is cut into paths that are completed through an R*-tree over path embeddings, pruned "
        "by a GNN's dominance embeddings, and exact matches are assembled into subgraphs.",
        "Each matched subgraph is drawn next to the query graph with its node mapping; the answer may only "
        "use matched entities.")),
    "pages/evidence_chains.py": Intro("ReG", "§4.2, Appendix D", (
        "Any method's retrieved triples can reach the LLM as an unordered list or reorganized by ReG into "
        "evidence chains e0 → [r1] → e1 → … that start at the question's entities.",
        "The page builds both prompts from the same evidence and counts their tokens.",
        "For ReG's own retriever it also shows the supervision pool the LLM refined and the training curves "
        "(§4.1).")),
}


def page_intro(page: str) -> Intro:
    """Draw the intro of ``page`` ("pages/x.py") and return it."""
    intro = INTROS[page]
    p = intro.cited
    st.markdown(md_escape(" ".join(intro.text)))
    st.caption(f"Paper: [{md_escape(f'{p.key} {intro.section} — {p.title}')}]({p.url}) · "
               f"{md_escape(f'{p.short_authors}, {p.year}, {p.venue}, arXiv {p.arxiv}')}.")
    return intro
