"""Ray for the heavy batch work (indexing and benchmarks on a cluster): ``egx index --ray`` and ``egx bench --ray``.

The one module that imports Ray (an optional extra: ``pip install '.[scale]'``), and only inside its
functions, so ``import core`` and the default install never pull it in.

* **Index** (:meth:`RayRunner.embed`, :meth:`RayRunner.extract`): the texts to embed (nodes, edges,
  chunks) and the chunks to extract triples from become Ray Data datasets, mapped with
  ``map_batches`` by a fixed pool of *model-holding actors* (class-based UDFs: each actor loads the
  embedder or the extractor once). The blocks are exactly the batches of the single-process path
  (:func:`core.index.vector_index.embed_texts`: length-sorted, 256 a batch; extraction: the
  extractor's batches), so the vectors and triples are the same; the driver writes the FAISS files,
  the extraction cache and the manifest as before (:func:`core.index.create.create_workspace`).
* **Bench** (:meth:`RayRunner.run_pairs`): one actor per worker opens the workspace and the backends
  once and runs question × method pairs (:func:`core.eval.pair.run_pair`); the driver writes each
  line into ``results.jsonl`` as it arrives, under the benchmark's lock, so a kill keeps the finished
  pairs and a rerun resumes (:func:`core.eval.runner.run_benchmark`).
* **Where**: no address starts a local Ray (``ray.init(num_cpus=…)``; session files under Ray's default
  ``/tmp/ray``), shut down afterwards, its processes ending with this one however it ends (below);
  ``HOST:PORT`` (the cluster's GCS, from ``ray status`` on the head
  node), ``auto`` (the cluster this machine belongs to) or ``ray://HOST:10001`` (Ray Client) connects to
  a running cluster, whose nodes need this project installed (same version) and the workspace folder at
  the same path. A Ray already initialized in this process (the tests) is used as it is.
* **GPU-aware**: when the cluster has GPUs, every actor asks for one (``num_gpus=1``) and there are as
  many actors as GPUs by default; the embedders then pick CUDA (:mod:`core.backends.device`). Without
  GPUs, one CPU per actor and one actor per CPU.
* **Lifecycle of a local Ray**: its head processes (GCS, raylet, monitors) end with this process through
  Ray's own parent-death signal, and its workers with the raylet; its dashboard and runtime-env agents only
  noticed their raylet's end and then waited a minute and more on the dead GCS. A :class:`core.background.procs.Sweeper`,
  started before ``ray.init``, watches what Ray starts and kills every process it saw as soon as
  :meth:`RayRunner.close` has shut Ray down, or this process is gone, SIGKILL included. ``ray.init``
  replaces the SIGTERM handler with its own ``sys.exit``; a handler the command had installed (``egx``'s:
  SIGTERM cleans up like Ctrl-C) is put back.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from core.backends.registry import LLMSpec
from core.errors import EgxError, ScaleError

if TYPE_CHECKING:
    from core.backends.base import BatchExtraction, Embedder, TripleExtractor
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends

#: What to run to get Ray (named by every "Ray is not installed" error).
INSTALL_HINT = "pip install '.[scale]'"
#: Rows per embedding batch: the single-process path's batch (:func:`core.index.vector_index.embed_texts`).
EMBED_BATCH = 256
#: The local Ray's object store (MiB; ``EGX_RAY_OBJECT_STORE_MB``): results stream through it, and
#: Ray spills to disk beyond it, so it need not hold a whole index.
DEFAULT_OBJECT_STORE_MB = 1024
#: Seconds to wait for the cluster's port to answer before giving up on an address.
CONNECT_TIMEOUT_S = 5.0
#: Environment variables handed to the workers of a cluster (never one that holds a secret).
_ENV_PREFIXES = ("EGX_", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_SECRET = re.compile(r"KEY|PASSWORD|TOKEN|SECRET", re.I)
_HOST_PORT = re.compile(r"^(?:ray://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")


@contextlib.contextmanager
def _keep_sigterm_handler() -> Iterator[None]:
    """Put back a SIGTERM handler of the command's own (a Python function) that ``ray.init`` replaced."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if callable(before):
            signal.signal(signal.SIGTERM, before)


