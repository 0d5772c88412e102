"""The LLM paths of ψ (Table 12) and γ (Table 15) with a scripted LLM: JSON accepted, bad output
falls back visibly, and answers outside the matched entity labels are rejected."""

from __future__ import annotations

import json

import pytest

from core.backends.base import LLMResponse
from core.backends.embedders import HashingEmbedder
from core.index.create import create_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.sgrag import run
from core.trace import Trace
from tests.fakes import ScriptedLLM
from tests.methods.sgrag.conftest import MAGNESIUM_TRIPLES, write_triples

QUESTION = "Which element is associated with bone formation, thyroid health, hormone metabolism, and immune system?"
GRAPH = {"nodes": [{"id": "a", "label": "UNK", "description": "element"},
                   {"id": "b", "label": "bone formation"}, {"id": "c", "label": "thyroid health"},
                   {"id": "d", "label": "hormone metabolism"}, {"id": "e", "label": "immune system"}],
         "edges": [{"source": "a", "target": x} for x in "bcde"]}


def table12_llm(graph: object, answer: str) -> ScriptedLLM:
    """Answers the query-graph prompt (Table 12, the one naming UNK) with ``graph`` and the answer
    prompt (Table 15) with ``answer``."""
    def reply(messages):
        if "UNK" in messages[0].content:  # Table 12
            return LLMResponse(json.dumps(graph) if not isinstance(graph, str) else graph, 20, 30)
        return LLMResponse(json.dumps({"answer": answer}), 40, 5)

    return ScriptedLLM(reply)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("mgllm")
    return create_workspace([write_triples(root / "in" / "t.csv", MAGNESIUM_TRIPLES)], root / "ws", name="m",
                            embedder=HashingEmbedder(dim=128))


def test_llm_query_graph_and_answer(ws: Workspace) -> None:
    llm = table12_llm(GRAPH, "Magnesium")
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), llm))
    assert r.query_graph.by == "llm" and r.query_graph.unknown_ids == ("a",)
    assert r.answer == "Magnesium" and r.answer_detail.by == "llm"
    assert "Node Magnesium is related to Node Bone formation via: [relation : promotes]." in llm.prompts[-1]
    steps = {s.stage: s for s in r.trace.steps}
    assert steps["query_graph"].prompt_tokens == 20 and not steps["query_graph"].fallback
    assert steps["answer"].completion_tokens == 5


def test_answer_outside_the_matched_labels_falls_back(ws: Workspace) -> None:
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(GRAPH, "Zinc")))
    assert r.answer == "Magnesium" and r.answer_detail.by == "unk-binding"
    assert "must be one of the listed candidates" in r.trace.stage("answer")[0].fallback


def test_unusable_query_graph_falls_back_to_the_heuristic(ws: Workspace) -> None:
    bad = {"nodes": [{"id": "a", "label": "UNK"}], "edges": [{"source": "a", "target": "zz"}]}
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(bad, "Magnesium")))
    assert r.query_graph.by == "heuristic"
    assert r.trace.stage("query_graph")[0].fallback.startswith("LLM output unusable")
    assert r.answer == "Magnesium"


