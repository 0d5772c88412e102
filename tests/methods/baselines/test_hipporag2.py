"""HippoRAG 2: its PPR over phrases and passages against networkx on a graph built here from the code's rules,
seed weights against a hand computation, recognition memory (scripted LLM, `none` mode, garbage), the dense
fallbacks, the diagnosis and bad input."""

from __future__ import annotations

import json
import re

import networkx as nx
import numpy as np
import pytest

from core.backends.base import LLMResponse
from core.errors import ConfigError, EmptyGraphError, QueryError
from core.graph.graph_builder import GraphBuilder
from core.methods.base import Backends, Gold
from core.methods.baselines import hipporag2
from core.methods.baselines import hipporag2_prompts as prompts
from core.methods.baselines.config import PPRConfig
from core.methods.baselines.diagnosis import diagnose_hipporag2
from core.methods.baselines.hipporag2_config import HippoRAG2Config
from core.methods.baselines.hipporag2_graph import joint_graph, synonym_weights
from core.methods.baselines.hipporag2_linking import LinkedFact
from core.methods.baselines.hipporag2_seeds import passage_seeds, phrase_seeds
from core.methods.baselines.ppr_graph import passage_incidence
from core.methods.baselines.ppr_synonyms import workspace_synonyms
from tests.fakes import ScriptedLLM

KEANU = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
KEANU_GOLD = ("matrix", "agent-smith")  # the demo's supporting passages (The Matrix, Agent Smith)


def _dense(ws, backends, q):
    return ws.index("chunks", backends.embedder).scores(backends.embed_query(q)).astype(np.float64)


def _oracle_graph(graph, pairs, sims):
    """HippoRAG 2's graph as its code builds it, edge by edge, as a networkx multigraph: each triple occurrence
    stored once per direction (add_fact_edges), one edge per passage and phrase it contains (add_passage_edges),
    a synonym edge from every phrase with more than two letters or digits to its partners (add_synonymy_edges)."""
    g = nx.MultiGraph()
    g.add_nodes_from(("e", v) for v in range(graph.n_nodes))
    g.add_nodes_from(("p", c) for c in range(graph.n_chunks))
    for e in range(graph.n_edges):
        h, t = int(graph.edge_head[e]), int(graph.edge_tail[e])
        if h == t:
            continue
        for _ in range(max(1, len(graph.edge_chunks[e]))):
            g.add_edge(("e", h), ("e", t), weight=1.0)
            g.add_edge(("e", t), ("e", h), weight=1.0)
    for v, cids in enumerate(graph.node_chunks):
        for cid in set(cids):
            if cid in graph.chunk_index:
                g.add_edge(("p", graph.chunk_index[cid]), ("e", v), weight=1.0)
    partners: dict[int, list[tuple[float, int]]] = {}
    for (a, b), s in zip(pairs.tolist(), sims.tolist()):
        partners.setdefault(a, []).append((s, b))
        partners.setdefault(b, []).append((s, a))
    for a, near in partners.items():
        if len(re.sub("[^A-Za-z0-9]", "", graph.node_names[a])) > 2:
            for s, b in sorted(near, key=lambda sb: (-sb[0], sb[1]))[:101]:
                g.add_edge(("e", a), ("e", b), weight=s)
    return g


