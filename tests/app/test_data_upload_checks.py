"""What the Data page says about dropped files before and after a build: a gold title that matches no passage is
named with its questions and the nearest title, a file dropped twice counts once, and the files table's Status
cell stays short with each reason whole above it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from components import state as S
from tests.app.helpers import plain, run_page

COMPANY = b"Tessany Ferry Company\n\nThe Tessany Ferry Company was founded in 1871 by Hester Quill."
CAPTAINS = b"Captains of the Tessany\n\nMattias Venn captained the Grey Heron. Edda Thorne commanded it later."
QUESTIONS = json.dumps([
    {"id": "q1", "question": "Who captained the Grey Heron?", "answer": "Mattias Venn",
     "supporting_facts": [["Captains of the Tessany", 0]]},
    {"id": "q2", "question": "Who founded the Tessany Ferry Company?", "answer": "Hester Quill",
     "supporting_facts": [["Tessany Ferry Co", 0]]}]).encode()
SAID = "“Tessany Ferry Co” (q2) matches no title"
NEAREST = "did you mean “Tessany Ferry Company”?"


def _drop(at, files, questions=None):  # type: ignore[no-untyped-def]
    at.file_uploader(key=S.DATA_UPLOADS).set_value([(n, b, "text/plain") for n, b in files])
    if questions is not None:
        at.file_uploader(key=S.DATA_QUESTIONS).set_value(("qs.json", questions, "application/json"))
    return at.run()


def test_an_unmatched_gold_title_is_named_at_drop_and_after_the_build(home: Path) -> None:
    """An audit's ["Tessany Ferry Co", 0] for "Tessany Ferry Company" was said after the build as "1 of 2 questions
    matches no passage …" only: the title, its question and the nearest title are said at drop and after the build."""
    at = _drop(run_page("pages/data.py"), [("Tessany_Ferry_Company.txt", COMPANY), ("Captains.txt", CAPTAINS)],
               QUESTIONS)
    assert not at.exception, [e.value for e in at.exception]
    warned = [plain(w.value) for w in at.warning if SAID in plain(w.value)]
    assert warned and NEAREST in warned[0] and "in these documents" in warned[0], [w.value for w in at.warning]
    assert not at.button(key=S.DATA_BUILD).disabled  # said, not blocking
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("tessany")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s for s in at.success if "Built workspace" in s.value]
    built = [plain(w.value) for w in at.warning if SAID in plain(w.value)]  # a warning, not the green box
    assert built and f"{SAID} here; {NEAREST}" in built[0], built


def test_a_file_dropped_twice_counts_once_and_two_files_of_one_name_are_said(home: Path) -> None:
    """An audit dropped Empty_Notes.txt twice and read "Empty_Notes.txt, Empty_Notes.txt are empty", then
    "1-Empty_Notes.txt" after the build."""
    at = _drop(run_page("pages/data.py"), [("Empty_Notes.txt", b""), ("Empty_Notes.txt", b""),
                                           ("Captains.txt", CAPTAINS)])
    assert not at.exception, [e.value for e in at.exception]
    empty = [plain(w.value) for w in at.warning if "empty" in w.value]
    assert empty and empty[0].startswith("Empty_Notes.txt is empty"), empty
    assert any("Empty_Notes.txt was dropped more than once with the same content: each counts once" in plain(i.value)
               for i in at.info), [i.value for i in at.info]
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("once")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    tables = [d.value for d in at.dataframe if "Status" in getattr(d.value, "columns", [])]
    assert tables and sorted(tables[0]["File"]) == ["Captains.txt", "Empty_Notes.txt"], tables

    at = _drop(run_page("pages/data.py"), [("notes.txt", COMPANY), ("notes.txt", CAPTAINS)])
    said = [plain(i.value) for i in at.info if "different files are named" in i.value]
    assert said and "2 different files are named notes.txt: the build reads all of them, the first as notes.txt, " \
                    "the others as 1-notes.txt" in said[0], [i.value for i in at.info]


