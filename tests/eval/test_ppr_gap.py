"""benchmarks/ppr_gap.py: gold that PPR finds and a seed method misses, by the method's stage."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "ppr_gap.py"
_spec = importlib.util.spec_from_file_location("ppr_gap", _PATH)
assert _spec is not None and _spec.loader is not None
ppr_gap = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ppr_gap)


def _rec(method: str, qid: str, ranked: list[str], stage: str = "ok", lost: dict | None = None) -> dict:
    ev = {"cut": 5, **({"lost": lost} if lost is not None else {})}
    return {"question_id": qid, "method": method, "gold": ["g1", "g2"], "ranked": ranked, "error": None,
            "diagnosis": {"method": method, "stage": stage, "evidence": ev}}


def test_gap_by_stage_and_reverse(tmp_path: Path) -> None:
    recs = [
        _rec("ppr", "q1", ["g1", "g2", "x"]),
        # g1 ranked 4 (inside the cut, below k=2), g2 lost with a per-passage stage
        _rec("bubblerag", "q1", ["x", "y", "z", "g1"], stage="no_anchor",
             lost={"g2": {"stage": "no_anchor"}}),
        _rec("ppr", "q2", ["x", "y", "g2"], stage="ranked_out", lost={"g1": {"stage": "no_anchor"}}),
        _rec("bubblerag", "q2", ["g1", "y"]),
        # a method without per-passage stages: its question verdict is used
        _rec("sgrag", "q1", ["x"], stage="not_connected"),
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    results = ppr_gap.read_results(path)
    row = ppr_gap.compare(results, "bubblerag", 2)
    assert row["gold_in_top_k"] == {"ppr": 2, "bubblerag": 1}
    assert row["baseline_only"]["by_stage"] == {"ranked_out: chunk order": 1, "no_anchor": 1}
    assert row["baseline_only"]["by_rank"] == {"3-5": 1, "not retrieved": 1}
    assert row["method_only"]["total"] == 1 and row["method_only"]["by_stage"] == {"no_anchor": 1}
    sg = ppr_gap.compare(results, "sgrag", 5)
    assert sg["baseline_only"]["by_stage"] == {"not_connected": 2}
    md = ppr_gap.markdown([row, sg])
    assert "| bubblerag | 2 | 2 / 1 |" in md and "| sgrag | 5 |" in md
    out = tmp_path / "gap.json"
    assert ppr_gap.main([str(path), "--methods", "bubblerag,sgrag", "--out", str(out)]) == 0
    assert len(json.loads(out.read_text())["rows"]) == 4


def test_bubblerag_ranked_out_is_split_by_the_ranking_that_lost_it() -> None:
    rec = _rec("bubblerag", "q", ["x", "g2"], stage="ranked_out",
               lost={"g1": {"stage": "ranked_out", "ceg_rank": 7}, "g2": {"stage": "ranked_out"}})
    assert ppr_gap.passage_stage(rec, "g1", 5) == "ranked_out: CEG below top n"
    assert ppr_gap.passage_stage(rec, "g2", 1) == "ranked_out: chunk order"


def test_bubblerag_chunk_order_and_no_anchor_are_split_by_what_the_diagnosis_records() -> None:
    rec = _rec("bubblerag", "q", ["x"], stage="ranked_out",
               lost={"g1": {"stage": "ranked_out", "cited_by": "node"}, "g2": {"stage": "ranked_out", "cited_by": "edge"},
                     "g3": {"stage": "no_anchor", "in_local": False}, "g4": {"stage": "not_expanded", "in_local": True}})
    assert ppr_gap.passage_stage(rec, "g1", 5) == "ranked_out: chunk order (cited by a node only)"
    assert ppr_gap.passage_stage(rec, "g2", 5) == "ranked_out: chunk order (cited by an edge)"
    assert ppr_gap.passage_stage(rec, "g3", 5) == "no_anchor: not in G'"
    assert ppr_gap.passage_stage(rec, "g4", 5) == "not_expanded"
