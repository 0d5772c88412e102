"""A benchmark scores every question with the trained models it started with (``Method.pin``): audit 43 trained
ReG while a benchmark of the workspace ran, and one run's ReG row scored 10 questions by cosine and 1 by the model
installed midway. The run pins a copy of the retriever when it starts, so an install (or a removal) midway changes
none of its rows; the copy is removed when the run ends."""

from __future__ import annotations

import json
import shutil

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.eval.runner import PINNED, run_benchmark
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.reg.config import TrainConfig
from core.methods.reg.models import is_pin, pin, stamp
from core.methods.reg.retriever import default_model_dir
from core.methods.reg.train import train_reg


def _trained_demo(tmp_path):
    emb = HashingEmbedder()
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    g = ws.graph
    qs = [{"id": f"t{e}", "question": f"What is {g.node_names[int(g.edge_head[e])]} {g.edge_relation[e]}?",
           "answer": g.node_names[int(g.edge_tail[e])]} for e in range(0, g.n_edges, 2)]
    qa = tmp_path / "qa.json"
    qa.write_text(json.dumps(qs), encoding="utf-8")
    b = Backends(emb, NoLLM())
    train_reg(ws, qa, backends=b, cfg=TrainConfig(supervision="weak", epochs=2), out=default_model_dir(ws))
    return ws, b


def test_a_retriever_removed_midway_scores_none_of_the_runs_later_questions(tmp_path):
    ws, b = _trained_demo(tmp_path)
    before = stamp(ws, b, None)
    assert not next(iter(before.values())).startswith("none")  # the run starts with a trained retriever
    questions = load_questions(ws)[:3]
    assert len(questions) == 3
    out = tmp_path / "run"
    seen: list[str] = []

    def progress(done: int, total: int, message: str) -> None:
        seen.append(message)
        if message.endswith("done") and default_model_dir(ws).exists():  # the first pair is in: uninstall it
            assert (out / PINNED / "reg").is_dir()
            shutil.rmtree(default_model_dir(ws))

    rep = run_benchmark(ws, questions, ["reg"], b, out_dir=out, progress=progress)
    assert rep.ran == 3 and not default_model_dir(ws).exists()
    notices = [json.dumps(r.get("notices", r)) for r in rep.records]
    # every row was scored by the trained retriever the run started with: none took the cosine fallback
    assert not [n for n in notices if "untrained fallback" in n], notices
    assert not (out / PINNED).exists()  # the copy went with the run
    assert json.loads((out / "run.json").read_text())["settings"]["models"]["reg"] == before


def test_a_pin_is_a_copy_with_the_same_stamp_and_a_start_without_a_model_pins_the_fallback(tmp_path):
    ws, b = _trained_demo(tmp_path)
    cfg = pin(ws, b, None, tmp_path / "pin")
    assert cfg is not None and is_pin(cfg.model) and stamp(ws, b, cfg) == stamp(ws, b, None)
    shutil.rmtree(default_model_dir(ws))
    empty = pin(ws, b, None, tmp_path / "pin")  # taken again: what is installed now (nothing)
    assert empty is not None and next(iter(stamp(ws, b, empty).values())).startswith("none")
    assert pin(ws, b, empty, tmp_path / "other") is None  # a folder the config names is the user's, left as it is


def test_a_runs_notice_is_the_state_it_pinned_not_the_disk_midway(tmp_path):
    """Audit 48 trained ReG while a benchmark ran (the new model kept aside): the report said "no ReG@Triple model is
    trained" on 6 questions and "… was kept aside" on the other 6, the notice read from the disk per question. A run
    that started with no model says so on every question, whatever training does meanwhile; one that started with a
    model kept aside says that."""
    from core.methods.reg.keep import aside_dir
    from core.methods.reg.pipeline import KEPT_ASIDE_NOTICE, NOT_TRAINED_NOTICE
    from core.methods.run import run_method

    ws, b = _trained_demo(tmp_path)
    shutil.move(default_model_dir(ws), tmp_path / "trained")  # no model when the run starts
    cfg = pin(ws, b, None, tmp_path / "pin")
    shutil.copytree(tmp_path / "trained", aside_dir(default_model_dir(ws)))  # a training midway keeps one aside
    question = load_questions(ws)[0].question

    def notices(config) -> list[str]:  # type: ignore[no-untyped-def]
        r = run_method("reg", question, ws, b, config=config)
        return [s.data["notice"] for s in r.trace.steps if s.data.get("notice")]

    assert notices(cfg) == [NOT_TRAINED_NOTICE]
    assert notices(None) == [KEPT_ASIDE_NOTICE]  # unpinned: what the disk holds now
    assert notices(pin(ws, b, None, tmp_path / "pin2")) == [KEPT_ASIDE_NOTICE]  # a run started now says it
