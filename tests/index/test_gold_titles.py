"""Gold titles that match no passage are named with the questions naming them and the nearest title of the
workspace, after a build and before it (from the documents about to be built)."""

from __future__ import annotations

import json
from pathlib import Path

from core.graph.model import Chunk
from core.index.gold_titles import documents_unmatched_gold, nearest_title, unmatched_gold
from core.index.questions import ChunkTable, parse_questions

TITLES = ["Tessany Ferry Company", "Captains of the Tessany", "Ferries and Landings"]
TABLE = ChunkTable(tuple(Chunk(f"c{i}", t, f"{t} had a ferry. It sailed.") for i, t in enumerate(TITLES)))


def test_an_unmatched_title_is_named_with_its_questions_and_nearest_title() -> None:
    qs = parse_questions([{"id": "q1", "question": "a?", "supporting_facts": [["Tessany Ferry Company", 0]]},
                          {"id": "q2", "question": "b?", "supporting_facts": [["Tessany Ferry Co", 0]]},
                          {"id": "q3", "question": "c?", "supporting_facts": [["tessany ferry co", 0],
                                                                               ["Point Break", 0]]}], TABLE)
    gold = unmatched_gold(qs, TITLES)
    assert gold.total == 3
    assert [(u.title, u.questions, u.nearest) for u in gold.shown] == [
        ("Tessany Ferry Co", ("q2",), "Tessany Ferry Company"),
        ("tessany ferry co", ("q3",), "Tessany Ferry Company"),  # case ignored in the comparison
        ("Point Break", ("q3",), "")]  # nothing close: no guess


def test_only_the_first_titles_are_shown_but_all_are_counted() -> None:
    recs = [{"id": f"q{i}", "question": "?", "supporting_facts": [[f"Missing {i}", 0]]} for i in range(5)]
    gold = unmatched_gold(parse_questions(recs, TABLE), TITLES, limit=3)
    assert gold.total == 5 and [u.title for u in gold.shown] == ["Missing 0", "Missing 1", "Missing 2"]
    assert unmatched_gold(parse_questions(recs[:0], TABLE), TITLES).total == 0


def test_a_title_present_whose_paragraph_text_matches_nothing_offers_no_nearest() -> None:
    qs = parse_questions([{"id": "m1", "question": "?", "paragraphs": [
        {"title": "Ferries and Landings", "paragraph_text": "Some other text.", "is_supporting": True}]}], TABLE)
    (u,) = unmatched_gold(qs, TITLES).shown
    assert u.is_title and u.nearest == "" and u.questions == ("m1",)


def test_nearest_title_needs_a_close_one() -> None:
    assert nearest_title("Ferries & Landings", TITLES) == "Ferries and Landings"
    assert nearest_title("Zebra", TITLES) == ""


def test_documents_are_titled_as_the_build_titles_them(tmp_path: Path) -> None:
    (tmp_path / "Tessany_Ferry_Company.txt").write_text("Tessany Ferry Company\n\nIt was founded in 1871. It grew.")
    (tmp_path / "notes.txt").write_text("Hester Quill bought a steam ferry.\n\nShe sold it later.")  # no heading
    (tmp_path / "empty.txt").write_text("")  # left out by the build too
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"id": "u1", "question": "?", "supporting_facts": [["Tessany Ferry Co", 0]]},
                             {"id": "u2", "question": "?", "supporting_facts": [["Tessany Ferry Company", 1]]},
                             {"id": "u3", "question": "?", "supporting_facts": [["notes", 0]]},
                             {"id": "u4", "question": "?", "supporting_facts": [["Note", 0]]}]))
    docs = sorted(tmp_path.glob("*.txt"))
    gold = documents_unmatched_gold(docs, q)
    assert gold is not None and gold.total == 2
    assert [(u.title, u.questions, u.nearest) for u in gold.shown] == [
        ("Tessany Ferry Co", ("u1",), "Tessany Ferry Company"), ("Note", ("u4",), "Notes")]
    (tmp_path / "kg.csv").write_text("head,relation,tail\nA,b,C\n")  # titles only the build tells: no check
    assert documents_unmatched_gold([*docs, tmp_path / "kg.csv"], q) is None


def test_a_json_corpus_is_checked_before_its_build_too(tmp_path: Path) -> None:
    """A JSON(L) corpus (with ids or not) is titled by its reader: a gold title that matches none of its records is
    named at drop time, not first after the build (an audit's "Nowhere Dairy")."""
    rows = [{"id": "c01", "title": "Hollowmere Creamery", "text": "Hollowmere Creamery makes cheese."},
            {"id": "c02", "title": "Duskfield Foods", "text": "Duskfield Foods bought Hollowmere Creamery."}]
    lines = tmp_path / "cheese.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in rows))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps([{k: v for k, v in r.items() if k != "id"} for r in rows]))
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"id": "n1", "question": "Who founded it?", "supporting_facts": [["Nowhere Dairy", 0]]},
                             {"id": "n2", "question": "Who bought it?", "supporting_facts": [["Duskfield Food", 0]]},
                             {"id": "n3", "question": "What?", "supporting_facts": [["Hollowmere Creamery", 0]]}]))
    for corpus in (lines, plain):
        gold = documents_unmatched_gold([corpus], q)
        assert gold is not None and gold.total == 2, corpus.name
        assert [(u.title, u.questions, u.nearest) for u in gold.shown] == [
            ("Nowhere Dairy", ("n1",), ""), ("Duskfield Food", ("n2",), "Duskfield Foods")]


def test_a_document_titled_by_its_lower_case_file_name_is_capitalised_and_matched_whatever_the_case(
        tmp_path: Path) -> None:
    """Audit 56: a document without a heading was titled by its file name as written ("tobin ashgrove"), which the
    answers then showed ("He [tobin ashgrove] …"). A name all in lower case is capitalised as a heading would be;
    a gold title matches it whatever its case, so a questions file that wrote the old title still matches."""
    from core.graph.formats.documents import document_passages, name_title

    assert name_title(Path("tobin_ashgrove.txt")) == "Tobin Ashgrove"
    assert name_title(Path("history of the quarry.md")) == "History of the Quarry"
    assert name_title(Path("McAllister_notes.pdf")) == "McAllister notes"  # a capital: kept as written
    assert name_title(Path("2024-report.txt")) == "2024-report"
    assert name_title(Path("lothair_ii.pdf")) == "Lothair II" and name_title(Path("part_iv_of_x.txt")) == "Part IV of X"
    doc = tmp_path / "tobin_ashgrove.txt"
    doc.write_text("Tobin Ashgrove was born in Calmouth.\n\nHe worked at the Penrose Pit.")
    passages, _ = document_passages(doc, per_paragraph=True)
    assert {title for _, title, _ in passages} == {"Tobin Ashgrove"}
    table = ChunkTable(tuple(Chunk(cid, title, text) for cid, title, text in passages))
    for written in ("tobin ashgrove", "Tobin Ashgrove", "TOBIN ASHGROVE"):
        (q,) = parse_questions([{"id": "1", "question": "Where did he work?", "answer": "Penrose Pit",
                                 "ground_truth": [written]}], table)
        assert not q.unmatched and q.gold_chunks == ("tobin_ashgrove#1",), (written, q)
    # an exact title still wins over one that differs only in case
    both = ChunkTable((Chunk("a", "speed", "x"), Chunk("b", "Speed", "y")))
    (q,) = parse_questions([{"id": "1", "question": "?", "ground_truth": ["speed"]}], both)
    assert q.gold_chunks == ("a",)
