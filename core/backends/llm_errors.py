"""The LLM errors every backend raises, and where each LLM limit is set (for messages)."""

from __future__ import annotations

from core.errors import LLMError

NO_LLM_MESSAGE = (
    "No LLM is configured (backend 'none'); this step takes its LLM-free fallback. Choose 'local' "
    "or 'openai' in the sidebar / --llm to enable it."
)


class LLMOutputError(LLMError):
    """The LLM answered, but its output stayed unusable (not JSON / invalid) after every retry.

    Distinct from transport failures (timeouts, connection errors), so batch callers can skip
    one bad item and go on, while a dead server still stops the batch.
    """


class LLMTransportError(LLMError):
    """A request timed out, could not connect, or got HTTP 429 / 5xx: worth retrying."""


class LLMReplyError(LLMError):
    """The server answered, but not with a chat completion (an HTML page, JSON without
    ``choices``, a truncated body): worth retrying, and counted by the circuit breaker."""


class LLMSkippedError(LLMError):
    """:class:`GuardedLLM` did not call the model: the question's budget is spent or the circuit
    breaker is open. The message says which, and how to change it."""


#: Where each limit is set, for messages (only flags and variables that exist).
TIMEOUT_HINT = "--llm-timeout or EGX_LLM_TIMEOUT; in the app, the sidebar's LLM limits"
RETRIES_HINT = "--llm-retries or EGX_LLM_RETRIES"
BUDGET_HINT = "--llm-budget or EGX_LLM_BUDGET (0 = no limit); in the app, the sidebar's LLM limits"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _looks_like_html(body: str) -> bool:
    head = body[:1000].lstrip().lower()
    return head.startswith(("<!doctype", "<html", "<head", "<body")) or "</html>" in body[-2000:].lower()
