"""Per-session jobs on a shared server (a classroom): each browser session sees its own jobs in full, the
builds it waits on too, and of the other sessions' jobs only how many run — no titles (questions, run and
upload names), no errors, no Cancel. Each AppTest is one browser session (its own session state)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import jobs_view
from tests.app.helpers import app, gate_index_builds, plain

RUN_TIMEOUT = 30
SECRET = "who wrote my secret thesis"


def _sidebar_text(at: AppTest) -> str:
    sb = at.sidebar
    parts = [m.value for m in [*sb.markdown, *sb.caption, *sb.success, *sb.warning, *sb.error]]
    parts += [p.proto.text for p in sb.get("progress")] + [e.label for e in sb.expander]
    return plain(" ".join(parts))


def _main_text(at: AppTest) -> str:
    parts = [m.value for m in [*at.main.markdown, *at.main.caption, *at.main.info, *at.main.error]]
    return plain(" ".join(parts)).replace("**", "")


@pytest.fixture
def gate(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The demo's index build waits for the returned event, so "still building" is a fact, not a race."""
    import core.index.create

    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "0")
    monkeypatch.setenv("EGX_BUILD_ISOLATED", "0")  # the gate reaches into the build: keep it in this process
    event = gate_index_builds(monkeypatch, core.index.create)
    yield event
    event.set()


def _session(at: AppTest) -> str:
    return str(at.session_state[jobs_view.SESSION_KEY])


def test_each_session_sees_its_jobs_and_only_a_count_of_the_others(gate: threading.Event) -> None:
    alice, bob = app(), app()
    alice.run(timeout=RUN_TIMEOUT)
    bob.run(timeout=RUN_TIMEOUT)  # bob opens the demo too: he waits on the build alice started
    assert _session(alice) != _session(bob)
    for at in (alice, bob):
        assert not at.exception, [e.value for e in at.exception]
        assert "Building workspace “Demo" in _main_text(at)  # the shared build's live panel
    build = next(j for j in jobs_view.jobs().jobs() if j.key.startswith("workspace:"))
    assert build.sessions == {_session(alice), _session(bob)}

    # alice's own question run, and one of hers that failed with a message naming her question
    hold = threading.Event()
    manager = jobs_view.jobs()
    manager.submit("method:alice", f"BubbleRAG on “{SECRET}”", lambda j: hold.wait(30), kind="method",
                   session=_session(alice))

    def fails(job: object) -> None:
        raise RuntimeError(f"the LLM refused “{SECRET}”")

    failed = manager.submit("method:alice-2", "HippoRAG 2 on a private run", fails, kind="method",
                            session=_session(alice))
    assert failed.wait(5)
    try:
        alice.run(timeout=RUN_TIMEOUT)
        bob.run(timeout=RUN_TIMEOUT)
        mine, theirs = _sidebar_text(alice), _sidebar_text(bob)
        assert SECRET in mine and "private run" in mine and "Building workspace “Demo" in mine
        assert "Building workspace “Demo" in theirs  # the build bob waits on stays listed for him
        assert "1 job of other sessions" in theirs  # alice's running question, folded and counted
        assert SECRET not in theirs and "private run" not in theirs and "refused" not in theirs
        assert SECRET not in _main_text(bob)  # nor in his banner
        assert "1 job of other sessions" not in mine
        expander = next(e for e in bob.sidebar.expander if e.label == "1 job of other sessions")
        assert "a method run · running for" in plain(" ".join(c.value for c in expander.caption))
        # the shared build is not bob's to cancel: he may stop waiting on it; alice's run has no button at all
        assert [b.label for b in bob.sidebar.button if b.key.startswith("egx.job.cancel.")] == ["Stop waiting"]
        # a failure stayed red in the list on every page: alice dismisses it (a running job has no Dismiss)
        dismiss = [b for b in alice.sidebar.button if b.key.startswith("egx.job.dismiss.")]
        assert len(dismiss) == 1 and dismiss[0].label == "Dismiss", [b.key for b in alice.sidebar.button]
        dismiss[0].click().run(timeout=RUN_TIMEOUT)
        mine = _sidebar_text(alice)
        assert "private run" not in mine and SECRET in mine, mine
    finally:
        hold.set()
        gate.set()


def _job_button(at: AppTest, label: str, where: str = "page"):  # type: ignore[no-untyped-def]
    found = [b for b in at.button if b.label == label and b.key.startswith(f"egx.job.cancel.{where}.")]
    assert len(found) == 1, [(b.label, b.key) for b in at.button]
    return found[0]


