"""A firm's name joined by "and" ("Quill and Sons") is one node, a participle after "a <kind> in <Place>" is the
kind's, not the place's, and a longer name holding the title stays whole — readings an audit's KG check found wrong
on its dairy corpus ("founded · Mauncey", the founding given to the place the dairy lies in) and MuSiQue showed."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_firm_named_and_sons_is_one_name_two_people_stay_two(ex):
    """The parser read "Quill and Sons" as two objects, so Hester Quill founded "Quill" and "Sons"; two people's names
    joined by "and" are no firm."""
    got = triples(ex, "Hester Quill\nHester Quill was a weaver born in Darrow. In 1902 she founded Quill and Sons. "
                      "Nell Ashby and Tom Reed founded Ashby Mills in 1890.")
    assert ("Hester Quill", "founded", "Quill and Sons") in got, got
    assert not {"Quill", "Sons"} & nodes(got), got
    assert ("Nell Ashby", "founded", "Ashby Mills") in got and ("Tom Reed", "founded", "Ashby Mills") in got, got
    assert not any(" and " in n and "Sons" not in n for n in nodes(got)), got


def test_a_firm_named_and_sons_as_subject_keeps_its_relations(ex):
    """Merged in place, the name keeps the subject's place the parser gave its first word."""
    got = triples(ex, "Darrow Mill\nIn 1920 Quill and Sons bought the Darrow Mill from Enid Marsh.")
    assert ("Quill and Sons", "bought", "Darrow Mill") in got, got
    assert ("Quill and Sons", "bought from", "Enid Marsh") in got, got
    assert not {"Quill", "Sons"} & nodes(got), got


def test_a_participle_after_a_kind_in_a_named_place_is_the_kinds(ex):
    """The parser hung "built … by" on the river the ironworks stands on: the river was not built by Simon Hale. Only
    after a named place: "a house in the village built in 1700" may say either, so nothing moves to the house."""
    got = triples(ex, "Carrow Forge\nCarrow Forge is an ironworks on the Ebbet Water built in 1788 by Simon Hale.")
    assert ("Carrow Forge", "built by", "Simon Hale") in got, got
    assert ("Carrow Forge", "built in", "1788") in got, got
    assert not any(h == "Ebbet Water" for h, _, _ in got), got
    got = triples(ex, "Fold Cottage\nFold Cottage is a house in the village built in 1700 by Amos Kell.")
    assert ("Fold Cottage", "built by", "Amos Kell") not in got, got


def test_a_firm_named_with_an_ampersand_is_one_name(ex):
    """The parser read "Hobb & Lusk" as a list, so one founder "founded" the other; "Pryce Brothers and Sons" lost
    its "and Sons"."""
    got = triples(ex, "Ansel Hobb\nAnsel Hobb was a brewer. In 1921 he and Mara Lusk founded Hobb & Lusk. Later he "
                      "worked for Pryce Brothers and Sons.")
    assert ("Ansel Hobb", "founded", "Hobb & Lusk") in got and ("Mara Lusk", "founded", "Hobb & Lusk") in got, got
    assert ("Mara Lusk", "founded", "Ansel Hobb") not in got, got
    assert ("Ansel Hobb", "worked for", "Pryce Brothers and Sons") in got, got
    assert "Sons" not in nodes(got), got


def test_a_longer_name_after_the_holding_the_title_stays_whole(ex):
    """The model's entity "the Keller Bay Bridge" holds the title "Keller Bay"; its "the" is no reason to cut the
    title out of it (the bridge became a node "Bridge")."""
    got = triples(ex, "Keller Bay\nThe lake is crossed by the Keller Bay Bridge carrying Route 9 over the bay.")
    assert ("Keller Bay", "crossed by", "Keller Bay Bridge") in got, got
    assert "Bridge" not in nodes(got), got


def test_her_own_company_is_its_name_or_no_node(ex):
    """A possessive, "own" and a common noun is no name: an audit's KG had a node "own company" that every founder's
    "her own company" joined. It is the name in apposition, or the one "The company, X," gives it, or no node."""
    got = triples(ex, "Ida Crane\nIda Crane was a weaver. In 1901 she founded her own company, Crane Looms.")
    assert ("Ida Crane", "founded", "Crane Looms") in got, got
    got = triples(ex, "Ida Crane\nIda Crane was a weaver. In 1901 she founded her own company. The company, Crane "
                      "Looms, made shawls.")
    assert ("Ida Crane", "founded", "Crane Looms") in got, got
    assert ("Ida Crane", "is", "Crane Looms") not in got, got  # "the company" is no description of the title
    got = triples(ex, "Tom Bell\nTom Bell was a painter. He opened his own studio in Dunmere in 1890. It closed in "
                      "1901.")
    assert not any("own" in n for n in nodes(got)), got
    assert ("Tom Bell", "opened in", "Dunmere") in got, got
    assert ("Tom Bell", "closed in", "1901") not in got, got  # "It" is the studio, no node, not the painter
