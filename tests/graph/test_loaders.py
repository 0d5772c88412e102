from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from core.errors import EmptyGraphError, InputFormatError
from core.graph.chunking import chunk_text
from core.graph.formats.load import load_inputs
from core.graph.formats.registry import detect_format
from tests.conftest import MUSIQUE, SHARED_DATA


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# ----------------------------------------------------------------------------- good inputs
def test_triples_csv_with_header_and_source_column(tmp_path):
    corpus = write(tmp_path, "corpus.json", json.dumps([{"id": "m", "title": "The Matrix", "text": "Keanu."}]))
    p = write(tmp_path, "t.csv", "subject,predicate,object,chunk_id\nThe Matrix,starring,Keanu Reeves,m\n"
                                 '"Reeves, Keanu",born in,Beirut,\n')
    g = load_inputs([p, corpus]).graph
    assert g.n_edges == 2 and g.n_chunks == 1
    e = g.edge_relation.index("starring")
    assert g.edge_chunks[e] == ("m",)
    assert g.edge_text(e) == "The Matrix starring Keanu Reeves"
    assert "Reeves, Keanu" in g.node_names


def test_headerless_tsv_and_json_and_jsonl_agree(tmp_path):
    rows = [("a", "r1", "b"), ("b", "r2", "c")]
    tsv = write(tmp_path, "t.tsv", "\n".join("\t".join(r) for r in rows) + "\n")
    js = write(tmp_path, "t.json", json.dumps([list(r) for r in rows]))
    jsl = write(tmp_path, "t.jsonl", "\n".join(json.dumps({"head": h, "relation": r, "tail": t}) for h, r, t in rows))
    gz = write(tmp_path, "t.csv.gz", gzip.compress(b"head,relation,tail\na,r1,b\nb,r2,c\n"))
    dicts = [load_inputs([p]).graph.to_dict() for p in (tsv, js, jsl, gz)]
    assert all(d["edges"] == dicts[0]["edges"] for d in dicts)


def test_unknown_source_chunk_becomes_placeholder_so_provenance_is_kept(tmp_path):
    p = write(tmp_path, "t.csv", "head,relation,tail,source\na,r,b,doc7\n")
    g = load_inputs([p]).graph
    assert g.edge_chunks[0] == ("doc7",) and g.chunk("doc7").text == ""


def _titled_corpus(tmp_path: Path, titles: list[str], **extra: str) -> Path:
    recs = [{"title": t, "text": f"{t} wrote passage {i}.", **({"id": extra[t]} if t in extra else {})}
            for i, t in enumerate(titles)]
    return write(tmp_path, "corpus.json", json.dumps(recs))


def test_a_source_naming_a_passage_by_title_links_to_it_when_the_corpus_has_no_ids(tmp_path):
    """Before: every such source became an empty stand-in and the made-up ids corpus:0... were never named."""
    corpus = _titled_corpus(tmp_path, ["Orvella Quinn", "Bram Tesk", "Lioma Vey"])
    triples = write(tmp_path, "t.csv", "head,relation,tail,source\nOrvella,met,Bram,Orvella Quinn\n"
                    "Orvella,likes,tea,Orvella Quinn\nBram,knows,Lioma,  bram   TESK \n")
    loaded = load_inputs([corpus, triples])
    g = loaded.graph
    assert [c for e in range(g.n_edges) for c in g.edge_chunks[e]] == ["corpus:0", "corpus:0", "corpus:1"]
    assert all(c.text for c in g.chunks)  # no stand-in passage
    assert set(g.node_chunks[g.node_ids.index("orvella")]) == {"corpus:0"}
    linked = [w for w in loaded.warnings if "by title" in w]
    assert len(linked) == 1 and linked[0].startswith("3 triples name their passage by title")
    assert "'Orvella Quinn' → 'corpus:0'" in linked[0] and "→ 'corpus:1'" in linked[0]
    assert len(loaded.warnings) == 1


