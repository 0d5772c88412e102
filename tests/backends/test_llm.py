"""LLM backends: NoLLM, chat_json (repair / retry / failure), OpenAILLM against a local server."""

from __future__ import annotations

import json

import pytest

from core.backends.base import ChatMessage
from core.backends.llm import NoLLM
from core.backends.llm_errors import NO_LLM_MESSAGE, LLMOutputError
from core.backends.llm_guard import GuardedLLM, LLMSettings
from core.backends.llm_json import chat_json
from core.backends.llm_openai import OpenAILLM
from core.errors import BackendError, LLMError, LLMUnavailableError
from tests.fakes import ScriptedLLM

MSG = [ChatMessage("user", 'Reply with {"answer": "..."}')]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def test_no_llm():
    llm = NoLLM()
    assert llm.name == "none" and llm.available is False
    with pytest.raises(LLMUnavailableError, match=r"^No LLM is configured \(backend 'none'\); this step takes its "
                                                  r"LLM-free fallback\. Choose 'local' or 'openai'"):
        llm.chat(MSG)
    assert str(LLMUnavailableError(NO_LLM_MESSAGE)) == NO_LLM_MESSAGE
    with pytest.raises(LLMUnavailableError):
        chat_json(llm, MSG)


# --- chat_json ----------------------------------------------------------------------------------

def test_chat_json_plain_and_fenced(scripted_llm):
    llm = scripted_llm(['{"answer": "Hugo Weaving"}', '```json\n{"answer": "x"}\n```'])
    r = chat_json(llm, MSG, SCHEMA)
    assert r.data == {"answer": "Hugo Weaving"} and not r.repaired and r.attempts == 1
    assert llm.calls[0].json_schema is SCHEMA
    assert chat_json(llm, MSG, SCHEMA).data == {"answer": "x"}


def test_chat_json_repairs_almost_json(scripted_llm):
    llm = scripted_llm(['{"answer": "Hugo Weaving", ', ])
    r = chat_json(llm, MSG, SCHEMA)
    assert r.data == {"answer": "Hugo Weaving"}
    assert r.repaired and r.attempts == 1
    assert any("repaired" in n for n in r.notes)


def test_chat_json_retries_with_the_problem_and_sums_tokens(scripted_llm):
    llm = scripted_llm(["I think the answer is Hugo.", '{"wrong": 1}', '{"answer": "Hugo Weaving"}'])
    r = chat_json(llm, MSG, SCHEMA, retries=2)
    assert r.data == {"answer": "Hugo Weaving"}
    assert r.attempts == 3 and r.prompt_tokens == 30 and r.completion_tokens == 15
    followup = llm.calls[1].messages
    assert [m.role for m in followup] == ["user", "assistant", "user"]
    assert followup[1].content == "I think the answer is Hugo."
    assert followup[2].content.startswith("Your previous output was invalid because it is not valid JSON")
    assert "lacks the required key(s) 'answer'" in llm.calls[2].messages[2].content
    assert len(llm.calls[2].messages) == 3  # the history does not pile up


def test_chat_json_validate_callback(scripted_llm):
    def validate(data):
        if not data["answer"].strip():
            raise ValueError('"answer" must not be empty')

    llm = scripted_llm(['{"answer": " "}', '{"answer": "Agent Smith"}'])
    r = chat_json(llm, MSG, SCHEMA, validate=validate)
    assert r.data == {"answer": "Agent Smith"}
    assert 'invalid because "answer" must not be empty' in llm.calls[1].messages[-1].content


def test_chat_json_final_failure_shows_the_output(scripted_llm):
    bad = "Sorry, I cannot answer that question in JSON. " * 10
    llm = scripted_llm([bad] * 3)
    with pytest.raises(LLMOutputError, match=r"fake:scripted returned unusable JSON after 3 attempt\(s\): "
                                             r"it is not valid JSON .* First 200 characters of the last output: "
                                             r"'Sorry, I cannot") as info:
        chat_json(llm, MSG, SCHEMA, retries=2)
    assert isinstance(info.value, LLMError)
    assert bad[:200] in str(info.value) and bad[:201] not in str(info.value)


