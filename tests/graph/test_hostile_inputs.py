"""Hostile inputs of low severity, each a test that failed on the code before it: numbers JSON cannot
hold, lone surrogates, terminal escapes, stand-in passages, pipes, UTF-16 GraphML."""

from __future__ import annotations

import json
import os
import threading

import pytest

from core.errors import InputFormatError
from core.graph.formats.load import load_inputs
from core.graph.graph_builder import GraphBuilder
from core.text import clean_text, safe_text


@pytest.mark.parametrize("doc, problem", [
    ('[{"head": "a", "relation": "r", "tail": %s}]' % ("1" * 5000), "a number has 5,000 digits"),
    ('[{"head": "a", "relation": "r", "tail": NaN}]', "the tail is NaN, not a name"),
    ('[{"head": -Infinity, "relation": "r", "tail": "b"}]', "the head is -Infinity, not a name"),
])
def test_numbers_that_are_no_name_are_refused_by_name(tmp_path, doc, problem):
    """Before: a 5,000-digit integer was a bare ValueError traceback, NaN/Infinity became entities nan/inf."""
    f = tmp_path / "t.json"
    f.write_text(doc)
    with pytest.raises(InputFormatError, match=problem):
        load_inputs([f])


def test_jsonl_lines_get_the_same_number_rules(tmp_path):
    f = tmp_path / "t.jsonl"
    f.write_text('{"head": "a", "relation": "r", "tail": "b"}\n{"head": "a", "relation": "r", "tail": %s}\n'
                 % ("9" * 200))
    with pytest.raises(InputFormatError, match=r"line 2: a number has 200 digits"):
        load_inputs([f])


def test_nan_in_openie_statistics_is_read_and_a_nan_entity_skipped(tmp_path):
    """HippoRAG's OpenIE files carry "avg_ent_chars": NaN (Python's json writes it): read; a NaN entity is not
    a name, so that triple is skipped like any malformed one."""
    f = tmp_path / "openie_x.json"
    f.write_text('{"docs": [{"idx": 0, "passage": "Alice met Bob.", "extracted_entities": ["Alice", "Bob"], '
                 '"extracted_triples": [["Alice", "met", "Bob"], ["Alice", "met", NaN]]}], "avg_ent_chars": NaN}')
    g = load_inputs([f]).graph
    assert sorted(g.node_names) == ["Alice", "Bob"]


def test_a_lone_surrogate_is_stored_as_a_replacement_character_and_the_graph_saves(tmp_path):
    """Before: "A\\ud800" loaded, then saving the workspace failed with UnicodeEncodeError."""
    f = tmp_path / "t.json"
    f.write_text('[{"head": "A\\ud800", "relation": "r", "tail": "b", "source": "c1"}]')
    c = tmp_path / "corpus.json"
    c.write_text('[{"id": "c1", "title": "T\\udc00", "text": "x \\ud83d\\ude00 y \\ud800"}]')
    g = load_inputs([f, c]).graph
    assert "A\ufffd" in g.node_names
    assert g.chunks[0].title == "T\ufffd" and g.chunks[0].text == "x \U0001F600 y \ufffd"  # a valid pair stays
    json.dumps(g.to_dict(), ensure_ascii=False).encode("utf-8")  # raised UnicodeEncodeError before


