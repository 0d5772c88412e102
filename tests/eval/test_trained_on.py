"""No train/test leak: a question a benchmarked method's trained model was trained or validated on (its
manifest's split, ``Method.trained_on``) is left out of `egx bench`, `egx ablate`, the page and `egx record` by
default, counted and said; kept on request, every such row is flagged "trained on"."""

from __future__ import annotations

import csv
import dataclasses
import json
import re

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.cli import main
from core.errors import ConfigError
from core.eval.report import REPORT, TRIAGE
from core.eval.runner import questions_left_out, run_benchmark
from core.eval.triage import TRAINED_ON
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.registry import registered
from tests.fakes import TOY_METHOD

SEEN = ("matrix-villain", "lothair-mother")  # two of the demo's five questions


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=32)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM())


TOY = dataclasses.replace(TOY_METHOD, trained_on=lambda ws, backends, cfg: frozenset(SEEN))


def test_questions_a_model_learned_from_are_left_out_counted_and_said(demo, tmp_path):
    ws, b = demo
    qs = load_questions(ws)
    out = tmp_path / "run"
    with registered(TOY):
        left = questions_left_out(ws, qs, ["dense", "toy"], b)
        assert left.excluded == set(SEEN) and left.trained_on == {q: ("toy",) for q in SEEN}
        rep = run_benchmark(ws, qs, ["dense", "toy"], b, out_dir=out)
    # left out for every method of the run, so the methods are still compared on the same questions
    assert {r["question_id"] for r in rep.records} == {q.id for q in qs} - set(SEEN)
    assert len(rep.records) == 2 * 3 and not any(r.get("trained_on") for r in rep.records)
    note = ("2 of 5 questions are left out because toy's model was trained or validated on them — its figures "
            "would be inflated")
    assert any(w.startswith(note) for w in rep.warnings)
    run = json.loads((out / "run.json").read_text())
    assert run["left_out"]["trained_on"] == {q: ["toy"] for q in SEEN} and run["settings"]["keep_trained"] is False
    assert rep.summary["left_out"]["of"] == 5
    assert f"> **Left out**: {note}" in (out / REPORT).read_text(encoding="utf-8")


def test_kept_on_request_every_such_row_is_flagged(demo, tmp_path):
    ws, b = demo
    qs = load_questions(ws)
    out = tmp_path / "kept"
    with registered(TOY):
        rep = run_benchmark(ws, qs, ["dense", "toy"], b, out_dir=out, keep_trained=True)
        # keeping them is another question set: a rerun of the same folder without the option is refused
        with pytest.raises(ConfigError, match=re.escape("holds a benchmark run with other settings (keep_trained")):
            run_benchmark(ws, qs, ["dense", "toy"], b, out_dir=out)
    flagged = {(r["question_id"], r["method"]) for r in rep.records if r.get("trained_on")}
    assert flagged == {(q, "toy") for q in SEEN}  # the toy's rows only: dense learned nothing from them
    assert len(rep.records) == 10 and rep.summary["methods"]["toy"]["trained_on"] == 2
    assert rep.summary["methods"]["dense"]["trained_on"] == 0
    rows = list(csv.DictReader((out / TRIAGE).read_text(encoding="utf-8-sig").splitlines()))
    assert sorted((r["id"], r["method"]) for r in rows if r[TRAINED_ON]) == sorted(flagged)
    assert all(r[TRAINED_ON].startswith("yes") for r in rows if r[TRAINED_ON])
    report = (out / REPORT).read_text(encoding="utf-8")
    assert ("> **Trained on — toy**: 2 of 5 toy rows are questions its model was trained or validated on (kept on "
            "request, flagged “trained on”): their figures are inflated.") in report
    assert "**Left out**" not in report


def test_nothing_left_to_run_is_an_error_naming_the_option(demo, tmp_path):
    ws, b = demo
    every = dataclasses.replace(TOY_METHOD, trained_on=lambda ws, backends, cfg: frozenset(
        q.id for q in load_questions(ws)))
    with registered(every), pytest.raises(ConfigError, match=r"No question is left to benchmark: 5 of 5 questions are "
                                                            r"left out .* Run with --keep-trained"):
        run_benchmark(ws, load_questions(ws), ["toy"], b, out_dir=tmp_path / "none")