def test_the_schemas_bound_the_query_graph_and_the_answer_to_what_the_prompt_offers() -> None:
    import jsonschema

    from core.methods.sgrag import prompts

    jsonschema.validate({"nodes": [{"id": "q1", "label": "Lothair II"}, {"id": "q2", "label": "UNK"}],
                         "edges": [{"source": "q1", "target": "q2"}]}, prompts.QUERY_GRAPH_SCHEMA)
    for runaway in ({"nodes": [{"id": f"q{i % 12 + 1}", "label": "x"} for i in range(40)], "edges": []},
                    {"nodes": [{"id": "q1", "label": "a"}, {"id": "q13", "label": "UNK"}],
                     "edges": [{"source": "q1", "target": "q13"}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(runaway, prompts.QUERY_GRAPH_SCHEMA)
    enum = prompts.answer_schema(["Magnesium", "Zinc"])["properties"]["answer"]["enum"]
    assert enum == ["Magnesium", "Zinc", prompts.UNDETERMINED]  # Table 15: one of the labels, or undetermined
    assert "<" in prompts.QUERY_GRAPH_SYSTEM and "Keanu" not in prompts.QUERY_GRAPH_SYSTEM  # placeholders only


@pytest.mark.parametrize(("graph", "why"), [
    ({"nodes": [{"id": "q1", "label": "bone formation"}, {"id": "q2", "label": "thyroid health"}],
      "edges": [{"source": "q1", "target": "q2"}]}, "no node is UNK (the asked-for target)"),
    ({"nodes": [{"id": "q1", "label": "UNK"}, {"id": "q2", "label": "Magnesium"}],
      "edges": [{"source": "q1", "target": "q2"}]}, "the label 'Magnesium' is not written in the question"),
    ({"nodes": [{"id": "q1", "label": "UNK"}, {"id": "q2", "label": "bone formation"},
                {"id": "q3", "label": "immune system"}],
      "edges": [{"source": "q1", "target": "q2"}]}, "'immune system' is on no edge"),
    ({"nodes": [{"id": "q1", "label": "UNK"}, {"id": "q2", "label": "UNK"}],
      "edges": [{"source": "q1", "target": "q2"}]}, "every node is UNK (no entity of the question anchors the match)"),
])
def test_a_query_graph_that_guesses_or_lacks_its_target_falls_back_and_names_the_check(ws: Workspace, graph, why) -> None:
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(graph, "Magnesium")))
    step = r.trace.stage("query_graph")[0]
    assert r.query_graph.by == "heuristic" and step.fallback == f"check failed: {why}; used the `none`-mode bridge star"
    assert step.data["rejected"]["nodes"]


def test_the_papers_hash_format_is_read_too(ws: Workspace) -> None:
    """Table 12's own output ('#'-separated, ended by <COMPLETE>), from a backend without JSON decoding."""
    text = ("<q1><UNK><element> # <q2><bone formation><> # <q3><thyroid health><> # <e1><q1><q2> # <e2><q1><q3> "
            "# <COMPLETE>")
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(text, "Magnesium")))
    assert r.query_graph.by == "llm" and [n.label for n in r.query_graph.nodes] == ["UNK", "bone formation",
                                                                                    "thyroid health"]
    assert r.query_graph.edges == (("q1", "q2"), ("q1", "q3"))


def test_no_exact_match_says_which_query_path_found_no_kg_path(ws: Workspace) -> None:
    """bone formation — UNK — thyroid health has a match (Magnesium), but no KG node links immune system to
    thyroid health directly: the fallback names that query path."""
    graph = {"nodes": [{"id": "q1", "label": "thyroid health"}, {"id": "q2", "label": "immune system"}],
             "edges": [{"source": "q1", "target": "q2"}]}
    graph["nodes"].append({"id": "q3", "label": "UNK"})
    graph["edges"].append({"source": "q2", "target": "q3"})
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(graph, "Magnesium")))
    fb = r.trace.stage("fallback")[0].fallback if r.trace.stage("fallback") else ""
    assert r.assembly.fallback and "no exact subgraph matched the query graph: " in fb, [
        (s.stage, s.fallback) for s in r.trace.steps]
    assert "no KG path matches the query path" in fb or "no graph label completes" in fb


def test_described_labels_become_unk_names_stay():
    """Table 12: an entity the question only describes is UNK; a 1.5B model writes the description as the
    label ("The movie"), which normalization would map to whatever node is nearest to "movie"."""
    from core.methods.sgrag.query_graph import QNode, QueryGraph, unk_described

    qg = QueryGraph((QNode("q1", "Keanu Reeves"), QNode("q2", "The movie", "film"), QNode("q3", "the 1999 film"),
                     QNode("q4", "mother"), QNode("q5", "UNK")),
                    (("q1", "q2"), ("q2", "q3"), ("q3", "q4"), ("q4", "q5")), by="llm")
    out, changed = unk_described(qg, {"mother"})
    assert changed == ["The movie"]
    assert [n.label for n in out.nodes] == ["Keanu Reeves", "UNK", "the 1999 film", "mother", "UNK"]
    assert out.node("q2").description == "The movie: film" and out.edges == qg.edges
    assert unk_described(out, set())[1] == ["mother"]


