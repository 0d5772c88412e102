"""The Benchmark page shows FastInsight's node-level R@10 / nDCG@10 (§4.3.1) beside the passage-level figures,
and nothing (not zeros) for a method that retrieved passages (AppTest)."""

from __future__ import annotations

from components import state as S
from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.eval.datasets import load_questions
from core.eval.runner import run_benchmark
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from tests.app.helpers import run_page


def test_node_columns_for_the_node_run_only(home):
    emb = HashingEmbedder(dim=64)
    ws = ensure_sample_workspace("demo", emb, root=home / "ws")
    run_benchmark(ws, load_questions(ws), ["dense", "fastinsight"], Backends(emb, NoLLM(), BiEncoderReranker(emb)),
                  out_dir=home / "runs" / "nodes", limit=2)
    at = run_page("pages/benchmark.py")
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("nodes")
    at.button(key=S.BENCH_LOAD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[0].value.set_index("method")
    assert {"R@10", "nDCG@10", "node R@10", "node nDCG@10"} <= set(summary.columns)
    assert summary.loc["fastinsight", ["node R@10", "node nDCG@10"]].notna().all()
    assert summary.loc["dense", ["node R@10", "node nDCG@10"]].isna().all()  # blank, not 0
    assert any("node R@10 / node nDCG@10 (FastInsight §4.3.1" in c.value for c in at.caption)
