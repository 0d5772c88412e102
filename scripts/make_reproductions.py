"""Make the reproductions shipped with the samples: ``sample_data/reproduce/<paper>.json``.

    .venv/bin/python scripts/make_reproductions.py [--paper all|bubblerag|fastinsight|sgrag|reg]
                                                   [--modes none,recorded] [--workspace musique] [--out DIR]
                                                   [--limit N]

For each paper and LLM mode this runs what ``egx reproduce --paper P --workspace musique --llm MODE`` runs
(:func:`core.eval.reproduce.run_reproduction`, bge-small and the bundled cross-encoder, the defaults) into
``--out`` (default ``$EGX_HOME/reproduce/<workspace>``): every run resumes, so a rerun after an interruption, or to
add a mode, does only what is missing, and a rerun after the recordings changed is refused run by run with what
changed (delete the run folder, or pass ``--restart``). Then it writes ``sample_data/reproduce/<paper>.json``:
``{"format": "egx-reproductions", "paper", "workspace", "made_by", "modes": {"none": <reproduce.json>,
"recorded": <reproduce.json>}}``, with the workspace folder written as ``WS`` and ``$EGX_HOME`` as such (no
path of this machine ships). A mode not made this time is kept from the file as it was.

Make ``none`` first: ``recorded`` replays the bundles in ``sample_data/llm_recordings/``, and a method that has no
recording for a question takes each LLM stage's fallback there; the file says which questions, per method.
The Papers page opens these files; ``tests/eval/test_reproduce_stored.py`` checks them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _portable(record: dict, workspace: Path) -> dict:
    """``record`` with the workspace folder as ``WS`` and ``$EGX_HOME`` as such: no path of this machine ships."""
    from core.fsio import egx_home

    text = json.dumps(record, ensure_ascii=False)
    for path, word in ((workspace, "WS"), (egx_home(), "$EGX_HOME")):
        for p in {str(path), str(path.resolve())}:
            text = text.replace(json.dumps(p)[1:-1], word)
    return json.loads(text)


def main(argv: list[str] | None = None) -> int:
    from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER, get_embedder, get_llm, get_reranker
    from core.cli_support import close_bars, resolve_workspace, run_bar
    from core.eval.paper_model import PAPER_IDS
    from core.eval.reproduce import reproduce_root, run_reproduction
    from core.eval.reproduce_plan import reproduction_plan
    from core.eval.reproduce_record import STORED_FORMAT, load_reproduction, stored_path
    from core.fsio import atomic_write_text
    from core.index.questions import load_questions
    from core.methods.base import Backends
    from core.methods.registry import get_method

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper", default="all", choices=[*PAPER_IDS, "all"])
    ap.add_argument("--modes", default="none,recorded", help="LLM modes, in order (default: none,recorded)")
    ap.add_argument("--workspace", default="musique")
    ap.add_argument("--out", help="where the runs go (default: $EGX_HOME/reproduce/<workspace>)")
    ap.add_argument("--limit", type=int, help="only the first N questions (for a quick look; never shipped so)")
    ap.add_argument("--restart", action="store_true", help="replace runs that cannot be resumed")
    args = ap.parse_args(argv)

    embedder = get_embedder(DEFAULT_EMBEDDER)
    ws = resolve_workspace(args.workspace, embedder)
    questions = load_questions(ws)
    out = Path(args.out) if args.out else reproduce_root(ws.name)
    papers = list(PAPER_IDS) if args.paper == "all" else [args.paper]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    made: dict[str, dict[str, dict]] = {p: {} for p in papers}
    reranker = get_reranker(DEFAULT_RERANKER, embedder=embedder)
    for mode in modes:
        llm = get_llm(mode)
        for paper in papers:
            # the reranker as `egx reproduce` hands it (core.cli.options.bench_inputs), so its runs resume these
            specs = [get_method(m) for r in reproduction_plan(paper).runs for m in r.methods]
            wants = any(s.needs_reranker for s in specs) or not llm.available
            backends = Backends(embedder, llm, reranker if wants else None)
            rep = run_reproduction(ws, questions, paper, backends, out_dir=out, limit=args.limit,
                                   progress=run_bar(f"{paper} ({mode})"), restart=args.restart,
                                   meta={"questions_file": str(ws.questions_path)})
            close_bars(clear=False)
            made[paper][mode] = _portable(rep.record, Path(ws.path))
            print(f"{paper} ({mode}): {rep.ran} runs now, {rep.skipped} done before, {rep.seconds:.0f} s; "
                  f"{rep.record['questions']['n']} questions", flush=True)
    for paper, modes_made in made.items():
        path = stored_path(paper)
        old = load_reproduction(path).get("modes", {}) if path.exists() else {}
        data = {"format": STORED_FORMAT, "paper": paper, "workspace": ws.name,
                "made_by": "scripts/make_reproductions.py", "modes": {**old, **modes_made}}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {path} ({', '.join(data['modes'])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
