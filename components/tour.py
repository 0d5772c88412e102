"""The guided demo: one click on Home walks a class through BubbleRAG, and the other three papers' pages, on the
demo workspace.

:func:`home_panel` (on Home) starts it: the demo workspace, the ``recorded`` LLM (real runs of the
local 1.5B model, replayed) with the embedder and reranker those runs were recorded with, and the
paper's Keanu Reeves question. Each step (:data:`STEPS`) is one page of the BubbleRAG pipeline —
anchor grouping → bubble expansion → ranking and reasoning → answer → HippoRAG 2 (the baseline) → Compare — first
for the Keanu question, then FastInsight's GRanker, SG-RAG's subgraph matching and ReG's evidence chains on that
question (each recorded for it; the recorded model's SG-RAG query graph swaps its UNKs), then GRanker on the paper's
"Find an ML expert.", where smoothing lifts the gold answer, then SG-RAG without an LLM on the Lothair II question,
where the rule-based query graph finds it (:attr:`TourStep.llm`), then BubbleRAG's pages for the Lothair II question,
then Compare on a third question: each question's steps together, four questions, three changes; :func:`bar`, drawn under each of those pages' titles, is one sticky line (step, Back, Next, More with what the stage does and what to look
at, Leave), and :func:`lesson_ui`, under Ask's answer and atop Compare, says what the runs shown teach
(:mod:`core.eval.lesson`: computed from them, never written by hand).

Everything the tour changes (sidebar choices, the pages' questions and knobs) is put aside when it
starts and put back when the person leaves or finishes it (:func:`leave`), so afterwards every page
behaves as before. The tour's own state is one :class:`TourState` under :data:`state.TOUR`.
"""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import state as S
from components.navigation import HOME, SECTIONS, page_path
from components.ui import md_escape
from core.papers import get_paper

if TYPE_CHECKING:
    from core.eval.lesson import Lesson

WORKSPACE = "demo"
LLM = "recorded"
KEANU = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
LOTHAIR = "When did Lothair II's mother die?"
#: A question the recorded 1.5B model answers right in most methods: the lesson of a run that works.
JUDITH = "Find the second-married woman whose son started a war."
#: The paper's Example 1: "ML" is ambiguous (machine learning or medical laboratory); on the demo with the tour's
#: models, GRanker at the paper's α = 0.2 lifts the gold answer's node over plain reranking here.
ML_EXPERT = "Find an ML expert."
#: The method whose ``none``-mode answer a lesson shows beside the recorded model's (the tour's method).
EXTRACTIVE_METHOD = "bubblerag"

#: Values the tour sets or resets; each is kept with its widgets' keys (:func:`state.bind`) and put back
#: on leaving. The per-workspace memory of questions goes with them, so no workspace inherits the tour's; so
#: does the workspace's shared question (and what each page last showed of it): the tour's steps make their
#: question the demo's shared one, which every page off the tour (GRanker, SG-RAG, …) would otherwise take.
SAVED: tuple[str, ...] = (S.WORKSPACE, S.LLM, S.EMBEDDER, S.EMBEDDER_MODEL, S.RERANKER, S.RERANKER_MODEL,
         S.QUESTION, S.QUESTION_SYNCED, S.BUBBLE_QUESTION, S.BUBBLE_H, S.BUBBLE_B, S.BUBBLE_RUN_ALPHA, S.BUBBLE_RUN_N, S.BUBBLE_STAGE,
         S.BUBBLE_FRAME, S.BUBBLE_PLAYING, S.BUBBLE_ALPHA, S.BUBBLE_N, S.BUBBLE_PRESET, S.BUBBLE_CEG,
         S.COMPARE_QUESTION, S.COMPARE_CUSTOM, S.COMPARE_METHODS, S.WORKSPACE_OF, S.PER_WORKSPACE, S.CHOSEN_FOR)
#: The other papers' pages' questions, set on entering every step like BubbleRAG's and Compare's.
PAGE_QUESTIONS = ((S.GRANKER_QUESTION, S.GRANKER_CUSTOM), (S.SGRAG_QUESTION, S.SGRAG_CUSTOM),
                  (S.REG_QUESTION, S.REG_CUSTOM), (S.HIPPORAG2_QUESTION, S.HIPPORAG2_CUSTOM))
#: Reset on entering every step: the run at the paper's defaults (the settings the recording was made
#: with; another h, B, α or n — or another α, l or method on the other papers' pages — is not a recorded run)
#: and each page's player at its start.
RESET = (S.BUBBLE_H, S.BUBBLE_B, S.BUBBLE_RUN_ALPHA, S.BUBBLE_RUN_N, S.BUBBLE_STAGE, S.BUBBLE_FRAME,
         S.BUBBLE_PLAYING, S.BUBBLE_ALPHA, S.BUBBLE_N, S.BUBBLE_PRESET, S.BUBBLE_CEG,
         S.GRANKER_ALPHA, S.GRANKER_BETA, S.GRANKER_B_MAX, S.GRANKER_BATCH, S.GRANKER_GRAPH, S.GRANKER_ROUND,
         S.SGRAG_L, S.SGRAG_MAX_CANDIDATES, S.SGRAG_MAX_INSTANTIATIONS, S.SGRAG_MAX_SUBGRAPHS, S.SGRAG_DOMINANCE,
         S.SGRAG_DOUBTFUL, S.SGRAG_PICK, S.REG_METHOD, S.REG_FORMAT, S.HIPPORAG2_LINKING,
         S.HIPPORAG2_PASSAGE_WEIGHT, S.HIPPORAG2_DAMPING, S.HIPPORAG2_MEMORY)
SAVED = (*SAVED, *(k for pair in PAGE_QUESTIONS for k in pair), *(k for k in RESET if k not in SAVED))

GO = S.sub(S.TOUR, "go")  #: the page a tour button asked for, opened once the page runs
NOTE = S.sub(S.TOUR, "note")  #: what leaving the tour put back, shown on the page it was first drawn on
NOTE_PAGE = S.sub(S.TOUR, "note_page")  #: that page (the note goes once the person opens another)
#: the tour's models, kept by Leave where the choices put back differ from the tour's: the note then offers to go on
#: with the recorded runs (an audit's lecturer, back on LLM "none", found the free walk telling a weaker story)
KEEP = S.sub(S.TOUR, "keep")


@dataclass(frozen=True)
class TourStep:
    page: str  #: "pages/x.py"
    question: str
    section: str  #: the section of :attr:`paper` the stage implements
    what: str  #: what the stage does
    look: str  #: what to look at on the screen (in More, and the tooltip of the line under the bar)
    lesson: bool = False  #: what the runs shown teach (:func:`lesson_ui`): under Ask's answer, atop Compare
    #: ``look`` shortened to the line under the bar, at most two lines at 1440 px (:data:`BRIEF_MAX`); "" when
    #: ``look`` itself is that short
    brief: str = ""
    paper: str = "BubbleRAG"  #: the paper (:func:`core.papers.get_paper`) whose method the page shows
    #: the LLM the sidebar holds on this step: the recorded runs (:data:`LLM`), or ``"none"`` where a step shows a
    #: method's rule-based path (SG-RAG's query graph without an LLM); set on entering the step, put back by Leave
    llm: str = LLM

    @property
    def look_line(self) -> str:
        """What the line under the bar says: :attr:`brief`, or :attr:`look` when it is short enough."""
        return self.brief or self.look


#: The most characters (bold marks left out) of a step's "Look at" line: two lines of the bar's column at 1440 px
#: hold about 2 × 140 at its font size; the margin keeps a word wrapped early from making a third.
BRIEF_MAX = 220


