"""Method runs and their preparations as the pages see them: the cached run, or a background job of the server.

:func:`method_run` is the one way every page runs a retrieval method. A run that waits on an LLM is a job
of the server (its stage, LLM requests and Cancel drawn live); what a method needs built first (the indexes,
FastInsight's node vectors, SG-RAG's dominance model) runs as a job too, and a long one waits for the user's
click (:func:`offer_preparation`). The caches themselves are :mod:`components.resources`'.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import streamlit as st

from components import jobs_view, resources
from components import state as S
from components.ui import error_text, md_escape
from components.workspaces import about, ask_before_s
from core.errors import EgxError, WorkspaceError
from core.methods.reranking import feature_store

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.background.jobs import Job
    from core.index.workspace import Workspace
    from core.methods.base import Backends, Method, MethodConfig, MethodResult

R = TypeVar("R", bound="MethodResult")


def method_run(spec: Method[Any, R], workspace: Workspace, key: str, backends: Backends, query: str,
               config: MethodConfig | None = None, *, defer: bool = False) -> R:
    """``spec.run`` on ``query`` (``config`` None: the paper defaults; generators seeded with 0), cached.

    The one way every page runs a retrieval method. A run is keyed by the workspace key, the method,
    the backends it uses (a method that does not rerank ignores the reranker), the question and the
    config fields that differ from the defaults, so pages showing the same run share it and moving a
    slider back to a value seen before is instant. Results are kept as objects (cache_resource): they
    are frozen dataclasses, and pickling them on every access (cache_data) would cost more than a
    `none`-mode run itself.

    What the method needs built first runs as a background job (:func:`prepare_in_background`); a long one
    waits for the user's click. ``defer``: raise :class:`PreparationPending` instead of drawing that offer
    and stopping the page (Compare runs the other methods meanwhile).

    Raises
    ------
    core.errors.EgxError
        What the method raises (bad question, bad config, unusable workspace); :class:`PreparationPending`
        with ``defer``.
    """
    used, cfg, backends_key, params = _run_key(spec, workspace, backends, config, query)
    # e.g. FastInsight's node vectors on first use of a KG (a long one only when asked for; ``defer``: see there)
    prepare_in_background(spec, workspace, used, cfg, defer=defer)
    if used.llm is not None and used.llm.available:  # it waits on an LLM: a job you can watch and stop
        if used.llm.name != "recorded" and jobs_view.jobs().get(_job_key(spec, key, backends_key, query, params)) is None:
            ask_live_run(spec, key, used.llm.name, query)  # a live model: asked first, with what it may take
        return _method_job(spec, workspace, used, key, backends_key, query, params)  # type: ignore[no-any-return]
    return resources.cached_run(spec.name, workspace, used, key, backends_key, query,  # type: ignore[no-any-return]
                       params)


def _run_key(spec: Method[Any, Any], workspace: Workspace, backends: Backends, config: MethodConfig | None,
             query: str | None = None) -> tuple[Backends, Any, str, tuple[tuple[str, Any], ...]]:
    """What keys a run of ``spec`` on ``query`` (:func:`method_run`): the backends it uses, its config, the
    backends' key and the config fields that differ from the defaults."""
    from core.methods.run import backends_for, scoped_backends

    # the recorded LLM on a workspace or question it holds no run of runs as in none mode, the reranker kept (as
    # run_method)
    used = backends_for(spec.name, scoped_backends(backends, workspace.name, spec.name, query))
    cfg = config if config is not None else spec.config()
    params = tuple(sorted(cfg.overrides().items()))
    names = used.names()
    if used.llm is not None and getattr(used.llm, "enabled", True) is False:
        names["llm_cache"] = "off"  # the sidebar's switch is off: a fresh run, not the one that used the cache
    # a model trained since (Train panel, CLI) makes this a new run
    stamp = spec.artifacts.stamp(workspace.path) if spec.artifacts is not None else ""
    if stamp:
        names["models"] = stamp
    return used, cfg, json.dumps(names, sort_keys=True), params


