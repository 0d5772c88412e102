"""Whose a name in apposition is where the parser hung it on the wrong noun (the ``spacy`` extractor; audit 56).

BubbleRAG §3.1 step 2 reads the triples of a passage. "Rhoda Penrose, the daughter of the quarry owner Silas Penrose"
has no comma between "owner" and its name, and the small model hangs "Silas Penrose" on "daughter": audit 56 read
"Rhoda Penrose · is · Silas Penrose" (the class "an apposition 'the daughter of X' is a relation 'daughter of', never
'is X'"). The name is the "of"-object's: (Rhoda Penrose, daughter of, Silas Penrose). And a name set off by commas at
the end of a definite subject ("The foreman of the works, Silas Brand, taught him …") is the subject (audit 57,
:func:`subject_name`), never "X · is · Silas Brand" nor the title as the subject.
"""

from __future__ import annotations

from typing import Any


def of_name(noun: Any, name: Any) -> bool:
    """Whether the name ``name`` the parser hung on ``noun`` in apposition follows "<noun> of <role noun>" with no comma
    ("the daughter of the quarry owner Silas Penrose"): the role noun's name, never ``noun``'s (audit 56 read "Rhoda
    Penrose · is · Silas Penrose"; the class "an apposition 'the daughter of X' is a relation, never 'is X'")."""
    return (name.pos_ == "PROPN" and any(p.dep_ == "prep" and p.lower_ == "of" and p.right_edge.i + 1 == name.left_edge.i
                                        and any(o.dep_ == "pobj" and o.pos_ == "NOUN" and o.i + 1 == name.left_edge.i for o in p.children)
                                        for p in noun.children)) or _kin_of_a(noun, name)  # a role noun: not "of oil baron Jock and X" (MuSiQue)


def _kin_of_a(noun: Any, name: Any) -> bool:
    """"the son of a ferryman, Aldo Thorne," (a kin noun, "of" an indefinite role noun, a comma, a PERSON name): the
    name is the role noun's, the parent's (audit 58, class E read "Elias Thorne · is · Aldo Thorne")."""
    from core.backends.spacy_pronouns import ROLE_GENDER  # spacy_pronouns' callers import this module first

    doc = name.doc
    return noun.lower_ in ROLE_GENDER and name.ent_type_ == "PERSON" and doc[name.left_edge.i - 1].text == "," and any(
        p.dep_ == "prep" and p.lower_ == "of" and p.right_edge.i + 2 == name.left_edge.i and any(
            o.dep_ == "pobj" and o.pos_ == "NOUN" and o.i + 2 == name.left_edge.i and any(
                d.lower_ in ("a", "an") for d in o.children) for o in p.children) for p in noun.children)


def of_object_name(m: Any, tok: Any) -> tuple[str, str] | None:
    """The name after the "of"-object ``tok`` that the parser hung on the noun before "of" (:func:`of_name`): "the
    daughter of the quarry owner Silas Penrose" gives (Rhoda Penrose, daughter of, Silas Penrose)."""
    noun = tok.head.head if tok.dep_ == "pobj" and tok.head.lower_ == "of" else None
    name = next((c for c in noun.children if c.dep_ == "appos" and of_name(noun, c)), None) if noun is not None else None
    return m.mention(name) if name is not None else None


def subject_name(noun: Any) -> Any:
    """The person's name set off by commas at the end of the definite subject ``noun`` ("The foreman of the works, Silas
    Brand, taught him …", "The director of the Dunmere museum, Ysolde Marren, bought …", "The widow who founded the
    Hallam Toy Works, Berta Hallam, outlived …"): the subject is that person, wherever the parser hung the name in the
    subject's phrase (audit 57 read "Tobias Wrenfield · is · Silas Brand", "Dunmere museum · is · Ysolde Marren" and the
    title as the buyer and founder; the class "a 'the <noun> [of …|who …], NAME,' subject is NAME"). None otherwise."""
    if noun.pos_ != "NOUN" or noun.dep_ not in ("nsubj", "nsubjpass") or not any(
            c.dep_ == "det" and c.lower_ == "the" for c in noun.children):
        return None
    doc, end = noun.doc, noun.right_edge.i
    for name in noun.subtree:
        if name.dep_ != "appos" or name.pos_ != "PROPN" or name.ent_type_ != "PERSON" or name.i == noun.i:
            continue
        if _owned_or_listed(name, noun):  # "The Liang clan and the clan of his wife, Sun Shou, were …": the wife's
            continue
        after = name.right_edge.i + 1
        verb = after + 1 < len(doc) and noun.head.i in (after + 1, doc[after + 1].head.i)  # the verb (or its aux) next
        if doc[name.left_edge.i - 1].text == "," and verb and doc[after].text == "," and after >= end:
            return name
    return None


