"""BubbleRAG's LLM paths with a scripted LLM: keywords (Ex. 3), specialization (Ex. 4),
relaxation (Ex. 5), grouping (§3.2) and reasoning-aware expansion (§3.5, both modes), on a hand-built
graph about made-up entities, every expected value worked out by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.graph.graph_builder import GraphBuilder
from core.methods.bubblerag.candidates import Candidate, Candidates
from core.methods.bubblerag.expansion import CEG
from core.methods.bubblerag.grouping import group_anchors
from core.methods.bubblerag.keywords import Keyword, Keywords, extract_keywords
from core.methods.bubblerag.preretrieval import PreRetrieval
from core.methods.bubblerag.ranking import rank_cegs
from core.methods.bubblerag.reasoning import reasoning_expansion
from core.methods.bubblerag.relaxation import relax_schema
from core.methods.bubblerag.specialization import SearchTerm, specialize_keywords
from core.trace import Trace
from tests.fakes import ScriptedLLM

Q = "In which town was the maker of the Tarn 4 camera founded?"
#: edges, in id order: (head, relation, tail, cosine of the edge to the query)
EDGES = [("Tarn 4", "manufactured by", "Oskel Optics", 0.95), ("Oskel Optics", "founded in", "Brevik", 0.9),
         ("Oskel Optics", "employs", "Edda Castell", 0.3), ("Tarn 4", "released in", "1974", 0.5),
         ("Brevik", "located in", "Varn Bay", 0.8)]
NODE_SIM = {"Tarn 4": 0.6, "Oskel Optics": 0.4, "Brevik": 0.7, "Edda Castell": 0.1, "1974": 0.2, "Varn Bay": 0.5}


def _unit(c: float) -> list[float]:
    return [c, float(np.sqrt(1 - c * c))]


@pytest.fixture
def toy():
    b = GraphBuilder(name="tarn")
    b.add_chunk("Tarn 4", "The Tarn 4 is a camera made by Oskel Optics, released in 1974.", chunk_id="tarn")
    b.add_chunk("Oskel Optics", "Oskel Optics was founded in Brevik and employs Edda Castell.", chunk_id="oskel")
    for h, r, t, _ in EDGES:
        b.add_triple(h, r, t, chunk_id="tarn" if h == "Tarn 4" else "oskel")
    g = b.build()
    nv = np.zeros((g.n_nodes, 2), np.float32)
    for name, c in NODE_SIM.items():
        nv[g.node(name)] = _unit(c)
    ev = np.array([_unit(c) for *_, c in EDGES], np.float32)
    return g, nv, ev, np.array([1.0, 0.0], np.float32)


def _pre(*chunks: str) -> PreRetrieval:
    return PreRetrieval(tuple(chunks), tuple(0.5 for _ in chunks), False, "", "", False)


# ------------------------------------------------------------------------------ keywords (Example 3)
def test_keywords_llm_path_keeps_explicit_and_implicit_deduplicated(toy):
    g, *_ = toy
    llm = ScriptedLLM(json.dumps({"explicit": ["Tarn 4", "maker ", "Maker", "founding town"],
                                  "implicit": ["Oskel Optics"]}))
    tr = Trace("bubblerag", Q)
    kw = extract_keywords(Q, _pre("tarn"), g, llm, trace=tr)
    assert kw.source == "llm"
    assert kw.explicit == ("Tarn 4", "maker", "founding town") and kw.implicit == ("Oskel Optics",)
    assert [k.entity for k in kw.items] == [True, False, False, True]
    assert "[1] Tarn 4: The Tarn 4 is a camera" in llm.prompts[0]  # the preview passage is shown
    assert tr.steps[0].prompt_tokens == 10 and not tr.steps[0].fallback


def test_keywords_inferred_names_fill_the_implicit_slots_first_and_written_words_are_explicit(toy):
    """§3.2 / Ex. 3: a name the reply lists as explicit but the question does not write is the latent inference
    ("The Matrix" on the Keanu question) and comes first; an "implicit" word the question writes is a keyword
    of the question; "The X" and "X" are one keyword."""
    g, *_ = toy
    llm = ScriptedLLM(json.dumps({"explicit": ["Tarn 4", "maker", "The Oskel Optics", "Oskel Optics"],
                                  "implicit": ["camera", "company", "town", "factory", "firm"]}))
    tr = Trace("bubblerag", Q)
    kw = extract_keywords(Q, _pre("tarn"), g, llm, trace=tr)
    assert kw.explicit == ("Tarn 4", "maker", "camera", "town")
    assert kw.implicit == ("The Oskel Optics", "company", "factory")  # at most 3, the inferred name first
    data = tr.steps[0].data
    assert data["moved_to_implicit"] == ["The Oskel Optics", "Oskel Optics"]
    assert data["moved_to_explicit"] == ["camera", "town"]


def test_keywords_without_explicit_ones_fall_back_visibly(toy):
    g, *_ = toy
    kw_steps = Trace("bubblerag", Q)
    kw = extract_keywords(Q, _pre("oskel"), g, ScriptedLLM('{"explicit": [], "implicit": ["x"]}'), trace=kw_steps)
    assert kw.source == "heuristic" and "Tarn 4" in kw.explicit
    assert kw.implicit == ("Oskel Optics",)  # the preview title the question does not name
    assert kw_steps.steps[0].fallback.startswith("LLM output unusable")


# ------------------------------------------------------------------------------ specialization (Example 4)
def _kws(*items: tuple[str, str, bool]) -> Keywords:
    return Keywords(tuple(Keyword(t, k, e) for t, k, e in items), "llm")


def test_specialization_llm_rewrites_only_known_keywords():
    kws = _kws(("Tarn 4", "explicit", True), ("maker", "explicit", False))
    llm = ScriptedLLM(json.dumps({"rewrites": [{"keyword": "Maker", "specialized": "Tarn 4's maker"},
                                               {"keyword": "lens", "specialized": "Tarn 4's lens"},  # not a keyword
                                               {"keyword": "Tarn 4", "specialized": "tarn 4"}]}))  # no change
    spec = specialize_keywords(Q, kws, llm)
    assert spec.source == "llm" and spec.rewrites == {"maker": "Tarn 4's maker"}
    assert [(t.keyword, t.search, t.specialized) for t in spec.terms] == [
        ("Tarn 4", "Tarn 4", False), ("maker", "Tarn 4's maker", True)]
    assert "Keywords:\n- Tarn 4\n- maker\n" in llm.prompts[0]


@pytest.mark.parametrize(("rewrite", "check"), [
    ("Oskel Optics", "it drops the keyword 'maker'"),  # the guessed answer, not a constraint (Example 4's point)
    ("Leica's maker", "it names “Leica”, which the question does not"),  # a name the question does not write
    ("camera maker", ""),  # bound to the question's own word: kept
])
def test_a_specialization_that_guesses_or_invents_is_dropped_and_named(rewrite, check):
    kws = _kws(("Tarn 4", "explicit", True), ("maker", "explicit", False))
    tr = Trace("bubblerag", Q)
    spec = specialize_keywords(Q, kws, ScriptedLLM(json.dumps({"rewrites": [{"keyword": "maker", "specialized": rewrite}]})),
                               trace=tr)
    if check:
        assert spec.rewrites == {} and spec.terms[1].search == "maker"  # searched as it is
        assert tr.steps[0].fallback.startswith(f"check failed: 'maker' -> {rewrite!r}: {check}")
        assert tr.steps[0].data["rejected"][0]["check"].startswith(check)
    else:
        assert spec.rewrites == {"maker": rewrite} and not tr.steps[0].fallback


def test_specialization_asks_nothing_when_every_keyword_is_a_name():
    llm = ScriptedLLM(repeat_last=False)  # any call fails the test
    spec = specialize_keywords(Q, _kws(("Tarn 4", "explicit", True), ("1974", "explicit", True)), llm)
    assert spec.source == "empty" and llm.calls == []


def test_specialization_disabled_asks_nothing():
    llm = ScriptedLLM(repeat_last=False)
    spec = specialize_keywords(Q, _kws(("maker", "explicit", False)), llm, enabled=False)
    assert spec.source == "disabled" and spec.rewrites == {} and llm.calls == []


# ------------------------------------------------------------------------------ relaxation (Example 5)
def test_relaxation_llm_path_cites_a_preview_passage(toy):
    g, *_ = toy
    spec = specialize_keywords(Q, _kws(("first employer", "explicit", False), ("Brevik", "explicit", True)),
                               NoLLM())
    llm = ScriptedLLM(json.dumps({"relaxations": [
        {"keyword": "first employer", "relaxed": "employer", "passage": 2},
        {"keyword": "first employer", "relaxed": "works", "passage": 9},  # no such passage
        {"keyword": "unknown", "relaxed": "x", "passage": 1}]}))
    tr = Trace("bubblerag", Q)
    rx = relax_schema(Q, spec, _pre("tarn", "oskel"), g, llm, trace=tr)
    assert rx.source == "llm"
    assert [(r.keyword, r.relaxed, r.chunk_id) for r in rx.relaxed] == [("first employer", "employer", "oskel")]
    assert rx.relaxed[0].reason == "passage 2 mentions 'Brevik'"  # the cited passage's other keywords
    assert rx.terms[-1].search == "employer" and rx.terms[-1].relaxed_from == "first employer"
    assert len(rx.terms) == len(spec.terms) + 1 and not tr.steps[0].fallback
    # the schema offers only the concept with a qualifier ("Brevik" is a name: nothing to relax)
    assert llm.calls[0].json_schema["properties"]["relaxations"]["items"]["properties"]["keyword"] == \
        {"enum": ["first employer"]}
    assert llm.prompts[0].startswith("Question: " + Q + "\n\nPreview passages")  # the shared beginning


def test_a_relaxation_that_is_no_generalisation_is_dropped_and_named(toy):
    g, *_ = toy
    spec = specialize_keywords(Q, _kws(("first employer", "explicit", False)), NoLLM())
    tr = Trace("bubblerag", Q)
    rx = relax_schema(Q, spec, _pre("oskel"), g, ScriptedLLM(json.dumps({"relaxations": [
        {"keyword": "first employer", "relaxed": "Albert Einstein", "passage": 1}]})), trace=tr)
    assert rx.relaxed == () and rx.terms == spec.terms
    assert tr.steps[0].fallback == ("check failed: 'first employer' -> 'Albert Einstein': 'Albert Einstein' is not "
                                    "'first employer' with a qualifier dropped — not relaxed")


@pytest.mark.model  # spaCy's parse of the keyword (the pinned en_core_web_sm)
@pytest.mark.parametrize(("keyword", "relaxed", "ok"), [
    ("second marriage", "marriage", True), ("second-married woman", "married woman", True),
    ("second-married woman", "woman", True), ("main villain", "villain", True),
    ("public opinion", "public", False),  # the head dropped, the qualifier kept
    ("body of water", "body", False),  # the complement after the head carries the meaning
    ("second-married woman", "second wife", False)])  # a paraphrase that keeps the ordinal: as strict as before
def test_a_relaxation_keeps_the_phrase_head_and_drops_only_a_qualifier_before_it(keyword, relaxed, ok):
    from core.methods.bubblerag.checks import relaxation_problem

    assert (relaxation_problem(keyword, relaxed) == "") is ok


@pytest.mark.model
def test_example_5_a_rejected_llm_relaxation_falls_back_to_the_rule_where_a_passage_confirms_it():
    """Ex. 5: "second-married woman" cannot become "second wife" (no qualifier dropped); the `none`-mode rule
    relaxes it to "married woman" because a passage shows it beside the question's son and war."""
    q = "Find the second-married woman whose son started a war."
    b = GraphBuilder(name="ex5")
    b.add_chunk("Hild of Varn", "Hild of Varn was a married woman twice; her son Oren started a war on Brevik.",
                chunk_id="hild")
    b.add_triple("Hild of Varn", "spouse", "Aldo Varn", chunk_id="hild")
    g = b.build()
    spec = specialize_keywords(q, _kws(("second-married woman", "explicit", False), ("son", "explicit", False),
                                       ("war", "explicit", False)), NoLLM())
    tr = Trace("bubblerag", q)
    rx = relax_schema(q, spec, _pre("hild"), g, ScriptedLLM(json.dumps({"relaxations": [
        {"keyword": "second-married woman", "relaxed": "second wife", "passage": 1}]})), trace=tr)
    assert [(r.keyword, r.relaxed, r.chunk_id) for r in rx.relaxed] == [("second-married woman", "married woman", "hild")]
    assert tr.steps[0].fallback == ("check failed: 'second-married woman' -> 'second wife': 'second wife' is not "
                                    "'second-married woman' with a qualifier dropped — used the `none`-mode rule for "
                                    "'second-married woman'")
    assert rx.terms[-1].search == "married woman" and rx.terms[-1].relaxed_from == "second-married woman"


