"""The extractive answer: the two showcase questions in ``none`` mode, the Lothair
anchors, SG-RAG on a possessive, a triples-only workspace, and the rules of core.methods.extractive."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_llm, get_reranker
from core.index.create import create_workspace
from core.index.samples import ensure_sample_workspace
from core.methods.answer_types import expected_answer_type, new_mentions, typed_mentions
from core.methods.answering import describe_answer
from core.methods.base import Backends
from core.methods.bridges import possessive_bridges
from core.methods.extractive import resolve_pronoun
from core.methods.registry import get_method
from core.methods.run import backends_for, run_method
from core.methods.sgrag.query_graph import link_mentions, possessive_relations

ROOT = Path(__file__).resolve().parents[2]
LOTHAIR = "When did Lothair II's mother die?"
MATRIX = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def test_answer_types_and_mentions():
    assert expected_answer_type(LOTHAIR) == "date"
    assert expected_answer_type(MATRIX) == "person"
    assert expected_answer_type("Where was Lothair I buried?") == "place"
    assert expected_answer_type("How many sons had Lothair I?") == "number"
    assert expected_answer_type("Find an ML expert.") == ""
    assert typed_mentions("She died on 20 March 851 and was buried in Erstein.", "date") == ["20 March 851"]
    assert typed_mentions("Lothair II (c. 835 - 8 August 869) was king from 855.", "date") == \
        ["c. 835", "8 August 869", "855"]
    # a person the question already names cannot be the answer to "who played ..."
    assert new_mentions("Laurence Fishburne is an American actor.", "person", MATRIX) == []


def test_which_city_asks_for_a_place_and_gets_the_sentence_that_names_one():
    """A "which city / what country" question names its answer type in its noun (issue: none mode quoted a
    sentence without the city while "He was born in Budapest" was in the same passage)."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    for q in ("In which city was Peter Kovacs born?", "What country was the author of Brand a citizen of?",
              "Which river flows through the city Kevin Durant played for?"):
        assert expected_answer_type(q, nouns=True) == "place", q
        assert expected_answer_type(q) == ""  # BubbleRAG's sufficiency check reads the question words only
    # "who" inside a relative clause does not make it a person question
    assert expected_answer_type("In which country was the man who wrote Brand born?", nouns=True) == "place"
    assert expected_answer_type("What percentage of the vote did Peter Kovacs win?", nouns=True) == "number"
    # any other noun asks for a thing named after it ("the film X"); a verb after "what" asks for no kind
    assert expected_answer_type("Which film did Peter Kovacs direct?", nouns=True) == "named:film"
    assert expected_answer_type("Which film did Peter Kovacs direct?") == ""
    assert expected_answer_type("What did the Board become in 1921?", nouns=True) == ""
    q = "In which city was Peter Kovacs born?"
    text = ("Peter Kovacs was born into a family of city musicians and was the city's best known violinist. "
            "He was born in Budapest.")
    pick = pick_sentence(q, [("c1", "Peter Kovacs", text)], Backends(HashingEmbedder(), get_llm("none")))
    assert pick.answer_type == "place"
    assert pick.text == "He [Peter Kovacs] was born in Budapest."  # the passage's person, shown for "He"
    assert "Budapest" in pick.candidates[0].typed


def test_a_title_read_for_it_names_no_person():
    """The audit's own corpus: "Who designed the lighthouse in the town founded by Idris Kalden?" got "It was founded
    in 1712 by … Idris Kalden": its "It" read as the title "Vellmora", which spaCy's small model tags PERSON, so it
    counted as naming a new person, beside the sentence that names Sofia Marrow."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.answer_types import ner_available
    from core.methods.extractive import pick_sentence

    q = "Who designed the lighthouse in the town founded by Idris Kalden?"
    founded = ("It was founded in 1712 by the sea captain Idris Kalden, who built the first stone quay there to "
               "shelter his fishing fleet.")
    designed = "It was designed by the engineer Sofia Marrow and was first lit in 1850."
    text = f"Vellmora is a harbour town on the northern coast. {founded} {designed}"
    pick = pick_sentence(q, [("c1", "Vellmora", text)], Backends(HashingEmbedder(), get_llm("none")))
    typed = {c.sentence: c.typed for c in pick.candidates}
    assert "Vellmora" not in typed[founded] + typed[designed]  # "it" is no person
    if ner_available():  # by capitalised runs every sentence names someone: the rule is spaCy's
        assert typed[founded] == () and "Sofia Marrow" in typed[designed], typed
        assert pick.text == designed, pick.candidates[:3]
    # the title read before a description is no mention of the sentence's own: "Mary Hale: The house stands on a
    # hill." names no person for "Who …?" (spaCy tags the title PERSON there)
    house = "The house stands on a hill above the harbour."
    asked = pick_sentence("Who lived in the house above the harbour?",
                          [("m", "Mary Hale", f"{house} It was built in 1790 by the mason Tom Reed.")],
                          Backends(HashingEmbedder(), get_llm("none")))
    typed = {c.sentence: c.typed for c in asked.candidates}
    assert "Mary Hale" not in typed[house], typed
    if ner_available():
        assert "Tom Reed" in " ".join(m for ms in typed.values() for m in ms), typed


def test_the_place_a_question_describes_is_not_the_place_it_asks_for():
    """An audit's corpus: "Which river does the viaduct designed by Ada Thorne's company cross?" quoted "It designed
    the Kessel Viaduct, …" — spaCy tags the viaduct a place (FAC), so that sentence counted as naming a new place; the
    viaduct is what the question describes ("the viaduct"), the river is what it asks for."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.answer_types import ner_available
    from core.methods.extractive import _described, pick_sentence

    q = "Which river does the viaduct designed by Ada Thorne's company cross?"
    assert _described("the Kessel Viaduct", q) and not _described("the River Oss", q)
    assert not _described("Lisk", "In which town was the engineer of the Vellmark Line born?")
    assert not _described("Ostra River", "Which river does the bridge cross?")  # the asked kind is no description
    designed = "It designed the Kessel Viaduct, its largest work, and several smaller river bridges."
    crosses = "The Kessel Viaduct carries the Vellmark Line across the River Oss."
    pick = pick_sentence(q, [("a", "Ada Thorne", f"In 1879 she founded the Thorne Bridge Company. {designed}"),
                             ("k", "Kessel Viaduct", f"{crosses} It has 27 stone arches.")],
                         Backends(HashingEmbedder(), get_llm("none")))
    typed = {c.sentence: c.typed for c in pick.candidates}
    assert not any("Viaduct" in m for m in typed[designed] + typed[crosses]), typed
    if ner_available():  # by capitalised runs the rule has no kinds to read
        assert "the River Oss" in typed[crosses] and pick.text == crosses, pick.candidates[:3]


