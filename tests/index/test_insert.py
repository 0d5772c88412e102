"""Adding documents to a corpus workspace: the same workspace as building everything at once, duplicates
skipped, bad input refused with the workspace untouched, a failure or a kill at any moment leaving the
previous workspace usable, and the ``egx index --add`` path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.backends.registry import get_embedder, get_extractor, get_llm
from core.errors import EgxError, InputFormatError, WorkspaceError
from core.index.create import create_workspace
from core.index.insert import add_documents
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.run import run_method
from tests.conftest import ROOT, SAMPLE_DATA

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
QUESTIONS = ["Who starred in John Wick?", "Whom did Ermengarde of Tours marry?", "Which film had Hugo Weaving?"]
#: A reused index row is the old row normalized once more when the new index is built, and float32
#: normalization of a unit vector moves it by a few ulp (~1e-7): far below any score gap that ranks.
ATOL = 1e-6


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))  # no extraction cached by another test


@pytest.fixture
def hashing():
    return get_embedder("hashing")


def corpus(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def graph_rows(ws: Workspace) -> dict:
    g = ws.graph
    return {"nodes": [(g.node_ids[v], g.node_names[v], g.node_chunks[v]) for v in range(g.n_nodes)],
            "edges": [(g.edge_texts[e], g.edge_chunks[e]) for e in range(g.n_edges)],
            "chunks": [(c.id, c.title, c.text) for c in g.chunks]}


def ranked(ws: Workspace, emb, kind: str, query: str, k: int = 5) -> list[int]:
    return ws.index(kind).search(emb.embed([query]), k)[1][0].tolist()


@pytest.mark.parametrize("synonyms", [None, 0.5])
def test_build_then_add_equals_building_everything_at_once(tmp_path, hashing, synonyms):
    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    rules = get_extractor("rules")
    create_workspace([a], tmp_path / "inc", embedder=hashing, extractor=rules, synonym_threshold=synonyms)
    res = add_documents(tmp_path / "inc", [b])
    full = create_workspace([a, b], tmp_path / "full", embedder=hashing, extractor=rules, synonym_threshold=synonyms)
    inc = Workspace.open(tmp_path / "inc")
    assert res.added == ("b1", "b2", "b3") and res.duplicates == () and res.changed
    assert graph_rows(inc) == graph_rows(full)  # same nodes, edges, provenance and chunks, in the same order
    assert inc.graph.content_hash == full.graph.content_hash
    assert inc.meta.provenance_hash == full.meta.provenance_hash == full.graph.provenance_hash
    assert inc.index_problem(hashing) is None
    assert inc.meta.sources == full.meta.sources
    assert inc.manifest["extraction"]["triples"] == full.manifest["extraction"]["triples"]
    if synonyms is not None:
        assert inc.manifest["synonyms"]["edges"] == full.manifest["synonyms"]["edges"] > 0
    # "Keanu Reeves" merged: one node, with the new passage in its provenance
    keanu = inc.graph.node("Keanu Reeves")
    assert "b1" in inc.graph.node_chunks[keanu] and "a1" in inc.graph.node_chunks[keanu]
    assert inc.graph.search_nodes("Keanu Reeves") == ["Keanu Reeves"]
    # only what is new was embedded; the vectors equal a full build's
    assert res.embedded["chunks"] == 3 and res.embedded["nodes"] == res.new_nodes
    for kind in ("nodes", "edges", "chunks"):
        np.testing.assert_allclose(inc.index(kind).vectors, full.index(kind).vectors, rtol=0, atol=ATOL)
        for q in QUESTIONS:
            assert ranked(inc, hashing, kind, q) == ranked(full, hashing, kind, q)
    backends = Backends(hashing, get_llm("none"), None)
    for method in ("dense", "ppr", "bubblerag"):
        for q in QUESTIONS:
            got = [r.chunk_id for r in run_method(method, q, inc, backends).ranked_chunks]
            want = [r.chunk_id for r in run_method(method, q, full, backends).ranked_chunks]
            assert got == want, (method, q)


def test_duplicate_passages_are_skipped_and_reported(tmp_path, hashing):
    a = corpus(tmp_path / "in" / "a.jsonl", A)
    create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    before = Workspace.open(tmp_path / "w").manifest
    again = add_documents(tmp_path / "w", [a])  # the same file: every passage is there already
    assert not again.changed and again.n_duplicates == 4
    assert again.files[0]["duplicates"] == 4 and again.files[0]["passages"] == 0
    assert "Nothing was added" in again.summary()
    assert "4 passages of a.jsonl repeat passages already read (e.g. “The Matrix”, “Agent Smith”" in again.summary()
    assert Workspace.open(tmp_path / "w").manifest == before  # not rewritten
    # same text under another id (the file uploaded under another name), and a repeat within the insert
    copy = corpus(tmp_path / "in" / "copy.jsonl", [{**A[0], "id": "x1"}, B[0], {**B[0], "id": "x2"}])
    res = add_documents(tmp_path / "w", [copy])
    assert res.added == ("b1",) and res.n_duplicates == 2
    assert "2 passages of copy.jsonl repeat passages already read (e.g. “The Matrix”, “John Wick”)" in res.summary()
    assert [c.id for c in Workspace.open(tmp_path / "w").graph.chunks] == ["a1", "a2", "a3", "a4", "b1"]
    assert Workspace.open(tmp_path / "w").manifest["inserts"][-1]["duplicates"] == 2


def test_a_file_whose_passages_all_repeat_is_said_once_and_not_counted_as_added(tmp_path, hashing):
    """An audit's notice said "120 passages of my_corpus.json repeat passages already read … and were left out"
    twice, and the Benchmark's "Out of date" named my_corpus.json among the "2 documents added" though none of its
    passages was."""
    from core.eval.identity import content_change

    a = corpus(tmp_path / "in" / "a.jsonl", A)
    create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    again = corpus(tmp_path / "in" / "again.jsonl", [{**r, "id": "c" + r["id"]} for r in A])  # every passage repeats
    b = corpus(tmp_path / "in" / "b.jsonl", B)
    res = add_documents(tmp_path / "w", [again, b])
    assert res.added == ("b1", "b2", "b3")
    said = " ".join([res.to_dict()["summary"], *res.to_dict()["notes"]])  # what the Data page shows
    assert said.count("4 passages of again.jsonl repeat passages already read") == 1, said
    record = Workspace.open(tmp_path / "w").manifest["inserts"][-1]
    assert list(record["sources"]) == ["b.jsonl"]
    assert content_change({"inserts": 0}, {"inserts": 1}, [record]).startswith("1 document added (b.jsonl; 3 passages)")


def test_a_text_file_of_passages_the_workspace_holds_adds_nothing(tmp_path, hashing):
    """The audit's case: notes.txt held, as plain text, passages the workspace was built from; it added them
    again. Compared without case, whitespace or quote spelling, each is left out with its title."""
    a = corpus(tmp_path / "in" / "a.jsonl", A)
    create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    notes = tmp_path / "in" / "notes.txt"
    notes.write_text("\n\n".join(f"{r['title']}\n{r['text'].upper()}" for r in A[:3]), encoding="utf-8")
    res = add_documents(tmp_path / "w", [notes])
    assert not res.changed and res.n_duplicates == 3
    assert "3 passages of notes.txt repeat passages already read (e.g. “The Matrix”" in res.summary()
    # a new paragraph among repeats is added alone
    notes.write_text(f"{A[0]['title']}\n{A[0]['text']}\n\n{B[1]['title']}\n{B[1]['text']}", encoding="utf-8")
    res = add_documents(tmp_path / "w", [notes])
    assert res.changed and res.n_duplicates == 1
    added = Workspace.open(tmp_path / "w").graph.chunk(res.added[0])
    assert (added.title, added.text) == (B[1]["title"], B[1]["text"])  # not titled by the repeat it followed


def test_bad_input_is_refused_and_the_workspace_is_untouched(tmp_path, hashing):
    a = corpus(tmp_path / "in" / "a.jsonl", A)
    create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    snapshot = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").rglob("*")}
    empty = tmp_path / "in" / "empty.txt"
    empty.write_text("  \n")
    triples = tmp_path / "in" / "t.csv"
    triples.write_text("head,relation,tail\nKeanu Reeves,starred in,John Wick\n")
    clash = corpus(tmp_path / "in" / "clash.jsonl", [{"id": "a1", "title": "Other", "text": "Another text."}])
    cases = [
        ([empty], InputFormatError, r"empty\.txt: the document is empty"),
        ([triples], InputFormatError, r"t\.csv: this is a triples file, and workspace 'w' was built from a corpus.*"
                                      r"Expected documents \(\.txt / \.md / \.pdf / \.html / \.docx\) or JSON\(L\)"),
        ([clash], InputFormatError, r"passage 'a1': the workspace already holds another passage under this id"),
        ([], EgxError, "No input files were given"),
    ]
    for inputs, err, pattern in cases:
        with pytest.raises(err, match=pattern):
            add_documents(tmp_path / "w", inputs)
    with pytest.raises(WorkspaceError, match=r"nowhere is not a workspace \(no manifest\.json\)"):
        add_documents(tmp_path / "nowhere", [a])
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(WorkspaceError, match=r"indexed with 'hashing-.*', not 'hashing-.*'.*leave --embedder out"):
        add_documents(tmp_path / "w", [a], embedder=get_embedder("hashing", dim=64))
    with pytest.raises(WorkspaceError, match=r"was extracted with 'rules:.*', not 'spacy:.*'"):
        add_documents(tmp_path / "w", [a], extractor=get_extractor("spacy"))
    # the same extractor, an older version of its rules (spacy-v4 workspaces after v5): rebuild, nothing else works
    import json as _json

    manifest = tmp_path / "w" / "manifest.json"
    kept, stamp = manifest.read_bytes(), manifest.stat().st_mtime_ns
    m = _json.loads(kept)
    recorded = m["extraction"]["extractor"]
    m["extraction"]["extractor"] = recorded.rsplit(":", 1)[0] + ":an-older-version"
    manifest.write_text(_json.dumps(m))
    with pytest.raises(WorkspaceError, match=r"extracted by an older version of the rules extractor .*Rebuild it with "
                                             r"all the files"):
        add_documents(tmp_path / "w", [a])
    manifest.write_bytes(kept)
    os.utime(manifest, ns=(stamp, stamp))  # the manifest as it was: the check below compares modification times
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").rglob("*")} == snapshot
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["cache", "in", "w"]


def test_workspaces_it_cannot_extend_say_why_and_what_to_do(tmp_path, hashing):
    a = corpus(tmp_path / "in" / "a.jsonl", A)
    create_workspace([SAMPLE_DATA / "demo" / "triples.csv"], tmp_path / "kg", embedder=hashing)
    with pytest.raises(WorkspaceError, match=r"was built from triples or a graph file, not from a corpus.*"
                                             r"egx index triples\.csv NEW_FILES --workspace .*kg --overwrite"):
        add_documents(tmp_path / "kg", [a])
    create_workspace([a], tmp_path / "s", embedder=hashing, extractor=get_extractor("rules"),
                     extra_manifest={"sample": True})
    with pytest.raises(WorkspaceError, match="is a bundled sample"):
        add_documents(tmp_path / "s", [a])


def _answers(path: Path, emb, content_hash: str) -> None:
    ws = Workspace.open(path)
    assert ws.graph.content_hash == content_hash and ws.index_problem(emb) is None
    hits = [ws.graph.chunks[i].id for i in ranked(ws, emb, "chunks", "Keanu Reeves Speed Sandra Bullock", 1)]
    assert hits == ["a3"]


@pytest.mark.parametrize("at", [0.2, 0.6, 0.98])
def test_a_failure_midway_leaves_the_previous_workspace(tmp_path, hashing, at):
    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    old = create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))

    def fail(msg: str, frac: float) -> None:
        if frac >= at:
            raise RuntimeError(f"simulated failure at {msg!r}")

    with pytest.raises(RuntimeError, match="simulated failure"):
        add_documents(tmp_path / "w", [b], progress=fail)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["cache", "in", "w"]
    _answers(tmp_path / "w", hashing, old.graph.content_hash)


KILL_DURING_INSERT = """
import os, sys
from core.index.insert import add_documents
def die(msg, frac):
    if frac >= float(sys.argv[3]):
        os._exit(137)
