"""Answers shown as they are written: a live LLM backend passes the growing text of a reply to a sink.

Two context variables, so no call signature changes and every wrapper (the guard's worker thread copies
the context, the cache, the recording) lets it through untouched:

* the **reply sink** (:func:`streaming_reply`, read by the backends with :func:`reply_sink`): while it is
  set, a live backend (``openai``, ``local``) asked for plain text streams the reply and calls
  ``sink(text so far)`` as it grows. Constrained (JSON-schema) requests never stream: their partial text
  is not worth reading. A cached or recorded reply arrives whole, without calls.
* the **answer sink** (:func:`stream_answers`, read with :func:`answer_sink`): where an answer stage's
  text goes — a caller's own sink (a CLI printing tokens), else the background job running the stage
  (the app's method runs), whose status then carries ``answer_text`` and ``answer_stage`` for the page
  to draw while the job runs.

The stage that writes the final answer opens the reply sink around its one LLM call (``ask_text(...,
stream=True)``); the full reply is returned, cached and recorded as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TextSink = Callable[[str], None]  #: called with the reply's text so far
StageSink = Callable[[str, str], None]  #: called with (stage title, the answer's text so far)

_REPLY: ContextVar[TextSink | None] = ContextVar("egx_reply_sink", default=None)
_ANSWERS: ContextVar[StageSink | None] = ContextVar("egx_answer_sink", default=None)


def reply_sink() -> TextSink | None:
    """The sink a backend feeds the reply it is generating (None: answer in one piece)."""
    return _REPLY.get()


@contextmanager
def streaming_reply(sink: TextSink | None) -> Iterator[None]:
    """Within the block, a live backend's plain-text reply is passed to ``sink`` as it grows (None: not)."""
    token = _REPLY.set(sink)
    try:
        yield
    finally:
        _REPLY.reset(token)


@contextmanager
def stream_answers(sink: StageSink) -> Iterator[None]:
    """Within the block, the answer stages pass ``sink(stage title, text so far)`` their answer as it is
    written (when the LLM is live); the job running them is left out."""
    token = _ANSWERS.set(sink)
    try:
        yield
    finally:
        _ANSWERS.reset(token)


def answer_sink(stage: str) -> TextSink | None:
    """Where the answer stage ``stage`` sends its text as it grows: the caller's :func:`stream_answers`
    sink, else the background job running it (``answer_text`` / ``answer_stage`` in its status; a cancel
    stops the reply at the next piece), else nowhere (None)."""
    own = _ANSWERS.get()
    if own is not None:
        return lambda text: own(stage, text)
    from core.background.jobs import current_job

    job = current_job()
    if job is None:
        return None
    return lambda text: job.report(answer_text=text, answer_stage=stage)
