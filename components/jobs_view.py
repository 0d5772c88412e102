"""Background jobs on screen: the sidebar's jobs panel (every page) and the live panel of the job a
page waits for (a workspace build, a benchmark, a method run waiting on an LLM).

The jobs themselves are :class:`core.background.jobs.Job` objects of the one per-server manager
(:func:`jobs`): they run in their own threads, so a click, a page switch or a
closed tab never stops them. These panels only *watch* them — an ``st.fragment`` that redraws every
second while a job runs — and offer its Cancel button.

A server is shared (a classroom): each browser session sees its own jobs — those it started, those it waits on
(a workspace build another session started first) and the server's own (the samples built at start) — and of
the other sessions' jobs only how many run and of what kind, never their titles (questions, run and upload
names) or errors — except a workspace build or preparation's, which names only a workspace every session sees. A recorded run replayed at once is no job worth listing.

Cancel stops only what is this session's alone; on a shared job (a build another session waits on too, the server's
own sample builds) the button reads "Stop waiting": the job runs on for the others, this session's lists drop it
and the page that waited says so, with a way to wait for it again (:meth:`core.background.jobs.Job.stop_for`).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
import uuid
from typing import TYPE_CHECKING

import streamlit as st

from components import state as S
from components.ui import md_escape, public_text
from core.background.jobs import STARTING, format_seconds

if TYPE_CHECKING:
    from core.background.jobs import Job, JobManager, JobStatus

#: Seconds the sidebar keeps showing a finished job (done, failed or cancelled).
SHOW_FINISHED_S = 600.0
#: A job done (not failed) within this many seconds is shown for SHOW_QUICK_S only: Compare's quick method runs
#: piled up in the panel as "FastInsight … done (took under a second)" for ten minutes.
QUICK_JOB_S = 5.0
SHOW_QUICK_S = 20.0
#: The sidebar's list shows this many of its finished jobs (the most recently ended) in full; the older ones fold
#: under one expander. Finished and failed cards piled up there, each dismissed one by one, and pushed the rest of
#: the sidebar down (an audit found an offer's button 3,300 px down under them).
OPEN_FINISHED = 2
#: Dismissed job ids kept per browser (:func:`dismiss`); older ones are of jobs no list shows any more.
MAX_DISMISSED = 200
#: A recorded LLM run (replayed, not generated) done within this many seconds is not listed at all: each replay
#: that finished at once added a sidebar entry.
INSTANT_REPLAY_S = QUICK_JOB_S
#: This browser session's id in ``st.session_state`` (its jobs are the ones it started or joined).
SESSION_KEY = S.JOBS_SESSION
#: The cookie that tells one browser from another: Streamlit's XSRF token (set on the first page load, kept
#: across reloads and tabs of that browser).
BROWSER_COOKIE = "_streamlit_xsrf"
#: What another session's job is called in the folded count (its title stays with its session).
KIND_LABEL = {"workspace": "a workspace build or preparation", "method": "a method run", "bench": "a benchmark",
              "train": "a training run", "reproduce": "a paper reproduction"}
#: The job's extra that holds a title every session may see: a build or preparation of a workspace (the workspace
#: list is the server's, not a session's), never a question, a run name or an upload's.
PUBLIC_TITLE = "public_title"
#: The job's extra that marks a recorded run fetched ahead for a page not shown yet (the guided demo's next step,
#: :func:`components.runs.prefetch`): no list or banner shows it; the page that needs it joins it.
PREFETCH = "prefetch"
#: A method run's ``extra`` key: the page that started it ("" unknown), so the tour's banner leaves out another step's.
FROM_PAGE = "from_page"
#: Live panels redraw this often while a job runs.
POLL_S = 1.0
#: A method run's live panel redraws this often: its answer streams in while the LLM writes it.
STREAM_POLL_S = 0.4


def session_id() -> str:
    """Whose jobs this session's are: the browser's (a digest of the XSRF cookie Streamlit keeps in it), so a
    reloaded or reopened tab still finds the benchmark it started; without that cookie (AppTest, XSRF
    protection off) a random id kept in this session's state. ``""`` outside a script run (a job's own
    thread), which makes a job submitted there the server's own."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return ""
    sid = st.session_state.get(SESSION_KEY)
    if not isinstance(sid, str) or not sid:
        try:
            cookie = st.context.cookies.get(BROWSER_COOKIE)
        except Exception:  # no request to read (a bare script run): a session of its own
            cookie = None
        if not isinstance(cookie, str):  # AppTest has no browser: its context hands back stand-ins
            cookie = ""
        sid = browser_id(cookie) or uuid.uuid4().hex
        st.session_state[SESSION_KEY] = sid
    return sid


