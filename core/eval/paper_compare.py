"""A paper's table beside what this app measures on the same rows: :func:`compose`.

For one quoted table (:mod:`core.eval.paper_tables`) and one benchmark summary (the dict
:func:`core.eval.report.summarize` returns, ``summary.json``), every row of the table gets, for each
metric of the compared column group (by default the one closest to our setting), the paper's number as
printed and ours: the mean in the paper's unit, its 95 % interval and its question count n when the
summary holds ``methods[m]["intervals"][key] = {"low", "high", "n"}`` (read when present), or a blank
with the reason (not implemented here; the method is not in the run or ran with other settings; the
figure needs generated answers or a judge the run did not have; ...). Under it, every difference of
setting (:func:`core.eval.paper_protocols.differences`).

:class:`Comparison` renders as markdown (:meth:`Comparison.markdown`) and as flat records a page turns
into a DataFrame (:meth:`Comparison.records`, one per row × metric). :func:`paper_table_markdown` quotes
a whole table as the paper prints it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.eval.paper_model import NOT_IMPLEMENTED, ColumnGroup, PaperMetric, PaperRow, PaperTable, printed_value
from core.eval.paper_protocols import Difference, OurSettings, differences, our_settings, paper_protocol

if TYPE_CHECKING:
    from core.index.manifest import Manifest

#: Interval keys that name two figures (the answers' SQuAD F1 and the papers' answer-set F1): only their
#: qualified forms ("answers.F1", "paper.F1") are read.
_AMBIGUOUS = frozenset({"F1"})


@dataclass(frozen=True)
class OurCell:
    """Our figure for one row and metric, in the paper's unit (×100 for a percentage), or why there is none."""

    value: float | None = None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    n_at_most: bool = False  #: n counts the questions run; the figure averages over those with gold for it
    basis: str = ""  #: "passages": a passage-level figure where the paper scores KG nodes
    blank: str = ""

    def text(self, unit: str) -> str:
        """``"41.0 [31.0, 51.0] n=100"`` (one decimal; Emp.S three), or "" when blank."""
        if self.value is None:
            return ""
        f = (lambda x: f"{x:.3f}") if unit == "0-3" else (lambda x: f"{x:.1f}")
        band = f" [{f(self.low)}, {f(self.high)}]" if self.low is not None and self.high is not None else ""
        n = "" if self.n is None else f" n{'≤' if self.n_at_most else '='}{self.n}"
        return f"{f(self.value)}{band}{n}"


@dataclass(frozen=True)
class ComparedRow:
    """One row of the table with the paper's cells of the compared group and our cells for them."""

    row: PaperRow
    name: str  #: the row's label as the table names it
    method: str  #: the method of ours for it ("" = not implemented here)
    paper: tuple[str, ...]
    ours: tuple[OurCell, ...]
    note: str = ""  #: what the row is, or how ours relates to it (the table's words)
    run_notes: tuple[str, ...] = ()  #: this run's ``--set`` changes and its notices for the row's method


