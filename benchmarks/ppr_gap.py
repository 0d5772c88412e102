"""Where the seed methods lose gold passages that PPR finds, to tell defects from limits of `none` mode.

Reads one ``egx bench`` ``results.jsonl`` that holds ``ppr`` and the seed methods on the same questions,
and for every seed method X and every k (default 2 and 5) counts:

* **PPR-only gold** — gold passages in PPR's top k that are not in X's top k, broken down by the stage at
  which X lost them. The stage is X's own per-passage verdict from its failure diagnosis
  (``diagnosis.evidence.lost[chunk].stage``, written at the run's ``--cut``); a passage X ranked inside the
  cut but below k (k < cut) is ``ranked_out`` by definition (it was retrieved, only lower); a method whose
  diagnosis gives no per-passage stage (SG-RAG) gets its question-level verdict. Each passage also records
  X's rank bucket (3-5, 6-10, 11-15, > 15 / not retrieved). BubbleRAG's ``ranked_out`` is split into
  "CEG below top n" (§3.4: only CEGs ranked below n hold it) and "chunk order" (§3.6: G_final cites it,
  the chunk ranking put it below k), the latter by whether G_final cites it through one of its triples or
  only through a node it mentions (``cited_by``), and BubbleRAG's ``no_anchor`` / ``not_expanded`` by
  whether G′ held any of its entities (``in_local``): the per-question trace table of the README's
  "Why the seed methods lose to PPR" section, regenerated from one bench run.
* **X-only gold** — the reverse: gold in X's top k that PPR misses, broken down by PPR's diagnosis the
  same way.

Writes a JSON (per method, per k: totals, by-stage counts, rank buckets, and the question ids / chunk ids /
titles behind every count) and a markdown table.

Usage: python benchmarks/ppr_gap.py RUN_DIR/results.jsonl [--methods bubblerag,fastinsight,sgrag,reg]
       [--ks 2,5] [--baseline ppr] [--out gap.json] [--md gap.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

SEED_METHODS = ("bubblerag", "fastinsight", "sgrag", "reg")
BUCKETS = ((3, 5, "3-5"), (6, 10, "6-10"), (11, 15, "11-15"))


def read_results(path: str | Path) -> dict[str, dict[str, dict[str, Any]]]:
    """method -> question id -> the last record of that pair (a resumed run may repeat a pair)."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    out: dict[str, dict[str, dict[str, Any]]] = {}
    with opener(p, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            out.setdefault(rec["method"], {})[str(rec["question_id"])] = rec
    return out


def rank_of(rec: dict[str, Any], cid: str) -> int | None:
    """1-based rank of ``cid`` in the record's ranked list (None when not retrieved)."""
    try:
        return rec["ranked"].index(cid) + 1
    except ValueError:
        return None


def bucket(rank: int | None) -> str:
    if rank is None:
        return "not retrieved"
    for lo, hi, name in BUCKETS:
        if lo <= rank <= hi:
            return name
    return "1-2" if rank <= 2 else "> 15"


def passage_stage(rec: dict[str, Any], cid: str, k: int) -> str:
    """The stage at which ``rec``'s method lost gold passage ``cid`` from its top ``k``."""
    diag = rec.get("diagnosis") or {}
    ev = diag.get("evidence") or {}
    lost = ev.get("lost")
    if isinstance(lost, dict) and isinstance(lost.get(cid), dict) and lost[cid].get("stage"):
        info = lost[cid]
        if info["stage"] == "ranked_out" and "ceg_rank" in info:  # BubbleRAG: which ranking lost it
            return "ranked_out: CEG below top n"
        if info["stage"] == "ranked_out" and rec.get("method") == "bubblerag":
            via = {"edge": " (cited by an edge)", "node": " (cited by a node only)"}.get(info.get("cited_by"), "")
            return "ranked_out: chunk order" + via
        if info.get("in_local") is False:  # BubbleRAG: none of its entities was in G'
            return f"{info['stage']}: not in G'"
        return str(info["stage"])
    missing = ev.get("missing")
    if isinstance(missing, dict) and cid in missing:
        return "not_in_graph"
    r = rank_of(rec, cid)
    cut = int(ev.get("cut") or 5)
    if r is not None and k < r <= cut:  # retrieved inside the diagnosis cut, only below k
        return "ranked_out: chunk order" if rec.get("method") == "bubblerag" else "ranked_out"
    if rec.get("error"):
        return "error"
    stage = diag.get("stage")
    if stage and stage not in ("ok", "no_gold", "answer_wrong"):
        return str(stage)  # question-level verdict (the method gives no per-passage stage)
    return "ranked_out" if r is not None else "unknown"


def compare(results: dict[str, dict[str, dict[str, Any]]], method: str, k: int, *,
            baseline: str = "ppr") -> dict[str, Any]:
    """Gold in the baseline's top k and not in ``method``'s (by ``method``'s stage), and the reverse."""
    base, other = results[baseline], results[method]
    qids = [q for q in base if q in other]
    gap: list[dict[str, Any]] = []
    rev: list[dict[str, Any]] = []
    n_gold = 0
    hits = {baseline: 0, method: 0}
    for q in qids:
        b, x = base[q], other[q]
        gold = list(dict.fromkeys(b.get("gold") or []))
        n_gold += len(gold)
        top_b, top_x = set(b["ranked"][:k]), set(x["ranked"][:k])
        hits[baseline] += len(top_b.intersection(gold))
        hits[method] += len(top_x.intersection(gold))
        for cid in gold:
            if cid in top_b and cid not in top_x:
                r = rank_of(x, cid)
                gap.append({"question_id": q, "chunk": cid, "stage": passage_stage(x, cid, k), "rank": r,
                            "bucket": bucket(r), "question_stage": (x.get("diagnosis") or {}).get("stage")})
            elif cid in top_x and cid not in top_b:
                r = rank_of(b, cid)
                rev.append({"question_id": q, "chunk": cid, "stage": passage_stage(b, cid, k), "rank": r,
                            "bucket": bucket(r), "question_stage": (b.get("diagnosis") or {}).get("stage")})
    return {
        "method": method, "baseline": baseline, "k": k, "questions": len(qids), "gold_passages": n_gold,
        "gold_in_top_k": dict(hits),
        "baseline_only": {"total": len(gap), "by_stage": dict(Counter(g["stage"] for g in gap).most_common()),
                          "by_rank": dict(Counter(g["bucket"] for g in gap).most_common()),
                          "questions": len({g["question_id"] for g in gap}), "passages": gap},
        "method_only": {"total": len(rev), "by_stage": dict(Counter(g["stage"] for g in rev).most_common()),
                        "by_rank": dict(Counter(g["bucket"] for g in rev).most_common()),
                        "questions": len({g["question_id"] for g in rev}), "passages": rev},
    }


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "–"


def markdown(rows: list[dict[str, Any]]) -> str:
    """One table: per method and k, gold only PPR finds (by the method's stage and rank) and the reverse."""
    if not rows:
        return ""
    base = rows[0]["baseline"]
    out = [f"| method | k | gold in top k ({base} / method) | {base}-only gold (by method's stage) | "
           f"method's rank of those | method-only gold (by {base}'s stage) | net |",
           "|---|---:|---:|---|---|---|---:|"]
    for r in rows:
        b, m = r["baseline_only"], r["method_only"]
        out.append(f"| {r['method']} | {r['k']} | {r['gold_in_top_k'][base]} / {r['gold_in_top_k'][r['method']]} "
                   f"| **{b['total']}**: {_fmt(b['by_stage'])} | {_fmt(b['by_rank'])} "
                   f"| **{m['total']}**: {_fmt(m['by_stage'])} | {m['total'] - b['total']:+d} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results.jsonl (or .jsonl.gz) of one egx bench run")
    ap.add_argument("--methods", default=",".join(SEED_METHODS))
    ap.add_argument("--ks", default="2,5")
    ap.add_argument("--baseline", default="ppr")
    ap.add_argument("--out", help="JSON output")
    ap.add_argument("--md", help="markdown output")
    a = ap.parse_args(argv)
    results = read_results(a.results)
    if a.baseline not in results:
        raise SystemExit(f"{a.results} holds no '{a.baseline}' records (methods: {', '.join(sorted(results))}).")
    methods = [m for m in a.methods.split(",") if m]
    absent = [m for m in methods if m not in results]
    if absent:
        raise SystemExit(f"{a.results} holds no records of {', '.join(absent)} (methods: {', '.join(sorted(results))}).")
    rows = [compare(results, m, int(k), baseline=a.baseline) for m in methods for k in a.ks.split(",")]
    md = markdown(rows)
    print(md, end="")
    if a.out:
        Path(a.out).write_text(json.dumps({"source": str(a.results), "rows": rows}, indent=1), encoding="utf-8")
    if a.md:
        Path(a.md).write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
