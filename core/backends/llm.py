"""LLM backends (chat + JSON output) and the shared :func:`chat_json` helper.

* :class:`NoLLM` — ``"none"``: no model; every caller takes its documented LLM-free fallback.
* :class:`OpenAILLM` — ``"openai"``: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
  LM Studio), configured from the environment; the API key is never written to disk, logged or
  shown.
* :class:`LlamaCppLLM` — ``"local"`` / ``"local-small"``: llama.cpp running Qwen2.5-Coder 1.5B /
  0.5B Instruct (Q4_K_M) assembled from PyPI packages by :mod:`core.backends.gguf`.
* :class:`GuardedLLM` — what :func:`core.backends.registry.get_llm` returns around every available
  backend: the one place that bounds LLM waits (per-attempt wall-clock timeout, retries with
  backoff, a per-question budget, a circuit breaker) under :class:`LLMSettings`. Callers open a
  per-question scope with :func:`question_scope`; every failure surfaces as an :class:`LLMError`
  whose message names the setting to change, so each stage can take its visible fallback.

:func:`chat_json` adds what every JSON-producing step needs on top of ``LLM.chat``: parsing,
repair of almost-JSON, validation, and retries with a corrective follow-up message.
:func:`answer_problem` tells a usable text answer from a refusal or garbage (issue 12, item 7).
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.backends.base import TRUNCATED_NOTE, ChatMessage, LLMResponse
from core.backends.device import cpu_threads, select_device
from core.backends.gguf import MODELS, ensure_model, missing_packages
from core.errors import (
    BackendError,
    Cancelled,
    ConfigError,
    EgxError,
    LLMError,
    LLMUnavailableError,
    UnknownNameError,
)
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


#: bytes of one HTTP reply read at most (``EGX_LLM_MAX_REPLY_MB``): a chat completion of a few hundred tokens is
#: a few kB, so 2 MB leaves room for any server's metadata while a runaway or hostile body stops at once
DEFAULT_MAX_REPLY_MB = 2.0


def max_reply_bytes() -> int:
    """The byte cap of one LLM server reply, from ``EGX_LLM_MAX_REPLY_MB`` (default 2)."""
    raw = os.environ.get("EGX_LLM_MAX_REPLY_MB", "").strip()
    try:
        mb = float(raw) if raw else DEFAULT_MAX_REPLY_MB
    except ValueError:
        mb = DEFAULT_MAX_REPLY_MB
    return int(max(mb, 0.01) * 1024 * 1024)


class ReplyTooLarge(ValueError):
    """An LLM server's reply body passed :func:`max_reply_bytes` (raised while it is read, so no more of
    it is kept or parsed)."""


class _CappedStream:
    """An ``httpx`` response stream that stops at ``cap`` bytes."""

    def __init__(self, inner: Any, cap: int) -> None:
        self._inner, self._cap = inner, cap

    def __iter__(self) -> Any:
        n = 0
        for chunk in self._inner:
            n += len(chunk)
            if n > self._cap:
                raise ReplyTooLarge(f"sent a reply of more than {self._cap / 2**20:.3g} MB; it was cut there and "
                                    "not parsed. Check the server (a runaway generation?), or raise "
                                    "EGX_LLM_MAX_REPLY_MB.")
            yield chunk

    def close(self) -> None:
        self._inner.close()


def _capped_transport_class() -> type:
    import httpx2 as httpx  # the HTTP package the pinned openai client (3.x) is built on

    class CappedTransport(httpx.HTTPTransport):
        """``httpx.HTTPTransport`` whose response bodies are read at most ``cap`` bytes (a declared
        Content-Length over it is refused before any byte is read)."""

        def __init__(self, cap: int, **kw: Any) -> None:
            super().__init__(**kw)
            self.cap = cap

        def handle_request(self, request: Any) -> Any:
            resp = super().handle_request(request)
            declared = resp.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.cap:
                resp.close()
                raise ReplyTooLarge(f"announced a reply of {int(declared) / 2**20:.1f} MB, over the "
                                    f"{self.cap / 2**20:.3g} MB cap; nothing of it was read. Check the server, or "
                                    "raise EGX_LLM_MAX_REPLY_MB.")
            resp.stream = httpx.ByteStream(b"") if resp.stream is None else _Sync(resp.stream, self.cap)
            return resp

    class _Sync(_CappedStream, httpx.SyncByteStream):
        pass

    return CappedTransport


def capped_transport(cap: int) -> Any:
    """An ``httpx`` transport that reads at most ``cap`` bytes of each response body."""
    return _capped_transport_class()(cap)


class OpenAILLM:
    """Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LM Studio).

    One :meth:`chat` is one request (plus the HTTP 400 negotiations below); retries, the
    per-question budget and the circuit breaker are :class:`GuardedLLM`'s, which
    :func:`core.backends.registry.get_llm` puts around it.

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
        Seconds per HTTP request (a :class:`GuardedLLM` may lower it to what is left of the
        question's budget).

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

    A reply that is not a chat completion (an HTML page, JSON without ``choices``, a truncated
    body) raises :class:`LLMReplyError` naming what came back, never a parsing exception.
    """

    name = "openai"
    available = True

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 60) -> None:
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

    def prepare(self) -> None:
        """Import the client library and build the client (done once, outside any call's deadline)."""
        self._get_client()

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import httpx2
                import openai

                self._client = openai.OpenAI(api_key=self.__key, base_url=self.base_url,
                                             max_retries=0, timeout=self.timeout,
                                             http_client=httpx2.Client(transport=capped_transport(max_reply_bytes())))
            return self._client

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """One chat completion, with JSON-mode negotiation.

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
            requests made and notes on any downgrade.

        Raises
        ------
        LLMTransportError
            Timeout, connection error, HTTP 429 or 5xx (worth retrying).
        LLMReplyError
            HTTP 200 whose body is not a chat completion (worth retrying).
        LLMError
            Other HTTP errors (bad key, unknown model, rejected request).
        """
        import openai

        client = self._get_client()
        timeout = attempt_timeout(self.timeout)
        payload = [{"role": m.role, "content": m.content} for m in messages]
        formats: list[dict[str, Any] | None] = [None]
        if json_schema is not None:
            # json_object + schema: llama-cpp-python's server (it has no json_schema type) constrains to it
            formats = [{"type": "json_schema", "json_schema": {"name": "output", "schema": json_schema}},
                       {"type": "json_object", "schema": json_schema}, {"type": "json_object"}, None]
        fmt_i = 0
        token_param = "max_tokens"
        notes: list[str] = []
        attempt = 0
        t0 = time.perf_counter()
        while True:
            attempt += 1
            kwargs: dict[str, Any] = {"model": self.model, "messages": payload,
                                      "temperature": temperature, token_param: max_tokens}
            if formats[fmt_i] is not None:
                kwargs["response_format"] = formats[fmt_i]
            try:
                resp = client.chat.completions.create(**kwargs, timeout=timeout)
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
            except openai.APITimeoutError:
                raise LLMTransportError(
                    f"{self._where()} timed out after {timeout:g} s for model {self.model!r}; raise the LLM "
                    f"timeout ({TIMEOUT_HINT}), use a smaller model, or check the server's load.") from None
            except ReplyTooLarge as exc:
                raise LLMReplyError(f"{self._where()} {exc}") from None
            except openai.APIConnectionError as exc:
                cause = exc.__cause__ or exc.__context__
                if isinstance(cause, ReplyTooLarge):
                    raise LLMReplyError(f"{self._where()} {cause}") from None
                if isinstance(cause, ValueError):  # a body that ended early or is not JSON
                    raise LLMReplyError(self._bad_body(cause)) from None
                raise LLMTransportError(
                    f"{self._where()} could not be reached for model {self.model!r}; check that the server "
                    "is running and EGX_OPENAI_BASE_URL is right.") from None
            except openai.APIStatusError as exc:
                status = getattr(exc, "status_code", 0) or 0
                msg = self._scrub(str(exc))
                if status in (422, 500) and fmt_i < len(formats) - 1 and "response_format" in msg:
                    # a server that validates the request body and answers 422 / 500 instead of 400
                    # (llama-cpp-python's: "Input should be 'text' or 'json_object'"): downgrade as for 400
                    fmt = formats[fmt_i]
                    fmt_i += 1
                    nxt = formats[fmt_i]
                    notes.append(f"server rejected response_format {fmt and fmt['type']!r} (HTTP {status}); "
                                 f"retried with {nxt['type'] if nxt else 'no response_format'!r}")
                    continue
                if status == 429 or status >= 500:
                    raise LLMTransportError(
                        f"{self._where()} failed for model {self.model!r} (HTTP {status}: "
                        f"{self._scrub(_short(str(exc)))}); wait and try again, or lower the request rate.") from None
                raise LLMError(self._status_message(exc, status)) from None
            except (ValueError, TypeError, AttributeError, openai.APIError) as exc:
                # The client could not parse the body (truncated JSON, wrong shape).
                raise LLMReplyError(self._bad_body(exc)) from None
            break
        text = self._content(resp)
        finish = getattr(resp.choices[0], "finish_reason", None)
        if finish == "length":
            notes.append(TRUNCATED_NOTE)
        latency = time.perf_counter() - t0
        usage = getattr(resp, "usage", None)
        p_tok = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else 0
        c_tok = int(getattr(usage, "completion_tokens", 0) or 0) if usage else 0
        if not usage:
            p_tok = sum(approx_tokens(m.content) for m in messages)
            c_tok = approx_tokens(text)
            notes.append("server reported no token usage; counts are estimates")
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=str(getattr(resp, "model", "") or self.model), latency_s=latency,
                           attempts=attempt, notes=tuple(notes), truncated=finish == "length")

    def _content(self, resp: Any) -> str:
        """The message text of a parsed reply; :class:`LLMReplyError` when it is no chat completion."""
        fix = ("Check EGX_OPENAI_BASE_URL: it must be the API root of an OpenAI-compatible server "
               "(e.g. http://127.0.0.1:11434/v1), not a web page or a proxy's error page.")
        if isinstance(resp, (str, bytes)):
            body = resp.decode("utf-8", "replace") if isinstance(resp, bytes) else resp
            what = "an HTML page" if _looks_like_html(body) else "a body that is not JSON"
            raise LLMReplyError(f"{self._where()} answered HTTP 200 with {what} instead of a chat completion "
                                f"(it starts {self._scrub(_short(body, 80))!r}). {fix}")
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list) or not choices:
            extra = _reply_summary(resp)
            raise LLMReplyError(f"{self._where()} answered HTTP 200 with JSON that is not a chat completion "
                                f"(no 'choices'{'; it says ' + self._scrub(extra) if extra else ''}). {fix}")
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if content is None:
            return ""
        if not isinstance(content, str):
            raise LLMReplyError(f"{self._where()} answered with a message whose content is "
                                f"{type(content).__name__}, not text. {fix}")
        return content

    def _bad_body(self, exc: BaseException) -> str:
        return (f"{self._where()} answered with a body that could not be read as a chat completion "
                f"(truncated or corrupt: {self._scrub(_short(str(exc)))}). Check the server's logs, or "
                "EGX_OPENAI_BASE_URL if it points at a proxy.")

    def _status_message(self, exc: Exception, status: int) -> str:
        detail = self._scrub(_short(str(exc)))
        if status in (401, 403):
            return (f"{self._where()} refused the API key (HTTP {status}). Set a valid "
                    "OPENAI_API_KEY (or EGX_OPENAI_API_KEY).")
        if status == 404:
            return (f"{self._where()} does not know model {self.model!r} (HTTP 404): {detail}. "
                    "Set EGX_OPENAI_MODEL to a model the server serves.")
        return f"{self._where()} returned HTTP {status} for model {self.model!r}: {detail}."


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _looks_like_html(body: str) -> bool:
    head = body[:1000].lstrip().lower()
    return head.startswith(("<!doctype", "<html", "<head", "<body")) or "</html>" in body[-2000:].lower()