def test_cancel_on_a_shared_build_stops_waiting_and_the_build_runs_on(gate: threading.Event) -> None:
    """Two sessions wait on the demo's build: the Cancel of either once cancelled it for both. Now each may only
    stop waiting (the build runs on for the other, the page says so and offers to wait again); the last session
    still waiting cancels it, and the other session's page then shows the cancellation."""
    alice, bob = app(), app()
    alice.run(timeout=RUN_TIMEOUT)
    bob.run(timeout=RUN_TIMEOUT)
    build = next(j for j in jobs_view.jobs().jobs() if j.key.startswith("workspace:"))
    assert build.sessions == {_session(alice), _session(bob)}
    alice.run(timeout=RUN_TIMEOUT)  # her page redrawn now that bob waits too (it redraws every second live)
    assert not [b for b in alice.button if b.label == "Cancel"]  # shared: nobody's Cancel

    _job_button(alice, "Stop waiting").click().run(timeout=RUN_TIMEOUT)  # alice started it; bob waits too
    assert not alice.exception, [e.value for e in alice.exception]
    assert not build.cancel_event.is_set() and not build.finished and build.sessions == {_session(bob)}
    assert "You stopped waiting for Building workspace “Demo" in _main_text(alice)
    # no longer hers to list: folded with the other sessions' jobs (named: a build of a workspace everyone sees)
    assert not [b for b in alice.sidebar.button if b.key.startswith("egx.job.cancel.")]
    folded = next(e for e in alice.sidebar.expander if e.label == "1 job of other sessions")
    assert "Building workspace “Demo" in plain(" ".join(c.value for c in folded.caption))
    alice.run(timeout=RUN_TIMEOUT)  # a rerun asks for the workspace again, without waiting on it again
    assert "You stopped waiting" in _main_text(alice) and build.sessions == {_session(bob)}
    bob.run(timeout=RUN_TIMEOUT)
    assert "Building workspace “Demo" in _main_text(bob) and "You stopped waiting" not in _main_text(bob)

    next(b for b in alice.button if b.label == "Wait for it again").click().run(timeout=RUN_TIMEOUT)
    assert build.sessions == {_session(alice), _session(bob)}
    assert "You stopped waiting" not in _main_text(alice) and "Building workspace “Demo" in _main_text(alice)

    bob.run(timeout=RUN_TIMEOUT)  # alone on it a moment ago, bob had Cancel; alice waits again: Stop waiting
    _job_button(bob, "Stop waiting").click().run(timeout=RUN_TIMEOUT)
    alice.run(timeout=RUN_TIMEOUT)  # she is the only one waiting now: hers to cancel
    _job_button(alice, "Cancel").click().run(timeout=RUN_TIMEOUT)
    assert build.cancel_event.is_set()
    gate.set()
    assert build.wait(30) and build.status().state == "cancelled"


def test_a_newcomer_sees_none_of_the_jobs_others_started(home: Path) -> None:
    hold = threading.Event()
    manager = jobs_view.jobs()
    manager.submit("method:x", f"ReG on “{SECRET}”", lambda j: hold.wait(30), kind="method", session="someone")
    manager.submit("bench:x", "Benchmark “alice-homework”", lambda j: hold.wait(30), kind="bench", session="another")
    try:
        at = app()
        at.run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        text = _sidebar_text(at) + _main_text(at)
        assert "2 jobs of other sessions" in text
        assert SECRET not in text and "homework" not in text and "on the server: " not in text  # no banner
    finally:
        hold.set()


def test_another_sessions_workspace_preparation_names_its_workspace(home: Path) -> None:
    """A preparation of a workspace (which every session lists) is named in the other sessions' folded list, so
    someone waiting on “mydata” sees that another session embeds its node texts; a question stays anonymous.
    An audit found the folded entry said only "a workspace build or preparation"."""
    hold = threading.Event()
    manager = jobs_view.jobs()
    title = "Embedding 1,181 KG node texts for FastInsight (first use of “mydata”)"
    manager.submit("fastinsight-nodes:x", title, lambda j: hold.wait(30), kind="workspace", session="someone",
                   extra=jobs_view.public(title))
    manager.submit("method:y", f"ReG on “{SECRET}”", lambda j: hold.wait(30), kind="method", session="someone")
    try:
        at = app()
        at.run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        expander = next(e for e in at.sidebar.expander if e.label == "2 jobs of other sessions")
        shown = plain(" ".join(c.value for c in expander.caption))
        assert "Embedding 1,181 KG node texts for FastInsight (first use of “mydata”) · running for" in shown
        assert "a method run · running for" in shown and SECRET not in shown
    finally:
        hold.set()