STEPS: tuple[TourStep, ...] = (
    TourStep("pages/bubble_anchors.py", KEANU, "§3.2",
             "Dense search first fetches the top passages; if they already answer the question BubbleRAG stops. "
             "Otherwise the LLM extracts the question's keywords (and infers ones it only implies), rewrites vague "
             "ones into query-specific search terms, relaxes them to the graph's own wording, and each term "
             "retrieves candidate nodes and edges. The candidates are grouped by concept into weighted anchor "
             "groups (weights sum to 1).",
             "The step opens on stage 6, the groups with their weights and the anchors drawn under them; **Earlier "
             "stages** (below) or the slider walk back through the five before: which keywords the model inferred, "
             "what “movie” became (or why it stayed “movie”). The paper expects the model's weights to put the core "
             "subject highest, the relations next, the modifiers lowest; where its weights fail the check, the "
             "rule-based fallback stands in (the line beside them says which), and the rule knows no roles: it only "
             "weighs the names the question writes over its other terms, its first name most — so a low weight for "
             "“main villain” is the rule's, not the paper's idea. Each group keeps its colour on the following "
             "pages. The lines with a timer give each stage's time with the real model beside this replay's.",
             # the briefs are read off a projector: plain words, few section signs (audit 47 found them dense)
             brief="Stage 6: the groups' weights, the model's or the rule's (the paper: subject highest, modifiers "
                   "lowest), and the anchors drawn. **Earlier stages** (below): the keywords found, was “movie” "
                   "rewritten?"),
    TourStep("pages/bubble_expansion.py", KEANU, "§3.3, Algorithm 1",
             "From every anchor a bubble grows over the localized graph G′ — a multi-source Dijkstra whose cost "
             "per node is 1 − cos(q, v), cheapest first, one bubble per group. Where bubbles of different groups "
             "meet, the paths back to their anchors form a candidate evidence graph (CEG); the search stops "
             "after B CEGs.",
             "The diamonds are the anchors, where the bubbles start. Press **Play**: it pauses at each collision, "
             "outlines the new CEG in red, and the side panel names the meeting node and the queue.",
             brief="The diamonds are the anchors. **Play** pauses at each collision and rings the new CEG in red; "
                   "the side panel names the meeting node."),
    TourStep("pages/bubble_ranking.py", KEANU, "§3.4–3.5",
             "Each CEG is scored 1 / (Cost_sem · e^(α·r_miss) + ε): its semantic cost against the weight of the "
             "groups it misses. The top-n are then grown hop by hop: the LLM picks neighbouring edges until it "
             "judges the evidence sufficient (reasoning-aware expansion).",
             "Try the **AND** and **OR** presets and watch the “shift” column; open the rank-1 CEG's hops under the "
             "table to see which edges the model added and why it stopped."),
    TourStep("pages/bubble_ask.py", KEANU, "§3.6",
             "The expanded top-n CEGs are merged into one evidence graph; its triples and their source passages "
             "(at most 15) go to the LLM, which writes the answer.",
             "The lesson at the top, read from this run: the rank of each gold passage, the passage the recorded "
             "1.5B model's answer came from, and what none mode (no LLM) quotes instead; the answer box and its "
             "**Gold answer** line (EM, F1) under it. Then the tabs: the evidence graph, the triples the "
             "model read, and **Latency and tokens** — every stage's recorded live time beside this replay's.",
             lesson=True,
             brief="The lesson: where the gold passages ranked, which passage the answer came from, what none mode "
                   "quotes; under it the answer and its **Gold answer** line. Then the tabs."),
    TourStep("pages/hipporag2.py", KEANU, "§3.1–§3.2",
             "HippoRAG 2, the baseline BubbleRAG and FastInsight compare against, does no subgraph search: it links "
             "the question to the KG's facts (query-to-triple linking), the LLM keeps the relevant ones (recognition "
             "memory), their phrases seed a personalized PageRank over one graph of phrase and passage nodes (every "
             "passage is seeded lightly by its dense score), and the passages are ranked by the mass their passage "
             "nodes receive; the LLM answers from the top passages.",
             "Section 1: the five facts linked to the question, and ✓ for those the recorded model kept (section 2 "
             "counts them). Section 3: the phrase seeds those kept facts give, with their weights. Section 5: where "
             "the ✓ gold passages ranked after the walk — a walk spreads from the seeds to their neighbours, so a "
             "passage two hops away can rise. Section 6: the answer from the top passages, against the gold answer.",
             brief="The lesson at the top; then §1–§2: the linked facts the model kept; §3: the seeds they give; "
                   "§5: where the walk ranked the ✓ gold passages; §6: the answer against the gold answer.",
             paper="HippoRAG 2", lesson=True),
    TourStep("pages/compare.py", KEANU, "§4 (baselines)",
             "Every method of the app runs the same question on the same graph and backends, and the failure "
             "diagnosis reads each method's trace to say where the gold evidence was lost.",
             "The lesson at the top of the page, read from every method's run: where the gold passages ranked "
             "and how many methods answered right (open the fold under it for where "
             "each came from). Under it the summary table: recall, the verdict per method and the seconds; ✓ "
             "marks gold passages in each ranking. The verdict separates the two ways to fail: “ranked below the "
             "cut” and the like lost the evidence in retrieval, “retrieved, answer wrong” found it and the small "
             "model still answered wrongly. The comparison is like for like: the recall columns score the same top k for "
             "every method, and every answer read at most 15 passages — BubbleRAG §4.1's one budget for all methods, "
             "as the **Answer budget** line above the table says. It is a cap, not a hand-out: the passage methods "
             "fill it, while BubbleRAG, SG-RAG and ReG hand over what their own evidence holds, often fewer (the "
             "table's ctx chunks). Pick “own” there for each paper's own budget (5 passages for dense). One question is no result: the Benchmark gives figures with 95 % intervals over "
             "many questions. Next opens the other three papers' pages on the same question (FastInsight's GRanker, "
             "SG-RAG, ReG), then GRanker on FastInsight's own example and SG-RAG without an LLM on the Lothair "
             "question.",
             lesson=True,
             brief="The lesson at the top (where the gold passages ranked, who answered right), then each method's "
                   "verdict."),
    TourStep("pages/granker.py", KEANU, "§3.3–§3.4",
             "FastInsight retrieves the graph's nodes in rounds: a vector search first, then STeX adds the "
             "unretrieved neighbours that are both similar to the question and structurally important. After every "
             "round GRanker reranks the candidates with the cross-encoder's features smoothed over the graph, "
             "H′ = (1−α)H + αPH, so a node borrows evidence from its retrieved neighbours; the ranked KG nodes lead "
             "to their passages, which the LLM answers from. Smoothing is no free lift: a node borrows whatever its "
             "neighbours hold, relevant or not.",
             "The two columns rank the same candidate KG nodes with the same reranker: plain (left) and GRanker "
             "(α = 0.2, the paper's, right), with each node's rank shift; ✓ marks the gold nodes. Did smoothing lift "
             "them or push them down? It helps a node whose ranked neighbours are relevant and pulls it down when "
             "they are not (a cluster of other films can outrank the one asked about). The lesson above the columns "
             "names each gold node's two ranks; the caption above the columns lists the passages the ranking leads "
             "to, and the tabs below replay the STeX rounds. After SG-RAG and ReG, the tour comes back here for the "
             "paper's own example, the one it made to show smoothing help.",
             brief="Plain ranking (left) beside GRanker at the paper's α = 0.2 (right): do the ✓ gold nodes move up "
                   "or down, and which neighbours pulled them? Then the passages the ranking leads to.",
             paper="FastInsight", lesson=True),
    TourStep("pages/subgraph.py", KEANU, "§4",
             "SG-RAG turns the question into a query graph whose UNK nodes stand for what is asked, here written by "
             "the recorded 1.5B model (Table 12 prompt); its entities are mapped onto the graph's nodes (Algorithm "
             "3), the query graph is cut into paths that are completed through an index pruned by the dominance "
             "model, the exact matches are assembled into subgraphs, and the model chooses the answer among the "
             "matches' bindings (Table 15 prompt). Exact matching is only as good as the query graph it matches: "
             "an UNK put where the question does not put it binds to the wrong nodes, however exactly.",
             "Section 1: the query graph the model built — its table says what each UNK stands for. Is it wired "
             "as the question is (both actors joined to the movie, the villain to the movie)? A small model can "
             "swap the roles, making the villain the hub between the actors. Section 5: a matched subgraph beside "
             "the query graph (same colour = mapped node) and its node table: which graph node did each UNK "
             "become? Section 6: the answer and the other UNK bindings under it. The question asks who played the "
             "villain: is the answer the actor, or the character? Later the same pipeline runs without an LLM, on the "
             "Lothair question, where SG-RAG's rule-based query graph finds the answer.",
             brief="§1: the query graph — is each UNK where the question puts it? §5: the node each UNK became (a "
                   "swapped movie and villain shows there); §6: the answer — the actor, or the character?",
             paper="SG-RAG", lesson=True),
    TourStep("pages/evidence_chains.py", KEANU, "§4.2, Appendix D",
             "ReG reorganizes retrieved triples into evidence chains that start or end at one of the question's "
             "entities (App. D.4.1 expands both ways); the page reads each from that entity: e0 → [r1] → e1 → … "
             "where it starts there, e0 ← [r1] ← e1 ← … where it ended there. Chains that end in the same answer "
             "are merged, so the LLM reads connected paths instead of an unordered list. The page builds both prompts from the same triples and counts their "
             "tokens; below, the supervision ReG's retriever is trained on.",
             "The raw triples (left) beside the evidence chains (right), then the token counts under them: the same "
             "evidence, fewer tokens as chains. Is there a chain that joins an actor, The Matrix, the villain and the "
             "villain's actor? Look too for chains marked as merged: merging chains by their relation path can "
             "drop the entity in the middle (the film). Then the answer above them, which the recorded model read "
             "from those chains.",
             brief="Raw triples (left) beside the evidence chains (right), their tokens under them: is one chain "
                   "actor ← The Matrix ← villain ← villain's actor (← : read back from the actor), or did merging "
                   "drop the film?",
             paper="ReG", lesson=True),
    TourStep("pages/granker.py", ML_EXPERT, "§3.3–§3.4, §4.2.2",
             "Back to GRanker, on FastInsight's own Example 1, “Find an ML expert.”, which shows why it smooths: "
             "“ML” matches machine learning and medical laboratory alike, so the plain reranker, scoring each node "
             "on its own text, puts the medical-laboratory nodes first; smoothed over the graph "
             "(H′ = (1−α)H + αPH), a node borrows evidence from its retrieved neighbours.",
             "The same two columns as on the Keanu question: plain (left) and GRanker (α = 0.2, the paper's, "
             "right), with each node's rank shift; ✓ marks the gold nodes. Where does Geoffrey "
             "Hinton (the gold answer) rank in each, and which machine-learning nodes rose with him, lifted by "
             "relevant neighbours? Not every gold node rises: the lesson above the columns names each gold node's "
             "two ranks, up and down. The medical-laboratory nodes keep the top of both columns: they are a cluster "
             "of their own, neighbours of one another. Be plain with the class: at the paper's α the lift here is "
             "small (Hinton 5 → 4, deep learning 9 → 6), and on MuSiQue this app measures no gain of FastInsight "
             "over plain reranking (node R@10 −0.8 [−3.8, +1.8], 50 questions, benchmarks/README.md) where the "
             "paper reports one on its corpora. Move the α slider to 0.5: deep learning (9 → 4) and Yoshua Bengio "
             "(8 → 5) rise, the mechanism made visible.",
             brief="The ✓ gold nodes: Geoffrey Hinton rises only 5 → 4 at the paper's α = 0.2 (a small lift; on a "
                   "multi-hop benchmark this app measures none). Move α to 0.5: deep learning 9 → 4 and Bengio 8 → 5 "
                   "rise.",
             paper="FastInsight", lesson=True),
    TourStep("pages/subgraph.py", LOTHAIR, "§4",
             "The same SG-RAG pipeline, now without an LLM, on the Lothair question (the sidebar's LLM is “none” on "
             "this step; Next puts the recorded LLM back): where the recorded model wrote the Keanu question's "
             "query graph, here SG-RAG's rule-based one stands in: the entity the question names, Lothair II, joined through a bridge UNK (his mother, whom the question does "
             "not name) to the asked-for UNK (her death date). Its two-hop path is completed through the path "
             "index, each exact match is a subgraph, and without an LLM the answer is the best-scoring sentence of "
             "the matched subgraphs' passages (an LLM chooses among the matches' bindings, Table 15 prompt).",
             "No LLM on this step: the rule-based query graph. Section 1: Lothair II, a bridge UNK and the asked-for "
             "UNK, as the question puts them. Section 4: the bridge's candidates, the mother Ermengarde of Tours among "
             "Lothair II's other neighbours. Section 5: the exact matches — the edges carry no relation, so every "
             "two-hop path from Lothair II matches; the section opens on the match the answer was read from, whose "
             "bridge is Ermengarde of Tours: what did the asked-for UNK become? (The lesson says why it is not match "
             "#1.) Section 6: the answer, the sentence of the matches' passages that holds the date. Next: BubbleRAG's "
             "pages on the same question.",
             brief="No LLM here: the query graph comes from a rule. Section 1: the graph, with two unknowns (UNK); "
                   "section 5: what each unknown matched; section 6: the answer.",
             paper="SG-RAG", lesson=True, llm="none"),
    TourStep("pages/bubble_anchors.py", LOTHAIR, "§3.2, Examples 2 and 4",
             "BubbleRAG's pages again, on the question SG-RAG just answered without an LLM. “Lothair II's mother” "
             "is never named: the paper's Example 4 rewrites the vague keyword “mother” "
             "into “Lothair II's mother”, so candidates near Lothair II win over every other mother in the graph, "
             "and expects weights of about 0.5 for Lothair II, 0.3 for mother and 0.2 for the death date.",
             "Stage 6, where the step opens: the group weights — the model's "
             "own, or the rule-based fallback where its weights fail the check (the line beside the weights says "
             "which) — against the paper's expectation (§3.2): the core subject highest, the relations next, the "
             "modifiers lowest. And the groups' members: did one group merge Lothair II with another Lothair (a "
             "concept such as “Lothair II / Lothair I”)? Its bubbles then grow from both kings, so facts about the "
             "other king's family can reach the answer — the lesson on Ask says where the date came from. Then "
             "**Earlier stages**, stages 2 and 3: did the model infer or specialize “mother”?",
             brief="Stage 6: the weights, the model's or the rule's (subject highest, modifiers lowest?); did a group "
                   "merge Lothair II with another Lothair? **Earlier stages**: was the mother found?"),
    TourStep("pages/bubble_expansion.py", LOTHAIR, "§3.3",
             "The bubbles start from Lothair II and from the mother and death-date anchors; the answer path runs "
             "through the mother, an entity no keyword names.",
             "Play to the first collision: which node do the bubbles meet at — the mother (Ermengarde of Tours in "
             "the demo graph), or a king? Where a group merged Lothair II with Lothair I, a bubble also starts at "
             "Lothair I, and the side panel's anchors say so.",
             brief="**Play** to the first collision: do the bubbles meet at the mother (Ermengarde of Tours) or at "
                   "a king?"),
    TourStep("pages/bubble_ranking.py", LOTHAIR, "§3.5",
             "A death date is a property one hop beyond the backbone that connects the anchors: this is the case "
             "reasoning-aware expansion is for.",
             "Open the hops of the rank-1 CEG: did the model add the edge that holds the date, and did it stop "
             "because the evidence sufficed?"),
    TourStep("pages/bubble_ask.py", LOTHAIR, "§3.6",
             "The answer from the unified evidence graph and its passages.",
             "The lesson above the answer: did the gold passages rank high, and which passage holds the date the "
             "model gave — the mother's, or another passage's? Then check it against the triples tab.",
             lesson=True,
             brief="The lesson above the answer: did the gold passages rank high, and whose passage holds the date the "
                   "model gave — the mother's, or another's? Then the triples tab."),
    TourStep("pages/compare.py", LOTHAIR, "§4 (baselines)",
             "The same question through every method. SG-RAG here matches the recorded model's query graph, not "
             "the rule-built one of step 11 (no LLM), which found the date: the two query graphs differ.",
             "Which methods found both gold passages (Lothair II and his mother), and where did the others lose "
             "them? Where both were found and the answer is still wrong, retrieval did its part and the small "
             "model's reading did not: the lesson at the top of the page says where each wrong date came from "
             "(in the fold under the lesson). SG-RAG's row is the recorded model's query graph, not step 11's "
             "rule-built one.",  # audit 52 read steps 11 ("20 March 851") and 16 ("SG-RAG lost it") as contradicting
             lesson=True,
             # the fold is named by the runs shown ("Why the wrong answers are wrong" or "… only partly right"): the
             # step's text does not quote it (audit 48: a recording that changed would leave the text naming a fold
             # that is not there)
             brief="Which methods found both gold passages (Lothair II, his mother)? Found and still wrong: the "
                   "fold under the lesson says why. SG-RAG here reads the model's query graph, not step 11's."),
    TourStep("pages/compare.py", JUDITH, "§4 (baselines)",
             "A third question of the demo through every method, with the same recorded 1.5B model: see what "
             "differs, now that most of its answers are right, from the Keanu and Lothair questions.",
             "The lesson at the top of the page: where the gold passages ranked in the methods that answered "
             "right, and "
             "what the others answered instead. **Finish** puts your own workspace and LLM back.", lesson=True,
             brief="The lesson at the top: where the gold passages ranked in the methods that answered right, what "
                   "the others answered. **Finish** puts your own workspace and LLM back."),
)

