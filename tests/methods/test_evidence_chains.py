"""Structure-aware reorganization (ReG §4.2, D.4) on hand-built triple sets."""

from __future__ import annotations

import itertools

import pytest

from core.methods.evidence.chains import Triple, expand_chains, merge_answers, merge_entities, reorganize


def T(h: str, r: str, t: str, s: float = 0.0) -> Triple:
    return Triple(h, r, t, score=s)


def texts(chains) -> list[str]:
    return [c.text() for c in chains]


def test_forward_chain_follows_head_tail_matching() -> None:
    ts = [T("b", "s", "c"), T("a", "r", "b"), T("c", "u", "d"), T("x", "y", "z")]
    chains, trunc = expand_chains(ts, ["a"], max_length=5, keep_unanchored=False)
    assert not trunc
    assert texts(chains) == ["a → [r] → b → [s] → c → [u] → d"]
    assert chains[0].direction == "forward" and chains[0].root == "a"
    assert chains[0].members == ((1, 0, 2),)


def test_backward_chain_ends_at_the_query_entity() -> None:
    # Lothair: the query entity is the *tail* of the final triple
    ts = [T("Ermengarde", "mother of", "Lothair II"), T("Hugh", "father of", "Ermengarde")]
    chains, _ = expand_chains(ts, ["lothair ii"], max_length=3)
    assert texts(chains) == ["Hugh → [father of] → Ermengarde → [mother of] → Lothair II"]
    assert chains[0].direction == "backward" and chains[0].root == "Lothair II"
    assert chains[0].targets == ("Hugh",)
    only_fwd, _ = expand_chains(ts, ["lothair ii"], bidirectional=False, keep_unanchored=False)
    assert only_fwd == ()


def test_max_length_bounds_chains_and_branches_are_separate_chains() -> None:
    ts = [T("a", "r1", "b"), T("b", "r2", "c"), T("c", "r3", "d"), T("b", "r4", "e")]
    chains, _ = expand_chains(ts, ["a"], max_length=2, keep_unanchored=False)
    assert sorted(texts(chains)) == ["a → [r1] → b → [r2] → c", "a → [r1] → b → [r4] → e"]
    assert all(c.length <= 2 for c in chains)
    long, _ = expand_chains(ts, ["a"], max_length=3, keep_unanchored=False)
    assert "a → [r1] → b → [r2] → c → [r3] → d" in texts(long)


def test_cycles_do_not_loop() -> None:
    ts = [T("a", "r", "b"), T("b", "r", "a")]
    chains, _ = expand_chains(ts, ["a"], max_length=10)
    assert texts(chains)[0] == "a → [r] → b"
    assert max(c.length for c in chains) == 1


def test_unanchored_triples_are_kept_last_or_dropped() -> None:
    ts = [T("a", "r", "b"), T("x", "p", "y"), T("y", "q", "z")]
    chains, _ = expand_chains(ts, ["a"], keep_unanchored=True)  # ours
    assert texts(chains) == ["a → [r] → b", "x → [p] → y → [q] → z"]
    assert [c.direction for c in chains] == ["forward", "unanchored"]
    assert texts(expand_chains(ts, ["a"])[0]) == ["a → [r] → b"]  # the paper's expansion (default) drops them


def test_multi_answer_merging_same_root_same_relation_path() -> None:
    ts = [T("Spain", "borders", "France"), T("Spain", "borders", "Portugal"), T("Spain", "capital", "Madrid")]
    chains, _ = expand_chains(ts, ["Spain"])
    merged = merge_answers(chains)
    assert texts(merged) == ["Spain → [borders] → {France; Portugal}", "Spain → [capital] → Madrid"]
    assert merged[0].merged_answers == 2 and merged[0].targets == ("France", "Portugal")
    assert merge_answers(chains, mode="off") == chains


