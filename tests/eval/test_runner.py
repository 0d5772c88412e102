"""The benchmark runner: end to end on a MuSiQue slice (with resume), outputs, and plug-in methods."""

from __future__ import annotations

import json
from functools import partial

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.errors import ConfigError, UnknownNameError
from core.eval.bench_files import read_records
from core.eval.bench_report import load_report
from core.eval.report import RESULTS
from core.eval.runner import run_benchmark
from core.eval.selection import select_questions
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.registry import registered
from tests.fakes import TOY_METHOD

ALL = ["dense", "rerank", "ppr", "fastinsight", "bubblerag"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM(), BiEncoderReranker(emb))


def _quality(summary):
    return {m: (s["n"], s["metrics"], s["diagnosis"], s["answers"]) for m, s in summary["methods"].items()}


def test_runner_outputs_on_demo(demo, tmp_path):
    ws, b = demo
    qs = load_questions(ws)
    seen = []
    rep = run_benchmark(ws, qs, ["dense", "bubblerag"], b, out_dir=tmp_path / "out", limit=2,
                        progress=lambda d, t, m: seen.append((d, t, m)))
    assert rep.ran == 4 and rep.skipped == 0 and seen[-1][:2] == (4, 4)
    assert "writing the report" in seen[-1][2]  # at 100 % the page says what it still does, not "about 0 s left"
    recs, torn = read_records(tmp_path / "out" / RESULTS)
    assert len(recs) == 4 and torn == 0
    r = recs[0]
    assert set(r["metrics"]) >= {"R@2", "R@5", "R@10", "AR@2", "AR@5", "nDCG@10"}
    assert r["diagnosis"]["stage"] in {"ok", "ranked_out", "not_in_graph"} and r["stages"]["vector_search"] >= 0
    assert r["tokens"] == {"prompt": 0, "completion": 0, "total": 0} and r["em"] is None  # extractive: not judged
    md = (tmp_path / "out" / "report.md").read_text()
    assert "| dense | 2 |" in md and "| bubblerag | 2 |" in md
    html = (tmp_path / "out" / "charts.html").read_text()
    assert html.count("plotly.js") >= 1 and "Recall@k by method" in html and "cdn.plot.ly" not in html.split("<body>")[0]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["methods"]["dense"]["n"] == 2 and summary == json.loads(json.dumps(rep.summary))
    assert _quality(load_report(tmp_path / "out").summary) == _quality(rep.summary)
    # the same folder with other settings is refused, naming the difference
    with pytest.raises(ConfigError, match=r"holds a benchmark run with other settings \(cut"):
        run_benchmark(ws, qs, ["dense"], b, out_dir=tmp_path / "out", cut=3)
    with pytest.raises(UnknownNameError, match="Unknown method 'nope'"):
        run_benchmark(ws, qs, ["nope"], b, out_dir=tmp_path / "other")


def test_selection_is_seeded(demo):
    ws, _ = demo
    qs = load_questions(ws)
    a = [q.id for q in select_questions(qs, seed=3)]
    assert a == [q.id for q in select_questions(qs, seed=3)] and sorted(a) == sorted(q.id for q in qs if q.gold_chunks)
    assert [q.id for q in select_questions(qs, limit=2)] == [q.id for q in qs if q.gold_chunks][:2]


def test_new_method_plugs_in_through_the_registry(demo, tmp_path):
    ws, b = demo
    with registered(TOY_METHOD):
        rep = run_benchmark(ws, load_questions(ws), ["toy"], b, out_dir=tmp_path / "o", limit=2)
    assert rep.summary["methods"]["toy"]["latency"]["stages"] == {"pick": pytest.approx(0.001)}
    assert all(r["diagnosis"]["method"] == "toy" for r in rep.records)


@pytest.mark.model
def test_musique_slice_end_to_end_with_resume(real_sample, tmp_path):
    from core.backends.registry import get_embedder
    from core.methods.fastinsight import FastInsightConfig

    emb = get_embedder("minilm")
    ws = real_sample("musique", emb)
    qs = load_questions(ws)
    b = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    # The runner is under test, not FastInsight's graph: on the passage graph, so CI does not embed
    # MuSiQue's 16k KG node texts with MiniLM first (~3-4 min on 2 cores); KG nodes are covered on the
    # demo (tests/methods/fastinsight/test_node_graph.py) and on MuSiQue with the hashing embedder.
    cfgs = {"fastinsight": FastInsightConfig(graph="passages")}
    bench = partial(run_benchmark, configs=cfgs)
    full = bench(ws, qs, ALL, b, out_dir=tmp_path / "full", limit=5, seed=7)
    assert full.ran == 25 and len(full.records) == 25

    class Stop(Exception):
        pass

    def interrupt(done, total, msg):
        if done == 12:
            raise Stop

    with pytest.raises(Stop):
        bench(ws, qs, ALL, b, out_dir=tmp_path / "resumed", limit=5, seed=7, progress=interrupt)
    path = tmp_path / "resumed" / RESULTS
    assert len(read_records(path)[0]) == 12
    with path.open("a", encoding="utf-8") as fh:  # the line in flight when the process died
        fh.write('{"question_id": "2hop__x", "method": "den')
    rep = bench(ws, qs, ALL, b, out_dir=tmp_path / "resumed", limit=5, seed=7)
    assert rep.skipped == 12 and rep.ran == 13
    recs, torn = read_records(path)
    keys = [(r["question_id"], r["method"]) for r in recs]
    assert torn == 0 and len(keys) == len(set(keys)) == 25
    assert _quality(rep.summary) == _quality(full.summary)
    by_key = {(r["question_id"], r["method"]): r["ranked"] for r in full.records}
    assert all(by_key[(r["question_id"], r["method"])] == r["ranked"] for r in rep.records)  # deterministic
    again = bench(ws, qs, ALL, b, out_dir=tmp_path / "resumed", limit=5, seed=7)
    assert again.ran == 0 and again.skipped == 25
