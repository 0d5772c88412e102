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
import types
import typing
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar, runtime_checkable

import numpy as np

from core.backends.base import LLM, Embedder, Reranker
from core.errors import ConfigError
from core.trace import Trace, to_jsonable

if TYPE_CHECKING:
    from typing import Self

    from core.index.workspace import Workspace


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


# ====================================================================================== configuration
Check = tuple[str, bool, str]  #: (field, whether its value is valid, what a valid value is)


def knob(default: Any, help: str, **metadata: Any) -> Any:
    """A config field with its default and the help text the UI shows as the widget tooltip."""
    return field(default=default, metadata={"help": help, **metadata})


def one_of(values: Iterable[Any]) -> str:
    """``'a', 'b' or 'c'``: the valid values of a choice, for error messages."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


_CHOICES: dict[type, dict[str, tuple[Any, ...]]] = {}
_SCALARS: dict[type, dict[str, tuple[type, bool]]] = {}
_KIND_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a text value"}


def _is_kind(value: Any, kind: type) -> bool:
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and value == value  # NaN != NaN
    return isinstance(value, kind)


def _scalar_types(cls: type) -> dict[str, tuple[type, bool]]:
    """Field name → (``int``/``float``/``bool``/``str``, whether None is allowed), for the fields annotated
    with one of those (alone or ``| None``); read once per class."""
    if cls not in _SCALARS:
        hints = typing.get_type_hints(cls)
        out: dict[str, tuple[type, bool]] = {}
        for f in fields(cls):
            t = hints.get(f.name)
            args = typing.get_args(t) if typing.get_origin(t) in (typing.Union, types.UnionType) else (t,)
            kinds = [a for a in args if a is not type(None)]
            if len(kinds) == 1 and kinds[0] in _KIND_WORDS:
                out[f.name] = (kinds[0], type(None) in args)
        _SCALARS[cls] = out
    return _SCALARS[cls]


def _choices(cls: type) -> dict[str, tuple[Any, ...]]:
    """Field name → allowed values, for every field annotated with a ``Literal`` (or ``Literal | None``);
    read once per class."""
    if cls in _CHOICES:
        return _CHOICES[cls]
    hints = typing.get_type_hints(cls)
    out: dict[str, tuple[Any, ...]] = {}
    for f in fields(cls):
        t = hints.get(f.name)
        args: tuple[Any, ...] = ()
        if typing.get_origin(t) is Literal:
            args = typing.get_args(t)
        elif typing.get_origin(t) in (typing.Union, types.UnionType):
            for a in typing.get_args(t):
                if typing.get_origin(a) is Literal:
                    args += typing.get_args(a)
                elif a is type(None):
                    args += (None,)
        if args and any(a is not None for a in args):
            out[f.name] = args
    _CHOICES[cls] = out
    return out


@dataclass(frozen=True)
class MethodConfig:
    """Base of every configuration: a frozen dataclass, one field per knob (declared with
    :func:`knob`: its default — the paper's where it gives one — and help text), checked when built.

    Validation runs in ``__post_init__`` (so :meth:`with_` re-checks too): a field annotated with a
    ``Literal`` must hold one of its values, and every rule a subclass lists in :meth:`checks` must
    hold; otherwise :class:`~core.errors.ConfigError` says
    ``"XConfig.field = value is out of range; use <what is valid>."``.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class ToyConfig(MethodConfig):
    ...     k: int = knob(5, "Passages kept.")
    ...     def checks(self):
    ...         return [("k", self.k >= 1, "an integer >= 1")]
    >>> ToyConfig().with_(k=3).k, ToyConfig.help()["k"]
    (3, 'Passages kept.')
    >>> ToyConfig(k=0)
    Traceback (most recent call last):
    core.errors.ConfigError: ToyConfig.k = 0 is out of range; use an integer >= 1.
    """

    def __post_init__(self) -> None:
        self.check_types()
        self.validate()

    def checks(self) -> Iterable[Check]:
        """Range rules ``(field, ok, what is valid)``; subclasses list theirs (Literal fields are automatic)."""
        return ()

    def check_types(self) -> None:
        """Raise :class:`~core.errors.ConfigError` naming the first field of the wrong type (run before
        :meth:`validate`, whose range rules may compare values). A field annotated ``int``, ``float``,
        ``bool`` or ``str`` (or that ``| None``) must hold that type: ``top_k = 'abc'``, ``top_k = True`` or
        ``top_k = 2.5`` is refused by name (an integral float such as ``2.0`` becomes ``2``; an int is a valid
        float; NaN is not a number here)."""
        for name, (kind, optional) in _scalar_types(type(self)).items():
            value = getattr(self, name)
            if value is None and optional:
                continue
            if kind is int and isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
                object.__setattr__(self, name, value := int(value))
            if not _is_kind(value, kind):
                want = _KIND_WORDS[kind] + (" or None" if optional else "")
                raise ConfigError(f"{type(self).__name__}.{name} = {value!r} is not {want}; give {want}.")

    def validate(self) -> None:
        """Raise :class:`~core.errors.ConfigError` naming the first field that is out of range."""
        for name, values in _choices(type(self)).items():
            if getattr(self, name) not in values:
                raise ConfigError(self.out_of_range(name, one_of(v for v in values if v is not None)))
        for name, ok, valid in self.checks():
            if not ok:
                raise ConfigError(self.out_of_range(name, valid))

    def out_of_range(self, name: str, valid: str) -> str:
        return f"{type(self).__name__}.{name} = {getattr(self, name)!r} is out of range; use {valid}."

    @classmethod
    def _check_names(cls, names: Iterable[str]) -> None:
        have = [f.name for f in fields(cls)]
        unknown = sorted(set(names) - set(have))
        if unknown:
            raise ConfigError(f"{cls.__name__} has no field {unknown}; it has {sorted(have)}.")

    @classmethod
    def make(cls, **values: Any) -> Self:
        """``cls(**values)``, with an unknown field name a :class:`~core.errors.ConfigError` listing the fields."""
        cls._check_names(values)
        return cls(**values)

    def with_(self, **changes: Any) -> Self:
        """A copy with ``changes`` applied (and checked)."""
        self._check_names(changes)
        return dataclasses.replace(self, **changes)

    @classmethod
    def help(cls) -> dict[str, str]:
        """Field name → help text (the UI's widget tooltips)."""
        return {f.name: str(f.metadata.get("help", "")) for f in fields(cls)}

    def overrides(self) -> dict[str, Any]:
        """The fields whose value differs from the default (what a cache key or a summary needs)."""
        default = type(self)()
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ====================================================================================== diagnosis words
#: The stages a method can lose the gold evidence at, in pipeline order (a method declares a subset).
STAGE_ORDER: tuple[str, ...] = ("not_in_graph", "no_anchor", "not_connected", "ranked_out", "not_expanded",
                                "answer_wrong")
OK = "ok"
NO_GOLD = "no_gold"
VERDICTS: tuple[str, ...] = (*STAGE_ORDER, OK, NO_GOLD)

#: Default UI text per stage key (methods override the label/help in their own declarations).
STAGE_LABELS: dict[str, str] = {
    "not_in_graph": "gold passage not in the graph",
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

    @classmethod
    def from_question(cls, q: Any) -> Gold:
        """From a :class:`core.index.questions.Question` (its answer plus aliases when it has them)."""
        answers = tuple(a for a in (getattr(q, "answer", ""), *getattr(q, "aliases", ())) if a)
        return cls(str(q.id), tuple(q.gold_chunks), tuple(dict.fromkeys(answers)), tuple(getattr(q, "unmatched", ())))


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


class Highlighter(Protocol):
    """``highlights(result, workspace, *, top) -> dict``: JSON-ready fields of the method's own that
    ``egx ask`` adds to its summary of ``result`` (BubbleRAG: its ``top`` ranked CEGs)."""

    def __call__(self, result: Any, workspace: Workspace, *, top: int = 5) -> dict[str, Any]: ...


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
        Its failure diagnoser (None: the generic diagnoser of :mod:`core.methods.diagnosis`).
    needs_reranker
        Whether ``run`` uses ``backends.reranker`` (others get None).
    page
        Its step-through page (``"pages/x.py"``); the Compare page opens it with the question.
    highlights
        What ``egx ask`` shows of this method's own result beside the answer and chunks (None: nothing).
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
    highlights: Highlighter | None = None

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

    def make_config(self, **changes: Any) -> C:
        """The default config with ``changes`` (an unknown field is a :class:`~core.errors.ConfigError`)."""
        return self.config.make(**changes)

    def has_option(self, name: str) -> bool:
        """Whether the config has the field ``name`` (e.g. ``evidence_format``)."""
        return name in {f.name for f in fields(self.config)}

