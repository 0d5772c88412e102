"""The questions file on the Data page: its format is told where it is uploaded (the uploader's help and a folded
"Questions file format" whose example really matches the document it names), and a questions file that cannot be
built from turns the Build button off with the reason beside it (an audit clicked it and nothing happened)."""

from __future__ import annotations

import json
from pathlib import Path

from components import state as S
from tests.app.helpers import plain, run_page

CSV = b"head,relation,tail\nThe Matrix,starring,Keanu Reeves\n"


def test_the_questions_uploader_tells_its_format_with_an_example(home: Path) -> None:
    at = run_page("pages/data.py")
    up = at.file_uploader(key=S.DATA_QUESTIONS)
    for key in ("supporting_facts", "paragraphs", "ground_truth", "title"):
        assert key in up.help, up.help
    fold = [e for e in at.expander if e.label == "Questions file format"]
    assert len(fold) == 1
    said = " ".join(" ".join(plain(m.value) for m in fold[0].markdown).split())  # as rendered: a line break is a space
    for told in ("supporting_facts", "paragraphs", "is_supporting", "ground_truth", "answer", "BEIR",
                 "with `_` turned into spaces", "first heading", "case is ignored"):
        assert told in said, told
    codes = fold[0].code
    assert len(codes) == 1 and codes[0].language == "json"
    assert isinstance(json.loads(codes[0].value), list)


def test_the_example_s_gold_title_matches_the_document_it_names(tmp_path: Path) -> None:
    """What the format note says of titles is what the readers do: its example's gold title is the title of the
    passage of Ostra_River.txt (its file name, "_" turned into a space)."""
    from components.questions_format import EXAMPLE, FORMAT_TEXT
    from core.graph.formats.documents import document_passages
    from core.graph.graph_builder import GraphBuilder
    from core.index.questions import parse_questions

    assert "Ostra_River.txt" in FORMAT_TEXT
    doc = tmp_path / "Ostra_River.txt"
    doc.write_text("The bridge over the Ostra River was built in 1866 to a design by Sofia Marrow.")
    builder = GraphBuilder()
    for cid, title, text in document_passages(doc)[0]:
        builder.add_chunk(title, text, chunk_id=cid)
    g = builder.build(allow_empty=True)
    assert [c.title for c in g.chunks] == ["Ostra River"]
    qs = parse_questions(json.loads(EXAMPLE), g)
    assert [(q.gold_chunks, q.unmatched) for q in qs] == [(("Ostra_River",), ())]
    # a title that differs in case only is matched (the note says case is ignored), one with other punctuation not
    other = parse_questions([{"question": "?", "ground_truth": ["ostra river"]}], g)
    assert other[0].gold_chunks == ("Ostra_River",) and not other[0].unmatched
    other = parse_questions([{"question": "?", "ground_truth": ["Ostra-River"]}], g)
    assert other[0].unmatched == ("Ostra-River",) and not other[0].gold_chunks
    assert "case is ignored" in FORMAT_TEXT and "“Ostra River II”" in FORMAT_TEXT


def test_a_malformed_questions_file_turns_build_off_and_says_why_beside_it(home: Path) -> None:
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("t.csv", CSV, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("mine")
    at.run()
    assert not at.button(key=S.DATA_BUILD).disabled  # good files: Build is on
    at.file_uploader(key=S.DATA_QUESTIONS).set_value(("bad_questions.json", b'[{"question": "x"\n "id": 1}]',
                                                      "application/json"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("bad_questions.json, line 2: invalid JSON"), errors
    button = at.button(key=S.DATA_BUILD)
    assert button.disabled
    assert "bad_questions.json, line 2: invalid JSON" in plain(button.help), button.help
    beside = [plain(c.value) for c in at.caption if "Nothing can be built until" in c.value]
    assert len(beside) == 1 and "bad_questions.json, line 2: invalid JSON" in beside[0], beside
    assert S.DATA_UPLOAD_JOB not in at.session_state and not (home / "workspaces" / "mine").exists()

    at.file_uploader(key=S.DATA_QUESTIONS).set_value(None)  # the bad file removed: Build is on again
    at.run()
    assert not at.button(key=S.DATA_BUILD).disabled
    assert not [c for c in at.caption if "Nothing can be built until" in c.value]
