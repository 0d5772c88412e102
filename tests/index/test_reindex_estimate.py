"""The re-index estimate the app shows before an embedder switch starts anything (no job over 30 s unasked):
from the manifest's recorded build rates by the same model, else measured on the workspace's own texts."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from core.backends.registry import get_embedder
from core.index.estimate import index_counts, reindex_estimate
from core.index.samples import ensure_sample_workspace


@pytest.fixture
def demo(tmp_path: Path):  # type: ignore[no-untyped-def]
    return ensure_sample_workspace("demo", get_embedder("hashing"), root=tmp_path)


def test_counts_are_the_graph_s_nodes_edges_and_passages(demo) -> None:  # type: ignore[no-untyped-def]
    g = demo.graph
    assert index_counts(demo) == {"nodes": g.n_nodes, "edges": g.n_edges, "chunks": len(g.chunks)}
    assert index_counts(demo) == {k: len(demo.texts(k)) for k in ("nodes", "edges", "chunks")}


def test_the_same_model_uses_the_recorded_build_rates(demo) -> None:  # type: ignore[no-untyped-def]
    builds = {b["kind"]: b for b in demo.meta.index_builds}
    expected = sum(len(demo.texts(k)) * builds[k]["seconds"] / builds[k]["items"] for k in builds)
    seconds, how = reindex_estimate(demo, get_embedder("hashing"), clock=lambda: pytest.fail("measured"))
    assert seconds == pytest.approx(expected)
    assert "when this index was last built here" in how


def test_another_model_is_measured_on_the_workspace_s_own_texts(demo) -> None:  # type: ignore[no-untyped-def]
    """A fake clock that advances one second per reading: each kind's timed batch takes exactly 1 s for its
    ``sample`` texts, so the estimate is the oracle Σ count / sample."""
    ticks = itertools.count()
    other = get_embedder("hashing", dim=96)  # another model id: the recorded rates do not apply
    seconds, how = reindex_estimate(demo, other, sample=4, clock=lambda: float(next(ticks)))
    counts = index_counts(demo)
    assert seconds == pytest.approx(sum(counts.values()) / 4)
    total = sum(counts.values())
    assert how.startswith(f"{total:,} texts ({counts['nodes']} nodes, {counts['edges']} edges, "
                          f"{counts['chunks']} passages); hashing embedded 4 texts of each kind just now")


def test_an_unbuilt_sample_is_estimated_from_its_recipe_s_own_texts(tmp_path: Path) -> None:
    """Before a sample is built (nothing over 30 s starts unasked) its texts come from the recipe's inputs: the
    same counts the built workspace then has (oracle: build it), each kind timed on ``sample`` texts (the fake
    clock makes each timed batch 1 s, so the estimate is Σ count / sample)."""
    from core.index.estimate import sample_build_estimate

    ticks = itertools.count()
    seconds, how = sample_build_estimate("demo", get_embedder("hashing"), sample=4,
                                         clock=lambda: float(next(ticks)))
    counts = index_counts(ensure_sample_workspace("demo", get_embedder("hashing"), root=tmp_path))
    assert seconds == pytest.approx(sum(counts.values()) / 4)
    assert how.startswith(f"{sum(counts.values())} texts ({counts['nodes']} nodes, {counts['edges']} edges, "
                          f"{counts['chunks']} passages); hashing embedded 4 texts of each kind just now")


def test_a_sample_of_plain_passages_counts_their_extraction_first(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from core.index.create import EXTRACT_SECONDS
    from core.index.estimate import (
        BUILD_START_S,
        EXTRACT_REFERENCE_CHARS,
        ITEMS_PER_CHAR,
        SPACY_LOAD_S,
        sample_build_estimate,
    )

    folder = tmp_path / "samples" / "notes"
    folder.mkdir(parents=True)
    passages = [{"title": f"Note {i}", "text": f"Ada Lovelace wrote note {i} in London."} for i in range(6)]
    (folder / "corpus.json").write_text(json.dumps(passages), encoding="utf-8")
    (folder / "workspace.json").write_text(json.dumps({"name": "notes", "inputs": ["corpus.json"]}), encoding="utf-8")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(tmp_path / "samples"))
    ticks = itertools.count()
    seconds, how = sample_build_estimate("notes", get_embedder("hashing"), sample=4,
                                         clock=lambda: float(next(ticks)))
    # 6 passages: the build's start and spaCy's load, their extraction by their length, then the passages and the
    # node and edge texts their characters yield, each at the 1/4 s its kind took (one tick for 4 timed texts)
    chars = sum(len(f"Note {i}\nAda Lovelace wrote note {i} in London.") for i in range(6))
    assert seconds == pytest.approx(BUILD_START_S + SPACY_LOAD_S + chars / EXTRACT_REFERENCE_CHARS
                                    * EXTRACT_SECONDS["spacy"] + 6 / 4 + int(chars * ITEMS_PER_CHAR) / 4)
    assert how.startswith(f"6 passages ({chars:,} characters) whose triples spaCy extracts first")


def test_an_unknown_sample_names_the_bundled_ones() -> None:
    from core.errors import UnknownNameError
    from core.index.estimate import sample_build_estimate

    with pytest.raises(UnknownNameError, match=r"Unknown sample workspace 'nope'\. Valid sample workspaces: 'demo'"):
        sample_build_estimate("nope", get_embedder("hashing"))


def test_a_rate_measured_on_a_busy_machine_says_so() -> None:
    """More runnable work than cores: the measured rate was shared, and the sentence says it may read high (an
    audit read 14 min measured during another build where 2½ min had been measured idle)."""
    from core.index.estimate import busy_note

    assert busy_note(load=1.2, cores=2) == ""
    assert busy_note(load=2.0, cores=2) == ""
    note = busy_note(load=4.6, cores=2)
    assert "busy (load 4.6 on 2 cores)" in note and "may read high" in note


def test_an_upload_is_estimated_by_its_characters_not_its_passage_count(tmp_path: Path) -> None:
    """Audit 55's 2-MB one-line file: 1,743 passages of 1,200 characters made 95,644 node and edge texts, where 8 a
    passage said 13,944. The node and edge texts and the extraction scale with the characters: one file of long
    passages costs more than one of as many short ones."""
    from core.graph.chunking import PassageSplit
    from core.index.estimate import ITEMS_PER_CHAR, inputs_build_estimate

    sentence = "Ansel Brisk built the viaduct at Pell Gorge for the Orlen County Council in 1896. "
    long, short = tmp_path / "long.txt", tmp_path / "short.txt"
    long.write_text(sentence * 150, encoding="utf-8")  # one line: packed into passages of up to 1,200 characters
    short.write_text("\n\n".join([sentence.strip()] * 10), encoding="utf-8")
    emb = get_embedder("hashing")
    ticks = itertools.count()
    s_long, how = inputs_build_estimate([long], emb, sample=4, clock=lambda: float(next(ticks)))
    items = int(re.search(r"then about ([\d,]+) node and edge texts", how).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert how.startswith("11 passages (") and items == pytest.approx(len(sentence * 150) * ITEMS_PER_CHAR, rel=0.02)
    s_short, how_short = inputs_build_estimate([short], emb, sample=4, clock=lambda: float(next(ticks)),
                                               passages=PassageSplit(per_paragraph=True))
    assert how_short.startswith("10 passages (")
    assert s_long > 5 * s_short  # ~15 times the characters, about as many passages


def test_a_busy_machine_stretches_the_extraction_and_the_start(tmp_path: Path) -> None:
    """Audit 57 timed an 8-file build estimated at 6 s at 19 s on a machine busy with other work: spaCy's load took
    10–21 s where 2.5 s was counted. The embedding is timed just now (it shares the CPU as the build will); the
    quiet-machine rates of the extraction and the start are stretched by the load average, and the figure says so."""
    from core.index.estimate import MAX_SLOWDOWN, inputs_build_estimate, load_slowdown

    assert load_slowdown(load=0.3, cores=2) == 1.0 and load_slowdown(load=1.0, cores=2) == 1.0
    assert load_slowdown(load=3.0, cores=2) == pytest.approx(2.0)
    assert load_slowdown(load=40.0, cores=2) == MAX_SLOWDOWN
    doc = tmp_path / "a.txt"
    doc.write_text("Ansel Brisk built the viaduct at Pell Gorge for the Orlen County Council in 1896. " * 40)
    emb = get_embedder("hashing")
    quiet, how_quiet = inputs_build_estimate([doc], emb, sample=4, clock=lambda: 0.0, load=0.0)
    busy, how_busy = inputs_build_estimate([doc], emb, sample=4, clock=lambda: 0.0, load=1000.0)
    assert "the machine is busy)" not in how_quiet and "(×4.0: the machine is busy)" in how_busy
    assert busy == pytest.approx(MAX_SLOWDOWN * quiet)  # the clock stands still: no embedding time, all stretched
