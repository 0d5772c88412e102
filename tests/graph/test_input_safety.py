"""Every input bounded, nothing accepted silently as garbage, messages that help.

Each bad input is pinned to its exact message (file, line or record, problem, what was expected).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits
from core.graph.formats.load import load_inputs
from core.graph.formats.textio import iter_lines, read_text
from core.graph.graph_builder import BadNameError, GraphBuilder, graph_from_dict


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def fails(tmp_path: Path, name: str, content: str | bytes, message: str, **kw: object) -> None:
    p = write(tmp_path, name, content)
    with pytest.raises(InputFormatError, match="^" + re.escape(message) + "$"):
        load_inputs([p], **kw)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- bounded input
def test_a_gzip_bomb_is_refused_by_its_ratio_before_parsing(tmp_path):
    p = tmp_path / "bomb.csv.gz"
    with gzip.open(p, "wb", compresslevel=9) as fh:
        for _ in range(40):
            fh.write(b"\n" * (1 << 20))
    size_kb = p.stat().st_size / 1024
    with pytest.raises(InputFormatError, match=re.escape(
            f"bomb.csv.gz: it decompresses to more than 17.0 MB from {size_kb:,.1f} KB (a compression ratio above "
            "100:1 — a gzip bomb, or extremely repetitive data). Expected real text, which compresses 3-10x (raise "
            "the limit with EGX_MAX_COMPRESSION_RATIO if this file is genuine).")):
        load_inputs([p])


def test_the_size_cap_applies_to_plain_and_gzip_files_and_is_configurable(tmp_path, monkeypatch):
    rows = "head,relation,tail\n" + "alpha,beta,gamma\n" * 80_000  # 1.3 MB
    plain = write(tmp_path, "t.csv", rows)
    gz = write(tmp_path, "t2.csv.gz", gzip.compress(rows.encode()))
    monkeypatch.setenv("EGX_MAX_INPUT_MB", "1")
    with pytest.raises(InputFormatError, match=re.escape(
            "t.csv: the file is 1.3 MB, over the input size limit of 1.0 MB. Expected a smaller file, or a higher "
            "limit: EGX_MAX_INPUT_MB=<megabytes>.")):
        load_inputs([plain])
    with pytest.raises(InputFormatError, match=re.escape(
            "t2.csv.gz: it decompresses to more than 1.0 MB (the input size limit). Expected a smaller file, or a "
            "higher limit: EGX_MAX_INPUT_MB=<megabytes>.")):
        load_inputs([gz])
    monkeypatch.setenv("EGX_MAX_INPUT_MB", "2")
    assert load_inputs([gz]).graph.n_edges == 1


def test_real_gzip_inputs_pass_the_ratio_check():
    from tests.conftest import SAMPLE_DATA

    lg = load_inputs([SAMPLE_DATA / "musique" / "musique_train_corpus.json.gz"])
    assert lg.graph.n_chunks == 1890


def test_limits_from_the_environment_are_checked(monkeypatch):
    from core.errors import ConfigError

    monkeypatch.setenv("EGX_MAX_COMPRESSION_RATIO", "lots")
    with pytest.raises(ConfigError, match="An EGX_MAX_\\* environment variable is not a number"):
        InputLimits.from_env()
    monkeypatch.setenv("EGX_MAX_COMPRESSION_RATIO", "0.5")
    with pytest.raises(ConfigError, match="use positive values"):
        InputLimits.from_env()


def test_a_long_entity_name_is_refused_at_once(tmp_path):
    fails(tmp_path, "t.csv", "head,relation,tail\nAlice,knows,Bob\n" + "w " * 600 + "x,is,long\n",
          "t.csv, line 3: the head is 1,201 characters long. Expected names of at most 1,000 characters (is a "
          "quote unbalanced? Raise EGX_MAX_NAME_CHARS for longer names).")


def test_a_line_over_the_line_limit_is_refused(tmp_path):
    p = write(tmp_path, "t.csv", "head,relation,tail\n" + "x" * 5000 + "\n")
    with pytest.raises(InputFormatError, match=re.escape("t.csv, line 2: the line is longer than 1.0 KB")):
        list(iter_lines(p, InputLimits(max_line_bytes=1024)))


def test_a_nul_byte_anywhere_is_refused_with_its_line(tmp_path):
    rows = "".join(f"entity{i},rel,entity{i + 1}\n" for i in range(400))  # NUL well past the first 4 KB
    fails(tmp_path, "t.csv", "head,relation,tail\n" + rows + "Al\x00ice,knows,Bob\n",
          "t.csv, line 402: a NUL byte, which text never holds (is this a binary file?). Expected a "
          "UTF-8 text file.")
    p = write(tmp_path, "t.json", '[["a", "r", "b"]]\n\n\x00')
    with pytest.raises(InputFormatError, match=re.escape("t.json, line 3: a NUL byte, which text never holds")):
        read_text(p)


def test_streaming_keeps_line_numbers_and_bytes_exact(tmp_path):
    p = write(tmp_path, "t.csv", b"\xef\xbb\xbfh,r,t\r\na,b,c\r\n\r\nd,e,\xc3\xa9\n")
    assert list(iter_lines(p)) == [(1, "h,r,t\r\n"), (2, "a,b,c\r\n"), (3, "\r\n"), (4, "d,e,é\n")]
    bad = write(tmp_path, "bad.csv", b"h,r,t\na,b,c\nd,e,\xff\n")
    with pytest.raises(InputFormatError, match=re.escape("bad.csv, line 3: byte 16 is not valid UTF-8")):
        list(iter_lines(bad))


# ----------------------------------------------------------------------------- encodings and CSV help
@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_is_decoded(tmp_path, codec):
    p = write(tmp_path, "t.csv", "head,relation,tail\nAlice,knows,Bob\nZoë,knows,Bob\n".encode(codec))
    g = load_inputs([p]).graph
    assert sorted(g.node_names) == ["Alice", "Bob", "Zoë"]


def test_an_unbalanced_quote_is_reported_where_it_opens(tmp_path):
    fails(tmp_path, "t.csv", 'head,relation,tail\nA,knows,B\n"C,knows,D\nE,knows,F\nG,knows,H\nI,knows,J\n',
          't.csv, line 3: a quote opened on this line is not closed before line 6 (one field swallowed 4 lines). '
          'Expected balanced double quotes ("...") around fields that contain the delimiter.')


def test_a_stray_carriage_return_gets_no_universal_newline_advice(tmp_path):
    p = write(tmp_path, "t.csv", b"head,relation,tail\nA,kno\rws,B\n")
    with pytest.raises(InputFormatError) as err:
        load_inputs([p])
    assert "universal-newline" not in str(err.value) and "newline=" not in str(err.value)
    assert str(err.value) == ("t.csv, line 2: a carriage return (\\r) in the middle of the line. Expected lines ending "
                              "in \\n or \\r\\n (re-save the file with Unix or Windows line endings, or quote the field).")


@pytest.mark.parametrize(("sep", "label"), [(";", "semicolon"), ("|", "pipe")])
def test_a_wrong_delimiter_gets_a_hint(tmp_path, sep, label):
    fails(tmp_path, "t.csv", f"head{sep}relation{sep}tail\nA{sep}knows{sep}B\n",
          f"t.csv, line 1: found 1 column (the first line has 2 {sep!r} characters: is the file {label}-separated? "
          "Save it with commas (.csv) or tabs (.tsv)). Expected 3 columns (head, relation, tail) or 4 (head, "
          "relation, tail, source chunk).")


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize(("row", "label"), [("...,is,x", "head"), ("x,?!,y", "relation"), ('x,is,"( )"', "tail")])
def test_a_punctuation_only_name_is_a_clean_error(tmp_path, row, label):
    value = {"head": "...", "relation": "?!", "tail": "( )"}[label]
    fails(tmp_path, "t.csv", f"head,relation,tail\nAlice,knows,Bob\n{row}\n",
          f"t.csv, line 3: the {label} {value!r} has no letter or digit (only punctuation or spaces). Expected "
          "names with at least one letter or digit.")


def test_the_builder_itself_refuses_empty_keys():
    b = GraphBuilder()
    with pytest.raises(BadNameError, match=r"the node name '\?' has no letter or digit"):
        b.add_node("?")
    with pytest.raises(BadNameError, match=r"the relation '\.\.\.' has no letter or digit"):
        b.add_triple("a", "...", "b")


@pytest.mark.parametrize(("content", "message"), [
    ('[["Alice", "knows", "Bob"], [null, "is", "x"]]',
     "t.json, record 2: the head is a JSON null. Expected the head as a string (or a number)."),
    ('[["Alice", ["x", "y"], "Bob"]]',
     't.json, record 1: the relation is a JSON list (["x", "y"]). Expected the relation as a string (or a number).'),
    ('[{"head": {"a": 1}, "relation": "r", "tail": "t"}]',
     't.json, record 1: the head is a JSON object ({"a": 1}). Expected the head as a string (or a number).'),
    ('[["a", "r", true]]', "t.json, record 1: the tail is a JSON boolean. Expected the tail as a string (or a number)."),
    ('[["a", "r", "b", ["c"]]]',
     't.json, record 1: the source chunk id is a JSON list (["c"]). Expected the source chunk id as a string (or a '
     'number).'),
    ("[" * 100_000 + "]" * 100_000,
     "t.json: the JSON is nested too deeply to read (thousands of levels). Expected valid JSON, nested at most a few "
     "levels deep."),
])
def test_json_values_that_are_not_names_are_refused(tmp_path, content, message):
    fails(tmp_path, "t.json", content, message)


def test_json_numbers_are_names(tmp_path):
    p = write(tmp_path, "t.json", '[["The Matrix", "release year", 1999]]')
    assert load_inputs([p]).graph.edge_texts == ("The Matrix release year 1999",)


def test_a_deep_jsonl_line_names_its_line(tmp_path):
    fails(tmp_path, "t.jsonl", '{"head": "a", "relation": "r", "tail": "b"}\n' + "[" * 50_000 + "]" * 50_000 + "\n",
          "t.jsonl, line 2: the JSON is nested too deeply to read (thousands of levels). Expected one JSON object "
          "per line, nested at most a few levels deep.")


# ----------------------------------------------------------------------------- OpenIE
def test_openie_punctuation_triples_are_skipped_and_counted(tmp_path):
    doc = {"docs": [{"title": "T", "passage": "T\nAlice knows Bob.",
                     "extracted_triples": [["Alice", "knows", "Bob"], ["?", "is", "x"], ["a", "...", "b"],
                                           ["a", "b", "x" * 2000], [True, "is", "x"]]}]}
    lg = load_inputs([write(tmp_path, "openie.json", json.dumps(doc))])
    assert lg.graph.edge_texts == ("Alice knows Bob",)
    assert lg.warnings == ["openie.json: skipped 4 malformed triples (not exactly three non-empty strings)."]


def test_openie_doc_title_that_is_a_number(tmp_path):
    doc = {"docs": [{"title": 5, "passage": "5\nAlice knows Bob.", "extracted_triples": [["Alice", "knows", "Bob"]]}]}
    fails(tmp_path, "openie.json", json.dumps(doc),
          'openie.json, record 1: the doc\'s "title" is a JSON number (5). Expected "title" as a string.')


# ----------------------------------------------------------------------------- egx exports
@pytest.mark.parametrize(("graph", "message"), [
    ({"chunks": [], "nodes": 5, "edges": []},
     'g.json: "nodes" is a JSON number, not a list. Expected chunks {id,title,text}, nodes {id,name}, edges '
     "{head,relation,tail}."),
    ({"chunks": [], "nodes": [], "edges": {}},
     'g.json: "edges" is a JSON object, not a list. Expected chunks {id,title,text}, nodes {id,name}, edges '
     "{head,relation,tail}."),
    ({"chunks": [], "nodes": [{"id": "a", "name": ["x"]}], "edges": []},
     "g.json: nodes[0].name is a JSON list (['x']). Expected a string."),
    ({"chunks": [], "nodes": ["a"], "edges": []},
     "g.json: nodes[0] is a JSON string, not an object. Expected chunks {id,title,text}, nodes {id,name}, edges "
     "{head,relation,tail}."),
    ({"chunks": [], "nodes": [{"id": "a", "name": "a"}], "edges": [{"head": "a", "relation": "r", "tail": "z"}]},
     "g.json: an edge names node id 'z', which is not among the nodes. Expected edges between the ids of listed "
     "nodes."),
    ({"chunks": [{"id": None, "title": "", "text": ""}], "nodes": [], "edges": []},
     "g.json: chunks[0].id is a JSON null. Expected a string."),
])
def test_egx_export_fields_are_type_checked(tmp_path, graph, message):
    fails(tmp_path, "g.json", json.dumps({"format": "egx-graph", "version": 1, **graph}), message)


def test_egx_export_round_trip_still_exact(lothair_graph):
    assert graph_from_dict(lothair_graph.to_dict()).to_dict() == lothair_graph.to_dict()


def test_iter_json_is_the_compact_dump_of_to_dict(lothair_graph):
    assert "".join(lothair_graph.iter_json(batch=3)) == json.dumps(lothair_graph.to_dict(), ensure_ascii=False,
                                                                    separators=(",", ":"))


# ----------------------------------------------------------------------------- GraphML
def graphml(body: str, head: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>{head}<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
            '<key id="r" for="edge" attr.name="relation" attr.type="string"/>'
            f'<graph id="G" edgedefault="directed">{body}</graph></graphml>')


DTD_MESSAGE = ("g.graphml: the document declares a DOCTYPE or entities, which GraphML never needs (refused: entities "
               "can read local files or expand without bound). Expected a GraphML document without <!DOCTYPE ...> / "
               "<!ENTITY ...>.")


def test_graphml_external_entity_is_refused_and_never_read(tmp_path):
    secret = write(tmp_path, "secret.txt", "TOPSECRET")
    head = f'<!DOCTYPE graphml [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    fails(tmp_path, "g.graphml", graphml('<node id="a"/><node id="b"/><edge source="a" target="b">'
                                         '<data key="r">&xxe;</data></edge>', head), DTD_MESSAGE)


def test_graphml_billion_laughs_is_refused(tmp_path):
    ents = '<!ENTITY l0 "lol">' + "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    fails(tmp_path, "g.graphml", graphml('<node id="a"/><node id="b"/><edge source="a" target="b">'
                                         '<data key="r">&l9;</data></edge>', f"<!DOCTYPE graphml [{ents}]>"),
          DTD_MESSAGE)


def test_graphml_edge_without_target_and_node_without_id(tmp_path):
    fails(tmp_path, "g.graphml", graphml('<node id="a"/><node id="b"/><edge source="a"><data key="r">x</data></edge>'),
          'g.graphml: <edge> number 1 has no target attribute. Expected <edge source="node id" target="node id"> for '
          "every edge.")
    fails(tmp_path, "g.graphml", graphml('<node id="a"/><node/><edge source="a" target="a"><data key="r">x</data></edge>'),
          'g.graphml: <node> number 2 has no id attribute. Expected <node id="..."> for every node.')
