"""No hidden long job (a 20-minute embedding once started unasked on Compare): a build expected to take longer than ``EGX_ASK_BEFORE_S`` (30 s by default)
starts only when the user asks. Compare says what FastInsight needs, its estimate and why, offers the button,
and shows the other methods meanwhile; the GRanker page stops at the same offer; the click starts a
background job, after which FastInsight runs.

The demo (87 KG nodes, hashing embedder) is the tiny KG here: ``EGX_ASK_BEFORE_S=0`` makes its
sub-second node embedding count as long, so the test exercises the same path as MuSiQue's 16k texts.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.helpers import run_page, switch

PAGE = "pages/compare.py"


def _has_node_vectors(home: Path) -> bool:
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.fastinsight.node_vectors import has_node_vectors

    return has_node_vectors(Workspace.open(home / "workspaces" / "demo"), get_embedder("hashing"))


def _text(at: AppTest) -> str:
    return " ".join(x.value for x in [*at.main.info, *at.main.markdown, *at.main.caption, *at.main.error])


@pytest.fixture
def ask_first(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    # the demo is built first: at 0 s its own build would wait for a click too (tests/app/test_reindex_asks_first)
    ensure_sample_workspace("demo", get_embedder("hashing"), root=home / "workspaces")
    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")
    return home


def test_compare_offers_the_node_vectors_build_and_runs_the_other_methods(ask_first: Path) -> None:
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "fastinsight"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.dataframe[0].value["method"]) == ["Naive RAG"]  # dense ran; FastInsight waits
    shown = _text(at)
    assert "needs something built first: Embedding 87 KG node texts for FastInsight" in shown
    assert "expected to take" in shown and "87 node texts" in shown and "hashing" in shown  # estimate and basis
    assert "Nothing is started until you ask" in shown
    assert "Waiting for the build: Embedding 87 KG node texts" in shown  # FastInsight's column
    # the summary says which chosen method has no row, and why (it had none, silently, under "8 of 8 methods")
    assert "Not in the table: **FastInsight** waits for a build (Embedding 87 KG node texts" in shown
    assert not any(e.value.startswith("fastinsight:") for e in at.error)
    assert not _has_node_vectors(ask_first)  # nothing was built unasked
    at.run()  # a rerun (another widget, a page switch) does not start it either
    assert not _has_node_vectors(ask_first) and "Build it now" in [b.label for b in at.button]

    next(b for b in at.button if b.label == "Build it now").click().run()
    deadline = time.monotonic() + 120
    while list(at.dataframe[0].value["method"]) != ["Naive RAG", "FastInsight"] and time.monotonic() < deadline:
        time.sleep(0.3)  # the build is a background job: the page shows its panel, then runs FastInsight
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.dataframe[0].value["method"]) == ["Naive RAG", "FastInsight"]
    assert _has_node_vectors(ask_first)
    assert "Waiting for the build" not in _text(at)


def test_two_methods_waiting_for_one_build_get_one_offer(ask_first: Path) -> None:
    """PPR and HippoRAG 2 share the synonym edges: one panel names both, one button builds it (two buttons
    with one key crashed the page)."""
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["ppr", "hipporag2"]).run()
    assert not at.exception, [e.value for e in at.exception]
    offers = [b for b in at.button if b.label == "Build it now"]
    assert len(offers) == 1, [b.label for b in at.button]
    assert "**HippoRAG (v1) PPR** and **HippoRAG 2** need something built first: Finding synonymy edges" in _text(at)


def test_granker_page_stops_at_the_offer_until_asked(ask_first: Path) -> None:
    at = run_page()
    switch(at, "pages/granker.py")
    assert not at.exception, [e.value for e in at.exception]
    assert "needs something built first: Embedding 87 KG node texts" in _text(at)
    assert not at.table and not _has_node_vectors(ask_first)
    next(b for b in at.button if b.label == "Build it now").click().run()
    deadline = time.monotonic() + 120
    while not at.table and time.monotonic() < deadline:
        time.sleep(0.3)
        at.run()
    assert not at.exception and len(at.table) >= 2 and _has_node_vectors(ask_first)


def test_a_short_build_starts_without_asking(home: Path) -> None:
    """Under the threshold (the default 30 s; the demo's 87 texts take well under a second) nothing is
    offered: the build runs as before and the page shows its result."""
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["fastinsight"]).run()
    assert not at.exception and list(at.dataframe[0].value["method"]) == ["FastInsight"]
    assert "Build it now" not in [b.label for b in at.button] and _has_node_vectors(home)


def test_the_estimate_rests_on_the_recorded_build_rate(home: Path) -> None:
    """The estimate is the workspace's recorded passage-embedding rate times the node count (a stated rate
    when the manifest records no build by this embedder)."""
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace
    from core.methods.fastinsight import node_vectors as NV

    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb)
    chunks = next(b for b in ws.meta.index_builds if b["kind"] == "chunks")
    seconds, how = NV.node_vectors_estimate(ws, emb)
    assert seconds == pytest.approx(87 * chunks["seconds"] / chunks["items"])
    assert how.startswith("87 node texts; hashing embedded this workspace's 23 passages at")

    class Other:
        name, model_id, dim = "other", "other-model", 8

    seconds, how = NV.node_vectors_estimate(ws, Other())  # type: ignore[arg-type]
    assert seconds == pytest.approx(87 * NV.STATED_SECONDS_PER_TEXT) and "is assumed" in how


def test_a_preparation_behind_an_index_build_is_estimated_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the indexes missing, a method's own preparation has no estimate (it rests on the index's timing): once
    the indexes are built it is estimated, and a long one is offered — it used to start unasked right after."""
    import uuid

    import core.methods.run as R
    from components import runs

    tag, built = uuid.uuid4().hex, []

    def pending(spec, ws, backends, config=None):  # type: ignore[no-untyped-def]
        index = R.PendingPreparation(f"index:{tag}", "Building the vector indexes", lambda _: built.append("index"))
        prep = R.PendingPreparation(f"prep:{tag}", "Embedding 1,161 KG node texts", lambda _: built.append("prep"))
        if "index" not in built:
            return [index, prep]  # no estimate yet
        return [R.PendingPreparation(prep.key, prep.title, prep.work, 600.0, "1,161 node texts at 0.5 s each")]

    monkeypatch.setattr(R, "pending_preparations", pending)

    class Spec:
        title = "FastInsight"

    with pytest.raises(runs.PreparationPending) as offered:
        runs.prepare_in_background(Spec(), None, None, None, defer=True)  # type: ignore[arg-type]
    assert offered.value.job is None and offered.value.pending.estimate_s == 600.0  # offered with its estimate
    assert built == ["index"]  # the indexes were built; the long embedding was not started


