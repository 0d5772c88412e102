"""The Data page's "Questions" panel: the active workspace's questions file, and another put in its place.

After "Add documents" the new passages have no question that asks about them (an audit wrote one and found no way to
attach it). The panel says what the workspace's questions are and replaces them with an uploaded file
(:func:`core.index.questions_file.replace_questions`: read and matched first, a file that matches nothing is
refused and the old questions kept).
"""

from __future__ import annotations

import streamlit as st

from components import session_jobs
from components import state as S
from components.add_documents import stage_uploads, workspace_gold_note
from components.sidebar import Active
from components.ui import error_text, md_escape


def _current(act: Active) -> str:
    """What the workspace's questions are now, in one sentence."""
    from components import resources
    from components.workspaces import workspace_key

    ws = act.workspace
    if ws.questions_path is None:
        return (f"“{md_escape(ws.title)}” has no questions file: the Benchmark and the per-question diagnosis need "
                "one.")
    n = len(resources.workspace_questions(ws, workspace_key(ws)))
    rec = ws.meta.questions_file
    since = (f" (from {md_escape(str(rec.get('file')))}, put in at {md_escape(str(rec.get('replaced_at')))})"
             if rec else " (from its build)")
    return f"“{md_escape(ws.title)}” has {n:,} question{'s' if n != 1 else ''}{since}."


def create_questions_ui(act: Active) -> None:
    """The active workspace's questions, and an uploaded file put in their place."""
    from core.errors import EgxError
    from core.index.questions import questions_name_problem
    from core.index.questions_file import replace_questions

    ws = act.workspace
    st.subheader("Questions with gold evidence")
    said = st.session_state.pop(S.DATA_QUESTIONS_SAID, None)
    try:
        st.caption(_current(act))
    except EgxError as exc:
        st.caption(f"Its questions file could not be read: {md_escape(error_text(exc))}")
    if ws.meta.sample:
        st.caption("A bundled sample keeps the questions of its recipe (a rebuild would drop others). Build a "
                   "workspace of your own from its files on the Upload tab to ask your own questions of it.")
        return
    # any type: a document dropped here is told where it goes, not Streamlit's bare "text/plain files are not
    # allowed" (audit 44 dropped its extra document on this uploader)
    new = st.file_uploader("A questions file to use instead (JSON or JSONL with gold evidence)",
                           key=S.uploader_key(S.DATA_QUESTIONS_NEW),
                           help="It replaces the workspace's questions: write questions for the documents you added, "
                                "or fix a gold title. It is read and matched to this workspace's passages first; one "
                                "whose gold titles match no passage is refused and the old questions stay.")
    empty = new is not None and not new.size  # refused at once, as the build's uploader refuses an empty file (an
    # audit found this button live for a 0-byte file, and the refusal only after the click)
    wrong = questions_name_problem(new.name) if new is not None else ""
    clicked = st.button("Use these questions", key=S.DATA_QUESTIONS_USE, icon=":material/quiz:",
                        disabled=new is None or empty or bool(wrong))
    if wrong:
        st.error(md_escape(wrong) + ".", icon=":material/block:")
    elif empty:
        st.caption(f":material/block: {md_escape(new.name)} is empty: choose a questions file with questions in it.")
    if said:
        (st.success if said[0] == "success" else st.error)(said[1])
    if not clicked or new is None:
        return
    if session_jobs.running(S.DATA_ADD_JOB) is not None:
        st.error("Documents are being added to this workspace: use the new questions when that has finished.")
        return
    paths, _, drop = stage_uploads([new])
    try:
        got = replace_questions(ws.path, paths[0], shown_name=new.name)
    except EgxError as exc:
        st.session_state[S.DATA_QUESTIONS_SAID] = ("error", f"**{md_escape(new.name)} was not used.** "
                                                            f"{md_escape(error_text(exc))}")
    else:
        parts = [f"{got.whole:,} name every gold passage here"]
        if got.partial:
            parts.append(f"{got.partial:,} only some (a missing one counts as never retrieved)")
        if got.none:
            parts.append(f"{got.none:,} none (a benchmark leaves them out)")
        unmatched = workspace_gold_note(ws.path)
        st.session_state[S.DATA_QUESTIONS_SAID] = (
            "success", f"**{md_escape(new.name)} is now the questions file of “{md_escape(ws.title)}”**: "
                       f"{got.questions:,} question{'s' if got.questions != 1 else ''}, of which "
                       + "; ".join(parts) + ". " + (md_escape(unmatched) + " " if unmatched else "")
                       + "A benchmark run made with the earlier questions is kept and reads as out of date; the "
                         "Benchmark page starts a new one.")
        S.clear_uploader(S.DATA_QUESTIONS_NEW)
    finally:
        drop()
    st.rerun()
