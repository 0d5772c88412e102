"""Structure-aware post-retrieval reorganization (ReG §4.2, Appendix D.4, Appendix F format).

Any retrieved triple set becomes an ordered list of evidence chains in three steps:

1. **BFS-guided chain expansion** (§4.2 "Chain Expansion", D.4.1 Algorithm 1). Start from the
   *query-anchored* triples — those whose head is a query entity — and grow each chain by
   appending a retrieved triple whose head equals the tail of the chain's last triple, breadth
   first, up to ``max_length`` triples. D.4.1: "In practice, we perform bidirectional expansion: we
   also consider chains where the query entity serves as the tail of the final triple, expanding
   right-to-left accordingly" — so triples whose tail is a query entity seed *backward* chains,
   grown by prepending triples whose tail equals the chain's first head. A chain is emitted when
   it cannot be extended (no matching triple, its length reached ``max_length``, or the only
   extensions would revisit an entity of the chain).
2. **Multi-answer merging** (D.4.2). Chains rooted at the same query entity, with the same
   direction and the same relation path but different target entities become one chain whose
   target is a set. The paper states the condition as "same root, same relation path":
   ``answer_merge="relation_path"`` (the default) is that literal reading (differing intermediates
   are shown as sets at their positions too). With ``"same_prefix"`` (ours) the intermediate
   entities must also be equal, so every rendered chain is still a set of real KG paths.
3. **Multi-entity merging** (D.4.2). For multi-entity questions, chains with *distinct* roots whose
   target sets overlap are placed consecutively ("spatial reordering") and their shared target set
   is refined to the intersection ("target refinement"); pairwise merging is generalized greedily
   to k roots (a chain joins a group while the intersection stays non-empty).

Triples that no query-anchored chain reaches are dropped, as in the paper's expansion (the default).
With ``keep_unanchored`` (ours, off by default) they are chained among themselves by the same forward
rule and listed after the anchored chains, marked ``direction="unanchored"``: the paper's setting
always has topic entities; ours (a black-box OpenIE KG, entity linking by string match) does not, and
the option keeps the token comparison with the raw-triple prompt over the same triples. The trace's
``unanchored`` count says how many triples the default dropped.

Rendering follows Appendix F: ``e0 → [r1] → e1 → [r2] → e2``; a merged position is written
``{a; b}``. That is the prompt's text for a backward chain too (it ends at its query entity); the pages read a
backward chain from its query entity with the arrows reversed (:meth:`EvidenceChain.from_root`), so that
every chain they show starts at a question entity and each triple still reads true.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from core.graph.reader import read_ahead
from core.text import normalize_name

if TYPE_CHECKING:
    from core.graph.reader import GraphLike
    from core.trace import Trace

Direction = Literal["forward", "backward", "unanchored"]
AnswerMerge = Literal["same_prefix", "relation_path", "off"]


@dataclass(frozen=True)
class Triple:
    """One retrieved triple. ``edge`` is its KG edge id (-1 for hand-built sets); ``score`` its
    retrieval score (higher is better; chains are ordered by their best member)."""

    head: str
    relation: str
    tail: str
    edge: int = -1
    score: float = 0.0

    def text(self) -> str:
        return f"({self.head}, {self.relation}, {self.tail})"


@dataclass(frozen=True)
class EvidenceChain:
    """One (possibly merged) evidence chain.

    ``members`` are the underlying KG paths, each a tuple of indices into the input triple list in
    left-to-right order; all members share the relation path. ``root`` is the query entity the
    chain is anchored at (its first entity for ``forward``, its last for ``backward``).
    """

    members: tuple[tuple[int, ...], ...]
    relations: tuple[str, ...]
    entities: tuple[tuple[str, ...], ...]  #: one set per position (len = len(relations) + 1)
    root: str
    direction: Direction
    group: int = -1  #: multi-entity group id (-1: not merged with another root)
    refined_from: tuple[str, ...] = ()  #: target set before multi-entity refinement (empty if unchanged)

    @property
    def length(self) -> int:
        return len(self.relations)

    @property
    def triples(self) -> tuple[int, ...]:
        """Distinct triple indices used by the chain."""
        return tuple(dict.fromkeys(i for m in self.members for i in m))

    @property
    def targets(self) -> tuple[str, ...]:
        """The entity set at the far end from the root (the answers a chain points at)."""
        return self.entities[0] if self.direction == "backward" else self.entities[-1]

    @property
    def merged_answers(self) -> int:
        return len(self.members)

    def text(self) -> str:
        """Appendix F rendering: ``e0 → [r1] → e1 → …`` (what the prompt holds, a backward chain too)."""
        parts = [_fmt_set(self.entities[0])]
        for r, ents in zip(self.relations, self.entities[1:]):
            parts.append(f"[{r}]")
            parts.append(_fmt_set(ents))
        return " → ".join(parts)

    def from_root(self) -> str:
        """The chain read from its query entity, for people: :meth:`text` for a forward chain; a backward chain
        (D.4.1: the query entity is the tail of its last triple) read right to left with the arrows reversed, so
        every triple still reads true — ``Laurence Fishburne ← [starring] ← The Matrix``. The prompt keeps
        Appendix F's left-to-right :meth:`text`."""
        return read_from_root(self.entities, self.relations, self.direction)


