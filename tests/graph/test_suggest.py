"""Suggested questions written from a graph (no LLM): every suggestion is answered by the graph by
construction, the wording follows the relation phrase, and the result is deterministic."""

from __future__ import annotations

import pytest

from core.graph.graph_builder import graph_from_triples
from core.graph.model import KnowledgeGraph
from core.graph.suggest import answerable_questions, relation_question, suggest_questions
from tests.conftest import SAMPLE_DATA


def _demo() -> KnowledgeGraph:
    from core.graph.formats.load import load_inputs

    loaded = load_inputs([SAMPLE_DATA / "demo" / "triples.csv", SAMPLE_DATA / "demo" / "corpus.json"])
    return getattr(loaded, "graph", loaded)


def _check_answered(g: KnowledgeGraph, s) -> None:  # type: ignore[no-untyped-def]
    """The graph holds what the suggestion claims: its entities, its edges, and its answer at their ends."""
    ends = [{g.node_names[int(g.edge_head[e])], g.node_names[int(g.edge_tail[e])]} for e in s.edges]
    assert s.edges and all(name in g.search_nodes(name, limit=50) for name in s.entities)
    assert all(name in s.question for name in s.entities)
    if s.kind == "relation":
        (e,) = s.edges
        assert ends[0] == {s.entities[0], s.answer}
        assert g.edge_relation[e] in s.question or g.edge_relation[e].rsplit(" ", 1)[0] in s.question
    elif s.kind == "shared":
        a, b = s.entities
        linked = [v for v in s.answer.split(" and ")]
        assert g.node(b) not in set(g.neighbors(g.node(a)).tolist())  # not linked directly: a 2-hop question
        for c in linked:
            assert {a, c} in ends and {b, c} in ends
    else:
        a, c = s.entities
        assert len(s.edges) == 2 and a in ends[0] and c in ends[1] and ends[0] & ends[1]  # a — b — c
        assert g.node(c) not in set(g.neighbors(g.node(a)).tolist())


def test_demo_graph_suggestions_are_answered_by_the_graph() -> None:
    g = _demo()
    out = suggest_questions(g, k=5)
    assert len(out) == 5
    assert {s.kind for s in out} == {"shared", "relation", "path"}  # one of each template first
    assert len({s.question for s in out}) == 5
    for s in out:
        _check_answered(g, s)
    # no entity is asked about twice while fresh ones are left
    named = [n for s in out for n in s.entities]
    assert len(named) == len(set(named))
    assert suggest_questions(g, k=5) == out  # deterministic


def test_toy_graph_intersection_question(matrix_graph: KnowledgeGraph) -> None:
    """Keanu Reeves and Laurence Fishburne are not linked; The Matrix links them (BubbleRAG's Figure 3)."""
    out = suggest_questions(matrix_graph, k=10)
    for s in out:
        _check_answered(matrix_graph, s)
    shared = {s.question: s.answer for s in out if s.kind == "shared"}
    assert shared.get("What connects Keanu Reeves and Laurence Fishburne?") in (None, "The Matrix")
    assert any(s.answer == "The Matrix" for s in out if s.kind == "shared") or \
        any("The Matrix" in s.entities for s in out)
    assert len(out) == len({s.question for s in out})


def test_dates_and_numbers_are_never_the_subject(lothair_graph: KnowledgeGraph) -> None:
    out = suggest_questions(lothair_graph, k=10)
    assert out
    for s in out:
        _check_answered(lothair_graph, s)
        assert not any(name[0].isdigit() for name in s.entities), s


@pytest.mark.parametrize(("triple", "question"), [
    (("The Matrix", "directed by", "The Wachowskis"), "Who directed The Matrix?"),
    (("Keanu Reeves", "played", "Neo"), "Who or what played Neo?"),
    (("The Matrix", "genre", "science fiction"), "What is the genre of The Matrix?"),
    (("Agent Smith", "main antagonist of", "The Matrix"), "Who or what is the main antagonist of The Matrix?"),
    (("Agent Smith", "is a", "sentient program"), "What is Agent Smith?"),
    (("Ermengarde", "died on", "20 March 851"), "Who or what died on 20 March 851?"),
    (("Ada", "born in", "London"), "Who or what was born in London?"),
    (("Speed", "starring", "Keanu Reeves"), "Who or what is Speed starring?"),
])
def test_relation_wording_follows_the_phrase(triple: tuple[str, str, str], question: str) -> None:
    assert relation_question(*triple)[0] == question


