"""`egx reproduce` end to end, as a user runs it: a CLI subprocess in a fresh EGX_HOME on the demo workspace
(hashing embedder, bi-encoder stand-in reranker, no LLM)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.outputs import OUTPUT_MARKER
from tests.conftest import ROOT

FAST = ["--workspace", "demo", "--llm", "none", "--embedder", "hashing", "--reranker", "biencoder"]


def _egx(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EGX_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "core.cli", "reproduce", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)


def _run_json(folder: Path) -> dict:
    return json.loads((folder / "run.json").read_text(encoding="utf-8"))


def test_reproduce_bubblerag_runs_its_rows_under_its_budget_writes_the_table_and_resumes(tmp_path):
    home = tmp_path / "home"
    out = _egx(home, "--paper", "bubblerag", "--limit", "2", *FAST)
    assert out.returncode == 0, out.stderr
    folder = home / "reproduce" / "demo" / "bubblerag" / "none"  # default --out: $EGX_HOME/reproduce/<workspace>
    assert {p.name for p in folder.iterdir()} == {"main", "reproduce.md", "reproduce.json"}
    run = _run_json(folder / "main")
    # the paper's budget preset is what the runs used: BubbleRAG §4.1, at most 15 chunks for every method
    assert run["settings"]["budget"] == "bubblerag"
    assert run["settings"]["budget_limits"] == {"chunks": 15, "tokens": None}
    assert run["methods"] == ["dense", "hipporag2", "bubblerag"] and len(run["questions"]) == 2
    recs = [json.loads(x) for x in (folder / "main" / "results.jsonl").read_text().splitlines()]
    assert len(recs) == 6 and {r["context"]["budget"] for r in recs} == {"bubblerag"}
    assert max(r["context"]["chunks"] for r in recs) <= 15
    assert "| Naive RAG | `dense` | 34.53 |" in out.stdout and "## BubbleRAG Table 2 (§4.2): MuSiQue" in out.stdout
    assert "6 runs now, 0 already done" in out.stdout
    rec = json.loads((folder / "reproduce.json").read_text())
    assert rec["command"] == ("egx reproduce --paper bubblerag --workspace demo --llm none --embedder hashing "
                              "--reranker biencoder --limit 2")
    assert rec["budget"]["name"] == "bubblerag" and rec["questions"]["n"] == 2 and rec["seconds"] >= 0
    # a resume does not rerun: every pair is done before, nothing is appended
    again = _egx(home, "--paper", "bubblerag", "--limit", "2", *FAST, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["runs"][0] == {**rec["runs"][0], "ran": 0, "done_before": 6,
                                                   "seconds": json.loads(again.stdout)["runs"][0]["seconds"]}
    assert len((folder / "main" / "results.jsonl").read_text().splitlines()) == 6


def test_reproduce_fastinsight_ranks_kg_nodes_with_every_method(tmp_path):
    out = _egx(tmp_path / "home", "--paper", "fastinsight", "--limit", "1", *FAST, "--out", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    run = _run_json(tmp_path / "r" / "fastinsight" / "none" / "main")
    assert run["settings"]["config_changes"] == {"dense": {"node_level": True}, "rerank": {"node_level": True}}
    assert run["settings"]["budget"] == "fastinsight"
    table = json.loads((tmp_path / "r" / "fastinsight" / "none" / "reproduce.json").read_text())["tables"][0]
    dense = next(r for r in table["records"] if r["row"] == "Vector Search" and r["metric_id"] == "node R@10")
    assert dense["ours"] is not None and dense["basis"] == ""  # a node figure, not the passage stand-in


def test_reproduce_refuses_an_unknown_paper_naming_the_choices(tmp_path):
    out = _egx(tmp_path / "home", "--paper", "graphrag", *FAST)
    assert out.returncode == 2
    # argparse quotes the choices from Python 3.12 on
    assert re.search(r"argument --paper: invalid choice: 'graphrag' \(choose from '?bubblerag'?, '?fastinsight'?, "
                     r"'?sgrag'?, '?reg'?, '?all'?\)", out.stderr), out.stderr


@pytest.mark.slow
def test_reproduce_all_runs_the_four_papers_and_says_which_rows_could_not_run(tmp_path):
    home = tmp_path / "home"
    out = _egx(home, "--paper", "all", "--limit", "1", *FAST)
    assert out.returncode == 0, out.stderr
    root = home / "reproduce" / "demo"
    # one folder a paper, and the marker that makes the root an output folder of egx's (core/outputs.py)
    assert {p.name for p in root.iterdir()} == {"bubblerag", "fastinsight", "sgrag", "reg", OUTPUT_MARKER}
    budgets = {p: _run_json(root / p / "none" / "main")["settings"]["budget"] for p in ("bubblerag", "fastinsight",
                                                                                       "sgrag", "reg")}
    assert budgets == {"bubblerag": "bubblerag", "fastinsight": "fastinsight", "sgrag": "sgrag", "reg": "reg"}
    reg = json.loads((root / "reg" / "none" / "reproduce.json").read_text())
    # the demo has no weakly supervised or entity retriever: those rows say so and how to train one
    assert {x["run"] for x in reg["not_run"]} == {"reg-evidence_format-triples-model-weak-untrained-error",
                                                  "reg-retriever-entity"}
    assert all("egx train-reg --workspace" in x["why"] for x in reg["not_run"])
    cell = next(r for t in reg["tables"] for r in t["records"] if r["row"] == "ReG@Entity: ReG (Llama3.1-8B)")
    assert cell["blank"].startswith("not run: no trained model in ")
    sg = json.loads((root / "sgrag" / "none" / "reproduce.json").read_text())
    # SubgraphRAG's reg has no weak retriever here; Table 5's three graph baselines are SG-RAG runs of their own
    assert [(r["name"], r["methods"]) for r in sg["runs"]] == [
        ("main", ["dense", "sgrag"]), ("sgrag-retrieval-entity", ["sgrag"]), ("sgrag-retrieval-1-hop", ["sgrag"]),
        ("sgrag-retrieval-2-hop", ["sgrag"])]
    assert sum(line.startswith("# Reproducing ") for line in out.stdout.splitlines()) == 4
