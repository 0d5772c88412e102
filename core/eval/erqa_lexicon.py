"""A hand-written lexicon of natural phrasings for FB15k-237 relations (non-template ERQA questions).

The template ERQA questions (:mod:`core.eval.erqa`) quote the KG's names and relation
labels verbatim. The paraphrased questions of :mod:`core.eval.erqa_paraphrase` are worded from this
lexicon instead: for each covered Freebase relation ``/domain/type/property``, how to say "the answer
X stands in this relation to entity e" in English, once for X on the *head* side (``X -[r]-> e``) and
once for X on the *tail* side (``e -[r]-> X``) where that reads naturally.

Rules the phrasings follow (checked by ``tests/eval/test_erqa_paraphrase.py``):

* a phrase never contains the relation's label as the KG writes it — neither the KG-BERT
  ``relation2text`` phrase ("film film directed by") nor the readable last path step ("directed by")
  — outside the entity slot ``{e}``; the answer-type noun ("films") is the one exception;
* a phrase is a participial, prepositional or "who"-clause with a past-tense or no verb, so it
  attaches after a singular or plural noun ("films starring {e}", "people who studied at {e}");
* every phrase has exactly one ``{e}`` slot.

Written for this project (2026-11-23) and reviewed against the FB15k-237 triples: each phrasing was
read next to sample triples of its relation to check the direction (the head of
``/film/actor/film./film/performance/film`` is the actor, of ``/film/director/film`` the director, of
``/music/genre/artists`` the genre).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Side:
    """How to phrase a constraint when the answer is on one side of the relation."""

    kind: str  #: answer type; constraints of one question share it ("film" for films and movies)
    singular: str  #: answer-type noun, singular ("film")
    plural: str  #: answer-type noun, plural ("films")
    phrases: tuple[str, ...]  #: clause templates with one ``{e}`` slot


@dataclass(frozen=True)
class RelationPhrasing:
    """Natural phrasings of one Freebase relation (``path``) for either answer side."""

    path: str
    as_head: Side | None = None  #: the answer X is the head: X -[path]-> e
    as_tail: Side | None = None  #: the answer X is the tail: e -[path]-> X


def _film(*phrases: str) -> Side:
    return Side("film", "film", "films", phrases)


def _movie(*phrases: str) -> Side:
    return Side("film", "movie", "movies", phrases)


def _person(*phrases: str) -> Side:
    return Side("person", "person", "people", phrases)


LEXICON: tuple[RelationPhrasing, ...] = (
    # ---- films (answer = a film)
    RelationPhrasing("/film/film/genre", as_head=_film("classed as {e}", "that count as {e}", "categorised as {e}")),
    RelationPhrasing("/film/film/country", as_head=_film("produced in {e}", "made in {e}", "that came out of {e}")),
    RelationPhrasing("/film/film/language", as_head=_film("with dialogue in {e}", "spoken in {e}",
                                                           "whose characters speak {e}")),
    RelationPhrasing("/film/film/produced_by", as_head=_movie("with {e} as a producer", "backed by producer {e}",
                                                              "that {e} helped produce")),
    RelationPhrasing("/film/film/executive_produced_by", as_head=_film("with {e} as an executive producer",
                                                                       "that {e} oversaw as executive producer")),
    RelationPhrasing("/film/film/music", as_head=_film("scored by {e}", "with a soundtrack composed by {e}",
                                                       "whose score came from {e}")),
    RelationPhrasing("/film/film/written_by", as_head=_movie("scripted by {e}", "with a screenplay by {e}",
                                                             "penned by {e}")),
    RelationPhrasing("/film/film/edited_by", as_head=_film("cut by {e}", "with {e} in the editing room")),
    RelationPhrasing("/film/film/cinematography", as_head=_film("shot by cinematographer {e}",
                                                                "with {e} behind the camera as director of photography")),
    RelationPhrasing("/film/film/story_by", as_head=_film("based on a tale by {e}", "adapted from the work of {e}")),
    RelationPhrasing("/film/film/production_companies", as_head=_film("from the studio {e}",
                                                                      "made with {e} among the companies behind it")),
    RelationPhrasing("/film/film/featured_film_locations", as_head=_film("shot on location in {e}", "filmed in {e}",
                                                                         "with scenes recorded in {e}")),
    RelationPhrasing("/film/film/release_date_s./film/film_regional_release_date/film_release_region",
                     as_head=_film("that opened in {e}", "shown in cinemas in {e}", "that premiered in {e}")),
    RelationPhrasing("/film/actor/film./film/performance/film",
                     as_head=_person("who acted in {e}", "who had a role in {e}", "in the cast of {e}"),
                     as_tail=_film("starring {e}", "with {e} in the cast", "featuring {e}")),
    RelationPhrasing("/film/director/film",
                     as_head=_person("who directed {e}", "who helmed {e}"),
                     as_tail=_movie("helmed by {e}", "that {e} directed", "made by director {e}")),
    RelationPhrasing("/film/film_subject/films", as_tail=_film("about {e}", "dealing with {e}", "that tell of {e}")),
    RelationPhrasing("/film/film_distributor/films_distributed./film/film_film_distributor_relationship/film",
                     as_tail=_film("distributed by {e}", "that {e} brought to audiences")),
    # ---- people (answer = a person)
    RelationPhrasing("/people/person/profession", as_head=_person("who worked as {e}", "who earned a living as {e}",
                                                                  "whose occupations include {e}")),
    RelationPhrasing("/people/person/nationality", as_head=_person("who are citizens of {e}", "holding citizenship of {e}",
                                                                   "with a passport from {e}")),
    RelationPhrasing("/people/person/place_of_birth", as_head=_person("born in {e}", "whose birthplace is {e}",
                                                                      "who came into the world in {e}")),
    RelationPhrasing("/people/deceased_person/place_of_death", as_head=_person("who died in {e}",
                                                                               "whose life ended in {e}")),
    RelationPhrasing("/people/person/places_lived./people/place_lived/location",
                     as_head=_person("who lived in {e}", "who made a home in {e}", "who resided in {e}")),
    RelationPhrasing("/people/person/religion", as_head=_person("who practised {e}", "of the {e} faith",
                                                                "following {e}")),
    RelationPhrasing("/people/person/spouse_s./people/marriage/spouse",
                     as_head=_person("who married {e}", "once wed to {e}", "who were the husband or wife of {e}")),
    RelationPhrasing("/people/person/sibling_s./people/sibling_relationship/sibling",
                     as_head=_person("who are a brother or sister of {e}", "whose siblings include {e}")),
    RelationPhrasing("/influence/influence_node/influenced_by",
                     as_head=_person("who drew inspiration from {e}", "shaped by the work of {e}"),
                     as_tail=_person("who inspired {e}", "cited as an inspiration by {e}")),
    RelationPhrasing("/education/educational_institution/students_graduates./education/education/student",
                     as_tail=_person("who studied at {e}", "who went to {e}", "educated at {e}")),
    RelationPhrasing("/award/award_nominee/award_nominations./award/award_nomination/award",
                     as_head=_person("shortlisted for the {e}", "in the running for the {e}",
                                     "who were up for the {e}")),
    RelationPhrasing("/award/award_winner/awards_won./award/award_honor/award_winner",
                     as_head=_person("who shared an honour with {e}", "who received a prize alongside {e}")),
    RelationPhrasing("/tv/tv_program/regular_cast./tv/regular_tv_appearance/actor",
                     as_tail=_person("who were regulars on {e}", "who appeared week after week on {e}")),
    RelationPhrasing("/music/genre/artists", as_tail=_person("who perform {e}", "known for {e} records",
                                                             "making {e} songs")),
    RelationPhrasing("/music/instrument/instrumentalists", as_tail=_person("who play the {e}", "who perform on {e}")),
    RelationPhrasing("/music/record_label/artist", as_tail=_person("signed to {e}", "who released records on {e}")),
    RelationPhrasing("/music/artist/origin", as_head=_person("whose music career began in {e}",
                                                             "who started out musically in {e}")),
    RelationPhrasing("/sports/pro_athlete/teams./sports/sports_team_roster/team",
                     as_head=_person("who played for {e}", "who turned out for {e}", "on the roster of {e}")),
    # ---- works that won awards (answer = a film or show)
    RelationPhrasing("/award/award_winning_work/awards_won./award/award_honor/award",
                     as_head=Side("work", "work", "works", ("that took home the {e}", "honoured with the {e}"))),
    # ---- places and organisations
    RelationPhrasing("/location/location/contains", as_tail=Side("place", "place", "places", ("located in {e}",
                                                                                    "situated within {e}",
                                                                                    "that lie inside {e}"))),
    RelationPhrasing("/location/location/adjoin_s./location/adjoining_relationship/adjoins",
                     as_head=Side("place", "place", "places", ("bordering {e}", "that share a border with {e}", "next to {e}"))),
    RelationPhrasing("/organization/organization/headquarters./location/mailing_address/citytown",
                     as_head=Side("organisation", "organisation", "organisations", ("headquartered in {e}", "based in {e}",
                                                                    "with head offices in {e}"))),
)

#: Hand-written surface variants of frequent FB15k-237 entity names (how people write them).
ALIASES: dict[str, tuple[str, ...]] = {
    "United States of America": ("the United States", "the US", "the USA"),
    "United Kingdom": ("the UK", "Britain"),
    "Soviet Union": ("the USSR",),
    "New York City": ("NYC",),
    "Los Angeles": ("LA",),
    "Academy Award for Best Picture": ("Best Picture Oscar",),
    "Rock music": ("rock",),
    "Pop music": ("pop",),
    "Jazz": ("jazz",),
}


def relation_phrase(path: str) -> str:
    """The KG-BERT ``relation2text`` form of a Freebase path: ``/film/film/directed_by`` → "film film directed by"."""
    return " ".join(path.strip("/").replace("/", " ").replace("_", " ").split())


def last_step(path: str) -> str:
    """The readable last step of a Freebase path: ``/film/film/directed_by`` → "directed by"."""
    return " ".join(path.rstrip("/").rsplit("/", 1)[-1].replace("_", " ").split())
