"""BubbleRAG end to end on the papers' worked examples and on real MuSiQue data."""

from __future__ import annotations

import json
import re

import pytest

from core.backends.registry import get_embedder, get_llm
from core.errors import QueryError
from core.eval.metrics import recall_at_k
from core.methods.base import Backends, MethodResult
from core.methods.baselines.dense import run as dense_run
from core.methods.bubblerag import BubbleConfig, run
from core.trace import Trace
from tests.fakes import ScriptedLLM

#: Every fallback a BubbleRAG stage may record with an LLM configured: the LLM failed (llm_steps), its
#: answer was unusable, a reasoning hop fell back to similarity, or the graph itself (no collision, |V'| cap,
#: no preview chunk). A message outside these is a fallback nobody documented.
KNOWN_FALLBACK = re.compile(r"^(LLM (output unusable|call failed|call skipped)|the LLM's answer was unusable \(|"
                            r"check failed: |"  # a reply the stage's check refused, named
                            r"CEG \d+ hop \d+: LLM |no bubbles collided|\|V'\| would exceed|"
                            r"no preview chunks to confirm)")

MATRIX_Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
LOTHAIR_Q = "When did Lothair II's mother die?"


@pytest.fixture(scope="module")
def none_backends(minilm):
    return Backends(minilm, get_llm("none"))


def names(ws, nodes):
    return {ws.graph.node_names[v] for v in nodes}


@pytest.mark.model
def test_keanu_fishburne_query_yields_a_ceg_through_the_shared_movie(demo, none_backends):
    r = run(MATRIX_Q, demo, backends=none_backends)
    assert isinstance(r, MethodResult)
    assert not r.early_exit and r.keywords.source == "heuristic"
    assert {"Keanu Reeves", "Laurence Fishburne"} <= set(r.keywords.explicit)
    through_movie = [x for x in r.ranked[:3] if {"Keanu Reeves", "Laurence Fishburne", "The Matrix"} <= names(demo, x.ceg.nodes)]
    assert through_movie, "a top-3 CEG must join both actors through The Matrix"
    # the answer's evidence reaches the villain and its source passage is retrieved
    assert "Agent Smith" in names(demo, r.evidence.nodes)
    assert "The Matrix" in [demo.graph.chunk(c.chunk_id).title for c in r.chunks[:3]]
    assert len(r.chunks) <= 15


@pytest.mark.model
def test_lothair_query_yields_the_mother_death_date_chain(demo, none_backends):
    r = run(LOTHAIR_Q, demo, backends=none_backends)
    assert r.specialization.rewrites.get("mother") == "Lothair II's mother"  # Example 4
    top = r.ranked[0]
    assert {"Lothair II", "Ermengarde of Tours"} <= names(demo, top.ceg.nodes)
    ev = set(r.evidence.triples(demo.graph))
    assert "Lothair II son of Ermengarde of Tours" in ev
    assert "Ermengarde of Tours died on 20 March 851" in ev
    assert "Ermengarde of Tours" in [demo.graph.chunk(c.chunk_id).title for c in r.chunks[:4]]


@pytest.mark.model
def test_schema_relaxation_example5(demo, none_backends):
    r = run("Find the second-married woman whose son started a war.", demo, backends=none_backends)
    assert [(x.keyword, x.relaxed) for x in r.relaxation.relaxed] == [("second-married", "married")]
    assert r.relaxation.relaxed[0].chunk_id in r.pre.chunk_ids
    assert "Judith of Bavaria" in names(demo, r.evidence.nodes)


@pytest.mark.model
def test_trace_records_every_stage_with_fallbacks_and_round_trips(demo, none_backends, tmp_path):
    r = run(LOTHAIR_Q, demo, backends=none_backends)
    stages = [s.stage for s in r.trace.steps]
    for s in ("preretrieval", "keywords", "specialization", "relaxation", "candidates", "grouping", "localize",
              "expansion", "ranking", "reasoning", "answer"):
        assert s in stages
    by = {s.stage: s for s in r.trace.steps}
    assert "none" in by["keywords"].fallback and "none" in by["grouping"].fallback
    assert sum(g.weight for g in r.groups.groups) == pytest.approx(1.0)
    p = tmp_path / "t.json"
    p.write_text(r.trace.to_json())
    assert Trace.load(p).to_dict() == r.trace.to_dict()