def _reply_summary(resp: Any) -> str:
    """A short JSON rendering of a parsed reply without ``choices`` (its error text, if any)."""
    try:
        data = resp.model_dump(exclude_none=True) if hasattr(resp, "model_dump") else dict(resp)
    except (TypeError, ValueError, AttributeError):
        return ""
    data = {k: v for k, v in data.items() if k not in ("choices", "id", "created")}
    return _short(json.dumps(data, ensure_ascii=False, default=str), 160) if data else ""


_LLAMA_CACHE: dict[tuple[str, int, int, int], tuple[Any, threading.Lock]] = {}
_LLAMA_LOCK = threading.Lock()


def _default_threads() -> int:
    """llama.cpp threads: ``$EGX_LLM_THREADS``, else ``$EGX_THREADS``, else the CPUs this process may use."""
    return cpu_threads("EGX_LLM_THREADS")


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
        Wall-clock limit per :meth:`chat` call in seconds, checked between generated tokens (a
        :class:`GuardedLLM` may lower it to what is left of the question's budget, and also stops
        waiting for a prompt that takes longer than that to read).
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
        try:  # before the model file: a missing llama-cpp-python fails at once, not after assembling 1 GB of GGUF
            from llama_cpp import Llama
        except ImportError as exc:
            raise BackendError(
                f"The local LLM needs llama-cpp-python, which is not installed ({exc}). Run "
                "scripts/bootstrap.sh (it builds llama-cpp-python==0.3.36 with portable CPU flags; or: "
                "pip install llama-cpp-python==0.3.36), or pick the 'openai' or 'none' LLM backend."
            ) from None
        path = self.model_path or ensure_model(self.size)  # type: ignore[arg-type]
        gpu_layers = -1 if select_device() == "cuda" else 0
        lookup = lookup_tokens()
        key = (str(path), self.n_ctx, gpu_layers, lookup)
        with _LLAMA_LOCK:
            if key not in _LLAMA_CACHE:
                t0 = time.perf_counter()
                try:
                    llm = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                n_threads_batch=self.n_threads, n_gpu_layers=gpu_layers,
                                seed=self.seed, verbose=False)
                except (ValueError, RuntimeError) as exc:
                    raise BackendError(f"llama.cpp could not load {str(path)!r}: {exc}. Check that "
                                       "it is a valid GGUF file.") from exc
                _attach_prompt_cache(llm)
                if os.environ.get("EGX_LLAMA_FAST_GRAMMAR", "1").strip() != "0":
                    from core.backends.llama_sampling import install

                    install(llm)  # greedy + grammar without 152k grammar checks per token
                if lookup:
                    from core.backends.llama_sampling import install_lookup

                    install_lookup(llm, lookup)  # replies that copy ids from the prompt take several tokens a step
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
        Cancelled
            If the job running this (the app's background run) is cancelled: generation stops at
            the next token, so the model and both cores are free again at once.
        """
        llm, lock = self._load()
        timeout = attempt_timeout(self.timeout)
        payload = [{"role": m.role, "content": m.content} for m in messages]
        kwargs: dict[str, Any] = {"messages": payload, "max_tokens": max_tokens,
                                  "temperature": temperature, "seed": self.seed, "stream": True}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        pieces: list[str] = []
        usage: dict[str, Any] | None = None
        finish = None
        from core.jobs import current_job

        job = current_job()  # the app's background run, if any: a cancel stops the generation between tokens
        cancel = job.cancel_event if job is not None else None
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
                        if cancel is not None and cancel.is_set():
                            raise Cancelled(f"The local model {self.model_id} stopped generating: the run was "
                                            f"cancelled ({len(pieces)} tokens generated).")
                        if time.perf_counter() - t0 > timeout:
                            raise LLMError(
                                f"The local model {self.model_id} timed out after {timeout:g} s "
                                f"({len(pieces)} tokens generated); raise the LLM timeout "
                                f"({TIMEOUT_HINT}) or use a smaller model."
                            )
                finally:
                    close = getattr(stream, "close", None)
                    if close is not None:
                        close()
            except (LLMError, Cancelled):
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
        notes = (TRUNCATED_NOTE,) if finish == "length" else ()
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=self.model_id, latency_s=time.perf_counter() - t0, attempts=1,
                           notes=notes, truncated=finish == "length")


def prompt_cache_bytes() -> int:
    """``$EGX_LLAMA_PROMPT_CACHE_MB`` (default 512) in bytes; 0 turns the prompt-state cache off.

    Raises
    ------
    ConfigError
        For a value that is not a whole number of megabytes >= 0.
    """
    raw = os.environ.get("EGX_LLAMA_PROMPT_CACHE_MB", "").strip()
    try:
        mb = int(raw) if raw else 512
        if mb < 0:
            raise ValueError
    except ValueError:
        raise ConfigError(f"EGX_LLAMA_PROMPT_CACHE_MB = {raw!r} is not a whole number of megabytes >= 0; set it "
                          "to e.g. 512, 0 (no cache), or unset it.") from None
    return mb << 20


#: tokens guessed per step by prompt-lookup decoding when ``$EGX_LLAMA_LOOKUP`` is unset: off, since on 2 CPU
#: cores checking a guess of k tokens costs about what k single steps save (BubbleRAG's requests took 347 s
#: without, 415 s with k = 8; ``benchmarks/README.md``, "LLM stages for the 1.5B model")
DEFAULT_LOOKUP_TOKENS = 0


def lookup_tokens() -> int:
    """``$EGX_LLAMA_LOOKUP``: tokens prompt-lookup decoding guesses per step on the local model (0 = off;
    default :data:`DEFAULT_LOOKUP_TOKENS`). See :func:`core.backends.llama_sampling.install_lookup`.

    Raises
    ------
    ConfigError
        For a value that is not a whole number from 0 to 32.
    """
    raw = os.environ.get("EGX_LLAMA_LOOKUP", "").strip()
    try:
        n = int(raw) if raw else DEFAULT_LOOKUP_TOKENS
        if not 0 <= n <= 32:
            raise ValueError
    except ValueError:
        raise ConfigError(f"EGX_LLAMA_LOOKUP = {raw!r} is not a whole number from 0 to 32; set it to e.g. 6 "
                          "(tokens guessed per step), 0 (off), or unset it.") from None
    return n


def _attach_prompt_cache(llm: Any) -> None:
    """Keep the states of recent prompts in RAM, so a prompt that begins like an earlier one (not only the
    last one) reads only what is new. llama.cpp already reuses the beginning shared with the *previous*
    prompt; BubbleRAG's stages alternate (the preview block, then the keywords, then the preview block
    again), and its §3.5 hops share their question and evidence: restoring the longest-prefix state
    (tens of MB, copied in milliseconds) saves reading hundreds of tokens at ~40 tokens/s on 2 cores.
    The reply is the one a fresh read gives up to the last digits of the logits (the prompt is read in
    other batches), as with llama.cpp's own reuse of the previous prompt."""
    size = prompt_cache_bytes()
    if size:
        from llama_cpp import LlamaRAMCache

        llm.set_cache(LlamaRAMCache(capacity_bytes=size))


