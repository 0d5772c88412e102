"""Ray for the batch work (``core/batch/ray_runner.py``): ``egx index --ray`` and ``egx bench --ray``
give the single-process outputs, a killed Ray benchmark resumes, Ray stays out of ``import core``, and
a missing Ray or a bad address is one clear error.

One local Ray (``ray.init(num_cpus=2, num_gpus=0)``) serves the whole module (starting one costs ~10 s) and is shut
down at the end; the teardown checks that no Ray process of this test run is left.
"""

from __future__ import annotations

import gzip
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from core.cli import main
from core.errors import ScaleError
from tests.conftest import ROOT, SAMPLE_DATA

#: What differs between two runs of the same work: when and how long, and where it ran.
TIMING_KEYS = {"seconds", "stages"}


@pytest.fixture(scope="module")
def ray_session() -> Iterator[object]:
    import psutil
    import ray

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    # num_gpus=0 whatever the machine has: the tests compare Ray with one process on the same (CPU) kernels,
    # and the manifests they check say gpus_per_worker 0 (Ray would give every actor a GPU it detects).
    ray.init(num_cpus=2, num_gpus=0, include_dashboard=False, log_to_driver=False,
             object_store_memory=256 * 1024 * 1024)
    try:
        yield ray
    finally:
        started = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
        ray.shutdown()
    _, alive = psutil.wait_procs(started, timeout=20)
    assert not alive, f"Ray processes left running: {[p.name() for p in alive]}"


# ----------------------------------------------------------------------------- no Ray needed
def test_import_core_does_not_import_ray():
    code = ("import sys, core, core.cli, core.batch.ray_runner, core.index.workspace, core.eval.runner, core.graph.builder; "
            "core.cli.build_parser(); print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_ray_installed_the_error_names_the_extra(monkeypatch, capsys, tmp_path):
    from core.batch.ray_runner import RayRunner

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as when not installed
    with pytest.raises(ScaleError, match=r"--ray needs Ray, which is not installed .* run `pip install '\.\[scale\]'`"):
        RayRunner().start()
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--limit", "1",
                 "--out", str(tmp_path / "b"), "--ray"]) == 2
    assert "pip install '.[scale]'" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()  # refused before any work


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_bad_addresses_are_named(capsys, tmp_path):
    from core.batch.ray_runner import RayRunner

    with pytest.raises(ScaleError, match=r"The Ray address 'http://x y' is not one Ray takes\. Give HOST:PORT"):
        RayRunner("http://x y").start()
    port = _free_port()
    with pytest.raises(ScaleError, match=rf"Cannot reach the Ray cluster at '127\.0\.0\.1:{port}' \("):
        RayRunner(f"127.0.0.1:{port}").start()
    with pytest.raises(ScaleError, match=r"--ray-workers 0 is out of range"):
        RayRunner(workers=0)
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps([{"title": "A", "text": "Alice met Bob."}]), encoding="utf-8")
    assert main(["index", str(corpus), "--workspace", str(tmp_path / "w"), "--embedder", "hashing",
                 "--ray", f"ray://127.0.0.1:{port}"]) == 2
    assert f"Cannot reach the Ray cluster at 'ray://127.0.0.1:{port}'" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


# ----------------------------------------------------------------------------- index
def _musique_corpus(tmp_path: Path, n: int) -> Path:
    with gzip.open(SAMPLE_DATA / "musique" / "musique_train_corpus.json.gz", "rt", encoding="utf-8") as f:
        docs = json.load(f)[:n]
    p = tmp_path / "corpus.json"
    p.write_text(json.dumps(docs), encoding="utf-8")
    return p


def _without(d: dict, keys: set[str]) -> dict:
    return {k: _without(v, keys) if isinstance(v, dict) else v for k, v in d.items() if k not in keys}