@dataclass(frozen=True)
class Reorganization:
    """What :func:`reorganize` produced, with its intermediates for the UI."""

    triples: tuple[Triple, ...]
    query_entities: tuple[str, ...]  #: the query entities that occur in the triple set
    expanded: tuple[EvidenceChain, ...]  #: after BFS expansion (one member each)
    chains: tuple[EvidenceChain, ...]  #: after both merges, in prompt order
    max_length: int
    truncated: bool = False  #: the BFS hit ``max_chains``
    stats: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [c.text() for c in self.chains]

    def text(self) -> str:
        """One chain a line, unnumbered — like the raw triple list it is compared with."""
        return "\n".join(self.lines())

    @property
    def covered(self) -> set[int]:
        return {i for c in self.chains for i in c.triples}


def _fmt_set(ents: Sequence[str]) -> str:
    return ents[0] if len(ents) == 1 else "{" + "; ".join(ents) + "}"


def read_from_root(entities: Sequence[Sequence[str]], relations: Sequence[str], direction: str) -> str:
    """A chain's entity sets and relations as read from its query entity (:meth:`EvidenceChain.from_root`).

    >>> read_from_root([["Hugo Weaving"], ["Agent Smith"], ["The Matrix"]], ["played", "antagonist of"], "backward")
    'The Matrix ← [antagonist of] ← Agent Smith ← [played] ← Hugo Weaving'
    >>> read_from_root([["Keanu Reeves"], ["The Matrix"]], ["starred in"], "forward")
    'Keanu Reeves → [starred in] → The Matrix'
    """
    ents, rels, arrow = list(entities), list(relations), " → "
    if direction == "backward":
        ents, rels, arrow = ents[::-1], rels[::-1], " ← "
    parts = [_fmt_set(ents[0])]
    for r, e in zip(rels, ents[1:]):
        parts += [f"[{r}]", _fmt_set(e)]
    return arrow.join(parts)


def _chain(path: Sequence[int], triples: Sequence[Triple], root: str, direction: Direction) -> EvidenceChain:
    ts = [triples[i] for i in path]
    ents = [ts[0].head] + [t.tail for t in ts]
    return EvidenceChain((tuple(path),), tuple(t.relation for t in ts), tuple((e,) for e in ents), root, direction)