def test_relation_phrases_without_a_wording_are_skipped() -> None:
    assert relation_question("m.0abc", "/film/film/genre", "m.0xyz") is None  # a Freebase path
    assert relation_question("A", "", "B") is None
    # a bare auxiliary or light verb (OpenIE's "Alan Turing — was — a mathematician"): no "What is the was of …?"
    for bare in ("was", "has", "Became", "includes", "not have", "does not own", "never won"):
        assert relation_question("Alan Turing", bare, "a mathematician") is None, bare


def test_nothing_to_suggest_without_edges() -> None:
    g = graph_from_triples([("Alpha", "rank", "Beta")], name="one")
    assert suggest_questions(g, k=0) == ()
    assert suggest_questions(g, k=3) and all(s.kind == "relation" for s in suggest_questions(g, k=3))
    from core.graph.graph_builder import GraphBuilder

    b = GraphBuilder(name="corpus")
    b.add_chunk("T", "text", chunk_id="c1")
    assert suggest_questions(b.build(), k=3) == ()  # no edge, no question


def _passages_graph(rows: list[tuple[str, str, str, str]], texts: dict[str, str]) -> KnowledgeGraph:
    from core.graph.graph_builder import GraphBuilder

    b = GraphBuilder(name="films")
    ids = {cid: b.add_chunk(cid.title(), text, chunk_id=cid) for cid, text in texts.items()}
    for h, r, t, cid in rows:
        b.add_triple(h, r, t, chunk_id=ids[cid])
    return b.build()


def test_answerable_questions_are_worded_from_one_relation_and_checked_against_the_graph() -> None:
    g = _demo()
    out = answerable_questions(g, k=4)
    assert len(out) == 4 and {s.kind for s in out} == {"relation"}  # no "What connects" / "How is … related"
    norm = " ".join
    for s in out:
        _check_answered(g, s)
        (e,) = s.edges
        # the one answer: no other edge of the relation has the named entity at the same end
        known = g.node(s.entities[0])
        end = g.edge_head if int(g.edge_head[e]) == known else g.edge_tail
        same = [f for f in range(g.n_edges) if g.edge_relation[f] == g.edge_relation[e] and int(end[f]) == known]
        assert set(same) == {e}, s
        # a provenance passage names the entity and the answer
        texts = [norm((g.chunk(c).title, g.chunk(c).text)).lower() for c in g.edge_chunks[e]]
        assert any(s.entities[0].lower() in t and s.answer.lower() in t for t in texts), s


def test_a_relation_with_two_answers_or_a_passage_that_does_not_state_it_is_not_suggested() -> None:
    texts = {"m": "The Matrix, directed by the Wachowskis, stars Keanu Reeves.",
             "k": "Keanu Reeves is Canadian and Lebanese by birth.",
             "x": "A page about something else entirely."}
    rows = [("The Matrix", "directed by", "The Wachowskis", "m"),  # stated in its passage: suggested
            ("Keanu Reeves", "nationality", "Canadian", "k"),  # two nationalities: two answers
            ("Keanu Reeves", "nationality", "Lebanese", "k"),
            ("John Wick", "directed by", "Chad Stahelski", "x")]  # its passage never names the film or director
    g = _passages_graph(rows, texts)
    got = {s.question: s.answer for s in answerable_questions(g, k=8)}
    assert got == {"Who directed The Matrix?": "The Wachowskis"}
    # the templates alone offer the ambiguous and the unstated ones
    templated = {s.question for s in suggest_questions(g, k=8)}
    assert {"Who directed John Wick?", "What is the nationality of Keanu Reeves?"} <= templated
    assert answerable_questions(g, k=0) == ()