add_documents(sys.argv[1], [sys.argv[2]], progress=die)
"""


@pytest.mark.parametrize("at", [0.5, 0.99])
def test_a_kill_midway_leaves_the_previous_workspace(tmp_path, hashing, at):
    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    old = create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = subprocess.run([sys.executable, "-c", KILL_DURING_INSERT, str(tmp_path / "w"), str(b), str(at)],
                          env=env, cwd=ROOT, timeout=120).returncode
    assert code == 137
    assert any(".building-" in p.name for p in tmp_path.iterdir())  # the half-built sibling, frozen
    _answers(tmp_path / "w", hashing, old.graph.content_hash)  # opening recovers
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["cache", "in", "w"]
    assert add_documents(tmp_path / "w", [b]).added == ("b1", "b2", "b3")  # and a second try succeeds


def test_models_of_the_old_graph_are_dropped_and_node_vectors_update_row_by_row(tmp_path, hashing):
    """A method's trained models belong to the old graph and are dropped; FastInsight's node vectors are carried
    over stale, and their first use embeds only the node texts the added passages changed. Oracle: the same
    vectors a full embedding of the new graph's node texts gives."""
    import core.methods.registry  # noqa: F401  (declares the methods' folders, as the app and the CLI do)
    from core.index.vector_index import embed_texts
    from core.methods.fastinsight.node_vectors import node_vectors
    from core.methods.kg_nodes import kg_node_texts, node_texts_to_embed, node_vectors_estimate

    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    ws = create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    old_texts = set(kg_node_texts(ws.graph))
    node_vectors(ws, hashing)
    (ws.index_dir / "extra" / "ppr_synonyms_0.8000.npz").write_bytes(b"pairs of the old graph")
    (tmp_path / "w" / "sgrag").mkdir()
    (tmp_path / "w" / "sgrag" / "dominance-old.pt").write_bytes(b"x")
    (tmp_path / "w" / "reg" / "retriever-kept-aside").mkdir(parents=True)
    res = add_documents(tmp_path / "w", [b])
    assert any("not kept" in n and "SG-RAG" in n for n in res.notes)
    # in words both the app and the command line can follow (an audit's app said "train again: egx train-reg")
    reg = next(n for n in res.notes if "ReG's trained retriever" in n)
    assert "(installed or kept aside)" in reg and "the Train panel of the Evidence chains page" in reg
    assert any("FastInsight's node vectors" in n and "are kept" in n for n in res.notes)
    new = Workspace.open(tmp_path / "w")
    assert not (tmp_path / "w" / "sgrag").exists()
    assert sorted(p.suffix for p in (new.index_dir / "extra").iterdir()) == [".faiss", ".json", ".npy"]  # no PPR pairs
    texts = kg_node_texts(new.graph)
    changed = sum(t not in old_texts for t in texts)
    assert 0 < changed < len(texts)  # the new passages touch some nodes (Keanu Reeves, Lothair I), not all
    assert node_texts_to_embed(new, hashing) == changed
    assert f"{changed:,} of {len(texts):,} node texts" in node_vectors_estimate(new, hashing)[1]
    # the job's title says the same (an audit read "Embedding 122 KG node texts … (first use)" after the add)
    from core.backends.llm import NoLLM
    from core.methods.base import Backends
    from core.methods.fastinsight.config import FastInsightConfig
    from core.methods.fastinsight.node_vectors import PREPARATION as FASTINSIGHT_PREP

    title = FASTINSIGHT_PREP.title(new, Backends(hashing, NoLLM()), FastInsightConfig())
    assert title.startswith(f"Embedding {changed:,} of {len(texts):,} KG node texts for FastInsight"), title
    _, vecs = node_vectors(new, hashing)
    assert vecs.built and vecs.reused == len(texts) - changed
    np.testing.assert_allclose(vecs.vectors, embed_texts(list(texts), hashing), atol=ATOL)
    assert node_texts_to_embed(new, hashing) == 0 and not node_vectors(new, hashing)[1].built
    assert new.manifest["inserts"][-1]["added"] == 3


