"""What every retrieval method shares: the backends it runs with, the result it returns, its typed
description (:class:`Method`), the base of its configuration (:class:`MethodConfig`) and the words of
failure diagnosis (:class:`StageDecl`, :class:`Gold`, :class:`Diagnosis`).

A method is one package under ``core/methods/`` laid out like every other::

    config.py      XConfig(MethodConfig)  -- every knob, with the paper's default and help text
    pipeline.py    run(query, workspace, *, config=None, backends) -> XResult
    diagnosis.py   STAGES and diagnose(result, workspace, gold, *, cut) -> Diagnosis
    <stage>.py     one module per paper stage, one public function each

and its ``__init__.py`` exports ``METHOD = Method(name, title, paper, run=run, config=XConfig,
stages=STAGES, diagnose=diagnose, needs_reranker=..., page="pages/x.py")``.
:mod:`core.methods.registry` imports the packages and collects their ``METHOD``; the CLI
(``egx ask``/``egx bench``), the benchmark runner, the failure diagnosis and the Compare page read
the registry and need no other change. A method defined outside ``core/`` is added with
:func:`core.methods.registry.register`. A package that brings ``egx`` commands of its own (ReG's
``train-reg``) puts them in a ``commands`` module: see :func:`core.methods.registry.method_commands`.

This module sits below every method package and below :mod:`core.eval`: it imports neither (a test
keeps ``core/`` free of import cycles).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from core.backends.base import LLM, Embedder, Reranker
from core.background.workers import WorkerTask
from core.errors import ConfigError
from core.methods.budget import BudgetHook

# the configuration words (core/methods/configuration.py) are part of the contract every method imports from here
from core.methods.configuration import Bounds as Bounds
from core.methods.configuration import Check as Check
from core.methods.configuration import KnobInfo as KnobInfo
from core.methods.configuration import MethodConfig as MethodConfig
from core.methods.configuration import knob as knob
from core.methods.configuration import one_of as one_of
from core.trace import Trace, to_jsonable

if TYPE_CHECKING:
    from pathlib import Path

    from core.index.workspace import Workspace
    from core.papers import Intro


@dataclass(frozen=True)
class Backends:
    """The models a method may use. ``reranker`` is None for methods that do not rerank."""

    embedder: Embedder
    llm: LLM
    reranker: Reranker | None = None

    def names(self) -> dict[str, str]:
        out = {"embedder": f"{self.embedder.name} ({self.embedder.model_id})",
               "llm": f"{self.llm.name} ({self.llm.model_id})"}
        if self.reranker is not None:
            out["reranker"] = f"{self.reranker.name} ({self.reranker.model_id})"
        return out

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit embedding, shape ``(dim,)`` (the embedder's query path, e.g. bge's instruction)."""
        return np.asarray(self.embedder.embed_queries([query])[0], dtype=np.float32)


@dataclass(frozen=True)
class RankedChunk:
    chunk_id: str
    score: float


@runtime_checkable
class MethodResult(Protocol):
    """Fields every method's result has (methods add their own intermediates)."""

    @property
    def method(self) -> str: ...

    @property
    def query(self) -> str: ...

    @property
    def ranked_chunks(self) -> tuple[RankedChunk, ...]:
        """Retrieved passages, best first (what retrieval metrics are computed on)."""
        ...

    @property
    def answer(self) -> str:
        """The generated (or, in ``none`` mode, extractive) answer; may be empty."""
        ...

    @property
    def trace(self) -> Trace: ...

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """Graph nodes the method's own evidence names besides its passages (BubbleRAG's evidence graph,
        PPR's seed entities; empty for a method whose evidence is its passages): what the Compare page
        overlays on the graph."""
        ...



# ====================================================================================== diagnosis words
#: The stages a method can lose the gold evidence at, in pipeline order (a method declares a subset).
STAGE_ORDER: tuple[str, ...] = ("not_in_graph", "no_anchor", "not_connected", "ranked_out", "not_expanded",
                                "answer_wrong")
OK = "ok"
NO_GOLD = "no_gold"
VERDICTS: tuple[str, ...] = (*STAGE_ORDER, OK, NO_GOLD)