# --- limits on every LLM wait: settings, the per-question scope, the guard -----------------------

_MAX_COOLDOWN = 600.0


def _env_number(var: str, cast: Callable[[str], Any]) -> Any:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return None
    try:
        return cast(raw)
    except ValueError:
        kind = "a whole number" if cast is int else "a number of seconds"
        raise ConfigError(f"{var} = {raw!r} is not {kind}; set it to {kind} (e.g. {var}="
                          f"{'2' if cast is int else '60'}) or unset it.") from None


@dataclass(frozen=True)
class LLMSettings:
    """How long LLM calls may take: one set of limits for every backend and every caller.

    Parameters
    ----------
    timeout : float or None
        Wall-clock seconds one attempt may take — a hung server, a reply trickling in, a local
        prompt that takes too long to read. ``None``: the backend's own default (60 s for
        ``openai``, 120 s for the local models). CLI ``--llm-timeout``, env ``EGX_LLM_TIMEOUT``.
    retries : int
        Extra attempts after a timeout, a connection error, HTTP 429 / 5xx or a reply that is no
        chat completion. Before the n-th retry the guard waits ``backoff · 2^(n-1)`` s (not after
        a timeout, which has waited already). CLI ``--llm-retries``, env ``EGX_LLM_RETRIES``.
    budget : float
        Seconds of LLM time one question may use (inside :func:`question_scope`); once spent, the
        question's remaining LLM steps take their fallback at once. 0 = no limit. CLI
        ``--llm-budget``, env ``EGX_LLM_BUDGET``.
    breaker : int
        Failed attempts in a row that open the circuit breaker: the remaining LLM steps of the
        question fall back at once, and so do later calls until ``cooldown`` has passed.
    cooldown : float
        Seconds an open breaker refuses calls before it lets one probe through; doubled after
        each failed probe, up to 10 minutes; reset by any success.
    backoff : float
        First retry delay in seconds.

    Raises
    ------
    ConfigError
        For a value out of range; the message names the flag and variable that set it.
    """

    timeout: float | None = None
    retries: int = 2
    budget: float = 300.0
    breaker: int = 3
    cooldown: float = 30.0
    backoff: float = 1.0

    def __post_init__(self) -> None:
        if self.timeout is not None and not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise ConfigError(f"LLM timeout = {self.timeout!r} is out of range; use a number of seconds > 0 "
                              f"({TIMEOUT_HINT}).")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or not 0 <= self.retries <= 10:
            raise ConfigError(f"LLM retries = {self.retries!r} is out of range; use a whole number from 0 to 10 "
                              f"({RETRIES_HINT}).")
        if not (self.budget >= 0 and math.isfinite(self.budget)):
            raise ConfigError(f"LLM budget = {self.budget!r} is out of range; use seconds >= 0, 0 for no limit "
                              f"({BUDGET_HINT}).")
        if isinstance(self.breaker, bool) or not isinstance(self.breaker, int) or self.breaker < 1:
            raise ConfigError(f"LLM breaker = {self.breaker!r} is out of range; use a whole number >= 1.")
        if not (self.cooldown >= 0 and self.backoff >= 0):
            raise ConfigError(f"LLM cooldown / backoff must be >= 0 seconds, got {self.cooldown!r} / {self.backoff!r}.")

    @classmethod
    def from_env(cls, *, timeout: float | None = None, retries: int | None = None,
                 budget: float | None = None) -> LLMSettings:
        """Settings from the arguments given, else ``EGX_LLM_TIMEOUT`` / ``EGX_LLM_RETRIES`` /
        ``EGX_LLM_BUDGET``, else the defaults.

        Raises
        ------
        ConfigError
            If a variable is not a number, or a value is out of range.
        """
        kw: dict[str, Any] = {}
        t = timeout if timeout is not None else _env_number("EGX_LLM_TIMEOUT", float)
        r = retries if retries is not None else _env_number("EGX_LLM_RETRIES", int)
        b = budget if budget is not None else _env_number("EGX_LLM_BUDGET", float)
        if t is not None:
            kw["timeout"] = float(t)
        if r is not None:
            kw["retries"] = r
        if b is not None:
            kw["budget"] = float(b)
        return cls(**kw)