_TITLES = {path: title for pages in SECTIONS.values() for path, title, _icon in pages}


@dataclass
class TourState:
    """The running tour: its step, and what the session held before it started."""

    step: int = 0
    saved: dict[str, Any] = field(default_factory=dict)  #: session key → its value before the tour
    before: dict[str, str] = field(default_factory=dict)  #: the sidebar choices before the tour, for the note
    models: dict[str, str] = field(default_factory=dict)  #: the recording's embedder and reranker (read once)
    #: the current step's page ("pages/x.py"), kept here so that components.teaching reads it from the session
    #: without importing this module (which imports teaching)
    page: str = ""


def current() -> TourState | None:
    """The running tour, or None."""
    t = st.session_state.get(S.TOUR)
    return t if isinstance(t, TourState) else None


def on_step_page(page: str) -> bool:
    """Whether a tour runs and its current step is on ``page`` ("pages/x.py"): the step's bar then says what
    the stage does, so the page keeps its own intro folded (on a 900-px projector the two pushed the drawing
    below the fold)."""
    t = current()
    return t is not None and t.page == page


def _family(key: str) -> list[str]:
    """``key`` and its widgets' keys (:func:`state.widget_key`), as they are in the session now."""
    prefix = S.widget_key(key)
    return [k for k in st.session_state if isinstance(k, str) and (k == key or k == prefix or k.startswith(prefix + "."))]


def _drop(key: str) -> None:
    for k in _family(key):
        del st.session_state[k]


def _tour_models() -> dict[str, str]:
    """The embedder and reranker the demo's recorded runs were made with ({} when none is shipped)."""
    from core.batch.recording import recorded_models
    from core.errors import EgxError

    try:
        return recorded_models(WORKSPACE, KEANU)
    except EgxError:
        return {}


def _choose_backends(models: dict[str, str], llm: str = LLM) -> None:
    """The demo workspace, the step's LLM (the recorded one, or ``none`` on a step without an LLM) and the
    recording's models in the sidebar."""
    S.set_value(S.WORKSPACE, WORKSPACE)
    S.set_value(S.LLM, llm)
    if "embedder" in models:
        S.set_value(S.EMBEDDER, models["embedder"])
    if "reranker" in models:
        S.set_value(S.RERANKER, models["reranker"])


def _enter(t: TourState, i: int) -> None:
    """Make step ``i`` current: its question on every method page and on Compare, the defaults, its page."""
    from core.methods.registry import method_names

    ss = st.session_state
    ss.pop(NOTE, None)  # a tour started again: the note of the one left is no longer news
    ss.pop(NOTE_PAGE, None)
    ss.pop(KEEP, None)
    t.step = i
    step = STEPS[i]
    t.page = step.page
    _choose_backends(t.models, step.llm)  # again: the sidebar may have been changed since
    for key in RESET:
        _drop(key)
    S.follow_workspace(WORKSPACE, S.BUBBLE_QUESTION)  # the question of the workspace left is kept for it
    S.set_value(S.BUBBLE_QUESTION, step.question)
    S.follow_workspace(WORKSPACE, S.COMPARE_QUESTION, S.COMPARE_CUSTOM)
    S.set_value(S.COMPARE_QUESTION, step.question)
    for key, custom in PAGE_QUESTIONS:  # the other papers' pages (GRanker, SG-RAG, ReG) show it too
        S.follow_workspace(WORKSPACE, key, custom)
        S.set_value(key, step.question)
    if not ss.get(S.COMPARE_METHODS):
        S.set_value(S.COMPARE_METHODS, method_names())
    ss[GO] = step.page


def start() -> None:
    """Start the tour at its first step (a button callback): what it changes is put aside first."""
    ss = st.session_state
    running = current()
    if running is not None:  # a second click (another tab): the tour goes on, its saved choices stay
        _enter(running, running.step)
        return
    saved = {k: copy.deepcopy(ss[k]) for key in SAVED for k in _family(key)}
    before = {"workspace": str(ss.get(S.WORKSPACE) or ""), "LLM": str(ss.get(S.LLM) or ""),
              "embedder": str(ss.get(S.EMBEDDER) or ""), "reranker": str(ss.get(S.RERANKER) or "")}
    t = TourState(0, saved, before, _tour_models())
    ss[S.TOUR] = t
    _enter(t, 0)


