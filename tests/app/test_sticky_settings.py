"""Settings that must not stick (AppTest): the benchmark run name belongs to its workspace, the upload form
empties after a build (a failed build's file and name never name the next upload), a choice among one
question's results starts over for the next question, no server path reaches the browser, refusals are in
the app's words, and a workspace without questions offers questions its graph answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from components.bubblerag.shared import DEMO_QUESTION
from core.index.workspace import Workspace
from tests.app.helpers import ROOT, plain, run_page, switch

TRIPLES = b"head,relation,tail\nThe Matrix,starring,Keanu Reeves\nThe Matrix,directed by,The Wachowskis\n" \
          b"John Wick (film),starring,Keanu Reeves\nThe Matrix,starring,Laurence Fishburne\n" \
          b"Laurence Fishburne,acted in,Apocalypse Now\nKeanu Reeves,played,Neo\n"
CORPUS = [{"id": "matrix", "title": "The Matrix", "text": "The Matrix, directed by the Wachowskis, stars Keanu Reeves as "
           "Neo and Laurence Fishburne."},
          {"id": "wick", "title": "John Wick", "text": "John Wick is a film starring Keanu Reeves."},
          {"id": "apocalypse", "title": "Apocalypse Now", "text": "Laurence Fishburne acted in Apocalypse Now."}]


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _tiny(home: Path, tmp_path: Path, name: str = "tiny") -> None:
    """A KG workspace without a questions file."""
    from core.backends.registry import get_embedder
    from core.index.create import create_workspace

    src = tmp_path / f"{name}.csv"
    src.write_bytes(TRIPLES)
    corpus = tmp_path / f"{name}-corpus.json"
    corpus.write_text(json.dumps(CORPUS))
    create_workspace([corpus, src], home / "workspaces" / name, embedder=get_embedder("hashing"))


def _use(at: AppTest, workspace: str) -> AppTest:
    return _ok(at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value(workspace).run())


# ------------------------------------------------------------------------------ run name
def test_the_run_name_belongs_to_its_workspace(home: Path, tmp_path: Path) -> None:
    """The audit: a run name typed on the demo stayed when the workspace changed, so a MuSiQue run was sent into
    the demo's run (and refused). Each workspace starts on its own default; a typed name comes back with it."""
    _tiny(home, tmp_path)
    okey = S.widget_key(S.BENCH_OUT, "bench")
    at = run_page("pages/benchmark.py")
    assert at.text_input(key=okey).value.startswith("demo-")
    at.text_input(key=okey).set_value("my-demo-run").run()
    _use(at, "tiny")
    assert at.text_input(key=okey).value.startswith("tiny-")
    _use(at, "demo")
    assert at.text_input(key=okey).value == "my-demo-run"


def test_the_default_run_name_follows_the_backends_until_typed_over(home: Path) -> None:
    okey = S.widget_key(S.BENCH_OUT, "bench")
    at = run_page("pages/benchmark.py")
    first = at.text_input(key=okey).value
    at.sidebar.selectbox(key=S.widget_key(S.EMBEDDER)).set_value("minilm").run()
    _ok(at)
    assert at.text_input(key=okey).value == first.replace("hashing", "minilm") != first


def test_a_refused_run_speaks_the_apps_words(home: Path) -> None:
    """A run name holding another run's settings: the refusal names the run and the fix in the app (another
    name, the Load tab) — no folder path, no --out flag. The CLI keeps its own wording."""
    from core.errors import ConfigError

    run = home / "runs" / "clash"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"settings": {"workspace": "elsewhere", "cut": 10}, "methods": []}))
    at = run_page("pages/benchmark.py")
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(1)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value("clash").run()
    _ok(at.button(key=S.BENCH_RUN).click().run())
    shown = " ".join(plain(e.value) for e in at.warning)  # a refusal with its way out, not a failure
    assert "The run “clash” was made with other settings (" in shown and "workspace: elsewhere → demo" in shown
    assert "Start a new run (a new run name)" in shown and "Load a report" in shown
    assert at.button(key=S.BENCH_NEW_RUN).label.startswith("Start a new run “clash")
    assert "--" not in shown and str(home) not in shown and "/" not in shown.replace("→", ""), shown
    # the same refusal on the command line
    from core.backends.registry import get_embedder, get_llm
    from core.eval.runner import run_benchmark
    from core.index.questions import load_questions
    from core.methods.base import Backends

    ws = Workspace.open(home / "workspaces" / "demo")
    with pytest.raises(ConfigError, match="use another --out folder") as err:
        run_benchmark(ws, load_questions(ws), ["dense"], Backends(get_embedder("hashing"), get_llm("none")),
                      out_dir=run, limit=1)
    assert str(run) in str(err.value) and "--out" not in err.value.in_app()


