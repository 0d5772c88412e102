"""A gold passage a question names but the workspace lacks (a misspelt title) counts as a gold passage never
retrieved — in R@k / AR@k / nDCG, the verdict, the record, the triage row and the report — never dropped
silently, which made a typo *raise* recall."""

from __future__ import annotations

import csv
import math
import random

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.eval.diagnose import diagnose
from core.eval.metrics import ndcg_at_k
from core.eval.report import REPORT, TRIAGE
from core.eval.result_metrics import retrieval_metrics
from core.eval.runner import run_benchmark
from core.eval.selection import gold_coverage
from core.eval.triage import UNMATCHED, result_row
from core.index.questions import parse_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends, Gold
from core.methods.registry import registered
from core.methods.run import run_method
from tests.fakes import TOY_METHOD


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=64)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM())


# the toy method returns the workspace's last two passages: "Albert Einstein" first, then "Medical laboratory
# scientist" — so which gold passages are retrieved is known exactly
MISSPELT = {"id": "typo", "question": "Where was Einstein born?",
            "supporting_facts": [["Albert Einstein", 0], ["Albert Einstien", 0]]}
CLEAN = {"id": "clean", "question": "Who was Einstein?", "supporting_facts": [["Albert Einstein", 0]]}
LOST = {"id": "lost", "question": "Which film?", "supporting_facts": [["The Matrix", 0], ["Teh Matrix", 0]]}
NOTHING = {"id": "nothing", "question": "What?", "supporting_facts": [["No Such Title", 0]]}


def _brute(ranked: list[str], matched: set[str], n_unmatched: int, k: int) -> tuple[float, float, float]:
    """R@k, AR@k and nDCG@k written out from their definitions, every unmatched passage a gold passage no
    ranking holds."""
    total = len(matched) + n_unmatched
    hits = len(set(ranked[:k]) & matched)
    dcg = sum(1 / math.log2(i + 2) for i, c in enumerate(ranked[:k]) if c in matched and c not in ranked[:i])
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, total)))
    return hits / min(k, total), float(hits == total), dcg / ideal


def test_every_retrieval_metric_counts_an_unmatched_gold_passage_as_missed():
    rng = random.Random(0)
    for _ in range(200):
        pool = [f"c{i}" for i in range(12)]
        ranked = rng.sample(pool, rng.randint(0, 12))
        matched = set(rng.sample(pool, rng.randint(1, 4)))
        missing = [f"Title {i}" for i in range(rng.randint(0, 3))]
        got = retrieval_metrics(ranked, matched, unmatched=missing)
        for k in (2, 5):
            r, ar, _ = _brute(ranked, matched, len(missing), k)
            assert got[f"R@{k}"] == pytest.approx(r) and got[f"AR@{k}"] == pytest.approx(ar)
        assert got["nDCG@10"] == pytest.approx(_brute(ranked, matched, len(missing), 10)[2])
        # the same as scoring against a gold set whose missing members are ids no ranking holds
        assert got["nDCG@10"] == pytest.approx(ndcg_at_k(ranked, matched | {f"?{t}" for t in missing}, 10))
    one_of_two = retrieval_metrics(["a", "x", "y"], ["a"], unmatched=["Titel of B"])
    assert one_of_two["R@2"] == one_of_two["R@5"] == one_of_two["R@10"] == 0.5 and one_of_two["AR@5"] == 0.0
    assert retrieval_metrics(["a"], ["a"])["R@5"] == 1.0  # nothing unmatched: as before
    assert retrieval_metrics(["a"], [], unmatched=["Only Title"]) == {}  # nothing matched: no figure (left out)


