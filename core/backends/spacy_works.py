"""A "the <noun>" agent-passive subject in a work's passage that is a thing of the work, not the work (the ``spacy``
extractor; audit 57).

BubbleRAG §3.1 step 2 reads a short definite description ("the film") as the passage's title. In a play's passage
"The crow is helped by a ferryman named Bask" (the play "The Velvet Crow": a character) and "The music was written by
the organist Hugo Penrith" (the play's music) read audit 57's "Velvet Crow · helped by · Bask" and "Velvet Crow ·
written by · Hugo Penrith", the last in ReG's evidence chains (the class "a 'the <noun>' subject of a work that is no
work noun is the work's own thing"). Such a subject is "<noun> of <title>" (as :func:`core.backends.spacy_spans.of_title`
makes "the chapel of Tarsk"); a work noun ("The play was printed by …", "The film was directed by …") stays the title.
"""

from __future__ import annotations

import re
from typing import Any

from core.backends.spacy_kinds import WORK_KIND
from core.backends.spacy_spans import title_kinds

#: the key of :data:`core.backends.spacy_anaphora.Others` (a carry's last part) that says the title is a work
TITLE_WORK = "title work"


def title_work(m: Any) -> bool:
    """Whether the passage's title is a work: the passage before said so (carried), the text's opening gives it a work
    noun as its kind ("The Velvet Crow is a marionette play", "Madonna (book)"), or a "the <work noun>" subject speaks of
    it ("The play tells the story …"); not a work noun anywhere in the opening ("… was released alongside the Western
    film": a soundtrack, whose "The score is composed by" is the soundtrack, MuSiQue)."""
    if m.before is not None and m.before[3].get(TITLE_WORK):
        return True
    if not m.title or set(re.findall(r"\((?:[^)]* )?(\w+)\)", m.title.lower())) & WORK_KIND:  # "Madonna (book)"
        return bool(m.title)
    for t in m.doc:
        if t.pos_ != "NOUN" or t.lower_ not in WORK_KIND:
            continue
        if t.dep_ == "attr" and t.head.lemma_ == "be" and any(  # "The Velvet Crow is a marionette play"
                c.dep_ == "nsubj" and m.mention_of.get(c.i, (0, 0, ""))[2] == "TITLE" for c in t.head.children):
            return True
        if t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT" and [c.lower_ for c in t.children] == ["the"]:
            return True  # "The play tells the story …"
    return False


def work_part(m: Any, tok: Any, as_subject: bool) -> tuple[str, str] | None:
    """``("<noun> of <title>", "")`` for a lone "the <noun>" subject ``tok`` of an agent passive in a work's passage
    (:func:`title_work`) whose noun is no work noun: "The crow is helped by Bask", "The music was written by Hugo
    Penrith", "The libretto was written by Ada Kell". None otherwise: "The play was printed by Abel Sterne" is the
    play, "The story is set in Dunmere" (no agent) the work, and a kind the text gave the title ("a television series
    …. The series was directed by") the title."""
    verb = tok.head
    agent = any(c.dep_ == "agent" for v in (verb, *verb.conjuncts) for c in v.children)
    if not as_subject or tok.dep_ != "nsubjpass" or tok.pos_ != "NOUN" or tok.tag_ != "NN" or not agent:
        return None
    if tok.lower_ in WORK_KIND or [c.lower_ for c in tok.children] != ["the"] or not title_work(m):
        return None
    last = (m.title or "").lower().split(" (", 1)[0].split()[-1:]
    if tok.lower_ in title_kinds(m)[0] and [tok.lower_] != last:  # "The series was directed by" of "a television
        return None  # series" is the series (MuSiQue), "The crow" of "The Velvet Crow" no play
    return f"{tok.lower_} of {m.title}", ""
