"""Audit 53's fencing corpus, by class rather than wording: "the <noun>" takes up the named thing of that kind before
it (a name headed by the noun, or one the text called one), never a person title for a thing."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_the_noun_is_the_named_thing_of_that_kind_before_it(ex):
    for text, doer, verb, wrong in (
            ("Brannock Fencing Academy\nThe Brannock Fencing Academy is a fencing school in Ostrevel. In 1931 the academy "
             "was bought by the Hallow Guild of Blades, which still owns it today. The guild appointed Marta Quill as "
             "head instructor in 1932.", "Hallow Guild of Blades", "appointed", "Brannock Fencing Academy"),
            ("Tarrow Mill\nTarrow Mill is a water mill near Dunmere. In 1902 the mill was sold to the Dunmere Society of "
             "Millers. The society hired Jonas Pell as miller in 1903.", "Dunmere Society of Millers", "hired",
             "Tarrow Mill"),
            ("Kestle Library\nKestle Library is a public library in Harvoy. The library was given to the Harvoy Council "
             "of Trades in 1920. The council named Ada Merrow librarian in 1921.", "Harvoy Council of Trades", "named",
             "Kestle Library"),
            ("Ostrevel Tournament\nThe Ostrevel Tournament is a fencing competition held in Ostrevel. The main prize of "
             "the tournament is the Drummel Sabre, a silver-hilted sword. The prize is named after Lord Ewan Drummel.",
             "Drummel Sabre", "named after", "Ostrevel Tournament"),
            ("Harvoy Regatta\nThe Harvoy Regatta is a rowing race held in Harvoy. The top trophy of the regatta is the "
             "Pellow Oar. The trophy was made by Anselm Pellow.", "Pellow Oar", "made by", "Harvoy Regatta"),
            ("Wexholm Show\nThe Wexholm Show is a cattle show. Its oldest award is the Tarn Bell, a brass bell. The "
             "award is named after Odran Tarn.", "Tarn Bell", "named after", "Wexholm Show")):
        got = triples(ex, text)
        assert any(h == doer and r == verb for h, r, _ in got), got
        assert not any(h == wrong and r == verb for h, r, _ in got), got


def test_a_work_is_never_the_person_title(ex):
    for text, work, verb, person in (
            ("Corinna Vale\nCorinna Vale was a painter of portraits. Her best known work, The Fencer at Rest, shows a "
             "young man with a sabre. The painting now hangs in the Ostrevel Town Gallery.", "Fencer", "hangs in",
             "Corinna Vale"),
            ("Jonas Pell\nJonas Pell was a sculptor. His finest piece, The Weeping Oak, shows a tree in winter. The "
             "statue now stands in the Harvoy Park.", "Weeping Oak", "stands in", "Jonas Pell"),
            ("Ada Merrow\nAda Merrow was a novelist. Her first novel, Salt and Iron, was printed in 1901. The novel was "
             "sold in the Kestle Bookshop.", "Salt and Iron", "sold in", "Ada Merrow"),
            ("Corinna Vale\nCorinna Vale was a painter of portraits. She was born in Lusk. The painting now hangs in the "
             "Ostrevel Town Gallery.", None, "hangs in", "Corinna Vale")):
        got = triples(ex, text)
        assert work is None or any(h == work and r == verb for h, r, _ in got), got
        assert not any(h == person and r == verb for h, r, _ in got), got


def test_a_persons_role_noun_is_no_named_thing_before_it(ex):
    got = triples(ex, "Valdane Shield\nThe Valdane Shield is a football cup. Marrow Town won it first in 1921. The winner "
                      "of the Shield keeps it for one year.")  # each year's winner, not the one named before
    assert not any(h == "Marrow Town" and r.startswith("keeps") for h, r, _ in got), got


def test_a_possessive_his_her_is_a_person_never_a_street_or_the_title(ex):
    for text, street, person in (
            ("Brannock Fencing Academy\nThe Brannock Fencing Academy is a fencing school in the town of Ostrevel. It was "
             "founded in 1884 by Aldric Brannock, a former cavalry instructor. The academy occupies a long hall on Varnet "
             "Lane, and Varnet Lane is named after him in the town records because his family once owned every house on "
             "it.", "Varnet Lane", "Aldric Brannock"),
            ("Tarrow Mill\nTarrow Mill is a water mill near Dunmere. It was built in 1820 by Jonas Pell, a miller. The "
             "mill stands on Pell Street, and Pell Street is named after him because his family once owned every shop on "
             "it.", "Pell Street", "Jonas Pell"),
            ("Kestle Library\nKestle Library is a public library in Harvoy. It was opened in 1901 by Ada Merrow, a "
             "teacher. The library stands in Merrow Square, which is named after her because her father once owned "
             "every house in it.", "Merrow Square", "Ada Merrow")):
        got = triples(ex, text)
        assert (street, "named after", person) in got, got
        assert not any(r.endswith(("owned on", "owned in")) for _, r, _ in got), got  # "every house on it": the house's


def test_the_first_winner_of_a_prize_not_the_title_was_y(ex):
    for text, person, role, prize, title in (
            ("Ostrevel Tournament\nThe Ostrevel Tournament is a fencing competition held in Ostrevel. The main prize of "
             "the tournament is the Drummel Sabre. The first winner of the Drummel Sabre was Ilse Marrow. She won it in "
             "1872 at the age of nineteen, the first person to do so.", "Ilse Marrow", "winner of", "Drummel Sabre",
             "Ostrevel Tournament"),
            ("Harvoy Regatta\nThe Harvoy Regatta is a rowing race held in Harvoy. Its top trophy is the Pellow Oar. The "
             "first holder of the Pellow Oar was Anselm Quarry. He won it again in 1890, the only rower to do so.",
             "Anselm Quarry", "holder of", "Pellow Oar", "Harvoy Regatta"),
            ("Wexholm Show\nThe Wexholm Show is a cattle show. Its oldest award is the Tarn Bell. The first recipient of "
             "the Tarn Bell was Odran Tarn. He won the Tarn Bell in 1901, the youngest farmer to win it.", "Odran Tarn",
             "recipient of", "Tarn Bell", "Wexholm Show")):
        got = triples(ex, text)
        assert (person, role, prize) in got, got
        assert (title, "was", person) not in got, got
        assert not any(r == "won" and t in ("first person", "only rower", "youngest farmer") for _, r, t in got), got


def test_a_copulas_node_predicate_keeps_its_time(ex):
    for text, person, rel, when in (
            ("Brannock Fencing Academy\nThe Brannock Fencing Academy is a fencing school in Ostrevel. Marta Quill was the "
             "head instructor for eighteen years.", "Marta Quill", "was head instructor for", "eighteen years"),
            ("Tarrow Mill\nTarrow Mill is a water mill near Dunmere. Jonas Pell was the chief miller for ten years.",
             "Jonas Pell", "was chief miller for", "ten years"),
            ("Kestle Library\nKestle Library is a public library in Harvoy. Ada Merrow was the head librarian until "
             "1930.", "Ada Merrow", "was head librarian until", "1930")):
        got = triples(ex, text)
        assert (person, rel, when) in got, got  # not "was for · eighteen years": the time's state lost


def test_the_elder_and_the_younger_are_the_children_not_the_title(ex):
    for text, title in (
            ("Aldric Brannock\nAldric Brannock was a cavalry instructor and fencing master. His sons did not follow him "
             "into fencing; the elder became a physician and the younger a grain merchant in the town of Lusk.",
             "Aldric Brannock"),
            ("Jonas Pell\nJonas Pell was a miller in Dunmere. His daughters did not take over the mill; the elder became "
             "a teacher in Harvoy and the younger a nurse.", "Jonas Pell"),
            ("Odran Tarn\nOdran Tarn was a farmer near Wexholm. His brothers did not stay on the farm; the elder became "
             "a blacksmith in Harvoy and the younger a carter.", "Odran Tarn")):
        got = triples(ex, text)
        assert not any(h == title and r.startswith("became") for h, r, _ in got), got  # the sons became these
        assert not any(t.startswith("younger") for _, _, t in got), got
