"""The files of a benchmark folder, line by line: ``results.jsonl`` read back (a torn line dropped) and
appended durably, and ``run.json`` (the settings a resumed run must match)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from core.errors import ConfigError

RUN = "run.json"
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


def dedupe(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first record of each question × method."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        seen.setdefault((str(r["question_id"]), str(r["method"])), r)
    return list(seen.values())
