"""The HTTP transport of the ``openai`` backend: every reply read under a size cap, every connection shut when
the guard abandons the attempt using it (:mod:`core.backends.llm_attempt`)."""

from __future__ import annotations

import os
import socket
from typing import Any

from core.backends.llm_attempt import current_attempt

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


def _attempt_backend_class() -> type:
    import httpcore2  # the connection layer of httpx2

    class AttemptStream(httpcore2.NetworkStream):
        """A connection that the guard's attempt using it can shut: every read and write registers it with
        the attempt it runs in (:func:`~core.backends.llm_attempt.current_attempt`: a kept-alive connection
        serves several), so an abandoned attempt's blocked read returns at once and its thread ends."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def _watch(self) -> None:
            attempt = current_attempt()
            if attempt is not None:
                attempt.on_abandon(id(self), self._shut)

        def _shut(self) -> None:
            sock = self._inner.get_extra_info("socket")
            if sock is not None:  # a shutdown wakes a read blocked in another thread; a close would not
                sock.shutdown(socket.SHUT_RDWR)

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            self._watch()
            return bytes(self._inner.read(max_bytes, timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._watch()
            self._inner.write(buffer, timeout)

        def close(self) -> None:
            self._inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> Any:
            return AttemptStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

    class AttemptBackend(httpcore2.NetworkBackend):
        """``httpcore2``'s network backend whose connections are :class:`AttemptStream` s."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def connect_tcp(self, *args: Any, **kw: Any) -> Any:
            return AttemptStream(self._inner.connect_tcp(*args, **kw))

        def connect_unix_socket(self, *args: Any, **kw: Any) -> Any:
            return AttemptStream(self._inner.connect_unix_socket(*args, **kw))

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    return AttemptBackend


def _capped_transport_class() -> type:
    import httpx2 as httpx  # the HTTP package the pinned openai client (3.x) is built on

    attempt_backend = _attempt_backend_class()

    class CappedTransport(httpx.HTTPTransport):
        """``httpx.HTTPTransport`` whose response bodies are read at most ``cap`` bytes (a declared
        Content-Length over it is refused before any byte is read), and whose connections an abandoned
        guard attempt shuts."""

        def __init__(self, cap: int, **kw: Any) -> None:
            super().__init__(**kw)
            self.cap = cap
            pool = getattr(self, "_pool", None)  # every httpcore2 pool makes its connections with this backend
            if pool is not None and hasattr(pool, "_network_backend"):
                pool._network_backend = attempt_backend(pool._network_backend)

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
