"""What fastinsight's pages open with: three sentences on what you are looking at and the paper section they show
(drawn by :func:`components.teaching.page_intro`; the citation comes from :mod:`core.papers`)."""

from __future__ import annotations

from core.papers import Intro

#: Page file → its intro (every page of this method has one).
INTROS: dict[str, Intro] = {
    "pages/granker.py": Intro("FastInsight", "§3.3–§3.4, §4.2.2, Algorithms 2–3", (
        "FastInsight retrieves graph nodes in rounds — on a KG its entity nodes (§4.2.2; each node's text is its "
        "name, description and passage), on a corpus graph its passages: a vector search first, then STeX adds "
        "the unretrieved neighbours that are both similar to the question and structurally important.",
        "After every round GRanker reranks with the reranker's features smoothed over the graph, "
        "H′ = (1−α)H + αPH, so a node borrows evidence from its retrieved neighbours; ranked KG nodes lead to "
        "their passages.",
        "Both columns score the same candidates with the same reranker; move α and β to see the rank shifts.")),
}