def test_multi_answer_merging_keeps_distinct_intermediates_apart_unless_literal() -> None:
    ts = [T("q", "r1", "b"), T("b", "r2", "x"), T("q", "r1", "c"), T("c", "r2", "y")]
    chains, _ = expand_chains(ts, ["q"])
    assert len(merge_answers(chains, mode="same_prefix")) == 2  # ours
    lit = merge_answers(chains)  # D.4.2 as stated (the default): same root, same relation path
    assert texts(lit) == ["q → [r1] → {b; c} → [r2] → {x; y}"]


def test_multi_entity_merging_reorders_and_intersects_targets() -> None:
    # Which film stars both Keanu Reeves and Laurence Fishburne?
    ts = [T("Keanu Reeves", "acted in", "The Matrix", 0.9), T("Keanu Reeves", "acted in", "John Wick", 0.8),
          T("Hugo Weaving", "played", "Agent Smith", 0.7),
          T("Laurence Fishburne", "acted in", "The Matrix", 0.5),
          T("Laurence Fishburne", "acted in", "Apocalypse Now", 0.4)]
    r = reorganize(ts, ["Keanu Reeves", "Laurence Fishburne"])
    lines = r.lines()
    assert lines[:2] == ["Keanu Reeves → [acted in] → The Matrix", "Laurence Fishburne → [acted in] → The Matrix"]
    assert r.chains[0].group == r.chains[1].group == 0
    assert set(r.chains[0].refined_from) == {"The Matrix", "John Wick"}
    assert set(r.chains[1].refined_from) == {"The Matrix", "Apocalypse Now"}
    assert r.stats["multi_entity_groups"] == 1
    # without entity merging both answers stay, merged per root
    r2 = reorganize(ts, ["Keanu Reeves", "Laurence Fishburne"], entity_merge=False)
    assert "Keanu Reeves → [acted in] → {The Matrix; John Wick}" in r2.lines()


def test_merge_entities_leaves_disjoint_targets_alone() -> None:
    ts = [T("a", "r", "x"), T("b", "r", "y")]
    chains, _ = expand_chains(ts, ["a", "b"])
    assert merge_entities(chains, ts) == chains


def test_chains_use_only_retrieved_triples_and_cover_all_when_keeping_unanchored(matrix_graph) -> None:
    from core.methods.evidence.chains import triples_from_edges

    ts = triples_from_edges(matrix_graph, range(matrix_graph.n_edges))
    r = reorganize(ts, ["Keanu Reeves", "Laurence Fishburne"], max_length=4, keep_unanchored=True)
    triple_set = {(t.head, t.relation, t.tail) for t in ts}
    for c in r.chains:
        for m in c.members:
            for a, b in itertools.pairwise(m):
                assert ts[a].tail == ts[b].head  # entity-linked
            assert all((ts[i].head, ts[i].relation, ts[i].tail) in triple_set for i in m)
    assert r.covered == set(range(len(ts)))


def test_bad_max_length() -> None:
    with pytest.raises(ValueError, match="max_length = 0"):
        expand_chains([], [], max_length=0)


def test_a_backward_chain_reads_from_its_query_entity_while_the_prompt_keeps_appendix_f() -> None:
    """D.4.1: a chain whose query entity is the tail of its last triple is a backward chain. The prompt keeps the
    left-to-right text (Appendix F); :meth:`from_root` reads it from the query entity with the arrows reversed,
    every triple still true."""
    from core.methods.evidence.chains import Triple, reorganize

    ts = [Triple("Hugo Weaving", "played", "Agent Smith"), Triple("Agent Smith", "antagonist of", "The Matrix"),
          Triple("The Matrix", "starring", "Laurence Fishburne")]
    r = reorganize(ts, ["Laurence Fishburne"])
    back = [c for c in r.chains if c.direction == "backward" and c.length == 3]
    assert back, [c.text() for c in r.chains]
    c = back[0]
    assert c.text() == "Hugo Weaving → [played] → Agent Smith → [antagonist of] → The Matrix → [starring] → Laurence Fishburne"
    assert c.from_root() == ("Laurence Fishburne ← [starring] ← The Matrix ← [antagonist of] ← Agent Smith ← [played] "
                             "← Hugo Weaving")
    assert all(x.from_root().startswith("Laurence Fishburne") for x in r.chains)
