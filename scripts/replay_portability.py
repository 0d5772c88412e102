"""Replay a recording as another CPU would: perturbed models and workspace vectors (tests/perturb.py).

    .venv/bin/python scripts/replay_portability.py [--bundle B] [--workspace demo] [--method m ...]
                                                   [--seeds 1,2,3] [--eps 0.01] [--retape]

Opens each sample workspace the bundle's runs name with the bundle's embedder (as the tests do, under
``.cache/test-samples``), copies it once per seed with its stored vectors perturbed, and replays the
runs strictly with an embedder and a reranker whose scores are perturbed the same way. Every run must
replay with 0 misses and its recorded answer on every seed: its prompts and decisions may not depend on
the last digits of a score (core/pinning.py). Prints one line per run and seed; exit status 1 when any
run fails. ``tests/backends/test_replay_portable.py`` asserts the same for the shipped bundles.

``--retape`` first gives the runs this machine's retrieval state (``core.batch.recording.retape``, unperturbed,
on the same sample folders), writing it into ``--bundle``: work on a copy of a shipped bundle.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def sample_opener(root: Path):  # type: ignore[no-untyped-def]
    """``open(name, embedder)``: the sample built with ``embedder`` under the tests' samples folder."""
    from core.index.samples import ensure_sample_workspace

    def get(name: str, embedder):  # type: ignore[no-untyped-def]
        mid = embedder.model_id
        sub = root if mid == "sentence-transformers/all-MiniLM-L6-v2" else \
            root / "by-model" / re.sub(r"[^A-Za-z0-9.-]+", "_", mid)
        return ensure_sample_workspace(name, embedder, root=sub)
    return get


def main(argv: list[str] | None = None) -> int:
    from core.backends.llm_bundles import RECORDINGS_DIR
    from core.batch.recording import check_replay
    from tests.perturb import EPS, noisy_backends, perturbed_workspace

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", default=str(RECORDINGS_DIR / "demo-local.json"))
    ap.add_argument("--workspace", action="append", help="only the runs of this workspace (repeatable)")
    ap.add_argument("--method", action="append", help="only the runs of this method (repeatable)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--eps", type=float, default=EPS)
    ap.add_argument("--retape", action="store_true", help="first keep this machine's state in --bundle (see above)")
    a = ap.parse_args(argv)
    opener = sample_opener(ROOT / ".cache" / "test-samples")
    bad = 0
    if a.retape:
        from core.batch.recording import retape

        for c in retape(a.bundle, opener, workspaces=a.workspace, methods=a.method):
            print(f"retape  {c.workspace:<8} {c.method:<11} {c.question_id:<12} "
                  f"{'state kept' if c.ok else 'NOT RETAPED (does not replay here): ' + c.problem()[:200]}", flush=True)
    with tempfile.TemporaryDirectory(prefix="egx-perturb-") as tmp:
        for seed in [int(s) for s in a.seeds.split(",") if s.strip()]:
            copies: dict[str, object] = {}

            def open_copy(name: str, embedder, seed: int = seed,  # type: ignore[no-untyped-def]
                          copies: dict[str, object] = copies):
                if name not in copies:
                    real = opener(name, embedder.inner if hasattr(embedder, "inner") else embedder)
                    copies[name] = perturbed_workspace(real, Path(tmp) / f"{name}-{seed}", seed, a.eps)
                return copies[name]

            checks = check_replay(a.bundle, open_copy, workspaces=a.workspace, methods=a.method,
                                  wrap=lambda b, seed=seed: noisy_backends(b, seed, a.eps))
            for c in checks:
                bad += not c.ok
                print(f"seed {seed}  {c.workspace:<8} {c.method:<11} {c.question_id:<12} "
                      f"{'ok' if c.ok else c.problem()[:300]}", flush=True)
    print(f"{bad} replay(s) failed" if bad else "every run replays on every seed")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
