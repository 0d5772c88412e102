"""A partial replay of a recorded LLM run is never shown as the recorded run (AppTest): the Ask and Compare
pages say "Partly replayed" in the answer area, before the answer, and a question with no recorded run
says "Not a recorded run"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components import state as S
from core.backends.llm_bundles import stamp_bundle
from core.cli import main
from tests.app.helpers import plain, run_page
from tests.cli.test_llm_cache_cli import _reply
from tests.fake_openai import fake_openai_server, openai_env


@pytest.fixture
def partial_bundle(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> Path:  # type: ignore[no-untyped-def]
    """BubbleRAG and dense recorded (fake server, hashing embedder) on the Keanu question, then the answer's
    reply taken out of the bundle: each run replays up to its answer, which runs without the LLM."""
    bundle = tmp_path / "rec.json"
    with fake_openai_server({"content": _reply}) as server, monkeypatch.context() as m:
        for k, v in openai_env(server).items():
            m.setenv(k, v)
        assert main(["record", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder",
                     "--llm", "openai", "--methods", "bubblerag,dense", "--only", "matrix-villain",
                     "--out", str(bundle)]) == 0
    capsys.readouterr()
    data = json.loads(bundle.read_text())
    data["entries"] = {k: e for k, e in data["entries"].items() if e["text"] != "20 March 851"}  # the answers
    bundle.write_text(json.dumps(data))
    stamp_bundle(bundle)  # an edit checked by the test itself: re-hashed, as `check_recordings.py --stamp` does
    monkeypatch.setenv("EGX_LLM", "recorded")
    monkeypatch.setenv("EGX_LLM_RECORDINGS", str(bundle))
    return bundle


def _warnings(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [plain(w.value) for w in at.warning]


def test_ask_page_flags_a_partial_replay_before_the_answer(partial_bundle: Path) -> None:
    at = run_page("pages/bubble_ask.py")
    flagged = [w for w in _warnings(at) if w.startswith("Partly replayed:")]
    assert len(flagged) == 1, _warnings(at)
    assert "ran without the LLM because their prompts were not recorded" in flagged[0]
    assert "This is not the recorded run" in flagged[0]
    # in the answer area, before the answer text: the warning comes first in the answer's container
    box = next(c for c in at.main.children.values()
               if any("Partly replayed" in plain(getattr(e, "value", "") or "") for e in _walk(c)))
    texts = [plain(str(getattr(e, "value", ""))) for e in _walk(box)]
    i_warn = next(i for i, t in enumerate(texts) if t.startswith("Partly replayed"))
    i_answer = next(i for i, t in enumerate(texts) if t == "**Answer**" or t == "Answer")
    assert i_answer < i_warn < i_answer + 2, texts[:6]


def test_compare_page_flags_partial_and_unrecorded_runs(partial_bundle: Path) -> None:
    at = run_page("pages/compare.py")
    warns = _warnings(at)
    # bubblerag and dense were recorded (now partly), every other method has no recorded run of this question: they
    # run as in none mode (an audit's "Who directed The Matrix?" quoted the cast sentence by embedding cosine where
    # none mode's cross-encoder quotes "directed by the Wachowskis"), said once before the runs, not per column
    assert sum(w.startswith("Partly replayed:") for w in warns) == 2, warns
    gap = [w for w in warns if w.startswith("The recorded LLM holds a run for 2 of 8 question × method pairs")]
    assert len(gap) == 1 and "for the other 6, they run without an LLM, as in none mode" in gap[0], warns
    assert not any(w.startswith("Not a recorded run") for w in warns), warns
    assert not any(w.startswith("Without an LLM this is") for w in warns), warns
    # a replay's seconds are milliseconds: "live s" says what the recorded runs took live, blank for the others (an
    # audit read BubbleRAG's 0.055 s off the table as its cost)
    import math

    from components.compare_view import table_name

    summary = at.dataframe[0].value.set_index("method")
    live = summary["live s"]
    for m in ("bubblerag", "dense"):
        assert live[table_name(m)] >= 0 and not math.isnan(live[table_name(m)]), summary
    assert math.isnan(live[table_name("ppr")]), summary
    # the wall-time column says it is a replay's (an audit found the header "seconds" gave no hint of it)
    config = json.loads(at.dataframe[0].proto.columns)
    assert config["seconds"]["label"] == "s (replay)", config["seconds"]


def _walk(node):  # type: ignore[no-untyped-def]
    """Every element under an AppTest block, in page order."""
    kids = getattr(node, "children", None)
    if not kids:
        yield node
        return
    for k in kids.values():
        yield from _walk(k)


def test_the_recorded_llm_on_a_workspace_it_holds_no_run_of_is_said_before_the_run(
        home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a browser audit ran 48 pairs for 200 s before "6 of 6 questions have no recorded run": now the Benchmark
    # page says it where the backends are named, before the Run button is pressed
    from tests.app.helpers import recordings_of_another_workspace

    recordings_of_another_workspace(tmp_path, monkeypatch)
    at = run_page("pages/benchmark.py")
    assert not at.exception, [e.value for e in at.exception]
    # a workspace the recordings hold nothing of: the one notice that says so, what runs instead and how to go live
    said = [plain(i.value) for i in at.main.info if plain(i.value).startswith("**“demo” has no recordings.**")]
    assert len(said) == 1, [plain(i.value) for i in at.main.info]
    assert "runs recorded on “elsewhere”" in said[0] and "without an LLM, as in `none` mode" in said[0]
    assert not any("recorded" in w.lower() for w in _warnings(at)), _warnings(at)
    # the sidebar, whose LLM box still reads "recorded", says the same (an audit read "replayed" there beside a
    # run named "-no-llm")
    side = plain(" ".join(c.value for c in at.sidebar.caption))
    assert "none is recorded on “demo”, so every method here runs without an LLM" in side, side
    assert "replayed, not generated now" not in side, side


def test_the_gap_is_counted_per_question_and_method() -> None:
    from core.backends.llm_bundles import recording_gap

    runs = frozenset({("demo", "dense", "q1"), ("demo", "ppr", "q1")})
    assert recording_gap(runs, "demo", ["q1"], ["dense", "ppr"]) == ""
    assert recording_gap(runs, "demo", ["q1", "q2"], ["dense", "ppr"]).startswith(
        "The recorded LLM holds a run for 2 of 4 question × method pairs here; for the other 2, they run without an "
        "LLM, as in none mode")
    assert recording_gap(runs, "demo", ["q2"], ["dense"]).startswith(
        "The recorded LLM holds no run of this question with this method:")


def test_own_workspace_with_the_recorded_llm_says_it_once(home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace the recordings hold nothing of, with the recorded LLM: Ask stacked "workspace not recorded",
    "Not a recorded run…", "Without an LLM this is…" and a fallback line. One notice now says that this workspace has
    no recordings, that the methods run without an LLM (none mode) here and how to use a live LLM."""
    from components import state as S
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EGX_LLM", "recorded")
    src = tmp_path / "films.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in (
        {"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
        {"id": "a2", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."})))
    create_workspace([src], home / "workspaces" / "films", title="Films", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"))
    at = run_page("pages/bubble_ask.py", **{S.WORKSPACE: "films", S.BUBBLE_QUESTION: "Who starred in Speed?"})
    assert any(plain(m.value).startswith("Keanu Reeves starred in") for m in at.markdown)  # it answered
    notices = [plain(n.value) for kind in (at.main.warning, at.main.info, at.main.error) for n in kind]
    about = [n for n in notices if "record" in n.lower() or "LLM" in n]
    assert len(about) == 1, notices
    one = about[0]
    assert one.startswith("**“films” has no recordings.**") and "without an LLM, as in `none` mode" in one, one
    assert "`local (live)`" in one and "`openai (live)`" in one, one  # how to get a live LLM
    assert not any(c.value.startswith("↪") for c in at.main.caption)  # no fallback line repeating it
    # Compare: the same one notice, no "Not a recorded run" in each method's column
    at = run_page("pages/compare.py", **{S.WORKSPACE: "films", S.COMPARE_QUESTION: "Who starred in Speed?"})
    notices = [plain(n.value) for kind in (at.main.warning, at.main.info, at.main.error) for n in kind]
    assert sum(n.startswith("**“films” has no recordings.**") for n in notices) == 1, notices
    assert not any("Not a recorded run" in n or "Without an LLM this is" in n for n in notices), notices
    # the SG-RAG and ReG pages: the same one notice before the run, nothing repeating it at the answer
    for page in ("pages/subgraph.py", "pages/evidence_chains.py"):
        at = run_page(page, **{S.WORKSPACE: "films"})
        notices = [plain(n.value) for kind in (at.main.warning, at.main.info, at.main.error) for n in kind]
        about = [n for n in notices if "record" in n.lower()]
        assert len(about) == 1 and about[0].startswith("**“films” has no recordings.**"), (page, notices)


def test_a_run_the_recorded_llm_cannot_answer_is_titled_without_an_llm(home: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit's running box read "Retrieve-then-rerank (Re2) with LLM recorded is running" right under the notice
    that no LLM is used on this workspace: such a run is titled by what answers, as the Benchmark's "-no-llm" run
    name is. Since the recorded LLM there runs every method as in none mode, no run waits on an LLM, so none is a
    job (as in none mode) and no title names the recorded LLM."""
    from components import jobs_view
    from components import state as S
    from tests.app.helpers import recordings_of_another_workspace

    recordings_of_another_workspace(tmp_path, monkeypatch)
    at = run_page("pages/compare.py", **{S.COMPARE_METHODS: ["dense", "rerank"]})
    titles = [j.status().title for j in jobs_view.jobs().jobs() if j.key.startswith("method:")]
    assert all(t.endswith(" without an LLM") for t in titles), titles
    assert not titles  # as in none mode: a run waits on no LLM, so it is no job you watch
    shown = " ".join(plain(str(e.value)) for kind in ("markdown", "caption", "info") for e in at.get(kind))
    assert "with LLM recorded" not in shown


def test_ask_with_the_recorded_llm_on_a_question_it_holds_no_run_of_says_so_once(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit asked "Who directed The Matrix?" with the recorded LLM on the demo: three yellow notices and the
    cast sentence, picked by embedding cosine (the fallbacks of an LLM that failed). It is a none-mode run now,
    said once before it: the answer is scored by the reranker as in none mode, with no "Not a recorded run"."""
    from components import state as S

    monkeypatch.setenv("EGX_LLM", "recorded")
    at = run_page("pages/bubble_ask.py")
    at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask")).input("Who directed The Matrix?")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    warns = _warnings(at)
    said = [w for w in warns if w.startswith("The recorded LLM holds no run of this question with this method: it "
                                             "runs without an LLM, as in none mode")]
    assert len(said) == 1, warns
    assert not any(w.startswith(("Not a recorded run", "Without an LLM this is", "Partly replayed")) for w in warns)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "scored by the reranker" in captions and "embedding cosine" not in captions, captions


def test_compare_starts_at_the_budget_the_recordings_hold_and_says_so_under_another(partial_bundle: Path) -> None:
    """The bundle holds runs at each method's own budget only: Compare starts there and says why; picking BubbleRAG
    §4.1's budget warns before the run that the answers it changes have no recording."""
    at = run_page("pages/compare.py")
    box = at.selectbox(key=S.widget_key(S.COMPARE_BUDGET, "compare"))
    assert box.value == "own"
    assert any("recorded at each method's own budget only" in plain(c.value) for c in at.caption)
    box.set_value("bubblerag").run()
    said = [w for w in _warnings(at) if "were recorded under the budget “own”, not “bubblerag”" in w]
    assert len(said) == 1 and "Pick “own” for the recorded answers" in said[0], _warnings(at)