@dataclass(frozen=True)
class Comparison:
    """A paper's table beside one benchmark run (:func:`compose`)."""

    table: PaperTable
    group: ColumnGroup
    metrics: tuple[PaperMetric, ...]
    rows: tuple[ComparedRow, ...]
    questions: int | None
    settings: OurSettings
    differences: tuple[Difference, ...]

    def records(self) -> list[dict[str, Any]]:
        """One flat record per row × metric (a page's DataFrame): ``table``, ``group``, ``dataset``, ``row``,
        ``section``, ``method`` ("" = not implemented), ``metric``, ``metric_id``, ``unit``, ``paper`` (the
        number or None), ``paper_printed``, ``ours``, ``low``, ``high``, ``n``, ``n_at_most``, ``basis`` and
        ``blank`` (why ``ours`` is None)."""
        out = []
        for r in self.rows:
            for m, printed, c in zip(self.metrics, r.paper, r.ours):
                out.append({"table": self.table.id, "group": self.group.key, "dataset": self.group.header,
                            "row": r.name, "section": r.row.section, "method": r.method, "metric": m.name,
                            "metric_id": m.id, "unit": m.unit, "paper": printed_value(printed),
                            "paper_printed": printed, "ours": c.value, "low": c.low, "high": c.high, "n": c.n,
                            "n_at_most": c.n_at_most, "basis": c.basis, "blank": c.blank})
        return out

    def markdown(self) -> str:
        """The comparison as a markdown section: the table, the reasons of its blank cells, the differences."""
        from core.papers import get_paper

        t, g = self.table, self.group
        paper = get_paper(t.paper)
        where = g.header + (f", {g.llm.split(' (')[0]}" if g.llm else "") + (f", the {t.closest_llm} rows" if t.closest_llm else "")
        lines = [f"## {t.id} ({t.section}): {where}", "",
                 f"*{paper.title}* — {paper.short_authors}, {paper.year}, arXiv:{paper.arxiv}.", "",
                 f"> {t.caption}", "",
                 f"Paper: {g.dataset}. This run: {_cell_text(self.settings.dataset)}, "
                 f"{self.questions if self.questions is not None else '?'} questions, LLM {self.settings.llm}.", ""]
        if g.key == t.closest:
            lines += [f"Why this column group: {t.closest_why}", ""]
        notes: dict[str, int] = {}

        def mark(reason: str) -> str:
            return str(notes.setdefault(reason, len(notes) + 1))

        head = ["row", "ours"] + [f"{m.name} {who}" for m in self.metrics for who in ("(paper)", "(ours)")]
        lines += ["| " + " | ".join(head) + " |", "|---|---|" + "---:|---:|" * len(self.metrics)]
        for r in self.rows:
            cells = [_cell_text(r.name), f"`{r.method}`" if r.method else "—"]
            for m, printed, c in zip(self.metrics, r.paper, r.ours):
                if c.value is None:
                    ours = f"–[{mark(c.blank)}]"
                else:
                    ours = c.text(m.unit) + (f" ({c.basis})[{mark(m.note)}]" if c.basis else "")
                cells += [printed, ours]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "Ours: the mean, its 95 % interval where the run has one, and n, the questions it averages "
                      "(n≤: over those of the n with gold for it). Percentages as the paper prints them; Emp.S on "
                      "its 0-3 scale."]
        if notes:
            lines += ["", "Blank or marked cells:", ""] + [f"{i}. {_cell_text(w)}" for w, i in notes.items()]
        noted = [r for r in self.rows if r.run_notes and r.ours and r.ours[0].blank == ""]
        if noted:
            lines += ["", "This run's rows:", ""] + [f"- {_cell_text(r.name)}: {'; '.join(r.run_notes)}" for r in noted]
        lines += ["", "### Every difference of setting", ""] + [f"- {d.sentence}" for d in self.differences]
        return "\n".join(lines) + "\n"


