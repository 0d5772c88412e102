"""Click to result on Ask and Compare while a benchmark job runs on the server, against the same click idle.

For each page and each condition a fresh ``streamlit run`` (the default models, as ``page_latency.py``) is
started and the page's first question (the Matrix one) is loaded. Then:

* ``idle`` — the second question (Lothair II's mother) is asked and timed from the key press / click until its
  answer is on screen and Streamlit is no longer running;
* ``busy`` — a second tab opens the Benchmark page and starts a run of every method on the demo's questions;
  once the job runs (the banner above the page names it), the same second question is asked in the first tab
  and timed the same way. The figure counts only if the job was still running when the answer arrived.

On Compare each method's own seconds (the caption under it, ``method_s``) are kept too: a job that slows
the click shows in which methods' time grows, not only in the total.

``--in-process`` runs the benchmark job as a thread of the server instead of a worker process
(``EGX_BUILD_ISOLATED=0``, how it ran before), for the comparison. Wall-clock seconds on this machine.

Usage: python benchmarks/busy_server.py [--pages ask,compare] [--in-process] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.page_latency import DEFAULTS, EXPECT, LOTHAIR, MATRIX  # noqa: E402
from tests.app.browser_support import (  # noqa: E402
    ask_again,
    launch_chromium,
    page_server,
    start_benchmark,
    wait_text,
)

PAGES = {"ask": "pages/bubble_ask.py", "compare": "pages/compare.py"}
BANNER = "runs on the server"


def _ask(page, page_file: str) -> tuple[float, float]:
    """Ask the second question; seconds until its answer is on screen, and until the page also settled
    (Streamlit's "running" indicator gone: while a job runs, the banner's and the sidebar's redraws show it
    every few seconds, so this one measures the redraws as well as the click)."""
    t1 = ask_again(page, page_file, LOTHAIR)
    shown = (time.monotonic() - t1) + wait_text(page, EXPECT[LOTHAIR], settled=False)
    return shown, (time.monotonic() - t1) + wait_text(page, EXPECT[LOTHAIR])


def measure(page_file: str, busy: bool, tmp: Path, env: dict[str, str]) -> dict[str, object]:
    from playwright.sync_api import expect, sync_playwright

    with page_server(tmp, page_file, **DEFAULTS, **env) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            page = ctx.new_page()
            page.goto(base, wait_until="domcontentloaded")
            wait_text(page, EXPECT[MATRIX])
            out: dict[str, object] = {"condition": "busy" if busy else "idle"}
            if busy:
                tab = ctx.new_page()
                start_benchmark(tab, base, f"busy-{int(time.time())}", 5, timeout_s=600)
                # the job's live panel on the Benchmark tab (an idle tab draws the banner on its next run)
                expect(tab.get_by_text(re.compile(r"elapsed")).first).to_be_visible(timeout=120_000)
                page.bring_to_front()
                page.wait_for_timeout(3000)  # past the worker's start: it is loading models and running pairs
            shown, settled = _ask(page, page_file)
            out["click_to_result_s"] = round(shown, 2)
            out["click_to_settled_s"] = round(settled, 2)
            if page_file.endswith("compare.py"):  # each method's own time, from the caption under it
                text = page.evaluate("document.body.innerText")
                out["method_s"] = [float(x) for x in re.findall(r"(\d+\.\d{3}) s · \d+ LLM tokens", text)]
            if busy:
                out["job_running_after"] = page.get_by_text(re.compile(BANNER)).count() > 0
            return out
        finally:
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="ask,compare")
    ap.add_argument("--in-process", action="store_true", help="the benchmark as a server thread (before)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    env = {"EGX_BUILD_ISOLATED": "0"} if args.in_process else {}
    out: dict[str, list[dict[str, object]]] = {}
    for key in args.pages.split(","):
        for busy in (False, True):
            with tempfile.TemporaryDirectory(prefix="egx-busy-") as d:
                r = measure(PAGES[key], busy, Path(d), env)
            r["jobs"] = "server thread" if args.in_process else "worker process"
            out.setdefault(PAGES[key], []).append(r)
            print(PAGES[key], r, flush=True)
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
