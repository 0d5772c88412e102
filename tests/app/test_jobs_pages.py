"""Long work survives navigation, in AppTest.

Builds are gated: the embedding step of the build under test waits for a threading.Event the test
sets, so "still running" is a fact, not a race. A build that ran inside the script run would block the
first ``at.run()`` on the gate (AppTest timeout), and any click would restart it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.helpers import app, go_live, plain, switch
from tests.fake_openai import FakeOpenAIServer, openai_env

CSV = b"head,relation,tail\nThe Matrix,starring,Keanu Reeves\nKeanu Reeves,born in,Beirut\n"
RUN_TIMEOUT = 30


@pytest.fixture
def gate(home: Path, monkeypatch: pytest.MonkeyPatch):
    """Jobs go to the background at once; builds whose folder name contains a gated name wait for the
    returned event before embedding. Yields (event, names gated, list of gated builds started)."""
    import core.index.create
    import core.index.indexing
    import core.index.workspace

    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "0")
    monkeypatch.setenv("EGX_BUILD_ISOLATED", "0")  # the gate reaches into the build: keep it in this process
    event, names, started = threading.Event(), set(), []
    orig = core.index.indexing.build_indexes

    def gated(path, graph, embedder, *, progress=None, **kw):  # type: ignore[no-untyped-def]
        if any(n in Path(path).name for n in names):
            started.append(Path(path).name)
            if progress:
                progress("Embedding nodes (gated by the test)", 0.0)
            event.wait(60)
        return orig(path, graph, embedder, progress=progress, **kw)

    for module in (core.index.create, core.index.workspace):  # a new build, and a re-index
        monkeypatch.setattr(module, "build_indexes", gated)
    yield event, names, started
    event.set()


def _sidebar_text(at: AppTest) -> str:
    sb = at.sidebar
    parts = [m.value for m in [*sb.markdown, *sb.caption, *sb.success, *sb.warning, *sb.error]]
    parts += [p.proto.text for p in sb.get("progress")]
    return plain(" ".join(parts))


def _page_text(at: AppTest) -> str:
    parts = [m.value for m in [*at.main.markdown, *at.main.caption, *at.main.info, *at.main.success,
                               *at.main.warning, *at.main.error]]
    parts += [p.proto.text for p in at.main.get("progress")]
    return plain(" ".join(parts))


def _until(at: AppTest, done: Callable[[AppTest], bool], timeout: float = 60.0) -> AppTest:
    deadline = time.monotonic() + timeout
    while True:
        at.run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        if done(at):
            return at
        assert time.monotonic() < deadline, _page_text(at) + " | " + _sidebar_text(at)
        time.sleep(0.2)


def _titled(title: str) -> Callable[[AppTest], bool]:
    return lambda at: bool(at.title) and at.title[0].value == title


def test_a_sample_build_survives_page_switches_and_is_joined(gate) -> None:
    event, names, started = gate
    names.add("demo")
    at = app()
    at.run(timeout=RUN_TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert "Building workspace “Demo" in _page_text(at) and "runs in the background" in _page_text(at)
    for page in ("pages/data.py", "pages/benchmark.py", "pages/compare.py"):
        switch(at, page)  # every click used to restart the build at 0
        assert not at.exception, [e.value for e in at.exception]
        assert "Building workspace “Demo" in _page_text(at) and "elapsed" in _page_text(at)
        assert "Background jobs" in _sidebar_text(at) and "Building workspace “Demo" in _sidebar_text(at)
    assert len(started) == 1, started  # one build, joined by every page
    event.set()
    # The sidebar's job panel is drawn before the page opens the workspace, so in the run where the build
    # finishes the page can be ready while the panel still showed it running: the next run says "done".
    _until(at, lambda a: _titled("Compare methods")(a) and "done" in _sidebar_text(a))
    assert "Building workspace “Demo" in _sidebar_text(at)
    assert len(started) == 1


def test_an_upload_started_on_the_data_page_keeps_running_elsewhere(gate, home: Path) -> None:
    event, names, started = gate
    names.add("mine")
    at = app()
    _until(at, lambda a: bool(a.title))  # the demo sample builds first (not gated)
    switch(at, "pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run(timeout=RUN_TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert "Building “mine” from an upload" in _page_text(at)
    switch(at, "pages/benchmark.py")
    assert at.title[0].value == "Benchmark"
    assert "Building “mine” from an upload" in _sidebar_text(at)  # still running, shown on another page
    assert not (home / "workspaces" / "mine").exists()
    event.set()
    _until(at, lambda a: "Building “mine” from an upload** — done" in _sidebar_text(a))
    assert (home / "workspaces" / "mine" / "manifest.json").is_file()
    assert len(started) == 1
    switch(at, "pages/data.py")  # back on the Data page: the finished build becomes the active workspace
    assert any("Built workspace “mine”" in plain(s.value) for s in at.success), _page_text(at)
    assert at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).value == "mine"


def test_a_second_upload_under_a_name_being_built_is_refused_not_joined(gate, home: Path) -> None:
    """A second upload never replaces the first, with builds as jobs too: joining would drop the second user's
    files and show them the first user's workspace as theirs."""
    event, names, started = gate
    names.add("mine")
    sessions = []
    for rows in (CSV, b"head,relation,tail\nA,b,C\n"):
        at = app()
        _until(at, lambda a: bool(a.title))
        switch(at, "pages/data.py")
        at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", rows, "text/csv"))
        at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
        at.button(key=S.DATA_BUILD).click().run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        sessions.append(at)
    errors = [plain(e.value) for e in sessions[1].error]
    assert any("Building “mine” from an upload is running right now" in e for e in errors), errors
    event.set()
    # the outcome is said on the page that started it (and the sidebar's list then leaves it out)
    _until(sessions[0], lambda a: "Built workspace “mine”" in _page_text(a))
    from core.index.workspace import Workspace

    assert len(started) == 1 and "Keanu Reeves" in Workspace.open(home / "workspaces" / "mine").graph.node_names