#: Default UI text per stage key (methods override the label/help in their own declarations).
STAGE_LABELS: dict[str, str] = {
    "not_in_graph": "gold passage not in the index or graph",  # one column for every method: dense has no graph
    "no_anchor": "no anchor / seed in a gold passage",
    "not_connected": "anchors not connected",
    "ranked_out": "ranked below the cut",
    "not_expanded": "never expanded into",
    "answer_wrong": "retrieved, answer wrong",
    OK: "ok",
    NO_GOLD: "no gold evidence",
}


@dataclass(frozen=True)
class StageDecl:
    """One stage a method can lose evidence at, in pipeline order."""

    key: str  #: one of STAGE_ORDER
    label: str  #: short UI text, e.g. "no seed entity in a gold passage"
    help: str = ""  #: what it means for THIS method

    def __post_init__(self) -> None:
        if self.key not in STAGE_ORDER:
            raise ValueError(f"StageDecl key {self.key!r} is not a diagnosis stage; use one of {', '.join(STAGE_ORDER)}")


@dataclass(frozen=True)
class Gold:
    """What is known about the question: its gold passages (chunk ids of this workspace) and answers."""

    question_id: str
    chunk_ids: tuple[str, ...]
    answers: tuple[str, ...] = ()
    unmatched: tuple[str, ...] = ()  #: gold titles the dataset names but this workspace lacks
    #: passages that are one gold document between them (a ``ground_truth`` title, or a supporting fact without a
    #: place, on a document split into several passages): any one of them retrieved finds it
    groups: tuple[tuple[str, ...], ...] = ()
    #: the gold answers as the answer-set metrics count them (:attr:`core.index.questions.Question.answer_groups`):
    #: one group per answer, its aliases in it; empty: each of :attr:`answers` counts on its own
    answer_groups: tuple[tuple[str, ...], ...] = ()
    #: every gold passage before :meth:`narrowed` kept one passage per gold document (empty: :attr:`chunk_ids` are
    #: all of them): what "is this passage gold?" asks, not what a ranking is scored against
    documents: tuple[str, ...] = ()

    @classmethod
    def from_question(cls, q: Any) -> Gold:
        """From a :class:`core.index.questions.Question` (its answer plus aliases when it has them)."""
        answers = tuple(a for a in (getattr(q, "answer", ""), *getattr(q, "aliases", ())) if a)
        return cls(str(q.id), tuple(q.gold_chunks), tuple(dict.fromkeys(answers)), tuple(getattr(q, "unmatched", ())),
                   tuple(getattr(q, "gold_groups", ())), tuple(getattr(q, "answer_groups", ())))

    def narrowed(self, ranked: Sequence[str]) -> Gold:
        """The gold one ranking is scored against: each of :attr:`groups` counts once, as its passage ranked best
        in ``ranked`` (its first passage when none is ranked). A title given as ``ground_truth`` is one gold
        document, found when one of its passages is; scoring each of its 4 passages made an answer read from the
        right passage "3 of 4 gold passages are in the top 5 … ranked below the cut" (an audit)."""
        if not self.groups:
            return self
        pos: dict[str, int] = {}
        for i, c in enumerate(ranked):
            pos.setdefault(c, i)
        rep: dict[str, str] = {}
        for g in self.groups:
            best = min(range(len(g)), key=lambda i: (pos.get(g[i], len(ranked)), i))
            rep.update((c, g[best]) for c in g)
        return dataclasses.replace(self, chunk_ids=tuple(dict.fromkeys(rep.get(c, c) for c in self.chunk_ids)),
                                   groups=(), documents=self.passages)

    @property
    def passages(self) -> tuple[str, ...]:
        """Every gold passage: each passage of a gold document of several passages too, also once :meth:`narrowed`
        scored the document as one of them (an audit's answers quoted from passage 1 of the gold title "Halvard
        Teskin" read "quoted from a passage outside the gold list": the narrowed gold held its passage 3)."""
        return tuple(dict.fromkeys((*self.documents, *self.chunk_ids, *(c for g in self.groups for c in g))))


