"""A workspace of a few passages: every method's top 5 holds most of it, so recall reads 100 everywhere and cannot
tell the methods apart (an audit's 4-passage workspace). Compare and Benchmark say so in one warning line, and a
workspace with passages enough (the demo) gets none (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components import state as S
from tests.app.helpers import plain, run_page, switch

DOCS = [{"id": "m", "title": "The Matrix", "text": "The Matrix stars Keanu Reeves and Laurence Fishburne. Hugo "
                                                   "Weaving plays Agent Smith, the main villain."},
        {"id": "s", "title": "Speed", "text": "Speed stars Keanu Reeves and Sandra Bullock. Dennis Hopper plays "
                                              "Howard Payne."},
        {"id": "w", "title": "John Wick", "text": "John Wick stars Keanu Reeves. Michael Nyqvist plays Viggo "
                                                  "Tarasov."},
        {"id": "a", "title": "Agent Smith", "text": "Agent Smith is the main antagonist of The Matrix, played by "
                                                    "Hugo Weaving."}]
QUESTION = "Who played the main villain in The Matrix?"
WARNING = ("This workspace has 4 passages: each method's top 5 holds most of it, so recall cannot tell the methods "
           "apart — rebuild it with smaller passages (Data › Upload).")


@pytest.fixture
def tiny(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A four-passage corpus workspace "tiny" with one gold question, built with the hashing embedder."""
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src, qs = tmp_path / "docs.jsonl", tmp_path / "questions.json"
    src.write_text("\n".join(json.dumps(d) for d in DOCS))
    qs.write_text(json.dumps([{"id": "q1", "question": QUESTION, "answer": "Hugo Weaving",
                               "supporting_facts": [["The Matrix", 0], ["Agent Smith", 0]]}]))
    create_workspace([src], home / "workspaces" / "tiny", title="Tiny", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), questions=qs)
    return "tiny"


def _warnings(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [plain(w.value) for w in at.warning]


def test_compare_and_benchmark_warn_on_a_workspace_of_a_few_passages(tiny: str) -> None:
    at = run_page("pages/compare.py", **{S.WORKSPACE: tiny})
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "ppr"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.dataframe and (at.dataframe[0].value["R@5"] == 100).all()  # what the warning explains
    assert _warnings(at).count(WARNING) == 1, _warnings(at)

    switch(at, "pages/benchmark.py")
    assert not at.exception, [e.value for e in at.exception]
    assert _warnings(at).count(WARNING) == 1, _warnings(at)


def test_a_workspace_with_passages_enough_gets_no_warning(home: Path) -> None:
    from components.compare_view import few_passages_note

    at = run_page("pages/compare.py")  # the demo
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense"]).run()
    assert not any("passages: each method's top" in w for w in _warnings(at)), _warnings(at)
    # the threshold: no more passages than twice the top 5
    assert few_passages_note(10) and not few_passages_note(11) and few_passages_note(1).startswith(
        "This workspace has 1 passage:")
