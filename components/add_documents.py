"""The Data page's "Add documents" panel: more passages into the active corpus workspace without a rebuild
(:func:`core.index.insert.add_documents`), as a background job of the server that runs in a capped child
process like a build (:mod:`core.index.isolated`), with its progress, and its outcome once it ends.

Also home to :func:`stage_uploads` (with :func:`save_uploads`), which both upload panels of the page use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import session_jobs
from components import state as S
from components.ui import error_text, md_escape, public_text, scroll_here
from core.errors import EgxError, InputFormatError, InputReadError
from core.fsio import clean_filename
from core.graph.chunking import PassageSplit
from core.graph.formats.documents import DOCUMENT_KINDS
from core.graph.formats.load import duplicates_text
from core.index.insert_checks import insert_problem
from core.index.isolated import BuildSpec, build_isolated, drop_upload_dir, isolated_builds, new_upload_dir
from core.text import plural

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.background.jobs import Job
    from core.index.gold_titles import UnmatchedGold
    from core.index.manifest import Manifest

#: what the corpus loaders read (documents and JSON(L) passages, gzip-compressed too)
ADD_TYPES = ["pdf", "html", "htm", "docx", "md", "markdown", "txt", "json", "jsonl", "gz"]


def save_uploads(files: list, folder: Path) -> list[Path]:
    """Write uploaded files under ``folder`` with harmless, unique names (the browser's file name is
    user data: ``..``, separators and device names never reach the file system)."""
    paths: list[Path] = []
    for f in files:
        name = clean_filename(f.name, spaces=True)
        target = folder / name
        i = 1
        while target.exists():
            target = folder / f"{i}-{name}"
            i += 1
        target.write_bytes(f.getvalue())
        paths.append(target)
    return paths


def unique_uploads(files: list) -> tuple[list, str]:
    """The dropped ``files`` with a file dropped again (same name, same bytes) kept once, and what to say about the
    repeats: those kept once, and different files under one name (the build keeps both, the later ones renamed as
    :func:`save_uploads` renames them); "" when no name repeats. An audit dropped Empty_Notes.txt twice and read
    "Empty_Notes.txt, Empty_Notes.txt are empty", then "1-Empty_Notes.txt" after the build."""
    import hashlib

    kept: list = []
    seen: dict[tuple[str, str], int] = {}
    twice: list[str] = []
    names: dict[str, int] = {}
    all_names = [str(getattr(f, "name", "")) for f in files]
    for f in files:
        name = str(getattr(f, "name", ""))
        # hashed only where a name repeats: this runs on every rerun of the page
        key = (name, hashlib.sha256(f.getvalue()).hexdigest() if all_names.count(name) > 1 else "")
        if key in seen:
            twice.append(name)
            continue
        seen[key] = 1
        names[name] = names.get(name, 0) + 1
        kept.append(f)
    notes = []
    if twice:
        said = ", ".join(dict.fromkeys(twice))
        notes.append(f"{said} {'was' if len(set(twice)) == 1 else 'were'} dropped more than once with the same "
                     "content: each counts once.")
    for name, n in names.items():
        if n > 1:
            clean = clean_filename(name, spaces=True)
            renamed = ", ".join(f"{i}-{clean}" for i in range(1, n))
            notes.append(f"{n} different files are named {name}: the build reads all of them, the first as {clean}, "
                         f"the others as {renamed}. Remove one (×) if it is an older copy.")
    return kept, " ".join(notes)


def stage_uploads(files: list, questions: Any = None) -> tuple[list[Path], Path | None, Callable[[], None]]:
    """The uploads saved in a fresh folder under ``$EGX_HOME/uploads`` that a build job holds (a killed server's
    are swept at the next start): their paths, the questions file's (in its own subfolder) and ``drop()``,
    which deletes the folder and releases it — called at once when saving fails, else when the job ends."""
    tmp, tmp_lock = new_upload_dir()

    def drop() -> None:  # the folder, its lock and the lock's file
        drop_upload_dir(tmp, tmp_lock)

    try:
        paths = save_uploads(list(files), tmp)
        qpath = None
        if questions is not None:
            (tmp / "questions").mkdir()
            qpath = save_uploads([questions], tmp / "questions")[0]
    except BaseException:
        drop()
        raise
    return paths, qpath, drop


def create_add_documents_ui(act: Active, *, drop_notes: Callable[[list], bool]) -> None:
    """Upload more documents into the active workspace; or say why this workspace cannot take them. ``drop_notes``
    says what is wrong with the files as they are dropped and whether adding cannot run
    (:func:`components.data_view.add_drop_notes`, the Upload tab's own checks: passed in, as that module imports
    this one)."""
    ws = act.workspace
    st.subheader(f"Add documents to “{md_escape(ws.title)}”")
    show_outcome(S.DATA_ADDED_MESSAGE, S.DATA_ADDED_FILES, S.DATA_ADDED_WARNING)  # the last insert's, here by the button
    problem = insert_problem(ws.path, ws.meta, app=True)
    if problem is not None:
        st.caption(md_escape(problem))
        return
    st.markdown("Only the new passages are read, turned into triples (with the extractor this workspace was built "
                "with) and embedded; entities already in the graph get the new edges and passages. Passages the "
                "workspace already holds are skipped. The workspace is replaced only when everything is done.")
    files = st.file_uploader("Documents to add (PDF, HTML, Word .docx, Markdown, text, or JSON(L) {title, text} "
                             "passages)", type=ADD_TYPES, accept_multiple_files=True,
                             key=S.uploader_key(S.DATA_ADD_UPLOADS),
                             help="Each file is one document, split into passages. A file that cannot be read (a "
                                  "scanned or encrypted PDF, a damaged file) is left out and the table afterwards "
                                  "says why; the others are added.")
    files, repeated = unique_uploads(list(files or []))  # a file dropped twice is added once
    if repeated:
        st.info(md_escape(repeated), icon=":material/content_copy:")
    blocked = drop_notes(files)
    from core.index.insert import dropped_on_insert

    lost = dropped_on_insert(ws.path)
    confirmed = True
    if lost:  # before the click, not only in its outcome (audit 43 lost a ReG model trained a minute before), and
        # confirmed: the audit asked for a step that cannot be skipped by a reflex click
        st.warning("Adding documents drops what was trained on the current graph: " + md_escape("; ".join(lost))
                   + ". Train it again afterwards, or add the documents before training.", icon=":material/warning:")
        confirmed = st.checkbox("Drop them and add the documents", key=S.DATA_ADD_CONFIRM,
                                help="Add documents stays off until this is ticked: the trained models above are "
                                     "deleted with the old graph.")
    why_off = "" if confirmed else ("Off until “Drop them and add the documents” above is ticked: adding deletes the "
                                    "trained models it names.")  # at the button (audit 52 waited on it, told nowhere near)
    if not st.button("Add documents", key=S.DATA_ADD, icon=":material/note_add:", disabled=not confirmed or blocked,
                     help=why_off or None):
        if why_off:
            st.caption(why_off)
        show_add_job()
        return
    if not files:
        st.error("Choose at least one document to add.")
        return
    sent = (str(ws.path), tuple((f.file_id, f.name, f.size) for f in files))
    if session_jobs.running(S.DATA_ADD_JOB) is not None or st.session_state.get(S.DATA_ADD_SENT) == sent:
        # a second click, queued while the first one's run waited for its job: never a duplicate insert
        st.info(f"Already adding these documents to “{md_escape(ws.title)}”: this click started nothing.",
                icon=":material/hourglass_top:")
        show_add_job()
        return
    adding = st.empty()  # said at once: the job's panel comes after its first seconds
    adding.info(f"Adding {len(files)} document{'s' if len(files) != 1 else ''} to “{md_escape(ws.title)}”…",
                icon=":material/hourglass_top:")
    paths, _, drop_uploads = stage_uploads(list(files))
    llm = act.llm if act.llm.available else None
    spec = BuildSpec.insert(ws.path, paths, embedder=act.embedder_name, llm=act.llm_name if llm else "none")

    def work(job: Job) -> dict[str, Any]:
        from core.index.insert import add_documents

        try:
            if not isolated_builds():  # EGX_BUILD_ISOLATED=0: in this process, uncapped
                return add_documents(ws.path, paths, embedder=act.embedder, llm=llm, progress=job.progress).to_dict()
            figures = build_isolated(spec, progress=job.progress, cancel=job.cancel_event)
            job.extra["build"] = {k: v for k, v in figures.items() if k != "result"}
            return dict(figures.get("result") or {})
        finally:
            drop_uploads()

    st.session_state[S.DATA_ADD_SENT] = sent  # before the rerun that shows the running job
    started = session_jobs.start(S.DATA_ADD_JOB, f"insert:{ws.path}", f"Adding documents to “{ws.title}”", work,
                                 on_busy=drop_uploads, wait=1.5, rerun=True)  # one insert into a workspace at a time
    adding.empty()
    if started:
        show_add_job()
    else:
        st.session_state.pop(S.DATA_ADD_SENT, None)


def show_add_job() -> None:
    """This session's insert: live while it runs; when it ended, its outcome (once)."""
    job = session_jobs.finished(S.DATA_ADD_JOB)
    if job is None:
        return
    s = job.status()
    if s.state != "done":  # cancelled or failed: the same files may be added again
        st.session_state.pop(S.DATA_ADD_SENT, None)
    if s.state == "cancelled":
        st.warning("Adding the documents was cancelled. The workspace is as it was.")
        return
    try:
        result = job.result()
    except (InputFormatError, InputReadError) as exc:  # no file could be read: they leave the upload box (the
        # message names each), so the next add counts only the files chosen then (audit 47 read "Adding 3 documents"
        # for one new file beside the two just refused)
        st.session_state[S.DATA_ADDED_MESSAGE] = ("error", f"Could not add the documents. {error_text(exc)} The "
                                                  "workspace is as it was, and these files were taken off the upload "
                                                  "box: choose readable ones and add them again.")
        S.clear_uploader(S.DATA_ADD_UPLOADS)
        st.rerun()
    except EgxError as exc:
        st.error(f"**Could not add the documents.** {md_escape(error_text(exc))}\n\nThe workspace is as it was. "
                 "Fix the input and add it again.")
        return
    S.clear_uploader(S.DATA_ADD_UPLOADS)  # they are in the workspace now: the next upload starts empty
    # shown by this panel, under its title, after the rerun that opens the new workspace (at the top of the page it
    # was 700 px above the button, out of sight: an audit saw only the upload box clear); a message with its kind: an
    # insert that added nothing is no success (an audit saw "Nothing was added …" in a green ✓ box), a warning
    meta = _sent_manifest()
    sent = st.session_state.get(S.DATA_ADD_SENT)
    # the workspace's questions matched anew: a gold title the new documents did not give is named, with the nearest
    gold = workspace_gold_note(Path(sent[0])) if sent and result.get("added") else ""
    st.session_state[S.DATA_ADDED_MESSAGE] = (
        "success" if result.get("added") else "warning",
        " ".join([str(result.get("summary", "")), *result.get("notes", []),
                  passages_note(list(result.get("files") or []), meta.passages if meta else None), gold]).strip())
    st.session_state[S.DATA_ADDED_FILES] = list(result.get("files") or [])
    st.session_state[S.DATA_ADDED_WARNING] = meta.few_passages_warning() if meta else ""
    st.rerun()


