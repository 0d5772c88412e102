"""What sgrag's pages open with: three sentences on what you are looking at and the paper section they show
(drawn by :func:`components.teaching.page_intro`; the citation comes from :mod:`core.papers`)."""

from __future__ import annotations

from core.papers import Intro

#: Page file → its intro (every page of this method has one).
INTROS: dict[str, Intro] = {
    "pages/subgraph.py": Intro("SG-RAG", "§4", (
        "SG-RAG (Structure Guided RAG for Factual Queries) turns the question into a small query graph whose "
        "UNK node stands for the answer, and maps its entities onto the knowledge graph.",
        "The query graph is cut into paths that are completed through an R*-tree over path embeddings, pruned "
        "by a GNN's dominance embeddings, and exact matches are assembled into subgraphs.",
        "Each matched subgraph is drawn next to the query graph with its node mapping; the answer chooses "
        "among the matches' bindings, listed first as its candidates.")),
}
