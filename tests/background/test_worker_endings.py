"""The app's worker jobs (:mod:`core.background.workers`) leave nothing running however they end: the Cancel button, a
memory or a time cap, or their owner — the server — stopped by Ctrl-C or SIGTERM, or killed outright.

A build's worker starts a spaCy pool of its own (``EGX_SPACY_PROCESSES=2``) and with it multiprocessing's
resource tracker: four processes and, once the pool has loaded spaCy, over 600 MB. Each test tags them
through the environment and counts them (and their memory) until none is left; a worker whose server was
killed used to run on, re-parented to init, with its pool.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from core.background.jobs import Job, JobManager
from core.background.procs import TAG_VAR, describe, rss_mb, tagged, wait_gone
from core.background.workers import Words, run_worker
from core.errors import WorkspaceError
from core.index.isolated import BuildSpec, build_isolated
from tests.conftest import MUSIQUE
from tests.procs_support import ENDINGS, GONE_S, START_S, kinds, new_tag, start, wait_until

pytestmark = pytest.mark.slow

CORPUS = MUSIQUE / "musique_train_corpus.json"
#: a build's worker with its spaCy pool running: the worker, two pool workers, the resource tracker
WITH_POOL = {"worker": 1, "pool": 2, "tracker": 1}


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """This test's tag, in the environment every worker it starts inherits, and a spaCy pool in every build
    (a fresh extraction cache: one filled by an earlier run would leave the pool nothing to do)."""
    t = new_tag()
    monkeypatch.setenv(TAG_VAR, t)
    monkeypatch.setenv("EGX_SPACY_PROCESSES", "2")
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    return t


def _watch(tag: str, job: Job) -> tuple[Counter[str], list[float]]:
    """Record, until ``job`` ends, the most processes of each kind seen at once and the peak memory."""
    seen: Counter[str] = Counter()
    peak = [0.0]

    def look() -> None:
        while not job.finished:
            procs = tagged(tag)
            for k, n in kinds(procs).items():
                seen[k] = max(seen[k], n)
            peak[0] = max(peak[0], rss_mb(procs))
            job.wait(0.1)

    threading.Thread(target=look, daemon=True).start()
    return seen, peak


def _nothing_left(tag: str, how: str) -> None:
    left = wait_gone(lambda: tagged(tag), GONE_S)
    assert not left, f"after {how}, still running ({rss_mb(left):.0f} MB): {describe(left)}"


def _no_half_build(target: Path) -> None:
    assert not target.exists()
    assert not [p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.building")]


def test_cancel_kills_the_build_worker_and_its_spacy_pool(tag: str, tmp_path: Path) -> None:
    spec = BuildSpec(inputs=(str(CORPUS),), target=str(tmp_path / "ws"), name="ws", embedder="hashing")
    job = JobManager().submit("build", "Build", lambda j: build_isolated(spec, progress=j.progress,
                                                                         cancel=j.cancel_event), kind="build")
    procs = wait_until(lambda: (ps := tagged(tag)) and all(kinds(ps)[k] >= n for k, n in WITH_POOL.items()) and ps,
                       START_S, "build worker with its spaCy pool")
    running_mb = rss_mb(procs)
    job.cancel()
    assert job.wait(GONE_S)
    assert job.status().state == "cancelled" and "nothing was saved" in job.status().error
    _nothing_left(tag, f"Cancel (the build held {len(procs)} processes, {running_mb:.0f} MB)")
    _no_half_build(tmp_path / "ws")


def test_past_the_memory_cap_the_build_worker_and_its_pool_are_killed(tag: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 MB: the worker alone holds ~40 MB, so only the pool loading spaCy (~330 MB a worker) passes it
    monkeypatch.setenv("EGX_BUILD_MEMORY_MB", "300")
    spec = BuildSpec(inputs=(str(CORPUS),), target=str(tmp_path / "ws"), name="ws", embedder="hashing")
    job = JobManager().submit("build", "Build", lambda j: build_isolated(spec, progress=j.progress,
                                                                         cancel=j.cancel_event), kind="build")
    seen, peak = _watch(tag, job)
    assert job.wait(START_S)
    with pytest.raises(WorkspaceError, match=r"used more than 300 MB of memory \(EGX_BUILD_MEMORY_MB\)"):
        job.result()
    assert seen["pool"] == 2 and seen["tracker"] == 1, seen  # the cap came while the pool ran
    _nothing_left(tag, f"the memory cap (peak {peak[0]:.0f} MB)")
    _no_half_build(tmp_path / "ws")


def test_past_the_time_cap_a_benchmark_worker_is_killed(tag: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark waits on an LLM endpoint that never answers, so it is still running at its 3 s cap however
    fast this machine is."""
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace
    from tests.fake_openai import fake_openai_server, openai_env

    ws = ensure_sample_workspace("demo", get_embedder("hashing"), root=tmp_path / "workspaces")
    monkeypatch.setenv("EGX_BENCH_TIMEOUT_S", "3")
    spec = {"workspace": str(ws.path), "methods": ["dense"], "embedder": "hashing",
            "llm": {"name": "openai", "settings": None, "cache": False}, "reranker": "",
            "out_dir": str(tmp_path / "run"), "limit": 5}
    pids: list[int] = []
    with fake_openai_server({"hang": True}) as server:
        for k, v in openai_env(server).items():
            monkeypatch.setenv(k, v)
        with pytest.raises(WorkspaceError, match=r"ran past 3 s \(EGX_BENCH_TIMEOUT_S\) and was stopped"):
            run_worker("bench", spec, words=Words("The benchmark", "Finished pairs are kept."), on_start=pids.append)
    assert pids
    _nothing_left(tag, "the time cap")


