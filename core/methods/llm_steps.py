"""One place where method stages call the LLM: JSON out, tokens into the trace step, and a visible
fallback (never an exception in the user's face) when the LLM is absent or unusable.

Every LLM stage of BubbleRAG (§3.2-§3.6), SG-RAG's query graph and answer (Tables 12, 15) and ReG's
supervision selection (§4.1, App. F) calls :func:`ask_json` or :func:`ask_text`; each falls back to its
deterministic counterpart when ``data`` is None, and the trace step says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.backends.base import LLM, ChatMessage
from core.backends.llm_errors import LLMOutputError, LLMReplyError, LLMSkippedError
from core.backends.llm_json import chat_json
from core.backends.streaming import answer_sink, streaming_reply
from core.background.jobs import current_job
from core.errors import LLMError, LLMUnavailableError
from core.pinning import NOT_RECORDED
from core.trace import Step

#: replies :func:`~core.backends.llm_json.chat_json` asks for before it gives up (1 + its default 2 retries)
JSON_TRIES = 3


@dataclass(frozen=True)
class LLMOutcome:
    data: Any  #: parsed JSON, or None when the stage must fall back
    fallback: str  #: why the fallback was taken ("" when the LLM answered)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool | None = None  #: the reply came from the LLM cache / a recording (None: no reply)
    truncated: bool = False  #: the reply stopped at its token limit (an answer shown from it is cut)
    repaired: bool = False  #: the JSON reply had to be repaired to be read


def failure_reason(exc: LLMError) -> str:
    """The fallback text for a failed LLM call: what kind of failure, then the backend's message."""
    if isinstance(exc, LLMSkippedError):
        return str(exc)  # already reads "LLM call skipped: ..."
    if isinstance(exc, (LLMOutputError, LLMReplyError)):
        return f"LLM output unusable: {exc}"
    if NOT_RECORDED in str(exc):  # the recorded LLM holds no reply for it: nothing failed, it was never recorded
        return f"Not recorded: {exc}"
    return f"LLM call failed: {exc}"


def ask_json(llm: LLM, system: str, user: str, schema: dict[str, Any], *, max_tokens: int = 512,
             validate: Callable[[Any], None] | None = None, step: Step | None = None,
             parse: Callable[[str], Any] | None = None) -> LLMOutcome:
    """Call ``chat_json``; on any LLM failure return ``data=None`` with the reason.

    Token counts (also of failed attempts, when the backend reports them) are added to ``step``.
    ``parse`` reads a reply that is not JSON (:func:`~core.backends.llm_json.chat_json`).
    """
    if not llm.available:
        out = LLMOutcome(None, "no LLM configured (`none` mode)")
    else:
        _announce(step)
        rejected, first_bad = 0, False
        try:
            r = chat_json(llm, [ChatMessage("system", system), ChatMessage("user", user)], schema,
                          max_tokens=max_tokens, validate=validate, parse=parse)
            out = LLMOutcome(r.data, "", r.prompt_tokens, r.completion_tokens, r.cached, r.truncated, r.repaired)
            rejected = sum(1 for n in r.notes if n.startswith("try "))
            first_bad = any(n.startswith("try 1:") for n in r.notes) or r.repaired
        except LLMUnavailableError:
            out = LLMOutcome(None, "no LLM configured (`none` mode)")
        except LLMOutputError as exc:
            out = LLMOutcome(None, failure_reason(exc))
            rejected, first_bad = JSON_TRIES, True
        except LLMError as exc:
            out = LLMOutcome(None, failure_reason(exc))
        if step is not None and out.fallback != "no LLM configured (`none` mode)":
            for k, n in (("calls", 1), ("rejected", rejected), ("first_unusable", int(first_bad))):
                step.llm_json[k] = step.llm_json.get(k, 0) + n
    _record(step, out)
    return out


def ask_text(llm: LLM, system: str, user: str, *, max_tokens: int = 256, step: Step | None = None,
             stream: bool = False) -> LLMOutcome:
    """Plain-text completion with the same fallback contract (``data`` is the text). With ``stream`` (a stage
    that writes the answer a person reads), a live LLM's reply goes to
    :func:`core.backends.streaming.answer_sink` as it is written."""
    if not llm.available:
        out = LLMOutcome(None, "no LLM configured (`none` mode)")
    else:
        _announce(step)
        sink = answer_sink(step.title if step is not None and step.title else "Answer") if stream else None
        try:
            with streaming_reply(sink):
                r = llm.chat([ChatMessage("system", system), ChatMessage("user", user)], max_tokens=max_tokens)
            text = r.text.strip()
            out = LLMOutcome(text, "" if text else "LLM returned an empty answer", r.prompt_tokens,
                             r.completion_tokens, r.cached, r.truncated)
            if not text:
                out = LLMOutcome(None, out.fallback, r.prompt_tokens, r.completion_tokens)
        except LLMError as exc:
            out = LLMOutcome(None, failure_reason(exc))
    _record(step, out)
    return out


def _announce(step: Step | None) -> None:
    """Tell the job running this (the app's background run, if any) which stage waits on the LLM."""
    job = current_job()
    if job is not None:
        job.report(stage=step.title if step is not None and step.title else "LLM call", waiting="LLM")


def _record(step: Step | None, out: LLMOutcome) -> None:
    """Add the call's tokens to the trace step and note a fallback there."""
    job = current_job()
    if job is not None:
        job.report(waiting="")
    if step is not None:
        step.prompt_tokens += out.prompt_tokens
        step.completion_tokens += out.completion_tokens
        if out.cached is not None:  # hit / miss of the LLM cache, per step (a step may call the LLM often)
            step.note_cache(out.cached)
        if out.fallback:
            step.fallback = out.fallback
