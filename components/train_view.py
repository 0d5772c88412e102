"""The Train panels: ReG's retriever (Evidence chains page) and SG-RAG's dominance model (Subgraph page),
trained from the browser as background jobs in a worker process (:mod:`core.batch.tasks`, :mod:`core.background.workers`).

Each panel says what it will train, on what, with which LLM (or plainly that there is none), and about how
long it takes; Start submits the job (one per workspace and model, per server), whose live panel shows its
epochs and selections and offers Cancel; when it ends, the outcome is shown once. A finished model is in
the workspace's own folder, and cached method runs are keyed by the models on disk
(:meth:`core.methods.base.Artifacts.stamp`), so the page's next run uses it. A ReG retriever that loses on the held-out
split is kept aside instead (:func:`core.methods.reg.train.judge`), with a "Use it anyway" button; the panel
says when the active retriever scores below cosine, with the figures.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import session_jobs
from components import state as S
from components.ui import md_escape
from core.background.jobs import format_seconds

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.background.jobs import Job

REG_PAGE = "pages/evidence_chains.py"
SGRAG_PAGE = "pages/subgraph.py"
UNITS = {"triple": "ReG@Triple (MLP triple scorer)", "entity": "ReG@Entity (PNA GNN entity scorer, App. E)"}
SUPERVISION = {"refined": "refined — ReG's S(I): the LLM selects the supervision (§4.1)",
               "weak": "weak — shortest paths only: the paper's “w/o S(I)” ablation"}
SELECTIONS = ("auto", "stepwise", "one-shot")


def _in_worker() -> bool:
    from core.index.isolated import isolated_builds

    return isolated_builds()


def _outcome(job: Job, done: str) -> None:
    s = job.status()
    if s.state == "done":
        st.success(done, icon=":material/check_circle:")
    elif s.state == "cancelled":
        st.warning(md_escape(s.error), icon=":material/stop_circle:")
    else:
        st.error(md_escape(s.error), icon=":material/error:")


def _ended(state_key: str, describe: Callable[[dict[str, Any]], str | tuple[str, str]]) -> str | None:
    """Show this session's training job under ``state_key``: live while it runs; once it ended, its outcome —
    after one more run of the page when it succeeded, so that everything above the panel (the method's run,
    the curves) already uses the new model. Returns the kind of outcome shown in this run (``"success"``,
    ``"warning"``), else None."""
    shown = st.session_state.pop(state_key + ".outcome", None)
    if shown is not None:
        kind, text = shown
        getattr(st, kind)(text, icon=":material/check_circle:" if kind == "success" else ":material/warning:")
    job = session_jobs.finished(state_key)
    if job is None:
        return str(shown[0]) if shown is not None else None
    if job.status().state == "done":
        said = describe(job.result() or {})  # the text, or (kind, text) for an outcome that is not a success
        st.session_state[state_key + ".outcome"] = said if isinstance(said, tuple) else ("success", said)
        st.rerun()
    _outcome(job, "")
    return None


def _figure(value: Any) -> str:
    v = float(value) if value is not None else float("nan")
    return "n/a" if math.isnan(v) else f"{v:.3f}"


# ------------------------------------------------------------------------------------ ReG
def _previous(ws_path: Path, unit: str) -> dict[str, Any] | None:
    """The newest earlier training of ``unit`` here, installed or kept aside (audit 54: after a run whose model was
    kept aside the estimate still said "no earlier run here"); None when there is none."""
    folder = ws_path / "reg" / ("retriever-entity" if unit == "entity" else "retriever")
    runs = [f for f in (folder / "result.json", folder.with_name(folder.name + "-kept-aside") / "result.json")
            if f.exists()]
    for f in sorted(runs, key=lambda f: f.stat().st_mtime, reverse=True):
        try:
            return json.loads(f.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, ValueError):
            continue
    return None


#: The anchor of ReG's Train panel: the top of the Evidence chains page links to it (the panel is at the bottom).
REG_ANCHOR = "train-the-retriever"


def reg_panel(act: Active, qids: list[str], *, said: Sequence[str] = ()) -> None:
    """Train ReG's retriever on the workspace's questions with answers (``qids``); ``said``: notices the page
    showed already (a retriever below cosine is not said twice)."""
    from core.methods.reg import training_jobs as reg_jobs
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.keep import few_held_out_note

    ws = act.workspace
    # the recorded LLM replays the shipped runs only: it can refine the supervision of questions whose
    # selections were recorded (the MuSiQue sample ships them), of no others
    recorded = bool(act.llm.available) and act.llm.name == "recorded"
    llm_ok = bool(act.llm.available) and (
        not recorded or not set(qids) - reg_jobs.cached_selections(ws, act.llm, "auto"))
    with st.container(border=True, key="egx-train-reg"):
        st.subheader("Train the retriever", anchor=REG_ANCHOR)
        options = ["refined", "weak"] if llm_ok else ["weak"]
        skey = S.bind(S.TRAIN_REG_SUPERVISION, options[0])
        if st.session_state[skey] not in options:
            st.session_state[skey] = options[0]
        c1, c2, c3 = st.columns([3, 2, 1])
        sup = S.keep(S.TRAIN_REG_SUPERVISION, c1.radio("Supervision", options, key=skey,
                                                          format_func=SUPERVISION.__getitem__))
        unit = S.keep(S.TRAIN_REG_UNIT, c2.radio("Retrieval unit", list(UNITS), key=S.bind(S.TRAIN_REG_UNIT, "triple"),
                                                 format_func=UNITS.__getitem__))
        epochs = int(S.keep(S.TRAIN_REG_EPOCHS, c3.number_input(
            "Epochs", 1, 500, key=S.bind(S.TRAIN_REG_EPOCHS, TrainConfig().epochs),
            help="ReG App. E trains a fixed 80 epochs and keeps the one with the best validation recall.")))
        selection = "auto"
        if sup == "refined":
            selection = S.keep(S.TRAIN_REG_SELECTION, st.selectbox(
                "How the LLM selects", SELECTIONS, key=S.bind(S.TRAIN_REG_SELECTION, "auto"),
                help=TrainConfig.__dataclass_fields__["selection"].metadata.get("help", "")))
        if not llm_ok:
            why = ("The recorded LLM replays the shipped runs only, and no S(I) selection was recorded for these "
                   "questions" if recorded else "No LLM is active (the sidebar's LLM is “none”)")
            st.info(f"{why}, so the retriever trains on **weak labels**: query→answer shortest paths, the paper's "
                    "**“w/o S(I)”** ablation. Pick a live LLM (local or openai) in the sidebar to train on ReG's S(I), "
                    "the LLM-refined supervision.", icon=":material/info:")
        n = len(qids)
        cfg = TrainConfig()
        n_val, n_test = round(n * cfg.val_fraction), round(n * cfg.test_fraction)
        uncached = n - len(set(qids) & reg_jobs.cached_selections(ws, act.llm, selection)) if sup == "refined" else 0
        est, basis = reg_jobs.estimate_reg_seconds(n, epochs, refined=sup == "refined", uncached=uncached,
                                                previous=_previous(ws.path, unit))
        llm_words = (f"S(I) by the LLM **{md_escape(act.llm_name)}**: one request per question, {uncached} of {n} not "
                     "yet cached" if sup == "refined" else "no LLM (weak labels, “w/o S(I)”)")
        st.markdown(f"Trains **{UNITS[unit]}** on the **{n} questions with answers** of “{md_escape(ws.title)}” "
                    f"(about {n - n_val - n_test} to train on, {n_val} to pick the best epoch, {n_test} held out for "
                    f"the test recall), {epochs} epochs, {llm_words}. Estimate: about **{format_seconds(est)}** "
                    f"({basis}).")
        st.caption("It runs in a worker process at a lower priority, so the pages stay responsive. The model is "
                   "written to this workspace's own folder when complete; until then the previous one stays in use. "
                   "A model that scores below the untrained cosine or the current retriever on the held-out "
                   "questions is kept aside instead, and the better scorer stays. Once a model is installed, a "
                   f"benchmark with ReG leaves out the {n - n_test} questions it trained or validated on — for every "
                   "method, so that all are compared on the same questions — unless told to keep them.")
        if n < 10:
            st.warning(f"{n} question{'' if n == 1 else 's'} with answers {'is' if n == 1 else 'are'} too few to split into training, validation and test "
                       f"questions: with {n_val} to pick the best epoch and {n_test} held out, the chosen epoch and "
                       "the recall figures are noise. Add a questions file with more on the Data page.",
                       icon=":material/warning:")
        elif few := few_held_out_note(n, cfg.test_fraction):  # said before the click, not only in the verdict after
            st.warning(few, icon=":material/warning:")
        key = f"train-reg:{ws.path}:{unit}"
        running = _running(S.TRAIN_REG_JOB)
        if bench_running(ws.name):  # said before the click: which retriever that run's rows use
            st.info("A benchmark of this workspace is running: it scores every question with the retriever it started "
                    "with (a copy kept for the run), so a retriever trained now is used from the next run on.",
                    icon=":material/info:")
        if st.button("Start training", key=S.TRAIN_REG_START, type="primary", icon=":material/model_training:",
                     disabled=running or n == 0):
            spec = reg_jobs.train_reg_spec(ws, embedder=act.embedder_name, llm=act.llm, supervision=sup,
                                        selection=selection, unit=unit, epochs=epochs)
            label = "S(I)" if sup == "refined" else "w/o S(I)"
            title = f"Training {UNITS[unit].split(' ')[0]} ({label}) on “{ws.title}”"

            def work(job: Job) -> dict[str, Any]:
                job.report("Starting the training worker…", page=REG_PAGE)
                if _in_worker():
                    return reg_jobs.train_reg_job(spec, progress=job.progress, cancel=job.cancel_event)
                return reg_jobs.train_reg_task(spec, job.progress)  # EGX_BUILD_ISOLATED=0: in the server's process

            session_jobs.start(S.TRAIN_REG_JOB, key, title, work, kind="train",
                               on_busy=lambda: None)
        shown = _ended(S.TRAIN_REG_JOB, lambda res: _reg_done(res, cfg.recall_k))
        _active_and_aside(act, unit, said, just_kept=shown == "warning")


def bench_running(workspace: str) -> bool:
    """Whether a benchmark of ``workspace`` runs now, in any session (it keeps the retriever it started with)."""
    from components import jobs_view
    from components.benchmark_view import WORKSPACE_EXTRA

    return any(j.kind == "bench" and not j.finished and j.extra.get(WORKSPACE_EXTRA) == workspace
               for j in jobs_view.jobs().jobs())


def _active_and_aside(act: Active, unit: str, said: Sequence[str] = (), *, just_kept: bool = False) -> None:
    """Say when the active retriever scores below cosine (with its figures), and offer the one training kept aside
    because it lost on the held-out split ("Use it anyway"), with the time it was trained; ``just_kept``: the
    outcome above has just said this training's verdict, which is then not repeated word for word (an audit,
    retraining with a model already kept aside, saw the same verdict twice and read it as no change)."""
    from core.methods.reg import training_jobs as reg_jobs
    from core.methods.reg.config import RegConfig
    from core.methods.reg.keep import aside_dir, below_cosine, held_out_note
    from core.methods.reg.models import used_model
    from core.methods.reg.retriever import is_model_folder

    ws = act.workspace
    if unit == "triple":
        used = used_model(ws, dataclasses.replace(act.backends, reranker=None), RegConfig())  # None: reg scores by cosine
        worse = below_cosine(used[1]) if used is not None else ""
        quiet = held_out_note(used[1]) if used is not None else ""  # below cosine, but inside noise
        if worse and any(worse in text for text in said):  # the run's notice above said it, with its figures
            st.caption("The active retriever is the one the notice above finds below cosine; a retriever trained "
                       "here replaces it only if it does better on the held-out split.")
        elif worse:
            st.warning(f"{md_escape(worse)} It is still the scorer `reg` uses here; retrain, or compare it with the "
                       "cosine fallback on the Compare page.", icon=":material/trending_down:")
        elif quiet and not any(quiet in text for text in said):
            st.caption(md_escape(quiet))
    aside = aside_dir(reg_jobs.reg_model_dir(ws, unit))
    if not is_model_folder(aside):
        return
    verdict = str((_read_json(aside / "result.json") or {}).get("verdict", "it lost on the held-out split"))
    name = UNITS[unit].split(" ")[0]
    if just_kept:
        st.warning(f"The {name} retriever just trained is **kept aside, not installed** (its verdict is above). The "
                   "active scorer is unchanged; **Use it anyway** (below) installs it, to try it on the method "
                   "pages.", icon=":material/inventory_2:")
    else:
        st.warning(f"A newly trained {name} retriever was **kept aside, not installed**{_trained_at(aside)}: "
                   f"{md_escape(verdict)}. The active scorer is unchanged; **Use it anyway** (below) installs it, "
                   "to try it on the method pages.", icon=":material/inventory_2:")
    if st.button("Use it anyway", key=S.TRAIN_REG_USE_ANYWAY, icon=":material/swap_horiz:",
                 help="Install the kept-aside retriever as this workspace's active one (`egx train-reg --use-anyway` "
                      "does the same when training)."):
        from core.errors import EgxError

        try:
            reg_jobs.use_kept_aside(ws, unit)
        except EgxError as exc:
            st.error(md_escape(exc.in_app()))
            return
        st.session_state[S.TRAIN_REG_JOB + ".outcome"] = (
            "success", "The kept-aside retriever is now the active one; the page uses it.")
        st.rerun()


def _trained_at(folder: Path) -> str:
    """`` (trained at 04:01:17)``: when the model in ``folder`` was written (its ``result.json``), so that a retrain
    with the same verdict still changes what the panel says; "" when unknown."""
    import time

    try:
        return time.strftime(" (trained at %H:%M:%S)", time.localtime((folder / "result.json").stat().st_mtime))
    except OSError:
        return ""


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _reg_done(res: dict[str, Any], k: int) -> str | tuple[str, str]:
    """The outcome of a ReG training: it opens with "Trained:" and the same figures whether the model was installed
    or kept aside (an audit, watching for "Trained:", missed a kept-aside outcome worded otherwise)."""
    test, base = res.get("test", {}), res.get("baseline_test", {})
    if res.get("kept_aside"):  # it lost: the active scorer stays, and the panel below offers "Use it anyway"
        return ("warning", f"Trained: best epoch {res.get('best_epoch')}, {float(res.get('seconds', 0)):.0f} s on "
                           f"{md_escape(res.get('device', '?'))} — **kept aside, not installed**: "
                           f"{md_escape(str(res.get('verdict', '')))}. The active scorer is unchanged (see “Use it "
                           "anyway” below).")
    # gold-passage recall needs gold passages; questions without them are judged by whether an answer is reached
    metric = "gold_passage_recall" if not math.isnan(float(test.get("gold_passage_recall", "nan"))) else "answer_hit"
    name = {"gold_passage_recall": "gold-passage triple recall", "answer_hit": "answer hit"}[metric]
    return (f"Trained: best epoch {res.get('best_epoch')}, held-out {name}@{k} {_figure(test.get(metric))} "
            f"(untrained cosine {_figure(base.get(metric))}), {float(res.get('seconds', 0)):.0f} s on "
            f"{md_escape(res.get('device', '?'))}. The page now uses it; its curves are below.")


# ------------------------------------------------------------------------------------ SG-RAG
def dominance_panel(act: Active, last_seconds: float | None) -> None:
    """Retrain SG-RAG's dominance model ℳ for the workspace and the active embedder."""
    from core.background import workers
    from core.methods.sgrag import DominanceConfig
    from core.methods.sgrag import training_jobs as sgrag_jobs

    ws = act.workspace
    dcfg = DominanceConfig()
    with st.container(border=True, key="egx-train-dominance"):
        st.markdown("**Train the dominance model**")
        n = ws.graph.n_nodes
        est = workers.WORKER_START_S + (last_seconds if last_seconds else 0.002 * n * dcfg.max_epochs)
        basis = ("the last training took " + format_seconds(last_seconds) if last_seconds else "rough rates") + (
            f", plus about {format_seconds(workers.WORKER_START_S)} to start its worker process")  # "about 8 s (the
        # last training took 0 s)" read as a contradiction (an audit)
        st.markdown(f"Trains **ℳ** (App. C: a GAT layer over each node's 1-hop star, Alg. 2's dominance loss) on the "
                    f"**{n:,} stars** of “{md_escape(ws.title)}” with the {md_escape(act.embedder_name)} embedder, up "
                    f"to {dcfg.max_epochs} epochs (it stops at loss 0). It learns from the graph itself: **no questions "
                    f"and no LLM**. Estimate: about **{format_seconds(est)}** ({basis}).")
        st.caption("It runs in a worker process at a lower priority; the model file is replaced in one step when "
                   "complete, so until then the previous model stays in use.")
        running = _running(S.TRAIN_DOM_JOB)
        if st.button("Retrain dominance model", key=S.SGRAG_RETRAIN, icon=":material/model_training:",
                     disabled=running):
            spec = sgrag_jobs.train_dominance_spec(ws, embedder=act.embedder_name)
            emb = act.embedder

            def reload() -> None:
                from core.methods.sgrag import prepare

                prepare(ws, emb, reload=True)  # the new file into this process's prepared indexes

            def work(job: Job) -> dict[str, Any]:
                job.report("Starting the training worker…", page=SGRAG_PAGE)
                if _in_worker():
                    return sgrag_jobs.train_dominance_job(spec, progress=job.progress, cancel=job.cancel_event,
                                                     after=reload)
                from core.methods.sgrag import prepare

                m = prepare(ws, emb, retrain=True, progress=job.progress).model
                return {"epochs": m.epochs, "converged": m.converged, "seconds": round(m.seconds, 2)}

            session_jobs.start(S.TRAIN_DOM_JOB, f"train-dominance:{ws.path}:{act.embedder_name}",
                               f"Training SG-RAG's dominance model on “{ws.title}”", work, kind="train",
                               on_busy=lambda: None)
        _ended(S.TRAIN_DOM_JOB, lambda res: (
            f"Trained: {res.get('epochs')} epoch(s), "
            f"{'converged to loss 0' if res.get('converged') else 'max epochs reached'}, "
            f"{float(res.get('seconds', 0)):.1f} s. The page now uses it."))


def _running(state_key: str) -> bool:
    from components import jobs_view

    key = st.session_state.get(state_key)
    job = jobs_view.jobs().get(key) if key else None
    return job is not None and not job.finished