@pytest.mark.model
def test_live_rerank_changes_order_without_rerunning(demo, none_backends):
    r = run(MATRIX_Q, demo, backends=none_backends)
    and_order = [x.ceg.index for x in r.rerank(alpha=10.0)]
    or_order = [x.ceg.index for x in r.rerank(alpha=0.0)]
    assert sorted(and_order) == sorted(or_order) == sorted(c.index for c in r.expansion.cegs)
    assert and_order != or_order
    assert len(r.rerank(alpha=1.0, n=2)) == 2
    # replaying the frames reproduces the expansion exactly
    frames = list(r.frames(demo.graph))
    assert frames[-1].done and frames[-1].result.cegs == r.expansion.cegs


def sufficient_llm(answer: str = "20 March 851") -> ScriptedLLM:
    """An LLM that judges the preview sufficient (tests the §3.2 early exit)."""
    return ScriptedLLM(json.dumps({"sufficient": True, "answer": answer, "reason": "passage 2"}))


def broken_llm() -> ScriptedLLM:
    """Always returns unusable output: every stage must fall back visibly."""
    return ScriptedLLM("I cannot help with that <<<", name="broken", tokens=(7, 3))


@pytest.mark.model
def test_early_exit_when_preview_is_sufficient(demo, minilm):
    r = run(LOTHAIR_Q, demo, backends=Backends(minilm, sufficient_llm()))
    assert r.early_exit and r.answer == "20 March 851" and r.answer_by == "early exit"
    assert r.expansion is None and r.ranked_chunks
    assert r.trace.steps[-1].stage == "early_exit"
    from core.methods.diagnoser import answer_by_llm

    assert answer_by_llm(r)  # the LLM wrote it: judged by EM/F1 like every LLM answer, never as extractive
    # an answer that no preview passage contains does not end the search
    r2 = run(LOTHAIR_Q, demo, backends=Backends(minilm, sufficient_llm("860 AD")))
    assert not r2.early_exit and r2.expansion is not None
    assert "does not occur in any preview passage" in r2.pre.reason


@pytest.mark.model
def test_broken_llm_output_takes_visible_fallbacks(demo, minilm):
    r = run(LOTHAIR_Q, demo, backends=Backends(minilm, broken_llm()))
    by = {s.stage: s for s in r.trace.steps}
    for stage in ("keywords", "grouping"):
        assert "unusable" in by[stage].fallback
    for step in r.trace.steps:
        assert not step.fallback or KNOWN_FALLBACK.match(step.fallback), (step.stage, step.fallback)
    assert r.keywords.source == "heuristic" and r.groups.source == "embedding"
    assert r.answer  # the LLM's text answer is still returned
    assert r.trace.tokens > 0


