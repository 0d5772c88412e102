"""HippoRAG (v1) PPR: the power iteration against networkx.pagerank, seeds and passage scores."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix

from core.errors import ConfigError
from core.methods.baselines import ppr
from core.methods.baselines.ppr_entities import rule_mentions
from core.methods.baselines.ppr_graph import entity_graph, passage_incidence
from core.methods.baselines.ppr_walk import personalized_pagerank


def _random_weighted(n, p, seed):
    g = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in g.edges():
        g[u][v]["weight"] = float(rng.uniform(0.2, 2.0))
    return g


@pytest.mark.parametrize(("seed", "damping"), [(0, 0.5), (1, 0.85), (2, 0.5), (3, 0.1)])
def test_power_iteration_matches_networkx_pagerank(seed, damping):
    g = _random_weighted(60, 0.05, seed)
    g.remove_edges_from(list(g.edges([0, 1])))  # isolated (dangling) nodes, one of them a seed
    rng = np.random.default_rng(seed)
    pers = np.zeros(60)
    pers[rng.choice(np.arange(1, 60), size=4, replace=False)] = rng.uniform(0.1, 1.0, size=4)
    pers[0] = 0.5
    a = csr_matrix(nx.to_scipy_sparse_array(g, nodelist=range(60), weight="weight"))
    res = personalized_pagerank(a, pers, damping=damping, tol=1e-13, max_iter=1000)
    oracle = nx.pagerank(g, alpha=damping, personalization={i: pers[i] for i in range(60)}, weight="weight",
                         tol=1e-13, max_iter=1000)
    assert res.converged
    np.testing.assert_allclose(res.scores, [oracle[i] for i in range(60)], atol=1e-9)
    assert res.scores.sum() == pytest.approx(1.0)


def test_directed_weights_match_networkx_too():
    g = nx.gnp_random_graph(30, 0.1, seed=5, directed=True)
    a = csr_matrix(nx.to_scipy_sparse_array(g, nodelist=range(30)))
    pers = np.zeros(30)
    pers[[0, 7]] = [1.0, 3.0]
    res = personalized_pagerank(a, pers, damping=0.5, tol=1e-13, max_iter=500)
    oracle = nx.pagerank(g, alpha=0.5, personalization={0: 1.0, 7: 3.0}, tol=1e-13, max_iter=500)
    np.testing.assert_allclose(res.scores, [oracle[i] for i in range(30)], atol=1e-9)


def test_bad_personalization_is_rejected():
    a = csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match=r"^personalization must be finite, non-negative and not all zero$"):
        personalized_pagerank(a, np.zeros(3))
    with pytest.raises(ValueError, match=r"^damping must be in \[0, 1\), got 1\.0$"):
        personalized_pagerank(a, np.ones(3), damping=1.0)


def test_run_on_the_demo_kg(demo_ws, backends):
    q = "When did Lothair II's mother die?"
    res = ppr.run(q, demo_ws, config=ppr.PPRConfig(synonym_threshold=None), backends=backends)
    graph = demo_ws.graph
    seeds = res.details["seeds"]
    assert [s["entity"] for s in seeds] == ["Lothair II"] and seeds[0]["name"] == "Lothair II"
    # oracle: networkx PPR on the undirected entity graph, then passage = sum of its entities' scores
    g = nx.Graph()
    g.add_nodes_from(range(graph.n_nodes))
    g.add_edges_from((int(h), int(t)) for h, t in zip(graph.edge_head, graph.edge_tail) if h != t)
    pers = {v: 0.0 for v in range(graph.n_nodes)}
    pers[seeds[0]["node"]] = 1.0
    pr = nx.pagerank(g, alpha=0.5, personalization=pers, tol=1e-13, max_iter=1000)
    passage = {c.id: sum(pr[v] for v, cids in enumerate(graph.node_chunks) if c.id in cids) for c in graph.chunks}
    top = sorted(passage.items(), key=lambda kv: -kv[1])
    for got, (cid, score) in zip(res.ranked_chunks[:3], top[:3]):
        assert got.chunk_id == cid and got.score == pytest.approx(score, abs=1e-8)
    assert res.trace.stage("ppr")[0].data["damping"] == 0.5
    assert res.trace.stage("query_entities")[0].fallback.startswith("no LLM: query entities are the capitalized")


def test_a_seed_whose_node_lacks_the_questions_number_is_flagged(demo_ws, backends):
    """HippoRAG §3.2 links each query entity to its nearest node whatever it is; a year linked to a node without that
    year stays a seed (the paper's behaviour) and is flagged in the seeds and the trace."""
    import re

    res = ppr.run("What did Lothair II do in 1850?", demo_ws, config=ppr.PPRConfig(synonym_threshold=None),
                  backends=backends)
    seeds = res.details["seeds"]
    assert "1850" in [s["entity"] for s in seeds] and any(s["doubtful"] for s in seeds)  # no node holds 1850
    for s in seeds:  # the flag follows the names: a number of the entity the node's name lacks
        lacks = not set(re.findall(r"\d+", s["entity"])) <= set(re.findall(r"\d+", s["name"]))
        assert bool(s["doubtful"]) == lacks, s
    links = res.trace.stage("query_entities")[0].data
    assert [lk.get("doubtful", "") for lk in links["links"]] == [s["doubtful"] for s in seeds]
    assert links.get("doubtful", []) == [s["doubtful"] for s in seeds if s["doubtful"]]


def test_synonym_edges_and_incidence(demo_ws, hashing):
    g = demo_ws.graph
    vecs = demo_ws.index("nodes").vectors
    a0, n0 = entity_graph(g, node_vectors=vecs, synonym_threshold=None)
    a1, n1 = entity_graph(g, node_vectors=vecs, synonym_threshold=0.5)
    sims = vecs @ vecs.T
    brute = int(((sims >= 0.5) & np.triu(np.ones_like(sims, dtype=bool), 1)).sum())
    assert n0 == 0 and n1 == brute
    assert (a0 != a0.T).nnz == 0 and (a1 != a1.T).nnz == 0
    inc = passage_incidence(g)
    assert inc.shape == (g.n_chunks, g.n_nodes) and inc.sum() == sum(len(c) for c in g.node_chunks)


def test_corpus_graph_seeds_by_similarity(corpus_ws, backends):
    res = ppr.run("agentic RAG prompting", corpus_ws, backends=backends)
    assert res.details["graph"] == "corpus graph" and len(res.details["seeds"]) == 5
    assert np.isfinite([c.score for c in res.ranked_chunks]).all()


def test_query_entities_without_llm():
    assert rule_mentions("Who is the spouse of the Green performer?") == ["Green"]
    assert rule_mentions("When did Lothair II's mother die? In 1999?") == ["Lothair II", "1999"]
    with pytest.raises(ConfigError, match=r"^PPRConfig\.damping = 1\.0 is out of range; use a number in \[0, 1\)\.$"):
        ppr.PPRConfig(damping=1.0)


def test_the_trace_names_the_synonym_edges_that_carried_the_walk(demo_ws, backends):
    """PPR's step lists the synonymy edges leaving its seeds and joining its top nodes
    (brute force over the node vectors), and none when synonyms are off."""
    q = "When did Lothair II's mother die?"
    res = ppr.run(q, demo_ws, config=ppr.PPRConfig(synonym_threshold=0.5), backends=backends)
    step = res.trace.stage("ppr")[0]
    vecs = demo_ws.index("nodes", backends.embedder).vectors
    names = demo_ws.graph.node_names
    seeds = {s["node"] for s in res.details["seeds"]}
    top = [names.index(t["node"]) for t in step.data["top_nodes"]]
    want = set()
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            joined = (a in seeds or b in seeds) or (a in top and b in top)
            if joined and float(vecs[a] @ vecs[b]) >= 0.5:
                want.add(frozenset((names[a], names[b])))
    got = {frozenset((e["a"], e["b"])) for e in step.data["synonym_edges_walked"]}
    # a seed's edges are its 8 most similar nodes: the brute force may hold more for a seed
    assert got <= want and (got or not want)
    assert all(e["cosine"] >= 0.5 for e in step.data["synonym_edges_walked"])
    off = ppr.run(q, demo_ws, config=ppr.PPRConfig(synonym_threshold=None), backends=backends)
    assert "synonym_edges_walked" not in off.trace.stage("ppr")[0].data


def test_the_llms_kinds_and_guesses_are_not_seeds(demo_ws, backends):
    """A 1.5B model's NER list adds the question's nouns ("mother", "country"), which link to generic
    nodes of an OpenIE graph; HippoRAG's NER asks for named entities, so a kind written in lower case is
    dropped (and named in the trace), as is a name the question does not write (a guess of the answer)."""
    import json

    from core.backends.base import LLMResponse
    from core.methods.base import Backends
    from tests.fakes import ScriptedLLM

    reply = {"named_entities": ["Lothair II", "mother", "country", "Ermengarde of Tours"]}
    llm = ScriptedLLM(lambda m: LLMResponse(json.dumps(reply), 30, 20))
    q = "When did Lothair II's mother die in the country she ruled?"
    res = ppr.run(q, demo_ws, backends=Backends(backends.embedder, llm))
    step = res.trace.stage("query_entities")[0]
    assert step.data["how"] == "llm" and step.data["entities"] == ["Lothair II"]
    assert step.data["not_names"] == ["mother", "country"]
    only_kinds = ScriptedLLM(lambda m: LLMResponse(json.dumps({"named_entities": ["mother"]}), 30, 5))
    res = ppr.run(q, demo_ws, backends=Backends(backends.embedder, only_kinds))
    step = res.trace.stage("query_entities")[0]
    assert step.data["entities"] == ["Lothair II"] and step.data["how"].endswith("rules")  # the rules' mentions
    assert "not names written in the question" in step.fallback


# ------------------------------------------------------------------ synonymy pairs kept in the workspace
@pytest.fixture
def own_demo(tmp_path, hashing):
    """A demo workspace of this test's own (the synonymy file is written into it)."""
    from core.index.samples import ensure_sample_workspace

    return ensure_sample_workspace("demo", hashing, root=tmp_path)


def _brute_pairs(vecs, thr, margin=1e-5):
    """All i < j with cosine >= thr, by numpy; pairs within ``margin`` of the threshold are left out of the
    comparison (float32 products summed in another order may land either side of it)."""
    sims = vecs.astype(np.float64) @ vecs.astype(np.float64).T
    upper = np.triu(np.ones_like(sims, dtype=bool), 1)
    sure = {(int(i), int(j)) for i, j in zip(*np.nonzero(upper & (sims >= thr + margin)))}
    maybe = {(int(i), int(j)) for i, j in zip(*np.nonzero(upper & (np.abs(sims - thr) < margin)))}
    return sure, maybe


@pytest.mark.parametrize("block", [1, 7, 4096])
def test_blocked_synonym_search_matches_brute_force(block):
    from core.graph.synonyms import synonym_pairs

    rng = np.random.default_rng(0)
    base = rng.normal(size=(12, 16))
    v = np.concatenate([base, base[:6] + 0.3 * rng.normal(size=(6, 16))])  # six near-duplicates
    v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    seen = []
    pairs, sims = synonym_pairs(v, 0.8, block=block, progress=lambda m, f: seen.append(f))
    got = {tuple(p) for p in pairs.tolist()}
    sure, maybe = _brute_pairs(v, 0.8)
    assert sure <= got <= sure | maybe and sure
    assert all(i < j for i, j in got) and (sims >= 0.8 - 1e-6).all()
    assert seen[-1] == 1.0 and len(seen) == -(-18 // block)


def test_synonymy_pairs_are_found_once_and_read_back(own_demo, hashing):
    from core.methods.baselines.ppr_synonyms import has_synonyms, workspace_synonyms

    assert not has_synonyms(own_demo, hashing, 0.5)
    first = workspace_synonyms(own_demo, hashing, 0.5)
    assert first.built and has_synonyms(own_demo, hashing, 0.5)
    again = workspace_synonyms(own_demo, hashing, 0.5)
    assert not again.built and np.array_equal(again.pairs, first.pairs) and np.array_equal(again.sims, first.sims)
    sure, maybe = _brute_pairs(own_demo.index("nodes").vectors, 0.5)
    assert sure <= {tuple(p) for p in first.pairs.tolist()} <= sure | maybe
    assert not has_synonyms(own_demo, hashing, 0.6)  # another threshold is another file


def test_a_damaged_synonymy_file_is_found_again_and_said(own_demo, hashing):
    from core.methods.baselines.ppr_synonyms import _paths, workspace_synonyms

    first = workspace_synonyms(own_demo, hashing, 0.5)
    path, _ = _paths(own_demo, 0.5)
    path.write_bytes(b"not an npz")
    again = workspace_synonyms(own_demo, hashing, 0.5)
    assert again.built and "found again" in again.note
    assert np.array_equal(again.pairs, first.pairs)


@pytest.mark.parametrize("damage", ["cut", "flipped"])
def test_a_corrupt_zip_synonymy_file_is_found_again(own_demo, hashing, damage):
    """A real .npz cut short (a torn write) or with bytes changed inside a member (a bad CRC) is a zip that
    numpy cannot read: the pairs are found again, never a zipfile.BadZipFile out of the method."""
    from core.methods.baselines.ppr_synonyms import _paths, workspace_synonyms

    first = workspace_synonyms(own_demo, hashing, 0.5)
    path, _ = _paths(own_demo, 0.5)
    raw = bytearray(path.read_bytes())
    assert raw[:4] == b"PK\x03\x04" and len(raw) > 200
    if damage == "cut":
        raw = raw[: len(raw) // 2]
    else:
        raw[100:140] = bytes(b ^ 0xFF for b in raw[100:140])
    path.write_bytes(bytes(raw))
    again = workspace_synonyms(own_demo, hashing, 0.5)
    assert again.built and "found again" in again.note
    assert np.array_equal(again.pairs, first.pairs) and np.array_equal(again.sims, first.sims)


def test_the_preparation_says_first_use_only_where_no_pairs_were_found_before(own_demo, backends):
    """An audit read "first use of “quorvath-p”" before a benchmark after Add documents, PPR having run there: pairs
    of an earlier graph are found again, and said so."""
    import json

    from core.methods.baselines.ppr_synonyms import PREPARATION, _paths, workspace_synonyms

    cfg = ppr.PPRConfig(synonym_threshold=0.5)
    assert "first use of" in PREPARATION.title(own_demo, backends, cfg)
    workspace_synonyms(own_demo, backends.embedder, 0.5)
    _, meta_path = _paths(own_demo, 0.5)
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "graph": "an earlier graph"}))
    assert "again: “" in PREPARATION.title(own_demo, backends, cfg) and "changed since they were found" in \
        PREPARATION.title(own_demo, backends, cfg)
    meta_path.write_text(json.dumps({**meta, "model_id": "another embedder"}))
    assert "again, for this embedder" in PREPARATION.title(own_demo, backends, cfg)
    # after Add documents the new graph has no pairs yet: found again for what the add changed, not "first use" (an
    # audit read "first use of 'marionettes'" after an add)
    for p in _paths(own_demo, 0.5):
        p.unlink()
    own_demo.meta.data["inserts"] = [{"at": "2026-12-06T20:00:00", "added": 1}]
    assert "; documents were added to “" in PREPARATION.title(own_demo, backends, cfg)