def browser_id(cookie: str) -> str:
    """A browser's id from its XSRF cookie: the digest of the token inside it, never the token (a secret). The
    cookie is written again on every page load with a fresh mask (``2|mask|masked token|time``, Tornado's format,
    which Streamlit keeps), so the token is unmasked first: a reload keeps the id. ``""`` for no cookie.

    Examples
    --------
    >>> a = browser_id("2|00000000|0a0b0c0d|1700000000")
    >>> a == browser_id("2|ffffffff|f5f4f3f2|1700000099") and a != browser_id("2|00000000|0a0b0c0e|1700000000")
    True
    """
    import binascii

    value = cookie.strip("\"'")
    if not value:
        return ""
    token = value.encode()
    parts = value.split("|")
    if len(parts) == 4 and parts[0] == "2":
        try:
            mask, masked = binascii.a2b_hex(parts[1]), binascii.a2b_hex(parts[2])
            token = bytes(m ^ mask[i % len(mask)] for i, m in enumerate(masked)) if mask else masked
        except (binascii.Error, ValueError):
            pass  # not the format above: the whole value identifies the browser
    return hashlib.sha256(b"egx-browser:" + token).hexdigest()[:32]


@st.cache_resource(show_spinner=False)
def jobs() -> JobManager:
    """The server's one :class:`core.background.jobs.JobManager`: long work outlives the script run that asked. Made
    once per server start, which is when the uploads a killed server left behind are swept. A job belongs to
    the session that submits or joins it (:func:`session_id`)."""
    from core.background.jobs import JobManager
    from core.index.isolated import sweep_uploads

    sweep_uploads()
    return JobManager(session=session_id)


def my_jobs() -> tuple[list[Job], list[Job]]:
    """(this session's jobs, the running jobs of the other sessions): see :meth:`core.background.jobs.JobManager.split`.
    A run fetched ahead for a page not shown yet (:data:`PREFETCH`) is in neither: the page shows it when it is."""
    mine, others = jobs().split(session_id())
    return ([j for j in mine if not j.extra.get(PREFETCH)],
            [j for j in others if not j.finished and not j.extra.get(PREFETCH)])


def my_running() -> list[Job]:
    """This session's running jobs (those it started or waits on, and the server's own)."""
    return [j for j in my_jobs()[0] if not j.finished]


def jobs_beside() -> int:
    """How many jobs run on the server that a page's own work shares the machine with (this session's, the server's
    own and the other sessions', only counted): an audit waited 257 s for Compare, 6.6 s on an idle server, while the
    server built the MuSiQue sample, with nothing saying why."""
    mine, others = my_jobs()
    return sum(1 for j in mine if not j.finished) + len(others)


def inline_wait(default: float) -> float:
    """Seconds a page waits for a new job before it shows the live panel instead (quick work — a
    cached rebuild, a small upload, a fast LLM reply — then looks like before); ``$EGX_JOB_INLINE_WAIT``."""
    try:
        return max(0.0, float(os.environ.get("EGX_JOB_INLINE_WAIT", default)))
    except ValueError:
        return default


