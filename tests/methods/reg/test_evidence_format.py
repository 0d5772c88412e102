"""The evidence-format option on the answer step of every method (ReG §4.2), and the reg method."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import ConfigError, WorkspaceError
from core.methods.base import Backends, MethodResult
from core.methods.reg.config import RegConfig
from core.methods.registry import get_method
from tests.fakes import ScriptedLLM

Q = "Who played the main villain in the film Keanu Reeves and Laurence Fishburne starred in together?"


def recording_llm() -> ScriptedLLM:
    """Answers "Hugo Weaving" to everything and keeps every prompt."""
    return ScriptedLLM("Hugo Weaving", name="recording", tokens=(9, 2))


def _cfg(method: str, fmt: str) -> Any:
    return get_method(method).make_config(evidence_format=fmt)


@pytest.mark.parametrize("method", ["dense", "rerank", "ppr", "fastinsight", "bubblerag", "reg"])
def test_chains_format_reaches_the_prompt_and_both_token_counts_are_recorded(method, demo_ws, hashing) -> None:
    from core.backends.rerankers import BiEncoderReranker

    llm = recording_llm()
    b = Backends(hashing, llm, BiEncoderReranker(hashing))
    r = get_method(method).run(Q, demo_ws, config=_cfg(method, "chains"), backends=b)
    assert isinstance(r, MethodResult)
    step = r.trace.stage("answer")[-1]
    d = step.data
    assert d["evidence_format"] == "chains"
    tok = d["evidence_tokens"]
    assert tok["triples"] > 0 and tok["chains"] > 0 and d["tokenizer"]
    assert "→ [" in d["prompts"]["chains"] and "→ [" not in d["prompts"]["triples"]
    sent = llm.prompts[-1]
    assert sent == d["prompts"]["chains"]  # the chain prompt is what the LLM read
    assert d["evidence_chains"] >= 1 and d["chains"][0]["text"] in sent


@pytest.mark.parametrize("method", ["dense", "bubblerag"])
def test_triples_format_and_default(method, demo_ws, hashing) -> None:
    llm = recording_llm()
    b = Backends(hashing, llm)
    r = get_method(method).run(Q, demo_ws, config=_cfg(method, "triples"), backends=b)
    d = r.trace.stage("answer")[-1].data
    assert d["evidence_format"] == "triples" and llm.prompts[-1] == d["prompts"]["triples"]
    assert "evidence_tokens" in d and d["evidence_tokens"]["chains"] > 0


def test_passages_default_is_unchanged_but_counts_recorded(demo_ws, backends) -> None:
    r = get_method("dense").run(Q, demo_ws, backends=backends)
    d = r.trace.stage("answer")[-1].data
    assert d["evidence_format"] == "passages" and d["mode"] == "extractive"
    assert set(d["evidence_tokens"]) == {"passages", "triples", "chains"}


def test_corpus_graph_falls_back_to_passages_visibly(corpus_ws, hashing) -> None:
    from core.methods.baselines.dense import DenseConfig

    llm = recording_llm()
    r = get_method("dense").run("anything about graphs", corpus_ws, config=DenseConfig(evidence_format="chains"),
                                   backends=Backends(hashing, llm))
    step = r.trace.stage("answer")[-1]
    assert step.data["evidence_format"] == "passages" and "needs KG triples" in step.fallback


def test_reg_method_untrained_cosine_fallback_and_error(demo_ws, backends) -> None:
    r = get_method("reg").run(Q, demo_ws, backends=backends)
    assert r.method == "reg" and r.ranked_chunks and r.scorer.startswith("cosine")
    score = r.trace.stage("score")[0]
    assert "egx train-reg" in score.fallback
    assert [s.stage for s in r.trace.steps] == ["link", "neighbourhood", "score", "reorganize", "answer"]
    assert set(r.linked.names) >= {"Keanu Reeves", "Laurence Fishburne"}
    # chains only use kept triples; ranked chunks are provenance chunks of kept triples
    kept = {t.edge for t in r.kept}
    assert {r.kept[i].edge for c in r.reorganization.chains for i in c.triples} <= kept
    g = demo_ws.graph
    prov = {c for e in kept for c in g.edge_chunks[e]}
    assert {c.chunk_id for c in r.ranked_chunks} <= prov
    with pytest.raises(WorkspaceError, match="egx train-reg"):
        get_method("reg").run(Q, demo_ws, config=RegConfig(untrained="error"), backends=backends)


def test_bad_evidence_format(demo_ws, backends) -> None:
    with pytest.raises(ConfigError, match="evidence_format = 'html'"):
        RegConfig(evidence_format="html")  # type: ignore[arg-type]
    from core.methods.baselines.dense import DenseConfig

    with pytest.raises(ConfigError, match="evidence_format = 'html'"):
        get_method("dense").run(Q, demo_ws, config=DenseConfig(evidence_format="html"),  # type: ignore[arg-type]
                                   backends=backends)


def test_reg_diagnosis_reads_the_result(demo_ws, backends) -> None:
    from core.eval.diagnose import diagnose, stages_for
    from core.methods.base import Gold

    assert [s.key for s in stages_for("reg")] == ["not_in_graph", "no_anchor", "not_connected", "ranked_out",
                                                  "answer_wrong"]
    g = demo_ws.graph
    r = get_method("reg").run(Q, demo_ws, backends=backends)
    got = r.ranked_chunks[0].chunk_id
    ok = diagnose(r, demo_ws, Gold("1", (got,)))
    assert ok.stage == "ok" and ok.gold_ranks == {got: 1}
    # with a gold answer the extractive (no LLM) sentence is checked by containment, so a wrong one is never "ok"
    judged = diagnose(r, demo_ws, Gold("1", (got,), ("Hugo Weaving",)))
    assert judged.stage == ("ok" if "Hugo Weaving" in r.answer else "answer_wrong")
    # a passage about deep learning is far from Keanu Reeves / Laurence Fishburne
    far = next(c.id for c in g.chunks if c.title == "Geoffrey Hinton")
    d = diagnose(r, demo_ws, Gold("2", (far,)))
    assert d.stage in ("not_connected", "not_in_graph") and far in d.evidence["lost"]
    assert d.evidence["query_entities"]
    info = d.evidence["lost"][far]
    if info["stage"] == "not_connected":  # "3 hops … not within the 3-hop neighbourhood" read as a contradiction
        hp, why = info["hops_to_passage"], info["why"]
        assert "hop(s)" not in why and ("other end beyond" in why) == (hp is not None and hp <= r.config.hops), why
