"""The Data page on passages read twice: a PDF of a corpus's passages, built with the corpus, and a text file of
the workspace's passages, added to it, add no copies, and the page says how many were left out and of what.
Also what the upload form says about who sees a workspace built here."""

from __future__ import annotations

import json
from pathlib import Path

from components import state as S
from components.data_view import SHARED_WORKSPACES_NOTE
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page
from tests.graph.test_documents import CORPUS, pdf_bytes, wrapped


def test_a_pdf_of_the_corpus_s_passages_is_left_out_of_the_build_and_said(home: Path) -> None:
    at = run_page("pages/data.py")
    assert any(plain(c.value) == SHARED_WORKSPACES_NOTE for c in at.caption)
    pdf = pdf_bytes(["\n".join(f"{r['title']}\n{wrapped(r['text'], 41)}" for r in CORPUS)])
    at.file_uploader(key=S.DATA_UPLOADS).set_value([("three_passages.pdf", pdf, "application/pdf"),
                                                    ("my_corpus.json", json.dumps(CORPUS).encode(),
                                                     "application/json")])
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mydata")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    built = [plain(s.value).replace("\\_", "_") for s in at.success if "Built workspace" in s.value]
    assert built and ("3 chunks. 3 passages of three_passages.pdf repeat passages already read (e.g. “Journal of "
                      "Mathematical Physics”, “Person-centered therapy”, “Riemann integral”) and were left out."
                      ) in built[0], built
    table = [d.value for d in at.dataframe if "Status" in d.value.columns][-1]  # the insert's, by its button
    assert list(table["File"]) == ["three_passages.pdf", "my_corpus.json"]
    assert list(table["Passages"]) == ["0 (+3 repeated, left out)", "3"]
    assert table["Status"][0] == "read; 3 repeated passages left out"  # short: the sentence is in the message
    assert [c.title for c in Workspace.open(home / "workspaces" / "mydata").graph.chunks] == [
        r["title"] for r in CORPUS]


def test_adding_a_text_file_of_the_workspace_s_passages_adds_nothing_and_says_so(home: Path, tmp_path: Path,
                                                                                 monkeypatch) -> None:
    from tests.app.test_data_add_documents import A, _corpus_workspace

    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    notes = "\n\n".join(f"{r['title']}\n{r['text']}" for r in A) + "\n\nPoint Break\nKeanu Reeves surfed in Point Break."
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(("notes.txt", notes.encode(), "text/plain"))
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(plain(s.value).replace("\\_", "_") for s in at.success)
    assert "Added 1 passage; 2 passages of notes.txt repeat passages already read (e.g. “The Matrix”, “Speed”)" \
           " and were left out" in said, said
    files = [d.value for d in at.dataframe if "Status" in d.value.columns][-1]  # the insert's, by its button
    assert list(files["Passages"]) == ["1 (+2 repeated, left out)"]
    chunks = Workspace.open(target).graph.chunks
    assert [(c.title, c.text) for c in chunks][2:] == [("Point Break", "Keanu Reeves surfed in Point Break.")]
