"""Replay the shipped LLM recordings and report any run that no longer replays.

    .venv/bin/python scripts/check_recordings.py [BUNDLE ...] [--workspace demo] [--method bubblerag]
                                                 [--lenient] [--retape] [--stamp] [--prune]
    make check-recordings

Each recorded run is run again with the ``recorded`` LLM on the embedder and reranker the bundle names,
at the methods' defaults, strictly: a run stops at the first LLM request or retrieval state (core/pinning.py)
the bundle does not hold (a prompt, a retrieval stage or a default changed since the recording), and that
miss is listed. ``--lenient`` lets each run go on with its fallbacks and lists every miss. Re-record
failing runs with ``RECORD_ARGS=--redo scripts/record_llm.sh WORKSPACE local METHOD ID``.

``--retape`` gives runs recorded before runs kept their retrieval state the state this machine computes,
where that state rebuilds every recorded prompt and the recorded answer (core.batch.recording.retape).

``--prune`` drops, from a bundle whose every run replays, the entries no run was answered from: the replies
of runs since re-recorded (`egx record --redo` adds a run's new replies and leaves its old ones).

``--stamp [BUNDLE ...]`` (default: every shipped bundle) trusts the bundles as they are now, then replays them:
a shipped bundle's content hash goes into ``sample_data/llm_recordings/MANIFEST.txt`` (commit it with the
bundle), any other bundle is signed with this machine's key (core/backends/llm_integrity.py). ``--stamp
--no-replay`` only stamps: the one command after bundles re-recorded elsewhere were merged.

Exit status 1 when any run fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from core.backends.llm_bundles import prune_bundle, recording_paths
    from core.batch.recording import check_replay, retape
    from core.cli import resolve_workspace

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundles", nargs="*", help="bundle files (default: every shipped one)")
    ap.add_argument("--workspace", action="append", help="only the runs of this workspace (repeatable)")
    ap.add_argument("--method", action="append", help="only the runs of this method (repeatable)")
    ap.add_argument("--lenient", action="store_true", help="go on past a miss (its fallback) and list every miss")
    ap.add_argument("--stamp", action="store_true",
                    help="trust the named bundles (default: every shipped one) as they are now: a new content hash, "
                         "their line in the shipped MANIFEST.txt or this machine's signature; then check them")
    ap.add_argument("--no-replay", action="store_true", help="with --stamp: stamp only, replay nothing")
    ap.add_argument("--retape", action="store_true",
                    help="keep this machine's retrieval state for every run that replays in full (see above)")
    ap.add_argument("--prune", action="store_true",
                    help="when every run of a bundle replays, drop the entries no run was answered from "
                         "(replies of runs since re-recorded)")
    a = ap.parse_args(argv)
    if a.prune and (a.workspace or a.method or a.lenient or a.retape):
        ap.error("--prune replays every run strictly: drop --workspace, --method, --lenient and --retape")
    if a.no_replay and not a.stamp:
        ap.error("--no-replay goes with --stamp")
    if a.stamp:
        from core.backends.llm_bundles import shipped, stamp_bundle

        for b in a.bundles or [str(p) for p in recording_paths()]:
            stamp_bundle(b)
            print(f"{b}: " + ("content hash listed in MANIFEST.txt" if shipped(b) else "signed for this machine"))
        if a.no_replay:
            return 0
    bad = 0
    for path in [Path(b) for b in a.bundles] or recording_paths():
        if a.retape:
            checks = retape(path, resolve_workspace, workspaces=a.workspace, methods=a.method)
        else:
            used: set[str] = set()
            checks = check_replay(path, resolve_workspace, workspaces=a.workspace, methods=a.method,
                                  strict=not a.lenient, used=used)
            if a.prune and all(c.ok for c in checks):
                print(f"{path.name}: {prune_bundle(path, used)} entries no run uses dropped, {len(used)} kept")
            elif a.prune:
                print(f"{path.name}: not pruned (a run does not replay, so its entries cannot be told apart)")
        for c in checks:
            bad += not c.ok
            what = "ok" + (" (state kept)" if a.retape else "") if c.ok else c.problem()
            print(f"{path.name}  {c.workspace:<8} {c.method:<10} {c.question_id:<12} {what[:200]:<40} "
                  f"{c.question[:70]}", flush=True)
    print(f"{bad} run(s) do not replay" if bad else "every run replays")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
