"""Fixtures for backend tests: the scripted fake LLM (tests/fakes.py) as a strict factory, a tiny
random BERT cross-encoder saved to disk, and a local OpenAI-compatible HTTP server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ScriptedLLM


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "model: uses a real model shipped in a PyPI package (MiniLM, Qwen GGUF); runs in CI")


@pytest.fixture
def scripted_llm() -> Callable[[Sequence[str]], ScriptedLLM]:
    """A strict :class:`tests.fakes.ScriptedLLM` from a list of replies: a call past the list fails."""
    return lambda replies: ScriptedLLM(*replies, repeat_last=False)


TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"""
keanu reeves starred in the matrix with laurence fishburne who played agent smith film movie actor
hugo weaving photosynthesis plants light energy sun leaf green chlorophyll water carbon a an of and
is was did what which when where born died year city river mountain john wick directed by
wachowskis 1999 sequel released warner bros lothair ii mother ermengarde tours king son daughter
question answer passage evidence graph node edge chain retrieval rerank score , . ? ! ##s ##ed ##ing
""".split()]


@pytest.fixture(scope="session")
def tiny_vocab() -> list[str]:
    return list(TINY_VOCAB)


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised 1-layer BERT cross-encoder (num_labels=1) + WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    d = tmp_path_factory.mktemp("tiny_bert")
    vocab = d / "vocab.txt"
    vocab.write_text("\n".join(TINY_VOCAB) + "\n", encoding="utf-8")
    tok = BertTokenizer(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(TINY_VOCAB), hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=37, num_labels=1,
                        max_position_embeddings=128)
    model = BertForSequenceClassification(config).eval()
    tok.save_pretrained(d)
    model.save_pretrained(d)
    return d


# --- a local OpenAI-compatible server --------------------------------------------------------------

@dataclass
class FakeOpenAIServer:
    """Serves ``POST /v1/chat/completions`` from a script of actions; records every request.

    Actions (consumed in order; the last one repeats):
    ``{"content": str, "usage": bool}`` → 200 with that message;
    ``{"status": int, "body": str}`` → that HTTP status;
    ``{"sleep": float, "content": str}`` → sleep, then answer;
    """

    base_url: str = ""
    script: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_action(self) -> dict[str, Any]:
        with self.lock:
            return self.script[0] if len(self.script) == 1 else self.script.pop(0)


def _make_handler(server_state: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, status: int, payload: str) -> None:
            data = payload.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            server_state.requests.append({"path": self.path, "body": body,
                                          "authorization": self.headers.get("Authorization", "")})
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                return
            action = server_state.next_action()
            if "sleep" in action:
                time.sleep(action["sleep"])
            if "status" in action:
                self._send(action["status"], action.get("body", json.dumps({"error": {"message": "boom"}})))
                return
            content = action.get("content", "")
            payload: dict[str, Any] = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                "model": body.get("model", "fake-model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
            }
            if action.get("usage", True):
                payload["usage"] = {"prompt_tokens": 17, "completion_tokens": 4, "total_tokens": 21}
            self._send(200, json.dumps(payload))

    return Handler


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    state = FakeOpenAIServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
