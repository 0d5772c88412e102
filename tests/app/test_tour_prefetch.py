"""The guided demo fetches its next step's recorded runs ahead (components/prefetch.py): while one step is shown,
the runs the next step's page will show replay in the background, unlisted, and that page joins them instead of
starting them (an audit timed 20–40 s of "Running fastinsight…" on each Compare step)."""

from __future__ import annotations

from pathlib import Path

import pytest

from components import jobs_view, tour
from components import state as S
from components.prefetch import step_runs
from core.methods.registry import method_names
from tests.app.helpers import app, plain

pytestmark = pytest.mark.model  # the recorded runs replay with the models they were recorded with
COMPARE_STEP = next(i for i, s in enumerate(tour.STEPS) if s.page == "pages/compare.py")


def _ok(at):  # type: ignore[no-untyped-def]
    assert not at.exception, [e.value for e in at.exception]
    return at


def _method_jobs(question: str) -> dict[str, int]:
    return {j.key: j.id for j in jobs_view.jobs().jobs() if j.key.startswith("method:") and question in j.key}


@pytest.mark.slow
def test_the_step_before_compare_fetches_its_runs_and_compare_joins_them(home: Path) -> None:
    at = _ok(app().run())
    _ok(at.button(key=S.sub(S.TOUR, "start")).click().run())
    for _ in range(COMPARE_STEP):  # to the step before Compare (Ask)
        assert "Compare" not in tour.STEPS[at.session_state[S.TOUR].step].page
        if at.session_state[S.TOUR].step == COMPARE_STEP - 1:
            break
        _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    question = tour.STEPS[COMPARE_STEP].question
    ahead = {k: j for k, j in ((j.key, j) for j in jobs_view.jobs().jobs()) if j.extra.get(jobs_view.PREFETCH)}
    fetched = {k for k in ahead if question in k}
    # one job per method Compare shows (BubbleRAG's own run at the defaults may be the step pages' already, and
    # HippoRAG 2's the page before Compare, which shows it)
    assert len(fetched) >= len(method_names()) - 2, sorted(fetched)
    assert len(step_runs(COMPARE_STEP)) == len(method_names())
    sidebar = plain(" ".join(str(e.value) for kind in ("markdown", "caption") for e in at.sidebar.get(kind)))
    assert "with LLM recorded" not in sidebar  # unlisted: the page that needs them shows them
    for j in ahead.values():
        assert j.wait(300) and j.status().state == "done", j.status()
    before = _method_jobs(question)
    _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    assert at.session_state[S.TOUR].step == COMPARE_STEP
    after = _method_jobs(question)
    # Compare joined the fetched runs: no run of its own started (a new one at a page's defaults is the next step's,
    # GRanker's, fetched once Compare opened)
    assert {k: after[k] for k in before} == before and all(k.endswith(", []]") for k in set(after) - set(before)), \
        sorted(set(after) - set(before))
    shown = [str(e.value) for e in at.error]
    assert not [t for t in shown if "did not finish" in t or "LLM call failed" in t or "Not recorded" in t], shown


@pytest.mark.slow
def test_home_on_other_choices_loads_the_tours_models_in_the_background(home: Path, tour_warmup: None) -> None:
    """On a freshly started server the tour's first steps waited for the recording's embedder and reranker to load
    (an audit's lecturer saw "Running BubbleRAG on this question …"): Home, on the person's own choices, loads them
    in an unlisted background job, once, and says the first steps may take a few seconds."""
    from components import prefetch

    at = app()
    at.session_state[S.WORKSPACE] = "musique"  # not the tour's choices: its first step cannot be fetched ahead
    _ok(at.run())
    job = jobs_view.jobs().get(prefetch.WARM_KEY)
    assert job is not None and job.extra.get(jobs_view.PREFETCH)
    assert job.wait(120) and job.status().state == "done", job.status()
    assert any("first steps take a few seconds more" in plain(str(c.value)) for c in at.caption)
    assert prefetch.warm_models() is False  # once per server
    sidebar = plain(" ".join(str(e.value) for kind in ("markdown", "caption") for e in at.sidebar.get(kind)))
    assert "demo's models" not in sidebar  # unlisted


