"""Teaching material without errors: the Home page lists every page as working and
cites the papers properly; every method page opens with "what you are looking at" and a link to the
paper section; the expansion page says requested vs realized h and never "N entries" above "empty"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from components.navigation import SECTIONS
from components.teaching import INTROS
from core.errors import ConfigError
from core.methods.registry import METHODS
from core.papers import PAPERS, get_paper, paper_of
from tests.app.helpers import ROOT, plain, run_page, switch

PAPER_FILES = {"BubbleRAG": "bubblerag.txt", "FastInsight": "fastinsight.txt", "SG-RAG": "sg_rag.txt",
               "ReG": "reg_weak_to_strong_graphrag.txt"}
PAPERS_DIR = ROOT.parent / "shared" / "papers"


def _texts(at: AppTest) -> str:
    return "\n".join(plain(e.value) for kind in ("markdown", "caption") for e in getattr(at, kind))


# ------------------------------------------------------------------------------------------- citations
@pytest.mark.parametrize("key", list(PAPER_FILES))
def test_citation_matches_the_paper(key: str) -> None:
    """Title (and, where the text names them, every author) as printed in the paper itself."""
    if not PAPERS_DIR.exists():
        pytest.skip(f"{PAPERS_DIR} is missing")
    text = re.sub(r"\s+", " ", (PAPERS_DIR / PAPER_FILES[key]).read_text(encoding="utf-8"))
    p = get_paper(key)
    assert p.title.replace("  ", " ") in text
    if key != "ReG":  # the ReG text file lost its author line; its authors are those of arXiv:2506.22518
        for a in p.authors:
            assert a in text, (key, a)
    assert re.fullmatch(r"\d{4}\.\d{5}", p.arxiv) and p.url == f"https://arxiv.org/abs/{p.arxiv}"
    assert p.cite("§3").endswith(f"arXiv:{p.arxiv}, §3.")


def test_every_method_names_its_paper_through_the_table() -> None:
    for name in ("bubblerag", "fastinsight", "sgrag", "reg", "hipporag2"):
        found = paper_of(METHODS[name].paper)
        assert found is not None and found[1].startswith("§"), METHODS[name].paper
    assert paper_of("HippoRAG (Gutiérrez et al., 2024) §3") is None
    with pytest.raises(ConfigError, match=r"No paper named 'Foo'; known papers: BubbleRAG, FastInsight, SG-RAG, ReG, "
                                          r"HippoRAG 2\."):
        get_paper("Foo")


# ------------------------------------------------------------------------------------------- Home
def test_home_lists_every_page_as_working_and_cites_the_papers(home: Path) -> None:
    at = run_page("pages/home.py")
    text = _texts(at)
    assert "coming" not in text.lower()
    for pages in SECTIONS.values():
        for _path, title, _icon in pages:
            assert title in text, title
    for p in PAPERS.values():
        assert p.title in text and f"arXiv {p.arxiv}" in text and p.short_authors in text
        assert f"]({p.url})" in "\n".join(m.value for m in at.markdown)  # a link, not a bare file name
    assert ".txt" not in text  # no bare file names (bubblerag.txt §3)


# ------------------------------------------------------------------------------------------- method pages
def test_every_method_page_has_an_intro() -> None:
    pages = {m.page for m in METHODS.values() if m.page} | {p for ps in SECTIONS.values() for p, *_ in ps
                                                             if p.startswith("pages/bubble_")}
    assert pages <= set(INTROS)
    for page, intro in INTROS.items():
        assert len(intro.text) == 3 and all(s.rstrip().endswith(".") for s in intro.text), page
        assert all(s.count(". ") == 0 for s in intro.text), f"{page}: one sentence per entry"


@pytest.mark.parametrize("page", list(INTROS))
def test_method_page_opens_with_what_you_are_looking_at(home: Path, page: str) -> None:
    at = run_page(page)
    intro = INTROS[page]
    first = at.markdown[0].value  # the first thing under the title: the first sentence, its section linked
    p = intro.cited
    assert plain(first).startswith(intro.text[0]) and f"]({p.url})" in first and intro.section in plain(first)
    more = at.expander[0]  # the other two sentences and the whole citation, folded: the stage starts higher
    assert more.label == "More on this stage"
    assert plain(more.markdown[0].value) == " ".join(intro.text[1:])
    link = more.caption[0].value
    assert f"]({p.url})" in link and intro.section in plain(link) and p.title in plain(link)


# ------------------------------------------------------------------------------------------- expansion page
def test_expansion_caption_says_requested_and_realized_h(home: Path) -> None:
    at = run_page("pages/bubble_expansion.py")
    at.slider(key=S.widget_key(S.BUBBLE_H)).set_value(8).run()
    assert not at.exception
    cap = next(c for c in (plain(c.value) for c in at.caption) if c.startswith("G' = "))
    assert "-hop neighbourhood" not in cap
    m = re.search(r"h = 8 hops requested(?:, (\d) realized| and realized)", cap)
    assert m, cap
    realized = int(m.group(1) or 8)
    if realized < 8:
        assert "nothing lies farther than" in cap or "would take G' past" in cap


def test_queue_head_is_never_empty_below_a_count(home: Path) -> None:
    at = run_page("pages/bubble_expansion.py")
    frame = at.slider(key=S.widget_key(S.BUBBLE_FRAME))
    for f in (0, frame.max // 2, frame.max):
        at.slider(key=S.widget_key(S.BUBBLE_FRAME)).set_value(f).run()
        assert not at.exception
        head = next(m for m in (plain(m.value) for m in at.markdown) if "Priority-queue head" in m)
        n = int(re.search(r"\((\d+) entr", head).group(1))
        empty = any("queue is empty" in plain(c.value) for c in at.caption)
        assert empty == (n == 0), (f, head)


def test_intro_survives_a_page_switch(home: Path) -> None:
    at = run_page("pages/granker.py")
    switch(at, "pages/subgraph.py")
    assert plain(at.markdown[0].value).startswith(INTROS["pages/subgraph.py"].text[0])
