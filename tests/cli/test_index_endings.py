"""`egx index` and `egx index --add` stopped by Ctrl-C, `kill -TERM` or `kill -9` leave nothing running.

Before: a build on the MuSiQue corpus (the default spaCy extractor, its pool forced with
``EGX_SPACY_PROCESSES=2``) stopped by ``kill -TERM`` left its two pool workers and multiprocessing's resource
tracker running, re-parented to init, 680 MB between them, for good. Each test starts the command under an
environment tag, waits until its pool has loaded spaCy, ends it, and counts the tagged processes (and their
memory) until none is left.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from core.background.procs import rss_mb
from tests.conftest import MUSIQUE
from tests.procs_support import ENDINGS, ROOT, START_S, Owner, assert_nothing_left, egx, kind, start, wait_until

pytestmark = pytest.mark.slow

CORPUS = MUSIQUE / "musique_train_corpus.json"
#: Resident memory of the two pool workers once they have loaded spaCy's pipeline (an interpreter alone is
#: ~15 MB; measured ~330 MB each with the pipeline): the pool is then what the report was about.
LOADED_POOL_MB = 200.0


def _env(tmp: Path, processes: int = 2) -> dict[str, str]:
    # a cache of its own: extractions cached by an earlier run would leave the pool nothing to do
    return {"EGX_SPACY_PROCESSES": str(processes), "EGX_HOME": str(tmp / "home"), "EGX_CACHE_DIR": str(tmp / "cache")}


def _pool_loaded(owner: Owner) -> None:
    owner.wait_for({"pool": 2, "tracker": 1})
    wait_until(lambda: rss_mb(p for p in owner.look() if kind(p) == "pool") > LOADED_POOL_MB, START_S,
               "spaCy pipeline loaded in the pool", proc=owner.proc, log=owner.log)


def _interrupted(owner: Owner, how: str) -> None:
    """Ctrl-C and SIGTERM run the cleanup of an interrupt: status 130 and the CLI's own words."""
    if how != "sigkill":
        assert owner.proc.returncode == 130, owner.log.read_text()[-2000:]
        assert "egx: interrupted; nothing was left half-written." in owner.log.read_text()


@pytest.mark.parametrize("how", ENDINGS)
def test_a_stopped_build_leaves_no_spacy_pool_behind(tmp_path: Path, how: str) -> None:
    owner = start(egx("index", str(CORPUS), "--workspace", str(tmp_path / "ws"), "--embedder", "hashing"),
                  tmp_path, _env(tmp_path))
    try:
        _pool_loaded(owner)
        assert owner.seen["pool"] == 2 and owner.peak_mb > LOADED_POOL_MB
        owner.end(how)
        assert_nothing_left(owner, how)
    finally:
        owner.stop()
    _interrupted(owner, how)
    assert not (tmp_path / "ws").exists()  # and nothing half-built took its name


@pytest.fixture(scope="module")
def base_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A corpus workspace of 40 MuSiQue passages, and 700 more passages to add to it (enough for the pool:
    ``--add`` hands the extractor 512 passages at a time, and 2 workers start at 256)."""
    tmp = tmp_path_factory.mktemp("add")
    passages = json.loads(CORPUS.read_text(encoding="utf-8"))
    (tmp / "base.json").write_text(json.dumps(passages[:40]), encoding="utf-8")
    (tmp / "more.json").write_text(json.dumps(passages[40:740]), encoding="utf-8")
    out = subprocess.run(egx("index", str(tmp / "base.json"), "--workspace", str(tmp / "ws"), "--embedder", "hashing"),
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **_env(tmp, processes=1)},
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return tmp / "ws", tmp / "more.json"


@pytest.mark.parametrize("how", ENDINGS)
def test_a_stopped_add_leaves_no_spacy_pool_behind(base_workspace: tuple[Path, Path], tmp_path: Path,
                                                    how: str) -> None:
    ws, more = base_workspace
    manifest = (ws / "manifest.json").read_text(encoding="utf-8")
    owner = start(egx("index", str(more), "--add", "--workspace", str(ws)), tmp_path, _env(tmp_path))
    try:
        _pool_loaded(owner)
        owner.end(how)
        assert_nothing_left(owner, how)
    finally:
        owner.stop()
    _interrupted(owner, how)
    assert (ws / "manifest.json").read_text(encoding="utf-8") == manifest  # the workspace as it was
