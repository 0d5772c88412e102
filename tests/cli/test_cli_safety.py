"""Data safety at the command line: refusals that delete nothing, errors on their own line, hidden
folders never listed, outputs whose folder is missing, interrupted commits recovered."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from core.cli import main
from tests.conftest import ROOT, SAMPLE_DATA

TRIPLES = str(SAMPLE_DATA / "demo" / "triples.csv")


def egx(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EGX_HOME": str(home), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_overwrite_onto_a_folder_with_a_thesis_deletes_nothing(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "thesis.txt").write_text("four years")
    assert main(["index", TRIPLES, "--workspace", str(victim), "--overwrite", "--embedder", "hashing"]) == 2
    err = capsys.readouterr().err
    assert err == (f"egx: error: {victim} is not an egx workspace (it has no manifest.json written by egx; it holds "
                   "'thesis.txt'), so --overwrite will not replace it. Nothing was deleted. Pick another --workspace "
                   "folder.\n")
    assert (victim / "thesis.txt").read_text() == "four years"


def test_workspace_dotdot_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "thesis.txt").write_text("keep")
    monkeypatch.chdir(tmp_path / "a" / "b")
    assert main(["index", TRIPLES, "--workspace", "..", "--overwrite", "--embedder", "hashing"]) == 2
    assert "egx: error: Refusing to build a workspace at '..'" in capsys.readouterr().err
    assert (tmp_path / "a" / "thesis.txt").read_text() == "keep"


def test_an_error_after_the_progress_bar_starts_on_its_own_line(tmp_path):
    bad = tmp_path / "t.csv"
    bad.write_text("head,relation,tail\nAlice,knows,Bob\n...,is,x\n")
    r = egx("index", str(bad), "--workspace", "w", "--embedder", "hashing", cwd=tmp_path, home=tmp_path / "home")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    msg = ("egx: error: t.csv, line 3: the head '...' has no letter or digit (only punctuation or spaces). "
           "Expected names with at least one letter or digit.\n")
    assert r.stderr.endswith(msg)
    i = r.stderr.index("egx: error:")
    assert i == 0 or r.stderr[i - 1] in "\r\n"  # never glued after the bar
    assert not (tmp_path / "w").exists()


def test_unknown_workspace_lists_no_hidden_folders(tmp_path, capsys, monkeypatch):
    root = tmp_path / "home" / "workspaces"
    (root / ".mine.building-1-2-0123456789").mkdir(parents=True)
    (root / ".mine.building-1-2-0123456789" / "manifest.json").write_text('{"format": "egx-workspace", "version": 1}')
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    assert main(["ask", "q", "--workspace", "nosuch", "--embedder", "hashing"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("egx: error: Unknown workspace 'nosuch'. Valid workspaces: 'demo', 'musique'")
    assert ".mine" not in err


def test_an_interrupted_commit_is_recovered_when_asked_by_name(tmp_path, capsys, monkeypatch):
    from core.index.create import create_workspace

    root = tmp_path / "home" / "workspaces"
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    from core.backends.registry import get_embedder

    create_workspace([TRIPLES], root / ".mine.old-4242", embedder=get_embedder("hashing"), name="mine")
    assert main(["ask", "Who starred in The Matrix?", "--workspace", "mine", "--method", "dense",
                 "--embedder", "hashing", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks"]
    assert sorted(p.name for p in root.iterdir() if not p.name.endswith(".lock")) == ["mine"]


def test_trace_into_a_missing_folder_is_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "Who starred in The Matrix?", "--workspace", "demo", "--method", "dense",
                 "--embedder", "hashing", "--trace", "runs/today/t.json"]) == 0
    assert "A:" in capsys.readouterr().out
    assert json.loads((tmp_path / "runs" / "today" / "t.json").read_text())["method"] == "dense"


def test_trace_pointing_at_a_folder_fails_before_computing(tmp_path, capsys, monkeypatch):
    import core.cli.ask as cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    called: list[str] = []
    monkeypatch.setattr(cli, "resolve_workspace", lambda *a, **k: called.append("x"))
    assert main(["ask", "q", "--workspace", "demo", "--embedder", "hashing", "--trace", "d"]) == 2
    assert capsys.readouterr().err == "egx: error: --trace d is a folder; give a file name, e.g. --trace d/trace.json.\n"
    assert called == []


def test_bench_out_file_and_negative_limit(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("keep me")
    base = ["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense"]
    assert main([*base, "--out", str(f)]) == 2
    assert re.search(r"egx: error: The benchmark folder .*file\.txt \(--out\) is a file", capsys.readouterr().err)
    assert f.read_text() == "keep me"
    assert main([*base, "--out", str(tmp_path / "o"), "--limit", "-1"]) == 2
    assert "egx: error: limit = -1 is out of range" in capsys.readouterr().err


def test_bench_warns_about_questions_it_leaves_out(tmp_path, capsys):
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"id": "m", "question": "Who played Agent Smith?", "supporting_facts": [["The Matrix", 0]]},
                             {"id": "x", "question": "Who?", "supporting_facts": [["No Such Title", 0]]}]))
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--questions", str(q),
                 "--out", str(tmp_path / "o")]) == 0
    assert ("egx bench: warning: 1 of 2 questions are left out: their gold passages match no chunk of this workspace "
            "('x').") in capsys.readouterr().err


def test_sample_rebuild_repairs_a_damaged_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EGX_HOME", str(tmp_path))
    assert main(["index", "--sample", "demo", "--embedder", "hashing"]) == 0
    g = tmp_path / "workspaces" / "demo" / "graph.json.gz"
    g.write_bytes(g.read_bytes()[:100])
    assert main(["index", "--sample", "demo", "--embedder", "hashing", "--rebuild"]) == 0
    assert "Workspace 'demo'" in capsys.readouterr().out


def test_the_openai_key_is_never_written(tmp_path, monkeypatch, capsys):
    """Keep: the key reaches the client only; traces, workspaces and caches never hold it."""
    canary = "sk-egx-canary-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    monkeypatch.setenv("EGX_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: every call fails
    monkeypatch.setenv("EGX_OPENAI_MODEL", "m")
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    main(["ask", "Who starred in The Matrix?", "--workspace", "demo", "--method", "dense", "--embedder", "hashing",
          "--llm", "openai", "--trace", "t.json"])
    out = capsys.readouterr()
    assert canary not in out.out + out.err
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and canary.encode() in p.read_bytes()]
    assert leaked == []
