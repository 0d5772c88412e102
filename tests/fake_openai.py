"""A local, scripted OpenAI-compatible server for LLM fault tests (and ``benchmarks/llm_faults.py``).

``POST /v1/chat/completions`` answers from a script of actions, consumed in order (the last one
repeats); every request is recorded. Actions:

``{"content": str | callable(body) -> str, "usage": bool}``
    HTTP 200 with a proper chat completion whose message is ``content``.
``{"status": int, "body": str}``
    That HTTP status (default body: an OpenAI-style error object).
``{"hang": True}``
    Never answers (until the server shuts down): a hung endpoint.
``{"html": True}``
    HTTP 200, ``Content-Type: text/html``, a web page (a proxy or a wrong base URL).
``{"json": obj}``
    HTTP 200 with ``obj`` as the JSON body (e.g. one that lacks ``choices``).
``{"truncated": True, "content": str}``
    HTTP 200, ``Content-Type: application/json``, the completion cut off in the middle.
``{"trickle": seconds, "content": str}``
    Slow tokens: the completion sent a few bytes at a time, ``seconds`` apart (each read by the
    client gets data well within its per-read timeout, but the whole reply takes long).
``{"sleep": seconds, ...}``
    Wait, then do what the rest of the action says.
``{"finish": "length", "content": str}``
    The completion with that ``finish_reason`` (a reply cut at ``max_tokens``).
``{"no_length": True, "content": str}``
    The body without a ``Content-Length`` header, ended by closing the connection (a streamed body).
``{"break_after": n, "content": str}``
    Streamed: the first ``n`` pieces, then the connection closes — no finish reason, no ``data: [DONE]``
    (a server that broke off mid-reply).

A request with ``"stream": true`` gets any content action as server-sent events: one ``chat.completion.chunk``
per word (``"stream_delay": seconds`` apart), the finish reason, the usage when ``stream_options.include_usage``
asks for it, then ``data: [DONE]``. ``{"reject_stream_options": True, ...}`` answers HTTP 400 to a request
that carries ``stream_options`` (an older server).

:data:`FAULTS` names one action per fault for parametrized tests.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HTML_PAGE = ("<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\n"
             "<body><h1>Welcome to nginx!</h1><p>If you see this page, the web server is working.</p>"
             "</body></html>\n")

#: One scripted action per fault the LLM backends must survive without hanging or crashing.
FAULTS: dict[str, dict[str, Any]] = {
    "hang": {"hang": True},
    "http500": {"status": 500},
    "html": {"html": True},
    "no_choices": {"json": {"object": "error", "detail": "upstream model is loading"}},
    "truncated": {"truncated": True, "content": '{"answer": "Hugo Weaving"}'},
    "slow_tokens": {"trickle": 0.05, "content": "Hugo Weaving " * 40},
}


@dataclass
class FakeOpenAIServer:
    """State of one running fake server: its URL, its script and the requests it saw."""

    base_url: str = ""
    script: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def next_action(self) -> dict[str, Any]:
        with self.lock:
            if not self.script:
                return {"content": "ok"}
            return self.script[0] if len(self.script) == 1 else self.script.pop(0)

    def reply(self, *actions: dict[str, Any]) -> None:
        """Replace the script (the last action repeats)."""
        with self.lock:
            self.script = list(actions)

    @property
    def chat_requests(self) -> int:
        return sum(1 for r in self.requests if r["path"].rstrip("/").endswith("/chat/completions"))


def completion(content: str, model: str = "fake-model", usage: bool = True, finish: str = "stop") -> dict[str, Any]:
    """A well-formed chat.completion body."""
    out: dict[str, Any] = {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}],
    }
    if usage:
        out["usage"] = {"prompt_tokens": 17, "completion_tokens": 4, "total_tokens": 21}
    return out


def _make_handler(state: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, status: int, data: bytes, content_type: str = "application/json",
                  trickle: float = 0.0, length: int | None = None, no_length: bool = False) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                if no_length:
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(data) if length is None else length))
                self.end_headers()
                if trickle:
                    for i in range(0, len(data), 8):
                        if state.stop.wait(trickle):
                            return
                        self.wfile.write(data[i:i + 8])
                        self.wfile.flush()
                else:
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def _stream(self, content: str, body: dict[str, Any], action: dict[str, Any]) -> None:
            model = body.get("model", "fake-model")

            def event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
                chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                         "choices": choices, **extra}
                return f"data: {json.dumps(chunk)}\n\n".encode()

            pieces = re.findall(r"\s*\S+|\s+", content)
            broken = action.get("break_after")
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.close_connection = True  # no Content-Length: the body ends when the connection closes
                self.end_headers()
                self.wfile.write(event([{"index": 0, "delta": {"role": "assistant", "content": ""},
                                         "finish_reason": None}]))
                for i, piece in enumerate(pieces):
                    if broken is not None and i >= int(broken):
                        self.wfile.flush()
                        return  # the connection closes here (close_connection): the reply broke off
                    if state.stop.wait(float(action.get("stream_delay", 0.0))):
                        return
                    self.wfile.write(event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}]))
                    self.wfile.flush()
                self.wfile.write(event([{"index": 0, "delta": {}, "finish_reason": action.get("finish", "stop")}]))
                if (body.get("stream_options") or {}).get("include_usage") and action.get("usage", True):
                    self.wfile.write(event([], usage={"prompt_tokens": 17, "completion_tokens": len(pieces),
                                                      "total_tokens": 17 + len(pieces)}))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                body = {}
            state.requests.append({"path": self.path, "body": body, "t": time.monotonic(),
                                   "authorization": self.headers.get("Authorization", "")})
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
                return
            action = state.next_action()
            if "sleep" in action and state.stop.wait(action["sleep"]):
                return
            if action.get("hang"):
                state.stop.wait()
                self.close_connection = True
                return
            if "status" in action:
                default = json.dumps({"error": {"message": "boom", "type": "server_error"}})
                self._send(action["status"], action.get("body", default).encode())
                return
            if action.get("html"):
                self._send(200, HTML_PAGE.encode(), "text/html; charset=utf-8")
                return
            if "json" in action:
                self._send(200, json.dumps(action["json"]).encode())
                return
            content = action.get("content", "")
            if callable(content):
                content = content(body)
            if body.get("stream") and not action.get("truncated"):
                if action.get("reject_stream_options") and "stream_options" in body:
                    self._send(400, json.dumps({"error": {"message": "Unrecognized request argument supplied: "
                                                                    "stream_options", "type": "invalid_request_error"}
                                                }).encode())
                    return
                self._stream(str(content), body, action)
                return
            data = json.dumps(completion(str(content), body.get("model", "fake-model"),
                                         action.get("usage", True), action.get("finish", "stop"))).encode()
            if action.get("truncated"):
                cut = data[: len(data) // 2]
                self.close_connection = True
                self._send(200, cut)
                return
            self._send(200, data, trickle=float(action.get("trickle", 0.0)), no_length=bool(action.get("no_length")))

    return Handler


@contextmanager
def fake_openai_server(*script: dict[str, Any]) -> Iterator[FakeOpenAIServer]:
    """Run a fake server on a free loopback port for the duration of the ``with`` block."""
    state = FakeOpenAIServer(script=list(script))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def openai_env(server: FakeOpenAIServer, model: str = "fake-model") -> dict[str, str]:
    """Environment variables that point the ``openai`` backend at ``server``."""
    return {"EGX_OPENAI_BASE_URL": server.base_url, "EGX_OPENAI_MODEL": model, "EGX_OPENAI_API_KEY": "sk-fake"}


Responder = Callable[[dict[str, Any]], str]


def extraction_reply(body: dict[str, Any]) -> str:
    """A good OpenIE answer to the triple-extraction prompts of ``core.backends.prompts``: one triple
    per passage, ``(<passage title>, "is described in", "passage <i>")``."""
    import re

    user = body["messages"][-1]["content"]
    titles = re.findall(r"Passage(?: \d+)?:\n([^\n]+)", user)
    triples = [[t.strip(), "is described in", f"passage {i}"] for i, t in enumerate(titles, start=1)]
    m = re.search(r"each of the (\d+) numbered passages", user)
    if m:
        return json.dumps({"passages": [{"index": i, "triples": [t]} for i, t in enumerate(triples, start=1)]})
    return json.dumps({"triples": triples[:1]})


def main(argv: list[str] | None = None) -> None:
    """Serve the script of actions given as JSON on the command line until stdin closes (a test's child
    process: its sockets and threads are not the test process's), printing the base URL first."""
    import sys

    actions = json.loads((argv if argv is not None else sys.argv[1:])[0])
    with fake_openai_server(*actions) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