@dataclass
class LLMScope:
    """One question's LLM accounting, opened by :func:`question_scope`."""

    budget: float  #: seconds of LLM time allowed (0 = no limit)
    spent: float = 0.0  #: seconds spent in attempts and retry pauses
    calls: int = 0
    attempts: int = 0
    failures: int = 0  #: failed attempts
    skipped: int = 0  #: calls refused (budget spent or breaker open)
    stopped: str = ""  #: why the rest of this question's LLM calls are skipped ("" while they run)
    cache_hits: int = 0  #: calls answered by the LLM cache (no LLM time)
    cache_misses: int = 0  #: calls the cache passed on to the model

    def remaining(self) -> float:
        return math.inf if self.budget <= 0 else self.budget - self.spent

    def summary(self) -> dict[str, Any]:
        return {"budget_s": self.budget, "spent_s": round(self.spent, 3), "calls": self.calls,
                "attempts": self.attempts, "failed_attempts": self.failures, "skipped_calls": self.skipped,
                "stopped": self.stopped, "cache_hits": self.cache_hits, "cache_misses": self.cache_misses}


_SCOPE: ContextVar[LLMScope | None] = ContextVar("egx_llm_scope", default=None)
_ATTEMPT_LIMIT: ContextVar[float | None] = ContextVar("egx_llm_attempt_limit", default=None)


