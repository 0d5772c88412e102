"""Round 62, the spaCy extractor's residue after audits 55 and 56, by class rather than wording: a "he" after a
subject whose own object is "him" is that "him", and a "her" is never the title the text called "he" (a pronoun pair
read the wrong way round); a capitalised "The X Who <Verb> …" run is one work's title, not a node "X"."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_pronoun_pair_is_not_read_the_wrong_way_round(ex):
    for text, writer, reader, verb in (
            ("Tobin Ashgrove\nTobin Ashgrove (1861–1933) was an astronomer. He was born in Brisa Hollow. Ismene Vartan "
             "took him on as an assistant in 1880, after he wrote to her about a comet he had seen.",
             "Tobin Ashgrove", "Ismene Vartan", "wrote to"),
            ("Enna Roth\nEnna Roth was a weaver. She grew up in Lund. In 1890 Marten Vole invited her to Oslo because "
             "she had written to him.", "Enna Roth", "Marten Vole", "written to"),
            ("Pell Marsh\nPell Marsh was a potter. He was born in Wick. Corra Tane hired him as a glazer in 1902, "
             "after he had sent letters to her.", "Pell Marsh", "Corra Tane", "sent to")):
        got = triples(ex, text)
        assert not any(h == reader and t == writer for h, r, t in got if r.split()[-1] == "to"), got
        assert (writer, verb, reader) in got, got


def test_a_her_is_never_the_title_the_text_called_he(ex):
    for text, woman, title in (
            ("Tobin Ashgrove\nTobin Ashgrove was an astronomer. He was born in Brisa Hollow. In 1880 he wrote to Ismene "
             "Vartan, and he became her deputy in 1891.", "Ismene Vartan", "Tobin Ashgrove"),
            ("Edwin Harrow\nEdwin Harrow was a printer. He was born in York. In 1868 he met Hanna Dale, and he "
             "became her partner in 1870.", "Hanna Dale", "Edwin Harrow"),
            ("Edwin Harrow\nEdwin Harrow was a printer. He was born in York. He married Hanna Dale in 1868 and later "
             "became her partner.", "Hanna Dale", "Edwin Harrow")):
        got = triples(ex, text)
        assert not any(r.endswith(" of") and t == title and h == title for h, r, t in got), got
        assert any(h == title and t == woman and r.endswith(" of") for h, r, t in got), got


def test_a_capitalised_title_with_a_relative_clause_is_one_name(ex):
    for text, work, verb, who in (
            ("Harbour Mill\nThe company closed the mill in 1933. The Boy Who Painted the Moon was published by Hal Voss "
             "in 1960.", "Boy Who Painted the Moon", "published by", "Hal Voss"),
            ("Orla Penn\nOrla Penn wrote plays. The Girl Who Sailed Away was staged by Tom Reed in 1922.",
             "Girl Who Sailed Away", "staged by", "Tom Reed"),
            ("Kessel Press\nIn 1951 Ada Marsh edited The House Which Walked for the Kessel Press.",
             "House Which Walked", "edited", "Ada Marsh")):
        got = triples(ex, text)
        assert (work, verb, who) in got or (who, verb, work) in got, got
        first = work.split()[0]
        assert not any(first in (h, t) for h, r, t in got), got


def test_a_lower_case_relative_clause_stays_a_clause(ex):
    got = triples(ex, "Ida Brand\nIda Brand met the boy who painted the fence in 1950. The boy who sailed away was "
                      "found by Tom Reed.")
    assert not any("Who" in h or "Who" in t or "who" in h or "who" in t for h, r, t in got), got


def test_a_participle_with_an_agent_is_no_word_of_a_listed_noun(ex):
    for text, title, thing, verb, agent in (
            ("Calmouth Museum of Science\nThe Calmouth Museum of Science is a museum on Quay Street in Calmouth. The "
             "collection holds the drawings of the Dorran workshop, a spare lens ground by Hester Quill, and the "
             "notebooks that Ismene Vartan's family lent in 1950.", "Calmouth Museum of Science", "spare lens",
             "ground by", "Hester Quill"),
            ("Vell Museum\nThe Vell Museum is a museum in Dunmere. The room shows the tools of the Vell workshop, a small "
             "lens ground by Ada Fenn, and the letters that her son wrote.", "Vell Museum", "small lens", "ground by",
             "Ada Fenn"),
            ("Tarn Archive\nThe Tarn Archive is an archive in Selby. The archive holds the papers of the Tarn mill, a "
             "spare wheel cast by Ned Carr, and the books that Ida kept.", "Tarn Archive", "spare wheel", "cast by",
             "Ned Carr")):
        got = triples(ex, text)
        assert (thing, verb, agent) in got and any(h == title and t == thing for h, r, t in got), got
        word = verb.split()[0]
        assert not any(t.endswith(" " + word) or h.endswith(" " + word) for h, r, t in got), got


def test_a_work_by_its_maker_stays_a_noun(ex):
    got = triples(ex, "Brun Hall\nThe Brun Hall is a hall in Lund. The hall shows a bronze statue by Tom Pike and a "
                      "stone bust by Ada Fenn.")
    assert ("Brun Hall", "shows", "bronze statue") in got and ("Brun Hall", "shows", "stone bust") in got, got


def test_a_her_reaches_a_person_two_sentences_back_where_none_is_nearer(ex):
    for text, kin, relation, owner in (
            ("Harbour Mill\nThe company closed the mill in 1933 after its owner, Ruth Dorsey, died. The apprentices "
             "moved to Selby in 1934. Her sister-in-law, Mara Quist, ran the inn at Selby.", "Mara Quist",
             "sister-in-law of", "Ruth Dorsey"),
            ("Quay Forge\nThe forge was bought by Tom Reed in 1920. Its smiths moved to Wendle that year. His nephew "
             "Karl Brack opened a bakery in Wendle.", "Karl Brack", "nephew of", "Tom Reed"),
            ("Tarn Brewery\nThe brewery was run by Ada Voss until 1950. The brewers went to Ostby in 1951. Her "
             "daughter-in-law, Lena Morr, kept the shop at Ostby.", "Lena Morr", "daughter-in-law of", "Ada Voss")):
        got = triples(ex, text)
        assert (kin, relation, owner) in got, got
        assert not any(h == kin and r == relation and t != owner for h, r, t in got), got


def test_he_and_her_in_one_clause_are_two_people(ex):
    for text, doer, verb, other in (
            ("Lena Hart\nLena Hart was a singer. She was born in Lund. Karl Moss ran a club in Oslo. He hired her in "
             "1950.", "Karl Moss", "hired", "Lena Hart"),
            ("Karl Vint\nKarl Vint was a sailor. His captain, Ida Roe, trusted him. She promoted him in 1880 after he "
             "saved her ship.", "Ida Roe", "promoted", "Karl Vint"),
            ("Anna Brook\nAnna Brook was a violinist. Her teacher was Paul Wren. He gave her lessons in Vienna. She "
             "married him in 1901.", "Anna Brook", "married", "Paul Wren")):
        got = triples(ex, text)
        assert (doer, verb, other) in got and (other, verb, doer) not in got, got


def test_a_he_and_her_in_a_song_name_no_one(ex):
    got = triples(ex, "Blue Lantern\nBlue Lantern is a song by Tom Vell. Joe Marr played guitar on it. The singer says "
                      "that without her, he would die.")
    assert not any(r.startswith("die") for h, r, t in got), got


def test_an_object_her_reaches_two_sentences_back_in_a_persons_passage(ex):
    for text, doer, verb, other in (
            ("Tobin Ashgrove\nIsmene Vartan took him on as an assistant in 1880, after he wrote to her about a comet he "
             "had seen. He studied at night and became her deputy in 1891. He succeeded her as director in 1902.",
             "Tobin Ashgrove", "succeeded", "Ismene Vartan"),
            ("Karl Moss\nLena Hart hired him as a printer in 1870, after he wrote to her. He worked at night and became "
             "her foreman. He married her in 1875.", "Karl Moss", "married", "Lena Hart")):
        got = triples(ex, text)
        assert (doer, verb, other) in got and (other, verb, doer) not in got, got


def test_a_her_stays_the_title_where_no_he_before_it_was_the_title(ex):
    got = triples(ex, "Ruth Kell\nRuth Kell was a nurse. Tom Kell, her brother, visited her in 1915. He brought her "
                      "letters from home.")
    assert ("Tom Kell", "brother of", "Ruth Kell") in got and ("Tom Kell", "visited", "Ruth Kell") in got, got


def test_a_her_two_sentences_back_needs_one_person_named_before(ex):
    got = triples(ex, "Tarn Brewery\nThe brewery was run by Ada Voss until 1950. Then Tom Hale bought it. The brewers "
                      "went to Ostby in 1951. Her daughter Lena Morr kept the shop at Ostby.")
    assert not any(h == "Lena Morr" and r == "daughter of" for h, r, t in got), got
