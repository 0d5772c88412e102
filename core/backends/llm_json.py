"""JSON from an LLM: :func:`chat_json` parses, repairs almost-JSON, validates against the schema and retries
with a corrective follow-up."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from core.backends.base import ChatMessage, LLMResponse
from core.backends.llm_errors import LLMOutputError

_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def _parse_json(text: str) -> tuple[Any, bool, str | None]:
    """Return (data, repaired, problem); problem is None on success."""
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    if not body:
        return None, False, "the output was empty"
    try:
        return json.loads(body), False, None
    except json.JSONDecodeError as exc:
        first = f"it is not valid JSON ({exc.msg} at position {exc.pos})"
    import json_repair

    try:
        data = json_repair.loads(body)
    except (ValueError, TypeError, RecursionError):
        return None, False, first
    if not isinstance(data, (dict, list)) or data in ({}, []):
        return None, False, first
    return data, True, None


def _schema_problem(data: Any, schema: dict[str, Any] | None) -> str | None:
    # A light top-level check; full validation is the caller's `validate`.
    if not schema:
        return None
    typ = schema.get("type")
    if typ == "object":
        if not isinstance(data, dict):
            return f"expected a JSON object but got {type(data).__name__}"
        missing = [k for k in schema.get("required", []) if k not in data]
        if missing:
            return f"the object lacks the required key(s) {', '.join(map(repr, missing))}"
    elif typ == "array" and not isinstance(data, list):
        return f"expected a JSON array but got {type(data).__name__}"
    return None


def chat_json(llm: Any, messages: Sequence[ChatMessage], schema: dict[str, Any] | None = None, *,
              retries: int = 2, max_tokens: int = 512, temperature: float = 0.0,
              validate: Callable[[Any], None] | None = None,
              parse: Callable[[str], Any] | None = None) -> LLMResponse:
    """Ask an LLM for JSON: parse, repair, validate, and retry with a corrective message.

    Parameters
    ----------
    llm : LLM
        Any backend of the :class:`~core.backends.base.LLM` protocol.
    messages : sequence of ChatMessage
        The conversation; it should already ask for JSON.
    schema : dict or None
        JSON Schema passed to the backend (constrained decoding where supported) and used for a
        light top-level check (type, required keys).
    retries : int
        Extra attempts after an unusable answer. Each retry appends the bad answer and a short
        "your previous output was invalid because ..." message.
    max_tokens : int
    temperature : float
    validate : callable or None
        ``validate(data)`` raises ``ValueError`` to reject parsed data (its message is shown to
        the model on retry).
    parse : callable or None
        ``parse(text)`` reads a reply that is not JSON (e.g. a paper's own text format) into the data,
        or returns None; tried before JSON repair.

    Returns
    -------
    LLMResponse
        With ``data`` the parsed JSON, ``repaired=True`` when ``json_repair`` had to fix the
        text, and token counts, latency and attempts summed over every try.

    Raises
    ------
    LLMUnavailableError
        If ``llm`` is the ``none`` backend.
    LLMOutputError
        If every attempt was unusable; the message names the problem and shows the first 200
        characters of the last output.
    LLMError
        Transport failures from the backend (timeouts, connection errors) pass through.

    Examples
    --------
    >>> chat_json(llm, [ChatMessage("user", 'Reply {"ok": true}')]).data  # doctest: +SKIP
    {'ok': True}
    """
    base = list(messages)
    convo = list(base)
    p_tok = c_tok = attempts = 0
    latency = 0.0
    cached = True  # every response came from the LLM cache / a recording
    notes: list[str] = []
    problem = "no attempt was made"
    text = ""
    for i in range(retries + 1):
        resp = llm.chat(convo, max_tokens=max_tokens, temperature=temperature, json_schema=schema)
        p_tok += resp.prompt_tokens
        c_tok += resp.completion_tokens
        attempts += resp.attempts
        latency += resp.latency_s
        notes.extend(resp.notes)
        cached = cached and resp.cached
        text = resp.text
        data, repaired, problem_or_none = _parse_json(text)
        if (problem_or_none is not None or repaired) and parse is not None:
            alt = parse(text)
            if alt is not None:
                data, repaired, problem_or_none = alt, True, None
        if problem_or_none is None:
            problem_or_none = _schema_problem(data, schema)
        if problem_or_none is None and validate is not None:
            try:
                validate(data)
            except ValueError as exc:
                problem_or_none = str(exc) or "it failed validation"
        if problem_or_none is None:
            if repaired:
                notes.append("output was not valid JSON and was repaired")
            return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                               model=resp.model, latency_s=latency, attempts=attempts,
                               repaired=repaired, data=data, notes=tuple(notes), cached=cached,
                               truncated=resp.truncated)
        problem = problem_or_none
        reject = getattr(llm, "reject", None)
        if callable(reject):  # a cache must not keep an answer this caller found unusable
            reject(resp, problem)
        notes.append(f"try {i + 1}: {problem}")
        convo = [
            *base,
            ChatMessage("assistant", text),
            ChatMessage("user", f"Your previous output was invalid because {problem}. Reply again "
                                "with only the corrected JSON, no explanations."),
        ]
    raise LLMOutputError(
        f"{getattr(llm, 'model_id', llm)} returned unusable JSON after {retries + 1} attempt(s): "
        f"{problem}. First 200 characters of the last output: {text[:200]!r}. Try a larger model "
        "('local' or 'openai') or more retries."
    )
