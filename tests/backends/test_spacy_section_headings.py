"""Audit 36, Idris Fenwald's Markdown page: the section heading "## Family" and the next sentence "Fenwald married
the botanist Petra Lusk in 1880." gave a node "Family Fenwald" (the Markdown reader keeps a later heading as a
paragraph of its own, and the parser joined it to the name after the blank line). A blank line now starts a
sentence in the parse; the passage's text and chunk id are as before."""

from __future__ import annotations

from core.graph.formats.documents import document_passages
from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_PAGE = """# Idris Fenwald

**Idris Fenwald** (1852–1921) was a confectioner and businessman. After an apprenticeship with a sugar boiler,
Fenwald founded Velmora Chocolate Works in 1887.

## Family

Fenwald married the botanist Petra Lusk in 1880. The couple had three children.

## Later life

Fenwald retired in 1912.
"""


def test_a_section_heading_is_no_part_of_the_next_name(ex, tmp_path):
    path = tmp_path / "fenwald.md"
    path.write_text(_PAGE, encoding="utf-8")
    (chunk_id, title, text), = document_passages(path)[0]
    assert (chunk_id, title) == ("fenwald", "Idris Fenwald")
    assert "\n\nFamily\n\nFenwald married" in text  # the heading stays in the passage's text
    got = triples(ex, title, text)
    assert ("Idris Fenwald", "married", "Petra Lusk") in got, got
    assert ("Idris Fenwald", "retired in", "1912") in got, got
    assert not any("Family" in n or "Later life" in n for n in nodes(got)), got


def test_a_heading_line_in_plain_text_starts_a_sentence_too(ex):
    got = triples(ex, "Idris Fenwald", ("Idris Fenwald was a confectioner and businessman.\n\nFamily\n\n"
                                         "Fenwald married the botanist Petra Lusk in 1880."))
    assert ("Idris Fenwald", "married", "Petra Lusk") in got, got
    assert "Family Fenwald" not in nodes(got), got