def ask_live_run(spec: Method[Any, Any], key: str, llm: str, query: str) -> None:
    """Nothing that calls a live LLM starts before the person asks (a live BubbleRAG run takes minutes on 2 CPU
    cores; an audit's Ask page started one on opening, while the embedder switch waited for a click): unless this
    session asked for ``query`` under ``llm`` in this workspace, say what the run may take — the recorded runs'
    median live seconds of ``spec`` — offer the button and stop the page. One click lets every method run the
    question (Compare asks once for all of them)."""
    from core.backends.llm_bundles import recorded_live_seconds

    ok = st.session_state.setdefault(S.LIVE_RUNS_OK, set())
    if (key, llm, query) in ok:
        return
    seen = recorded_live_seconds(spec.name)
    took = (f" Its recorded runs with the local 1.5B model took a median {about(seen[0])} a question ({seen[1]} "
            "runs, 2 CPU cores); a larger model or a remote one differs." if seen else "")
    with st.container(border=True):
        st.markdown(f":material/smart_toy: **{md_escape(spec.title)} with the live LLM “{md_escape(llm)}”** asks the "
                    f"model at each of its LLM stages, and the server's cores are busy meanwhile.{took} Nothing is "
                    "started until you ask.")
        if st.button("Run with the live LLM", icon=":material/play_arrow:", type="primary",
                     key=S.sub(S.LIVE_RUNS_OK, spec.name)):
            ok.add((key, llm, query))
            st.rerun()
        st.caption("The sidebar's LLM “none” or “recorded” answers at once.")
    st.stop()


def llm_words(llm: Any, workspace: Workspace) -> str:
    """What a run's title says of its LLM: "with LLM local", or "without an LLM" for the recorded LLM on a workspace
    it holds no run of (every LLM stage takes its fallback, as the page's notice says; the Benchmark page names
    such a run "no-llm")."""
    holds = getattr(llm, "holds_workspace", None)
    if holds is not None and not holds(workspace.name):
        return "without an LLM"
    return f"with LLM {llm.name}"


def _job_key(spec: Method[Any, Any], key: str, backends_key: str, query: str,
             params: tuple[tuple[str, Any], ...]) -> str:
    return "method:" + json.dumps([spec.name, key, backends_key, query, params], default=str)


def prefetch(spec: Method[Any, Any], workspace: Workspace, key: str, backends: Backends, query: str,
             config: MethodConfig | None = None, *, page: str = "") -> bool:
    """Start the recorded replay of ``spec`` on ``query`` as the unlisted background job :func:`method_run` would
    start, so the page that shows it next finds it done (the guided demo asks for its next step's runs while
    the lecturer talks over this one). Only a recorded run (a replay: no model works for it) whose method needs
    only quick builds first (those the page would start unasked: FastInsight's node vectors on the demo); a run
    already done or running is left alone; ``page``: the page that will show it (its builds stay off the tour's
    banner until then). Whether a job was started."""
    from core.methods.run import pending_preparations

    used, cfg, backends_key, params = _run_key(spec, workspace, backends, config, query)
    if used.llm is None or used.llm.name != "recorded" or not used.llm.available:
        return False
    manager = jobs_view.jobs()
    jkey = _job_key(spec, key, backends_key, query, params)
    if manager.get(jkey) is not None:
        return False
    pending = pending_preparations(spec, workspace, used, cfg)
    if any(p.estimate_s is None or p.estimate_s > ask_before_s() for p in pending):
        return False  # a long build waits for the user's click on the page itself
    title, ahead = f"{spec.title} {llm_words(used.llm, workspace)}", {"replay": True, jobs_view.PREFETCH: True}
    if not pending:
        manager.submit(jkey, title, _run_work(spec, workspace, used, query, params), kind="method", restart=False,
                       extra=ahead)
        return True
    # the quick builds as the page starts them (the same jobs, listed: they are real work), then the run — keyed
    # once they are done, since a model they train is part of the run's key (SG-RAG's dominance model). Off the
    # tour's banner on the steps before ``page``, the one that needs them: a build fetched two steps ahead held
    # step 5's title under the banner's line
    preps = [manager.submit(p.key, p.title, preparation_work(p), kind="workspace", restart=False,
                            extra={**jobs_view.public(p.title), **({jobs_view.FROM_PAGE: page} if page else {})})
             for p in pending]
    session = jobs_view.session_id()

    def then_run(job: Job) -> None:
        for prep in preps:
            prep.wait()
            if prep.status().state != "done":
                return  # the page says what went wrong when it asks for the build again
        now, _, now_key, now_params = _run_key(spec, workspace, backends, config, query)
        run_key = _job_key(spec, key, now_key, query, now_params)
        run = manager.get(run_key) or manager.submit(run_key, title, _run_work(spec, workspace, now, query, now_params),
                                                     kind="method", restart=False, session=session, extra=ahead)
        run.wait()

    manager.submit("prefetch:" + jkey, f"Fetching {title} ahead", then_run, kind="method", restart=False,
                   session=session, extra=ahead)
    return True


