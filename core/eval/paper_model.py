"""The shape of a paper's results table as this project quotes it, and of an evaluation protocol.

A :class:`PaperTable` is one table of one paper, its numbers **as printed** (strings: ``"29.70"``,
``"19.1%"``, ``"Out-of-time"``), so a reader sees exactly what the paper shows and a test can find each
row in the paper's text. Its columns come in :class:`ColumnGroup` s (a dataset, with the model that
produced it where the table splits by model), each a run of :class:`PaperMetric` s; its rows are
:class:`PaperRow` s, each naming the method of ours that reproduces it (a name of
:mod:`core.methods.registry`) with the configuration changes that row needs, or saying it is not
implemented here. :class:`PaperProtocol` is how the paper evaluated (datasets, split, question counts,
corpus, KG builder, LLMs, judge, embedder, answer budget: a preset of :mod:`core.methods.budget`), in plain
words with its sections.

The tables themselves are in :mod:`core.eval.paper_tables`, the protocols in
:mod:`core.eval.paper_protocols`, the side-by-side comparison with a benchmark summary in
:mod:`core.eval.paper_compare`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from core.errors import UnknownNameError
from core.methods.budget import BUDGETS, Budget

#: What a row of a paper's table says when no method of ours reproduces it.
NOT_IMPLEMENTED = "not implemented here"

#: ``egx reproduce --paper`` ids → keys of :data:`core.papers.PAPERS`.
PAPER_IDS: dict[str, str] = {"bubblerag": "BubbleRAG", "fastinsight": "FastInsight", "sgrag": "SG-RAG", "reg": "ReG"}

#: What a metric needs to have a value in our benchmark summary:
#: ``ranking`` — only the ranked passages or KG nodes (every LLM mode, ``none`` included);
#: ``generated answer`` — an answer an LLM wrote (EM / token F1 are not computed for the extractive sentence
#: of ``none`` mode); ``answer`` — any answer (the answer-set metrics score the extractive sentence too, by
#: containment); ``judge`` — a judge LLM's verdict (``egx bench --judge-llm``); ``paper only`` — no figure
#: of one run stands for it (an average over the paper's datasets, a rank among its rows).
Needs = Literal["ranking", "generated answer", "answer", "judge", "paper only"]

_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?%?$")


def resolve_paper(name: str) -> str:
    """The key of :data:`core.papers.PAPERS` for ``name``: an ``egx reproduce --paper`` id (``"sgrag"``) or
    the key itself (``"SG-RAG"``), any case.

    Raises
    ------
    UnknownNameError
        For any other name (the message lists the ids).
    """
    low = name.strip().lower()
    for pid, key in PAPER_IDS.items():
        if low in (pid, key.lower()):
            return key
    raise UnknownNameError("paper", name, list(PAPER_IDS))


def printed_value(text: str) -> float | None:
    """The number a printed cell shows (``"19.1%"`` → 19.1, ``"29.70"`` → 29.7); None for a cell that holds
    none (``"-"``, ``"Out-of-time"``)."""
    t = text.strip()
    return float(t.rstrip("%")) if _NUMBER.match(t) else None


@dataclass(frozen=True)
class PaperMetric:
    """One metric of a table: its name as printed, its definition in the paper and where ours is.

    ``ours`` is the path of our figure in a benchmark summary (:mod:`core.eval.report`): ``"section.key"``
    with section ``metrics``, ``answers`` or ``paper`` (``"paper.Hit@1"``, ``"metrics.node R@10"``), or ""
    when none of ours stands for it. ``passages`` is the passage-level figure shown, marked, for a run that
    retrieved passages where the paper scores KG nodes (FastInsight's text-rich KGs)."""

    id: str  #: unique within its table ("R@10", "node R@10")
    name: str  #: as the table prints it ("ACC _L" is printed "ACC_L" here)
    unit: Literal["%", "0-3", "rank"]
    definition: str  #: the paper's definition, with its section
    needs: Needs
    ours: str = ""
    passages: str = ""
    note: str = ""  #: how ours differs from the paper's definition, or why nothing of ours stands for it

    @property
    def in_none_mode(self) -> str:
        """What becomes of this metric in a run with LLM ``none`` ("" when it is computed as usual)."""
        return {"generated answer": "blank: the answer is an extracted sentence, which EM/F1 do not score",
                "judge": "blank unless the run names a judge LLM (--judge-llm), which would then judge the "
                         "extracted sentence",
                "answer": "computed on the extracted sentence by containment: its Hit / Hit@1 are meaningful, its "
                          "Precision / F1 not comparable with an LLM's short answer",
                "paper only": "blank: no figure of one run stands for it"}.get(self.needs, "")

    @property
    def summary_path(self) -> tuple[str, str] | None:
        """``ours`` split into (section, key); None when nothing of ours stands for the metric."""
        if not self.ours:
            return None
        section, _, key = self.ours.partition(".")
        return section, key


@dataclass(frozen=True)
class ColumnGroup:
    """A run of columns: one dataset (with the model, where the table splits by model), or an average."""

    key: str  #: unique within its table ("musique-8b")
    header: str  #: the dataset as the table prints it ("MuSiQue", "BSARD-G", "Webqsp-Sub")
    dataset: str  #: what it is, in words, with its size where the paper gives one
    metrics: tuple[str, ...]  #: ids of :attr:`PaperTable.metrics`, in printed order
    llm: str = ""  #: the model of this group ("" when the rows carry their own or none is used)
    questions: int | None = None  #: the questions the paper evaluated on it, where it says
    average: bool = False  #: an average over other groups (no single run of ours stands for it)


@dataclass(frozen=True)
class PaperRow:
    """One row of a table: the paper's label and cells as printed, and how ours reproduces it.

    ``method`` is a registered method name ("" = :data:`NOT_IMPLEMENTED`) run with ``overrides`` of its
    paper-default config; ``needs_model`` / ``train_hint`` name a trained model folder (relative to the
    workspace) the row needs and the command that makes it (ReG's retrievers)."""

    label: str
    cells: tuple[str, ...]  #: one per column of the table, as printed ("-" / "Out-of-time" where no number)
    method: str = ""
    overrides: dict[str, Any] = field(default_factory=dict)
    llm: str = ""  #: the row's own LLM, where the table puts the model in the row (ReG)
    section: str = ""  #: the row group the table prints above it ("Graph Retrieval", "ReG@Triple")
    note: str = ""  #: how ours relates to it (or what it is, when not implemented)
    needs_model: str = ""
    train_hint: str = ""

    @property
    def implemented(self) -> bool:
        return bool(self.method)

    @property
    def values(self) -> tuple[float | None, ...]:
        """The cells as numbers (None where the paper prints none)."""
        return tuple(printed_value(c) for c in self.cells)


@dataclass(frozen=True)
class PaperTable:
    """One results table of a paper, quoted exactly (module docstring).

    ``closest`` is the key of the column group nearest to this project's bundled setting and
    ``closest_why`` says why; where the rows carry their LLM, ``closest_llm`` names the rows compared."""

    paper: str  #: key of core.papers.PAPERS
    number: str  #: "Table 2"
    section: str  #: "§4.2"
    caption: str  #: the paper's caption (or, where the stored text lost it, what the table is)
    metrics: tuple[PaperMetric, ...]
    groups: tuple[ColumnGroup, ...]
    rows: tuple[PaperRow, ...]
    closest: str
    closest_why: str
    closest_llm: str = ""
    main: bool = True  #: the paper's main comparison (False: a supporting table, e.g. SG-RAG's Table 5)
    note: str = ""
    #: Where our figures sit far from the paper's for a reason of setting, that reason in one sentence, shown right
    #: by the table (the whole list of differences stays below it); "" where no one reason stands out.
    gap_headline: str = ""

    def __post_init__(self) -> None:
        ids = [m.id for m in self.metrics]
        n = len(self.columns)
        for r in self.rows:
            if len(r.cells) != n:
                raise ValueError(f"{self.id}: row {r.label!r} has {len(r.cells)} cells, the table has {n} columns.")
        unknown = [m for g in self.groups for m in g.metrics if m not in ids]
        if unknown or self.closest not in {g.key for g in self.groups}:
            raise ValueError(f"{self.id}: unknown metric ids {unknown} or closest group {self.closest!r}.")

    @property
    def id(self) -> str:
        """``"BubbleRAG Table 2"``."""
        return f"{self.paper} {self.number}"

    @property
    def columns(self) -> tuple[tuple[ColumnGroup, PaperMetric], ...]:
        """Every column, in printed order: (its group, its metric)."""
        by_id = {m.id: m for m in self.metrics}
        return tuple((g, by_id[m]) for g in self.groups for m in g.metrics)

    def row_name(self, row: PaperRow) -> str:
        """The row's label, with its row group where the table repeats the label under several groups
        ("ReG@Triple: ReG (GPT-4o)")."""
        repeated = sum(1 for r in self.rows if r.label == row.label) > 1
        return f"{row.section}: {row.label}" if repeated and row.section else row.label

    def none_mode_blanks(self) -> dict[str, str]:
        """Metric id → what a run with LLM ``none`` (``egx bench --llm none``) leaves of it, for the metrics
        it does not compute as usual."""
        return {m.id: m.in_none_mode for m in self.metrics if m.in_none_mode}

    def metric(self, metric_id: str) -> PaperMetric:
        for m in self.metrics:
            if m.id == metric_id:
                return m
        raise UnknownNameError(f"metric of {self.id}", metric_id, [m.id for m in self.metrics])

    def group(self, key: str | None = None) -> ColumnGroup:
        """The column group ``key`` (default: the closest to our setting)."""
        want = key or self.closest
        for g in self.groups:
            if g.key == want:
                return g
        raise UnknownNameError(f"column group of {self.id}", want, [g.key for g in self.groups])

    def cells(self, row: PaperRow, group: ColumnGroup) -> tuple[str, ...]:
        """The printed cells of ``row`` under ``group``."""
        start = 0
        for g in self.groups:
            if g.key == group.key:
                return row.cells[start:start + len(g.metrics)]
            start += len(g.metrics)
        raise UnknownNameError(f"column group of {self.id}", group.key, [g.key for g in self.groups])


@dataclass(frozen=True)
class PaperProtocol:
    """How a paper evaluated its main table, in plain words with the sections that say so.

    The ``*_names`` tuples hold the model names as the paper writes them, which :func:`differences
    <core.eval.paper_protocols.differences>` looks for in our backends' model ids."""

    paper: str
    datasets: str
    split: str
    questions: str
    corpus: str
    kg_builder: str
    llm: str
    judge: str
    embedder: str
    reranker: str
    #: the preset of :data:`core.methods.budget.BUDGETS` that stands for the paper's answer budget
    budget: str
    budget_text: str  #: the paper's answer budget in its own words, with its section
    metrics: str
    other: tuple[str, ...] = ()
    #: the knobs of our methods whose value the paper states: (method, field, value, where it says so)
    knobs: tuple[tuple[str, str, Any, str], ...] = ()
    needs_llm: bool = True  #: False where the table scores retrieval only (FastInsight Table 3)
    llm_names: tuple[str, ...] = ()
    judge_names: tuple[str, ...] = ()
    embedder_names: tuple[str, ...] = ()
    reranker_names: tuple[str, ...] = ()
    #: how the preset falls short of the paper's budget ("" when it is the paper's budget itself)
    budget_note: str = ""

    @property
    def budget_preset(self) -> Budget:
        """The :class:`~core.methods.budget.Budget` every method of a reproduction runs under."""
        return BUDGETS[self.budget]