def test_a_browser_keeps_its_id_across_reloads_another_browser_gets_another() -> None:
    """Streamlit writes its XSRF cookie again on each page load with a fresh mask: the id comes from the token
    inside, so a reloaded tab still finds the jobs it started; the id is a digest, never the token."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    token, other = b"\x01" * 16, b"\x02" * 16
    first, reload = generate_xsrf_token_string(token, 1_700_000_000), generate_xsrf_token_string(token, 1_700_000_000)
    assert first != reload  # masked differently each time
    assert jobs_view.browser_id(first) == jobs_view.browser_id(reload) != ""
    assert jobs_view.browser_id(generate_xsrf_token_string(other, 1_700_000_000)) != jobs_view.browser_id(first)
    assert token.hex() not in jobs_view.browser_id(first) and jobs_view.browser_id("") == ""


def test_old_finished_jobs_fold_under_one_expander_and_go_with_one_click(home: Path) -> None:
    """Finished and failed job cards piled up in the sidebar, each dismissed one by one, and pushed the rest of it
    down: the newest finished ones stay in full, the older fold under one expander, and one button dismisses them
    all (a running job stays)."""
    at = app()
    at.run(timeout=RUN_TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    me, manager, hold = _session(at), jobs_view.jobs(), threading.Event()
    manager.submit("method:still-running", "Dense on a running question", lambda j: hold.wait(30), kind="method",
                   session=me)

    def fails(job: object) -> None:
        raise RuntimeError("no such model")

    titles = [f"Failed run number {i}" for i in range(1, 5)]
    for i, title in enumerate(titles):  # one after the other: the last one ended most recently
        assert manager.submit(f"method:failed-{i}", title, fails, kind="method", session=me).wait(5)
        time.sleep(0.05)
    try:
        at.run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        folded = [e for e in at.sidebar.expander if "older finished job" in e.label]
        assert len(folded) == 1, [e.label for e in at.sidebar.expander]
        inside = plain(" ".join(e.value for e in folded[0].error))
        assert "Failed run number 1" in inside and "Failed run number 2" in inside  # the oldest two, folded
        assert "Failed run number 3" not in inside and "Failed run number 4" not in inside
        assert "Failed run number 4" in _sidebar_text(at)  # the newest in full
        n = len(folded[0].error) + len(folded[0].success)  # and the demo's build, done before them
        assert folded[0].label == f"{n} older finished jobs ({len(folded[0].error)} failed)"
        every = [b for b in at.sidebar.button if b.key == "egx.jobs.dismiss_all"]
        assert len(every) == 1 and every[0].label.startswith("Dismiss all finished"), [b.key for b in at.sidebar.button]
        every[0].click().run(timeout=RUN_TIMEOUT)
        assert not at.exception, [e.value for e in at.exception]
        text = _sidebar_text(at)
        assert not any(t in text for t in titles), text
        assert "Dense on a running question" in text  # running: not dismissed
        assert not [e for e in at.sidebar.expander if "older finished job" in e.label]
        assert not [b for b in at.sidebar.button if b.key.startswith("egx.job.dismiss")]
        # a reload is a new session of the same browser: its jobs come back (they are the browser's), and what it
        # dismissed stays dismissed (in the session's state, they came back on a reload: an audit)
        again = app()
        again.session_state[jobs_view.SESSION_KEY] = me
        again.run(timeout=RUN_TIMEOUT)
        text = _sidebar_text(again)
        assert "Dense on a running question" in text and not any(t in text for t in titles), text
    finally:
        hold.set()


def test_the_benchmark_page_says_another_session_benchmarks_this_workspace(home: Path) -> None:
    """An audit's second user opened the Benchmark page of a workspace the first was benchmarking and saw nothing of
    it (the estimate counted nothing for it): a note, anonymous — how many and for how long, no run name."""
    from components.benchmark_view import WORKSPACE_EXTRA
    from tests.app.browser_support import open_app_page

    at = open_app_page("pages/benchmark.py", timeout=120)
    assert not [i for i in at.info if "running a benchmark of this workspace" in i.value]
    hold = threading.Event()
    job = jobs_view.jobs().submit("bench:secret-run", "Benchmark “secret-run”", lambda j: hold.wait(30), kind="bench",
                                  session="another-session", extra={WORKSPACE_EXTRA: "demo"})
    other = jobs_view.jobs().submit("bench:elsewhere", "Benchmark “elsewhere”", lambda j: hold.wait(30),
                                    kind="bench", session="another-session", extra={WORKSPACE_EXTRA: "musique"})
    try:
        at.run(timeout=120)
        said = [plain(i.value) for i in at.info if "running a benchmark of this workspace" in i.value]
        assert len(said) == 1 and said[0].startswith("Another session is running a benchmark of this workspace now"), said
        assert "secret-run" not in said[0]
    finally:
        hold.set()
        job.wait(5)
        other.wait(5)