def test_ppr_prepares_its_synonyms_and_a_new_process_reads_them(own_demo, backends):
    """The preparation is pending on a fresh workspace and not after it ran; a run in a "new process" (the
    graph's in-memory cache dropped) reads the pairs from the workspace instead of searching again."""
    from core.methods.baselines.ppr_synonyms import PREPARATION
    from core.methods.registry import get_method
    from core.methods.run import pending_preparations, prepare_method

    spec, cfg = get_method("ppr"), ppr.PPRConfig(synonym_threshold=0.5)
    assert spec.prepare is PREPARATION
    assert any(p.key.startswith("ppr-synonyms:") for p in pending_preparations(spec, own_demo, backends, cfg))
    prepare_method(spec, own_demo, backends, cfg)
    assert pending_preparations(spec, own_demo, backends, cfg) == []
    off = ppr.PPRConfig(synonym_threshold=None)
    assert not any(p.key.startswith("ppr-synonyms:") for p in
                   pending_preparations(spec, own_demo, backends, off))
    own_demo.graph.__dict__.pop("_derived", None)  # what a new process starts with
    res = ppr.run("Who is the mother of Lothair II?", own_demo, config=cfg, backends=backends)
    step = res.trace.stage("entity_graph")[0]
    assert step.data["synonyms"] == "read from the workspace" and not step.fallback
    assert step.data["synonym_edges"] > 0