def status_line(s: JobStatus, *, brief: bool = False) -> str:
    """``"Embedding edges: 4,096/17,234 · 41 % · 1 min 02 s elapsed · about 1 min 30 s left"``; ``brief`` (the
    one-line banner): without the seconds elapsed when the time left is known, and without a message's label
    that repeats the title's words (:func:`brief_message`)."""
    # a job that ended before it reported anything keeps the manager's "Starting…": not worth saying once done
    message = brief_message(s.message, s.title) if brief else s.message
    parts = [md_escape(message)] if message and (s.running or message != STARTING) else []
    if s.fraction is not None and s.running:
        parts.append(f"{100 * s.fraction:.0f} %" + (" overall" if _stage_count_differs(s.message, s.fraction) else ""))
    stage = s.get("stage")
    if stage and s.kind == "method" and s.running:  # the stage it is in; once done, it is in none
        parts.append(f"stage: {md_escape(stage)}" + (" (waiting for the LLM)" if s.get("waiting") == "LLM" else ""))
    calls = int(s.get("llm_calls", 0) or 0)  # type: ignore[call-overload]
    if calls:
        tokens = int(s.get("prompt_tokens", 0) or 0) + int(s.get("completion_tokens", 0) or 0)  # type: ignore[call-overload]
        parts.append(f"{calls} LLM request{'s' if calls != 1 else ''}, {tokens:,} tokens")
    if not (brief and s.running and s.eta is not None and s.eta >= 1):
        parts.append(f"{format_seconds(s.elapsed)} elapsed" if s.running else
                     "took under a second" if s.elapsed < 1 else f"took {format_seconds(s.elapsed)}")
    if s.running and s.eta is not None and s.eta >= 1:  # not "about 0 s left" while a job writes its results
        parts.append(f"about {format_seconds(s.eta)} left")
    if s.running and s.cancel_requested:
        parts.append("stopping…")
    return " · ".join(parts)


def brief_message(message: str, title: str) -> str:
    """A job's message for the one-line banner: its leading "label: " left out when the title already says it
    (the SG-RAG training's "Dominance model: epoch 12, loss 0.0123" under "Training SG-RAG's dominance model
    for …"); the sidebar's panel and the banner's tooltip keep it.

    >>> brief_message("Dominance model: epoch 12, loss 0.0123", "Training SG-RAG's dominance model for “Demo”")
    'epoch 12, loss 0.0123'
    >>> brief_message("Embedding nodes: 9,216/16,243", "Building workspace “MuSiQue”")
    'Embedding nodes: 9,216/16,243'
    """
    label, sep, rest = message.partition(": ")
    return rest if sep and rest.strip() and label.strip().lower() in title.lower() else message


_COUNT = re.compile(r"(\d[\d,]*)\s*/\s*(\d[\d,]*)")


def _stage_count_differs(message: str, fraction: float) -> bool:
    """Whether ``message`` counts a stage ("Embedding nodes: 6,912/16,243") whose share is not the job's ``fraction``:
    the percentage is then said to be the whole job's ("18 % overall"), where "6,912/16,243 · 18 %" read as a bug
    to an audit (42 % of that stage, 18 % of the build)."""
    m = _COUNT.search(message or "")
    if m is None:
        return False
    done, total = (int(x.replace(",", "")) for x in m.groups())
    return total > 0 and abs(done / total - fraction) > 0.015


#: The help of a shared job's "Stop waiting" button (it is not this session's to cancel).
STOP_WAITING_HELP = ("Other sessions wait on this job too (or the server runs it for everyone), so it is not yours "
                     "to cancel: it runs on for them, and this session stops waiting for it. You can wait for it "
                     "again from the page that needs it.")


