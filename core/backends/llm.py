"""LLM backends (chat + JSON output) and the shared :func:`chat_json` helper.

* :class:`NoLLM` — ``"none"``: no model; every caller takes its documented LLM-free fallback.
* :class:`OpenAILLM` — ``"openai"``: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
  LM Studio), configured from the environment; the API key is never written to disk, logged or
  shown.
* :class:`LlamaCppLLM` — ``"local"`` / ``"local-small"``: llama.cpp running Qwen2.5-Coder 1.5B /
  0.5B Instruct (Q4_K_M) assembled from PyPI packages by :mod:`core.backends.gguf`.

:func:`chat_json` adds what every JSON-producing step needs on top of ``LLM.chat``: parsing,
repair of almost-JSON, validation, and retries with a corrective follow-up message.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.backends.base import ChatMessage, LLMResponse
from core.backends.device import select_device
from core.backends.gguf import MODELS, ensure_model, missing_packages
from core.errors import BackendError, LLMError, LLMUnavailableError, UnknownNameError
from core.text import approx_tokens

NO_LLM_MESSAGE = (
    "No LLM is configured (backend 'none'); this step takes its LLM-free fallback. Choose 'local' "
    "or 'openai' in the sidebar / --llm to enable it."
)


class LLMOutputError(LLMError):
    """The LLM answered, but its output stayed unusable (not JSON / invalid) after every retry.

    Distinct from transport failures (timeouts, connection errors), so batch callers can skip
    one bad item and go on, while a dead server still stops the batch.
    """


class NoLLM:
    """The ``none`` backend: no model at all.

    ``available`` is False and :meth:`chat` raises :class:`LLMUnavailableError`; callers check
    ``available`` first and take their deterministic, LLM-free fallback (keywords from the query
    text, embedding-based grouping, extractive answers, rule-based triples).
    """

    name = "none"
    model_id = "none"
    available = False

    def __repr__(self) -> str:
        return "NoLLM()"

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """Always raises :class:`LLMUnavailableError`."""
        raise LLMUnavailableError(NO_LLM_MESSAGE)


def _env(*names: str) -> str | None:
    for n in names:
        v = os.environ.get(n, "").strip()
        if v:
            return v
    return None


def _public_url(url: str) -> str:
    """The URL without any user:password part, safe to show."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class OpenAILLM:
    """Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LM Studio).

    Parameters
    ----------
    model : str or None
        Model name; else ``$EGX_OPENAI_MODEL``, else ``$OPENAI_MODEL``.
    base_url : str or None
        Endpoint, e.g. ``http://127.0.0.1:11434/v1`` for Ollama; else ``$EGX_OPENAI_BASE_URL``,
        else ``$OPENAI_BASE_URL``, else OpenAI's own API.
    api_key : str or None
        Else ``$OPENAI_API_KEY``, else ``$EGX_OPENAI_API_KEY``. With a custom ``base_url`` and no
        key, ``"not-needed"`` is sent (local servers ignore it). The key is kept only in memory:
        it never appears in ``repr``, logs, error messages or files.
    timeout : float
        Seconds per HTTP request.
    retries : int
        Extra attempts after timeouts, connection errors, HTTP 429 and 5xx.
    backoff : float
        First retry delay in seconds; doubled after each failed attempt.

    Raises
    ------
    BackendError
        If no model name or (for OpenAI's own API) no API key is configured; the message says
        which environment variable to set.

    Notes
    -----
    With ``json_schema``, the request asks for ``response_format={"type": "json_schema", ...}``.
    Servers that reject it with HTTP 400 are asked again with ``{"type": "json_object"}``, then
    with no ``response_format``; each downgrade is recorded in ``LLMResponse.notes``.
    """

    name = "openai"
    available = True

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 60, retries: int = 3,
                 backoff: float = 1.0) -> None:
        self.base_url = base_url or _env("EGX_OPENAI_BASE_URL", "OPENAI_BASE_URL")
        model = model or _env("EGX_OPENAI_MODEL", "OPENAI_MODEL")
        if not model:
            raise BackendError(
                "No model name for the 'openai' LLM backend. Set EGX_OPENAI_MODEL (or "
                "OPENAI_MODEL), e.g. EGX_OPENAI_MODEL=gpt-4o-mini, or for a local server the name "
                "it serves (Ollama: qwen2.5:1.5b), or pass model=..."
            )
        key = api_key or _env("OPENAI_API_KEY", "EGX_OPENAI_API_KEY")
        if not key:
            if not self.base_url:
                raise BackendError(
                    "No API key found — set OPENAI_API_KEY (or EGX_OPENAI_API_KEY), or point "
                    "EGX_OPENAI_BASE_URL at a local OpenAI-compatible server"
                )
            key = "not-needed"
        self.model = model
        self.__key = key  # name-mangled: kept out of vars()-based dumps by accident
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        where = _public_url(self.base_url) if self.base_url else "api.openai.com"
        self.model_id = f"openai:{model}@{where}"
        self._client: Any = None
        self._client_lock = threading.Lock()

    def __repr__(self) -> str:
        where = _public_url(self.base_url) if self.base_url else None
        return f"OpenAILLM(model={self.model!r}, base_url={where!r}, timeout={self.timeout})"

    def _where(self) -> str:
        return _public_url(self.base_url) if self.base_url else "the OpenAI API"

    def _scrub(self, text: str) -> str:
        # Some servers echo the key back in error bodies; never let it through.
        key = self.__key
        return text.replace(key, "***") if key and key != "not-needed" else text

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(api_key=self.__key, base_url=self.base_url,
                                             max_retries=0, timeout=self.timeout)
            return self._client

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """One chat completion, with retries and JSON-mode negotiation.

        Parameters
        ----------
        messages : sequence of ChatMessage
        max_tokens : int
        temperature : float
        json_schema : dict or None
            JSON Schema the output should follow (sent as a structured-output request).

        Returns
        -------
        LLMResponse
            Text, token usage (from the server's ``usage``; estimated when absent), latency,
            attempts and notes on any downgrade.

        Raises
        ------
        LLMError
            After ``retries`` failed retries (timeouts, connection errors, 429, 5xx), or at once
            for other HTTP errors (bad key, unknown model).
        """
        import openai

        client = self._get_client()
        payload = [{"role": m.role, "content": m.content} for m in messages]
        formats: list[dict[str, Any] | None] = [None]
        if json_schema is not None:
            formats = [{"type": "json_schema", "json_schema": {"name": "output", "schema": json_schema}},
                       {"type": "json_object"}, None]
        fmt_i = 0
        token_param = "max_tokens"
        notes: list[str] = []
        attempt = 0
        failures = 0
        t0 = time.perf_counter()
        while True:
            attempt += 1
            kwargs: dict[str, Any] = {"model": self.model, "messages": payload,
                                      "temperature": temperature, token_param: max_tokens}
            if formats[fmt_i] is not None:
                kwargs["response_format"] = formats[fmt_i]
            try:
                resp = client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                msg = self._scrub(str(exc))
                if token_param == "max_tokens" and "max_completion_tokens" in msg:
                    token_param = "max_completion_tokens"
                    notes.append("server wants max_completion_tokens; retried with it")
                    continue
                if fmt_i < len(formats) - 1:
                    fmt = formats[fmt_i]
                    fmt_i += 1
                    nxt = formats[fmt_i]
                    notes.append(f"server rejected response_format {fmt and fmt['type']!r} (HTTP 400); "
                                 f"retried with {nxt['type'] if nxt else 'no response_format'!r}")
                    continue
                raise LLMError(f"{self._where()} rejected the request for model {self.model!r} "
                               f"(HTTP 400): {msg}. Check the model name and request size.") from None
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
                failures += 1
                if failures <= self.retries:
                    time.sleep(self.backoff * 2 ** (failures - 1))
                    continue
                raise LLMError(self._transport_message(exc, failures)) from None
            except openai.APIStatusError as exc:
                status = getattr(exc, "status_code", 0) or 0
                if status >= 500:
                    failures += 1
                    if failures <= self.retries:
                        time.sleep(self.backoff * 2 ** (failures - 1))
                        continue
                    raise LLMError(self._transport_message(exc, failures)) from None
                raise LLMError(self._status_message(exc, status)) from None
            break
        latency = time.perf_counter() - t0
        text = (resp.choices[0].message.content or "") if resp.choices else ""
        usage = getattr(resp, "usage", None)
        p_tok = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else 0
        c_tok = int(getattr(usage, "completion_tokens", 0) or 0) if usage else 0
        if not usage:
            p_tok = sum(approx_tokens(m.content) for m in messages)
            c_tok = approx_tokens(text)
            notes.append("server reported no token usage; counts are estimates")
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=str(getattr(resp, "model", "") or self.model), latency_s=latency,
                           attempts=attempt, notes=tuple(notes))

    def _transport_message(self, exc: Exception, failures: int) -> str:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            what = f"timed out after {self.timeout:g} s"
            fix = "raise --timeout, use a smaller model, or check the server's load"
        elif isinstance(exc, openai.APIConnectionError):
            what = "could not be reached"
            fix = "check that the server is running and EGX_OPENAI_BASE_URL is right"
        else:
            what = f"kept failing ({self._scrub(str(exc))})"
            fix = "wait and try again, or lower the request rate"
        return (f"{self._where()} {what} for model {self.model!r} ({failures} attempt(s)); {fix}.")

    def _status_message(self, exc: Exception, status: int) -> str:
        detail = self._scrub(str(exc))
        if status in (401, 403):
            return (f"{self._where()} refused the API key (HTTP {status}). Set a valid "
                    "OPENAI_API_KEY (or EGX_OPENAI_API_KEY).")
        if status == 404:
            return (f"{self._where()} does not know model {self.model!r} (HTTP 404): {detail}. "
                    "Set EGX_OPENAI_MODEL to a model the server serves.")
        return f"{self._where()} returned HTTP {status} for model {self.model!r}: {detail}."