def test_relaxation_without_preview_chunks_asks_nothing_and_says_so(toy):
    g, *_ = toy
    llm = ScriptedLLM(repeat_last=False)
    tr = Trace("bubblerag", Q)
    rx = relax_schema(Q, specialize_keywords(Q, _kws(("maker", "explicit", False)), NoLLM()), _pre(), g, llm,
                      trace=tr)
    assert rx.relaxed == () and llm.calls == [] and tr.steps[0].fallback == "no preview chunks to confirm a relaxation"


# ------------------------------------------------------------------------------ grouping (§3.2)
def _cands(g) -> Candidates:
    items = (Candidate("c1", "node", g.node("Tarn 4"), "Tarn 4", 0.9, ("Tarn 4",), (0.9,)),
             Candidate("c2", "edge", 0, "Tarn 4 manufactured by Oskel Optics", 0.8, ("maker",), (0.8,)),
             Candidate("c3", "node", g.node("Brevik"), "Brevik", 0.7, ("founding town",), (0.7,)))
    terms = tuple(SearchTerm(k, k, "explicit") for k in ("Tarn 4", "maker", "founding town"))
    vecs = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], np.float32)  # pairwise cosine < 0.8: no merge
    return Candidates(items, terms, vecs, ())


def test_grouping_llm_path_renormalizes_weights_and_drops_unknown_or_repeated_members(toy):
    g, *_ = toy
    llm = ScriptedLLM(json.dumps({"groups": [
        {"concept": "Tarn 4", "weight": 0.6, "members": ["c1", "c9"]},
        {"concept": "maker", "weight": 0.3, "members": ["c2", "c1"]},  # c1 already grouped
        {"concept": "founding town", "weight": 0.3, "members": ["c3"]}]}))
    gr = group_anchors(Q, _cands(g), llm)
    assert gr.source == "llm"
    assert [(x.concept, [m.cid for m in x.members]) for x in gr.groups] == [
        ("Tarn 4", ["c1"]), ("maker", ["c2"]), ("founding town", ["c3"])]
    assert gr.weights == pytest.approx([0.5, 0.25, 0.25])
    assert gr.notes == ("LLM weights summed to 1.200; renormalized to 1",)
    # each candidate is shown with the concept its search found it for; the concepts are the keywords
    assert "c2 [edge] Tarn 4 manufactured by Oskel Optics (found for: maker)" in llm.prompts[0]
    assert "Query concepts:\n- Tarn 4\n- maker\n- founding town\n" in llm.prompts[0]
    schema = llm.calls[0].json_schema["properties"]["groups"]
    assert schema["minItems"] == 2 and schema["maxItems"] == 3  # at least two groups: no collapse possible
    assert schema["items"]["properties"]["concept"] == {"enum": ["Tarn 4", "maker", "founding town"]}