def _run_work(spec: Method[Any, Any], workspace: Workspace, backends: Backends, query: str,
              params: tuple[tuple[str, Any], ...]) -> Callable[[Job], Any]:
    from core.methods.run import run_method

    config = spec.config(**dict(params)) if params else None

    def work(job: Job) -> Any:
        with feature_store(resources.reranker_features()):
            return run_method(spec.name, query, workspace, backends, config=config, seed=0)

    return work


def page_run(act: Active, spec: Method[Any, R], query: str, config: MethodConfig | None = None, *,
             backends: Backends | None = None) -> R:
    """A method page's run (:func:`method_run` on the sidebar's workspace and backends, or ``backends``); a run
    that cannot start (bad question, bad config, unusable workspace) says why and stops the page."""
    try:
        return method_run(spec, act.workspace, act.key, backends or act.backends, query, config)
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        st.stop()
        raise AssertionError("unreachable: st.stop ends the run") from exc


class PreparationPending(WorkspaceError):
    """A method cannot run yet: what it needs first is a long build that waits for the user's click
    (``job`` None) or is running as a background job (``job``). :func:`offer_preparation` draws either."""

    def __init__(self, method: str, pending: Any, job: Job | None) -> None:
        self.method, self.pending, self.job = method, pending, job
        when = ("is being built on the server" if job is not None else
                "has to be built first" + (f" (about {about(pending.estimate_s)})" if pending.estimate_s else ""))
        super().__init__(f"{method} is waiting: {pending.title} {when}.")


def preparation_work(p: Any) -> Callable[[Job], None]:
    """The job that computes preparation ``p`` (a :class:`core.methods.run.PendingPreparation`)."""
    def work(job: Job) -> None:
        p.work(job.progress)

    return work


def offer_preparations(waiting: Mapping[str, PreparationPending], *, compact: bool = False) -> None:
    """:func:`offer_preparation` once per build, naming every method that waits for it (``ppr`` and
    ``hipporag2`` share the synonym edges: one panel, one button)."""
    by_build: dict[str, list[PreparationPending]] = {}
    for exc in waiting.values():
        by_build.setdefault(exc.pending.key, []).append(exc)
    for group in by_build.values():
        offer_preparation(group[0], compact=compact, methods=[e.method for e in group])


def offer_preparation(exc: PreparationPending, *, compact: bool = False, methods: list[str] | None = None) -> None:
    """Draw what a waiting method needs: the running build's live panel (progress, ETA, Cancel), or what
    would be built, how long it is expected to take and why, with the button that starts it as a
    background job of the server (the page reruns when it is done). ``methods``: every method waiting for this
    build (default: ``exc.method``)."""
    p = exc.pending
    who = " and ".join(f"**{md_escape(m)}**" for m in (methods or [exc.method]))
    one = len(methods or [exc.method]) == 1
    if exc.job is not None and not exc.job.finished:
        st.info(f"{who} {'waits' if one else 'wait'} for: {md_escape(p.title)}. It runs once in the background on "
                "the server and is then kept with the workspace; the rest of the app stays usable meanwhile.",
                icon=":material/hourglass_top:")
        jobs_view.watch(exc.job)
        return
    est = f" It is expected to take **about {about(p.estimate_s)}** ({md_escape(p.estimate_how)})." \
        if p.estimate_s else ""
    st.info(f"{who} {'needs' if one else 'need'} something built first: {md_escape(p.title)}.{est} "
            + ("" if compact else "It runs once, in the background on the server (you can switch pages or close the "
               "tab), and is then kept with the workspace, so later runs start at once. ")
            + "Nothing is started until you ask.", icon=":material/build:")
    if st.button("Build it now", key=f"egx.prep.start.{p.key}", icon=":material/play_arrow:",
                 help="Start this build as a background job; its progress, ETA and Cancel appear here and in "
                      "the sidebar."):
        jobs_view.jobs().submit(p.key, p.title, preparation_work(p), kind="workspace", extra=jobs_view.public(p.title))
        st.rerun()