def test_a_source_naming_no_passage_says_which_ids_a_corpus_without_ids_was_numbered_with(tmp_path):
    corpus = _titled_corpus(tmp_path, ["Orvella Quinn", "Bram Tesk", "Lioma Vey"])
    triples = write(tmp_path, "t.csv", "head,relation,tail,source\nOrvella,met,Bram,Nobody Known\n")
    loaded = load_inputs([corpus, triples])
    assert [c.id for c in loaded.graph.chunks if not c.text] == ["Nobody Known"]
    (w,) = loaded.warnings
    assert "('Nobody Known') name no passage of the corpus" in w
    assert "corpus.json's passages have no 'id' field; they were numbered corpus:0…corpus:2" in w
    part = _titled_corpus(tmp_path, ["A", "B", "C"], B="b-id")  # only the passages without an id are numbered
    (w,) = load_inputs([part, triples]).warnings
    assert "2 of corpus.json's 3 passages have no 'id' field; they were numbered corpus:0…corpus:2" in w
    ids = _titled_corpus(tmp_path, ["A", "B"], A="a", B="b")
    (w,) = load_inputs([ids, triples]).warnings
    assert "numbered" not in w and "Check the ids against the corpus's passage ids" in w


def test_a_title_several_passages_share_stays_unlinked_and_the_warning_names_them(tmp_path):
    corpus = _titled_corpus(tmp_path, ["Orvella Quinn", "Bram Tesk", "orvella  quinn"])
    triples = write(tmp_path, "t.csv", "head,relation,tail,source\nA,r,B,ORVELLA QUINN\nC,r,D,Bram Tesk\n")
    loaded = load_inputs([corpus, triples])
    g = loaded.graph
    assert g.edge_chunks == (("ORVELLA QUINN",), ("corpus:1",)) and g.chunk("ORVELLA QUINN").text == ""
    stand_in = next(w for w in loaded.warnings if "stand-in" in w)
    assert "1 of them is a title that several passages share, so not linked by title: " \
           "'ORVELLA QUINN' (passages 'corpus:0', 'corpus:2')" in stand_in
    assert any(w.startswith("1 triple names its passage by title") for w in loaded.warnings)
    exact = write(tmp_path, "t2.csv", "head,relation,tail,source\nA,r,B,Orvella Quinn\n")  # exact title first
    assert load_inputs([corpus, exact]).graph.edge_chunks == (("corpus:0",),)


def test_a_passage_id_is_preferred_over_a_title_and_a_split_passage_counts_once(tmp_path):
    corpus = _titled_corpus(tmp_path, ["p2", "Long", "Other"], p2="p1", Long="p2", Other="p3")
    triples = write(tmp_path, "t.csv", "head,relation,tail,source\nA,r,B,p2\nC,r,D,p1\n")
    loaded = load_inputs([corpus, triples])
    assert loaded.graph.edge_chunks == (("p2",), ("p1",)) and not loaded.warnings
    long_ = write(tmp_path, "long.json", json.dumps([{"id": "L", "title": "Saga", "text": "word " * 2000}]))
    saga = write(tmp_path, "t3.csv", "head,relation,tail,source\nA,r,B,saga\n")
    g = load_inputs([long_, saga]).graph
    assert g.n_chunks > 1 and g.edge_chunks == (("L",),)  # its first chunk, as gold evidence matches it


def test_text_documents_are_chunked_with_markdown_title(tmp_path):
    body = "# Lothair II\n\n" + "\n\n".join(f"Paragraph {i} about the king of Lotharingia." * 8 for i in range(6))
    md = write(tmp_path, "lothair.md", body)
    g = load_inputs([md]).graph
    assert g.n_chunks > 1 and all(c.title == "Lothair II" for c in g.chunks)
    assert all(len(c.text) <= 1200 for c in g.chunks)
    assert g.chunks[0].id == "lothair#0"


def test_chunk_text_keeps_every_word_in_order():
    text = "First para. It has two sentences.\n\n" + ("A long sentence with many words " * 80) + ".\n\nEnd."
    chunks = chunk_text(text, max_chars=200)
    assert all(len(c) <= 200 for c in chunks)
    assert " ".join(chunks).split() == text.split()


