"""PPR query latency on MuSiQue vs BubbleRAG's expansion on the same queries.

HippoRAG (v1) PPR (query entities → seeds → sparse power iteration → passage scores) runs through
the method registry; dense retrieval on the same questions is the in-process baseline (ratio =
PPR / dense). BubbleRAG (``none`` LLM mode) runs on the same questions and we read the wall time
of its localized-graph and bubble-expansion stages from its trace (the part that competes with
PPR as "graph search"), plus its whole pipeline. Entity-graph construction (synonymy edges) is
built once before timing, as an index would be; its one-off cost is reported separately.

Usage: python benchmarks/ppr_latency.py [--questions N] [--out f.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._fi_common import setup, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.methods.baselines.stages import EntityGraphData
    from core.methods.registry import get_method

    ws, backends, questions = setup()
    qs = questions[: args.questions]
    ppr, dense = get_method("ppr").run, get_method("dense").run
    t0 = time.perf_counter()
    first = ppr(qs[0].question, ws, backends=backends)
    build = first.trace.stage(EntityGraphData.STAGE)[0]
    built = EntityGraphData.from_data(build.data)
    warm = time.perf_counter() - t0
    dense(qs[0].question, ws, backends=backends)
    res: dict[str, object] = {"questions": len(qs), "entity_graph_build_s": round(build.seconds, 3),
                              "synonym_edges": built.synonym_edges, "first_query_s": round(warm, 3)}
    t_ppr, t_ppr_ret, t_graph, t_dense, t_dense_ret = [], [], [], [], []
    for q in qs:
        t0 = time.perf_counter()
        r = ppr(q.question, ws, backends=backends)
        t_ppr.append(time.perf_counter() - t0)
        # retrieval = every traced step but the (extractive) answer; graph search = walk + passage scores
        t_ppr_ret.append(sum(s.seconds for s in r.trace.steps if s.stage != "answer"))
        t_graph.append(sum(s.seconds for s in r.trace.steps if s.stage in ("ppr", "passage_scores")))
        t0 = time.perf_counter()
        d = dense(q.question, ws, backends=backends)
        t_dense.append(time.perf_counter() - t0)
        t_dense_ret.append(sum(s.seconds for s in d.trace.steps if s.stage != "answer"))
    res["ppr_query"] = summary(t_ppr)
    res["ppr_retrieval"] = summary(t_ppr_ret)
    res["ppr_graph_search"] = summary(t_graph)
    res["dense_query"] = summary(t_dense)
    res["dense_retrieval"] = summary(t_dense_ret)
    res["ppr_over_dense_retrieval"] = round(sum(t_ppr_ret) / sum(t_dense_ret), 2)
    print(f"MuSiQue, {len(qs)} questions. Entity graph (with {res['synonym_edges']} synonymy edges) built once "
          f"in {res['entity_graph_build_s']} s")
    print(f"  PPR retrieval (entities, linking, walk, passage scores): {res['ppr_retrieval']}")
    print(f"    of which graph search (power iteration + scores)     : {res['ppr_graph_search']}")
    print(f"  dense retrieval (query embedding + FAISS)              : {res['dense_retrieval']}")
    print(f"  PPR / dense retrieval                                  : {res['ppr_over_dense_retrieval']}x")
    print(f"  whole queries incl. extractive answer: PPR {res['ppr_query']}, dense {res['dense_query']}")
    if importlib.util.find_spec("core.methods.bubblerag") is None:
        res["bubblerag"] = "BubbleRAG lands later: core.methods.bubblerag is not importable"
        print(f"  {res['bubblerag']}")
    else:
        bub = get_method("bubblerag").run
        bub(qs[0].question, ws, backends=backends)
        t_exp, t_all = [], []
        for q in qs:
            t0 = time.perf_counter()
            r = bub(q.question, ws, backends=backends)
            t_all.append(time.perf_counter() - t0)
            t_exp.append(sum(s.seconds for s in r.trace.steps if s.stage in ("localize", "expansion")))
        res["bubblerag_localize_plus_expansion"] = summary(t_exp)
        res["bubblerag_pipeline"] = summary(t_all)
        res["bubble_expansion_over_ppr_graph_search"] = round(sum(t_exp) / sum(t_graph), 2)
        res["bubblerag_pipeline_over_ppr_query"] = round(sum(t_all) / sum(t_ppr), 2)
        print(f"  BubbleRAG localize + bubble expansion                  : {res['bubblerag_localize_plus_expansion']}")
        print(f"  BubbleRAG expansion / PPR graph search                 : "
              f"{res['bubble_expansion_over_ppr_graph_search']}x")
        print(f"  BubbleRAG whole pipeline (none mode)                   : {res['bubblerag_pipeline']}")
        print(f"  BubbleRAG pipeline / PPR whole query                   : {res['bubblerag_pipeline_over_ppr_query']}x")
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
