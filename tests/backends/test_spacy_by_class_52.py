"""Audit 52's cider-house corpus, by class rather than wording: a "he"/"him"/"his"/"her" stands for a person, never for
a place, firm, prize or building title (the nearest person named before it, else no edge)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_personal_pronoun_is_never_a_things_title(ex):
    got = triples(ex, "Skelby\nSkelby is a hamlet in the Marrow hills, about nine miles west of Wexholm. Skelby is known "
                      "for its orchards of Sallow Pippin apples, which are sold to the cider makers of Wexholm. The cider "
                      "maker Odran Pellew was born in Skelby in 1829. Pellew Row, the hamlet's only street of houses, is "
                      "named after him.")
    assert ("Pellew Row", "named after", "Odran Pellew") in got, got
    assert ("Pellew Row", "named after", "Skelby") not in got, got
    got = triples(ex, "Brannock Cider House\nThe Brannock Cider House is a cider maker in the market town of Wexholm. "
                      "Today the Brannock Cider House employs forty people and sells cider across the northern valleys. "
                      "A small museum in the tithe barn shows the coopers' tools that Odran Pellew brought from his "
                      "workshop, and the ledger in which he recorded his first sale of cider in the spring of 1862.")
    assert not any(h == "Brannock Cider House" and r.startswith("recorded") for h, r, _ in got), got
    got = triples(ex, "Harlow Bridge\nHarlow Bridge is a village on the river Esk. The weaver Maud Ashby was born there "
                      "in 1790. The village green is named after her.")
    assert ("village green", "named after", "Maud Ashby") in got, got
    got = triples(ex, "Orrin Mill\nOrrin Mill is a water mill on the Tarrow brook. The miller Jossa Wren worked there "
                      "from 1820. The mill pond is named after her.")  # "Orrin" is a given name: the text's kind wins
    assert ("mill pond", "named after", "Jossa Wren") in got, got
    got = triples(ex, "Varrow Tannery\nThe Varrow Tannery is a leather works in Kessock. It was founded in 1840 by Odran "
                      "Quell, a saddler. Today the Varrow Tannery employs twenty people. A case in the office shows the "
                      "knives that Odran Quell brought from his shop, and the book in which he wrote his first order.")
    assert ("Odran Quell", "wrote", "first order") in got, got  # "a saddler" makes him a person


def test_a_participle_after_a_noun_is_the_nouns_not_the_subjects(ex):
    for text, wrong in (
            ("Skelby\nSkelby is a hamlet in the Marrow hills. The hamlet has a small school, opened in 1871, and a fair "
             "held every May since 1850.", ("Skelby", "held since", "1850")),
            ("Tollmere\nThe village of Tollmere lies in the hills. The hamlet has a small church, opened in 1871, and a "
             "fair held every October since 1601.", ("Tollmere", "held since", "1601")),
            ("Orrin\nThe village of Orrin lies in the hills. The hamlet has a small forge, opened in 1871, and a fair "
             "held every March since 1702.", ("Orrin", "held since", "1702"))):
        got = triples(ex, text)
        assert wrong not in got, got  # "a fair held": the fair's date, no subject's


def test_a_relative_clause_after_n1_on_the_place_noun_is_n1s(ex):
    for text, place in (
            ("Thornbury Gate\nThornbury Gate is a village on the edge of the Marrow hills. The village has a mill on the "
             "Tarrow brook that ground corn until 1931.", "Tarrow brook"),
            ("Harlow Bridge\nHarlow Bridge is a village near Kessock. The village has a forge on the Esk river that made "
             "nails until 1902.", "Esk river"),
            ("Dunmere\nDunmere is a village in the hills. The village has an inn on the Tarrow road that sold ale until "
             "1931.", "Tarrow road")):
        got = triples(ex, text)
        assert not any(h == place for h, _, _ in got), got  # the mill ground corn, not the brook


def test_a_participle_after_a_comma_is_its_objects(ex):
    got = triples(ex, "Brannock Cider House\nThe Brannock Cider House is a cider maker in the market town of Wexholm. "
                      "Since 1930 the house has sponsored the Hollin Cup, awarded each autumn at the Wexholm fair.")
    assert ("Hollin Cup", "awarded at", "Wexholm fair") in got, got
    assert ("Brannock Cider House", "awarded at", "Wexholm fair") not in got, got
    got = triples(ex, "Kell Mills\nKell Mills is a firm in Dunmere. Since 1920 the firm has funded the Ashby Cup, awarded "
                      "each summer at the Dunmere regatta.")
    assert ("Ashby Cup", "awarded at", "Dunmere regatta") in got, got
    got = triples(ex, "Tollan Press\nTollan Press is a publisher in Kessock. Since 1950 the firm has sponsored the Tarn "
                      "Medal, given each winter at the Kessock book fair.")
    assert not any(h == "Tollan Press" and r.startswith("given") for h, r, _ in got), got


def test_the_fair_is_the_named_fair_before_it(ex):
    for title, text, named, date in (
            ("Hollin Cup", "The Hollin Cup is a prize for cider makers, awarded every autumn at the Wexholm fair. It was "
             "established in 1930 and has been sponsored since then by the Brannock Cider House. The fair was started in "
             "1788 by the merchant Ludo Farran, who wanted a market for the apples of the valley.", "Wexholm fair", "1788"),
            ("Tarn Medal", "The Tarn Medal is a prize for rowers, awarded every summer at the Kessock regatta. It was "
             "established in 1901 by the Linnet Press. The regatta was started in 1850 by the boatman Piran Staddle, who "
             "wanted a race for the fishermen.", "Kessock regatta", "1850"),
            ("Ashby Shield", "The Ashby Shield is an award for fiddlers, given each spring at the Dunmere festival. It was "
             "first given in 1922. The festival was founded in 1870 by the vicar Osric Hale.", "Dunmere festival", "1870")):
        got = triples(ex, f"{title}\n{text}")
        assert any(h == named and t == date for h, _, t in got), got  # the named fair, not "fair of <title>"
        assert not any(h.endswith(f"of {title}") for h, _, _ in got), got


def test_a_and_b_surname_share_the_surname(ex):
    for text, names in (
            ("Stask Atlas Works\nThe Stask Atlas Works was a publisher of school atlases based in Pellacombe. It was "
             "founded in 1878 by the brothers Lemuel and Gad Stask, who had worked as engravers in the capital.",
             ("Lemuel Stask", "Gad Stask")),
            ("Brisk Weaving Sheds\nThe Brisk Weaving Sheds were a cloth works in Varrow. They were founded in 1851 by the "
             "sisters Orla and Mave Brisk, who had worked as weavers in Kessock.", ("Orla Brisk", "Mave Brisk")),
            ("Marrow Studio\nThe Marrow Studio is a glass workshop in Dunmere. It was opened in 1902 by John and Mary "
             "Marrow, who had trained in Venice.", ("John Marrow", "Mary Marrow"))):
        got = triples(ex, text)
        for name in names:
            assert any(t == name and r.endswith(" by") for _, r, t in got), got
        assert not any(t == names[0].split()[0] and r.endswith(" by") for _, r, t in got), got


def test_the_first_winner_was_is_no_prizes_copula(ex):
    got = triples(ex, "Garrow Medal\nThe Garrow Medal is an award given by the Calderane Geographical Society. The first "
                      "winner of the Garrow Medal was Perrin Oakhurst, for a chart he drew at Kettlemoor.")
    assert ("Perrin Oakhurst", "winner of", "Garrow Medal") in got, got
    assert ("Garrow Medal", "was", "Perrin Oakhurst") not in got, got
    got = triples(ex, "Orlen Cup\nThe Orlen Cup is an award given by the Dunmere Angling Club. The first holder of the "
                      "Orlen Cup was Tamsin Oakhurst, for a salmon she landed at Tarrow.")
    assert ("Tamsin Oakhurst", "holder of", "Orlen Cup") in got, got
    assert ("Orlen Cup", "was", "Tamsin Oakhurst") not in got, got
    got = triples(ex, "Kell Shield\nThe Kell Shield is an award given by the Varrow Rowing Society. The first winner of "
                      "the Kell Shield was Perrin Hollowell, for a race he rowed at Kessock.")
    assert ("Kell Shield", "was", "Perrin Hollowell") not in got, got


def test_a_surname_subject_after_the_full_name_is_that_person(ex):
    for title, text, short in (
            ("Orlen Map Company", "The Orlen Map Company is a cartography firm founded in 1871 by Tamsin Vell in the town "
             "of Grisholt. Vell had trained as a surveyor before she opened a small drawing office above a baker's shop "
             "on Grisholt's market square.", "Vell"),
            ("Dunmere Chart Company", "The Dunmere Chart Company is a printing firm founded in 1902 by Tamsin Quell in the "
             "town of Varrow. Quell had worked as an engraver before she opened a small drawing office.", "Quell"),
            ("Selka Globes", "Selka Globes is a globe firm founded in 1866 by Tamsin Orrel in the port of Kessock. Orrel "
             "had trained as a joiner before she opened a workshop by the harbour.", "Orrel")):
        got = triples(ex, f"{title}\n{text}")
        assert (title, "mentions", short) not in got, got  # "Vell" is Tamsin Vell, no node of its own
