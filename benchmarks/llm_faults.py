"""What an LLM fault costs one question: `egx ask` against a scripted local server.

For each fault (see ``tests/fake_openai.py``: hang, http500, html, no_choices, truncated,
slow_tokens, ok) a fake OpenAI-compatible server is started on a free loopback port, and one
question runs through ``core.cli.main(["ask", ...])`` with ``--llm openai`` and the default LLM
settings (or the extra flags given after ``--``). Reported per fault: wall seconds, HTTP requests the
server saw, the exit code, whether the run crashed (an exception other than the clean error exit),
and the fallbacks the answer lists.

The sample workspace is built first (not timed) under ``--home`` with the hashing embedder, so
the time is the LLM path only.

Usage::

    python benchmarks/llm_faults.py --faults hang http500 html [--method bubblerag] [--out f.json] [-- --llm-timeout 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTION = "When did Lothair II's mother die?"


def run_fault(fault: str, method: str, workspace: str, extra: list[str]) -> dict:
    from core.cli import main
    from tests.fake_openai import FAULTS, fake_openai_server, openai_env

    action = {"content": "Ermengarde of Tours died on 20 March 851."} if fault == "ok" else FAULTS[fault]
    with fake_openai_server(action) as server:
        os.environ.update(openai_env(server))
        out, err = io.StringIO(), io.StringIO()
        crashed = ""
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(["ask", QUESTION, "--workspace", workspace, "--method", method, "--embedder", "hashing",
                           "--llm", "openai", "--json", *extra])
        except Exception as exc:  # what the user would see as a traceback
            rc, crashed = 1, f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - t0
        requests = server.chat_requests
    res: dict = {"fault": fault, "method": method, "seconds": round(seconds, 2), "requests": requests,
                 "exit_code": rc, "crashed": crashed}
    try:
        s = json.loads(out.getvalue())
        res["answer"] = s.get("answer", "")
        res["fallbacks"] = [f[:160] for f in s.get("fallbacks", [])]
    except json.JSONDecodeError:
        res["stderr"] = err.getvalue().strip().splitlines()[-3:]
    return res


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--faults", nargs="+", default=["hang", "http500", "html", "no_choices", "truncated",
                                                   "slow_tokens", "ok"])
    p.add_argument("--method", default="bubblerag")
    p.add_argument("--workspace", default="demo")
    p.add_argument("--home", help="EGX_HOME to build the sample in (default: a temporary folder)")
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args(argv)
    home = args.home or tempfile.mkdtemp(prefix="egx-llm-faults-")
    os.environ["EGX_HOME"] = home
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    ensure_sample_workspace(args.workspace, get_embedder("hashing"))
    rows = []
    for fault in args.faults:
        row = run_fault(fault, args.method, args.workspace, extra)
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps({"extra_flags": extra, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
