"""A built workspace's questions replaced by another file: read and matched first (a file that matches nothing, or
is no questions file, is refused and the old questions stay), then swapped in with the manifest noting it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import InputFormatError
from core.index.manifest import read_manifest
from core.index.questions import load_questions
from core.index.questions_file import replace_questions
from core.index.workspace import Workspace

A = [{"id": "a1", "title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
     {"id": "a2", "title": "Speed", "text": "Keanu Reeves starred in Speed with Sandra Bullock."},
     {"id": "b1", "title": "John Wick", "text": "Keanu Reeves starred in John Wick, directed by Chad Stahelski."}]
OLD = [{"id": "q1", "question": "Who starred in Speed?", "answer": "Sandra Bullock",
        "supporting_facts": [["Speed", 0]]}]
NEW = [{"id": "n1", "question": "Who directed John Wick?", "answer": "Chad Stahelski",
        "supporting_facts": [["John Wick", 0]]},
       {"id": "n2", "question": "Who starred with Keanu in The Matrix and Speed?", "answer": "x",
        "supporting_facts": [["The Matrix", 0], ["Speedy", 0]]},
       {"id": "n3", "question": "Who founded Nowhere?", "answer": "y", "supporting_facts": [["Nowhere", 0]]}]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src, q = tmp_path / "a.jsonl", tmp_path / "q.json"
    src.write_text("\n".join(json.dumps(r) for r in A))
    q.write_text(json.dumps(OLD))
    target = tmp_path / "ws" / "films"
    create_workspace([src], target, embedder=get_embedder("hashing"), extractor=get_extractor("rules"), questions=q)
    return target


def test_a_new_questions_file_replaces_the_old_and_the_manifest_says_so(workspace: Path, tmp_path: Path) -> None:
    before = (workspace / "manifest.json").stat().st_mtime_ns
    new = tmp_path / "after_add.json"
    new.write_text(json.dumps(NEW))
    got = replace_questions(workspace, new)
    assert (got.questions, got.whole, got.partial, got.none, got.replaced) == (3, 1, 1, 1, True)
    qs = load_questions(Workspace.open(workspace))
    assert [q.id for q in qs] == ["n1", "n2", "n3"] and qs[0].gold_chunks == ("b1",)
    rec = read_manifest(workspace)["questions_file"]
    assert rec["file"] == "after_add.json" and rec["questions"] == 3
    assert (workspace / "manifest.json").stat().st_mtime_ns >= before  # what the app's caches key on
    assert Workspace.open(workspace).graph.n_chunks == 3  # the graph and its index untouched


@pytest.mark.parametrize(("text", "why"), [
    (json.dumps([{"id": "z", "question": "?", "supporting_facts": [["Nowhere", 0]]}]), "names a passage title"),
    ("[{not json", "invalid JSON"),
    ("[]", "holds no question"),
])
def test_a_file_that_cannot_be_benchmarked_is_refused_and_the_old_questions_stay(workspace: Path, tmp_path: Path,
                                                                                 text: str, why: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    old = (workspace / "questions.json").read_bytes()
    with pytest.raises(InputFormatError, match=why):
        replace_questions(workspace, bad)
    assert (workspace / "questions.json").read_bytes() == old
    assert "questions_file" not in read_manifest(workspace)


def test_a_jsonl_questions_file_is_kept_as_the_json_list_the_workspace_reads(workspace: Path, tmp_path: Path) -> None:
    """The workspace reads its questions.json as JSON: a JSONL upload is stored as the list of its lines (stored as
    uploaded, it was read back as invalid JSON)."""
    new = tmp_path / "after_add.jsonl"
    new.write_text("\n".join(json.dumps(r) for r in NEW[:2]) + "\n")
    assert replace_questions(workspace, new).questions == 2
    assert [r["id"] for r in json.loads((workspace / "questions.json").read_text())] == ["n1", "n2"]
    assert [q.id for q in load_questions(Workspace.open(workspace))] == ["n1", "n2"]


def test_a_build_keeps_a_jsonl_questions_file_as_the_json_list_it_reads(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`egx index --questions q.jsonl` and the Data page's questions uploader: a JSONL file is kept as one JSON
    list (copied as lines, the build failed on it, or the workspace read it back as invalid JSON)."""
    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src, q = tmp_path / "a.jsonl", tmp_path / "q.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in A))
    q.write_text("\n".join(json.dumps(r) for r in NEW[:2]))
    ws = create_workspace([src], tmp_path / "ws" / "w", embedder=get_embedder("hashing"),
                          extractor=get_extractor("rules"), questions=q)
    assert [r["id"] for r in json.loads((ws.path / "questions.json").read_text())] == ["n1", "n2"]
    assert [x.id for x in load_questions(ws)] == ["n1", "n2"]
