"""Checks on the LLM's replies to BubbleRAG's planning stages (§3.2, §3.5).

A small model's reply can be valid JSON and still not do the stage's job: copy the prompt's format
line instead of filling it, put every candidate into one group (then r_miss ≡ 0 and Eq. 6 is inert:
no two concepts can collide), "specialize" a generic keyword into the answer it guessed, "relax" a
keyword into an unrelated one, or declare the evidence sufficient after every hop. Each function
here names one such failure, in words the trace and the pages show; the stage then falls back to its
documented ``none``-mode rule for that stage (or drops the one bad item), never silently.

The checks test what the paper asks of the stage, not the answer: a rewrite must bind the keyword to
the question's entity (Example 4: *mother* → *Lothair II's mother*), a relaxation must be "a
necessary (but not sufficient)" condition, i.e. the keyword with a qualifier dropped (Example 5:
*second marriage* → *marriage*), and the groups are the query's concepts (§3.2).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.methods.extractive import expected_answer_type, new_mentions
from core.text import FUNCTION_WORDS, normalize_name

_WORD = re.compile(r"[\w][\w'’\-]*")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'").removesuffix("'s") for w in _WORD.findall(text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in FUNCTION_WORDS}


def _capitalised(text: str) -> dict[str, str]:
    """The capitalised words (name parts) of ``text``, lower-cased → as written: what a reply could invent."""
    out: dict[str, str] = {}
    for w in _WORD.findall(text):
        if w[:1].isupper():
            bare = w.removesuffix("'s").removesuffix("’s")
            out.setdefault(bare.lower(), bare)
    return out


def written_in(text: str, query: str) -> bool:
    """Whether every content word of ``text`` is a word of ``query`` (possessives, case and inflection
    aside: "founding town" is written in "... was the town founded?").

    >>> written_in("Lothair II", "When did Lothair II's mother die?"), written_in("Ermengarde", "When did Lothair II's mother die?")
    (True, False)
    """
    from core.methods.bubblerag.heuristics import stem

    words = {stem(w) for w in _content(text)}
    return bool(words) and words <= {stem(w) for w in _words(query)}


def specialization_problem(keyword: str, specialized: str, query: str) -> str:
    """Why ``specialized`` is not a query-conditioned form of ``keyword`` ("" when it is one).

    It must keep the keyword (its content words), bind it to something else the question writes
    ("other anchor intents already present in q", §3.2), and name nothing the question does not.

    >>> q = "When did Lothair II's mother die?"
    >>> specialization_problem("mother", "Lothair II's mother", q)
    ''
    >>> specialization_problem("mother", "Ermengarde of Tours", q)
    "it drops the keyword 'mother' (a guessed answer is not a constraint)"
    >>> specialization_problem("mother", "Lothair I's mother", q)
    'it names I, which the question does not'
    """
    kw, sp = _content(keyword), _content(specialized)
    if not kw <= sp:
        return f"it drops the keyword {keyword!r} (a guessed answer is not a constraint)"
    q = _content(query)
    invented = [w for low, w in _capitalised(specialized).items() if low not in q and low not in kw]
    if invented:
        return f"it names {' '.join(invented)}, which the question does not"
    bound = sp - kw
    if not bound & q:
        return f"it binds {keyword!r} to nothing the question names"
    return ""


def relaxation_problem(keyword: str, relaxed: str) -> str:
    """Why ``relaxed`` is not a generalisation of ``keyword`` ("" when it is): the keyword with a
    qualifier dropped, i.e. a non-empty, strictly smaller set of the keyword's content words.

    >>> relaxation_problem("second marriage", "marriage")
    ''
    >>> relaxation_problem("Albert Einstein", "first employer")
    "'first employer' is not 'Albert Einstein' with a qualifier dropped"
    """
    kw, rx = _content(keyword), _content(relaxed)
    if not rx or not rx < kw:
        return f"{relaxed!r} is not {keyword!r} with a qualifier dropped"
    return ""


def collapse_problem(groups: Sequence[Sequence[str]], concepts_with_candidates: int) -> str:
    """Why a grouping collapsed ("" when it did not): with two or more concepts that found candidates,
    one group holds candidates found for every concept, so no two concepts can collide (§3.3).

    ``groups``: per group, the concept each member was found for.

    >>> collapse_problem([["Keanu Reeves", "villain"], ["The Matrix"]], 3)
    ''
    >>> collapse_problem([["Keanu Reeves", "villain", "The Matrix"], ["villain"]], 3)
    'one group holds the candidates of all 3 query concepts: with one group no two concepts can collide'
    """
    if concepts_with_candidates < 2:
        return ""
    for members in groups:
        if len(set(members)) >= concepts_with_candidates:
            return (f"one group holds the candidates of all {concepts_with_candidates} query concepts: "
                    "with one group no two concepts can collide")
    return ""


def merge_problem(concept_a: str, concept_b: str) -> str:
    """Why a grouping review's "these two groups are one concept" is not accepted ("" when it is): the two
    concepts share no content word. Paraphrases of one concept do ("villain" / "main villain"); the 1.5B
    model also merged "mother" into "Lothair II" and "Ermengarde of Tours", one group where §3.3 needs the
    concepts apart to collide.

    >>> merge_problem("villain", "main villain")
    ''
    >>> merge_problem("Lothair II", "mother")
    "'Lothair II' and 'mother' share no word: two concepts, not one"
    """
    if _content(concept_a) & _content(concept_b):
        return ""
    return f"{concept_a!r} and {concept_b!r} share no word: two concepts, not one"


def sufficiency_problem(query: str, added: Sequence[str], question_names: Sequence[str] = ()) -> str:
    """Why an expansion hop's "sufficient" is not accepted ("" when it is): the hop must have added a
    triple naming something of the type the question asks for (a date for *when*, a person for *who*
    ...), or, for other questions, something the question does not name. Sufficiency claimed before
    the answer can be in the evidence would stop §3.5 after one hop (d = 6 acting as d = 1).

    ``added``: the texts of the triples this hop selected.
    """
    if not added:
        return "the hop added no triple"
    kind = expected_answer_type(query)
    if kind:
        if any(new_mentions(t, kind, query) for t in added):
            return ""
        return f"no added triple names {'an' if kind[0] in 'aeiou' else 'a'} {kind} the question does not name"
    q = normalize_name(" ".join([query, *question_names]))
    if any(w not in q for t in added for w in _content(t)):
        return ""
    return "the added triples name nothing the question does not"