def test_ppr_on_the_joint_graph_matches_networkx(demo_ws, backends):
    """The run's passage scores are networkx's PageRank of the code's graph with the run's seeds as the
    personalization (damping 0.5), synonym edges included (threshold 0.5 gives the hashing embedder some)."""
    cfg = HippoRAG2Config(synonym_threshold=0.5)
    res = hipporag2.run(KEANU, demo_ws, config=cfg, backends=backends)
    graph = demo_ws.graph
    syn = workspace_synonyms(demo_ws, backends.embedder, 0.5)
    assert syn.pairs.shape[0] > 0 and res.walked_graph is not None and res.walked_graph.synonym_edges > 0
    g = _oracle_graph(graph, syn.pairs, syn.sims)
    dense = _dense(demo_ws, backends, KEANU)
    pers = {("p", c): float(x) for c, x in enumerate((dense - dense.min()) / (dense.max() - dense.min()) * 0.05)}
    for s in res.phrase_seeds:
        pers[("e", s.node)] = s.weight
    oracle = nx.pagerank(g, alpha=0.5, personalization=pers, weight="weight", tol=1e-13, max_iter=1000)
    for c in res.ranked_chunks:
        assert c.score == pytest.approx(oracle[("p", graph.chunk_index[c.chunk_id])], abs=1e-8), c.chunk_id
    scores = [c.score for c in res.ranked_chunks]
    assert scores == sorted(scores, reverse=True) and len(scores) == graph.n_chunks
    walk = res.walk
    assert walk is not None and walk.converged and walk.damping == 0.5
    assert walk.phrase_mass == pytest.approx(sum(oracle[("e", v)] for v in range(graph.n_nodes)), abs=1e-8)
    assert walk.phrase_mass + walk.passage_mass == pytest.approx(1.0)
    best = max(range(graph.n_nodes), key=lambda v: oracle[("e", v)])
    assert res.node_ranking[0] == best and walk.top_phrases[0]["name"] == graph.node_names[best]


def test_the_joint_graph_weights_follow_the_code():
    """Toy graph: a fact pair weighs 2 per triple occurrence, a passage–phrase edge 1, a synonym its cosine once
    per side whose name is long enough."""
    b = GraphBuilder(name="toy")
    c1, c2 = b.add_chunk("one", "Ann met Bo."), b.add_chunk("two", "Ann met Bo again.")
    b.add_triple("Ann", "met", "Bo", chunk_id=c1)
    b.add_triple("Ann", "met", "Bo", chunk_id=c2)  # the same triple in a second passage
    b.add_triple("Bo", "knows", "Bo", chunk_id=c2)  # a loop: the code skips it
    g = b.build()
    ann, bo = g.node("Ann"), g.node("Bo")
    jg = joint_graph(g, passage_incidence(g), synonyms=(np.array([[ann, bo]]), np.array([0.9])))
    a = jg.adjacency.toarray()
    # Ann–Bo: 2 occurrences × 2 directions, plus 0.9 from Ann's side ("Bo" has only two letters)
    assert a[ann, bo] == pytest.approx(4.9) and a[bo, ann] == pytest.approx(4.9)
    assert a[ann, 2 + g.chunk_index[c1]] == 1 and a[bo, 2 + g.chunk_index[c2]] == 1 and a[bo, bo] == 0
    assert (jg.n_phrases, jg.n_passages, jg.fact_pairs, jg.passage_edges, jg.synonym_edges) == (2, 2, 1, 4, 1)
    assert jg.passages_per_phrase.tolist() == [2, 2]


def test_synonym_edges_stop_after_the_codes_limit():
    pairs = np.array([[0, j] for j in range(1, 6)])
    sims = np.array([0.81, 0.95, 0.9, 0.85, 0.9])
    src, dst, cos = synonym_weights(pairs, sims, ["Alpha"] + ["Beta"] * 5, per_phrase=3)
    out = [(int(s), int(d), float(c)) for s, d, c in zip(src, dst, cos) if s == 0]
    assert out == [(0, 2, 0.95), (0, 3, 0.9), (0, 5, 0.9)]  # the three most similar partners, ties by node order
    assert sorted(int(d) for s, d in zip(src, dst) if s != 0) == [0] * 5  # each partner's one edge back