def goto(i: int) -> None:
    """Open step ``i`` (Next, Back, Resume)."""
    t = current()
    if t is not None:
        _enter(t, max(0, min(i, len(STEPS) - 1)))


def leave(*, home: bool = False) -> None:
    """End the tour and put back everything it changed; ``home``: then open Home (Finish)."""
    ss = st.session_state
    t = current()
    ss.pop(S.TOUR, None)
    if t is None:
        return
    for key in SAVED:
        _drop(key)
    for k, v in t.saved.items():
        ss[k] = v
    back = ", ".join(f"{what} “{name}”" for what, name in t.before.items() if name)
    ss.pop(NOTE_PAGE, None)
    ss.pop(KEEP, None)
    if t.before.get("workspace") != WORKSPACE or t.before.get("LLM") != LLM:
        ss[KEEP] = dict(t.models)
    ss[NOTE] = (f"You left the guided demo; your own choices are back: {back}." if back else
                "You left the guided demo; the sidebar is back to its defaults.")
    if home:
        ss[GO] = HOME


def _follow() -> None:
    """Open the page a tour button asked for (after the callback: ``st.switch_page`` needs a script run)."""
    target = st.session_state.pop(GO, None)
    if target:
        st.switch_page(page_path(target))


#: Back to the top of the page: Finish opened Home, and Leave kept the page, at the scroll position of the step left,
#: so "your own choices are back" was drawn off-screen. Streamlit may restore the position once after a page
#: switch, hence the repeats.
_TO_TOP = """<script>(() => { const top = () => { const m = document.querySelector('[data-testid="stMain"]');
  if (m) m.scrollTo({top: 0}); window.scrollTo(0, 0); };
  top(); setTimeout(top, 150); setTimeout(top, 600); })();</script>"""


def _note() -> None:
    """The note of a tour just left, with the page scrolled to it (it is drawn under the page's title). It stays on
    the page it was first drawn on, through that page's reruns, and goes when another page opens: shown once, it
    vanished at the first rerun (a job finishing, the tour's fetches), a second after Leave in a browser."""
    ss = st.session_state
    note = ss.get(NOTE)
    if not note:
        return
    page = str(ss.get(S.PAGE, ""))
    first = NOTE_PAGE not in ss
    if not first and ss[NOTE_PAGE] != page:
        ss.pop(NOTE, None)
        ss.pop(NOTE_PAGE, None)
        ss.pop(KEEP, None)
        return
    ss[NOTE_PAGE] = page
    st.success(md_escape(note), icon=":material/tour:")
    if isinstance(ss.get(KEEP), dict):
        st.button(f"Go on with the tour's recorded runs (workspace “{WORKSPACE}”, {LLM} LLM)",
                  icon=":material/replay:", key=S.sub(S.TOUR, "keep_button"), on_click=keep_tour_choices,
                  help="The sidebar back on the demo, the recorded LLM runs and the models they were made with, as in "
                       "the tour: every page then replays the real model's recorded stages where its question was "
                       "recorded (the example questions list those first). Your own choices are one click away in "
                       "the sidebar.")
    if first:  # scroll once: later reruns keep the person's own scroll position
        st.html(_TO_TOP, unsafe_allow_javascript=True)


def keep_tour_choices() -> None:
    """Put the tour's workspace, recorded LLM and models back in the sidebar after Leave (a button callback)."""
    ss = st.session_state
    models = ss.pop(KEEP, None)
    if not isinstance(models, dict):
        return
    _choose_backends(models)
    ss[NOTE] = (f"The sidebar is on the tour's choices again: workspace “{WORKSPACE}”, the {LLM} LLM runs"
                + "".join(f", {kind} “{name}”" for kind, name in models.items()) + ".")


def notice() -> None:
    """On Home, under its title: open the page a tour button asked for, or show the note of a tour just left."""
    _follow()
    _note()


def _off_course(t: TourState) -> list[str]:
    """What in the sidebar differs from the tour's choices for the current step (someone changed it during the
    tour)."""
    ss = st.session_state
    out = []
    if ss.get(S.WORKSPACE) != WORKSPACE:
        out.append("workspace")
    if ss.get(S.LLM) != STEPS[t.step].llm:
        out.append("LLM")
    for kind, key in (("embedder", S.EMBEDDER), ("reranker", S.RERANKER)):
        want = t.models.get(kind)
        if want and ss.get(key) != want:
            out.append(kind)
    return out


#: The Next button's short names of the pages whose titles do not fit it: "Next: GRanker vs plain reran…" was cut at
#: 1440 px (an audit); the button's tooltip holds the whole step label.
NEXT_NAMES = {"pages/granker.py": "GRanker", "pages/bubble_ranking.py": "Ranking", "pages/compare.py": "Compare",
              "pages/subgraph.py": "SG-RAG matching", "pages/evidence_chains.py": "ReG chains",
              "pages/bubble_expansion.py": "Expansion", "pages/bubble_anchors.py": "Anchors",
              "pages/hipporag2.py": "HippoRAG 2"}


#: The questions by short names, for the Next button and the "Look at" line where the tour changes question.
QUESTION_NAMES = {KEANU: "Keanu question", LOTHAIR: "Lothair question", ML_EXPERT: "ML-expert question",
                  JUDITH: "second-wife question"}


def question_change(i: int) -> str:
    """What the "Look at" line of step ``i`` says first where the step's question is not the previous step's: "Now the
    Lothair question" (a question the tour has not asked before) or "Back to the Keanu question"; "" on the first step
    and where the question stays. An audit's class saw the question jump Keanu → ML expert → Keanu → Lothair → Keanu
    → Lothair → second wife with nothing on screen saying so but the bar's two words; two audits later wanted the jumps
    gone, and each question's steps now come together (Keanu → ML expert → Lothair → second wife), so every change
    is to a new question ("Back to" stays for an order that returns to one)."""
    if i <= 0 or STEPS[i].question == STEPS[i - 1].question:
        return ""
    q = STEPS[i].question
    name = QUESTION_NAMES.get(q) or step_label(i).split(" · ", 1)[1]
    seen = any(s.question == q for s in STEPS[:i])
    return f"{'Back to' if seen else 'Now'} the {name}"


def next_label(i: int) -> str:
    """The Next button's label on step ``i`` (not the last): the next step's page by a name short enough for the
    button, or — the same page again on another question — that question ("Next: second-wife question")."""
    nxt, step = STEPS[i + 1], STEPS[i]
    if nxt.page == step.page:  # the questions' short names: "Next: Keanu Reeves question" was cut at 1440 px
        return "Next: " + {KEANU: QUESTION_NAMES[KEANU], LOTHAIR: QUESTION_NAMES[LOTHAIR]}.get(
            nxt.question, step_label(i + 1).split(" · ", 1)[1])
    return f"Next: {NEXT_NAMES.get(nxt.page) or _TITLES.get(nxt.page, '')}"


def step_label(i: int) -> str:
    step = STEPS[i]
    which = {KEANU: "Keanu Reeves question", LOTHAIR: "Lothair II question", ML_EXPERT: "ML-expert question"}.get(
        step.question, "second-wife question")
    return f"{_TITLES.get(step.page, step.page)} · {which}"


#: The bar stays under the app's header while the page scrolls, so Next is always in reach on a projector. The
#: sticky element is the bar's layout wrapper: the bar alone is its wrapper's only child, with nowhere to stick.
#: It needs an opaque background, the app's own in either theme (a fixed white made it a glaring white strip
#: with light text in the dark theme). Streamlit sets that colour on ``.stApp`` and exposes no CSS variable for
#: it, so the bar's ancestors inside ``.stApp`` (transparent containers) inherit it down to the bar: the same
#: colour they showed through, now opaque where the page scrolls under the bar. Its paragraphs keep Streamlit's
#: own margins, which the Markdown container's negative margin cancels: with them zeroed, a title wrapped to two
#: lines (1440 px, "… · Keanu Reeves question") spilled over the bar's border onto the question below.
#: On a projector the bar is one line, so the stage under it starts above the fold of 1440×900: the title leaves out
#: the page's name (the heading right above says it), is set a little smaller, and never wraps — were it ever too
#: long for its column (a narrower window), it ends in an ellipsis and its tooltip holds the whole title.
#: Stuck, the bar sits in the header's band (top of the main area, above the header's transparent strip) instead of
#: under it: under the header it hid a band of the page below the header's (an audit found the expansion legend's
#: first row, the side panel's step and the Ranking page's α / n sliders under it after scrolling), so a page
#: scrolled under the bar now loses only what the header hid anyway. The header, transparent, stays above the bar
#: but lets clicks through to it, except on its own controls (the sidebar's toggle, the menu, the running status). The main area's scroll padding is the header's
#: (:data:`components.ui.HOUSE_CSS`): a control scrolled into view, by the keyboard's focus or a link, lands below
#: the stuck bar. On a step the page's title is set smaller (2rem, tight padding; Streamlit's is 2.75rem with 1.25rem
#: above): the bar under it names the step, and the 45 px it gave back bring the stage's drawing up the projector's
#: screen (an audit found half of the expansion drawing under the fold of 1440×900).
#: The tour's projector mode (the bar's "Projector" toggle): the pages' grey captions hidden, an audit's lecturer having to
#: read long small-print paragraphs aloud from the projector, and the text a class reads set larger — the pages'
#: text and boxes, the "Look at" lines, the lesson box (:data:`PROJECTOR_SCALE` of their size; a later audit measured
#: the "Look at" text at 13 px with the mode on; its two lines become at most three, the text being longer) — and
#: the drawings' labels (:func:`projector_scale`,
#: :func:`components.graph_view.render_html`) and the tables. Buttons, the bar's title and headings keep their size: the bar
#: stays one line. A table is a canvas drawn in the server theme's font, which CSS cannot size: its element is zoomed
#: instead (CSS ``zoom``) at 1/:data:`PROJECTOR_SCALE` of its column's width, so that the grid, laid out at that
#: width, fills the column zoomed and no more (zoomed at full width it ran a quarter past the column's edge; an audit
#: found the tables the smallest text on the projector's screen). A static table (``st.table``, GRanker's rankings) is
#: HTML: its text, Streamlit's 0.875 rem, is set :data:`PROJECTOR_SCALE` as large (a later audit found GRanker's tables left at their size).
#: A hidden caption's element goes too, not only its text: each empty element kept its column's 1-rem gap, and audit
#: 50 found an 80-px blank band in Ask's answer card under the gold answer (its three captions' gaps).
QUIET = S.TOUR_QUIET
#: The bar's projector-mode toggle (:func:`bar`), and what More says of it.
PROJECTOR_LABEL = "Projector"
PROJECTOR_HELP = ("**Projector** (the bar's toggle), while the tour runs: the pages' text, the “Look at” line, the "
                  f"lesson box, the tables and the drawings' labels {S.PROJECTOR_SCALE:g}× as large, and the pages' grey "
                  "captions (how a figure was made, what a note means) hidden, so the drawings and tables still fit the "
                  "screen.")

