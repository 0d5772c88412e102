"""The sidebar's LLM cache switch and the recorded LLM run, in AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components import state as S
from core.cli import main
from tests.app.helpers import plain, run_page
from tests.cli.test_llm_cache_cli import _reply as _minimal_reply
from tests.fake_openai import fake_openai_server, openai_env

SG_QUESTION = "Which film starred Keanu Reeves and Laurence Fishburne?"
QUERY_GRAPH = json.dumps({"nodes": [{"id": "k", "label": "Keanu Reeves"}, {"id": "l", "label": "Laurence Fishburne"},
                                    {"id": "u", "label": "UNK"}],
                          "edges": [{"source": "k", "target": "u"}, {"source": "l", "target": "u"}]})


def _reply(body: dict) -> str:
    """SG-RAG's query graph (Table 12) for the demo question; the smallest valid reply otherwise."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    return QUERY_GRAPH if "nodes" in schema.get("properties", {}) else _minimal_reply(body)


def test_live_llm_has_the_cache_switch_and_off_means_no_cache(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_LLM", "openai")
    monkeypatch.setenv("EGX_OPENAI_MODEL", "m")
    monkeypatch.setenv("EGX_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    at = run_page("pages/data.py")
    box = at.sidebar.checkbox(key=S.widget_key(S.LLM_CACHE))
    assert box.value is True and box.label == "Reuse cached LLM replies"
    box.uncheck().run()
    assert not at.exception
    assert at.session_state[S.LLM_CACHE] is False
    assert at.sidebar.checkbox(key=S.widget_key(S.LLM_CACHE)).value is False
    assert at.sidebar.selectbox(key=S.widget_key(S.LLM)).format_func("recorded") == "recorded LLM run (replay)"


def test_recorded_run_replays_on_the_subgraph_page(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "rec.json"
    with fake_openai_server({"content": _reply}) as server:
        with monkeypatch.context() as m:
            for k, v in openai_env(server).items():
                m.setenv(k, v)
            assert main(["record", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder",
                         "--llm", "openai", "--methods", "sgrag", "--questions", str(_questions(tmp_path)),
                         "--out", str(bundle)]) == 0
        asked = server.chat_requests
        capsys.readouterr()
        monkeypatch.setenv("EGX_LLM", "recorded")
        monkeypatch.setenv("EGX_LLM_RECORDINGS", str(bundle))
        at = run_page("pages/subgraph.py")
        assert server.chat_requests == asked  # replayed, nothing asked
    captions = plain(" ".join(c.value for c in at.sidebar.caption))
    assert "Recorded LLM run — replayed, not generated now" in captions and "1 question × sgrag" in captions
    assert not at.sidebar.checkbox  # no live LLM: no cache switch, no limits
    shown = plain(" ".join(c.value for c in at.main.caption))
    # the query graph (Table 12) was recorded; the answer here is SG-RAG's UNK binding, no LLM call
    assert "Recorded LLM run: 1 of 1 LLM reply replayed from the shipped recording" in shown, shown


def _questions(tmp_path: Path) -> Path:
    p = tmp_path / "q.json"
    p.write_text(json.dumps([{"id": "sg", "question": SG_QUESTION, "answer": "The Matrix",
                              "supporting_facts": [["The Matrix", 0]]}]), encoding="utf-8")
    return p
