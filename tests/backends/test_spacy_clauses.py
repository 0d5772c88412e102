"""Where a clause's or a relational noun's entity is: a founding clause hung on the thing a maker makes, "its largest
employer" of a place, a spouse named in apposition to a kin noun — readings an audit's KG check found wrong on its own
apiary corpus ("wooden beehives · founded by · X", no "married" edge for "She married X's son, Y")."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_founding_clause_after_a_makers_goods_is_the_makers(ex):
    got = triples(ex, "Brenna Cask Works\nBrenna Cask Works is a maker of oak barrels founded by Tamsin Rhule in "
                      "1911.")
    assert ("Brenna Cask Works", "founded by", "Tamsin Rhule") in got, got
    assert "oak barrels" not in {h for h, _, _ in got}, got
    got = triples(ex, "Orrin Glass\nOrrin Glass is a producer of stained windows which was established by Ewa Brook.")
    assert ("Orrin Glass", "established by", "Ewa Brook") in got, got
    # what may be founded itself keeps the clause: the village was founded by the monks, not the novel
    got = triples(ex, "Tessa\nTessa is a novel about a village founded by Brother Ansel.")
    assert ("Tessa", "founded by", "Brother Ansel") not in got, got
    # nor a noun that is no maker: the gardens were founded, not the hedges that came before them
    got = triples(ex, "Hedge Rows\nHedge Rows were forerunners of the first walled gardens, founded from the 1620s "
                      "onwards.")
    assert not any(h == "Hedge Rows" and r.startswith("founded") for h, r, _ in got), got


def test_a_places_employer_employs_in_it_and_a_persons_employs_them(ex):
    got = triples(ex, "Dunmoor\nDunmoor is a village on the Varn coast. Its largest employer was the Tarn Salt Company.")
    assert ("Tarn Salt Company", "employer in", "Dunmoor") in got, got
    assert ("Tarn Salt Company", "employer of", "Dunmoor") not in got, got
    got = triples(ex, "Ada Quist\nAda Quist was a clerk born in Holt. Her employer was the Tarn Salt Company.")
    assert ("Tarn Salt Company", "employer of", "Ada Quist") in got, got


def test_a_relative_named_after_a_comma_is_the_one_married(ex):
    got = triples(ex, "Wenna Thorne\nWenna Thorne was a glass painter born in Holt in 1902. She married Aldric "
                      "Pell's son, Bastian Pell, in 1931.")
    assert ("Wenna Thorne", "married", "Bastian Pell") in got, got
    assert ("Bastian Pell", "son of", "Aldric Pell") in got, got
    assert "son" not in nodes(got), got
    got = triples(ex, "Ilka Moor\nIlka Moor is a weaver. She married Osk Brand's granddaughter, Tilde Brand, in 1990.")
    assert ("Ilka Moor", "married", "Tilde Brand") in got, got


def test_a_date_of_an_active_verb_is_its_named_objects_too(ex):
    got = triples(ex, "Orbury\nOrbury is a river port in the west. The town hosted the Grand Cheese Fair in 1922.")
    assert ("Grand Cheese Fair", "hosted in", "1922") in got, got
    assert ("Orbury", "hosted", "Grand Cheese Fair") in got, got
    # a place left is no thing the date belongs to: the leaving is the subject's
    got = triples(ex, "Nell Brisk\nNell Brisk was a singer born in Holt. She left Texas in 1999.")
    assert not any(h == "Texas" for h, _, _ in got), got
    # a prize won every year has no date of its own, nor a span of time a date
    got = triples(ex, "Ada Voss\nAda Voss was a chemist. She won the Kell Medal in 1950. The Orr Club has not won "
                      "the Varn Cup in 40 years.")
    assert ("Ada Voss", "won in", "1950") in got, got
    assert not any(h in ("Kell Medal", "Varn Cup") for h, _, _ in got), got


def test_the_date_of_an_adverbial_ing_clause_is_the_main_subject_s_not_its_object_s(ex):
    # audit 47: "After leaving Orvane Pictures in 1945 she taught acting at …" gave "Orvane Pictures · leaving in ·
    # 1945" (the studio did not leave); the leaving is hers, as "She left X in 1945" is
    got = triples(ex, "Mirela Daskov\nMirela Daskov was an actress. After leaving Orvane Pictures in 1945 she taught "
                      "acting at the Fellgrave Drama School.")
    assert ("Mirela Daskov", "leaving in", "1945") in got, got
    assert not any(h == "Orvane Pictures" for h, _, _ in got), got
    got = triples(ex, "Lucan Ferreby\nLucan Ferreby was a cinematographer. Before joining Orvane Pictures in 1933 he "
                      "worked for a newspaper.")
    assert not any(h == "Orvane Pictures" for h, _, _ in got), got
