"""Bounded input: time and peak RSS of loads that used to exhaust the machine.

Every case runs in a fresh child process (peak RSS from ``os.wait4``'s ``ru_maxrss``, and a watchdog
that kills the child past ``--mem-gib`` or ``--timeout``), against the code in ``--code`` (default
this checkout; pass a checkout of an older commit for the "before" column):

* ``bomb``       — ``egx index bomb.csv.gz`` where 1 MB of gzip expands to 1 GiB of newlines;
* ``rows``       — ``egx index rows.csv --embedder hashing`` on 1e6 triple rows (~19.6 MB CSV):
                   load, graph, workspace save and the hashing index of 1.3M texts;
* ``rows_load``  — the same file through ``load_inputs`` only (parse, merge, KnowledgeGraph);
* ``rows_ws``    — ``create_workspace`` without an embedder (load + graph.json.gz + manifest);
* ``long_name``  — ``egx index`` on a CSV with a 50 MB entity name;
* ``app_bomb``   — the Data page in ``streamlit.testing`` (the server's code path): upload the bomb
                   and press "Build workspace"; reported is how much the page run added to the
                   process's peak RSS.

Usage::

    python benchmarks/load_limits.py [--code DIR] [--only bomb,rows] [--out results.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_inputs import PY, Ctx, Run, finish, run_egx

ROOT = Path(__file__).resolve().parents[1]


def make_bomb(p: Path) -> Path:
    if not p.exists():
        block = b"\n" * (1 << 20)
        with gzip.open(p, "wb", compresslevel=9) as fh:
            for _ in range(1024):
                fh.write(block)
    return p


def make_rows(p: Path, n: int = 1_000_000) -> Path:
    if not p.exists():
        r = random.Random(0)
        with open(p, "w") as fh:
            fh.write("head,relation,tail\n")
            for _ in range(n):
                fh.write(f"e{r.randrange(1_000_000)},r{r.randrange(100)},e{r.randrange(1_000_000)}\n")
    return p


def make_long(p: Path) -> Path:
    if not p.exists():
        with open(p, "w") as fh:
            fh.write("head,relation,tail\nAlice,knows,Bob\n")
            fh.write("w " * (25 << 20) + "x,is,long\n")
    return p


def py(ctx: Ctx, code: str, *args: str) -> Run:
    """Run ``code`` in a child python with the code under test first on sys.path."""
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ctx.code), EGX_HOME=str(ctx.sb / "home"),
               EGX_CACHE_DIR=str(ctx.sb / "cache"), HF_HUB_OFFLINE="1", EGX_EMBEDDER="hashing")
    out_f, err_f = tempfile.TemporaryFile(mode="w+"), tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([PY, "-c", code, *args], cwd=ctx.sb, env=env, stdout=out_f, stderr=err_f,
                         start_new_session=True)
    p._egx = (out_f, err_f, time.perf_counter(), [PY, "-c", "...", *args])  # type: ignore[attr-defined]
    return finish(ctx, p)


LOAD = """
import sys, time
from core.graph.formats.load import load_inputs
t = time.perf_counter()
g = load_inputs([sys.argv[1]]).graph
print(f"RESULT {time.perf_counter() - t:.2f} s, {g.n_nodes} nodes, {g.n_edges} edges")
"""

WS = """
import sys, time
from core.index.create import create_workspace
t = time.perf_counter()
ws = create_workspace([sys.argv[1]], sys.argv[2])
print(f"RESULT {time.perf_counter() - t:.2f} s, {ws.graph.n_edges} edges")
"""

APP = """
import os, resource, sys, time
from pathlib import Path
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest, app_test


class _Nav(PagesManager):  # as a live server runs pages once app.py called st.navigation (tests/app/conftest.py)
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        PagesManager.uses_pages_directory = False


app_test.PagesManager = _Nav
sys.path.insert(0, sys.argv[2])
from components import state as S
app = str(Path(sys.argv[2]) / "app.py")
os.environ["EGX_JOB_INLINE_WAIT"] = "600"  # builds are background jobs: wait for the outcome
at = AppTest.from_file(app, default_timeout=600)
at.run()
at.switch_page("pages/data.py").run()
data = Path(sys.argv[1]).read_bytes()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
at.file_uploader(key=S.DATA_UPLOADS).set_value(("bomb.csv.gz", data, "application/gzip"))
name_key = S.widget_key(S.DATA_NEW_NAME) if hasattr(S, "widget_key") else S.DATA_NEW_NAME  # any checkout
at.text_input(key=name_key).input("bomb")
t = time.perf_counter()
at.button(key=S.DATA_BUILD).click().run()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
errs = [e.value[:120] for e in at.error]
print(f"RESULT page run {time.perf_counter() - t:.2f} s, peak RSS {before:.0f} -> {after:.0f} MB "
      f"(+{after - before:.0f} MB); error shown: {errs}")
"""


def summarize(r: Run) -> dict:
    result = next((ln[7:] for ln in r.out.splitlines() if ln.startswith("RESULT ")), "")
    if not result:  # egx index prints the index build times
        result = "; ".join(ln.strip() for ln in r.out.splitlines() if ln.strip().startswith(("Workspace", "index/")))
    err = next((ln.strip() for ln in reversed(r.err.replace("\r", "\n").splitlines()) if ln.strip()), "")
    outcome = (f"killed ({r.killed})" if r.killed else "ok" if r.rc == 0 and "Traceback" not in r.err
               else "clean error" if r.rc in (1, 2) and "Traceback" not in r.err else "crash")
    return {"seconds": round(r.seconds, 1), "peak_rss_mb": round(r.peak_rss_mb), "exit": r.rc, "outcome": outcome,
            "result": result, "message": err[:240]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", default=str(ROOT))
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--mem-gib", type=float, default=6.0)
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "egx-load-limits"),
                    help="where the generated inputs are kept between runs")
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    bomb, rows, long = make_bomb(data / "bomb.csv.gz"), make_rows(data / "rows.csv"), make_long(data / "long.csv")
    only = set(args.only.split(",")) if args.only else None
    code = Path(args.code).resolve()
    cases = {
        "bomb": lambda c: run_egx(c, "index", str(bomb), "--workspace", "w", "--embedder", "hashing"),
        "rows": lambda c: run_egx(c, "index", str(rows), "--workspace", "w", "--embedder", "hashing"),
        "rows_load": lambda c: py(c, LOAD, str(rows)),
        "rows_ws": lambda c: py(c, WS, str(rows), "w"),
        "long_name": lambda c: run_egx(c, "index", str(long), "--workspace", "w", "--embedder", "hashing"),
        "app_bomb": lambda c: py(c, APP, str(bomb), str(code)),
    }
    inputs = {"bomb": bomb, "rows": rows, "rows_load": rows, "rows_ws": rows, "long_name": long, "app_bomb": bomb}
    out: dict = {"code": str(code), "inputs": {k: {"file": v.name, "bytes": v.stat().st_size} for k, v in inputs.items()},
                 "cases": {}}
    for name, fn in cases.items():
        if only and name not in only:
            continue
        sb = Path(tempfile.mkdtemp(prefix=f"egx-limits-{name}-"))
        (sb / "home").mkdir()
        ctx = Ctx(code, sb, data, args.timeout, args.mem_gib)
        r = fn(ctx)
        out["cases"][name] = s = summarize(r)
        print(f"{name:<10} {s['outcome']:<14} {s['seconds']:>7.1f} s  peak {s['peak_rss_mb']:>6} MB  "
              f"{s['result'] or s['message']}", flush=True)
        shutil.rmtree(sb, ignore_errors=True)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