#: How much larger projector mode sets the text a class reads (1.2–1.3× asked: 16 px text becomes 20 px).
PROJECTOR_SCALE = S.PROJECTOR_SCALE
_QUIET_CSS = ("""<style>
[data-testid="stMain"] [data-testid="stCaptionContainer"] { display: none; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stMarkdown"] [data-testid="stCaptionContainer"])
  { display: none; }
[data-testid="stMain"] :is([data-testid="stMarkdown"], [data-testid="stAlert"]) [data-testid="stMarkdownContainer"]
  :is(p, li) { font-size: SCALErem; }
.egx-tour-look { font-size: LOOKrem; opacity: 1; -webkit-line-clamp: 3; line-clamp: 3; }
.st-key-egx-tour-lesson [data-testid="stMarkdownContainer"] :is(p, li) { font-size: SCALErem; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stFullScreenFrame"] > [data-testid="stDataFrame"])
  { zoom: SCALE; width: FIT% !important; }
[data-testid="stMain"] [data-testid="stTable"] table { font-size: TABLErem; }
</style>""".replace("LOOK", f"{0.85 * PROJECTOR_SCALE:.4g}").replace("SCALE", f"{PROJECTOR_SCALE:g}")
    .replace("FIT", f"{100 / PROJECTOR_SCALE:.4g}").replace("TABLE", f"{0.875 * PROJECTOR_SCALE:.4g}"))


def projector_scale() -> float:
    """:data:`PROJECTOR_SCALE` while the tour runs in projector mode, else 1: what the drawings scale their labels by
    (:func:`components.graph_view.render_html`, through :func:`components.state.projector_scale`)."""
    return PROJECTOR_SCALE if current() is not None and st.session_state.get(QUIET) else 1.0

#: The bar's look. Its controls keep their whole labels however narrow the main area (audit 58, 1280×720 with the
#: sidebar open: "M…", "Proje…", "L…"): each takes at least its label's width and does not grow, the title takes the
#: rest (cut with an ellipsis where it must, whole in its tooltip), and past that the controls wrap to a second line
#: (a line is filled by the items' least sizes before any shrinks: the title's is small so that it gives way first).
_BAR_CSS = """<style>
[data-testid="stLayoutWrapper"]:has(> .st-key-egx-tour-bar) { position: sticky; top: 0.2rem; z-index: 999989; }
.stApp:has(.st-key-egx-tour-bar) [data-testid="stMain"] h1 { font-size: 2rem; padding: 0.2rem 0 0.35rem; }
.stApp:has(.st-key-egx-tour-bar) [data-testid="stHeader"] { background: transparent; pointer-events: none; }
.stApp:has(.st-key-egx-tour-bar) [data-testid="stHeader"] :is(button, a, [data-testid="stStatusWidget"]) {
  pointer-events: auto; }
.stApp *:has(.st-key-egx-tour-bar), .st-key-egx-tour-bar { background-color: inherit; }
.st-key-egx-tour-bar { padding: 0.35rem 0.75rem; }
.st-key-egx-tour-bar .egx-tour-title { font-size: 0.9rem; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
.st-key-egx-tour-bar button p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.st-key-egx-tour-bar [data-testid="stHorizontalBlock"] { flex-wrap: wrap; row-gap: 0.3rem; }
.st-key-egx-tour-bar [data-testid="stHorizontalBlock"] > :is([data-testid="stColumn"], .stColumn):not(:first-child) {
  min-width: fit-content !important; flex-grow: 0 !important; }
.st-key-egx-tour-bar [data-testid="stHorizontalBlock"] > :is([data-testid="stColumn"], .stColumn):first-child {
  flex: 1 1 8rem !important; min-width: 8rem !important; }
[data-testid="stElementContainer"]:has(.egx-tour-look) { margin-top: -0.6rem; }
.egx-tour-look { font-size: 0.85rem; opacity: 0.85; overflow: hidden; display: -webkit-box; -webkit-box-orient: vertical;
  -webkit-line-clamp: 2; line-clamp: 2; }
.st-key-egx-tour-lesson { padding: 0.5rem 0.9rem; gap: 0.4rem; }
.st-key-egx-tour-lesson [data-testid="stMarkdownContainer"] p { margin-bottom: 0.25rem; }
.st-key-egx-tour-lesson [data-testid="stMarkdownContainer"] li { margin-bottom: 0; padding-bottom: 0; }
.st-key-egx-tour-lesson [data-testid="stExpander"] summary { padding-top: 0.3rem; padding-bottom: 0.3rem; }
</style>"""


def _look_html(step: TourStep, change: str = "") -> str:
    """The step's "Look at" guidance under the bar, its short form (:attr:`TourStep.look_line`) in at most two lines
    (its tooltip and More hold the whole text): a class never opened More, so the guidance has to show by itself
    (an audit found 7 of 11 steps' one line cut with an ellipsis). ``change``: the step's change of question
    (:func:`question_change`), said first."""
    plain = step.look.replace("**", "")
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(step.look_line, quote=False))  # the tour's own bold
    first = f"<b>{html.escape(change)}</b> · " if change else ""
    return f'<div class="egx-tour-look" title="{html.escape(plain)}">{first}<b>Look at:</b> {text}</div>'


def _title_html(t: TourState) -> str:
    """The bar's one-line title: the step and its question (the page's name is the heading above it), with the
    whole step label as its tooltip."""
    i, n = t.step, len(STEPS)
    which = step_label(i).rsplit(" · ", 1)[-1]
    full = f"Guided demo · step {i + 1} of {n}: {step_label(i)}"
    return (f'<div class="egx-tour-title" title="{html.escape(full)}"><b>Guided demo · step {i + 1} of {n}</b> · '
            f"{html.escape(which)}</div>")


def bar(page: str) -> None:
    """The tour's step on ``page`` ("pages/x.py"), drawn under the page title as one line for a projector:
    step n of N with its title, Back, Next, a "More" popover with what the stage does and what to look at, the
    projector-mode toggle and Leave; it sticks under the header while the page scrolls. Under it, at most two lines of what to look at (the whole
    text in More). On a page that is not the current step's: a
    way back to it. Nothing when no tour runs (only the note of a tour just left, once)."""
    _follow()  # a tour button of this run asked for another page: open it before drawing anything here
    _note()
    t = current()
    if t is None:
        _sidebar_follows(False)  # a tour left in projector mode gives the sidebar back
        return
    step = STEPS[t.step]
    n = len(STEPS)
    from components.teaching import INTROS, intro_body

    st.html(_BAR_CSS)
    with st.container(border=True, key=S.sub(S.TOUR, "bar")):
        if step.page != page:
            c0, c1, c2 = st.columns([4, 2, 1], vertical_alignment="center")
            c0.markdown(f"**Guided demo** — paused at step {t.step + 1} of {n}: {md_escape(step_label(t.step))}.")
            c1.button(f"Back to step {t.step + 1}", icon=":material/undo:", key=S.sub(S.TOUR, "resume"),
                      on_click=goto, args=(t.step,), type="primary", width="stretch")
            c2.button("Leave tour", icon=":material/logout:", key=S.sub(S.TOUR, "leave"), on_click=leave,
                      width="stretch")
            return
        last = t.step == n - 1
        # widths from each control's drawn size at 1440 px (the title ~325 px, Next's longest label ~215): with the
        # projector toggle in the bar, Back is its arrow alone (its name in the tooltip) so that More and Leave
        # keep their words (an audit's first draft showed "M…" and "L…")
        c0, c1, c2, c3, c5, c4 = st.columns([6.5, 0.9, 4.3, 2.1, 2.2, 1.9], vertical_alignment="center", gap="small")
        c0.html(_title_html(t))
        c1.button("", icon=":material/arrow_back:", key=S.sub(S.TOUR, "back"), on_click=goto,
                  args=(t.step - 1,), disabled=t.step == 0, width="stretch",
                  help=f"Back to step {t.step}" if t.step else "This is the first step")
        if last:
            c2.button("Finish the tour", icon=":material/flag:", key=S.sub(S.TOUR, "next"), on_click=leave,
                      kwargs={"home": True}, type="primary", width="stretch")
        else:
            c2.button(next_label(t.step), icon=":material/arrow_forward:", key=S.sub(S.TOUR, "next"),
                      on_click=goto, args=(t.step + 1,), type="primary", width="stretch")
            # no tooltip: the pointer stays on Next after a click, and its "Step 4 of 14: …" sat over the next
            # page's title on the projector (an audit); the label names the page
        with c3.popover("More", icon=":material/menu_book:", width="stretch"):
            p = get_paper(step.paper)
            st.markdown(f"**What this stage does** ({md_escape(step.section)}): {md_escape(step.what)}")
            st.markdown(f"**Look at:** {step.look}")  # the tour's own text: its bold marks are meant
            how = ("replayed from recorded runs of the real local model (no model runs now)" if step.llm == LLM else
                   "run now without an LLM (LLM “none” in the sidebar for this step; Next puts the recorded LLM back)")
            st.caption(f"Question: {md_escape(step.question)} · {how} · paper: [{md_escape(p.key)} "
                       f"{md_escape(step.section)}]({p.url})")
            st.caption(PROJECTOR_HELP)
            if page in INTROS:  # the page's own intro, which it leaves to this bar during the tour
                st.markdown("**About this page**")
                intro_body(page)
        # in the bar, not in More: a popover stays open after a click in it, and an audit's lecturer found More's
        # text over Compare's table after turning projector mode on there (the page would not scroll under it)
        # no "?" beside it (the bar has no room for one): More says what it does (PROJECTOR_HELP)
        S.keep(QUIET, c5.toggle(PROJECTOR_LABEL, key=S.bind(QUIET, False, scope=page)))
        c4.button("Leave", icon=":material/logout:", key=S.sub(S.TOUR, "leave"), on_click=leave,
                  width="stretch", help="Leave the tour: your own workspace, LLM and models come back")
        off = _off_course(t)
        if off:
            st.warning(f"The sidebar's {', '.join(off)} changed since this step opened, so this page may not "
                       "show the recorded run; Next (or Back) puts the tour's choices back.",
                       icon=":material/warning:")
    st.html(_look_html(step, question_change(t.step)))  # under the bar, not in it: the sticky bar stays one line
    if st.session_state.get(QUIET):  # after the bar's toggle stored this run's choice
        st.html(_QUIET_CSS)
    _sidebar_follows(bool(st.session_state.get(QUIET)))


