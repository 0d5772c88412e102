"""`egx record` then `--llm recorded`: a recorded run replays with no LLM, resumes,
and a question that was not recorded says so and falls back."""

from __future__ import annotations

import json

import pytest

from core.backends.llm_bundles import load_recording, stamp_bundle
from core.cli import main
from core.errors import InputFormatError
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
    # every run keeps the retrieval state its decisions read (core/pinning.py), taken while it ran live
    for run in rec.runs:
        assert run["state"] and run["state_source"]["how"] == "recorded live"
    assert any(k.startswith("dense.vector_search|") for k in rec.runs[1]["state"])
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
        assert s["replay"]["complete"] and s["replay"]["pinned"] >= 1 and s["replay_notice"] == ""
        steps = json.loads(trace.read_text())["steps"]
        # the same stages fall back for the same reasons (the model id reads "recorded:<model>")
        assert [(x["stage"], x["fallback"].replace("recorded:", "")) for x in steps] \
            == [(x["stage"], x["fallback"]) for x in run["stages"]]
        assert all(x["cached"] is True for x in steps if x["llm_cache"])
    assert server.chat_requests == asked

    # a question that was not recorded is a none-mode run, said first (its fallbacks were those of an LLM that
    # failed: a method that does not rerank answered by embedding cosine instead of the reranker none mode uses)
    assert main(["ask", "Who played the villain?", "--workspace", "demo", "--embedder", "hashing", "--method",
                 "dense", "--llm", "recorded", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["notices"][0].startswith("LLM: none — the recorded LLM (") and \
        "holds no run of this question, so this run is a none-mode run" in s["notices"][0], s["notices"]
    assert "replay" not in s and s["answer_note"]["kind"] == "extractive"
    assert any("no LLM configured" in f for f in s["fallbacks"]), s["fallbacks"]
    assert server.chat_requests == asked


def test_a_partial_replay_says_so_before_the_answer(server, capsys, tmp_path, monkeypatch):
    """A recorded run one of whose replies is missing is never shown as the recorded run: `egx ask` prints
    "Partly replayed" first, names the stage, and the JSON and the trace carry the status."""
    out = tmp_path / "rec.json"
    assert main(["record", "--workspace", "demo", "--embedder", "hashing", "--llm", "openai", "--methods", "dense",
                 "--only", "lothair-mother", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    data["entries"] = {k: e for k, e in data["entries"].items() if e["text"] != "20 March 851"}  # the answer's reply
    out.write_text(json.dumps(data))
    with pytest.raises(InputFormatError, match=r"changed after egx wrote it \(its content hash does not match\)"):
        load_recording(out)  # an edited bundle is refused until someone who checked the edit stamps it
    stamp_bundle(out)
    capsys.readouterr()
    monkeypatch.setenv("EGX_LLM_RECORDINGS", str(out))
    trace = tmp_path / "t.json"
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", "dense",
                 "--llm", "recorded", "--trace", str(trace)]) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    assert first.startswith("REPLAY: Partly replayed: stages ") and "ran without the LLM because their prompts " \
        "were not recorded" in first and "This is not the recorded run" in first, text
    replay = json.loads(trace.read_text())["replay"]
    assert replay["matched"] and not replay["complete"] and replay["missed_stages"]
    # strict (the tests, make check-recordings): the first miss stops the run and names it
    monkeypatch.setenv("EGX_REPLAY_STRICT", "1")
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", "dense",
                 "--llm", "recorded"]) == 2
    assert "egx: error: Strict replay: this LLM request was not recorded" in capsys.readouterr().err


def test_record_refuses_an_llm_that_generates_nothing(capsys):
    with pytest.raises(SystemExit, match="--llm recorded generates nothing to record; use local, local-small or openai"):
        main(["record", "--llm", "recorded"])


def test_prune_drops_only_the_entries_no_run_uses(server, capsys, tmp_path):
    """`scripts/check_recordings.py --prune` (stop 38): `egx record --redo` adds a re-recorded run's replies and
    leaves the old ones, so a bundle collects replies no run asks for (the shipped MuSiQue one held 787 entries
    for 140 runs). Pruning keeps exactly what the strict replay of every run was answered from."""
    from core.backends.llm_bundles import prune_bundle
    from core.batch.recording import check_replay
    from core.cli import resolve_workspace

    out = tmp_path / "rec.json"
    assert main(["record", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--llm",
                 "openai", "--methods", "dense", "--only", "lothair-mother", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    recorded = set(data["entries"])
    data["entries"]["0" * 64] = {**next(iter(data["entries"].values())), "text": "a stale reply"}
    out.write_text(json.dumps(data))
    stamp_bundle(out)
    used: set[str] = set()
    checks = check_replay(out, resolve_workspace, used=used)
    assert checks and all(c.ok for c in checks)
    assert used == recorded
    assert prune_bundle(out, used) == 1
    assert set(load_recording(out).entries) == recorded  # loads: the pruned bundle is stamped again
    assert all(c.ok for c in check_replay(out, resolve_workspace))
