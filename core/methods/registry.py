"""Names → retrieval methods: every method package's ``METHOD`` (:class:`~core.methods.base.Method`).

The packages of the papers are imported here, in the order the UI lists them (none imports a heavy
library at module level: torch, FAISS and the models load inside the functions that need them); any
other package under ``core/methods/`` that exports ``METHOD`` (or ``METHODS``) is found and added
after them, so a new method package needs no line here. A method defined elsewhere — a plugin, or a
test's toy method — joins with :func:`register` (or, for a while, :func:`registered`). From then on
``egx ask`` / ``egx bench``, the benchmark runner, the failure diagnosis and the Compare page see it.

A method package may also bring ``egx`` commands of its own (ReG: ``egx train-reg``) in a ``commands``
module; :func:`method_commands` finds them and the CLI adds them.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from core.errors import ConfigError, UnknownNameError
from core.index.paths import declare_method_folder
from core.methods import baselines, bubblerag, fastinsight, reg, sgrag
from core.methods.base import Method

AnyMethod = Method[Any, Any]

_PAPERS: tuple[ModuleType, ...] = (baselines, fastinsight, bubblerag, sgrag, reg)


def _exported(module: ModuleType) -> list[AnyMethod]:
    found = [getattr(module, "METHOD", None), *getattr(module, "METHODS", ())]
    return [m for m in found if isinstance(m, Method)]


def _other_packages() -> list[ModuleType]:
    """The packages under core/methods/ other than the papers', by package name."""
    import core.methods

    known = {m.__name__ for m in _PAPERS}
    return [importlib.import_module(info.name)
            for info in sorted(pkgutil.iter_modules(core.methods.__path__, "core.methods."), key=lambda i: i.name)
            if info.ispkg and info.name not in known]


def _discover() -> list[AnyMethod]:
    """The methods of the packages under core/methods/ other than the papers', by package name."""
    return [m for p in _other_packages() for m in _exported(p)]


#: The method packages, the papers' first (where :func:`method_commands` looks).
_PACKAGES: tuple[ModuleType, ...] = (*_PAPERS, *_other_packages())

#: The methods that ship with the project, in the order the UI lists them.
BUILTIN: tuple[AnyMethod, ...] = tuple(m for p in _PACKAGES for m in _exported(p))

#: Every registered method by name (the built-in ones plus those added with :func:`register`).
METHODS: dict[str, AnyMethod] = {m.name: m for m in BUILTIN}


def _declare_artifacts(method: AnyMethod) -> None:
    """Tell the index layer (below the methods) which workspace folder ``method`` keeps its files in."""
    if method.artifacts is not None:
        declare_method_folder(method.artifacts.folder, method.artifacts.on_insert)


for _m in BUILTIN:
    _declare_artifacts(_m)


def get_method(name: str) -> AnyMethod:
    """The registered method ``name``; an unknown name lists the valid ones."""
    if name not in METHODS:
        raise UnknownNameError("method", name, sorted(METHODS))
    return METHODS[name]


def method_names() -> list[str]:
    """Registered method names, built-in ones first."""
    return list(METHODS)


def register(method: AnyMethod, *, replace: bool = False) -> AnyMethod:
    """Add ``method`` to the registry (``replace=True`` swaps a method of the same name).

    Raises
    ------
    ConfigError
        If the name is taken and ``replace`` is False.
    """
    if not isinstance(method, Method):
        raise ConfigError(f"register() takes a core.methods.base.Method, got {type(method).__name__}.")
    if method.name in METHODS and not replace and METHODS[method.name] is not method:
        raise ConfigError(f"A method named {method.name!r} is already registered; pick another name "
                          "or pass replace=True.")
    METHODS[method.name] = method
    _declare_artifacts(method)
    return method


def unregister(name: str) -> None:
    """Remove the method ``name`` (a built-in one comes back only with :func:`register`)."""
    get_method(name)
    del METHODS[name]


@contextmanager
def registered(method: AnyMethod) -> Iterator[AnyMethod]:
    """Register ``method`` for the duration of a ``with`` block (tests, notebooks), then restore."""
    previous = METHODS.get(method.name)
    register(method, replace=True)
    try:
        yield method
    finally:
        if previous is None:
            METHODS.pop(method.name, None)
        else:
            METHODS[method.name] = previous


def method_commands() -> list[ModuleType]:
    """The ``egx`` commands the method packages bring, in package order.

    A package brings one by having a ``commands`` module (``core/methods/<name>/commands.py``) with
    ``NAME`` (the command, e.g. ``"train-reg"``), ``add_parser(subparsers)`` adding and returning its
    :class:`argparse.ArgumentParser`, and ``run(args) -> int`` (the exit status); its shared flags and
    helpers are in :mod:`core.cli_support` (a method may not import :mod:`core.cli`, which sits on the
    methods). The modules are imported here, when ``egx`` builds its parser, never by ``import
    core.methods.<name>``. Methods added with :func:`register` bring no commands.
    """
    names = [f"{p.__name__}.commands" for p in _PACKAGES]
    return [importlib.import_module(n) for n in names if importlib.util.find_spec(n) is not None]
