"""Every stage a view reads is a typed :class:`~core.trace.StageData`: in a demo run of every method (no LLM),
each step of a typed stage reads back through its type byte for byte (so exported traces, fixtures and shipped
recordings keep their shape), and each step of an untyped stage is one the list below says nobody reads."""

from __future__ import annotations

import json

import pytest

from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.index.questions import load_questions
from core.methods.base import Backends
from core.methods.registry import method_names
from core.methods.run import run_method
from core.trace import STAGE_TYPES, StageData, Step, StepNotes, Trace

#: (method, stage) of the demo run whose data no page, component, view, diagnosis, lesson, report or export reads
#: (the pages read these stages' results from the method's result object, or only the step's title, seconds and
#: fallback): they stay plain dicts. A new stage must be typed or named here.
UNTYPED = {
    ("dense", "vector_search"), ("rerank", "vector_search"),
    ("ppr", "query_entities"), ("ppr", "ppr"), ("ppr", "passage_scores"),
    ("hipporag2", "passage_ranking"),
    ("fastinsight", "reranker"), ("fastinsight", "vector_search"), ("fastinsight", "granker"), ("fastinsight", "stex"),
    ("bubblerag", "embed_query"), ("bubblerag", "preretrieval"), ("bubblerag", "keywords"),
    ("bubblerag", "specialization"), ("bubblerag", "relaxation"), ("bubblerag", "candidates"),
    ("bubblerag", "grouping"), ("bubblerag", "localize"), ("bubblerag", "expansion"), ("bubblerag", "ranking"),
    ("bubblerag", "reasoning"),
    ("sgrag", "normalization"), ("sgrag", "decomposition"), ("sgrag", "matching"), ("sgrag", "assembly"),
    ("reg", "link"), ("reg", "reorganize"),
}

#: the stages a view reads by type: the answer step (every view, the diagnosis), Re2's rerank step (the
#: diagnosis), ReG's score step (its notes: every view of a ReG run), SG-RAG's and FastInsight's pages, HippoRAG 2's
READ = {"answer", "rerank", "score", "query_graph", "index", "completion", "dominance_model", "node_graph",
        "fact_linking", "recognition_memory", "graph", "seeds", "ppr",
        "retrieved", "node_passages", "neighbourhood", "entity_graph"}  # read by the benchmarks (benchmarks/README's figures)


def _same(t: type[StageData], data: dict) -> bool:
    try:
        return json.dumps(t.from_data(data).data()) == json.dumps(data)
    except Exception:  # a required field this step lacks: another method's stage of that name
        return False


@pytest.fixture(scope="module")
def demo_traces(demo_ws, hashing) -> dict[str, Trace]:
    backends = Backends(hashing, NoLLM(), BiEncoderReranker(hashing))
    question = load_questions(demo_ws)[0].question
    return {m: run_method(m, question, demo_ws, backends).trace for m in method_names()}


def test_every_stage_of_a_demo_run_is_typed_or_listed_as_read_by_nobody(demo_traces):
    assert len(demo_traces) >= 8
    typed, missing, changed = set(), [], []
    for method, trace in demo_traces.items():
        for step in trace.steps:
            if (method, step.stage) in UNTYPED:
                continue
            types = STAGE_TYPES.get(step.stage, [])
            if not types:
                missing.append((method, step.stage))
            elif not any(_same(t, step.data) for t in types):
                changed.append((method, step.stage, sorted(step.data)))
            else:
                typed.add(step.stage)
    assert missing == [], f"stages with neither a StageData type nor a place in UNTYPED: {missing}"
    assert changed == [], f"steps whose data does not read back through their type byte for byte: {changed}"
    assert READ <= typed, f"stages a view reads that no demo step wrote through its type: {READ - typed}"
    assert not {s for _, s in UNTYPED} & (READ - {"ppr"})  # PPR's "ppr" is untyped; HippoRAG 2's is WalkData


def test_every_untyped_stage_is_still_written(demo_traces):
    """The list stays true: a stage typed or renamed since leaves it."""
    written = {(m, s.stage) for m, t in demo_traces.items() for s in t.steps}
    assert UNTYPED <= written, f"no longer written by a demo run: {UNTYPED - written}"


def test_the_registry_holds_each_stage_type_under_its_stage():
    from core.methods.reg.stages import ScoreData
    from core.methods.sgrag.stages import QueryGraphData

    assert ScoreData in STAGE_TYPES["score"] and QueryGraphData in STAGE_TYPES["query_graph"]
    assert all(t.STAGE == stage for stage, ts in STAGE_TYPES.items() for t in ts)
    assert StepNotes not in {t for ts in STAGE_TYPES.values() for t in ts}  # a shared base, no stage of its own


@pytest.mark.parametrize("notes", [
    {"fallback_app": "No trained retriever.", "notice": "cosine", "notice_app": "cosine (app)"},
    {"notice": "weak", "notice_app": "weak (app)", "more_notices": ["below cosine"]},
    {"quiet_notes": ["below cosine by less than noise"]},
    {},
])
@pytest.mark.parametrize("merged", [None, 3])
def test_the_score_step_round_trips_with_its_notes_first(notes, merged):
    from core.methods.reg.stages import ScoreData

    value = ScoreData(**notes, retriever="ReG@Triple", scorer="S(I)-trained", model_dir="m", scored=4, top_k=2,
                      kept=[{"triple": "a r b", "score": 0.5, "edge": 1}], merged_parallel=merged)
    data = value.data()
    assert ScoreData.from_data(data) == value and ScoreData.from_data(json.loads(json.dumps(data))) == value
    # the notes come first, as the stage wrote them before it knew its retriever (the shape of older traces)
    assert list(data) == [*notes, "retriever", "scorer", "model_dir", "scored", "top_k", "kept",
                          *(["merged_parallel"] if merged is not None else [])]
    assert Step("score", "Score", data).notes == StepNotes(**notes)


