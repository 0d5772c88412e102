"""How the LLM stages of BubbleRAG and SG-RAG behaved in recorded runs: the figures of the LLM-stage targets.

    .venv/bin/python benchmarks/llm_stage_quality.py [--bundle B ...] [--out results.json]
    .venv/bin/python benchmarks/llm_stage_quality.py --bundle B --bench OUT   # traces of `egx bench --traces`

Replays every BubbleRAG and SG-RAG run of the bundles (default: the shipped ones) with the ``recorded`` LLM on
the sample it names (as ``make check-recordings`` does) and reads each run's trace:

* BubbleRAG §3.2 grouping: runs whose candidates came from two or more query concepts, and how many of
  those got two or more LLM groups; every check that failed (collapse, template copies, specialization or
  relaxation items dropped, explicit keywords moved to implicit);
* first-attempt JSON: per stage, LLM calls whose first reply was usable JSON as it came (no repair, no
  retry), over all calls;
* §3.5 depth: hops per expanded CEG and why each stopped, "sufficient" claims not accepted;
* replies that copy an example or a placeholder: every recorded reply is searched for the placeholder
  texts of the prompts and for the names of the examples earlier prompts carried;
* SG-RAG: query graphs by the LLM or the bridge-star fallback, exact matches, and why no match was found;
* seconds and LLM tokens per run (as recorded live).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: names of the made-up examples earlier prompt versions carried (a reply naming one copied the example)
OLD_EXAMPLE_TERMS = ("Tarn 4", "Oskel", "Brevik", "Hollin", "Pellam", "Ostra Hall", "Mount Dray", "Edda Castell",
                     "Varn Bay")
BUBBLE_JSON_STAGES = ("preretrieval", "keywords", "specialization", "relaxation", "grouping", "reasoning")


def _placeholders() -> set[str]:
    from core.methods.bubblerag import prompts as bp
    from core.methods.reg import prompts as rp
    from core.methods.sgrag import prompts as sp

    texts = [bp.sufficiency_prompt("", []), bp.keywords_prompt("", []), bp.specialize_prompt("", []),
             bp.relax_prompt("", [], []), bp.grouping_prompt("", [], []), bp.expand_prompt("", [], []),
             sp.QUERY_GRAPH_SYSTEM, rp.qa_prompt("", "", "chains"), rp.select_prompt("", [], [])]
    return {p.lower() for t in texts for p in bp.placeholders(t)}


def copied_replies(entries: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Recorded replies naming an old example's entity, or containing a placeholder of the prompts."""
    marks = _placeholders()
    out: Counter[str] = Counter()
    for e in entries.values():
        text = str(e.get("text", ""))
        low = text.lower()
        for term in OLD_EXAMPLE_TERMS:
            if term.lower() in low:
                out[f"example: {term}"] += 1
        for m in marks:
            if m in low:
                out[f"placeholder: {m}"] += 1
        if re.search(r"<[^<>]{3,}>", text):
            out["angle-bracket placeholder"] += 1
    return dict(out)


def analyse_traces(bundle: Path, bench_out: Path) -> dict[str, Any]:
    """The same figures from the traces an ``egx bench --llm recorded --traces`` run wrote to ``bench_out``
    (no replay here): each trace is matched to its recorded run by workspace-less question id."""
    from core.backends.llm_bundles import load_recording
    from core.trace import Trace

    rec = load_recording(bundle)
    by_id = {(str(r["method"]), str(r.get("question_id"))): r for r in rec.runs}
    bubble, sg, json_calls = _counters()
    for method in ("bubblerag", "sgrag"):
        for f in sorted((bench_out / "traces" / method).glob("*.json")):
            run = by_id.get((method, f.stem))
            if run is None:
                continue
            _count(method, Trace.load(f), run, bubble, sg, json_calls)
    return _summary(bundle, rec, bubble, sg, json_calls)


def _counters() -> tuple[dict[str, Any], dict[str, Any], dict[str, list[int]]]:
    bubble: dict[str, Any] = {"runs": 0, "concepts_2plus": 0, "groups_2plus": 0, "group_counts": [],
                              "grouping_source": Counter(), "checks": Counter(), "depth": Counter(),
                              "stops": Counter(), "sufficiency_rejected": 0, "seconds": [], "tokens": [],
                              "partial": []}
    sg: dict[str, Any] = {"runs": 0, "query_graph": Counter(), "exact": 0, "checks": Counter(), "no_match": Counter(),
                          "seconds": [], "partial": []}
    return bubble, sg, defaultdict(lambda: [0, 0])


def analyse(bundle: Path) -> dict[str, Any]:
    from core.backends.llm_bundles import load_recording
    from core.backends.llm_recorded import RecordedLLM
    from core.backends.registry import get_embedder, get_reranker
    from core.cli import resolve_workspace
    from core.methods.base import Backends
    from core.methods.run import run_method

    rec = load_recording(bundle)
    emb = get_embedder(str(rec.provenance["embedder"]))
    llm = RecordedLLM([bundle], strict=False)
    backends = Backends(emb, llm, get_reranker(str(rec.provenance["reranker"]), embedder=emb, llm=llm))
    opened: dict[str, Any] = {}
    bubble, sg, json_calls = _counters()
    for run in rec.runs:
        method = str(run["method"])
        if method not in ("bubblerag", "sgrag"):
            continue
        name = str(run["workspace"])
        if name not in opened:
            opened[name] = resolve_workspace(name, emb)
        r = run_method(method, str(run["question"]), opened[name], backends)
        _count(method, r.trace, run, bubble, sg, json_calls)
    return _summary(bundle, rec, bubble, sg, json_calls)


