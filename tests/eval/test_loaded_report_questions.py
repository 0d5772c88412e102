"""A loaded report says what changed in its workspace since the run as the Run tab's refusal does, the questions
included: an audit replaced its questions file and added a document, and the loaded report named the document
only (the questions' hash it compared was the run's own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_extractor, get_llm
from core.eval.bench_files import RUN
from core.eval.identity import report_change
from core.eval.runner import run_benchmark
from core.index.create import create_workspace
from core.index.insert import add_documents
from core.index.questions import load_questions
from core.index.questions_file import replace_questions
from core.index.workspace import Workspace
from core.methods.base import Backends

PASSAGES = [
    {"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
    {"id": "a2", "title": "Agent Smith", "text": "Agent Smith is played by Hugo Weaving in The Matrix."},
    {"id": "a3", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."},
]
MORE = [{"id": "b1", "title": "John Wick", "text": "Keanu Reeves starred in John Wick, directed by Chad Stahelski."}]
QUESTIONS = [
    {"id": "q1", "question": "Who played Agent Smith?", "answer": "Hugo Weaving", "supporting_facts": [["Agent Smith", 0]]},
    {"id": "q2", "question": "Who starred in Speed?", "answer": "Keanu Reeves", "supporting_facts": [["Speed", 0]]},
]
CHANGED = "the questions changed (their text, gold passages or answers)"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def ran(tmp_path):
    """A workspace with its questions and a finished dense run's settings on it."""
    src = _write(tmp_path / "in" / "a.jsonl", "\n".join(json.dumps(p) for p in PASSAGES) + "\n")
    q = _write(tmp_path / "in" / "questions.json", json.dumps(QUESTIONS))
    path = tmp_path / "ws"
    create_workspace([src], path, embedder=get_embedder("hashing"), extractor=get_extractor("rules"), questions=q)
    ws = Workspace.open(path)
    out = tmp_path / "run"
    run_benchmark(ws, load_questions(ws), ["dense"], Backends(get_embedder("hashing"), get_llm("none")), out_dir=out)
    return path, json.loads((out / RUN).read_text())["settings"]


def test_a_replaced_questions_file_is_named_beside_the_documents_added(ran, tmp_path):
    path, settings = ran
    assert report_change(settings, Workspace.open(path)) == ""
    edited = [dict(QUESTIONS[0], question="Which actor played Agent Smith?"), QUESTIONS[1]]
    replace_questions(path, _write(tmp_path / "in" / "q2.json", json.dumps(edited)))
    assert report_change(settings, Workspace.open(path)) == CHANGED
    add_documents(path, [_write(tmp_path / "in" / "more.jsonl", json.dumps(MORE[0]) + "\n")])
    text = report_change(settings, Workspace.open(path))
    assert "1 document added (more.jsonl; 1 passage)" in text and CHANGED in text


def test_unchanged_questions_after_added_documents_are_not_called_changed(ran, tmp_path):
    path, settings = ran
    add_documents(path, [_write(tmp_path / "in" / "more.jsonl", json.dumps(MORE[0]) + "\n")])
    text = report_change(settings, Workspace.open(path))
    assert "1 document added" in text and "questions" not in text


def test_a_questions_file_that_cannot_be_read_is_left_unsaid(ran):
    path, settings = ran
    ws = Workspace.open(path)
    assert ws.questions_path is not None
    ws.questions_path.write_text("{not json", encoding="utf-8")
    assert report_change(settings, Workspace.open(path)) == ""
