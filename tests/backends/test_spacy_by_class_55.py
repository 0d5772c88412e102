"""Audit 55's railway corpus, by class rather than wording: a plural or unnamed "the <noun>" subject is not the
passage's title, and "its" is the nearest thing of its kind before it, not the title."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_plural_the_noun_subject_is_not_the_title(ex):
    for text, title, verb in (
            ("Corrick Ironworks\nIn 1928 it was sold to the Hesketh Transport Group, which closed the locomotive shop in "
             "1951. The last apprentices, among them Juno Abernathy's teacher, Walter Pym, moved to the railway "
             "workshops at Eskerby.", "Corrick Ironworks", "moved to"),
            ("Hallow Guild of Blades\nThe Hallow Guild of Blades kept its records in the town hall. The ledgers fill two "
             "rooms and date from 1702.", "Hallow Guild of Blades", "fill"),
            ("Dunmere Brewery\nDunmere Brewery made ale for a century. The old casks were sold to a farmer in Pellow "
             "in 1960.", "Dunmere Brewery", "sold to"),
            ("Kestle Library\nKestle Library is a public library in Harvoy. In 1950 the first readers borrowed three "
             "thousand books. The readers came from Harvoy and Tarrow.", "Kestle Library", "came from")):
        got = triples(ex, text)
        assert not any(h == title and r == verb for h, r, _ in got), got


def test_a_plural_subject_of_the_titles_own_word_stays_the_title(ex):
    got = triples(ex, "Revolutions of 1848\nThe revolutions began in Sicily and spread to France.")
    assert ("Revolutions of 1848", "began in", "Sicily") in got, got
    got = triples(ex, "Corrick Ironworks\nThe works closed completely in 1974.")
    assert ("Corrick Ironworks", "closed in", "1974") in got, got


def test_a_thing_the_noun_is_not_the_person_title(ex):
    for text, person, verb in (
            ("Ansel Brisk\nBrisk designed the rack section above Quarrow himself. He modelled it on a line he had seen "
             "in Switzerland. The rack was made by the Corrick Ironworks, whose owner, Elias Corrick, was an old friend "
             "from the Mechanics' Institute.", "Ansel Brisk", "made by"),
            ("Ida Marsh\nIda Marsh was a bell founder. She cast the great bell of Tarrow in 1890. The frame was forged "
             "by the Pellow Foundry.", "Ida Marsh", "forged by"),
            ("Tomas Wren\nTomas Wren was a shipwright. He drew the plans for a schooner in 1901. The hull was built by "
             "Harvoy Yards at Dunmere.", "Tomas Wren", "built by")):
        got = triples(ex, text)
        assert not any(h == person and r == verb for h, r, _ in got), got


def test_a_person_the_noun_stays_the_person_title(ex):
    got = triples(ex, "Marga Holt\nMarga Holt was born in Bremen. She was a glass chemist. The family moved to Jena "
                      "in 1922.")
    assert ("Marga Holt", "moved to", "Jena") in got, got


def test_its_is_the_nearest_thing_before_it(ex):
    for text, person, right, wrong in (
            ("Corrick Ironworks\nThe works closed completely in 1974. The site is now the Halverton Industrial Museum, "
             "opened in 1981 by the Orlen County Council. Its director is the historian Fenna Oyelaran.",
             "Fenna Oyelaran", "Halverton Industrial Museum", "Corrick Ironworks"),
            ("Hollin Dye Works\nThe yard is now the Quarry Lane Gallery, run by the town council since 1990. Its curator "
             "is the painter Mara Stenning.", "Mara Stenning", "Quarry Lane Gallery", "Hollin Dye Works")):
        got = triples(ex, text)
        assert (person, "director of" if "director" in text else "curator of", right) in got, got
        assert not any(h == person and t == wrong and r != "mentions" for h, r, t in got), got
    for text, person, title in (
            ("Wexley Textiles\nThe company closed the mill in 1933 after its owner, Ruth Dorsey, died.", "Ruth Dorsey",
             "Wexley Textiles"),
            ("Brannock Brewery\nThe brewery sold the tavern in 1950 when its landlord, Amos Keel, retired.", "Amos Keel",
             "Brannock Brewery"),
            ("Harvoy Council\nThe council sold the quarry in 1921 after its manager, Jonas Pell, left.", "Jonas Pell",
             "Harvoy Council")):
        got = triples(ex, text)
        assert not any(h == person and t == title and r != "mentions" for h, r, t in got), got


def test_its_after_a_copula_to_a_common_noun_stays_the_title(ex):
    got = triples(ex, "Speed (1994 film)\nSpeed is a 1994 film. Its director is Jan de Bont.")
    assert ("Jan de Bont", "director of", "Speed (1994 film)") in got, got


def test_her_after_a_man_and_a_woman_is_the_woman(ex):
    for text, woman, man in (
            ("Oskar Feldane\nIn 2001 he handed the chairmanship to the accountant Dalia Mendes. Feldane married the painter "
             "Sunniva Rask in 1970; her watercolours of the line hang in the Pass Hotel.", "Sunniva Rask", "Oskar Feldane"),
            ("Jonas Pell\nHe was a farmer. Pell married the singer Ada Marsh in 1950; her songs were recorded by the "
             "Harvoy Choir.", "Ada Marsh", "Jonas Pell"),
            ("Tomas Wren\nHe was a shipwright. Wren married the poet Ilse Brandvik in 1901; her poems were printed by the "
             "Kestle Press.", "Ilse Brandvik", "Tomas Wren")):
        got = triples(ex, text)
        assert not any(h == man and ("watercolours" in r or "songs" in r or "poems" in r) for h, r, _ in got), got
        if "Feldane" not in text:  # "hang" read as a noun there: the small model's tagger (left)
            assert any(h == woman and ("songs" in r or "poems" in r) for h, r, _ in got), got


def test_an_in_law_is_no_blood_relative(ex):
    for text, kin, relative, word in (
            ("Ansel Brisk\nHe married Hedda Lorimer. His brother-in-law, Piet Lorimer, became the railway's first "
             "stationmaster at Tollmere.", "Piet Lorimer", "Ansel Brisk", "brother"),
            ("Ada Marsh\nShe ran a shop in Harvoy. Her sister-in-law Ilse Brandvik kept the books.", "Ilse Brandvik",
             "Ada Marsh", "sister"),
            ("Tomas Wren\nTomas Wren was a shipwright. Piet Lorimer was the brother-in-law of Tomas Wren.", "Piet Lorimer",
             "Tomas Wren", "brother")):
        got = triples(ex, text)
        assert (kin, f"{word}-in-law of", relative) in got, got
        assert (kin, f"{word} of", relative) not in got, got


def test_a_noun_inside_a_list_is_no_verb(ex):
    for text, title, word in (
            ("Corrick Ironworks\nIt was founded in 1862 by Elias Corrick, a former blacksmith, and built pumps, bridges, "
             "rack rails and small steam locomotives.", "Corrick Ironworks", "rack"),
            ("Marsh Ropeworks\nIt was founded in 1870 by Ida Marsh and made ropes, nets, hoist chains and small boats.",
             "Marsh Ropeworks", "hoist"),
            ("Pell Stores\nIt was opened in 1890 by Jonas Pell and sold lamps, stoves, cook pots and garden tools.",
             "Pell Stores", "cook")):
        got = triples(ex, text)
        assert (title, "founded by" if "founded" in text else "opened by", text.split(" by ")[1].split(",")[0].split(
            " and")[0]) in got, got
        assert not any(h == title and r.split()[0] == word for h, r, _ in got), got


def test_a_title_with_a_verb_in_it_is_a_name(ex):
    for text, verb in (
            ("Oskar Feldane\nFeldane has written two books: a guide to walks along the line, and a biography of the "
             "founder, The Man Who Climbed the Varnholt, about Ansel Brisk.", "climbed"),
            ("Ida Marsh\nShe was a playwright. She wrote the play The Night They Sold the Farm in 1930.", "sold"),
            ("Tomas Wren\nHe was a director. He directed the film The Day They Burned the Mill in 1965.", "burned")):
        got = triples(ex, text)
        assert not any(r.split()[0] == verb for _, r, _ in got), got


def test_a_conjoined_object_is_the_verbs_not_the_prepositions(ex):
    for text, title, verb, thing in (
            ("Corrick Ironworks\nThe works also built the iron footbridge over the Sable at Halverton and the winding gear "
             "of the Kessing Quarry.", "Corrick Ironworks", "built", "winding gear"),
            ("Pellow Works\nThe firm also made the stone bridge over the Tarrow at Dunmere and the water wheel of the "
             "Pellow Mill.", "Pellow Works", "made", "water wheel")):
        got = triples(ex, text)
        assert (title, verb, thing) in got, got
        assert not any(h == title and r.startswith(verb + " ") and t == thing for h, r, t in got), got


def test_a_noun_named_a_name_is_no_naming_by_the_place_before(ex):
    got = triples(ex, "Ansel Brisk\nAnsel Brisk (1849–1921) was a civil engineer born in Halverton, the son of a "
                      "clockmaker named Tobias Brisk.")
    assert ("Halverton", "named", "Tobias Brisk") not in got, got
    assert ("Ansel Brisk", "born in", "Halverton") in got, got


def test_a_work_by_a_maker_links_the_work_to_its_maker(ex):
    for text, work, noun, maker in (
            ("The Fencer at Rest\nThe Fencer at Rest is a painting by Ilse Drummel.", "The Fencer at Rest", "painting",
             "Ilse Drummel"),
            ("Salt and Iron\nSalt and Iron is a 1901 novel by Ada Marsh. It was printed in Harvoy.", "Salt and Iron",
             "novel", "Ada Marsh"),
            ("Grey Harbour\nGrey Harbour, a song by Jonas Pell, was recorded in 1960.", "Grey Harbour", "song",
             "Jonas Pell")):
        got = triples(ex, text)
        assert (work, f"{noun} by", maker) in got, got
