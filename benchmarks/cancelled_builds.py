"""The app server's memory and processes after cancelled builds.

Ten workspace builds of the MuSiQue corpus (1,890 passages, the default spaCy extractor with a pool of two
workers, ``EGX_SPACY_PROCESSES=2``; the hashing embedder) are started one after another as jobs of a
:class:`core.background.jobs.JobManager`, the way the app's Data page starts an upload's build — this process stands in
for the server and runs the same job code (``core/background/jobs.py``, ``core/index/isolated.py``, ``core/background/workers.py``).
Each is cancelled once its spaCy pool has loaded the pipeline (the pool's memory past 200 MB), as a user
clicking Cancel mid-extraction. Each build gets an extraction cache of its own, so each starts its pool.

Reported: this process's resident memory before the first build (after importing what a build imports) and
after the last one, the processes left running (this process's descendants, and any process carrying this
run's tag wherever it was re-parented) and their memory, and per build the seconds from Cancel until nothing
of it was left.

``--in-process`` builds in this process instead of a worker (``EGX_BUILD_ISOLATED=0``: how the app built before
it had workers, and still does for a debugger), for the comparison.

Usage: python benchmarks/cancelled_builds.py [--builds 10] [--in-process] [--out results.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "data" / "hipporag_musique_train100" / "musique_train_corpus.json"
#: the pool's memory once its two workers have loaded spaCy's pipeline (~330 MB each; an interpreter ~15 MB)
LOADED_POOL_MB = 200.0
#: seconds a build may take to load its pool, and what it left to go
WAIT_S = 300.0


def _pool_mb(tag: str) -> float:
    from core.background.procs import descendants, rss_mb, tagged

    procs = {p.pid: p for p in [*tagged(tag), *descendants()]}.values()
    return rss_mb(p for p in procs if "multiprocessing.spawn" in " ".join(_cmd(p)))


def _cmd(p: object) -> list[str]:
    try:
        return list(p.cmdline())  # type: ignore[attr-defined]
    except Exception:
        return []


def _left(tag: str) -> list[object]:
    """What of this run still runs: tagged processes (wherever re-parented) and this process's descendants,
    multiprocessing's resource tracker left out in-process (one per process, for its whole life)."""
    from core.background.procs import descendants, tagged

    procs = {p.pid: p for p in [*tagged(tag), *descendants()]}
    return [p for p in procs.values() if "resource_tracker" not in " ".join(_cmd(p))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builds", type=int, default=10)
    ap.add_argument("--in-process", action="store_true", help="build in this process (EGX_BUILD_ISOLATED=0)")
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    a = ap.parse_args()

    import uuid

    tag = f"egx-bench-{uuid.uuid4().hex[:12]}"
    os.environ["EGX_PROC_TAG"] = tag  # every worker and pool inherits it
    os.environ["EGX_SPACY_PROCESSES"] = "2"
    work = Path(tempfile.mkdtemp(prefix="egx-cancelled-"))
    os.environ["EGX_HOME"] = str(work / "home")

    import psutil

    from core.backends.registry import get_embedder, get_extractor
    from core.background.jobs import Job, JobManager
    from core.background.procs import describe, rss_mb, wait_gone
    from core.index.create import create_workspace
    from core.index.isolated import BuildSpec, build_isolated

    me = psutil.Process()
    jobs = JobManager()
    gc.collect()
    before_mb = me.memory_info().rss / 2**20
    runs = []
    try:
        for i in range(a.builds):
            os.environ["EGX_CACHE_DIR"] = str(work / f"cache-{i}")  # a cold extraction cache: the pool must start
            target = work / "home" / "workspaces" / f"ws{i}"
            if a.in_process:
                def fn(job: Job, target: Path = target) -> object:
                    return create_workspace([CORPUS], target, embedder=get_embedder("hashing"),
                                            extractor=get_extractor("spacy"), progress=job.progress)
            else:
                spec = BuildSpec(inputs=(str(CORPUS),), target=str(target), name=target.name, embedder="hashing")

                def fn(job: Job, spec: BuildSpec = spec) -> object:
                    return build_isolated(spec, progress=job.progress, cancel=job.cancel_event)
            t0 = time.monotonic()
            job = jobs.submit(f"build:{i}", f"Build {i}", fn, kind="build")
            while _pool_mb(tag) < LOADED_POOL_MB:
                if job.finished or time.monotonic() - t0 > WAIT_S:
                    raise SystemExit(f"build {i}: no loaded spaCy pool ({job.status().state}: {job.status().error})")
                time.sleep(0.1)
            running = _left(tag)
            running_mb = rss_mb(running)
            t1 = time.monotonic()
            job.cancel()
            job.wait(WAIT_S)
            left = wait_gone(lambda: _left(tag), WAIT_S)
            gone_s = time.monotonic() - t1
            gc.collect()
            server_mb = me.memory_info().rss / 2**20
            runs.append({"build": i, "state": job.status().state, "started_s": round(t1 - t0, 1),
                         "processes_running": len(running), "running_mb": round(running_mb),
                         "gone_s": round(gone_s, 2), "left": describe(left), "server_mb": round(server_mb, 1),
                         "half_built": sorted(p.name for p in target.parent.iterdir() if ".building" in p.name)
                         if target.parent.is_dir() else []})
            print(json.dumps(runs[-1]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    after_mb = me.memory_info().rss / 2**20
    out = {"builds": a.builds, "mode": "in-process" if a.in_process else "worker", "corpus": CORPUS.name,
           "server_mb_before": round(before_mb, 1), "server_mb_after": round(after_mb, 1),
           "growth": round(after_mb / before_mb - 1, 4), "left_after_all": describe(_left(tag)), "runs": runs}
    print(json.dumps({k: v for k, v in out.items() if k != "runs"}, indent=1))
    if a.out:
        a.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