def test_a_collapsed_or_template_grouping_falls_back_and_says_which_check_failed(toy):
    g, *_ = toy
    tr = Trace("bubblerag", Q)
    one = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"groups": [
        {"concept": "Tarn 4", "weight": 0.9, "members": ["c1", "c2", "c3"]},
        {"concept": "maker", "weight": 0.1, "members": ["c2"]}]})), trace=tr)
    assert one.source == "embedding" and len(one.groups) == 3
    assert tr.steps[0].fallback == ("check failed: one group holds the candidates of all 3 query concepts: with one "
                                    "group no two concepts can collide; used the `none`-mode grouping")
    tr = Trace("bubblerag", Q)
    tpl = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"groups": [
        {"concept": "<a query concept>", "weight": 0.5, "members": ["c1"]},
        {"concept": "maker", "weight": 0.5, "members": ["c2"]}]})), trace=tr)
    assert tpl.source == "embedding" and "copies the prompt's template ('<a query concept>')" in tr.steps[0].fallback


def test_grouping_with_zero_weights_uses_the_rule_and_bad_groups_fall_back(toy):
    g, *_ = toy
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"groups": [
        {"concept": "Tarn 4", "weight": 0, "members": ["c1"]}, {"concept": "maker", "weight": 0, "members": ["c2"]},
        {"concept": "founding town", "weight": 0, "members": ["c3"]}]})), trace=tr)
    assert gr.weights == pytest.approx([0.6, 0.2, 0.2])  # all zero is one weight for all: no judgement
    assert "every group has the same weight (0)" in tr.steps[0].fallback
    tr = Trace("bubblerag", Q)
    bad = group_anchors(Q, _cands(g), ScriptedLLM('{"groups": [{"concept": "a", "weight": 1, "members": ["c7"]}]}'),
                        trace=tr)
    assert bad.source == "embedding" and tr.steps[0].fallback.startswith("LLM output unusable")
    # one group per keyword; weights 2 × 1.5 (the first entity), 1, 1 → 0.6, 0.2, 0.2
    assert [[m.cid for m in x.members] for x in bad.groups] == [["c1"], ["c2"], ["c3"]]
    assert bad.weights == pytest.approx([0.6, 0.2, 0.2])


