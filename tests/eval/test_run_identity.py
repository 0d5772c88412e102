"""A benchmark folder resumes only the run it holds: after documents are added to the workspace or a method's
trained model changes, a rerun into the same folder is refused naming the change (or, with ``restart``, replaced
by a fresh run) — never the old numbers resumed silently beside new ones."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_extractor, get_llm
from core.cli import main
from core.errors import ConfigError
from core.eval.bench_files import RUN, read_records
from core.eval.report import RESULTS
from core.eval.runner import check_run, run_benchmark
from core.index.create import create_workspace
from core.index.insert import add_documents
from core.index.questions import load_questions
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.registry import registered
from tests.fakes import TOY_METHOD

A = [
    {"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
    {"id": "a2", "title": "Agent Smith", "text": "Agent Smith is played by Hugo Weaving in The Matrix."},
    {"id": "a3", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."},
    {"id": "a4", "title": "Lothair II", "text": "Lothair II was the son of Emperor Lothair I and Ermengarde of Tours."},
]
B = [
    {"id": "b1", "title": "John Wick", "text": "Keanu Reeves starred in John Wick, directed by Chad Stahelski."},
    {"id": "b2", "title": "Ermengarde", "text": "Ermengarde of Tours married Lothair I in Thionville."},
    {"id": "b3", "title": "Hugo Weaving", "text": "Hugo Weaving was born in Nigeria and played Elrond."},
]
QUESTIONS = [
    {"id": "q1", "question": "Who played Agent Smith?", "answer": "Hugo Weaving", "supporting_facts": [["Agent Smith", 0]]},
    {"id": "q2", "question": "Who starred in Speed?", "answer": "Keanu Reeves", "supporting_facts": [["Speed", 0]]},
    {"id": "q3", "question": "Whose son was Lothair II?", "answer": "Lothair I", "supporting_facts": [["Lothair II", 0]]},
]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _workspace(tmp_path: Path, questions: list[dict]) -> Path:
    """Passages ``A`` with ``questions`` as a workspace (rules extractor, hashing embedder) at ``tmp_path / "ws"``."""
    q = tmp_path / "in" / "questions.json"
    q.parent.mkdir(parents=True)
    q.write_text(json.dumps(questions), encoding="utf-8")
    path = tmp_path / "ws"
    create_workspace([_jsonl(tmp_path / "in" / "a.jsonl", A)], path, embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), questions=q)
    return path


@pytest.fixture
def corpus_ws(tmp_path):
    """A small corpus workspace (rules extractor, hashing embedder) with its questions, and the file to add."""
    path = _workspace(tmp_path, QUESTIONS)
    return path, _jsonl(tmp_path / "in" / "more.jsonl", B), Backends(get_embedder("hashing"), get_llm("none"))


def _bench(path: Path, b: Backends, out: Path, **kw):
    ws = Workspace.open(path)
    return run_benchmark(ws, load_questions(ws), ["dense"], b, out_dir=out, **kw)


def test_a_rerun_after_documents_were_added_is_refused_naming_the_change(corpus_ws, tmp_path):
    path, more, b = corpus_ws
    out = tmp_path / "run"
    first = _bench(path, b, out)
    assert first.ran == 3 and first.skipped == 0
    before = json.loads((out / RUN).read_text())["settings"]["content"]
    assert before["passages"] == 4 and before["inserts"] == 0
    assert _bench(path, b, out).skipped == 3  # unchanged: resumed, nothing ran twice

    res = add_documents(path, [more])
    assert res.added == ("b1", "b2", "b3")
    after = Workspace.open(path).content_hash
    lines_before = (out / RESULTS).read_text()
    with pytest.raises(ConfigError, match=re.escape(
            f"{out} holds a benchmark run that is out of date — the workspace changed since this run: 1 document "
            f"added (more.jsonl; 3 passages) (content hash {before['content_hash'][:8]} → {after[:8]}). Its results "
            "would be stale beside new ones, so it is not resumed; start a new run with another --out folder, or "
            f"pass --restart to replace the old results in {out}.")) as err:
        _bench(path, b, out)
    assert "start a new run (a new run name)" in err.value.in_app() and "--" not in err.value.in_app()
    assert (out / RESULTS).read_text() == lines_before  # refused before anything was written
    # what the Benchmark page asks before it starts a run
    ws = Workspace.open(path)
    check = check_run(ws, load_questions(ws), ["dense"], b, out_dir=out)
    assert check.state == "stale" and "1 document added (more.jsonl; 3 passages)" in check.app

    (out / "marker.txt").write_text("old run")
    fresh = _bench(path, b, out, restart=True)
    assert fresh.ran == 3 and fresh.skipped == 0  # computed now, on the new content: no old number kept
    recs, _ = read_records(out / RESULTS)
    assert len(recs) == 3 and not (out / "marker.txt").exists()  # the old folder was replaced, not appended to
    assert json.loads((out / RUN).read_text())["settings"]["content"]["content_hash"] == after
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".run.")]  # no folder left aside
    assert _bench(path, b, out).skipped == 3  # and the new run resumes


def test_a_retrained_model_is_a_change_too(corpus_ws, tmp_path):
    """A method declares its trained models (``Method.stamp``); a benchmark resumes only with the same ones."""
    path, _, b = corpus_ws
    model = path / "toy-model.txt"
    model.write_text("v1")
    toy = dataclasses.replace(TOY_METHOD, stamp=lambda ws, backends, cfg: {"toy model": model.read_text()})
    out = tmp_path / "run"
    with registered(toy):
        ws = Workspace.open(path)
        assert run_benchmark(ws, load_questions(ws), ["toy"], b, out_dir=out).ran == 3
        assert json.loads((out / RUN).read_text())["settings"]["models"] == {"toy": {"toy model": "v1"}}
        model.write_text("v2")
        with pytest.raises(ConfigError, match=re.escape("the trained models changed since this run: toy's toy model "
                                                        "v1 → v2")):
            run_benchmark(ws, load_questions(ws), ["toy"], b, out_dir=out)
        # another method joining the folder keeps the first one's record (and is checked on its own next time)
        model.write_text("v1")
        rep = run_benchmark(ws, load_questions(ws), ["dense"], b, out_dir=out)
        assert rep.ran == 3 and json.loads((out / RUN).read_text())["settings"]["models"] == {"toy": {"toy model": "v1"}}


def test_a_stamp_that_is_a_key_says_what_it_names():
    """SG-RAG's stamp is the key of the model it would train, so after "Add documents" it changes before a model
    exists for the new graph; the stale notice says so (an audit read "dominance model 390f… → f713…" beside "none
    trained on its current graph" as a contradiction)."""
    from core.eval.identity import model_change

    text = model_change({"sgrag": {"dominance model": "390f"}}, {"sgrag": {"dominance model": "f713"}})
    assert text.startswith("SG-RAG's dominance model 390f → f713 (the key of the graph, embedder and seed")
    assert "trained on first use" in text
    assert model_change({"gone": {"m": "a"}}, {"gone": {"m": "b"}}) == "gone's m a → b"  # unregistered: its name


def test_a_run_saved_before_runs_kept_their_identity_resumes_only_when_asked(corpus_ws, tmp_path):
    path, _, b = corpus_ws
    out = tmp_path / "run"
    _bench(path, b, out)
    run = json.loads((out / RUN).read_text())
    for key in ("content", "models"):  # what an older egx wrote
        del run["settings"][key]
    (out / RUN).write_text(json.dumps(run))
    with pytest.raises(ConfigError, match=re.escape(
            "holds a benchmark run from before runs recorded what they were computed on (the workspace's content and "
            "the trained models), so nothing can tell whether the workspace or a model changed since; resuming could "
            "put stale results beside new ones. Resume it anyway with --resume-unverified, pass --restart to replace "
            "its results, or use another --out folder.")):
        _bench(path, b, out)
    rep = _bench(path, b, out, resume_unverified=True)
    assert rep.ran == 0 and rep.skipped == 3
    assert "content" in json.loads((out / RUN).read_text())["settings"]  # checked from now on
    assert _bench(path, b, out).skipped == 3


def test_the_command_line_refuses_and_restarts(corpus_ws, tmp_path, capsys):
    path, more, _ = corpus_ws
    out = tmp_path / "cli"
    args = ["bench", "--workspace", str(path), "--embedder", "hashing", "--methods", "dense", "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    add_documents(path, [more])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "the workspace changed since this run: 1 document added (more.jsonl; 3 passages)" in err
    assert "--restart" in err
    assert main([*args, "--restart"]) == 0
    assert "3 runs now, 0 already done" in capsys.readouterr().out


def test_gold_that_matches_added_documents_is_no_changed_question(tmp_path):
    """An audit added the documents its questions' gold titles named and read "the questions changed (their text,
    gold passages or answers)", having changed none: the same questions whose gold now lands on the new passages
    are said to be unchanged; a changed questions file is still called changed."""
    from core.eval.identity import content_change, workspace_identity

    qs = [*QUESTIONS, {"id": "q4", "question": "Who married Lothair I?", "answer": "Ermengarde of Tours",
                       "supporting_facts": [["Ermengarde", 0]]}]
    path = _workspace(tmp_path, qs)
    ws = Workspace.open(path)
    before = workspace_identity(ws, load_questions(ws))
    assert load_questions(ws)[3].unmatched == ("Ermengarde",)
    add_documents(path, [_jsonl(tmp_path / "in" / "more.jsonl", B)])
    ws = Workspace.open(path)
    after = workspace_identity(ws, load_questions(ws))
    text = content_change(before, after)
    assert "the questions' gold titles now match other passages" in text and "questions changed" not in text
    edited = dict(after, questions_text="another file", questions="another digest")
    assert "the questions changed (their text, gold passages or answers)" in content_change(after, edited)


def test_the_content_hash_stands_beside_the_content_change_not_after_a_questions_change():
    """"…; the questions changed … (content hash 09878bc6 → 2a1fcf21)" read as the questions' hash (an audit)."""
    from core.eval.identity import content_change

    old = {"content_hash": "09878bc6aa", "passages": 29, "questions": "q1", "inserts": 0}
    new = {"content_hash": "2a1fcf21bb", "passages": 32, "questions": "q2", "inserts": 0}
    assert content_change(old, new) == ("3 passages added (29 → 32) (content hash 09878bc6 → 2a1fcf21); the questions "
                                        "changed (their text, gold passages or answers)")
    assert "content hash" not in content_change({**old, "questions": "q1"}, {**old, "questions": "q2"})
