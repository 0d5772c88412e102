"""Audit 36, Idris Fenwald's page: "a memoir, *Cones and Kettles*, which was published after his death" gave two
nodes, "Cones" and "Kettles". Where a passage's text holds ``*…*``/``**…**`` around a name (plain text written with
emphasis, a JSON corpus's text), the extractor reads the marked words as one name (a work's title), its markers left
out of the parse. A Markdown document's text is without its markup (the passage a person reads), so there the
emphasis is gone before the extractor sees it: a limit."""

from __future__ import annotations

from core.backends.spacy_repair import unmark_names
from core.graph.formats.documents import document_passages
from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


def test_an_emphasised_name_in_plain_text_is_one_node(ex, tmp_path):
    """A .txt file keeps its text as written, asterisks and all: the marked words are one name."""
    path = tmp_path / "fenwald.txt"
    path.write_text("Idris Fenwald\n\nFenwald retired in 1912 and spent his last years writing a memoir, *Cones and "
                    "Kettles*, which was published after his death in 1921. It was *very* popular.\n", encoding="utf-8")
    (_, title, text), = document_passages(path)[0]
    got = triples(ex, title, text)
    assert ("Cones and Kettles", "published in", "1921") in got, got
    assert not {"Cones", "Kettles", "*Cones"} & nodes(got), got
    assert not any("*" in n for n in nodes(got)), got


def test_a_bold_name_is_one_node_too(ex):
    got = triples(ex, "Golden Whisk Prize", "The **Golden Whisk Prize** is an award for pastry cooks. The prize "
                  "went to the baker Anouk Bellamire for *Sugar and Salt Tower*, which stood two metres high.")
    assert not any("*" in n for n in nodes(got)), got
    assert "Sugar and Salt Tower" in nodes(got), got
    assert not {"Sugar", "Salt Tower"} & nodes(got), got


def test_only_names_lose_their_markers():
    text, spans = unmark_names("A *very* fine *Lord of the Isles* and **Golden Whisk Prize**, *the king* and *Ab cd*.")
    assert text == "A *very* fine Lord of the Isles and Golden Whisk Prize, *the king* and *Ab cd*."
    assert [text[s:e] for s, e in spans] == ["Lord of the Isles", "Golden Whisk Prize"]
