"""Questions a knowledge graph can answer, written from the graph itself: the suggestions the Ask and Compare
pages offer on a workspace that has no questions file.

No LLM: three templates over the best-connected entities, each answered by the graph by construction —

* **shared** (2 hops, an AND question in BubbleRAG's sense): two entities that are not linked but share
  one neighbour — "What connects Keanu Reeves and Laurence Fishburne?" (The Matrix);
* **relation** (1 hop): one edge, the known entity named and the other end asked for — "Who played Neo?";
* **path** (2 hops): an entity two hops from a best-connected one through a single middle node —
  "How is Hugo Weaving related to The Lord of the Rings?" (via Elrond).

Relation phrases are free text (OpenIE's "starred in", a KG's "nationality"), so the relation template picks
its wording from the phrase's shape (a participle with "by", a verb, a noun with a preposition, a noun) and
skips phrases it cannot word. Everything is deterministic: entities by degree then name, edges by id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from core.graph.model import KnowledgeGraph

SuggestionKind = Literal["shared", "relation", "path"]

#: at most this many of the best-connected entities are tried as the subject of a question
MAX_ANCHORS = 40
MAX_NAME_CHARS = 60  #: longer node names (a sentence extracted as an entity) make unreadable questions

_PREPOSITIONS = {"by", "in", "of", "on", "at", "to", "from", "with", "for", "into", "as", "about"}
# participles that read as a state without "was" ("born in", "located in"): they need one
_STATE_PARTICIPLES = {"born", "based", "located", "married", "known", "named", "made", "released", "published",
                      "founded", "written", "buried", "situated", "headquartered", "set", "held"}
#: relation phrases that are a bare auxiliary or light verb: no question can be worded from them
_BARE_VERBS = {"was", "were", "are", "be", "been", "being", "am", "has", "had", "have", "having", "do", "does", "did",
               "became", "become", "becomes", "got", "get", "gets", "includes", "included", "include", "contains",
               "contain", "contained", "can", "could", "will", "would", "may", "might", "must", "should", "shall"}
_IS = {"is a", "is an", "is", "instance of", "type", "is type of", "subclass of"}
# a year, a date, a number: an answer, not a subject
_NOT_A_NAME = re.compile(r"(?i)^(?:[\d.,:/\-–]+|jan\w*|feb\w*|mar\w*|apr\w*|may|june?|july?|aug\w*|sep\w*|oct\w*|"
                         r"nov\w*|dec\w*|\s)+$")


@dataclass(frozen=True)
class SuggestedQuestion:
    """One question the graph answers.

    Attributes
    ----------
    question
        The question as a person would type it.
    kind
        The template: ``"shared"``, ``"relation"`` or ``"path"``.
    entities
        The node names the question mentions (the anchors a retriever should find).
    answer
        What the graph says answers it: a node name, or for ``"path"`` the connecting triples.
    edges
        Ids of the edges it was written from (its gold evidence in the graph).
    """

    question: str
    kind: SuggestionKind
    entities: tuple[str, ...]
    answer: str
    edges: tuple[int, ...]


def suggest_questions(g: KnowledgeGraph, *, k: int = 4, max_anchors: int = MAX_ANCHORS) -> tuple[SuggestedQuestion, ...]:
    """Up to ``k`` questions ``g`` answers, built without an LLM from its best-connected entities.

    One of each template first (shared neighbour, relation, two-hop path), then more of them in turn; no two
    questions ask about the same entity while other entities are left. Deterministic for a given graph.

    Parameters
    ----------
    g
        A knowledge graph (a corpus graph of passages has no relations to ask about: nothing is suggested).
    k
        How many questions at most.
    max_anchors
        How many of the best-connected entities are tried as subjects.

    Returns
    -------
    tuple of SuggestedQuestion
        Empty for a graph without edges or a corpus graph.

    Examples
    --------
    >>> [s.question for s in suggest_questions(demo_graph, k=2)]  # doctest: +SKIP
    ['What connects Keanu Reeves and Laurence Fishburne?', 'Who played Neo?']
    """
    if k < 1 or g.kind != "kg" or g.n_edges == 0:
        return ()
    anchors = _anchors(g, max_anchors)
    makers = (_shared(g, anchors), _relations(g, anchors), _paths(g, anchors))
    out: list[SuggestedQuestion] = []
    used: set[str] = set()
    seen: set[str] = set()
    pending: list[list[SuggestedQuestion]] = [[] for _ in makers]
    exhausted = [False] * len(makers)
    while len(out) < k and not all(exhausted):
        progressed = False
        for i, maker in enumerate(makers):
            if len(out) >= k:
                break
            pick = _next_fresh(maker, pending[i], used, seen)
            if pick is None:
                exhausted[i] = True
                continue
            out.append(pick)
            seen.add(pick.question.lower())
            used.update(pick.entities)
            progressed = True
        if not progressed:  # every fresh entity is spent: allow repeats of entities (not of questions)
            for i in range(len(makers)):
                while pending[i] and len(out) < k:
                    s = pending[i].pop(0)
                    if s.question.lower() not in seen:
                        out.append(s)
                        seen.add(s.question.lower())
            break
    return tuple(out)


def _next_fresh(maker: Iterator[SuggestedQuestion], pending: list[SuggestedQuestion], used: set[str], seen: set[str]) -> SuggestedQuestion | None:
    """The next suggestion of ``maker`` about entities not used yet; the others wait in ``pending``."""
    for s in list(pending):
        if s.question.lower() not in seen and not used & set(s.entities):
            pending.remove(s)
            return s
    for s in maker:
        if s.question.lower() in seen:
            continue
        if used & set(s.entities):
            pending.append(s)
            continue
        return s
    return None


def _usable(name: str) -> bool:
    name = name.strip()
    return 1 < len(name) <= MAX_NAME_CHARS and not _NOT_A_NAME.match(name) and "\n" not in name


def _anchors(g: KnowledgeGraph, limit: int) -> list[int]:
    """The best-connected entities with a readable name: degree first, then name (ties stay stable)."""
    order = sorted(range(g.n_nodes), key=lambda v: (-int(g.degree[v]), g.node_names[v].lower(), v))
    return [v for v in order if _usable(g.node_names[v]) and g.degree[v] > 0][:limit]


def _shared(g: KnowledgeGraph, anchors: list[int]) -> Iterator[SuggestedQuestion]:
    """Two unlinked anchors with one common neighbour (then two): "What connects A and B?"."""
    nbrs = g.neighbor_sets()
    for n_common in (1, 2):
        yield from _shared_by(g, anchors, nbrs, n_common)


def _shared_by(g: KnowledgeGraph, anchors: list[int], nbrs: list[set[int]],
               n_common: int) -> Iterator[SuggestedQuestion]:
    for i, a in enumerate(anchors):
        for b in anchors[i + 1:]:
            if b in nbrs[a] or g.node_names[a].lower() == g.node_names[b].lower():
                continue
            common = sorted(nbrs[a] & nbrs[b] - {a, b})
            if len(common) != n_common:
                continue
            edges = tuple(sorted(_edges_between(g, a, common) + _edges_between(g, b, common)))
            yield SuggestedQuestion(f"What connects {g.node_names[a]} and {g.node_names[b]}?", "shared",
                                    (g.node_names[a], g.node_names[b]),
                                    " and ".join(g.node_names[c] for c in common), edges)


def _edges_between(g: KnowledgeGraph, v: int, others: list[int]) -> list[int]:
    nbr, eid = g.csr.row(v)
    want = set(others)
    return sorted({int(e) for u, e in zip(nbr.tolist(), eid.tolist()) if u in want})


def _relations(g: KnowledgeGraph, anchors: list[int]) -> Iterator[SuggestedQuestion]:
    """One edge of an anchor, worded by its relation phrase; the anchor is the entity the question names.
    Edges whose answer is unique (one edge of that relation from the named entity) come first."""
    for a in anchors:
        _, eid = g.csr.row(a)
        unique: list[SuggestedQuestion] = []
        rest: list[SuggestedQuestion] = []
        for e in sorted(set(eid.tolist())):
            worded = relation_question(g.node_names[int(g.edge_head[e])], g.edge_relation[e],
                                       g.node_names[int(g.edge_tail[e])])
            if worded is None:
                continue
            question, known, answer = worded
            if known != g.node_names[a] or not _usable(known) or answer.lower() == known.lower():
                continue
            asks_head = answer == g.node_names[int(g.edge_head[e])]
            same = [f for f in eid.tolist() if g.edge_relation[f] == g.edge_relation[e]
                    and int((g.edge_tail if asks_head else g.edge_head)[f]) == a]
            s = SuggestedQuestion(question, "relation", (known,), answer, (int(e),))
            (unique if len(set(same)) == 1 else rest).append(s)
        yield from unique
        yield from rest


def relation_question(head: str, relation: str, tail: str) -> tuple[str, str, str] | None:
    """A question about the triple (head, relation, tail), worded from the relation phrase's shape:
    ``(question, the entity it names, the answer)``, or None when the phrase has no wording here.

    >>> relation_question("The Matrix", "directed by", "The Wachowskis")
    ('Who directed The Matrix?', 'The Matrix', 'The Wachowskis')
    >>> relation_question("Keanu Reeves", "played", "Neo")
    ('Who or what played Neo?', 'Neo', 'Keanu Reeves')
    >>> relation_question("The Matrix", "genre", "science fiction action film")
    ('What is the genre of The Matrix?', 'The Matrix', 'science fiction action film')
    """
    rel = " ".join(relation.replace("_", " ").split()).strip()
    words = rel.lower().split()
    if not words or not re.fullmatch(r"[\w\s'’-]+", rel):
        return None  # a URI, a code ("/film/film/genre"), punctuation: no wording
    first, last = words[0], words[-1]
    if rel.lower() in _IS:
        return f"What is {head}?", head, tail
    if rel.lower() in _BARE_VERBS:  # "was", "has": an OpenIE relation too bare to word ("What is the was of X?")
        return None
    if first in ("not", "never", "no", "cannot") or "not" in words[:2]:  # a negation ("not have", "does not own")
        return None
    if last == "by" and len(words) >= 2 and words[-2].endswith(("ed", "en", "wn")):  # "directed by": ask the agent
        return f"Who {' '.join(rel.split()[:-1])} {head}?", head, tail
    if first in _STATE_PARTICIPLES:  # "born in": "Who or what was born in X?"
        return f"Who or what was {rel} {tail}?", tail, head
    if first.endswith("ed") or first in {"won", "wrote", "made", "led", "sang", "ran", "built", "took", "held"}:
        return f"Who or what {rel} {tail}?", tail, head
    if last in _PREPOSITIONS and len(words) >= 2:  # "main villain of", "king of": a role held in the tail
        role = rel[3:] if words[0] == "is" else rel
        role = role if role.lower().startswith(("the ", "a ", "an ")) else f"the {role}"
        return f"Who or what is {role} {tail}?", tail, head
    if first.endswith("ing") and len(words) == 1:  # "starring": the tail is what the head features
        return f"Who or what is {head} {rel}?", head, tail
    if last in _PREPOSITIONS or (first.endswith("s") and len(words) > 1):  # a verb phrase we cannot inflect
        return None
    return f"What is the {rel} of {head}?", head, tail


def _paths(g: KnowledgeGraph, anchors: list[int]) -> Iterator[SuggestedQuestion]:
    """An entity two hops from an anchor through exactly one middle node: "How is A related to C?"."""
    nbrs = g.neighbor_sets()
    for a in anchors:
        first = nbrs[a]
        middles: dict[int, list[int]] = {}
        for b in sorted(first):
            for c in nbrs[b]:
                if c != a and c not in first:
                    middles.setdefault(c, []).append(b)
        ends = sorted((c for c, via in middles.items() if len(via) == 1 and _usable(g.node_names[c])),
                      key=lambda c: (-int(g.degree[c]), g.node_names[c].lower(), c))
        for c in ends:
            b = middles[c][0]
            e1, e2 = _edges_between(g, a, [b])[0], _edges_between(g, b, [c])[0]
            yield SuggestedQuestion(f"How is {g.node_names[a]} related to {g.node_names[c]}?", "path",
                                    (g.node_names[a], g.node_names[c]),
                                    f"{g.edge_text(e1)}; {g.edge_text(e2)}", (e1, e2))


def answerable_questions(g: KnowledgeGraph, *, k: int = 4, max_anchors: int = MAX_ANCHORS) -> tuple[SuggestedQuestion, ...]:
    """Up to ``k`` questions worded from one real relation of ``g`` whose answer the graph holds and states.

    The suggestions a page offers: a "What connects A and B?" or "How is A related to C?" question names no
    relation, so neither a reader nor an extractive answer knows what to look for ("How is Church related to
    American?"). Every relation question (:func:`relation_question`) is checked against the graph instead of
    trusted to its template:

    * its answer is a node of ``g`` and the only end of that relation from the entity the question names
      (two films "starring" one actor make "Who or what is X starring?" a question with two answers);
    * when the graph has passages, one provenance passage of the edge (any passage, for an edge without
      provenance) names both the entity and the answer (normalised text), so a method that reads passages
      can find the answer where the graph found it.

    Parameters
    ----------
    g
        A knowledge graph.
    k
        How many questions at most.
    max_anchors
        How many of the best-connected entities are tried as the named entity.

    Returns
    -------
    tuple of SuggestedQuestion
        Of kind ``"relation"``, at most one per named entity while others are left; empty for a corpus
        graph or a graph without edges.
    """
    if k < 1 or g.kind != "kg" or g.n_edges == 0:
        return ()
    out: list[SuggestedQuestion] = []
    later: list[SuggestedQuestion] = []
    used: set[str] = set()
    seen: set[str] = set()
    for s in _relations(g, _anchors(g, max_anchors)):
        if s.question.lower() in seen or not _answered(g, s):
            continue
        seen.add(s.question.lower())
        if used & set(s.entities):
            later.append(s)
            continue
        out.append(s)
        used.update(s.entities)
        if len(out) >= k:
            return tuple(out)
    return tuple([*out, *later][:k])


def _answered(g: KnowledgeGraph, s: SuggestedQuestion) -> bool:
    """Whether ``g`` holds ``s``'s answer as the one end of its relation and, with passages, states it."""
    from core.text import normalize_name

    (e,) = s.edges
    head, tail = int(g.edge_head[e]), int(g.edge_tail[e])
    known = s.entities[0]
    asks_tail = g.node_names[head] == known
    a = tail if asks_tail else head
    if g.node_names[a] != s.answer:
        return False
    rel = g.edge_relation[e]
    ends = {int(g.edge_tail[f]) if asks_tail else int(g.edge_head[f])
            for f in g.csr.row(head if asks_tail else tail)[1].tolist()
            if g.edge_relation[f] == rel and int(g.edge_head[f] if asks_tail else g.edge_tail[f]) == (head if asks_tail else tail)}
    if ends != {a}:
        return False
    if not g.chunks:
        return True
    names = (normalize_name(known), normalize_name(s.answer))
    # the edge's own passages; a triple loaded without a source column has none: then any passage that names both
    cids = [c for c in g.edge_chunks[e] if c in g.chunk_index] or [c.id for c in g.chunks]
    for cid in cids:
        c = g.chunk(cid)
        text = normalize_name(f"{c.title} {c.text}")
        if all(n and n in text for n in names):
            return True
    return False
