"""Extracted entity names are canonicalized before they merge (every extractor); loaded
graphs keep their own merge key; node specificity; HippoRAG synonymy edges stored in the graph."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.backends.base import ExtractedTriple
from core.errors import WorkspaceError
from core.graph.builder import ExtractionResult, add_extracted, sample_passage_triples
from core.graph.formats.load import load_inputs
from core.graph.graph_builder import GraphBuilder
from core.graph.synonyms import SYNONYM_RELATION, add_synonym_edges, synonym_pairs
from core.text import canonical_entity, normalize_name


@pytest.mark.parametrize(("name", "canonical"), [
    ("David Bradley (director)", "David Bradley"),  # a Wikipedia disambiguation in parentheses
    ("Fool (If You Think It's Over)", "Fool (If You Think It's Over)"),  # a name, not a disambiguation
    ("John Wallop, 2nd Earl of Portsmouth", "John Wallop, 2nd Earl of Portsmouth"),  # commas kept whole
    ("Portland, Oregon", "Portland, Oregon"),
    ("Lothair II's", "Lothair II"),  # possessives
    ("Lothair II’s", "Lothair II"),
    ("the Beatles'", "Beatles"),
    ("Saint Anne's", "Saint Anne's"), ("St. Paul's", "St. Paul's"),  # a saint's: the church (audit 39)
    ("Anne's", "Anne"),
    ("The Matrix", "Matrix"),  # determiners
    ("a Mexican drama film", "Mexican drama film"),
    ("Sir Walter Scott", "Walter Scott"),  # honorifics, when two words remain
    ("Dr. Jane Smith", "Jane Smith"),
    ("Dr. Dre", "Dr. Dre"),
    ("Mr. Jones (Counting Crows song)", "Mr. Jones"),
    ("  “The   Countess of Parma”  ", "Countess of Parma"),
    ("The", "The"), ("(director)", "(director)"), ("'s", "s"),  # never emptied
])
def test_canonical_entity(name, canonical):
    assert canonical_entity(name) == canonical


def test_display_spelling_keeps_the_article():
    assert canonical_entity("The Matrix (1999 film)", drop_article=False) == "The Matrix"


def _extracted(rows: dict[str, list[tuple[str, str, str]]]) -> ExtractionResult:
    return ExtractionResult({c: tuple(ExtractedTriple(*t) for t in ts) for c, ts in rows.items()}, "x", 0, len(rows))


def test_extracted_aliases_merge_with_display_names_kept():
    b = GraphBuilder()
    for cid in ("c1", "c2", "c3"):
        b.add_chunk(cid, "text", chunk_id=cid)
    add_extracted(b, _extracted({
        "c1": [("David Bradley (director)", "directed", "The Matrix")],
        "c2": [("David Bradley", "born in", "Winnetka"), ("Matrix", "stars", "Keanu Reeves")],
        "c3": [("Keanu Reeves's", "born in", "Beirut"), ("The Matrix", "is", "the Matrix")],  # self-loop after merge
    }))
    g = b.build()
    assert g.node_ids == ("david bradley", "matrix", "winnetka", "keanu reeves", "beirut")
    assert g.node_names[:2] == ("David Bradley", "The Matrix")  # first display spelling, article kept
    assert set(g.edge_texts) == {"David Bradley directed The Matrix", "David Bradley born in Winnetka",
                                 "The Matrix stars Keanu Reeves", "Keanu Reeves born in Beirut"}
    assert g.node_chunks[g.node("david bradley")] == ("c1", "c2")


def test_loaded_triples_keep_their_own_merge_key(tmp_path):
    """A published KG is not re-canonicalized: "David Bradley (director)" stays its own node."""
    f = tmp_path / "t.csv"
    f.write_text("head,relation,tail\nDavid Bradley (director),directed,The Matrix\nDavid Bradley,born in,Winnetka\n")
    g = load_inputs([f]).graph
    assert g.node_names[:3] == ("David Bradley (director)", "The Matrix", "David Bradley")
    assert g.node_ids[0] == normalize_name("David Bradley (director)") != g.node_ids[2]


def test_node_specificity_is_one_over_passages():
    b = GraphBuilder()
    for cid in ("c1", "c2", "c3"):
        b.add_chunk(cid, "text", chunk_id=cid)
    add_extracted(b, _extracted({"c1": [("Paris", "in", "France")], "c2": [("Lyon", "in", "France")],
                                 "c3": [("Nice", "in", "France")]}))
    b.add_triple("Mars", "orbits", "Sun")  # no provenance
    g = b.build()
    spec = dict(zip(g.node_ids, g.node_specificity().tolist(), strict=True))
    assert spec == {"paris": 1.0, "france": pytest.approx(1 / 3), "lyon": 1.0, "nice": 1.0, "mars": 1.0, "sun": 1.0}


def test_synonym_pairs_match_brute_force():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(60, 8)).astype(np.float32)
    v[10] = v[3] + 0.01
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pairs, sims = synonym_pairs(v, 0.6)
    s = v @ v.T
    want = {(i, j) for i in range(60) for j in range(i + 1, 60) if s[i, j] >= 0.6}
    assert {tuple(p) for p in pairs.tolist()} == want and (3, 10) in want
    assert np.allclose(sims, [s[i, j] for i, j in pairs.tolist()], atol=1e-5)


def test_add_synonym_edges_keeps_everything_and_adds_unsourced_edges():
    b = GraphBuilder()
    c = b.add_chunk("T", "x")
    b.add_triple("Frederick Barbarossa", "ruled", "Holy Roman Empire", chunk_id=c)
    b.add_triple("Frederick I", "born in", "Haguenau", chunk_id=c)
    g = b.build()
    v = np.eye(4, dtype=np.float32)
    v[2] = v[0]  # "Frederick I" embeds like "Frederick Barbarossa"
    g2, n = add_synonym_edges(g, v, 0.8)
    assert n == 1 and g2.n_edges == g.n_edges + 1 and g2.node_ids == g.node_ids
    e = g2.edge_relation.index(SYNONYM_RELATION)
    assert {g2.node_names[int(g2.edge_head[e])], g2.node_names[int(g2.edge_tail[e])]} == {"Frederick Barbarossa", "Frederick I"}
    assert g2.edge_chunks[e] == ()
    with pytest.raises(ValueError, match="3 node vectors for 4 nodes"):
        add_synonym_edges(g, v[:3], 0.8)


def test_workspace_synonym_option(tmp_path, monkeypatch):
    from core.backends.embedders import HashingEmbedder
    from core.index.create import create_workspace

    hashing = HashingEmbedder()
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "t.csv"
    f.write_text("head,relation,tail\nFrederick Barbarossa,ruled,Holy Roman Empire\n"
                 "Emperor Frederick Barbarossa,born in,Haguenau\n")
    ws = create_workspace([f], tmp_path / "w", embedder=hashing, synonym_threshold=0.5)
    vecs = hashing.embed(list(load_inputs([f]).graph.node_texts))
    want = int((np.triu(vecs @ vecs.T, 1) >= 0.5).sum())
    assert ws.manifest["synonyms"]["edges"] == want >= 1
    assert ws.graph.edge_relation.count(SYNONYM_RELATION) == want
    with pytest.raises(WorkspaceError, match="Synonym edges compare node-name embeddings: give an embedder"):
        create_workspace([f], tmp_path / "w2", synonym_threshold=0.8)
    with pytest.raises(WorkspaceError, match=r"The synonym threshold is a cosine in \[-1, 1\], got 1.5"):
        create_workspace([f], tmp_path / "w3", embedder=hashing, synonym_threshold=1.5)
    assert not (tmp_path / "w2").exists() and not (tmp_path / "w3").exists()


def test_sample_passage_triples_is_reproducible():
    b = GraphBuilder()
    ids = [b.add_chunk(f"T{i}", f"text {i}") for i in range(6)]
    for i, c in enumerate(ids[:5]):
        b.add_triple(f"A{i}", "r", f"B{i}", chunk_id=c)
    g = b.build()
    s1, s2 = sample_passage_triples(g, passages=3, seed=1), sample_passage_triples(g, passages=3, seed=1)
    assert s1 == s2 and len(s1) == 3
    assert all(s.triples == ((f"A{s.chunk.title[1:]}", "r", f"B{s.chunk.title[1:]}"),) and s.total == 1 for s in s1)
    assert ids[5] not in {s.chunk.id for s in s1}  # only passages some triple cites
    bare = GraphBuilder()
    bare.add_chunk("T", "no triples here")
    assert sample_passage_triples(bare.build()) == []
    assert json.dumps([s.chunk.id for s in s1])
