"""GuardedLLM: every LLM fault ends quickly in an LLMError that names the fix; a
circuit breaker and a per-question budget stop the question's remaining LLM steps at once.

All against the scripted local server of ``tests/fake_openai.py`` with tiny timeouts.
"""

from __future__ import annotations

import time

import pytest

from core.backends.base import ChatMessage, LLMResponse
from core.backends.llm import NoLLM
from core.backends.llm_attempt import attempt_timeout
from core.backends.llm_errors import LLMReplyError, LLMSkippedError, LLMTransportError
from core.backends.llm_guard import GuardedLLM, LLMSettings, current_scope, question_scope
from core.backends.llm_json import chat_json
from core.backends.llm_openai import OpenAILLM
from core.backends.registry import get_llm
from core.errors import ConfigError, LLMError
from tests.fake_openai import FAULTS, fake_openai_server

MSG = [ChatMessage("user", "Who played Agent Smith?")]
FAST = LLMSettings(timeout=0.3, retries=2, backoff=0.01, budget=10.0, cooldown=30.0)
#: for tests whose server answers at once: a 0.3 s timeout there only catches a loaded CI machine (an HTTP 503
#: reply took longer than 0.3 s while another worker replayed MuSiQue, and its note read "did not finish")
ROOMY = LLMSettings(timeout=10.0, retries=2, backoff=0.01, budget=60.0, cooldown=30.0)


def guarded(server, settings: LLMSettings = ROOMY) -> GuardedLLM:
    return GuardedLLM(OpenAILLM(model="fake-model", base_url=server.base_url, api_key="sk-x", timeout=60),
                      settings)


# --- settings -------------------------------------------------------------------------------------

def test_settings_defaults_env_and_explicit_values(monkeypatch):
    for v in ("EGX_LLM_TIMEOUT", "EGX_LLM_RETRIES", "EGX_LLM_BUDGET"):
        monkeypatch.delenv(v, raising=False)
    d = LLMSettings.from_env()
    assert (d.timeout, d.retries, d.budget, d.breaker) == (None, 2, 300.0, 3)
    monkeypatch.setenv("EGX_LLM_TIMEOUT", "7.5")
    monkeypatch.setenv("EGX_LLM_RETRIES", "0")
    monkeypatch.setenv("EGX_LLM_BUDGET", "0")
    e = LLMSettings.from_env()
    assert (e.timeout, e.retries, e.budget) == (7.5, 0, 0.0)
    assert LLMSettings.from_env(timeout=3, retries=1, budget=20).timeout == 3.0  # flags win over the environment


@pytest.mark.parametrize(("var", "value", "message"), [
    ("EGX_LLM_TIMEOUT", "soon", r"^EGX_LLM_TIMEOUT = 'soon' is not a number of seconds; set it to a number of "
                                r"seconds \(e\.g\. EGX_LLM_TIMEOUT=60\) or unset it\.$"),
    ("EGX_LLM_RETRIES", "2.5", r"^EGX_LLM_RETRIES = '2\.5' is not a whole number; set it to a whole number "
                               r"\(e\.g\. EGX_LLM_RETRIES=2\) or unset it\.$"),
    ("EGX_LLM_BUDGET", "-1", r"^LLM budget = -1\.0 is out of range; use seconds >= 0, 0 for no limit "
                             r"\(--llm-budget or EGX_LLM_BUDGET"),
    ("EGX_LLM_TIMEOUT", "0", r"^LLM timeout = 0\.0 is out of range; use a number of seconds > 0 \(--llm-timeout"),
])
def test_bad_settings_name_the_variable_and_the_fix(monkeypatch, var, value, message):
    monkeypatch.setenv(var, value)
    with pytest.raises(ConfigError, match=message):
        LLMSettings.from_env()


def test_bad_retries_value():
    with pytest.raises(ConfigError, match=r"^LLM retries = 11 is out of range; use a whole number from 0 to 10 "
                                          r"\(--llm-retries or EGX_LLM_RETRIES\)\.$"):
        LLMSettings(retries=11)


