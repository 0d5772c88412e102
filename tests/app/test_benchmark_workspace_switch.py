"""A Benchmark report of another workspace than the sidebar's says whose figures it shows, with a way to this
workspace's own runs (an audit read "Report: tessany-…" with all its tables under MuSiQue's run form, nothing saying
so); it stays loaded across a sidebar switch, since a lecture goes back and forth and opens its rows on their own
workspace (tests/app/test_navigation.py) (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

from components import state as S
from tests.app.helpers import plain, run_page

PAGE = "pages/benchmark.py"
FILMS = [{"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
         {"id": "a2", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."}]
QUESTIONS = [{"id": "f1", "question": "Who starred in Speed with Keanu Reeves?", "answer": "Sandra Bullock",
              "supporting_facts": [["Speed", 0]]}]


def _films(home: Path, tmp_path: Path) -> None:
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    src, qs = tmp_path / "films.jsonl", tmp_path / "films_q.json"
    src.write_text("\n".join(json.dumps(r) for r in FILMS))
    qs.write_text(json.dumps(QUESTIONS))
    create_workspace([src], home / "workspaces" / "films", title="Films", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), questions=qs)


def _reports(at) -> list[str]:
    return [plain(h.value) for h in at.subheader if plain(h.value).startswith("Report:")]


def _texts(at) -> str:
    return " ".join(plain(w.value) for w in [*at.warning, *at.info, *at.caption])


def _run(at, name: str) -> None:
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(1)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value(name).run()
    at.button(key=S.BENCH_RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_another_workspaces_report_says_whose_it_is(home, tmp_path):
    _films(home, tmp_path)
    at = run_page(PAGE)
    _run(at, "demo-run")
    assert _reports(at) == ["Report: demo-run"] and "This report is of the workspace" not in _texts(at)
    # the sidebar switches to another workspace: the demo's report, still shown, says it is the demo's
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _reports(at) == ["Report: demo-run"]
    assert "This report is of the workspace “demo”**, not of “films” (the sidebar's)" in _texts(at)
    # ... and no longer once the sidebar is back on the demo
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("demo").run()
    assert _reports(at) == ["Report: demo-run"] and "This report is of the workspace" not in _texts(at)
    # on films, the demo's run loaded by name says whose figures these are; films has no run yet
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert at.selectbox(key=S.BENCH_LOAD_PICK).options == ["demo-run · demo"]  # each run says its workspace
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("demo-run")
    at.button(key=S.BENCH_LOAD).click().run()
    assert _reports(at) == ["Report: demo-run"]
    assert "This report is of the workspace “demo”**, not of “films” (the sidebar's)" in _texts(at)
    assert "“films” has no finished run yet" in _texts(at)
    # once films has a run, the note offers it
    _run(at, "films-run")
    assert _reports(at) == ["Report: films-run"] and "This report is of the workspace" not in _texts(at)
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("demo-run")
    at.button(key=S.BENCH_LOAD).click().run()
    assert "“films” has 1 run of its own" in _texts(at)
    at.button(key=S.BENCH_LOAD_OWN).click().run()
    assert _reports(at) == ["Report: films-run"] and "This report is of the workspace" not in _texts(at)


def test_a_questions_file_whose_gold_matches_nothing_is_named_not_called_missing(home, tmp_path):
    """An audit uploaded a questions file whose every gold title matched no passage; the Benchmark said only "This
    workspace has no questions with gold evidence", as if no file had been uploaded."""
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    src, qs = tmp_path / "films.jsonl", tmp_path / "films_q.json"
    src.write_text("\n".join(json.dumps(r) for r in FILMS))
    qs.write_text(json.dumps([{**QUESTIONS[0], "supporting_facts": [["Speed (1994)", 0]]}]))
    create_workspace([src], home / "workspaces" / "films", title="Films", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), questions=qs)
    at = run_page(PAGE)
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("films").run()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(plain(w.value) for w in at.warning)
    assert "None of the 1 question of this workspace's questions file names a gold passage" in said
    assert "'Speed (1994)'" in said and not [i for i in at.info if "no questions with gold evidence" in i.value]
