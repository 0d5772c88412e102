"""How documents are split into passages, chosen per workspace: the default packs short paragraphs up to 1,200
characters exactly as before the choice existed; "one per paragraph" never puts two paragraphs in one passage (but
for a heading kept with its paragraph) and still splits a long paragraph at sentences; other sizes pack up to them.
Every mode keeps every word, in order. And the warning when a corpus is too small for recall to tell methods apart."""

from __future__ import annotations

import random
import re

import pytest

from core.errors import ConfigError
from core.graph.chunking import (
    CHUNK_CHARS,
    PassageSplit,
    chunk_text,
    chunking_settings,
    few_passages_warning,
    is_heading,
)
from core.graph.formats.load import load_inputs
from core.text import split_sentences

WORDS = "alder birch cedar signal junction coastal line depot platform train hourly repairs locomotive".split()


def _packed_as_before(text: str, max_chars: int) -> list[str]:
    """The chunker as it was before the choice existed (the oracle the default must still match)."""
    units: list[tuple[str, str]] = []
    for p in re.split(r"\n\s*\n", text.strip()):
        p = " ".join(p.split()) if "\n" not in p.strip() else "\n".join(ln.strip() for ln in p.strip().splitlines())
        if not p:
            continue
        if len(p) <= max_chars:
            units.append((p, "\n\n"))
            continue
        for j, s in enumerate(split_sentences(p)):
            sep = "\n\n" if j == 0 else " "
            while len(s) > max_chars:
                cut = s.rfind(" ", 0, max_chars)
                cut = cut if cut > 0 else max_chars
                units.append((s[:cut].strip(), sep))
                s, sep = s[cut:].strip(), " "
            if s:
                units.append((s, sep))
    chunks, cur = [], ""
    for piece, sep in units:
        if cur and len(cur) + len(sep) + len(piece) <= max_chars:
            cur += sep + piece
        else:
            if cur:
                chunks.append(cur)
            cur = piece
    return [*chunks, cur] if cur else chunks


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))).capitalize() + "."
                    for _ in range(sentences))


def _document(rng: random.Random) -> tuple[str, list[str]]:
    """A document of short and long paragraphs, some headings among them; and its paragraphs."""
    paras = []
    for _ in range(rng.randint(1, 9)):
        r = rng.random()
        if r < 0.2:
            paras.append(rng.choice(WORDS).capitalize() + (":" if rng.random() < 0.5 else ""))  # a heading
        else:
            paras.append(_paragraph(rng, rng.randint(1, 40) if r > 0.85 else rng.randint(1, 3)))
    return "\n\n".join(paras), paras


def _paragraph_of_each_word(paras: list[str]) -> list[int]:
    return [i for i, p in enumerate(paras) for _ in p.split()]


@pytest.mark.parametrize("seed", range(40))
def test_one_passage_per_paragraph_keeps_paragraphs_apart_and_every_word(seed: int) -> None:
    rng = random.Random(seed)
    text, paras = _document(rng)
    max_chars = rng.choice([200, 600, CHUNK_CHARS])
    chunks = chunk_text(text, max_chars=max_chars, per_paragraph=True)
    assert " ".join(chunks).split() == text.split()  # no text lost, none repeated, in order
    assert all(0 < len(c) <= max_chars for c in chunks)
    owner = _paragraph_of_each_word(paras)
    at = 0
    for c in chunks:  # which paragraphs each passage's words come from
        n = len(c.split())
        held = sorted(set(owner[at:at + n]))
        at += n
        # one paragraph, after the headings (if any) that lead to it
        assert all(is_heading(paras[i]) for i in held[:-1]), (c, [paras[i] for i in held])
    for p in paras:  # a paragraph that fits is one passage (with its headings, when it has any)
        if len(p) <= max_chars and not is_heading(p):
            assert any(c.split("\n\n")[-1] == p and all(map(is_heading, c.split("\n\n")[:-1])) for c in chunks), \
                (p, chunks)


def test_short_paragraphs_become_one_passage_each_and_a_long_one_is_split_at_sentences() -> None:
    text = "Rail notes\n\nThe signal at Alder is red.\n\nThe junction joins the coastal line.\n\nTrains run hourly."
    assert chunk_text(text) == [text]  # the default packs them all
    assert chunk_text(text, per_paragraph=True) == ["Rail notes\n\nThe signal at Alder is red.",
                                                    "The junction joins the coastal line.", "Trains run hourly."]
    long = " ".join(f"Sentence number {i} is about the Alder depot." for i in range(60))
    chunks = chunk_text(f"Short one.\n\n{long}\n\nLast one.", max_chars=300, per_paragraph=True)
    assert chunks[0] == "Short one." and chunks[-1] == "Last one." and len(chunks) > 4
    assert all(c.endswith("depot.") and len(c) <= 300 for c in chunks[1:-1])  # cut between sentences