def test_an_interrupted_watcher_kills_its_worker(tag: str) -> None:
    """The thread watching a worker is interrupted (Ctrl-C in a script that runs one directly): the worker goes."""
    import _thread

    pids: list[int] = []
    timer = threading.Timer(0.0, lambda: None)

    def interrupt_once_started(pid: int) -> None:
        nonlocal timer
        pids.append(pid)
        timer = threading.Timer(1.0, _thread.interrupt_main)
        timer.start()

    with pytest.raises(KeyboardInterrupt):
        run_worker("probe", {"steps": 600, "sleep": 0.1}, words=Words("The probe", "Nothing was saved."),
                   on_start=interrupt_once_started)
    timer.cancel()
    assert pids
    _nothing_left(tag, "an interrupt of the watching thread")


@pytest.mark.parametrize("how", ENDINGS)
def test_a_server_that_ends_takes_its_build_worker_and_pool_along(tmp_path: Path, how: str) -> None:
    """The owner (:mod:`tests.job_owner`, a stand-in for the app's server) stops on Ctrl-C or SIGTERM and
    cancels its job on the way out; killed outright, it cancels nothing, and its worker ends by itself."""
    target = tmp_path / "ws"
    owner = start([sys.executable, "-m", "tests.job_owner", "build", str(CORPUS), str(target)], tmp_path,
                  {"EGX_SPACY_PROCESSES": "2", "EGX_CACHE_DIR": str(tmp_path / "cache"),
                   "EGX_HOME": str(tmp_path / "home")})
    try:
        owner.wait_for(WITH_POOL)
        owner.end(how)
        left = owner.leftovers()
        assert not left, f"after {how}, still running ({rss_mb(left):.0f} MB): {describe(left)}; seen {dict(owner.seen)}"
    finally:
        owner.stop()
    if how != "sigkill":  # stopped, not killed: the job was cancelled and its half-built folder removed
        assert owner.proc.returncode == 130, owner.log.read_text()[-2000:]
        _no_half_build(target)
    assert not target.exists()



@pytest.mark.parametrize("how", ENDINGS)
def test_a_worker_that_reports_nothing_still_ends_with_its_server(tmp_path: Path, how: str) -> None:
    """A worker between two progress lines (a long training epoch, a slow LLM call) noticed its server's end only
    at its next line, on the closed pipe: this one writes none for ten minutes."""
    owner = start([sys.executable, "-m", "tests.job_owner", "quiet"], tmp_path)
    try:
        owner.wait_for({"worker": 1})
        owner.end(how)
        left = owner.leftovers()
        assert not left, f"after {how}, still running: {describe(left)}"
    finally:
        owner.stop()
