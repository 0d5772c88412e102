"""Torch device auto-selection shared by every backend (embedder, reranker, GNN, local LLM)."""

from __future__ import annotations

import os

from core.errors import BackendError

_VALID = ("auto", "cpu", "cuda", "mps")


def select_device(prefer: str | None = None) -> str:
    """Pick the torch device a backend should run on.

    Order: the ``prefer`` argument, else the ``EGX_DEVICE`` environment variable, else automatic
    selection: ``"cuda"`` when torch sees a GPU, else ``"mps"`` (Apple silicon) when available,
    else ``"cpu"``.

    Parameters
    ----------
    prefer : str or None
        ``"cpu"``, ``"cuda"`` (optionally with an index, ``"cuda:1"``), ``"mps"`` or ``"auto"``.
        ``None`` defers to ``EGX_DEVICE`` and then to automatic selection.

    Returns
    -------
    str
        A device string torch accepts: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"mps"``.

    Raises
    ------
    BackendError
        If the requested device is unknown, or is ``cuda``/``mps`` and torch cannot see it.

    Examples
    --------
    >>> select_device("cpu")
    'cpu'
    """
    source = "argument prefer"
    want = prefer
    if want is None or want.strip() == "":
        env = os.environ.get("EGX_DEVICE", "").strip()
        want, source = (env, "environment variable EGX_DEVICE") if env else ("auto", "")
    want = want.strip().lower()
    kind = want.split(":", 1)[0]
    if kind not in _VALID:
        raise BackendError(
            f"Unknown device {want!r} (from {source}). Use one of {', '.join(_VALID)}."
        )
    if kind == "cpu":
        return "cpu"

    import torch

    cuda_ok = bool(torch.cuda.is_available())
    mps_ok = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if kind == "auto":
        if cuda_ok:
            return "cuda"
        return "mps" if mps_ok else "cpu"
    if kind == "cuda" and not cuda_ok:
        raise BackendError(
            f"Device {want!r} was requested (from {source}) but torch sees no CUDA GPU "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'none'}). "
            "Use 'cpu' or 'auto', or install a CUDA build of torch."
        )
    if kind == "mps" and not mps_ok:
        raise BackendError(
            f"Device {want!r} was requested (from {source}) but torch reports MPS unavailable. "
            "Use 'cpu' or 'auto'."
        )
    return want
