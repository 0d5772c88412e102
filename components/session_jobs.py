"""A server job that belongs to one browser session: started from a page (an upload's build, an insert),
watched live while it runs, its outcome shown once when it ended — the shape the Data page's two
workspace jobs and the Train panels share."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import jobs_view
from components.ui import error_text, md_escape
from core.background.jobs import JobBusyError

if TYPE_CHECKING:
    from core.background.jobs import Job


def start(state_key: str, key: str, title: str, work: Callable[[Job], Any], *, on_busy: Callable[[], None],
          kind: str = "workspace", wait: float = 8.0, rerun: bool = False) -> bool:
    """Submit ``work`` as a workspace job keyed ``key`` for this session — never joining another session's job
    under the same key (its files are not these): when one runs, ``on_busy()`` cleans up, the page says so and
    False is returned. Otherwise the session remembers the job under ``state_key`` and waits for it ``wait`` seconds;
    with ``rerun`` a job still running then reruns the page, so the sidebar and the job's live panel show it (an
    audit, after 6 s of the 8 s wait, saw no job in the sidebar and clicked again)."""
    try:
        job = jobs_view.jobs().submit(key, title, work, kind=kind, join=False)
    except JobBusyError as exc:
        on_busy()
        st.error(md_escape(error_text(exc)))
        return False
    st.session_state[state_key] = key
    job.wait(jobs_view.inline_wait(wait))
    if rerun and job.status().running:  # the sidebar, drawn before the click, lists the job only after a rerun
        st.rerun()
    return True


def running(state_key: str) -> str | None:
    """The key of this session's job under ``state_key`` while it runs (a second click on its button is told so,
    never a duplicate job), else None."""
    key = st.session_state.get(state_key)
    job = jobs_view.jobs().get(key) if key else None
    return str(key) if job is not None and job.status().running else None


def finished(state_key: str) -> Job | None:
    """This session's job under ``state_key`` once it has ended (and forgotten, so its outcome shows once, on the page
    only: it leaves the sidebar's list);
    None while it runs (then it is shown live) or when there is none."""
    key = st.session_state.get(state_key)
    job = jobs_view.jobs().get(key) if key else None
    if job is None:
        st.session_state.pop(state_key, None)
        return None
    if job.status().running:
        jobs_view.watch(job)
        return None
    st.session_state.pop(state_key, None)
    # its page shows the outcome now: the sidebar's list need not say it again on every page (an audit found a failed
    # build's red card still beside the next failure, pages later)
    jobs_view.dismiss(job.status().id)
    return job
