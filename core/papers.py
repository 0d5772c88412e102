"""The four papers this project implements, and HippoRAG 2, the baseline two of them compare against: one
citation each, used by the Home page, every method page and anything else that names a paper, so no page cites
a paper by a bare file name.

Titles and authors are as printed in the papers (``../shared/papers/``); venues and arXiv ids are those
of the papers' public records (arXiv abstract pages; the ACL Anthology for SG-RAG). A method names its
paper at the start of :attr:`core.methods.base.Method.paper` (``"BubbleRAG §3, Algorithm 1"``), which
:func:`paper_of` reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import ConfigError


@dataclass(frozen=True)
class Paper:
    """One paper: what a reader needs to find it."""

    key: str  #: the method's short name, as :attr:`Method.paper` starts
    title: str
    authors: tuple[str, ...]
    year: int
    venue: str  #: where it appeared ("arXiv preprint" when only there)
    arxiv: str  #: arXiv identifier, e.g. "2603.20309"

    @property
    def url(self) -> str:
        """The paper's arXiv abstract page (it links the PDF and, where there is one, the HTML version)."""
        return f"https://arxiv.org/abs/{self.arxiv}"

    @property
    def short_authors(self) -> str:
        """"Pan et al." (or both names for two authors)."""
        last = [a.split()[-1] for a in self.authors]
        return last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2 else f"{last[0]} et al."

    def cite(self, section: str = "") -> str:
        """A plain-text citation: authors, year, title, venue, arXiv id and (optionally) the section."""
        where = f", {section}" if section else ""
        return (f"{', '.join(self.authors)} ({self.year}). {self.title}. {self.venue}, arXiv:{self.arxiv}{where}.")

    def short(self, section: str = "") -> str:
        """"BubbleRAG §3.2 (Pan et al., 2026, arXiv:2603.20309)"."""
        head = f"{self.key} {section}".strip()
        return f"{head} ({self.short_authors}, {self.year}, arXiv:{self.arxiv})"


PAPERS: dict[str, Paper] = {p.key: p for p in (
    Paper("BubbleRAG", "BubbleRAG: Evidence-Driven Retrieval-Augmented Generation for Black-Box Knowledge Graphs",
          ("Duyi Pan", "Tianao Lou", "Xin Li", "Haoze Song", "Yiwen Wu", "Mengyi Deng", "Mingyu Yang", "Wei Wang"),
          2026, "arXiv preprint (technical report)", "2603.20309"),
    Paper("FastInsight", "FastInsight: Fast and Insightful Retrieval via Fusion Operators for Graph RAG",
          ("Seonho An", "Chaejeong Hyun", "Min-Soo Kim"), 2026, "arXiv preprint (ACM SIGIR '26 format)",
          "2601.18579"),
    Paper("SG-RAG", "Structure Guided Retrieval-Augmented Generation for Factual Queries",
          ("Miao Xie", "Xiao Zhang", "Yi Li", "Chunli Lv"), 2026, "Proceedings of ACL 2026 (Long Papers)",
          "2604.22843"),
    Paper("ReG", "Weak-to-Strong GraphRAG: Aligning Weak Retrievers with Large Language Models for Graph-based "
                 "Retrieval Augmented Generation",
          ("Deyu Zou", "Yongqiang Chen", "Mufei Li", "Siqi Miao", "Chenxi Liu", "Bo Han", "James Cheng", "Pan Li"),
          2025, "arXiv preprint", "2506.22518"),
    # the baseline BubbleRAG (Table 2) and FastInsight (Table 3) compare against; its code is public
    # (OSU-NLP-Group/HippoRAG), which the ``hipporag2`` method follows
    Paper("HippoRAG 2", "From RAG to Memory: Non-Parametric Continual Learning for Large Language Models",
          ("Bernal Jiménez Gutiérrez", "Yiheng Shu", "Weijian Qi", "Sizhe Zhou", "Yu Su"), 2025,
          "Proceedings of ICML 2025", "2502.14802"),
)}


@dataclass(frozen=True)
class Intro:
    """What a method page opens with: three sentences on what you are looking at, and the section shown."""

    paper: str  #: key of :data:`PAPERS`
    section: str  #: the section(s) the page shows, e.g. "§3.2"
    text: tuple[str, str, str]  #: what you are looking at, in three sentences

    @property
    def cited(self) -> Paper:
        return get_paper(self.paper)


def get_paper(key: str) -> Paper:
    """The paper named ``key`` ("BubbleRAG", "FastInsight", "SG-RAG", "ReG", "HippoRAG 2").

    Raises
    ------
    ConfigError
        For an unknown name (the message lists the known ones).
    """
    try:
        return PAPERS[key]
    except KeyError:
        raise ConfigError(f"No paper named {key!r}; known papers: {', '.join(PAPERS)}.") from None


def paper_of(reference: str) -> tuple[Paper, str] | None:
    """The paper a method's ``paper`` text names first, and the rest of that text (its sections):
    ``"FastInsight §3, Algorithms 1-3"`` → (FastInsight, "§3, Algorithms 1-3"); None for another paper
    (e.g. HippoRAG (v1), whose PPR the ``ppr`` baseline follows without a citation entry of its own)."""
    for key, paper in PAPERS.items():
        if reference == key or reference.startswith(key + " "):
            return paper, reference[len(key):].strip()
    return None