# ------------------------------------------------------------------------------ reasoning-aware expansion (§3.5)
def _ranked(g):
    ceg = CEG(0, (g.node("Tarn 4"), g.node("Oskel Optics")), (0,), (0, 1), "collision", g.node("Oskel Optics"),
              (0, 1), (), 0)
    return rank_cegs([ceg], {v: 0.5 for v in ceg.nodes}, [0.5, 0.5])


def test_none_mode_adds_edges_that_do_not_lower_the_mean_node_value(toy):
    """Hop 1: T* = {Tarn 4 (0.6), Oskel Optics (0.4)}, mean 0.5; offered e1 0.9, e3 0.5, e2 0.3 → e1, e3.
    Hop 2: mean (0.6+0.4+0.7+0.2)/4 = 0.475; offered e4 0.8, e2 0.3 → e4. Hop 3: mean 0.48; e2 0.3 → stop."""
    g, nv, ev, q = toy
    rx = reasoning_expansion(Q, _ranked(g), g, nv, ev, q, NoLLM(), n=3, d=6)
    (x,) = rx.expanded
    assert rx.source == "similarity"
    assert [h.offered for h in x.hops] == [(1, 3, 2), (4, 2), (2,)]
    assert [h.selected for h in x.hops] == [(1, 3), (4,), ()]
    assert x.edges == (0, 1, 3, 4) and x.stop == "no neighbour selected"
    assert {g.node_names[v] for v in x.nodes} == {"Tarn 4", "Oskel Optics", "Brevik", "1974", "Varn Bay"}
    assert reasoning_expansion(Q, _ranked(g), g, nv, ev, q, NoLLM(), d=0).expanded[0].edges == (0,)  # d = 0
    one = reasoning_expansion(Q, _ranked(g), g, nv, ev, q, NoLLM(), none_select=1).expanded[0]
    assert one.hops[0].selected == (1,)


