"""The bridges of the extractive answer's question, hop after hop, in every passage it was handed (rule 3 of
:mod:`core.methods.extractive`).

None of the papers defines the extractive answer (each assumes an LLM), so this rule is ours. The first hop is read in
the top five passages (:func:`core.methods.bridges.clause_bridges`, :func:`~core.methods.bridges.possessive_bridges`).
A bridge found, a reader looks it up in the other passages it was handed too; the sentences there that name it may
resolve the next description of the re-read question, and the passages naming *that* bridge are read as well.
"Which city was the founder of the company that bought Hollowmere Creamery born in?" reads "the company that bought
Hollowmere Creamery" as Duskfield Foods in the top passages, but "It [Duskfield Foods] was founded in 1903 by
Wilhelmina Stroud" was in BubbleRAG's ninth passage of 15: the founder stayed unresolved, "Wilhelmina Stroud was an
industrialist born in 1871 in Ravensholt" (naming no Duskfield Foods) was never read, and the answer was the
company's head-office sentence (an audit). :func:`hop_on` reads at most :data:`HOPS` hops past the first.

The sentences that may resolve a description are also read with "the company" as the passage's title
(:func:`core.methods.bridges.head_reading`) or as the last name before it in its passage that ends in that noun
(:func:`named_before`): "He took charge of the Marrowind Tea Company in 1899. In 1924 he sold the company to Bellcastle
Holdings" says who bought the Marrowind Tea Company, in a passage about the man who sold it (an audit's "In what year
was the chairman of the company that bought the Marrowind Tea Company born?" resolved no bridge, and every method
answered with the year he took charge).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.methods.bridges import _names, clause_bridges, head_reading, possessive_bridges, title_kinds
from core.text import normalize_name, split_sentences

#: How many hops past the top passages' are read in the later passages.
HOPS = 2

Clause = tuple[str, str, str, str]  #: (re-read question, bridge name, the sentence that resolved it, the description)


def names_bridge(reading: str, bridge: str) -> bool:
    """Whether ``reading`` names the bridge entity ``bridge`` (whole words, SQuAD-normalised)."""
    return re.search(rf"\b{re.escape(normalize_name(bridge))}\b", normalize_name(reading)) is not None


def first_bridges(query: str, said: Sequence[str],
                  passages: Sequence[tuple[str, str, str]]) -> tuple[list[Clause], list[tuple[str, str]]]:
    """The clause bridges that the readings ``said`` resolve and the possessive bridges that the ``passages`` (the top
    five) resolve, a rewrite once: (clauses, every bridge as (re-read question, bridge name))."""
    clauses = clause_bridges(query, said)
    bridges = possessive_bridges(query, passages, skip={phrase for *_, phrase in clauses})
    clauses = [b for b in clauses if b[0] not in {q for q, _ in bridges}]
    return clauses, bridges + [(q, name) for q, name, _, _ in clauses]


def hop_on(query: str, said: Sequence[str], later: Sequence[Sequence[str]], clauses: list[Clause],
           bridges: list[tuple[str, str]]) -> tuple[list[Clause], list[tuple[str, str]], list[int]]:
    """The bridges with those the ``later`` passages' sentences resolve, and which of those sentences (by index) name
    a bridge entity: the candidates they add to the answer.

    ``said`` are the top passages' readings (what :func:`first_bridges` read), ``later`` each later sentence's
    readings. A later sentence naming a bridge may resolve the next description ("the founder of the company Duskfield
    Foods": "It [Duskfield Foods] was founded in 1903 by Wilhelmina Stroud"); the sentences naming that bridge are then
    taken too ("Wilhelmina Stroud was an industrialist born in 1871 in Ravensholt"), for :data:`HOPS` rounds.

    >>> q = "Where was the founder of the company that bought Brisk Mill born?"
    >>> c, b = first_bridges(q, ["Brisk Mill was sold to Odell Foods in 1958."], [])
    >>> c, b, taken = hop_on(q, ["Brisk Mill was sold to Odell Foods in 1958."],
    ...                      [["Odell Foods was founded in 1903 by Ada Venn."], ["Ada Venn was born in Tarrow."],
    ...                       ["Tarrow is a town."]], c, b)
    >>> [name for _, name in b], taken
    (['Odell Foods', 'Ada Venn'], [0, 1])
    """
    taken: list[int] = []
    more_said: list[str] = []
    for _ in range(HOPS + 1):
        new = [i for i, read in enumerate(later) if i not in taken
               and any(names_bridge(r, b) for r in read for _, b in bridges)]
        if not new:
            break
        taken += new
        more_said += [r for i in new for r in later[i]]
        have = {q for q, _ in bridges}
        more = [c for c in clause_bridges(query, [*said, *more_said]) if c[0] not in have]
        if not more:
            break
        clauses = clauses + more
        bridges = bridges + [(q, name) for q, name, _, _ in more]
    return clauses, bridges, sorted(taken)


def named_before(sentence: str, before: str) -> tuple[str, ...]:
    """``sentence`` with its first "the NOUN" (no name after it) read as the last name of ``before`` (the passage up to
    the sentence, title first) or of the sentence before the phrase that ends in that noun; () where none does.

    >>> named_before("In 1924 he sold the company to Bellcastle Holdings.", "He took charge of the Marrowind Tea Company.")
    ('In 1924 he sold the Marrowind Tea Company to Bellcastle Holdings.',)
    >>> named_before("In 1924 he sold the company to Bellcastle Holdings.", "He ran the Marrowind Tea Works.")
    ()
    """
    for m in re.finditer(r"\b[Tt]he\s+([a-z]{4,})\b(?!\s+[A-Z])", sentence):
        noun = m.group(1)
        ends = [n for _, n in _names(f"{before} {sentence[:m.start()]}")
                if n.split()[-1].lower() in (noun, noun + "s") and len(n.split()) > 1]
        if ends:
            return (f"{sentence[:m.start()]}the {ends[-1]}{sentence[m.end():]}",)
    return ()


def head_readings(passages: Sequence[tuple[str, str, str]]) -> Callable[[str, str], tuple[str, ...]]:
    """A reader of the handed ``passages``' sentences (by sentence and passage title): "the company" read as the title
    (:func:`core.methods.bridges.head_reading`, with the nouns any passage calls that title by) and as the company the
    passage named before it (:func:`named_before`); what resolves descriptions (the module docstring)."""
    kinds: dict[str, tuple[str, ...]] = {}
    earlier: dict[tuple[str, str], tuple[str, ...]] = {}
    for _cid, title, text in passages:
        sents = [s.strip() for s in split_sentences(text) if len(s.strip()) > 3]
        kinds[title] = tuple(dict.fromkeys(kinds.get(title, ()) + title_kinds(sents, title)))
        for i, s in enumerate(sents):
            earlier.setdefault((s, title), named_before(s, " ".join([title, *sents[:i]])))

    def read(sentence: str, title: str) -> tuple[str, ...]:
        return (*head_reading(sentence, title, kinds.get(title, ())), *earlier.get((sentence, title), ()))
    return read
