"""A real OpenAI-compatible server for the tests: llama-cpp-python's own (``python -m llama_cpp.server``,
its ``server`` extra) on a free loopback port, serving the bundled Qwen2.5-Coder-0.5B GGUF.
This is how most users run the app: Ollama, vLLM, LM Studio or this server behind
``EGX_OPENAI_BASE_URL``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.background.procs import tied

MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"
START_TIMEOUT_S = 90.0  #: loading the 0.5B model takes ~3 s alone; a loaded 2-core machine takes longer


@dataclass(frozen=True)
class LlamaServer:
    base_url: str  #: e.g. http://127.0.0.1:41234/v1
    model: str
    log: Path

    def env(self) -> dict[str, str]:
        """What points the ``openai`` backend (CLI or app) at this server."""
        return {"EGX_OPENAI_BASE_URL": self.base_url, "EGX_OPENAI_MODEL": self.model, "OPENAI_API_KEY": "",
                "EGX_OPENAI_API_KEY": ""}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(tmp: Path, *, n_ctx: int = 4096, threads: int | None = None) -> Iterator[LlamaServer]:
    """Start the server, wait (bounded) until it lists its model, yield it, stop it.

    Skips the test when llama-cpp-python's server extra or the model packages are missing; fails with
    the server's log when it does not come up within :data:`START_TIMEOUT_S`.
    """
    try:
        import fastapi  # noqa: F401
        import llama_cpp.server  # noqa: F401
        import sse_starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"llama-cpp-python's server extra is not installed ({exc}); run scripts/bootstrap.sh")
    from core.backends.gguf import ensure_model

    model = ensure_model("0.5b")
    if threads is None:  # this process's share of the cores (EGX_THREADS under pytest-xdist)
        from core.backends.device import cpu_threads

        threads = cpu_threads("EGX_LLM_THREADS")
    port = _free_port()
    log = tmp / "llama-server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
           "--verbose", "False"]
    with open(log, "wb") as fh:
        # tied: ends with the test run even when that is killed outright (its 1.7 GB would stay otherwise)
        proc = subprocess.Popen(tied(cmd), stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with code {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(base + "/models", timeout=2) as r:
                    if MODEL_ALIAS in r.read().decode("utf-8", "replace"):
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not come up within {START_TIMEOUT_S:g} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.25)
        yield LlamaServer(base, MODEL_ALIAS, log)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # its own session: the server and nothing else
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
