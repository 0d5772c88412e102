"""A workspace built with HippoRAG synonymy edges lets BubbleRAG cross an alias split, and the
trace says which synonym edge the evidence graph walked (the short name "Ermengarde" is its own node
without them)."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.graph.synonyms import SYNONYM_RELATION
from core.index.create import create_workspace
from core.methods.base import Backends
from core.methods.bubblerag import run

TRIPLES = """head,relation,tail
Lothair II,mother,Ermengarde of Tours
Ermengarde,died in,851
Lothair II,king of,Lotharingia
Lotharingia,part of,Francia
Ermengarde,daughter of,Hugh of Tours
"""


Q = "When did Lothair II's mother die?"


def _workspace(tmp_path, monkeypatch, name, **kw):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "t.csv").write_text(TRIPLES)
    return create_workspace([tmp_path / "t.csv"], tmp_path / name, embedder=HashingEmbedder(dim=128), **kw)


def test_bubblerag_walks_a_stored_synonym_edge_and_traces_it(tmp_path, monkeypatch):
    backends = Backends(HashingEmbedder(dim=128), NoLLM())
    q = Q
    # "Ermengarde of Tours" vs "Ermengarde": hashing cosine 0.64, so 0.5 joins exactly that pair
    ws = _workspace(tmp_path, monkeypatch, "syn", synonym_threshold=0.5)
    assert ws.manifest["synonyms"]["edges"] == 1
    assert "Ermengarde of Tours synonym of Ermengarde" in ws.graph.edge_texts
    res = run(q, ws, backends=backends)
    steps = [s for s in res.trace.steps if s.stage == "synonym_edges"]
    assert len(steps) == 1 and steps[0].data == {"walked": 1, "edges": ["Ermengarde of Tours synonym of Ermengarde"]}
    walked = [e for e in res.evidence.edges if ws.graph.edge_relation[e] == SYNONYM_RELATION]
    assert len(walked) == 1
    assert "Ermengarde" in {ws.graph.node_names[v] for v in res.evidence.nodes}  # reached through the alias
    # without synonym edges the step is absent and the death date is not in the evidence
    plain = _workspace(tmp_path, monkeypatch, "plain")
    res0 = run(q, plain, backends=backends)
    assert not [s for s in res0.trace.steps if s.stage == "synonym_edges"]
    assert "Ermengarde" not in {plain.graph.node_names[v] for v in res0.evidence.nodes}


def test_reg_traces_the_synonym_edges_among_its_kept_triples(tmp_path, monkeypatch):
    from core.methods.reg import run as reg_run

    backends = Backends(HashingEmbedder(dim=128), NoLLM())
    ws = _workspace(tmp_path, monkeypatch, "syn", synonym_threshold=0.5)
    res = reg_run(Q, ws, backends=backends)
    steps = res.trace.stage("synonym_edges")
    assert len(steps) == 1 and steps[0].data == {"walked": 1, "edges": ["Ermengarde of Tours synonym of Ermengarde"]}
    plain = _workspace(tmp_path, monkeypatch, "plain")
    assert not reg_run(Q, plain, backends=backends).trace.stage("synonym_edges")