def test_graphml_round_trip(tmp_path, matrix_graph):
    import networkx as nx

    p = tmp_path / "m.graphml"
    nx.write_graphml(matrix_graph.to_networkx(), p)
    g = load_inputs([p]).graph
    assert sorted(g.edge_texts) == sorted(matrix_graph.edge_texts)
    assert g.chunk("matrix") is not None


def test_corpus_graph_nodes_and_edges(tmp_path):
    nodes = write(tmp_path, "nodes.jsonl", "\n".join(json.dumps(r) for r in [
        {"id": "p1", "title": "Paper 1", "text": "GRanker smooths features."},
        {"id": "p2", "title": "Paper 2", "text": "STeX expands the graph."},
        {"id": "p3", "text": "Untitled passage."}]))
    edges = write(tmp_path, "edges.csv", "source,target\np1,p2\np2,p3\n")
    g = load_inputs([edges, nodes]).graph
    assert g.kind == "corpus_graph" and g.n_nodes == 3 and g.n_edges == 2 and g.n_chunks == 3
    assert g.edge_relation == ("references", "references")
    assert g.node_chunks[g.node("p1")] == ("p1",)


def test_a_nodes_file_without_edges_is_a_corpus_and_recorded_as_one(tmp_path):
    """{id, title, text} lines alone are passages: read as a corpus and named so in the file list and manifest (an
    audit's own corpus with ids was recorded as "corpus nodes", a corpus graph's half)."""
    nodes = write(tmp_path, "cheese.jsonl", "\n".join(json.dumps(r) for r in [
        {"id": "c01", "title": "Hollowmere Creamery", "text": "Hollowmere Creamery makes cheese."},
        {"id": "c02", "title": "Duskfield Foods", "text": "Duskfield Foods bought Hollowmere Creamery."}]))
    loaded = load_inputs([nodes])
    assert loaded.graph.kind == "kg" and loaded.graph.n_chunks == 2 and loaded.graph.chunk("c01") is not None
    assert loaded.formats == {str(nodes): "corpus"} and [f.format for f in loaded.files] == ["corpus"]


def test_egx_export_reloads(tmp_path, lothair_graph):
    p = write(tmp_path, "g.json", json.dumps(lothair_graph.to_dict()))
    assert detect_format(p) == "egx_graph"
    assert load_inputs([p]).graph.to_dict() == lothair_graph.to_dict()


# ----------------------------------------------------------------------------- real data
def test_hipporag_musique_corpus_plus_openie():
    lg = load_inputs([MUSIQUE / "musique_train_corpus.json",
                      MUSIQUE / "openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json"])
    g = lg.graph
    s = g.stats()
    # SOURCE.md / DESIGN.md: 1,890 passages, ~16.2k entities, ~16.5k linked pairs, mean degree ~2
    assert s["chunks"] == 1890
    assert 16_000 < s["nodes"] < 16_500
    assert 16_400 < s["linked_pairs"] < 16_600
    assert s["hub"] == "United States"
    assert lg.warnings == ["openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json: "
                           "skipped 185 malformed triples (not exactly three non-empty strings)."]
    # provenance: every edge points at a real corpus passage
    assert all(e and all(not c.startswith("openie") for c in e) for e in g.edge_chunks)
    e = g.edge_texts.index("Journal of Mathematical Physics published by American Institute of Physics")
    assert g.chunk(g.edge_chunks[e][0]).title == "Journal of Mathematical Physics"


def test_hipporag_sample_format():
    d = SHARED_DATA / "hipporag_sample"
    g = load_inputs([d / "sample_corpus.json"]).graph
    assert g.n_chunks > 0 and g.n_edges == 0


def test_named_kg_umls_folder():
    g = load_inputs([SHARED_DATA / "umls_named"]).graph
    assert g.n_nodes == 135
    assert g.n_edges == 5216 + 652 + 661  # train + dev + test: the whole KG
    assert "idea or concept" in g.node_names
    assert detect_format(SHARED_DATA / "umls_named") == "named_kg"


