"""Audit 56's observatory corpus, by class rather than wording: a "her" is a person, never a place or a thing; a
"the <noun>" subject of another kind than the title (another thing's part, a thing taken up from before, a person's
plural goods) is not the title; a giving's date is not its object's; and an apposition after a place of birth, or a
name after "the daughter of the <role noun>", is no "is" edge."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_her_after_a_thing_title_is_the_woman_not_the_title(ex):
    for text, name, woman, title in (
            ("Kelvary Observatory\nThe Kelvary Observatory is an astronomical observatory on Mount Tessel. Ismene Vartan "
             "directed the observatory until 1902. Her successor was her former assistant, Tobin Ashgrove, who began "
             "the Harlen Catalogue of variable stars in 1905.", "Tobin Ashgrove", "Ismene Vartan", "Kelvary Observatory"),
            ("Harvoy Lighthouse\nHarvoy Lighthouse is a lighthouse on Quarrow Point. Mary Tarrant kept the light until "
             "1950. Her successor was her deputy, John Ross.", "John Ross", "Mary Tarrant", "Harvoy Lighthouse"),
            ("Selby Hospital\nSelby Hospital is a small hospital in Dunmere. Anna Rusk directed the hospital until 1950. "
             "Her successor was the surgeon Colm Tarrant.", "Colm Tarrant", "Anna Rusk", "Selby Hospital")):
        got = triples(ex, text)
        assert not any(h == name and t == title and r != "mentions" for h, r, t in got), got
        assert any(h == name and t == woman and r.endswith(" of") for h, r, t in got), got


def test_her_is_never_a_place(ex):
    for text, name, place in (
            ("Harbour Mill\nThe company closed the mill in 1933 after its owner, Ruth Dorsey, died. The apprentices "
             "moved to Selby in 1934. Her sister-in-law, Mara Quist, ran the inn at Selby.", "Mara Quist", "Selby"),
            ("Tarn Brewery\nThe brewery closed in 1950. The brewers went to Ostby in 1951. Her cousin, Lena Morr, kept "
             "the shop at Ostby.", "Lena Morr", "Ostby"),
            ("Quay Forge\nThe forge was sold in 1920. The smiths moved to Wendle that year. Her niece, Ilse Brack, "
             "opened a bakery in Wendle.", "Ilse Brack", "Wendle")):
        got = triples(ex, text)
        assert not any(h == name and t == place and r.endswith(" of") for h, r, t in got), got


def test_a_the_noun_of_another_thing_is_not_the_firm(ex):
    for text, title, verb in (
            ("Dorran Instrument Company\nThe Dorran Instrument Company was a maker of scientific instruments in "
             "Calmouth. Its best-known instrument is the eleven-inch refractor of the Kelvary Observatory, delivered in "
             "1873. The lens of that telescope was ground by the optician Hester Quill.", "Dorran Instrument Company",
             "ground by"),
            ("Brask Clock Company\nThe Brask Clock Company made clocks in Ostrel. It built the great tower of Harvoy "
             "in 1880. The face of that tower was painted by the artist Lene Pardo.", "Brask Clock Company",
             "painted by"),
            ("Tull Organ Works\nTull Organ Works built organs in Dunmere. Its largest organ stands in Selby Abbey. The "
             "case of that instrument was carved by Abel Hurst in 1901.", "Tull Organ Works", "carved by")):
        got = triples(ex, text)
        assert not any(h == title and r == verb for h, r, _ in got), got


def test_a_the_noun_of_the_title_stays_the_title(ex):
    got = triples(ex, "Atomic bombings of Hiroshima and Nagasaki\nThe effects of the bombings killed many people in "
                      "the first months.")
    assert ("Atomic bombings of Hiroshima and Nagasaki", "killed", "many people") in got or not any(
        r == "killed" for _, r, _ in got), got


def test_a_the_noun_taken_up_from_before_is_that_thing(ex):
    for text, thing, verb, title in (
            ("Kelvary Observatory\nThe Kelvary Observatory is an astronomical observatory on Mount Tessel. In 1938 the "
             "observatory's director, Wilma Strand, moved the plates, ledgers and clocks to a new archive building. "
             "The archive was damaged by fire on 14 February 1951.", "new archive building", "damaged on",
             "Kelvary Observatory"),
            ("Selby Abbey\nSelby Abbey is a church in Selby. In 1850 the monks built a new bell tower. The bell was "
             "cast in 1852.", None, "cast in", "Selby Abbey"),
            ("Harvoy Museum\nHarvoy Museum is a museum in Harvoy. In 1960 the trustees opened a small print room. "
             "The print was damaged by water in 1972.", None, "damaged in", "Harvoy Museum")):
        got = triples(ex, text)
        assert not any(h == title and r == verb for h, r, _ in got), got
        if thing is not None:
            assert any(h == thing and r == verb for h, r, _ in got), got


def test_a_persons_plural_goods_are_not_the_person(ex):
    for text, person, verb in (
            ("Orla Penn\nOrla Penn was a weaver. Her mother, Ida Penn, taught her to weave. The looms were sold to the "
             "Tarrow Company in 1902.", "Orla Penn", "sold to"),
            ("Abel Hurst\nAbel Hurst was a carver. He worked in Dunmere. The chisels were given to the Selby Museum "
             "in 1950.", "Abel Hurst", "given to"),
            ("Lene Pardo\nLene Pardo was a painter. Her brother, Tom Pardo, framed her work. The canvases went to "
             "the Harvoy Gallery after her death.", "Lene Pardo", "went to")):
        got = triples(ex, text)
        assert not any(h == person and r == verb for h, r, _ in got), got


def test_a_firms_workers_are_not_the_firm(ex):
    for text, title, verb in (
            ("Dorran Instrument Company\nThe Dorran Instrument Company was a maker of scientific instruments. The "
             "workers struck in 1899 for shorter hours.", "Dorran Instrument Company", "struck in"),
            ("Brask Clock Company\nThe Brask Clock Company made clocks in Ostrel. The clockmakers marched to the town "
             "hall in 1911.", "Brask Clock Company", "marched to"),
            ("Tull Mills\nTull Mills made cloth in Dunmere. In 1920 the weavers left for Selby.", "Tull Mills",
             "left for")):
        got = triples(ex, text)
        assert not any(h == title and r == verb for h, r, _ in got), got


def test_a_givings_date_is_not_its_objects(ex):
    for text, giver, obj, verb in (
            ("Orrin Society of Natural Philosophy\nThe Orrin Society of Natural Philosophy is a learned society "
             "founded in Calmouth in 1848. The society gave the Kelvary Observatory to the University of Calmouth in "
             "1987.", "Orrin Society of Natural Philosophy", "Kelvary Observatory", "gave"),
            ("Tarn Guild\nThe Tarn Guild is a guild of weavers in Selby. The guild lent the Tarn Hall to the "
             "University of Selby in 1930.", "Tarn Guild", "Tarn Hall", "lent"),
            ("Vane Bank\nVane Bank is a bank in Calmouth. In 1950 it lent the Harvoy Museum to the town council.",
             "Vane Bank", "Harvoy Museum", "lent")):
        got = triples(ex, text)
        assert (giver, verb, obj) in got, got
        assert not any(h == obj and r.startswith(verb + " ") and t[:1].isdigit() for h, r, t in got), got


def test_the_daughter_of_the_role_noun_x_is_a_relation_not_is(ex):
    for text, person, kin, parent in (
            ("Brisa Hollow\nBrisa Hollow is a small town. Its first headmistress was Rhoda Penrose, the daughter of the "
             "quarry owner Silas Penrose.", "Rhoda Penrose", "daughter of", "Silas Penrose"),
            ("Selby\nSelby is a village. Its first doctor was Tom Vance, the son of the miller Abel Vance.",
             "Tom Vance", "son of", "Abel Vance"),
            ("Ostby\nOstby is a port. Its harbour master was Ilse Morr, the niece of the shipowner Karl Morr.",
             "Ilse Morr", "niece of", "Karl Morr")):
        got = triples(ex, text)
        assert (person, "is", parent) not in got, got
        assert (person, kin, parent) in got, got


def test_a_kin_apposition_after_a_place_of_birth_is_the_persons(ex):
    for text, person, place in (
            ("Agnes Whitlow\nAgnes Whitlow was an astronomer at the Kelvary Observatory. She was born in Calmouth, the "
             "daughter of a harbour pilot.", "Agnes Whitlow", "Calmouth"),
            ("Hanna Stark\nHanna Stark was a baker. She was born in Pellow, the daughter of a miller called Abel "
             "Stark.", "Hanna Stark", "Pellow"),
            ("Tomas Wren\nTomas Wren was a shipwright. He grew up in Dunmere, the son of a ferry captain.", "Tomas Wren",
             "Dunmere")):
        got = triples(ex, text)
        assert not any(h == place and r.endswith(" of") for h, r, _ in got), got
        assert any(h == person and r in ("daughter of", "son of") for h, r, _ in got), got
