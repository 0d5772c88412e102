"""The guided demo's next step, fetched ahead: while the lecturer talks over one step, the recorded runs the next
step's page will show replay in the background, so that page opens on finished runs.

An audit timed 20–40 s of "Running fastinsight…" on each Compare step of the tour (eight methods replayed one
after the other when the page opened, on a server still building its samples) and several seconds of an empty
step 1 after **Start**. The runs are the same ones the page asks for (:func:`components.runs.prefetch` starts
the job :func:`components.runs.method_run` would, under the same key, unlisted), so the page joins a job that is
done or running instead of starting it; nothing else changes. Only recorded runs are fetched ahead (a replay
costs no model time), and only with the tour's own sidebar choices (the demo, the recorded LLM and the
recording's models), so a fetch is never for a run nobody will ask for. ``EGX_TOUR_PREFETCH=0`` turns it off
(``benchmarks/tour_clicks.py --no-prefetch`` measures the difference).

On Home the first steps are fetched ahead when the sidebar holds the demo and the recorded runs' models, whatever
its LLM (the app's defaults); on other choices they cannot be (their runs need the tour's workspace and models), but
what makes the first steps slow on a freshly started server is loading the models its recorded runs
were made with: :func:`warm_models` loads them in the background, once per server, so "Start the guided demo" finds
them loaded.
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from components import runs, tour
from components import state as S
from core.errors import EgxError

#: The BubbleRAG pages: each shows the run of the paper defaults on the step's question.
BUBBLE_PAGES = ("pages/bubble_anchors.py", "pages/bubble_expansion.py", "pages/bubble_ranking.py",
                "pages/bubble_ask.py")
COMPARE_PAGE = "pages/compare.py"
#: The other pages whose tour step shows one run at the method's defaults (the tour resets their knobs, :data:`tour.RESET`),
#: fetched ahead like BubbleRAG's: page → method.
DEFAULT_RUN_PAGES = {"pages/hipporag2.py": "hipporag2", "pages/granker.py": "fastinsight", "pages/subgraph.py": "sgrag",
                     "pages/evidence_chains.py": "reg"}


#: How many steps ahead are fetched: two, so that Next clicked soon after a step opened still finds its runs done
#: (audit 43 clicked on at load ~9 and read "Running FastInsight … — the lesson follows" for seconds on GRanker's
#: step, whose runs had started only when the step before opened).
LOOKAHEAD = 2
#: How many steps ahead a Compare step is fetched: its eight methods' runs take the longest to replay, and on a server
#: still building its samples two steps were not enough (audit 56's first walk opened steps 16 and 17 on "Running
#: the methods …", 12–36 s a method; a second walk 1.3–1.5 s a step). Fetched from five steps ahead, they replay
#: while the lecturer talks over the four before; a window, not the whole tour, so that the runs fetched stay among
#: the finished jobs the server keeps (:data:`core.background.jobs.KEEP_FINISHED`).
COMPARE_LOOKAHEAD = 5


def step_runs(i: int) -> list[tuple[str, object | None]]:
    """(method, config) of the runs tour step ``i``'s page shows at its defaults ([] for a page with its own
    settings, at their defaults on the tour: :data:`DEFAULT_RUN_PAGES`)."""
    from components.budget_view import default_budget
    from core.methods.budget import BUDGETS, apply_budget
    from core.methods.registry import METHODS, method_names

    page = tour.STEPS[i].page
    if page in BUBBLE_PAGES:
        return [("bubblerag", None)]
    if page in DEFAULT_RUN_PAGES:  # its knobs reset to their defaults on every step (audit 42 found the HippoRAG 2
        # step blank for 1–2 s, and GRanker's on "Running FastInsight …" for 2–4 s)
        return [(DEFAULT_RUN_PAGES[page], None)]
    if page == COMPARE_PAGE:  # the methods the tour keeps on Compare, at the budget its page opens with
        chosen = [m for m in (st.session_state.get(S.COMPARE_METHODS) or method_names()) if m in METHODS]
        picked = st.session_state.get(S.COMPARE_BUDGET)
        budget = BUDGETS[picked] if picked in BUDGETS else BUDGETS[default_budget(tour.LLM, tour.WORKSPACE)[0]]
        return [(m, apply_budget(METHODS[m], None, budget) if METHODS[m].budget else None) for m in chosen]
    return []


@st.cache_data(show_spinner=False)
def _recorded_models() -> dict[str, str]:
    """The models the demo's recorded runs were made with (the bundles are read and checked once per server)."""
    from core.batch.recording import recorded_models

    try:
        return recorded_models(tour.WORKSPACE, tour.KEANU)
    except EgxError:
        return {}


def _tour_backends(act: Any, models: dict[str, str], llm: str = tour.LLM) -> bool:
    """Whether the sidebar holds the tour's choices: the demo workspace, the LLM ``llm`` (the recorded one, or the
    current step's: ``none`` on SG-RAG's step without an LLM) and the ``models`` its runs were recorded with."""
    if act.workspace.name != tour.WORKSPACE or act.llm_name != llm or not models:
        return False
    return act.embedder_name == models.get("embedder", act.embedder_name) and \
        act.reranker_name == models.get("reranker", act.reranker_name)


