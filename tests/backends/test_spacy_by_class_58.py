"""Round 64, the residue rounds 62–63 left, by class rather than wording: a person the small model tags ORG (or NORP,
or nothing) that the text shows to be one; a role noun with a name in apposition is an edge; "He succeeded her" is the
"he"; a subject that is not the title; a plural pronoun object with no node to take is no edge."""

from __future__ import annotations

from core.backends.base import with_previous
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def _after(ex, previous: str, passage: str) -> set[tuple[str, str, str]]:
    """The triples of ``passage`` read after the passage ``previous`` of the same document."""
    return {(t.head, t.relation, t.tail) for t in ex.extract([with_previous(passage, previous)])[0]}


# -- 1. a person the small model tags ORG ---------------------------------------------------------------------------
def test_a_name_tagged_org_is_a_person_where_the_text_says_so(ex):
    got = triples(ex, "Mirela Palemont\nMirela Palemont was born in Kestrow in 1876, the daughter of the theatre owner "
                      "Idris Palemont. She grew up among the painted figures of the Orlan Marionette Company.")
    assert ("Mirela Palemont", "daughter of", "Idris Palemont") in got, got
    got = _after(ex, "The new workshop stood beside the fish market, and the players lodged above a chandlery owned by "
                     "Hester Moyle.",
                 "Orlan Marionette Company\nAfter the death of Idris Palemont in 1909, the direction of the company "
                 "passed to his daughter Mirela Palemont, who ran it until 1938.")
    assert ("Mirela Palemont", "daughter of", "Idris Palemont") in got, got
    assert ("Mirela Palemont", "daughter of", "Hester Moyle") not in got, got


def test_a_shared_surname_with_a_person_makes_a_person(ex):
    for text, kin, owner, wrong in (
            ("Ostby Bakery\nThe bakery was opened in 1880 by Idris Palemont. His nephew Karl Palemont took it over in "
             "1910.", ("Karl Palemont", "nephew of"), "Idris Palemont", "Ostby Bakery"),
            ("Harrow Forge\nAfter the death of Edda Dask in 1902, the forge passed to her son Corwin Dask.",
             ("Corwin Dask", "son of"), "Edda Dask", "Harrow Forge"),
            ("Kestrow Bridge\nThe bridge was built by the mason Osric Penhale in 1860. His grandson Tobin Penhale "
             "repaired it in 1920.", ("Tobin Penhale", "grandson of"), "Osric Penhale", "Kestrow Bridge")):
        got = triples(ex, text)
        assert (*kin, owner) in got, got
        assert (*kin, wrong) not in got, got


def test_himself_beside_a_name_makes_a_person(ex):
    for text, kin, owner in (
            ("Ashgrove School\nThe school was founded in 1850. Idris Palemont himself taught there until 1870. His "
             "daughter Ada Brask ran it after 1870.", ("Ada Brask", "daughter of"), "Idris Palemont"),
            ("Dunmere Choir\nThe choir was founded in 1890. Orrin Tallis himself wrote its hymns. His niece Ada Brell "
             "sang in it.", ("Ada Brell", "niece of"), "Orrin Tallis"),
            ("Wick Museum\nThe museum was opened in 1902. Idris Kestle herself chose its first paintings. Her son Tom "
             "Varro painted the sign.", ("Tom Varro", "son of"), "Idris Kestle")):
        got = triples(ex, text)
        assert (*kin, owner) in got, got
        assert not any(h == kin[0] and r == kin[1] and t != owner for h, r, t in got), got
