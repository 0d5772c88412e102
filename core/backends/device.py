"""Torch device auto-selection shared by every backend (embedder, reranker, GNN, local LLM)."""

from __future__ import annotations

import os

from core.errors import BackendError

_VALID = ("auto", "cpu", "cuda", "mps")


def _requested(prefer: str | None) -> tuple[str, str, str]:
    """The device asked for (``prefer``, else ``EGX_DEVICE``, else ``auto``), lower-cased, its kind
    (``cuda`` of ``cuda:1``) and where it came from (for messages)."""
    source = "argument prefer"
    want = prefer
    if want is None or want.strip() == "":
        env = os.environ.get("EGX_DEVICE", "").strip()
        want, source = (env, "environment variable EGX_DEVICE") if env else ("auto", "")
    want = want.strip().lower()
    kind = want.split(":", 1)[0]
    if kind not in _VALID:
        raise BackendError(f"Unknown device {want!r} (from {source}). Use one of {', '.join(_VALID)}.")
    return want, kind, source


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
    want, kind, source = _requested(prefer)
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


CUDA_EP = "CUDAExecutionProvider"
CPU_EP = "CPUExecutionProvider"


def onnx_providers(prefer: str | None = None, available: list[str] | None = None) -> list[str | tuple[str, dict[str, int]]]:
    """onnxruntime execution providers for a backend, best first.

    The same rule as :func:`select_device`, for onnxruntime: ``prefer``, else ``EGX_DEVICE``, else
    automatic. Automatic picks onnxruntime's CUDA provider when the installed onnxruntime has one
    (the ``onnxruntime-gpu`` build; if no GPU is present after all, onnxruntime falls back to the
    CPU provider, which is always listed last) and the CPU provider otherwise. ``"mps"`` runs on
    the CPU provider (onnxruntime has no MPS provider).

    Parameters
    ----------
    prefer : str or None
        ``"cpu"``, ``"cuda"``/``"cuda:N"``, ``"mps"``, ``"auto"`` or None.
    available : list of str or None
        Providers the installed onnxruntime offers; default ``onnxruntime.get_available_providers()``
        (tests pass a fake list).

    Returns
    -------
    list
        Provider names for ``onnxruntime.InferenceSession(..., providers=...)``; ``"cuda:N"`` gives
        ``("CUDAExecutionProvider", {"device_id": N})``.

    Raises
    ------
    BackendError
        If the device is unknown, onnxruntime cannot be imported, or ``cuda`` is asked for and
        onnxruntime has no CUDA provider.

    Examples
    --------
    >>> onnx_providers("auto", available=["CPUExecutionProvider"])
    ['CPUExecutionProvider']
    >>> onnx_providers(None, available=["CUDAExecutionProvider", "CPUExecutionProvider"])[0]
    'CUDAExecutionProvider'
    """
    want, kind, source = _requested(prefer)
    if available is None:
        try:
            import onnxruntime
        except ImportError as exc:
            raise BackendError(f"The ONNX backends need onnxruntime, which could not be imported ({exc}). Install "
                               "it with: pip install onnxruntime==1.32.0 (or run `make setup`).") from None
        available = list(onnxruntime.get_available_providers())
    has_cuda = CUDA_EP in available
    if kind == "cuda" and not has_cuda:
        raise BackendError(
            f"Device {want!r} was requested (from {source}) but the installed onnxruntime has no CUDA "
            f"provider (it offers {', '.join(available)}). Install onnxruntime-gpu, or use 'cpu' or 'auto'.")
    if kind in ("cuda", "auto") and has_cuda:
        if ":" in want:
            index = want.split(":", 1)[1]
            if not index.isdigit():
                raise BackendError(f"Device {want!r} (from {source}) needs a GPU number after 'cuda:', e.g. 'cuda:0'.")
            return [(CUDA_EP, {"device_id": int(index)}), CPU_EP]
        return [CUDA_EP, CPU_EP]
    return [CPU_EP]


def cpu_threads(env_var: str | None = None) -> int:
    """CPU threads one process may use for a backend's kernels (llama.cpp, onnxruntime).

    Order: the backend's own variable ``env_var`` (e.g. ``EGX_ONNX_THREADS``), else ``EGX_THREADS``
    (all backends; set it when several processes share a machine — the test suite sets it per
    pytest-xdist worker), else the CPUs this process may use. Spinning thread pools that outnumber the
    free cores run far slower than fewer threads (measured for llama.cpp in ``benchmarks/README.md``).

    Raises
    ------
    BackendError
        A variable that is set but is not a positive integer.
    """
    for name in (env_var, "EGX_THREADS"):
        if not name:
            continue
        raw = os.environ.get(name, "").strip()
        if raw:
            if not raw.isdigit() or int(raw) < 1:
                raise BackendError(f"{name} must be a positive integer, got {raw!r}.")
            return int(raw)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