def _save_retriever(folder, ws, emb, split):
    """A loadable ReG@Triple retriever (untrained weights) in ``folder``, its manifest naming its split."""
    from core.methods.reg.dde import dde_dim
    from core.methods.reg.retriever import build_mlp, save_model

    in_dim = 5 * emb.dim + 2 * dde_dim(2, 2)
    manifest = {"in_dim": in_dim, "hidden": 8, "dde_rounds": 2, "dde_reverse_rounds": 2, "dim": emb.dim,
                "cosine_residual": False, "embedder": emb.model_id, "graph_hash": ws.content_hash,
                "supervision": "weak", "split": split}
    save_model(folder, build_mlp(in_dim, 8), manifest, "triple")


def test_regs_retriever_split_is_the_contract(tmp_path, capsys):
    """The real `reg` method: its retriever manifest's train and validation ids are left out of `egx bench` and
    `egx ablate`, its test ids kept; --keep-trained keeps and flags them."""
    from core.backends.registry import get_embedder

    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    split = {"train": ["matrix-villain"], "val": ["ml-expert"], "test": ["lothair-mother"]}
    for name in ("retriever", "weak"):  # the default model, and the one the ablation's "weak" rows load
        _save_retriever(ws.path / "reg" / name, ws, emb, split)
    b = Backends(emb, NoLLM())
    qs = load_questions(ws)
    left = questions_left_out(ws, qs, ["dense", "reg"], b)
    assert left.trained_on == {"matrix-villain": ("reg",), "ml-expert": ("reg",)}
    rep = run_benchmark(ws, qs, ["reg"], b, out_dir=tmp_path / "b", limit=2)
    unseen = [q.id for q in qs if q.id not in ("matrix-villain", "ml-expert")]
    assert [r["question_id"] for r in rep.records] == unseen[:2]  # the limit takes the first questions never seen
    assert all(n.startswith("ReG w/o S(I)") for r in rep.records for n in r["notices"])  # its retriever, not cosine
    kept = run_benchmark(ws, qs, ["reg"], b, out_dir=tmp_path / "k", keep_trained=True)
    assert sorted(r["question_id"] for r in kept.records if r.get("trained_on")) == ["matrix-villain", "ml-expert"]

    note = "2 of 5 questions are left out because reg's model was trained or validated on them"
    assert main(["bench", "--workspace", str(ws.path), "--embedder", "hashing", "--methods", "reg", "--out",
                 str(tmp_path / "cli")]) == 0
    err = capsys.readouterr().err
    assert f"egx bench: note: {note}" in err and "(--keep-trained keeps them, each row flagged)" in err
    assert main(["ablate", "--method", "reg", "--rows", "weak-chains", "--workspace", str(ws.path), "--embedder",
                 "hashing", "--out", str(tmp_path / "abl")]) == 0
    cap = capsys.readouterr()
    assert f"egx ablate: note: {note}" in cap.err and "| weak supervision, evidence chains | 3 |" in cap.out
    assert f"- {note}" in (tmp_path / "abl" / "ablation.md").read_text(encoding="utf-8")


def test_record_leaves_out_a_pair_whose_model_learned_from_the_question(tmp_path, capsys, monkeypatch):
    from core.backends.llm_bundles import load_recording
    from tests.cli.test_llm_cache_cli import _reply
    from tests.fake_openai import fake_openai_server, openai_env

    with fake_openai_server({"content": _reply}) as server, registered(TOY):
        for k, v in openai_env(server).items():
            monkeypatch.setenv(k, v)
        args = ["record", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--llm", "openai",
                "--methods", "dense,toy", "--only", "matrix-villain,ml-expert"]
        out = tmp_path / "rec.json"
        assert main([*args, "--out", str(out)]) == 0
        cap = capsys.readouterr()
        assert "3 run(s) recorded, 0 already in" in cap.out and "1 left out (trained on)" in cap.out
        assert ("egx record: note: 1 toy run(s) left out: toy's trained model was trained or validated on their "
                "questions (--keep-trained keeps them, each row flagged)") in cap.err
        runs = {(r["method"], r["question_id"]) for r in load_recording(out).runs}
        assert runs == {("dense", "matrix-villain"), ("dense", "ml-expert"), ("toy", "ml-expert")}
        kept = tmp_path / "kept.json"
        assert main([*args, "--out", str(kept), "--keep-trained"]) == 0
        assert "4 run(s) recorded" in capsys.readouterr().out
        flagged = [(r["method"], r["question_id"]) for r in load_recording(kept).runs if r.get("trained_on")]
        assert flagged == [("toy", "matrix-villain")]