def test_a_kind_the_question_writes_after_a_determiner_is_unk_even_when_the_graph_has_such_a_node():
    """Table 12: "the country Signmark is from" describes the asked-for entity ("the immune system" names one). An OpenIE graph has a node named
    "country", so the name-index exception must not keep it (it did: MuSiQue's query graphs matched the literal
    node "country"); "rugby union" in "an international in rugby union" names a sport and stays."""
    from core.methods.sgrag.query_graph import QNode, QueryGraph, unk_described

    q = "What currency predated the Euro in the country Signmark is from, and the usual average snowfall in Oulu?"
    qg = QueryGraph((QNode("q1", "Signmark"), QNode("q2", "country"), QNode("q3", "currency"), QNode("q4", "Euro"),
                     QNode("q5", "snowfall"), QNode("q6", "UNK")),
                    (("q1", "q2"), ("q2", "q3"), ("q3", "q4"), ("q4", "q5"), ("q5", "q6")), by="llm")
    out, changed = unk_described(qg, {"country", "currency", "snowfall"}, q)
    assert changed == ["country", "currency", "snowfall"]
    assert [n.label for n in out.nodes] == ["Signmark", "UNK", "UNK", "Euro", "UNK", "UNK"]
    sport = QueryGraph((QNode("q1", "David Jones"), QNode("q2", "rugby union"), QNode("q3", "UNK")),
                       (("q1", "q2"), ("q1", "q3")), by="llm")
    assert unk_described(sport, {"rugby union"}, "David Jones is an international in rugby union and which sport?")[1] == []


def test_repeated_unknown_leaves_are_merged_so_the_match_can_be_exact(ws: Workspace) -> None:
    """Three UNK leaves on "bone formation" would need three distinct KG neighbours of it (matching is
    injective); the question asks for one entity, so they are merged and the match is exact."""
    graph = {"nodes": [{"id": "q1", "label": "bone formation"}, {"id": "q2", "label": "UNK", "description": "element"},
                       {"id": "q3", "label": "UNK", "description": "mineral"}, {"id": "q4", "label": "UNK"}],
             "edges": [{"source": "q1", "target": "q2"}, {"source": "q1", "target": "q3"},
                       {"source": "q1", "target": "q4"}]}
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(graph, "Magnesium")))
    step = r.trace.stage("query_graph")[0]
    assert step.data["merged_unknowns"] == [["q2", "q3", "q4"]]
    assert r.query_graph.ids == ("q1", "q2") and r.query_graph.edges == (("q1", "q2"),)
    assert r.query_graph.node("q2").description == "element; mineral"
    assert not r.assembly.fallback and r.assembly.subgraphs  # Magnesium and Calcium both promote bone formation


def test_unknown_leaves_on_different_nodes_or_on_a_chain_stay():
    from core.methods.sgrag.query_graph import QNode, QueryGraph, merge_repeated_unknowns

    qg = QueryGraph((QNode("q1", "A"), QNode("q2", "UNK"), QNode("q3", "B"), QNode("q4", "UNK"), QNode("q5", "UNK")),
                    (("q1", "q2"), ("q3", "q4"), ("q1", "q5"), ("q5", "q3")), by="llm")
    assert merge_repeated_unknowns(qg) == (qg, [])


def test_none_mode_does_not_link_a_kind_written_after_a_determiner(ws: Workspace) -> None:
    q = "Which element promotes the bone formation in children and influences Thyroid health?"
    r = run(q, ws, backends=Backends(HashingEmbedder(dim=128), ScriptedLLM(lambda m: LLMResponse("not json", 1, 1))))
    step = r.trace.stage("query_graph")[0]
    assert r.query_graph.by == "heuristic" and step.data["described_not_linked"] == ["Bone formation"]
    assert [n.label for n in r.query_graph.nodes if not n.unknown] == ["Thyroid health"]


