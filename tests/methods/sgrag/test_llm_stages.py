"""The LLM paths of ψ (Table 12) and γ (Table 15) with a scripted LLM: JSON accepted, bad output
falls back visibly, and answers outside the matched entity labels are rejected."""

from __future__ import annotations

import json

import pytest

from core.backends.base import LLMResponse
from core.backends.embedders import HashingEmbedder
from core.index.workspace import Workspace, create_workspace
from core.methods.base import Backends
from core.methods.sgrag import run
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
    assert "must be one of the listed entity labels" in r.trace.stage("answer")[0].fallback


def test_unusable_query_graph_falls_back_to_the_heuristic(ws: Workspace) -> None:
    bad = {"nodes": [{"id": "a", "label": "UNK"}], "edges": [{"source": "a", "target": "zz"}]}
    r = run(QUESTION, ws, backends=Backends(HashingEmbedder(dim=128), table12_llm(bad, "Magnesium")))
    assert r.query_graph.by == "heuristic"
    assert r.trace.stage("query_graph")[0].fallback.startswith("LLM output unusable")
    assert r.answer == "Magnesium"
