"""The bundled samples built by the server itself, after it has started (``egx app``, so ``make app``).

``make app`` used to build them before the server started: on a fresh machine the port stayed closed for
9½ minutes (MuSiQue, with 6 min 49 s of FastInsight's node vectors) and a newcomer saw "connection refused".
Now the server answers at once and builds them as its own background jobs (:mod:`core.background.jobs`, every session's:
the sidebar lists them and the banner shows them on every page): the demo first (it is small), then the other
samples, each followed by what each method keeps in it (:func:`core.methods.run.pending_preparations`), only
the quick ones (estimated at most :func:`components.workspaces.ask_before_s`, 30 s): a longer one (MuSiQue's
16k FastInsight node vectors took 14 minutes while a lecturer was on the demo) waits for a page's **Build it
now** offer, like any job over 30 s. The jobs carry the keys a page would use for the same work, so a page that
needs one of them waits on it (its live panel) instead of building it twice or offering it; the sidebar's
workspace picker says which are still being built. ``egx samples build`` (asked for explicitly) still prepares
everything. Each build commits atomically (:mod:`core.index.commit`): a server killed mid-build leaves no
half-written workspace, and the next start builds it again.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import TYPE_CHECKING

import streamlit as st

from core.cli.app import BUILD_SAMPLES_ENV

if TYPE_CHECKING:
    from core.index.listing import WorkspaceInfo
    from core.methods.run import PendingPreparation

#: ``egx app`` sets it to 1 for the server it starts (``--no-prebuild`` leaves it out): build the samples.
ENV = BUILD_SAMPLES_ENV

_stop = threading.Event()  # set when the process exits: start no further job


def enabled() -> bool:
    """Whether this server builds the bundled samples itself (``$EGX_APP_BUILD_SAMPLES=1``)."""
    return os.environ.get(ENV, "").strip() == "1"


@st.cache_resource(show_spinner=False)
def start_sample_builds() -> threading.Thread | None:
    """Start, once per server, the thread that submits the sample builds and preparations one after another as
    the server's jobs (:func:`build_samples`); None when :func:`enabled` is off. :mod:`components.serve` calls it
    as soon as the server runs (before any browser connects); every page run calls it too
    (:func:`components.frame.run_app`), which finds it started (or starts it, under plain ``streamlit run``)."""
    if not enabled():
        return None
    from components.state import default_embedder

    atexit.register(_stop.set)  # runs before core.background.jobs cancels the running jobs (atexit is last-in, first-out)
    thread = threading.Thread(target=build_samples, args=(default_embedder(),), name="egx-sample-builds", daemon=True)
    thread.start()
    return thread


def build_samples(embedder_name: str) -> list[str]:
    """Build every bundled sample for ``embedder_name`` (the demo first), each followed by its quick preparations
    (:func:`_quick`), each as a job of the server (no session: everyone's), waiting for one before submitting the next so they never
    compete for the cores. A sample already built and prepared submits nothing. A failed or cancelled build
    skips that sample's preparations; the others go on. Returns the keys of the jobs it submitted."""
    from components import jobs_view, workspaces
    from core.index.listing import list_workspaces

    infos = sorted((i for i in list_workspaces() if i.sample), key=lambda i: (i.name != _first(), i.name))
    submitted: list[str] = []
    for info in infos:
        if _stop.is_set():
            return submitted
        if not workspaces.workspace_ready(info, embedder_name):
            key = workspaces.workspace_job_key(info, embedder_name)
            title = f"Building workspace “{info.title}”"
            job = jobs_view.jobs().submit(key, title, workspaces.workspace_build_work(info, embedder_name, None),
                                          kind="workspace", restart=False, session="", extra=jobs_view.public(title))
            submitted.append(key)
            job.wait()
            if job.status().state != "done":
                continue
        # each sample's preparations right after its build: the guided demo's first steps on a fresh server waited
        # on FastInsight's node vectors and SG-RAG's model of the demo, queued behind the MuSiQue build (an audit saw
        # the previous step's results under the next step's title for seconds)
        submitted += _prepare(info, embedder_name)
    return submitted


def _first() -> str:
    from components.state import DEFAULT_WORKSPACE

    return DEFAULT_WORKSPACE


def _prepare(info: WorkspaceInfo, embedder_name: str) -> list[str]:
    """What every method keeps in ``info`` (:func:`core.methods.run.prepare_workspace`'s order) and is quick
    (:func:`_quick`), one job each; the others are left to the pages' ask-first offers."""
    from components import jobs_view, resources, runs
    from core.backends.registry import get_llm
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.registry import METHODS, get_method
    from core.methods.run import pending_preparations

    ws = Workspace.open(info.path)
    backends = Backends(resources.embedder(embedder_name), get_llm("none"), None)  # they read graph and embedder
    submitted: list[str] = []
    for name in METHODS:
        for p in pending_preparations(get_method(name), ws, backends):
            if _stop.is_set():
                return submitted
            if p.key in submitted or not _quick(p):
                continue
            job = jobs_view.jobs().submit(p.key, p.title, runs.preparation_work(p), kind="workspace",
                                          restart=False, session="", extra=jobs_view.public(p.title))
            submitted.append(p.key)
            job.wait()
    return submitted


def _quick(p: PendingPreparation) -> bool:
    """Whether the server may start preparation ``p`` unasked: its estimate is known and at most
    :func:`components.workspaces.ask_before_s` (30 s), the rule every page follows."""
    from components.workspaces import ask_before_s

    return p.estimate_s is not None and p.estimate_s <= ask_before_s()
