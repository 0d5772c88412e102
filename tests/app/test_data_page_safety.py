"""Data safety on the Data page: names a browser user types or sends never reach the file system as
paths, a second upload under an existing name never replaces the first, and an error raised by any
page is shown as a message (app.py's net), never as a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components import state as S
from core.errors import WorkspaceError
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page

CSV = b"head,relation,tail\nThe Matrix,starring,Keanu Reeves\n"


def test_a_workspace_name_that_is_a_path_is_refused(home: Path, tmp_path: Path) -> None:
    at = run_page("pages/data.py")
    for bad, problem in (("../escape", "it contains a path separator"), ("..", "it names a folder above"),
                         (".hidden", "it starts with '.'"), ("con", "it is a reserved device name")):
        at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
        at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input(bad)
        at.button(key=S.DATA_BUILD).click().run()
        assert not at.exception
        errors = [plain(e.value) for e in at.error]
        assert any(f"The workspace name {bad!r} is not allowed: {problem}" in e for e in errors), errors
    assert not (home / "escape").exists()
    assert sorted(p.name for p in (home / "workspaces").iterdir() if not p.name.endswith(".lock")) == ["demo"]


def test_an_uploaded_file_name_is_made_harmless(home: Path) -> None:
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("../../../etc/evil triples.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = Workspace.open(home / "workspaces" / "mine")
    assert list(ws.manifest["sources"]) == ["evil triples.csv"]  # the path gone, the name's space kept


def test_an_uploaded_documents_name_titles_it_with_its_spaces(home: Path) -> None:
    """Audit 46 uploaded "Brennick Clockworks.txt" (no heading) and got the title "Brennick-Clockworks": gold titles
    written from the file name matched nothing, and the KG held "brennick-clockworks" beside "brennick clockworks"."""
    at = run_page("pages/data.py")
    text = b"Brennick Clockworks is a clock maker in Drosselmark. It was founded in 1871 by Tomasz Vellaric."
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("Brennick Clockworks.txt", text, "text/plain"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("clocks")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = Workspace.open(home / "workspaces" / "clocks")
    assert {c.title for c in ws.graph.chunks} == {"Brennick Clockworks"}


def test_a_second_upload_under_an_existing_name_does_not_replace_the_first(home: Path) -> None:
    from core.index.create import create_workspace

    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run()
    first = Workspace.open(home / "workspaces" / "mine").graph.content_hash
    # the page's own check can race another session's build; the build itself refuses (the page
    # never passes overwrite): see tests/index/test_workspace_safety.py for the threaded race
    with pytest.raises(WorkspaceError, match="already exists"):
        create_workspace([home / "other.csv"], home / "workspaces" / "mine")
    at2 = run_page("pages/data.py")
    at2.file_uploader(key=S.DATA_UPLOADS).set_value(("other.csv", b"head,relation,tail\nA,b,C\n", "text/csv"))
    at2.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine").run()
    # said as the name is typed, the button off (audit 57 learnt of the clash only after the click)
    assert any("A workspace named “mine” already exists" in plain(w.value) for w in at2.warning)
    assert at2.button(key=S.DATA_BUILD).disabled  # (AppTest refuses a click on it, as a browser does)
    # a name typed with a space is said as typed, with the folder it goes to (audit 58 read only the folder's name)
    (home / "two.csv").write_bytes(b"head,relation,tail\nA,b,C\n")
    create_workspace([home / "two.csv"], home / "workspaces" / "Mine-Two", embedder=None)
    at3 = run_page("pages/data.py")
    at3.file_uploader(key=S.DATA_UPLOADS).set_value(("other.csv", b"head,relation,tail\nA,b,C\n", "text/csv"))
    at3.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("Mine Two").run()
    said = [plain(w.value) for w in at3.warning if "already exists" in w.value]
    assert said and said[0].startswith("“Mine Two” is saved in the folder “Mine-Two”, and a workspace there already"), said
    assert Workspace.open(home / "workspaces" / "mine").graph.content_hash == first


def test_an_uncaught_project_error_is_a_message_not_a_traceback(home: Path, monkeypatch) -> None:
    """app.py catches EgxError around nav.run(): a page that forgets to is still clean."""
    import components.resources as R

    def broken(*a, **k):  # type: ignore[no-untyped-def]
        raise WorkspaceError("This workspace is damaged: graph.json.gz cannot be read. Rebuild it with `egx index`.")

    monkeypatch.setattr(R, "graph_stats", broken)
    at = run_page("pages/data.py")
    assert not at.exception
    assert any("This workspace is damaged" in plain(e.value) for e in at.error)


def test_an_upload_past_the_build_memory_cap_is_a_message_and_the_server_lives_on(home: Path, monkeypatch) -> None:
    """A hostile upload once took the server to 4 GB. Builds run in a child process; one past
    EGX_BUILD_MEMORY_MB is stopped with a message naming the setting, nothing is saved, the upload folder goes."""
    at = run_page("pages/data.py")  # the sample it opens is built first (in the child too, under the usual cap)
    monkeypatch.setenv("EGX_BUILD_MEMORY_MB", "30")  # a child interpreter alone passes 30 MB
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("Could not build workspace “mine”" in e and "EGX_BUILD_MEMORY_MB" in e for e in errors), errors
    # said on the page where it was started, so not again in the sidebar's job list on every page after
    at.run()
    assert not [e for e in at.sidebar.error if "failed" in plain(e.value)], [plain(e.value) for e in at.sidebar.error]
    assert not (home / "workspaces" / "mine").exists()
    assert [p for p in (home / "uploads").iterdir() if p.is_dir()] == []
    monkeypatch.delenv("EGX_BUILD_MEMORY_MB")
    # the same server builds the next upload (the failed build kept the form: its file and name are still chosen)
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).value == "mine"
    at.button(key=S.DATA_BUILD).click().run()
    assert Workspace.open(home / "workspaces" / "mine").graph.n_edges == 1


@pytest.mark.parametrize("name", ["questions.json", "questions.jsonl"])
def test_a_questions_file_on_the_graph_uploader_is_refused_once_before_any_build(home: Path, name: str) -> None:
    """A questions file dropped on the graph uploader (beside a good graph file) is told at the click, from its
    first record, in one message saying where it goes; no build job starts (so the sidebar says nothing) and
    the staged upload folder is gone."""
    record = {"question": "Who played Neo?", "answer": "Keanu Reeves", "supporting_facts": [["The Matrix", 0]]}
    body = json.dumps([record]) if name.endswith(".json") else json.dumps(record) + "\n"
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value([("t.csv", CSV, "text/csv"),
                                                   (name, body.encode(), "application/json")])
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]  # the page's and the sidebar's
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{name} looks like a questions file")
    assert "“Questions with gold evidence” uploader" in errors[0] and "egx" not in errors[0]
    assert S.DATA_UPLOAD_JOB not in at.session_state
    assert not (home / "workspaces" / "mine").exists()
    assert [p for p in (home / "uploads").iterdir() if p.is_dir()] == []


def test_a_corpus_on_the_questions_uploader_is_refused_before_any_build(home: Path) -> None:
    """The reverse mistake: a corpus dropped on the questions uploader was built anyway, under a green “Built
    workspace” whose last sentence said “questions.json, record 1: a record has no "question" string” (the
    workspace's copy, a name the user never uploaded). It is refused when dropped, naming the user's file, what
    it looks like and where it goes; the Build button is off with the reason beside it, and no build starts."""
    corpus = json.dumps([{"title": "The Matrix", "text": "The Matrix is a 1999 film starring Keanu Reeves."}])
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.file_uploader(key=S.DATA_QUESTIONS).set_value(("my-corpus.json", corpus.encode(), "application/json"))
    at.run()  # told when the file is dropped (an audit found it said only after Build)
    assert [plain(e.value)[:40] for e in at.error] == ["my-corpus.json looks like a corpus (its "]
    assert [p for p in (home / "uploads").iterdir() if p.is_dir()] == []  # the copies it read are gone
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine").run()
    assert not at.exception
    assert at.button(key=S.DATA_BUILD).disabled  # no click to make: the reason is beside the button
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1, errors
    assert errors[0].startswith("my-corpus.json looks like a corpus (its records have “title”, “text” and no "
                                "“question”), not a questions file"), errors
    assert "“Graph or corpus files” uploader" in errors[0] and "questions.json" not in errors[0]
    assert not [s for s in at.success if "Built workspace" in s.value] and S.DATA_UPLOAD_JOB not in at.session_state
    assert not (home / "workspaces" / "mine").exists()
    assert [p for p in (home / "uploads").iterdir() if p.is_dir()] == []


def test_a_build_with_questions_says_how_many_were_read_and_matched(home: Path) -> None:
    """The build's message counts the questions read and those whose gold passages are all in the workspace (an
    audit found nothing said it before the Benchmark page's "Questions (of 6)"); gold that matches no passage is
    said in a warning, not in the green box (another audit read it as a success)."""
    corpus = json.dumps([{"title": "The Matrix", "text": "The Matrix is a 1999 film starring Keanu Reeves."},
                         {"title": "Speed", "text": "Speed is a 1994 film starring Keanu Reeves."}])
    qs = json.dumps([{"question": "Which 1999 film starred Keanu Reeves?", "answer": "The Matrix",
                      "supporting_facts": [["The Matrix", 0]]},
                     {"question": "Which 1994 film starred Keanu Reeves?", "answer": "Speed",
                      "supporting_facts": [["Speed", 0], ["Point Break", 0]]}])
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("films.json", corpus.encode(), "application/json"))
    at.file_uploader(key=S.DATA_QUESTIONS).set_value(("qs.json", qs.encode(), "application/json"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("films")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    built = [plain(s.value) for s in at.success if "Built workspace" in s.value]
    assert built and "questions file" not in built[0], built
    # the page scrolls to it, at its top: audit 40 stayed scrolled to the emptied form and saw no sign of success
    drawn = _texts(at)
    i_built = next(i for i, (t, v) in enumerate(drawn) if "Built workspace" in v)
    assert drawn[i_built + 1][0] == "html" and "egx-built-message" in drawn[i_built + 1][1], drawn[i_built:][:2]
    warned = [plain(w.value) for w in at.warning if "questions file" in w.value]
    assert warned and "2 questions read from its questions file; 1 of them has every gold passage in this " \
                      "workspace." in warned[0], warned
    assert "1 of 2 questions names gold passages this workspace lacks" in warned[0], warned


def _texts(at) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(element type, its text or key) of the page's elements in page order (tabs and columns walked)."""
    out: list[tuple[str, str]] = []

    def walk(node) -> None:  # type: ignore[no-untyped-def]
        kids = getattr(node, "children", None)
        if kids:
            for k in kids.values():
                walk(k)
            return
        key = getattr(node, "key", None)
        out.append((node.type, str(key) if key else str(getattr(node, "value", ""))))

    walk(at.main)
    return out


def test_a_build_says_at_once_at_its_button_and_its_error_is_drawn_under_it(home: Path, monkeypatch) -> None:
    """An audit saw nothing near the Build button for ~3 s after the click, then the build's error at y≈860 of 900,
    under the button; a later one, the error drawn at the tab's top, saw nothing change around the button. A line
    under the button says it is building at once; the error is drawn right under the button, the page scrolled to
    it, and it stays through the page's reruns until Build is clicked again."""
    from components import session_jobs

    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")

    def caught(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("the page as it is when the build starts")

    with monkeypatch.context() as m:  # the page stops where the job would start: what is drawn by then
        m.setattr(session_jobs, "start", caught)
        at.button(key=S.DATA_BUILD).click().run()
    drawn = _texts(at)
    i_button = next(i for i, (t, k) in enumerate(drawn) if k == S.DATA_BUILD)
    assert drawn[i_button + 1][0] == "info" and "Building “mine”" in drawn[i_button + 1][1], drawn[i_button:][:3]

    monkeypatch.setenv("EGX_BUILD_MEMORY_MB", "30")  # a build that fails (test above): its error
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception
    drawn = _texts(at)
    i_error = next(i for i, (t, v) in enumerate(drawn) if "Could not build workspace" in v)
    i_button = next(i for i, (t, k) in enumerate(drawn) if k == S.DATA_BUILD)
    assert i_error == i_button + 1, drawn[i_button:][:3]
    assert "still chosen" in drawn[i_error][1]
    assert any(t == "html" and "egx-build-outcome" in v for t, v in drawn[i_error:]), drawn[i_error:][:3]
    at.run()  # a rerun (a job panel's): the error stays, not scrolled to again
    drawn = _texts(at)
    assert sum("Could not build workspace" in v for _, v in drawn) == 1
    assert not any(t == "html" and "egx-build-outcome" in v for t, v in drawn)


def test_a_build_says_how_many_passages_each_file_became_and_statistics_keeps_the_table(home: Path) -> None:
    """An audit saw a 4-paragraph notes.txt become 2 passages with only "124 chunks" said, and the per-file table
    gone once another tab was opened: the message names each file's passages and the chunk size that packed them,
    and Statistics shows the files table from the manifest."""
    notes = "\n\n".join(f"Paragraph {i}: Alice met Bob in Paris." for i in range(4))
    corpus = json.dumps([{"title": f"T{i}", "text": f"Erin visited Oslo {i} times."} for i in range(3)])
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value([("notes.txt", notes.encode(), "text/plain"),
                                                    ("c.json", corpus.encode(), "application/json")])
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("packed")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    built = [plain(s.value) for s in at.success if "Built workspace" in s.value]
    assert built and "Passages per file: notes.txt 1, c.json 3." in built[0], built
    assert "up to 1,200 characters" in built[0], built
    at.run()  # the next run: the success box and its one-off table are gone; Statistics keeps the files
    assert not [s for s in at.success if "Built workspace" in s.value]
    tables = [d.value for d in at.dataframe if "Passages" in getattr(d.value, "columns", [])]
    assert tables and list(tables[-1]["File"]) == ["notes.txt", "c.json"], tables
    assert list(tables[-1]["Passages"]) == ["1", "3"], tables
    assert any("Passages per file: notes.txt 1, c.json 3." in plain(c.value) for c in at.caption)


def test_a_second_build_click_while_it_runs_says_already_building(home: Path) -> None:
    """A second click on Build while this session's build of the workspace runs (an audit's click queued behind
    the first one's wait) is told so and starts no duplicate job."""
    import threading

    from components import jobs_view

    release = threading.Event()
    job = jobs_view.jobs().submit("upload:films", "Building “films” from an upload",
                                  lambda j: release.wait(60), kind="workspace", join=False)
    try:
        at = run_page("pages/data.py", **{S.DATA_UPLOAD_JOB: "upload:films"})
        at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
        at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("films")
        at.button(key=S.DATA_BUILD).click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert any("Already building “films”" in i.value for i in at.info), [i.value for i in at.info]
        assert not at.error, [e.value for e in at.error]
        assert not (home / "workspaces" / "films").exists()
    finally:
        release.set()
        job.wait(30)


def test_an_empty_document_is_said_when_it_is_dropped(home: Path) -> None:
    """A bad questions file is refused at drop, an empty document was said only after the build ("1 left out:
    empty.txt"): it is said at drop now, without blocking the build (which leaves it out, as before)."""
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value([("notes.txt", b"Alice met Bob in Paris.", "text/plain"),
                                                    ("empty.txt", b"", "text/plain"),
                                                    ("blank.md", b"  \n\n \n", "text/markdown")]).run()
    assert not at.exception, [e.value for e in at.exception]
    said = [plain(w.value) for w in at.warning if "empty" in w.value]
    assert said == ["empty.txt, blank.md are empty: the build will leave them out. Remove them (×), or drop the file "
                    "again with its text."], [w.value for w in at.warning]
    at.file_uploader(key=S.DATA_UPLOADS).set_value([("notes.txt", b"Alice met Bob in Paris.", "text/plain")]).run()
    assert not [w for w in at.warning if "empty" in w.value]


def test_a_document_on_the_questions_uploader_is_told_where_it_goes(home: Path) -> None:
    """Audit 44 dropped a .txt on a questions uploader and got Streamlit's bare "text/plain files are not allowed":
    the uploader takes any file, and the page names the file and where a document goes; no build starts."""
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.file_uploader(key=S.DATA_QUESTIONS).set_value(("Kessling.txt", b"Kessling is a town.", "text/plain"))
    at.run()
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine").run()
    assert not at.exception and at.button(key=S.DATA_BUILD).disabled
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Kessling.txt: not a questions file (.txt)") and \
        "a document goes with the corpus files" in errors[0], errors