def _draw(job: Job, *, where: str) -> None:
    s = job.status()
    if s.running:
        if s.fraction is not None:
            st.progress(s.fraction, text=f"**{md_escape(s.title)}**")
        else:
            st.markdown(f"**{md_escape(s.title)}**")
        st.caption(status_line(s))
        sid = session_id()
        if s.shared_for(sid):
            st.button("Stop waiting", key=f"egx.job.cancel.{where}.{s.id}", on_click=job.stop_for, args=(sid,),
                      icon=":material/visibility_off:", help=STOP_WAITING_HELP)
        else:
            st.button("Cancel", key=f"egx.job.cancel.{where}.{s.id}", on_click=job.stop_for, args=(sid,),
                      icon=":material/stop_circle:", disabled=s.cancel_requested,
                      help="Stop this job at its next step. What was finished before is kept: the previous "
                      "workspace stays usable, finished benchmark lines and cached extractions stay.")
        if where == "page" and s.get("answer_text"):
            _answer_so_far(s)
    elif s.state == "done":
        st.success(f"**{md_escape(s.title)}** — done ({status_line(s)})", icon=":material/check_circle:")
    elif s.state == "cancelled":
        st.warning(f"**{md_escape(s.title)}** — cancelled ({status_line(s)}). {md_escape(public_text(s.error))}",
                   icon=":material/stop_circle:")
    else:
        st.error(f"**{md_escape(s.title)}** — failed: {md_escape(public_text(s.error))}", icon=":material/error:")
    if where == "sidebar" and not s.running:  # a failure stayed red on every page for minutes, with no way out
        st.button("Dismiss", key=f"egx.job.dismiss.{s.id}", on_click=dismiss, args=(s.id,), icon=":material/close:",
                  type="tertiary", help="Take it off this list (this browser session's only).")


@st.cache_resource(show_spinner=False)
def _dismissals() -> tuple[threading.Lock, dict[str, set[int]]]:
    """Browser id → the finished jobs it dismissed, kept on the server like the jobs themselves: in the session's
    state they came back on a reload, while the jobs (the browser's, :func:`session_id`) stayed (an audit)."""
    return threading.Lock(), {}


def dismiss(*job_ids: object) -> None:
    """Leave the finished jobs ``job_ids`` out of this browser's Background jobs list from now on (a reload
    included)."""
    lock, by_browser = _dismissals()
    with lock:
        gone = by_browser.setdefault(session_id(), set())
        gone.update(int(j) for j in job_ids)  # type: ignore[call-overload]
        if len(gone) > MAX_DISMISSED:  # the oldest ids are of jobs long gone from the list (ids grow)
            gone.intersection_update(sorted(gone)[-MAX_DISMISSED:])


def dismissed() -> frozenset[int]:
    """The finished jobs this browser dismissed (:func:`dismiss`)."""
    lock, by_browser = _dismissals()
    with lock:
        return frozenset(by_browser.get(session_id(), ()))


def _answer_so_far(s: JobStatus) -> None:
    """The answer a method run's live LLM is writing, as it grows (:mod:`core.backends.streaming`), under the
    run's title and the stage writing it."""
    with st.container(border=True):
        st.caption(f"{md_escape(s.title)} · {md_escape(s.get('answer_stage') or 'answer')} — the answer as the LLM "
                   "writes it …")
        st.markdown(md_escape(s.get("answer_text")) + " ▌")


def sidebar_panel() -> None:
    """The "Background jobs" panel at the top of the sidebar: this session's running jobs and the ones finished
    in the last minutes, with progress, ETA and Cancel, then how many jobs other sessions run (folded, no
    details). Redraws itself while one of this session's jobs runs."""
    # It redraws itself only while a job runs (an idle app sends nothing); a job started later in this
    # run (the page's own build) appears from the next rerun on — its live panel is on the page.
    running = bool(my_running())
    with st.sidebar:
        st.fragment(_sidebar_jobs, run_every=POLL_S * 2 if running else None)(running)


#: When this browser session first drew the jobs panel (monotonic seconds, :func:`_shown`).
SEEN_AT = "egx.jobs.seen_at"


