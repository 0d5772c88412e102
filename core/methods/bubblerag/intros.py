"""What bubblerag's pages open with: three sentences on what you are looking at and the paper section they show
(drawn by :func:`components.teaching.page_intro`; the citation comes from :mod:`core.papers`)."""

from __future__ import annotations

from core.papers import Intro

#: Page file → its intro (every page of this method has one).
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
}