def test_the_statistics_status_cell_is_short_and_its_reason_whole_above(home: Path) -> None:
    """At 1440 px an audit read "left out: the document is empty. Ex" in the Statistics files table."""
    at = _drop(run_page("pages/data.py"), [("Empty_Notes.txt", b"   \n"), ("Captains.txt", CAPTAINS)])
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("stats")
    at.button(key=S.DATA_BUILD).click().run()
    at.run()  # the build's one-off table is gone: Statistics' table, from the manifest
    assert not at.exception, [e.value for e in at.exception]
    tables = [d.value for d in at.dataframe if "Status" in getattr(d.value, "columns", [])]
    assert tables, [d.value for d in at.dataframe]
    status = dict(zip(tables[-1]["File"], tables[-1]["Status"], strict=True))
    assert status["Empty_Notes.txt"] == "left out: the document is empty", status
    assert all(len(s) <= 32 for s in status.values()), status
    assert any("left out: Empty_Notes.txt (the document is empty. Expected some text" in plain(c.value)
               for c in at.caption), [c.value for c in at.caption]


def test_a_long_reason_points_to_the_caption() -> None:
    from components.add_documents import file_status_rows, files_caption

    files = [{"file": "a.pdf", "format": "pdf", "passages": None,
              "error": "a.pdf: the PDF has no text layer (a scan). Run OCR first, then upload it again."}]
    (row,) = file_status_rows(files)
    assert row["Status"] == "left out: see the note above"
    assert "a.pdf (the PDF has no text layer (a scan). Run OCR first" in files_caption(files)


def test_adding_documents_to_a_workspace_with_questions_names_a_gold_title_still_unmatched(
        home: Path, tmp_path: Path, monkeypatch) -> None:
    """The workspace's questions are matched anew after documents are added: a gold title the new documents did not
    give either is named with its question and the nearest title."""
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "Captains.txt"
    src.write_bytes(CAPTAINS)
    qs = tmp_path / "qs.json"
    qs.write_bytes(QUESTIONS)
    create_workspace([src], home / "workspaces" / "ferries", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), questions=qs)
    at = run_page("pages/data.py")
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("ferries").run()
    at.file_uploader(key=S.DATA_ADD_UPLOADS).set_value(("Tessany_Ferry_Company.txt", COMPANY, "text/plain"))
    at.button(key=S.DATA_ADD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    added = [plain(s.value) for s in at.success if "Added" in s.value]
    assert added and f"{SAID} here; {NEAREST}" in added[0], added


def test_an_empty_only_file_is_said_to_stop_the_build_before_it_and_the_button_is_off(home: Path) -> None:
    """An audit read "empty.txt is empty: the build will leave it out" about its only file, then "Could not build
    … the document is empty": with nothing else to build from, the check says the build cannot run, and why."""
    at = _drop(run_page("pages/data.py"), [("empty.txt", b"")], QUESTIONS)
    assert not at.exception, [e.value for e in at.exception]
    assert not [w for w in at.warning if "will leave" in w.value], [w.value for w in at.warning]
    said = [plain(e.value) for e in at.error if "empty.txt is empty" in plain(e.value)]
    assert said and "the build cannot run: there is no text to build from" in said[0], [e.value for e in at.error]
    button = at.button(key=S.DATA_BUILD)
    assert button.disabled and "there is no text to build from" in plain(button.proto.help)
    assert any("Nothing can be built until" in plain(c.value) and "empty.txt is empty" in plain(c.value)
               for c in at.caption), [c.value for c in at.caption]


def test_an_empty_data_file_stops_the_build_and_an_empty_document_beside_text_is_left_out(home: Path) -> None:
    """Only an empty document is left out: an empty JSON beside a document would stop the build, so it is said to,
    at drop; an empty document beside a document with text is said to be left out, and the build runs."""
    at = _drop(run_page("pages/data.py"), [("empty.json", b""), ("Captains.txt", CAPTAINS)])
    assert not at.exception, [e.value for e in at.exception]
    said = [plain(e.value) for e in at.error if "empty.json is empty" in plain(e.value)]
    assert said and "the build cannot run: it leaves out an empty document, never an empty data file" in said[0], \
        [e.value for e in at.error]
    assert at.button(key=S.DATA_BUILD).disabled

    at = _drop(run_page("pages/data.py"), [("empty.txt", b"  \n"), ("Captains.txt", CAPTAINS)])
    assert not at.error, [e.value for e in at.error]
    assert any(plain(w.value).startswith("empty.txt is empty: the build will leave it out") for w in at.warning)
    assert not at.button(key=S.DATA_BUILD).disabled
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("captains")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s for s in at.success if "Built workspace" in s.value], [e.value for e in at.error]
    tables = [d.value for d in at.dataframe if "Status" in getattr(d.value, "columns", [])]
    assert tables and dict(zip(tables[0]["File"], tables[0]["Status"], strict=True))["empty.txt"].startswith(
        "left out"), tables


