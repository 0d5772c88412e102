"""SG-RAG's ``none``-mode answer on a small corpus whose KG the spaCy extractor builds (the default without an
LLM): a one-entity question matches every neighbour of the entity, so the ``UNK`` binding of the best-ranked
subgraph is one of them by chance; the answer is then the sentence of the matched passages that answers it.

An audit's corpus asked "In what year did Mattias Venn rescue eleven passengers?" and got "1904", the year
he became captain: spaCy (before ``spacy-v7``) gave the rescue sentence's "He" to the passage's title, so 1912 was
no neighbour of Mattias Venn at all, while its sentence is in the one passage the matches come from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.index.create import create_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.sgrag.config import SGRAGConfig
from core.methods.sgrag.pipeline import run
from tests.methods.sgrag.conftest import MAGNESIUM_TRIPLES, write_triples
from tests.methods.sgrag.test_pipeline import QUESTION

CAPTAINS = """Captains of the Tessany

Mattias Venn joined the company as a deckhand in 1890. He became captain of the ferry Lantern Moth in 1904. He was known for rescuing eleven passengers when the river flooded in 1912.

Edda Thorne was the first captain trained at the company's own school in Ashcombe. She took command of the ferry Silver Eel in 1921.
"""


@pytest.fixture(scope="module")
def hashing() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture(scope="module")
def captains_ws(tmp_path_factory: pytest.TempPathFactory, hashing: HashingEmbedder) -> Workspace:
    root = tmp_path_factory.mktemp("captains")
    src = root / "in" / "Captains_of_the_Tessany.txt"
    src.parent.mkdir(parents=True)
    src.write_text(CAPTAINS, encoding="utf-8")
    return create_workspace([src], root / "ws", name="captains", embedder=hashing)  # spaCy: the default


def test_several_bindings_answer_with_the_passage_sentence_not_a_neighbour(captains_ws, hashing) -> None:
    # the audit's question: the KG now holds "Mattias Venn · rescuing · eleven passengers", so its query graph names two
    # entities that no UNK joins and the run takes the extractive fallback; the answer is the rescue sentence either way
    r = run("In what year did Mattias Venn rescue eleven passengers?", captains_ws, backends=Backends(hashing, NoLLM()))
    assert "1912" in r.answer and "rescuing eleven passengers" in r.answer, r.answer
    # one entity whose chain matches several neighbours: the answer is the sentence, not a neighbour picked by cosine
    r = run("Which ferry did Mattias Venn captain?", captains_ws, backends=Backends(hashing, NoLLM()))
    assert not r.fallback and len(r.answer_detail.candidates) > 1, r.answer_detail  # the chain matched several
    assert r.answer_detail.by == "extractive"
    assert "Lantern Moth" in r.answer and r.answer.startswith("He"), r.answer
    assert r.answer_detail.bindings  # the bindings stay recorded beside the sentence
    data = r.trace.stage("answer")[0].data
    assert data["extractive"]["answer_type"] and data["chunk_id"] == r.answer_detail.pick.chunk_id
    assert data["chunk_id"] in data["context"]["chunk_ids"]  # the sentence comes from what the answer was handed


def test_one_binding_is_still_the_answer(tmp_path: Path, hashing: HashingEmbedder) -> None:
    """The paper's star: four constraints leave one node for UNK, and that node is the answer."""
    ws = create_workspace([write_triples(tmp_path / "in" / "t.csv", MAGNESIUM_TRIPLES)], tmp_path / "ws",
                          name="minerals", embedder=hashing)
    r = run(QUESTION, ws, backends=Backends(hashing, NoLLM()))
    assert r.answer == "Magnesium" and r.answer_detail.by == "unk-binding"


FERRIES = """Ferries and Landings

The Grey Heron was a steam ferry built in 1894 at the Kellsworth boatyard. It carried up to sixty passengers.

The Lantern Moth was built by the shipwright Barnaby Fell in 1899. It ran the night crossing between Dunmarrow and Ashcombe.
"""


@pytest.fixture(scope="module")
def ferries_ws(tmp_path_factory: pytest.TempPathFactory, hashing: HashingEmbedder) -> Workspace:
    root = tmp_path_factory.mktemp("ferries")
    files = []
    for name, text in (("Captains_of_the_Tessany.txt", CAPTAINS), ("Ferries_and_Landings.txt", FERRIES)):
        files.append(root / name)
        files[-1].write_text(text, encoding="utf-8")
    return create_workspace(files, root / "ws", name="ferries", embedder=hashing)