#: the longest reason a status cell shows whole (a longer one is in the caption above the table): at 1440 px an
#: audit read "left out: the document is empty. Ex", cut, in the Statistics table
STATUS_REASON_CHARS = 24


def _short_reason(error: str) -> str:
    """A left-out file's reason for its status cell: the reader's first sentence when it is short ("the document is
    empty"), else a pointer to the caption that has it whole."""
    first = error.split(". ", 1)[0].rstrip(".")
    return first if len(first) <= STATUS_REASON_CHARS else "see the note above"


def file_status_rows(files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per uploaded file for the status table: its name, its kind, its passages, or why it was left
    out (the reader's message without the file name it starts with). A file without passages says why in
    words: the table showed "None" for a file left out."""
    rows = []
    for f in files:
        error = public_text(f.get("error") or "")
        name = str(f.get("file") or "")
        if error.startswith(name + ": "):
            error = error[len(name) + 2:]
        fmt = str(f.get("format") or "")
        n = f.get("passages")
        # short: the Status cell beside it says why (an audit read "none: left out (see Stat…", cut)
        passages = (str(n) if n is not None else "none (left out)" if error else
                    "none: triples or a graph, no passages")
        n_dups = int(f.get("duplicates") or 0)
        if n_dups:
            passages += f" (+{n_dups:,} repeated, left out)"
        # the cell stays short (an audit read "…repeats a passage already read (e.g. “Vellmora”) and", cut off);
        # the whole sentence, with the passages it repeats, is in the message above and in repeats_notes
        read = f"read; {n_dups:,} repeated passage{'s' if n_dups != 1 else ''} left out" if n_dups else "read"
        rows.append({"File": name, "Format": DOCUMENT_KINDS.get(fmt, fmt.replace("_", " ")),
                     "Passages": passages, "Status": f"left out: {_short_reason(error)}" if error else read})
    return rows


def left_out_reasons(files: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(file, its whole reason) of each file left out, for the caption above a status table."""
    out = []
    for f in files:
        error = public_text(f.get("error") or "")
        name = str(f.get("file") or "")
        if error:
            out.append((name, error[len(name) + 2:] if error.startswith(name + ": ") else error))
    return out


def files_caption(files: list[dict[str, Any]]) -> str:
    """How many files were read, and each left out with its whole reason (the table's cell is short)."""
    bad = left_out_reasons(files)
    if not bad:
        return f"{plural(len(files), 'file')} read"
    why = "; ".join(f"{name} ({reason})" for name, reason in bad)
    return f"{len(files) - len(bad)} of {plural(len(files), 'file')} read; {len(bad)} left out: {why}"


#: the status table's columns: the Status cell holds a short reason, its column help says where the whole one is
STATUS_COLUMNS = {"Passages": st.column_config.TextColumn(width="medium"),
                  "Status": st.column_config.TextColumn(
                      width="large", help="“read”, or “left out” with a short reason; the caption above the table "
                                          "gives each reason whole.")}


def unmatched_gold_note(gold: UnmatchedGold | None, where: str = "here") -> str:
    """The gold titles that match no passage, named with the questions naming them and the nearest title
    (``where``: "here" for a workspace, "in these documents" before a build); "" for none."""
    if gold is None or not gold.total:
        return ""

    def ids(qs: tuple[str, ...]) -> str:
        return ", ".join(qs[:3]) + (" …" if len(qs) > 3 else "")

    said = []
    for u in gold.shown:
        if u.is_title:
            said.append(f"“{u.title}” ({ids(u.questions)}): no passage of that title holds its paragraph text.")
        elif u.nearest:
            said.append(f"“{u.title}” ({ids(u.questions)}) matches no title {where}; did you mean “{u.nearest}”?")
        else:
            said.append(f"“{u.title}” ({ids(u.questions)}) matches no title {where}.")
    more = f" … ({gold.total} gold titles match nothing in all)" if gold.total > len(gold.shown) else ""
    return " ".join(said) + more


def workspace_gold_note(path: Path) -> str:
    """:func:`unmatched_gold_note` for the workspace at ``path`` and its questions file ("" without one, or when
    it cannot be read: the Benchmark page says why)."""
    from core.index.gold_titles import workspace_unmatched_gold
    from core.index.questions import load_questions
    from core.index.workspace import Workspace

    try:
        ws = Workspace.open(path)
        if ws.questions_path is None:
            return ""
        return unmatched_gold_note(workspace_unmatched_gold(ws, load_questions(ws)))
    except EgxError:
        return ""


def repeats_notes(files: list[dict[str, Any]]) -> list[str]:
    """For each file that repeated passages read before it, the whole sentence: how many, of which passages, left
    out (what the status table's short cell stands for)."""
    said = [duplicates_text(str(f.get("file") or ""), int(f.get("duplicates") or 0), f.get("duplicate_of") or ())
            for f in files if not f.get("error")]
    return [t[0].upper() + t[1:] + "." for t in said if t]


def _sent_manifest() -> Manifest | None:
    """The manifest of the workspace this session's last insert went into (None when it cannot be read)."""
    from core.index.manifest import Manifest, read_manifest

    sent = st.session_state.get(S.DATA_ADD_SENT)
    try:
        return Manifest(read_manifest(Path(sent[0]))) if sent else None
    except EgxError:
        return None


def passages_note(files: list[dict[str, Any]], split: PassageSplit | None = None) -> str:
    """How many passages each read file became, and how documents were split (``split``, the workspace's; None:
    the default), so that a document that became fewer passages than it has paragraphs is explained (an audit saw
    "124 chunks" only, and a 4-paragraph notes.txt as 2 passages with nothing saying why)."""
    counted = [(str(f.get("file") or ""), int(f["passages"])) for f in files if f.get("passages") is not None]
    if not counted:
        return ""
    said = "Passages per file: " + ", ".join(f"{name} {n:,}" for name, n in counted) + "."
    if any(str(f.get("format") or "") in DOCUMENT_KINDS for f in files if f.get("passages") is not None):
        split = split or PassageSplit()
        if split.per_paragraph:
            said += (f" Documents were split one passage per paragraph (a heading kept with the paragraph after it, a "
                     f"paragraph over {split.max_chars:,} characters split at sentences).")
        else:
            said += (f" A document is split at its paragraphs, and short paragraphs are packed together into passages "
                     f"of up to {split.max_chars:,} characters, so a file of short paragraphs becomes fewer passages.")
    return said


def show_outcome(message_key: str = S.DATA_BUILT_MESSAGE, files_key: str = S.DATA_BUILT_FILES,
                 warning_key: str = S.DATA_BUILT_WARNING, *, scroll: bool = False) -> None:
    """The last build's (or, with the insert's keys, insert's) message, its warning that the workspace has too few
    passages (if it has) and its per-file table, once: the message a ``(kind, text)`` pair or a text — an insert
    that added nothing is a warning, not a success. ``scroll``: the page scrolls to the message (the build's, at the
    page's top: an audit clicked Build, the page stayed scrolled to the emptied form, and saw no sign of success)."""
    said = st.session_state.pop(message_key, None)
    if said:
        kind, text = said if isinstance(said, tuple) else ("success", said)
        if kind == "warning":
            st.warning(md_escape(text), icon=":material/info:")
        elif kind == "error":
            st.error(md_escape(text), icon=":material/error:")
        else:
            st.success(md_escape(text), icon=":material/check_circle:")
        if scroll:
            scroll_here("egx-built-message")
    few = st.session_state.pop(warning_key, None)
    if few:
        st.warning(md_escape(few), icon=":material/warning:")
    show_file_status(files_key)


def show_file_status(key: str = S.DATA_BUILT_FILES) -> None:
    """The last build's or insert's per-file table (once, after the rerun that shows its outcome); the files
    left out are named with their reason above it, so the reason is read even where the table cuts it."""
    files = st.session_state.pop(key, None)
    if not files:
        return
    st.caption(md_escape(files_caption(files)))
    st.dataframe(file_status_rows(files), hide_index=True, width="stretch", column_config=STATUS_COLUMNS)
