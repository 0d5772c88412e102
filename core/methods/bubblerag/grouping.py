"""§3.2 "Anchor Grouping and Importance Weighting".

"The LLM receives the full set of retrieved candidate nodes along with the query, and clusters them
into groups based on which query concept they correspond to ... The LLM assigns a normalized
importance weight w_i to each group S_i (Σ w_i = 1) ... the core subject entity typically
receives the highest weight."

`none` mode (embedding-based grouping): one group per original keyword, each candidate assigned to
the keyword it matches best (so "Keanu Reeves" stays with the Keanu keyword even when the
specialized "main villain Keanu Reeves" also retrieved it) — except that a keyword left with no
candidate takes back those it ranked higher than their owner did (the "mother" of "Lothair II's
mother" would otherwise vanish into the Lothair II group); two keyword groups merge when their
search embeddings have cosine ≥ 0.8 (the same concept phrased twice), except two full names that share
only a surname ("Jonas Pell", "Anton Pell": two people; a bare "Pell" may join either).
Weights: 2 for an entity keyword, 1 for a concept word or implicit concept, ×1.5 for the first
explicit entity (the core subject), then normalized to sum to 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.backends.base import LLM
from core.graph.reader import GraphLike
from core.methods.bubblerag import checks, heuristics, prompts
from core.methods.bubblerag.candidates import Candidate, Candidates
from core.methods.llm_steps import ask_json
from core.pinning import pin
from core.trace import Step, Trace


@dataclass(frozen=True)
class AnchorGroup:
    gid: int
    concept: str
    weight: float
    members: tuple[Candidate, ...]

    def terminals(self, graph: GraphLike) -> dict[int, str]:
        """Terminal node → anchor id: node anchors, and both endpoints of edge anchors
        ("edge anchors contribute their endpoints"), the first anchor winning."""
        out: dict[int, str] = {}
        for c in self.members:
            nodes = [c.index] if c.kind == "node" else [int(graph.edge_head[c.index]), int(graph.edge_tail[c.index])]
            for v in nodes:
                out.setdefault(v, c.cid)
        return out

    @property
    def anchor_edges(self) -> tuple[int, ...]:
        return tuple(c.index for c in self.members if c.kind == "edge")


@dataclass(frozen=True)
class AnchorGroups:
    groups: tuple[AnchorGroup, ...]
    source: str  #: "llm" or "embedding"
    notes: tuple[str, ...] = ()
    #: why the LLM's weights were replaced by the `none`-mode ones (:data:`RULE_WEIGHTS`) although its groups were
    #: kept ("" when the weights are the LLM's, or when no LLM grouped): the page says whose weights it shows
    weights_check: str = ""

    @property
    def weights(self) -> np.ndarray:
        return np.array([g.weight for g in self.groups], dtype=np.float64)


def group_anchors(query: str, candidates: Candidates, llm: LLM, *, entity_share: float = 0.0, tight_json: bool = True,
                  review: bool = False, trace: Trace | None = None) -> AnchorGroups:
    """Cluster candidates into weighted semantic anchor groups (weights sum to 1).

    ``entity_share`` (`none` mode, ours, 0 = off): the explicit entity groups share this fraction of
    the weights and the concept / implicit groups the rest, proportions within each side kept
    (unchanged when one side is empty). ``review`` (``BubbleConfig.review_grouping``): ask the LLM to
    review the `none`-mode grouping (:func:`_review_groups`) instead of grouping all candidates freely."""
    t0 = time.perf_counter()
    step = Step("grouping", "Semantic anchor groups and importance weights", section="BubbleRAG §3.2")
    if review and llm.available and candidates.items:
        result = _review_groups(query, candidates, llm, step, tight_json=tight_json)
        step.seconds = time.perf_counter() - t0
        if trace is not None:
            trace.record(step)
        return result
    by_id = {c.cid: c for c in candidates.items}
    notes: list[str] = []
    groups: list[AnchorGroup] = []
    rejected = ""  # why the LLM's weights were replaced

    def validate(data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("groups"), list) or not data["groups"]:
            raise ValueError('expected {"groups": [{"concept", "weight", "members"}]} with at least one group')
        for gr in data["groups"]:
            if not isinstance(gr, dict) or not [m for m in gr.get("members", []) if m in by_id]:
                raise ValueError(f"group {gr!r} has no valid member ids (valid: {', '.join(list(by_id)[:12])} ...)")

    # the query concepts are the keywords whose search found a candidate; each candidate is shown with the
    # keyword it matches best, so the task is to merge and weigh concepts, not to invent them
    concepts = [k for k in dict.fromkeys(t.keyword for t in candidates.terms)
                if any(c.best_keyword == k for c in candidates.items)]
    prompt = prompts.grouping_prompt(query, concepts, [(c.cid, c.kind, c.text, c.best_keyword)
                                                       for c in candidates.items])
    out = ask_json(llm, prompts.SYSTEM, prompt,
                   prompts.grouping_schema(tight_json, concepts, list(by_id), min_groups=2 if len(concepts) >= 2 else 1),
                   max_tokens=prompts.STAGE_MAX_TOKENS["grouping"], validate=validate, step=step) if by_id else None
    failed = ""
    if out is not None and out.data is not None:
        copied = prompts.template_copies(out.data, prompt)
        if copied:
            failed = f"the reply copies the prompt's template ({', '.join(map(repr, copied[:3]))})"
        else:
            failed = checks.collapse_problem(
                [[by_id[m].best_keyword for m in gr.get("members", []) if m in by_id] for gr in out.data["groups"]
                 if isinstance(gr, dict)], len(concepts))
        if failed:
            step.fallback = f"check failed: {failed}; used the `none`-mode grouping"
    if out is not None and out.data is not None and not failed:
        source = "llm"
        merged: dict[str, tuple[float, list[Candidate]]] = {}
        used: set[str] = set()
        for gr in out.data["groups"]:
            members = [by_id[m] for m in dict.fromkeys(gr.get("members", [])) if m in by_id and m not in used]
            used.update(c.cid for c in members)
            if members:
                try:
                    w = max(float(gr.get("weight", 0.0)), 0.0)
                except (TypeError, ValueError):
                    w = 0.0
                concept = str(gr.get("concept", "")) or members[0].text
                w0, m0 = merged.get(concept, (0.0, []))
                merged[concept] = (w0 + w, m0 + members)  # two groups of one concept are one group
        raw = [(c, w, m) for c, (w, m) in merged.items()]
        # the LLM orders its own groups here, so only uniform weights show that nothing was judged
        if (uniform := checks.weights_problem([w for _, w, _ in raw])) and len({w for _, w, _ in raw}) == 1:
            raw = [(c, rule_weight(c.split(" / "), candidates, concepts)[0], m) for c, _, m in raw]
            rejected = uniform
            step.fallback = (f"check failed: the weights are no judgement: {uniform}; "
                             f"used the `none`-mode weights ({RULE_WEIGHTS})")
        total = sum(w for _, w, _ in raw)
        if total <= 0:
            notes.append("LLM weights were all zero; using equal weights")
            raw = [(c, 1.0, m) for c, _, m in raw]
            total = float(len(raw))
        if abs(total - 1.0) > 1e-6 and not step.fallback:
            notes.append(f"LLM weights summed to {total:.3f}; renormalized to 1")
        groups = [AnchorGroup(i, c, w / total, tuple(m)) for i, (c, w, m) in enumerate(raw)]
    else:
        source = "embedding"
        groups = _embedding_groups(candidates, entity_share=entity_share)
    step.data = {"source": source, "notes": notes, "concepts": concepts, "groups": [
        {"gid": g.gid, "concept": g.concept, "weight": round(g.weight, 4),
         "members": [{"cid": c.cid, "kind": c.kind, "text": c.text, "score": round(c.score, 4)} for c in g.members]}
        for g in groups]}
    if source == "embedding":
        step.data["rule"] = ("one group per keyword, candidates assigned to their best-matching keyword; merge if keyword cosine >= 0.8 "
                             "(not two full names sharing only a surname); weights 2 (entity) / 1 (concept), x1.5 for the first entity, normalized"
                             + (f"; entity groups rescaled to a share of {entity_share:g} (ours)" if entity_share > 0 else ""))
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return AnchorGroups(tuple(groups), source, tuple(notes), rejected if source == "llm" else "")


def _embedding_groups(candidates: Candidates, *, entity_share: float = 0.0) -> list[AnchorGroup]:
    keywords: list[str] = []
    vec_of: dict[str, np.ndarray] = {}
    kind_of: dict[str, str] = {}
    for t, v in zip(candidates.terms, candidates.term_vectors):
        if t.keyword not in vec_of:
            keywords.append(t.keyword)
            vec_of[t.keyword] = candidates.keyword_vectors.get(t.keyword, v)
            kind_of[t.keyword] = t.kind
    members: dict[str, set[str]] = {k: set() for k in keywords}
    owner: dict[str, str] = {}
    for c in candidates.items:
        members.setdefault(c.best_keyword, set()).add(c.cid)
        owner[c.cid] = c.best_keyword
    _keep_every_concept(candidates, keywords, members, owner)
    keywords = [k for k in keywords if members.get(k)]
    parent = {k: k for k in keywords}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    pairs = [(a, b) for i, a in enumerate(keywords) for b in keywords[i + 1:]]
    cos = pin("bubblerag.grouping.keyword_cosine", np.array([float(vec_of[a] @ vec_of[b]) for a, b in pairs]),
              key="|".join(keywords))
    for (a, b), c in zip(pairs, cos.tolist()):
        if c >= 0.8 and find(a) != find(b) and not _two_people(find(a), find(b), keywords, find):
            parent[find(b)] = find(a)
    clusters: dict[str, list[str]] = {}
    for k in keywords:
        clusters.setdefault(find(k), []).append(k)
    raw = []
    claimed: set[str] = set()
    for _root, ks in clusters.items():
        cids = [c for c in candidates.items if owner.get(c.cid) in ks and c.cid not in claimed]
        claimed.update(c.cid for c in cids)
        if not cids:
            continue
        w, entity = rule_weight(ks, candidates, keywords)
        raw.append((" / ".join(ks), w, tuple(cids), entity))
    total = sum(w for _, w, _, _ in raw) or 1.0
    ents = sum(w for _, w, _, e in raw if e)
    if 0 < entity_share and 0 < ents < total:  # ours (option): entity groups share `entity_share` of the mass
        return [AnchorGroup(i, c, (entity_share * w / ents) if e else ((1 - entity_share) * w / (total - ents)), m)
                for i, (c, w, m, e) in enumerate(raw)]
    return [AnchorGroup(i, c, w / total, m) for i, (c, w, m, _) in enumerate(raw)]


def _two_people(ra: str, rb: str, keywords: list[str], find: Any) -> bool:
    """Whether the clusters rooted at ``ra`` and ``rb`` hold two full names that share only a surname
    (:func:`.heuristics.distinct_names`): their cosine is high ("Jonas Pell", "Anton Pell"), yet they are two
    people, so they stay two groups; a bare "Pell" may join either, the first it meets."""
    xs = [k for k in keywords if find(k) == ra]
    ys = [k for k in keywords if find(k) == rb]
    return any(heuristics.distinct_names(x, y) for x in xs for y in ys)


#: how the `none`-mode weights are set, in the words the trace and the pages show
RULE_WEIGHTS = "2 an entity group, 1 a concept or implicit group, x1.5 the question's first entity, normalized"


def rule_weight(keywords: list[str], candidates: Candidates, active: list[str] | None = None) -> tuple[float, bool]:
    """The `none`-mode weight of a group standing for ``keywords`` (before normalisation) and whether it is
    an entity group: 2 when one of them is an explicit entity keyword (a name or number the question
    writes), else 1; x1.5 when it holds the question's first such keyword among ``active`` (the keywords
    that have a group; default every keyword) — §3.2: "the core subject entity typically receives the
    highest weight". Also the fallback for LLM weights that are no judgement
    (:func:`.checks.weights_problem`)."""
    kind_of: dict[str, str] = {}
    for t in candidates.terms:
        kind_of.setdefault(t.keyword, t.kind)

    def entity(k: str) -> bool:
        return kind_of.get(k) == "explicit" and any(ch.isupper() or ch.isdigit() for ch in k)

    first = next((k for k in (kind_of if active is None else active) if entity(k)), None)
    is_entity = any(entity(k) for k in keywords)
    w = 2.0 if is_entity else 1.0
    return (w * 1.5 if first is not None and first in keywords else w), is_entity


def _keep_every_concept(candidates: Candidates, keywords: list[str], members: dict[str, set[str]],
                        owner: dict[str, str]) -> None:
    """A keyword whose every candidate matched another keyword better would vanish from the query
    ("Lothair II's mother" retrieves edges around Lothair II, each closer to the "Lothair II" keyword):
    it takes back the candidates it ranked higher than their owner did, never an owner's top candidate
    nor one that would leave the owner empty. The concept stays a group (§3.2: every query concept is
    mapped to a group), with the candidates its own search found first."""
    rank: dict[tuple[str, str], int] = {}
    for t, (_search, ids) in zip(candidates.terms, candidates.per_term):
        for i, cid in enumerate(ids):
            rank[(t.keyword, cid)] = min(rank.get((t.keyword, cid), i), i)
    for k in keywords:
        if members.get(k):
            continue
        mine = sorted((i, cid) for (kw, cid), i in rank.items() if kw == k)
        for i, cid in mine:
            prev = owner.get(cid)
            if prev is None or prev == k:
                continue
            if rank.get((prev, cid), 1 << 30) == 0 or len(members[prev]) <= 1 or rank.get((prev, cid), 1 << 30) <= i:
                continue
            members[prev].discard(cid)
            members[k].add(cid)
            owner[cid] = k



def review_order(concepts: list[str]) -> list[int]:
    """The order a review prompt lists the proposed groups in: alphabetical by concept (case aside), so
    that a group's place in the list says nothing about its importance and a reply whose weights follow
    the list can be told from a judgement (:func:`.checks.weights_problem`)."""
    return sorted(range(len(concepts)), key=lambda i: (concepts[i].casefold(), i))


def _review_groups(query: str, candidates: Candidates, llm: LLM, step: Step, *, tight_json: bool) -> AnchorGroups:
    """§3.2 as a review of the `none`-mode grouping (ours, ``BubbleConfig.review_grouping``).

    The paper's LLM clusters all candidates by query concept and weighs the groups. A 1.5B model asked
    that put every candidate into one group in 11 of 19 MuSiQue replies and in both demo questions tried
    (so no two concepts can collide, §3.3). Here the grouping the searches imply (one group per concept:
    :func:`_embedding_groups`) is shown, and the LLM does the judging: which elements stand for a group's
    concept (kept; asked as "keep", not "drop": the 1.5B model listed every id under "drop" on the Keanu
    question, emptying every group, while a copied "keep" list changes nothing); an element another group
    *takes* (one that group's search also found, and that stands for its concept) moves there; groups the LLM names as one concept are merged (unless both
    are names the question writes, :func:`.checks.merge_problem`); and each group's weight. The schema lists
    every group, alphabetically (:func:`review_order`), and makes each keep at least one of its own elements,
    so a reply cannot collapse the groups; a review that still leaves fewer than two groups where two were
    proposed falls back. Weights that are no judgement — every group the same, or falling with the list
    order (:func:`.checks.weights_problem`: 13 and 12 of the 25 recorded reviews before the list was
    alphabetical) — are replaced, visibly, by the `none`-mode weights of the reviewed groups
    (:data:`RULE_WEIGHTS`)."""
    proposal = _embedding_groups(candidates)
    order = review_order([g.concept for g in proposal])
    gids = [f"g{n + 1}" for n in range(len(proposal))]
    by_gid = {gid: proposal[i] for gid, i in zip(gids, order)}
    place = {gid: i for gid, i in zip(gids, order)}  # the group's place in the proposal (question order)
    home = {c.cid: gid for gid, g in by_gid.items() for c in g.members}
    cand = {c.cid: c for g in proposal for c in g.members}
    # a group may take only what its own search also found (a candidate found for two concepts may stand
    # for either): the 1.5B model, free to take any element, moved the "Keanu Reeves" node to "action film"
    takeable = {gid: [cid for cid, c in cand.items() if home[cid] != gid and set(c.keywords) & set(g.concept.split(" / "))]
                for gid, g in by_gid.items()}
    prompt = prompts.grouping_review_prompt(query, [(gid, g.concept, [(c.cid, c.kind, c.text) for c in g.members])
                                                    for gid, g in by_gid.items()], takeable)
    listed = [(gid, [c.cid for c in g.members]) for gid, g in by_gid.items()]
    schema = prompts.grouping_review_schema(listed, takeable) if tight_json else None

    def validate(data: Any) -> None:
        if not isinstance(data, dict):
            raise ValueError('expected {"g1": {"weight": w, "keep": [ids], "take": [ids]}, ..., "same": [[g, g], ...]}')
        for gid, g in by_gid.items():
            entry = data.get(gid)
            if not isinstance(entry, dict) or not isinstance(entry.get("weight"), (int, float)):
                raise ValueError(f'group {gid} needs {{"weight": <0 to 1>, "keep": [...], "take": [...]}}')
            own = {c.cid for c in g.members}
            keep, take = entry.get("keep"), entry.get("take", [])
            if not isinstance(keep, list) or not keep or any(d not in own for d in keep):
                raise ValueError(f"group {gid} keeps at least one of its own elements ({', '.join(sorted(own))}), "
                                 f"not {keep!r}")
            if not isinstance(take, list) or any(d not in takeable[gid] for d in take):
                raise ValueError(f"group {gid} takes only elements of other groups its search also found "
                                 f"({', '.join(takeable[gid]) or 'none'}), not {take!r}")
        for pair in data.get("same", []) or []:
            if not isinstance(pair, list) or len(pair) != 2 or any(x not in by_gid for x in pair):
                raise ValueError(f'"same" holds pairs of group ids ({", ".join(gids)}), not {pair!r}')

    out = ask_json(llm, prompts.SYSTEM, prompt, schema or {"type": "object"},
                   max_tokens=prompts.grouping_review_max_tokens(listed, takeable), validate=validate, step=step)
    concepts = [g.concept for g in proposal]
    proposed = [{"gid": gid, "concept": g.concept, "members": [c.cid for c in g.members]} for gid, g in by_gid.items()]
    notes: list[str] = []
    failed = ""
    groups: list[AnchorGroup] = []
    edits: dict[str, Any] = {}
    if out.data is not None:
        data = out.data
        parent = {gid: gid for gid in gids}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        same, refused = [], []
        for a, b in (tuple(p) for p in data.get("same", []) or [] if p[0] != p[1]):
            why = checks.merge_problem(by_gid[a].concept, by_gid[b].concept, query)
            if why:
                refused.append({"pair": [a, b], "check": why})
                continue
            same.append((a, b))
            parent[find(b)] = find(a)
        if refused:
            notes.append("merges refused: " + "; ".join(str(r["check"]) for r in refused))
        kept_ids = {gid: list(dict.fromkeys(data[gid]["keep"])) for gid in gids}
        # an element another group takes moves there (the first taker in list order), unless that would leave
        # its own group with nothing
        moved: dict[str, str] = {}
        for gid in gids:
            for cid in dict.fromkeys(data[gid].get("take", []) or []):
                src = home[cid]
                if cid in moved or not [x for x in kept_ids[src] if x != cid and x not in moved]:
                    continue
                moved[cid] = gid
        members_of = {gid: [cand[x] for x in kept_ids[gid] if x not in moved] +
                      [cand[x] for x, to in moved.items() if to == gid] for gid in gids}
        dropped = {gid: [c.cid for c in by_gid[gid].members if c.cid not in kept_ids[gid] and c.cid not in moved]
                   for gid in gids}
        merged: dict[str, tuple[list[str], float, list[Candidate], int]] = {}
        for gid in sorted(gids, key=place.__getitem__):  # a merged group names its concepts in question order
            kept = members_of[gid]
            if not kept:
                continue
            names, w, mem, first = merged.get(find(gid), ([], 0.0, [], place[gid]))
            merged[find(gid)] = ([*names, by_gid[gid].concept], w + max(float(data[gid]["weight"]), 0.0), mem + kept,
                                 min(first, place[gid]))
        reply_w = {gid: data[gid]["weight"] for gid in gids}
        edits = {"dropped": {g: d for g, d in dropped.items() if d},
                 "moved": [{"cid": cid, "from": home[cid], "to": to} for cid, to in moved.items()],
                 "same": [list(p) for p in same], "refused": refused, "weights": reply_w}
        if len(proposal) >= 2 and len(merged) < 2:
            failed = (f"the review left {len(merged)} group(s) of the {len(proposal)} proposed: with one group no two "
                      "concepts can collide")
        else:
            raw = sorted(merged.values(), key=lambda r: r[3])  # groups in question order, as proposed
            weights_check = checks.weights_problem([float(reply_w[gid]) for gid in gids])
            if weights_check:
                raw = [(n, rule_weight([k for c in n for k in c.split(" / ")], candidates,
                                       [k for c in concepts for k in c.split(" / ")])[0], m, f) for n, _, m, f in raw]
                step.fallback = (f"check failed: the weights are no judgement: {weights_check}; "
                                 f"used the `none`-mode weights ({RULE_WEIGHTS})")
            edits["weights_check"] = weights_check or "informative"
            total = sum(w for _, w, _, _ in raw)
            if total <= 0:
                notes.append("LLM weights were all zero; using equal weights")
                raw = [(n, 1.0, m, f) for n, _, m, f in raw]
                total = float(len(raw))
            if abs(total - 1.0) > 1e-6 and not weights_check:
                notes.append(f"LLM weights summed to {total:.3f}; renormalized to 1")
            groups = [AnchorGroup(i, " / ".join(n), w / total, tuple(m)) for i, (n, w, m, _) in enumerate(raw)]
        if failed:
            step.fallback = f"check failed: {failed}; used the `none`-mode grouping"
    source = "llm" if groups else "embedding"
    if not groups:
        groups = proposal
    step.data = {"source": source, "notes": notes, "concepts": concepts, "mode": "review", "proposed": proposed,
                 "review": edits, "groups": [
                     {"gid": g.gid, "concept": g.concept, "weight": round(g.weight, 4),
                      "members": [{"cid": c.cid, "kind": c.kind, "text": c.text, "score": round(c.score, 4)}
                                  for c in g.members]} for g in groups]}
    if source == "embedding" or edits.get("weights_check", "informative") != "informative":
        step.data["rule"] = ("one group per keyword, candidates assigned to their best-matching keyword; merge if keyword "
                             f"cosine >= 0.8 (not two full names sharing only a surname); weights {RULE_WEIGHTS}")
    weights_check = edits.get("weights_check", "informative")
    return AnchorGroups(tuple(groups), source, tuple(notes),
                        weights_check if source == "llm" and weights_check != "informative" else "")
