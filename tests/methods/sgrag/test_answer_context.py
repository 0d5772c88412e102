"""γ's context (SG-RAG §4.4, §5): all matched subgraphs, node descriptions, a 1,200-token budget that holds."""

from __future__ import annotations

import pytest

from core.backends.registry import get_llm
from core.backends.tokens import count_tokens
from core.graph.graph_builder import GraphBuilder
from core.methods.sgrag import prompts
from core.methods.sgrag.answer import build_context
from core.methods.sgrag.assembly import Assembly, Subgraph


@pytest.fixture
def graph_and_assembly():
    """Seven matched subgraphs (a star each: centre i —r→ shared node), every node with a description."""
    b = GraphBuilder(name="ctx")
    b.add_node("Shared", description="the node every subgraph reaches")
    for i in range(7):
        b.add_node(f"Centre {i}", description=f"centre number {i} of the test graph, a made-up entity")
        b.add_triple(f"Centre {i}", "links to", "Shared")
    g = b.build()
    subs = tuple(Subgraph(((("q1", g.node(f"Centre {i}")),)), (i,), 1.0 - i / 10) for i in range(7))
    return g, Assembly(subs, 7, 7, False, False, False)


def _prompt_tokens(query, ctx, g):
    labels = []
    for e in ctx.edges:
        for v in (int(g.edge_head[e]), int(g.edge_tail[e])):
            if g.node_names[v] not in labels:
                labels.append(g.node_names[v])
    text = prompts.ANSWER_SYSTEM + "\n" + prompts.answer_user(query, prompts.relation_paragraph(list(ctx.pieces)), labels)
    return count_tokens([text])[0][0]


def test_all_subgraphs_and_their_node_descriptions_are_in_a_large_budget(graph_and_assembly):
    g, asm = graph_and_assembly
    ctx = build_context("Which node links every centre?", asm, g, budget=5000, llm=get_llm("none"))
    assert ctx.edges == tuple(range(7))  # all seven subgraphs, not the top 5
    assert ctx.subgraphs_used == ctx.subgraphs_total == 7 and ctx.dropped_pieces == 0
    assert ctx.descriptions == 8  # 7 centres + the shared node, each described once
    assert "Node Centre 6: centre number 6 of the test graph, a made-up entity." in ctx.pieces
    assert ctx.pieces[0] == "Node Centre 0 is related to Node Shared via: [relation : links to]."
    assert ctx.tokens == _prompt_tokens("Which node links every centre?", ctx, g)


@pytest.mark.parametrize("budget", [150, 220, 300])
def test_the_token_budget_is_enforced_best_subgraphs_first(graph_and_assembly, budget):
    g, asm = graph_and_assembly
    q = "Which node links every centre?"
    ctx = build_context(q, asm, g, budget=budget)
    assert ctx.tokens <= budget and ctx.tokens == _prompt_tokens(q, ctx, g)
    assert ctx.dropped_pieces > 0 and ctx.subgraphs_used < 7
    assert list(ctx.edges) == list(range(len(ctx.edges)))  # a prefix in rank order
    bigger = build_context(q, asm, g, budget=budget + 150)
    assert len(bigger.pieces) > len(ctx.pieces)


def test_the_fallback_context_is_g_double_prime(graph_and_assembly):
    g, _ = graph_and_assembly
    fb = Assembly((), 0, 0, False, False, True, fallback_edges=(3, 1), fallback_nodes=(g.node("Shared"),))
    ctx = build_context("q?", fb, g, budget=5000)
    assert ctx.edges == (3, 1) and ctx.subgraphs_total == 1
