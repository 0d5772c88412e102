"""A workspace's choice of how its documents are split into passages: recorded in its manifest at the build, used
again by Add documents (so added files are split alike), absent from an older manifest (whose documents were, and
are, packed up to 1,200 characters), and given to ``egx index`` as ``--passages``, which also warns when the
workspace has too few passages for recall to tell methods apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_extractor
from core.cli import main
from core.errors import WorkspaceError
from core.graph.chunking import PassageSplit
from core.index.create import create_workspace
from core.index.insert import add_documents
from core.index.workspace import Workspace

A = ["Keanu Reeves starred in The Matrix.", "Laurence Fishburne played Morpheus in The Matrix.",
     "Hugo Weaving played Agent Smith."]
B = ["Sandra Bullock starred in Speed.", "Jan de Bont directed Speed.", "Dennis Hopper played Howard Payne."]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))


def _doc(path: Path, paragraphs: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def _build(tmp_path: Path, split: PassageSplit | None) -> Path:
    create_workspace([_doc(tmp_path / "in" / "matrix.txt", A)], tmp_path / "w", embedder=get_embedder("hashing"),
                     extractor=get_extractor("rules"), passages=split)
    return tmp_path / "w"


def _texts(path: Path, stem: str) -> list[str]:
    return [c.text for c in Workspace.open(path).graph.chunks if c.id.split("#")[0] == stem]


def test_one_passage_per_paragraph_is_recorded_and_documents_added_later_are_split_alike(tmp_path) -> None:
    w = _build(tmp_path, PassageSplit.parse("paragraph"))
    ws = Workspace.open(w)
    assert ws.meta.chunking["documents"] == {"per_paragraph": True, "max_chars": 1200}
    assert ws.meta.passages == PassageSplit(True) and _texts(w, "matrix") == A
    assert [c.title for c in ws.graph.chunks] == ["Matrix"] * 3  # the document's title: gold titles still match
    res = add_documents(w, [_doc(tmp_path / "in" / "speed.txt", B)])
    assert _texts(w, "speed") == B and [f["passages"] for f in res.files] == [3]
    assert Workspace.open(w).meta.passages == PassageSplit(True)  # still recorded after the insert


def test_the_default_packs_as_before_and_so_does_an_insert(tmp_path) -> None:
    w = _build(tmp_path, None)
    assert Workspace.open(w).meta.passages == PassageSplit() and _texts(w, "matrix") == ["\n\n".join(A)]
    add_documents(w, [_doc(tmp_path / "in" / "speed.txt", B)])
    assert _texts(w, "speed") == ["\n\n".join(B)]


def test_a_manifest_without_the_choice_adds_documents_as_an_older_egx_did(tmp_path) -> None:
    w = _build(tmp_path, PassageSplit.parse("paragraph"))
    manifest = json.loads((w / "manifest.json").read_text())
    manifest["chunking"] = {"chunk_chars": 1200, "passage_split_chars": 4800}  # as written before the choice
    (w / "manifest.json").write_text(json.dumps(manifest))
    res = add_documents(w, [_doc(tmp_path / "in" / "speed.txt", B)])
    assert _texts(w, "speed") == ["\n\n".join(B)]  # packed: the default, which such a workspace was built with
    assert not any("split" in n for n in res.notes)  # neither refused nor noted
    assert "documents" not in Workspace.open(w).meta.chunking  # the record is left as it was


def test_a_refused_insert_says_how_to_rebuild_with_the_same_split(tmp_path) -> None:
    w = _build(tmp_path, PassageSplit.parse("600"))
    manifest = json.loads((w / "manifest.json").read_text())
    manifest["chunking"]["chunk_chars"] = 900  # an egx of other sizes built it
    (w / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(WorkspaceError, match=r"--passages 600 --overwrite"):
        add_documents(w, [_doc(tmp_path / "in" / "speed.txt", B)])


def test_egx_index_passages_flag_splits_records_and_warns_of_few_passages(tmp_path, capsys) -> None:
    a, b = _doc(tmp_path / "in" / "matrix.txt", A), _doc(tmp_path / "in" / "speed.txt", B)
    args = [str(a), str(b), "--embedder", "hashing", "--extractor", "rules"]
    assert main(["index", *args, "--workspace", str(tmp_path / "p"), "--passages", "paragraph"]) == 0
    out = capsys.readouterr().out
    assert "documents split with one passage per paragraph (--passages paragraph)" in out
    assert "warning: Only 6 passages: a method's top 5 holds 5 of them (83 % of the corpus)" in out
    assert "already one passage per paragraph" in out
    assert Workspace.open(tmp_path / "p").graph.n_chunks == 6
    assert main(["index", *args, "--workspace", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "packed into passages of up to 1,200 characters (the default) (--passages 1200)" in out
    assert "warning: Only 2 passages: a method's top 5 holds all of them" in out and "--passages paragraph" in out
    assert Workspace.open(tmp_path / "d").graph.n_chunks == 2


def test_egx_index_passages_flag_is_checked(tmp_path, capsys) -> None:
    a = str(_doc(tmp_path / "in" / "matrix.txt", A))
    assert main(["index", a, "--workspace", str(tmp_path / "x"), "--embedder", "hashing", "--passages", "5"]) == 2
    assert "A passage size of 5 characters is out of range" in capsys.readouterr().err
    assert main(["index", a, "--workspace", str(tmp_path / "x"), "--embedder", "hashing", "--passages", "lines"]) == 2
    assert "give 'paragraph'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    with pytest.raises(SystemExit, match="--add splits the documents into passages as the workspace recorded"):
        main(["index", a, "--add", "--workspace", str(tmp_path / "x"), "--passages", "paragraph"])
    with pytest.raises(SystemExit, match="--passages applies to a build from input files"):
        main(["index", "--workspace", str(tmp_path / "x"), "--passages", "paragraph"])
