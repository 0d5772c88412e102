"""The app's pages, declared once for ``st.navigation`` (:func:`components.frame.run_app` runs them).

Every page is listed here by its path under ``pages/`` (``st.navigation`` does not discover that
folder). A registered method whose step-through page (``Method.page``) is not listed gets an entry
under "Methods", so a new method needs its package and its page file, nothing here.

Paths are absolute: ``st.Page`` and ``st.switch_page`` resolve a relative path against the entry
script's folder, and the app is also run from an entry script elsewhere (the AppTest entry of
``tests/app``); an absolute path names the same file from anywhere.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[1]

#: Section → (page path, title, icon, url path); the first page is the default one. URL paths equal
#: the file names (a deep link names the file, on the first run of a fresh server too).
SECTIONS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "Explore": (("pages/home.py", "Home", ":material/home:"),
                ("pages/data.py", "Data", ":material/hub:")),
    "BubbleRAG": (("pages/bubble_anchors.py", "Anchor grouping", ":material/label:"),
                  ("pages/bubble_expansion.py", "Bubble expansion", ":material/bubble_chart:"),
                  ("pages/bubble_ranking.py", "Ranking and reasoning", ":material/leaderboard:"),
                  ("pages/bubble_ask.py", "Ask", ":material/question_answer:")),
    "FastInsight": (("pages/granker.py", "GRanker vs plain reranking", ":material/swap_vert:"),),
    "SG-RAG": (("pages/subgraph.py", "Subgraph matching", ":material/account_tree:"),),
    "ReG": (("pages/evidence_chains.py", "Evidence chains", ":material/linear_scale:"),),
    "Baselines": (("pages/hipporag2.py", "HippoRAG 2", ":material/psychology:"),),
    "Evaluate": (("pages/compare.py", "Compare methods", ":material/compare:"),
                 ("pages/benchmark.py", "Benchmark", ":material/analytics:"),
                 ("pages/papers.py", "Papers", ":material/menu_book:")),
}
HOME = "pages/home.py"
#: The browser tab's icon, served by the app itself: a ``:material/…:`` page icon makes the browser fetch
#: the favicon from fonts.gstatic.com, which an offline app must never do.
FAVICON = ROOT / "assets" / "favicon.png"
TITLE = "Evidence Graph Explorer"


def page_config() -> None:
    """``st.set_page_config`` with the local favicon: called before every ``st.navigation``, so the
    navigation never puts a page's material icon (a fonts.gstatic.com URL) into the browser tab."""
    st.set_page_config(page_title=TITLE, page_icon=str(FAVICON), layout="wide")


def page_path(page: str) -> Path:
    """The absolute path of a page given as ``"pages/x.py"`` (for ``st.switch_page``)."""
    return ROOT / page


def app_pages(default: str = HOME) -> dict[str, list[st.Page]]:
    """The ``st.navigation`` sections: the pages above, then the pages of registered methods not
    listed (each under "Methods", titled by the method). ``default`` is the page of the bare URL."""
    from core.methods.registry import METHODS

    out: dict[str, list[st.Page]] = {}
    listed = set()
    for section, pages in SECTIONS.items():
        out[section] = []
        for path, title, icon in pages:
            listed.add(path)
            if path == default:
                out[section].append(st.Page(page_path(path), title=title, icon=icon, default=True))
            else:
                out[section].append(st.Page(page_path(path), title=title, icon=icon, url_path=Path(path).stem))
    extra: dict[str, str] = {}  # page → title of the first method naming it (two methods may share a page)
    for m in METHODS.values():
        if m.page and m.page not in listed:
            extra.setdefault(m.page, m.title)
    if extra:
        out["Methods"] = [st.Page(page_path(page), title=title, icon=":material/science:", url_path=Path(page).stem)
                          for page, title in extra.items()]
    return out
