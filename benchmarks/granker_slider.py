"""The GRanker page's α and β sliders: click → result in a real browser, and the same run in process.

With the default models (bge-small, the bundled int8 cross-encoder ms-marco-MiniLM-L-12-v2, LLM ``none``)
on the demo and the MuSiQue sample, KG nodes (FastInsight §4.2.2), b_max = 100:

* **browser** — ``streamlit run`` of the app with the GRanker page, headless chromium at 1440×900. The
  first open (server start excluded; models load, first FastInsight run) is reported on its own; then
  α is stepped with the keyboard (→, one 0.05 step) and β (→, one 0.1 step), each ``--steps`` times, timed
  from the key press until Streamlit has rerun the page (its script state went to *running* and back to
  *not running*), the GRanker table is on screen and, for α, its heading shows the new value. Run once with
  the server's feature store (``EGX_FEATURE_STORE_ROWS`` default) and once without it (``=0``: every step
  encodes its candidates), both in this run.
* **in process** — ``fastinsight.run`` for the same steps: *before* (no feature store, OpenBLAS's own
  threads: what main did), *no store* (one BLAS thread for the loop's small products) and *store* (the
  app's path: features of earlier runs read back, only newly reached candidates encoded).

Workspaces come from ``--home`` (an ``EGX_HOME`` with the samples built for bge-small, e.g. by
``egx samples build``; copied to a temporary folder so nothing there is written). Figures are wall-clock
seconds on this machine; they move with the machine's load (the JSON records the load average).

Usage: python benchmarks/granker_slider.py --home ~/.egx [--workspaces demo musique] [--steps 3] [--out x.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from contextlib import nullcontext
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.browser_support import launch_chromium, page_server  # noqa: E402

MODELS = {"EGX_EMBEDDER": "bge-small", "EGX_RERANKER": "ms-marco-minilm", "EGX_LLM": "none"}
MATRIX = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"

#: True once Streamlit's script went to "running" after the mark, and is now idle with the table drawn.
SETTLED_JS = """([heading]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || !window.__egxRan || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stSpinner"]')) return false;
  const tables = document.querySelectorAll('[data-testid="stTable"]');
  if (tables.length < 2 || tables[1].querySelectorAll('tbody tr').length === 0) return false;
  return !heading || [...document.querySelectorAll('h3')].some(h => h.innerText.trim().startsWith(heading));
}"""
MARK_JS = """() => {
  window.__egxRan = false;
  window.__egxT = {mark: performance.now()};
  const app = document.querySelector('[data-testid="stApp"]');
  const busy = (s) => s === 'running' || s === 'rerunRequested';
  // a fast rerun can go running → notRunning before the callback runs: read every record's old value too
  const seen = (records) => { const s = app.getAttribute('data-test-script-state');
                       if ((busy(s) || records.some(r => busy(r.oldValue))) && !window.__egxRan) {
                         window.__egxRan = true; window.__egxT.run = performance.now(); }
                       if (s === 'notRunning' && window.__egxRan) window.__egxT.idle = performance.now(); };
  if (window.__egxObs) window.__egxObs.disconnect();
  window.__egxObs = new MutationObserver(seen);
  window.__egxObs.observe(app, {attributes: true, attributeOldValue: true,
                                attributeFilter: ['data-test-script-state']});
}"""


def question_of(home: Path, workspace: str) -> str:
    """The question the benchmark asks: the demo's Matrix question, else the workspace's first gold question."""
    if workspace == "demo":
        return MATRIX
    from core.index.questions import load_questions
    from core.index.workspace import Workspace

    return next(q.question for q in load_questions(Workspace.open(home / "workspaces" / workspace)) if q.gold_chunks)


# ------------------------------------------------------------------------------------------------ browser
def _step(page: Any, label: str, heading: str | None) -> tuple[float, float, float]:
    """Seconds from the key press to the settled page, and its parts: until the rerun started (the
    slider's own debounce + the message to the server), and the rerun itself (the script on the server and
    its deltas drawn) up to the script going idle."""
    from playwright.sync_api import TimeoutError as PwTimeout

    slider = page.locator("[data-testid='stSlider']").filter(has_text=label).get_by_role("slider")
    slider.focus()
    page.evaluate(MARK_JS)
    t0 = time.monotonic()
    slider.press("ArrowRight")
    try:
        page.wait_for_function(SETTLED_JS, arg=[heading], timeout=120_000, polling=50)
    except PwTimeout:
        page.screenshot(path=str(Path(tempfile.gettempdir()) / f"egx-slider-stuck-{int(time.time())}.png"))
        raise
    total = time.monotonic() - t0
    t = page.evaluate("() => window.__egxT")
    return total, (t["run"] - t["mark"]) / 1000, (t.get("idle", t["run"]) - t["run"]) / 1000


def browser(home: Path, workspace: str, steps: int, *, store: bool) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    env = {**MODELS, "EGX_HOME": str(home), "EGX_FEATURE_STORE_ROWS": "50000" if store else "0"}
    q = question_of(home, workspace)
    with tempfile.TemporaryDirectory(prefix="egx-slider-") as tmp, \
            page_server(Path(tmp), "pages/granker.py", **env) as base, sync_playwright() as p:
        b = launch_chromium(p)
        try:
            page = b.new_page(viewport={"width": 1440, "height": 900})
            link = base + "/?" + urllib.parse.urlencode({"workspace": workspace, "q": q})
            t0 = time.monotonic()
            page.goto(link, wait_until="domcontentloaded")
            page.wait_for_function("() => !!document.querySelector('[data-testid=\"stApp\"]')", timeout=120_000)
            page.evaluate("() => { window.__egxRan = true; }")  # the first run is the page load itself
            page.wait_for_function(SETTLED_JS, arg=["GRanker (α = 0.2)"], timeout=900_000, polling=100)
            first = time.monotonic() - t0
            alpha, beta = [], []
            a = 0.2
            for _ in range(steps):
                a = round(a + 0.05, 2)
                alpha.append(_step(page, "α (GRanker smoothing)", f"GRanker (α = {a:g})"))
            for _ in range(steps):
                beta.append(_step(page, "β (STeX score ratio)", None))
            page.screenshot(path=str(Path(tmp) / "granker.png"))
            caption = next((t for t in page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
                            if "Reranker inputs" in t), "")
        finally:
            b.close()
    def parts(xs: list[tuple[float, float, float]]) -> dict[str, Any]:
        return {"median_s": round(statistics.median(x[0] for x in xs), 2), "steps_s": [round(x[0], 2) for x in xs],
                "until_rerun_starts_s": [round(x[1], 2) for x in xs], "rerun_s": [round(x[2], 2) for x in xs]}

    return {"first_open_s": round(first, 2), "alpha_step": parts(alpha), "beta_step": parts(beta),
            "last_caption": caption[caption.find("Reranker inputs"):][:120]}


# ----------------------------------------------------------------------------------------------- in process
def in_process(home: Path, workspace: str, steps: int) -> dict[str, Any]:
    import core.methods.answer_types as answer_types
    import core.methods.fastinsight.pipeline as pipeline
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.fastinsight import FastInsightConfig, run
    from core.methods.fastinsight.stages import RetrievedData
    from core.methods.reranking import FeatureStore, feature_store, small_products

    ws = Workspace.open(home / "workspaces" / workspace)
    emb = get_embedder("bge-small")
    backends = Backends(emb, get_llm("none"), get_reranker("ms-marco-minilm", embedder=emb))
    q = question_of(home, workspace)
    base = FastInsightConfig()
    run(q, ws, config=base, backends=backends)  # models loaded, node vectors read once
    alphas = [base.with_(alpha=round(0.2 + 0.05 * (i + 1), 2)) for i in range(steps)]
    betas = [base.with_(alpha=alphas[-1].alpha, beta=round(1.0 + 0.1 * (i + 1), 1)) for i in range(steps)]

    def timed(cfgs: list[FastInsightConfig], store: FeatureStore | None) -> tuple[list[float], list[int]]:
        out, computed = [], []
        for cfg in cfgs:
            if store is None:
                answer_types._typed_mentions.cache_clear()  # main found the answer's mentions anew every run
            t0 = time.perf_counter()
            with feature_store(store):
                res = run(q, ws, config=cfg, backends=backends)
            out.append(time.perf_counter() - t0)
            done = RetrievedData.of(res.trace)
            assert done is not None, "a FastInsight run records its retrieved step"
            computed.append(int(done.features_computed))
        return out, computed

    figures: dict[str, Any] = {}
    for mode in ("before", "no_store", "store"):
        store = FeatureStore() if mode == "store" else None
        pipeline.small_products = nullcontext if mode == "before" else small_products  # type: ignore[assignment]
        try:
            first, _ = timed([base], store)  # the page's first open (fills the store in "store" mode)
            a, ca = timed(alphas, store)
            b, cb = timed(betas, store)
        finally:
            pipeline.small_products = small_products  # type: ignore[assignment]
        figures[mode] = {"first_s": round(first[0], 3), "alpha_step_s": [round(x, 3) for x in a],
                         "beta_step_s": [round(x, 3) for x in b], "alpha_median_s": round(statistics.median(a), 3),
                         "beta_median_s": round(statistics.median(b), 3),
                         "encoded_per_alpha_step": ca, "encoded_per_beta_step": cb}
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, default=Path(os.environ.get("EGX_HOME", ROOT / ".egx")),
                    help="an EGX_HOME with the samples built for bge-small (copied; never written)")
    ap.add_argument("--workspaces", nargs="+", default=["demo", "musique"])
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--skip-browser", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    out: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), "models": MODELS,
                           "load_average_at_start": os.getloadavg(), "workspaces": {}}
    with tempfile.TemporaryDirectory(prefix="egx-slider-home-") as d:
        home = Path(d)
        for w in args.workspaces:
            shutil.copytree(args.home / "workspaces" / w, home / "workspaces" / w)
        for w in args.workspaces:
            res: dict[str, Any] = {"question": question_of(home, w), "in_process": in_process(home, w, args.steps)}
            print(w, "in process", json.dumps(res["in_process"]), flush=True)
            if not args.skip_browser:
                for store in (True, False):
                    key = "browser_store" if store else "browser_no_store"
                    res[key] = browser(home, w, args.steps, store=store)
                    print(w, key, json.dumps(res[key]), flush=True)
            out["workspaces"][w] = res
    out["load_average_at_end"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
