"""The app on a graph store vs in memory: the app process's RSS with the remote store, which must not grow
with the KG.

The MuSiQue sample (bge-small index, the bundled cross-encoder, LLM ``none``) is opened twice, each time
in a fresh child process that runs the app in Streamlit's AppTest: once as the workspace in memory, once
as a copy whose graph was moved into FalkorDB (a server started here on a free loopback port). Each child
opens the home page, then asks the BubbleRAG Ask page the first ``--questions`` MuSiQue questions, one
after another, as a user typing them would. Per side it reports:

* the process's RSS after the home page (the workspace opened) and after the questions, and its peak;
* seconds per Ask render (median, max);
* on the store side: the store reads per question by kind, and whether the whole graph was ever read
  (it must not be: ``whole_graph_reads`` = 0).

Usage: flock /tmp/egx-cpu.lock python benchmarks/app_store.py [--questions 5] [--out results.json]
(``EGX_HOME`` must hold the bge-small MuSiQue sample; ``make app`` builds it.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.store_methods import _status as status_mb  # noqa: E402  (VmRSS / VmHWM of this process, MB)

ENV = {"EGX_EMBEDDER": "bge-small", "EGX_RERANKER": "ms-marco-minilm", "EGX_LLM": "none", "HF_HUB_OFFLINE": "1",
       "EGX_JOB_INLINE_WAIT": "600"}
READS = ("node_rows", "node_table", "degrees", "edge_rows", "incident_edges", "neighbor_lists", "node_chunks",
         "edge_chunks", "chunks", "chunk_rows", "chunk_row_numbers", "region", "nodes_named", "find_nodes")


def child(home: str, workspace: str, n: int) -> dict:
    """Run in a fresh process: the app in AppTest on ``workspace`` of ``home``."""
    os.environ.update(ENV, EGX_HOME=home)
    from streamlit.testing.v1 import AppTest

    from components import state as S
    from core.graph.stores.falkor import FalkorStore
    from core.index.workspace import Workspace
    from tests.app.helpers import APP

    reads: Counter[str] = Counter()
    whole = Counter()
    for name in READS:
        real = getattr(FalkorStore, name)
        setattr(FalkorStore, name, lambda self, *a, _r=real, _n=name, **k: reads.update([_n]) or _r(self, *a, **k))
    for name in ("graph", "_read_all"):
        real = getattr(FalkorStore, name)
        setattr(FalkorStore, name, lambda self, *a, _r=real, _n=name, **k: whole.update([_n]) or _r(self, *a, **k))

    questions = [json.loads(line)["question"] for line in
                 (Path(home) / "questions.jsonl").read_text().splitlines()][:n]
    at = AppTest.from_file(APP, default_timeout=900)
    at.session_state[S.WORKSPACE] = workspace
    t0 = time.perf_counter()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    opened = {"seconds": round(time.perf_counter() - t0, 2), "rss_mb": round(status_mb("VmRSS"), 1),
              "store_reads": sum(reads.values())}
    at.switch_page(str(ROOT / "pages" / "bubble_ask.py")).run()
    per_q = []
    for q in questions:
        reads.clear()
        box = at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask"))
        t = time.perf_counter()
        box.input(q).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.get("iframe"), "no evidence drawing"
        per_q.append({"seconds": round(time.perf_counter() - t, 3), "store_reads": dict(reads)})
    ws = Workspace.open(Path(home) / "workspaces" / workspace)
    secs = [r["seconds"] for r in per_q]
    return {"workspace": workspace, "store": ws.store_url, "opened": opened, "questions": per_q,
            "ask_seconds_median": round(statistics.median(secs), 3), "ask_seconds_max": round(max(secs), 3),
            "rss_after_mb": round(status_mb("VmRSS"), 1), "rss_peak_mb": round(status_mb("VmHWM"), 1),
            "whole_graph_reads": sum(whole.values())}


def run_child(home: Path, workspace: str, n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(home), workspace, str(n)], cwd=ROOT,
                         capture_output=True, text=True, check=False, env={**os.environ, **ENV})
    if out.returncode:
        raise SystemExit(f"the {workspace} child failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--child", nargs=3, metavar=("HOME", "WORKSPACE", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], int(args.child[2]))))
        return

    from core.backends.registry import get_embedder
    from core.fsio import egx_home
    from core.graph.stores.falkor_server import FalkorServer
    from core.index.manifest import MANIFEST
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    src = ensure_sample_workspace("musique", get_embedder("bge-small"))
    questions = [q.question for q in load_questions(src)]
    with tempfile.TemporaryDirectory(prefix="egx-app-store-") as tmp, FalkorServer(Path(tmp) / "falkordb") as server:
        mem_home, store_home = Path(tmp) / "mem", Path(tmp) / "store"
        for home, name in ((mem_home, "musique"), (store_home, "stored")):
            dst = home / "workspaces" / name
            shutil.copytree(src.path, dst)
            (home / "questions.jsonl").write_text("\n".join(json.dumps({"question": q}) for q in questions))
            if name == "stored":
                manifest = json.loads((dst / MANIFEST).read_text())  # a user workspace, not the sample
                manifest.update(name=name, title="MuSiQue in FalkorDB")
                manifest.pop("sample", None)
                (dst / MANIFEST).write_text(json.dumps(manifest))
                t = time.perf_counter()
                Workspace.open(dst).move_to_store(server.url("app_store_musique"), overwrite=True)
                moved = round(time.perf_counter() - t, 1)
        mem = run_child(mem_home, "musique", args.questions)
        store = run_child(store_home, "stored", args.questions)
    g = src.graph
    report = {"date": time.strftime("%Y-%m-%d"), "graph": {"nodes": g.n_nodes, "edges": g.n_edges, "chunks": g.n_chunks},
              "questions": args.questions, "move_to_store_seconds": moved, "egx_home": str(egx_home()),
              "memory": mem, "store": store,
              "rss_after_store_vs_memory_mb": round(store["rss_after_mb"] - mem["rss_after_mb"], 1),
              "ask_median_ratio_store_vs_memory": round(store["ask_seconds_median"] / mem["ask_seconds_median"], 2)}
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