def test_cli_add(tmp_path, hashing, capsys):
    from core.cli import main

    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    w = str(tmp_path / "w")
    assert main(["index", str(a), "--workspace", w, "--embedder", "hashing", "--extractor", "rules"]) == 0
    capsys.readouterr()
    assert main(["index", str(b), "--add", "--workspace", w]) == 0
    out = capsys.readouterr().out
    assert "Added 3 passages" in out and "embedded" in out
    assert "7 chunks" in out
    assert main(["index", str(b), "--add", "--workspace", w]) == 0
    assert "Nothing was added" in capsys.readouterr().out
    for extra, message in ((["--overwrite"], "--add extends a workspace in place"),
                           (["--synonyms", "0.8"], "--add uses the workspace's recorded settings")):
        with pytest.raises(SystemExit, match=message):
            main(["index", str(b), "--add", "--workspace", w, *extra])
    with pytest.raises(SystemExit, match="--add needs --workspace DIR"):
        main(["index", str(b), "--add"])
    capsys.readouterr()
    triples = tmp_path / "in" / "t.csv"
    triples.write_text("head,relation,tail\nKeanu Reeves,starred in,John Wick\n")
    assert main(["index", str(triples), "--add", "--workspace", w]) == 2
    assert "egx: error: t.csv: this is a triples file" in capsys.readouterr().err


