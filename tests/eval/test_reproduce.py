"""`egx reproduce`'s plan, its tables composed run by run, our rows paired, and reproduce.json (demo workspace,
hashing embedder; the CLI end to end is in tests/cli/test_reproduce_cli.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.errors import InputFormatError, UnknownNameError
from core.eval.paper_tables import get_table
from core.eval.reproduce import reproduce_command, reproduce_root
from core.eval.reproduce_plan import MAIN_RUN, reproduction_plan
from core.eval.reproduce_record import WITHIN_NOISE, compare_reproduction, load_reproduction, retrieval_figures
from core.methods.budget import BUDGETS

_WEAK = "reg-evidence_format-triples-model-weak-untrained-error"


def test_each_plan_runs_the_rows_we_implement_under_the_papers_budget():
    plans = {p: reproduction_plan(p) for p in ("bubblerag", "fastinsight", "sgrag", "reg")}
    assert {p: [(r.name, r.methods) for r in plan.runs] for p, plan in plans.items()} == {
        "bubblerag": [(MAIN_RUN, ("dense", "hipporag2", "bubblerag"))],
        "fastinsight": [(MAIN_RUN, ("dense", "rerank", "hipporag2", "fastinsight"))],
        # SG-RAG's SubgraphRAG row is reg with a weakly supervised retriever: its only reg, so in the main run
        # ... and its Table 5 baselines are SG-RAG with `retrieval` set: one run each
        "sgrag": [(MAIN_RUN, ("dense", "reg", "sgrag")), ("sgrag-retrieval-entity", ("sgrag",)),
                  ("sgrag-retrieval-1-hop", ("sgrag",)), ("sgrag-retrieval-2-hop", ("sgrag",))],
        "reg": [(MAIN_RUN, ("reg",)), (_WEAK, ("reg",)), ("reg-retriever-entity", ("reg",))]}
    assert {p: plan.budget for p, plan in plans.items()} == {p: BUDGETS[p] for p in plans}  # one budget concept
    assert [p for p, plan in plans.items() if plan.node_level] == ["fastinsight"]  # Table 3 scores KG nodes
    assert plans["sgrag"].runs[0].models == {"reg": ("reg/weak", get_table("SG-RAG Table 2").rows[5].train_hint)}
    assert plans["reg"].runs[0].models == {}  # ReG@Triple's defaults: the workspace's or the sample's retriever
    assert [t.id for t in plans["reg"].tables] == ["ReG Table 3", "ReG Table 2"]
    t3 = plans["reg"].tables[0]
    assert [plans["reg"].run_of(r) for r in t3.rows if r.label.startswith(("SubgraphRAG (L", "ReG (L"))] == [
        _WEAK, MAIN_RUN, "reg-retriever-entity", ""]  # ReG@Path: not implemented here
    with pytest.raises(UnknownNameError, match=r"Unknown paper 'graphrag'. Valid papers: 'bubblerag'"):
        reproduction_plan("graphrag")


def test_the_command_and_the_default_folder():
    assert reproduce_command("sgrag", "musique", "none") == "egx reproduce --paper sgrag --workspace musique --llm none"
    assert reproduce_command("reg", "demo", "recorded", limit=3, judge="local-small", embedder="hashing") == (
        "egx reproduce --paper reg --workspace demo --llm recorded --embedder hashing --judge-llm local-small --limit 3")
    assert reproduce_command("bubblerag", "my ws", "none").endswith("--workspace 'my ws' --llm none")
    assert reproduce_root("../my ws").name == "my-ws" and reproduce_root("demo").parent.name == "reproduce"


def _reg(hit: float, **changes: object) -> dict:
    return {"questions": 20, "settings": {"workspace": "musique", "budget": "reg",
                                          "config_changes": {"reg": dict(changes)} if changes else {}},
            "methods": {"reg": {"n": 20, "metrics": {}, "answers": {"judged": 0},
                                "paper": {"n": 20, "Macro-F1": hit / 2, "Hit": hit},
                                "intervals": {"paper Hit": {"low": hit - 0.1, "high": hit + 0.1, "n": 20}}}}}


def test_each_row_stands_on_the_run_made_for_it_and_a_row_not_run_says_why():
    plan = reproduction_plan("reg")
    weak = {"model": "reg/weak", "untrained": "error", "evidence_format": "triples"}
    summaries = {MAIN_RUN: _reg(0.6), _WEAK: _reg(0.4, **weak)}
    why = "not run: no trained model in WS/reg/retriever-entity; this row needs one — make it with `egx train-reg`"
    t3, t2 = compare_reproduction(plan, summaries, {("reg-retriever-entity", "reg"): why})
    rows = {r.name: r for r in t3.rows}
    assert rows["ReG@Triple: ReG (Llama3.1-8B)"].ours[1].value == pytest.approx(60.0)
    sub = rows["SubgraphRAG (Llama3.1-8B)"]
    assert sub.ours[1].value == pytest.approx(40.0) and (sub.ours[1].low, sub.ours[1].high) == pytest.approx((30, 50))
    assert sub.run_notes == ("run with model=reg/weak, untrained=error, evidence_format=triples",)
    assert [c.blank for c in rows["ReG@Entity: ReG (Llama3.1-8B)"].ours] == [why, why]
    # a row of another reasoner keeps its own reason: one run has one LLM
    assert rows["SubgraphRAG (GPT-4o)"].ours[0].blank.startswith("a run of ours has one LLM")
    assert rows["ReG@Path: ReG (Llama3.1-8B)"].ours[0].blank.startswith("not implemented here")
    sub2 = {r.name: r for r in t2.rows}["SubgraphRAG (GPT-4o-mini)"]
    assert sub2.ours[2].value == pytest.approx(40.0)  # Table 2's Hit, from the same run
    assert t3.settings.budget.name == "reg"


def test_a_reproduction_of_the_demo_writes_tables_with_intervals_pairs_and_blanks(tmp_path):
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.cli_support import resolve_workspace
    from core.eval.reproduce import run_reproduction
    from core.index.questions import load_questions
    from core.methods.base import Backends

    emb = get_embedder("hashing")
    ws = resolve_workspace("demo", emb)
    backends = Backends(emb, get_llm("none"), get_reranker("biencoder", embedder=emb))
    seen: list[tuple[int, int]] = []
    # 5 questions: the fewest an interval is given for (core.eval.summary_stats.MIN_INTERVAL_QUESTIONS)
    rep = run_reproduction(ws, load_questions(ws), "fastinsight", backends, out_dir=tmp_path, limit=5,
                           progress=lambda d, t, m: seen.append((d, t)))
    assert rep.out_dir == tmp_path / "fastinsight" / "none" and seen[-1] == (20, 20) and rep.ran == 20
    rec = json.loads((rep.out_dir / "reproduce.json").read_text())
    assert rec == load_reproduction(rep.out_dir / "reproduce.json") and rec["format"] == "egx-reproduction"
    assert rec["command"] == "egx reproduce --paper fastinsight --workspace demo --llm none --limit 5"
    assert rec["questions"]["n"] == 5 and rec["questions"]["ids"] == [q.id for q in load_questions(ws)][:5]
    assert rec["budget"]["name"] == "fastinsight" and rec["node_level"] is True
    (table,) = rec["tables"]
    assert table["id"] == "FastInsight Table 3" and table["group"] == "bsard-g"
    by = {(r["row"], r["metric_id"]): r for r in table["records"]}
    fi = by[("FastInsight (Ours)", "node R@10")]
    assert fi["paper"] == 13.7 and fi["n"] == 5 and fi["low"] <= fi["ours"] <= fi["high"]
    assert fi["paper_in_interval"] == (fi["low"] <= 13.7 <= fi["high"])
    assert by[("GAR", "node R@10")]["blank"].startswith("not implemented here")
    assert by[("Vector Search", "node R@10")]["basis"] == ""  # node level on: dense ranks the KG nodes too
    # our rows paired on each of the table's metrics, the paper's own method first
    pairs = {(p["a"], p["b"], p["metric"]) for p in table["pairs"]}
    assert ("FastInsight (Ours)", "Re2", "node R@10") in pairs and len(pairs) == 2 * 6
    md = (rep.out_dir / "reproduce.md").read_text()
    assert "## FastInsight Table 3 (§5.1): BSARD-G" in md and WITHIN_NOISE in md
    assert "### Our rows compared, paired" in md and "## Our retrieval in the same runs" in md
    # a second call resumes every run: nothing runs twice
    again = run_reproduction(ws, load_questions(ws), "fastinsight", backends, out_dir=tmp_path, limit=3)
    assert (again.ran, again.skipped) == (0, 12)


def test_the_paired_difference_is_the_mean_of_the_per_question_differences(tmp_path):
    """The oracle: a pair's difference is the plain mean of b − a over the questions both have, by brute force."""
    from core.eval.reproduce_record import table_pairs
    from core.eval.summary_stats import record_scores

    plan = reproduction_plan("bubblerag")
    rng = np.random.default_rng(0)
    recs = {MAIN_RUN: [{"question_id": f"q{i}", "method": m, "metrics": {}, "answer_judged": True, "em": 0.0,
                        "f1": float(rng.random())} for i in range(12) for m in ("dense", "bubblerag")]}
    summary = {"questions": 12, "settings": {"budget": "bubblerag"},
               "methods": {m: {"n": 12, "metrics": {}, "answers": {"judged": 12, "F1": 0.5},
                               "paper": {"n": 0}, "intervals": {"answers F1": {"low": 0.3, "high": 0.7, "n": 12}}}
                           for m in ("dense", "bubblerag")}}
    (c,) = compare_reproduction(plan, {MAIN_RUN: summary}, {})
    (p,) = table_pairs(plan, c, recs)
    f1 = {m: record_scores(r for r in recs[MAIN_RUN] if r["method"] == m)["answers F1"] for m in ("dense", "bubblerag")}
    brute = 100 * np.mean([f1["bubblerag"][q] - f1["dense"][q] for q in f1["dense"]])
    assert (p["a"], p["b"], p["metric"], p["n"]) == ("BubbleRAG", "Naive RAG", "F1", 12)
    assert p["difference"] == pytest.approx(brute) and p["low"] <= p["difference"] <= p["high"]


