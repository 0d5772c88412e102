"""ERQA bridge-star builder (App. G): gold answers correct by construction, seeded, usable by SG-RAG."""

from __future__ import annotations

import json
import re

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.cli import main
from core.errors import ConfigError, EmptyGraphError
from core.eval.erqa import build_erqa, template_question, write_erqa
from core.graph.graph_builder import graph_from_triples
from core.graph.model import KnowledgeGraph
from core.index.create import create_workspace
from core.index.questions import parse_questions
from core.methods.base import Backends
from core.methods.sgrag import run
from core.text import normalize_name
from tests.fakes import ScriptedLLM
from tests.methods.sgrag.conftest import UMLS


def _nbrs(g: KnowledgeGraph, name: str) -> set[str]:
    v = g.node(name)
    return {g.node_names[u] for u in g.csr.row(v)[0].tolist() if u != v}


def _check(g: KnowledgeGraph, qs) -> None:
    for q in qs:
        common = set.intersection(*(_nbrs(g, e) for e in q.query_entities))
        assert set(q.answers) == common  # every gold answer satisfies all constraints, no other node does
        assert q.answers[0] == q.star
        assert q.distractor not in common
        assert all(b in _nbrs(g, q.distractor) for b in q.bridges)  # the distractor satisfies the bridges
        assert not any(u in _nbrs(g, q.distractor) for u in q.unique)
        for h, r, t in q.gold_triples:  # gold triples are KG edges touching the answer
            assert q.star in (h, t)
            assert any(g.edge_relation[e] == r and {g.node_names[int(g.edge_head[e])], g.node_names[int(g.edge_tail[e])]}
                       == {h, t} for e in range(g.n_edges))
        for e in q.query_entities:
            assert f'"{e}"' in q.question


def test_umls_questions_are_correct_by_construction(umls_graph: KnowledgeGraph) -> None:
    qs = build_erqa(umls_graph, 15, seed=1, max_constraints=8, max_answers=3)
    assert len(qs) == 15
    _check(umls_graph, qs)


def test_fb15k_slice_questions_have_unique_answers(fb_slice: KnowledgeGraph) -> None:
    qs = build_erqa(fb_slice, 30, seed=0, min_degree=6)
    assert len(qs) >= 20
    assert all(len(q.answers) == 1 for q in qs)
    _check(fb_slice, qs)


def test_seeded(umls_graph: KnowledgeGraph) -> None:
    a = [q.to_record() for q in build_erqa(umls_graph, 5, seed=4, max_constraints=8, max_answers=3)]
    b = [q.to_record() for q in build_erqa(umls_graph, 5, seed=4, max_constraints=8, max_answers=3)]
    c = [q.to_record() for q in build_erqa(umls_graph, 5, seed=5, max_constraints=8, max_answers=3)]
    assert a == b and a != c


def test_records_load_as_questions(umls_graph: KnowledgeGraph, tmp_path) -> None:
    p = write_erqa(build_erqa(umls_graph, 3, seed=1, max_constraints=8, max_answers=3), tmp_path / "q.json")
    recs = json.loads(p.read_text())
    assert {"question", "answer", "gold_triples", "query_entities", "supporting_facts"} <= set(recs[0])
    qs = parse_questions(recs, umls_graph)
    assert qs[0].answer == recs[0]["answer"][0]


def test_template_text() -> None:
    assert template_question(['"A" (r)'], ['"B" (s)', '"C" (t)']) == \
        'Which entity is related to "A" (r), and also to "B" (s) and "C" (t)?'


def test_bad_input() -> None:
    g = graph_from_triples([("a", "r", "b")])
    with pytest.raises(ConfigError, match="n=0 must be at least 1"):
        build_erqa(g, 0)
    with pytest.raises(EmptyGraphError, match=r"bridge-star questions need two\. Lower min_degree"):
        build_erqa(g, 3)


def test_cli_make_erqa(tmp_path, capsys) -> None:
    out = tmp_path / "u.json"
    assert main(["make-erqa", "--kg", str(UMLS), "--n", "4", "--seed", "2", "--max-answers", "3", "--out", str(out)]) == 0
    assert "Wrote 4 bridge-star questions" in capsys.readouterr().out
    assert len(json.loads(out.read_text())) == 4
    assert main(["make-erqa", "--kg", str(tmp_path / "missing"), "--n", "4", "--out", str(out)]) == 2


def test_sgrag_answers_umls_erqa(umls_graph: KnowledgeGraph, tmp_path) -> None:
    """SG-RAG (none mode) finds a gold answer for most generated questions on the KG they came from."""
    emb = HashingEmbedder(dim=128)
    ws = create_workspace([UMLS], tmp_path / "umls", name="umls", embedder=emb)
    qs = build_erqa(umls_graph, 10, seed=3, max_constraints=8, max_answers=3)
    b = Backends(emb, NoLLM())
    hits = 0
    for q in qs:
        r = run(q.question, ws, backends=b)
        hits += normalize_name(r.answer) in {normalize_name(a) for a in q.answers}
    assert hits >= 8


def polisher(drop: bool) -> ScriptedLLM:
    """Rewrites the template question naming every quoted entity (or, with ``drop``, all but one)."""
    def reply(messages):
        names = re.findall(r'"([^"]+)"', messages[-1].content)
        shown = names[1:] if drop else names
        return "Which entity links " + ", ".join(f'"{n}"' for n in shown) + "?"

    return ScriptedLLM(reply)


def test_llm_polish_keeps_every_entity_or_falls_back(umls_graph: KnowledgeGraph) -> None:
    kw = {"seed": 1, "max_constraints": 8, "max_answers": 3}
    polished = build_erqa(umls_graph, 3, llm=polisher(drop=False), **kw)
    assert all(q.polished and q.question.startswith("Which entity links") for q in polished)
    kept = build_erqa(umls_graph, 3, llm=polisher(drop=True), **kw)
    template = build_erqa(umls_graph, 3, **kw)
    assert [q.question for q in kept] == [q.question for q in template] and not any(q.polished for q in kept)
