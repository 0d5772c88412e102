"""Triage in a real browser (headless Debian chromium via Playwright): load a finished benchmark run on the
Benchmark page, see the failures-only table with its count, switch to every row, and download the table as
CSV; the file has the triage header, a row per question × method shown, and a formula a corpus put in an
answer arrives defused. Uses the ``server`` fixture of tests/app/conftest.py (demo workspace, hashing
embedder, no LLM).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium

pytestmark = pytest.mark.browser
TIMEOUT = 120_000
EVIL = '=HYPERLINK("http://example.invalid","click")'


def _prepare_run(runs: Path) -> tuple[int, int]:
    """A 3-question dense + ppr run of the demo sample under ``runs/triage-run``, one failing answer replaced
    by a formula; returns (failures, rows)."""
    from core.backends.embedders import HashingEmbedder
    from core.backends.llm import NoLLM
    from core.backends.rerankers import BiEncoderReranker
    from core.eval.runner import run_benchmark
    from core.eval.triage import benchmark_rows, failures
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=runs.parent / "prep")
    out = runs / "triage-run"
    run_benchmark(ws, load_questions(ws), ["dense", "ppr"], Backends(emb, NoLLM(), BiEncoderReranker(emb)),
                  out_dir=out, limit=3)
    path = out / "results.jsonl"
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = benchmark_rows(recs)
    failed = [i for i, r in enumerate(rows) if r in failures(rows)]
    assert failed, "the demo run should fail somewhere (no LLM, hashing embedder)"
    recs[failed[0]]["answer"] = EVIL
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    (out / "summary.json").unlink(missing_ok=True)  # the page recomputes it from the records
    rows = benchmark_rows(recs)
    return len(failures(rows)), len(rows)


def test_benchmark_table_failures_only_and_csv_download(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    n_fail, n_rows = _prepare_run(tmp_path / "home" / "runs")  # the server's $EGX_HOME/runs
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1400})
            page.goto(f"{base}/benchmark", wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="Benchmark")).to_be_visible(timeout=TIMEOUT)
            page.get_by_role("tab", name="Load a report").click()
            page.get_by_role("button", name="Load", exact=True).click()
            expect(page.get_by_text(f"Showing {n_fail} failures of {n_rows} rows")).to_be_visible(timeout=TIMEOUT)
            with page.expect_download(timeout=60_000) as info:
                page.get_by_role("button", name=f"Download these {n_fail} rows (CSV)").click()
            failures_csv = Path(info.value.path()).read_bytes()
            name = info.value.suggested_filename
            page.get_by_text("Failures only").click()  # switch to every row
            expect(page.get_by_text(re.compile(rf"Showing all {n_rows} rows \({n_fail} failures\)"))).to_be_visible(
                timeout=TIMEOUT)
            with page.expect_download(timeout=60_000) as info:
                page.get_by_role("button", name=f"Download these {n_rows} rows (CSV)").click()
            all_csv = Path(info.value.path()).read_bytes()
            page.screenshot(path=str(tmp_path / "triage_benchmark.png"), full_page=True)
        finally:
            browser.close()
    assert name == "triage-run-failures.csv"
    assert failures_csv.startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM
    table = list(csv.DictReader(io.StringIO(failures_csv.decode("utf-8-sig"), newline="")))
    assert len(table) == n_fail
    assert list(table[0])[:6] == ["question", "method", "verdict", "EM", "F1", "answer match"]
    assert {"gold ranks", "gold passages", "retrieved (top 10)", "answer", "gold answer"} <= set(table[0])
    assert all(r["verdict"] not in ("ok", "no gold evidence") for r in table)
    assert {r["method"] for r in table} <= {"dense", "ppr"}
    assert any(r["answer"] == "'" + EVIL for r in table)  # defused: a spreadsheet shows it as text
    assert not any(r["answer"].startswith("=") for r in table)
    everything = list(csv.DictReader(io.StringIO(all_csv.decode("utf-8-sig"), newline="")))
    assert len(everything) == n_rows
    q = next(r for r in everything if r["id"] == "matrix-villain" and r["method"] == "dense")
    assert q["gold answer"] == "Hugo Weaving" and "The Matrix" in q["gold passages"]
