"""Audit 51's mapmakers corpus, by class rather than wording: the winner's act for any verb and pronoun, a name cut
from its noun ("Kettlemoor of the coastal"), a fronted "Under X" keeping its object ("a school of engraving", a list
of bare plurals), dates after "by"/"of" and a received prize's date, a fronted life stage ("As a young woman"), a
bare family word ("the Dunmore family"), "Its tower" after "The church of Saint Edda", a participle on the object."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_the_winner_does_the_winners_act(ex):
    got = triples(ex, "Garrow Medal\nThe Garrow Medal is an award given by the Calderane Geographical Society. The first "
                      "winner of the Garrow Medal was Perrin Oakhurst, for a chart he drew at Kettlemoor of the coastal "
                      "shoals.")
    assert ("Perrin Oakhurst", "drew at", "Kettlemoor") in got, got
    assert not any(h == "Garrow Medal" and r.startswith("drew") for h, r, _ in got), got
    assert "Kettlemoor of the coastal" not in nodes(got), got
    got = triples(ex, "Tarn Prize\nThe Tarn Prize is an award for engineers. The first recipient of the Tarn Prize was "
                      "Olaf Brenning, for a bridge he designed at Kessock.")
    assert not any(h == "Tarn Prize" and r.startswith("designed") for h, r, _ in got), got
    got = triples(ex, "Brill Cup\nThe Brill Cup is a prize for quilting. The first winner of the Brill Cup was Anna Vey, "
                      "for a map she stitched at Tollmere of the northern fens.")
    assert not any(h == "Brill Cup" and r.startswith("stitched") for h, r, _ in got), got
    assert not any(n.endswith(" the northern") for n in nodes(got)), got


def test_a_fronted_under_keeps_the_object(ex):
    got = triples(ex, "Pellacombe\nPellacombe is a port town. Under the Stask brothers the town built a school of "
                      "engraving on the quay.")
    assert ("Pellacombe", "built", "school of engraving") in got, got
    assert "Stask" not in nodes(got), got
    got = triples(ex, "Wenmoor\nWenmoor is a village. Under the Harrow brothers the village built a house of prayer "
                      "on the green.")
    assert ("Wenmoor", "built", "house of prayer") in got, got
    got = triples(ex, "Orlen Map Company\nThe Orlen Map Company is a map publisher. Under the new proprietors the "
                      "company acquired presses, vans and depots throughout Calderane.")
    assert ("Orlen Map Company", "acquired throughout", "Calderane") not in got, got
    assert any("presses" in r for _, r, _ in got), got
    got = triples(ex, "Harrow Mills\nHarrow Mills was a textile firm. Under new owners the firm bought looms and sheds "
                      "throughout Yorkshire.")
    assert ("Harrow Mills", "bought throughout", "Yorkshire") not in got, got


def test_a_date_is_no_agent_nor_a_prizes(ex):
    got = triples(ex, "Orlen Map Company\nThe Orlen Map Company is a map publisher. By 1900 it employed forty "
                      "draughtsmen. By 1920 the firm employed 300 engravers.")
    assert not any(r == "employed by" for _, r, _ in got), got
    got = triples(ex, "Stask Atlas Works\nThe Stask Atlas Works was a publisher. Its chief engraver was Hollis Brant, who "
                      "cut the plates for the famous Blue Atlas of 1899. Mara Lint engraved the maps for the Grand Atlas "
                      "of 1901.")
    assert not any(r.endswith(" of") and t in ("1899", "1901") for _, r, t in got), got
    got = triples(ex, "Iver Quell\nIver Quell was a surveyor. For this chart he received the Garrow Medal in 1902.")
    assert ("Garrow Medal", "received in", "1902") not in got, got
    assert ("Iver Quell", "received in", "1902") in got, got
    got = triples(ex, "Ada Rusk\nAda Rusk was a surveyor. She earned the Kell Prize in 1911 and accepted the Tarn Cup "
                      "in 1920.")
    assert not any(h in ("Kell Prize", "Tarn Cup") for h, _, _ in got), got


def test_a_fronted_life_stage_is_no_role(ex):
    got = triples(ex, "Tamsin Vell\nTamsin Vell was a mapmaker. As a young woman Vell worked for the provincial land "
                      "office.")
    assert not any(r == "worked as" for _, r, _ in got), got
    assert any(r == "worked for" and t == "provincial land office" for _, r, t in got), got
    got = triples(ex, "Harlan Moss\nHarlan Moss was a printer. As a boy Moss worked on a farm in Devon. As a student he "
                      "lived with the painter Ida Crane.")
    assert not any(r.endswith(" as") for _, r, _ in got), got


def test_a_family_word_is_its_familys(ex):
    got = triples(ex, "Tamsin Vell\nTamsin Vell was a mapmaker. She handed the drawing office to her elder son, Bram "
                      "Hale, who ran it until the sale to the Dunmore family.")
    assert "Dunmore" not in nodes(got), got
    got = triples(ex, "Orvin Slate\nOrvin Slate was a quarry owner. He ran the quarry until the sale to the Pellow "
                      "brothers in 1890. His rivals were the Carrick sisters.")
    assert "Pellow" not in nodes(got) and "Carrick" not in nodes(got), got


def test_its_after_a_named_church_is_the_churchs(ex):
    got = triples(ex, "Grisholt\nGrisholt is a market town. The church of Saint Edda stands on the hill above the "
                      "market square. Its tower was built in 1512 and its bells were recast in 1790.")
    assert ("Grisholt", "tower built in", "1512") not in got, got
    assert ("Grisholt", "bells recast in", "1790") not in got, got
    got = triples(ex, "Tarrow\nTarrow is a village in Kent. The abbey of Saint Wenna stands by the river. Its roof was "
                      "rebuilt in 1650.")
    assert ("Tarrow", "roof rebuilt in", "1650") not in got, got


def test_a_participle_after_the_object_is_the_objects(ex):
    got = triples(ex, "Grisholt\nGrisholt is a market town. The town holds a map fair every spring, started in 1971 to "
                      "mark the centenary of the Orlen Map Company.")
    assert ("Grisholt", "started in", "1971") not in got, got
    got = triples(ex, "Tarrow\nTarrow is a village in Kent. The village holds a cattle fair each autumn, founded in "
                      "1820 by the squire Ned Pole.")  # a guard: the small model gives no edge here before or after
    assert not any(h == "Tarrow" and r.startswith("founded") for h, r, _ in got), got


def test_a_fair_of_any_titled_thing_and_a_part_of_its_building_are_their_own(ex):
    """Audit 52: "The fair was started in 1788 by the merchant Ludo Farran" in a cup's passage gave "Hollin Cup ·
    started by"; "The cellar of the house was dug in 1874" gave "Brannock Cider House · dug in"."""
    got = triples(ex, "Hollin Cup\nThe Hollin Cup is a prize for cider makers, awarded each autumn at the Wexholm fair. "
                      "The fair was started in 1788 by the merchant Ludo Farran.")
    assert not any(h == "Hollin Cup" and r.startswith("started") for h, r, _ in got), got
    got = triples(ex, "Sorrel Shield\nThe Sorrel Shield is a trophy for brass bands, played for at the Tenby festival. "
                      "The festival was founded in 1901 by the organist Hale Pryce.")
    assert not any(h == "Sorrel Shield" and r.startswith("founded") for h, r, _ in got), got
    got = triples(ex, "Brannock Cider House\nBrannock Cider House is a cider maker in the valley. The cellar of the house "
                      "was dug in 1874.")
    assert ("cellar of Brannock Cider House", "dug in", "1874") in got, got
    got = triples(ex, "Odell Brewery\nOdell Brewery is a brewery in Tamsford. The tower of the brewery was raised in 1902.")
    assert not any(h == "Odell Brewery" and r.startswith("raised") for h, r, _ in got), got
