"""The files of a benchmark folder, line by line: ``results.jsonl`` read back (a torn line dropped) and
appended durably, ``run.json`` (the settings a resumed run must match), and a folder's run replaced by a fresh
one (:func:`swap_in_fresh`)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.errors import ConfigError

RUN = "run.json"
RESULTS = "results.jsonl"  #: the records a run appends, one (question, method) pair a line
_UNREADABLE = "The run “{name}” has unreadable settings, so it cannot be resumed; pick another run name."


def read_records(path: Path, required: tuple[str, ...] = ("question_id", "method")) -> tuple[list[dict[str, Any]], int]:
    """Valid JSONL records (objects holding every ``required`` key) and the number of torn / invalid lines dropped."""
    if not path.exists():
        return [], 0
    good, bad = [], 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad += 1
            continue
        if isinstance(rec, dict) and all(k in rec for k in required):
            good.append(rec)
        else:
            bad += 1
    return good, bad


def append_record(fh: Any, rec: dict[str, Any]) -> None:
    """One JSON line, flushed and fsynced: an interruption loses at most the line in flight."""
    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def read_run(path: Path) -> dict[str, Any]:
    """``run.json`` of a benchmark folder (a clean error when it is damaged)."""
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} is damaged ({exc}); delete that benchmark folder or use another one.",
                          app=_UNREADABLE.format(name=path.parent.name)) from None
    if not isinstance(run, dict) or not isinstance(run.get("settings"), dict) or \
            not isinstance(run.get("methods", []), list):
        raise ConfigError(f"{path} is not a run.json written by `egx bench`; delete that benchmark folder or use "
                          "another one.", app=_UNREADABLE.format(name=path.parent.name))
    return run


def is_bench_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a benchmark run of egx's (a ``run.json`` :func:`read_run` accepts): a folder from
    before egx marked its output folders (:func:`core.outputs.output_folder`) is still taken as its own."""
    path = Path(folder) / RUN
    if not path.is_file():
        return False
    try:
        read_run(path)
    except ConfigError:
        return False
    return True


def dedupe(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first record of each question × method."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        seen.setdefault((str(r["question_id"]), str(r["method"])), r)
    return list(seen.values())


def swap_in_fresh(out: Path, files: Mapping[str, str]) -> Any:
    """Replace the run folder ``out`` by a fresh one holding only ``files`` (name → text, e.g. the new
    ``run.json``), atomically: the fresh folder is written beside it and swapped in by one rename exchange, so the
    old run stays whole in place until the new one is complete; the old folder is removed afterwards.

    The caller holds the lock of ``out/results.jsonl``; its lock file travels with the old folder, so the fresh
    folder's lock is taken before the swap and returned, held: the caller releases it when its run ends.
    Where the file system cannot exchange two folders, the old one is renamed aside for the instant before the
    fresh one takes its name.
    """
    from core.fsio import atomic_write_text, exchange, fsync_dir, path_lock, temp_sibling
    from core.outputs import output_folder

    out = Path(out)
    tmp = temp_sibling(out, "restart")
    tmp.mkdir()
    lock = path_lock(tmp / "results.jsonl")
    lock.acquire()
    try:
        output_folder(tmp, what="benchmark folder")  # the fresh folder carries egx's marker like the one it replaces
        for name, text in files.items():
            atomic_write_text(tmp / name, text)
        swapped = exchange(tmp, out)
    except BaseException:  # nothing was swapped: the old run is as it was
        lock.release()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = tmp
    if not swapped:
        old = temp_sibling(out, "replaced")
        out.rename(old)
        try:
            tmp.rename(out)
        except BaseException:
            old.rename(out)
            lock.release()
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    fsync_dir(out.parent)
    shutil.rmtree(old, ignore_errors=True)  # the old run, under its hidden name
    return lock
