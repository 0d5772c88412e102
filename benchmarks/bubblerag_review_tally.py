"""BubbleRAG grouping review tally (latent names first, the review's group weights and edits): replay the bubblerag runs of recording bundles and count
how many reviews keep >= 2 groups, give informative vs degenerate (uniform / positional) weights, drop, move or merge
members, and which latent keywords came first. Usage:

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bubblerag_review_tally.py OUT.json \
        sample_data/llm_recordings/demo-local.json ...
"""
import json
import sys
from pathlib import Path

from core.backends.llm_bundles import load_recording
from core.backends.llm_recorded import RecordedLLM
from core.backends.registry import get_embedder, get_reranker
from core.cli import resolve_workspace
from core.methods.base import Backends
from core.methods.run import run_method

rows = []
for bundle in sys.argv[2:]:
    rec = load_recording(bundle)
    emb = get_embedder(rec.provenance["embedder"])
    llm = RecordedLLM([bundle], strict=False)
    be = Backends(emb, llm, get_reranker(rec.provenance["reranker"], embedder=emb, llm=llm))
    opened = {}
    for run in rec.runs:
        if run["method"] != "bubblerag":
            continue
        ws = opened.setdefault(run["workspace"], resolve_workspace(run["workspace"], emb))
        r = run_method("bubblerag", run["question"], ws, be)
        kw = next(s for s in r.trace.steps if s.stage == "keywords").data
        g = next(s for s in r.trace.steps if s.stage == "grouping")
        rv = g.data.get("review") or {}
        rows.append({"ws": run["workspace"], "id": run.get("question_id"), "answer": r.answer,
                     "gold": run.get("gold_answer"), "implicit": kw.get("implicit"),
                     "groups": len(g.data.get("groups") or []), "review_fallback": g.fallback,
                     "weights_check": rv.get("weights_check", ""), "weights": rv.get("weights"),
                     "dropped": sum(len(v) for v in (rv.get("dropped") or {}).values()),
                     "moved": len(rv.get("moved") or []), "same": len(rv.get("same") or []),
                     "refused": rv.get("refused")})
        print(json.dumps(rows[-1])[:300], flush=True)
n = len(rows)
summ = {"runs": n,
        "reviewed": sum(1 for r in rows if r["weights"]),
        "groups>=2": sum(1 for r in rows if r["groups"] >= 2),
        # the grouping stage writes "informative" for weights that passed the check, else the problem it found
        "informative_weights": sum(1 for r in rows if r["weights_check"] == "informative"),
        "degenerate_weights": sum(1 for r in rows if r["weights_check"] not in ("", "informative")),
        "review_changed_something": sum(1 for r in rows if r["dropped"] or r["moved"] or r["same"]),
        "moved_any": sum(1 for r in rows if r["moved"]), "merged_any": sum(1 for r in rows if r["same"])}
print(json.dumps(summ))
Path(sys.argv[1]).write_text(json.dumps({"summary": summ, "rows": rows}, indent=1))