_LLAMA_CACHE: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}
_LLAMA_LOCK = threading.Lock()


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


class LlamaCppLLM:
    """A local GGUF model run by llama.cpp (``llama-cpp-python``).

    Parameters
    ----------
    model_path : str, Path or None
        A GGUF file. ``None`` uses the bundled Qwen2.5-Coder model of ``size``, assembled on first
        use by :func:`core.backends.gguf.ensure_model`.
    size : {"1.5b", "0.5b"}
        Which bundled model (``"local"`` = 1.5B follows extraction prompts well; ``"local-small"``
        = 0.5B is about twice as fast and makes occasional errors).
    n_ctx : int
        Context window in tokens.
    n_threads : int or None
        CPU threads; ``None`` uses every core this process may run on.
    timeout : float
        Wall-clock limit per :meth:`chat` call in seconds, checked between generated tokens.
    seed : int
        Sampling seed (outputs are reproducible; at ``temperature=0`` decoding is greedy).

    Raises
    ------
    BackendError
        If ``model_path`` does not exist or the bundled model's packages are missing.

    Notes
    -----
    Constructing is cheap; the model is loaded on the first :meth:`chat` (or :meth:`load`) and
    kept once per ``(path, n_ctx)`` per process. Layers go to the GPU (``n_gpu_layers=-1``) when
    :func:`~core.backends.device.select_device` returns ``"cuda"``. A lock serializes calls on
    one model, since a llama.cpp context is not thread-safe (Streamlit runs sessions in threads).
    """

    available = True

    def __init__(self, model_path: str | Path | None = None, size: str = "1.5b",
                 n_ctx: int = 4096, n_threads: int | None = None, timeout: float = 120,
                 seed: int = 0) -> None:
        if size not in MODELS:
            raise UnknownNameError("local model size", size, list(MODELS))
        self.size = size
        self.model_path = Path(model_path).expanduser() if model_path is not None else None
        if self.model_path is not None:
            if not self.model_path.is_file():
                raise BackendError(f"GGUF model file {str(self.model_path)!r} does not exist. Pass "
                                   "the path of a .gguf file, or leave it out to use the bundled model.")
            self.name = "local"
            self.model_id = f"llama.cpp:{self.model_path.stem}"
        else:
            spec = MODELS[size]
            missing = missing_packages(spec)
            if missing:
                raise BackendError(
                    f"The local model {spec.title} needs packages that are not installed: "
                    f"{', '.join(missing)}. Install them with: {spec.pip_command()}"
                )
            self.name = "local" if size == "1.5b" else "local-small"
            self.model_id = f"llama.cpp:{spec.filename.removesuffix('.gguf')}"
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads or _default_threads()
        self.timeout = float(timeout)
        self.seed = int(seed)
        self.load_seconds: float | None = None

    def __repr__(self) -> str:
        return f"LlamaCppLLM(model_id={self.model_id!r}, n_ctx={self.n_ctx}, n_threads={self.n_threads})"

    def load(self) -> Any:
        """Load the model (once per process) and return the ``llama_cpp.Llama`` object."""
        return self._load()[0]

    def _load(self) -> tuple[Any, threading.Lock]:
        path = self.model_path or ensure_model(self.size)  # type: ignore[arg-type]
        gpu_layers = -1 if select_device() == "cuda" else 0
        key = (str(path), self.n_ctx, gpu_layers)
        with _LLAMA_LOCK:
            if key not in _LLAMA_CACHE:
                try:
                    from llama_cpp import Llama
                except ImportError as exc:
                    raise BackendError(
                        "The local LLM needs llama-cpp-python, which is not installed. Run "
                        "scripts/bootstrap.sh (it builds llama-cpp-python==0.3.36), or pick the "
                        "'openai' or 'none' LLM backend."
                    ) from exc
                t0 = time.perf_counter()
                try:
                    llm = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                n_threads_batch=self.n_threads, n_gpu_layers=gpu_layers,
                                seed=self.seed, verbose=False)
                except (ValueError, RuntimeError) as exc:
                    raise BackendError(f"llama.cpp could not load {str(path)!r}: {exc}. Check that "
                                       "it is a valid GGUF file.") from exc
                _LLAMA_CACHE[key] = (llm, threading.Lock())
                self.load_seconds = time.perf_counter() - t0
            elif self.load_seconds is None:
                self.load_seconds = 0.0
            return _LLAMA_CACHE[key]

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """One chat completion using the model's own chat template.

        With ``json_schema``, llama.cpp constrains decoding to the schema with a grammar.
        Tokens are streamed so the wall-clock ``timeout`` can stop a runaway generation.

        Returns
        -------
        LLMResponse
            Token counts come from the server-style ``usage`` when llama.cpp reports it, otherwise
            by tokenizing the messages and the output with the model's tokenizer.

        Raises
        ------
        LLMError
            If the generation runs past ``timeout`` or llama.cpp fails.
        """
        llm, lock = self._load()
        payload = [{"role": m.role, "content": m.content} for m in messages]
        kwargs: dict[str, Any] = {"messages": payload, "max_tokens": max_tokens,
                                  "temperature": temperature, "seed": self.seed, "stream": True}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        pieces: list[str] = []
        usage: dict[str, Any] | None = None
        finish = None
        t0 = time.perf_counter()
        with lock:
            try:
                stream = llm.create_chat_completion(**kwargs)
                try:
                    for chunk in stream:
                        choice = chunk["choices"][0] if chunk.get("choices") else {}
                        piece = choice.get("delta", {}).get("content")
                        if piece:
                            pieces.append(piece)
                        finish = choice.get("finish_reason") or finish
                        usage = chunk.get("usage") or usage
                        if time.perf_counter() - t0 > self.timeout:
                            raise LLMError(
                                f"The local model {self.model_id} timed out after {self.timeout:g} s "
                                f"({len(pieces)} tokens generated); raise --timeout or use a "
                                "smaller model"
                            )
                finally:
                    close = getattr(stream, "close", None)
                    if close is not None:
                        close()
            except LLMError:
                raise
            except (ValueError, RuntimeError) as exc:
                raise LLMError(f"llama.cpp failed on {self.model_id}: {exc}. Shorten the input "
                               f"(context is {self.n_ctx} tokens) or raise n_ctx.") from exc
            text = "".join(pieces)
            if usage:
                p_tok = int(usage.get("prompt_tokens", 0))
                c_tok = int(usage.get("completion_tokens", 0))
            else:
                # Chat template overhead for ChatML-style models is ~5 tokens per message.
                p_tok = sum(len(llm.tokenize(m.content.encode("utf-8"), add_bos=False)) + 5
                            for m in messages) + 3
                c_tok = len(llm.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0
        notes = ("stopped at max_tokens",) if finish == "length" else ()
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=self.model_id, latency_s=time.perf_counter() - t0, attempts=1,
                           notes=notes)


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
              validate: Callable[[Any], None] | None = None) -> LLMResponse:
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
        text = resp.text
        data, repaired, problem_or_none = _parse_json(text)
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
                               repaired=repaired, data=data, notes=tuple(notes))
        problem = problem_or_none
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