#: What the sidebar last did for projector mode (:func:`_sidebar_follows`).
_SIDEBAR_SEEN = S.sub(S.TOUR, "sidebar-folded")
#: Fold the sidebar (True) or open it again (False), clicking Streamlit's own button, as a user would (so that its »
#: opens it again at will); tried for a second while the page draws.
_SIDEBAR_JS = {fold: """<script>(() => { let n = 0; const go = () => {
  const bar = document.querySelector('[data-testid=stSidebar]');
  const open = !!bar && bar.getAttribute('data-collapsed') === 'false';
  const b = document.querySelector(OPEN ? '[data-testid=stSidebarCollapseButton] button'
                                        : '[data-testid=stExpandSidebarButton]');
  if (open === OPEN && b) { b.click(); return; }
  if (++n > 10) return; setTimeout(go, 100); }; setTimeout(go, 50); })();</script>"""
    .replace("OPEN", "true" if fold else "false") for fold in (True, False)}


def _sidebar_follows(quiet: bool) -> None:
    """Fold the sidebar when projector mode turns on, open it when it turns off (or the tour ends with it on), once
    each: at 1440×900 the sidebar's 290 px cut Compare's table at its fifth row on a projector (an audit). The sidebar's
    own » opens it meanwhile; the tour sets its choices itself."""
    seen = bool(st.session_state.get(_SIDEBAR_SEEN, False))
    if quiet != seen:
        st.session_state[_SIDEBAR_SEEN] = quiet
        st.html(_SIDEBAR_JS[quiet], unsafe_allow_javascript=True)


# ------------------------------------------------------------------------------------------ lessons
#: The methods as a class knows them (the papers' names), for the lessons' text: "bubblerag's ranking" read as code
#: where every page says "BubbleRAG". Registry titles are too long for a sentence ("Dense passage retrieval
#: (NaiveRAG)"); a method not listed here is called by its title.
SHORT_NAMES = {"dense": "Naive RAG", "rerank": "Re2", "ppr": "HippoRAG PPR", "hipporag2": "HippoRAG 2",
               "fastinsight": "FastInsight", "bubblerag": "BubbleRAG", "sgrag": "SG-RAG", "reg": "ReG"}


def short_name(method: str) -> str:
    """What a table calls ``method`` (a registry name): the papers' name the lessons use ("Naive RAG" for ``dense``),
    else its registry name (a method without a short name: its title would not fit a column)."""
    return SHORT_NAMES.get(method, method)


def display_name(method: str) -> str:
    """The name a lesson calls ``method`` (a registry name) by."""
    from core.methods.registry import METHODS

    return SHORT_NAMES.get(method) or (METHODS[method].title if method in METHODS else method)


def step_lesson(question: str, results: Mapping[str, Any], questions: Sequence[Any], graph: Any,
                extractive: Any | None = None, *, model: str = "The recorded 1.5B model") -> Lesson | None:
    """What the runs ``results`` (method → result) of ``question`` teach (:mod:`core.eval.lesson`): None when
    the workspace's ``questions`` give it no gold answer. ``graph`` gives the passages' titles and texts;
    ``extractive`` is the ``none``-mode result shown beside them; ``model`` who wrote the answers."""
    from core.eval.lesson import ShownRun, lesson
    from core.graph.model import passage_label
    from core.methods.answering import context_of
    from core.methods.base import Gold

    q = next((x for x in questions if getattr(x, "question", None) == question), None)
    if q is None:
        return None
    gold = Gold.from_question(q)
    if not gold.answers or not results:
        return None

    def shown(method: str, r: Any) -> ShownRun:
        chunks = [graph.chunk(c.chunk_id) for c in r.ranked_chunks if c.chunk_id in graph.chunk_index]
        ctx = context_of(r)  # the passages the answer was read from: a gold passage at rank 7 may be outside them
        ranked = {c.id for c in chunks}
        # and it may hold passages the method did not rank (ReG reads its chains' source passages): their texts,
        # so a wrong answer read from one is traced to it
        # each passage by its title, with its place where the title is several passages ("… (2 of 4)")
        unranked = () if ctx is None else tuple(
            (c.id, passage_label(graph, c.id), c.text) for c in (graph.chunk(cid) for cid in ctx.chunk_ids
                                                                  if cid in graph.chunk_index and cid not in ranked))
        return ShownRun(display_name(method), str(r.answer or ""),
                        tuple((c.id, passage_label(graph, c.id), c.text) for c in chunks),
                        None if ctx is None else ctx.chunk_ids, unranked)

    titles = {c: passage_label(graph, c) for c in gold.chunk_ids if c in graph.chunk_index}
    return lesson(question, [shown(m, r) for m, r in results.items()], gold.chunk_ids, gold.answers,
                  extractive=shown(str(getattr(extractive, "method", EXTRACTIVE_METHOD)), extractive)
                  if extractive is not None else None, titles=titles,
                  model=model)


def merged_lookalikes(question: str, result: Any) -> list[tuple[str, str, str]]:
    """The anchor groups of a BubbleRAG run (``result.groups``, its typed
    :class:`~core.methods.bubblerag.grouping.AnchorGroups`) that merged an entity the question names with a look-alike
    it does not name ("Lothair II / Lothair I" for Lothair II): (the group's concept, the named entity, the other).
    Such a group grows its bubbles from both, so the look-alike's passages compete with the named entity's."""
    out: list[tuple[str, str, str]] = []
    groups = getattr(getattr(result, "groups", None), "groups", None) or ()
    for g in groups:
        concept = str(g.concept)
        names = [n.strip() for n in concept.split(" / ") if n.strip()[:1].isupper()]
        named = [n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?![\w])", question)]
        for n in named:
            head = n.split()[0]
            other = next((m for m in names if m not in named and m.split()[0] == head), None)
            if other:
                out.append((concept, n, other))
                break
    return out


def _lookalike_line(question: str, results: Mapping[str, Any]) -> str:
    """The lesson's line on an anchor group of the tour's method that merged the question's entity with a look-alike
    ("" when its run merged none)."""
    r = results.get(EXTRACTIVE_METHOD)
    found = merged_lookalikes(question, r) if r is not None else []
    if not found:
        return ""
    concept, named, other = found[0]
    return (f"Why {display_name(EXTRACTIVE_METHOD)} could read the wrong entity's facts: its anchor grouping merged "
            f"“{named}” and “{other}” into one group (“{concept}”), so its bubbles grew from both and passages about "
            f"{other} reached the answer step beside those about {named}.")


#: page ("pages/x.py") → (question, on the tour's step) of the lesson that page drew last in its slot: what the page
#: still shows there on its next run until the lesson is drawn again, further down the script (Streamlit keeps a
#: container's children of the previous run in view until they are redrawn)
LESSON_SHOWN = S.sub(S.TOUR, "lesson_shown")


def _lesson_step(page: str, question: str | None) -> bool:
    """Whether the lesson of ``question`` on ``page`` is the current tour step's, drawn open: the step is on ``page``,
    has a lesson, and the page runs the step's question (a question picked instead gets the folded lesson of off the
    tour: the step's lesson is about the step's question)."""
    t = current()
    return (t is not None and STEPS[t.step].page == page and STEPS[t.step].lesson
            and (question is None or question == STEPS[t.step].question))


def _running_what(page: str) -> str:
    """Who runs on ``page`` while its lesson waits: "the methods" on Compare, else the step's paper's method."""
    if page == "pages/compare.py":
        return "the methods"
    t = current()
    return STEPS[t.step].paper if t is not None and STEPS[t.step].page == page else "the method"


