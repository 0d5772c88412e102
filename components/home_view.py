"""The Home page's panels: what the app is, the four methods and the baseline with their papers, every page of the
navigation with what it shows (a registered method's page included, with no edit here), and the active workspace
at a glance."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from components import resources
from components.navigation import entries, page_path
from components.ui import md_escape
from core.graph.reader import question_graph, whole_graph_read
from core.papers import get_paper

if TYPE_CHECKING:
    from components.sidebar import Active

#: The four methods: (paper key of core.papers, section, what it does).
METHODS = [
    ("BubbleRAG", "§3",
     "Groups query keywords into anchors, grows cost-guided 'bubbles' from every group over the graph "
     "until they collide into candidate evidence graphs (CEGs), ranks them and expands the best ones "
     "hop by hop."),
    ("FastInsight", "§3",
     "Vector search, then GRanker re-scores passages with reranker features smoothed over the graph, "
     "and STeX adds structurally important neighbours in batches."),
    ("SG-RAG", "§4",
     "Structure Guided RAG for Factual Queries: turns the question into a small query graph with unknown "
     "targets and matches it into the KG path by path with an R*-tree over learned dominance embeddings."),
    ("ReG", "§4",
     "Reorganizes any retrieved set of triples into evidence chains an LLM can follow, so the answer "
     "step sees reasoning paths instead of a bag of facts."),
]

#: The baseline BubbleRAG (Table 2) and FastInsight (Table 3) compare against (paper key "HippoRAG 2").
BASELINE = ("Links the question to KG facts, lets the LLM keep the relevant ones and runs personalized PageRank over "
            "phrases and passages together; beside it, dense retrieval, Re2 and HippoRAG (v1) PPR.")

#: What each page of the navigation (components/navigation.SECTIONS) shows; every page is listed, and
#: every one works (a test checks both).
PAGES = {
    "pages/home.py": "this overview",
    "pages/data.py": "pick or upload a workspace, see its statistics, search and draw the graph, inspect nodes with "
                     "their source passages, export JSON / GraphML",
    "pages/bubble_anchors.py": "step through keywords, specialization, relaxation, candidates and weighted anchor "
                               "groups",
    "pages/bubble_expansion.py": "watch bubbles expand frame by frame and collide into candidate evidence graphs",
    "pages/bubble_ranking.py": "re-rank CEGs live with α and n (AND / OR / compare) and follow the reasoning-aware "
                               "expansion hop by hop",
    "pages/bubble_ask.py": "the answer with its evidence graph, triples, source passages, per-stage latency and "
                           "tokens; export and reload traces",
    "pages/granker.py": "compare FastInsight's graph-aware reranking with plain reranking, replay the STeX loop "
                        "round by round",
    "pages/subgraph.py": "inspect SG-RAG's query graph against each matched subgraph, with the node mapping and the "
                         "dominance model",
    "pages/evidence_chains.py": "raw triples vs ReG evidence chains with token counts, the supervision pool and the "
                                "training curves",
    "pages/hipporag2.py": "step through HippoRAG 2, the baseline the papers compare against: linked facts, the LLM's "
                          "fact filter, seeds, where the PageRank mass goes, ranked passages and the answer",
    "pages/compare.py": "every method on one question side by side, with where each one lost the gold evidence",
    "pages/benchmark.py": "run every method on the workspace's questions: Recall@k charts and the failure diagnosis "
                          "per question",
    "pages/papers.py": "each paper's main table as it prints it, beside our figures under its protocol, with "
                       "intervals, blanks' reasons and every difference of setting; re-run it on your workspace",
}


def what_it_is() -> None:
    """The app in one paragraph."""
    st.markdown(
        "Explore **evidence graphs in graph RAG**: load a corpus or a knowledge graph, ask a question, and "
        "watch the retrieval algorithms of four recent papers work on it — every step inspectable, every "
        "method comparable on the same question, and when retrieval fails, the stage where the gold "
        "evidence was lost."
    )


def page_summary(page: str) -> str:
    """What ``page`` shows: :data:`PAGES`, or for a method's own page the first sentence of its intro
    (``Method.intros``), or its method's title."""
    from core.methods.registry import METHODS

    if page in PAGES:
        return PAGES[page]
    for m in METHODS.values():
        if page in m.intros:
            return m.intros[page].text[0]
    return next((m.title for m in METHODS.values() if m.page == page), "")


def methods_and_pages() -> None:
    """The four methods and the baseline with their papers, then every page of the navigation."""
    st.subheader("The four methods")
    for key, section, summary in METHODS:
        p = get_paper(key)
        st.markdown(f"**{key}** — {summary}  \n"
                    f"[{md_escape(p.title)}]({p.url}) · {md_escape(p.short_authors)}, {p.year}, "
                    f"{md_escape(p.venue)}, arXiv {p.arxiv}, {section}")
    base = get_paper("HippoRAG 2")
    st.markdown(f"**Baseline: HippoRAG 2** — {BASELINE}  \n"
                f"[{md_escape(base.title)}]({base.url}) · {md_escape(base.short_authors)}, {base.year}, "
                f"{md_escape(base.venue)}, arXiv {base.arxiv}, §3")
    st.subheader("Pages")
    for section, path, title, _icon in entries():
        st.markdown(f"- **{md_escape(section + ': ' + title if section not in ('Explore', 'Evaluate') else title)}**"
                    f": {md_escape(page_summary(path))}")
    st.page_link(page_path("pages/data.py"), label="Open the Data page", icon=":material/hub:")


def workspace(act: Active) -> None:
    """The active workspace: title, description, counts (a graph store: counts only, nothing loaded) and source."""
    ws = act.workspace
    g = question_graph(ws)
    st.subheader("Active workspace")
    st.markdown(f"**{md_escape(ws.title)}**")
    if ws.description:
        st.caption(md_escape(ws.description))
    c1, c2, c3 = st.columns(3)
    c1.metric("Nodes", f"{g.n_nodes:,}")
    c2.metric("Edges", f"{g.n_edges:,}")
    c3.metric("Chunks", f"{g.n_chunks:,}")
    if whole_graph_read(ws):  # relations, components and degrees would read the whole graph
        st.caption("The graph lives in a graph store: the home page reads only its counts. The Data page shows "
                   "the rest of its statistics.")
    else:
        stats = resources.graph_stats(g, act.key)
        c1.metric("Relations", f"{stats['relations']:,}")
        c2.metric("Components", f"{stats['components']:,}")
        c3.metric("Mean degree", f"{stats['mean_degree']:.2f}")
    attribution = ws.meta.attribution
    if attribution:
        st.caption("Source: " + md_escape(attribution))