def test_an_insert_in_a_child_process_and_a_killed_one_leaves_the_workspace_as_it_was(tmp_path, hashing):
    from core.index.isolated import BuildLimits, BuildSpec, build_isolated

    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    old = create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    spec = BuildSpec.insert(tmp_path / "w", [b])
    with pytest.raises(WorkspaceError, match=r"used more than 30 MB of memory"):
        build_isolated(spec, limits=BuildLimits(memory_mb=30))
    _answers(tmp_path / "w", hashing, old.graph.content_hash)
    seen: list[float] = []
    figures = build_isolated(spec, limits=BuildLimits(), progress=lambda m, f: seen.append(f))
    assert figures["result"]["added"] == ["b1", "b2", "b3"] and "Added 3 passages" in figures["result"]["summary"]
    assert seen and seen[-1] == 1.0 and Workspace.open(tmp_path / "w").graph.n_chunks == 7
    with pytest.raises(EgxError, match="this is a triples file"):
        build_isolated(BuildSpec.insert(tmp_path / "w", [SAMPLE_DATA / "demo" / "triples.csv"]),
                       limits=BuildLimits())


def test_the_chunking_is_recorded_and_checked(tmp_path, hashing):
    import core.index.insert as insert_mod
    from core.fsio import atomic_write_json

    a, b = corpus(tmp_path / "in" / "a.jsonl", A), corpus(tmp_path / "in" / "b.jsonl", B)
    ws = create_workspace([a], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    assert ws.meta.chunking == {"chunk_chars": 1200, "passage_split_chars": 4800,
                                "documents": {"per_paragraph": False, "max_chars": 1200}}
    atomic_write_json(tmp_path / "w" / "manifest.json", {**ws.manifest, "chunking": {"chunk_chars": 900}})
    with pytest.raises(WorkspaceError, match=r"split its documents with \{'chunk_chars': 900\}, this egx splits"):
        add_documents(tmp_path / "w", [b])
    old = {k: v for k, v in ws.manifest.items() if k != "chunking"}  # as an older egx wrote it
    atomic_write_json(tmp_path / "w" / "manifest.json", old)
    res = add_documents(tmp_path / "w", [b])
    assert any("does not record how its documents were split" in n for n in res.notes)
    assert Workspace.open(tmp_path / "w").meta.chunking == insert_mod.chunking_settings()


def test_each_files_status_is_kept_by_the_build_and_by_an_insert(tmp_path, hashing):
    """A scanned PDF among readable documents is left out of the build and of an insert alike; the manifest
    (and the insert's result) say what became of every file, which the app's table shows."""
    from tests.graph.test_documents import pdf_bytes

    (tmp_path / "in").mkdir()
    md = tmp_path / "in" / "matrix.md"
    md.write_text("# The Matrix\n\nKeanu Reeves starred in The Matrix.")
    scan = tmp_path / "in" / "scan.pdf"
    scan.write_bytes(pdf_bytes([None]))
    ws = create_workspace([md, scan], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    assert [(f["file"], f["passages"], bool(f["error"])) for f in ws.meta.files] == [("matrix.md", 1, False),
                                                                                     ("scan.pdf", None, True)]
    assert any("1 of 2 files could not be read" in w for w in ws.warnings)
    pdf = tmp_path / "in" / "speed.pdf"
    pdf.write_bytes(pdf_bytes(["Keanu Reeves starred in Speed."]))
    res = add_documents(tmp_path / "w", [pdf, scan])
    assert res.added == ("speed",)
    assert [(f["file"], f["format"], f["passages"]) for f in res.files] == [("speed.pdf", "pdf", 1),
                                                                            ("scan.pdf", "pdf", None)]
    assert "run OCR first" in res.files[1]["error"] and any("could not be read" in n for n in res.notes)
    assert [f["file"] for f in Workspace.open(tmp_path / "w").meta.files] == ["matrix.md", "scan.pdf", "speed.pdf",
                                                                              "scan.pdf"]


def test_a_txt_with_a_nul_byte_is_left_out_of_a_multi_file_add_like_a_bad_pdf(tmp_path, hashing):
    """Before: one .txt holding a NUL byte stopped the whole add (its first line was sniffed for triples and the
    error escaped), while a damaged PDF in the same add was left out with a warning."""
    create_workspace([corpus(tmp_path / "a.jsonl", A)], tmp_path / "w", embedder=hashing,
                     extractor=get_extractor("rules"))
    good = tmp_path / "in" / "wick.txt"
    good.parent.mkdir()
    good.write_text("Keanu Reeves starred in John Wick.")
    nul = tmp_path / "in" / "binary.txt"
    nul.write_bytes(b"Hugo Weaving\x00 played Elrond.\n")
    res = add_documents(tmp_path / "w", [good, nul])
    assert res.added == ("wick",)
    assert [(f["file"], f["passages"]) for f in res.files] == [("wick.txt", 1), ("binary.txt", None)]
    assert res.files[1]["error"] == ("binary.txt, line 1: the file looks binary (it contains NUL bytes). Expected a "
                                     "UTF-8 text file.")
    assert any("1 of 2 files could not be read and were left out: binary.txt" in n for n in res.notes)


def test_the_recorded_embedding_rate_is_what_an_add_timed_not_the_whole_index(tmp_path, hashing):
    """The manifest's timings estimate the next embedding (FastInsight's node vectors, a re-index): an add of one
    passage timed one embedding over the whole index (1 passage's seconds / 13 items), so a 1,161-text job
    looked quick and started unasked. A small add keeps the previous timing; a larger one records its own."""
    many = [{"id": f"m{i}", "title": f"Film {i}", "text": f"Actor {i} starred in Film {i} with Actor {i + 1}."}
            for i in range(12)]
    rules = get_extractor("rules")
    create_workspace([corpus(tmp_path / "in" / "a.jsonl", many)], tmp_path / "ws", embedder=hashing, extractor=rules)
    before = {b["kind"]: dict(b) for b in Workspace.open(tmp_path / "ws").meta.index_builds}
    add_documents(tmp_path / "ws", [corpus(tmp_path / "in" / "b.jsonl", B[:1])])
    after = {b["kind"]: dict(b) for b in Workspace.open(tmp_path / "ws").meta.index_builds}
    assert after["chunks"] == before["chunks"]  # one new passage: too few to time, the build's rate stays
    more = [{"id": f"n{i}", "title": f"Play {i}", "text": f"Writer {i} wrote Play {i} in Town {i}."} for i in range(11)]
    add_documents(tmp_path / "ws", [corpus(tmp_path / "in" / "c.jsonl", more)])
    chunks = next(b for b in Workspace.open(tmp_path / "ws").meta.index_builds if b["kind"] == "chunks")
    assert chunks["items"] == 11  # what this add embedded, not the index's 24 rows


def test_the_add_message_counts_in_the_singular_where_one():
    """An audit read "embedded 4 nodes, 15 edges, 1 chunks"."""
    from core.index.insert import InsertResult

    said = InsertResult(None, ("p9",), (), new_nodes=4, new_edges=15, triples=6,
                        embedded={"nodes": 4, "edges": 15, "chunks": 1}, seconds=3.5).summary()
    assert "embedded 4 nodes, 15 edges, 1 chunk in 3.5 s" in said and "Added 1 passage" in said, said
