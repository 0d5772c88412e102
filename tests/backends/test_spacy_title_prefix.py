"""A thing named on its own in a passage titled by that name and a common noun ("The Gull …" in "Gull roadster") is one
node: an audit's KG put "The Gull was the first bicycle …" on "Gull" and "It had a steel frame" on "Gull roadster", two
nodes for one bicycle with nothing between them (BubbleRAG §3.1 step 2: the entities of a passage)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_it_after_the_name_is_the_name_and_the_title_links_it(ex):
    got = triples(ex, "Wren roadster\nThe Wren was the first bicycle built by Dallow Cycles, in 1921. It had a steel "
                      "frame and a single gear.")
    assert ("Wren", "built by", "Dallow Cycles") in got, got
    assert ("Wren", "had", "steel frame") in got, got
    assert ("Wren roadster", "mentions", "Wren") in got, got
    assert not any(h == "Wren roadster" and r == "had" for h, r, _ in got), got


def test_a_word_opening_a_sentence_is_no_name_of_the_title(ex):
    got = triples(ex, "Ledger transfer report\nA ledger transfer report is a form filed by banks. Ledger also "
                      "includes cheques.")
    assert not any(t == "Ledger" and r == "mentions" for _, r, t in got), got