def _step_backends(act: Any, llm: str) -> Any:
    """The sidebar's backends with the LLM ``llm``, the next step's: the step before BubbleRAG's Lothair pages runs
    SG-RAG without an LLM (its sidebar on ``none``), and the next step's recorded runs are fetched with the recorded
    LLM, as that step's sidebar will hold it (the same run key: the LLM's name and model, and the cache switch)."""
    if act.llm_name == llm:
        return act.backends
    import dataclasses

    from components import resources

    cache = st.session_state.get(S.LLM_CACHE)
    return dataclasses.replace(act.backends, llm=resources.llm(llm, cache=cache if isinstance(cache, bool) else None))


def after_page() -> int:
    """Called after a page ran: on the tour, start the runs of the next :data:`LOOKAHEAD` steps and of a Compare step
    among the next :data:`COMPARE_LOOKAHEAD` (:func:`steps_ahead`); on Home with the
    demo and the recording's models in the sidebar (any LLM), the first steps' (the class usually starts there). How
    many runs were started."""
    from core.methods.registry import METHODS

    if os.environ.get("EGX_TOUR_PREFETCH", "1") == "0":
        return 0
    t = tour.current()
    page = st.session_state.get(S.PAGE)
    if t is not None:
        nxt = t.step + 1
    elif page == "pages/home.py" and home_fetches():
        nxt = 0
    else:
        return 0
    act = st.session_state.get(S.ACTIVE)  # what the sidebar resolved for this run (components.sidebar.active)
    if nxt >= len(tour.STEPS) or act is None:
        return 0
    # Home: any LLM in the sidebar (the app's default is none), since the runs are fetched with the step's own LLM
    # (:func:`_step_backends`), as its page will hold it — on the demo with the recorded models, the default
    # choices, step 1 opened on "Running BubbleRAG on this question …" for 1–2 s (audits 51 and 52)
    if not _tour_backends(act, t.models if t is not None else _recorded_models(),
                          tour.STEPS[t.step].llm if t is not None else act.llm_name):
        if t is None:  # Home on other choices: load the tour's models ahead instead
            warm_models()
        return 0
    started = 0
    for ahead in steps_ahead(nxt):
        wanted = step_runs(ahead)
        backends = _step_backends(act, tour.STEPS[ahead].llm) if wanted else act.backends
        for method, config in wanted:
            try:
                started += runs.prefetch(METHODS[method], act.workspace, act.key, backends,
                                         tour.STEPS[ahead].question, config,  # type: ignore[arg-type]
                                         page=tour.STEPS[ahead].page)
            except EgxError:  # a run that cannot start says so when its page asks for it
                continue
    return started


def steps_ahead(nxt: int) -> list[int]:
    """The steps whose runs are fetched when step ``nxt`` is the next: the :data:`LOOKAHEAD` next ones, then the
    Compare steps among the :data:`COMPARE_LOOKAHEAD` next (the near steps first)."""
    n = len(tour.STEPS)
    near = list(range(nxt, min(nxt + LOOKAHEAD, n)))
    far = [j for j in range(nxt + LOOKAHEAD, min(nxt + COMPARE_LOOKAHEAD, n)) if tour.STEPS[j].page == COMPARE_PAGE]
    return near + far


def home_fetches() -> bool:
    """Whether Home works ahead for the tour (its first steps' runs, or the tour's models): always in the app; the
    tests switch it off where they do not ask for it, since its background runs outlive the test that opened Home."""
    return True


#: The job that loads the tour's models ahead (:func:`warm_models`): one per server.
WARM_KEY = "tour:warm-models"


def warm_models() -> bool:
    """Load the embedder and reranker the demo's recorded runs were made with (:func:`_recorded_models`) in a
    background job of the server, unlisted, never blocking Home: on a freshly started server the tour's first steps
    otherwise waited for them behind "Running BubbleRAG on this question …" (an audit). The models go to the same
    caches the sidebar reads (:mod:`components.resources`, with the arguments it passes on the tour's choices), so
    the tour's first page finds them loaded. Once per server (a finished job is not restarted); nothing when the
    demo ships no recording. Whether a job was started."""
    from components import jobs_view, resources

    models = _recorded_models()
    if not models:
        return False
    manager = jobs_view.jobs()
    if manager.get(WARM_KEY) is not None:
        return False
    emb, rr = models.get("embedder"), models.get("reranker")

    def work(_job: Any) -> None:
        if emb:
            resources.embedder(emb)
        if emb and rr:
            resources.reranker(rr, emb, resources.llm(tour.LLM).name)

    manager.submit(WARM_KEY, "Loading the guided demo's models", work, kind="method", restart=False, session="",
                   extra={jobs_view.PREFETCH: True})
    return True