def test_cancel_keeps_the_previous_state_and_offers_a_new_build(gate, home: Path) -> None:
    event, names, _started = gate
    names.add("demo")
    at = app()
    at.run(timeout=RUN_TIMEOUT)
    cancel = next(b for b in at.main.button if str(b.key).startswith("egx.job.cancel.page."))
    cancel.click().run(timeout=RUN_TIMEOUT)
    event.set()  # the gated build reaches its next progress report, sees the cancel, and unwinds
    _until(at, lambda a: "was cancelled" in _page_text(a))
    assert "Nothing was half-written" in _page_text(at)
    assert not [p for p in (home / "workspaces").iterdir() if p.name.startswith(".demo.building")]
    assert not (home / "workspaces" / "demo").exists()
    at.button(key=next(b.key for b in at.main.button if str(b.key).startswith("egx.job.again."))).click()
    _until(at, _titled("Evidence Graph Explorer"))


def test_an_llm_run_shows_its_stage_and_cancel_stops_it(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                        openai_server: FakeOpenAIServer) -> None:
    for k, v in openai_env(openai_server).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("EGX_LLM", "openai")
    monkeypatch.setenv("EGX_LLM_TIMEOUT", "60")
    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "0.5")
    openai_server.reply({"sleep": 30, "content": "{}"})  # a very slow endpoint
    at = app()
    _until(at, lambda a: bool(a.title))
    switch(at, "pages/bubble_ask.py")
    go_live(at)  # a live LLM's run starts on the click
    at = _until(at, lambda a: "waiting for the LLM" in _page_text(a))
    text = _page_text(at)
    assert "is running on the server" in text and "stage: " in text and "elapsed" in text
    t0 = time.monotonic()
    next(b for b in at.main.button if str(b.key).startswith("egx.job.cancel.page.")).click()
    at = _until(at, lambda a: "cancelled" in _page_text(a))
    assert time.monotonic() - t0 < 10  # not the 30 s reply
    assert "cancelled. What was finished before is kept." in _page_text(at)
    assert any(str(b.key).startswith("egx.job.again.") for b in at.main.button)
    # the sidebar's LLM limits are there and applied to the LLM this run used
    assert at.sidebar.number_input(key=S.widget_key(S.LLM_TIMEOUT)).value == 60.0
