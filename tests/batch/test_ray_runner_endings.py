"""`egx bench --ray` on a local Ray stopped by Ctrl-C, SIGTERM or SIGKILL leaves no Ray process running.

A local Ray is a dozen processes: GCS, raylet, monitors, a dashboard and a runtime-env agent, the actors'
workers. Ray ties its head processes to the driver and its workers to the raylet, but its two agents
outlived a stopped or killed driver by a minute and more (waiting on the dead GCS); the runner's sweeper
(:class:`core.background.procs.Sweeper`) now takes them along. Ray's processes write their titles over their
environment, so each test gives its Ray a session folder of its own (``RAY_TMPDIR``) and finds them by
the files they hold open there, besides the tag.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from core.background.procs import describe, rss_mb
from tests.procs_support import ENDINGS, START_S, egx, holding_files_in, start, wait_until

pytest.importorskip("ray")
pytestmark = pytest.mark.slow


def _ray_title(p: object) -> str:
    try:
        return " ".join(p.cmdline())  # type: ignore[attr-defined, no-any-return]
    except Exception:
        return ""


@pytest.mark.parametrize("how", ENDINGS)
def test_a_stopped_ray_benchmark_leaves_no_ray_process(tmp_path: Path, how: str) -> None:
    # short: Ray's socket paths under it must stay within the 107 bytes of a Unix socket name
    ray_tmp = Path(tempfile.mkdtemp(prefix="egxray", dir="/tmp"))
    try:
        owner = start(egx("bench", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder",
                          "--methods", "dense,ppr,bubblerag,fastinsight,sgrag", "--out", str(tmp_path / "run"),
                          "--ray", "--ray-workers", "2"),
                      tmp_path, {"EGX_HOME": str(tmp_path / "home"), "RAY_TMPDIR": str(ray_tmp)},
                      also=holding_files_in(ray_tmp))
        try:
            def agents_and_an_actor() -> list[object]:
                titles = [_ray_title(p) for p in owner.look()]
                agents = sum(t.startswith(("ray::DashboardAgent", "ray::RuntimeEnvAgent")) for t in titles)
                actors = sum(t.startswith("ray::_BenchWorker") for t in titles)  # running pairs (not a spare IDLE)
                return titles if agents == 2 and actors >= 1 else []

            wait_until(agents_and_an_actor, START_S, "Ray's agents and a benchmark actor", proc=owner.proc,
                       log=owner.log)
            running = owner.look()
            owner.end(how)
            left = owner.leftovers()
            assert not left, (f"after {how}, still running ({rss_mb(left):.0f} MB): {describe(left)}; while it ran: "
                              f"{len(running)} processes, {owner.peak_mb:.0f} MB")
        finally:
            owner.stop()
        if how != "sigkill":
            assert owner.proc.returncode == 130, owner.log.read_text()[-2000:]
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