# ------------------------------------------------------------------------------ upload form
def test_a_failed_build_keeps_the_form_and_a_build_empties_it(home: Path) -> None:
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("bad1.csv", b"head,relation\nonly,two\n", "text/csv"))
    _ok(at.button(key=S.DATA_BUILD).click().run())
    assert any("Could not build workspace “bad1”" in plain(e.value) for e in at.error), [e.value for e in at.error]
    # the failed build's file stays chosen (fixing it means swapping that one file, not picking every file again);
    # no name was typed, so the next build is named after its own file, not "bad1"
    kept = at.file_uploader(key=S.DATA_UPLOADS)
    assert [f.name for f in (kept.value if isinstance(kept.value, list) else [kept.value])] == ["bad1.csv"]
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).value == ""
    kept.set_value(("films.csv", TRIPLES, "text/csv"))  # the corrected file in its place
    _ok(at.button(key=S.DATA_BUILD).click().run())
    assert Workspace.open(home / "workspaces" / "films").graph.n_edges == 6
    assert not (home / "workspaces" / "bad1").exists()
    # built: the page opened it, and the form is empty again (no earlier file sticks to the next build)
    assert at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).value == "films"
    assert not at.file_uploader(key=S.sub(S.DATA_UPLOADS, "1")).value
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).value == ""


# ------------------------------------------------------------------------------ stale choices
def test_the_ceg_drawn_starts_over_for_a_new_question(home: Path) -> None:
    """The audit: "Draw a CEG" kept the previous question's pick — the same index is another CEG there."""
    q = S.widget_key(S.BUBBLE_QUESTION, "ranking")
    ceg = S.widget_key(S.BUBBLE_CEG)
    at = _ok(run_page("pages/bubble_ranking.py"))
    picked = _pick(at, ceg, 1)
    at.text_input(key=q).input(LOTHAIR).run()
    _ok(at)
    box = at.selectbox(key=ceg)
    assert picked in list(box.proto.options) or picked in _indexes(at), "the new question must offer the old pick"
    assert box.index == 0  # its best CEG, not the old question's pick
    again = _pick(at, ceg, 1)
    at.text_input(key=q).input(LOTHAIR).run()  # the same question again: the pick stays
    assert at.session_state[S.BUBBLE_CEG] == again and at.selectbox(key=ceg).index == 1


LOTHAIR = "When did Lothair II's mother die?"


def test_the_anchor_stage_starts_over_for_a_new_question(home: Path) -> None:
    stage = S.widget_key(S.BUBBLE_STAGE)
    at = _ok(run_page("pages/bubble_anchors.py"))
    first = at.select_slider(key=stage).value
    at.button(key=S.sub(S.BUBBLE_STAGE, "next")).click().run()
    at.button(key=S.sub(S.BUBBLE_STAGE, "next")).click().run()
    assert at.select_slider(key=stage).value != first
    walked = at.select_slider(key=stage).value
    _ok(switch(at, "pages/bubble_ranking.py"))  # another page, the same question: the stage stays
    _ok(switch(at, "pages/bubble_anchors.py"))
    assert at.select_slider(key=stage).value == walked
    at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "anchors")).input(LOTHAIR).run()
    assert _ok(at).select_slider(key=stage).value == first


def _indexes(at: AppTest) -> list[object]:
    from tests.app.test_bubblerag_pages import _ranking

    return [int(str(c).lstrip("#")) if str(c).lstrip("#").isdigit() else c for c in _ranking(at)["CEG"]]


def _pick(at: AppTest, key: str, i: int) -> object:
    """Pick the ``i``-th CEG of the ranking and return the value kept for it."""
    box = at.selectbox(key=key)
    assert len(box.options) > i
    box.select_index(i).run()
    _ok(at)
    assert at.selectbox(key=key).index == i
    return at.session_state[S.BUBBLE_CEG]


# ------------------------------------------------------------------------------ server paths
def _all_text(at: AppTest) -> str:
    """Everything the browser receives of the page: every element's message (labels, help, text, HTML)."""
    out: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