class LessonSlot:
    """The place atop a page for its lesson (:func:`lesson_slot`), and what it shows until the lesson is drawn.

    A lesson must only ever be shown for the question on screen. The slot is a container that keeps, on the page's
    next run, the lesson of its previous run until the lesson is drawn again, after the runs further down the page:
    an audit found step 17's Compare showing step 16's lesson on “When did Lothair II's mother die?”, not greyed,
    above the second-wife question while its eight runs were in flight. :meth:`expect` tells the slot which question
    the page now runs: a lesson in view of another question (or of the tour's open box where the folded one comes) is
    replaced at once — on the tour's step by a box saying the lesson follows, off it by nothing; the lesson of the
    same question stays in view until it is redrawn (no flicker on a rerun)."""

    def __init__(self, page: str, box: Any) -> None:
        self.page = page
        self.box = box
        self._held: Any | None = None  #: an ``st.empty`` in the box, once the box's old content was replaced
        self._expected: tuple[str, bool] | None = None

    @property
    def target(self) -> Any:
        """Where the lesson is drawn: the placeholder when one was put in the box, else the box (the same place)."""
        return self._held if self._held is not None else self.box

    def expect(self, question: str) -> None:
        """The page now runs ``question``: see the class."""
        on_step = _lesson_step(self.page, question)
        if self._expected == (question, on_step):
            return
        self._expected = (question, on_step)
        shown = st.session_state.get(LESSON_SHOWN, {}).get(self.page)
        if self._held is None and shown == (question, on_step):
            return  # the lesson in view is this question's: kept until it is drawn again
        if self._held is None:
            self._held = self.box.empty()
        if on_step:
            with self._held.container(border=True):
                st.markdown(f":material/hourglass_top: {running_note(self.page, question)}")
        else:
            self._held.empty()

    def drawn(self, question: str, on_step: bool) -> None:
        """The lesson of ``question`` is drawn in the slot (open on the tour's step, else folded)."""
        st.session_state.setdefault(LESSON_SHOWN, {})[self.page] = (question, on_step)

    def clear(self) -> None:
        """No lesson on this run: the slot shows nothing (neither the previous run's lesson nor the note that the
        lesson follows)."""
        st.session_state.get(LESSON_SHOWN, {}).pop(self.page, None)
        self.target.empty()


def running_note(page: str, question: str) -> str:
    """What the lesson box atop ``page`` says while the runs of ``question`` are in flight."""
    return f"Running {_running_what(page)} on “{md_escape(question)}” — the lesson follows."


def expect_lesson(slot: LessonSlot | None, question: str) -> None:
    """:meth:`LessonSlot.expect` (nothing without a slot): a page calls it once it knows its question, before its
    runs."""
    if slot is not None:
        slot.expect(question)


def clear_lesson(slot: LessonSlot | None) -> None:
    """:meth:`LessonSlot.clear` (nothing without a slot): a page that stops before its runs, or has none to read."""
    if slot is not None:
        slot.clear()


def lesson_slot(page: str) -> LessonSlot | None:
    """A place under the bar for the lesson of the current step when it is on ``page``, and for the folded lesson of
    a page of :data:`LESSON_PAGES` off the tour (None otherwise): Compare's lesson, read from runs that finish further
    down the page, is shown there, at the top — under its table it lay below the fold of a 1440×900 projector
    (:func:`lesson_ui` fills it); off the tour it was folded below both tables, so an audit found it in one place on
    the tour and another off it. On the step the slot at once expects the step's question (:meth:`LessonSlot.expect`):
    the previous step's lesson on the same page never stands above the new question."""
    t = current()
    step_here = t is not None and STEPS[t.step].page == page and STEPS[t.step].lesson
    if not step_here and page not in LESSON_PAGES:
        return None
    slot = LessonSlot(page, st.container())
    if step_here:
        assert t is not None
        slot.expect(STEPS[t.step].question)
    return slot


def settings_box(page: str) -> Any:
    """Where ``page`` draws its question and settings: on the current step's page, folded under one line that names
    the question (the tour set them; the lesson and what its Look-at line names come first — an audit found GRanker's
    two rankings, SG-RAG's query graph and ReG's chains under a 900-px fold, below the controls); else in place."""
    t = current()
    if t is None or STEPS[t.step].page != page:
        return st.container()
    return st.expander(f"Question and settings, as the tour set them: “{md_escape(STEPS[t.step].question)}”",
                       icon=":material/tune:", key=S.sub(S.TOUR, "settings"))


#: The pages that show their lesson off the tour too (folded), on a question with a gold answer: Ask and Compare, whose
#: lessons read only the runs the page made (an audit found a lecturer opening Compare directly got none), and the
#: other papers' pages, whose own lessons read their one run (an audit moved GRanker's α off the tour and got no
#: rank-move summary).
LESSON_PAGES = ("pages/bubble_ask.py", "pages/compare.py", "pages/granker.py", "pages/subgraph.py",
                "pages/evidence_chains.py", "pages/hipporag2.py")


@st.cache_resource(show_spinner=False)
def _extractive_runs() -> set[tuple[str, str, str]]:
    """(workspace key, backends, question) of the ``none``-mode runs a lesson made: off the tour a lesson shows the
    extractive answer only when its run is one of these (cached), never starting one."""
    return set()


NONE_ANSWERER = "Without an LLM, the extractive answer step"


def _model_name(llm: str, results: Mapping[str, Any] | None = None) -> str:
    """Who wrote the answers, for the lesson's answer line: the recorded LLM only where it held a run of the question
    (on a workspace it holds none of, every run is a ``none``-mode one, and an audit read "The recorded 1.5B model
    answered" beside the notice that no LLM ran)."""
    from core.methods.run import is_unanswered

    if llm == LLM:
        missing = [is_unanswered(r.trace) for r in (results or {}).values()]
        if missing and all(missing):
            return f"{NONE_ANSWERER} (the recorded LLM holds no run of this question)"
        if any(missing):
            return "The recorded 1.5B model (where it holds a run of this question; the other methods without an LLM)"
        return "The recorded 1.5B model"
    if llm == "none":
        return NONE_ANSWERER
    return f"The LLM “{llm}”"


def lesson_ui(page: str, act: Any, results: Mapping[str, Any], *, where: LessonSlot | None = None,
              question: str | None = None, own: Callable[[Sequence[str]], list[str]] | None = None,
              extractive: str = EXTRACTIVE_METHOD) -> None:
    """What the runs shown on ``page`` teach, read from them (:func:`step_lesson`), in ``where`` (a
    :func:`lesson_slot`) or here, under the page's main element.

    On a lesson step of the tour it is open: where the gold passages ranked and whether the answer read them, why a
    wrong answer is wrong, and the ``none``-mode answer of the tour's method beside it. ``own`` (the other papers'
    pages) gives the lines on the page's own method instead, from the gold answers: how GRanker moved the gold
    nodes, which UNK the SG-RAG answer came from, which chain ReG's did; the answer against the gold answer and why
    it is wrong follow, and no BubbleRAG line. ``extractive``: whose ``none``-mode answer is quoted beside the LLM's
    (the tour's method, BubbleRAG; HippoRAG 2's page its own). Off the tour (or on another step), the pages of :data:`LESSON_PAGES`
    show the lesson of ``question`` folded, when the workspace gives it a gold answer; the extractive answer only
    when its run is cached (no run is started for it). Nothing elsewhere. On the tour's step the lesson is the step
    question's; a question picked on the step's page instead gets the folded one. A slot whose lesson is not drawn
    is cleared (:meth:`LessonSlot.clear`): it shows no other question's lesson, nor that the lesson follows."""
    from components import resources, runs, workspaces
    from core.errors import EgxError
    from core.methods.registry import METHODS

    if not results:
        clear_lesson(where)
        return
    t = current()
    on_step = _lesson_step(page, question)
    if on_step:
        assert t is not None
        asked = STEPS[t.step].question
    elif page in LESSON_PAGES and question:
        asked = question
    else:
        clear_lesson(where)
        return
    try:
        questions = resources.workspace_questions(act.workspace, act.key)
        if not any(getattr(x, "question", None) == asked and getattr(x, "answer", "") for x in questions):
            clear_lesson(where)
            return  # no gold answer: nothing to read the runs against
        graph = workspaces.whole_graph_if_it_fits(act.workspace, "the lesson on these runs")
        if graph is None:
            clear_lesson(where)
            return
        ext = None
        seen = (act.key, json.dumps(act.backends.names(), sort_keys=True, default=str), asked, extractive)
        model = _model_name(act.llm_name, results)
        if own is None and not model.startswith(NONE_ANSWERER) and (on_step or seen in _extractive_runs()):
            try:  # the extractive answer of the tour's method, LLM off: what the passages say without a model
                none = dataclasses.replace(act.backends, llm=resources.llm("none"))
                ext = runs.method_run(METHODS[extractive], act.workspace, act.key, none, asked, defer=True)
                _extractive_runs().add(seen)
            except EgxError:  # (PreparationPending is one) the lesson stands without it
                ext = None
        found = step_lesson(asked, results, questions, graph, ext, model=model)
        if found is None:
            clear_lesson(where)
            return
        if own is not None:
            lines = [*own(found_gold(asked, questions)), found.answer_line(), *found.why_lines()]
        else:
            lines = found.lines()
    except EgxError as exc:
        clear_lesson(where)
        (where.target if where is not None else st).caption(
            f"The lesson on these runs could not be read from them: {md_escape(str(exc))}")
        return
    merged = _lookalike_line(asked, results) if own is None else ""
    if merged:  # after where the evidence is and who answered what: the stage where the wrong facts came in
        lines.insert(2, merged)
    # the question itself heads the lesson: on Compare it sits under the lesson, and the bar names it in two words
    # ("second-wife question"), so a class read the lesson before it saw the question (an audit)
    title = f"**What these runs teach** on “{md_escape(asked)}”"
    # the lesson in one line before its details (an audit's lecturer read 3–4 dense lines per bullet); a page with its
    # own lesson (GRanker's nodes, SG-RAG's matches, ReG's chains) gives its own, if any: its lines are about what it
    # retrieves, which the passages' headline could contradict (ReG reads passages it ranks below the top 5)
    said = found.headline() if own is None else str(getattr(own, "headline", ""))
    headline = f"**{md_escape(said)}**\n\n" if said else ""
    if where is not None:
        where.drawn(asked, on_step)
    if not on_step:  # off the tour: folded, under what the page shows
        with (where.target if where is not None else st).expander("What these runs teach", icon=":material/school:"):
            st.markdown(headline + "\n".join(f"- {md_escape(line)}" for line in lines))
        return
    # atop Compare the lesson is compact — where the evidence is and the answers, the rest folded — so the summary
    # table under it starts above the fold of a 1440×900 projector; elsewhere it is whole
    head, rest = (lines[:2], lines[2:]) if where is not None else (lines, [])
    assert t is not None
    # atop Compare the question and the headline share one paragraph: on their own lines the Lothair step's lesson
    # pushed the table's eighth row below a projector's fold (audit 46)
    top = f"{title} — {headline}" if where is not None and headline else f"{title}\n\n{headline}"
    with (where.target if where is not None else st).container(border=True, key=S.sub(S.TOUR, "lesson")):
        st.markdown(top + "\n".join(f"- {md_escape(line)}" for line in head))
        if rest:
            why = found.why_lines()
            # an answer that holds the gold inside a sentence is partly right, not wrong: audit 47 read "Why the wrong
            # answers are wrong" over SG-RAG's right none-mode sentence on the Lothair step
            partly = bool(why) and all(r.right or r.match.partly_right for r in found.runs)
            # ... and one that holds the whole gold answer in a sentence is not "only partly" right either: audit 53
            # read "why the answer is only partly right" over SG-RAG's "She … died on 20 March 851 …"
            holds = bool(why) and all(r.right or r.match.kind == "contains" for r in found.runs)
            if own is not None:  # a page with its own lesson shows no answer: the fold holds the rest of its lines,
                # then the method's answer (audit 48 read "Why the wrong answers are wrong" on GRanker's rankings)
                label = ("More, and how the answer holds the gold answer" if holds else
                         "More, and why the answer is only partly right" if partly else
                         "More, and why the answer is wrong" if why else "More, and the answer")
            else:
                label = (f"{HOLDS_LABEL}, and what none mode quotes" if holds else
                         f"{PARTLY_LABEL}, and what none mode quotes" if partly else
                         f"{WRONG_LABEL}, and what none mode quotes" if why else
                         "What none mode (no LLM) quotes" if found.extractive is not None else "More")
            # one per step: opened on step 13 it stayed open on step 14 (the same page), pushing that step's table
            # below a projector's fold (an audit)
            with st.expander(label, key=S.sub(S.TOUR, f"why-{t.step}")):
                st.markdown("\n".join(f"- {md_escape(line)}" for line in rest))