def ray_module() -> Any:
    """``import ray`` (with Ray Data), or a :class:`ScaleError` naming the extra to install."""
    try:
        import ray
        import ray.data  # Ray Data: map_batches with actor pools
    except ImportError as exc:
        raise ScaleError(f"--ray needs Ray, which is not installed ({exc.msg}). It is an optional extra: run "
                         f"`{INSTALL_HINT}` in the project folder (`make setup` installs it too), or leave --ray "
                         "out to run in this process.") from None
    return ray


def check_address(address: str) -> str:
    """``address`` if it names a Ray cluster the way ``ray.init`` takes it, else a :class:`ScaleError`.

    ``auto``, ``HOST:PORT`` (the head node's GCS, port 6379 by default) or ``ray://HOST:PORT`` (Ray
    Client, port 10001 by default). A ``HOST:PORT`` whose port does not answer within
    :data:`CONNECT_TIMEOUT_S` is refused here (``ray.init`` would wait for minutes).
    """
    addr = address.strip()
    if addr == "auto":
        return addr
    m = _HOST_PORT.match(addr)
    if m is None or not 0 < int(m.group(2)) < 65536:
        raise ScaleError(f"The Ray address {address!r} is not one Ray takes. Give HOST:PORT of the cluster's head "
                         "node (GCS port, 6379 by default; `ray status` there prints it), ray://HOST:10001 for Ray "
                         "Client, or 'auto' on a node of the cluster; or no address to start a local Ray.")
    host, port = m.group(1).strip("[]"), int(m.group(2))
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ScaleError(f"Cannot reach the Ray cluster at {address!r} ({why}). Check that the cluster is up "
                         "(`ray start --head` on its head node; `ray status` prints the address) and that this "
                         "machine may connect to that port; or leave the address out to start a local Ray.") from None
    return addr


