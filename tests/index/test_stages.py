"""Stage times of a build and the one progress bar weighted by the stages' estimated seconds."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from core.backends.registry import get_embedder
from core.index.create import EXTRACT_SECONDS, _extraction_share, create_workspace
from core.index.manifest import BUILD_STAGES
from core.index.stages import StageTimes, WeightedStages, format_seconds, stage_lines
from core.index.workspace import Workspace


def _bar() -> tuple[list[tuple[str, float]], WeightedStages]:
    seen: list[tuple[str, float]] = []
    return seen, WeightedStages(lambda m, f: seen.append((m, f)),
                                [("build", 100.0), ("node vectors", 480.0), ("synonyms", 20.0)])


def test_each_stage_covers_its_share_of_the_estimated_time() -> None:
    seen, bar = _bar()
    assert bar.share("build") == pytest.approx((0.0, 100 / 600))
    assert bar.share("node vectors") == pytest.approx((100 / 600, 580 / 600))
    bar.stage("build")("reading", 1.0)
    # the issue this answers: after the build the bar must not read 99 % with 8 minutes of embedding to come
    assert seen[-1][1] == pytest.approx(100 / 600)
    nv = bar.stage("node vectors", "FastInsight")
    nv("embedding", 0.5)
    assert seen[-1] == ("FastInsight: embedding", pytest.approx((100 + 240) / 600))
    bar.stage("synonyms")("", 1.0)
    assert seen[-1] == ("synonyms", pytest.approx(1.0))


def test_a_skipped_stage_is_jumped_over_and_the_bar_never_goes_back() -> None:
    seen, bar = _bar()
    bar.stage("build")("half", 0.5)
    bar.stage("synonyms")("start", 0.0)  # node vectors were not needed
    assert seen[-1][1] == pytest.approx(580 / 600)
    bar.stage("synonyms")("again", 0.0)
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions)


def test_replan_keeps_the_position_and_shares_out_the_rest_by_the_new_estimates() -> None:
    seen, bar = _bar()
    bar.stage("build")("done", 1.0)
    at = seen[-1][1]
    bar.replan([("node vectors", 60.0), ("synonyms", 60.0)])  # the graph turned out small
    bar.stage("node vectors")("half", 0.5)
    assert seen[-1][1] == pytest.approx(at + (1 - at) * 0.25)
    bar.stage("synonyms")("end", 1.0)
    assert seen[-1][1] == pytest.approx(1.0)
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions)


def test_a_stage_without_estimate_counts_the_default() -> None:
    bar = WeightedStages(None, [("a", None), ("b", 0.0), ("c", 40.0)], default_s=20.0)
    assert bar.share("c") == pytest.approx((0.5, 1.0))


def test_bad_plans_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"stage names must be unique, got \['a', 'a'\]"):
        WeightedStages(None, [("a", 1.0), ("a", 2.0)])
    _, bar = _bar()
    with pytest.raises(ValueError, match="unknown stage 'nope'; the stages are"):
        bar.stage("nope")
    bar.stage("node vectors")
    with pytest.raises(ValueError, match="stage 'build' has started; only the stages after it"):
        bar.replan([("build", 5.0)])
    with pytest.raises(ValueError, match="unknown stage 'x'"):
        bar.replan([("x", 5.0)])


def test_stage_times_and_their_lines() -> None:
    times = StageTimes()
    with times.stage("read inputs"):
        pass
    times.add("index/chunks", 90.0, 1800)
    rows = times.to_list()
    assert [r["stage"] for r in rows] == ["read inputs", "index/chunks"]
    assert rows[1] == {"stage": "index/chunks", "seconds": 90.0, "items": 1800}
    assert times.total == pytest.approx(90.0, abs=0.1)
    lines = stage_lines(rows)
    assert "1 m 30 s" in lines[1] and "1,800 items, 20/s" in lines[1]
    assert lines[1].split()[0] == "index/chunks"
    assert format_seconds(4.214) == "4.21 s" and format_seconds(492) == "8 m 12 s"


def _corpus(tmp_path: Path, n: int = 30) -> Path:
    docs = [{"title": f"Doc {i}", "text": f"Alice Smith met Bob Jones in Paris in {1900 + i}."} for i in range(n)]
    f = tmp_path / "corpus.json"
    f.write_text(json.dumps(docs), encoding="utf-8")
    return f


def test_a_build_records_the_time_of_each_stage_in_its_manifest(tmp_path: Path) -> None:
    create_workspace([_corpus(tmp_path)], tmp_path / "ws", embedder=get_embedder("hashing"))
    ws = Workspace.open(tmp_path / "ws")
    stages = ws.meta.build_stages
    names = [r["stage"] for r in stages]
    assert names == ["read inputs", "triple extraction (spacy)", "graph file", "index/nodes", "index/edges",
                     "index/chunks"]
    assert all(r["seconds"] >= 0 for r in stages)
    assert stages[1]["items"] == 30 and stages[-1]["items"] == 30
    assert ws.meta.data[BUILD_STAGES] == stages


def test_spacy_extraction_is_estimated_at_its_measured_rate_not_the_llms() -> None:
    """At the LLM's 3 s a chunk, spaCy extraction took 99 % of a corpus build's bar; at its own ~68 passages/s
    it takes less than the embedding that follows (three indexes over the same corpus)."""
    from types import SimpleNamespace

    from core.graph.model import Chunk

    chunks = [Chunk(f"c{i}", "", "x" * 460) for i in range(6000)]  # a 6k-passage corpus of MuSiQue's mean length
    graph = SimpleNamespace(n_chunks=len(chunks), chunks=chunks)
    split = _extraction_share(graph, None, get_embedder("hashing"), extract=True)  # type: ignore[arg-type]
    assert EXTRACT_SECONDS["spacy"] == pytest.approx(1 / 68)
    assert 0.2 < split < 0.6


def test_prepare_workspace_reports_one_bar_weighted_by_estimates(tmp_path: Path) -> None:
    from core.methods.run import prepare_workspace

    emb = get_embedder("hashing")
    create_workspace([_corpus(tmp_path)], tmp_path / "ws", embedder=emb)
    ws = Workspace.open(tmp_path / "ws")
    seen: list[float] = []
    times = StageTimes()
    done = prepare_workspace(ws, emb, ["ppr", "fastinsight"], overall=lambda m, f: seen.append(f), times=times)
    assert len(done) == 2 and [t.stage for t in times.done] == done
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert all(b - a <= 1.0 for a, b in pairwise(seen))
    assert prepare_workspace(ws, emb, ["ppr", "fastinsight"], overall=lambda m, f: seen.append(f)) == []
