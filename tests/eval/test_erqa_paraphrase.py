"""Paraphrased ERQA questions: oracle answer sets, no quoted relation labels, seeded."""

from __future__ import annotations

import json
import re

import networkx as nx
import numpy as np
import pytest

from core.cli import main
from core.errors import ConfigError, EmptyGraphError
from core.eval.erqa_lexicon import ALIASES, LEXICON, last_step, relation_phrase
from core.eval.erqa_paraphrase import (
    answer_set,
    build_paraphrased,
    quotes_label,
    relation_labels,
    surface_form,
    write_paraphrased,
)
from core.graph.formats.named_kg import read_named_kg
from core.graph.graph_builder import GraphBuilder, graph_from_triples
from core.graph.model import KnowledgeGraph
from core.index.questions import parse_questions
from core.text import normalize_name
from tests.conftest import SAMPLE_DATA, SHARED_DATA

FB = SHARED_DATA / "fb15k237_named"
UMLS = SHARED_DATA / "umls_named"
SHIPPED = SAMPLE_DATA / "erqa" / "fb15k237_paraphrase_200.json"


@pytest.fixture(scope="module")
def fb_test() -> KnowledgeGraph:
    """The whole FB15k-237 KG (310,116 triples; relation2text labels, Freebase ids kept). On one split
    alone (the 20k test triples) nearly every two-constraint question has one answer."""
    b = GraphBuilder(name="fb15k237")
    read_named_kg(FB, b)
    return b.build()


@pytest.fixture(scope="module")
def fb_questions(fb_test: KnowledgeGraph):
    return build_paraphrased(fb_test, 40, seed=0)


@pytest.fixture(scope="module")
def fb_nx(fb_test: KnowledgeGraph) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_edges_from((int(h), int(t), {"rel": r}) for h, t, r in zip(fb_test.edge_head, fb_test.edge_tail,
                                                                      fb_test.edge_relation))
    return G


def _nx_answers(g: KnowledgeGraph, G: nx.MultiDiGraph, constraints) -> set[str]:
    """The answer set by networkx: nodes X with, for every constraint, an edge X→e (or e→X) of its relation."""
    out: set[int] | None = None
    for c in constraints:
        ent = g._name_index[normalize_name(c["entity"])]
        assert len(ent) == 1  # constraint entities have unique names
        want = relation_phrase(c["relation"])
        if c["answer_side"] == "head":
            xs = {u for u, _, d in G.in_edges(ent[0], data=True) if normalize_name(d["rel"]) == want}
        else:
            xs = {v for _, v, d in G.out_edges(ent[0], data=True) if normalize_name(d["rel"]) == want}
        out = xs if out is None else out & xs
    return {g.node_names[v] for v in out or set()}


def test_answer_sets_equal_a_networkx_computation(fb_test: KnowledgeGraph, fb_nx, fb_questions) -> None:
    assert len(fb_questions) == 40
    for q in fb_questions:
        rec = q.to_record()
        assert set(q.answers) == _nx_answers(fb_test, fb_nx, rec["constraints"]), q.question
        assert q.anchor in q.answers
        assert rec["n_answers"] == len(q.answers) <= 10


def test_answer_set_on_a_hand_made_graph() -> None:
    g = graph_from_triples([("Jaws", "film film genre", "Thriller"), ("Alien", "film film genre", "Thriller"),
                            ("Jaws", "film film country", "USA"), ("Alien", "film film country", "UK"),
                            ("Thriller", "film film country", "USA"), ("Duel", "film film genre", "Thriller"),
                            ("Duel", "film film country", "USA")])
    idx = {n: i for i, n in enumerate(g.node_names)}
    got = answer_set(g, [(["film film genre"], idx["Thriller"], "head"), (["film film country"], idx["USA"], "head")])
    assert {g.node_names[v] for v in got} == {"Jaws", "Duel"}
    got = answer_set(g, [(["film film country"], idx["Jaws"], "tail")])
    assert {g.node_names[v] for v in got} == {"USA"}
    assert answer_set(g, []) == set()
    with pytest.raises(ConfigError, match="answer_side 'middle' must be 'head' or 'tail'"):
        answer_set(g, [(["film film genre"], idx["Thriller"], "middle")])


def test_no_question_quotes_a_relation_label(fb_questions) -> None:
    for q in fb_questions:
        assert quotes_label(q.question, q.constraints, (q.answer_type,)) is None
        text = q.question
        for c in q.constraints:
            text = re.sub(re.escape(c.surface), " ", text, flags=re.IGNORECASE)
        low = normalize_name(text)
        for c in q.constraints:
            for form in (relation_phrase(c.relation), normalize_name(c.label), c.relation):
                assert normalize_name(form) not in low, (form, q.question)
        assert '"' not in q.question  # no quoted KG names


def test_quotes_label_catches_a_quoted_label(fb_questions) -> None:
    q = fb_questions[0]
    c = q.constraints[0]
    assert quotes_label(f"{q.question} ({c.label})", q.constraints, (q.answer_type,)) == c.label