def _same_workspace(a_path: Path, b_path: Path, *, atol: float) -> None:
    from core.index.workspace import Workspace

    a, b = Workspace.open(a_path), Workspace.open(b_path)
    ga, gb = a.graph, b.graph
    assert ga.content_hash == gb.content_hash
    assert list(ga.node_names) == list(gb.node_names) and list(ga.edge_texts) == list(gb.edge_texts)
    for kind in ("nodes", "edges", "chunks"):
        va, vb = a.index(kind).vectors, b.index(kind).vectors
        assert va.shape == vb.shape and va.shape[0] > 0
        np.testing.assert_allclose(va, vb, atol=atol, rtol=0)
        q = va[:: max(1, len(va) // 7)]
        sa, ia = a.index(kind).search(q, 10)
        sb, ib = b.index(kind).search(q, 10)
        if atol == 0:  # the same vectors: the same neighbours in the same order (ties broken by id)
            assert (ia == ib).all(), kind
            continue
        # Vectors equal within atol move every cosine with a query q by at most |q|_1 * atol, so the two
        # indexes may order near-ties within twice that differently: B's neighbours must be a top 10 of A
        # up to that bound, rank by rank (identical vectors, as measured, give identical lists).
        bound = 2 * np.abs(q).sum(axis=1, keepdims=True) * atol
        assert (np.abs(sa - sb) <= bound + 1e-7).all(), (kind, np.abs(sa - sb).max())
        b_in_a = np.stack([a.index(kind).scores(q[r], ib[r]) for r in range(len(q))])
        assert (np.abs(b_in_a - sa) <= bound + 1e-6).all(), (kind, ia, ib)
    volatile = {"created_at", "built_at", "builds", "runner", "seconds", "name", "title", "dir", "reason",
                "build_stages"}  # wall seconds per build stage: a timing, not content
    assert _without(a.manifest, volatile) == _without(b.manifest, volatile)
    assert b.manifest["index"]["runner"]["backend"] == "ray" and "runner" not in a.manifest["index"]


@pytest.mark.slow
def test_index_on_ray_equals_one_process_spacy_extraction(ray_session, tmp_path, monkeypatch, capsys):
    """40 MuSiQue passages, the spaCy extractor (the default without an LLM) and the hashing embedder:
    the same graph, vectors, FAISS results and manifest; the extraction really ran on Ray (own caches)."""
    corpus = _musique_corpus(tmp_path, 40)
    common = [str(corpus), "--embedder", "hashing", "--extractor", "spacy"]
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache-one"))
    assert main(["index", *common, "--workspace", str(tmp_path / "one")]) == 0
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache-ray"))
    assert main(["index", *common, "--workspace", str(tmp_path / "ray"), "--ray", "--ray-workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "Ray: 2 worker(s) at local." in out and "40 chunk(s) extracted now, 0 from the cache" in out
    _same_workspace(tmp_path / "one", tmp_path / "ray", atol=0.0)
    ray = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert ray["extraction"]["runner"] == {"backend": "ray", "address": "local", "workers": 2, "gpus_per_worker": 0.0}
    cached = sorted(p.name for p in (tmp_path / "cache-ray" / "extraction").rglob("*.json"))
    assert cached == sorted(p.name for p in (tmp_path / "cache-one" / "extraction").rglob("*.json"))
    assert len(cached) == 40


@pytest.mark.model
def test_reindex_on_ray_with_bge_small_equals_one_process(ray_session, tmp_path):
    """The default embedder (int8 ONNX bge-small) in actors: the same vectors within float tolerance and
    the same FAISS neighbours as the index built here (`egx index --workspace DIR --rebuild --ray`)."""
    import shutil

    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    # On the CPU here, as in the actors (the module's Ray has no GPUs): one process against Ray with the same
    # int8 kernels, not a GPU against a CPU (their vectors are ~1e-3 apart).
    ws = ensure_sample_workspace("demo", get_embedder("bge-small", device="cpu"), root=tmp_path)
    shutil.copytree(ws.path, tmp_path / "ray")
    assert main(["index", "--workspace", str(tmp_path / "ray"), "--embedder", "bge-small", "--rebuild",
                 "--ray", "--ray-workers", "1"]) == 0
    # same kernels, another process and thread count: only float32 rounding may differ (measured: none)
    _same_workspace(ws.path, tmp_path / "ray", atol=1e-5)


def test_extraction_on_ray_keeps_chunk_order_and_notes(ray_session, tmp_path):
    """Batches finish in any order on Ray; the triples come back in chunk order with the extractor's notes
    (a passage not in a Latin script is skipped with a note) in batch order, as in one process."""
    from core.backends.registry import get_extractor
    from core.batch.ray_runner import RayRunner
    from core.graph.builder import extract_triples
    from core.graph.model import Chunk

    chunks = [Chunk(id=f"c{i}", title=f"Town {i}", text=f"Alice Moreau{i} met Bob Stone{i} in Paris. " * (i % 3 + 1))
              for i in range(30)]
    chunks[5] = Chunk(id="c5", title="", text="Москва — столица России. " * 4)
    chunks[22] = Chunk(id="c22", title="", text="東京は日本の首都です。" * 4)
    spacy = get_extractor("spacy")
    one = extract_triples(chunks, spacy, cache_dir=tmp_path / "one", batch_size=4)
    with RayRunner(workers=2) as runner:
        ray = extract_triples(chunks, spacy, cache_dir=tmp_path / "ray", batch_size=4, runner=runner)
    assert ray.triples == one.triples and list(ray.triples) == list(one.triples)
    assert (ray.extracted, ray.from_cache, ray.failed, ray.notes) == (one.extracted, one.from_cache, one.failed,
                                                                      one.notes)
    assert len(one.notes) == 2 and one.n_triples > 30


# ----------------------------------------------------------------------------- bench
def _records(out: Path) -> dict[tuple[str, str], dict]:
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    recs = {(r["question_id"], r["method"]): _without(r, TIMING_KEYS) for r in lines}
    assert len(recs) == len(lines)  # no pair twice
    return recs


BENCH = ["bench", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--llm", "none",
         "--methods", "dense,ppr,bubblerag"]


def test_bench_on_ray_equals_one_process(ray_session, tmp_path, capsys):
    assert main([*BENCH, "--out", str(tmp_path / "one")]) == 0
    assert main([*BENCH, "--out", str(tmp_path / "ray"), "--ray", "--ray-workers", "2"]) == 0
    assert "15 runs now, 0 already done" in capsys.readouterr().out
    one, ray = _records(tmp_path / "one"), _records(tmp_path / "ray")
    assert len(one) == 15 and one == ray
    s1 = json.loads((tmp_path / "one" / "summary.json").read_text())
    s2 = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert {m: {k: v for k, v in ms.items() if "second" not in k and "latency" not in k}
            for m, ms in s1["methods"].items()} == \
           {m: {k: v for k, v in ms.items() if "second" not in k and "latency" not in k}
            for m, ms in s2["methods"].items()}


@pytest.mark.slow
def test_killed_ray_bench_keeps_finished_pairs_and_resumes(ray_session, tmp_path):
    """The driver writes each line as its pair finishes: an interrupt after 4 pairs leaves 4 lines (a torn
    fifth is dropped), the actors are stopped, and a second run (on Ray) does exactly the rest."""
    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder
    from core.batch.ray_runner import RayRunner
    from core.eval.runner import run_benchmark
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    qs = load_questions(ws)
    backends = Backends(emb, NoLLM(), None)
    methods = ["dense", "ppr", "bubblerag"]
    ref = run_benchmark(ws, qs, methods, backends, out_dir=tmp_path / "one")

    def stop_after_4(done: int, total: int, msg: str) -> None:
        if done == 4:
            raise KeyboardInterrupt

    out = tmp_path / "ray"
    with RayRunner(workers=2) as runner:
        with pytest.raises(KeyboardInterrupt):
            run_benchmark(ws, qs, methods, backends, out_dir=out, runner=runner, progress=stop_after_4)
        assert len((out / "results.jsonl").read_text().splitlines()) == 4
        with (out / "results.jsonl").open("a") as fh:
            fh.write('{"question_id": "torn')  # a kill in the middle of a line
        rep = run_benchmark(ws, qs, methods, backends, out_dir=out, runner=runner)
    assert (rep.ran, rep.skipped) == (11, 4)
    assert _records(out) == {(r["question_id"], r["method"]): _without(r, TIMING_KEYS) for r in ref.records}
    assert [(r["question_id"], r["method"]) for r in rep.records] == \
           [(r["question_id"], r["method"]) for r in ref.records]
