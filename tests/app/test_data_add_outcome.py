"""What the Data page says after Add documents: an insert that added nothing (an empty file left out, a file
that only repeats the workspace's passages) is a warning, not a green success; and the status table's cell for a
file that repeated passages is short enough to read whole, the whole sentence being in the message above it (an
audit read "…repeats a passage already read (e.g. “Vellmora”) and", cut off)."""

from __future__ import annotations

from pathlib import Path

from components import state as S
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page
from tests.app.test_data_add_documents import A, B, _corpus_workspace

#: what a reader reads for a text file whose one passage is the workspace's "The Matrix"
REPEAT = ("1 passage of matrix.txt repeats a passage already read (e.g. “The Matrix”) and was left out")


def _add(at, *files: tuple[str, bytes, str]):  # type: ignore[no-untyped-def]
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(list(files))
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_add_that_added_nothing_is_a_warning_with_short_status_cells(home: Path, tmp_path: Path,
                                                                         monkeypatch) -> None:
    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    repeat = f"{A[0]['title']}\n{A[0]['text']}".encode()
    _add(at, ("empty.txt", b"  \n", "text/plain"), ("matrix.txt", repeat, "text/plain"))
    assert not [s for s in at.success if "Nothing was added" in s.value], [s.value for s in at.success]
    warned = [" ".join(plain(w.value).replace("\\_", "_").split()) for w in at.warning]
    said = [w for w in warned if "Nothing was added" in w]
    assert len(said) == 1, warned
    assert REPEAT in said[0] and "empty.txt: the document is empty" in said[0], said
    # by the Add documents button, in the Upload tab: at the top of the page it was 700 px above it (an audit)
    upload = next(t for t in at.tabs if t.label == "Upload")
    assert any("Nothing was added" in w.value for w in upload.warning), [w.value for w in upload.warning]
    assert Workspace.open(target).graph.n_chunks == 2

    table = [d.value for d in at.dataframe if "Status" in d.value.columns][-1]  # the insert's, by its button
    assert list(table["File"]) == ["empty.txt", "matrix.txt"]
    assert list(table["Status"])[1] == "read; 1 repeated passage left out"  # whole in its column; the rest above
    assert list(table["Passages"])[1] == "0 (+1 repeated, left out)"


def test_an_add_that_added_passages_is_a_success(home: Path, tmp_path: Path, monkeypatch) -> None:
    import json

    target = _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert not [w for w in at.warning if "drops what was trained" in w.value]  # nothing trained yet: nothing said
    (target / "reg").mkdir()  # a ReG retriever trained on this graph: said before the click (audit 43 lost one)
    at.run()
    upload = next(t for t in at.tabs if t.label == "Upload")
    assert any("Adding documents drops what was trained on the current graph: ReG's trained retriever" in
               plain(w.value) for w in upload.warning), [w.value for w in upload.warning]
    assert at.button(key=S.DATA_ADD).disabled  # confirmed first: a reflex click cannot drop them
    off = "Off until “Drop them and add the documents” above is ticked"  # said at the button itself (audit 52)
    assert at.button(key=S.DATA_ADD).help.startswith(off) and any(c.value.startswith(off) for c in upload.caption)
    at.checkbox(key=S.DATA_ADD_CONFIRM).check().run()
    assert not at.button(key=S.DATA_ADD).disabled and not at.button(key=S.DATA_ADD).help
    _add(at, ("b.jsonl", "\n".join(map(json.dumps, B)).encode(), "application/json"))
    assert any("Added 1 passage" in plain(s.value) for s in at.success), [s.value for s in at.success]
    assert not [w for w in at.warning if "added" in w.value.lower()], [w.value for w in at.warning]


def test_the_statistics_tab_says_each_repeat_whole(home: Path, tmp_path: Path, monkeypatch) -> None:
    """After the message is gone, the workspace's file table (Statistics) keeps the short cell and says the
    sentence in its caption."""
    import json

    _corpus_workspace(home, tmp_path, monkeypatch)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    notes = f"{A[0]['title']}\n{A[0]['text']}\n\nPoint Break\nKeanu Reeves surfed in Point Break.".encode()
    _add(at, ("matrix.txt", notes, "text/plain"), ("b.jsonl", "\n".join(map(json.dumps, B)).encode(),
                                                   "application/json"))
    assert any("Added 2 passages" in plain(s.value) for s in at.success), [s.value for s in at.success]
    at.run()  # the message and its table are shown once; Statistics keeps the files
    captions = [" ".join(plain(c.value).replace("\\_", "_").split()) for c in at.caption]
    assert any(REPEAT + "." in c for c in captions), captions
    cells = [list(d.value["Status"]) for d in at.dataframe if "Status" in d.value]
    assert ["read; 1 repeated passage left out", "read"] in [c[-2:] for c in cells], cells
