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
#: Every page's declared title (it stays the page's heading where the page is reached from elsewhere, e.g. a
#: method's page that a navigation without its section lists under "Methods").
TITLES = {path: title for pages in SECTIONS.values() for path, title, _icon in pages}
TITLE = "Evidence Graph Explorer"
#: A page's heading where it is not its navigation title: only Home, which names the app. Every other page is headed
#: by its name in the sidebar (the tour showed "Ranking and reasoning expansion" under a sidebar's "Ranking and
#: reasoning": an audit).
HEADINGS = {HOME: TITLE}
#: The browser tab's icon, served by the app itself: a ``:material/…:`` page icon makes the browser fetch
#: the favicon from fonts.gstatic.com, which an offline app must never do.
FAVICON = ROOT / "assets" / "favicon.png"


def page_config() -> None:
    """``st.set_page_config`` with the local favicon: called before every ``st.navigation``, so the
    navigation never puts a page's material icon (a fonts.gstatic.com URL) into the browser tab."""
    st.set_page_config(page_title=TITLE, page_icon=str(FAVICON), layout="wide")


def page_path(page: str) -> Path:
    """The absolute path of a page given as ``"pages/x.py"`` (for ``st.switch_page``)."""
    return ROOT / page


def entries() -> list[tuple[str, str, str, str]]:
    """Every page as (section, page path, title, icon): :data:`SECTIONS`, then the pages of registered methods not
    listed there (each under "Methods", titled by the first method naming it: two methods may share a page)."""
    from core.methods.registry import METHODS

    out = [(section, path, title, icon) for section, pages in SECTIONS.items() for path, title, icon in pages]
    listed = {path for _, path, _, _ in out}
    extra: dict[str, str] = {}
    for m in METHODS.values():
        if m.page and m.page not in listed:
            extra.setdefault(m.page, m.title)
    return out + [("Methods", page, title, ":material/science:") for page, title in extra.items()]


def app_pages(default: str = HOME) -> dict[str, list[st.Page]]:
    """The ``st.navigation`` sections of :func:`entries`. ``default`` is the page of the bare URL."""
    out: dict[str, list[st.Page]] = {}
    for section, path, title, icon in entries():
        page = (st.Page(page_path(path), title=title, icon=icon, default=True) if path == default else
                st.Page(page_path(path), title=title, icon=icon, url_path=Path(path).stem))
        out.setdefault(section, []).append(page)
    return out

def page_of(url_path: str, default: str = HOME) -> str:
    """The page (``"pages/x.py"``) that ``st.navigation`` runs for ``url_path`` (``StreamlitPage.url_path``: the
    file's stem, or ``""`` for the default page)."""
    if not url_path:
        return default
    return next((path for _, path, _, _ in entries() if Path(path).stem == url_path), f"pages/{url_path}.py")


def unknown_page(url: str | None, url_path: str, base: str = "") -> str:
    """The page name a URL asks for that no page has ("" when it names one, or none): ``st.navigation`` runs the
    default page for ``/nosuchpage`` (``url_path`` "") without a word on the page itself — two audits read Home and
    thought the link worked. ``base``: the server's ``server.baseUrlPath``.

    >>> unknown_page("http://host:8501/nosuchpage?ws=demo", ""), unknown_page("http://host:8501/compare", "compare")
    ('nosuchpage', '')
    >>> unknown_page("http://host:8501/", ""), unknown_page("http://host/egx/", "", "egx")
    ('', '')
    >>> unknown_page("http://host/egx/nosuch", "", "/egx/")
    'nosuch'
    """
    from urllib.parse import unquote, urlsplit

    if url_path or not url:
        return ""
    parts = [p for p in unquote(urlsplit(url).path).split("/") if p]
    prefix = [p for p in base.split("/") if p]
    rest = parts[len(prefix):] if parts[:len(prefix)] == prefix else parts
    stems = {Path(path).stem for _, path, _, _ in entries()}
    return "/".join(rest) if rest and "/".join(rest) not in stems else ""


def heading(page: str) -> str:
    """The title a page shows: its navigation title — declared (:data:`TITLES`), else a registered method's page's
    (:func:`entries`: titled by the method) — or Home's, the app's name (:data:`HEADINGS`)."""
    if page in HEADINGS:
        return HEADINGS[page]
    if page in TITLES:
        return TITLES[page]
    return next((title for _, path, title, _ in entries() if path == page), Path(page).stem)
