"""SG-RAG end to end: the paper's Magnesium/Zinc example, decomposition rule, caps, fallback, bad input."""

from __future__ import annotations

import itertools

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.errors import ConfigError, QueryError
from core.index.create import create_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends, MethodResult
from core.methods.registry import get_method
from core.methods.sgrag import SGRAGConfig, bridge_star, run
from core.methods.sgrag.decomposition import choose_l, decompose
from core.methods.sgrag.query_graph import QNode, QueryGraph, link_mentions
from tests.methods.sgrag.conftest import MAGNESIUM_TRIPLES, write_triples

QUESTION = "Which element is associated with bone formation, thyroid health, hormone metabolism, and immune system?"


@pytest.fixture(scope="module")
def hashing() -> HashingEmbedder:
    return HashingEmbedder(dim=128)


@pytest.fixture(scope="module")
def mg_ws(tmp_path_factory: pytest.TempPathFactory, hashing: HashingEmbedder) -> Workspace:
    root = tmp_path_factory.mktemp("mg")
    return create_workspace([write_triples(root / "in" / "triples.csv", MAGNESIUM_TRIPLES)], root / "ws",
                            name="minerals", embedder=hashing)


@pytest.fixture(scope="module")
def none_backends(hashing: HashingEmbedder) -> Backends:
    return Backends(hashing, NoLLM())


def test_magnesium_zinc_example_end_to_end(mg_ws: Workspace, none_backends: Backends) -> None:
    r = run(QUESTION, mg_ws, backends=none_backends)
    assert isinstance(r, MethodResult)
    assert sorted(n.label for n in r.query_graph.nodes if not n.unknown) == [
        "Bone formation", "Hormone metabolism", "Immune system", "Thyroid health"]
    assert all(not m.doubtful for m in r.normalized.mappings)
    assert r.decomposition is not None and r.decomposition.l == 1 and r.decomposition.d_q == 2
    assert len(r.decomposition.paths) == 4
    # completion: the intersection of the four constraints leaves only Magnesium (Zinc is the distractor)
    names = {u: [r.trace.stage("completion")[0].data["candidates"][u]] for u in r.completion.unknown}
    assert names == {"q0": [["Magnesium"]]}
    assert len(r.assembly.subgraphs) == 1 and not r.fallback
    assert r.answer == "Magnesium" and r.answer_detail.by == "unk-binding"
    stages = [s.stage for s in r.trace.steps]
    for st in ("dominance_model", "query_graph", "normalization", "decomposition", "index", "completion",
               "matching", "assembly", "answer"):
        assert st in stages


def test_paper_completion_without_intersection_still_finds_only_magnesium(mg_ws, none_backends) -> None:
    r = run(QUESTION, mg_ws, backends=none_backends, config=SGRAGConfig(intersect_completion=False))
    assert len(r.completion.instantiations) > 1  # one path's neighbours: Magnesium and a distractor
    assert r.answer == "Magnesium" and len(r.assembly.subgraphs) == 1


def test_zinc_question(mg_ws, none_backends) -> None:
    r = run("Which element influences thyroid health, wound healing and taste perception?", mg_ws,
            backends=none_backends)
    assert r.answer == "Zinc"


def test_two_constraints_shared_by_both_stars(mg_ws, none_backends) -> None:
    # one entity is linked ("thyroid health" reads as a description), so the star (bridge_hops=1), not the chain
    r = run("Which element influences thyroid health and the immune system?", mg_ws, backends=none_backends,
            config=SGRAGConfig(bridge_hops=1))
    assert sorted(r.answer_detail.bindings) == ["Magnesium", "Zinc"]


def test_fallback_when_nothing_matches(mg_ws, none_backends) -> None:
    r = run("Which element is linked to taste perception and muscle contraction?", mg_ws, backends=none_backends)
    assert r.fallback
    fb = r.trace.stage("fallback")[0]
    assert fb.fallback.startswith("no exact subgraph matched the query graph: ")  # and why (pipeline.why_no_match)
    assert set(fb.data["edge_texts"]) == {"Zinc affects Taste perception", "Calcium regulates Muscle contraction"}
    assert r.answer in {"Zinc", "Calcium"}  # neighbours of the known entities


def test_fallback_when_no_entity(mg_ws, none_backends) -> None:
    r = run("What is the meaning of life?", mg_ws, backends=none_backends)
    assert r.fallback and r.answer == "Unable to determine"
    assert "no edges" in r.trace.stage("fallback")[0].fallback
    # nothing was guessed, so the answer is not called "the neighbour that touches most of them" (an audit)
    assert r.answer_detail.by == "none"