def test_seed_weights_by_hand():
    """Ann (2 passages) is named by facts scored 1.0 and 0.6: (1.0/2 + 0.6/2) / 2 = 0.4; Bo (1 passage): 1.0;
    Cy (2 passages): (0.6/2 + 0.2/2) / 2 = 0.2; Di (1 passage): 0.2 / 1 = 0.2, cut by top-3 (Cy was named first)."""
    b = GraphBuilder(name="toy")
    c1, c2, c3 = (b.add_chunk(t, t) for t in ("one", "two", "three"))
    b.add_triple("Ann", "r", "Bo", chunk_id=c1)
    b.add_triple("Ann", "s", "Cy", chunk_id=c2)
    b.add_triple("Cy", "t", "Di", chunk_id=c3)
    g = b.build()
    inc = passage_incidence(g)
    per = np.asarray(inc.sum(axis=0)).reshape(-1)
    v = {n: g.node(n) for n in ("Ann", "Bo", "Cy", "Di")}
    facts = [LinkedFact(0, v["Ann"], v["Bo"], "Ann", "r", "Bo", 1.0, 0.9),
             LinkedFact(1, v["Ann"], v["Cy"], "Ann", "s", "Cy", 0.6, 0.7),
             LinkedFact(2, v["Cy"], v["Di"], "Cy", "t", "Di", 0.2, 0.5)]
    top, rest = phrase_seeds(facts, lambda n: int(per[n]), 3)
    assert [(s.name, s.facts, s.passages) for s in top] == [("Bo", 1, 1), ("Ann", 2, 2), ("Cy", 2, 2)]
    assert [s.weight for s in top] == pytest.approx([1.0, 0.4, 0.2])
    assert [(s.name, s.weight) for s in rest] == [("Di", pytest.approx(0.2))]
    assert passage_seeds(np.array([0.1, 0.5, 0.3]), 0.05) == pytest.approx([0.0, 0.05, 0.025])
    assert passage_seeds(np.array([0.3, 0.3]), 0.05) == pytest.approx([0.05, 0.05])  # all equal: min-max gives 1


def test_none_mode_keeps_the_linked_facts_and_says_so(demo_ws, backends):
    res = hipporag2.run(KEANU, demo_ws, backends=backends)
    assert len(res.linked) == 5 and res.kept == res.linked
    assert res.recognition is not None and res.recognition.by == "unfiltered"
    step = res.trace.stage("recognition_memory")[0]
    assert step.fallback == "no LLM configured (`none` mode); the 5 linked facts are kept unfiltered"
    assert step.data["kept"] == [0, 1, 2, 3, 4]
    scores = [f.score for f in res.linked]
    assert scores[0] == 1.0 and scores == sorted(scores, reverse=True)  # min-max normalised, best first
    assert [s.stage for s in res.trace.steps] == [
        "fact_linking", "recognition_memory", "graph", "seeds", "ppr", "passage_ranking", "answer"]


def test_the_keanu_question_finds_its_gold_passages(demo_ws, backends):
    res = hipporag2.run(KEANU, demo_ws, backends=backends)
    top5 = [c.chunk_id for c in res.ranked_chunks[:5]]
    assert set(KEANU_GOLD) <= set(top5), top5
    assert res.seeds is not None and res.seeds.passage_node_weight == 0.05 and res.seeds.passage_seed_mass > 0
    # the five heaviest phrases of the kept facts seed the walk; the rest are listed as dropped
    named = {v for f in res.kept for v in (f.head, f.tail)}
    assert len(res.phrase_seeds) == 5 and len(res.phrase_seeds) + len(res.seeds.phrase_dropped) == len(named)


def _llm(filter_reply):
    """A scripted LLM whose recognition-memory reply is ``filter_reply`` and whose answer is fixed."""
    def reply(messages):
        if messages[0].content == prompts.FILTER_SYSTEM:
            return LLMResponse(filter_reply, 40, 8)
        return LLMResponse("Hugo Weaving", 50, 3)
    return ScriptedLLM(reply)


