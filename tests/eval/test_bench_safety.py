"""`egx bench` never writes duplicate lines, never drops a question
silently, and an empty question is a recorded failure, not an abort on every resume."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_llm
from core.errors import ConfigError, InputFormatError, OutputPathError
from core.eval.report import RESULTS
from core.eval.runner import run_benchmark
from core.fsio import path_lock
from core.index.questions import load_questions_file, parse_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, get_llm("none"))


def qs(ws, records):  # type: ignore[no-untyped-def]
    return parse_questions(records, ws.graph, source="q.json")


MATRIX = {"id": "m", "question": "Who played Agent Smith?", "supporting_facts": [["The Matrix", 0]]}
LOTHAIR = {"id": "l", "question": "When did Lothair II's mother die?", "supporting_facts": [["Lothair II", 0]]}


def lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / RESULTS).read_text().splitlines() if x.strip()]


def test_a_second_run_into_the_same_folder_is_refused_while_the_first_writes(demo, tmp_path):
    ws, b = demo
    out = tmp_path / "out"
    out.mkdir()
    held, done = threading.Event(), threading.Event()

    def other_session() -> None:  # what a running `egx bench` (or another app session) holds
        with path_lock(out / RESULTS):
            held.set()
            done.wait(10)

    t = threading.Thread(target=other_session)
    t.start()
    held.wait(10)
    try:
        with pytest.raises(ConfigError, match=re.escape(f"Another benchmark run is writing to {out} right now; wait "
                                                        "for it to finish, or use another output folder.")):
            run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=out)
    finally:
        done.set()
        t.join()
    assert not (out / RESULTS).exists()
    rep = run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=out)  # free again
    assert rep.ran == 1


HOLD = """
import sys, time
from core.fsio import path_lock
with path_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(30)
"""


def test_the_lock_holds_across_processes(demo, tmp_path):
    ws, b = demo
    out = tmp_path / "out"
    out.mkdir()
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(out / RESULTS)], cwd=ROOT, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match="Another benchmark run is writing to"):
            run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=out)
    finally:
        child.kill()
        child.wait()


def test_out_pointing_at_a_file_is_refused_and_the_file_kept(demo, tmp_path):
    ws, b = demo
    f = tmp_path / "file.txt"
    f.write_text("keep me")
    with pytest.raises(OutputPathError, match=re.escape(f"The benchmark folder {f} is a file; give a folder (it is "
                                                        "created when missing).")):
        run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=f)
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("limit", [-1, 0])
def test_a_limit_below_one_is_an_error_not_a_silent_cut(demo, tmp_path, limit):
    ws, b = demo
    with pytest.raises(ConfigError, match=re.escape(f"limit = {limit} is out of range; use a positive number of "
                                                    "questions (or no limit for all of them).")):
        run_benchmark(ws, qs(ws, [MATRIX, LOTHAIR]), ["dense"], b, out_dir=tmp_path / "o", limit=limit)
    assert not (tmp_path / "o").exists()  # refused before anything was written


def test_duplicate_question_ids_are_an_error(demo, tmp_path):
    ws, b = demo
    with pytest.raises(ConfigError, match=re.escape(
            "Question id 'm' is used twice (questions 1 and 2); results are kept per question id, so one would "
            "silently replace the other. Give every question a unique id.")):
        run_benchmark(ws, qs(ws, [MATRIX, {**LOTHAIR, "id": "m"}]), ["dense"], b, out_dir=tmp_path / "o")


def test_questions_whose_gold_matches_nothing_are_an_error_or_a_warning(demo, tmp_path):
    ws, b = demo
    nowhere = {"id": "x", "question": "Who?", "supporting_facts": [["No Such Title", 0]]}
    with pytest.raises(ConfigError, match=re.escape(
            "None of the 1 questions has gold evidence in workspace 'demo': their gold passages match no chunk (e.g. "
            "'No Such Title'). Check that the questions belong to this workspace's corpus.")):
        run_benchmark(ws, qs(ws, [nowhere]), ["dense"], b, out_dir=tmp_path / "o")
    rep = run_benchmark(ws, qs(ws, [MATRIX, nowhere]), ["dense"], b, out_dir=tmp_path / "o2")
    assert rep.ran == 1
    assert rep.warnings == ("1 of 2 questions are left out: their gold passages match no chunk of this workspace "
                            "('x').",)


def test_an_empty_question_is_a_recorded_failure_and_resume_goes_on(demo, tmp_path):
    ws, b = demo
    out = tmp_path / "o"
    questions = qs(ws, [{**MATRIX, "id": "empty", "question": "   "}, MATRIX])
    rep = run_benchmark(ws, questions, ["bubblerag", "dense"], b, out_dir=out)
    assert rep.ran == 4
    errs = {(r["question_id"], r["method"]): r["error"] for r in lines(out)}
    assert errs[("empty", "bubblerag")] == errs[("empty", "dense")] == \
        "QueryError: Question 'empty' is empty; there is nothing to retrieve evidence for."
    assert errs[("m", "dense")] is None
    again = run_benchmark(ws, questions, ["bubblerag", "dense"], b, out_dir=out)  # resume: nothing re-runs
    assert (again.ran, again.skipped) == (0, 4)
    assert len(lines(out)) == 4


def test_questions_file_nested_too_deep_is_a_clean_error(demo, tmp_path):
    ws, _ = demo
    p = tmp_path / "q.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputFormatError, match=re.escape(
            "q.json: the JSON is nested too deeply to read (thousands of levels). Expected a JSON list of questions, "
            "nested at most a few levels deep.")):
        load_questions_file(p, ws.graph)


def test_a_question_id_that_is_not_text_is_refused(demo):
    ws, _ = demo
    with pytest.raises(InputFormatError, match=re.escape(
            """q.json, record 1: the question "id" is a list (['a']). Expected an "id" string or number.""")):
        qs(ws, [{**MATRIX, "id": ["a"]}])


@pytest.mark.slow  # over a minute on 2 cores
def test_a_sigkilled_bench_resumes_exactly(tmp_path, monkeypatch):
    """A real SIGKILL mid-run (the kernel drops the run's lock with the process): the rerun takes
    the lock, drops the torn line, runs only what is missing, and ends equal to a clean run."""
    import os
    import signal
    import time

    from core.cli import main

    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    args = ["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,ppr,fastinsight,bubblerag"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = tmp_path / "killed"
    child = subprocess.Popen([sys.executable, "-m", "core.cli", *args, "--out", str(killed)], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        p = killed / RESULTS
        if p.exists() and len(p.read_text().splitlines()) >= 5:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    child.wait()
    assert child.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    before = len(lines(killed))
    with (killed / RESULTS).open("a") as fh:
        fh.write('{"question_id": "lothair-mother", "method": "pp')  # the line in flight
    assert main([*args, "--out", str(killed)]) == 0
    assert main([*args, "--out", str(tmp_path / "clean")]) == 0
    got, want = lines(killed), lines(tmp_path / "clean")
    key = lambda r: (r["question_id"], r["method"])  # noqa: E731
    assert len(got) == len(want) == 20 and len({key(r) for r in got}) == 20 and before < 20
    assert {key(r): r["ranked"] for r in got} == {key(r): r["ranked"] for r in want}


def test_a_damaged_bench_folder_is_a_clean_error(demo, tmp_path):
    from core.eval.bench_files import RUN, read_records
    from core.eval.bench_report import load_report

    ws, b = demo
    out = tmp_path / "o"
    run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=out)
    (out / RUN).write_text("[" * 100_000)
    with pytest.raises(ConfigError, match=r"run\.json is damaged .*; delete that benchmark folder or use another one"):
        load_report(out)
    (out / RUN).write_text('{"settings": 3}')
    with pytest.raises(ConfigError, match=r"is not a run\.json written by `egx bench`"):
        run_benchmark(ws, qs(ws, [MATRIX]), ["dense"], b, out_dir=out)
    with (out / RESULTS).open("a") as fh:
        fh.write("[" * 100_000 + "\n" + "\udcff".encode("utf-8", "surrogatepass").decode("latin-1") + "\n")
    recs, bad = read_records(out / RESULTS)
    assert len(recs) == 1 and bad == 2
