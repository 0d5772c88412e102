"""A place named "the <kind> of <Name>" after any preposition, the doer of a verb's complement ("began working at X",
"refused to sign X") and a name after "of" in the title — readings an audit's KG check found lost on its circus
corpus ("founded in → river town", "learned rigging from" kept only as "mentions", the sale given to the title)."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_the_kind_of_a_name_the_model_misread_is_the_place(ex):
    """The small model tags "Ravenby" a firm; the text calls it a town, so the founding was there, not "river town"."""
    got = triples(ex, "Voss Menagerie\nVoss Menagerie was founded in 1881 by Hanna Voss in the river town of Ravenby.")
    assert ("Voss Menagerie", "founded in", "Ravenby") in got, got
    assert "river town" not in nodes(got), got


def test_a_place_hung_on_the_agents_name_is_the_verbs(ex):
    """The parser hangs "in the mill town of Dunholt" on "Hanna Voss": the menagerie was founded there."""
    got = triples(ex, "Voss Menagerie\nVoss Menagerie was founded in 1881 by Hanna Voss in the mill town of Dunholt.")
    assert ("Voss Menagerie", "founded in", "Dunholt") in got, got
    assert ("Voss Menagerie", "founded by", "Hanna Voss") in got, got


def test_a_town_of_a_county_is_not_the_county(ex):
    got = triples(ex, "Harwick\nHarwick is a market town of Northumberland.")
    assert ("Harwick", "is", "Northumberland") not in got, got
    assert ("Harwick", "town of", "Northumberland") in got, got


def test_a_verbs_complement_is_done_by_its_subject(ex):
    """Only "mentions" tied Edda Pell to the treaty and the dye works; the phrase keeps "refused", which matters."""
    got = triples(ex, "Edda Pell\nEdda Pell refused to sign the Corran Treaty. She began working at the Lenstow Dye "
                      "Works in 1880. She asked Tomas Vey to build the Alder Mill.")
    assert ("Edda Pell", "refused to sign", "Corran Treaty") in got, got
    assert ("Edda Pell", "began working at", "Lenstow Dye Works") in got, got
    assert not any(h == "Edda Pell" and t == "Alder Mill" and r != "mentions" for h, r, t in got), got  # Vey builds


def test_a_name_after_of_in_the_title_is_its_own_node(ex):
    """"Tillard Brothers" is what the passage "Sale of Tillard Brothers" is about, not a short name of the sale."""
    got = triples(ex, "Sale of Tillard Brothers\nIn 1930 Tillard Brothers was sold to the Quell Trading Company.")
    assert ("Tillard Brothers", "sold to", "Quell Trading Company") in got, got
    assert not any(h == "Sale of Tillard Brothers" and r == "sold to" for h, r, _ in got), got
