"""Where the baselines lost the gold evidence (failure diagnosis; contract in
:mod:`core.methods.diagnoser`).

* **dense** — ``not_in_graph`` (the gold passage is not a chunk of the workspace, so not in the
  index) / ``ranked_out`` (the rank it reached in the top-k, or not retrieved) / ``answer_wrong``.
* **rerank** (Re2) — the same stages; ``ranked_out`` also gives the vector-search rank before
  reranking, read from the trace's ``rerank`` step, so one sees whether the reranker or the
  candidate search lost it.
* **ppr** — ``not_in_graph`` (no entity of the KG comes from the passage: PPR cannot score it) /
  ``no_anchor`` (no seed entity of the question lies in the passage's entities; the evidence names
  the seeds) / ``ranked_out`` (seeded, or reached by the walk, but ranked below the cut) /
  ``answer_wrong``. On a corpus graph the seeds are passages, so ``no_anchor`` means the passage was
  not a seed.
* **hipporag2** (HippoRAG 2) — ``not_in_graph`` (not a passage of the workspace) / ``no_anchor`` (no kept fact
  names an entity of the passage: either no linked fact does — *not linked* — or recognition memory dropped the
  ones that did — *filtered out*; the evidence says which) / ``ranked_out`` (a phrase seed lies in the passage,
  or HippoRAG 2 returned dense retrieval, and the passage still ranked below the cut) / ``answer_wrong``.
  Filtering is a kind of losing the anchor here, because the diagnosis words are shared by every method
  (:data:`core.methods.base.STAGE_ORDER`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.baselines.stages import RerankData
from core.methods.diagnoser import diagnoser, generic_diagnosis

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.baselines.common import BaselineResult
    from core.methods.baselines.hipporag2 import HippoRAG2Result

_ANSWER = StageDecl("answer_wrong", "retrieved, answer wrong", "all gold passages in the top chunks; the LLM answer is wrong, or (no LLM) the answer holds no gold answer")
DENSE_STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not indexed", "the gold passage is not a chunk of this workspace"),
    StageDecl("ranked_out", "ranked below the cut", "cosine similarity ranked it below the cut (rank reached given)"),
    _ANSWER,
)
RERANK_STAGES: tuple[StageDecl, ...] = (
    DENSE_STAGES[0],
    StageDecl("ranked_out", "ranked below the cut",
              "below the cut after reranking (vector rank before reranking given), or not among the candidates"),
    _ANSWER,
)
PPR_STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not in the graph", "no KG entity comes from the gold passage"),
    StageDecl("no_anchor", "no seed in a gold passage", "no seed entity of the question is an entity of the passage"),
    StageDecl("ranked_out", "ranked below the cut", "the walk scored it below the cut"),
    _ANSWER,
)


HIPPORAG2_STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not indexed", "the gold passage is not a passage of this workspace"),
    StageDecl("no_anchor", "no kept fact in a gold passage",
              "no fact linked to the question names an entity of the passage (not linked), or recognition memory "
              "dropped the ones that did (filtered out)"),
    StageDecl("ranked_out", "ranked below the cut",
              "a phrase seed lies in the passage (or HippoRAG 2 fell back to dense retrieval), but the walk ranked it "
              "below the cut"),
    _ANSWER,
)


def diagnose_dense(result: BaselineResult, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """Dense retrieval: the generic stages (not_in_graph / ranked_out / answer_wrong)."""
    return generic_diagnosis(result, workspace, gold, cut=cut)


def diagnose_rerank(result: BaselineResult, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """Re2: the generic verdict plus, for lost gold, the vector rank before reranking."""
    d = generic_diagnosis(result, workspace, gold, cut=cut)
    if d.stage != "ranked_out":
        return d
    data = RerankData.of(result.trace, last=True)
    vec: dict[str, int] = {}
    final: dict[str, int] = {}
    if data is not None:
        for pos, (cid, vr) in enumerate(zip(data.ranking, data.vector_rank), start=1):
            vec[cid], final[cid] = int(vr), pos
    lost = {c: {"rank": r, "vector_rank": vec.get(c), "rerank_rank": final.get(c)}
            for c, r in d.gold_ranks.items() if r is None or r > cut}
    first = next(iter(lost))
    info = lost[first]
    if info["vector_rank"] is None:
        why = f"it was not among the {len(vec)} vector-search candidates"
    else:
        why = f"vector search ranked it {info['vector_rank']}, the reranker {info['rerank_rank']} (cut {cut})"
    title = workspace.graph.chunk(first).title
    return Diagnosis(d.method, "ranked_out", f"Gold passage “{title}”: {why}.", {**d.evidence, "lost": lost},
                     d.gold_ranks)


def seed_names(seeds: list[tuple[int, str]]) -> list[str]:
    """Each seed node once, by its display name, in seed order: two question entities linked to one node were
    "(seeds: Brask & Sons, Brask & Sons)". Different nodes that share a name are one entry that says how many.

    >>> seed_names([(4, "Brask & Sons"), (4, "Brask & Sons"), (9, "Dellmouth"), (7, "Dellmouth")])
    ['Brask & Sons', 'Dellmouth (2 nodes)']
    """
    nodes: dict[str, set[int]] = {}
    for node, name in seeds:
        nodes.setdefault(name, set()).add(node)
    return [name if len(ids) == 1 else f"{name} ({len(ids)} nodes)" for name, ids in nodes.items()]


@diagnoser()
def diagnose_ppr(result: BaselineResult, workspace: Workspace, gold: Gold, lost: list[str],
                 ranks: dict[str, int | None], cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """HippoRAG (v1) PPR: not_in_graph / no_anchor (seeds) / ranked_out / answer_wrong."""
    graph = workspace.graph
    method = result.method
    seeds = result.details.get("seeds", [])
    corpus = result.details.get("graph") == "corpus graph"
    seed_nodes = {int(s["node"]) for s in seeds}
    seed_view = [{"entity": s["entity"], "node": s["name"], "similarity": round(float(s["similarity"]), 4)}
                 for s in seeds]
    order = [s.key for s in PPR_STAGES]
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        info: dict[str, Any] = {"rank": ranks[cid]}
        if cid not in graph.chunk_index:
            info.update(stage="not_in_graph", why="it is not a passage of this workspace")
        elif corpus:
            seeded = graph.chunk_index[cid] in seed_nodes
            info.update(stage="ranked_out" if seeded else "no_anchor",
                        why="it was a seed passage but the walk ranked it below the cut" if seeded
                        else "it was not among the seed passages and the walk did not lift it into the top")
        else:
            ents = set(graph.chunk_entities(cid))
            if not ents:
                info.update(stage="not_in_graph", why="no KG entity comes from this passage")
            elif ents & seed_nodes:
                hit = seed_names([(v, graph.node_names[v]) for v in sorted(ents & seed_nodes)])
                info.update(stage="ranked_out", seeds_in_passage=hit,
                            why=f"seeded through {', '.join(hit[:3])}, but the walk ranked it "
                                f"{ranks[cid] if ranks[cid] else 'outside the top ' + str(len(result.ranked_chunks))}")
            else:
                info.update(stage="no_anchor", passage_entities=[graph.node_names[v] for v in sorted(ents)][:10],
                            why="no seed entity of the question is an entity of this passage (seeds: "
                                + ", ".join(seed_names([(int(s["node"]), s["name"]) for s in seeds])[:4]) + ")")
        per[cid] = info
    stage = min((p["stage"] for p in per.values()), key=order.index)
    first = next(c for c, p in per.items() if p["stage"] == stage)
    title = graph.chunk(first).title if first in graph.chunk_index else first
    doubtful = list(dict.fromkeys(str(s["doubtful"]) for s in seeds if s.get("doubtful")))
    for view, s in zip(seed_view, seeds):
        if s.get("doubtful"):
            view["doubtful"] = s["doubtful"]
    # a seed that looks wrong is said beside the loss (an audit found "1909" seeded as "1879" only in the seed list)
    note = f" Doubtful seed: {'; '.join(doubtful)}." if doubtful else ""
    return Diagnosis(method, stage, f"Gold passage “{title}”: {per[first]['why']}.{note}",
                     {"lost": per, "seeds": seed_view, "cut": cut}, ranks)


@diagnoser()
def diagnose_hipporag2(result: HippoRAG2Result, workspace: Workspace, gold: Gold, lost: list[str],
                       ranks: dict[str, int | None], cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """HippoRAG 2: not_in_graph / no_anchor (not linked, or filtered out by recognition memory) / ranked_out /
    answer_wrong."""
    graph = workspace.graph
    kept_edges = {f.edge for f in result.kept}
    seeds = {s.node: s.name for s in result.phrase_seeds}
    linked: list[dict[str, Any]] = [{"fact": f.text, "score": round(f.score, 4), "kept": f.edge in kept_edges}
                                    for f in result.linked]
    order = [s.key for s in HIPPORAG2_STAGES]
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        info: dict[str, Any] = {"rank": ranks[cid]}
        where = f"ranked it {ranks[cid]}" if ranks[cid] else f"left it outside the top {len(result.ranked_chunks)}"
        if cid not in graph.chunk_index:
            info.update(stage="not_in_graph", why="it is not a passage of this workspace")
        elif result.dense_fallback is not None:
            info.update(stage="ranked_out", why=f"HippoRAG 2 returned dense retrieval ({result.dense_fallback.why}), "
                                                f"which {where}")
        else:
            ents = set(graph.chunk_entities(cid))
            hit = seed_names([(v, seeds[v]) for v in seeds if v in ents])
            from_it = [f for f in result.linked if f.head in ents or f.tail in ents]
            if hit:
                info.update(stage="ranked_out", seeds_in_passage=hit,
                            why=f"seeded through {', '.join(hit[:3])}, but the walk {where}")
            elif any(f.edge not in kept_edges for f in from_it):
                dropped = [f.text for f in from_it if f.edge not in kept_edges]
                info.update(stage="no_anchor", lost_at="recognition_memory", filtered_out=dropped,
                            why="recognition memory filtered out the linked fact(s) naming its entities: "
                                + "; ".join(dropped[:3]))
            elif from_it:  # kept, but its phrases fell past linking_top_k
                info.update(stage="no_anchor", lost_at="seeds",
                            why="a kept fact names its entities, but those phrases were not among the top "
                                f"{len(result.phrase_seeds)} phrase seeds")
            else:
                info.update(stage="no_anchor", lost_at="linking",
                            why="no linked fact names an entity of this passage (linked: "
                                + "; ".join(f["fact"] for f in linked[:3]) + ")")
        per[cid] = info
    stage = min((p["stage"] for p in per.values()), key=order.index)
    first = next(c for c, p in per.items() if p["stage"] == stage)
    title = graph.chunk(first).title if first in graph.chunk_index else first
    return Diagnosis(result.method, stage, f"Gold passage “{title}”: {per[first]['why']}.",
                     {"lost": per, "linked": linked, "seeds": list(seeds.values()), "cut": cut}, ranks)
