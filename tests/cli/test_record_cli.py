"""`egx record` then `--llm recorded` (issue 18, item 2): a recorded run replays with no LLM, resumes,
and a question that was not recorded says so and falls back."""

from __future__ import annotations

import json

import pytest

from core.backends.llm_cache import load_recording
from core.cli import main
from tests.cli.test_llm_cache_cli import _reply
from tests.fake_openai import fake_openai_server, openai_env

QUESTION = "When did Lothair II's mother die?"


@pytest.fixture
def server(monkeypatch):
    with fake_openai_server({"content": _reply}) as s:
        for k, v in openai_env(s).items():
            monkeypatch.setenv(k, v)
        yield s


def test_record_then_replay_without_any_llm(server, capsys, tmp_path, monkeypatch):
    out = tmp_path / "rec.json"
    args = ["record", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--llm", "openai",
            "--methods", "bubblerag,dense", "--only", "lothair-mother", "--out", str(out)]
    assert main(args) == 0
    assert "2 run(s) recorded, 0 already in" in capsys.readouterr().out
    asked = server.chat_requests
    rec = load_recording(out)
    assert [(r["method"], r["question"]) for r in rec.runs] == [("bubblerag", QUESTION), ("dense", QUESTION)]
    prov = rec.provenance
    assert prov["model_id"].startswith("openai:fake-model@") and prov["model_key"] and prov["date"]
    assert prov["embedder"] == "hashing" and prov["llm_settings"]["budget_s"] == 0.0
    bubble = rec.runs[0]
    # the wall-clock anytime budget is lifted while recording: the instant replay never asks for unrecorded hops
    assert bubble["config"]["time_budget_s"] == 86_400.0
    assert bubble["stages"] and all({"stage", "seconds", "cached", "fallback"} <= set(s) for s in bubble["stages"])
    # the rejected (invalid) replies are recorded as they came, marked, and replay as invalid again
    assert any(e.get("invalid") for e in rec.entries.values())
    # resumable: the same command records nothing again
    assert main(args) == 0
    assert "0 run(s) recorded, 2 already in" in capsys.readouterr().out
    assert server.chat_requests == asked

    # replay: the server is not asked at all, the answer and every stage's outcome are the recorded ones
    monkeypatch.setenv("EGX_LLM_RECORDINGS", str(out))
    trace = tmp_path / "t.json"
    for method, run in (("bubblerag", bubble), ("dense", rec.runs[1])):
        assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder",
                     "--method", method, "--llm", "recorded", "--json", "--trace", str(trace)]) == 0
        s = json.loads(capsys.readouterr().out)
        assert s["answer"] == run["answer"]
        steps = json.loads(trace.read_text())["steps"]
        # the same stages fall back for the same reasons (the model id reads "recorded:<model>")
        assert [(x["stage"], x["fallback"].replace("recorded:", "")) for x in steps] \
            == [(x["stage"], x["fallback"]) for x in run["stages"]]
        assert all(x["cached"] is True for x in steps if x["llm_cache"])
    assert server.chat_requests == asked

    # a question that was not recorded: every LLM stage says so and takes its fallback
    assert main(["ask", "Who played the villain?", "--workspace", "demo", "--embedder", "hashing", "--method",
                 "dense", "--llm", "recorded", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert any("This question/stage was not recorded" in f and "Use the live LLM ('local' or 'openai') or 'none'" in f
               for f in s["fallbacks"]), s["fallbacks"]
    assert server.chat_requests == asked


def test_record_refuses_an_llm_that_generates_nothing(capsys):
    with pytest.raises(SystemExit, match="--llm recorded generates nothing to record; use local, local-small or openai"):
        main(["record", "--llm", "recorded"])
