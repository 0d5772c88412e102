"""The ``reg`` retrieval method: ReG@Triple retrieval + structure-aware reorganization (ReG §4, App. D–F).

========================  ===================  ==============================================
stage                     module               paper
========================  ===================  ==============================================
query entity linking      linking.py           topic entities (given in ReG's datasets)
neighbourhood             retriever.py         App. E (score every triple of the subgraph)
triple scoring (top-K)    retriever.py, dde    D.3 Eq. 33, App. E (MLP + DDE), K
  or, retriever='entity'  entity_retriever.py  D.3 Eq. 34, App. E (PNA entities, K + 200)
reorganization            chains.py            §4.2, D.4 (BFS chains, both merges)
answer                    evidence.py          §4.2, App. F (chains prompt)
========================  ===================  ==============================================

Without a trained retriever for the workspace (``egx train-reg``), ``RegConfig.untrained``
decides: ``"cosine"`` (default) scores triples by the cosine between the query and the enriched
triple text and records that as a visible fallback; ``"error"`` raises a :class:`WorkspaceError`
naming the command. ``ranked_chunks`` are the provenance passages of the kept triples, each scored by
its best triple, best first.

On a workspace whose graph lives in a graph store (FalkorDB) ReG never loads the whole
graph: the query entities are linked by the store's batch name lookup, and the triples scored are
those of the store's ``hops``-region of the query entities (App. E's "question subgraph"; ``hops``
is ``RegConfig.hops``), at most ``RegConfig.region_max_nodes`` nodes; every later stage runs on that
region with its edges mapped back to global ids. Uncapped, the result equals the in-memory one; a
capped region is a visible fallback of the ``neighbourhood`` step. In memory the whole graph is
already loaded and its CSR arrays are read directly, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from core.backends import prompts as bprompts
from core.backends.tokens import count_tokens
from core.errors import EmptyGraphError, WorkspaceError
from core.graph.reader import question_graph, reach, read_ahead, whole_graph
from core.methods.answering import passages_prompt, record_answer
from core.methods.base import Backends, RankedChunk, RunResult
from core.methods.evidence.chains import Reorganization, Triple, triples_from_edges
from core.methods.evidence.formats import evidence_prompts
from core.methods.evidence.linking import Linked, link_query_entities
from core.methods.reg.config import RegConfig
from core.methods.reg.stages import NeighbourhoodData, ScoreData
from core.methods.run_start import begin_run
from core.pinning import pin

if TYPE_CHECKING:
    from core.index.workspace import Workspace


#: Shown by every page, `egx ask` and `egx bench` whenever ``reg`` ran without a trained retriever.
NOT_TRAINED_NOTICE = ("Not ReG's trained retriever: no ReG@Triple model is trained for this workspace, so triples were "
                      "scored by query–triple cosine (the untrained fallback). Train one with `egx train-reg`.")
#: Shown the same way when the retriever was trained on weak labels: the paper's "w/o S(I)" ablation, not ReG.
WEAK_NOTICE = ("ReG w/o S(I): the retriever was trained on weak query→answer shortest-path labels (the paper's "
               "ablation), not on LLM-refined supervision. Train on S(I) with `egx train-reg --llm local`.")
#: Shown instead of :data:`NOT_TRAINED_NOTICE` when a retriever trained for this workspace lost to cosine on its held-out
#: split and was kept aside: "no model is trained" sent an audit's engineer to train again.
KEPT_ASIDE_NOTICE = ("Not ReG's trained retriever: the ReG@Triple model trained for this workspace was kept aside (it "
                     "scored below untrained cosine on its held-out split), so triples were scored by query–triple "
                     "cosine (the untrained fallback). `egx train-reg --use-anyway` trains one and installs it whatever "
                     "its held-out score.")
#: The two notices in the app's words (``data["notice_app"]``; :func:`core.methods.answering.method_notices`).
NOT_TRAINED_NOTICE_APP = NOT_TRAINED_NOTICE.replace(
    "Train one with `egx train-reg`.", "Train one in the Train panel of the Evidence chains page.")
WEAK_NOTICE_APP = WEAK_NOTICE.replace(
    "Train on S(I) with `egx train-reg --llm local`.",
    "Train on S(I) in the Train panel of the Evidence chains page, with an LLM chosen in the sidebar.")
KEPT_ASIDE_NOTICE_APP = KEPT_ASIDE_NOTICE.replace(
    "`egx train-reg --use-anyway` trains one and installs it whatever its held-out score.",
    "“Use it anyway” in the Train panel of the Evidence chains page installs it.")
#: Each notice in the app's words, for views that read a notice's CLI text back (a saved benchmark run).
APP_WORDING = {NOT_TRAINED_NOTICE: NOT_TRAINED_NOTICE_APP, WEAK_NOTICE: WEAK_NOTICE_APP,
               KEPT_ASIDE_NOTICE: KEPT_ASIDE_NOTICE_APP}


@dataclass(frozen=True, eq=False)
class RegResult(RunResult):
    config: RegConfig
    linked: Linked
    scorer: str  #: :func:`~core.methods.reg.retriever.scorer_label`: S(I)-trained, w/o S(I), or cosine fallback
    candidates: int  #: triples scored
    kept: tuple[Triple, ...]  #: top-K triples, best first
    reorganization: Reorganization
    #: what ReG would hand over as KG nodes, best first (scored node by node as FastInsight §4.3.1 scores its KG
    #: corpora): the head and tail entities of the kept triples in triple-score order (node rows; a node counts once)
    node_ranking: tuple[int, ...] = ()

    @property
    def node_ranking_note(self) -> str:
        """Why :attr:`node_ranking` is empty ("" when it is not)."""
        return "" if self.node_ranking else "ReG kept no triple, so it handed over no KG node"

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """None besides its passages (:attr:`~core.methods.base.MethodResult.evidence_nodes`)."""
        return ()


def run(query: str, workspace: Workspace, *, config: RegConfig | None = None, backends: Backends) -> RegResult:
    """Answer ``query`` with ReG@Triple retrieval and evidence chains.

    Parameters
    ----------
    query : str
    workspace : Workspace
        A KG workspace; its node and edge indexes give the embeddings.
    config : RegConfig or None
    backends : Backends

    Returns
    -------
    RegResult

    Raises
    ------
    QueryError, ConfigError, EmptyGraphError
    WorkspaceError
        With ``untrained="error"`` when no trained retriever exists (names ``egx train-reg``).
    """
    from core.methods.reg.entity_retriever import (
        EXTRA_K,
        EntityRetriever,
        load_entity_retriever,
        merge_parallel,
        merged_relation,
    )
    from core.methods.reg.models import model_folder
    from core.methods.reg.retriever import (
        TripleRetriever,
        load_retriever,
        neighbourhood,
        scorer_identity,
        scorer_label,
    )

    start = begin_run("reg", query, workspace, config, RegConfig, backends,
                      empty_query="The question is empty. Type a question to retrieve evidence for.")
    cfg, trace = start.config, start.trace
    qgraph = question_graph(workspace)
    if qgraph.n_edges == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no triples; ReG retrieves triples from a KG.")
    node_vecs = workspace.index("nodes", backends.embedder).vectors
    edge_vecs = workspace.index("edges").vectors
    qvec = backends.embed_query(query)

    with trace.timed("link", "Query entities linked to KG nodes", section="ReG §4.2 (query entities)") as step:
        linked = link_query_entities(query, qgraph, node_vectors=node_vecs, qvec=qvec)
        step.data = {"entities": list(linked.names), "how": linked.how}
        step.fallback = linked.fallback

    with trace.timed("neighbourhood", f"Triples within {cfg.hops} hops of the query entities",
                     section="ReG App. E") as step:
        # in memory the whole graph is already here and its CSR arrays are the fastest region there is; a
        # graph store reads only the hops-region of the query entities, capped at region_max_nodes: uncapped
        # it holds exactly the triples App. E scores on the whole graph, in the same order, so results are equal
        region = reach(qgraph, linked.nodes, hops=cfg.hops, max_nodes=cfg.region_max_nodes, walk=False)
        graph, node_rows, edge_rows = region.graph, region.node_rows(node_vecs), region.edge_rows(edge_vecs)
        topic = tuple(int(v) for v in region.local_nodes(linked.nodes))
        edges, n_all = neighbourhood(graph, topic, cfg.hops, edge_vectors=edge_rows, qvec=qvec,
                                     max_candidates=cfg.max_candidates)
        step.data = NeighbourhoodData(hops=cfg.hops, triples=int(edges.size), before_cap=n_all,
                                      **region.region_data(qgraph.n_nodes)).data()
        notes = [f"the region would exceed region_max_nodes={cfg.region_max_nodes} nodes at hop {region.hops + 1}; "
                 f"ReG scores the triples within {region.hops} hops (of {cfg.hops} requested)"] if region.capped else []
        if n_all > edges.size:
            notes.append(f"{n_all} triples exceed max_candidates={cfg.max_candidates}; the most query-similar were kept")
        step.fallback = "; ".join(notes)

    entity = cfg.retriever == "entity"  # ReG@Entity (App. E): a PNA scores entities, triples score by their ends
    folder = model_folder(workspace, cfg)
    with trace.timed("score", "Score triples and keep the top-K",
                     section="ReG D.3 Eq. 34, App. E" if entity else "ReG D.3 Eq. 33, App. E") as step:
        ret: TripleRetriever | EntityRetriever | None
        said: dict[str, Any] = {}  # the step's notes for every view (StepNotes' fields of ScoreData)
        try:
            if entity:
                ret = load_entity_retriever(folder, workspace=workspace, embedder_id=backends.embedder.model_id)
            else:
                ret = load_retriever(folder, workspace=workspace, embedder_id=backends.embedder.model_id)
        except WorkspaceError as exc:
            if cfg.untrained == "error":
                raise
            ret = None
            step.fallback = (f"{exc} Scoring by query–triple cosine instead (the untrained fallback; "
                             "set untrained='error' to require a trained retriever).")
            said["fallback_app"] = f"{exc.in_app()} Scoring by query–triple cosine instead (the untrained fallback)."
        if ret is not None:
            scores = ret.score(qvec, edges, graph, node_rows, edge_rows, topic)
            name = "ReG@Entity" if entity else "ReG@Triple"
            scorer = scorer_label(ret.manifest)
            if ret.manifest.get("supervision") != "refined":
                said.update(notice=WEAK_NOTICE, notice_app=WEAK_NOTICE_APP)
            from core.methods.reg.keep import below_cosine, held_out_note

            worse = below_cosine(ret.manifest)  # said wherever the run is shown, with its held-out figures
            if worse:
                said["more_notices"] = [worse]
            elif quiet := held_out_note(ret.manifest):  # below cosine by less than noise: said, not warned
                said["quiet_notes"] = [quiet]
        else:
            scores = edge_rows[edges] @ qvec if edges.size else np.zeros(0, np.float32)
            name, scorer = "cosine", scorer_label(None)
            from core.methods.reg.keep import aside_dir
            from core.methods.reg.models import aside_at_pin, is_pin
            from core.methods.reg.retriever import default_model_dir, is_model_folder

            # a benchmark's pin says what was kept aside when the run started, as it says which model it scores with
            aside = aside_at_pin(cfg.model) if cfg.model and is_pin(cfg.model) else \
                not cfg.model and is_model_folder(aside_dir(default_model_dir(workspace)))
            if not entity and aside:
                said.update(notice=KEPT_ASIDE_NOTICE, notice_app=KEPT_ASIDE_NOTICE_APP)
            else:
                said.update(notice=NOT_TRAINED_NOTICE, notice_app=NOT_TRAINED_NOTICE_APP)
        # the scorer is part of what a recording replays: a run recorded with another scorer (e.g. the cosine
        # fallback, before a trained retriever was there) misses here and says so, instead of replaying the
        # other scorer's ranking under this scorer's name
        scores = pin("reg.score.triples", scores, ids=edges, key=scorer_identity(ret.manifest if ret else None))
        top_k = cfg.top_k
        if entity and ret is not None:  # App. E: parallel relations merged into one triple, K + 200
            top_k += EXTRA_K
            units = merge_parallel(graph, edges, scores, top_k)
            at = {int(e): i for i, e in enumerate(edges.tolist())}
            local = [replace(t, relation=merged_relation(graph, u)) for t, u in
                     zip(triples_from_edges(graph, [u[0] for u in units], [float(scores[at[u[0]]]) for u in units]),
                         units)]
        else:
            order = np.argsort(-scores, kind="stable")[:top_k]
            local = triples_from_edges(graph, edges[order], scores[order].tolist())
            units = [(t.edge,) for t in local]
        kept = [replace(t, edge=region.global_edge(t.edge)) for t in local]
        step.data = ScoreData(**said, retriever=name, scorer=scorer, model_dir=str(folder), scored=int(edges.size),
                              top_k=top_k, kept=[{"triple": t.text(), "score": round(t.score, 4), "edge": t.edge}
                                                 for t in kept],
                              merged_parallel=sum(len(u) - 1 for u in units) if entity and ret is not None
                              else None).data()

    from core.graph.synonyms import synonym_edges_walked

    syn = synonym_edges_walked(graph, [e for u in units for e in u], stored=None if whole_graph(qgraph) is not None
                               else workspace.meta.synonym_edges)
    if syn is not None:
        trace.add("synonym_edges", "Synonym edges among the kept triples", syn,
                  section="HippoRAG §3.1 (synonymy edges)")

    cited = list(dict.fromkeys(c for u in units for e in u for c in graph.edge_chunks[e]))
    read_ahead(qgraph, chunk_ids=cited)
    chunks = {c: (qgraph.chunk(c).title, qgraph.chunk(c).text) for c in cited if c in qgraph.chunk_index}
    sources = [list(dict.fromkeys(c for e in u for c in graph.edge_chunks[e] if c in chunks)) for u in units]
    reorg_kw = dict(graph=graph, query_entities=linked.names, max_length=cfg.max_length, answer_merge=cfg.answer_merge,
                    entity_merge=cfg.entity_merge, keep_unanchored=cfg.keep_unanchored, llm=backends.llm,
                    demonstration=True)  # App. F: ReG's answer prompt opens with an in-context example
    chosen = list(range(len(kept)))
    if cfg.evidence_format != "passages" and (cfg.answer_chunks is not None or cfg.answer_tokens is not None):
        chosen = budget_triples(query, kept, sources, cfg, reorg_kw)
    given = [kept[i] for i in chosen]

    title = f"ReG reorganization of {len(given)} triples" + (f" (of {len(kept)}, the answer budget)"
                                                                 if len(given) < len(kept) else "")
    with trace.timed("reorganize", title, section="ReG §4.2, App. D.4") as step:
        ev = evidence_prompts(query, given, **reorg_kw)  # type: ignore[arg-type]
        r = ev.reorg
        step.data = {**r.stats, "chains": [c.text() for c in r.chains], "truncated": r.truncated,
                     "evidence_tokens": ev.tokens, "tokenizer": ev.tokenizer}
        if len(given) < len(kept):
            step.data["budget_note"] = (f"the answer budget ({cfg.answer_budget}) kept the top {len(given)} of "
                                        f"{len(kept)} triples (" + ", ".join(
                                            [*([f"from at most {cfg.answer_chunks} passages"] if cfg.answer_chunks else []),
                                             *([f"{cfg.answer_tokens:,} tokens of {cfg.evidence_format}"]
                                               if cfg.answer_tokens else [])]) + ")")
    best: dict[str, float] = {}
    for t, u in zip(local, units):
        for c in (c for e in u for c in graph.edge_chunks[e]):
            if c in chunks and c not in best:
                best[c] = t.score
    ranked = tuple(RankedChunk(c, s) for c, s in list(best.items())[:cfg.max_chunks])
    passages = [(c.chunk_id, chunks[c.chunk_id][0], chunks[c.chunk_id][1]) for c in ranked]
    if not passages and kept:
        passages = [("", "", t.text()) for t in kept[:1]]
    if passages:  # the passage prompt's cost too, so all three formats are comparable
        ptxt = passages_prompt(query, passages, max_passages=cfg.answer_passages)
        ev.prompts["passages"] = ptxt
        ev.tokens["passages"] = count_tokens([bprompts.ANSWER_SYSTEM + "\n" + ptxt], backends.llm)[0][0]
    ans = record_answer(trace, query, passages, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format, evidence=ev, max_tokens=cfg.answer_tokens,
                        budget=cfg.answer_budget,
                        evidence_chunks=list(dict.fromkeys(c for i in chosen for c in sources[i])),
                        evidence_max_chunks=cfg.answer_chunks)
    ends = [int(x) for t in local for x in (graph.edge_head[t.edge], graph.edge_tail[t.edge])]  # triple-score order
    nodes = tuple(dict.fromkeys(int(v) for v in region.global_nodes(np.asarray(ends, dtype=np.int64)).tolist()))
    return RegResult("reg", query, ranked, ans.text, trace, cfg, linked, scorer, int(edges.size), tuple(kept), ev.reorg,
                     nodes)


def budget_triples(query: str, kept: Sequence[Triple], sources: Sequence[Sequence[str]], cfg: RegConfig,
                   reorg_kw: dict[str, Any]) -> list[int]:
    """The kept triples (indices, best first) a comparison budget (:mod:`core.methods.budget`) hands the answer
    in the triple or chain format.

    ``answer_chunks``: triples best first while the passages they come from (``sources``) stay within that
    many — a triple that would add one past it is left out, a later one from passages already in still goes
    in (its chunks are the passages its triples come from). ``answer_tokens``: then the most top triples
    whose evidence — the triple lines, or their reorganized chains — fits in that many WordPiece tokens.
    """
    from core.methods.answering import count_evidence, fit_count

    chosen = list(range(len(kept)))
    if cfg.answer_chunks is not None:
        inside: list[str] = []
        chosen = []
        for i, src in enumerate(sources):
            new = [c for c in src if c not in inside]
            if len(inside) + len(new) <= cfg.answer_chunks:
                inside += new
                chosen.append(i)
    if cfg.answer_tokens is None or not chosen:
        return chosen
    budget = cfg.answer_tokens
    if cfg.evidence_format != "chains":
        return chosen[:fit_count(count_evidence([kept[i].text() for i in chosen]), budget)]

    def tokens(n: int) -> int:
        ev = evidence_prompts(query, [kept[i] for i in chosen[:n]], **reorg_kw)
        return count_evidence([ev.evidence_text("chains")])[0]

    # chains of more triples take more tokens (nearly always: merging can shorten them), so bisect for the
    # largest prefix that fits; every prefix kept was counted, so the handed chains never pass the budget
    lo, hi = 0, len(chosen)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tokens(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return chosen[:lo]