def test_the_benchmark_estimate_counts_what_its_methods_build_first(ask_first: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A benchmark builds what its methods need before their first pair (in its worker): an audit's MuSiQue run was
    estimated at 55 s and took 173 s, 132 of them FastInsight's node vectors. The estimate now names that build,
    its expected time and the run's total; a run of methods that need nothing built says nothing of it."""
    import re

    from tests.app.helpers import plain

    at = run_page("pages/benchmark.py")
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "fastinsight"]).run()
    assert not at.exception, [e.value for e in at.exception]
    said = next(plain(c.value) for c in at.caption if "Estimate" in c.value or "estimate" in c.value)
    # the whole time first (an audit read the runs' "about 29 s" of a run that built for 184 s before them)
    m = re.match(r":material/schedule: Estimate: about (.+) in all\. First the run builds what its methods need: "
                 r"Embedding 87 KG node texts for FastInsight [^;]*\(about [^)]*\)\. Then the runs: about ", said)
    assert m, said
    # on a busy machine the whole run's range leads (audit 42 read "about 1 min 2 s in all" and waited 2 min 9 s)
    import core.eval.timing

    monkeypatch.setattr(core.eval.timing, "machine_load", lambda: (9.0, 2))
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "fastinsight", "rerank"]).run()
    said = next(plain(c.value) for c in at.caption if "Estimate" in c.value or "estimate" in c.value)
    assert re.match(r":material/schedule: Estimate: about .+ on a quiet machine, up to about .+ on this busy one in "
                    r"all\. First the run builds", said), said
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"]).run()
    said = next(plain(c.value) for c in at.caption if "Estimate" in c.value or "estimate" in c.value)
    assert "First the run builds" not in said, said
    assert not _has_node_vectors(ask_first)  # an estimate builds nothing
