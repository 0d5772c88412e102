"""Where egx keeps its folders: built workspaces, benchmark runs, caches and the bundled samples.

Each is a function (read when called), so ``$EGX_HOME`` / ``$EGX_CACHE_DIR`` / ``$EGX_SAMPLE_DATA``
set after import still count.
"""

from __future__ import annotations

import os
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
