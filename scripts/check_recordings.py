"""Replay the shipped LLM recordings and report any run that no longer replays (issue 18, item 2).

    .venv/bin/python scripts/check_recordings.py [BUNDLE ...] [--workspace demo]
    make check-recordings

Each recorded run is run again with the ``recorded`` LLM on the embedder and reranker the bundle names,
at the methods' defaults. A stage whose request is not in the bundle (a prompt, a retrieval result or a
default changed since the recording) is listed; re-record those runs with
``RECORD_ARGS=--redo scripts/record_llm.sh WORKSPACE local METHOD ID``. Exit status 1 when any run fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from core.backends.llm_cache import recording_paths
    from core.cli import resolve_workspace
    from core.recording import check_replay

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundles", nargs="*", help="bundle files (default: every shipped one)")
    ap.add_argument("--workspace", action="append", help="only the runs of this workspace (repeatable)")
    a = ap.parse_args(argv)
    bad = 0
    for path in [Path(b) for b in a.bundles] or recording_paths():
        for c in check_replay(path, resolve_workspace, workspaces=a.workspace):
            bad += not c.ok
            what = "ok" if c.ok else (f"not replayed: {', '.join(c.misses)}" if c.misses else
                                      f"other answer: {c.answer[:60]!r} (recorded {c.recorded_answer[:60]!r})")
            print(f"{path.name}  {c.workspace:<8} {c.method:<10} {what:<40} {c.question[:70]}", flush=True)
    print(f"{bad} run(s) do not replay" if bad else "every run replays")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