def test_retrieval_figures_carry_their_interval_and_n():
    s = {"n": 5, "metrics": {"R@5": 0.4, "node R@10": 0.5}, "node_level": {"n": 4},
         "intervals": {"R@5": {"low": 0.1, "high": 0.7, "n": 5}}}
    assert retrieval_figures(s) == {"R@5": {"value": 0.4, "low": 0.1, "high": 0.7, "n": 5},
                                    "node R@10": {"value": 0.5, "low": None, "high": None, "n": 4}}


def test_a_file_that_is_no_reproduction_is_refused_naming_it(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"format": "egx-workspace"}', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"x\.json: this is not an egx reproduction.*egx-reproduction"):
        load_reproduction(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"x\.json: the reproduction could not be read"):
        load_reproduction(bad)


def test_micro_f1_gets_a_bootstrap_interval_of_the_pooled_counts():
    """The oracle: the same resampled questions drawn one by one (core.eval.stats.resampled_means' documented
    draw), their counts pooled, F1 taken, the percentiles read: the same interval."""
    from core.eval.paper_metrics import AnswerSetScores, aggregate_answer_sets
    from core.eval.reproduce_record import micro_f1_interval, with_micro_f1
    from core.eval.stats import N_RESAMPLES, SEED

    rng = np.random.default_rng(1)
    counts = [(int(m), int(m + rng.integers(0, 3)), int(m + rng.integers(1, 3))) for m in rng.integers(0, 3, 15)]
    recs = [{"question_id": f"q{i}", "method": "reg", "paper": {"matched": m, "predicted": p, "gold": g}}
            for i, (m, p, g) in enumerate(counts)]
    ordered = [counts[i] for i in sorted(range(len(counts)), key=lambda i: f"q{i}")]  # question-id order, as R@5's
    draw = np.random.default_rng(SEED)
    f1s = []
    for _ in range(N_RESAMPLES):
        idx = draw.integers(0, len(counts), size=len(counts))
        m, p, g = (sum(ordered[i][k] for i in idx) for k in range(3))
        mp, mr = (m / p if p else 0.0), (m / g if g else 0.0)
        f1s.append(2 * mp * mr / (mp + mr) if mp + mr else 0.0)
    iv = micro_f1_interval(recs)
    assert iv is not None and iv["n"] == 15
    assert (iv["low"], iv["high"]) == pytest.approx(tuple(np.quantile(f1s, [0.025, 0.975])))
    micro = aggregate_answer_sets(AnswerSetScores(0, 0, 0, 0, 0, m, p, g) for m, p, g in counts)["Micro-F1"]
    assert iv["low"] <= micro <= iv["high"]
    assert micro_f1_interval(recs[:1]) is None  # one question: no interval
    summary = {"methods": {"reg": {"intervals": {"R@5": {"low": 0, "high": 1, "n": 15}}}, "dense": {"n": 0}}}
    out = with_micro_f1(summary, recs)
    assert out["methods"]["reg"]["intervals"] == {"R@5": {"low": 0, "high": 1, "n": 15}, "paper Micro-F1": iv}
    assert out["methods"]["dense"] == {"n": 0} and "paper Micro-F1" not in summary["methods"]["reg"]["intervals"]


