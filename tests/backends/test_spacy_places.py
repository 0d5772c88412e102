"""A place a description hangs on ("a painter from the port city of X", "a funicular in X harbour"), a place's unnamed
thing as a subject ("A hotel at its summit was built by …") and the role a "became" takes before its date — readings
an audit's KG check found missing or garbled on its mountain-railway corpus."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_profession_from_a_place_is_the_persons_origin(ex):
    got = triples(ex, "Mirren Hale\nMirren Hale was a weaver from the river town of Dunstow. She married Jory Pike.")
    assert ("Mirren Hale", "from", "Dunstow") in got, got
    got = triples(ex, "Mirren Hale\nMirren Hale, a potter from Lanford, married Jory Pike in 1890.")
    assert ("Mirren Hale", "from", "Lanford") in got, got
    # a person is no origin: "a gift from …" names the giver
    got = triples(ex, "Corla Brooch\nThe Corla Brooch was a gift from Edwin Marsh to his sister.")
    assert not any(r == "from" for _, r, _ in got), got


def test_a_thing_described_in_a_place_is_located_there(ex):
    got = triples(ex, "Tern Lift\nThe Tern Lift was a short cliff railway in Porthwen harbour. It was built in 1893.")
    assert ("Tern Lift", "located in", "Porthwen") in got, got
    got = triples(ex, "Abbotsley\nAbbotsley is a village in Cambridgeshire.")
    assert ("Abbotsley", "located in", "Cambridgeshire") in got, got
    # a firm is a thing even where the small model read its name as a man's
    got = triples(ex, "Tobin Marsh Electric\nTobin Marsh Electric was an electrical firm in Lanford.")
    assert ("Tobin Marsh Electric", "located in", "Lanford") in got, got
    # a person described in a place is not located there
    got = triples(ex, "Mirren Hale\nMirren Hale was a teacher in Cambridgeshire.")
    assert not any(r == "located in" for _, r, _ in got), got


def test_a_places_unnamed_thing_keeps_its_builder(ex):
    got = triples(ex, "Mount Arvel\nMount Arvel rises above the village of Low Dene. A chapel at its top was built "
                      "by the Arvel Quarry Company in 1872.")
    assert ("Mount Arvel", "chapel built by", "Arvel Quarry Company") in got, got


def test_became_with_a_date_names_the_role(ex):
    got = triples(ex, "Jory Pike\nJory Pike was born in Lanford in 1851 and became chairman of the Lanford Bank "
                      "in 1899.")
    assert not any(r == "became in" for _, r, _ in got), got
    assert ("Jory Pike", "became chairman in", "1899") in got, got
    assert ("Jory Pike", "chairman of", "Lanford Bank") in got, got


def test_a_compass_point_of_a_place_is_a_located_relation_not_a_node(ex):
    """"a moorland parish west of Dunmere" gave a node "moorland parish west" and "west of" from it: the compass point
    is where the subject lies from the place."""
    got = triples(ex, "Dunmere\nHolloway is a moorland parish west of Dunmere.")
    assert ("Holloway", "located west of", "Dunmere") in got, got
    assert not any(w in n for n in nodes(got) for w in ("west", "north")), got
    got = triples(ex, "Ada Kell\nHolloway is a small moorland parish north-west of Dunmere. Brant lies 3 miles south of "
                      "Dunmere. Kestle, a village 5 km north of Dunmere, has a mill.")
    assert {("Holloway", "located north-west of", "Dunmere"), ("Brant", "lies south of", "Dunmere"),
            ("Kestle", "located north of", "Dunmere")} <= got, got
    assert not any(w in n for n in nodes(got) for w in ("west", "north", "south")), got


def test_a_towns_station_is_its_own_node_not_the_town(ex):
    """"The station is on the Yellow Line" in a city's passage read as the city (a definite description is the title):
    an audit's KG had "New Delhi · located on · Yellow Line". The station is the one the text named, or no node."""
    got = triples(ex, "New Delhi\nNew Delhi is the capital of India. The station is on the Yellow Line.")
    assert not any(h == "New Delhi" and r.endswith(" on") for h, r, _ in got), got
    got = triples(ex, "Varn\nVarn is a town in Osk. Varn station lies on the Amber line. The station opened in 1901.")
    assert ("Varn station", "lies on", "Amber line") in got and ("Varn station", "opened in", "1901") in got, got
    assert not any(h == "Varn" and r in ("opened in", "lies on", "is on") for h, r, _ in got), got
    # a title the text calls a station is the station
    got = triples(ex, "Kell Road\nKell Road is a metro station on the Amber Line. The station opened in 2005.")
    assert ("Kell Road", "opened in", "2005") in got, got


def test_a_compass_point_hung_on_a_road_or_range_is_the_subjects(ex):
    # MuSiQue: the parser hung "north of Iaeger" on the road, "west of Buls Bay" on the range (v26's first reading gave
    # "U.S. Route · located north of · Iaeger")
    got = triples(ex, "Johnnycake\nJohnnycake is an unincorporated community. Johnnycake is located on U.S. Route 52 "
                      "north of Iaeger.")
    assert ("Johnnycake", "located north of", "Iaeger") in got, got
    assert not any(r.endswith("north of") and h != "Johnnycake" for h, r, _ in got), got
    got = triples(ex, "Raft Mountain\nRaft Mountain is a mountain in British Columbia, Canada, located north-east of "
                      "Clearwater.")
    assert ("Raft Mountain", "located north-east of", "Clearwater") in got, got
    assert not any(r == "located east of" or "east" in t for _, r, t in got), got


def test_a_station_the_title_is_called_stays_the_title(ex):
    # MuSiQue: "WYAV is a Classic Rock radio station …. The station goes by the name Wave": the description is no name
    got = triples(ex, "WYAV\nWYAV is a Classic Rock radio station licensed to Myrtle Beach. The station goes by the name "
                      "Wave 104.1.")
    assert ("WYAV", "goes by", "Wave") in got, got
    assert not any(h.endswith("radio station") for h, _, _ in got), got


def test_a_compass_point_after_a_founded_thing_is_the_things(ex):
    # the audit's corpus: the observatory lies north of Drennick, not its founder
    got = triples(ex, "Halvard Teskin\nIn 1902 Teskin founded the Mirelund Observatory on the Mirelund ridge, about "
                      "forty kilometres north of Drennick.")
    assert ("Mirelund Observatory", "located north of", "Drennick") in got, got
    assert not any(h == "Halvard Teskin" and "north" in r for h, r, _ in got), got


def test_a_station_named_by_a_compound_description_stays_the_title(ex):
    # MuSiQue's CHIQ-FM: the parser made "station" a compound of "broadcasting"; v26's first reading lost the triple
    got = triples(ex, "CHIQ-FM\nCHIQ-FM is a Canadian radio station broadcasting at 94.3 FM in Winnipeg, Manitoba. The "
                      "station broadcasts a classic rock format branded as 94-3 The Drive.")
    assert ("CHIQ-FM", "broadcasts", "classic rock format") in got, got