def test_a_misspelt_gold_title_lowers_recall_and_is_said_in_every_view(demo, tmp_path):
    ws, b = demo
    qs = parse_questions([MISSPELT, CLEAN, LOST, NOTHING], ws.graph, source="q.json")
    assert [q.unmatched for q in qs] == [("Albert Einstien",), (), ("Teh Matrix",), ("No Such Title",)]
    cov = gold_coverage(qs)
    assert cov.note() == ("2 of 4 questions name gold passages this workspace lacks (2 passages, e.g. 'Albert "
                          "Einstien', 'Teh Matrix'): each counts as a gold passage never retrieved, so such a question "
                          "scores R@k below 100 and is never “ok”.")
    assert cov.note(left_out=True).endswith("1 of 4 questions matches no passage of this workspace at all and will be "
                                            "left out of a benchmark.")
    out = tmp_path / "run"
    with registered(TOY_METHOD):
        rep = run_benchmark(ws, qs, ["toy"], b, out_dir=out)
    # the question with no matched gold at all stays out, and is counted
    assert {r["question_id"] for r in rep.records} == {"typo", "clean", "lost"}
    assert any(w.startswith("1 of 4 questions are left out: their gold passages match no chunk") for w in rep.warnings)
    assert cov.note() in rep.warnings
    rec = {r["question_id"]: r for r in rep.records}
    # before: the one matched passage was the whole gold set, so R@k read 100 and the verdict "ok"
    assert rec["typo"]["metrics"]["R@5"] == 0.5 and rec["typo"]["metrics"]["AR@5"] == 0.0
    assert rec["typo"]["gold_unmatched"] == ["Albert Einstien"]
    assert rec["typo"]["diagnosis"]["stage"] == "not_in_graph"
    assert ("1 of 2 gold passages is not in the workspace ('Albert Einstien')"
            in rec["typo"]["diagnosis"]["summary"])
    assert rec["clean"]["metrics"]["R@5"] == 1.0 and rec["clean"]["diagnosis"]["stage"] == "ok"
    assert rec["clean"]["gold_unmatched"] == []
    # a matched passage the method lost itself: its own verdict stands, and the missing one is named too
    assert rec["lost"]["metrics"]["R@10"] == 0.0 and rec["lost"]["diagnosis"]["stage"] == "ranked_out"
    assert "Besides, 1 of 2 gold passages is not in the workspace ('Teh Matrix')." in rec["lost"]["diagnosis"]["summary"]
    assert rep.summary["methods"]["toy"]["metrics"]["R@5"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert rep.summary["gold"]["with_unmatched"] == 2 and rep.summary["gold"]["unmatched_passages"] == 2
    # the triage download and the report say it
    rows = {r["id"]: r for r in csv.DictReader((out / TRIAGE).read_text(encoding="utf-8-sig").splitlines())}
    assert rows["typo"][UNMATCHED] == "1 of 2 gold passages is not in the workspace ('Albert Einstien')"
    assert rows["typo"]["R@5"] == "50.0" and rows["clean"][UNMATCHED] == ""
    report = (out / REPORT).read_text(encoding="utf-8")
    assert ("**Gold not in the workspace**: 2 of 3 questions name 2 gold passages this workspace lacks, each "
            "counted as a gold passage never retrieved") in report
    assert "typo: 1 of 2 gold passages is not in the workspace ('Albert Einstien')" in report


def test_the_compare_row_and_the_verdict_of_a_live_run(demo):
    ws, b = demo
    (q,) = parse_questions([MISSPELT], ws.graph, source="q.json")
    gold = Gold.from_question(q)
    with registered(TOY_METHOD):
        res = run_method("toy", q.question, ws, b)
        diag = diagnose(res, ws, gold, cut=5)
    assert diag.stage == "not_in_graph" and diag.evidence["unmatched"] == ["Albert Einstien"]
    met = retrieval_metrics([c.chunk_id for c in res.ranked_chunks], gold.chunk_ids, unmatched=gold.unmatched)
    row = result_row(res, gold, diag, question=q.question, metrics=met)
    assert row["R@5"] == 50.0 and row["verdict key"] == "not_in_graph"
    assert row[UNMATCHED] == "1 of 2 gold passages is not in the workspace ('Albert Einstien')"


@pytest.mark.parametrize("n, total, text", [
    (2, 3, "2 of 3 gold passages are not in the workspace ('T0', 'T1')"),
    (4, 4, "4 of 4 gold passages are not in the workspace ('T0', 'T1', 'T2' and 1 more)"),
])
def test_the_wording_counts_and_cuts_long_lists(n, total, text):
    from core.eval.verdicts import unmatched_note

    assert unmatched_note([f"T{i}" for i in range(n)], total) == text
    assert unmatched_note([], 3) == ""


def test_one_question_with_one_unmatched_gold_passage_reads_in_the_singular():
    """An audit read "1 of 12 questions name 1 gold passage(s) this workspace lacks"."""
    from core.eval.run_notes import run_note_items

    items = dict(run_note_items({"gold": {"with_unmatched": 1, "questions": 12, "unmatched_passages": 1,
                                          "unmatched": {"q12": "1 of 1 gold passage is not in the workspace"}}}))
    assert items["Gold not in the workspace"].startswith("1 of 12 questions names 1 gold passage this workspace lacks")
