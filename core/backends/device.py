"""Torch device auto-selection shared by every backend (embedder, reranker, GNN, local LLM)."""

from __future__ import annotations

import math
import os
import time

from core.errors import BackendError

#: This process's clocks when it first imported the backends: its own share of the load average is
#: measured from here (see :func:`cpu_threads`).
_START = (time.monotonic(), time.process_time())

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


def cpu_threads(env_var: str | None = None, *, affinity: int | None = None, load: float | None = None,
                running: float | None = None, machine_cpus: int | None = None, own_load: float | None = None) -> int:
    """CPU threads one process may use for a backend's kernels (llama.cpp, onnxruntime).

    Order: the backend's own variable ``env_var`` (e.g. ``EGX_ONNX_THREADS``), else ``EGX_THREADS``
    (all backends; set it when several processes share a machine — the test suite sets it per
    pytest-xdist worker), else the CPUs this process may use that other processes leave free
    (:func:`free_cpus`): the CPUs in the affinity mask minus the load of the *other* processes,
    scaled to the mask's share of the machine, rounded, clamped to ``1 … affinity``.

    Why the free cores and not all of them: a thread pool that outnumbers the free cores runs far
    slower than a smaller one, since every operator waits for its slowest thread and a thread that
    shares a core with another process is the slowest (the cross-encoder over 100 MuSiQue pairs on 2
    cores beside other work: 27–34 s with 2 threads against 11.9 s with 1; for llama.cpp and the
    ONNX models, ``benchmarks/README.md``).

    The other processes' load is the smaller of two readings: the 1-minute load average less this
    process's own part (its CPU rate since the backends were imported, weighted as the kernel's
    average weighs it), which smooths bursts but still counts, for a minute or more, a job that
    has just finished; and the tasks runnable right now less the one reading them, which does not
    lag but is a snapshot. Taking the smaller errs towards more threads, the cheaper mistake once
    idle threads sleep rather than spin (measured with the cross-encoder on 2 cores: one thread
    too many cost 1.2×, one too few 1.35×). The threads are fixed when a backend opens its model
    (onnxruntime sessions are shared for the process's life); set a variable to pin them.

    Parameters
    ----------
    env_var : str or None
        The backend's own variable, read first.
    affinity, load, running, machine_cpus, own_load : int, float or None
        CPUs this process may use, the 1-minute load average, the tasks runnable now (this one
        included), the machine's CPUs and this process's own part of the load average; None reads
        them from the system (tests inject them).

    Raises
    ------
    BackendError
        A variable that is set but is not a positive integer.

    Examples
    --------
    >>> cpu_threads(affinity=2, load=1.1, running=2, machine_cpus=2, own_load=0.0)
    1
    >>> cpu_threads(affinity=2, load=3.0, running=1, machine_cpus=2, own_load=0.0)  # the others just ended
    2
    """
    for name in (env_var, "EGX_THREADS"):
        if not name:
            continue
        raw = os.environ.get(name, "").strip()
        if raw:
            if not raw.isdigit() or int(raw) < 1:
                raise BackendError(f"{name} must be a positive integer, got {raw!r}.")
            return int(raw)
    if affinity is None:
        try:
            affinity = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            affinity = os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows has no load average: every CPU counts as free
            load = 0.0
    others = max(0.0, load - (_own_load() if own_load is None else own_load))
    now = _running_now() if running is None else running
    if now is not None:
        others = min(others, max(0.0, now - 1))
    return free_cpus(affinity, others, machine_cpus if machine_cpus is not None else (os.cpu_count() or affinity))


def free_cpus(affinity: int, load: float, machine_cpus: int, own_load: float = 0.0) -> int:
    """The CPUs of the affinity mask that other processes leave free, at least 1 (see :func:`cpu_threads`).

    ``load - own_load`` is what the other processes keep runnable over the whole machine; spread
    evenly over ``machine_cpus``, the mask's ``affinity`` CPUs carry ``affinity / machine_cpus`` of
    it. The free count is rounded to the nearest integer (a core that others use less than half the
    time still gives a thread more work than it loses) and clamped to ``1 … affinity``.

    Examples
    --------
    >>> free_cpus(2, 0.4, 2), free_cpus(2, 0.6, 2), free_cpus(2, 5.0, 2)
    (2, 1, 1)
    >>> free_cpus(4, 32.0, 64)  # a 4-CPU mask on a 64-CPU machine running 32 threads elsewhere
    2
    """
    cpus = max(1, int(affinity))
    others = max(0.0, float(load) - max(0.0, float(own_load))) * cpus / max(cpus, int(machine_cpus))
    return max(1, min(cpus, math.floor(cpus - others + 0.5)))


def _running_now(samples: int = 5, spacing: float = 0.004) -> float | None:
    """Mean count of runnable tasks over a few milliseconds (``procs_running`` of ``/proc/stat``, which
    counts the reader too); None where there is no such file."""
    counts = []
    for i in range(samples):
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                counts += [int(line.split()[1]) for line in fh if line.startswith("procs_running")]
        except (OSError, ValueError, IndexError):
            return None
        if i + 1 < samples:
            time.sleep(spacing)
    return sum(counts) / len(counts) if counts else None


def _own_load() -> float:
    """This process's part of the 1-minute load average: its CPU rate since :data:`_START`, weighted
    as the kernel's exponential average weighs a load that began then (``1 - exp(-t / 60)``)."""
    wall = time.monotonic() - _START[0]
    if wall <= 0:
        return 0.0
    rate = (time.process_time() - _START[1]) / wall
    return rate * (1.0 - math.exp(-wall / 60.0))