#: The folded part of a lesson: why the wrong answers are wrong, or — where every answer holds the gold — why they count
#: only as partly right (an exact match is what EM scores).
WRONG_LABEL = "Why the wrong answers are wrong"
PARTLY_LABEL = "Why the answers are only partly right"
HOLDS_LABEL = "How the answers hold the gold answer"  #: every answer holds the whole gold answer in a longer text


def found_gold(question: str, questions: Sequence[Any]) -> tuple[str, ...]:
    """The gold answer of ``question`` (then its aliases) among the workspace's ``questions`` (() when none)."""
    from core.methods.base import Gold

    q = next((x for x in questions if getattr(x, "question", None) == question), None)
    return () if q is None else Gold.from_question(q).answers


def granker_lesson(rows: Sequence[Any], alpha: float, *, nodes: bool) -> Callable[[Sequence[str]], list[str]]:
    """The GRanker page's own lesson (:func:`core.eval.method_lessons.granker_lines`) from the rows of its two rankings
    (:class:`core.methods.fastinsight.views.RankRow`) at the page's α."""
    from core.eval.method_lessons import granker_headline, granker_lines

    shown = [(str(r.title), int(r.plain_rank), int(r.granker_rank), bool(r.gold)) for r in rows]
    unit = "node" if nodes else "passage"
    return OwnLesson(lambda _gold: granker_lines(shown, alpha, unit=unit), granker_headline(shown, alpha, unit=unit))


class OwnLesson:
    """A page's own lesson lines (:func:`lesson_ui`'s ``own``: called with the gold answers) and, where the page has
    one, the headline a class reads first."""

    def __init__(self, lines: Callable[[Sequence[str]], list[str]], headline: str = "") -> None:
        self._lines, self.headline = lines, headline

    def __call__(self, gold: Sequence[str]) -> list[str]:
        return self._lines(gold)


def sgrag_lesson(result: Any, graph: Any) -> Callable[[Sequence[str]], list[str]]:
    """The SG-RAG page's own lesson (:func:`core.eval.method_lessons.sgrag_lines`) from its run: the query graph, the matched
    subgraphs' bindings (query node → graph node name) and the answer."""
    from core.eval.method_lessons import QueryNode, sgrag_lines

    qg = result.query_graph
    nodes = [QueryNode(n.id, n.label, n.description) for n in qg.nodes]
    names = graph.node_names
    subgraphs = [{q: str(names[v]) for q, v in sg.mapping} for sg in result.assembly.subgraphs]
    detail = getattr(result, "answer_detail", None)  # the match the answer was read from, and the pick's rule
    read_from = getattr(detail, "subgraph", None)
    pick = getattr(detail, "pick", None)
    # who chose the answer: the LLM, or (without one, or where its answer was unusable) the no-LLM rule; audit 57's
    # no-LLM step spoke of "the model"
    chooser = "the model" if getattr(detail, "by", "") == "llm" and not _no_llm(result) else "the rule"
    return lambda gold: sgrag_lines(nodes, qg.edges, subgraphs, str(result.answer or ""), gold,
                                    fallback=bool(result.assembly.fallback), read_from=read_from,
                                    rule=_short_rule(pick), question=str(result.query or ""), chooser=chooser)


def _no_llm(result: Any) -> bool:
    """Whether ``result`` ran without an LLM: LLM ``none``, or the recorded LLM on a question it holds no run of."""
    from core.methods.run import is_unanswered

    trace = getattr(result, "trace", None)
    label = str((getattr(trace, "backends", None) or {}).get("llm", ""))
    return label.startswith("none") or is_unanswered(trace)


def _short_rule(pick: Any) -> str:
    """The sentence pick's rule for a lesson line: its reranker named without its model card (the whole rule names
    the model's files, a line too long to read out), and without its bridges and re-read questions: the line names
    the bridge's binding already, and with them it was the tour's densest line on a projector (audit 52); the page's
    answer section gives them."""
    if pick is None:
        return ""
    parts = [p.strip() for p in str(pick.trace_data().get("rule") or "").split(";") if p.strip()]
    if not parts:
        return ""
    scorer = re.search(r"reranker (\S+)", parts[0])
    return f"the reranker {scorer.group(1)}'s score against the question" if scorer else parts[0]


def reg_lesson(result: Any) -> Callable[[Sequence[str]], list[str]]:
    """The ReG page's own lesson (:func:`core.eval.method_lessons.reg_lines`) from its run's evidence chains, in prompt
    order (none from a method without chains: its answer line and why it is wrong stand alone)."""
    from core.eval.method_lessons import reg_lines

    if getattr(result, "reorganization", None) is None:
        return lambda _gold: []
    chains = [(c.from_root(), tuple(e for ents in c.entities for e in ents), c.merged_answers)  # as the page draws them
              for c in result.reorganization.chains]
    chooser = "the rule" if _no_llm(result) else "the model"  # no model's choice without an LLM (audit 57)
    return lambda gold: reg_lines(chains, str(result.answer or ""), gold, chooser=chooser)


def home_panel() -> None:
    """Home's "Guided demo" box: start the tour (or resume / leave a running one); the note of a tour just left is
    drawn under Home's title (:func:`notice`)."""
    _follow()
    t = current()
    with st.container(border=True, key=S.sub(S.TOUR, "home")):
        st.subheader("Guided demo")
        st.markdown("For a class: BubbleRAG's pipeline one stage per click — anchor grouping, bubble expansion, "
                    "ranking and reasoning, the answer, the HippoRAG 2 baseline, then every method compared — on the "
                    "paper's Keanu Reeves question, with FastInsight's GRanker, SG-RAG's subgraph matching and ReG's "
                    "evidence chains on it too; then GRanker on FastInsight's own example (“Find an ML expert.”), "
                    "SG-RAG without an LLM (its rule-based query graph finds the answer) and BubbleRAG's pages on "
                    "“When did Lothair II's mother die?”, and last every method on a third question; under each answer, what the runs teach: where the gold passages ranked, where a "
                    "wrong answer came from, what none mode (no LLM) quotes.")
        st.caption("It switches to the demo workspace and the recorded LLM (real runs of the local "
                   "Qwen2.5-Coder-1.5B model, replayed instantly, with the models they were recorded with). "
                   "Leaving the tour puts your workspace, LLM and models back. On a freshly started server the "
                   "first steps take a few seconds more while those models load (this page starts loading them).")
        # an audit's lecturer: the class sees the papers' own examples answered wrongly and "the lecturer must
        # pre-frame it" — the app says it first
        # (an audit: "wrong in every method" overstated it, five methods giving Lothair's year "851" without the day)
        st.caption(":material/info: The papers' two examples are hard for a 1.5B model: no method's answer to them "
                   "is the gold one (on Lothair II's mother some give the right year without the day). The tour uses "
                   "them to show what each stage does and, under each answer, where the evidence was found or lost and "
                   "where the wrong name came from; the last step is a question the same model answers right in most "
                   "methods.")
        if t is None:
            st.button("Start the guided demo", icon=":material/tour:", key=S.sub(S.TOUR, "start"), on_click=start,
                      type="primary")
        else:
            st.markdown(f"Running: step {t.step + 1} of {len(STEPS)} — {md_escape(step_label(t.step))}.")
            c1, c2 = st.columns(2)
            c1.button(f"Resume at step {t.step + 1}", icon=":material/play_arrow:", key=S.sub(S.TOUR, "resume"),
                      on_click=goto, args=(t.step,), type="primary", width="stretch")
            c2.button("Leave tour", icon=":material/logout:", key=S.sub(S.TOUR, "leave"), on_click=leave,
                      width="stretch")