def attempt_timeout(default: float) -> float:
    """The wall-clock limit of the attempt being made: ``default``, lowered by a guard's deadline."""
    limit = _ATTEMPT_LIMIT.get()
    return default if limit is None else min(default, limit)


def current_scope() -> LLMScope | None:
    """The question scope open in this thread / context, if any."""
    return _SCOPE.get()


@contextmanager
def question_scope(llm: Any) -> Iterator[LLMScope]:
    """Open one question's LLM scope: its budget and its "stop asking" state.

    Every caller that runs one question opens it around the run (``egx ask``, the benchmark
    runner's per-question run, the app's method-run wrappers). Inside, a :class:`GuardedLLM`
    charges its attempts to the scope, refuses calls once the budget is spent or the circuit
    breaker opened, and says so in the :class:`LLMSkippedError` each stage turns into its
    visible fallback. With any other LLM (``none``, test fakes) the scope has no budget and
    changes nothing.

    Parameters
    ----------
    llm : LLM
        The question's LLM; its :class:`LLMSettings` give the budget.

    Yields
    ------
    LLMScope
    """
    settings = getattr(llm, "settings", None)  # a GuardedLLM's, also through a CachedLLM
    if not isinstance(settings, LLMSettings):
        settings = None
    token = _SCOPE.set(LLMScope(budget=settings.budget if settings else 0.0))
    try:
        scope = _SCOPE.get()
        assert scope is not None
        yield scope
    finally:
        _SCOPE.reset(token)


def _count(**increments: int) -> None:
    """Add to the counters of the job running this (requests and tokens shown live in the app)."""
    from core.jobs import current_job

    job = current_job()
    if job is not None:
        job.count(**increments)


def _wait_or_cancel(done: threading.Event, seconds: float) -> bool:
    """Wait for ``done`` like ``done.wait(seconds)``, but raise :class:`~core.errors.Cancelled` as soon
    as the job running this (the app's background run) is cancelled: its user stops a slow LLM
    reply at once, not after the timeout. The abandoned attempt ends on its own deadline."""
    from core.jobs import current_job

    job = current_job()
    if job is None:
        return done.wait(seconds)
    deadline = time.monotonic() + seconds
    while True:
        job.check()
        left = deadline - time.monotonic()
        if left <= 0:
            return done.is_set()
        if done.wait(min(left, 0.1)):
            return True