def prepare_in_background(spec: Method[Any, Any], workspace: Workspace, backends: Backends, config: Any, *,
                          defer: bool = False) -> None:
    """Compute what ``spec`` needs in ``workspace`` before it runs (:func:`core.methods.run.pending_preparations`:
    the indexes, then the method's own preparation — FastInsight's KG node vectors, SG-RAG's dominance
    model), each as a background job of the server with a live progress bar and ETA, keyed so that pages
    asking for the same preparation share it. Returns at once when everything is in the workspace already.

    A preparation expected to take longer than :func:`ask_before_s` (its estimate from a measured or stated
    rate) is not started unasked: the page says what it would build and how long that should take, with a
    button that starts it (:func:`offer_preparation`), and stops there. With ``defer`` (a page running
    several methods, such as Compare) nothing is drawn and nothing stops: :class:`PreparationPending` is
    raised for the page to draw in the method's place while the other methods run."""
    from core.methods.run import pending_preparations

    manager = jobs_view.jobs()
    done: set[str] = set()
    while True:
        # one at a time, asking again after each: with the indexes missing, the method's own preparation has no
        # estimate until they are built (it started unasked after an index build, however long it was)
        pending = [p for p in pending_preparations(spec, workspace, backends, config) if p.key not in done]
        if not pending:
            return
        p = pending[0]
        job = manager.get(p.key)
        running = job is not None and not job.finished
        long = p.estimate_s is not None and p.estimate_s > ask_before_s()
        if not running and long:
            exc = PreparationPending(spec.title, p, None)
            if defer:
                raise exc
            offer_preparation(exc)
            st.stop()
        # joins the running job; a finished one is started again (it failed, was cancelled, or what it made is
        # needed again: documents added since dropped it)
        job = manager.submit(p.key, p.title, preparation_work(p), kind="workspace", extra=jobs_view.public(p.title))
        job.wait(0.0 if (defer and long) or not jobs_view.waits_on(job) else jobs_view.inline_wait(8.0))
        s = job.status()
        if s.state == "done":
            done.add(p.key)
            continue
        if s.state in ("failed", "cancelled"):
            job.result()  # raises the error (or Cancelled), which the page shows
        if defer:
            raise PreparationPending(spec.title, p, job)
        jobs_view.wait_for(job, note=f"{s.title} runs once on the server and is then kept in the workspace folder; "
                                     f"{spec.title} continues when it is done.")
        raise AssertionError("unreachable: wait_for stops the page")


def _method_job(spec: Method[Any, Any], workspace: Workspace, backends: Backends, key: str, backends_key: str,
                query: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """A method run with an LLM, as a background job keyed like the cache: pages asking for the same
    run join it; while it runs the page shows its stage, elapsed time, LLM requests and tokens, and a
    Cancel button; the finished result is kept by the job manager (its newest runs)."""
    jkey = _job_key(spec, key, backends_key, query, params)
    work = _run_work(spec, workspace, backends, query, params)
    manager = jobs_view.jobs()
    # a recorded run replays at once: the sidebar does not list it once done (components.jobs_view); the page that
    # started it is kept for the tour's banner (jobs_view.FROM_PAGE)
    extra: dict[str, Any] = {"replay": True} if backends.llm.name == "recorded" else {}
    extra[jobs_view.FROM_PAGE] = st.session_state.get(S.PAGE, "")
    job = manager.submit(jkey, f"{spec.title} {llm_words(backends.llm, workspace)}", work, kind="method", restart=False,
                         extra=extra)
    job.wait(jobs_view.inline_wait(3.0) if jobs_view.waits_on(job) else 0.0)
    s = job.status()
    if s.state == "done":
        return job.result()
    if s.state in ("failed", "cancelled"):
        if jobs_view.again_button("Run again", jkey):
            manager.submit(jkey, s.title, work, kind="method", extra=extra)
            st.rerun()
        job.result()  # raises: Cancelled ("… cancelled. …") or the run's error; the page shows it
    jobs_view.wait_for(job, note=f"{s.title} is running on the server: its stages, LLM requests and tokens "
                                 "appear below as they happen. Cancel stops it at once.")
    raise AssertionError("unreachable: wait_for stops the page")


def preparations_ahead(workspace: Workspace, backends: Backends, methods: list[str] | tuple[str, ...]
                       ) -> list[tuple[str, float | None, bool]]:
    """What ``methods`` need built in ``workspace`` before they run (:func:`core.methods.run.pending_preparations`),
    once each: ``(title, expected seconds or None, being built on the server now)``. A benchmark builds them
    before its first pair (its ``preparing`` phase, :func:`core.eval.runner.run_plan`): an audit's 10-question MuSiQue run was estimated at 55 s and took 173 s,
    132 of them FastInsight's node vectors, built for it while the page counted none."""
    from core.methods.registry import get_method
    from core.methods.run import backends_for, pending_preparations

    seen: dict[str, tuple[str, float | None, bool]] = {}
    for m in methods:
        for p in pending_preparations(get_method(m), workspace, backends_for(m, backends)):
            if p.key not in seen:
                job = jobs_view.jobs().get(p.key)
                seen[p.key] = (p.title, p.estimate_s, job is not None and not job.finished)
    return list(seen.values())

