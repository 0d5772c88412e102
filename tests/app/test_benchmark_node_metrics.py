"""The Benchmark page shows node-level R@10 / nDCG@10 (FastInsight §4.3.1, Table 3) in a table of their own, each
method's figures with their question count, and for a method that ranked no KG node a blank (not a zero) with
the reason (AppTest)."""

from __future__ import annotations

from components import state as S
from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.eval.runner import run_benchmark
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.baselines import RerankConfig
from core.methods.baselines.common import NODE_LEVEL_OFF
from tests.app.helpers import plain, run_page


def test_node_table_with_counts_and_the_reason_for_a_blank(home):
    emb = HashingEmbedder(dim=64)
    ws = ensure_sample_workspace("demo", emb, root=home / "ws")
    run_benchmark(ws, load_questions(ws), ["dense", "rerank", "fastinsight"],
                  Backends(emb, NoLLM(), BiEncoderReranker(emb)), out_dir=home / "runs" / "nodes", limit=2,
                  configs={"rerank": RerankConfig(node_level=True)})
    at = run_page("pages/benchmark.py")
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("nodes")
    at.button(key=S.BENCH_LOAD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[0].value.set_index("method")
    assert {"R@10", "nDCG@10"} <= set(summary.columns) and "node R@10" not in summary.columns
    nodes = next(d.value for d in at.dataframe if "node R@10" in d.value.columns).set_index("method")
    assert nodes.loc["fastinsight", ["node R@10", "node nDCG@10"]].notna().all()
    assert nodes.loc["rerank", "n (nodes)"] == 2 and nodes.loc["fastinsight", "n (nodes)"] == 2
    assert nodes.loc["dense", ["node R@10", "node nDCG@10"]].isna().all()  # blank, not 0
    assert nodes.loc["dense", "n (nodes)"] == 0 and "why blank" not in nodes.columns  # said in full under it
    whys = [plain(c.value) for c in at.caption if plain(c.value).startswith("Why blank — **dense**: ")]
    assert whys == [f"Why blank — **dense**: {NODE_LEVEL_OFF} (2 q.)"], whys
    assert nodes.loc["dense", "R@10 (passages)"] == summary.loc["dense", "R@10"]
    assert any("node R@10 / node nDCG@10 (FastInsight §4.3.1" in c.value for c in at.caption)
    # "Blank, never 0" under a table that drew Streamlit's "None" in the blank cells: every report table is blank
    # where a figure is missing (the metrics, node, papers' and per-question tables)
    tables = [d for d in at.dataframe if "method" in d.value.columns]
    assert len(tables) >= 4 and all(d.proto.placeholder == "" and d.proto.HasField("placeholder") for d in tables)
    # no LLM: the papers' answer-set F1 scores the extracted sentences, EM / F1 do not; the page says which is which
    paper = next(d.value for d in at.dataframe if "Precision" in d.value.columns)
    assert paper["F1"].notna().all() and "EM" not in summary.columns
    notes = [c.value for c in at.caption if "EM / F1" in c.value]
    assert notes and all("only when an LLM writes them" not in n for n in notes)
    assert any("computed for every answer, extracted sentences too" in n for n in notes)
