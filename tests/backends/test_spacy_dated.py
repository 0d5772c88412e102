"""A title that "was born" is a person, a river's name no person's, a founding's date the founded thing's, and an
adverb before an appositive's article no part of it — an audit's KG gave a river "married", a founder "founded in"
the year of her guild, and a node "then the mayor"."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_he_after_a_title_that_was_born_is_the_title(ex):
    # the small model tags "Ormond Ashgrove" no person's; "was born" makes it one, so "he" is not the engraver
    got = triples(ex, "Ormond Ashgrove\nOrmond Ashgrove was born in 1839 in Tull, where the engraver Ivo Brisk worked. "
                      "In 1866 he married Ada Venn.")
    assert ("Ormond Ashgrove", "married", "Ada Venn") in got, got
    assert not any(h == "Ivo Brisk" for h, _, _ in got), got


def test_a_name_after_the_river_is_no_person(ex):
    got = triples(ex, "Ormond Ashgrove\nOrmond Ashgrove grew up in Tull, a mill town on the river Esk. "
                      "In 1866 he married Ada Venn.")
    assert ("Ormond Ashgrove", "married", "Ada Venn") in got, got
    got = triples(ex, "Peregrine Holloway\nPeregrine Holloway kept a shop on the river Esk. He married Ada Venn in 1866.")
    assert ("Peregrine Holloway", "married", "Ada Venn") in got, got
    assert not any(h == "Esk" for h, _, _ in got), got


def test_a_founding_date_is_the_founded_things_alone(ex):
    got = triples(ex, "Maren Holt\nMaren Holt was a weaver. She founded the Dunlow Weavers' Society in 1921 and built "
                      "Ferrow Hall in 1930. She married Tom Reed in 1925. She won the Tarn Cup in 1932.")
    assert ("Maren Holt", "founded", "Dunlow Weavers' Society") in got, got
    assert ("Dunlow Weavers' Society", "founded in", "1921") in got, got
    assert ("Ferrow Hall", "built in", "1930") in got, got
    assert ("Maren Holt", "founded in", "1921") not in got and ("Maren Holt", "built in", "1930") not in got, got
    # a wedding's date is both spouses', a cup won the winner's alone
    assert ("Maren Holt", "married in", "1925") in got and ("Tom Reed", "married in", "1925") in got, got
    assert ("Maren Holt", "won in", "1932") in got and ("Tarn Cup", "won in", "1932") not in got, got
    # a person given a role is not founded: the date stays the subject's too
    got = triples(ex, "Veldmark\nVeldmark was a kingdom in the north. In 1932 it established Ivo Brisk as regent of Tull.")
    assert ("Veldmark", "established in", "1932") in got, got


def test_an_adverb_before_an_appositives_article_is_no_part_of_it(ex):
    for adverb in ("then", "later"):
        got = triples(ex, f"Lamb Fair\nThe Lamb Fair was a horse fair. It was organised by Walter Pryce, {adverb} the "
                          "mayor of Pellham.")
        assert ("Walter Pryce", "mayor of", "Pellham") in got, got
        assert not any(t.startswith(adverb) for _, _, t in got), got
    # an adverb before "and" stays: no node "and geographically part"
    got = triples(ex, "Tarrow\nTarrow is geologically and geographically part of the Orrin Hills.")
    assert not any(t.startswith("and") for _, _, t in got), got
