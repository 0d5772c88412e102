""""He"/"she" by centering: a pronoun chain goes on, then the sentence before's subject when a person of a fitting
gender, then the last person named, then the title, never one the text called the other pronoun. An audit's
corpus (one passage per paragraph) bound "He trained under …" to a workshop named after its founder, and "He was
paid …" to a woman the text called "She"."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.spacy_extractor import SpacyExtractor
from core.graph.builder import extract_triples
from core.graph.formats.documents import document_passages
from core.graph.model import Chunk


@pytest.fixture(scope="module")
def ex() -> SpacyExtractor:
    return SpacyExtractor(n_process=1)


def triples(ex: SpacyExtractor, tmp_path: Path, name: str, text: str) -> dict[str, set[tuple[str, ...]]]:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    passages, _ = document_passages(f, per_paragraph=True)
    res = extract_triples([Chunk(*p) for p in passages], ex, cache_dir=None)
    return {cid: {(t.head, t.relation, t.tail) for t in ts} for cid, ts in res.triples.items()}


def test_he_after_a_born_sentence_is_its_subject_and_the_chain_goes_on(ex, tmp_path):
    """The person shares a word with the title ("Anselm Tessely", "Tessely Clockworks") and is a person of his own;
    the second "He" goes on with the first, not with the woman named in between."""
    got = triples(ex, tmp_path, "Tessely_Clockworks.txt",
                  "Tessely Clockworks was a clockmaking workshop in Quellbridge.\n\n"
                  "Anselm Tessely was born in Varn. He trained under the watchmaker Odile Brask before he moved to "
                  "Quellbridge. He died in 1869.\n")["Tessely_Clockworks#1"]
    assert ("Anselm Tessely", "trained under", "Odile Brask") in got, got
    assert ("Anselm Tessely", "died in", "1869") in got, got
    assert ("Anselm Tessely", "moved to", "Quellbridge") in got, got
    assert not any(h in ("Tessely Clockworks", "Odile Brask") and r in ("trained under", "died in", "moved to")
                   for h, r, _ in got), got


def test_he_after_a_company_named_for_its_founder(ex, tmp_path):
    got = triples(ex, tmp_path, "Corven_Instrument_Company.txt",
                  "The Corven Instrument Company was a maker of clocks.\n\n"
                  "Halvard Corven was born in Ostrin. He made his fortune in the salt trade before he turned to "
                  "instruments.\n")["Corven_Instrument_Company#1"]
    assert any(h == "Halvard Corven" and r.startswith("made") for h, r, _ in got), got
    assert not any(h == "Corven Instrument Company" and r.startswith("made") for h, r, _ in got), got


def test_he_is_never_the_title_the_text_called_she(ex, tmp_path):
    """The paragraph before ends on "The engraver Pim Rattery …" (a name the small model tags ORG, a person by its
    role noun); the title was "She": "He was paid" is the engraver."""
    got = triples(ex, tmp_path, "Odile_Brask.txt",
                  "Odile Brask was a watchmaker in Varn. She was born in Selby Cross in 1790.\n\n"
                  "She opened a shop in 1815. The engraver Pim Rattery later cut the dial of the Marrowgate Tower "
                  "Clock.\n\n"
                  "He was paid eleven guilders for the work. Odile Brask died in 1851.\n")
    assert ("Pim Rattery", "paid", "eleven guilders") in got["Odile_Brask#2"], got["Odile_Brask#2"]
    assert not any(h == "Odile Brask" and r == "paid" for h, r, _ in got["Odile_Brask#2"]), got["Odile_Brask#2"]
    # without a person to stand for, a "He" the title cannot be gives no triple at all
    got = triples(ex, tmp_path, "Odile_Brask.txt",
                  "Odile Brask was a watchmaker in Varn. She was born in Selby Cross in 1790.\n\n"
                  "He was paid eleven guilders for the work.\n")
    assert not any(r == "paid" for h, r, _ in got["Odile_Brask#1"]), got["Odile_Brask#1"]


def test_she_after_a_daughter_named_last_and_sold_it_to(ex, tmp_path):
    got = triples(ex, tmp_path, "Tessely_Clockworks.txt",
                  "Tessely Clockworks was a clockmaking workshop in Quellbridge.\n\n"
                  "After Anselm's death the workshop passed to his daughter Liesl Tessely. She ran it for thirty "
                  "years. In 1899 she sold it to the Corven Instrument Company.\n")["Tessely_Clockworks#1"]
    assert ("Liesl Tessely", "ran for", "thirty years") in got, got
    assert ("Liesl Tessely", "sold to", "Corven Instrument Company") in got, got
    # the workshop is what was sold, so only its date ("sold it … in 1899": sold in 1899) is its own
    assert not any(h == "Tessely Clockworks" and r.startswith(("ran", "sold")) and r != "sold in" for h, r, _ in got), got


def test_controls_a_she_chain_on_the_title_and_he_for_the_title(ex, tmp_path):
    """A person's own passage keeps its pronouns on the title; a woman named in between does not take "He"
    from a chain."""
    got = triples(ex, tmp_path, "Tobias_Fenn.txt",
                  "Tobias Fenn was a glassblower. He was born in Odeby. He married Clara Dunmore in 1870. He died "
                  "in 1901.\n")
    got = set().union(*got.values())
    assert ("Tobias Fenn", "born in", "Odeby") in got and ("Tobias Fenn", "died in", "1901") in got, got
    # whom he married in 1870 married then too; any other edge of hers would be a "He" read as her
    assert not any(h == "Clara Dunmore" and r != "married in" for h, r, _ in got), got