def test_registered_and_ranked_chunks(tmp_path, hashing) -> None:
    """The ranked chunks are the provenance of the matched subgraph's edges: with one source chunk per
    head entity, the Magnesium match cites exactly doc-magnesium (the old test looped over no chunks)."""
    import csv

    (tmp_path / "in").mkdir()
    with (tmp_path / "in" / "t.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["head", "relation", "tail", "source"])
        w.writerows([h, r, t, f"doc-{h.lower()}"] for h, r, t in MAGNESIUM_TRIPLES)
    ws = create_workspace([tmp_path / "in" / "t.csv"], tmp_path / "ws", name="minerals-src", embedder=hashing)
    r = get_method("sgrag").run(QUESTION, ws, backends=Backends(hashing, NoLLM()))
    assert r.answer == "Magnesium" and not r.fallback
    assert [c.chunk_id for c in r.ranked_chunks] == ["doc-magnesium"]
    expected = {c for s in r.assembly.subgraphs for e in s.edges for c in ws.graph.edge_chunks[e]}
    assert {c.chunk_id for c in r.ranked_chunks} == expected


def test_a_dominance_model_that_did_not_converge_disables_the_filter(mg_ws, none_backends) -> None:
    """A model that still violates Eq. 14 would prune true matches silently: the filter is off and the
    trace says so; the label-only match still finds Magnesium."""
    from core.methods.sgrag.config import DominanceConfig

    r = run(QUESTION, mg_ws, backends=none_backends, dominance=DominanceConfig(max_epochs=1, margin=5.0))
    step = r.trace.stage("dominance_model")[0]
    assert step.data["converged"] is False and step.data["dominance_filter"] is False
    assert "did not converge" in step.fallback and "dominance filter is disabled" in step.fallback
    assert r.answer == "Magnesium"
    ok = run(QUESTION, mg_ws, backends=none_backends)
    ok_step = ok.trace.stage("dominance_model")[0]
    assert ok_step.data["converged"] is True and ok_step.data["dominance_filter"] is True
    assert "did not converge" not in ok_step.fallback


def test_bad_input(mg_ws, none_backends) -> None:
    with pytest.raises(QueryError, match="question is empty"):
        run("   ", mg_ws, backends=none_backends)
    with pytest.raises(ConfigError, match=r"l=3 is outside the paper's rule .* \[1, 2\]"):
        run(QUESTION, mg_ws, backends=none_backends, config=SGRAGConfig(l=3))
    with pytest.raises(ConfigError, match="max_subgraphs=0 must be at least 1"):
        run(QUESTION, mg_ws, backends=none_backends, config=SGRAGConfig(max_subgraphs=0))


def test_completion_cap_is_reported(mg_ws, none_backends) -> None:
    r = run("Which element influences thyroid health and the immune system?", mg_ws, backends=none_backends,
            config=SGRAGConfig(max_candidates=1, bridge_hops=1))
    data = r.trace.stage("completion")[0].data
    assert data["capped_candidates"] and data["found"]["q0"] == 2
    assert len(r.assembly.subgraphs) == 1


def test_l2_matches_the_same_subgraph(mg_ws, none_backends) -> None:
    r = run(QUESTION, mg_ws, backends=none_backends, config=SGRAGConfig(l=2))
    assert r.decomposition.l == 2 and r.answer == "Magnesium"
    assert all(len(p) == 3 for p in r.decomposition.paths)


# ---------------------------------------------------------------- decomposition (Alg. 4)
def _path_qg(n: int) -> QueryGraph:
    nodes = tuple(QNode(f"q{i}", f"n{i}") for i in range(n))
    return QueryGraph(nodes, tuple((f"q{i}", f"q{i + 1}") for i in range(n - 1)))


def test_l_rule() -> None:
    assert choose_l(bridge_star(["a", "b", "c"]))[::2] == (1, (1, 2))
    assert choose_l(_path_qg(5))[::2] == (2, (2, 4))
    assert choose_l(_path_qg(6))[::2] == (3, (3, 5))
    with pytest.raises(ConfigError, match=r"\[2, 4\]"):
        choose_l(_path_qg(5), 1)


@pytest.mark.parametrize("l", [2, 3, 4])
def test_decomposition_covers_every_edge_with_length_l_paths(l: int) -> None:  # noqa: E741 - l is the paper's path length
    qg = _path_qg(5)
    d = decompose(qg, l)
    covered = {frozenset(e) for p in d.paths for e in itertools.pairwise(p)}
    assert covered == {frozenset(e) for e in qg.edges}
    assert all(len(p) == l + 1 and len(set(p)) == l + 1 for p in d.paths)
    for p in d.paths:  # every consecutive pair is a query edge
        for a, b in itertools.pairwise(p):
            assert (a, b) in qg.edges or (b, a) in qg.edges


def test_decomposition_prefers_high_degree_paths() -> None:
    # bridge star with l=2: each path goes through the UNK hub; 3 leaves need 2 paths
    d = decompose(bridge_star(["a", "b", "c"]), 2)
    assert len(d.paths) == 2 and all(p[1] == "q0" for p in d.paths)
    assert d.cost == -2 * (3 + 1 + 1)


def test_link_mentions_ignores_stopwords(mg_ws) -> None:
    assert link_mentions("Is the Immune system linked to Zinc?", mg_ws.graph) == ["Immune system", "Zinc"]


def test_quoted_names_are_the_only_mentions(mg_ws) -> None:
    q = 'Which element is related to "Thyroid health" (like Zinc) and "Taste perception" (affects)?'
    assert link_mentions(q, mg_ws.graph) == ["Thyroid health", "Taste perception"]


def test_the_first_training_has_an_estimate_so_the_app_asks_before_a_long_one(fb_slice):
    """SG-RAG's dominance training is a preparation over 30 s on a large KG: it states its estimate (the measured
    edges/s), which grows with the graph, so the app asks first instead of starting it on a page visit."""
    from types import SimpleNamespace

    from core.methods.registry import get_method
    from core.methods.sgrag.pipeline import PREPARATION, TRAIN_S_PER_EDGE

    assert get_method("sgrag").prepare is PREPARATION
    small, how = PREPARATION.estimate(SimpleNamespace(graph=SimpleNamespace(n_edges=100)), None, None)
    assert small == 5.0 and "100 KG edges" in how  # the floor: imports and label vectors
    big, _ = PREPARATION.estimate(SimpleNamespace(graph=fb_slice), None, None)
    assert big == max(5.0, fb_slice.n_edges * TRAIN_S_PER_EDGE)
    huge, _ = PREPARATION.estimate(SimpleNamespace(graph=SimpleNamespace(n_edges=272_115)), None, None)
    assert huge > 30  # FB15k-237 train: asked first
