"""The Data page's "Add documents": more passages go into the active corpus workspace as a background job
(in a capped child process), the page then opens the new workspace and says what was added; bad input is a
message and leaves the workspace as it was; a workspace that cannot take documents says why."""

from __future__ import annotations

import json
from pathlib import Path

from components import state as S
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page

A = [{"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
     {"id": "a2", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."}]
B = [{"id": "b1", "title": "John Wick", "text": "Keanu Reeves starred in John Wick, directed by Chad Stahelski."}]


def _corpus_workspace(home: Path, tmp_path: Path, monkeypatch) -> Path:
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "a.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in A))
    target = home / "workspaces" / "films"
    create_workspace([src], target, title="Films *of* <b>Keanu</b>", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"))
    return target


def test_add_documents_to_the_active_corpus_workspace(home: Path, tmp_path: Path, monkeypatch) -> None:
    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    assert any("is a bundled sample" in plain(c.value) for c in at.caption)  # the demo cannot take documents
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(plain(h.value) == "Add documents to “Films *of* <b>Keanu</b>”" for h in at.subheader)  # escaped

    # a file only reading it shows broken (an empty one is named as it is dropped, the button off: the test below)
    broken = ("cut.jsonl", b'{"title": "John Wick", "text": "Keanu', "application/json")
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(broken)
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("Could not add the documents." in e and "cut.jsonl" in e for e in errors), errors
    assert Workspace.open(target).graph.n_chunks == 2
    # the refused file left the upload box (a new uploader), so the next add counts only what is chosen then (audit
    # 47 read "Adding 3 documents" for one new file beside the two refused before)
    assert any("taken off the upload box" in e for e in errors), errors
    assert not [u for u in at.get("file_uploader") if u.key == S.DATA_ADD_UPLOADS]

    at.file_uploader(key=S.sub(S.DATA_ADD_UPLOADS, "1")).set_value(("b.jsonl", "\n".join(map(json.dumps, B)).encode(),
                                                         "application/json"))
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Added 1 passage" in plain(s.value) for s in at.success), [s.value for s in at.success]
    ws = Workspace.open(target)
    assert [c.id for c in ws.graph.chunks] == ["a1", "a2", "b1"]
    assert "b1" in ws.graph.node_chunks[ws.graph.node("Keanu Reeves")]
    assert [p for p in (home / "uploads").iterdir() if p.is_dir()] == []  # the upload folder went with the job


def test_add_a_folder_of_mixed_documents_reports_each_file(home: Path, tmp_path: Path, monkeypatch) -> None:
    """A PDF, a Word file, an HTML page and a scanned PDF: the three readable ones are added, and the table
    says what became of each file, the scan with the reason and the fix."""
    from tests.graph.test_documents import docx_file, pdf_bytes

    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    word = docx_file(tmp_path / "wick.docx").read_bytes()
    uploads = [("speed2.pdf", pdf_bytes(["Keanu Reeves did not star in Speed 2."]), "application/pdf"),
               ("wick.docx", word, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
               ("scan.pdf", pdf_bytes([None]), "application/pdf"),
               ("point.html", b"<h1>Point Break</h1><p>Keanu Reeves starred in Point Break.</p>", "text/html")]
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(uploads)
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Added 3 passages" in plain(s.value) and "1 of 4 files could not be read" in plain(s.value)
               for s in at.success), [s.value for s in at.success]
    table = [d.value for d in at.dataframe if "Status" in d.value.columns][-1]  # the insert's, by its button
    assert list(table["File"]) == ["speed2.pdf", "wick.docx", "scan.pdf", "point.html"]
    assert list(table["Format"]) == ["PDF", "Word", "PDF", "HTML"]
    assert list(table["Status"])[:2] == ["read", "read"] and table["Status"][3] == "read"
    assert table["Status"][2] == "left out: see the note above"  # short: the whole reason is in the caption
    assert any("3 of 4 files read; 1 left out: scan.pdf (none of its 1 page(s) has a text layer: it looks scanned"
               in plain(c.value) and "run OCR first" in plain(c.value) for c in at.caption)
    # every cell says something: a file left out showed "None" passages
    assert list(table["Passages"])[:2] == ["1", "1"] and table["Passages"][2] == "none (left out)"
    ws = Workspace.open(target)
    assert [c.id for c in ws.graph.chunks] == ["a1", "a2", "speed2", "wick", "point"]


def test_file_rows_say_why_a_file_has_no_passages() -> None:
    from components.add_documents import file_status_rows

    rows = file_status_rows([{"file": "kg.tsv", "format": "tsv", "passages": None, "error": ""},
                             {"file": "a.pdf", "format": "pdf", "passages": None, "error": "a.pdf: it is encrypted"},
                             {"file": "b.txt", "format": "text", "passages": 0, "error": ""}])
    assert [r["Passages"] for r in rows] == ["none: triples or a graph, no passages", "none (left out)", "0"]
    assert rows[1]["Status"] == "left out: it is encrypted"


def test_a_second_add_click_while_the_insert_runs_says_already_adding(home: Path, tmp_path: Path,
                                                                       monkeypatch) -> None:
    """A second click on Add documents while this session's insert runs (an audit's second click ran a duplicate
    job) is told so and starts nothing."""
    import threading

    from components import jobs_view

    target = _corpus_workspace(home, tmp_path, monkeypatch)
    release = threading.Event()
    key = f"insert:{Workspace.open(target).path}"
    job = jobs_view.jobs().submit(key, "Adding documents", lambda j: release.wait(60), kind="workspace", join=False)
    try:
        at = run_page("pages/data.py")
        at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
        at.session_state[S.DATA_ADD_JOB] = key
        at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(("b.jsonl", "\n".join(map(json.dumps, B)).encode(),
                                                             "application/json"))
        at.button(key=S.DATA_ADD).click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert any("Already adding these documents" in i.value for i in at.info), [i.value for i in at.info]
        assert not at.error, [e.value for e in at.error]
    finally:
        release.set()
        job.wait(30)
    assert Workspace.open(target).graph.n_chunks == 2


def test_questions_written_after_an_add_replace_the_workspace_s_questions(home: Path, tmp_path: Path,
                                                                          monkeypatch) -> None:
    """An audit added documents and found no way to attach the question it wrote for them: the Questions panel
    says what the workspace's questions are, refuses a file whose gold matches nothing (the old ones stay) and puts
    a good one in their place, which the Benchmark then reads."""
    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    assert any("keeps the questions of its recipe" in plain(c.value) for c in at.caption)  # the demo: a sample
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert any("has no questions file" in plain(c.value) for c in at.caption), [c.value for c in at.caption]
    assert at.button(key=S.DATA_QUESTIONS_USE).disabled  # nothing chosen yet

    # a document dropped here by mistake: told where it goes, not Streamlit's bare "text/plain files are not
    # allowed" (audit 44)
    at.file_uploader(key=S.DATA_QUESTIONS_NEW).set_value(("Kessling.txt", b"Kessling is a town.", "text/plain")).run()
    assert at.button(key=S.DATA_QUESTIONS_USE).disabled
    assert any(plain(e.value).startswith("Kessling.txt is not a questions file (.txt)") and "Documents to add" in
               plain(e.value) for e in at.error), [e.value for e in at.error]
    at.file_uploader(key=S.DATA_QUESTIONS_NEW).set_value(("empty.json", b"", "application/json")).run()
    assert at.button(key=S.DATA_QUESTIONS_USE).disabled  # an empty file: refused before the click
    assert any("empty.json is empty" in plain(c.value) for c in at.caption)
    nomatch = [{"id": "z", "question": "Who founded Nowhere Dairy?", "supporting_facts": [["Nowhere Dairy", 0]]}]
    at.file_uploader(key=S.DATA_QUESTIONS_NEW).set_value(("nomatch.json", json.dumps(nomatch).encode(),
                                                          "application/json")).run()
    at.button(key=S.DATA_QUESTIONS_USE).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("nomatch.json was not used" in plain(e.value) and "names a passage title" in plain(e.value)
               for e in at.error), [e.value for e in at.error]
    assert not (target / "questions.json").exists()

    good = [{"id": "q11", "question": "Who starred in Speed with Keanu Reeves?", "answer": "Sandra Bullock",
             "supporting_facts": [["Speed", 0]]}]
    at.file_uploader(key=S.DATA_QUESTIONS_NEW).set_value(("after_add.json", json.dumps(good).encode(),
                                                          "application/json")).run()
    at.button(key=S.DATA_QUESTIONS_USE).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("after_add.json is now the questions file" in plain(s.value) for s in at.success), \
        [s.value for s in at.success]
    assert any("has 1 question (from after_add.json" in plain(c.value) for c in at.caption), \
        [c.value for c in at.caption]
    assert json.loads((target / "questions.json").read_text())[0]["id"] == "q11"


def test_an_empty_file_dropped_to_add_is_named_at_once(home: Path, tmp_path: Path, monkeypatch) -> None:
    """The Upload tab names an empty file as it is dropped; Add documents said nothing until after the add (audit 48):
    now it says so at drop, and with only empty files the button is off."""
    _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    good = ("b.jsonl", "\n".join(map(json.dumps, B)).encode(), "application/json")
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value([good, ("empty.txt", b"  \n", "text/plain")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("empty.txt is empty: adding will leave it out" in plain(w.value) for w in at.warning), \
        [w.value for w in at.warning]
    assert not at.button(key=S.DATA_ADD).disabled
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(("empty.txt", b"  \n", "text/plain")).run()
    assert any("empty.txt is empty, so adding cannot run" in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert at.button(key=S.DATA_ADD).disabled