def _shown(jobs: list[Job]) -> list[Job]:
    out = []
    gone = dismissed()
    tour = st.session_state.get(S.TOUR) is not None
    seen_at = float(st.session_state.setdefault(SEEN_AT, time.monotonic()))
    for j in jobs:
        s = j.status()
        if not s.running and s.id in gone:
            continue
        if not s.running and not s.sessions and s.since_finished is not None \
                and time.monotonic() - s.since_finished < seen_at:
            continue  # the server's own job, ended before this session opened: nothing it waited on (an audit's
            # second user found the server's sample builds listed with Dismiss)
        if s.state == "done" and s.get("replay") and s.elapsed < INSTANT_REPLAY_S:
            continue  # a recorded run replayed at once: its result is on the page, nothing ran worth listing
        if not s.running and not s.sessions and tour:
            continue  # the server's own sample build, ended during the guided demo: no step asked for it (an
            # audit's projector sidebar grew "Dismiss all finished (2)" mid-tour)
        quick = s.state == "done" and (s.elapsed < QUICK_JOB_S or not s.sessions)  # the server's own: "ready", briefly
        keep = SHOW_QUICK_S if quick else SHOW_FINISHED_S
        if s.running or (s.since_finished or 0.0) < keep:
            out.append(j)
    return out[:6]


def _sidebar_jobs(polling: bool = False) -> None:
    mine, others = my_jobs()
    if polling and not any(not j.finished for j in mine):
        # the last job ended: one full rerun draws the panel again without the timer (run_every is fixed
        # when a fragment is made), so an idle tab stops polling the server
        st.rerun(scope="app")
    shown = _shown(mine)
    if not shown and not others:
        return
    running = [j for j in shown if not j.finished]
    ended = sorted((j for j in shown if j.finished), key=lambda j: j.status().since_finished or 0.0)
    with st.container(border=True, key="egx-jobs-panel"):
        st.markdown("**Background jobs**")
        if shown:
            st.caption("They run on the server: switch pages or close the tab, they keep going.")
        aside = _tour_aside(running)
        for job in running:
            if job not in aside:
                _draw(job, where="sidebar")
        if aside:  # during the tour: the server's preparations of other workspaces, folded (they took a third of a
            # projector's sidebar on every step, an audit)
            with st.expander(f"{len(aside)} server preparation{'s' if len(aside) != 1 else ''} of other "
                             "workspaces", icon=":material/hourglass_top:"):
                for job in aside:
                    _draw(job, where="sidebar")
        if len(ended) > 1:
            st.button(f"Dismiss all finished ({len(ended)})", key="egx.jobs.dismiss_all", on_click=dismiss,
                      args=tuple(j.status().id for j in ended), icon=":material/clear_all:", type="tertiary",
                      help="Take every finished, failed or cancelled job off this list (this browser session's "
                           "only); running jobs stay.")
        for job in ended[:OPEN_FINISHED]:
            _draw(job, where="sidebar")
        if ended[OPEN_FINISHED:]:
            _older(ended[OPEN_FINISHED:])
        if others:
            _others(others)


def _tour_aside(running: list[Job]) -> list[Job]:
    """The running jobs the sidebar folds during the guided demo: the server's own preparations of workspaces other
    than the one shown (those the banner leaves out, :func:`_banner_jobs`); none outside the tour."""
    if st.session_state.get(S.TOUR) is None:
        return []
    kept = {j.key for j in _banner_jobs()}
    return [j for j in running if j.key not in kept]


def older_label(older: list[Job]) -> str:
    """``"3 older finished jobs (1 failed)"``: the expander the sidebar folds its older finished jobs under."""
    failed = sum(j.status().state == "failed" for j in older)
    return (f"{len(older)} older finished job{'s' if len(older) != 1 else ''}"
            + (f" ({failed} failed)" if failed else ""))


def _older(older: list[Job]) -> None:
    """The finished jobs older than the :data:`OPEN_FINISHED` newest, folded under one expander (each with its
    outcome and Dismiss), so the sidebar stays short."""
    with st.expander(older_label(older), icon=":material/history:"):
        for job in older:
            _draw(job, where="sidebar")


