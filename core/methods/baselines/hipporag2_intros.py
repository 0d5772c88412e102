"""What the HippoRAG 2 page opens with: three sentences on what you are looking at and the paper section it shows
(drawn by :func:`components.teaching.page_intro`; the citation comes from :mod:`core.papers`)."""

from __future__ import annotations

from core.papers import Intro

#: Page file → its intro.
INTROS: dict[str, Intro] = {
    "pages/hipporag2.py": Intro("HippoRAG 2", "§3.2", (
        "HippoRAG 2, the baseline BubbleRAG and FastInsight compare against, links the question to facts of the "
        "KG, lets the LLM keep the relevant ones (recognition memory) and seeds a personalized PageRank with "
        "their phrases and, lightly, with every passage by dense score.",
        "Phrases and passages are nodes of one graph, so the walk ranks passages directly by the score of their "
        "passage node.",
        "Each stage below shows what it decided for the picked question, down to the ranked passages and the "
        "answer.")),
}
