"""``egx index``: build a workspace (graph + FAISS indexes) from input files, a bundled sample, or
re-index an existing workspace (optionally moving its graph into FalkorDB, optionally on Ray); with
``--add``, add documents to an existing corpus workspace without rebuilding it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.backends.registry import DEFAULT_EMBEDDER
from core.background.procs import interruptible
from core.cli.options import add_ray, method_configs, ray_runner
from core.cli_support import add_llm_limits, llm_from_args, llm_spec, progress_bar

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.backends.base import Embedder
    from core.batch.ray_runner import RayRunner
    from core.cli_support import Subparsers
    from core.index.stages import StageTimes
    from core.index.workspace import Workspace

NAME = "index"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    i = subparsers.add_parser(NAME, help="build a workspace (graph + FAISS indexes) from input files",
                              description="Inputs: triples CSV/TSV/JSON/JSONL, GraphML, documents (.txt, .md, .pdf, "
                                          ".html, .docx; one that cannot be read is left out, with a warning), "
                                          "JSON(L) "
                                          "corpora, HippoRAG corpus + OpenIE file, corpus graph (nodes JSONL + edges "
                                          "CSV), or a named-KG folder (UMLS / FB15k-237 layout).")
    i.add_argument("inputs", nargs="*", help="input files or folders (a named-KG folder, or a folder whose "
                                                 ".txt/.md/.pdf/.html/.docx documents are read)")
    i.add_argument("--workspace", help="workspace folder to create (or re-index when no inputs are given)")
    i.add_argument("--sample", help="build/refresh a bundled sample workspace by name (demo, musique)")
    i.add_argument("--name", help="display name (default: folder name)")
    i.add_argument("--questions", help="questions file with gold evidence to keep in the workspace")
    i.add_argument("--embedder", help=f"embedder name (bge-small, minilm, hashing, st:<path-or-id>); default: "
                                      f"{DEFAULT_EMBEDDER}, with --add the workspace's own")
    i.add_argument("--llm", default="none", help="LLM for triple extraction from a plain corpus (none, local, local-small, openai)")
    i.add_argument("--extractor", help="triple extractor (llm, spacy, rules); default: llm if an LLM is set, else spacy")
    i.add_argument("--passages", metavar="paragraph|CHARS",
                   help="how documents (.txt, .md, .pdf, .html, .docx) are split into passages: 'paragraph' (one "
                        "passage per paragraph; a heading stays with its paragraph, a paragraph over 1,200 characters "
                        "is split at sentences) or a size in characters (100 to 4,800) that short paragraphs are "
                        "packed up to. Default: packed up to 1,200. A passage keeps its document's title, so gold "
                        "titles still match (a supporting fact's sentence index picks its passage); JSON(L) corpus passages stay whole. Recorded in the workspace: --add "
                        "splits alike")
    i.add_argument("--synonyms", type=float, metavar="COSINE",
                   help="store HippoRAG synonymy edges ('synonym of') between nodes whose name embeddings have "
                        "cosine >= COSINE (HippoRAG: 0.8), so every method can walk them; default: none")
    add_llm_limits(i)
    i.add_argument("--store", metavar="URL",
                   help="keep the graph in FalkorDB: falkordb://HOST:PORT/GRAPH (password from $EGX_FALKORDB_PASSWORD; "
                        "a local server: python -m core.graph.stores.falkor_server); with --workspace DIR and no inputs, "
                        "moves that workspace's graph there. Default: in the workspace folder, loaded into memory")
    i.add_argument("--prepare", metavar="METHODS", default="",
                   help="also compute now what these methods build on first use (comma-separated, or 'all'): "
                        "FastInsight's node vectors, PPR's synonymy edges, SG-RAG's dominance model — so no "
                        "question waits on them")
    i.add_argument("--set", action="append", metavar="METHOD.NAME=VALUE",
                   help="with --prepare: prepare for this setting instead of the method's default (repeatable), "
                        "e.g. --set fastinsight.node_vectors=lazy, which embeds no node text now (each question "
                        "embeds the nodes it reaches) and so skips FastInsight's node vectors")
    i.add_argument("--overwrite", action="store_true", help="replace an existing workspace (and its store graph)")
    i.add_argument("--add", action="store_true",
                   help="add the input documents to the existing corpus workspace --workspace DIR without rebuilding "
                        "it: only the new passages are extracted and embedded, with the extractor and embedder the "
                        "workspace recorded; passages it already holds are skipped")
    add_ray(i, "embed the nodes, edges and chunks and extract triples")
    i.add_argument("--rebuild", action="store_true", help="rebuild the index even if it is up to date (with --sample: "
                                                          "rebuild the whole sample workspace)")
    return i


@interruptible  # a `kill` stops a build the way Ctrl-C does: temporary folder and worker pool removed
def run(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from core.backends.registry import get_embedder

    _prepare_configs(args)  # an unknown method or a bad --set fails before anything is built
    if args.passages is not None and not args.inputs:
        raise SystemExit("egx index: --passages applies to a build from input files (a workspace's split is chosen "
                         "when it is built from them)")
    if args.passages is not None and not args.add:
        from core.graph.chunking import PassageSplit

        PassageSplit.parse(args.passages)  # a bad value fails before any model loads
    if args.add:
        return _add(args)
    embedder = get_embedder(args.embedder or DEFAULT_EMBEDDER)
    if args.store and args.sample:
        raise SystemExit("egx index: --store applies to a workspace of yours, not a bundled sample: build it from the "
                         "sample's inputs with `egx index INPUTS --workspace DIR --store URL`")
    if not args.inputs and not args.sample and not args.workspace:
        raise SystemExit("egx index: give input files, --sample NAME, or --workspace DIR of an existing workspace")
    if args.inputs and not args.workspace:
        raise SystemExit("egx index: --workspace DIR is required when building from inputs")
    runner = ray_runner(args, llm_spec(args))
    with runner if runner is not None else nullcontext():
        ws = _build(args, embedder, runner)
    if runner is not None:
        print(f"Ray: {runner.workers} worker(s) at {runner.describe()['address']}"
              + (f", {runner.gpus_per_worker:g} GPU each" if runner.gpus_per_worker else "") + ".")
    prepared = _prepare(args, ws, embedder)
    return _report(args, ws, prepared)


def _prepare_names(args: argparse.Namespace) -> list[str]:
    """The methods named by ``--prepare`` (``all``: every registered one); an unknown name is an error."""
    from core.methods.registry import METHODS, get_method

    if not args.prepare:
        return []
    names = list(METHODS) if args.prepare.strip() == "all" else [m.strip() for m in args.prepare.split(",") if m.strip()]
    for m in names:
        get_method(m)
    return names


def _prepare_configs(args: argparse.Namespace) -> dict[str, Any]:
    """``--set METHOD.NAME=VALUE`` as one config per method of ``--prepare`` (the others prepare for their
    defaults); a pair for a method ``--prepare`` does not name, or without ``--prepare``, is an error."""
    from core.errors import ConfigError

    names = _prepare_names(args)
    pairs = args.set or []
    for pair in pairs:
        method = pair.partition("=")[0].partition(".")[0].strip()
        if method and method not in names:
            raise ConfigError(f"--set {pair!r} names the method {method!r}, which is not prepared here; "
                              f"add it to --prepare (now {args.prepare or 'empty'!r}).")
    return method_configs(pairs, names)


def _prepare(args: argparse.Namespace, ws: Workspace, embedder: Embedder) -> StageTimes | None:
    """``--prepare``: the methods' preparations, now, on one terminal bar whose shares are their estimated
    seconds; returns how long each took. Without it, say which methods will prepare on first use."""
    from core.index.stages import StageTimes
    from core.methods.registry import METHODS, get_method
    from core.methods.run import pending_preparations, prepare_workspace

    names = _prepare_names(args)
    if names:
        times = StageTimes()
        configs = _prepare_configs(args)
        for title in prepare_workspace(ws, embedder, names, overall=progress_bar("prepare"), times=times,
                                       configs=configs):
            print(f"Prepared: {title}")
        return times
    from core.backends.registry import get_llm
    from core.methods.base import Backends

    later = [m for m in METHODS if any(not p.key.startswith("index:") for p in
                                       pending_preparations(get_method(m), ws, Backends(embedder, get_llm("none"), None)))]
    if later:
        print(f"On first use, {', '.join(later)} will prepare what they keep in the workspace; "
              f"`egx index --workspace {ws.path} --prepare all` does it now.")
    return None


def document_inputs(inputs: Sequence[str]) -> list[str]:
    """``inputs`` with each folder that is no named-KG folder (no ``entity2text.txt``) replaced by its documents
    (.txt, .md, .pdf, .html, .docx; not its subfolders, in name order): a helper's ``egx index corpus/`` of eight
    .txt files failed with "no entity2text.txt in this folder". A folder without one document stays as given, so its
    error still says what a KG folder needs."""
    from core.graph.formats.documents import HTML_SUFFIXES, MARKDOWN_SUFFIXES

    kinds = (".txt", ".pdf", ".docx", *MARKDOWN_SUFFIXES, *HTML_SUFFIXES)
    out: list[str] = []
    for item in inputs:
        folder = Path(item)
        if folder.is_dir() and not any((folder / n).is_file() for n in ("entity2text.txt", "kgbert_entity2text.txt")):
            docs = sorted(str(p) for p in folder.iterdir()
                          if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in kinds)
            if docs:
                out.extend(docs)
                continue
        out.append(item)
    return out


def _build(args: argparse.Namespace, embedder: Embedder, runner: RayRunner | None) -> Workspace:
    from core.backends.registry import default_extractor, get_extractor
    from core.index.create import create_workspace
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    if not args.inputs:
        if args.sample:
            ws = ensure_sample_workspace(args.sample, embedder, progress=progress_bar(f"sample {args.sample}"),
                                         force=args.rebuild, runner=runner)
        else:
            ws = Workspace.open(args.workspace)
            ws.ensure_index(embedder, progress=progress_bar("index"), rebuild=args.rebuild, runner=runner)
            if args.store and args.store != ws.store_url:
                figures = ws.move_to_store(args.store, overwrite=args.overwrite, progress=progress_bar("store"))
                print(f"Graph moved into {ws.store_url} in {figures['seconds']:.2f} s.")
    else:
        from core.graph.chunking import PassageSplit

        passages = PassageSplit.parse(args.passages) if args.passages is not None else None
        llm = llm_from_args(args)
        extractor = get_extractor(args.extractor, llm=llm) if args.extractor else default_extractor(llm)
        ws = create_workspace(document_inputs(args.inputs), args.workspace, name=args.name, embedder=embedder,
                              extractor=extractor, questions=args.questions, overwrite=args.overwrite,
                              progress=progress_bar("index"), synonym_threshold=args.synonyms, store=args.store,
                              runner=runner, passages=passages)
    return ws


def _add(args: argparse.Namespace) -> int:
    """``egx index MORE... --add --workspace W``: the workspace's recorded settings, the new files only."""
    from contextlib import nullcontext

    from core.backends.registry import get_embedder, get_extractor
    from core.index.insert import add_documents

    if not args.workspace:
        raise SystemExit("egx index: --add needs --workspace DIR, the corpus workspace to add the documents to")
    if not args.inputs:
        raise SystemExit("egx index: --add needs the documents to add (.txt/.md files or JSON(L) passages)")
    if args.overwrite or args.sample or args.store or args.rebuild:
        raise SystemExit("egx index: --add extends a workspace in place; it takes no --overwrite, --sample, --store "
                         "or --rebuild (to rebuild, leave --add out)")
    if args.passages is not None:
        raise SystemExit("egx index: --add splits the documents into passages as the workspace recorded at its build; "
                         "it takes no --passages (to split otherwise, rebuild: leave --add out, pass --overwrite)")
    if args.synonyms is not None or args.questions or args.name:
        raise SystemExit("egx index: --add uses the workspace's recorded settings; --synonyms, --questions and --name "
                         "belong to a build (leave --add out and pass --overwrite to rebuild with them)")
    llm = llm_from_args(args) if args.llm != "none" or args.extractor == "llm" else None
    embedder = get_embedder(args.embedder) if args.embedder else None
    extractor = get_extractor(args.extractor, llm=llm) if args.extractor else None
    runner = ray_runner(args, llm_spec(args))
    with runner if runner is not None else nullcontext():
        res = add_documents(args.workspace, document_inputs(args.inputs), embedder=embedder, extractor=extractor, llm=llm,
                            progress=progress_bar("add"), runner=runner)
    print(res.summary())
    for note in res.notes:
        print(f"  note: {note}")
    if res.workspace is not None:
        g = res.workspace.meta.data.get("graph", {})
        print(f"Workspace {res.workspace.name!r} at {res.workspace.path}: {g.get('nodes')} nodes, {g.get('edges')} "
              f"edges, {g.get('chunks')} chunks.")
        _passages_lines(res.workspace)
        if args.prepare:  # with the embedder the add used: the one given, else the workspace's own
            _prepare(args, res.workspace, embedder or get_embedder(str(res.workspace.manifest["index"]["embedder"])))
    return 0