@pytest.mark.slow
def test_home_on_the_defaults_fetches_the_first_steps_with_the_recorded_llm(home: Path, tour_warmup: None) -> None:
    """The app's defaults are the demo, the recording's models and no LLM: Home fetches the first steps' recorded runs
    anyway (with the step's own LLM, as its page will hold it), so "Start" opens step 1 on a finished run, not on
    "Running BubbleRAG on this question …" for 1–2 s (audits 51 and 52; before, only a sidebar already on the
    recorded LLM was fetched for). Step 1 joins the fetched run: no run of its own starts."""
    at = app()
    at.session_state[S.EMBEDDER], at.session_state[S.RERANKER] = "bge-small", "ms-marco-minilm"
    _ok(at.run())
    assert at.session_state[S.LLM] == "none" and at.session_state[S.WORKSPACE] == tour.WORKSPACE
    fetched = _method_jobs(tour.STEPS[0].question)
    ahead = [j for j in jobs_view.jobs().jobs() if j.key in fetched and j.extra.get(jobs_view.PREFETCH)]
    assert ahead and all('recorded' in j.key for j in ahead), sorted(fetched)
    for j in ahead:
        assert j.wait(300) and j.status().state == "done", j.status()
    _ok(at.button(key=S.sub(S.TOUR, "start")).click().run())
    assert at.session_state[S.TOUR].step == 0 and at.session_state[S.LLM] == tour.LLM
    assert {k: v for k, v in _method_jobs(tour.STEPS[0].question).items() if k in fetched} == fetched


@pytest.mark.slow
def test_the_step_without_an_llm_fetches_the_next_steps_recorded_runs(home: Path, monkeypatch) -> None:
    """SG-RAG's step without an LLM (its sidebar on "none") now comes right before BubbleRAG's Lothair pages (two
    audits: the question jumped Lothair → Keanu → Lothair around it): on it, the next step's recorded BubbleRAG run
    is fetched ahead with the recorded LLM that step's sidebar will hold (it fetched nothing off the recorded LLM),
    and the next page joins it."""
    from components import prefetch

    monkeypatch.setattr(prefetch, "LOOKAHEAD", 1)  # else the step before fetches it already (the test after this)
    (i,) = [j for j, s in enumerate(tour.STEPS) if s.llm == "none"]
    assert tour.STEPS[i + 1].llm == tour.LLM and step_runs(i + 1) == [("bubblerag", None)]
    question = tour.STEPS[i + 1].question
    at = _ok(app().run())
    _ok(at.button(key=S.sub(S.TOUR, "start")).click().run())
    at.session_state[S.TOUR].step = i - 1  # the step before: "Back to step i" on the page the tour opened
    _ok(at.run())
    _ok(at.button(key=S.sub(S.TOUR, "resume")).click().run())
    assert at.session_state[S.TOUR].step == i - 1
    assert not [k for k in _method_jobs(question) if '"bubblerag"' in k]
    _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    assert at.session_state[S.TOUR].step == i and at.session_state[S.LLM] == "none"
    ahead = [j for j in jobs_view.jobs().jobs()
             if j.extra.get(jobs_view.PREFETCH) and j.key.startswith("method:") and question in j.key
             and j.key.startswith('method:["bubblerag"') and j.key.endswith(", []]")]  # the page's run (Compare's, at
    # its budget, is fetched too, from five steps ahead)
    assert len(ahead) == 1 and "recorded" in ahead[0].key, [j.key for j in ahead]
    assert ahead[0].wait(300) and ahead[0].status().state == "done", ahead[0].status()
    before = _method_jobs(question)
    _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    assert at.session_state[S.TOUR].step == i + 1 and at.session_state[S.LLM] == tour.LLM
    assert _method_jobs(question) == before  # the Lothair anchors page joined the fetched run


@pytest.mark.slow
@pytest.mark.parametrize(("page", "method"), [("pages/hipporag2.py", "hipporag2"), ("pages/granker.py", "fastinsight"),
                                              ("pages/subgraph.py", "sgrag"), ("pages/evidence_chains.py", "reg")])