def test_registry_wraps_available_backends(monkeypatch):
    monkeypatch.setenv("EGX_OPENAI_MODEL", "m")
    monkeypatch.setenv("EGX_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    llm = get_llm("openai", settings=LLMSettings(timeout=4, retries=0, budget=9), cache=False).inner  # the cache's
    assert isinstance(llm, GuardedLLM) and isinstance(llm.inner, OpenAILLM)
    assert llm.inner.timeout == 4.0 and llm.timeout == 4.0 and llm.settings.budget == 9
    assert llm.name == "openai" and llm.model_id == llm.inner.model_id and llm.available
    assert llm.model == "m"  # backend attributes pass through
    assert isinstance(get_llm("none"), NoLLM)
    monkeypatch.setenv("EGX_LLM_RETRIES", "5")
    assert get_llm("openai").settings.retries == 5


# --- every fault: a clean LLMError, fast ------------------------------------------------------------

FAULT_MESSAGES = {
    # the HTTP client's timeout, or (on a loaded machine, a moment later) the guard's own deadline
    "hang": r"(timed out after 0\.3 s for model 'fake-model'|did not finish its reply within 0\.3 s \(a hung or "
            r"very slow server\)); raise the LLM timeout \(--llm-timeout or EGX_LLM_TIMEOUT",
    "http500": r"failed for model 'fake-model' \(HTTP 500: .*boom.*\); wait and try again",
    "html": r"answered HTTP 200 with an HTML page instead of a chat completion \(it starts '<!DOCTYPE html>.*'\)\. "
            r"Check EGX_OPENAI_BASE_URL: it must be the API root",
    "no_choices": r"answered HTTP 200 with JSON that is not a chat completion \(no 'choices'; it says "
                  r"\{\"object\": \"error\", \"detail\": \"upstream model is loading\"\}\)",
    "truncated": r"answered with a body that could not be read as a chat completion \(truncated or corrupt: ",
    "slow_tokens": r"did not finish its reply within 0\.3 s \(a hung or very slow server\); raise the LLM timeout "
                   r"\(--llm-timeout or EGX_LLM_TIMEOUT",
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_is_a_clean_llm_error_within_the_limits(fault):
    with fake_openai_server(FAULTS[fault]) as server:
        llm = guarded(server, FAST)
        t0 = time.monotonic()
        with question_scope(llm) as scope, pytest.raises(LLMError, match=FAULT_MESSAGES[fault]) as info:
            llm.chat(MSG)
        took = time.monotonic() - t0
        assert isinstance(info.value, (LLMTransportError, LLMReplyError))
        # 1 + 2 retries, and the third failure in a row opened the breaker
        assert server.chat_requests == 3
        assert "Gave up after 3 attempts. The LLM circuit breaker is now open" in str(info.value)
        # each attempt ends at its 0.3 s timeout or the guard's hard deadline a moment later (measured 2.2 s
        # for all three on a loaded 2-core machine); a fault not cut per attempt runs into the 10 s budget
        assert took < FAST.budget / 2
        assert scope.failures == 3 and scope.stopped


def test_retry_then_success_keeps_notes_and_attempts(openai_server):
    openai_server.reply({"html": True}, {"status": 503}, {"content": "Hugo Weaving"})
    r = guarded(openai_server).chat(MSG)
    assert r.text == "Hugo Weaving" and r.attempts == 3
    assert r.notes[0].startswith("attempt 1 failed (") and "HTML page" in r.notes[0]
    assert "HTTP 503" in r.notes[1]


def test_client_errors_are_not_retried(openai_server):
    openai_server.reply({"status": 404, "body": '{"error": {"message": "model not found"}}'})
    with pytest.raises(LLMError, match=r"does not know model 'fake-model' \(HTTP 404\)"):
        guarded(openai_server).chat(MSG)
    assert openai_server.chat_requests == 1


def test_chat_json_does_not_multiply_transport_retries(openai_server):
    """chat_json retries unusable *output*; a dead server passes straight through (3 requests, not 9)."""
    openai_server.reply({"status": 500})
    with pytest.raises(LLMTransportError):
        chat_json(guarded(openai_server), MSG, {"type": "object"})
    assert openai_server.chat_requests == 3


# --- the circuit breaker ----------------------------------------------------------------------------

def test_open_breaker_skips_the_rest_of_the_question_at_once(openai_server):
    openai_server.reply({"status": 500})
    llm = guarded(openai_server)
    with question_scope(llm) as scope:
        with pytest.raises(LLMTransportError):
            llm.chat(MSG)
        t0 = time.monotonic()
        for _ in range(5):
            with pytest.raises(LLMSkippedError, match=r"^LLM call skipped: the circuit breaker for "
                                                      r"openai:fake-model@http://127\.0\.0\.1:\d+/v1 is open after "
                                                      r"repeated failures \(last: .*HTTP 500.*\)\. The remaining LLM "
                                                      r"steps take their fallback at once; the next try is allowed "
                                                      r"in \d+ s\.$"):
                llm.chat(MSG)
        assert time.monotonic() - t0 < 0.5  # no request, no wait
    assert openai_server.chat_requests == 3
    assert scope.skipped == 5 and scope.calls == 6
    assert llm.breaker_open
    with question_scope(llm), pytest.raises(LLMSkippedError):  # a new question during the cooldown
        llm.chat(MSG)
    assert openai_server.chat_requests == 3


def test_breaker_counts_failures_across_calls_and_a_success_resets_it(openai_server):
    llm = guarded(openai_server, LLMSettings(timeout=1, retries=0, breaker=3, backoff=0.01))
    openai_server.reply({"status": 500}, {"status": 500}, {"content": "ok"}, {"status": 500})
    for _ in range(2):
        with pytest.raises(LLMTransportError):
            llm.chat(MSG)
    assert llm.chat(MSG).text == "ok"  # closes the count
    with pytest.raises(LLMTransportError):
        llm.chat(MSG)
    assert not llm.breaker_open


def test_after_the_cooldown_one_probe_goes_through(openai_server):
    llm = guarded(openai_server, LLMSettings(timeout=1, retries=2, breaker=2, cooldown=0.2, backoff=0.01))
    openai_server.reply({"status": 500})
    with pytest.raises(LLMTransportError, match="circuit breaker is now open"):
        llm.chat(MSG)
    assert openai_server.chat_requests == 2  # the breaker (2) opened before the retries (2) ran out
    time.sleep(0.25)
    with pytest.raises(LLMTransportError, match="circuit breaker is now open"):  # a failed probe: 1 request
        llm.chat(MSG)
    assert openai_server.chat_requests == 3
    with pytest.raises(LLMSkippedError, match=r"next try is allowed in 1 s"):  # cooldown doubled to 0.4 s
        llm.chat(MSG)
    time.sleep(0.45)
    openai_server.reply({"content": "back"})
    assert llm.chat(MSG).text == "back" and not llm.breaker_open


# --- the per-question budget ------------------------------------------------------------------------

def test_budget_cuts_the_last_attempt_and_skips_the_rest(openai_server):
    openai_server.reply({"sleep": 0.3, "content": "slow but fine"})
    llm = guarded(openai_server, LLMSettings(timeout=5, retries=0, budget=0.5, backoff=0.01))
    with question_scope(llm) as scope:
        assert llm.chat(MSG).text == "slow but fine"
        with pytest.raises(LLMTransportError, match=r"this attempt had only the 0\.\d s left of the question's LLM "
                                                    r"budget; --llm-budget or EGX_LLM_BUDGET"):
            llm.chat(MSG)
        with pytest.raises(LLMSkippedError, match=r"^LLM call skipped: this question's LLM budget of 0\.5 s is spent "
                                                  r"\(0\.\d s over 2 call\(s\)\)\. The remaining LLM steps take their "
                                                  r"fallback at once; raise the budget with --llm-budget or "
                                                  r"EGX_LLM_BUDGET \(0 = no limit\)"):
            llm.chat(MSG)
        assert 0.45 < scope.spent < 1.2
    assert openai_server.chat_requests == 2
    # a new question starts with a full budget; outside a question there is none
    with question_scope(llm):
        assert llm.chat(MSG).text == "slow but fine"
    assert current_scope() is None
    for _ in range(2):
        assert llm.chat(MSG).text == "slow but fine"


def test_scopes_of_unguarded_llms_change_nothing(scripted_llm):
    llm = scripted_llm(["a"])
    with question_scope(llm) as scope:
        assert llm.chat(MSG).text == "a"
    assert scope.budget == 0 and scope.remaining() == float("inf")
    with question_scope(NoLLM()) as scope:
        assert current_scope() is scope


# --- backends that misbehave in other ways ------------------------------------------------------------

class _Sleepy:
    name, model_id, available, timeout = "sleepy", "fake:sleepy", True, 60.0

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.limits: list[float] = []

    def chat(self, messages, *, max_tokens=512, temperature=0.0, json_schema=None):
        self.limits.append(attempt_timeout(self.timeout))
        time.sleep(self.seconds)  # ignores its deadline, as a stuck C call would
        return LLMResponse("late")


def test_hard_deadline_even_when_the_backend_ignores_it():
    inner = _Sleepy()
    llm = GuardedLLM(inner, LLMSettings(timeout=0.2, retries=0))
    t0 = time.monotonic()
    with pytest.raises(LLMTransportError, match=r"^fake:sleepy did not finish its reply within 0\.2 s"):
        llm.chat(MSG)
    # cut at the 0.2 s deadline plus the guard's grace (< 0.3 s), not after the backend's 5 s sleep
    assert time.monotonic() - t0 < inner.seconds / 2
    assert inner.limits == [0.2]  # the backend was told its deadline


def test_unexpected_backend_exceptions_become_llm_errors():
    class Broken:
        name, model_id, available = "broken", "fake:broken", True

        def chat(self, *a, **k):
            return {"choices": []}["choices"][0]

    with pytest.raises(LLMError, match=r"^fake:broken failed while answering \(IndexError: list index out of range\); "
                                       r"the step takes its fallback\.$"):
        GuardedLLM(Broken(), LLMSettings(retries=0)).chat(MSG)


def test_guard_is_not_nested():
    inner = _Sleepy(0.0)
    g = GuardedLLM(GuardedLLM(inner), LLMSettings(retries=0))
    assert g.inner is inner and g.chat(MSG).text == "late"


def test_retries_stop_when_the_budget_is_spent_and_the_real_error_is_kept():
    with fake_openai_server(FAULTS["hang"]) as server:
        llm = guarded(server, LLMSettings(timeout=0.3, retries=5, budget=0.5, breaker=10, backoff=0.01))
        with question_scope(llm) as scope:
            with pytest.raises(LLMTransportError, match=r"this attempt had only the 0\.\d s left of the question's "
                                                        r"LLM budget.* Gave up after 2 attempts\.$"):
                llm.chat(MSG)
            assert scope.remaining() <= 0
            with pytest.raises(LLMSkippedError, match=r"LLM budget of 0\.5 s is spent"):
                llm.chat(MSG)
        assert server.chat_requests == 2
