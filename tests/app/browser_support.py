"""What the app tests share: one page as the default page of app.py (:func:`page_app_script`, for
AppTest and for a server), a running ``streamlit run`` server and Debian chromium.

Use :func:`app_server` as a context manager (or the ``app_server`` fixture in ``conftest.py``)::

    with app_server(tmp_path) as (base_url, started):
        with sync_playwright() as p:
            browser = launch_chromium(p)
            ...

The server runs with an isolated ``EGX_HOME``, the hashing embedder, the bi-encoder stand-in
reranker and no LLM, so it needs no model (``env_overrides`` choose others). Never ``playwright install``: chromium comes from Debian (scripts/bootstrap.sh installs it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from core.background.procs import tied

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    """Skip locally, fail in CI, when Debian's chromium is missing."""
    if CHROMIUM.exists():
        return
    msg = (f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install -y chromium`; "
           "scripts/bootstrap.sh does this).")
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
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


@contextmanager
def app_server(tmp_path: Path, script: Path | str = "app.py", **env_overrides: str) -> Iterator[tuple[str, float]]:
    """Run ``streamlit run <script>`` from the repository root, as ``egx app`` does (:mod:`components.serve`); yields
    ``(base_url, launch_time)``
    where ``launch_time`` is ``time.monotonic()`` at launch (for cold-start figures)."""
    require_chromium()
    port = free_port()
    env = {**os.environ, "EGX_HOME": str(tmp_path / "home"), "EGX_EMBEDDER": "hashing", "EGX_RERANKER": "biencoder",
           "EGX_LLM": "none", "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", **env_overrides}
    log = tmp_path / "streamlit.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        # tied: a test run killed outright (a CI timeout, Ctrl-C twice) takes the server and its jobs along
        proc = subprocess.Popen(
            tied([sys.executable, "-m", "components.serve", "run", str(script), "--server.headless", "true",
                  "--server.address", "127.0.0.1", "--server.port", str(port),
                  "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]),
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, log)
        yield f"http://127.0.0.1:{port}", started
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def page_app_script(page: str) -> str:
    """The app with ``page`` (e.g. ``"pages/subgraph.py"``) as its default page, as a runnable script
    for AppTest or ``streamlit run`` (written outside the repository: no ``pages/`` folder beside it)."""
    from components.navigation import SECTIONS

    assert any(page == p for pages in SECTIONS.values() for p, *_ in pages), f"the app does not list {page}"
    return (f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
            f"from components.frame import run_app\nrun_app(default={page!r})\n")


def open_app_page(page: str, *, timeout: float = 120, **state: object) -> Any:
    """Run ``page`` (as the default page of app.py) in AppTest with ``state`` preset in
    ``st.session_state``; asserts the run raised nothing and returns the AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(page_app_script(page), default_timeout=timeout)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@contextmanager
def page_server(tmp_path: Path, page: str, **env_overrides: str) -> Iterator[str]:
    """``streamlit run`` of app.py with ``page`` as the default page; yields the base URL.
    ``env_overrides`` replace the server's environment (e.g. ``EGX_RERANKER="ms-marco-minilm"``)."""
    script = tmp_path / "page_app.py"
    script.write_text(page_app_script(page), encoding="utf-8")
    with app_server(tmp_path, script, **env_overrides) as (url, _):
        yield url


def launch_chromium(playwright: Any) -> Any:
    """Debian's headless chromium through Playwright's sync API."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


#: characters Streamlit's Markdown may put inside words (word joiners, soft hyphens): ignored when matching text
_INVISIBLE = r"/[\u2060\u200b\u00ad]/g"


def wait_text(page: Any, texts: str | list[str], *, settled: bool = True, timeout_s: float = 600) -> float:
    """Seconds until every one of ``texts`` is on ``page`` and — with ``settled`` — Streamlit is no longer
    running (no "Running" status, no spinner). Without ``settled`` a fragment's redraw may still be going on.
    For click → result timings in ``benchmarks/`` and waits in the browser tests."""
    import time

    want = [texts] if isinstance(texts, str) else list(texts)
    idle = ("""&& !(document.querySelector('[data-testid="stStatusWidget"]')?.innerText || '').includes('Running')
               && !document.querySelector('[data-testid="stSpinner"]')""" if settled else "")
    t0 = time.monotonic()
    page.wait_for_function(
        f"""(ts) => ts.every(t => document.body.innerText.replace({_INVISIBLE}, '').includes(t)) {idle}""",
        arg=want, timeout=timeout_s * 1000, polling=100)
    return time.monotonic() - t0


def download(page: Any, button: str, *, tries: int = 3, each_s: float = 30) -> Any:
    """Click the download button named ``button`` and return Playwright's download. Streamlit revokes a deferred
    download's id (``data=`` a callable) when the script reruns and registers a new one: a click that lands while a
    rerun (a tab's ``on_change="rerun"``) is under way asks for the old id and nothing downloads — on a loaded CI
    machine the Data page's Export click did so (60 s, no download). A person clicks again; so does this, after
    the run settles, up to ``tries`` times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        try:
            with page.expect_download(timeout=each_s * 1000) as info:
                page.get_by_role("button", name=button).click()
            return info.value
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            page.wait_for_function(
                """() => !(document.querySelector('[data-testid="stStatusWidget"]')?.innerText || '')
                   .includes('Running')""", timeout=120_000, polling=100)
    raise AssertionError("unreachable")


def ask_again(page: Any, page_file: str, question: str) -> float:
    """Ask ``question`` on the Ask page (typed + Enter) or pick it in Compare's Question box; returns the
    monotonic time of the key press / click, to time from."""
    import time

    if page_file.endswith("bubble_ask.py"):
        box = page.locator("input[aria-label='Question']").first
        box.fill(question)
        t1 = time.monotonic()
        box.press("Enter")
    else:
        page.locator("[data-testid='stSelectbox']").filter(has_text="Question").first.click()
        option = page.get_by_role("option", name=question)
        t1 = time.monotonic()
        option.click()
    page.wait_for_timeout(50)
    return t1


def start_benchmark(page: Any, base: str, run_name: str, questions: int, *, timeout_s: float = 120) -> None:
    """Open the Benchmark page, name the run, set the number of questions and click Run benchmark (the
    sidebar's backends, every method)."""
    import re

    from playwright.sync_api import expect

    page.goto(f"{base}/benchmark", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Benchmark")).to_be_visible(timeout=timeout_s * 1000)
    # the questions box says how many there are: "Questions (of 23)"
    for label, value in (("Run name", run_name), (re.compile(r"^Questions \(of \d+\)$"), str(questions))):
        box = page.get_by_label(label, exact=True) if isinstance(label, str) else page.get_by_label(label)
        box.fill(value)
        box.press("Enter")
    page.wait_for_timeout(500)
    page.get_by_role("button", name="Run benchmark").click()