def expand_chains(triples: Sequence[Triple], query_entities: Iterable[str], *, max_length: int = 3,
                  bidirectional: bool = True, keep_unanchored: bool = False,
                  max_chains: int = 500) -> tuple[tuple[EvidenceChain, ...], bool]:
    """BFS-guided evidence chain expansion (ReG §4.2, Appendix D.4.1 Algorithm 1, both directions).

    Parameters
    ----------
    triples : sequence of Triple
        The retrieved triple set (only these triples are ever used).
    query_entities : iterable of str
        Query entity names (compared after :func:`core.text.normalize_name`).
    max_length : int
        L, the maximum number of triples per chain (the number of reasoning hops).
    bidirectional : bool
        Also grow chains that *end* at a query entity (D.4.1).
    keep_unanchored : bool
        Chain the triples no anchored chain reached among themselves and append them.
    max_chains : int
        Safety cap on emitted chains (dense triple sets can branch exponentially).

    Returns
    -------
    (chains, truncated)
        Maximal chains in BFS order, each with one member; ``truncated`` when the cap was hit.

    Examples
    --------
    >>> ts = [Triple("a", "r", "b"), Triple("b", "s", "c")]
    >>> [c.text() for c in expand_chains(ts, ["a"])[0]]
    ['a → [r] → b → [s] → c']
    """
    if max_length < 1:
        raise ValueError(f"max_length = {max_length!r}; use an integer >= 1.")
    q = {normalize_name(e) for e in query_entities}
    heads: dict[str, list[int]] = {}
    tails: dict[str, list[int]] = {}
    for i, t in enumerate(triples):
        heads.setdefault(normalize_name(t.head), []).append(i)
        tails.setdefault(normalize_name(t.tail), []).append(i)
    out: list[EvidenceChain] = []
    seen: set[tuple[int, ...]] = set()
    truncated = False

    def emit(path: tuple[int, ...], root: str, direction: Direction) -> None:
        nonlocal truncated
        if path in seen:
            return
        if len(out) >= max_chains:
            truncated = True
            return
        seen.add(path)
        out.append(_chain(path, triples, root, direction))

    def bfs(seeds: Iterable[int], direction: Direction, root_of: dict[int, str]) -> None:
        queue: deque[tuple[int, ...]] = deque((i,) for i in seeds)
        while queue and not truncated:
            path = queue.popleft()
            ents = {normalize_name(triples[path[0]].head)} | {normalize_name(triples[i].tail) for i in path}
            ext: list[tuple[int, ...]] = []
            if len(path) < max_length:
                if direction == "backward":
                    end = normalize_name(triples[path[0]].head)
                    ext = [(j, *path) for j in tails.get(end, []) if j not in path
                           and normalize_name(triples[j].head) not in ents]
                else:
                    end = normalize_name(triples[path[-1]].tail)
                    ext = [(*path, j) for j in heads.get(end, []) if j not in path
                           and normalize_name(triples[j].tail) not in ents]
            if ext:
                queue.extend(ext)
            else:
                emit(path, root_of[path[0] if direction != "backward" else path[-1]], direction)

    fwd = [i for i, t in enumerate(triples) if normalize_name(t.head) in q]
    bfs(fwd, "forward", {i: triples[i].head for i in fwd})
    if bidirectional:
        bwd = [i for i, t in enumerate(triples) if normalize_name(t.tail) in q]
        bfs(bwd, "backward", {i: triples[i].tail for i in bwd})
    if keep_unanchored and not truncated:
        used = {i for c in out for i in c.triples}
        rest = [i for i in range(len(triples)) if i not in used]
        rest_tails = {normalize_name(triples[i].tail) for i in rest}
        starts = [i for i in rest if normalize_name(triples[i].head) not in rest_tails]
        n_before = len(out)
        if starts:
            bfs(starts, "unanchored", {i: "" for i in starts})
        # cycles among the leftovers have no start; seed each still-uncovered triple
        used = {i for c in out[n_before:] for i in c.triples} | used
        for i in rest:
            if i not in used and not truncated:
                bfs([i], "unanchored", {i: ""})
                used |= {j for c in out[n_before:] for j in c.triples}
    return tuple(out), truncated


def merge_answers(chains: Sequence[EvidenceChain], *, mode: AnswerMerge = "relation_path") -> tuple[EvidenceChain, ...]:
    """Multi-answer merging (Appendix D.4.2): same root, same relation path, different targets.

    The merged chain keeps the position of its first member. ``mode="off"`` returns the chains
    unchanged; see the module docstring for ``same_prefix`` vs ``relation_path``.
    """
    if mode == "off":
        return tuple(chains)
    groups: dict[tuple[object, ...], list[EvidenceChain]] = {}
    order: list[tuple[object, ...]] = []
    for c in chains:
        if c.direction == "unanchored":
            key: tuple[object, ...] = ("u", id(c))
        else:
            fixed = c.entities[1:] if c.direction == "backward" else c.entities[:-1]
            key = (normalize_name(c.root), c.direction, c.relations)
            if mode == "same_prefix":
                key += (fixed,)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(c)
    return tuple(_union(groups[k]) for k in order)


def _union(cs: Sequence[EvidenceChain]) -> EvidenceChain:
    if len(cs) == 1:
        return cs[0]
    members = tuple(m for c in cs for m in c.members)
    ents = tuple(tuple(dict.fromkeys(e for c in cs for e in c.entities[p])) for p in range(len(cs[0].entities)))
    return EvidenceChain(members, cs[0].relations, ents, cs[0].root, cs[0].direction)


def _restrict(c: EvidenceChain, keep: set[str], triples: Sequence[Triple], group: int) -> EvidenceChain:
    """The chain with only the members whose target is in ``keep`` (target refinement)."""
    pos = 0 if c.direction == "backward" else -1

    def target(m: tuple[int, ...]) -> str:
        t = triples[m[pos]]
        return normalize_name(t.head if c.direction == "backward" else t.tail)

    members = tuple(m for m in c.members if target(m) in keep)
    sub = _union([_chain(m, triples, c.root, c.direction) for m in members])
    refined = c.targets if len(sub.targets) < len(c.targets) else ()
    return EvidenceChain(sub.members, sub.relations, sub.entities, c.root, c.direction, group, refined)


