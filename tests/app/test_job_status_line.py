"""The one-line status of a job in the sidebar and the banner: a finished job says what it did and how long it
took, not the manager's "Starting…" or the stage it was in (the audit read "done (Starting… · stage: … · took
0 s)")."""

from __future__ import annotations

from components.jobs_view import status_line
from core.background.jobs import STARTING, JobStatus


def _status(state: str, message: str, elapsed: float, **extra: object) -> JobStatus:
    return JobStatus(id=1, key="k", title="BubbleRAG", kind="method", state=state,  # type: ignore[arg-type]
                     fraction=None, message=message, elapsed=elapsed, eta=None, error="", cancel_requested=False,
                     extra=tuple(extra.items()), sessions=frozenset({"me"}))  # this session's (not the server's own)


def test_a_finished_job_drops_starting_and_its_stage() -> None:
    line = status_line(_status("done", STARTING, 0.2, stage="answer"))
    assert line == "took under a second"


def test_a_running_job_says_its_message_and_stage() -> None:
    line = status_line(_status("running", STARTING, 3.0, stage="answer"))
    assert line.startswith(STARTING) and "stage: answer" in line and "elapsed" in line


def test_a_stage_count_beside_the_whole_jobs_share_says_which_is_which() -> None:
    """"Embedding nodes: 6,912/16,243 · 18 %" read as a bug (42 % of the stage, 18 % of the build): the percentage
    says it is the whole job's where the message counts a stage at another share."""
    from dataclasses import replace

    running = _status("running", "Embedding nodes: 6,912/16,243", 30.0)
    assert "6,912/16,243 · 18 % overall" in status_line(replace(running, fraction=0.18))
    assert "6,912/16,243 · 43 % ·" in status_line(replace(running, fraction=0.43))  # the stage is the job
    assert "· 50 % ·" in status_line(replace(running, message="Reading corpus.json", fraction=0.5))


def test_a_finished_job_keeps_a_message_it_reported() -> None:
    line = status_line(_status("done", "Answered 5 questions", 75.0, stage="answer"))
    assert line.startswith("Answered 5 questions") and "stage" not in line and line.endswith("took 1 min 15 s")


def test_quick_finished_jobs_leave_the_panel_soon_failures_stay() -> None:
    from dataclasses import replace

    from components import jobs_view

    class _Job:
        def __init__(self, st: JobStatus) -> None:
            self.st = st

        def status(self) -> JobStatus:
            return self.st

    quick = replace(_status("done", "", 0.3), since_finished=jobs_view.SHOW_QUICK_S + 1)
    slow = replace(_status("done", "", 60.0), since_finished=jobs_view.SHOW_QUICK_S + 1)
    failed = replace(_status("failed", "", 0.3), since_finished=jobs_view.SHOW_QUICK_S + 1)
    shown = jobs_view._shown([_Job(quick), _Job(slow), _Job(failed)])  # type: ignore[list-item]
    assert [j.st for j in shown] == [slow, failed]


def test_an_instant_replay_is_not_listed_a_slow_or_failed_one_is() -> None:
    """Each recorded run replayed at once added a sidebar entry; one that took a while, or failed, still shows."""
    from dataclasses import replace

    from components import jobs_view

    class _Job:
        def __init__(self, st: JobStatus) -> None:
            self.st = st

        def status(self) -> JobStatus:
            return self.st

    instant = replace(_status("done", "", 0.2, replay=True), since_finished=0.5)
    slow = replace(_status("done", "", jobs_view.INSTANT_REPLAY_S + 10, replay=True), since_finished=0.5)
    failed = replace(_status("failed", "", 0.2, replay=True), since_finished=0.5)
    live = replace(_status("done", "", 0.2), since_finished=0.5)  # a live LLM's quick run: listed briefly
    shown = jobs_view._shown([_Job(instant), _Job(slow), _Job(failed), _Job(live)])  # type: ignore[list-item]
    assert [j.st for j in shown] == [slow, failed, live]