def test_every_lexicon_phrase_avoids_its_relation_labels() -> None:
    for entry in LEXICON:
        for side in (entry.as_head, entry.as_tail):
            if side is None:
                continue
            for ph in side.phrases:
                assert ph.count("{e}") == 1, ph
                words = normalize_name(ph.replace("{e}", " "))
                for form in (relation_phrase(entry.path), last_step(entry.path)):
                    if normalize_name(form) in (side.singular, side.plural):
                        continue
                    assert not re.search(r"(?<!\w)" + re.escape(normalize_name(form)) + r"(?!\w)", words), (entry.path, ph)


def test_answer_sets_are_not_all_singletons(fb_questions) -> None:
    sizes = [len(q.answers) for q in fb_questions]
    assert sum(s > 1 for s in sizes) >= len(sizes) // 5, sizes
    assert {len(q.constraints) for q in fb_questions} == {2, 3}


def test_entity_surfaces_vary(fb_questions) -> None:
    cons = [c for q in fb_questions for c in q.constraints]
    assert any(c.surface != c.entity for c in cons)
    assert all(normalize_name(c.surface) == normalize_name(c.entity) or c.surface in ALIASES.get(c.entity, ())
               or normalize_name(c.surface) in normalize_name(c.entity) for c in cons)
    rng = np.random.default_rng(0)
    assert {surface_form("United States of America", rng) for _ in range(40)} <= \
        {"United States of America", "united states of america", *ALIASES["United States of America"]}
    assert surface_form("Actor-GB", np.random.default_rng(1)) in {"Actor", "Actor-GB", "actor-gb"}


def test_seeded(fb_test: KnowledgeGraph, fb_questions) -> None:
    again = build_paraphrased(fb_test, 40, seed=0)
    assert [q.to_record() for q in again] == [q.to_record() for q in fb_questions]
    other = build_paraphrased(fb_test, 40, seed=1)
    assert [q.to_record() for q in other] != [q.to_record() for q in fb_questions]


def test_records_load_with_answer_sets(fb_test: KnowledgeGraph, fb_questions, tmp_path) -> None:
    p = write_paraphrased(fb_questions, tmp_path / "q.json")
    recs = json.loads(p.read_text())
    assert {"question", "answer", "supporting_facts", "constraints", "oracle", "answer_type"} <= set(recs[0])
    for r, q in zip(recs, parse_questions(recs, fb_test)):
        assert (q.answer, *q.aliases) == tuple(r["answer"])  # the whole answer set is gold
        assert not q.unmatched or all(t not in fb_test._name_index for t in q.unmatched)


def test_relation_restriction_and_labels(fb_test: KnowledgeGraph) -> None:
    path = "/film/director/film"
    assert relation_labels(fb_test, [path]) == {path: ("film director film",)}
    qs = build_paraphrased(fb_test, 5, seed=2, relations=[path])
    assert qs and all(c.relation == path for q in qs for c in q.constraints)


def test_bad_input(fb_test: KnowledgeGraph) -> None:
    with pytest.raises(ConfigError, match=r"Unknown relation '/film/film/directed_by' for paraphrased ERQA questions: "
                                          r"the lexicon covers 39 FB15k-237 relations"):
        build_paraphrased(fb_test, 3, relations=["/film/film/directed_by"])
    with pytest.raises(ConfigError, match=r"paraphrased ERQA n=0 must be at least 1\."):
        build_paraphrased(fb_test, 0)
    with pytest.raises(ConfigError, match=r"n_constraints=\(3, 2\) must be \(lo, hi\) with 1 ≤ lo ≤ hi"):
        build_paraphrased(fb_test, 3, n_constraints=(3, 2))
    empty = GraphBuilder(name="empty")
    empty.add_node("lonely")
    with pytest.raises(EmptyGraphError, match=r"Graph 'empty' has no edges; paraphrased ERQA questions need a KG"):
        build_paraphrased(empty.build(), 3)
    b = GraphBuilder(name="umls")
    read_named_kg(UMLS, b)
    with pytest.raises(EmptyGraphError, match=r"Graph 'umls' has no edge of the 39 relations the paraphrase lexicon "
                                              r"covers; it needs FB15k-237 relation paths"):
        build_paraphrased(b.build(), 3)


def test_cli_make_erqa_paraphrase(tmp_path, capsys) -> None:
    out = tmp_path / "p.json"
    assert main(["make-erqa", "--style", "paraphrase", "--kg", str(FB), "--n", "6", "--seed", "3", "--out", str(out)]) == 0
    assert "Wrote 6 paraphrased questions (seed 3) from fb15k237_named" in capsys.readouterr().out
    assert all(r["type"] == "paraphrase" for r in json.loads(out.read_text()))
    assert main(["make-erqa", "--style", "paraphrase", "--kg", str(FB), "--relations", "/x/y", "--out", str(out)]) == 2
    assert "Unknown relation '/x/y'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--llm polishes template questions only"):
        main(["make-erqa", "--style", "paraphrase", "--kg", str(FB), "--llm", "local", "--out", str(out)])


def test_shipped_file_is_reproduced_from_the_full_kg(tmp_path) -> None:
    """sample_data/erqa/fb15k237_paraphrase_200.json is what its recorded command writes (nobody edited it)."""
    out = tmp_path / "p.json"
    assert main(["make-erqa", "--style", "paraphrase", "--kg", str(FB), "--n", "200", "--seed", "0",
                 "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads(SHIPPED.read_text())