def names_subject(name: Any) -> Any:
    """The definite subject noun whose :func:`subject_name` the apposition ``name`` is, else None."""
    up = name.head
    while up.dep_ not in ("nsubj", "nsubjpass", "ROOT") and up.head.i != up.i:
        up = up.head
    got = subject_name(up) if up.dep_ in ("nsubj", "nsubjpass") else None
    return up if got is not None and got.i == name.i else None


def subject_person(m: Any, tok: Any, as_subject: bool) -> tuple[str, str] | None:
    """The mention of :func:`subject_name` for a subject ``tok``, else of :func:`copula_name`, else None."""
    name = subject_name(tok) if as_subject else None
    if name is not None:
        return m.mention(name)  # type: ignore[no-any-return]
    name = copula_name(tok)
    got = m.mention(name) if name is not None else None
    return got if got is not None and m._person(got, "NNP") else None


def copula_name(noun: Any) -> Any:
    """The name a copula gives the definite subject ``noun`` that a relative clause defines: "The man who bought her
    works was the merchant Ruben Kell" — the man, and the buyer, is Ruben Kell (audit 57's breakers read "Ruben Kell ·
    man of · Harbour Notes"; "The woman who ran the Tarn Brewery was Ada Voss" read "<title> · ran · Tarn Brewery").
    None where ``noun`` has no relative clause or the copula's complement is no proper name."""
    if noun.pos_ != "NOUN" or noun.dep_ != "nsubj" or noun.head.lemma_ != "be" or not any(
            c.dep_ == "relcl" for c in noun.children) or not any(
            c.dep_ == "det" and c.lower_ == "the" for c in noun.children):
        return None
    attr = next((c for c in noun.head.children if c.dep_ == "attr"), None)
    if attr is None:
        return None
    if attr.pos_ == "PROPN":
        return attr
    return next((c for c in attr.children if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN" and c.i > attr.i), None)


def _owned_or_listed(name: Any, noun: Any) -> bool:
    """Whether the apposition ``name`` inside ``noun``'s phrase names an owned noun ("his wife, Sun Shou") or hangs
    below a conjunct of ``noun`` (MuSiQue's "The Liang clan and the clan of his wife, Sun Shou, were slaughtered"):
    then it is that noun's name, not the subject's. A proper name with an owner inside it ("The warden of St. Brannoch's
    Chapel, Nora Varro, opens …") is no owned noun: the name is the subject's (audit 58, class D read "Chapel · is · Nora
    Varro")."""
    if any(c.dep_ == "poss" for c in name.head.children) and name.head.i != noun.i and name.head.pos_ != "PROPN":
        return True
    up = name.head
    while up.i != noun.i and up.head.i != up.i:
        if up.dep_ == "conj":
            return True
        up = up.head
    return False


def kin_through_role(name: Any) -> Any:
    """The noun the name ``name`` is in apposition to, or, where that is a role noun itself in apposition to a kin
    noun, the kin noun: "Her husband, the printer Jonah Dell, …" gives Jonah Dell the husband's gender (audit 56's
    corpus read "Jonah Dell · died on" for her "she" once its "## Later life" heading was dropped, round 63)."""
    from core.backends.spacy_pronouns import ROLE_GENDER  # spacy_pronouns' callers import this module first

    role = name.head
    return role.head if role.dep_ == "appos" and role.pos_ == "NOUN" and role.head.lower_ in ROLE_GENDER else role