class GuardedLLM:
    """Any LLM backend under :class:`LLMSettings` — the one mechanism that bounds LLM waits.

    Every :meth:`chat` is made of attempts. Each attempt runs the backend in a worker thread and
    waits at most ``min(timeout, what is left of the question's budget)`` seconds of wall clock,
    whatever the backend does (an endpoint that never answers, or one whose reply trickles in
    byte by byte; the backend is also told the limit, so its own HTTP or token timeout fires
    first when it can). A timeout, a connection error, HTTP 429 / 5xx or a reply that is no
    chat completion is retried up to ``retries`` times with exponential backoff. ``breaker``
    failed attempts in a row open the circuit breaker: the rest of the question's LLM calls are
    refused at once, and so is every call until ``cooldown`` has passed (then one probe goes
    through; a success closes the breaker). Any exception other than this project's errors is
    turned into an :class:`LLMError` naming it, so callers only ever handle ``LLMError``.

    Parameters
    ----------
    inner : LLM
        The backend (an :class:`OpenAILLM`, :class:`LlamaCppLLM`, or any object of the protocol).
    settings : LLMSettings or None
        Defaults: :meth:`LLMSettings.from_env`.

    Notes
    -----
    Before its first attempt the guard lets the backend get ready outside any deadline
    (``prepare()`` or ``load()``: building the HTTP client, loading the GGUF model), since that is
    bounded local work, not a wait on the endpoint.

    The breaker state belongs to the guard (one endpoint, shared by every app session); the
    budget belongs to the question scope of the calling thread. Attributes the guard does not
    define (``load``, ``model``, ``base_url`` ...) are the backend's.
    """

    def __init__(self, inner: Any, settings: LLMSettings | None = None) -> None:
        if isinstance(inner, GuardedLLM):
            inner = inner.__dict__["inner"]
        self.inner: Any = inner
        self.settings = settings if settings is not None else LLMSettings.from_env()
        self._lock = threading.Lock()
        self._fails = 0  # failed attempts in a row (every thread)
        self._last = ""
        self._open_until = 0.0  # time.monotonic() until which calls are refused; 0 = closed
        self._opens = 0  # breaker openings in a row (doubles the cooldown)
        self._prepared = False

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    @property
    def available(self) -> bool:
        return bool(self.inner.available)

    @property
    def timeout(self) -> float:
        """The per-attempt limit: the setting, else the backend's own timeout, else 60 s."""
        return float(self.settings.timeout or getattr(self.inner, "timeout", None) or 60.0)

    def __getattr__(self, item: str) -> Any:
        inner = self.__dict__.get("inner")
        if inner is None or item.startswith("__"):
            raise AttributeError(item)
        return getattr(inner, item)

    def __repr__(self) -> str:
        s = self.settings
        return (f"GuardedLLM({self.inner!r}, timeout={self.timeout:g}, retries={s.retries}, "
                f"budget={s.budget:g}, breaker={s.breaker})")

    @property
    def breaker_open(self) -> bool:
        with self._lock:
            return self._open_until > time.monotonic()

    def reset(self) -> None:
        """Close the circuit breaker (e.g. after the endpoint was fixed)."""
        with self._lock:
            self._fails = self._opens = 0
            self._open_until = 0.0
            self._last = ""

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """The backend's :meth:`chat` under the timeout, retries, budget and breaker.

        Returns
        -------
        LLMResponse
            The backend's, with ``attempts`` and ``latency_s`` covering failed attempts too and a
            note per retry.

        Raises
        ------
        LLMSkippedError
            Without calling the backend: the question's budget is spent or the breaker is open.
        LLMError
            The last attempt's failure, naming the attempts made and, when the breaker opened,
            saying that the question's remaining LLM steps take their fallback.
        """
        scope = _SCOPE.get()
        if scope is not None:
            scope.calls += 1
        self._prepare()
        limit = self.timeout
        notes: list[str] = []
        t_start = time.monotonic()
        attempt = 0
        while True:
            self._admit(scope)
            attempt += 1
            left = scope.remaining() if scope is not None else math.inf
            t = min(limit, left)
            t0 = time.monotonic()
            try:
                resp = self._attempt(messages, max_tokens, temperature, json_schema, t)
            except LLMError as exc:
                elapsed = time.monotonic() - t0
                self._charge(scope, elapsed)
                _count(llm_calls=1, llm_failures=1)
                msg = str(exc)
                if t < limit and isinstance(exc, LLMTransportError):
                    msg += (f" (this attempt had only the {t:.1f} s left of the question's LLM budget; "
                            f"{BUDGET_HINT})")
                opened = self._failed(msg, scope)
                retryable = isinstance(exc, (LLMTransportError, LLMReplyError))
                budget_left = scope is None or scope.remaining() > 0
                if retryable and not opened and budget_left and attempt <= self.settings.retries:
                    pause = 0.0 if elapsed >= 0.9 * t else self.settings.backoff * 2 ** (attempt - 1)
                    pause = max(0.0, min(pause, scope.remaining() if scope is not None else pause))
                    _wait_or_cancel(threading.Event(), pause)  # a backoff a cancel cuts short
                    self._charge(scope, pause)
                    notes.append(f"attempt {attempt} failed ({_short(msg, 120)}); retried")
                    continue
                if attempt > 1:
                    msg += f" Gave up after {attempt} attempts."
                if opened:
                    msg += (" The LLM circuit breaker is now open: the remaining LLM steps of this question "
                            "take their fallback at once.")
                raise type(exc)(msg) from None
            self._charge(scope, time.monotonic() - t0)
            self._succeeded()
            _count(llm_calls=1, prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens)
            if attempt == 1:
                return resp
            return replace(resp, attempts=resp.attempts + attempt - 1, latency_s=time.monotonic() - t_start,
                           notes=(*notes, *resp.notes))

    def _prepare(self) -> None:
        """Load the model / build the client once, before the first deadline starts: that is local,
        bounded work (seconds for a GGUF file), not a wait on the endpoint."""
        if self._prepared:
            return
        ready = getattr(self.inner, "prepare", None) or getattr(self.inner, "load", None)
        if callable(ready):
            ready()
        self._prepared = True

    def _attempt(self, messages: Sequence[ChatMessage], max_tokens: int, temperature: float,
                 json_schema: dict[str, Any] | None, limit: float) -> LLMResponse:
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            _ATTEMPT_LIMIT.set(limit)  # inside the copied context: the backend sees its deadline
            try:
                box["r"] = self.inner.chat(messages, max_tokens=max_tokens, temperature=temperature,
                                           json_schema=json_schema)
            except BaseException as exc:  # handed to the caller's thread below
                box["e"] = exc
            finally:
                done.set()

        # A daemon thread: a backend stuck in a read neither blocks this caller past the deadline
        # nor the process's exit; it ends when its own HTTP / token timeout fires.
        threading.Thread(target=contextvars.copy_context().run, args=(work,), daemon=True,
                         name="egx-llm-attempt").start()
        if not _wait_or_cancel(done, limit + min(2.0, 0.25 + 0.1 * limit)):
            raise LLMTransportError(
                f"{self.model_id} did not finish its reply within {limit:g} s (a hung or very slow "
                f"server); raise the LLM timeout ({TIMEOUT_HINT}), or check the server.")
        if "e" in box:
            exc = box["e"]
            if isinstance(exc, EgxError):
                raise exc
            raise LLMError(f"{self.model_id} failed while answering ({type(exc).__name__}: "
                           f"{_short(str(exc))}); the step takes its fallback.") from exc
        resp = box["r"]
        if not isinstance(resp, LLMResponse):
            raise LLMReplyError(f"{self.model_id} returned {type(resp).__name__}, not an LLMResponse.")
        return resp

    def _admit(self, scope: LLMScope | None) -> None:
        """Raise :class:`LLMSkippedError` when this question or this endpoint must not be asked."""
        if scope is not None and not scope.stopped and scope.remaining() <= 0:
            scope.stopped = (f"LLM call skipped: this question's LLM budget of {scope.budget:g} s is spent "
                             f"({scope.spent:.1f} s over {scope.calls - 1} call(s)). The remaining LLM steps "
                             f"take their fallback at once; raise the budget with {BUDGET_HINT}.")
        if scope is not None and scope.stopped:
            scope.skipped += 1
            raise LLMSkippedError(scope.stopped)
        with self._lock:
            wait = self._open_until - time.monotonic()
            if wait > 0:
                msg = self._open_message(wait)
            else:
                return  # closed, or half-open: this attempt is the probe
        if scope is not None:
            scope.stopped = msg
            scope.skipped += 1
        raise LLMSkippedError(msg)

    def _open_message(self, wait: float) -> str:
        return (f"LLM call skipped: the circuit breaker for {self.model_id} is open after repeated "
                f"failures (last: {_short(self._last, 240)}). The remaining LLM steps take their fallback at once; "
                f"the next try is allowed in {math.ceil(wait)} s.")

    def _charge(self, scope: LLMScope | None, seconds: float) -> None:
        if scope is not None:
            scope.spent += seconds

    def _failed(self, msg: str, scope: LLMScope | None) -> bool:
        """Count a failed attempt; True when it opened the breaker."""
        with self._lock:
            probing = self._open_until > 0  # the cooldown had passed: this was the probe
            self._fails += 1
            self._last = msg
            opened = probing or self._fails >= self.settings.breaker
            if opened:
                self._opens += 1
                cooldown = min(self.settings.cooldown * 2 ** (self._opens - 1), _MAX_COOLDOWN)
                self._open_until = time.monotonic() + cooldown
                stop = self._open_message(cooldown)
        if scope is not None:
            scope.attempts += 1
            scope.failures += 1
            if opened:
                scope.stopped = stop
        return opened

    def _succeeded(self) -> None:
        scope = _SCOPE.get()
        if scope is not None:
            scope.attempts += 1
        with self._lock:
            self._fails = self._opens = 0
            self._open_until = 0.0


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