MAIN_PAGES = ("pages/home.py", "pages/data.py", "pages/benchmark.py", "pages/bubble_anchors.py",
              "pages/bubble_expansion.py", "pages/bubble_ranking.py", "pages/bubble_ask.py", "pages/compare.py",
              "pages/subgraph.py", "pages/granker.py", "pages/evidence_chains.py")


def test_no_server_path_in_any_rendered_element(home: Path, tmp_path: Path) -> None:
    """The audit found three: the Data page's "workspace folder", the Benchmark page's runs folder (help and
    info), and the "Add documents" refusal's command line with the sample's folder."""
    from core.index.paths import cache_dir, sample_data_dir

    _tiny(home, tmp_path)
    at = run_page()
    banned = {str(ROOT), str(home), str(sample_data_dir()), str(cache_dir()), str(Path.home()) + "/"}
    for workspace in ("demo", "tiny"):
        _use(at, workspace)
        for page in MAIN_PAGES:
            _ok(switch(at, page))
            text = _all_text(at)
            found = sorted(p for p in banned if p in text)
            assert not found, (workspace, page, found)
    # a finished benchmark's report (its settings name the questions file) and a refused run
    _use(at, "demo")
    switch(at, "pages/benchmark.py")
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(1)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value("scan").run()
    _ok(at.button(key=S.BENCH_RUN).click().run())
    assert any("1 runs now" in plain(x.value) for x in at.success), [x.value for x in at.success]
    _use(at, "tiny")
    switch(at, "pages/benchmark.py")
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value("scan").run()
    text = _all_text(at)
    assert not sorted(p for p in banned if p in text)
    # the Data page still names the folder, as the browser may see it
    _use(at, "demo")
    switch(at, "pages/data.py")
    assert any("workspace folder: sample_data/demo" in plain(c.value) or
               "workspace folder: workspaces/demo" in plain(c.value) for c in at.caption)


def test_error_text_cuts_paths_and_prefers_the_apps_words(home: Path) -> None:
    from components.ui import error_text, public_text
    from core.errors import ConfigError, WorkspaceError

    assert public_text(f"{home}/runs/x holds a run.") == "runs/x holds a run."
    assert public_text("file /srv/data/t.csv, line 3: bad") == "file t.csv, line 3: bad"
    assert public_text("5 tok/s, and/or http://host:8080/v1/chat") == "5 tok/s, and/or http://host:8080/v1/chat"
    assert error_text(ConfigError(f"{home}/runs/x: use another --out folder", app="Pick another run name.")) \
        == "Pick another run name."
    assert error_text(WorkspaceError(f"{ROOT}/sample_data/demo is damaged.")) == "sample_data/demo is damaged."


# ------------------------------------------------------------------------------ suggested questions
def test_ask_offers_questions_the_graph_answers(home: Path, tmp_path: Path) -> None:
    _tiny(home, tmp_path)
    at = _use(run_page("pages/bubble_ask.py"), "tiny")
    q = S.widget_key(S.BUBBLE_QUESTION, "ask")
    assert at.text_input(key=q).value == ""  # no questions file: nothing pre-filled …
    buttons = [b for b in at.button if b.key and b.key.startswith(S.BUBBLE_SUGGESTED + ".")]
    assert 3 <= len(buttons) <= 5  # … but questions written from the graph
    label = plain(buttons[1].label)
    _ok(buttons[1].click().run())
    assert at.text_input(key=q).value == label
    assert any("Answer" in plain(m.value) for m in at.markdown)  # the run happened on it
    _use(at, "demo")  # a workspace with questions offers none
    assert not [b for b in at.button if b.key and b.key.startswith(S.BUBBLE_SUGGESTED + ".")]
    assert at.text_input(key=q).value == DEMO_QUESTION


def test_compare_offers_questions_the_graph_answers(home: Path, tmp_path: Path) -> None:
    _tiny(home, tmp_path)
    at = _use(run_page("pages/compare.py"), "tiny")
    custom = S.widget_key(S.COMPARE_CUSTOM, "compare")
    buttons = [b for b in at.button if b.key and b.key.startswith(S.COMPARE_SUGGESTED + ".")]
    assert len(buttons) >= 3
    assert at.text_input(key=custom).value == plain(buttons[0].label)  # the first is the default question
    assert at.text_input(key=custom).value != DEMO_QUESTION  # never the demo's question on another graph
    label = plain(buttons[2].label)
    _ok(buttons[2].click().run())
    assert at.text_input(key=custom).value == label
    assert not at.error, [e.value for e in at.error]
