"""The benchmark's charts: the failure chart counts lost evidence only; the latency axis labels its ticks in full."""

from __future__ import annotations

from core.eval.report_charts import failure_figure, latency_recall_figure, log_ticks
from core.eval.triage import failure_split, retrieval_losses
from core.eval.verdicts import is_retrieval_loss


def _summary(**diag: dict[str, int]) -> dict:
    return {"methods": {m: {"diagnosis": d, "metrics": {"R@5": 1.0}, "latency": {"mean_s": s}}
                        for (m, d), s in zip(diag.items(), (0.6, 3.0, 12.0))}}


def test_failure_chart_counts_only_questions_whose_gold_evidence_was_lost():
    # hipporag2 retrieved every gold passage of its 6 questions (R@5 100) and missed at the answer: nothing was lost
    fig = failure_figure(_summary(hipporag2={"answer_wrong": 6}, dense={"ranked_out": 2, "answer_wrong": 3,
                                                                        "answer_partial": 1}))
    names = {t.name for t in fig.data}
    assert "retrieved, answer wrong" not in names and "retrieved, answer partly right" not in names
    assert names == {"ranked below the cut or not retrieved"}  # the bucket holds both (the rows' labels split them)
    assert fig.layout.showlegend is True  # one stage: its legend still names it (plotly hides a one-trace legend)
    bar = fig.data[0]
    assert list(bar.y) == [0, 2]
    assert list(bar.x) == ["hipporag2<br>+6 retrieved,<br>answer wrong<br>or partly right",
                           "dense<br>+4 retrieved,<br>answer wrong<br>or partly right"]
    assert ("not counted: 10 runs (question × method) retrieved every gold passage and missed at the answer"
            in fig.layout.title.text)
    # counts of questions: whole-number ticks (an audit read 0.5 and 1.5); a paper's name breaks before its registry
    # name (eight "HippoRAG PPR (ppr)" labels overlapped)
    assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.tickformat == "d"
    named = failure_figure({"methods": {"HippoRAG PPR (ppr)": {"diagnosis": {"no_anchor": 30}}}})
    assert list(named.data[0].x) == ["HippoRAG PPR<br>(ppr)"] and named.layout.yaxis.dtick == 4


def test_retrieval_losses_leave_out_answer_stage_misses():
    assert is_retrieval_loss("ranked_out") and is_retrieval_loss("not_in_graph")
    assert not any(is_retrieval_loss(k) for k in ("answer_wrong", "answer_partial", "ok", "no_gold", "error"))
    rows = [{"verdict key": k} for k in ("answer_wrong", "answer_wrong", "answer_partial", "no_anchor", "ok", "error")]
    assert retrieval_losses(rows) == [{"verdict key": "no_anchor"}]
    assert failure_split(rows) == ("1 lost gold evidence before the answer, 3 retrieved it and missed at the answer, "
                                   "1 failed to run")
    assert failure_split([{"verdict key": "ok"}]) == ""


def test_latency_axis_labels_its_ticks_in_full():
    vals, text = log_ticks([0.6, 12.0])
    assert "0.2" in text and "0.5" in text and "10" in text and "2" in text
    assert all(0.6 / 5 <= v <= 12 * 5 for v in vals)
    fig = latency_recall_figure(_summary(dense={}, ppr={}, bubblerag={}))
    assert fig.layout.xaxis.tickmode == "array"
    assert "0.5" in fig.layout.xaxis.ticktext and "5" in fig.layout.xaxis.ticktext


def test_triple_evidence_is_not_counted_as_chunks():
    from components.budget_view import handed
    from core.methods.answering import AnswerContext

    sg = AnswerContext(tuple(f"c{i}" for i in range(9)), 167, evidence="subgraph triples")
    assert handed(sg) == "subgraph triples from 9 passages / 167 tok"
    assert handed(AnswerContext(("a", "b"), 812)) == "2 chunks / 812 tok"


def test_the_markdown_report_says_an_answer_stage_miss_lost_no_evidence():
    import json
    from pathlib import Path

    from core.eval.report import markdown_report

    run = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "llm_small_musique_2026-11-24"
    summary = json.loads((run / "summary.json").read_text())
    assert "lost no evidence: every gold passage was retrieved and the answer missed" in markdown_report(summary)