def test_chat_json_passes_transport_errors_through():
    with pytest.raises(LLMError, match="server unreachable"):
        chat_json(ScriptedLLM(LLMError("server unreachable"), name="down"), MSG)


# --- OpenAILLM configuration ----------------------------------------------------------------------

@pytest.fixture
def clean_env(monkeypatch):
    for var in ("OPENAI_API_KEY", "EGX_OPENAI_API_KEY", "EGX_OPENAI_BASE_URL", "OPENAI_BASE_URL",
                "EGX_OPENAI_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_openai_missing_model(clean_env):
    with pytest.raises(BackendError, match=r"No model name for the 'openai' LLM backend\. Set EGX_OPENAI_MODEL"):
        OpenAILLM()


def test_openai_missing_key(clean_env):
    clean_env.setenv("EGX_OPENAI_MODEL", "gpt-4o-mini")
    with pytest.raises(BackendError, match=r"^No API key found — set OPENAI_API_KEY \(or EGX_OPENAI_API_KEY\), "
                                           r"or point EGX_OPENAI_BASE_URL at a local OpenAI-compatible server$"):
        OpenAILLM()


def test_openai_env_config_and_local_server_without_key(clean_env, openai_server):
    clean_env.setenv("EGX_OPENAI_MODEL", "qwen-test")
    clean_env.setenv("EGX_OPENAI_BASE_URL", openai_server.base_url)
    openai_server.script = [{"content": "Hello"}]
    llm = OpenAILLM()
    assert llm.model == "qwen-test" and llm.model_id.startswith("openai:qwen-test@http://127.0.0.1:")
    r = llm.chat([ChatMessage("user", "Hi")], max_tokens=5)
    assert r.text == "Hello"
    req = openai_server.requests[0]
    assert req["authorization"] == "Bearer not-needed"
    assert req["body"]["model"] == "qwen-test" and req["body"]["max_tokens"] == 5
    assert req["body"]["messages"] == [{"role": "user", "content": "Hi"}]


# --- OpenAILLM against the local server -------------------------------------------------------------

def _llm(server, *, timeout=60.0, retries=2, backoff=0.01):
    """The openai backend as the registry builds it: inside a GuardedLLM (retries live there)."""
    inner = OpenAILLM(model="fake-model", base_url=server.base_url, api_key="sk-test-SECRET-0123456789",
                      timeout=timeout)
    return GuardedLLM(inner, LLMSettings(retries=retries, backoff=backoff))


def test_openai_success_and_usage(openai_server):
    openai_server.script = [{"content": '{"answer": "Hugo Weaving"}'}]
    r = _llm(openai_server).chat(MSG, json_schema=SCHEMA)
    assert r.text == '{"answer": "Hugo Weaving"}'
    assert (r.prompt_tokens, r.completion_tokens, r.attempts) == (17, 4, 1)
    assert r.model == "fake-model"
    fmt = openai_server.requests[0]["body"]["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "output", "schema": SCHEMA}}
    assert openai_server.requests[0]["authorization"] == "Bearer sk-test-SECRET-0123456789"


def test_openai_usage_missing_is_estimated(openai_server):
    openai_server.script = [{"content": "x" * 40, "usage": False}]
    r = _llm(openai_server).chat([ChatMessage("user", "y" * 80)])
    assert (r.prompt_tokens, r.completion_tokens) == (20, 10)
    assert any("estimates" in n for n in r.notes)


def test_openai_retries_after_500(openai_server):
    openai_server.script = [{"status": 500}, {"status": 503}, {"content": "ok"}]
    r = _llm(openai_server).chat(MSG)
    assert r.text == "ok" and r.attempts == 3
    assert len(openai_server.requests) == 3


def test_openai_gives_up_after_retries(openai_server):
    openai_server.script = [{"status": 500}]
    with pytest.raises(LLMError, match=r"failed for model 'fake-model' \(HTTP 500: .*\); wait and try again, or "
                                       r"lower the request rate\. Gave up after 3 attempts\."):
        _llm(openai_server).chat(MSG)
    assert len(openai_server.requests) == 3


def test_openai_json_schema_rejected_downgrades(openai_server):
    rejected = json.dumps({"error": {"message": "response_format json_schema not supported"}})
    openai_server.script = [{"status": 400, "body": rejected}, {"status": 400, "body": rejected},
                            {"status": 400, "body": rejected}, {"content": '{"answer": "a"}'}]
    r = _llm(openai_server).chat(MSG, json_schema=SCHEMA)
    formats = [q["body"].get("response_format") for q in openai_server.requests]
    assert formats[0]["type"] == "json_schema"
    assert formats[1] == {"type": "json_object", "schema": SCHEMA}  # llama-cpp-python's server constrains to it
    assert formats[2] == {"type": "json_object"}
    assert formats[3] is None
    assert r.text == '{"answer": "a"}' and len(r.notes) == 3


def test_openai_json_schema_rejected_with_http_500_downgrades_too(openai_server):
    """llama-cpp-python's server answers an unknown response_format type with HTTP 500 (its request
    validation), not 400: that is a rejected request, not a server fault to retry."""
    body = json.dumps({"error": {"message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
                                            "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                                            "'json_object'\"}", "type": "internal_server_error"}})
    openai_server.script = [{"status": 500, "body": body}, {"content": '{"answer": "a"}'}]
    r = _llm(openai_server).chat(MSG, json_schema=SCHEMA)
    formats = [q["body"].get("response_format") for q in openai_server.requests]
    assert [f["type"] for f in formats] == ["json_schema", "json_object"] and formats[1]["schema"] == SCHEMA
    assert r.text == '{"answer": "a"}'
    assert r.notes == ("server rejected response_format 'json_schema' (HTTP 500); retried with 'json_object'",)


def test_openai_broken_json_is_repaired_by_chat_json(openai_server):
    openai_server.script = [{"content": '```json\n{"answer": "Hugo Weaving",}\n```'}]
    r = chat_json(_llm(openai_server), MSG, SCHEMA)
    assert r.data == {"answer": "Hugo Weaving"} and r.repaired


def test_openai_timeout(openai_server):
    openai_server.script = [{"sleep": 1.0, "content": "too late"}]
    with pytest.raises(LLMError, match=r"timed out after 0\.2 s for model 'fake-model'; raise the LLM timeout "
                                       r"\(--llm-timeout or EGX_LLM_TIMEOUT; .*\), use a smaller model, or check the server's load\. "
                                       r"Gave up after 2 attempts\."):
        _llm(openai_server, timeout=0.2, retries=1).chat(MSG)


def test_openai_key_never_shown(openai_server):
    key = "sk-test-SECRET-0123456789"
    llm = _llm(openai_server)
    assert key not in repr(llm) and key not in str(llm) and key not in llm.model_id
    # A server that echoes the key in its error body (some do) must not leak it either.
    openai_server.script = [{"status": 401, "body": json.dumps({"error": {"message": f"Incorrect API key {key}"}})}]
    with pytest.raises(LLMError) as info:
        llm.chat(MSG)
    assert "refused the API key (HTTP 401)" in str(info.value) and key not in str(info.value)
    openai_server.script = [{"status": 418, "body": json.dumps({"error": {"message": f"teapot {key}"}})}]
    with pytest.raises(LLMError) as info:
        llm.chat(MSG)
    assert "HTTP 418" in str(info.value) and key not in str(info.value) and "***" in str(info.value)


def test_openai_unreachable_server(clean_env):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = GuardedLLM(OpenAILLM(model="m", base_url=f"http://127.0.0.1:{port}/v1", timeout=2),
                     LLMSettings(retries=1, backoff=0.01))
    with pytest.raises(LLMError, match=r"could not be reached .* check that the server is running"):
        llm.chat(MSG)
