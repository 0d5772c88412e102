"""Candidate pool (D.1), compression (D.2), LLM selection (D.3) and DDE."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.graph.graph_builder import graph_from_triples
from core.methods.reg.candidates import all_shortest_paths, candidate_pool
from core.methods.reg.compression import compress
from core.methods.reg.dde import dde
from core.methods.reg.selection import WEAK_LABEL
from core.methods.reg.supervision import QAItem, build_supervision
from core.trace import Trace
from tests.fakes import ScriptedLLM


def test_shortest_paths_match_networkx_on_a_random_graph() -> None:
    rng = np.random.default_rng(3)
    pairs = {(min(a, b), max(a, b)): (a, b) for a, b in rng.integers(0, 40, size=(70, 2)).tolist() if a != b}
    triples = [(f"n{a}", "r", f"n{b}") for a, b in pairs.values()]
    g = graph_from_triples(triples)
    ug = nx.Graph()
    ug.add_nodes_from(range(g.n_nodes))
    ug.add_edges_from(zip(g.edge_head.tolist(), g.edge_tail.tolist()))
    multi = {(min(h, t), max(h, t)) for h, t in zip(g.edge_head.tolist(), g.edge_tail.tolist())}
    assert len(multi) == g.n_edges  # no parallel edges: node paths identify edge paths
    checked = 0
    for s, t in itertools.combinations(range(0, g.n_nodes, 3), 2):
        ours, d = all_shortest_paths(g, s, t, max_len=10, max_paths=10_000)
        if not nx.has_path(ug, s, t):
            assert d is None and ours == []
            continue
        want = {tuple(p) for p in nx.all_shortest_paths(ug, s, t)}
        assert {n for n, _ in ours} == want
        assert d == nx.shortest_path_length(ug, s, t)
        for nodes, edges in ours:
            for i, e in enumerate(edges):
                assert {int(g.edge_head[e]), int(g.edge_tail[e])} == {nodes[i], nodes[i + 1]}
        checked += 1
    assert checked > 20


def test_candidate_pool_and_compression(matrix_graph) -> None:
    g = matrix_graph
    q = [g.node("Keanu Reeves"), g.node("Laurence Fishburne")]
    a = [g.node("Hugo Weaving"), g.node("Agent Smith")]
    tr = Trace("reg", "q")
    pool = candidate_pool(g, q, a, max_len=4, trace=tr)
    sp = pool.of_kind("shortest")
    assert {p.text(g) for p in sp if p.source == q[0] and p.target == a[0]} == {
        "Keanu Reeves ← [starring] ← The Matrix → [starring] → Hugo Weaving"}
    assert pool.distance[(q[0], a[0])] == 2 and pool.distance[(q[0], a[1])] == 2
    # query-centric: every edge at Keanu (2) and Laurence (2); answer-centric: Hugo (2) and Agent Smith (2)
    assert len(pool.of_kind("query_1hop")) == 4 and len(pool.of_kind("answer_1hop")) == 4
    comp = compress(pool, g, trace=tr)
    assert comp.answer == a[0]  # Hugo: closer-or-equal and first
    assert all(p.target == a[1] or p.source == a[1] for p in comp.removed)
    assert comp.raw == len(pool.paths)
    assert len(comp.candidates) < comp.raw and comp.ratio == len(comp.candidates) / comp.raw
    # relation-chain merging: Keanu's two "← [starring] ←" neighbours are one candidate
    keanu = [c for c in comp.candidates if c.kind == "query_1hop" and c.representative.source == q[0]]
    assert len(keanu) == 1 and len(keanu[0].members) == 2 and "(+1 similar)" in keanu[0].text(g)
    assert [s.stage for s in tr.steps] == ["candidate_pool", "compression"]


def _sup(llm, matrix_graph, **kw):
    item = QAItem("1", "Who played the villain in the film Keanu Reeves and Laurence Fishburne starred in?",
                  ("Hugo Weaving",))
    return build_supervision(item, matrix_graph, llm, trace=kw.pop("trace", None), **kw)


def test_none_mode_is_the_weak_signal_clearly_labelled(matrix_graph) -> None:
    tr = Trace("reg", "q")
    s = _sup(NoLLM(), matrix_graph, trace=tr)
    assert s.selection.mode == "weak" and s.refined == s.weak == s.pool.shortest_edges
    step = tr.stage("selection")[0]
    assert WEAK_LABEL in step.fallback and step.data["label"] == WEAK_LABEL


def test_llm_selection_refines_the_labels(matrix_graph) -> None:
    llm = ScriptedLLM(json.dumps({"explanation": "x", "selected": [0]}))
    s = _sup(llm, matrix_graph)
    assert s.selection.mode == "llm" and s.selection.selected == (0,)
    assert set(s.refined) == set(s.compression.candidates[0].edges)
    prompt = llm.calls[0].messages[-1].content
    assert "0. " in prompt and "→ [" in prompt and "Answer: Hugo Weaving" in prompt


@pytest.mark.parametrize("output, why", [
    ("I cannot help with that <<<", "LLM output unusable"),
    (json.dumps({"explanation": "x", "selected": [99, 100]}), "out of range"),
    (json.dumps({"explanation": "none fit", "selected": []}), "selected no candidate"),
])
def test_broken_selection_falls_back_visibly(matrix_graph, output, why) -> None:
    tr = Trace("reg", "q")
    s = _sup(ScriptedLLM(output), matrix_graph, trace=tr)
    assert s.selection.mode == "weak" and s.refined == s.weak
    step = tr.stage("selection")[0]
    assert why in step.fallback and WEAK_LABEL in step.fallback


def test_dde_on_a_toy_graph_by_hand() -> None:
    # q → a → b,  c → a,  b → q   (topic: q)
    heads, tails = np.array([0, 1, 3, 2]), np.array([1, 2, 1, 0])
    enc = dde(4, heads, tails, [0], rounds=2, reverse_rounds=2)
    assert enc.shape == (4, 10)
    one_hot = [[0, 1], [1, 0], [1, 0], [1, 0]]
    # forward 1: mean of in-neighbours' one-hots. a ← {q, c}: [.5, .5]; b ← a: [1, 0]; q ← b: [1, 0]; c: none
    f1 = [[1, 0], [.5, .5], [1, 0], [0, 0]]
    # forward 2: a ← {q, c} of f1: mean([1,0],[0,0]) = [.5, 0]; b ← a: [.5, .5]; q ← b: [1, 0]
    f2 = [[1, 0], [.5, 0], [.5, .5], [0, 0]]
    # backward 1: mean of out-neighbours' one-hots. q → a: [1,0]; a → b: [1,0]; b → q: [0,1]; c → a: [1,0]
    b1 = [[1, 0], [1, 0], [0, 1], [1, 0]]
    # backward 2: q → a: b1(a) = [1,0]; a → b: [0,1]; b → q: [1,0]; c → a: [1,0]
    b2 = [[1, 0], [0, 1], [1, 0], [1, 0]]
    want = np.concatenate([np.array(x, dtype=np.float32) for x in (one_hot, f1, f2, b1, b2)], axis=1)
    np.testing.assert_allclose(enc, want)


def _by_schema(path: int = 0, selected: tuple[int, ...] = (0,)):
    """Stepwise replies chosen by what the grammar asks for: the chain (``path``) or the facts (``selected``)."""
    def reply(messages):
        if "Paths:" in messages[-1].content:
            return json.dumps({"explanation": "x", "paths": [path]})
        return json.dumps({"explanation": "x", "needed": "some" if selected else "none", "selected": list(selected)})
    return reply


def test_stepwise_selection_keeps_a_chain_and_the_chosen_facts(matrix_graph) -> None:
    llm = ScriptedLLM(_by_schema(0, (0,)), repeat_last=True)
    tr = Trace("reg", "q")
    s = _sup(llm, matrix_graph, how="stepwise", trace=tr)
    cands = s.compression.candidates
    chains = [i for i, c in enumerate(cands) if c.kind == "shortest"]
    facts = [i for i, c in enumerate(cands) if c.kind != "shortest"]
    assert s.selection.mode == "llm" and s.selection.how == "stepwise"
    assert s.selection.selected == (chains[0], facts[0])
    assert set(s.refined) == set(cands[chains[0]].edges) | set(cands[facts[0]].edges)
    asked = [c.messages[-1].content for c in llm.calls]
    assert len(asked) == (2 if len(chains) > 1 else 1)  # one chain: kept without asking
    if len(chains) > 1:  # the chain question lists only query→answer chains, numbered from 0
        # the real paths follow the demonstration's (the last "Paths:" block)
        listed = [ln.split(". ", 1)[1] for ln in asked[0].rsplit("Paths:\n", 1)[1].splitlines() if ". " in ln[:4]]
        assert listed == [cands[i].text(matrix_graph) for i in chains]
        assert llm.calls[0].json_schema["properties"]["paths"]["items"]["enum"] == list(range(len(chains)))
    facts_call = llm.calls[-1]
    assert facts_call.json_schema["properties"]["selected"]["maxItems"] == 2
    assert tr.stage("selection")[0].data["how"] == "stepwise"


def test_stepwise_keeps_the_chain_when_the_fact_reply_is_unusable(matrix_graph) -> None:
    def reply(messages):
        return json.dumps({"explanation": "x", "paths": [0]}) if "Paths:" in messages[-1].content else "no <<<"
    s = _sup(ScriptedLLM(reply, repeat_last=True), matrix_graph, how="stepwise")
    chains = [i for i, c in enumerate(s.compression.candidates) if c.kind == "shortest"]
    assert s.selection.mode == "llm" and s.selection.selected == (chains[0],)
    assert "no constraint facts" in s.selection.explanation


def test_stepwise_without_llm_is_the_weak_signal(matrix_graph) -> None:
    s = _sup(NoLLM(), matrix_graph, how="stepwise")
    assert s.selection.mode == "weak" and s.refined == s.weak


def test_one_shot_reply_selecting_everything_is_sent_back_then_weak(matrix_graph) -> None:
    n = len(_sup(NoLLM(), matrix_graph).compression.candidates)
    assert n > 3
    llm = ScriptedLLM(json.dumps({"explanation": "all", "selected": list(range(n))}), repeat_last=True)
    s = _sup(llm, matrix_graph)
    assert s.selection.mode == "weak" and "every candidate was selected" in s.selection.fallback
    assert len(llm.calls) > 1 and "every candidate" in llm.calls[1].messages[-1].content


def test_one_shot_reply_without_a_chain_is_not_sufficient(matrix_graph) -> None:
    sup = _sup(NoLLM(), matrix_graph)
    fact = next(i for i, c in enumerate(sup.compression.candidates) if c.kind != "shortest")
    llm = ScriptedLLM(json.dumps({"explanation": "x", "selected": [fact]}), repeat_last=True)
    s = _sup(llm, matrix_graph)
    assert s.selection.mode == "weak" and "not sufficient" in s.selection.fallback


def test_auto_selection_is_stepwise_for_the_bundled_models() -> None:
    from core.methods.reg.train import selection_how, selections_file

    class Named:
        def __init__(self, name):
            self.name = name

    assert selection_how("auto", Named("local")) == selection_how("auto", Named("local-small")) == "stepwise"
    assert selection_how("auto", Named("openai")) == "one-shot"
    assert selection_how("one-shot", Named("local")) == "one-shot"
    from core.methods.reg.prompts import selection_prompts_sha256

    tag = selection_prompts_sha256()[:8]  # selections made under other prompts are another cache
    assert selections_file("m", "one-shot") == f"selections-m-one-shot-{tag}.json"
    assert selections_file("m", "stepwise") == f"selections-m-stepwise-{tag}.json"