def test_step_notes_read_any_step_and_ignore_its_own_keys():
    assert Step("x", "X", {"limitation": "no cycles", "k": 1}).notes.limitation == "no cycles"
    assert Step("x", "X", {}).notes == StepNotes()
    assert StepNotes(notice="n", quiet_notes=["q"]).data() == {"notice": "n", "quiet_notes": ["q"]}
    assert StepNotes.from_data(StepNotes(notice="n").data()) == StepNotes(notice="n")


def test_views_read_the_score_steps_notes(demo_traces):
    """The ReG run of the demo (no trained retriever) says so through its score step's notes, in both wordings."""
    from core.methods.answering import method_notices, step_fallback
    from core.methods.reg.keep import quiet_notes
    from core.methods.reg.pipeline import NOT_TRAINED_NOTICE, NOT_TRAINED_NOTICE_APP

    class Result:
        trace = demo_traces["reg"]

    assert method_notices(Result()) == (NOT_TRAINED_NOTICE,)
    assert method_notices(Result(), app=True) == (NOT_TRAINED_NOTICE_APP,)
    (score,) = Result.trace.stage("score")
    assert score.fallback and step_fallback(score) == score.fallback
    assert step_fallback(score, app=True) == score.notes.fallback_app != score.fallback
    assert quiet_notes(Result()) == ()


def test_the_stages_a_benchmark_reads_round_trip_with_and_without_their_optional_fields():
    """What a graph store adds (its region, its reads) and lazy node vectors come back as written, in their order."""
    from core.methods.baselines.stages import EntityGraphData, PPRRegionData
    from core.methods.fastinsight.stages import LazyNodeVectorsData, NodePassagesData, RetrievedData
    from core.methods.reg.stages import NeighbourhoodData

    region = {"store": "falkordb://h/g", "region_hops": 1, "hops_requested": 2, "capped": False, "region_nodes": 9,
              "region_edges": 12, "region_max_nodes": 500, "of_nodes": 90, "store_seconds": 0.01}
    passages = dict(graph="kg_nodes", node_ranking=["n1"], node_names=["N"], passages=[{"chunk_id": "c", "score": 0.5,
                    "from_node_rank": 0}], nodes_without_passage=0)
    values: list[StageData] = [
        NeighbourhoodData(hops=2, triples=5, before_cap=7), NeighbourhoodData(hops=2, triples=5, before_cap=7, **region),
        NodePassagesData(**passages, within_node_order="w"),
        NodePassagesData(**passages, store_reads={"node_rows": 3, "neighbor_rows": 2, "degrees": 1}, within_node_order="w"),
        RetrievedData("passages", 3, 40, 60, 50, 10, 0.25), LazyNodeVectorsData("lazy", 200, 150, 40, 10, 30, 40),
        EntityGraphData(90, 80, 5, 0.8, 0.2, "read from the workspace"), EntityGraphData(90, 80, 0, None, 0.2, "off"),
        PPRRegionData("memory:", 1, 2, True, 40, 60, 90, 55, 3, 0.01)]
    for value in values:
        data = json.loads(json.dumps(value.data()))
        assert type(value).from_data(data) == value
    assert list(values[1].data()) == ["hops", "triples", "before_cap", *region]
    assert list(values[3].data())[-2:] == ["store_reads", "within_node_order"]
    assert "store_reads" not in values[2].data() and "store" not in values[0].data()
    assert values[7].data()["synonym_threshold"] is None  # synonyms off: said as null, as PPR always wrote it


def test_a_none_that_is_a_value_stays_in_the_step_and_reads_back():
    """HippoRAG 2 with synonym edges off records ``synonym_threshold: null``; its graph step read back through
    JointGraphData (before, the None was left out and the step no longer loaded: a required field missing)."""
    from core.methods.baselines.hipporag2_stages import JointGraphData

    off = JointGraphData(3, 2, 1, 4, 0, None, "off", 0.1, "w")
    data = json.loads(json.dumps(off.data()))
    assert data["synonym_threshold"] is None and "region" not in data
    assert JointGraphData.from_data(data) == off
    del data["synonym_threshold"]  # a trace written while the None was left out loads too
    assert JointGraphData.from_data(data) == off


@pytest.mark.parametrize("method, changes, stage", [
    ("fastinsight", {"node_vectors": "lazy"}, "node_vectors"),
    ("ppr", {"region_hops": 1}, "ppr_region"),
    ("ppr", {"synonym_threshold": None}, "entity_graph"),
    ("hipporag2", {"synonym_threshold": None}, "graph"),
])
def test_the_typed_steps_of_other_settings_read_back_byte_for_byte(method, changes, stage, demo_ws, hashing):
    """Settings the demo run leaves at their defaults write other optional fields (or None values) of a typed step."""
    from core.methods.registry import get_method

    spec = get_method(method)
    config = spec.config().with_(**changes)
    backends = Backends(hashing, NoLLM(), BiEncoderReranker(hashing))
    trace = run_method(method, load_questions(demo_ws)[0].question, demo_ws, backends, config=config).trace
    steps = trace.stage(stage)
    assert steps, f"{method} with {changes} wrote no {stage} step"
    for step in steps:
        assert any(_same(t, step.data) for t in STAGE_TYPES[stage]), step.data
