"""What reg's pages open with: three sentences on what you are looking at and the paper section they show
(drawn by :func:`components.teaching.page_intro`; the citation comes from :mod:`core.papers`)."""

from __future__ import annotations

from core.papers import Intro

#: Page file → its intro (every page of this method has one).
INTROS: dict[str, Intro] = {
    "pages/evidence_chains.py": Intro("ReG", "§4.2, Appendix D", (
        "Any method's retrieved triples can reach the LLM as an unordered list or reorganized by ReG into "
        "evidence chains that start or end at a question entity (Appendix D.4.1 expands both ways), each read from "
        "that entity: e0 → [r1] → e1 → …, or e0 ← [r1] ← e1 ← … for a chain that ended there.",
        "The page builds both prompts from the same evidence and counts their tokens.",
        "For ReG's own retriever it also shows the supervision pool the LLM refined and the training curves "
        "(§4.1).")),
}
