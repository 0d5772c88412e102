"""`egx app` stopped while a build runs leaves nothing running: in a real browser a sample build is started
(a job of the server, in a worker process), then the server is stopped by Ctrl-C or SIGTERM — it cancels
the job on its way out and the half-built folder goes — or killed outright, which its worker survives by
not a moment (the kernel's parent-death signal).

``egx app`` becomes the Streamlit server (``exec``), so the signals reach the server itself, with no ``egx``
parent left between it and the terminal.
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import pytest

from core.background.procs import describe, rss_mb
from tests.app.browser_support import free_port, launch_chromium, require_chromium
from tests.procs_support import ENDINGS, START_S, egx, start, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("how", ENDINGS)
def test_the_server_stopped_during_a_build_leaves_no_process(tmp_path: Path, how: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    require_chromium()
    port = free_port()
    home = tmp_path / "home"
    owner = start(egx("app", "--no-prebuild", "--port", str(port)), tmp_path,
                  {"EGX_HOME": str(home), "EGX_EMBEDDER": "hashing", "EGX_RERANKER": "biencoder", "EGX_LLM": "none",
                   "EGX_JOB_INLINE_WAIT": "0", "PYTHONUNBUFFERED": "1"})

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                return r.read() == b"ok"
        except OSError:
            return False

    try:
        wait_until(healthy, START_S, "the server's health check", proc=owner.proc, log=owner.log)
        assert [p.pid for p in owner.ours()] == [owner.proc.pid]  # egx became the server: one process
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1100})
                page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded")
                expect(page.get_by_role("heading", name="Evidence Graph Explorer").first).to_be_visible(timeout=120_000)
                page.locator("section[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
                page.get_by_role("option", name=re.compile("MuSiQue")).click()
                expect(page.get_by_text("Building workspace “MuSiQue", exact=False).filter(visible=True).first
                       ).to_be_visible(timeout=60_000)
                # mid-build: the worker writes the workspace into its hidden sibling (after reading the inputs)
                wait_until(lambda: _half_built(home), START_S, "the half-built MuSiQue folder", proc=owner.proc,
                           log=owner.log)
                running = owner.look()
                assert any(q.pid != owner.proc.pid for q in running), describe(running)  # the build's worker
                owner.end(how)
                left = owner.leftovers()
            finally:
                browser.close()
        assert not left, (f"after {how}, still running ({rss_mb(left):.0f} MB): {describe(left)}; "
                          f"during the build: {describe(running)}")
    finally:
        owner.stop()
    if how != "sigkill":  # stopped, not killed: Streamlit's own exit, with the job cancelled on the way out
        assert owner.proc.returncode == 0, owner.log.read_text()[-3000:]
        assert not _half_built(home)  # the cancelled build's cleanup ran
        assert not (home / "workspaces" / "musique").exists()


def _half_built(home: Path) -> list[str]:
    folder = home / "workspaces"
    return [q.name for q in folder.iterdir() if q.name.startswith(".musique.building")] if folder.is_dir() else []