def _summary(bundle: Path, rec: Any, bubble: dict[str, Any], sg: dict[str, Any],
             json_calls: dict[str, list[int]]) -> dict[str, Any]:
    for d in (bubble, sg):
        secs = d.pop("seconds")
        d["median_seconds"] = round(statistics.median(secs), 1) if secs else None
    toks = bubble.pop("tokens")
    bubble["median_tokens"] = statistics.median(toks) if toks else None
    bubble["first_attempt_json"] = {k: {"calls": c, "usable_first": c - bad,
                                        "share": round((c - bad) / c, 3) if c else None}
                                    for k, (c, bad) in json_calls.items()}
    return {"bundle": bundle.name, "bubblerag": _plain(bubble), "sgrag": _plain(sg),
            "copied_replies": copied_replies(rec.entries)}


def _count(method: str, trace: Any, run: dict[str, Any], bubble: dict[str, Any], sg: dict[str, Any],
           json_calls: dict[str, list[int]]) -> None:
    """Add one run's trace (replayed now, or read from ``egx bench --traces``) to the counters."""
    from core.methods.sgrag.stages import QueryGraphData

    steps = {s.stage: s for s in trace.steps}
    if not (trace.replay or {}).get("complete", True):
        (bubble if method == "bubblerag" else sg)["partial"].append(str(run.get("question_id")))
    for s in trace.steps:
        if s.llm_json and method == "bubblerag":
            json_calls[s.stage][0] += s.llm_json.get("calls", 0)
            json_calls[s.stage][1] += s.llm_json.get("first_unusable", 0)
        if "check failed" in (s.fallback or ""):
            why = s.fallback.split("check failed: ", 1)[1].split(";")[0].split(" — ")[0]
            why = re.sub(r"'[^']*'", "'…'", why)[:90]
            (bubble if method == "bubblerag" else sg)["checks"][f"{s.stage}: {why}"] += 1
    if method == "bubblerag":
        bubble["runs"] += 1
        bubble["seconds"].append(float(run.get("seconds", 0.0)))
        bubble["tokens"].append(sum(int(x.get("prompt_tokens", 0)) + int(x.get("completion_tokens", 0))
                                    for x in run.get("stages", [])))
        g = steps.get("grouping")
        if g is not None:
            concepts = len(g.data.get("concepts", []))
            groups = len(g.data.get("groups", []))
            bubble["grouping_source"][g.data.get("source", "?")] += 1
            if concepts >= 2:
                bubble["concepts_2plus"] += 1
                bubble["groups_2plus"] += int(groups >= 2 and g.data.get("source") == "llm")
            bubble["group_counts"].append(groups)
        kw = steps.get("keywords")
        if kw is not None and kw.data.get("moved_to_implicit"):
            bubble["checks"]["keywords: explicit keyword not written in the question (moved to implicit)"] += \
                len(kw.data["moved_to_implicit"])
        rs = steps.get("reasoning")
        if rs is not None:
            for x in rs.data.get("expanded", []):
                bubble["depth"][len(x.get("hops", []))] += 1
                bubble["stops"][x.get("stop", "?")] += 1
            bubble["sufficiency_rejected"] += len(rs.data.get("sufficiency_rejected", []))
    else:
        sg["runs"] += 1
        sg["seconds"].append(float(run.get("seconds", 0.0)))
        qg = steps.get(QueryGraphData.STAGE)
        if qg is not None:
            made = QueryGraphData.from_data(qg.data)
            sg["query_graph"][made.query_graph.get("by", "?")] += 1
            if made.described_as_unk:
                sg["checks"]["a label the question only describes made UNK"] += 1
            if made.merged_unknowns:
                sg["checks"]["repeated UNK leaves merged"] += 1
            if made.described_not_linked:
                sg["checks"]["bridge star: a described kind not linked"] += 1
        fb = steps.get("fallback")
        if fb is None or not fb.fallback:
            sg["exact"] += 1
        else:
            sg["no_match"][re.sub(r"'[^']*'|\b[A-Z][^;:]*", "…", fb.fallback)[:120]] += 1


def _plain(x: Any) -> Any:
    if isinstance(x, Counter):
        return dict(x.most_common())
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    return x


def main(argv: list[str] | None = None) -> int:
    from core.backends.llm_bundles import recording_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", action="append", help="a recording bundle (default: every shipped one)")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--bench", help="read the traces of this `egx bench --llm recorded --traces` output folder "
                                    "instead of replaying (one --bundle: the bundle it replayed)")
    a = ap.parse_args(argv)
    if a.bench:
        res = [analyse_traces(Path(a.bundle[0]), Path(a.bench))]
    else:
        res = [analyse(Path(b)) for b in (a.bundle or recording_paths())]
    text = json.dumps(res, indent=1, ensure_ascii=False)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