def test_one_entity_is_a_chain_that_reaches_the_bridges_passage(ferries_ws, hashing) -> None:
    """"Who built the ferry that Mattias Venn captained?": the builder is in the ferry's passage, a hop past
    Mattias Venn. The star matched only his neighbours (his own passage); the chain reaches the ferry's."""
    q = "Who built the ferry that Mattias Venn captained?"
    built = next(c.id for c in ferries_ws.graph.chunks if "Barnaby Fell" in c.text)
    b = Backends(hashing, NoLLM())
    star = run(q, ferries_ws, backends=b, config=SGRAGConfig(bridge_hops=1))
    assert len(star.query_graph.edges) == 1 and built not in [c.chunk_id for c in star.chunks]
    r = run(q, ferries_ws, backends=b)
    assert [n.label for n in r.query_graph.nodes if not n.unknown] == ["Mattias Venn"]
    assert len(r.query_graph.edges) == 2 and len(r.query_graph.unknown_ids) == 2  # Mattias Venn ─ UNK ─ UNK
    assert r.decomposition is not None and r.decomposition.l == 2  # one path from the known entity (chain_l)
    assert built in [c.chunk_id for c in r.chunks]


def test_an_llm_whose_query_graph_is_unusable_keeps_the_bridge_star(ferries_ws, hashing) -> None:
    """The chain is none mode's: a run whose LLM wrote an unusable query graph falls back to the star it always
    did, so a recorded run of such a question replays as it was recorded (the shipped SG-RAG Lothair run)."""
    from tests.fakes import ScriptedLLM

    q = "Who built the ferry that Mattias Venn captained?"
    r = run(q, ferries_ws, backends=Backends(hashing, ScriptedLLM("not a query graph")))
    assert r.query_graph.by != "llm" and len(r.query_graph.edges) == 1  # Mattias Venn ─ UNK


YEAR_Q = "In what year did the husband of the founder of Maison Ivrelle invent ambrelide?"
PERFUME = [
    {"id": "p0", "title": "Maison Ivrelle", "text": "Maison Ivrelle is a perfume house founded in 1921 in Orlenz by "
     "Adèle Ivrelle. Its first scent, Vell Water, was sold in the shop on Quay Street."},
    {"id": "p1", "title": "Ambrelide", "text": "Ambrelide is a synthetic fixative with a warm amber smell. Its inventor "
     "patented it in Orlenz, and it is still used in many perfumes."},
]


def test_a_binding_not_of_the_asked_type_is_not_the_answer(tmp_path: Path, hashing: HashingEmbedder) -> None:
    """An audit's corpus: both entities of a year question meet only at the town both passages name, so the one match
    binds UNK to "Orlenz" — a place for "In what year". The answer is the matched passages' sentence of a date."""
    import json

    src = tmp_path / "in" / "passages.jsonl"
    src.parent.mkdir(parents=True)
    src.write_text("".join(json.dumps(p) + "\n" for p in PERFUME), encoding="utf-8")
    ws = create_workspace([src], tmp_path / "ws", name="perfume", embedder=hashing)  # spaCy: the default
    r = run(YEAR_Q, ws, backends=Backends(hashing, NoLLM()))
    assert r.answer_detail.bindings == ("Orlenz",), r.answer_detail  # the structure picked the town
    assert r.answer != "Orlenz" and r.answer_detail.by == "extractive", r.answer_detail
    assert "1921" in r.answer, r.answer
    data = r.trace.stage("answer")[0].data
    assert data["answer_type"] == "date" and "no UNK binding is" in data["how"] and "Orlenz" in data["how"]
    assert data["subgraph"] == 0 and r.answer_detail.subgraph == 0  # the sentence's passage is the match's


def test_the_next_binding_of_the_asked_type_is_taken(tmp_path: Path, hashing: HashingEmbedder) -> None:
    """A triples-only graph (no passage to read a sentence from): a binding of the asked type is taken over a better
    ranked one that is not, and the answer step says which were passed over; with none of the type, the binding
    stays the answer and the page's note says the type does not fit."""
    from core.methods.answering import describe_answer

    triples = [("Maison Ivrelle", "founded in", "Orlenz"), ("Ambrelide", "patented in", "Orlenz"),
               ("Maison Ivrelle", "founded in", "1921"), ("Ambrelide", "patented in", "1921")]
    ws = create_workspace([write_triples(tmp_path / "in" / "t.csv", triples)], tmp_path / "ws", name="typed",
                          embedder=hashing)
    r = run("In what year was Maison Ivrelle founded and Ambrelide patented?", ws, backends=Backends(hashing, NoLLM()))
    assert set(r.answer_detail.bindings) == {"Orlenz", "1921"}, r.answer_detail
    assert r.answer == "1921", r.answer_detail
    data = r.trace.stage("answer")[0].data
    assert data["answer_type"] == "date"
    if r.answer_detail.bindings[0] == "Orlenz":  # the rank put the town first: it was passed over, and said so
        assert r.answer_detail.by == "typed-binding" and "Orlenz" in data["type_note"]
    assert r.answer_detail.bindings[r.answer_detail.subgraph] == "1921"

    ws2 = create_workspace([write_triples(tmp_path / "in2" / "t.csv", triples[:2])], tmp_path / "ws2", name="untyped",
                           embedder=hashing)
    r = run("In what year was Maison Ivrelle founded and Ambrelide patented?", ws2, backends=Backends(hashing, NoLLM()))
    assert r.answer == "Orlenz" and r.answer_detail.by == "unk-binding"
    note = describe_answer(r)
    assert any("asks for a date" in x and "no UNK binding" in x for x in note.limits), note