def test_llm_mode_selects_by_label_and_stops_when_sufficient(toy):
    """Hop 1 offers n1 = e1, n2 = e3 (max_neighbors 2) and the LLM takes n1; hop 2 offers e4, e3, e2 and the
    LLM takes n2 = e3 — offered at hop 1, not chosen then — and says the evidence is sufficient."""
    g, nv, ev, q = toy
    llm = ScriptedLLM('{"selected": ["n1"], "sufficient": false}', '{"selected": ["n2", "n9"], "sufficient": true}',
                      repeat_last=False)  # "In which town": no answer type, so a hop adding 1974 may end it
    tr = Trace("bubblerag", Q)
    rx = reasoning_expansion(Q, _ranked(g), g, nv, ev, q, llm, d=6, max_neighbors=3, trace=tr)
    (x,) = rx.expanded
    assert rx.source == "llm" and [h.by for h in x.hops] == ["llm", "llm"]
    assert [h.offered for h in x.hops] == [(1, 3, 2), (4, 3, 2)]
    assert [h.selected for h in x.hops] == [(1,), (3,)]
    assert x.stop == "LLM: evidence sufficient" and x.edges == (0, 1, 3)
    assert "n1: Oskel Optics founded in Brevik" in llm.prompts[0]
    assert "- Oskel Optics founded in Brevik" in llm.prompts[1]  # hop 2 sees the grown evidence
    # ... appended after the CEG's triple, so hop 2's prompt begins as hop 1's evidence did
    assert llm.prompts[1].index("- Tarn 4 manufactured by Oskel Optics") < llm.prompts[1].index("- Oskel Optics founded")
    assert len(llm.calls) == 2 and tr.steps[0].prompt_tokens == 20 and not tr.steps[0].fallback