# --- is a text answer usable? (issue 12, item 7) ---------------------------------------------------

_NEG = (r"(?:can'?t|cannot|can not|won'?t|will not|am unable|'m unable|am not able|'m not able|must decline|"
        r"do not feel|don'?t feel|am not (?:allowed|permitted)|'m not (?:allowed|permitted))")
_VERB = (r"(?:help|assist|answer|provide|comply|fulfil+|respond|support|engage|share|discuss|do|give|generate|"
         r"create|complete|offer|reveal|disclose)")
_OBJ = r"(?:with|you|that|this|your|the|such|it|these|those|an?|any|to|on|in|information|request)"
_REFUSALS = (
    # "I'm sorry, but I can't help with that." / "I'm afraid I cannot answer that."
    re.compile(rf"^(?:i'?m|i am) (?:so |very |really |truly )?(?:sorry|afraid)\b[^.?!]{{0,80}}"
               rf"(?:\b{_NEG}|\b(?:do not|don'?t) (?:have|know)\b)"),
    # "Sorry, but I can't ..." / "Apologies — as an AI ..." / "Unfortunately, I am unable to ..."
    re.compile(r"^(?:sorry|apologies|my apologies|unfortunately)\s*[,.!:;—–-]\s*(?:but\s+)?"
               r"(?:i\b|i'm\b|as an ai\b)"),
    re.compile(r"^i (?:sincerely |do )?apologi[sz]e\b"),
    # "I can't help with that." / "I cannot answer this question." / "I won't provide ..."
    re.compile(rf"^i(?:\s+|(?=')){_NEG} (?:to )?{_VERB}(?:\s+{_OBJ}\b|\s*[.!]|\s*$)"),
    re.compile(r"^as an (?:ai|a\.i\.|artificial intelligence)\b"),
    re.compile(r"\b(?:against (?:my|openai'?s?|the) (?:guidelines|policies|policy|usage policies)|"
               r"content (?:policy|guidelines)|i must (?:respectfully )?decline)\b"),
)
_SPECIAL_TOKENS = re.compile(r"<\|[a-z_]{2,20}\|>|</?s>|\[/?INST\]", re.I)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class AnswerCheck:
    """What :func:`check_answer` found: the cleaned answer, or why it cannot be one."""

    text: str  #: the answer to show ("" when unusable)
    problem: str  #: why the text is no answer ("" when usable)
    raw: str  #: the LLM's text as it came

    @property
    def ok(self) -> bool:
        return not self.problem


