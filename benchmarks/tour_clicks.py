"""Click to page for every step of the guided demo, in a real browser.

Starts ``streamlit run`` as a fresh machine would (hashing embedder, bi-encoder reranker, LLM ``none``:
the tour itself switches to the demo workspace, the ``recorded`` LLM and the models the recording names,
bge-small and the bundled cross-encoder, whose demo index is built on the first step). Clicks "Start the
guided demo" on Home, then Next through all steps and Finish, twice; each figure is the wall-clock
seconds from the click until the step's heading and tour bar are on screen and Streamlit is no longer
running (Compare: every method's column drawn). Run under the CPU lock.

``--dwell S`` waits S seconds on each step before clicking Next, as a lecturer talking over it: the tour fetches
the next step's recorded runs meanwhile (components/prefetch.py); ``--no-prefetch`` turns that off
(``EGX_TOUR_PREFETCH=0``) for the A/B.

Usage: python benchmarks/tour_clicks.py [--rounds N] [--dwell S] [--no-prefetch] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from components import tour  # noqa: E402
from tests.app.browser_support import app_server, launch_chromium, wait_text  # noqa: E402

HEADINGS = {"pages/bubble_anchors.py": "Anchor grouping", "pages/bubble_expansion.py": "Bubble expansion",
            "pages/bubble_ranking.py": "Ranking and reasoning", "pages/bubble_ask.py": "Ask",
            "pages/compare.py": "Side by side", "pages/granker.py": "Plain reranking",
            "pages/subgraph.py": "6 · Answer", "pages/evidence_chains.py": "ReG evidence chains"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dwell", type=float, default=0.0, help="seconds on each step before Next (a lecturer talking)")
    ap.add_argument("--no-prefetch", action="store_true", help="EGX_TOUR_PREFETCH=0: no next-step runs fetched ahead")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    n = len(tour.STEPS)
    rows: list[dict[str, object]] = []
    env = {"EGX_TOUR_PREFETCH": "0"} if args.no_prefetch else {}
    with tempfile.TemporaryDirectory() as tmp, app_server(Path(tmp), **env) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(base, wait_until="domcontentloaded")
        wait_text(page, ["Start the guided demo"])
        for rnd in range(1, args.rounds + 1):
            page.get_by_role("button", name="Start the guided demo").click()
            for i, step in enumerate(tour.STEPS):
                s = wait_text(page, [f"Guided demo · step {i + 1} of {n}", HEADINGS[step.page]])
                rows.append({"round": rnd, "step": i + 1, "page": step.page, "seconds": round(s, 2)})
                print(f"round {rnd} · step {i + 1:2d} · {step.page:28s} {s:6.2f} s", flush=True)
                page.wait_for_timeout(args.dwell * 1000)
                name = "Finish the tour" if i == n - 1 else tour.next_label(i)
                page.get_by_role("button", name=name).click()
            s = wait_text(page, ["your own choices are back", "Start the guided demo"])
            rows.append({"round": rnd, "step": "finish", "page": "pages/home.py", "seconds": round(s, 2)})
            print(f"round {rnd} · finish  · pages/home.py                 {s:6.2f} s", flush=True)
        browser.close()
    if args.out:
        Path(args.out).write_text(json.dumps({"dwell": args.dwell, "prefetch": not args.no_prefetch, "rows": rows},
                                             indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
