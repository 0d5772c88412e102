"""Gold evidence matched to workspace chunks (MuSiQue paragraphs, supporting_facts titles)."""

from __future__ import annotations

import re

import pytest

from core.errors import InputFormatError
from core.index.questions import load_questions, parse_questions
from core.index.samples import ensure_sample_workspace


def test_musique_gold_passages_all_match(tmp_path):
    ws = ensure_sample_workspace("musique", None, root=tmp_path)  # graph only, no index
    qs = load_questions(ws)
    assert len(qs) == 100 and all(q.gold_chunks and not q.unmatched for q in qs)
    assert sum(len(q.gold_chunks) for q in qs) == 237
    q0 = qs[0]
    assert q0.id == "2hop__150763_14904" and all(ws.graph.chunk(c) for c in q0.gold_chunks)


def test_demo_supporting_facts_match_by_title(tmp_path):
    ws = ensure_sample_workspace("demo", None, root=tmp_path)
    qs = {q.id: q for q in load_questions(ws)}
    titles = {ws.graph.chunk(c).title for c in qs["matrix-villain"].gold_chunks}
    assert titles == {"The Matrix", "Agent Smith"} and qs["matrix-villain"].answer == "Hugo Weaving"


def test_unmatched_gold_is_kept_apart(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    qs = parse_questions([{"question": "q?", "supporting_facts": [["The Matrix", 0], ["Atlantis", 1]]}], g)
    assert qs[0].unmatched == ("Atlantis",) and len(qs[0].gold_chunks) == 1


def test_bad_question_files(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    with pytest.raises(InputFormatError, match=r"^q\.json: the top level is not a list\. Expected a JSON list"):
        parse_questions({"question": "x"}, g, source="q.json")
    with pytest.raises(InputFormatError, match=r'^q\.json, record 1: a record has neither "paragraphs", '
                                               r'"supporting_facts" nor "ground_truth"\. Expected \{"question"'):
        parse_questions([{"question": "x"}], g, source="q.json")
    # every gold form is named, not MuSiQue's alone (an audit wrote supporting_facts and was told "paragraphs")
    with pytest.raises(InputFormatError) as no_question:
        parse_questions([{"title": "x", "supporting_facts": [["x", 0]]}], g, source="q.json")
    assert all(f in str(no_question.value) for f in ('"supporting_facts"', '"paragraphs"', '"ground_truth"'))


def test_2wiki_ground_truth_titles_without_answers(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    qs = parse_questions([{"_id": "w1", "question": "Who played the villain?", "ground_truth": ["The Matrix", "Atlantis"]},
                          {"id": "w2", "question": "q2", "ground_truth": [["Agent Smith", 0]], "answer": ["Hugo", "H. W."]}],
                         g)
    assert qs[0].id == "w1" and qs[0].answer == "" and qs[0].unmatched == ("Atlantis",)
    assert {g.chunk(c).title for c in qs[0].gold_chunks} == {"The Matrix"}
    assert qs[1].answer == "Hugo" and qs[1].aliases == ("H. W.",)
    with pytest.raises(InputFormatError, match=r'^q\.json, record 1: a "ground_truth" entry is not a title \(3\)'):
        parse_questions([{"question": "x", "ground_truth": [3]}], g, source="q.json")


def test_musique_answer_aliases_are_read(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    qs = parse_questions([{"question": "q", "answer": "Hugo Weaving", "answer_aliases": ["Hugo Wallace Weaving"],
                           "supporting_facts": [["The Matrix", 0]]}], g)
    assert qs[0].aliases == ("Hugo Wallace Weaving",)
    assert qs[0].answer_groups == (("Hugo Weaving", "Hugo Wallace Weaving"),)  # one gold answer, two forms


def test_an_answer_list_is_an_answer_set_and_aliases_stay_with_their_answer(tmp_path):
    """An ``answer`` list (ERQA's answer sets) holds one gold answer per item; aliases belong to the first."""
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    fact = {"supporting_facts": [["The Matrix", 0]]}
    (a, b) = parse_questions([{"question": "q", "answer": ["Keanu Reeves", "Carrie-Anne Moss"], **fact},
                              {"question": "q", "answer": ["Keanu Reeves"], "aliases": ["Keanu"], **fact}], g)
    assert a.answer_groups == (("Keanu Reeves",), ("Carrie-Anne Moss",))
    assert b.answer_groups == (("Keanu Reeves", "Keanu"),)


def _beir(tmp_path, qrels: str, queries: str):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text(qrels, encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(queries, encoding="utf-8")
    return tmp_path / "qrels" / "test.tsv"


def test_beir_qrels_by_chunk_id_and_title(tmp_path):
    from core.index.questions import load_questions_file

    g = ensure_sample_workspace("demo", None, root=tmp_path / "ws").graph
    cid = g.chunks[0].id
    path = _beir(tmp_path, f"query-id\tcorpus-id\tscore\nq1\t{cid}\t1\nq1\tAgent Smith\t2\nq1\tnope\t1\n"
                           f"q2\t{cid}\t0\nq3\t{cid}\t1\n",
                 '{"_id": "q1", "text": "Who?", "answers": ["Hugo Weaving", "Hugo"]}\n'
                 '{"_id": "q2", "text": "not relevant anywhere"}\n{"_id": "q3", "text": "Third"}\n')
    qs = load_questions_file(path, g)  # queries.jsonl found one folder up (BEIR layout)
    assert [q.id for q in qs] == ["q1", "q3"]
    q1 = qs[0]
    assert q1.gold_chunks[0] == cid and any(g.chunk(c).title == "Agent Smith" for c in q1.gold_chunks)
    assert q1.unmatched == ("nope",) and q1.answer == "Hugo Weaving" and q1.aliases == ("Hugo",)
    assert qs[1].answer == "" and qs[1].gold_chunks == (cid,)


def test_bad_beir_files(tmp_path):
    from core.index.questions import load_beir, load_questions_file

    g = ensure_sample_workspace("demo", None, root=tmp_path / "ws").graph
    path = _beir(tmp_path, "q1\tc1\tmany\n", '{"_id": "q1", "text": "x"}\n')
    with pytest.raises(InputFormatError, match=r"^test\.tsv, line 1: the score 'many' is not a number"):
        load_questions_file(path, g)
    (tmp_path / "bad.tsv").write_text("q1\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"^bad\.tsv, line 1: expected 3 tab-separated columns but found 1"):
        load_beir(tmp_path / "bad.tsv", tmp_path / "queries.jsonl", g)
    (tmp_path / "ok.tsv").write_text("q1\tc1\t1\n", encoding="utf-8")
    (tmp_path / "q.jsonl").write_text('{"_id": "q1"}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r'^q\.jsonl, line 1: a line has no "_id" and "text"'):
        load_beir(tmp_path / "ok.tsv", tmp_path / "q.jsonl", g)
    lone = tmp_path / "lone" / "deeper"
    lone.mkdir(parents=True)
    (lone / "x.tsv").write_text("q1\tc1\t1\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"^x\.tsv: a qrels TSV needs its queries file"):
        load_questions_file(lone / "x.tsv", g)


def test_questions_jsonl(tmp_path):
    from core.index.questions import load_questions_file

    g = ensure_sample_workspace("demo", None, root=tmp_path / "ws").graph
    p = tmp_path / "q.jsonl"
    p.write_text('{"question": "a", "supporting_facts": [["The Matrix", 0]]}\n\n{"question": "b", "ground_truth": []}\n',
                 encoding="utf-8")
    qs = load_questions_file(p, g)
    assert len(qs) == 2 and qs[1].gold_chunks == ()
    p.write_text('{"question": "a"\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"^q\.jsonl, line 1: invalid JSON"):
        load_questions_file(p, g)


@pytest.mark.parametrize(("records", "looks"), [
    ([{"title": "The Matrix", "text": "A 1999 film."}], 'a corpus (its records have "title", "text" and no "question")'),
    ([["The Matrix", "starring", "Keanu Reeves"]], "triples"),
])
def test_a_file_that_is_no_questions_file_is_refused_before_the_build(tmp_path, records, looks):
    """An audit dropped its corpus on the questions uploader: the workspace was built, and the error came after,
    naming questions.json (the workspace's copy), a file the user never had. It is refused before the build, by
    the user's own file name, with what it looks like and where it goes."""
    import json

    from core.index.create import create_workspace
    from core.index.questions import check_questions_file

    corpus = tmp_path / "mine.json"
    corpus.write_text(json.dumps(records))
    with pytest.raises(InputFormatError, match=rf"^mine\.json: this looks like {re.escape(looks)}, not a questions "
                                               r"file\. Expected a JSON list of questions .*egx index FILES --questions"):
        check_questions_file(corpus)
    with pytest.raises(InputFormatError) as info:
        create_workspace([corpus], tmp_path / "ws", questions=corpus)
    assert info.value.app_message and info.value.app_message.startswith(f"mine.json looks like {looks[:9]}")
    assert "“Graph or corpus files” uploader" in info.value.app_message
    assert not (tmp_path / "ws").exists()
    good = tmp_path / "q.json"  # a questions file passes, gold titles unmatched or not (they match at the build)
    good.write_text(json.dumps([{"question": "Who?", "supporting_facts": [["Nowhere", 0]]}]))
    check_questions_file(good)
    good.write_text(json.dumps([{"question": "Who?", "supporting_facts": [["Nowhere", 0]]}, {"title": "x"}]))
    with pytest.raises(InputFormatError, match=r'^q\.json, record 2: a record has no "question" string'):
        check_questions_file(good)


def _doc(title: str, texts: list[str]):  # a document split into passages, in document order
    from core.graph.model import Chunk
    from core.index.questions import ChunkTable

    return ChunkTable(tuple(Chunk(f"{title}#{i}", title, t) for i, t in enumerate(texts)))


def test_a_supporting_fact_names_the_passage_holding_its_sentence_in_a_split_document():
    """HotpotQA's ``[title, sentence_index]`` counts sentences across the titled document: in a document split into
    passages, the fact is the passage of that sentence (brute force: the k-th sentence of the joined text lies in the
    passage found), and an index past the end or no number falls back to the whole title, marked ``whole_titles``."""
    from core.text import split_sentences

    texts = ["Ada was born in Lisk. She studied at Carrow.", "In 1879 she founded a company.",
             "It designed the Kessel Viaduct. She died in 1920. She was buried at the harbour."]
    g = _doc("Ada", texts)
    sentences = split_sentences(" ".join(texts))
    for k, sentence in enumerate(sentences):
        (q,) = parse_questions([{"question": "?", "supporting_facts": [["Ada", k]]}], g)
        (cid,) = q.gold_chunks
        assert sentence in g.chunks[g.chunk_index[cid]].text and not q.whole_titles
        assert q.split_facts == (("Ada", k, int(cid.split("#")[1]) + 1, 3),)
    for bad in (len(sentences), -1, "two", None, True):
        (q,) = parse_questions([{"question": "?", "supporting_facts": [["Ada", bad]]}], g)
        assert q.gold_chunks == ("Ada#0", "Ada#1", "Ada#2") and q.whole_titles == ("Ada",) and not q.split_facts
    (q,) = parse_questions([{"question": "?", "supporting_facts": [["Ada"]]}], g)
    assert len(q.gold_chunks) == 3 and q.whole_titles == ("Ada",)
    one = _doc("Bo", ["Bo was born in Rome."])  # one passage: that passage, whatever the index
    (q,) = parse_questions([{"question": "?", "supporting_facts": [["Bo", 7]]}], one)
    assert q.gold_chunks == ("Bo#0",) and not q.whole_titles and not q.split_facts


def test_a_musique_paragraph_split_or_packed_when_read_still_finds_its_passages():
    """A supporting paragraph that is no passage's exact text is the run of passages it was split into, or the passage
    it was packed in; a paragraph that is neither stays unmatched (never counted as found)."""
    g = _doc("Ada", ["Ada was born in Lisk.", "She studied at Carrow.", "In 1879 she founded a company. It grew."])

    def gold(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        (q,) = parse_questions([{"question": "?", "paragraphs": [
            {"title": "Ada", "paragraph_text": text, "is_supporting": True}]}], g)
        return q.gold_chunks, q.unmatched

    assert gold("Ada was born in Lisk.\n She  studied at Carrow.") == (("Ada#0", "Ada#1"), ())
    assert gold("In 1879 she founded a company.") == (("Ada#2",), ())
    assert gold("She studied at Carrow. In 1879") == ((), ("Ada",))
    assert gold("Ada was born in Rome.") == ((), ("Ada",))