def _title_like(text: str) -> bool:
    """A short, Title-Cased phrase without a final full stop ("I Can't Help Myself"): a name, not a sentence."""
    words = text.split()
    if not words or len(words) > 10 or text.rstrip()[-1:] in ".!":
        return False
    caps = sum(1 for w in words if w[:1].isupper() or not w[:1].isalpha())
    return caps >= max(2, len(words) - 2)


#: a format line's placeholder ("<an entity, date or number>"); a tag with attributes ("<a href='…'>") is markup,
#: which the answer's flags name (core.methods.answering.answer_flags), not a placeholder
_PLACEHOLDER = re.compile(r"<(?:an?|the|one)\s[^<>=\"']{3,}>", re.I)


def check_answer(text: str) -> AnswerCheck:
    """Whether an LLM's text answer is usable, or a refusal / garbage that must not be shown as one.

    Unusable: empty or only punctuation; only chat-template tokens; a refusal ("I'm sorry, but I
    can't help with that.", "As an AI language model ...", "I cannot answer that."); an HTML
    page; a JSON fragment (truncated, or JSON without an ``answer``); a copy of a prompt's
    placeholder ("<an entity ...>"); a runaway repetition; garbled characters. A short Title-Cased phrase is never taken for a refusal, so titles such as
    "Sorry Seems to Be the Hardest Word" or "I Can't Help Myself" stay answers, and so do dates,
    numbers and honest non-answers ("Unable to determine", "The passages do not say").

    Cleaning: surrounding whitespace, a Markdown code fence and chat-template tokens are removed,
    and a JSON object with a string ``answer`` is unwrapped to that string.

    Parameters
    ----------
    text : str
        What the LLM returned for an answer step.

    Returns
    -------
    AnswerCheck
        ``text`` (cleaned) and ``problem`` ("" when usable).

    Examples
    --------
    >>> check_answer("I'm sorry, but I can't help with that.").problem
    'a refusal ("I\\'m sorry, but I can\\'t help with that.")'
    >>> check_answer("20 March 851").text
    '20 March 851'
    """
    raw = text if isinstance(text, str) else str(text)
    body = _SPECIAL_TOKENS.sub("", raw).strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()

    def bad(problem: str) -> AnswerCheck:
        return AnswerCheck("", problem, raw)

    if not body:
        return bad("an empty answer" if not raw.strip() else "only chat-template tokens")
    if not any(ch.isalnum() for ch in body):
        return bad(f"only punctuation ({_short(body, 40)!r})")
    if body.count("\ufffd") > max(2, len(body) // 20) or sum(1 for ch in body if ord(ch) < 32 and ch not in "\n\t\r") > 2:
        return bad("garbled characters")
    if _looks_like_html(body):
        return bad(f"an HTML page ({_short(body, 60)!r})")
    if body[0] in "{[":
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, RecursionError):
            return bad(f"a truncated or broken JSON fragment ({_short(body, 60)!r})")
        if isinstance(data, dict) and isinstance(data.get("answer"), (str, int, float)) \
                and not isinstance(data.get("answer"), bool):
            return check_answer(str(data["answer"]))
        return bad(f"JSON without an answer ({_short(body, 60)!r})")
    if _PLACEHOLDER.search(body):  # "<an entity, date or number from the paths>": the format line, not an answer
        return bad(f"a copy of the prompt's placeholder ({_short(body, 60)!r})")
    words = [w.lower() for w in _WORD.findall(body)]
    if len(words) >= 30 and len(set(words)) < 0.2 * len(words):
        return bad(f"a runaway repetition ({_short(body, 60)!r})")
    norm = " ".join(body.replace("’", "'").replace("‘", "'").split()).lower().lstrip("\"'*_ ")
    if not _title_like(body) and any(p.search(norm[:400]) for p in _REFUSALS):
        return bad(f'a refusal ("{_short(body, 100)}")')
    return AnswerCheck(body, "", raw)


def answer_problem(text: str) -> str:
    """Why ``text`` is no usable answer ("" when it is one); see :func:`check_answer`."""
    return check_answer(text).problem
