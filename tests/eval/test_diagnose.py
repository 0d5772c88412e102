"""Failure diagnosis: verdicts on constructed cases where the losing stage is known."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from core.eval.diagnose import diagnose, stages_for
from core.graph.graph_builder import GraphBuilder
from core.methods.base import STAGE_ORDER, Diagnosis, Gold, RankedChunk, StageDecl
from core.methods.diagnoser import generic_diagnosis, judge_answer
from core.methods.registry import METHODS
from core.trace import Trace


def toy_workspace():
    """c1 and c2 have triples; c3 has none (its entities never reached the graph)."""
    b = GraphBuilder(name="toy")
    for cid, title in (("c1", "Matrix"), ("c2", "Smith"), ("c3", "Atlantis")):
        b.add_chunk(title, f"text of {title}", chunk_id=cid)
    b.add_triple("The Matrix", "villain", "Agent Smith", chunk_id="c1")
    b.add_triple("Agent Smith", "played by", "Hugo Weaving", chunk_id="c2")
    return SimpleNamespace(graph=b.build(), name="toy")


@dataclass(frozen=True)
class FakeResult:
    method: str
    ranked_chunks: tuple[RankedChunk, ...]
    answer: str = ""
    query: str = "q"
    trace: Trace = field(default_factory=lambda: Trace("dense", "q"))


def fake(method: str, ranked: list[str], answer: str = "", *, llm: bool = False) -> FakeResult:
    t = Trace(method, "q")
    t.add("answer", "Answer", {"mode": "llm" if llm else "extractive", "answer": answer})
    return FakeResult(method, tuple(RankedChunk(c, 1.0 / (i + 1)) for i, c in enumerate(ranked)), answer, trace=t)


def test_contract_types():
    with pytest.raises(ValueError, match="is not a diagnosis stage"):
        StageDecl("lost_somewhere", "x")
    with pytest.raises(ValueError, match="diagnosis stage 'nope' is unknown"):
        Diagnosis("m", "nope", "s")
    d = Diagnosis("m", "ranked_out", "s", {"path": ("a", "b")}, {"c1": 3, "c2": None})
    assert Diagnosis.from_dict(d.to_dict()) == Diagnosis("m", "ranked_out", "s", {"path": ["a", "b"]},
                                                         {"c1": 3, "c2": None})
    for spec in METHODS.values():  # every registered method declares known stages, each once
        keys = [s.key for s in stages_for(spec.name)]
        assert keys and all(k in STAGE_ORDER for k in keys) and len(set(keys)) == len(keys)
    assert [s.key for s in stages_for("bubblerag")] == list(STAGE_ORDER)
    assert [s.key for s in stages_for("fastinsight")] == ["not_in_graph", "not_expanded", "ranked_out", "answer_wrong"]


def test_gold_entities_from_provenance():
    ws = toy_workspace()
    g = ws.graph
    assert sorted(g.node_names[v] for v in g.chunk_entities("c2")) == ["agent smith", "hugo weaving"] or \
        sorted(g.node_names[v].lower() for v in g.chunk_entities("c2")) == ["agent smith", "hugo weaving"]
    assert g.chunk_entities("c3") == []


def test_generic_verdicts():
    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"), ("Hugo Weaving",))
    d = diagnose(fake("dense", ["c1", "c2"], "Hugo Weaving", llm=True), ws, gold)
    # judged right: the verdict says so (an audit read "answer right or not judged" beside EM 1)
    assert d.stage == "ok" and "matches the gold answer (EM 1)" in d.summary and "not judged" not in d.summary
    d = diagnose(fake("dense", ["c1", "c2"], "Hugo Weaving", llm=True), ws, Gold("q", ("c1", "c2")))
    assert d.stage == "ok" and "the answer was not judged (no gold answer)" in d.summary
    d = diagnose(fake("dense", ["c1", "c2"], "Keanu Reeves", llm=True), ws, gold)
    assert d.stage == "answer_wrong" and d.evidence["answer"]["f1"] == 0.0
    # an extractive answer (no LLM) is checked by containment once every gold passage is retrieved: a sentence
    # without the gold answer is answer_wrong, never the green ok; retrieval verdicts still come first
    d = diagnose(fake("dense", ["c1", "c2"], "Laurence Fishburne is an American actor."), ws, gold)
    assert d.stage == "answer_wrong" and "does not contain the gold answer (Hugo Weaving)" in d.summary
    assert d.evidence["answer"]["by"] == "containment" and d.evidence["answer"]["contains_gold"] is False
    assert "not judged" not in d.evidence["answer"]["why"]  # an audit read `"judged": true` beside "not judged"
    d = diagnose(fake("dense", ["c1", "c2"], "Agent Smith is portrayed by the actor Hugo Weaving."), ws, gold)
    assert d.stage == "ok" and "contains the gold answer" in d.summary
    assert diagnose(fake("dense", ["c1"], "Keanu Reeves"), ws, gold).stage == "ranked_out"
    d = diagnose(fake("dense", ["c1", "x", "y", "c2"], llm=True), ws, gold, cut=2)
    assert d.stage == "ranked_out" and d.gold_ranks == {"c1": 1, "c2": 4} and d.evidence["below_cut"] == {"c2": 4}
    d = diagnose(fake("dense", ["c1"]), ws, gold)
    assert d.stage == "ranked_out" and d.gold_ranks["c2"] is None and d.evidence["not_retrieved"] == ["c2"]
    d = diagnose(fake("dense", ["c1"]), ws, Gold("q", ("c1", "gone")))
    assert d.stage == "not_in_graph" and "not a passage of this workspace" in d.summary
    assert diagnose(fake("dense", ["c1"]), ws, Gold("q", (), unmatched=("Atlantis",))).stage == "no_gold"
    # methods that walk entities: a gold passage without any entity is lost before retrieval
    d = generic_diagnosis(fake("x", ["c1"]), ws, Gold("q", ("c1", "c3")), needs_entities=True)
    assert d.stage == "not_in_graph" and d.evidence["missing"] == {"c3": "no node or triple of the graph comes "
                                                                          "from this passage"}
    with pytest.raises(ValueError, match="cut must be at least 1"):
        diagnose(fake("dense", ["c1"]), ws, gold, cut=0)


def test_a_gold_document_of_several_passages_is_found_by_one_of_them():
    """A ``ground_truth`` title split into passages is one gold document: an audit's dense run read the right passage
    and answered right, and was "ranked below the cut" because 1 of the title's 4 passages ranked 8th. Brute force
    over every ranking of its passages: R@k and the verdict follow the best-ranked passage alone."""
    from itertools import permutations

    from core.eval.result_metrics import retrieval_metrics
    from core.index.questions import parse_questions

    b = GraphBuilder(name="split")
    for i in range(3):
        b.add_chunk("Board", f"part {i} of the Board", chunk_id=f"b{i}")
    b.add_chunk("Other", "other text", chunk_id="o")
    ws = SimpleNamespace(graph=b.build(), name="split")
    (q,) = parse_questions([{"id": "q7", "question": "Who?", "answer": "Miriam", "ground_truth": ["Board"]}], ws.graph)
    assert q.gold_groups == (("b0", "b1", "b2"),) and q.gold_chunks == ("b0", "b1", "b2")
    gold = Gold.from_question(q)
    for ranked in permutations(["b0", "b1", "b2", "o"]):
        best = min(i for i, c in enumerate(ranked) if c != "o")
        narrowed = gold.narrowed(list(ranked))
        assert narrowed.chunk_ids == (ranked[best],) and narrowed.groups == ()
        assert retrieval_metrics(list(ranked), narrowed.chunk_ids)["R@2"] == (1.0 if best < 2 else 0.0)
        d = diagnose(fake("dense", list(ranked), "It was Miriam."), ws, gold, cut=1)
        assert d.stage == ("ok" if best == 0 else "ranked_out"), (ranked, d.summary)
        assert list(d.gold_ranks) == [ranked[best]]
    # each passage named with its place where its title is several: the downloads and lessons tell them apart (an
    # audit read three "Ferries and Landings" in a top 10 and could not find the gold one)
    from core.eval.pair import chunk_titles
    from core.graph.model import passage_label

    assert chunk_titles(ws, ["b1", "o", "gone"]) == ["Board (2 of 3)", "Other", "gone"]
    assert passage_label(ws.graph, "b0") == "Board (1 of 3)"
    # nothing retrieved: the document counts once, as its first passage, never found
    assert gold.narrowed([]).chunk_ids == ("b0",)
    # a gold of single passages is untouched
    assert Gold("q", ("b0", "o")).narrowed(["o"]).chunk_ids == ("b0", "o")
    # results.jsonl says which document its "gold" narrowed, with every passage of it (an audit read `"gold": ["b0"]`
    # as "only the first passage of the title is gold")
    from core.eval.pair import gold_documents

    assert gold_documents(ws, gold, ["o", "b2", "b0"]) == [
        {"title": "Board", "passages": ["b0", "b1", "b2"], "counted_as": "b2"}]
    assert gold_documents(ws, gold, [])[0]["counted_as"] == "b0"
    assert gold_documents(ws, Gold("q", ("b0", "o")), ["o"]) == []


def test_a_gold_passage_just_below_the_cut_by_a_near_tie_is_said_to_be_one():
    """An audit saw a gold passage at rank 6 in Compare and 5 in a benchmark, 0.004 of cosine apart: the verdict
    says when the lost passage scored within 1 % of the last one inside the cut, and not when it is clearly below."""
    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"))

    def run(scores: list[float]) -> FakeResult:
        r = fake("dense", ["c1", "x", "c2"], llm=True)
        return FakeResult("dense", tuple(RankedChunk(c, s) for c, s in zip(["c1", "x", "c2"], scores)), trace=r.trace)

    d = diagnose(run([0.9, 0.801, 0.797]), ws, gold, cut=2)
    assert d.stage == "ranked_out" and d.evidence["near_tie"] == {"c2": pytest.approx(0.004)}
    assert "A near tie: a gold passage below the cut scored within 0.004 of rank 2" in d.summary
    d = diagnose(run([0.9, 0.8, 0.6]), ws, gold, cut=2)
    assert d.stage == "ranked_out" and "near_tie" not in d.evidence and "near tie" not in d.summary
    d = diagnose(run([0.9, 0.8, 0.8]), ws, gold, cut=2)  # an equal score: "within 0 of rank 2" said nothing
    assert "below the cut scored the same as rank 2, which another run" in d.summary and "within 0" not in d.summary


def test_unregistered_method_gets_the_generic_diagnoser():
    ws = toy_workspace()
    d = diagnose(fake("brand-new-method", ["c3", "c1"]), ws, Gold("q", ("c1",)))
    assert d.method == "brand-new-method" and d.stage == "ok"


def test_judge_answer_modes():
    r = fake("dense", ["c1"], "the Hugo Weaving", llm=True)
    j = judge_answer(r, Gold("q", ("c1",), ("Hugo Weaving",)))
    assert j.judged and j.correct and j.em == 1.0
    assert not judge_answer(r, Gold("q", ("c1",))).judged
    assert judge_answer(fake("dense", ["c1"], "x"), Gold("q", ("c1",), ("y",)), judge="always").judged


def test_ppr_no_seed_in_gold_passage():
    from core.methods.baselines.common import BaselineResult
    from core.methods.baselines.diagnosis import diagnose_ppr

    ws = toy_workspace()
    g = ws.graph
    matrix = g.node("The Matrix")
    seeds = [{"entity": "Matrix", "node": matrix, "name": g.node_names[matrix], "similarity": 0.9, "weight": 1.0}]
    t = Trace("ppr", "q")
    ranked = (RankedChunk("c1", 0.5),)
    res = BaselineResult("ppr", "q", ranked, "", t, details={"seeds": seeds, "graph": "entity graph"})
    d = diagnose_ppr(res, ws, Gold("q", ("c1", "c2")), cut=5)
    assert d.stage == "no_anchor" and "c2" in d.evidence["lost"] and d.evidence["seeds"][0]["node"] == g.node_names[matrix]
    d = diagnose_ppr(res, ws, Gold("q", ("c2", "c3")), cut=5)
    assert d.stage == "not_in_graph"  # c3 has no entity: earlier than c2's no_anchor
    smith = g.node("Agent Smith")
    seeds.append({"entity": "Smith", "node": smith, "name": g.node_names[smith], "similarity": 0.9, "weight": 1.0})
    d = diagnose_ppr(res, ws, Gold("q", ("c1", "c2")), cut=5)
    assert d.stage == "ranked_out" and d.evidence["lost"]["c2"]["seeds_in_passage"]


def test_ppr_says_a_doubtful_seed_beside_the_loss():
    """A year linked to another year by embedding ("1909" → "1879", an audit's question) is said in the diagnosis."""
    from core.methods.baselines.common import BaselineResult
    from core.methods.baselines.diagnosis import diagnose_ppr
    from core.methods.baselines.ppr_seeds import doubtful_link

    ws = toy_workspace()
    g = ws.graph
    matrix = g.node("The Matrix")
    why = doubtful_link("1909", "1879")
    seeds = [{"entity": "1909", "node": matrix, "name": "1879", "similarity": 0.77, "weight": 1.0, "doubtful": why}]
    res = BaselineResult("ppr", "q", (RankedChunk("c1", 0.5),), "", Trace("ppr", "q"),
                         details={"seeds": seeds, "graph": "entity graph"})
    d = diagnose_ppr(res, ws, Gold("q", ("c1", "c2")), cut=5)
    assert d.summary.endswith(f"Doubtful seed: {why}.") and d.evidence["seeds"][0]["doubtful"] == why
    seeds[0].pop("doubtful")
    assert "Doubtful" not in diagnose_ppr(res, ws, Gold("q", ("c1", "c2")), cut=5).summary
    assert doubtful_link("Keldmoor disaster of 1909", "1879") and not doubtful_link("1909", "the 1909 flood")
    assert doubtful_link("3 October 818", "October 818") and not doubtful_link("Lothair II", "Lothair II")


def test_ppr_lists_each_seed_node_once():
    """Two question entities linked to one node read "(seeds: Brask & Sons, Brask & Sons)"."""
    from core.methods.baselines.common import BaselineResult
    from core.methods.baselines.diagnosis import diagnose_ppr, seed_names

    ws = toy_workspace()
    g = ws.graph
    matrix = g.node("The Matrix")
    seeds = [{"entity": e, "node": matrix, "name": g.node_names[matrix], "similarity": 0.9, "weight": 1.0}
             for e in ("Matrix", "The Matrix")]
    res = BaselineResult("ppr", "q", (RankedChunk("c1", 0.5),), "", Trace("ppr", "q"),
                         details={"seeds": seeds, "graph": "entity graph"})
    d = diagnose_ppr(res, ws, Gold("q", ("c1", "c2")), cut=5)
    assert d.stage == "no_anchor" and d.summary.endswith(f"(seeds: {g.node_names[matrix]}).")
    # two different nodes under one display name are one entry that says so
    assert seed_names([(3, "Orm & Sons"), (3, "Orm & Sons"), (8, "Dellby"), (5, "Dellby")]) == [
        "Orm & Sons", "Dellby (2 nodes)"]


@pytest.mark.parametrize(("ranks", "retrieved", "head"), [
    ({"a": 7}, 10, "Gold evidence ranked below the top 5: 1 gold passage reached rank 7."),
    ({"a": 7, "b": 9}, 10, "Gold evidence ranked below the top 5: 2 gold passages reached ranks 7, 9."),
    ({"a": None}, 3, "Gold evidence not retrieved (only 3 passages were, fewer than the top 5): "),
    ({"a": None}, 1, "Gold evidence not retrieved (only 1 passage was, fewer than the top 5): "),  # not "1 passages"
    ({"a": None}, 10, "Gold evidence not retrieved: 1 never appeared in the 10 retrieved."),
    ({"a": None, "b": 8}, 10, "Gold evidence missed the top 5: 1 gold passage reached rank 8; 1 never"),
    # some gold found: the headline says how many, never that "the gold evidence" was not retrieved
    ({"a": 1, "b": None}, 1, "Gold evidence partly retrieved (only 1 passage was, fewer than the top 5): 1 of 2 gold "
                             "passages is the one retrieved; 1 never appeared."),
    # fewer retrieved than the cut: the found ones are among those retrieved, not "in the top 5"
    ({"a": 2, "b": None, "c": 1}, 3, "Gold evidence partly retrieved (only 3 passages were, fewer than the top 5): 2 of "
                                     "3 gold passages are among the 3 retrieved; 1 never appeared."),
    ({"a": 3, "b": None, "c": 4, "d": 2}, 10, "Gold evidence partly retrieved: 3 of 4 gold passages are in the top 5; "
                                              "1 never appeared in the 10 retrieved."),
    ({"a": 2, "b": 7}, 10, "Gold evidence ranked below the top 5: 1 of 2 gold passages is in the top 5; 1 gold "
                           "passage reached rank 7."),
])
def test_the_ranked_out_headline_says_whether_gold_ranked_low_or_was_never_retrieved(ranks, retrieved, head):
    """An audit read "ranked below the top 5: 1 never appeared in the 3 retrieved" on SG-RAG's Compare row: a
    passage that was never retrieved did not rank below anything."""
    from types import SimpleNamespace

    from core.methods.base import Gold
    from core.methods.diagnoser import finish

    result = SimpleNamespace(ranked_chunks=[f"c{i}" for i in range(retrieved)], answer="x")
    d = finish("sgrag", result, Gold("q", tuple(ranks)), ranks, cut=5)  # type: ignore[arg-type]
    assert d.stage == "ranked_out" and d.summary.startswith(head), d.summary


def _with_context(method: str, ranked: list[str], context: list[str]) -> FakeResult:
    """A run whose answer step was handed ``context`` (its AnswerContext), as a budget of that many passages."""
    from core.methods.answering import AnswerContext

    t = Trace(method, "q")
    t.add("answer", "Answer", {"mode": "extractive", "answer": "x",
                               "context": AnswerContext(tuple(context), 100).data()})
    return FakeResult(method, tuple(RankedChunk(c, 1.0 / (i + 1)) for i, c in enumerate(ranked)), "x", trace=t)


def test_gold_below_the_cut_that_the_answer_read_is_labelled_so_and_never_retrieved_gold_is_not_ranked_below():
    """An audit's Compare labelled BubbleRAG "ranked below the cut" ("put it at 6 (cut 5, 10 chunks kept)") though
    both gold passages were in the 10 chunks its answer read, and SG-RAG "ranked below the cut" beside "Gold
    evidence not retrieved". The key stays ranked_out (R@5 lost it); the label says what happened."""
    from core.eval.verdicts import NOT_RETRIEVED_LABEL, READ_BY_ANSWER_LABEL, diagnosis_verdict, record_verdict

    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"))
    ten = ["c3", "x1", "x2", "x3", "x4", "c1", "c2", "x5", "x6", "x7"]
    d = diagnose(_with_context("dense", ten, ten), ws, gold, cut=5)
    v = diagnosis_verdict(d)
    assert d.stage == "ranked_out" and d.evidence["read_by_answer"] == ["c1", "c2"] and d.evidence["answer_context"] == 10
    assert v.key == "ranked_out" and v.label == READ_BY_ANSWER_LABEL and v.failure
    assert "The answer still read both: they were among the 10 passages it was handed" in d.summary
    assert record_verdict({"diagnosis": d.to_dict()}).label == READ_BY_ANSWER_LABEL  # the Benchmark's table agrees
    # the answer read only five: gold at 6 and 7 were neither in the top 5 nor read
    d = diagnose(_with_context("dense", ten, ten[:5]), ws, gold, cut=5)
    assert "read_by_answer" not in d.evidence and diagnosis_verdict(d).label == "ranked below the cut"
    # one read, one not: the verdict is not "read by the answer"; the summary says which
    d = diagnose(_with_context("dense", ten, ten[:6]), ws, gold, cut=5)
    assert diagnosis_verdict(d).label == "ranked below the cut" and "The answer still read 1 of the 2" in d.summary
    # one passage retrieved, the gold never: not "ranked below" anything
    d = diagnose(_with_context("dense", ["c3"], ["c3"]), ws, gold, cut=5)
    assert d.summary.startswith("Gold evidence not retrieved (only 1 passage was, fewer than the top 5)")
    assert diagnosis_verdict(d).label == NOT_RETRIEVED_LABEL
    assert record_verdict({"diagnosis": d.to_dict()}).label == NOT_RETRIEVED_LABEL
    older = d.to_dict()  # a record from before the cut was recorded on every ranked_out: the plain label
    older["evidence"] = {k: v for k, v in older["evidence"].items() if k != "cut"}
    assert record_verdict({"diagnosis": older}).label == "ranked below the cut"


def test_a_question_with_some_gold_retrieved_is_not_labelled_gold_not_retrieved():
    """An audit's Benchmark labelled gold ranks "3 | not retrieved | 4 | 2" "gold not retrieved", and Compare headed
    SG-RAG "gold not retrieved — … 1 never appeared in the 1 retrieved" for a 2-gold question whose other gold
    passage was retrieved. A multi-hop question needs all its gold, so the key stays ranked_out (the failure chart,
    the counts and the filters are unchanged); the label says how much was lost."""
    from core.eval.triage import benchmark_rows
    from core.eval.verdicts import NOT_RETRIEVED_LABEL, diagnosis_verdict, is_retrieval_loss, record_verdict

    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"))
    d = diagnose(_with_context("dense", ["c1"], ["c1"]), ws, gold, cut=5)
    v = diagnosis_verdict(d)
    assert d.stage == v.key == "ranked_out" and is_retrieval_loss(v.key) and v.failure
    assert v.label == "1 of 2 gold passages not retrieved" != NOT_RETRIEVED_LABEL
    assert d.summary.startswith("Gold evidence partly retrieved (only 1 passage was, fewer than the top 5): 1 of 2 "
                                "gold passages is the one retrieved; 1 never appeared."), d.summary
    rec = {"diagnosis": d.to_dict(), "gold": ["c1", "c2"], "ranked": ["c1"]}
    assert record_verdict(rec).label == v.label  # the Benchmark's table says the same
    row = benchmark_rows([rec])[0]
    assert row["verdict"] == v.label and row["verdict key"] == "ranked_out"
    # the audit's four gold passages, one never retrieved
    ranks = {"a": 3, "b": None, "c": 4, "d": 2}
    ev = {"cut": 5, "not_retrieved": ["b"]}
    assert record_verdict({"diagnosis": {"stage": "ranked_out", "evidence": ev, "gold_ranks": ranks}}).label == \
        "1 of 4 gold passages not retrieved"
    # a gold passage the workspace lacks counts as one never retrieved, as everywhere else
    ev_unmatched = {**ev, "unmatched": ["Titel of X"]}
    assert record_verdict({"diagnosis": {"stage": "ranked_out", "evidence": ev_unmatched, "gold_ranks": ranks}}
                          ).label == "2 of 5 gold passages not retrieved"
    # none retrieved: still "gold not retrieved"
    d = diagnose(_with_context("dense", ["c3"], ["c3"]), ws, gold, cut=5)
    assert diagnosis_verdict(d).label == NOT_RETRIEVED_LABEL


def test_a_run_scored_before_gold_documents_counted_once_is_not_resumed_beside_them():
    """The questions' digest a resume compares holds the gold groups where a question has them (a run whose
    records scored a ground_truth title's passages one by one must not be resumed with records that count it
    once), and is unchanged for questions without them (every earlier run of such questions still resumes)."""
    from core.eval.identity import questions_hash
    from core.index.questions import Question

    plain = Question("q1", "Who?", "A", ("c1",))
    grouped = Question("q7", "Who?", "M", ("b0", "b1"), whole_titles=("Board",), gold_groups=(("b0", "b1"),))
    assert questions_hash([plain]) == questions_hash([Question("q1", "Who?", "A", ("c1",))])
    assert questions_hash([grouped]) != questions_hash([Question("q7", "Who?", "M", ("b0", "b1"), whole_titles=("Board",))])


def test_an_extract_holding_the_gold_answer_from_a_non_gold_passage_is_not_ok():
    """An audit's ferry benchmark marked dense "ok" for "It carried up to sixty passengers on the Pellow Reach
    crossing", the Grey Heron's sentence, for the Brown Ox's crossing: the right words by chance."""
    from core.eval.verdicts import CHANCE_LABEL, diagnosis_verdict, record_verdict
    from core.methods.diagnoser import OFF_GOLD_READINGS

    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"), ("Hugo Weaving",))
    chance = fake("dense", ["c1", "c2", "c3"], "Hugo Weaving was seen in Atlantis.")
    chance.trace.steps[-1].data["chunk_id"] = "c3"
    d = diagnose(chance, ws, gold)
    assert d.stage == "answer_wrong" and "a passage outside the gold list" in d.summary, d.summary
    # named by its title, not its id, and both readings: the passage may state the fact (the gold list lacks it)
    title = ws.graph.chunk("c3").title
    assert f"“{title}”" in d.summary and "“c3”" not in d.summary and OFF_GOLD_READINGS in d.summary, d.summary
    assert d.evidence["answer"]["from_gold"] is False and d.evidence["answer"]["source"] == "c3"
    v = diagnosis_verdict(d)
    assert (v.key, v.label, v.tone) == ("answer_wrong", CHANCE_LABEL, "partial")
    rec = {"answer": chance.answer, "answers": ["Hugo Weaving"], "diagnosis": d.to_dict()}
    assert record_verdict(rec).label == CHANCE_LABEL
    # from a gold passage it stays ok
    fair = fake("dense", ["c1", "c2", "c3"], "Agent Smith is played by Hugo Weaving.")
    fair.trace.steps[-1].data["chunk_id"] = "c2"
    assert diagnose(fair, ws, gold).stage == "ok"


def test_an_extract_from_another_passage_of_a_gold_document_is_from_the_gold():
    """An audit's benchmark called 39 answers "quoted from a non-gold passage" whose passage was of a gold title: a
    ``ground_truth`` title of several passages is one gold document, scored as its best-ranked passage, and the
    answer's passage 1 of it was checked against that one passage only. Any passage of the document is gold here; a
    passage of no gold document still is not."""
    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2", "c3"), ("Hugo Weaving",), groups=(("c2", "c3"),))
    fair = fake("dense", ["c1", "c2", "c3", "c4"], "Agent Smith is played by Hugo Weaving.")
    fair.trace.steps[-1].data["chunk_id"] = "c3"  # the document's other passage: c2 ranked best and stands for it
    assert gold.narrowed(["c1", "c2", "c3"]).chunk_ids == ("c1", "c2")
    d = diagnose(fair, ws, gold)
    assert d.stage == "ok" and "answer" in d.evidence and d.evidence["answer"].get("from_gold") is not False, d.summary
    chance = fake("dense", ["c1", "c2", "c3", "c4"], "Hugo Weaving was seen in Atlantis.")
    chance.trace.steps[-1].data["chunk_id"] = "c4"
    assert diagnose(chance, ws, gold).evidence["answer"]["from_gold"] is False
    lost = fake("dense", ["c4", "c5", "c6", "c7", "c8", "c1", "c2", "c3"], "Agent Smith is played by Hugo Weaving.")
    lost.trace.steps[-1].data["chunk_id"] = "c3"  # a retrieval verdict's note asks the same
    d = diagnose(lost, ws, gold)
    assert d.stage == "ranked_out" and "by chance" not in d.summary, d.summary


def test_a_retrieval_loss_whose_extract_holds_the_gold_answer_from_another_passage_says_so():
    """An audit's ferry q4: ReG's "It [Grey Heron] carried … on the Pellow Reach crossing" (the wrong ferry) was
    "below the cut, but read by the answer" with the answer match "holds the gold answer", unflagged, while the same
    case under an answer verdict was. The retrieval verdict stays; the summary, the evidence and the row's answer
    match say where the words came from."""
    from core.eval.triage import benchmark_rows
    from core.methods.diagnoser import OFF_GOLD_READINGS

    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"), ("Hugo Weaving",))
    lost = fake("dense", ["c3", "c4", "c5", "c6", "c7", "c1", "c2"], "Hugo Weaving was seen in Atlantis.")
    lost.trace.steps[-1].data["chunk_id"] = "c3"
    d = diagnose(lost, ws, gold)
    assert d.stage == "ranked_out" and OFF_GOLD_READINGS in d.summary, d.summary
    assert d.evidence["answer"]["from_gold"] is False and d.evidence["answer"]["source"] == "c3"
    rec = {"question": "q", "method": "dense", "answer": lost.answer, "answers": ["Hugo Weaving"], "gold": ["c1", "c2"],
           "ranked": ["c3", "c4", "c5", "c6", "c7", "c1", "c2"], "diagnosis": d.to_dict()}
    row = benchmark_rows([rec])[0]
    assert row["answer match"].endswith("(from a non-gold passage)"), row["answer match"]
    # from a gold passage: no note
    fair = fake("dense", ["c3", "c4", "c5", "c6", "c7", "c1", "c2"], "Agent Smith is played by Hugo Weaving.")
    fair.trace.steps[-1].data["chunk_id"] = "c2"
    d = diagnose(fair, ws, gold)
    assert d.stage == "ranked_out" and "by chance" not in d.summary and "answer" not in d.evidence