BINARY = bytes(range(256)) * 12  # 3 KB of every byte, NULs among them
LOOKS_BINARY = "binary.txt, line 1: the file looks binary (it contains NUL bytes). Expected a UTF-8 text file"


def test_a_binary_text_file_is_said_at_drop_in_the_build_s_own_words(home: Path) -> None:
    """An audit's binary.txt (random bytes) got no word until Build, while an empty .txt was said at once: said at
    drop too, in the message the build gives; left out beside a readable document, the build refused when it is
    the only file."""
    at = _drop(run_page("pages/data.py"), [("binary.txt", BINARY)])
    assert not at.exception, [e.value for e in at.exception]
    said = [plain(e.value) for e in at.error if LOOKS_BINARY in plain(e.value)]
    assert said and "the build cannot run: no file can be read" in said[0], [e.value for e in at.error]
    assert at.button(key=S.DATA_BUILD).disabled

    at = _drop(run_page("pages/data.py"), [("binary.txt", BINARY), ("Captains.txt", CAPTAINS)])
    assert not at.error, [e.value for e in at.error]
    warned = [plain(w.value) for w in at.warning if LOOKS_BINARY in plain(w.value)]
    assert warned and "The build will leave it out" in warned[0], [w.value for w in at.warning]
    assert not at.button(key=S.DATA_BUILD).disabled
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("captains")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s for s in at.success if "Built workspace" in s.value], [e.value for e in at.error]
    # the build says the same of it
    assert any(LOOKS_BINARY in plain(m.value) for m in [*at.warning, *at.caption, *at.markdown]), \
        [w.value for w in at.warning]


def test_the_suggested_workspace_name_is_one_file_s_stem_or_neutral(home: Path) -> None:
    """An audit's corpus of a JSONL and two PDFs was offered "Beatrix_Holloway", the first PDF's name: one file
    suggests its stem; several a stem they share, else "corpus" ("corpus-2" when taken)."""
    from types import SimpleNamespace

    from components.data_view import NEUTRAL_NAME, _suggest_name

    def files(*names: str) -> list:
        return [SimpleNamespace(name=n) for n in names]

    assert _suggest_name(files("Beatrix_Holloway.pdf")) == "Beatrix_Holloway"
    assert _suggest_name(files("Beatrix_Holloway.pdf"), {"Beatrix_Holloway"}) == "Beatrix_Holloway-2"
    audit = files("passages.jsonl", "Beatrix_Holloway.pdf", "Marram_Bee_Station.pdf")
    assert _suggest_name(audit) == NEUTRAL_NAME == "corpus"
    assert _suggest_name(audit, {"corpus"}) == "corpus-2" and _suggest_name(audit, {"corpus", "corpus-2"}) == "corpus-3"
    assert _suggest_name(files("apiary_part1.jsonl", "apiary_part2.jsonl")) == "apiary_part"
    assert _suggest_name(files("Marram_Bee_Station.pdf", "Marram_Bee_Hives.md")) == "Marram_Bee"
    assert _suggest_name(files("Marram_Bee_Station.pdf", "Marram_Bee_Hives.md"), {"Marram_Bee"}) == "Marram_Bee-2"
    assert _suggest_name(files("report.pdf", "reports.pdf")) == "corpus"  # "report" is not a whole word of both
    assert _suggest_name(files("ab1.txt", "ab2.txt")) == "corpus"  # too short to name a corpus
    assert _suggest_name(files("notes.md", "notes.pdf")) == "notes"
    assert _suggest_name([]) == ""
    # the page: the name box's placeholder, and the build takes it when the box is left empty
    at = _drop(run_page("pages/data.py"), [("Tessany_Ferry_Company.txt", COMPANY), ("Captains.txt", CAPTAINS)])
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).placeholder == "corpus"
    at = _drop(run_page("pages/data.py"), [("Tessany_Ferry_Company.txt", COMPANY)])
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).placeholder == "Tessany_Ferry_Company"