def _cell_text(text: str) -> str:
    """Text that stays inside one markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _interval(s: Mapping[str, Any], section: str, key: str) -> Mapping[str, Any] | None:
    found = s.get("intervals") or {}
    for k in (f"{section}.{key}", f"{section} {key}", *(() if key in _AMBIGUOUS else (key,))):
        iv = found.get(k)
        if isinstance(iv, Mapping) and iv.get("low") is not None and iv.get("high") is not None:
            return iv
    return None


def _count(s: Mapping[str, Any], section: str, key: str) -> tuple[int, bool]:
    """The questions a figure averages over when the summary gives no interval with its n."""
    if section == "metrics":
        return int(s.get("n", 0)), key.startswith("node ")
    if section == "answers":
        return int((s.get("answers") or {}).get("judged", 0)), False
    p = s.get("paper") or {}
    if key == "ACC_L":
        return int(p.get("judged", 0)), False
    return int(p.get("n", 0)), key == "Emp.S"


def _why_missing(metric: PaperMetric, summary: Mapping[str, Any]) -> str:
    if metric.needs == "generated answer":
        return ("no LLM-written answer was scored: the extracted sentence of LLM `none` gets no EM/F1 (run with "
                "--llm recorded or local)")
    if metric.needs == "judge":
        why = (summary.get("judge") or {}).get("not_computed")
        return str(why) if why else "the judge gave no verdict on these answers"
    if metric.passages:
        return "this method retrieved neither KG nodes nor passages here"
    if metric.needs == "answer":
        return "no answer with a gold answer was scored"
    return "not measured in this run"


def _our_cell(metric: PaperMetric, s: Mapping[str, Any], summary: Mapping[str, Any]) -> OurCell:
    path = metric.summary_path
    if path is None:
        return OurCell(blank=metric.note or "no figure of ours stands for it")
    section, key = path
    value = (s.get(section) or {}).get(key)
    basis = ""
    if value is None and metric.passages:  # a passage run where the paper scores KG nodes: its passage figure
        psec, _, pkey = metric.passages.partition(".")
        if (s.get(psec) or {}).get(pkey) is not None:
            section, key, value, basis = psec, pkey, s[psec][pkey], "passages"
    if value is None:
        return OurCell(blank=_why_missing(metric, summary))
    scale = 100.0 if metric.unit == "%" else 1.0
    iv = _interval(s, section, key)
    if iv is not None and iv.get("n") is not None:
        n, at_most = int(iv["n"]), False
    else:
        n, at_most = _count(s, section, key)
    return OurCell(float(value) * scale, None if iv is None else float(iv["low"]) * scale,
                   None if iv is None else float(iv["high"]) * scale, n, at_most, basis)


def _run_notes(method: str, s: Mapping[str, Any], summary: Mapping[str, Any]) -> tuple[str, ...]:
    """The run's ``--set`` changes of ``method``, the notices its records carry (e.g. ReG without its
    trained retriever) with how many questions each concerns, and, with the recorded LLM, which questions
    are not the recorded runs."""
    from core.eval.report import replay_summary_note

    changes = (summary.get("settings", {}).get("config_changes") or {}).get(method) or {}
    out = [f"run with {', '.join(f'{k}={v}' for k, v in changes.items())}"] if changes else []
    out += [f"{text} ({n} of {s.get('n', '?')} questions)" for text, n in (s.get("notices") or {}).items()]
    replay = replay_summary_note(dict(s))
    return tuple([*out, replay] if replay else out)


def _identity_keys(table: PaperTable) -> dict[str, set[str]]:
    """Per method, the config fields that tell its rows apart (ReG's model, evidence format, retriever)."""
    keys: dict[str, set[str]] = {}
    for r in table.rows:
        if r.method:
            keys.setdefault(r.method, set()).update(r.overrides)
    return keys


def _row_blank(table: PaperTable, row: PaperRow, summary: Mapping[str, Any], keys: set[str]) -> str:
    """Why no figure of ours stands in this row at all ("" when the run has the row's method and settings)."""
    from core.methods.registry import METHODS

    if not row.implemented:
        return f"{NOT_IMPLEMENTED}: {row.note}" if row.note else NOT_IMPLEMENTED
    if row.method not in METHODS:
        return f"`{row.method}` is not registered in this build"
    if row.llm and table.closest_llm and row.llm != table.closest_llm:
        return f"a run of ours has one LLM; it stands beside the {table.closest_llm} rows"
    if row.method not in summary.get("methods", {}):
        return f"`{row.method}` is not in this run (add it to --methods)"
    run = (summary.get("settings", {}).get("config_changes") or {}).get(row.method, {})
    if {k: run[k] for k in keys if k in run} != {k: v for k, v in row.overrides.items() if k in keys}:
        want = " ".join(f"--set {row.method}.{k}={v}" for k, v in row.overrides.items()) or "its default settings"
        model = f" (a trained model in WS/{row.needs_model}: {row.train_hint})" if row.needs_model and row.overrides else ""
        return f"this run's `{row.method}` had other settings; this row needs {want}{model}"
    return ""


def compose(table: PaperTable, summary: Mapping[str, Any], manifest: Manifest | Mapping[str, Any] | None = None, *,
            group: str | None = None) -> Comparison:
    """``table`` beside the benchmark ``summary`` on the column group ``group`` (default: the closest to our
    setting).

    Parameters
    ----------
    table
        A quoted table (:data:`core.eval.paper_tables.TABLES`).
    summary
        A benchmark summary (:func:`core.eval.report.summarize`, ``summary.json``); its ``settings`` name the
        backends, judge and ``--set`` changes of the run.
    manifest
        The run's workspace manifest (``workspace.meta``), for the differences of dataset, corpus and KG.
    group
        A column group key of ``table``.

    Returns
    -------
    Comparison
        Every row of the table (those not implemented here too, with the paper's numbers and a blank of
        ours that says so), and every difference of setting.

    Raises
    ------
    UnknownNameError
        For a ``group`` the table does not have.

    Examples
    --------
    >>> from core.eval.paper_tables import main_table
    >>> c = compose(main_table("bubblerag"), {"questions": 0, "methods": {}, "settings": {}})
    >>> c.rows[-1].paper, c.rows[-1].ours[0].blank
    (('45.15', '44.00'), '`bubblerag` is not in this run (add it to --methods)')
    """
    g = table.group(group)
    metrics = tuple(table.metric(m) for m in g.metrics)
    keys = _identity_keys(table)
    rows = []
    for r in table.rows:
        blank = _row_blank(table, r, summary, keys.get(r.method, set()))
        s = summary.get("methods", {}).get(r.method, {})
        cells = tuple(OurCell(blank=blank) if blank else _our_cell(m, s, summary) for m in metrics)
        rows.append(ComparedRow(r, table.row_name(r), r.method, table.cells(r, g), cells, r.note,
                                () if blank else _run_notes(r.method, s, summary)))
    methods = [r.method for r in table.rows if r.method and r.method in summary.get("methods", {})]
    settings = summary.get("settings") or {}
    ours = our_settings(settings, manifest, questions=summary.get("questions"), methods=methods,
                        contexts={m: summary["methods"][m].get("context") for m in methods})
    diffs = differences(paper_protocol(table.paper), ours, table=table, group=g)
    return Comparison(table, g, metrics, tuple(rows), summary.get("questions"), ours, tuple(diffs))


def compare_paper(paper: str, summary: Mapping[str, Any],
                  manifest: Manifest | Mapping[str, Any] | None = None) -> tuple[Comparison, ...]:
    """:func:`compose` for every quoted table of ``paper`` (an ``egx reproduce --paper`` id), main tables
    first, each on its closest column group."""
    from core.eval.paper_tables import tables_of

    tables = sorted(tables_of(paper), key=lambda t: not t.main)
    return tuple(compose(t, summary, manifest) for t in tables)


def paper_table_markdown(table: PaperTable) -> str:
    """``table`` quoted whole, as the paper prints it, with the method of ours for each row."""
    from core.papers import get_paper

    paper = get_paper(table.paper)
    cols = table.columns
    head = ["row", "ours"] + [f"{g.header}{' · ' + g.llm.split(' (')[0] if g.llm else ''} {m.name}" for g, m in cols]
    lines = [f"## {table.id} ({table.section})", "", f"*{paper.title}* — {paper.short_authors}, {paper.year}, "
             f"arXiv:{paper.arxiv}.", "", f"> {table.caption}", "",
             "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * len(cols)]
    for r in table.rows:
        lines.append("| " + " | ".join([_cell_text(table.row_name(r)), f"`{r.method}`" if r.method else NOT_IMPLEMENTED,
                                        *r.cells]) + " |")
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"