def test_the_llm_keeps_some_facts(demo_ws, backends):
    llm = _llm(json.dumps({"facts": ["f5", "f4"]}))
    res = hipporag2.run(KEANU, demo_ws, backends=Backends(backends.embedder, llm))
    assert res.kept == (res.linked[4], res.linked[3])  # the LLM's order
    assert res.recognition is not None and res.recognition.by == "llm"
    assert res.recognition.verdict == "the LLM kept 2 of the 5 linked facts"
    assert not res.trace.stage("recognition_memory")[0].fallback
    named = {n for f in res.kept for n in (f.head, f.tail)}
    assert {s.node for s in res.phrase_seeds} == named  # only the kept facts seed phrases
    call = llm.calls[0]
    assert call.json_schema == prompts.filter_schema(5)
    assert call.json_schema["properties"]["facts"]["maxItems"] == 4
    assert all(f"f{i}: {f.subject} | {f.relation} | {f.object}" in call.messages[-1].content
               for i, f in enumerate(res.linked, start=1))
    assert res.answer == "Hugo Weaving"


def test_the_llm_keeps_no_fact_so_dense_retrieval_is_returned(demo_ws, backends):
    res = hipporag2.run(KEANU, demo_ws, backends=Backends(backends.embedder, _llm('{"facts": []}')))
    assert res.kept == () and res.recognition is not None and res.recognition.by == "llm"
    assert res.dense_fallback is not None and res.walk is None and res.node_ranking == ()
    step = res.trace.stage("dense_fallback")[0]
    assert step.fallback.startswith("recognition memory kept no linked fact; HippoRAG 2 then returns dense")
    dense = _dense(demo_ws, backends, KEANU)
    want = [demo_ws.graph.chunks[i].id for i in np.lexsort((np.arange(dense.size), -dense))[:10]]
    assert [c.chunk_id for c in res.ranked_chunks[:10]] == want
    assert res.ranked_chunks[0].score == 1.0  # min-max normalised, as the code's dense_passage_retrieval


@pytest.mark.parametrize("garbage", ["I would keep the first fact.", '{"facts": ["f9"]}', '{"facts": "f1"}'])
def test_an_unusable_reply_keeps_the_facts_unfiltered_and_says_so(demo_ws, backends, garbage):
    llm = _llm(garbage)
    res = hipporag2.run(KEANU, demo_ws, backends=Backends(backends.embedder, llm))
    step = res.trace.stage("recognition_memory")[0]
    assert step.fallback.startswith("LLM output unusable") and step.fallback.endswith(
        "; the 5 linked facts are kept unfiltered")
    assert res.kept == res.linked and res.recognition is not None and res.recognition.by == "unfiltered"
    assert step.llm_json["calls"] == 1 and step.llm_json["rejected"] == 3  # asked three times, then the fallback
    assert res.walk is not None  # the walk still ran, from the unfiltered facts


def test_the_filter_reply_check_names_the_problem():
    assert prompts.check_filter_reply({"facts": ["f2", "f1", "f2"]}, 3) == [1, 0]
    with pytest.raises(ValueError, match=r'^"facts" may hold only the offered ids f1, f2, f3; got \'f4\'$'):
        prompts.check_filter_reply({"facts": ["f4"]}, 3)
    with pytest.raises(ValueError, match=r"^keep at most 4 facts, not 5$"):
        prompts.check_filter_reply({"facts": [f"f{i}" for i in range(1, 6)]}, 6)
    with pytest.raises(ValueError, match=r'^the output has no "facts" list$'):
        prompts.check_filter_reply(["f1"], 3)


def test_recognition_memory_off_is_the_papers_ablation(demo_ws, backends):
    llm = _llm('{"facts": []}')
    res = hipporag2.run(KEANU, demo_ws, config=HippoRAG2Config(recognition_memory=False),
                        backends=Backends(backends.embedder, llm))
    assert res.kept == res.linked and res.recognition is not None and res.recognition.by == "unfiltered"
    assert "w/o filter" in res.recognition.verdict and not res.trace.stage("recognition_memory")[0].fallback
    assert all(c.messages[0].content != prompts.FILTER_SYSTEM for c in llm.calls)  # the LLM was not asked