def test_named_kg_fb15k_dev_keeps_distinct_entities_with_the_same_name(tmp_path):
    src = SHARED_DATA / "fb15k237_named"
    for name in ("kgbert_entity2text.txt", "kgbert_relation2text.txt", "kgbert_dev.tsv"):
        (tmp_path / name).write_bytes((src / name).read_bytes())
    g = load_inputs([tmp_path]).graph
    assert g.n_edges == 17535
    assert all(i.startswith("/m/") for i in g.node_ids)
    assert len(set(g.node_names)) < g.n_nodes or len(set(g.node_ids)) == g.n_nodes


# ----------------------------------------------------------------------------- bad inputs
BAD_CASES = [
    ("t.csv", "head,relation,tail\na,r,b\nc,d\n", "t.csv, line 3: found 2 columns but the first row has 3. "
     "Expected 3 columns (head, relation, tail) or 4 (head, relation, tail, source chunk)."),
    ("t.csv", "a,b\n", "t.csv, line 1: found 2 columns. Expected 3 columns (head, relation, tail) or 4 "
     "(head, relation, tail, source chunk)."),
    ("t.csv", "head,relation,tail\na,,b\n", "t.csv, line 2: the relation is empty. "
     "Expected a non-empty head, relation and tail."),
    ("t.csv", "", "t.csv: the file is empty. Expected 3 columns (head, relation, tail) or 4 (head, relation, tail, source chunk)."),
    ("t.json", '[["a", "r", "b"], ["a", "r"]]', "t.json, record 2: a triple list has 2 items. Expected [head, relation, tail]."),
    ("t.json", '{"a": 1}', "t.json: cannot tell what this JSON holds. Expected a list of {title,text} passages, "
     "a list of triples, or a HippoRAG OpenIE file."),
    ("t.json", '[{"head": "a", "tail": "b"}]', "t.json, record 1: the object has no 'relation' field (keys: ['head', 'tail']). "
     'Expected objects with "head", "relation", "tail" (and optional "source").'),
    # an empty .json read "line 1: invalid JSON (Expecting value, column 1)", which did not say it was empty
    ("t.json", "", "t.json: the file is empty. Expected valid JSON."),
    ("t.json", " \n\n ", "t.json: the file is empty. Expected valid JSON."),
    ("t.jsonl", "", "t.jsonl: the file is empty. Expected one JSON object per line."),
    ("d.pdf", b"", "d.pdf: the document is empty. Expected some text."),
    ("d.docx", b"", "d.docx: the document is empty. Expected some text."),
    # a file cut off: json names only where it ended (an audit read "line 2, column 1" of a one-line file)
    ("t.json", '[["a", "r", "b"],', "t.json, line 1: the JSON ends before it is complete, as if the file were cut off "
     "(Expecting value, column 18). Expected valid JSON."),
    ("t.json", '[["a", "r", "b"],\n ["c", "r',
     "t.json, line 2: invalid JSON (Unterminated string starting at line 2, column 8). Expected valid JSON."),
    ("t.jsonl", '{"head": "a", "relation": "r", "tail": "b"}\n{broken\n',
     "t.jsonl, line 2: invalid JSON (Expecting property name enclosed in double quotes, column 2). "
     "Expected one JSON object per line."),
    # a streamed line keeps its ending: an error at the line's end read "column 1" (json's "line 2, column 1")
    ("t.jsonl", '{"title": "A", "text": "ok"}\n{"title": "Broken", "text": "oops"\n',
     "t.jsonl, line 2: invalid JSON (Expecting ',' delimiter, column 35). Expected one JSON object per line."),
    ("t.jsonl", '{"title": "A", "text": "ok"}\r\n{"title": "Broken" "text": "oops"}\r\n',
     "t.jsonl, line 2: invalid JSON (Expecting ',' delimiter, column 20). Expected one JSON object per line."),
    ("c.json", '[{"title": "x", "text": "ok"}, {"title": "y"}]',
     "c.json, record 2: the passage has no \"text\" string (keys: ['title']). Expected {\"title\": ..., \"text\": ...}."),
    ("c.json", '[{"title": 5, "text": "ok"}]', 'c.json, record 1: "title" is a int. Expected a string title.'),
    ("o.json", '{"docs": [{"passage": "x"}]}', 'o.json, record 1: a doc has no "extracted_triples". '
     'Expected {"passage": ..., "extracted_triples": [[s, p, o], ...]}.'),
    ("g.graphml", "<graphml><graph><node", "g.graphml: not readable as GraphML"),
    ("d.md", "   \n", "d.md: the document is empty. Expected some text."),
    ("x.xlsx", "PK", "x.xlsx: unsupported file type '.xlsx'. Expected .csv/.tsv/.json/.jsonl triples, .graphml, "
     "documents (.txt, .md, .pdf, .html, .docx), JSON(L) corpora, a HippoRAG OpenIE file, or a named-KG folder."),
    ("bin.csv", b"\x00\x01\x02", "bin.csv, line 1: the file looks binary (it contains NUL bytes). Expected a UTF-8 text file."),
    ("latin.csv", "h,r,t\ncaf\xe9,r,b\n".encode("latin-1"), "latin.csv, line 2: byte 9 is not valid UTF-8. Expected UTF-8 encoded text (re-save the file as UTF-8)."),
    ("q.json", '[{"question": "Who?", "answer": "x"}]', 'q.json: this looks like a questions file (its records have '
     'a "question"), not a graph or corpus. Expected graph or corpus files here, and the questions given separately: '
     "egx index ... --questions FILE."),
    ("q.jsonl", '{"question": "Who?", "answer": "x"}\n', 'q.jsonl: this looks like a questions file (its records '
     'have a "question"), not a graph or corpus. Expected graph or corpus files here, and the questions given '
     "separately (as one JSON list of question objects): egx index ... --questions FILE."),
    ("bad.csv.gz", b"\x1f\x8bnot really gzip", "bad.csv.gz: the gzip data is corrupt"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_CASES, ids=[c[2][:40] for c in BAD_CASES])
def test_bad_input_messages_are_pinned(tmp_path, name, content, message):
    p = write(tmp_path, name, content)
    with pytest.raises(InputFormatError, match=re.escape(message)):
        load_inputs([p])


# ----------------------------------------------------------------------------- a questions file among the inputs
QUESTION = {"id": "q1", "question": "Who played Neo?", "answer": "Keanu Reeves",
            "paragraphs": [{"title": "The Matrix", "paragraph_text": "Keanu Reeves plays Neo.", "is_supporting": True}]}


@pytest.mark.parametrize(("name", "content"), [
    ("questions.json", json.dumps([QUESTION, QUESTION])),
    ("questions.json", "\ufeff  [\n " + json.dumps(QUESTION) + ",\n"),  # a BOM; the list cut short after one record
    ("questions.jsonl", json.dumps(QUESTION) + "\n" + json.dumps(QUESTION) + "\n"),
    ("questions.json.gz", gzip.compress(json.dumps([QUESTION]).encode())),
    ("Q.JSON", json.dumps([{"Question": "Who?"}])),  # keys are matched as the loader matches them, any case
])
def test_a_questions_file_is_refused_before_a_build_from_its_start(tmp_path, name, content):
    from core.graph.formats.load import refuse_questions_files
    from core.graph.formats.sniff import looks_like_questions

    q = write(tmp_path, name, content)
    good = write(tmp_path, "t.csv", "head,relation,tail\na,r,b\n")
    assert looks_like_questions(q)
    with pytest.raises(InputFormatError, match=re.escape(f"{name}: this looks like a questions file")) as info:
        refuse_questions_files([good, q])
    app = info.value.in_app()
    assert app.startswith(f"{name} looks like a questions file") and "drop it on the “Questions with gold evidence” uploader" in app
    assert "egx" not in app and ("as one JSON list" in app) == name.endswith(".jsonl")


def test_questions_sniffing_reads_only_the_start_and_never_refuses_a_graph(tmp_path):
    """Graphs, corpora and OpenIE files pass; so does a questions file whose first record is longer than the
    head that is read (the loader, which parses the file whole, still refuses it)."""
    from core.graph.formats import sniff
    from core.graph.formats.load import refuse_questions_files

    corpus = write(tmp_path, "corpus.jsonl", json.dumps({"title": "x", "text": "the question is"}) + "\n")
    kinds = [write(tmp_path, "c.json", json.dumps([{"title": "Question", "text": "question?"}])), corpus,
             write(tmp_path, "t.json", json.dumps([["question", "r", "b"]])),
             write(tmp_path, "o.json", json.dumps({"docs": [{"question": "x"}]})),
             write(tmp_path, "t.csv", "question,relation,tail\na,r,b\n"),
             write(tmp_path, "bad.json.gz", b"\x1f\x8bnot gzip"), write(tmp_path, "e.json", "")]
    refuse_questions_files(kinds)
    assert not any(sniff.looks_like_questions(p) for p in kinds)
    long = write(tmp_path, "long.json", json.dumps([{"question": "x" * sniff.HEAD_BYTES}]))
    assert not sniff.looks_like_questions(long)
    with pytest.raises(InputFormatError, match="looks like a questions file"):
        load_inputs([long])


def test_corpus_graph_edge_to_unknown_node(tmp_path):
    nodes = write(tmp_path, "nodes.jsonl", json.dumps({"id": "p1", "text": "x"}))
    edges = write(tmp_path, "edges.csv", "source,target\np1,p9\n")
    with pytest.raises(InputFormatError, match=re.escape(
            "edges.csv, line 2: node id 'p9' is not in nodes.jsonl. Expected edges between node ids defined in the nodes file.")):
        load_inputs([nodes, edges])


def test_corpus_graph_edges_without_nodes(tmp_path):
    edges = write(tmp_path, "edges.csv", "source,target\np1,p9\n")
    with pytest.raises(InputFormatError, match="needs exactly one nodes file"):
        load_inputs([edges])


def test_named_kg_entity_without_name(tmp_path):
    write(tmp_path, "entity2text.txt", "e1\tOne\n")
    write(tmp_path, "train.tsv", "e1\tr\te2\n")
    with pytest.raises(InputFormatError, match=re.escape("train.tsv, line 1: entity 'e2' has no name in entity2text.txt")):
        load_inputs([tmp_path])


def test_missing_file_and_no_inputs(tmp_path):
    with pytest.raises(InputFormatError, match="the file does not exist"):
        load_inputs([tmp_path / "nope.csv"])
    with pytest.raises(EmptyGraphError, match="No input files were given"):
        load_inputs([])


def test_second_file_error_names_that_file(tmp_path):
    good = write(tmp_path, "good.csv", "head,relation,tail\na,r,b\n")
    bad = write(tmp_path, "bad.csv", "head,relation,tail\na,r\n")
    with pytest.raises(InputFormatError, match=r"^bad\.csv, line 2"):
        load_inputs([good, bad])


def test_empty_documents_beside_a_readable_file_are_left_out_and_named(tmp_path):
    """The Data page warns that an empty document "will be left out" of a build with other files: the load does so,
    for a file of no bytes as for one of blank lines, and names each with why."""
    good = write(tmp_path, "good.txt", "Alice met Bob in Paris.")
    empty = [write(tmp_path, "empty.txt", ""), write(tmp_path, "blank.md", " \n\n"), write(tmp_path, "none.pdf", b"")]
    lg = load_inputs([good, *empty])
    assert lg.graph.n_chunks == 1
    assert {f.file: f.ok for f in lg.files} == {"good.txt": True, "empty.txt": False, "blank.md": False,
                                                "none.pdf": False}
    said = [w for w in lg.warnings if "could not be read and were left out" in w]
    assert said and all(f"{p.name}: the document is empty" in said[0] for p in empty), lg.warnings