@dataclass(frozen=True)
class Diagnosis:
    """The verdict for one question × method, with the facts it rests on."""

    method: str
    stage: str  #: a declared key, "ok" or "no_gold"
    summary: str  #: one plain sentence for the UI
    evidence: dict[str, Any] = field(default_factory=dict)  #: JSON-safe facts read from the trace / result
    gold_ranks: dict[str, int | None] = field(default_factory=dict)  #: gold chunk id -> 1-based rank (None = missed)

    def __post_init__(self) -> None:
        if self.stage not in VERDICTS:
            raise ValueError(f"diagnosis stage {self.stage!r} is unknown; use one of {', '.join(VERDICTS)}")

    @property
    def label(self) -> str:
        return STAGE_LABELS.get(self.stage, self.stage)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Diagnosis:
        return cls(str(d["method"]), str(d["stage"]), str(d.get("summary", "")), dict(d.get("evidence", {})),
                   {str(k): (None if v is None else int(v)) for k, v in dict(d.get("gold_ranks", {})).items()})


# ====================================================================================== the method
C = TypeVar("C", bound=MethodConfig)
R = TypeVar("R", bound=MethodResult)
C_contra = TypeVar("C_contra", bound=MethodConfig, contravariant=True)
R_co = TypeVar("R_co", bound=MethodResult, covariant=True)


class Runner(Protocol[C_contra, R_co]):
    """``run(query, workspace, *, config=None, backends) -> result`` (``config=None``: the defaults)."""

    def __call__(self, query: str, workspace: Workspace, *, config: C_contra | None = None,
                 backends: Backends) -> R_co: ...