@pytest.mark.parametrize("seed", range(25))
def test_the_default_splits_exactly_as_before_and_other_sizes_pack_up_to_them(seed: int) -> None:
    rng = random.Random(seed)
    text, _ = _document(rng)
    assert chunk_text(text) == _packed_as_before(text, CHUNK_CHARS)  # what ships, and what workspaces hold
    for size in (300, 600, 2400):
        chunks = chunk_text(text, max_chars=size)
        assert chunks == _packed_as_before(text, size)
        assert all(len(c) <= size for c in chunks) and " ".join(chunks).split() == text.split()
    small, big = chunk_text(text, max_chars=300), chunk_text(text, max_chars=2400)
    assert len(small) >= len(chunk_text(text)) >= len(big)


def test_a_split_is_read_from_what_egx_index_and_the_manifest_say() -> None:
    assert PassageSplit.parse("paragraph") == PassageSplit(True, CHUNK_CHARS)
    assert PassageSplit.parse("600") == PassageSplit(False, 600) == PassageSplit.parse("600").parse("600")
    assert PassageSplit.parse("2,400").max_chars == 2400 and PassageSplit.parse("packed") == PassageSplit()
    assert PassageSplit.parse("paragraph:300") == PassageSplit(True, 300)
    for spec in ("paragraph", "300", "paragraph:300", "1200"):
        split = PassageSplit.parse(spec)
        assert PassageSplit.parse(split.spec) == split
        assert PassageSplit.from_record(chunking_settings(split)) == split
    for bad in ("sentences", "5", "99999", "-300", ""):
        with pytest.raises(ConfigError, match=r"Passages|out of range"):
            PassageSplit.parse(bad)
    # a manifest written before the choice existed: its documents were packed up to 1,200 characters
    assert PassageSplit.from_record({"chunk_chars": 1200, "passage_split_chars": 4800}) == PassageSplit()
    assert PassageSplit.from_record(None) == PassageSplit()
    assert chunking_settings()["documents"] == {"per_paragraph": False, "max_chars": CHUNK_CHARS}


def test_json_corpus_passages_stay_whole_whatever_the_split(tmp_path) -> None:
    import json

    text = "First paragraph of a record.\n\nSecond paragraph of the same record."
    (tmp_path / "c.json").write_text(json.dumps([{"title": "T", "text": text}]))
    (tmp_path / "d.txt").write_text("First paragraph of a document.\n\nSecond paragraph of the document.")
    g = load_inputs([tmp_path / "c.json", tmp_path / "d.txt"], passages=PassageSplit.parse("paragraph")).graph
    by_title = {}
    for c in g.chunks:
        by_title.setdefault(c.title, []).append(c.text)
    assert by_title["T"] == [text]  # the record, whole
    assert [len(v) for k, v in by_title.items() if k != "T"] == [2]  # the document, one passage per paragraph


def test_few_passages_are_warned_about_with_the_numbers() -> None:
    for n in range(1, 11):
        said = few_passages_warning(n, split=PassageSplit())
        assert said.startswith(f"Only {n} passage") and "cannot tell methods apart" in said
        assert ("all of them" in said) == (n <= 5)
        if n > 5:
            assert f"5 of them ({100 * 5 / n:.0f} % of the corpus)" in said
        assert "one passage per paragraph" in said
    for n in range(11, 16):  # a third of the corpus or more in the top 5: a random pick already finds much of the gold
        said = few_passages_warning(n, split=PassageSplit())
        assert said.startswith(f"Only {n} passages") and "can hardly tell methods apart" in said, said
    # 16–30 passages: recall@10, which every report shows beside recall@5, holds a third or more (an audit read Re2's
    # "R@10 100 [100, 100]" on 19 passages without a word)
    for n, how in ((16, "cannot"), (20, "cannot"), (21, "can hardly"), (30, "can hardly")):
        said = few_passages_warning(n, split=PassageSplit())
        assert said.startswith(f"Only {n} passages: a method's top 10 holds 10 of them") and f"recall@10 {how} tell" in said
        assert "read recall@5" in said, said
    assert few_passages_warning(31, split=PassageSplit()) == few_passages_warning(0) == ""
    assert "already one passage per paragraph" in few_passages_warning(6, split=PassageSplit(True))
    assert "per paragraph" not in few_passages_warning(6)  # JSON passages: a finer split makes no more
    assert few_passages_warning(20, top_k=10).startswith("Only 20 passages: a method's top 10 holds 10 of them")


def test_few_passages_advice_names_only_a_size_the_page_offers() -> None:
    """An audit built at 300 characters, the smallest size offered, and was told to build with a smaller one."""
    from core.graph.chunking import OFFERED_PASSAGE_SIZES

    smallest = PassageSplit(max_chars=min(OFFERED_PASSAGE_SIZES))
    said = few_passages_warning(7, split=smallest)
    assert "one passage per paragraph" in said and "smaller" not in said and "characters" not in said, said
    assert f"packed up to {min(OFFERED_PASSAGE_SIZES):,} characters" in few_passages_warning(7, split=PassageSplit())
    assert "up to 300 characters" in few_passages_warning(7, split=PassageSplit(max_chars=600))