def merge_entities(chains: Sequence[EvidenceChain], triples: Sequence[Triple]) -> tuple[EvidenceChain, ...]:
    """Multi-entity merging (Appendix D.4.2): spatial reordering + target refinement.

    Chains with distinct (anchored) roots whose target sets overlap are placed next to each other
    and restricted to the shared targets (the intersection). Greedy over the chain order: a chain
    joins the current group when its root is new to the group and the intersection stays
    non-empty. Chains of a single root are returned unchanged.
    """
    n = len(chains)
    used = [False] * n
    out: list[EvidenceChain] = []
    group_id = 0
    for i, c in enumerate(chains):
        if used[i]:
            continue
        used[i] = True
        if c.direction == "unanchored":
            out.append(c)
            continue
        shared = {normalize_name(e) for e in c.targets}
        roots = {normalize_name(c.root)}
        members = [i]
        for j in range(i + 1, n):
            d = chains[j]
            if used[j] or d.direction == "unanchored" or normalize_name(d.root) in roots:
                continue
            inter = shared & {normalize_name(e) for e in d.targets}
            if inter:
                shared = inter
                roots.add(normalize_name(d.root))
                members.append(j)
        if len(members) == 1:
            out.append(c)
            continue
        for j in members:
            used[j] = True
            out.append(_restrict(chains[j], shared, triples, group_id))
        group_id += 1
    return tuple(out)


def reorganize(triples: Sequence[Triple], query_entities: Iterable[str], *, max_length: int = 3,
               bidirectional: bool = True, answer_merge: AnswerMerge = "relation_path", entity_merge: bool = True,
               keep_unanchored: bool = False, max_chains: int = 500, trace: Trace | None = None) -> Reorganization:
    """Two-step structure-aware reorganization (ReG §4.2, Appendix D.4): expansion, then merging.

    Chains are ordered anchored first, each anchored chain by the best score among its triples
    (multi-entity groups stay together), then the unanchored ones. Records a ``reorganize`` trace
    step when ``trace`` is given.

    Returns
    -------
    Reorganization
    """
    import time

    t0 = time.perf_counter()
    triples = tuple(triples)
    q_all = list(dict.fromkeys(query_entities))
    present = {normalize_name(t.head) for t in triples} | {normalize_name(t.tail) for t in triples}
    q = tuple(e for e in q_all if normalize_name(e) in present)
    expanded, truncated = expand_chains(triples, q, max_length=max_length, bidirectional=bidirectional,
                                        keep_unanchored=keep_unanchored, max_chains=max_chains)

    def best(c: EvidenceChain) -> float:
        return max((triples[i].score for i in c.triples), default=0.0)

    anchored = sorted((c for c in expanded if c.direction != "unanchored"), key=lambda c: -best(c))
    unanchored = [c for c in expanded if c.direction == "unanchored"]
    merged = merge_answers(anchored, mode=answer_merge)
    if entity_merge and len({normalize_name(c.root) for c in merged}) > 1:
        merged = merge_entities(merged, triples)
    chains = tuple(merged) + tuple(unanchored)
    stats = {"triples": len(triples), "query_entities": len(q), "expanded": len(expanded),
             "anchored_expanded": len(anchored), "after_answer_merge": len(merge_answers(anchored, mode=answer_merge)),
             "chains": len(chains), "multi_answer_chains": sum(1 for c in chains if c.merged_answers > 1),
             "multi_entity_groups": len({c.group for c in chains if c.group >= 0}),
             "unanchored": len(unanchored), "triples_covered": len({i for c in chains for i in c.triples})}
    out = Reorganization(triples, q, expanded, chains, max_length, truncated, stats)
    if trace is not None:
        trace.add("reorganize", f"ReG reorganization: {len(triples)} triples → {len(chains)} evidence chains", {
            **stats, "max_length": max_length, "answer_merge": answer_merge, "entity_merge": entity_merge,
            "query_entities_in_triples": list(q), "query_entities_given": q_all[:20],
            "chains": [{"text": c.text(), "direction": c.direction, "root": c.root, "merged_answers": c.merged_answers,
                        "group": c.group, "refined_from": list(c.refined_from)} for c in chains[:200]],
            "truncated": truncated}, section="ReG §4.2, Appendix D.4", seconds=time.perf_counter() - t0,
            fallback=f"chain expansion stopped at max_chains={max_chains}; remaining chains were not built"
            if truncated else "")
    return out


def triples_from_edges(graph: GraphLike, edges: Iterable[int], scores: Sequence[float] | None = None) -> list[Triple]:
    """KG edges as :class:`Triple` records (node display names), in the given order."""
    es = [int(e) for e in edges]
    sc = list(scores) if scores is not None else [0.0] * len(es)
    read_ahead(graph, edges=es)  # on a graph store: the rows and end names in one read, not one per triple
    return [Triple(graph.node_names[int(graph.edge_head[e])], graph.edge_relation[e],
                   graph.node_names[int(graph.edge_tail[e])], e, float(s)) for e, s in zip(es, sc)]


def render_triples(triples: Sequence[Triple]) -> str:
    """The raw, unordered triple list the chains are compared against (one ``(h, r, t)`` a line)."""
    return "\n".join(t.text() for t in triples)