def test_sufficient_is_accepted_only_after_a_hop_that_adds_what_the_question_asks(toy):
    """"When ...?" asks for a date: hop 1 adds "Oskel Optics founded in Brevik" (no date) and its
    "sufficient" is not accepted; hop 2 adds "Tarn 4 released in 1974" (a date) and ends the expansion."""
    g, nv, ev, q = toy
    when = "When was the Tarn 4 camera released?"
    llm = ScriptedLLM('{"selected": ["n1"], "sufficient": true}', '{"selected": ["n2"], "sufficient": true}',
                      repeat_last=False)
    tr = Trace("bubblerag", when)
    (x,) = reasoning_expansion(when, _ranked(g), g, nv, ev, q, llm, d=6, max_neighbors=3, trace=tr).expanded
    assert [h.selected for h in x.hops] == [(1,), (3,)] and [h.sufficient for h in x.hops] == [False, True]
    assert x.hops[0].note == ("check failed: 'sufficient' not accepted (no added triple names a date the question "
                              "does not name); expansion goes on")
    assert x.stop == "LLM: evidence sufficient"
    assert tr.steps[0].data["sufficiency_rejected"] == ["CEG 0 hop 1: no added triple names a date the question "
                                                         "does not name"]


def test_a_failed_llm_hop_uses_similarity_selection_and_says_so(toy):
    g, nv, ev, q = toy
    tr = Trace("bubblerag", Q)
    rx = reasoning_expansion(Q, _ranked(g), g, nv, ev, q, ScriptedLLM("not json"), d=1, trace=tr)
    assert rx.expanded[0].hops[0].by == "similarity" and rx.expanded[0].hops[0].selected == (1, 3)
    assert tr.steps[0].fallback.startswith("CEG 0 hop 1: LLM output unusable")
    assert tr.steps[0].fallback.endswith("those hops used similarity-based selection")


def test_review_grouping_drops_merges_and_weighs_the_proposed_groups(toy):
    """review_grouping (ours, the default): one proposed group per concept, listed alphabetically (so a weight
    that follows the list is no judgement); the reply keeps, takes, merges and weighs."""
    g, *_ = toy
    # alphabetical: g1 "founding town" (c3), g2 "maker" (c2), g3 "Tarn 4" (c1)
    llm = ScriptedLLM(json.dumps({"g1": {"weight": 0.2, "keep": ["c3"], "take": []},
                                  "g2": {"weight": 0.3, "keep": ["c2"], "take": []},
                                  "g3": {"weight": 0.5, "keep": ["c1"], "take": []}, "same": []}))
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _cands(g), llm, review=True, trace=tr)
    assert gr.source == "llm"
    # the groups come back in the question's order, with the reply's weights
    assert [(x.concept, [m.cid for m in x.members]) for x in gr.groups] == [
        ("Tarn 4", ["c1"]), ("maker", ["c2"]), ("founding town", ["c3"])]
    assert gr.weights == pytest.approx([0.5, 0.3, 0.2])
    assert 'g1: concept "founding town"\n  c3 [node] Brevik\n\ng2: concept "maker"' in llm.prompts[0]
    schema = llm.calls[0].json_schema
    assert list(schema["properties"]) == ["g1", "g2", "g3", "same"]  # every group, in order: none can vanish
    keep = schema["properties"]["g2"]["properties"]["keep"]
    assert keep["items"] == {"enum": ["c2"]} and keep["minItems"] == 1  # only its own members, at least one
    assert "take" not in schema["properties"]["g2"]["properties"]  # its search found nothing else
    assert schema["properties"]["same"]["maxItems"] == 1  # 3 groups: one merge at most, two groups remain
    review = tr.steps[0].data["review"]
    assert review["dropped"] == {} and review["moved"] == [] and review["weights_check"] == "informative"
    assert not tr.steps[0].fallback
    # a merge of a name and a concept word is the LLM's call (§3.2: groups are concepts)
    merged = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({
        "g1": {"weight": 0.2, "keep": ["c3"], "take": []}, "g2": {"weight": 0.3, "keep": ["c2"], "take": []},
        "g3": {"weight": 0.5, "keep": ["c1"], "take": []}, "same": [["g3", "g2"]]})), review=True)
    assert [(x.concept, [m.cid for m in x.members]) for x in merged.groups] == [
        ("Tarn 4 / maker", ["c1", "c2"]), ("founding town", ["c3"])]
    assert merged.weights == pytest.approx([0.8, 0.2])