def test_a_blank_answer_figure_of_a_recorded_run_says_the_recordings_lack_it():
    """The comparison words a missing written answer for LLM none; with the recorded LLM the reason is that the
    recordings hold no run with these settings (the budget preset changed the answer prompt)."""
    plan = reproduction_plan("bubblerag")
    dense = {"n": 3, "metrics": {}, "answers": {"judged": 0}, "paper": {"n": 3},
             "replay": {"replayed": 3, "partial": [], "unmatched": ["a", "b", "c"]}}
    summary = {"questions": 3, "methods": {"dense": dense},
               "settings": {"budget": "bubblerag", "backends": {"llm": "recorded (recorded:qwen)"}}}
    (c,) = compare_reproduction(plan, {MAIN_RUN: summary}, {})
    f1 = next(r for r in c.rows if r.name == "Naive RAG").ours[0]
    assert f1.blank.startswith("no LLM-written answer was scored: the recordings hold no run of `dense` with these "
                               "settings for 3 of 3 questions")
    none = {**summary, "settings": {"budget": "bubblerag", "backends": {"llm": "none (none)"}}}
    (c,) = compare_reproduction(plan, {MAIN_RUN: none}, {})
    assert "LLM `none`" in next(r for r in c.rows if r.name == "Naive RAG").ours[0].blank
