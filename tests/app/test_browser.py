"""The app in a real browser: headless Debian chromium driven by Playwright.

Starts ``streamlit run app.py`` on a free port with an isolated ``EGX_HOME`` and the hashing
embedder, opens the Data page and waits until vis-network has drawn the demo graph on its canvas
inside the iframe. A screenshot is saved under the test's ``tmp_path`` (and copied to
``$EGX_ARTIFACTS`` when set) so a person can look at what the browser saw.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    msg = (f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install -y chromium`; "
           "scripts/bootstrap.sh does this).")
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"{url} did not answer 'ok' within {timeout} s:\n{log.read_text()[-4000:]}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, float]]:
    """A running app: yields its base URL and the time.monotonic() at which it was launched."""
    _require_chromium()
    port = _free_port()
    env = dict(os.environ, EGX_HOME=str(tmp_path / "home"), EGX_EMBEDDER="hashing", EGX_LLM="none",
               HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    log = tmp_path / "streamlit.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, log)
        yield f"http://127.0.0.1:{port}", started
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_data_page_draws_the_demo_graph(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, started = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1300})
            page.goto(f"{base}/data", wait_until="domcontentloaded")
            frame = page.frame_locator("iframe").first
            # vis-network draws into a <canvas> inside #mynetwork once the data are loaded.
            expect(frame.locator("#mynetwork canvas")).to_be_visible(timeout=120_000)
            first_render = time.monotonic() - started
            expect(page.get_by_role("heading", name="Data")).to_be_visible()
            expect(page.get_by_text("Bi-encoder stand-in", exact=False).first).to_be_visible()
            srcdoc = page.locator("iframe").first.get_attribute("srcdoc") or ""
            assert "Keanu Reeves" in srcdoc
            page.wait_for_timeout(2500)  # let the physics settle for a readable screenshot
            shot = tmp_path / "data_page.png"
            page.screenshot(path=str(shot), full_page=True)
            # Export: the deferred download really produces the egx JSON of the graph.
            page.get_by_role("tab", name="Export").click()
            with page.expect_download(timeout=60_000) as info:
                page.get_by_role("button", name="Download egx JSON").click()
            exported = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
            filename = info.value.suggested_filename
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
    assert exported["format"] == "egx-graph" and filename == "demo.egx.json"
    assert "Keanu Reeves" in {n["name"] for n in exported["nodes"]}
    artifacts = os.environ.get("EGX_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "data_page.png")
    print(f"cold start to graph canvas visible: {first_render:.1f} s")
