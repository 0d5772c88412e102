"""What a sentence leaves the next besides its subject (core/backends/spacy_anaphora.py): cases shaped like an audit's
seed-nursery corpus, on invented names. A "she" after "X trained under her" is the woman the "her" stood for, not X;
an "it" after a person's sentence is the thing the person acted on; "the buyer" is whom the sentence before sold to;
"the warehouse" after "a second warehouse" is no title; "His daughter Y then ran the mill" gives Y's edges; an owned
subject ("Its patterns were drawn by X") and "cut the face of X" are edges, not bare mentions."""

from __future__ import annotations

from pathlib import Path

from core.graph.builder import extract_triples
from core.graph.formats.documents import document_passages
from core.graph.model import Chunk
from tests.backends.spacy_case import triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


def test_she_after_her_in_the_paragraph_before_is_that_woman(ex, tmp_path: Path):
    """One passage per paragraph: the paragraph before ends "The dyer Tobin Ashe trained under her there." (a man the
    text never calls "he" here); the next paragraph's "She wove …" is the weaver, and its "It" the cloth she wove."""
    f = tmp_path / "Mara_Quell.txt"
    f.write_text("Mara Quell\n\nMara Quell was a weaver who studied dyes. She was born in Ostley in 1801.\n\n"
                 "She worked for many years at the Dunlow mill, where she kept a pattern book. The dyer Tobin Ashe "
                 "trained under her there.\n\n"
                 "She wove the Dunlow Blue cloth in 1840. It was later sold by the Fenner Trading House.\n",
                 encoding="utf-8")
    passages, _ = document_passages(f, per_paragraph=True)
    res = extract_triples([Chunk(*p) for p in passages], ex, cache_dir=None)
    got = {(t.head, t.relation, t.tail) for t in res.triples[passages[-1][0]]}
    assert ("Mara Quell", "wove", "Dunlow Blue cloth") in got, got
    assert not any(h == "Tobin Ashe" for h, _, _ in got), got
    assert ("Dunlow Blue cloth", "sold by", "Fenner Trading House") in got, got
    assert ("Mara Quell", "sold by", "Fenner Trading House") not in got, got


def test_it_after_a_persons_sentence_is_the_thing_she_acted_on(ex):
    got = triples(ex, "Ilse Varrow",
                  "Ilse Varrow was a potter. She made the Corran Green jug in 1861. It was bought by the Halden "
                  "Museum in 1900.")
    assert ("Corran Green jug", "bought by", "Halden Museum") in got, got
    assert ("Ilse Varrow", "bought by", "Halden Museum") not in got, got


def test_the_buyer_is_whom_the_sentence_before_sold_to(ex):
    got = triples(ex, "Orrin Mill",
                  "The Orrin Mill was a cloth mill in Ostley. In 1920 the mill was sold to the Kestle Weaving "
                  "Company. The buyer kept the Orrin name on its bolts.")
    assert ("Kestle Weaving Company", "kept", "Orrin name") in got, got
    assert ("Orrin Mill", "kept", "Orrin name") not in got, got


def test_the_warehouse_after_a_second_warehouse_is_no_title(ex):
    got = triples(ex, "Orrin Mill",
                  "The Orrin Mill was a cloth mill in Ostley. The company opened a second warehouse at Fell Bridge "
                  "in 1880. The warehouse was designed by the engineer Tam Rusk.")
    assert ("Orrin Mill", "designed by", "Tam Rusk") not in got, got
    assert ("second warehouse", "designed by", "Tam Rusk") in got, got


def test_his_daughter_then_ran_the_mill(ex):
    """"His daughter Wenna Vell then ran the mill": her father is the man before, the mill the title ("the mill" is
    "Orrin Mill")."""
    got = triples(ex, "Orrin Mill",
                  "The Orrin Mill was founded in 1854 by the weaver Osric Vell. Osric Vell died in 1889. His "
                  "daughter Wenna Vell then ran the mill until 1911.")
    assert ("Wenna Vell", "daughter of", "Osric Vell") in got, got
    assert ("Wenna Vell", "ran", "Orrin Mill") in got, got
    assert ("Wenna Vell", "daughter of", "Orrin Mill") not in got, got


def test_an_owned_subject_and_the_face_of_a_clock_are_edges(ex):
    got = triples(ex, "Kestle Weaving Company",
                  "The company printed its pattern books at the Ostley Press. Its patterns were drawn by the artist "
                  "Lisbet Crane. The carver Jem Otway later cut the face of the Harlow Chapel Clock.")
    assert ("Kestle Weaving Company", "patterns drawn by", "Lisbet Crane") in got, got
    assert ("Jem Otway", "cut face of", "Harlow Chapel Clock") in got, got