def test_a_seven_node_make_erqa_question_passes_the_llm_path(fb_slice) -> None:
    """`egx make-erqa` builds up to 6 constraints around the asked-for star (7 nodes): the schema, the
    validator and the checks take its query graph as the model writes it; only a runaway reply is refused."""
    import jsonschema

    from core.eval.erqa import build_erqa
    from core.methods.sgrag import prompts
    from core.methods.sgrag.query_graph import extract_query_graph

    q = build_erqa(fb_slice, 1, seed=0, n_unique=(5, 5), n_bridge=(1, 1))[0]
    assert len(q.query_entities) == 6
    reply = {"nodes": [{"id": "q1", "label": "UNK", "description": "entity"}]
             + [{"id": f"q{i + 2}", "label": e} for i, e in enumerate(q.query_entities)],
             "edges": [{"source": "q1", "target": f"q{i + 2}"} for i in range(len(q.query_entities))]}
    jsonschema.validate(reply, prompts.QUERY_GRAPH_SCHEMA)  # what llama.cpp's grammar lets the model write
    qg = extract_query_graph(q.question, fb_slice, ScriptedLLM(json.dumps(reply)))
    assert qg.by == "llm" and len(qg.nodes) == 7 and len(qg.edges) == 6
    assert [n.label for n in qg.nodes[1:]] == list(q.query_entities)

    runaway = {"nodes": [{"id": f"q{i}", "label": f"x{i}"} for i in range(1, 14)],
               "edges": [{"source": "q1", "target": f"q{i}"} for i in range(2, 14)]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(runaway, prompts.QUERY_GRAPH_SCHEMA)
    tr = Trace("sgrag", q.question)
    qg = extract_query_graph(q.question, fb_slice, ScriptedLLM(json.dumps(runaway)), trace=tr)
    assert qg.by == "heuristic"
    assert "the query graph has 13 nodes, more than the 12 a question may have" in json.dumps(
        tr.stage("query_graph")[0].data, ensure_ascii=False) + tr.stage("query_graph")[0].fallback


def test_exact_matches_are_the_candidates_listed_first_and_the_answer_is_one_of_them(ws: Workspace) -> None:
    llm = table12_llm(GRAPH, "Unable to determine")
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), llm))
    assert r.answer_detail.candidates == ("Magnesium",)
    call = next(c for c in llm.calls if "UNK" not in c.messages[0].content)  # the answer's first ask
    assert call.messages[1].content.startswith("— Candidate answers (exact matches, best first): Magnesium\n")
    assert call.json_schema["properties"]["answer"] == {"enum": ["Magnesium"]}  # §4.4: every constraint holds
    # "Unable to determine" is no candidate: refused, and the best match's binding answers instead
    assert r.answer == "Magnesium" and r.answer_detail.by == "unk-binding"
    assert "must be one of the listed candidates" in r.trace.stage("answer")[0].fallback


def test_without_exact_matches_table15_still_allows_unable_to_determine(ws: Workspace) -> None:
    graph = {"nodes": [{"id": "a", "label": "UNK"}, {"id": "b", "label": "bone formation"},
                       {"id": "c", "label": "immune system"}, {"id": "d", "label": "UNK"}],
             "edges": [{"source": "a", "target": "b"}, {"source": "a", "target": "c"}, {"source": "b", "target": "d"},
                       {"source": "c", "target": "d"}]}
    llm = table12_llm(graph, "Unable to determine")
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), llm))
    assert r.assembly.fallback and not r.answer_detail.candidates
    assert "Candidate answers" not in llm.prompts[-1]
    assert "Unable to determine" in llm.calls[-1].json_schema["properties"]["answer"]["enum"]
    assert r.answer == "Unable to determine" and r.answer_detail.by == "llm"


def test_one_line_of_reasoning_when_asked_and_the_answer_stays_the_label(ws: Workspace) -> None:
    from core.eval.judgements import shown_answer
    from core.methods.sgrag import SGRAGConfig

    def reply(messages):
        if "UNK" in messages[0].content:
            return LLMResponse(json.dumps(GRAPH), 20, 30)
        return LLMResponse(json.dumps({"answer": "Magnesium", "reasoning": "It promotes bone formation and "
                                       "influences thyroid health, hormone metabolism and the immune system."}), 40, 5)

    llm = ScriptedLLM(reply)
    r = run(QUESTION, ws, config=SGRAGConfig(answer_reasoning=True), backends=Backends(HashingEmbedder(dim=128), llm))
    assert r.answer == "Magnesium" and r.answer_reasoning.startswith("It promotes bone formation")
    assert llm.calls[-1].json_schema["required"] == ["answer", "reasoning"] and "one line of reasoning" in \
        llm.calls[-1].messages[0].content
    assert r.answer_detail.shown == f"Answer: Magnesium. Reasoning: {r.answer_reasoning}"  # Table 14's shape
    assert shown_answer({"answer": "Magnesium", "reasoning": r.answer_reasoning}) == r.answer_detail.shown
    assert shown_answer({"answer": "Magnesium"}) == "Magnesium"
    plain = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(GRAPH, "Magnesium")))
    assert plain.answer_reasoning == "" and "reasoning" not in str(plain.trace.stage("answer")[0].data.get("reasoning", ""))
