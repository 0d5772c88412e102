"""SG-RAG's failure diagnoser, on the contract every method's diagnoser keeps: verdicts read from the
result, with evidence."""

from __future__ import annotations

from core.eval.diagnose import diagnose, stages_for
from core.methods.base import Backends, Gold
from core.methods.sgrag import run


def test_stages_declared() -> None:
    assert [s.key for s in stages_for("sgrag")] == ["not_in_graph", "no_anchor", "not_connected", "ranked_out",
                                                    "answer_wrong"]


def test_ok_when_the_match_cites_the_gold_passage(demo_ws, backends: Backends) -> None:
    r = run("Which film starred Keanu Reeves and Laurence Fishburne?", demo_ws, backends=backends)
    d = diagnose(r, demo_ws, Gold("q1", ("matrix",), ("The Matrix",)))
    assert d.stage == "ok" and d.gold_ranks == {"matrix": 1}


def test_not_connected_on_fallback(demo_ws, backends: Backends) -> None:
    r = run("Which film starred Keanu Reeves and Geoffrey Hinton?", demo_ws, backends=backends)
    assert r.fallback
    d = diagnose(r, demo_ws, Gold("q2", ("backpropagation",), ()), cut=1)
    assert d.stage == "not_connected", d
    assert d.evidence["fallback"] and "no exact subgraph" in d.evidence["fallback_reason"]


def test_no_anchor_when_nothing_normalizes(demo_ws, backends: Backends) -> None:
    r = run("What is the meaning of life?", demo_ws, backends=backends)
    d = diagnose(r, demo_ws, Gold("q3", ("matrix",), ()))
    assert d.stage == "no_anchor" and "named no entity" in d.summary


def test_not_in_graph(demo_ws, backends: Backends) -> None:
    r = run("Which film starred Keanu Reeves and Laurence Fishburne?", demo_ws, backends=backends)
    d = diagnose(r, demo_ws, Gold("q4", ("no-such-passage",), ()))
    assert d.stage == "not_in_graph"


def test_no_gold(demo_ws, backends: Backends) -> None:
    r = run("Which film starred Keanu Reeves and Laurence Fishburne?", demo_ws, backends=backends)
    assert diagnose(r, demo_ws, Gold("q5", (), ())).stage == "no_gold"


def test_a_table5_baseline_is_diagnosed_as_its_own_retrieval_not_as_a_failed_match(demo_ws, backends: Backends) -> None:
    from core.methods.sgrag import SGRAGConfig

    r = run("Which film starred Keanu Reeves and Geoffrey Hinton?", demo_ws, backends=backends,
            config=SGRAGConfig(retrieval="entity"))
    assert r.fallback and not r.trace.stage("fallback")  # the baseline's own context, not g''
    d = diagnose(r, demo_ws, Gold("q6", ("backpropagation",), ()), cut=1)
    assert d.stage == "not_connected" and d.evidence["baseline"] == "Entity-based Retrieval", d
    assert d.summary.startswith("Entity-based Retrieval (a Table 5 baseline, no structure-guided matching)")