def test_the_banner_names_the_training_workspace_by_its_name_and_drops_repeated_words() -> None:
    """At 1440 px an audit read "Training SG-RAG's dominance model for “Demo…” (first use) … about 1 min 05 s left":
    the banner's line names the workspace whole by its name (the title's subtitle and "(first use)" go to the
    tooltip) and leaves out the message's label the title already says; the sidebar's full line keeps them."""
    from dataclasses import replace

    from components.jobs_view import banner_title
    from tests.app.helpers import plain

    title = "Training SG-RAG's dominance model for “Demo: the BubbleRAG paper's worked examples” (first use)"
    assert banner_title(title) == "Training SG-RAG's dominance model for “Demo”"
    assert banner_title("Building workspace “Kestrel Peak”") == "Building workspace “Kestrel Peak”"
    # a count outside the quotes is the tooltip's (an audit saw "Finding synonymy edges among 16,243 entities for
    # PPR …" cut at the right edge); inside the quotes it is the workspace's name
    assert banner_title("Finding synonymy edges among 16,243 entities for PPR") == "Finding synonymy edges among entities for PPR"
    assert banner_title("Embedding 9,123 KG node texts for FastInsight in “Run 2024”") == \
        "Embedding KG node texts for FastInsight in “Run 2024”"
    assert banner_title("Adding documents to “a:b (notes)”") == "Adding documents to “a:b”"  # no ": " subtitle
    # a closing parenthetical naming the workspace keeps only the name (audit 50's line ended "· St…")
    assert banner_title("Finding synonymy edges among entities for PPR (cosine ≥ 0.8; first use of “MuSiQue (GPT)”)") \
        == "Finding synonymy edges among entities for PPR in “MuSiQue”"
    assert banner_title("Embedding 48,482 KG node texts for FastInsight (documents were added to “Notes” since it was "
                        "built)") == "Embedding KG node texts for FastInsight in “Notes”"
    running = replace(_status("running", "Dominance model: epoch 12, loss 0.0123", 40.0), title=title, fraction=0.4,
                      eta=65.0)
    assert plain(status_line(running, brief=True)) == "epoch 12, loss 0.0123 · 40 % · about 1 min 05 s left"
    assert plain(status_line(running)).startswith("Dominance model: epoch 12, loss 0.0123 · 40 % · ")
    other = replace(running, title="Building workspace “MuSiQue”", message="Embedding nodes: 9,216/16,243")
    assert plain(status_line(other, brief=True)).startswith("Embedding nodes: 9,216/16,243 · ")


def test_the_tours_banner_leaves_out_a_method_run_another_steps_page_started() -> None:
    """Audit 40: Next during step 10's FastInsight replay opened step 11 (no LLM) under "FastInsight … with LLM
    recorded on the server: Starting…"; its lesson follows on step 10's page, and the sidebar still lists it."""
    import threading

    from components.jobs_view import FROM_PAGE, tour_banner_shows
    from core.background.jobs import Job

    gate = threading.Event()
    run = Job("method:x", "FastInsight", lambda job: gate.wait(5), kind="method", session="me",
              extra={FROM_PAGE: "pages/granker.py"})
    build = Job("workspace:/ws/other", "Building", lambda job: None, kind="workspace", session=None)
    older = Job("method:y", "Re2", lambda job: None, kind="method", session="me")  # started before pages were kept
    try:
        assert tour_banner_shows(run, "/ws/demo", "pages/granker.py")  # its own step's page names it
        assert not tour_banner_shows(run, "/ws/demo", "pages/subgraph_matching.py")  # another step's: its lesson follows there
        assert tour_banner_shows(older, "/ws/demo", "pages/subgraph_matching.py")
        assert not tour_banner_shows(build, "/ws/demo", "pages/granker.py")  # the server's own build of another workspace
        assert tour_banner_shows(build, "/ws/other", "pages/granker.py")
    finally:
        gate.set()


def test_a_running_benchmark_of_a_workspace_is_seen_by_its_training_panel() -> None:
    """Audit 43: a ReG model trained during a benchmark of the workspace changed the run's scorer midway; runs now
    pin the retriever they start with, and the Train panel sees the benchmark (any session's) to say so."""
    import threading

    from components import jobs_view
    from components.benchmark_view import WORKSPACE_EXTRA
    from components.train_view import bench_running

    gate = threading.Event()
    job = jobs_view.jobs().submit("bench:test-hold", "Benchmark", lambda j: gate.wait(30), kind="bench",
                                  extra={WORKSPACE_EXTRA: "films"})
    try:
        assert bench_running("films") and not bench_running("demo")
    finally:
        gate.set()
        job.wait(30)
    assert not bench_running("films")


def test_the_servers_own_finished_builds_leave_soon_and_never_show_during_the_tour() -> None:
    """An audit's projector sidebar grew "Dismiss all finished (2)" mid-tour when the server's MuSiQue sample build
    ended: a finished server build (no session asked for it) shows briefly ("ready"), a failed one stays, and during
    the guided demo neither is listed (no step asked for it)."""
    from dataclasses import replace

    import streamlit as st

    from components import jobs_view
    from components import state as S

    class _Job:
        def __init__(self, st: JobStatus) -> None:
            self.st = st

        def status(self) -> JobStatus:
            return self.st

    def server(state: str, ago: float) -> JobStatus:
        return replace(_status(state, "", 120.0), kind="workspace", sessions=frozenset(), since_finished=ago)

    just, later, failed = server("done", 1.0), server("done", jobs_view.SHOW_QUICK_S + 1), server("failed", 30.0)
    mine = replace(_status("done", "", 60.0), since_finished=30.0)
    st.session_state[jobs_view.SEEN_AT] = -1e9  # this session opened before they ended
    st.session_state.pop(S.TOUR, None)
    jobs = [_Job(just), _Job(later), _Job(failed), _Job(mine)]
    assert [j.st for j in jobs_view._shown(jobs)] == [just, failed, mine]  # type: ignore[arg-type]
    st.session_state[S.TOUR] = object()  # the guided demo runs
    try:
        assert [j.st for j in jobs_view._shown(jobs)] == [mine]  # type: ignore[arg-type]
    finally:
        st.session_state.pop(S.TOUR, None)
        st.session_state.pop(jobs_view.SEEN_AT, None)
