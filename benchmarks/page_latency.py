"""Click to result on the Ask and Compare pages, in a real browser.

Starts ``streamlit run`` with the default models (bge-small, the bundled cross-encoder, LLM ``none``)
on a fresh ``EGX_HOME`` (the demo workspace is built on the first page), opens the page, then times what
a lecturer does: *a second question* — typed + Enter on Ask (BubbleRAG), picked in the Question box on
Compare (all seven methods) — from the key press / click until the answer for it is on screen and
Streamlit's "running" indicator is gone. The first page load (workspace build, model loads) is
reported separately. Figures are wall-clock seconds on this machine; run under the CPU lock.

Usage: python benchmarks/page_latency.py [--runs N] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.browser_support import ask_again, launch_chromium, page_server, wait_text  # noqa: E402

DEFAULTS = {"EGX_EMBEDDER": "bge-small", "EGX_RERANKER": "ms-marco-minilm", "EGX_LLM": "none"}
LOTHAIR = "When did Lothair II's mother die?"
MATRIX = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
EXPECT = {LOTHAIR: "20 March 851", MATRIX: "Hugo Weaving as Agent Smith"}


def measure(page_file: str, tmp: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with page_server(tmp, page_file, **DEFAULTS) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            t0 = time.monotonic()
            page.goto(base, wait_until="domcontentloaded")
            wait_text(page, EXPECT[MATRIX])
            first = time.monotonic() - t0
            t1 = ask_again(page, page_file, LOTHAIR)
            click = (time.monotonic() - t1) + wait_text(page, EXPECT[LOTHAIR])
            return {"first_page_s": round(first, 2), "click_to_result_s": round(click, 2)}
        finally:
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    out: dict[str, list[dict[str, float]]] = {}
    for page_file in ("pages/bubble_ask.py", "pages/compare.py"):
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="egx-latency-") as d:
                r = measure(page_file, Path(d))
            out.setdefault(page_file, []).append(r)
            print(page_file, r, flush=True)
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