class Diagnoser(Protocol):
    """``diagnose(result, workspace, gold, *, cut) -> Diagnosis``: reads the method's own result and
    trace (it never re-runs a stage) and states the evidence for its verdict."""

    def __call__(self, result: Any, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis: ...


@dataclass(frozen=True)
class AblationRow:
    """One ablation row: ``method`` (the declaring method; another one's name for a comparison row such as
    SG-RAG's NaiveRAG) run with ``overrides`` of its paper-default config."""

    name: str  #: also the row's folder name
    label: str  #: as the paper names it
    method: str = ""  #: "" — the method that declares the row
    overrides: dict[str, Any] = field(default_factory=dict)
    needs_model: str = ""  #: ReG: a model folder (relative to the workspace) that must exist
    train_hint: str = ""  #: the command that makes it
    definition: str = ""  #: the paper's definition of the row, quoted with its section (`egx ablate --help`, the table)
    group: str = ""  #: the group the report lists it under: the paper's table ("Table 5"), or "our variants"


@dataclass(frozen=True)
class Preparation:
    """What a method computes once per workspace (and embedder) before its runs and keeps in the workspace
    folder — FastInsight's KG node vectors, SG-RAG's dominance model — so that a run itself never writes:
    :func:`core.methods.run.prepare_method` runs it (in the app, as a background job with a progress bar).

    ``needed(workspace, backends, config)`` says whether it must run first (cheap: no model is loaded);
    ``run(workspace, backends, config, progress)`` does it, reporting ``progress(message, fraction)``;
    ``title(workspace, backends, config)`` names it for a progress bar; ``key(workspace, backends, config)`` identifies
    it, so two pages asking for the same preparation share one job. ``estimate(workspace, backends, config)``
    (optional) gives ``(seconds, how)``: how long it is expected to take and what that figure rests on (a
    measured rate, or a stated one), so the app asks before it starts a long one.
    """

    title: Any  # Callable[[Workspace, Backends, MethodConfig], str]
    needed: Any  # Callable[[Workspace, Backends, MethodConfig], bool]
    run: Any  # Callable[[Workspace, Backends, MethodConfig, Progress | None], None]
    key: Any  # Callable[[Workspace, Backends, MethodConfig], str]
    estimate: Any = None  # Callable[[Workspace, Backends, MethodConfig], tuple[float, str]] | None


class Stamper(Protocol):
    """``stamp(workspace, backends, config) -> {model: identity}``: every trained model the method would use on
    ``workspace`` with ``backends`` and ``config``, keyed by what a message calls it ("ReG@Triple retriever"),
    valued by a short identity that changes whenever the model does (a digest of its files, or the cache key
    that names all its inputs). A benchmark keeps it in ``run.json`` and resumes only while it is unchanged
    (:mod:`core.eval.identity`). Cheap: it reads files, it loads and trains nothing."""

    def __call__(self, workspace: Workspace, backends: Backends, config: Any) -> dict[str, str]: ...


class TrainedOn(Protocol):
    """``trained_on(workspace, backends, config) -> question ids``: the questions the trained models the method
    would use were trained or validated on (ReG: its retriever manifest's ``split.train`` and ``split.val``). A
    benchmark or recording leaves them out by default — a model's figures on its own training questions are
    inflated — and says how many and why; kept on request, their rows are flagged "trained on"."""

    def __call__(self, workspace: Workspace, backends: Backends, config: Any) -> frozenset[str]: ...


class Pinner(Protocol):
    """``pin(workspace, backends, config, into) -> config``: ``config`` reading a copy, made in the folder
    ``into``, of the trained models the method would load now, so that a benchmark scores every question with the
    models it started with though one is retrained midway; None when nothing needs pinning."""

    def __call__(self, workspace: Workspace, backends: Backends, config: Any, into: Path) -> Any: ...


class Highlighter(Protocol):
    """``highlights(result, workspace, *, top) -> dict``: JSON-ready fields of the method's own that
    ``egx ask`` adds to its summary of ``result`` (BubbleRAG: its ``top`` ranked CEGs)."""

    def __call__(self, result: Any, workspace: Workspace, *, top: int = 5) -> dict[str, Any]: ...


@dataclass(frozen=True, eq=False)
class RunResult:
    """The fields of :class:`MethodResult` as a base for a result that stores them (the baselines, HippoRAG 2,
    ReG), so each declares only its own intermediates after them. (BubbleRAG, SG-RAG and FastInsight derive
    their passages and answer from their stages instead, as properties.)"""

    method: str
    query: str
    ranked_chunks: tuple[RankedChunk, ...]  #: retrieved passages, best first
    answer: str  #: the generated (or, in ``none`` mode, extractive) answer; may be empty
    trace: Trace


@dataclass(frozen=True)
class Artifacts:
    """The files a method keeps in a workspace beside the indexes (its trained models, cached selections).

    Parameters
    ----------
    folder
        Its folder in the workspace (``reg``, ``sgrag``): a name of one path part. The index layer knows it
        through :func:`core.index.paths.method_folders` (an interrupted commit's leftovers holding it are egx's).
    on_insert
        What documents added to the workspace make stale, in words: the folder belongs to the old graph, so an
        insert does not carry it over and its notes say so ("SG-RAG's dominance models (trained again on first
        use)").
    stamp_files
        Glob patterns under ``folder`` whose names, sizes and modification times identify the trained models on
        disk (:meth:`stamp`: part of a cached run's key), in the order they are read.
    """

    folder: str
    on_insert: str
    stamp_files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.folder or "/" in self.folder or self.folder.startswith(".") or self.folder in {"index", "."}:
            raise ConfigError(f"Artifacts folder {self.folder!r} must be one plain folder name of the workspace, "
                              "not hidden and not 'index', e.g. 'reg'.")

    def stamp_paths(self, workspace_path: Any) -> list[Any]:
        """The files :attr:`stamp_files` names in the workspace at ``workspace_path`` now (each pattern sorted)."""
        from pathlib import Path

        root = Path(workspace_path) / self.folder
        if not root.is_dir():
            return []
        return [f for pattern in self.stamp_files for f in sorted(root.glob(pattern))]

    def stamp(self, workspace_path: Any) -> str:
        """The trained models on disk now: each :meth:`stamp_paths` file's name, size and mtime ("" for none)."""
        parts = []
        for f in self.stamp_paths(workspace_path):
            try:
                st = f.stat()
            except OSError:
                continue
            parts.append(f"{f.parent.name}/{f.name}:{st.st_size}:{st.st_mtime_ns}")
        return ";".join(parts)


@dataclass(frozen=True, eq=False)
class Method(Generic[C, R]):
    """A retrieval method, as the registry, CLI, benchmark runner, diagnosis and UI see it.

    Parameters
    ----------
    name
        Registry name (``egx ask --method name``): lower-case letters, digits and ``_``.
    title
        What the UI calls it.
    paper
        The paper section it implements.
    run
        The pipeline entry point, returning the method's own typed result.
    config
        Its :class:`MethodConfig` subclass (``config()`` are the paper defaults).
    stages
        The stages it can lose the gold evidence at, in pipeline order (empty: the generic ones).
    diagnose
        Its failure diagnoser (None: the generic diagnoser of :mod:`core.methods.diagnoser`).
    needs_reranker
        Whether ``run`` uses ``backends.reranker`` (others get None).
    page
        Its step-through page (``"pages/x.py"``); the Compare page opens it with the question.
    prepare
        What it computes once per workspace before its runs (:class:`Preparation`; None: only the indexes).
    ablations
        Its ablation rows, as its paper names them (``egx ablate``).
    intros
        What each of its pages opens with (page file → :class:`~core.papers.Intro`).
    highlights
        What ``egx ask`` shows of this method's own result beside the answer and chunks (None: nothing).
    stamp
        The identity of every trained model it would use (:class:`Stamper`; None: it uses none beyond what the
        workspace's content, the backends and its config already name).
    trained_on
        The questions those models were trained or validated on (:class:`TrainedOn`; None: no model of it
        learned from questions).
    pin
        How a benchmark holds those models fixed for its run (:class:`Pinner`; None: nothing to hold).
    budget
        How a comparison's answer budget maps onto its own knobs: ``hook(config, budget) -> config``
        (:mod:`core.methods.budget`; :func:`~core.methods.budget.passage_budget` for a method that answers from
        its top passages). None: it runs only under the budget ``own`` (any other is refused, naming the hook).
    tasks
        Its heavy work that runs in a worker process (:class:`~core.background.workers.WorkerTask`: ReG's
        retriever training, SG-RAG's dominance model), each found by its kind (:meth:`task`).
    artifacts
        Its own files in the workspace (:class:`Artifacts`: folder, what an insert makes stale, model stamp);
        None: it keeps nothing beside the indexes.
    """

    name: str
    title: str
    paper: str
    run: Runner[C, R]
    config: type[C]
    stages: tuple[StageDecl, ...] = ()
    diagnose: Diagnoser | None = None
    needs_reranker: bool = False
    page: str = ""
    prepare: Preparation | None = None
    ablations: tuple[AblationRow, ...] = ()
    intros: dict[str, Intro] = field(default_factory=dict)
    highlights: Highlighter | None = None
    stamp: Stamper | None = None
    trained_on: TrainedOn | None = None
    pin: Pinner | None = None
    budget: BudgetHook | None = None
    tasks: tuple[WorkerTask, ...] = ()
    artifacts: Artifacts | None = None

    NAME_CHARS: ClassVar[frozenset[str]] = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")

    def __post_init__(self) -> None:
        if not self.name or not set(self.name) <= self.NAME_CHARS:
            raise ConfigError(f"Method name {self.name!r} is not valid; use lower-case letters, digits and '_'.")
        if not (isinstance(self.config, type) and issubclass(self.config, MethodConfig)):
            raise ConfigError(f"Method {self.name!r}: config must be a MethodConfig subclass, got {self.config!r}.")
        keys = [s.key for s in self.stages]
        if len(set(keys)) != len(keys):
            raise ConfigError(f"Method {self.name!r}: stages {keys} name a stage twice; declare each stage once, "
                              "in the method's pipeline order.")
        if self.page and not (self.page.startswith("pages/") and self.page.endswith(".py")):
            raise ConfigError(f"Method {self.name!r}: page {self.page!r} must be a file under pages/, e.g. 'pages/x.py'.")

    def task(self, kind: str) -> WorkerTask:
        """Its worker task ``kind``; an unknown kind lists the ones it declares."""
        for t in self.tasks:
            if t.kind == kind:
                return t
        raise ConfigError(f"Method {self.name!r} has no worker task {kind!r}; it declares "
                          f"{', '.join(t.kind for t in self.tasks) or 'none'}.")

    def ablation_rows(self) -> tuple[AblationRow, ...]:
        """:attr:`ablations` with each row's method filled in (the declaring method unless it names another)."""
        return tuple(r if r.method else dataclasses.replace(r, method=self.name) for r in self.ablations)

    def make_config(self, **changes: Any) -> C:
        """The default config with ``changes`` (an unknown field is a :class:`~core.errors.ConfigError`)."""
        return self.config.make(**changes)

    def has_option(self, name: str) -> bool:
        """Whether the config has the field ``name`` (e.g. ``evidence_format``)."""
        return name in {f.name for f in fields(self.config)}