def test_a_corpus_graph_has_no_facts_and_returns_dense_retrieval(corpus_ws, backends):
    res = hipporag2.run("agentic RAG prompting", corpus_ws, backends=backends)
    assert res.dense_fallback is not None and res.linked == ()
    assert res.trace.stage("dense_fallback")[0].fallback == (
        "this workspace is a corpus graph: it has passages but no facts to link; HippoRAG 2 returns dense passage "
        "retrieval")


def test_a_region_walk_says_so_and_stays_in_the_region(demo_ws, backends):
    res = hipporag2.run(KEANU, demo_ws, config=HippoRAG2Config(region_hops=1), backends=backends)
    step = res.trace.stage("graph")[0]
    assert re.match(r"^the walk covers the \d+ phrases within 1 hops of the phrase seeds, not the whole graph",
                    step.fallback), step.fallback
    ends = sorted({v for f in res.kept for v in (f.head, f.tail)})
    region = set(demo_ws.graph.khop(ends, 1).tolist())
    assert set(res.node_ranking) <= region and res.walked_graph is not None
    assert res.walked_graph.phrases == len(region) and res.walked_graph.passages == demo_ws.graph.n_chunks


def test_the_diagnosis_names_the_stage_that_lost_the_gold(demo_ws, backends):
    """The LLM keeps two facts about other films: the facts naming The Matrix's entities were filtered out."""
    gold = Gold("matrix-villain", KEANU_GOLD, ("Hugo Weaving",))
    res = hipporag2.run(KEANU, demo_ws, backends=Backends(backends.embedder, _llm('{"facts": ["f1", "f3"]}')))
    assert {f.text for f in res.kept} == {f.text for f in (res.linked[0], res.linked[2])}
    d = diagnose_hipporag2(res, demo_ws, gold, cut=1)
    lost = d.evidence["lost"]
    assert d.stage == "no_anchor" and lost["matrix"]["lost_at"] == "recognition_memory"
    assert "The Matrix starring Keanu Reeves" in lost["matrix"]["filtered_out"]
    assert d.summary.startswith("Gold passage “The Matrix”: recognition memory filtered out the linked fact(s)")
    ok = diagnose_hipporag2(hipporag2.run(KEANU, demo_ws, backends=backends), demo_ws, gold, cut=5)
    assert ok.stage in ("ok", "answer_wrong")  # both gold passages are in the top 5 in `none` mode


def test_bad_input(demo_ws, backends, tmp_path, hashing):
    from core.index.create import create_workspace

    with pytest.raises(QueryError, match=r"^The question is empty\. Type a question to retrieve passages for\.$"):
        hipporag2.run("  ", demo_ws, backends=backends)
    with pytest.raises(ConfigError, match=r"^hipporag2 takes a HippoRAG2Config, got PPRConfig\.$"):
        hipporag2.run(KEANU, demo_ws, config=PPRConfig(), backends=backends)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^HippoRAG2Config\.damping = 1\.0 is out of range; use a number in "
                                          r"\[0, 1\)\.$"):
        HippoRAG2Config(damping=1.0)
    with pytest.raises(ConfigError, match=r"^HippoRAG2Config\.linking_top_k = 0 is out of range; use an integer"):
        HippoRAG2Config(linking_top_k=0)
    triples = tmp_path / "t.csv"
    triples.write_text("head,relation,tail\nAnn,met,Bo\n", encoding="utf-8")
    ws = create_workspace([triples], tmp_path / "kg", name="kg", embedder=hashing)
    with pytest.raises(EmptyGraphError, match=r"^Workspace 'kg' has no passages to retrieve; upload a corpus\.$"):
        hipporag2.run("Who met Bo?", ws, backends=backends)

