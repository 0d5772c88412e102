"""SG-RAG's "matched, not through the gold passage" when its (no-LLM) answer is a bridge of the question's chain: the
``UNK`` binding is an entity of a retrieved gold passage and one hop from an entity of the lost one, so the match
stopped a hop short of the answer — the summary says so (an audit read only "not through the gold passage")."""

from __future__ import annotations

from types import SimpleNamespace

from core.eval.diagnose import with_off_gold
from core.graph.graph_builder import GraphBuilder
from core.methods.base import Diagnosis, RankedChunk


def _workspace() -> SimpleNamespace:
    """"Who built the boat that Otto Pell's daughter sailed?": Otto Pell → Ada Pell → Heron → Lena Voss."""
    b = GraphBuilder(name="boats")
    for cid, title in (("p1", "Ada Pell"), ("p2", "Heron"), ("p3", "Otto Pell")):
        b.add_chunk(title, f"text of {title}", chunk_id=cid)
    b.add_triple("Ada Pell", "daughter of", "Otto Pell", chunk_id="p1")
    b.add_triple("Ada Pell", "sailed", "Heron", chunk_id="p1")
    b.add_triple("Heron", "built by", "Lena Voss", chunk_id="p2")
    b.add_triple("Otto Pell", "born in", "Askby", chunk_id="p3")
    return SimpleNamespace(graph=b.build(), name="boats")


def _case(answer: str, ws: SimpleNamespace) -> tuple[Diagnosis, SimpleNamespace]:
    g = ws.graph
    on = [g.node_index[n] for n in ("ada pell", "otto pell")]  # the match: UNK → Ada Pell, the anchor Otto Pell
    result = SimpleNamespace(answer=answer, config=SimpleNamespace(max_chunks=15),
                             assembly=SimpleNamespace(subgraphs=[SimpleNamespace(mapping=[("q0", on[0]), ("q1", on[1])])]),
                             ranked_chunks=(RankedChunk("p1", 1.0), RankedChunk("p3", 0.9)))
    diag = Diagnosis("sgrag", "not_connected", "1 exact subgraph(s) matched, but none passes through the gold passage p2.",
                     {"fallback": False, "subgraphs": 1, "gold": "p2"}, {"p3": 2, "p1": 1, "p2": None})
    return diag, result


def test_a_bridge_answer_says_the_match_stopped_a_hop_short():
    ws = _workspace()
    diag, result = _case("Ada Pell", ws)
    d = with_off_gold(diag, result, ws, cut=5, answers=("Lena Voss",))  # type: ignore[arg-type]
    assert "none passes through the gold passage “Heron”" in d.summary, d.summary
    assert "Its answer “Ada Pell” is a bridge of the question's chain" in d.summary, d.summary
    assert "an entity of the gold passage “Ada Pell”" in d.summary and "“Heron”): the match stopped a hop short" in d.summary
    assert d.evidence["bridge"]["next"] == "Heron" and d.evidence["bridge"]["in"] == ["Ada Pell"]
    assert d.stage == "not_connected"  # the verdict is unchanged; only its words say more


def test_no_bridge_is_claimed_for_the_right_answer_a_sentence_or_a_node_far_from_the_lost_passage():
    ws = _workspace()
    for answer, golds in (("Lena Voss", ("Lena Voss",)),  # holds the gold answer: no hop short
                          ("Ada Pell sailed the Heron.", ("Lena Voss",)),  # a sentence, no node
                          ("Otto Pell", ("Lena Voss",))):  # two hops from the lost passage's entities
        diag, result = _case(answer, ws)
        d = with_off_gold(diag, result, ws, cut=5, answers=golds)  # type: ignore[arg-type]
        assert "bridge" not in d.summary and "bridge" not in d.evidence, (answer, d.summary)
