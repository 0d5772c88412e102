"""Which runs reproduce a paper's tables (:func:`reproduction_plan`; :mod:`core.eval.reproduce` runs them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.eval.paper_model import PAPER_IDS, PaperRow, PaperTable, resolve_paper
from core.methods.budget import BUDGETS, Budget

#: The run of every method at the settings most of its rows state (the others get a run each).
MAIN_RUN = "main"


@dataclass(frozen=True)
class PlannedRun:
    """One benchmark of a reproduction: methods with the configuration changes their rows state, as the tables
    write them (a model folder relative to the workspace), and the trained models those rows need."""

    name: str
    changes: dict[str, dict[str, Any]]  #: method → its rows' overrides
    #: method → (model folder relative to the workspace, the command that trains it), for rows that name one
    models: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.changes)


@dataclass(frozen=True)
class ReproductionPlan:
    """What :func:`run_reproduction` runs for a paper (:func:`reproduction_plan`)."""

    paper: str  #: the ``--paper`` id ("sgrag")
    key: str  #: the key of :data:`core.papers.PAPERS` ("SG-RAG")
    tables: tuple[PaperTable, ...]  #: the paper's quoted tables, main tables first
    budget: Budget
    node_level: bool
    runs: tuple[PlannedRun, ...]

    def run_of(self, row: PaperRow) -> str:
        """The run that stands for ``row`` ("" for a row no method of ours reproduces)."""
        for r in self.runs:
            if row.method in r.changes and r.changes[row.method] == row.overrides:
                return r.name
        return ""


def _run_name(method: str, overrides: Mapping[str, Any]) -> str:
    """``reg-retriever-entity``: a folder name made of the method and its overrides (a path: its last part)."""
    parts = [method, *(f"{k}-{Path(str(v)).name}" for k, v in sorted(overrides.items()))]
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in "-".join(parts))[:120]


def reproduction_plan(paper: str) -> ReproductionPlan:
    """The runs that reproduce ``paper``'s tables: every registered method of their rows, once per distinct
    configuration; each method's first configuration without overrides (else its first) goes into the main run.

    Parameters
    ----------
    paper
        ``bubblerag``, ``fastinsight``, ``sgrag`` or ``reg`` (or the paper's key, any case).

    Raises
    ------
    UnknownNameError
        For another paper (the message lists the ids).

    Examples
    --------
    >>> p = reproduction_plan("reg")
    >>> [(r.name, r.methods) for r in p.runs]  # doctest: +NORMALIZE_WHITESPACE
    [('main', ('reg',)), ('reg-evidence_format-triples-model-weak-untrained-error', ('reg',)),
     ('reg-retriever-entity', ('reg',))]
    >>> p.budget.name, reproduction_plan("fastinsight").node_level
    ('reg', True)
    """
    from core.eval.paper_protocols import paper_protocol
    from core.eval.paper_tables import tables_of
    from core.methods.registry import METHODS

    key = resolve_paper(paper)
    pid = next(i for i, k in PAPER_IDS.items() if k == key)
    tables = tuple(sorted(tables_of(key), key=lambda t: not t.main))
    variants: dict[str, list[PaperRow]] = {}
    for t in tables:
        for r in t.rows:
            if r.method in METHODS and not any(o.overrides == r.overrides for o in variants.get(r.method, [])):
                variants.setdefault(r.method, []).append(r)
    main: dict[str, PaperRow] = {m: next((r for r in rows if not r.overrides), rows[0]) for m, rows in variants.items()}

    def models(rows: Mapping[str, PaperRow]) -> dict[str, tuple[str, str]]:
        # only a row that changes a setting names a model it cannot run without; ReG@Triple's defaults find the
        # workspace's own retriever, a sample's shipped one, or score by cosine and say so in a notice
        return {m: (r.needs_model, r.train_hint) for m, r in rows.items() if r.needs_model and r.overrides}

    runs = [PlannedRun(MAIN_RUN, {m: dict(r.overrides) for m, r in main.items()}, models(main))]
    for m, rows in variants.items():
        for r in rows:
            if r is not main[m]:
                runs.append(PlannedRun(_run_name(m, r.overrides), {m: dict(r.overrides)}, models({m: r})))
    protocol = paper_protocol(key)
    # FastInsight's Table 3 is retrieval only and scores KG nodes (§4.3.1): every method ranks the same nodes
    return ReproductionPlan(pid, key, tables, BUDGETS[protocol.budget], not protocol.needs_llm, tuple(runs))
