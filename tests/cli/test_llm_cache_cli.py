"""`egx ask` twice: the second run costs no LLM time, and --no-cache asks again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.cli import main
from tests.fake_openai import fake_openai_server, openai_env

QUESTION = "When did Lothair II's mother die?"


def _minimal(schema: dict[str, Any]) -> Any:
    """The smallest value of a JSON schema's shape (what a schema-following server would send)."""
    typ = schema.get("type")
    if typ == "object":
        props = schema.get("properties", {})
        return {k: _minimal(props.get(k, {})) for k in schema.get("required", [])}
    return {"array": [], "string": "Ermengarde of Tours", "number": 0.5, "integer": 1, "boolean": False}.get(
        str(typ), "x")


def _reply(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema")
    return json.dumps(_minimal(schema)) if schema else "20 March 851"


@pytest.fixture
def server(monkeypatch):
    with fake_openai_server({"content": _reply}) as s:
        for k, v in openai_env(s).items():
            monkeypatch.setenv(k, v)
        yield s


def _ask(capsys, method: str, *extra: str) -> dict[str, Any]:
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", method, "--json",
                 "--llm", "openai", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("method", ["bubblerag", "dense"])
def test_the_same_question_twice_costs_no_llm_call_the_second_time(server, capsys, method, tmp_path):
    first = _ask(capsys, method, "--trace", str(tmp_path / "t1.json"))
    asked = server.chat_requests
    assert asked >= 1 and first["llm"]["cache_misses"] >= 1 and first["llm"]["cache_hits"] == 0
    second = _ask(capsys, method, "--trace", str(tmp_path / "t2.json"))
    assert server.chat_requests == asked + second["llm"]["cache_misses"]
    assert second["answer"] == first["answer"]
    steps = json.loads((tmp_path / "t2.json").read_text())["steps"]
    first_steps = json.loads((tmp_path / "t1.json").read_text())["steps"]
    answered = [s for s in first_steps if s["llm_cache"]]
    assert answered and all(s["cached"] is False for s in answered)
    # every step that got a usable reply is answered by the cache, with no LLM call
    replayed = [s for s in steps if s["llm_cache"]]
    assert [s["stage"] for s in replayed] == [s["stage"] for s in answered]
    assert all(s["cached"] is True and not s["llm_cache"].get("misses") for s in replayed)
    assert second["llm"]["cache_hits"] == sum(s["llm_cache"]["misses"] for s in answered)
    # a reply the stage's validation rejected (the fake's minimal JSON for BubbleRAG's keywords and
    # grouping) was never cached: that stage asks again and falls back again, visibly
    rejected = [s["stage"] for s in first_steps if s["fallback"].startswith("LLM output unusable")]
    assert second["llm"]["cache_misses"] == (3 * len(rejected))
    assert [s["stage"] for s in steps if s["fallback"].startswith("LLM output unusable")] == rejected
    # --no-cache asks the LLM again
    third = _ask(capsys, method, "--no-cache")
    assert server.chat_requests == 2 * asked + second["llm"]["cache_misses"]
    assert third["llm"]["cache_hits"] == 0


def test_text_output_says_how_many_replies_came_from_the_cache(server, capsys):
    _ask(capsys, "dense")
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", "dense",
                 "--llm", "openai"]) == 0
    assert "LLM cache: 1 of 1 LLM repl(ies) answered from the cache (no LLM time; --no-cache asks the LLM again)" \
        in capsys.readouterr().out
