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
from itertools import pairwise

from core.methods.answer_types import expected_answer_type, new_mentions
from core.text import FUNCTION_WORDS, normalize_name

_WORD = re.compile(r"[\w][\w'’\-]*")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'").removesuffix("'s") for w in _WORD.findall(text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in FUNCTION_WORDS}


def _parts(text: str) -> set[str]:
    """Content words with hyphenated compounds split ("second-married" → "second", "married"), as a parser
    sees them."""
    return {p for w in _content(text) for p in w.split("-") if p and p not in FUNCTION_WORDS}


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
    "it drops the keyword 'mother' (a guessed entity is no constraint: a rewrite keeps the keyword and binds it to what the question names)"
    >>> specialization_problem("mother", "Lothair I's mother", q)
    'it names “Lothair I”, which the question does not'
    """
    kw, sp = _content(keyword), _content(specialized)
    if not kw <= sp:
        return (f"it drops the keyword {keyword!r} (a guessed entity is no constraint: a rewrite keeps the keyword and "
                "binds it to what the question names)")
    q = _content(query)
    invented = [w for low, w in _capitalised(specialized).items() if low not in q and low not in kw]
    if invented:
        # the whole name the new word is part of: "it names I" read as nonsense to an audit ("Lothair I")
        names = [n.removesuffix("'s").removesuffix("’s") for n in
                 re.findall(r"[A-Z][\w'’\-]*(?:\s+(?:of\s+)?[A-Z][\w'’\-]*)*", specialized)]
        named = [n for n in names if any(w in n.split() for w in invented)] or invented
        return f"it names {', '.join(f'“{n}”' for n in dict.fromkeys(named))}, which the question does not"
    bound = sp - kw
    if not bound & q:
        return f"it binds {keyword!r} to nothing the question names"
    return ""


def relaxation_problem(keyword: str, relaxed: str) -> str:
    """Why ``relaxed`` is not a generalisation of ``keyword`` ("" when it is): §3.2's relaxation turns
    "a strict structural condition ... to a necessary (but not sufficient) one", i.e. drops a qualifier
    and keeps what is qualified. ``relaxed`` must be a non-empty, strictly smaller set of the keyword's
    content words that keeps the phrase's syntactic head (spaCy's dependency root,
    :func:`phrase_head`) and drops only words that modify it from the left ("second marriage" →
    "marriage"; "second-married woman" → "married woman"). Dropping the head ("public opinion" →
    "public") or the words after it ("body of water" → "body": the complement carries the meaning) is
    no relaxation.

    >>> relaxation_problem("second marriage", "marriage")
    ''
    >>> relaxation_problem("Albert Einstein", "first employer")
    "'first employer' is not 'Albert Einstein' with a qualifier dropped"
    """
    kw, rx = _parts(keyword), _parts(relaxed)
    if not rx or not rx < kw:
        return f"{relaxed!r} is not {keyword!r} with a qualifier dropped"
    head, left = phrase_head(keyword)
    if head and head not in rx:
        return f"{relaxed!r} drops {head!r}, the head of {keyword!r}: a relaxation keeps the head and drops a qualifier"
    if head and not (kw - rx) <= left:
        extra = ", ".join(sorted((kw - rx) - left))
        return f"{relaxed!r} drops {extra!r}, which is not a qualifier before the head {head!r} of {keyword!r}"
    return ""


_HEADS: dict[str, tuple[str, frozenset[str]]] = {}


def phrase_head(phrase: str) -> tuple[str, frozenset[str]]:
    """The syntactic head of a keyword phrase (lower-cased, as :func:`_content` writes words) and the content
    words of its left modifiers (the subtrees of the head's children before it), by spaCy's dependency
    parse (the pinned ``en_core_web_sm``, :mod:`core.backends.spacy_model`). ``("", {})`` for one word.

    >>> head, left = phrase_head("second-married woman"); head, sorted(left)
    ('woman', ['married', 'second'])
    >>> phrase_head("body of water")
    ('body', frozenset())
    """
    if phrase in _HEADS:
        return _HEADS[phrase]
    if len(_parts(phrase)) < 2:
        return "", frozenset()
    from core.backends.spacy_model import load_pipeline
    from core.errors import BackendError

    try:
        nlp = load_pipeline()
    except BackendError:  # spaCy not installed (an optional model): the head by the phrase's shape instead
        return _shape_head(phrase)
    doc = nlp(phrase)
    root = next((t for t in doc if t.head.i == t.i), doc[-1])
    left: set[str] = set()
    for child in root.lefts:
        left.update(w for t in child.subtree for w in _parts(t.text))
    head = next(iter(_parts(root.text)), "")
    _HEADS[phrase] = out = (head, frozenset(left))
    return out


def _shape_head(phrase: str) -> tuple[str, frozenset[str]]:
    """:func:`phrase_head` without a parser: the last content word before the first function word that follows a
    content word ("body of water" → "body"), else the last one; its left modifiers are the content words before it.

    >>> head, left = _shape_head("second-married woman"); head, sorted(left)
    ('woman', ['married', 'second'])
    >>> _shape_head("body of water")
    ('body', frozenset())
    """
    words: list[str] = []
    for w in _words(phrase):
        if w in FUNCTION_WORDS:
            if words:
                break
            continue
        words += [p for p in w.split("-") if p and p not in FUNCTION_WORDS]
    if not words:
        return "", frozenset()
    return words[-1], frozenset(words[:-1])


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


def merge_problem(concept_a: str, concept_b: str, query: str) -> str:
    """Why a grouping review's "these two groups are one concept" is not accepted ("" when it is): both
    concepts are names the question writes ("Keanu Reeves", "Laurence Fishburne"). Two names the question
    writes are two anchors it relates, which §3.3 needs apart to collide; any other pair the LLM says is
    one concept is merged ("villain" / "main villain", "Lothair I" / "Lothair II's father"). A concept of
    several keywords ("villain / main villain") is a name when one of them is.

    >>> merge_problem("villain", "main villain", "Who played the main villain?")
    ''
    >>> merge_problem("Keanu Reeves", "Laurence Fishburne", "Who starred with Keanu Reeves and Laurence Fishburne?")
    "'Keanu Reeves' and 'Laurence Fishburne' are two names the question writes: two anchors, not one"
    """
    def named(concept: str) -> bool:
        return any(any(ch.isupper() or ch.isdigit() for ch in k) and written_in(k, query) for k in concept.split(" / "))

    if named(concept_a) and named(concept_b):
        return f"{concept_a!r} and {concept_b!r} are two names the question writes: two anchors, not one"
    return ""


def weights_problem(weights: Sequence[float]) -> str:
    """Why a reply's group weights are no importance judgement ("" when they may be one), §3.2 / Eq. 6.

    ``weights``: the reply's weight of each group, in the order the prompt listed the groups (alphabetical
    by concept, :func:`~core.methods.bubblerag.grouping.review_order`, so that the list order says
    nothing about importance). *Uniform*: every group the same weight — Eq. 6's weighted tolerance then
    only counts missed groups. *Positional*: three or more groups whose weights never rise along the
    list and fall at least twice — the weights follow the listing, not the concepts (the 1.5B model's
    0.5 / 0.3 / 0.2 / 0.1 whatever the groups hold). A real judgement ranks k groups exactly in
    alphabetical order by chance (1 in k!, ≤ 1 in 6), and is then flagged too.

    >>> weights_problem([0.5, 0.5, 0.5]), weights_problem([0.2, 0.5, 0.3])
    ('every group has the same weight (0.5): no group was judged more central', '')
    >>> weights_problem([0.5, 0.3, 0.2, 0.1])
    "the weights fall with each group's place in the list (0.5, 0.3, 0.2, 0.1), whatever the groups hold"
    """
    w = [float(x) for x in weights]
    if len(w) >= 2 and max(w) - min(w) <= 1e-9:
        return f"every group has the same weight ({w[0]:g}): no group was judged more central"
    drops = sum(b < a - 1e-9 for a, b in pairwise(w))
    if len(w) >= 3 and all(b <= a + 1e-9 for a, b in pairwise(w)) and drops >= 2:
        return (f"the weights fall with each group's place in the list ({', '.join(f'{x:g}' for x in w)}), "
                "whatever the groups hold")
    return ""


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
