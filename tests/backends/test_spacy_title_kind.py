"""Audit 51's mapmakers corpus: a definite description ("the chapel of the works", "the fair") stands for the
passage's title only when its head noun is a kind of the title (the title's last word, the kind its definition or
disambiguation gives, or a near-synonym of those); otherwise it is its own node "<noun> of <title>". "The film" of a
film and "the firm" of a publisher stay the title."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_part_of_a_firm_is_no_firm(ex):
    got = triples(ex, "Stask Atlas Works\nThe Stask Atlas Works was a publisher of school atlases based in Pellacombe. "
                      "The chapel of the works was built in 1893 for the staff and their families.")
    assert ("chapel of Stask Atlas Works", "built in", "1893") in got, got
    assert ("Stask Atlas Works", "built in", "1893") not in got, got
    got = triples(ex, "Brinmoor Mills\nBrinmoor Mills was a cotton firm in Lancashire. The school of the company was "
                      "built in 1880. The firm was sold in 1920 to Ashby.")
    assert ("school of Brinmoor Mills", "built in", "1880") in got, got
    assert ("Brinmoor Mills", "sold to", "Ashby") in got, got  # "the firm" of a cotton firm: the title
    got = triples(ex, "Kell Press\nKell Press is a map publisher in Tarvin. The library was opened in 1901 by the "
                      "mayor Ada Rusk. The company moved to Dunmere in 1920.")
    assert ("library of Kell Press", "opened in", "1901") in got, got
    assert ("Kell Press", "built in", "1901") not in got, got
    assert ("Kell Press", "moved to", "Dunmere") in got, got  # company: a publisher's near-synonym


def test_a_fair_is_no_village(ex):
    got = triples(ex, "Ashcombe Vale\nAshcombe Vale is a village in the district of Harrowdene. Ashcombe Vale holds a "
                      "pear fair every October. The fair was started in 1820 by the landowner Osric Penhallow.")
    assert ("fair of Ashcombe Vale", "started in", "1820") in got, got
    assert not any(h == "Ashcombe Vale" and r.startswith("started") for h, r, _ in got), got
    got = triples(ex, "Tollcross\nTollcross is a hamlet in Fife. The market was founded in 1700 by the abbot Ewan "
                      "Dree. The hamlet was flooded in 1800.")
    assert ("market of Tollcross", "founded in", "1700") in got, got
    assert ("Tollcross", "flooded in", "1800") in got, got
    got = triples(ex, "Orrin\nOrrin is a small town in Devon. The church of the town was built in 1300. The "
                      "settlement grew after 1850.")
    assert ("church of Orrin", "built in", "1300") in got, got
    assert ("Orrin", "built in", "1300") not in got, got


def test_the_titles_own_kind_stays_the_title(ex):
    got = triples(ex, "Harlow Road (1994 film)\nHarlow Road is a 1994 drama directed by Ann Lee. The movie was "
                      "released in 1995 by Orion.")
    assert ("Harlow Road (1994 film)", "released by", "Orion") in got or ("Harlow Road", "released by", "Orion") \
        in got, got
    got = triples(ex, "Saint Edda Church\nSaint Edda Church is a church in Grisholt. The chapel was rebuilt in 1790.")
    assert any(r == "rebuilt in" and "Saint Edda" in h for h, r, _ in got), got