def public(title: str) -> dict[str, str]:
    """The ``extra`` of a job whose ``title`` names only what every session sees (a workspace build or one of
    its preparations): the other sessions' folded list shows it, so two people on one workspace know whose
    embedding makes theirs wait."""
    return {PUBLIC_TITLE: title}


def others_label(others: list[Job]) -> str:
    """``"3 jobs of other sessions"``: the folded count of the jobs other browser sessions run."""
    return f"{len(others)} job{'s' if len(others) != 1 else ''} of other sessions"


def _others(others: list[Job]) -> None:
    """The other sessions' running jobs, folded and anonymous: their kind and how long they have run, never
    their titles (questions, run and upload names) or errors, and no Cancel (they are not this session's)."""
    with st.expander(others_label(others), icon=":material/group:"):
        st.caption("Other people use this server too. Their work shares its CPU, so yours may run slower "
                   "meanwhile; what they run stays theirs.")
        for j in others:
            s = j.status()
            what = str(s.get(PUBLIC_TITLE) or "") or KIND_LABEL.get(s.kind, "a job")
            st.caption(f"{md_escape(what)} · running for {format_seconds(s.elapsed)}")


def banner() -> None:
    """One line at the top of every page while one of this session's jobs runs (:func:`my_running`): what runs,
    its progress and ETA, and where it is shown in full — the page that shows it (a link, left out on that page),
    or the sidebar's **Background jobs**, named with what that panel offers for it: Cancel for this session's own
    job, "Stop waiting" for one it shares (the server's own sample builds, a build another session waits on too). Redraws
    itself every few seconds while a job runs; an idle server draws and sends nothing."""
    if _banner_jobs():
        st.fragment(_banner, run_every=POLL_S * 3)()


def _banner_jobs() -> list[Job]:
    """The jobs the banner names: this session's running ones — during the guided demo without the server's own
    preparations of other workspaces (the MuSiQue sample builds while the tour shows the demo: an audit found its line
    on top of the first two steps for 40 s on a projector; the sidebar's **Background jobs** folds it)."""
    running = my_running()
    if st.session_state.get(S.TOUR) is None:  # the tour's own state (components.tour.current; no import: a cycle)
        return running
    active = st.session_state.get(S.ACTIVE)
    here = str(active.info.path) if active is not None else ""
    page = str(st.session_state.get(S.PAGE, ""))
    return [j for j in running if tour_banner_shows(j, here, page)]


def tour_banner_shows(job: Job, here: str, page: str) -> bool:
    """Whether the banner names ``job`` during the guided demo, on ``page`` of the workspace at path ``here``: a job of
    a session (not the server's own preparation of another workspace) or one of this workspace — but not a method run
    another step's page started, whose lesson follows on that page (an audit clicked Next during step 10's FastInsight
    replay and found its line over step 11, a step without an LLM)."""
    ours = bool(job.status().sessions) or bool(here and here in job.key)
    return ours and job.extra.get(FROM_PAGE, page) in (page, "")


#: The banner is one line (at most 40 px high, :func:`banner`): a 110-px box pushed the tour's stage content
#: below a projector's 900-px fold. Its text never wraps; were it too long for the page, it ends in an
#: ellipsis (the sidebar's panel names the job in full). It opens 0.9rem down: the main block starts at 3rem
#: (:data:`components.ui.HOUSE_CSS`), under the 3.75rem header, where only a title's own padding clears it — an
#: audit found the banner's line hidden behind the header, 7 px of it showing. Its Markdown keeps no bottom margin:
#: Streamlit pulls a Markdown block up by 1rem to absorb its last paragraph's margin, and with that margin gone here the
#: line shrank to 7 px of its 23 (an audit saw a row of pixel stubs where the sample build's progress was).
_BANNER_CSS = """<style>
.st-key-egx-jobs-banner { gap: 0.5rem; min-height: 0; margin-top: 0.9rem; }
.st-key-egx-jobs-banner [data-testid="stMarkdownContainer"] { margin-bottom: 0; }
.st-key-egx-jobs-banner [data-testid="stMarkdownContainer"] p { white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; margin: 0; font-size: 0.9rem; }
.st-key-egx-jobs-banner [data-testid="stElementContainer"]:has([data-testid="stMarkdownContainer"]) {
  flex: 1 1 0; min-width: 0; overflow: hidden; }
.st-key-egx-jobs-banner [data-testid="stPageLink"] a { padding-top: 0; padding-bottom: 0; min-height: 0; }
</style>"""


