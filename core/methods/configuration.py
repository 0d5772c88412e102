"""Method configuration: a frozen dataclass, one field per knob (its default, help text and, for a knob a page
offers, its widget's label and bounds), type-checked and range-checked when built. The contract's words:
:mod:`core.methods.base` re-exports them."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from core.errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from typing import Self


Check = tuple[str, bool, str]  #: (field, whether its value is valid, what a valid value is)


@dataclass(frozen=True)
class Bounds:
    """Where a knob's widget lets a user move it, machine-readable so the UI draws the widget from the config:
    a slider from ``lo`` to ``hi`` by ``step`` (``number=True``: a number box), or one of ``choices``. Every
    value it offers passes the config's :meth:`MethodConfig.checks` (tests/methods/test_knobs.py walks them)."""

    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple[Any, ...] = ()
    number: bool = False


@dataclass(frozen=True)
class KnobInfo:
    """One knob of a config, as a widget needs it."""

    name: str
    default: Any
    help: str
    label: str  #: the widget's label ("" — the field name)
    bounds: Bounds | None  #: None: not drawn from the config (no widget declared)


def knob(default: Any, help: str, *, label: str = "", bounds: Bounds | None = None, **metadata: Any) -> Any:
    """A config field with its default, the help text the UI shows as the widget tooltip and, for a knob a
    page offers, its widget's ``label`` and :class:`Bounds`."""
    return field(default=default, metadata={"help": help, "label": label, "bounds": bounds, **metadata})


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

    @classmethod
    def knob_info(cls, name: str) -> KnobInfo:
        """What a widget for the knob ``name`` needs: default, help, label and bounds."""
        for f in fields(cls):
            if f.name == name:
                return KnobInfo(name, f.default, str(f.metadata.get("help", "")), str(f.metadata.get("label") or name),
                                f.metadata.get("bounds"))
        raise UnknownNameError(f"{cls.__name__} knob", name, [f.name for f in fields(cls)])

    @classmethod
    def knobs(cls) -> list[KnobInfo]:
        """Every knob with declared bounds (what the pages draw from the config)."""
        return [k for k in (cls.knob_info(f.name) for f in fields(cls)) if k.bounds is not None]

    def overrides(self) -> dict[str, Any]:
        """The fields whose value differs from the default (what a cache key or a summary needs)."""
        default = type(self)()
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