def test_the_build_s_expected_time_is_said_before_the_click_and_a_long_one_on_the_button(
        home: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Audit 55 built a 2-MB one-line file (1,743 passages, 12 minutes on 2 cores) with nothing said before the
    click: the expected time is said under the files, and one over the ask-first limit is a warning and on the
    button itself."""
    at = _drop(run_page("pages/data.py"), [("Tessany_Ferry_Company.txt", COMPANY), ("Captains.txt", CAPTAINS)])
    assert not at.exception, [e.value for e in at.exception]
    said = [plain(c.value) for c in at.caption if "Expected build time: about" in c.value]
    assert said and "2 passages (" in said[0] and "whose triples spaCy extracts first" in said[0], said
    assert at.button(key=S.DATA_BUILD).label == "Build workspace"
    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")  # every estimated build counts as long
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    long = [plain(w.value) for w in at.warning if "This build is expected to take" in w.value]
    assert long and "runs in the background" in long[0] and "Cancel" in long[0], [w.value for w in at.warning]
    assert at.button(key=S.DATA_BUILD).label.startswith("Build workspace (about ")


def test_text_that_is_no_prose_is_named_before_the_build(home: Path) -> None:
    """Audit 57 built a 2-MB file of "word word …" for 7½ minutes into a workspace with no node, the Data page having
    said only how long it would take: a text of a few repeated words, or without one capitalised word, is named before
    the click (the KG extractor reads entities by their names); prose is not."""
    from core.index.estimate import prose_note

    at = _drop(run_page("pages/data.py"), [("hugeline.txt", b"word " * 3000)])
    assert not at.exception, [e.value for e in at.exception]
    said = [plain(w.value) for w in at.warning if "reads as no prose" in w.value]
    # (its passages' titles, "Hugeline", are words of the text too)
    assert said and re.search(r"repeats a few words \([12] distinct in its first 3,0\d\d\)", said[0]), said
    at = _drop(run_page("pages/data.py"), [("Tessany_Ferry_Company.txt", COMPANY), ("Captains.txt", CAPTAINS)])
    assert not [w for w in at.warning if "no prose" in w.value]
    # lower case throughout: no names to find
    syllables = ("ba", "ko", "mi", "ru", "se", "ta", "lo", "ne", "fi", "du", "ga", "po", "vi", "ze", "hu")
    lower = " ".join(a + b for a in syllables for b in syllables)  # 225 words, none twice, none capitalised
    assert "no capitalised word" in prose_note([lower])
    assert prose_note([COMPANY.decode()]) == ""


def test_a_graph_built_from_text_that_is_no_prose_says_what_its_nodes_are() -> None:
    """Audit 58: the note before the build said "likely no nodes", the build made 6,586 ("glass river river word …")
    and said nothing: the note before says nodes may be runs of the words, and the build's warning says they are."""
    from types import SimpleNamespace

    from core.index.estimate import built_prose_note, prose_note

    words = ("word river glass " * 1000).split()
    assert "runs of these words" in prose_note([" ".join(words)]) and "likely have no nodes" not in prose_note([" ".join(words)])
    chunks = [SimpleNamespace(passage=" ".join(words[i:i + 300])) for i in range(0, 3000, 300)]
    said = built_prose_note(SimpleNamespace(chunks=chunks, n_nodes=6586, n_edges=120))  # type: ignore[arg-type]
    assert said.startswith("The text repeats a few words (3 distinct in its first 3,000)") and "6,586 nodes" in said, said
    assert built_prose_note(SimpleNamespace(chunks=[SimpleNamespace(passage=COMPANY.decode())], n_nodes=9,
                                            n_edges=8)) == ""  # type: ignore[arg-type]