def test_empty_question_is_rejected(tmp_path):
    from core.index.samples import ensure_sample_workspace as ensure

    emb = get_embedder("hashing")
    with pytest.raises(QueryError, match="The question is empty"):
        run("   ", ensure("demo", emb), backends=Backends(emb, get_llm("none")))


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_all_100_musique_questions_run_in_none_mode(minilm, real_sample):
    """The paper's context (§3.6: G_final's chunks only) against dense retrieval, and our "+dense fill"
    option's delta, all measured in one run. Measured on 2026-11-23 (MiniLM, `none` mode):
    paper default R@5 58.2 / R@10 62.0, interleave (+dense fill) 67.2 / 76.8, dense 62.2 / 70.3 — in
    `none` mode the paper's context is *below* dense at R@5 (−4.0); the option adds +9.0."""
    from core.methods.bubblerag.answer import rank_evidence_chunks

    ws = real_sample("musique", minilm)
    questions = json.loads(ws.questions_path.read_text())
    b = Backends(minilm, get_llm("none"))
    hits = 0
    by_content = {(c.title, c.text): c.id for c in ws.graph.chunks}
    cv = ws.index("chunks").vectors
    r5 = {"paper": [], "interleave": [], "dense": []}
    for q in questions:
        r = run(q["question"], ws, backends=b)
        assert r.ranked_chunks and len(r.chunks) <= 15
        ids = [c.chunk_id for c in r.ranked_chunks]
        assert len(set(ids)) == len(ids)
        assert {c.source for c in r.chunks} <= {"evidence", "preview"}
        if not r.early_exit:  # the paper's context: only chunks the evidence graph cites
            assert {c.source for c in r.chunks} == {"evidence"}
        gold = {by_content[(p["title"], p["paragraph_text"])] for p in q["paragraphs"] if p["is_supporting"]}
        hits += bool(gold & set(ids))
        r5["paper"].append(recall_at_k(ids, gold, 5))
        mixed = ids if r.evidence is None else [c.chunk_id for c in rank_evidence_chunks(
            r.evidence, ws.graph, cv, b.embed_query(q["question"]), r.pre.chunk_ids, ranking="interleave")]
        r5["interleave"].append(recall_at_k(mixed, gold, 5))
        r5["dense"].append(recall_at_k([c.chunk_id for c in dense_run(q["question"], ws, backends=b).ranked_chunks],
                                       gold, 5))
    paper, mixed, dense = (100 * sum(r5[k]) / len(questions) for k in ("paper", "interleave", "dense"))
    figures = f"hits {hits}, R@5 paper {paper:.1f}, +dense fill {mixed:.1f}, dense {dense:.1f}"
    assert hits >= 75, figures
    assert paper >= 56.0, figures  # measured 58.2: the paper-faithful default, `none` mode
    assert mixed >= paper + 7.0, figures  # the option's delta (measured +9.0)
    assert mixed >= dense + 3.0, figures  # measured +5.0


@pytest.mark.model
def test_without_ceg_ranking_the_first_valid_ceg_alone_reaches_the_answer(demo, none_backends):
    """§4.3 ablation switch: Eq. 5 is not used; the first CEG of the expansion is the only one expanded."""
    full = run(MATRIX_Q, demo, backends=none_backends)
    ablated = run(MATRIX_Q, demo, config=BubbleConfig(ceg_ranking=False), backends=none_backends)
    first = min(full.expansion.cegs, key=lambda c: c.index)
    assert [x.ceg.index for x in ablated.ranked] == [first.index]
    assert [x.ceg_index for x in ablated.reasoning.expanded] == [first.index]
    step = ablated.trace.stage("ranking")[0]
    assert step.data["ceg_ranking"] is False and "first valid CEG" in step.title
    assert len(full.ranked) > 1  # the full method ranks every CEG


@pytest.mark.model
def test_default_context_is_only_g_finals_chunks_and_interleave_is_an_option(demo, none_backends):
    """§3.6 by default: every source chunk is cited by G_final; 'interleave' (ours: +dense fill) adds
    pre-retrieved chunks, marked 'preview'."""
    r = run(LOTHAIR_Q, demo, backends=none_backends)
    cited = {c for e in r.evidence.edges for c in demo.graph.edge_chunks[e]}
    cited |= {c for v in r.evidence.nodes for c in demo.graph.node_chunks[v]}
    assert r.chunks and {c.source for c in r.chunks} == {"evidence"}
    assert {c.chunk_id for c in r.chunks} <= cited
    mixed = run(LOTHAIR_Q, demo, config=BubbleConfig(chunk_ranking="interleave"), backends=none_backends)
    assert {c.chunk_id for c in mixed.chunks if c.source == "preview"} <= set(mixed.pre.chunk_ids)
    assert len(mixed.chunks) >= len(r.chunks)
