"""The re-index estimate the app shows before an embedder switch starts anything (no job over 30 s unasked):
from the manifest's recorded build rates by the same model, else measured on the workspace's own texts."""

from __future__ import annotations

import itertools
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
    from core.index.estimate import ITEMS_PER_EXTRACTED_CHUNK, sample_build_estimate

    folder = tmp_path / "samples" / "notes"
    folder.mkdir(parents=True)
    passages = [{"title": f"Note {i}", "text": f"Ada Lovelace wrote note {i} in London."} for i in range(6)]
    (folder / "corpus.json").write_text(json.dumps(passages), encoding="utf-8")
    (folder / "workspace.json").write_text(json.dumps({"name": "notes", "inputs": ["corpus.json"]}), encoding="utf-8")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(tmp_path / "samples"))
    ticks = itertools.count()
    seconds, how = sample_build_estimate("notes", get_embedder("hashing"), sample=4,
                                         clock=lambda: float(next(ticks)))
    # 6 passages: their extraction, then the passages and ~8 node and edge texts each at the passages' 1/4 s
    assert seconds == pytest.approx(6 * EXTRACT_SECONDS["spacy"] + 6 * (1 + ITEMS_PER_EXTRACTED_CHUNK) / 4)
    assert how.startswith("6 passages whose triples spaCy extracts first")


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
