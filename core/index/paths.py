"""Where egx keeps its folders: built workspaces, benchmark runs, caches and the bundled samples.

Each is a function (read when called), so ``$EGX_HOME`` / ``$EGX_CACHE_DIR`` / ``$EGX_SAMPLE_DATA``
set after import still count.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from core.fsio import egx_home


def workspaces_root() -> Path:
    return egx_home() / "workspaces"


def runs_root() -> Path:
    """Where benchmark runs started from the app live: ``$EGX_HOME/runs/<run name>``."""
    return egx_home() / "runs"


def cache_dir() -> Path:
    """Caches (extraction results, assembled model files): ``$EGX_CACHE_DIR`` or ``~/.cache/egx``."""
    return Path(os.environ.get("EGX_CACHE_DIR") or Path.home() / ".cache" / "egx")


def sample_data_dir() -> Path:
    """The bundled ``sample_data/`` (override with ``$EGX_SAMPLE_DATA``)."""
    env = os.environ.get("EGX_SAMPLE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "sample_data"


#: folder → what an insert makes stale, for every method that keeps files in a workspace
#: (:attr:`core.methods.base.Method.artifacts`). The methods sit above this layer, so the registry declares them
#: here as it collects them (:func:`declare_method_folder`), and a build in a worker process gets them in its spec.
_METHOD_FOLDERS: dict[str, str] = {}


def declare_method_folder(folder: str, on_insert: str) -> None:
    """Record that a method keeps its files in the workspace folder ``folder`` (``on_insert``: what documents
    added to the workspace make stale, in words)."""
    _METHOD_FOLDERS[folder] = on_insert


def method_folders() -> Mapping[str, str]:
    """The workspace folders the registered methods keep their files in → what an insert makes stale."""
    return dict(_METHOD_FOLDERS)
