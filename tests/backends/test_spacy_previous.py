"""The spaCy extractor reads a passage with the end of the passage before it in the same document: a document split
one passage per paragraph gave "He bought the Larkmere Chalice" (its paragraph's first words) to the passage's
title, while the paragraph before ended on "Its first director was the historian Owen Pike". Passages of different
documents (MuSiQue's, HotpotQA's records, two files) are never read together."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.spacy_extractor import SpacyExtractor
from core.graph.builder import extract_triples
from core.graph.formats.documents import document_passages
from core.graph.model import Chunk

MUSEUM = ("Larkmere Glass Museum\n\n"
          "The Larkmere Glass Museum opened in 1950 in the main hall of the former Harrow Glassworks. Its first "
          "director was the historian Owen Pike.\n\n"
          "He bought the Larkmere Chalice from the family of the old mayor in 1953. It is now the museum's most "
          "visited object.\n")


@pytest.fixture(scope="module")
def ex() -> SpacyExtractor:
    return SpacyExtractor(n_process=1)


def triples(ex: SpacyExtractor, chunks: list[Chunk], cache: Path | None = None) -> dict[str, set[tuple[str, ...]]]:
    res = extract_triples(chunks, ex, cache_dir=cache)
    return {cid: {(t.head, t.relation, t.tail) for t in ts} for cid, ts in res.triples.items()}


def paragraphs(tmp_path: Path, name: str, text: str) -> list[Chunk]:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    passages, _ = document_passages(f, per_paragraph=True)
    return [Chunk(*p) for p in passages]


def test_he_opening_a_paragraph_is_the_person_the_paragraph_before_ended_on(ex, tmp_path):
    chunks = paragraphs(tmp_path, "Larkmere_Glass_Museum.txt", MUSEUM)
    assert [c.id for c in chunks] == ["Larkmere_Glass_Museum#0", "Larkmere_Glass_Museum#1"]
    got = triples(ex, chunks)["Larkmere_Glass_Museum#1"]
    assert ("Owen Pike", "bought", "Larkmere Chalice") in got
    assert not any(h == "Larkmere Glass Museum" and r.startswith("bought") for h, r, _ in got), got


def test_a_chain_across_paragraphs_keeps_the_person_and_the_gender(ex, tmp_path):
    text = ("Harrow Glassworks\n\n"
            "In 1889 the glassworks was sold to the merchant Clara Dunmore.\n\n"
            "She was born in Vell in 1850. She died in Larkmere in 1921.\n\n"
            "Tobias Fenn founded the glassworks. He was born in Odeby.\n\n"
            "She was born in Harwick.\n")
    got = triples(ex, paragraphs(tmp_path, "Harrow_Glassworks.txt", text))
    assert ("Clara Dunmore", "born in", "Vell") in got["Harrow_Glassworks#1"]
    assert ("Clara Dunmore", "died in", "Larkmere") in got["Harrow_Glassworks#1"]
    # "he" was Tobias Fenn's: a "She" opening the next paragraph is not him (the title, as without a paragraph before)
    assert not any(h == "Tobias Fenn" for h, _, _ in got["Harrow_Glassworks#3"]), got["Harrow_Glassworks#3"]
    # within one passage alike
    one = ex.extract(["Harrow Glassworks\nTobias Fenn founded the glassworks. He was born in Odeby. She was born in "
                      "Harwick."])[0]
    assert ("Tobias Fenn", "born in", "Odeby") in {(t.head, t.relation, t.tail) for t in one}
    assert not any(t.head == "Tobias Fenn" and t.tail == "Harwick" for t in one), one


def test_passages_of_different_documents_are_not_read_together(ex, tmp_path):
    first = Chunk("musique:0", "Larkmere Glass Museum", "Its first director was the historian Owen Pike.")
    # separate corpus records, even with one title, and another file's passage are documents of their own
    record = Chunk("musique:1", "Larkmere Glass Museum", "He bought the Larkmere Chalice in 1953.")
    other = Chunk("Other#1", "Larkmere Glass Museum", "He bought the Larkmere Chalice in 1953.")
    same = Chunk("museum#1", "Larkmere Glass Museum", "He bought the Larkmere Chalice in 1953.")
    retitled = Chunk("note#1", "Another Title", "He bought the Larkmere Chalice in 1953.")
    chunks = [first, record, Chunk("museum#0", first.title, first.text), same, other,
              Chunk("note#0", first.title, first.text), retitled]
    got = triples(ex, chunks)
    assert ("Owen Pike", "bought", "Larkmere Chalice") in got["museum#1"]  # the document's own paragraph before
    for cid in ("musique:1", "Other#1", "note#1"):
        assert not any(h == "Owen Pike" for h, _, _ in got[cid]), (cid, got[cid])
    from core.graph.builder import previous_texts

    assert set(previous_texts(chunks)) == {"museum#1"}


def test_a_long_passage_split_into_chunks_reads_the_chunk_before():
    from core.graph.builder import previous_texts

    a, b = Chunk("q7", "T", "One. " * 10), Chunk("q7#2", "T", "Two.")
    c = Chunk("q7#3", "T", "Three.")
    assert previous_texts([a, b, c]) == {"q7#2": a.text.strip(), "q7#3": "Two."}
    long = Chunk("d#0", "D", "A first sentence here. " + "Word " * 400 + "ends. Last one.")
    tail = previous_texts([long, Chunk("d#1", "D", "He left.")])["d#1"]
    assert len(tail) <= 1_000 and tail.endswith("Last one.") and long.text.endswith(tail)


def test_the_cache_key_holds_the_passage_before(ex, tmp_path):
    """The same passage after another paragraph is another extraction: a cached reading is not reused for it."""
    from core.graph.builder import _cache_file

    cache = tmp_path / "cache"
    chunks = paragraphs(tmp_path, "Larkmere_Glass_Museum.txt", MUSEUM)
    ext_id = f"{ex.name}:{ex.model_id}"
    assert _cache_file(cache, ext_id, chunks[1], "x") != _cache_file(cache, ext_id, chunks[1], "y")
    assert ("Owen Pike", "bought", "Larkmere Chalice") in triples(ex, chunks, cache)["Larkmere_Glass_Museum#1"]
    changed = [Chunk(chunks[0].id, chunks[0].title, "The museum opened in 1950. Its first director was the "
                                                     "historian Ada Stane."), chunks[1]]
    got = triples(ex, changed, cache)["Larkmere_Glass_Museum#1"]
    assert ("Owen Pike", "bought", "Larkmere Chalice") not in got, got
