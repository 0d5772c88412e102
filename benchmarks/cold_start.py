"""Cold app start: launching ``streamlit run app.py`` to the first rendered graph in a real browser.

Three timings per run, in one process:
  * ``health_s``  — launch until ``/_stcore/health`` answers ``ok`` (Python + streamlit import);
  * ``first_render_s`` — launch until the Data page's pyvis canvas is visible in headless chromium
    (includes loading the embedder and building/opening the demo workspace);
  * the same again on a second page load (``warm_render_s``), with caches populated.
A fresh ``EGX_HOME`` is used so the demo workspace is built from its recipe, as on a first start.

Usage: python benchmarks/cold_start.py [--embedder minilm|hashing] [--runs N] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_health(port: int, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"streamlit did not become healthy on port {port} within {timeout} s")


def one_run(embedder: str) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    port = free_port()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "EGX_HOME": home, "EGX_EMBEDDER": embedder, "HF_HUB_OFFLINE": "1"}
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_health(port, 120)
            health = time.perf_counter() - t0
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"http://127.0.0.1:{port}/data", timeout=120_000)
                page.frame_locator("iframe").first.locator("canvas").first.wait_for(state="visible", timeout=300_000)
                first = time.perf_counter() - t0
                t1 = time.perf_counter()
                page.reload()
                page.frame_locator("iframe").first.locator("canvas").first.wait_for(state="visible", timeout=300_000)
                warm = time.perf_counter() - t1
                browser.close()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {"health_s": round(health, 2), "first_render_s": round(first, 2), "warm_render_s": round(warm, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    runs = [one_run(args.embedder) for _ in range(args.runs)]
    for i, r in enumerate(runs, 1):
        print(f"run {i}: healthy after {r['health_s']:.1f} s, first graph rendered after {r['first_render_s']:.1f} s, "
              f"reload to graph {r['warm_render_s']:.1f} s  (embedder {args.embedder})")
    if args.out:
        Path(args.out).write_text(json.dumps({"embedder": args.embedder, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
