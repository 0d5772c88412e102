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