def banner_where(s: JobStatus, sid: str) -> tuple[str, str]:
    """(the banner line's few words, its tooltip's sentence) on where the user goes for a job that has no page of
    its own and what is there for it: the sidebar's Cancel for this session's own job, "Stop waiting" for a shared
    one (it is not this session's to cancel, :data:`STOP_WAITING_HELP`). The line keeps to the essentials: an audit
    found "(the server's own job: Stop waiting, no Cancel)" cut to "(the server's own…" at 1440 px, and a later one
    "… Background jobs in the side…" once the status said "22 % overall"; the tooltip says why and where."""
    if not s.shared_for(sid):
        return "Cancel in the sidebar", "Its Cancel is in **Background jobs** in the sidebar."
    whose = "it is the server's own job" if not s.sessions else "it is shared with other sessions"
    return ("Stop waiting in the sidebar",
            f"**Background jobs** in the sidebar offers Stop waiting, no Cancel: {whose}.")


def banner_title(title: str) -> str:
    """A job's title for the one-line banner, its quoted workspace named by its name alone: a quoted title's
    parenthetical left out ("Building workspace “MuSiQue (100 questions, 1,890 passages, GPT-3.5 OpenIE KG)”" →
    "… “MuSiQue”"), and its subtitle after a colon ("“Demo: the BubbleRAG paper's worked examples”" → "“Demo”"),
    as is a parenthetical after the quotes ("… (first use)") and a count outside them ("among 16,243 entities"); the
    sidebar's panel and the banner's tooltip keep
    them. An audit found the line cut with "…" before it said where the job's progress is, and, in the first
    minute after start, "Training SG-RAG's dominance model for “Demo…” (first use)", the name itself cut.

    >>> banner_title("Building workspace “MuSiQue (100 questions, 1,890 passages)”")
    'Building workspace “MuSiQue”'
    >>> banner_title("Training SG-RAG's dominance model for “Demo: the BubbleRAG paper's worked examples” (first use)")
    "Training SG-RAG's dominance model for “Demo”"
    >>> banner_title("Finding synonymy edges among 16,243 entities for PPR in “run 2024 notes”")
    'Finding synonymy edges among entities for PPR in “run 2024 notes”'

    A closing parenthetical that names the workspace keeps only its name (audit 50 read "… for PPR (cosine ≥ 0.8;
    first use of “MuSiQue”) on the server: 4,096 of 16,243 entities compared · 25 % · 2 s elapsed · St…"):

    >>> banner_title("Finding synonymy edges among entities for PPR (cosine ≥ 0.8; first use of “MuSiQue (GPT)”)")
    'Finding synonymy edges among entities for PPR in “MuSiQue”'
    """
    title = re.sub(r"\s*\((?:[^()“”]|“[^“”]*”)*?(“[^“”]*”)[^()“”]*\)\s*$", r" in \1", title)
    title = re.sub(r"\s*\([^()“”]*\)(?=”)", "", title)
    title = re.sub(r"“([^“”:]*[^“”:\s]):\s[^“”]*”", r"“\1”", title)
    title = re.sub(r"”\s*\([^()“”]*\)\s*$", "”", title)
    # a count outside the quotes ("among 16,243 entities") is the tooltip's: an audit saw the line cut with "…"
    return "".join(part if i % 2 else re.sub(r"\b\d[\d,]*\s+(?=[A-Za-z])", "", part)
                   for i, part in enumerate(re.split(r"(“[^“”]*”)", title)))


