"""HippoRAG 2 on a graph store (FalkorDB): it walks the region within ``region_hops`` (3) of its phrase seeds, read
from the store without loading the whole graph, and returns exactly what the same region gives in memory."""

from __future__ import annotations

import pytest

from core.index.questions import load_questions
from core.index.workspace import Workspace
from core.methods.baselines import hipporag2
from core.methods.baselines.hipporag2_config import HippoRAG2Config
from tests.methods.store_helpers import no_whole_graph, store_pair


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server, hashing) -> tuple[Workspace, Workspace]:
    return store_pair("demo", tmp_path_factory.mktemp("hipporag2_demo"), falkordb_server, hashing, "hipporag2_demo")


def test_the_store_walks_the_seeds_region_and_matches_memory(demo_pair, backends, monkeypatch):
    mem, remote = demo_pair
    no_whole_graph(monkeypatch)
    for q in [q.question for q in load_questions(mem)]:
        a = hipporag2.run(q, mem, config=HippoRAG2Config(region_hops=3), backends=backends)
        b = hipporag2.run(q, remote, backends=backends)
        assert [(c.chunk_id, round(c.score, 9)) for c in a.ranked_chunks] == [
            (c.chunk_id, round(c.score, 9)) for c in b.ranked_chunks], q
        assert a.answer == b.answer and a.node_ranking == b.node_ranking
        assert [f.text for f in a.kept] == [f.text for f in b.kept]
        fallback = b.trace.stage("graph")[0].fallback
        assert "within 3 hops of the phrase seeds, read from the graph store" in fallback, fallback
        assert b.walked_graph is not None and b.walked_graph.region is not None
        assert b.walked_graph.region["store"].startswith("falkordb://")
    assert "graph" not in remote.__dict__  # Workspace.graph was never read