def _report(args: argparse.Namespace, ws: Workspace, prepared: StageTimes | None = None) -> int:
    g = ws.manifest.get("graph", {})
    print(f"Workspace {ws.name!r} at {ws.path}: {g.get('nodes')} nodes, {g.get('edges')} edges, {g.get('chunks')} chunks"
          f"; graph store: {ws.store_url}.")
    _passages_lines(ws, split=bool(args.inputs))
    ex = ws.manifest.get("extraction") if args.inputs else None
    if ex:
        failed = ex.get("failed_chunks", 0)
        print(f"  extraction ({ex['extractor']}): {ex['triples']} triples; {ex['extracted']} chunk(s) extracted now, "
              f"{ex['from_cache']} from the cache, {failed} failed"
              + (f" ({', '.join(ex.get('failed_chunk_ids', [])[:10])})" if failed else ""))
    syn = ws.manifest.get("synonyms") if args.inputs else None
    if syn:
        print(f"  synonym edges: {syn['edges']} at cosine >= {syn['threshold']} ({syn['embedder']}, {syn['seconds']} s)")
    for b in ws.manifest.get("index", {}).get("builds", []):
        rate = b["items"] / b["seconds"] if b["seconds"] else float("inf")
        print(f"  index/{b['kind']}: {b['items']} items in {b['seconds']:.2f} s ({rate:.0f} items/s)")
    for w in ws.warnings:
        print(f"  note: {w}")
    _print_stages(ws.meta.build_stages if args.inputs else [], prepared)
    return 0


def _passages_lines(ws: Workspace, *, split: bool = True) -> None:
    """How the documents were split into passages (a build of documents), and a warning when the workspace has
    too few passages for recall to tell methods apart."""
    from core.graph.formats.documents import DOCUMENT_FORMATS

    if split and any(f.get("format") in DOCUMENT_FORMATS and not f.get("error") for f in ws.meta.files):
        print(f"  passages: documents split with {ws.meta.passages.describe()} (--passages {ws.meta.passages.spec})")
    few = ws.meta.few_passages_warning()
    if few:
        print(f"  warning: {few}")


def _print_stages(built: Sequence[Mapping[str, Any]], prepared: StageTimes | None) -> None:
    """The time per stage of what this command did: the build's stages (a build from inputs records them in
    the manifest), then each preparation."""
    from core.index.stages import format_seconds, stage_lines

    rows = [dict(r) for r in built] + (prepared.to_list() if prepared is not None else [])
    if not rows:
        return
    total = sum(float(r.get("seconds") or 0.0) for r in rows)
    print(f"Time per stage ({format_seconds(total)} in all):")
    for line in stage_lines(rows):
        print(f"  {line}")