def _banner() -> None:
    running = _banner_jobs()
    if not running:
        # the last job ended: draw nothing. No app rerun from here: the sidebar's panel (made under the same
        # condition) reruns the app once, which also stops this timer, and a second rerun would wipe the
        # outcome a page shows once ("… runs now")
        return
    st.html(_BANNER_CSS)
    s = running[0].status()
    more = f" · {len(running) - 1} more job{'s' if len(running) > 2 else ''}" if len(running) > 1 else ""
    page = s.get("page")
    line = (f":material/hourglass_top: **{md_escape(banner_title(s.title))}** on the server: "
            f"{status_line(s, brief=True)}")
    full = (f":material/hourglass_top: **{md_escape(s.title)}** runs on the server — {status_line(s)}{more}. "
            "Pages stay usable meanwhile.")
    with st.container(key="egx-jobs-banner", horizontal=True, vertical_alignment="center"):
        if page and page == st.session_state.get(S.PAGE):  # its own page shows it in full: no link to where one is,
            # and no count of its own (redrawn at another moment than the page's panel, audit 45 read "8/88 · running
            # dense" in one and "5/88 · running bubblerag" in the other)
            st.markdown(f":material/hourglass_top: **{md_escape(banner_title(s.title))}** on the server: its progress "
                        f"is on this page{more}", help=full)
        elif isinstance(page, str) and page:
            from components.navigation import page_path

            st.markdown(line + more, help=full)
            st.page_link(str(page_path(page)), label="Open its page", icon=":material/open_in_new:")
        else:
            where, why = banner_where(s, session_id())
            st.markdown(f"{line} · {where}{more}", help=f"{full} {why}")


def watch(job: Job) -> None:
    """Draw ``job``'s live panel here; it redraws every second (a method run, whose answer may stream, more
    often) and reruns the page when the job ends. Once this session stopped waiting on it (a shared job,
    :data:`STOP_WAITING_HELP`): what :func:`stopped_waiting` says instead."""
    sid = session_id()
    if not job.status().belongs_to(sid):
        stopped_waiting(job, sid)
        return
    st.fragment(_live, run_every=STREAM_POLL_S if job.kind == "method" else POLL_S)(job.key)


def waits_on(job: Job) -> bool:
    """Whether this session waits on ``job`` (it has not stopped waiting on it): a page waits a few seconds
    inline for a job only then."""
    return job.status().belongs_to(session_id())


def wait_for(job: Job, *, note: str) -> None:
    """Show ``job``'s live panel in the page (rerunning the whole page when it finishes), then stop
    the page here: what follows needs the job's result (or, once this session stopped waiting on it, say so
    with a button that waits for it again)."""
    if waits_on(job):
        st.info(note, icon=":material/hourglass_top:")
    watch(job)
    st.stop()


def stopped_waiting(job: Job, sid: str) -> None:
    """What a page that needs ``job`` shows once session ``sid`` stopped waiting on it: it runs on for the other
    sessions, and a button waits for it again."""
    s = job.status()
    st.info(f"You stopped waiting for **{md_escape(s.title)}**. It keeps running on the server for the other "
            "sessions that need it; this page needs it too, so it continues once you wait for it again (or pick "
            "another workspace in the sidebar).", icon=":material/visibility_off:")
    st.button("Wait for it again", key=f"egx.job.rejoin.{s.id}", on_click=job.rejoin, args=(sid,),
              icon=":material/hourglass_top:")


def _live(key: str) -> None:
    job = jobs().get(key)
    if job is None or job.finished or not job.status().belongs_to(session_id()):
        st.rerun(scope="app")  # the page can go on now (or show what went wrong, or that it stopped waiting)
    assert job is not None
    _draw(job, where="page")


def again_button(label: str, key: str) -> bool:
    """A "start again" button under a failed or cancelled job's message."""
    return st.button(label, key=f"egx.job.again.{key}", icon=":material/replay:")