def test_terminal_escapes_and_control_characters_never_reach_names_or_passages(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text('head,relation,tail\n"\x1b[31mred\x1b[0m",r\x07,"b\x1b]0;pwned\x07"\n', encoding="utf-8")
    g = load_inputs([f]).graph
    assert sorted(g.node_names) == ["b", "red"] and list(g.edge_relation) == ["r"]
    assert safe_text("line 1\nline\t2\r\n") == "line 1\nline\t2\r\n"  # layout whitespace is kept
    assert clean_text("a\x00b\x9bc") == "abc"


def test_source_ids_naming_no_passage_are_kept_and_named_in_a_warning(tmp_path):
    """Before: the stand-in passages were created silently."""
    corpus = tmp_path / "corpus.json"
    corpus.write_text('[{"id": "p1", "title": "P", "text": "Alice met Bob."}]')
    triples = tmp_path / "t.csv"
    triples.write_text("head,relation,tail,source\nAlice,met,Bob,p1\nAlice,knows,Carol,p9\n")
    loaded = load_inputs([corpus, triples])
    assert [c.id for c in loaded.graph.chunks if not c.text] == ["p9"]
    assert any("1 source chunk id ('p9') name no passage of the corpus" in w for w in loaded.warnings)
    alone = load_inputs([triples])
    assert any("no corpus was loaded" in w and "'p1', 'p9'" in w for w in alone.warnings)
    assert not load_inputs([corpus]).warnings


def test_a_pipe_is_refused_at_once_instead_of_blocking(tmp_path):
    """Before: `egx index` on a FIFO waited forever for a writer."""
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    out: list[BaseException] = []

    def load() -> None:
        try:
            load_inputs([fifo])
        except InputFormatError as exc:
            out.append(exc)

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(30)  # a hang guard: the refusal needs no I/O at all
    assert not t.is_alive(), "load_inputs blocked on a FIFO"
    assert "not a regular file" in str(out[0])


def test_utf16_graphml_that_declares_its_encoding_loads(tmp_path):
    """Before: read as text, re-encoded as UTF-8, then parsed under its UTF-16 declaration and refused."""
    doc = ('<?xml version="1.0" encoding="UTF-16"?>\n'
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
           '<key id="r" for="edge" attr.name="relation" attr.type="string"/>'
           '<graph edgedefault="directed"><node id="Zoë"/><node id="b"/>'
           '<edge source="Zoë" target="b"><data key="r">knows</data></edge></graph></graphml>')
    f = tmp_path / "g.graphml"
    f.write_bytes(doc.encode("utf-16"))
    g = load_inputs([f]).graph
    assert sorted(g.node_names) == ["Zoë", "b"] and list(g.edge_relation) == ["knows"]


def test_builder_ids_are_safe_text_too():
    b = GraphBuilder()
    b.add_node("x", node_id="n\x1b[2J1")
    assert list(b.build().node_ids) == ["n1"]


def test_a_passage_longer_than_a_passage_is_split_before_anything_reads_it(tmp_path):
    """One 10 MB passage once went whole into spaCy and took the server past 4 GB. A passage over
    PASSAGE_SPLIT_CHARS becomes chunks of CHUNK_CHARS (every word kept, in order); shorter ones stay whole."""
    from core.graph.builder import EXTRACT_MAX_CHARS, _texts
    from core.graph.chunking import CHUNK_CHARS, PASSAGE_SPLIT_CHARS

    words = [f"w{i}" for i in range(40_000)]
    long_text = " ".join(words)
    short_text = "x " * (PASSAGE_SPLIT_CHARS // 2 - 2) + "end"  # just under the limit: kept whole
    f = tmp_path / "c.json"
    f.write_text(json.dumps([{"id": "big", "title": "T", "text": long_text}, {"id": "ok", "title": "S", "text": short_text}]))
    loaded = load_inputs([f])
    chunks = {c.id: c for c in loaded.graph.chunks}
    n_big = sum(1 for cid in chunks if cid.startswith("big"))
    big = [chunks["big"]] + [chunks[f"big#{k}"] for k in range(2, n_big + 1)]
    assert n_big > 200 and all(len(c.text) <= CHUNK_CHARS for c in big)
    assert " ".join(c.text for c in big).split() == words and {c.title for c in big} == {"T"}
    assert chunks["ok"].text == short_text.strip()
    assert len(loaded.warnings) == 1 and "1 passage longer than 4,800 characters was split" in loaded.warnings[0]
    assert "'big' (" in loaded.warnings[0]
    # and an extractor never reads more than EXTRACT_MAX_CHARS of any chunk (a corpus-graph node kept whole)
    b = GraphBuilder()
    b.add_chunk("N", "y " * EXTRACT_MAX_CHARS)
    assert len(_texts(b.build().chunks)[0]) == EXTRACT_MAX_CHARS
