"""The shipped demo recordings replay (each method's own budget, and BubbleRAG §4.1's one budget the comparison
pages start at): every recorded run, run again strictly with the
``recorded`` LLM on the embedder and reranker the bundle names, asks nothing the bundle does not hold, reads
only retrieval state its recording kept (core/pinning.py) and gives the recorded answer. A prompt, retrieval
stage or default that changed since a recording would make the app's "recorded LLM run" only partly replay;
this test names the run to re-record. ``test_replay_portable.py`` replays every bundle, demo and MuSiQue,
as machines with other scores would."""

from __future__ import annotations

import json

import pytest

from core.backends.llm_bundles import RECORDINGS_DIR, load_recording
from core.batch.recording import check_replay

BUNDLES = ("demo-local.json", "demo-local-bubblerag.json")


@pytest.fixture(scope="module", params=BUNDLES)
def bundle(request):  # type: ignore[no-untyped-def]
    return RECORDINGS_DIR / request.param


@pytest.fixture(scope="module")
def replayed(real_sample, bundle):  # type: ignore[no-untyped-def]
    """Every demo run replayed strictly, and the keys of the entries they were answered from."""
    used: set[str] = set()
    return check_replay(bundle, lambda name, emb: real_sample(name, emb), workspaces=["demo"], used=used), used


@pytest.fixture(scope="module")
def checks(replayed):  # type: ignore[no-untyped-def]
    return replayed[0]


def test_every_demo_run_replays_with_its_recorded_answer(checks, bundle):
    runs = [r for r in load_recording(bundle).runs if r.get("workspace") == "demo"]
    assert len(checks) == len(runs) >= 15
    assert {c.method for c in checks} >= {"bubblerag", "sgrag", "reg"}
    bad = [(c.method, c.question_id, c.problem()[:300]) for c in checks if not c.ok]
    assert not bad, f"re-record these runs (RECORD_ARGS=--redo scripts/record_llm.sh demo local METHOD ID): {bad}"


def test_every_recorded_run_keeps_the_retrieval_state_it_read():
    """What makes a replay portable (core/pinning.py): each run's state, and where it was taken."""
    for path in sorted(RECORDINGS_DIR.glob("*.json")):
        for r in load_recording(path).runs:
            assert r.get("state"), (path.name, r["method"], r["question_id"])
            assert r["state_source"]["how"] and r["state_source"]["machine"], (path.name, r["question_id"])


def test_every_demo_question_has_every_method(checks):
    """Full traces of BubbleRAG, SG-RAG and ReG, and the answers of every other method."""
    from core.methods.registry import method_names

    qs = {q["question"] for q in json.loads((RECORDINGS_DIR.parent / "demo" / "questions.json").read_text("utf-8"))}
    got = {(c.method, c.question) for c in checks}
    assert {(m, q) for m in method_names() for q in qs} <= got


def test_the_recordings_table_counts_what_each_bundle_holds():
    """``scripts/recordings_table.py`` (the README's table): one row per method with its run count."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("recordings_table", RECORDINGS_DIR.parents[1] / "scripts" /
                                                  "recordings_table.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for path in sorted(RECORDINGS_DIR.glob("*.json")):
        runs = load_recording(path).runs
        text = mod.table(path)
        for m in {r["method"] for r in runs}:
            n = len({r["question_id"] for r in runs if r["method"] == m})
            assert f"| {m} | {n} |" in text, (path.name, m)
        assert f"{len(runs)} runs" in text


def test_the_demo_bundle_holds_only_replies_its_runs_ask_for(replayed, bundle):
    """No stale entries (replies of runs since re-recorded): `scripts/check_recordings.py --prune` after a
    re-recording keeps the bundle to what its runs replay from, so counts over its entries (e.g.
    `benchmarks/llm_stage_quality.py`'s copied example terms) describe the shipped runs."""
    checks, used = replayed
    assert all(c.ok for c in checks)
    assert used == set(load_recording(bundle).entries)
