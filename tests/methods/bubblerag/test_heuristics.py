"""`none`-mode keyword heuristics of BubbleRAG."""

from __future__ import annotations

from core.methods.bubblerag.heuristics import entity_mentions


def test_a_lone_capitalised_first_word_is_no_entity() -> None:
    # MuSiQue 3hop1__155787_497059_42188: "Besides" was the first entity, so the core-subject group
    # (weight x1.5) anchored on nodes such as "some" and "unknown".
    q = ("Besides the continent of the river which the Tekeze River turns into, where did Germany have "
         "imperial interests?")
    assert entity_mentions(q) == ["Tekeze River", "Germany"]


def test_a_first_word_that_starts_a_name_is_kept() -> None:
    assert entity_mentions("Humboldt Peak, in the state where Silverton is located?")[0] == "Humboldt Peak"
    assert entity_mentions("The 1920 Summer Olympics in which Hans Edler's country competed")[:2] == [
        "The 1920 Summer Olympics", "Hans Edler"]
    assert entity_mentions("Lord of Misrule was written by whom?") == ["Lord of Misrule"]
    assert entity_mentions("Who played the main villain in the movie where Keanu Reeves starred?") == ["Keanu Reeves"]
    assert entity_mentions("1921 Nobel Prize in Physics winner?")[0] == "1921"


def test_an_ampersand_between_capitalised_words_is_one_name() -> None:
    # split, "Sons" alone was a keyword whose nearest nodes were years
    q = "Which city was the founder of the company that bought Orm & Sons born in?"
    assert entity_mentions(q) == ["Orm & Sons"]
    assert entity_mentions("Procter & Gamble sold what to AT&T in 1999?") == ["Procter & Gamble", "AT&T", "1999"]
    assert entity_mentions("Did Tom & then Jerry leave?") == ["Tom", "Jerry"]  # "&" before a lower-case word


def test_a_name_with_and_is_one_keyword_when_a_graph_node_has_that_name() -> None:
    from core.backends.registry import get_llm
    from core.graph.graph_builder import GraphBuilder
    from core.methods.bubblerag.keywords import extract_keywords

    b = GraphBuilder()
    c = b.add_chunk("Harl and Quist", "Harl and Quist is a firm. Tom met Jerry.")
    b.add_triple("Harl & Quist", "is", "firm", chunk_id=c)
    b.add_triple("Tom", "met", "Jerry", chunk_id=c)
    graph, llm = b.build(), get_llm("none")
    assert extract_keywords("Who founded Harl and Quist?", None, graph, llm).explicit == ("Harl and Quist", "founded")
    assert extract_keywords("Where did Tom and Jerry meet?", None, graph, llm).explicit == ("Tom", "Jerry", "meet")


def _graph_and_preview():
    from core.graph.graph_builder import GraphBuilder
    from core.methods.bubblerag.preretrieval import PreRetrieval

    b = GraphBuilder()
    c1 = b.add_chunk("Hank Snow", "Hank Snow was a country singer.")
    c2 = b.add_chunk("Tennessee", "Tennessee is a state.")
    b.add_triple("Hank Snow", "lived in", "Tennessee", chunk_id=c1)
    b.add_triple("Tennessee", "is", "state", chunk_id=c2)
    return b.build(), PreRetrieval((c1, c2), (0.9, 0.8), False, "", "", False)


def test_none_implicit_sets_how_many_preview_titles_become_implicit_keywords() -> None:
    from core.backends.registry import get_llm
    from core.methods.bubblerag.keywords import extract_keywords

    graph, pre = _graph_and_preview()
    q = "Where did Hello Love's performer live?"
    llm = get_llm("none")
    assert extract_keywords(q, pre, graph, llm).implicit == ("Hank Snow", "Tennessee")  # default 2
    assert extract_keywords(q, pre, graph, llm, none_implicit=1).implicit == ("Hank Snow",)
    assert extract_keywords(q, pre, graph, llm, none_implicit=0).implicit == ()


def test_entity_share_rescales_the_keyword_rule_weights() -> None:
    import numpy as np

    from core.methods.bubblerag.candidates import Candidate, Candidates
    from core.methods.bubblerag.grouping import _embedding_groups
    from core.methods.bubblerag.specialization import SearchTerm

    kws = [("Publix", "explicit"), ("stores", "explicit"), ("state", "explicit"), ("Tennessee", "implicit")]
    terms = tuple(SearchTerm(k, k, kind) for k, kind in kws)
    vecs = np.eye(4, dtype=np.float32)  # orthogonal: no two keyword groups merge
    items = tuple(Candidate(f"c{i + 1}", "node", i, k, 0.9, (k,), (0.9,)) for i, (k, _) in enumerate(kws))
    per_term = tuple((k, (f"c{i + 1}",)) for i, (k, _) in enumerate(kws))
    cands = Candidates(items, terms, vecs, per_term, {k: vecs[i] for i, (k, _) in enumerate(kws)})
    rule = {g.concept: g.weight for g in _embedding_groups(cands)}
    assert np.isclose(rule["Publix"], 3 / 6) and np.isclose(rule["stores"], 1 / 6)  # 2 x 1.5 : 1 : 1 : 1
    shared = {g.concept: g.weight for g in _embedding_groups(cands, entity_share=0.7)}
    assert np.isclose(shared["Publix"], 0.7) and np.isclose(sum(shared.values()), 1.0)
    assert np.isclose(shared["stores"], 0.1) and np.isclose(shared["Tennessee"], 0.1)


def test_two_full_names_that_share_a_surname_stay_two_groups() -> None:
    """An audit's q6 grouped "Jonas Pell / Anton Pell" (brothers) as one entity: their keyword cosine is high."""
    import numpy as np

    from core.methods.bubblerag.candidates import Candidate, Candidates
    from core.methods.bubblerag.grouping import _embedding_groups
    from core.methods.bubblerag.heuristics import distinct_names
    from core.methods.bubblerag.specialization import SearchTerm

    def groups(kws: list[str]) -> list[str]:
        terms = tuple(SearchTerm(k, k, "explicit") for k in kws)
        vecs = np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(kws), 1))  # cosine 1: every pair may merge
        items = tuple(Candidate(f"c{i + 1}", "node", i, k, 0.9, (k,), (0.9,)) for i, k in enumerate(kws))
        per_term = tuple((k, (f"c{i + 1}",)) for i, k in enumerate(kws))
        cands = Candidates(items, terms, vecs, per_term, {k: vecs[i] for i, k in enumerate(kws)})
        return [g.concept for g in _embedding_groups(cands)]

    assert groups(["Jonas Orrick", "Anton Orrick"]) == ["Jonas Orrick", "Anton Orrick"]
    # a bare surname joins the first full name it meets, and no chain of merges joins the two people
    assert groups(["Jonas Orrick", "Orrick", "Anton Orrick"]) == ["Jonas Orrick / Orrick", "Anton Orrick"]
    assert groups(["Orrick Timber Yard", "timber yard"]) == ["Orrick Timber Yard / timber yard"]  # no person pair
    assert not distinct_names("Johann Strauss II", "Johann Strauss")
    assert not distinct_names("Hank Snow", 'Clarence Eugene Hank Snow')
    assert not distinct_names("Jonas Orrick's brother", "Anton Orrick")  # a description, not a name