def _shared(g) -> Candidates:
    """c2 was found for both "maker" and "Tarn 4" (the searches overlap); it matches "maker" best."""
    base = _cands(g)
    c2 = Candidate("c2", "edge", 0, "Tarn 4 manufactured by Oskel Optics", 0.8, ("Tarn 4", "maker"), (0.7, 0.8))
    c4 = Candidate("c4", "node", g.node("Oskel Optics"), "Oskel Optics", 0.6, ("maker",), (0.6,))
    return Candidates((base.items[0], c2, base.items[2], c4), base.terms, base.term_vectors, ())


def test_a_review_group_takes_only_what_its_own_search_found(toy):
    g, *_ = toy
    llm = ScriptedLLM(json.dumps({"g1": {"weight": 0.1, "keep": ["c3"], "take": []},
                                  "g2": {"weight": 0.3, "keep": ["c2", "c4"], "take": []},
                                  "g3": {"weight": 0.6, "keep": ["c1"], "take": ["c2"]}, "same": []}))
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _shared(g), llm, review=True, trace=tr)
    assert [(x.concept, [m.cid for m in x.members]) for x in gr.groups] == [
        ("Tarn 4", ["c1", "c2"]), ("maker", ["c4"]), ("founding town", ["c3"])]
    assert tr.steps[0].data["review"]["moved"] == [{"cid": "c2", "from": "g2", "to": "g3"}]
    props = llm.calls[0].json_schema["properties"]
    assert props["g3"]["properties"]["take"]["items"] == {"enum": ["c2"]}  # found by the Tarn 4 search too
    assert "take" not in props["g1"]["properties"]
    assert "(its search also found: c2)" in llm.prompts[0]
    # taking an element the group's search never found is no valid reply (the 1.5B model moved a name node
    # into an unrelated concept); nor may a take leave the element's own group empty
    bad = group_anchors(Q, _shared(g), ScriptedLLM(json.dumps({
        "g1": {"weight": 0.1, "keep": ["c3"], "take": ["c1"]}, "g2": {"weight": 0.3, "keep": ["c2"], "take": []},
        "g3": {"weight": 0.6, "keep": ["c1"], "take": []}, "same": []})), review=True, trace=(tr := Trace("b", Q)))
    assert bad.source == "embedding" and "takes only elements of other groups its search also found" in \
        tr.steps[0].fallback
    kept = group_anchors(Q, _shared(g), ScriptedLLM(json.dumps({
        "g1": {"weight": 0.1, "keep": ["c3"], "take": []}, "g2": {"weight": 0.3, "keep": ["c2"], "take": []},
        "g3": {"weight": 0.6, "keep": ["c1"], "take": ["c2"]}, "same": []})), review=True, trace=(tr := Trace("b", Q)))
    assert [[m.cid for m in x.members] for x in kept.groups] == [["c1"], ["c2"], ["c3"]]
    assert tr.steps[0].data["review"]["moved"] == []


@pytest.mark.parametrize(("weights", "problem"), [
    ((0.5, 0.5, 0.5), "every group has the same weight (0.5)"),
    ((0.5, 0.3, 0.2), "the weights fall with each group's place in the list (0.5, 0.3, 0.2)")])
def test_review_weights_that_are_no_judgement_are_replaced_by_the_rule_visibly(toy, weights, problem):
    """§3.2 / Eq. 6: uniform or list-order weights judge nothing; the none-mode weights stand in, and say so."""
    g, *_ = toy
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({
        "g1": {"weight": weights[0], "keep": ["c3"], "take": []}, "g2": {"weight": weights[1], "keep": ["c2"], "take": []},
        "g3": {"weight": weights[2], "keep": ["c1"], "take": []}, "same": []})), review=True, trace=tr)
    assert gr.source == "llm"  # the grouping is the LLM's; only its weights are replaced
    assert gr.weights == pytest.approx([0.6, 0.2, 0.2])  # Tarn 4: 2 × 1.5, maker 1, founding town 1
    fb = tr.steps[0].fallback
    assert fb.startswith("check failed: the weights are no judgement: " + problem) and "`none`-mode weights" in fb
    assert tr.steps[0].data["review"]["weights_check"].startswith(problem.split(" (")[0])
    assert gr.weights_check.startswith(problem)  # the page says, beside the weights, that they are the rule's


