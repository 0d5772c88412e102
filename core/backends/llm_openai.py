"""The ``openai`` backend: any OpenAI-compatible endpoint, with every reply read under a size cap
(:mod:`core.backends.llm_transport`)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.backends.base import TRUNCATED_NOTE, ChatMessage, LLMResponse
from core.backends.llm_attempt import attempt_timeout, current_attempt
from core.backends.llm_errors import TIMEOUT_HINT, LLMReplyError, LLMTransportError, _looks_like_html, _short
from core.backends.llm_transport import ReplyTooLarge, capped_transport, max_reply_bytes
from core.backends.streaming import reply_sink
from core.errors import BackendError, LLMError
from core.text import approx_tokens


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
        sink = reply_sink() if json_schema is None else None  # a constrained (JSON) reply is not worth reading early
        usage_in_stream = sink is not None
        t0 = time.perf_counter()
        while True:
            attempt += 1
            kwargs: dict[str, Any] = {"model": self.model, "messages": payload,
                                      "temperature": temperature, token_param: max_tokens}
            if formats[fmt_i] is not None:
                kwargs["response_format"] = formats[fmt_i]
            if sink is not None:
                kwargs["stream"] = True
                if usage_in_stream:
                    kwargs["stream_options"] = {"include_usage": True}
            try:
                resp = client.chat.completions.create(**kwargs, timeout=timeout)
            except openai.BadRequestError as exc:
                msg = self._scrub(str(exc))
                if usage_in_stream and "stream_options" in msg:  # an older server: stream without the usage
                    usage_in_stream = False
                    notes.append("server rejected stream_options; retried without them")
                    continue
                if token_param == "max_tokens" and "max_completion_tokens" in msg:
                    token_param = "max_completion_tokens"
                    notes.append("server wants max_completion_tokens; retried with it")
                    continue
                if fmt_i < len(formats) - 1:
                    notes.append(_downgrade_note(formats, fmt_i, 400))
                    fmt_i += 1
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
                    notes.append(_downgrade_note(formats, fmt_i, status))
                    fmt_i += 1
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
        if sink is not None:
            text, finish, usage, model = self._read_stream(resp, sink)
        else:
            text = self._content(resp)
            finish = getattr(resp.choices[0], "finish_reason", None)
            usage, model = getattr(resp, "usage", None), str(getattr(resp, "model", "") or "")
        if finish == "length":
            notes.append(TRUNCATED_NOTE)
        latency = time.perf_counter() - t0
        p_tok = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else 0
        c_tok = int(getattr(usage, "completion_tokens", 0) or 0) if usage else 0
        if not usage:
            p_tok = sum(approx_tokens(m.content) for m in messages)
            c_tok = approx_tokens(text)
            notes.append("server reported no token usage; counts are estimates")
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=model or self.model, latency_s=latency,
                           attempts=attempt, notes=tuple(notes), truncated=finish == "length")

    def _read_stream(self, stream: Any, sink: Any) -> tuple[str, str | None, Any, str]:
        """Read a streamed completion (server-sent events), passing ``sink`` the text so far after every
        piece: the whole text, its finish reason, the usage (when the server sent it) and the model name."""
        import httpx2
        import openai

        response = getattr(stream, "response", None)
        ctype = str(response.headers.get("content-type", "")) if response is not None else "text/event-stream"
        if "event-stream" not in ctype:  # no event stream: a server that ignored `stream`, or not an LLM at all
            return self._unstreamed(stream, response, sink)
        pieces: list[str] = []
        finish: str | None = None
        usage: Any = None
        model = ""
        attempt = current_attempt()
        try:
            for chunk in stream:
                if attempt is not None and attempt.abandoned.is_set():  # the guard gave up: feed no one
                    raise LLMTransportError(f"{self._where()}: the reply was abandoned after {len(pieces)} pieces.")
                model = str(getattr(chunk, "model", "") or model)
                usage = getattr(chunk, "usage", None) or usage
                choices = getattr(chunk, "choices", None) or []
                if not choices:
                    continue
                piece = getattr(getattr(choices[0], "delta", None), "content", None)
                finish = getattr(choices[0], "finish_reason", None) or finish
                if isinstance(piece, str) and piece:
                    pieces.append(piece)
                    sink("".join(pieces))
        except ReplyTooLarge as exc:
            raise LLMReplyError(f"{self._where()} {exc}") from None
        except httpx2.TimeoutException:
            raise LLMTransportError(f"{self._where()} stopped sending the reply of model {self.model!r} after "
                                    f"{len(pieces)} pieces (read timeout); raise the LLM timeout ({TIMEOUT_HINT}) "
                                    "or check the server's load.") from None
        except httpx2.TransportError as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, ReplyTooLarge):
                raise LLMReplyError(f"{self._where()} {cause}") from None
            raise LLMTransportError(f"{self._where()} broke off the reply of model {self.model!r} after "
                                    f"{len(pieces)} pieces ({self._scrub(_short(str(exc)))}); try again.") from None
        except (ValueError, TypeError, AttributeError, openai.APIError) as exc:
            raise LLMReplyError(self._bad_body(exc)) from None
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if not pieces and finish is None:
            raise LLMReplyError(f"{self._where()} ended the reply stream of model {self.model!r} without any text or "
                                "finish reason. Check the server's logs.")
        if finish is None:  # the connection ended before the reply did: a part of a reply is no reply
            raise LLMTransportError(f"{self._where()} broke off the reply stream of model {self.model!r} after "
                                    f"{len(pieces)} pieces, without a finish reason; the partial reply is not used. "
                                    "Try again, or check the server's logs.")
        return "".join(pieces), finish, usage, model

    def _unstreamed(self, stream: Any, response: Any, sink: Any) -> tuple[str, str | None, Any, str]:
        """The body of a reply that came without server-sent events: a whole chat completion (passed to
        ``sink`` at once), or :class:`LLMReplyError` naming what came back instead (a web page, …)."""
        import httpx2
        from openai.types.chat import ChatCompletion

        try:
            body = response.read().decode("utf-8", "replace")
        except ReplyTooLarge as exc:
            raise LLMReplyError(f"{self._where()} {exc}") from None
        except (httpx2.HTTPError, OSError) as exc:  # the connection broke while the body was read
            raise LLMReplyError(self._bad_body(exc)) from None
        finally:
            stream.close()
        try:
            resp: Any = ChatCompletion.model_validate(json.loads(body))
        except (ValueError, TypeError):
            resp = body
        text = self._content(resp)  # raises for a page or a body without choices
        sink(text)
        return text, getattr(resp.choices[0], "finish_reason", None), getattr(resp, "usage", None), \
            str(getattr(resp, "model", "") or "")

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


def _reply_summary(resp: Any) -> str:
    """A short JSON rendering of a parsed reply without ``choices`` (its error text, if any)."""
    try:
        data = resp.model_dump(exclude_none=True) if hasattr(resp, "model_dump") else dict(resp)
    except (TypeError, ValueError, AttributeError):
        return ""
    data = {k: v for k, v in data.items() if k not in ("choices", "id", "created")}
    return _short(json.dumps(data, ensure_ascii=False, default=str), 160) if data else ""


def _downgrade_note(formats: Sequence[dict[str, Any] | None], i: int, status: int) -> str:
    """What the trace says when the server refused ``formats[i]`` and the request is sent again with the next."""
    fmt, nxt = formats[i], formats[i + 1]
    return (f"server rejected response_format {fmt and fmt['type']!r} (HTTP {status}); "
            f"retried with {nxt['type'] if nxt else 'no response_format'!r}")