def _cause(exc: BaseException) -> BaseException:
    """The :class:`EgxError` a Ray error wraps (a worker's clean error stays clean), else ``exc``."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, EgxError):
            return e
        e = getattr(e, "cause", None) or e.__cause__
    return exc


def _worker_env(cpus: int) -> None:
    """An actor's process settings: its share of threads, the spaCy extractor in-process (the actors
    are the parallelism)."""
    os.environ.setdefault("EGX_ONNX_THREADS", str(max(1, cpus)))
    os.environ["EGX_SPACY_PROCESSES"] = "1"


class _EmbedActor:
    """Ray Data UDF: holds one embedder (built by registry name, checked against the driver's)."""

    def __init__(self, name: str, model_id: str, dim: int, cpus: int = 1) -> None:
        from core.backends.registry import get_embedder

        _worker_env(cpus)
        self.embedder = get_embedder(name)
        if self.embedder.model_id != model_id or self.embedder.dim != dim:
            raise ScaleError(f"The Ray worker built embedder {name!r} as {self.embedder.model_id!r} (dim "
                             f"{self.embedder.dim}), not {model_id!r} (dim {dim}) as here: install the same "
                             "project version and model packages on every node.")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        # One embed call per single-process batch (column g), never across two: an int8 model's dynamic
        # activation scales, and padding, depend on what shares the call.
        vecs = np.empty((len(batch["g"]), self.embedder.dim), dtype=np.float32)
        for g in dict.fromkeys(batch["g"].tolist()):
            sel = np.flatnonzero(batch["g"] == g)
            vecs[sel] = self.embedder.embed([str(batch["text"][j]) for j in sel])
        return {"k": batch["k"], "i": batch["i"], "vec": vecs}


class _ExtractActor:
    """Ray Data UDF: holds one triple extractor; a batch of rows is one or more extraction batches
    (column ``b``), each extracted as one call, exactly as the single-process loop does."""

    def __init__(self, name: str, model_id: str, llm: LLMSpec, cpus: int = 1) -> None:
        from core.backends.registry import get_extractor

        _worker_env(cpus)
        self.extractor = get_extractor(name, llm=llm.build() if name == "llm" else None)
        if self.extractor.model_id != model_id:
            raise ScaleError(f"The Ray worker built extractor {name!r} as {self.extractor.model_id!r}, not "
                             f"{model_id!r} as here: install the same project version and models on every node.")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from core.backends.base import extract_batch

        order = np.lexsort((batch["p"], batch["b"]))
        bs, texts = batch["b"][order], [str(t) for t in batch["text"][order]]
        out_b, out_json = [], []
        for k in dict.fromkeys(int(b) for b in bs):
            sel = [texts[j] for j in range(len(texts)) if int(bs[j]) == k]
            triples, bad, notes = extract_batch(self.extractor, sel)
            out_b.append(k)
            out_json.append(json.dumps({"triples": [[[t.head, t.relation, t.tail] for t in ts] for ts in triples],
                                        "failed": sorted(bad), "notes": list(notes)}))
        return {"b": np.asarray(out_b, dtype=np.int64), "result": np.asarray(out_json, dtype=object)}


class _BenchWorker:
    """Ray actor: one workspace and one set of backends, opened once, runs benchmark pairs."""

    def __init__(self, spec: dict[str, Any], cpus: int = 1) -> None:
        from core.backends.registry import get_embedder, get_reranker
        from core.index.workspace import Workspace
        from core.methods.base import Backends

        _worker_env(cpus)
        emb_name, emb_id, dim = spec["embedder"]
        embedder = get_embedder(emb_name)
        if embedder.model_id != emb_id or embedder.dim != dim:
            raise ScaleError(f"The Ray worker built embedder {emb_name!r} as {embedder.model_id!r}, not {emb_id!r}.")
        llm = spec["llm"].build()
        reranker = None
        if spec["reranker"] is not None:
            rr_name, rr_id = spec["reranker"]
            reranker = get_reranker(rr_name, embedder=embedder, llm=llm)
            if reranker.model_id != rr_id:
                raise ScaleError(f"The Ray worker built reranker {rr_name!r} as {reranker.model_id!r}, not {rr_id!r}.")
        self.workspace = Workspace.open(spec["path"])
        self.backends = Backends(embedder, llm, reranker)

    def run(self, q: Question, method: str, config: object | None, seed: int, cut: int,
            trace: bool) -> tuple[dict[str, Any], str | None]:
        from core.eval.pair import run_pair

        return run_pair(self.workspace, q, method, self.backends, config=config, seed=seed, cut=cut, trace=trace)


class RayRunner:
    """Runs the batch work of ``egx index`` and ``egx bench`` on Ray (a
    :class:`~core.backends.base.BatchRunner` and a :class:`~core.eval.pair.PairRunner`).

    Use as a context manager: entering connects (or starts a local Ray), leaving shuts down what it
    started.

    Parameters
    ----------
    address : str or None
        ``None``: start a local Ray with ``num_cpus`` CPUs. Else a cluster address
        (:func:`check_address`).
    workers : int or None
        Model-holding actors (each loads the model once). ``None``: one per GPU when the cluster has
        GPUs, else one per CPU of the cluster.
    num_cpus : int or None
        CPUs of a local Ray (default: this machine's).
    llm : LLMSpec
        How workers build the LLM (the LLM extractor, bench answers).

    Raises
    ------
    ScaleError
        Ray is not installed (names ``pip install '.[scale]'``), the address is malformed or
        unreachable (names the address), or ``workers`` is below 1.
    """

    def __init__(self, address: str | None = None, *, workers: int | None = None, num_cpus: int | None = None,
                 llm: LLMSpec | None = None) -> None:
        if workers is not None and workers < 1:
            raise ScaleError(f"--ray-workers {workers} is out of range; give at least 1 worker (or leave it out: one "
                             "per CPU, or per GPU when the cluster has GPUs).")
        if num_cpus is not None and num_cpus < 1:
            raise ScaleError(f"A local Ray needs at least 1 CPU, got {num_cpus}.")
        self.address = address.strip() if address else None
        self.llm = llm or LLMSpec()
        self._want_workers = workers
        self._num_cpus = num_cpus
        self._ray: Any = None
        self._started = False
        self._sweeper: Any = None
        self.workers = 0
        self.gpus_per_worker = 0.0

    # ---------------------------------------------------------------- session
    def __enter__(self) -> RayRunner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Connect to the cluster (or start a local Ray) and size the actor pool."""
        ray = ray_module()
        if self.address is not None:
            check_address(self.address)
        if not ray.is_initialized():
            env = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) and not _SECRET.search(k)}
            common: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "logging_level": logging.WARNING, "runtime_env": {"env_vars": env}}
            if self.address is None:  # before Ray starts anything: what the local Ray starts goes with this process
                from core.background.procs import Sweeper

                # every program of Ray's runs from its package folder (gcs_server, raylet, its Python scripts)
                self._sweeper = Sweeper(f"{os.sep}ray{os.sep}")
            try:
                with _keep_sigterm_handler():
                    if self.address is None:
                        mb = int(os.environ.get("EGX_RAY_OBJECT_STORE_MB", DEFAULT_OBJECT_STORE_MB))
                        ray.init(address="local", num_cpus=self._num_cpus or os.cpu_count() or 1,
                                 object_store_memory=mb * 1024 * 1024, **common)
                    else:
                        ray.init(address=self.address, **common)
            except BaseException as exc:
                self.close()  # what a failed start began
                raise self._start_error(exc) from None
            self._started = True
        self._ray = ray
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.execution_options.preserve_order = True
        ctx.print_on_execution_start = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # no per-dataset INFO lines or progress notes
        res = ray.cluster_resources()
        gpus, cpus = int(res.get("GPU", 0)), int(res.get("CPU", 0))
        self.gpus_per_worker = 1.0 if gpus >= 1 else 0.0
        self.workers = self._want_workers or max(1, gpus if gpus >= 1 else cpus)

    def _start_error(self, exc: BaseException) -> BaseException:
        """What a failed ``ray.init`` raises here: a :class:`ScaleError` in words a user can act on, else ``exc``."""
        if isinstance(exc, ValueError):
            return ScaleError(f"Ray could not start with these settings: {exc}")
        if isinstance(exc, (ConnectionError, RuntimeError, TimeoutError)):
            where = f"the Ray cluster at {self.address!r}" if self.address else "a local Ray"
            return ScaleError(f"Could not connect to {where}: {exc}. Check the address (HOST:PORT of the head node's "
                              "GCS, ray://HOST:10001, or 'auto') and that the cluster runs the same Ray version; or "
                              "leave the address out to start a local Ray.")
        return exc

    def close(self) -> None:
        """Shut down the Ray this runner started (a Ray it found running is left as it was); of a local Ray,
        every process is gone when this returns."""
        sweeper, self._sweeper = self._sweeper, None
        try:
            if self._started and self._ray is not None:
                self._ray.shutdown()
        finally:
            self._started = False
            if sweeper is not None:
                sweeper.close()

    def _need(self) -> Any:
        if self._ray is None:
            raise ScaleError("The Ray runner is not started; use it as `with RayRunner(...) as runner:`.")
        return self._ray

    def describe(self) -> dict[str, Any]:
        """Where the work runs, for the manifest (never a secret: an address has none)."""
        return {"backend": "ray", "address": self.address or "local", "workers": self.workers,
                "gpus_per_worker": self.gpus_per_worker}

    def _map_args(self) -> dict[str, Any]:
        return {"compute": self._ray.data.ActorPoolStrategy(size=self.workers), "num_cpus": 1,
                "num_gpus": self.gpus_per_worker, "batch_format": "numpy"}

    # ---------------------------------------------------------------- index
    def embed(self, embedder: Embedder, texts: dict[str, list[str]], progress: Any = None) -> dict[str, np.ndarray]:
        """Embed every list of ``texts`` on the actor pool: one Ray Data block per single-process
        batch (each list sorted by length, longest first, then cut in :data:`EMBED_BATCH` rows), and
        one embed call per such batch, so the vectors are the single-process ones.

        Returns
        -------
        dict of str to numpy.ndarray
            ``(len(texts[k]), embedder.dim)`` float32 per key, in the input order.
        """
        import pyarrow as pa

        from core.index.vector_index import ITEM_OVERHEAD_CHARS

        ray = self._need()
        keys = list(texts)
        out = {k: np.empty((len(texts[k]), embedder.dim), dtype=np.float32) for k in keys}
        blocks: list[Any] = []
        for code, k in enumerate(keys):
            items = texts[k]
            order = sorted(range(len(items)), key=lambda i: -len(items[i]))
            for start in range(0, len(order), EMBED_BATCH):
                sel = order[start:start + EMBED_BATCH]
                g = [len(blocks)] * len(sel)
                blocks.append(pa.table({"g": pa.array(g, pa.int64()), "k": pa.array([code] * len(sel), pa.int32()),
                                        "i": pa.array(sel, pa.int64()),
                                        "text": pa.array([items[i] for i in sel], pa.large_string())}))
        total = float(sum(len(t) + ITEM_OVERHEAD_CHARS for k in keys for t in texts[k])) or 1.0
        label = ", ".join(keys)
        n = sum(len(texts[k]) for k in keys)
        if not blocks:
            return out
        ds = ray.data.from_arrow(blocks).map_batches(
            _EmbedActor, fn_constructor_kwargs={"name": embedder.name, "model_id": embedder.model_id,
                                                "dim": embedder.dim}, batch_size=None, **self._map_args())
        done_rows, done_w = 0, 0.0
        if progress:
            progress(f"Embedding {label} on Ray ({self.workers} workers): 0/{n:,}", 0.0)
        try:
            for b in ds.iter_batches(batch_size=None, batch_format="numpy"):
                codes, idx, vecs = b["k"], b["i"], b["vec"]
                for code, k in enumerate(keys):
                    mask = codes == code
                    if mask.any():
                        rows = idx[mask]
                        out[k][rows] = vecs[mask]
                        done_w += sum(len(texts[k][int(i)]) + ITEM_OVERHEAD_CHARS for i in rows)
                done_rows += len(idx)
                if progress:
                    progress(f"Embedding {label} on Ray ({self.workers} workers): {done_rows:,}/{n:,}", done_w / total)
        except Exception as exc:
            raise _cause(exc) from None
        if done_rows != n:
            raise ScaleError(f"Ray returned {done_rows} of {n} embeddings; run the build again.")
        if progress:
            progress(f"Embedded {n:,} {label} on Ray", 1.0)
        return out

    def extract(self, extractor: TripleExtractor, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, BatchExtraction]]:
        """Extract triples from every batch on the actor pool, one block per batch; yields
        ``(batch position, (triples per passage, failed positions, notes))`` as blocks finish."""
        import pyarrow as pa

        from core.backends.base import ExtractedTriple

        ray = self._need()
        if not batches:
            return
        blocks = [pa.table({"b": pa.array([k] * len(b), pa.int64()), "p": pa.array(range(len(b)), pa.int64()),
                            "text": pa.array(list(b), pa.large_string())}) for k, b in enumerate(batches)]
        ds = ray.data.from_arrow(blocks).map_batches(
            _ExtractActor, fn_constructor_kwargs={"name": extractor.name, "model_id": extractor.model_id,
                                                  "llm": self.llm}, batch_size=None, **self._map_args())
        try:
            for res in ds.iter_batches(batch_size=None, batch_format="numpy"):
                for k, raw in zip(res["b"], res["result"]):
                    data = json.loads(str(raw))
                    triples = [[ExtractedTriple(*t) for t in ts] for ts in data["triples"]]
                    yield int(k), (triples, set(data["failed"]), list(data["notes"]))
        except Exception as exc:
            raise _cause(exc) from None

    # ---------------------------------------------------------------- bench
    def run_pairs(self, workspace: Workspace, pairs: Sequence[tuple[Question, str]], backends: Backends, *,
                  configs: dict[str, object], seed: int, cut: int,
                  traces: bool) -> Iterator[tuple[Question, str, dict[str, Any], str | None]]:
        """Run benchmark pairs on ``workers`` actors (each opens ``workspace`` and the backends once)
        and yield ``(question, method, record, trace JSON)`` as each finishes. Two pairs per actor are
        in flight; leaving early (an error, Ctrl-C) cancels the rest and stops the actors."""
        ray = self._need()
        if not pairs:
            return
        emb = backends.embedder
        rr = backends.reranker
        spec = {"path": str(workspace.path), "embedder": (emb.name, emb.model_id, emb.dim),
                "reranker": (rr.name, rr.model_id) if rr is not None else None, "llm": self.llm}
        worker_cls = ray.remote(num_cpus=1, num_gpus=self.gpus_per_worker, max_restarts=0)(_BenchWorker)
        actors = [worker_cls.remote(spec) for _ in range(min(self.workers, len(pairs)))]
        queue = deque(range(len(pairs)))
        inflight: dict[Any, tuple[Any, int]] = {}

        def submit(actor: Any) -> None:
            k = queue.popleft()
            q, m = pairs[k]
            ref = actor.run.remote(q, m, configs.get(m), seed, cut, traces)
            inflight[ref] = (actor, k)

        try:
            for _ in range(2):
                for a in actors:
                    if queue:
                        submit(a)
            while inflight:
                ready, _ = ray.wait(list(inflight), num_returns=1)
                actor, k = inflight.pop(ready[0])
                try:
                    rec, trace = ray.get(ready[0])
                except Exception as exc:
                    raise _cause(exc) from None
                if queue:
                    submit(actor)
                q, m = pairs[k]
                yield q, m, rec, trace
        finally:
            for a in actors:
                ray.kill(a)