def test_free_grouping_with_uniform_weights_uses_the_rule(toy):
    g, *_ = toy
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"groups": [
        {"concept": "Tarn 4", "weight": 0.3, "members": ["c1"]}, {"concept": "maker", "weight": 0.3, "members": ["c2"]},
        {"concept": "founding town", "weight": 0.3, "members": ["c3"]}]})), trace=tr)
    assert gr.source == "llm" and gr.weights == pytest.approx([0.6, 0.2, 0.2])
    assert tr.steps[0].fallback.startswith("check failed: the weights are no judgement: every group has the same")
    assert gr.weights_check.startswith("every group has the same weight (0.3)")
    judged = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"groups": [
        {"concept": "Tarn 4", "weight": 0.5, "members": ["c1"]}, {"concept": "maker", "weight": 0.2, "members": ["c2"]},
        {"concept": "founding town", "weight": 0.3, "members": ["c3"]}]})))
    assert judged.source == "llm" and judged.weights_check == "" and judged.weights == pytest.approx([0.5, 0.2, 0.3])


def test_two_names_the_question_writes_are_never_merged(toy):
    g, *_ = toy
    q = "Which firm links Tarn 4 and Brevik?"
    kws = ("Tarn 4", "Brevik", "firm")
    c = Candidates(tuple(Candidate(x.cid, x.kind, x.index, x.text, x.score, (k,), (x.score,))
                         for x, k in zip(_cands(g).items, kws)),
                   tuple(SearchTerm(k, k, "explicit") for k in kws), _cands(g).term_vectors, ())
    # alphabetical: g1 Brevik (c2), g2 firm (c3), g3 Tarn 4 (c1)
    tr = Trace("bubblerag", q)
    gr = group_anchors(q, c, ScriptedLLM(json.dumps({
        "g1": {"weight": 0.4, "keep": ["c2"], "take": []}, "g2": {"weight": 0.1, "keep": ["c3"], "take": []},
        "g3": {"weight": 0.5, "keep": ["c1"], "take": []}, "same": [["g1", "g3"]]})), review=True, trace=tr)
    assert len(gr.groups) == 3
    assert gr.notes[0] == ("merges refused: 'Brevik' and 'Tarn 4' are two names the question writes: "
                           "two anchors, not one")


def test_a_review_that_leaves_one_group_falls_back_and_says_so(toy):
    g, *_ = toy
    tr = Trace("bubblerag", Q)
    gr = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({
        "g1": {"weight": 1, "keep": ["c3"], "take": []}, "g2": {"weight": 0, "keep": ["c2"], "take": []},
        "g3": {"weight": 0, "keep": ["c1"], "take": []}, "same": [["g1", "g2"], ["g2", "g3"]]})), review=True, trace=tr)
    assert gr.source == "embedding" and len(gr.groups) == 3
    assert tr.steps[0].fallback == ("check failed: the review left 1 group(s) of the 3 proposed: with one group no two "
                                    "concepts can collide; used the `none`-mode grouping")
    bad = group_anchors(Q, _cands(g), ScriptedLLM(json.dumps({"g1": {"weight": 1, "keep": ["c2"]}})),
                        review=True, trace=(tr := Trace("bubblerag", Q)))
    assert bad.source == "embedding" and tr.steps[0].fallback.startswith("LLM output unusable")


@pytest.mark.parametrize("takeable", [{}, {"g1": ["c3"]}, {"g1": ["c3"], "g3": ["c1", "c2"]}])
def test_the_review_grammar_bounds_every_value(takeable):
    """llama.cpp turns the review schema into a grammar; an array without "items" becomes its generic
    "any JSON value" rule (the first bub44 review schema had one: "take": {"maxItems": 0}, and 3 of 5
    recorded replies wrote free JSON there). Every rule of the review's grammar must come from the schema."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from core.methods.bubblerag import prompts

    schema = prompts.grouping_review_schema([("g1", ["c1", "c2"]), ("g2", ["c3"]), ("g3", ["c4"])], takeable)
    rules = {line.split("::=")[0].strip() for line in json_schema_to_gbnf(json.dumps(schema)).splitlines()}
    assert not rules & {"value", "object", "array", "string"}, rules  # no generic JSON anywhere
    assert {f"{g}-take" for g in takeable} == {r for r in rules if r.endswith("-take")}
    # and the generic rules are what an items-less array brings in: the check can fail
    loose = {"type": "object", "properties": {"t": {"type": "array", "maxItems": 0}}, "required": ["t"]}
    assert "value" in {line.split("::=")[0].strip() for line in json_schema_to_gbnf(json.dumps(loose)).splitlines()}