def test_a_sentence_that_describes_its_passage_is_read_after_the_title():
    """An audit's lighthouse corpus: "Who designed Keldmoor Light?" got "Keldmoor Light stands on the granite headland
    …" from six methods, the gold passage at rank 1–3, because "The tower was designed by the engineer Tobias
    Wrenfield." does not name the light. Read after its title, as a reader reads it, it wins under the bundled
    cross-encoder (a margin of several logits there, not a near tie: checked on this text)."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    designed = "The tower was designed by the engineer Tobias Wrenfield."
    assert resolve_pronoun(designed, "Keldmoor Light") == f"Keldmoor Light: {designed}"
    assert resolve_pronoun("The Board merged in 1921.", "Northern Beacon Board") == "The Board merged in 1921."  # a name
    assert resolve_pronoun("The light of Keldmoor Light is white.", "Keldmoor Light") == \
        "The light of Keldmoor Light is white."  # names its title already
    assert resolve_pronoun(designed, "") == designed
    text = ("Keldmoor Light stands on the granite headland of Varrow Point. It was first lit in 1841 and burns with a "
            f"white flash every twelve seconds. {designed} He also built the breakwater at Hallam Quay two years later.")
    pick = pick_sentence("Who designed Keldmoor Light?", [("k", "Keldmoor Light", text)],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert pick.text == designed, pick.candidates[:3]


def test_he_is_the_person_named_before_in_a_passage_about_a_thing():
    """An audit's lighthouse corpus: "Who trained the captain of the Saltmere Lightship?" got "The lightship was
    commanded … by Captain Elias Penhallow." from all 8 methods, while the next sentence "He had trained as a boy under
    Agnes Morrow" answers it: "He" is the captain (the passage is about a ship), and spaCy's small model tags Agnes
    Morrow PRODUCT, so that sentence named no person."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.answer_types import ner_available
    from core.methods.extractive import pick_sentence, readings
    from core.text import named_person

    commanded = "The lightship was commanded for many years by Captain Elias Penhallow."
    trained = "He had trained as a boy under Agnes Morrow at Keldmoor Light."
    read = readings([commanded, trained], "Saltmere Lightship")
    assert read[0] == ("Saltmere Lightship: " + commanded,)
    assert read[1][0] == "Saltmere Lightship had trained as a boy under Agnes Morrow at Keldmoor Light."
    if ner_available():  # the person named before is found by spaCy (by capitalised runs: the last run)
        assert read[1][1:] == ("Elias Penhallow had trained as a boy under Agnes Morrow at Keldmoor Light.",), read
    # a passage about a person keeps "He" for that person, whoever was named before
    einstein = readings(["Albert Einstein met Max Born in Berlin.", "He was born in Ulm."], "Albert Einstein")
    assert einstein[1] == ("Albert Einstein was born in Ulm.",)
    assert named_person("Agnes Morrow") and named_person("Captain Tobias Wrenfield")
    assert not named_person("Victoria Station") and not named_person("Keldmoor Light") and not named_person("Agnes")
    pick = pick_sentence("Who trained the captain of the Saltmere Lightship?",
                         [("s", "Saltmere Lightship", f"{commanded} {trained}")],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    typed = {c.sentence: c.typed for c in pick.candidates}
    if ner_available():
        assert "Agnes Morrow" in typed[trained], typed
        assert pick.text in (trained, "He [Elias Penhallow] had trained as a boy under Agnes Morrow at Keldmoor Light."), \
            pick.candidates[:3]
    # "She" read as the person named before: the answer shows whom, since the sentence alone names no one (a
    # per-paragraph passage of the audit's corpus: "Who introduced the keepers' pension fund?")
    board = ("The Board's longest-serving secretary was Miriam Castellane. "
             "She introduced the keepers' pension fund in 1879.")
    pick = pick_sentence("Who introduced the keepers' pension fund?", [("b", "Northern Beacon Board", board)],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    if ner_available():
        assert "Miriam Castellane" in pick.text, pick.candidates[:3]
        if pick.text.startswith("She"):
            assert pick.text == "She [Miriam Castellane] introduced the keepers' pension fund in 1879."
            assert pick.trace_data()["candidates"][0]["shown"] == pick.text


def test_the_agent_of_a_passive_verb_answers_who():
    """An audit asked "Who directed The Matrix?" in class and got the cast sentence: "directed by the Wachowskis" named
    no PERSON for spaCy's small model. The agent after "by" counts as whom a "who" question asks for."""
    from core.methods.answer_types import ner_available

    directed = "The Matrix is a 1999 science fiction action film written and directed by the Wachowskis."
    if ner_available():
        assert "Wachowskis" in typed_mentions(directed, "person", names=True)
        assert "Wachowskis" not in typed_mentions(directed, "person")  # BubbleRAG's sufficiency check: spaCy alone
    assert new_mentions("It was founded by the captain Idris Kalden.", "person", "Who founded it, Idris Kalden?",
                        names=True) == []  # a name the question gives is no answer


def test_which_noun_prefers_the_sentence_that_names_one():
    """"Which tug towed back the lightship …?" quoted the sentence restating the question ("… was moored over the
    Gannet Bank …", cross-encoder 4.8) over "… the tug Merryweather towed her back" (3.7): a thing named after the
    asked noun is the answer type."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.answer_types import answer_type_phrase
    from core.methods.extractive import pick_sentence

    assert typed_mentions("the crew of the tug Merryweather towed her back", "named:tug") == ["Merryweather"]
    assert typed_mentions("The tug was old.", "named:tug") == []
    # the asked noun as the last word of a proper name; lower-case it names no one ("an American actor")
    assert typed_mentions("It was sold to the Harrow Ferry Company in 1920.", "named:company") == ["Harrow Ferry Company"]
    assert typed_mentions("Laurence Fishburne is an American actor.", "named:actor") == []
    assert typed_mentions("It worked only the Pellow Reach crossing.", "named:crossing") == ["Pellow Reach"]
    assert answer_type_phrase("named:tug").startswith("a named tug") and answer_type_phrase("date") == "a date"
    moored = "The Saltmere Lightship was moored over the Gannet Bank from 1872 until 1951."
    towed = "She drifted nine miles before the crew of the tug Merryweather towed her back."
    pick = pick_sentence("Which tug towed back the lightship that was moored over the Gannet Bank?",
                         [("s", "Saltmere Lightship", f"{moored} In the storm of 1910 she broke loose. {towed}")],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert pick.answer_type == "named:tug" and pick.text == towed, pick.candidates[:3]
    assert "a named tug" in pick.trace_data()["rule"]


def test_pronouns_and_possessive_bridges():
    assert resolve_pronoun("She died on 20 March 851.", "Ermengarde of Tours") == \
        "Ermengarde of Tours died on 20 March 851."
    assert resolve_pronoun("His son was Lothair II.", "Lothair I") == "Lothair I's son was Lothair II."
    passages = [("a", "Lothair II", "Lothair II was king. He was the son of Lothair I."),
                ("b", "Ermengarde of Tours", "Ermengarde of Tours was the mother of Lothair II. She died in 851.")]
    assert possessive_bridges(LOTHAIR, passages) == [("When did Ermengarde of Tours die?", "Ermengarde of Tours")]
    assert possessive_bridges("When did the mother of Lothair II die?", passages) == \
        [("When did Ermengarde of Tours die?", "Ermengarde of Tours")]
    assert possessive_bridges("When did Lothair II die?", passages) == []


@pytest.fixture(scope="module")
def demo_default(real_sample):
    """The demo workspace with the default models: bge-small, the bundled cross-encoder, LLM none."""
    emb = get_embedder("bge-small")
    ws = real_sample("demo", emb)
    return ws, Backends(emb, get_llm("none"), get_reranker("ms-marco-minilm"))


@pytest.mark.model
@pytest.mark.parametrize("method", ["bubblerag", "dense", "fastinsight"])
def test_showcase_questions_get_the_sentence_that_answers(demo_default, method):
    """BubbleRAG and the shared answer step (dense, FastInsight) in none mode, through the runner (which
    hands the reranker to every method when answers are extractive)."""
    ws, b = demo_default
    assert backends_for(method, b).reranker is not None
    # the shared answer step over passage rankings; FastInsight's KG-node default is checked below
    cfg = get_method(method).make_config(graph="passages") if method == "fastinsight" else None
    # Margins (measured): the sentence with the answer outscores every other sentence naming a date by 3.0+
    # logits (Lothair), one naming a person by 0.93+ (Matrix); int8 kernels move a logit by a tenth or two.
    r = run_method(method, LOTHAIR, ws, b, config=cfg)
    assert "20 March 851" in r.answer, r.answer  # not Lothair II's own dates
    # every method's answer step names the passage its sentence comes from (the diagnosis asks whether it is gold:
    # an audit saw BubbleRAG "ok" and four methods "right words by chance" for the same sentence)
    from core.methods.diagnoser import _answer_step
    step = _answer_step(r)
    assert step is not None and step.chunk_id == "ermengarde-of-tours", step
    note = describe_answer(r)
    assert note.extractive and note.label == "Extractive answer (no LLM)" and "ms-marco-minilm" in note.how
    r = run_method(method, MATRIX, ws, b, config=cfg)
    assert "Hugo Weaving" in r.answer and r.answer != "Laurence Fishburne is an American actor.", r.answer


@pytest.mark.model
def test_fastinsight_on_kg_nodes_answers_lothair_and_says_what_it_found_for_the_matrix(demo_default):
    """FastInsight's default (KG nodes, §4.2.2) with the cross-encoder: the Lothair question is answered;
    on the Matrix question the cross-encoder puts John Wick's nodes first, "Michael Nyqvist" (John Wick's
    "main villain") among them, so the extractive answer names him or the Matrix's villain — node texts are
    short and that node's text says "main villain" literally, which the passage graph's whole passages dilute."""
    ws, b = demo_default
    r = run_method("fastinsight", LOTHAIR, ws, b)
    assert r.searched == "kg_nodes" and "20 March 851" in r.answer, r.answer
    r = run_method("fastinsight", MATRIX, ws, b)
    # Not node_ranking[0]: four John Wick nodes score within 0.3 logit of each other (Michael Nyqvist 7.21,
    # Chad Stahelski 7.14, Viggo Tarasov 7.06, John Wick (film) 6.99 on one CPU), and which comes first
    # depends on the CPU's int8 kernels (it flips under tests/perturb.py-sized noise). The fifth node
    # scores 6.36, 0.84 below Nyqvist: membership in the top 4 holds on any CPU.
    top4 = [ws.graph.node_ids[v] for v in r.node_ranking[:4]]  # node rows of the graph → node ids
    assert r.searched == "kg_nodes" and "michael nyqvist" in top4, top4
    # The answer sentence is the best-scored person-naming sentence of the retrieved passages: the one naming
    # Nyqvist led the one naming Hugo Weaving (the Matrix's villain) by 0.74 logit with batches of 16, but how
    # pairs are batched moves int8 logits by up to ~1 (0.96 over 1,000 MuSiQue pairs when CPU batches became
    # token-capped), so either villain may come first; a sentence naming neither is the failure.
    assert "Michael Nyqvist" in r.answer or "Hugo Weaving" in r.answer, r.answer


@pytest.mark.model
def test_lothair_anchors_keep_mother_and_anchor_die_on_deaths(demo_default):
    ws, b = demo_default
    r = run_method("bubblerag", LOTHAIR, ws, b)
    groups = {g.concept: g for g in r.groups.groups}
    assert "mother" in groups and groups["mother"].members  # the concept of Example 4 stays a group
    # "die" searches edges only, "died ..." relations first: the demo's 5 such edges are its 5 candidates, the
    # 5th at cosine 0.495, above the 0.482 of the 20th and last edge searched (measured). Not asserted: whether the two
    # Ermengarde keywords merge (cosine 0.8019 against the 0.8 threshold, a CPU's rounding apart).
    die = groups["die"].members
    g = ws.graph
    assert die and all(c.kind == "edge" and "died" in g.edge_relation[c.index] for c in die), [c.text for c in die]
    assert not any(c.text in ("Apocalypse Now", "The Matrix", "Red Skull", "Neo", "Morpheus") for grp in
                   r.groups.groups for c in grp.members if grp.concept == "die")


def test_sgrag_parses_possessives(tmp_path):
    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path)
    assert link_mentions(LOTHAIR, ws.graph) == ["Lothair II"]
    assert possessive_relations(LOTHAIR, ["Lothair II"]) == {"Lothair II": "mother"}
    r = run_method("sgrag", LOTHAIR, ws, Backends(emb, get_llm("none")))
    assert r.answer and r.answer != "Unable to determine"
    note = describe_answer(r)
    # the UNK binding, or the extractive sentence when the star's matches bind UNK to several nodes: either way the
    # note says what the none-mode query graph could not express
    assert note.kind in ("heuristic", "extractive") and any("Lothair II's mother" in x for x in note.limits)


def test_sgrag_links_names_that_hold_a_possessive():
    """Blanking "'s" to link "Lothair II's" must not break names that are written with one."""
    from core.graph.graph_builder import GraphBuilder

    b = GraphBuilder()
    b.add_triple("Schindler's List", "directed by", "Steven Spielberg")
    b.add_triple("Lothair II", "son of", "Ermengarde of Tours")
    g = b.build()
    assert link_mentions("Who directed Schindler's List?", g) == ["Schindler's List"]
    assert link_mentions(LOTHAIR, g) == ["Lothair II"]


def test_triples_only_workspace_says_why(tmp_path):
    emb = get_embedder("hashing")
    ws = create_workspace([ROOT / "sample_data" / "demo" / "triples.csv"], tmp_path / "tonly", embedder=emb)
    b = Backends(emb, get_llm("none"))
    r = run_method("dense", LOTHAIR, ws, b)
    assert r.answer == ""
    note = describe_answer(r)
    assert note.kind == "none" and "triples-only" in note.how and "no text" in note.how
    r = run_method("bubblerag", LOTHAIR, ws, b)
    assert r.answer.endswith(".") and any(r.answer[:-1] == ws.graph.edge_text(e) for e in range(ws.graph.n_edges))
    assert any("triples-only" in x for x in describe_answer(r).limits)


def test_he_in_a_passage_about_a_person_shows_that_person():
    """An audit's q1 read a bare "He founded the Carrow Fiddle Fair in 1877 …" from a passage about the founder, while a
    passage about a timber yard had "After his [Anton Pell’s] death …": the title read for "He" is shown too."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence, shown_sentence

    founded = "He founded the Varrow Fiddle Fair in 1877 and was the father of Ilse Ostrin."
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("In what year was the Varrow Fiddle Fair founded?",
                         [("p", "Peter Ostrin", f"Peter Ostrin was a fiddler and innkeeper in Varrow. {founded}")], backends)
    assert pick.text == "He [Peter Ostrin] founded the Varrow Fiddle Fair in 1877 and was the father of Ilse Ostrin.", \
        pick.candidates[:3]
    # a title that is no person is not put in for "He"; a name read before it is
    assert shown_sentence(founded, "", "Varrow Inn", False) == founded
    assert shown_sentence(founded, "Peter Ostrin", "Varrow Inn", False).startswith("He [Peter Ostrin] founded")
    assert shown_sentence("It was sold in 1901.", "", "Peter Ostrin", True) == "It was sold in 1901."


def test_the_scorer_note_says_why_no_reranker_scored_the_sentences() -> None:
    """With an LLM the non-reranking methods get no reranker (backends_for), so an extractive fallback scores by
    cosine: the note says so instead of 'no reranker given' beside a sidebar that names one (audit)."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import _scorer

    class _LLM:
        available = True

    emb = HashingEmbedder()
    assert _scorer(Backends(emb, get_llm("none")))[1].endswith("(no reranker given)")
    scorer, note = _scorer(Backends(emb, _LLM()))  # type: ignore[arg-type]
    assert scorer is None and "answers with the LLM" in note


def test_a_question_no_passage_shares_a_word_with_gets_a_note_not_a_silent_answer():
    """An audit asked "zzqx vbnm plorf" and read a confident sentence: the pick is still the nearest sentence (the
    step's rule), but its note, shown under the answer, says that the passages hold no word of the question."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence, shares_a_word

    passages = [("c1", "Eastvale", "Eastvale is a province whose capital is Kelbridge.")]
    backends = Backends(HashingEmbedder(), get_llm("none"))
    odd = pick_sentence("zzqx vbnm plorf", passages, backends)
    assert odd.text and "no word of the question appears in the top passages" in odd.note
    fine = pick_sentence("What is the capital of Eastvale?", passages, backends)
    assert "no word of the question" not in fine.note
    assert shares_a_word("When did she die?", ["She died in 1998."])  # compared on word beginnings
    assert shares_a_word("Who is it?", ["anything"])  # only function words: nothing to compare
    assert not shares_a_word("Which glacier melted?", ["A province whose capital is Kelbridge."])


def test_clause_bridges_read_the_question_with_the_entity_a_passage_names():
    """"Who built the ferry that Mattias Venn captained?" quoted "She [Orla Brisk] commanded the ferry Grey Heron …"
    (cross-encoder 0.6) over "The Lantern Moth was built by the shipwright Barnaby Fell" (−10.0), which answers it
    once the ferry is known: a passage that says which ferry he captained resolves the description (an audit)."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.bridges import clause_bridges
    from core.methods.extractive import pick_sentence

    venn = "Mattias Venn became captain of the ferry Lantern Moth in 1904."
    assert clause_bridges("Who built the ferry that Mattias Venn captained?", [venn])[0][:3] == \
        ("Who built the ferry Lantern Moth?", "Lantern Moth", venn)
    assert clause_bridges("Which crossing did the ferry of Josiah Crell work?",
                          ["Josiah Crell commanded the cattle ferry Brown Ox."])[0][:2] == \
        ("Which crossing did the ferry Brown Ox work?", "Brown Ox")
    assert clause_bridges("Who built the boat that Orla Brisk commanded?",  # by the verb: "boat" is not written
                          ["Orla Brisk commanded the ferry Grey Heron from 1895."])[0][1] == "Grey Heron"
    # "the N where X V-ed", X with its role noun (an audit's "the school where Pieter Valk trained" found no bridge)
    valk = "He [Pieter Valk] trained at the Haskell School of Scent."
    for q in ("Which city is the school where Pieter Valk trained located in?",
              "Who founded the school where the composer Pieter Valk trained?"):
        assert clause_bridges(q, [valk])[0][1] == "Haskell School of Scent", q
    # an agent noun is the agent of its verb ("founded … by"), or follows "<noun> is"; an adjective must be said too
    kestrel = ["Kestrel Peak Observatory was founded in 1931 by the astronomer Ilse Brandvik.",
               "Kestrel Peak Observatory: The current director is Marek Lindqvist.",
               "Kestrel Peak Observatory: The observatory's largest instrument is the Halden Telescope."]
    assert clause_bridges("In which town was the founder of Kestrel Peak Observatory born?", kestrel)[0][1] == "Ilse Brandvik"
    assert clause_bridges("Who succeeded the current director of Kestrel Peak Observatory?", kestrel)[0][1] == "Marek Lindqvist"
    assert clause_bridges("Who built the first telescope of Kestrel Peak Observatory?", kestrel) == []
    sarna = ["Comet Sarna was discovered on 14 February 2003 with the Halden Telescope."]
    assert clause_bridges("Who supervised the discoverer of Comet Sarna?", sarna) == []  # no "by": no discoverer named
    assert [b[:3] for b in clause_bridges("How wide is the mirror of the telescope with which Comet Sarna was discovered?",
                                          sarna)] == [("How wide is the mirror of the Halden Telescope?", "Halden Telescope", sarna[0])]
    # a sentence that does not name the description's entity resolves nothing; nor does one without the noun or verb
    assert clause_bridges("Who built the ferry that Mattias Venn captained?", ["Orla Brisk commanded the ferry Grey Heron."]) == []
    assert clause_bridges("Who built the ferry that Mattias Venn captained?", ["Mattias Venn met Edda Thorne."]) == []
    caps = ("Captains of the Tessany", "Orla Brisk was a captain. She commanded the ferry Grey Heron from 1895 until 1931. "
            "Mattias Venn joined the company in 1890. He became captain of the ferry Lantern Moth in 1904.")
    ferries = ("Ferries and Landings", "The Lantern Moth was built by the shipwright Barnaby Fell in 1899. "
               "It ran the night crossing.")
    pick = pick_sentence("Who built the ferry that Mattias Venn captained?", [("c", *caps), ("f", *ferries)],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert "Barnaby Fell" in pick.text, pick.candidates[:3]
    assert any("Lantern Moth" in b for b in pick.bridges) and "bridge: " in pick.trace_data()["rule"]
    # the sentence that resolved the description is the first hop, scored by the re-read question alone: "She took
    # command of the ferry Silver Eel in 1921" restates "the ferry commanded by Edda Thorne" and outscored the launch
    edda = ("Captains of the Tessany", "Edda Thorne was the first captain trained at the company's school. She took "
            "command of the ferry Silver Eel in 1921.")
    eel = ("Ferries and Landings", "The Silver Eel was the company's first screw-driven ferry. It was launched in 1920 "
           "and was the fastest boat on the Tessany River. It sank in a storm in 1948.")
    pick = pick_sentence("In what year was the ferry commanded by Edda Thorne launched?", [("c", *edda), ("f", *eel)],
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert "1920" in pick.text, pick.candidates[:3]


def test_it_reads_as_the_thing_the_sentence_before_named():
    """"The Brown Ox was a flat-bottomed ferry … It worked only the Pellow Reach crossing": "It" is the Brown Ox, not
    the passage "Ferries and Landings" (rule 5); the answer shows whom it was read as."""
    from core.methods.extractive import antecedents, bracketed

    sents = ["The Brown Ox was a flat-bottomed ferry for cattle and carts.", "It worked only the Pellow Reach crossing.",
             "It was sold in 1930.", "The company closed it.", "It was gone."]
    assert antecedents(sents, "Ferries and Landings") == ["", "Brown Ox", "Brown Ox", "", ""]
    assert bracketed(sents[1], "Brown Ox") == "It [Brown Ox] worked only the Pellow Reach crossing."


def test_a_name_no_retrieved_passage_mentions_is_said_beside_the_answer():
    """"Who founded the Zebra Mill?" of a corpus without it got "She died on 20 March 851 …" with no sign that nothing
    matched (an audit): the answer's note names what no retrieved passage mentions."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import absent_names, pick_sentence

    passages = [("e", "Ermengarde of Tours", "Ermengarde of Tours was a queen. She died on 20 March 851.")]
    pick = pick_sentence("Who founded the Zebra Mill?", passages,
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert pick.note.startswith("the question names “Zebra Mill”, which none of the retrieved passages mentions")
    pick = pick_sentence("When did Ermengarde of Tours die?", passages,
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert "none of the retrieved passages" not in pick.note
    # every passage handed to the answer counts, not only the top ones (BubbleRAG hands 13, in its own order)
    many = [(f"p{i}", f"Filler {i}", "Nothing here.") for i in range(6)] + [("c", "Harrow", "It was sold to Clara Dunmore.")]
    pick = pick_sentence("Who founded the company that Clara Dunmore bought?", many,
                         Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm")))
    assert "none of the retrieved passages" not in pick.note, pick.note
    assert absent_names("In which town was the founder of Kestrel Peak Observatory born?", ["kestrel peak observatory"]) == []
    assert absent_names("What is Hester Quill's trade?", ["Hester Quill was a merchant."]) == []


def test_bridges_read_relations_from_the_other_side():
    """An audit's glassworks: "Where was the father of Aldo Fenn born?" quoted Aldo Fenn's own birth sentence with both
    gold passages at ranks 1 and 2; the passage says "He was the son of Tobias Fenn", the father from the son's side."""
    from core.methods.bridges import clause_bridges, head_reading, possessive_bridges

    son = "Aldo Fenn was the son of Tobias Fenn and was born in Larkmere in 1860."
    assert clause_bridges("Where was the father of Aldo Fenn born?", [son])[0][:2] == ("Where was Tobias Fenn born?", "Tobias Fenn")
    assert clause_bridges("Where was the mother of Aldo Fenn born?", [son]) == []  # Tobias is a man's name
    assert clause_bridges("Where was Aldo Fenn's father born?", ["Tobias Fenn's son Aldo Fenn was born in 1860."])[0][1] == "Tobias Fenn"
    # of two parents the one whose title or given name fits; the wife-and-mother sentence from the mother's side
    lothair = "Lothair II was the second son of the Emperor Lothair I and Ermengarde of Tours."
    assert clause_bridges("When did Lothair II's mother die?", [lothair])[0][1] == "Ermengarde of Tours"
    assert clause_bridges("When did Lothair II's father die?", [lothair])[0][1] == "Lothair I"
    wife = "Ermengarde of Tours was the wife of the Emperor Lothair I and the mother of Lothair II."
    assert clause_bridges("When did the mother of Lothair II die?", [wife])[0][1] == "Ermengarde of Tours"
    assert clause_bridges("Where was the mother of Aldo Fenn born?", ["Aldo Fenn was the son of Anna Ries and Carl Ries."])[0][1] == "Anna Ries"
    assert clause_bridges("Where was the mother of Aldo Fenn born?", ["Aldo Fenn was the son of Vuk Ries and Zor Ries."]) == []
    # a description by what its subject did, stated from the other side, with "the company" read as the passage's title
    sold = "In 1925 the company was sold to the engineer Petra Lund."
    read = head_reading(sold, "Colbridge Lamp Company")
    assert read == ("In 1925 Colbridge Lamp Company was sold to the engineer Petra Lund.",)
    assert head_reading(sold, "Harrow Glassworks") == () and head_reading("The company was sold.", "Fenn") == ()
    q = "Where was the engineer who bought the Colbridge Lamp Company born?"
    assert clause_bridges(q, [sold]) == []  # the sentence alone does not name the company
    assert clause_bridges(q, list(read))[0][:2] == ("Where was the engineer Petra Lund born?", "Petra Lund")
    assert clause_bridges("Who was the engineer who bought the Colbridge Lamp Company?",
                          ["Clara Dunmore bought the Colbridge Lamp Company in 1889."])[0][1] == "Clara Dunmore"
    assert clause_bridges("Who taught the engraver who sold the Larkmere Chalice?",
                          ["Mirela Stane bought the Larkmere Chalice from Ada Stane."])[0][1] == "Ada Stane"
    assert clause_bridges("Where was the ferry that was built in 1890 moored?", ["The ferry was built in 1890."]) == []
    # a description inside a description: the son first, then the company he founded
    founded = "The Colbridge Lamp Company was founded in 1901 by the engineer Aldo Fenn."
    got = clause_bridges("In what year was the lamp company founded by Tobias Fenn's son sold?", [son, founded])
    assert [b[1] for b in got] == ["Aldo Fenn", "Colbridge Lamp Company"]
    # the son's sentence in the company's passage does not make the company Tobias Fenn's son
    passages = [("c", "Colbridge Lamp Company", f"{founded} He was the son of Tobias Fenn.")]
    assert possessive_bridges("Who was Tobias Fenn's son?", passages) != []
    assert possessive_bridges("Who was Tobias Fenn's son?", passages, skip={"Tobias Fenn's son"}) == []


def test_a_found_bridge_is_looked_up_in_the_fourth_and_fifth_passages():
    """The bridge's own passage ranked fourth: "Petra Lund was born in Harwick" answers once "the engineer who bought
    the Colbridge Lamp Company" is known to be Petra Lund, though only the top three passages supply sentences."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    passages = [("c0", "Colbridge Lamp Company", "The Colbridge Lamp Company was founded in 1901 by the engineer Aldo Fenn. "
                 "He was the son of Tobias Fenn and was born in Larkmere in 1860."),
                ("c2", "Colbridge Lamp Company", "In 1925 the company was sold to the engineer Petra Lund. "
                 "She turned it into a maker of electric lamps."),
                ("c1", "Colbridge Lamp Company", "The company bought its glass chimneys from the Harrow Glassworks."),
                ("c3", "Colbridge Lamp Company", "Petra Lund was born in Harwick in 1880. She ran the company until 1948.")]
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("Where was the engineer who bought the Colbridge Lamp Company born?", passages, backends)
    assert "Petra Lund" in pick.bridges[0]
    assert pick.text == "Petra Lund was born in Harwick in 1880.", pick.candidates[:3]
    # without a bridge the fourth passage supplies nothing
    plain = pick_sentence("Where was Aldo Fenn born?", passages, backends)
    assert all(c.chunk_id != "c3" for c in plain.candidates)
    # a method that hands its answer more passages (BubbleRAG's 15): the bridge is looked up in all of them
    filler = [(f"f{i}", "Harrow Glassworks", f"The Harrow Glassworks made bottles in kiln {i}.") for i in range(4)]
    longer = passages[:3] + filler + passages[3:]
    pick = pick_sentence("Where was the engineer who bought the Colbridge Lamp Company born?", longer, backends)
    assert pick.text == "Petra Lund was born in Harwick in 1880.", pick.candidates[:3]


def test_a_paragraph_opening_with_he_reads_the_retrieved_paragraph_before_it():
    """An audit's museum document, one passage per paragraph: "He bought the Larkmere Chalice" opens the second, the
    historian is named at the end of the first. With both retrieved the answer is Owen Pike's sentence, shown with
    whom "He" stands for; another document's passage is never read as the one before."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    first = ("museum#0", "Larkmere Glass Museum", "The Larkmere Glass Museum opened in 1950 in the main hall of the "
             "former Harrow Glassworks. Its first director was the historian Owen Pike.")
    second = ("museum#1", "Larkmere Glass Museum", "He bought the Larkmere Chalice from the family of the old mayor in "
              "1953. It is now the museum's most visited object.")
    stane = ("stane#1", "Mirela Stane", "Her best-known work is the Larkmere Chalice, a cut-glass cup engraved with river "
             "birds. It was made in 1880 for the mayor of Larkmere.")
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("Who bought the Larkmere Chalice?", [second, stane, first], backends)
    assert pick.text.startswith("He [Owen Pike] bought the Larkmere Chalice"), pick.candidates[:3]
    alone = pick_sentence("Who bought the Larkmere Chalice?", [second, stane], backends)
    assert not any("[Owen Pike]" in (c.shown or "") for c in alone.candidates)
    other = ("other#0", "Harrow Glassworks", first[2])  # same id rule, another title: not the paragraph before
    moved = pick_sentence("Who bought the Larkmere Chalice?", [("other#1", "Larkmere Glass Museum", second[2]), other], backends)
    assert not any("[Owen Pike]" in (c.shown or "") for c in moved.candidates)


def test_role_nouns_by_what_the_other_side_did_and_a_title_by_its_class_noun():
    """An audit's clockmaking corpus: "the teacher of Anselm Tessely" is whom he "trained under" (or whose
    "apprentices included" him); "the workshop that built the Marrowgate Tower Clock" is the passage's title where
    the passage calls it "a clockmaking workshop" and says "the workshop built …"."""
    from core.methods.bridges import clause_bridges, head_reading, title_kinds

    q = "Where was the teacher of Anselm Tessely born?"
    assert clause_bridges(q, ["Anselm Tessely trained under the watchmaker Odile Brask before he moved."])[0][1] == "Odile Brask"
    assert clause_bridges(q, ["Odile Brask's apprentices included Anselm Tessely and Pim Rattery."])[0][1] == "Odile Brask"
    assert clause_bridges(q, ["Anselm Tessely met the watchmaker Odile Brask."]) == []
    kinds = title_kinds(["Tessely Clockworks was a clockmaking workshop in the town of Quellbridge."], "Tessely Clockworks")
    assert kinds == ("workshop",)
    assert title_kinds(["The Corven Instrument Company was a maker of barometers."], "Corven Instrument Company") == ("maker",)
    built = "In 1858 the workshop built the Marrowgate Tower Clock for the town hall of Dunmere."
    assert head_reading(built, "Tessely Clockworks") == ()  # "the workshop" is no word of the title
    read = head_reading(built, "Tessely Clockworks", kinds)
    assert read == ("In 1858 Tessely Clockworks built the Marrowgate Tower Clock for the town hall of Dunmere.",)
    assert clause_bridges("Who founded the workshop that built the Marrowgate Tower Clock?", list(read))[0][1] == \
        "Tessely Clockworks"


def test_a_bridge_entity_is_the_reread_questions_subject_not_its_answer():
    """An audit's "Who taught the founder of Tessely Clockworks?" quoted the first hop, "It was founded in 1821 by the
    clockmaker Anselm Tessely", which counted as naming a new person: once the founder is the bridge, his name is the
    question's, and the sentence naming his teacher answers. And "Where was the engineer who bought X born?" asks for
    a place: its "who" opens a relative clause."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    assert expected_answer_type("Where was the engineer who bought the Colbridge Lamp Company born?", nouns=True) == "place"
    assert expected_answer_type("Who taught the engraver who made the chalice?", nouns=True) == "person"
    passages = [("tc#0", "Tessely Clockworks", "Tessely Clockworks was a clockmaking workshop in the town of Quellbridge. "
                 "It was founded in 1821 by the clockmaker Anselm Tessely."),
                ("tc#1", "Tessely Clockworks", "Anselm Tessely was born in Varn. He trained under the watchmaker Odile "
                 "Brask before he moved to Quellbridge. He died in 1869.")]
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("Who taught the founder of Tessely Clockworks?", passages, backends)
    assert "Anselm Tessely" in pick.bridges[0]
    assert "trained under the watchmaker Odile Brask" in pick.text, pick.candidates[:3]


def test_its_founder_a_marriage_from_either_side_and_a_description_to_the_question_mark():
    """A held-out audit corpus (a seed nursery): "Who ran the Tarrow Mill after its founder died?" quoted the founding
    sentence in every method — "its founder" is the founder of the Tarrow Mill; "the husband of the artist who
    painted the Quill catalogue plates" is whom she "married", and the re-read question then asks for that bridge
    itself, so the sentence naming him answers."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.bridges import clause_bridges, own_possessives
    from core.methods.extractive import pick_sentence

    assert own_possessives("Who ran the Tarrow Mill after its founder died?") == \
        "Who ran the Tarrow Mill after the founder of Tarrow Mill died?"
    assert own_possessives("What did its founder make?") == "What did its founder make?"  # nobody named before it
    founded = "The Tarrow Mill was founded in 1840 by the miller Odo Penn."
    got = clause_bridges("Who ran the Tarrow Mill after its founder died?", [founded])
    assert got and got[0][:2] == ("Who ran the Tarrow Mill after the founder Odo Penn died?", "Odo Penn"), got
    painted = "Ilse Marr painted the plates for the Quill Seed Catalogue."
    q = "Who was the husband of the artist who painted the Quill catalogue plates?"
    for married in ("Ilse Marr married the printer Abel Stroud, who owned a press.", "Abel Stroud married Ilse Marr in 1880."):
        got = clause_bridges(q, [painted, married])
        assert [b[:2] for b in got] == [("Who was the husband of the artist Ilse Marr?", "Ilse Marr"),
                                        ("Who was Abel Stroud?", "Abel Stroud")], got
    assert [b[:2] for b in clause_bridges(q, [painted, "Ilse Marr met the printer Abel Stroud."])] == \
        [("Who was the husband of the artist Ilse Marr?", "Ilse Marr")]
    # a participle after the description is the question's own verb: the description stops before it
    born = clause_bridges("Where was the founder of the company that bought the Tarrow Mill born?",
                          ["In 1911 the Tarrow Mill was sold to the Quill Seed Company."])
    assert born and born[0][0] == "Where was the founder of the Quill Seed Company born?", born
    passages = [("m#0", "Ilse Marr", "Ilse Marr was a botanical artist. She painted the plates for the Quill Seed Catalogue."),
                ("m#1", "Ilse Marr", "She was born in 1852. She married the printer Abel Stroud, who owned a press.")]
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence(q, passages, backends)
    assert "Abel Stroud" in pick.text, pick.candidates[:3]
    # the same with the description's noun kept: "Who was the head printer who trained Ilse Marr?" → "Who was the
    # printer Abel Stroud?" (an audit's Ask answered it with a sentence naming no one)
    trained = [("p#0", "Quill Press", "The Quill Press was a print shop in Lowmarsh. The head printer Abel Stroud trained "
                "Ilse Marr in 1870."), ("p#1", "Quill Press", "The foreman Jonas Weald printed seed catalogues for the shop.")]
    pick = pick_sentence("Who was the head printer who trained Ilse Marr?", trained, backends)
    assert pick.bridges and "Abel Stroud" in pick.text, (pick.bridges, pick.candidates[:3])


def test_a_pronoun_after_an_opening_phrase_and_a_buyer_answer_to_whom():
    """An audit's "To whom did Liesl Tessely sell the workshop?" quoted the founding sentence in every method with the
    answer's passage ranked first: "In 1899 she sold it to the Corven Instrument Company" read no one for "she" (only a
    leading pronoun was read), and a company named no person for "whom"."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.answer_types import typed_mentions
    from core.methods.extractive import bracketed, pick_sentence, readings

    assert typed_mentions("In 1899 she sold it to the Quill Seed Company.", "person", names=True, recipients=True) == \
        ["Quill Seed Company"]
    assert typed_mentions("In 1899 she sold it to the Quill Seed Company.", "person", names=True) == []  # no "she" for later
    assert typed_mentions("Her shop was sold to her nephew Abel Stroud.", "person", names=True, recipients=True) == ["Abel Stroud"]
    sents = ["The mill passed to his daughter Ilse Marr.", "In 1899 she sold it to the Quill Seed Company."]
    assert readings(sents, "Tarrow Mill")[1] == ("In 1899 Tarrow Mill sold it to the Quill Seed Company.",
                                                 "In 1899 Ilse Marr sold it to the Quill Seed Company.")
    assert bracketed(sents[1], "Ilse Marr") == "In 1899 she [Ilse Marr] sold it to the Quill Seed Company."
    assert bracketed("Inside she kept a ledger.", "Ilse Marr") == "Inside she kept a ledger."  # no opening phrase
    # an opening phrase that names someone: her "her" is hers, no bracket (an audit read "her [the Calder Brewery's]
    # nephew Silas Ormond", the brewery named by "sold … to" before it)
    died = "After Ada Penn died in 1912, her nephew Abel Stroud ran the company."
    assert bracketed(died, "Ilse Marr") == died
    brew = ["In 1903 the company sold its brewhouse to the Calder Brewery.", died]
    assert readings(brew, "Quill Ale Company")[1] == (died,)
    passages = [("m#3", "Tarrow Mill", "After Odo Penn's death the mill passed to his daughter Ilse Marr. She ran it "
                 "for thirty years. In 1899 she sold it to the Quill Seed Company."),
                ("m#0", "Tarrow Mill", "The Tarrow Mill was a water mill. It was founded in 1821 by the miller Odo Penn.")]
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("To whom did Ilse Marr sell the mill?", passages, backends)
    assert pick.text == "In 1899 she [Ilse Marr] sold it to the Quill Seed Company.", pick.candidates[:3]


def test_a_first_hop_answer_says_that_no_passage_handed_answers_the_second():
    """An audit's "In what year was the company that bought the Calder Brewery sold?" quoted the purchase in every
    5-passage method, the sale's passage not retrieved: the bridge was found, and the answer now says that its sentence
    only resolves the description and which re-read question no passage answered."""
    from core.backends.embedders import HashingEmbedder
    from core.methods.extractive import pick_sentence

    passages = [("m#5", "Tarrow Mill", "In 1911 the Tarrow Mill was sold to the Quill Seed Company. The buyer kept the "
                 "Tarrow name."), ("m#0", "Tarrow Mill", "The Tarrow Mill was a water mill on the Corran.")]
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("In what year was the company that bought the Tarrow Mill sold?", passages, backends)
    assert pick.text.startswith("In 1911 the Tarrow Mill was sold"), pick.candidates[:2]
    assert "only resolves what the question describes" in pick.note, pick.note
    assert "“In what year was the Quill Seed Company sold?”" in pick.note, pick.note
    # with the answer's passage handed too, no such note
    passages.append(("q#4", "Quill Seed Company", "In 1934 the Quill Seed Company was sold to the Fenby Trust."))
    pick = pick_sentence("In what year was the company that bought the Tarrow Mill sold?", passages, backends)
    assert "1934" in pick.text and "only resolves" not in pick.note, (pick.text, pick.note)


def test_a_bridge_reads_a_name_with_an_ampersand_whole():
    """An audit's q3 re-read "the company that bought Brask & Sons" as "the Halvard Music Company & Sons": the name
    ended at "&"."""
    from core.methods.bridges import clause_bridges

    sold = "Orm & Sons was sold to the Halvard Music Company in 1921."
    bridge = clause_bridges("Which city was the founder of the company that bought Orm & Sons born in?", [sold])[0]
    assert bridge[:2] == ("Which city was the founder of the Halvard Music Company born in?", "Halvard Music Company")
    assert bridge[3] == "the company that bought Orm & Sons"