def test_the_other_pages_steps_are_fetched_ahead_and_the_page_joins_the_run(home: Path, page: str, method: str) -> None:
    """Audit 42 found the HippoRAG 2 step blank for 1–2 s after Next and GRanker's on "Running FastInsight …": each
    such step's run is fetched on the step before, keyed as the page keys it at its knobs' defaults, so the page
    joins it."""
    i = next(j for j, s in enumerate(tour.STEPS) if s.page == page and s.llm == tour.LLM and j > 0
             and tour.STEPS[j - 1].llm == tour.LLM)
    assert step_runs(i) == [(method, None)]
    at = _ok(app().run())
    _ok(at.button(key=S.sub(S.TOUR, "start")).click().run())
    while at.session_state[S.TOUR].step < i - 1:
        _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    question = tour.STEPS[i].question
    ahead = [j for j in jobs_view.jobs().jobs() if j.extra.get(jobs_view.PREFETCH) and question in j.key
             and f'"{method}"' in j.key]
    assert ahead, sorted(j.key for j in jobs_view.jobs().jobs())
    for j in ahead:
        assert j.wait(300) and j.status().state == "done", j.status()
    def hippo() -> dict[str, int]:  # at the page's defaults (Compare's, at its budget, is fetched once this one opens)
        return {k: v for k, v in _method_jobs(question).items() if k.startswith(f'method:["{method}"')
                and k.endswith(", []]")}

    before = hippo()
    _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    assert at.session_state[S.TOUR].step == i and before
    assert hippo() == before  # the page joined the fetched run: none of its own started


@pytest.mark.slow
def test_two_steps_ahead_are_fetched_so_a_quick_next_finds_its_runs_done(home: Path) -> None:
    """Audit 43 clicked Next soon after each step opened (load ~9) and read "Running FastInsight … — the lesson
    follows" on GRanker's step, whose runs had started only when the step before opened: the tour fetches the runs
    of the next two steps."""
    from components import prefetch

    assert prefetch.LOOKAHEAD == 2
    def fresh(j: int) -> bool:  # step j + 2 has runs of its own, not the next step's, all on the recorded LLM
        later, nxt = (step_runs(j + 2), tour.STEPS[j + 2].question), (step_runs(j + 1), tour.STEPS[j + 1].question)
        return bool(later[0]) and later != nxt and all(tour.STEPS[k].llm == tour.LLM for k in (j, j + 1, j + 2))

    i = next(j for j in range(1, len(tour.STEPS) - 2) if fresh(j))
    at = _ok(app().run())
    _ok(at.button(key=S.sub(S.TOUR, "start")).click().run())
    while at.session_state[S.TOUR].step < i:
        _ok(at.button(key=S.sub(S.TOUR, "next")).click().run())
    question = tour.STEPS[i + 2].question
    wanted = {m for m, _ in step_runs(i + 2)}
    ahead = {m for m in wanted for j in jobs_view.jobs().jobs()
             if j.extra.get(jobs_view.PREFETCH) and question in j.key and f'"{m}"' in j.key}
    assert ahead == wanted, (i, sorted(j.key for j in jobs_view.jobs().jobs()))


def test_a_compare_step_is_fetched_from_five_steps_ahead_after_the_next_two() -> None:
    """Audit 56's first walk opened the Compare steps 16 and 17 on "Running the methods …" (eight methods replayed,
    12–36 s each, on a server still building its samples), two steps' lookahead being too little for them: a Compare
    step's runs are fetched from :data:`prefetch.COMPARE_LOOKAHEAD` steps ahead, after the next two steps' own."""
    from components import prefetch

    compares = [j for j, s in enumerate(tour.STEPS) if s.page == prefetch.COMPARE_PAGE]
    assert len(compares) >= 2 and prefetch.COMPARE_LOOKAHEAD > prefetch.LOOKAHEAD
    for c in compares:
        for nxt in range(max(0, c - prefetch.COMPARE_LOOKAHEAD + 1), c + 1):
            ahead = prefetch.steps_ahead(nxt)
            assert c in ahead, (c, nxt, ahead)
            assert ahead[:prefetch.LOOKAHEAD] == list(range(nxt, min(nxt + prefetch.LOOKAHEAD, len(tour.STEPS))))
    # no other step is fetched beyond the next two, and nothing past the end
    for nxt in range(len(tour.STEPS)):
        far = prefetch.steps_ahead(nxt)[prefetch.LOOKAHEAD:]
        assert all(tour.STEPS[j].page == prefetch.COMPARE_PAGE and j < len(tour.STEPS) for j in far), (nxt, far)
        assert len(set(prefetch.steps_ahead(nxt))) == len(prefetch.steps_ahead(nxt))
