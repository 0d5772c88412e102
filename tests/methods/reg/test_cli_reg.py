"""`egx train-reg` then `egx ask --method reg` end to end on the demo KG (hashing embedder)."""

from __future__ import annotations

import json

import pytest

from core.backends.embedders import HashingEmbedder
from core.cli import main
from core.index.workspace import ensure_sample_workspace


@pytest.fixture
def demo_path(tmp_path):
    ws = ensure_sample_workspace("demo", HashingEmbedder(), root=tmp_path / "ws")
    g = ws.graph
    qs = []
    for e in range(0, g.n_edges, 2):  # one-hop questions whose answer is the tail of a real triple
        h, r, t = g.node_names[int(g.edge_head[e])], g.edge_relation[e], g.node_names[int(g.edge_tail[e])]
        qs.append({"id": f"q{e}", "question": f"What is {h} {r}?", "answer": t})
    (tmp_path / "qa.json").write_text(json.dumps(qs), encoding="utf-8")
    return ws.path, tmp_path / "qa.json"


def test_train_reg_then_ask_uses_the_trained_model(demo_path, capsys) -> None:
    ws, qa = demo_path
    args = ["train-reg", "--workspace", str(ws), "--questions", str(qa), "--embedder", "hashing", "--epochs", "3",
            "--json"]
    assert main(args) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["supervision"] == "weak" and len(res["curves"]["val_recall"]) == 3
    assert not set(res["split"]["test"]) & set(res["split"]["train"])
    assert (ws / "reg" / "retriever" / "model.pt").exists()
    manifest = json.loads((ws / "reg" / "retriever" / "manifest.json").read_text())
    assert manifest["embedder"] == HashingEmbedder().model_id and manifest["supervision"] == "weak"
    assert main(["ask", "Who played Agent Smith?", "--workspace", str(ws), "--method", "reg", "--embedder", "hashing",
                 "--json", "--evidence-format", "triples"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "reg" and out["chunks"]
    assert not any("egx train-reg" in f for f in out["fallbacks"])  # the trained model was found


def test_refined_without_llm_says_it_keeps_weak_labels(demo_path, capsys) -> None:
    ws, qa = demo_path
    assert main(["train-reg", "--workspace", str(ws), "--questions", str(qa), "--embedder", "hashing", "--epochs", "2",
                 "--supervision", "refined", "--out", str(ws / "reg" / "refined")]) == 0
    cap = capsys.readouterr()
    assert "keeps the weak shortest-path labels" in cap.err and "Saved to" in cap.out


def test_ask_evidence_format_on_a_method_without_the_field(demo_path, capsys) -> None:
    from core.errors import ConfigError
    from tests.fakes import TOY_METHOD

    with pytest.raises(ConfigError, match=r"^ToyConfig has no field \['evidence_format'\]; it has \['top_k'\]\.$"):
        TOY_METHOD.make_config(evidence_format="chains")
