"""A copula's own preposition keeps the predicate its time or place belongs to (audit 52 read "odran pellew · was for ·
twelve years" and "hollin cup · been since · 1975": the membership and the openness were lost)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_copulas_time_keeps_its_predicate(ex):
    for text, kept, lost in (
            ("Odran Pellew\nOdran Pellew was a cooper. Pellew was a member of the Wexholm town council for twelve years "
             "and paid for the stone bridge over the Corran brook.", ("Odran Pellew", "was member for", "twelve years"),
             ("Odran Pellew", "was for", "twelve years")),
            ("Hollin Cup\nThe Hollin Cup is a prize for cider. Since 1975 the cup has also been open to makers from "
             "outside the valley.", ("Hollin Cup", "been open since", "1975"), ("Hollin Cup", "been since", "1975")),
            ("Marta Lind\nMarta Lind was a painter. In 1901 she was a judge at the Tallow show.",
             ("Marta Lind", "was judge in", "1901"), ("Marta Lind", "was in", "1901")),
            ("Gerrow Mill\nGerrow Mill is a water mill. Since 1920 the mill has been a museum.",
             ("Gerrow Mill", "been museum since", "1920"), ("Gerrow Mill", "been since", "1920"))):
        got = triples(ex, text)
        assert kept in got and lost not in got, (text, got)


def test_a_copula_without_a_predicate_or_with_a_named_one_keeps_its_bare_relation(ex):
    got = triples(ex, "Tamsin Vell\nTamsin Vell was a surveyor. In 1870 she was in Grisholt.")
    assert ("Tamsin Vell", "was in", "Grisholt") in got, got
    # a word the parser tags as the copula's adjective that reads as a preposition is no predicate (MuSiQue: "was near
    # in · Middlesex")
    got = triples(ex, "Kenton Cool\nKenton Cool is a climber. His family home was near Slough in Middlesex.")
    assert not any(r.startswith("was near in") for _, r, _ in got), got
