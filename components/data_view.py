"""The Data page's panels (pages/data.py): the Graph tab (search, neighbourhood, drawing, a node with its source
passages), Statistics (with a sample of extracted triples), Upload (a new workspace built as a background job) and
Export. Each panel reads its widgets, calls a cached core function through ``components.resources`` and renders
the result; each takes the sidebar's record and the graph it shows as arguments."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import graph_view, resources, session_jobs, workspaces
from components import state as S
from components.add_documents import (
    STATUS_COLUMNS,
    file_status_rows,
    files_caption,
    left_out_reasons,
    passages_note,
    repeats_notes,
    stage_uploads,
    unique_uploads,
    unmatched_gold_note,
)
from components.questions_format import UPLOADER_HELP, create_questions_format_ui
from components.sidebar import Active
from components.ui import error_text, md_code, md_escape, public_path, public_text, scroll_here
from core.errors import EgxError
from core.fsio import MAX_NAME_CHARS, NAME_RULE, child_path, clean_filename
from core.graph.chunking import CHUNK_CHARS, OFFERED_PASSAGE_SIZES, PassageSplit
from core.graph.formats.bounds import base_suffix
from core.graph.formats.load import duplicates_text
from core.graph.model import KnowledgeGraph
from core.graph.reader import GraphLike, question_graph, whole_graph
from core.index.estimate import built_prose_note
from core.index.isolated import BuildSpec, build_isolated, isolated_builds
from core.text import normalize_name

if TYPE_CHECKING:
    from core.background.jobs import Job
    from core.index.workspace import Workspace

UPLOAD_TYPES = ["csv", "tsv", "json", "jsonl", "txt", "md", "markdown", "pdf", "html", "htm", "docx", "graphml", "gz"]
MAX_NODES = graph_view.DEFAULT_MAX_NODES
MAX_CHOICES = 100  # node picker entries (a 16k-entry selectbox is slow to send and to use)
MAX_CHUNKS_SHOWN = 12
STORE_REGION_CAP = 5_000  #: the most nodes a neighbourhood reads from a graph store (whole hop layers)
#: The longest value a metric shows whole in a fifth of a 1440 px page (its large type); longer text is a caption.
METRIC_CHARS = 12


def _node_label(g: GraphLike):  # -> Callable[[int], str]
    def fmt(v: int) -> str:
        # Show the id only when it carries information (explicit ids, e.g. FB15k-237 MIDs).
        name = g.node_names[v]
        return name if g.node_ids[v] == normalize_name(name) else f"{name}  ({g.node_ids[v]})"

    return fmt


# ------------------------------------------------------------------------------------ explore
def _search(g: GraphLike, query: str) -> list[int]:
    """The nodes whose name contains ``query`` (the first node of each name, shortest names first);
    on a graph store the server searches."""
    if whole_graph(g) is None:
        return g.store.search_nodes(query, MAX_CHOICES)
    return [g.node(name) for name in g.search_nodes(query, limit=MAX_CHOICES)]


def _neighbourhood(g: GraphLike, node: int, hops: int) -> list[int]:
    """Every node within ``hops`` of ``node``; on a graph store its region, capped at
    :data:`STORE_REGION_CAP` nodes by whole hop layers (with a note when the cap stopped it)."""
    if whole_graph(g) is not None:
        return g.khop([node], hops).tolist()
    region = g.store.region([node], hops=hops, max_nodes=STORE_REGION_CAP)
    g.absorb(region)
    if region.capped:
        st.caption(f"The graph store's neighbourhood stopped at {region.hops} of {hops} hops: the next hop would "
                   f"pass {STORE_REGION_CAP:,} nodes.")
    return region.nodes.tolist()


def _incident_edges(g: GraphLike, v: int) -> list[int]:
    if whole_graph(g) is None:
        eids = g.incident_edges([v]).tolist()
        g.prefetch_edges(eids)
        g.edge_chunks.prefetch(eids)
        return eids
    return sorted(set(g.csr.row(v)[1].tolist()))


def create_explore_ui(act: Active, g: GraphLike) -> tuple[list[int], bool, str]:
    """Search box, node picker, whole graph or neighbourhood drawing, then the node detail.

    On a graph store (a read-through view) only neighbourhoods are drawn, and everything shown is read
    from the store as it is needed. Returns the drawn nodes, whether they are the whole graph, and the
    drawing's HTML.
    """
    if g.n_nodes == 0:
        st.info("This workspace has no nodes (a corpus from which no triples were extracted). "
                "Dense retrieval over its chunks still works; upload triples or configure an LLM for a graph.")
        return [], True, ""
    big = g.n_nodes > MAX_NODES or whole_graph(g) is None
    left, mid, right = st.columns([3, 3, 2])
    # the picked node is a node id of this workspace's graph: on another workspace the same id is another node
    # (the picker kept it), so each workspace keeps its own search and node
    S.follow_workspace(act.info.name, S.DATA_NODE, S.DATA_SEARCH)
    query = S.keep(S.DATA_SEARCH, left.text_input(
        "Search nodes by name", key=S.bind(S.DATA_SEARCH, ""), placeholder="e.g. Keanu",
        help="Case-insensitive substring search over node names (shortest names first)."))
    if query.strip():
        matches = _search(g, query)
        if not matches:
            left.caption(f"No node name contains “{md_escape(query)}”; showing the best-connected nodes.")
    else:
        matches = []
    choices = matches or resources.top_degree_nodes(g, act.key, MAX_CHOICES)
    if whole_graph(g) is None:
        g.prefetch_drawing(choices)  # the picker's labels: one read, not one per entry
    nkey = S.bind(S.DATA_NODE, choices[0] if choices else None)
    if st.session_state[nkey] not in choices:  # another search, or another workspace
        st.session_state[nkey] = choices[0] if choices else None
    node = S.keep(S.DATA_NODE, mid.selectbox("Node", choices, key=nkey, format_func=_node_label(g),
                                             help=f"{len(choices)} matching nodes" if matches else
                                             "The best-connected nodes; type in the search box to find others."))
    if big:
        mode = "Neighbourhood"
        right.caption(f"{g.n_nodes:,} nodes: drawn as a neighbourhood")
    else:
        mode = S.keep(S.DATA_VIEW_MODE, right.radio("Draw", ["Whole graph", "Neighbourhood"], horizontal=True,
                                                    key=S.bind(S.DATA_VIEW_MODE, "Whole graph")))
    whole = mode == "Whole graph"
    if big:
        why = ("lives in a graph store" if whole_graph(g) is None else
               f"has {g.n_nodes:,} nodes, more than the {MAX_NODES} drawn at once")
        st.info(f"This graph {why}, so it is shown as the **neighbourhood of one node**. Search for a node, pick "
                "it, and choose how many hops to draw.", icon=":material/travel_explore:")
    if whole:
        nodes = list(range(g.n_nodes))
    else:
        hops = S.keep(S.DATA_HOPS, st.slider(
            "Hops around the node", 1, 4, key=S.bind(S.DATA_HOPS, 1 if big else 2),
            help="Draw every node within this many edges of the selected node (either direction)."))
        nodes = _neighbourhood(g, node, hops)
    kept, capped = graph_view.limit_nodes(g, nodes, MAX_NODES, center=() if whole else (node,))
    if capped:
        st.warning(f"Showing {len(kept)} of {len(nodes):,} nodes (the drawing is capped at {MAX_NODES}): the "
                   "closest to the selected node first, then the best connected. Lower the hop count or pick "
                   "another node to see the rest.", icon=":material/content_cut:")
    n_edges = len(_drawn_edges(g, kept))
    labels = S.keep(S.DATA_EDGE_LABELS, st.checkbox("Relation labels on edges", key=S.bind(S.DATA_EDGE_LABELS,
                                                                                           n_edges <= 60),
                                                    help="Otherwise hover an edge to read its relation."))
    kind = "passage" if g.kind == "corpus_graph" else "entity"
    legend = (graph_view.LegendItem("selected node", graph_view.SELECTED_COLOR),
              graph_view.LegendItem(kind, graph_view.NODE_COLOR),
              graph_view.LegendItem("relation (hover for text)", graph_view.EDGE_COLOR, "line"))
    doc = resources.styled_network_html(g, act.key, tuple(kept), highlight=(node,),
                                        colors=((node, graph_view.SELECTED_COLOR),), legend=legend,
                                        edge_labels=labels)
    st.caption(f"{len(kept):,} nodes and {n_edges:,} edges drawn · size grows with degree · drag to move, "
               "scroll to zoom, hover for details.")
    graph_view.render_html(doc, height=graph_view.DEFAULT_HEIGHT)
    create_node_detail_ui(g, node)
    return kept, whole and not capped, doc


def _drawn_edges(g: GraphLike, nodes: list[int]) -> list[int]:
    return g.induced_edges(nodes).tolist() if nodes else []


def create_node_detail_ui(g: GraphLike, v: int) -> None:
    """Id, description, degree, incident edges and provenance passages of node ``v``."""
    if whole_graph(g) is None:
        g.prefetch_drawing([v])
    st.subheader("Node: " + md_escape(g.node_names[v]))
    c1, c2, c3 = st.columns([2, 1, 1])
    c1.caption("Node id")
    c1.text(g.node_ids[v])
    c2.metric("Degree", int(g.degree[v]))
    c3.metric("Source chunks", len(g.node_chunks[v]))
    if g.node_descriptions[v]:
        st.caption("Description")
        st.text(g.node_descriptions[v])
    eids = _incident_edges(g, v)
    st.markdown(f"**Incident edges** ({len(eids)})")
    if eids:
        rows = [{"head": g.node_names[int(g.edge_head[e])], "relation": g.edge_relation[e],
                 "tail": g.node_names[int(g.edge_tail[e])], "chunks": ", ".join(g.edge_chunks[e])} for e in eids]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    chunk_ids = list(dict.fromkeys(g.node_chunks[v]))
    source = "node"
    if not chunk_ids:  # fall back to what its edges cite
        chunk_ids = list(dict.fromkeys(c for e in eids for c in g.edge_chunks[e]))
        source = "edges"
    st.markdown(f"**Provenance** ({len(chunk_ids)} passage{'s' if len(chunk_ids) != 1 else ''}"
                f"{' cited by its edges' if source == 'edges' and chunk_ids else ''})")
    if not chunk_ids:
        st.caption("No source passage is recorded for this node.")
    if whole_graph(g) is None:
        g.chunk_index.prefetch(chunk_ids[:MAX_CHUNKS_SHOWN])
    for cid in chunk_ids[:MAX_CHUNKS_SHOWN]:
        if cid not in g.chunk_index:
            st.caption(f"{md_escape(cid)}: not in this workspace")
            continue
        c = g.chunk(cid)
        with st.container(border=True):
            st.markdown(f"**{md_escape(c.title) if c.title else '(untitled)'}** · {md_code(c.id)}")
            st.text(c.text if c.text else "(the triples file names this chunk id but no corpus gives its text)")
    if len(chunk_ids) > MAX_CHUNKS_SHOWN:
        st.caption(f"… and {len(chunk_ids) - MAX_CHUNKS_SHOWN} more passages (see the export for all).")


# ---------------------------------------------------------------------------------- statistics
def create_stats_ui(act: Active, g: KnowledgeGraph) -> None:
    ws = act.workspace
    stats = resources.graph_stats(g, act.key)
    cols = st.columns(5)
    metrics = [("Nodes", f"{stats['nodes']:,}"), ("Edges", f"{stats['edges']:,}"), ("Chunks", f"{stats['chunks']:,}"),
               ("Relations", f"{stats['relations']:,}"), ("Linked pairs", f"{stats['linked_pairs']:,}"),
               ("Components", f"{stats['components']:,}"), ("Largest component", f"{stats['largest_component']:,}"),
               ("Isolated nodes", f"{stats['isolated_nodes']:,}"), ("Mean degree", f"{stats['mean_degree']:.2f}"),
               ("Median degree", f"{stats['median_degree']:g}"), ("p99 degree", f"{stats['p99_degree']:g}"),
               ("Max degree", f"{stats['max_degree']:,}")]
    for i, (label, value) in enumerate(metrics):
        cols[i % 5].metric(label, value)
    if stats["hub"]:  # a name, not a number: a metric's large type cut it to a few letters in a fifth of the page
        st.caption(f"Hub (the node of max degree): **{md_escape(stats['hub'])}**")
    st.caption(f"Graph kind: {'corpus graph (nodes are passages)' if g.kind == 'corpus_graph' else 'knowledge graph'}"
               f" · workspace folder: {md_escape(public_path(ws.path))}")

    few = ws.meta.few_passages_warning()  # computed now: a later insert may have added passages
    if few:
        st.warning(md_escape(few), icon=":material/warning:")
    if ws.warnings:
        st.markdown("**Notes from loading**")
        for w in ws.warnings:
            st.warning(md_escape(public_text(w)))
    sources = ws.meta.sources
    if sources and not ws.meta.files:  # a workspace built before the per-file records: its files and formats
        st.markdown("**Sources**")
        st.dataframe(pd.DataFrame([{"file": k, "format": v} for k, v in sources.items()]), hide_index=True)
    create_files_ui(ws.meta.files, ws.meta.passages)
    if ws.meta.attribution:
        st.caption("Attribution: " + md_escape(ws.meta.attribution))
    ex = ws.meta.extraction
    if ex:
        create_extraction_ui(g, ex)
    idx = ws.meta.index
    st.markdown("**Vector index**")
    if not idx:
        st.caption("No index built yet.")
        return
    builds = ws.meta.index_builds
    c = st.columns(4)
    emb = str(idx.get("embedder", "?"))
    if len(emb) <= METRIC_CHARS:
        c[0].metric("Embedder", emb)
    else:  # a model path or hub id: the metric's large type would cut it
        c[0].caption(f"**Embedder**  \n{md_escape(emb)}")
    c[1].metric("Dimension", idx.get("dim", "?"))
    c[2].metric("Items indexed", f"{sum(b['items'] for b in builds):,}")
    c[3].metric("Build time", f"{sum(b['seconds'] for b in builds):.1f} s")
    st.caption(f"Model: {md_escape(idx.get('model_id', '?'))} · built {md_escape(idx.get('built_at', '?'))} · "
               f"reason: {md_escape(idx.get('reason', ''))}")
    if builds:
        rows = [{"index": b["kind"], "items": b["items"], "seconds": b["seconds"],
                 "items per second": round(b["items"] / b["seconds"]) if b["seconds"] else None} for b in builds]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    stages = ws.meta.build_stages
    if stages:
        total = sum(float(r.get("seconds") or 0.0) for r in stages)
        st.markdown(f"**Build time per stage** ({total:.1f} s in all)")
        st.dataframe(pd.DataFrame([{"stage": r.get("stage"), "seconds": r.get("seconds"),
                                    "share": f"{100 * float(r.get('seconds') or 0.0) / total:.1f} %" if total else "–",
                                    "items": r.get("items")} for r in stages]), hide_index=True)


def create_files_ui(files: list[dict[str, Any]], split: PassageSplit | None = None) -> None:
    """The files this workspace was built from (and added since): how many passages each became, or why it was
    left out; from the manifest, so it stays after the build's message is gone."""
    if not files:
        return
    st.markdown("**Files and their passages**")
    note = " ".join([passages_note(files, split), *repeats_notes(files)]).strip()
    if note:
        st.caption(md_escape(note))
    if left_out_reasons(files):  # each reason whole: the table's Status cell is short (an audit read it cut)
        st.caption(md_escape(files_caption(files)))
    st.dataframe(file_status_rows(files), hide_index=True, width="stretch", column_config=STATUS_COLUMNS)


#: What the spaCy KG's edges are worth, as independent real-browser audits measured them (16 random edges of an
#: invented 8-file corpus each, checked against the source sentence: audits 36–52, spaCy v27–v45; audits 51 and 52 also
#: read every edge of their corpus): an audit's engineer asked for "a better default extractor, or a warning on its
#: quality". In sums, with the last five checks apart: seventeen lists of counts read as dense.
SPACY_QUALITY = (
    "**What to expect of it:** seventeen independent checks of 16 random edges each, on invented 8-file corpora, found "
    "166 of the 272 edges right, 85 half right (the relation's owner or its exact words lost: “most famous figure · "
    "was · tall heron” for “the theatre's most famous figure was a tall heron”) and 21 wrong; the last five found 13, "
    "12, 9, 13 and 9 right and 0, 0, 0, 0 and 5 wrong, and the five that read every edge of their corpus found "
    "12 of 148, 13 of 179, 12 of 165, 13 of 203 and 12 of 234 wrong (about 1 in 15). Each check's faults were then fixed, so a later corpus may fare better or "
    "find others. Many links are only `mentions` (the passage names both). Judge it on the sample below; with a live "
    "LLM picked in the sidebar, the LLM extractor reads more relations, slower.")


def create_extraction_ui(g: KnowledgeGraph, ex: Mapping[str, Any]) -> None:
    """Which extractor built this corpus's KG, its counts, and sample passages with their triples."""
    from core.backends.registry import describe
    from core.graph.builder import sample_passage_triples

    st.markdown("**Triple extraction**")
    full = str(ex.get("extractor", "?"))
    name = full.split(":", 1)[0]
    try:
        about = describe("extractor", name)
    except EgxError:
        about = ""
    full = public_text(full)  # an extractor named by a model folder
    st.markdown(f"Built by the **{md_escape(name)}** extractor ({md_code(full)}). {md_escape(about)}")
    if name == "spacy":
        st.markdown(SPACY_QUALITY)
    st.dataframe(pd.DataFrame([{k: v for k, v in ex.items() if k != "failed_chunk_ids"}]), hide_index=True)
    if ex.get("failed_chunks"):
        ids = ", ".join(md_escape(str(c)) for c in ex.get("failed_chunk_ids", [])[:20])
        st.warning(f"Extraction failed for {ex['failed_chunks']} chunk(s): {ids}. They have no triples; "
                   "building the workspace again retries them (successes come from the cache).")
    st.markdown("**Sample: passages and the triples extracted from them**")
    seed = int(S.keep(S.DATA_SAMPLE_SEED, st.number_input(
        "Sample number", min_value=0, max_value=1_000_000, step=1, key=S.bind(S.DATA_SAMPLE_SEED, 0),
        help="Another number draws three other passages. Judge the extractor here before asking questions.")))
    samples = sample_passage_triples(g, passages=3, seed=seed)
    if not samples:
        st.caption("No triple cites a passage of this workspace.")
    for sample in samples:
        c = sample.chunk
        with st.container(border=True):
            st.markdown(f"**{md_escape(c.title) if c.title else '(untitled)'}** · {md_code(c.id)} · "
                        f"{sample.total} triple{'s' if sample.total != 1 else ''}"
                        + (f" (first {len(sample.triples)} shown)" if sample.total > len(sample.triples) else ""))
            st.text(c.text if len(c.text) <= 2000 else c.text[:2000] + " …")
            st.dataframe(pd.DataFrame(list(sample.triples), columns=["head", "relation", "tail"]),
                         hide_index=True, width="stretch")


# -------------------------------------------------------------------------------------- upload
def folder_name(typed: str) -> str:
    """A typed workspace name as its folder name: each run of spaces becomes '-' ("Kestrel Peak" →
    "Kestrel-Peak"); every other character is checked as before (:func:`core.fsio.safe_name`)."""
    return re.sub(r"\s+", "-", typed.strip())


NEUTRAL_NAME = "corpus"  #: the suggested name of a workspace built from several files that share no name
_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]+")  #: a file stem's words, numbers and separators


def _common_stem(stems: Sequence[str]) -> str:
    """The words the stems all start with, whole words only, without trailing separators or numbers
    ("apiary_part1", "apiary_part2" → "apiary_part"; "Marram_Bee_Station", "Marram_Bee_Hives" → "Marram_Bee");
    "" when they share none."""
    tokens = [_TOKEN.findall(s) for s in stems]
    common: list[str] = []
    for column in zip(*tokens, strict=False):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    while common and not common[-1].isalpha():
        common.pop()
    return "".join(common)


def _suggest_name(files: list, taken: Collection[str] = ()) -> str:
    """The workspace name the name box suggests (and a build takes when it is left empty): one file's stem; several
    files' common stem ("apiary_part1", "apiary_part2" → "apiary_part"), else the neutral :data:`NEUTRAL_NAME` — an
    audit's corpus of a JSONL and two PDFs was offered the first PDF's "Beatrix_Holloway". A name in ``taken`` gets
    the first free "-2", "-3", … (the build refuses a name in use)."""
    if not files:
        return ""
    stems = [clean_filename(f.name, default="workspace").split(".", 1)[0] for f in files]
    if len(set(stems)) == 1:  # one file (or one name in several formats): its stem
        base = stems[0][:MAX_NAME_CHARS].strip("-.") or "workspace"
    else:  # a shared stem of at least 3 characters, else neutral
        common = _common_stem(stems)[:MAX_NAME_CHARS].strip("-._")
        base = common if len(common) >= 3 else NEUTRAL_NAME
    name, n = base, 2
    while name in taken:
        suffix = f"-{n}"
        name, n = base[:MAX_NAME_CHARS - len(suffix)] + suffix, n + 1
    return name


#: the Upload tab's choices of how documents are split into passages (:meth:`PassageSplit.parse` specs), default first
PASSAGE_CHOICES = {str(CHUNK_CHARS): f"packed up to {CHUNK_CHARS:,} characters (default)",
                   "paragraph": "one per paragraph",
                   **{str(n): f"packed up to {n:,} characters" for n in OFFERED_PASSAGE_SIZES if n != CHUNK_CHARS}}
PASSAGES_HELP = (f"How documents (.txt, .md, .pdf, .html, .docx) are cut into passages, the unit every method "
                 f"retrieves. By default a document is split at its blank-line paragraphs and short paragraphs are "
                 f"packed together up to {CHUNK_CHARS:,} characters, so a few short files become a few passages, and "
                 "a method's top 5 may then hold the whole corpus. “One per paragraph” makes each paragraph a passage "
                 "(a heading stays with the paragraph after it; a longer paragraph is split at sentences; a PDF's "
                 "paragraphs are read from the gaps between its printed lines); a size "
                 "packs up to that many characters. Every passage keeps its document's title, so questions' gold "
                 "titles still match (a supporting fact's sentence index picks the passage holding it). JSON(L) corpus passages stay whole whatever is chosen. Documents added to the "
                 "workspace later are split the same way.")

#: said under the upload form: workspaces are the server's, jobs are the session's (a second browser saw and
#: could add documents to someone's uploaded workspace with nothing saying so)
SHARED_WORKSPACES_NOTE = ("Workspaces built here are listed for everyone who uses this server: in a classroom, "
                          "others can open yours and add documents to it. The build job itself stays with this "
                          "session.")


def create_upload_ui(act: Active) -> None:
    from core.index.listing import list_workspaces
    from core.index.paths import workspaces_root

    st.markdown(
        "Upload **triples** (CSV / TSV / JSON / JSONL: head, relation, tail, optional source chunk), a "
        "**GraphML** graph, a **corpus** (documents — PDF, HTML, Word .docx, Markdown, text — or JSON(L) "
        "`{title, text}` passages), a HippoRAG corpus + "
        "OpenIE file, or a corpus graph (nodes JSONL + edges CSV). Files may be gzip-compressed. A corpus "
        "without triples is turned into a KG by the extractor chosen below."
    )
    if st.session_state.pop(S.DATA_UPLOAD_DONE, False):  # the last build's files and name are spent
        S.clear_uploader(S.DATA_UPLOADS)
        S.clear_uploader(S.DATA_QUESTIONS)
        S.set_value(S.DATA_NEW_NAME, "")
    files = st.file_uploader("Graph or corpus files", type=UPLOAD_TYPES, accept_multiple_files=True,
                             key=S.uploader_key(S.DATA_UPLOADS))
    # any type: a document dropped here is told where it goes (drop_check), not Streamlit's bare "text/plain files
    # are not allowed" (audit 44)
    questions = st.file_uploader("Questions with gold evidence (optional: JSON or JSONL, the forms below)",
                                 key=S.uploader_key(S.DATA_QUESTIONS), help=UPLOADER_HELP)
    create_questions_format_ui()  # an audit had to read core/index/questions.py to learn the keys
    # a file dropped twice counts once; two different files of one name are both built, the later renamed: said now
    files, repeated = unique_uploads(list(files or []))
    if repeated:
        st.info(md_escape(repeated), icon=":material/content_copy:")
    dropped, unmatched, unreadable = drop_check(files, questions)
    if dropped:  # said when the file is dropped, not only after Build
        st.error(md_escape(dropped), icon=":material/block:")
    if unmatched:  # a misspelt gold title, named with its nearest title before the build (not blocking)
        st.warning(md_escape(unmatched), icon=":material/report:")
    # an empty document is left out (said now: an audit learned it after Build); when nothing else is left, or the
    # empty file is no document, the build cannot run: said now too, and the button is off (an audit read "the
    # build will leave it out" about its only file, then "Could not build")
    # a text file the build cannot read (NUL bytes: binary) is said at drop time too, in the build's own words
    empty_block, left_out = empty_upload_notes(files, unreadable)
    if empty_block:
        st.error(md_escape(empty_block), icon=":material/block:")
    if left_out:
        st.warning(md_escape(left_out), icon=":material/warning:")
    blocked = dropped or empty_block
    from core.backends.registry import EXTRACTORS, describe
    from core.index.create import LLM_EXTRACT_SECONDS

    choices = [e for e in EXTRACTORS if e != "llm" or act.llm.available]
    # the recorded LLM replays the shipped runs only: a new corpus's passages were never recorded, so it is
    # offered but never the default (every passage would take the extractor's fallback)
    live_llm = act.llm.available and act.llm.name != "recorded"
    ex_col, split_col = st.columns([3, 2])
    ex_name = S.keep(S.DATA_EXTRACTOR, ex_col.selectbox(
        "Triple extractor (for a corpus without triples)", choices,
        key=S.bind(S.DATA_EXTRACTOR, "llm" if live_llm else "spacy"),
        format_func=lambda n: {"llm": f"llm ({act.llm.name})", "spacy": "spacy (no LLM needed)",
                               "rules": "rules (capitalized names)"}.get(n, n),
        help="How a plain corpus becomes a KG. " + " ".join(f"{n}: {describe('extractor', n)}" for n in choices)))
    if ex_name not in choices:  # the LLM was switched off since
        ex_name = "spacy"
    # what its edges are worth, said where it is picked (audit 53 found the measured figures only on the Statistics
    # tab, after the build)
    worth = (" Independent checks read about 1 edge in 15 of a new corpus as wrong (Statistics › Triple extraction "
             "says more after the build)." if ex_name == "spacy" else "")
    if "llm" not in choices:  # an audit's engineer got 5 triples from 5 facts and no word of a denser way
        ex_col.caption(f"spaCy keeps the relations its small model parses (a few triples a passage).{worth} A live LLM "
                       f"picked in the sidebar (local or OpenAI-compatible) adds an LLM extractor here, about "
                       f"{LLM_EXTRACT_SECONDS:.0f} s a passage with the local model on this CPU.")
    elif worth:
        ex_col.caption(worth.strip())
    passages = S.keep(S.DATA_PASSAGES, split_col.selectbox(
        "Passages (documents)", list(PASSAGE_CHOICES), key=S.bind(S.DATA_PASSAGES, str(CHUNK_CHARS)),
        format_func=lambda k: PASSAGE_CHOICES.get(k, k), help=PASSAGES_HELP))
    existing = {i.name for i in list_workspaces()} if files else set()  # read once: the suggestion and the clash
    suggestion = _suggest_name(files or [], existing)
    name = S.keep(S.DATA_NEW_NAME, st.text_input(
        "Workspace name", key=S.bind(S.DATA_NEW_NAME, ""), placeholder=suggestion or "my-graph",
        max_chars=MAX_NAME_CHARS, help=f"{NAME_RULE}; it becomes the folder name (a space becomes '-', the name "
                                       "as typed the workspace's title).")).strip() or suggestion
    typed, name = name, folder_name(name)
    title = typed if name != typed else ""
    if title:  # an audit's "Kestrel Peak" was refused for its space: the folder takes "-", the title the name
        st.caption(f"Saved in the folder “{md_escape(name)}”, titled “{md_escape(typed)}”.")
    st.caption(SHARED_WORKSPACES_NOTE)
    # a name already taken, said as it is typed (audit 57 learnt it only after the click), the button off meanwhile
    taken = name in existing
    if taken:
        said = (f"“{md_escape(typed)}” is saved in the folder “{md_escape(name)}”, and a workspace there already exists"
                if typed != name else f"A workspace named “{md_escape(name)}” already exists")  # audit 58: as typed
        st.warning(f"{said}: pick another name (Build stays off until then).", icon=":material/edit:")
    # a dropped file that cannot be built from turns the button off, the reason beside it: an audit clicked a
    # live button under the error above and saw nothing happen (no message, no job)
    # how long the build will take, said before the click (audit 55 built a 2-MB one-line file, 1,743 passages and
    # 12 minutes, with nothing said); a long one names its length on the button itself
    est = None if blocked or not files else build_estimate(files, passages, ex_name, act)
    label = "Build workspace"
    if est is not None and est[0] > workspaces.ask_before_s():
        label += f" (about {workspaces.about(est[0])})"
        st.warning(f"This build is expected to take **about {workspaces.about(est[0])}** on this server "
                   f"({md_escape(est[1])}). It runs in the background once started: the app stays usable, and its "
                   "progress and Cancel are below and in the sidebar (a cancelled build leaves nothing behind).",
                   icon=":material/schedule:")
    elif est is not None:
        st.caption(f"Expected build time: about {workspaces.about(est[0])} ({md_escape(est[1])}).")
    if est is not None and est[2]:
        st.warning(md_escape(est[2]), icon=":material/text_snippet:")
    clicked = st.button(label, key=S.DATA_BUILD, type="primary", disabled=bool(blocked) or taken,
                        help=f"Off until what is named above is fixed: {md_escape(blocked)}" if blocked else None)
    if blocked:
        st.caption(f":material/block: Nothing can be built until what is named above is removed or fixed: "
                   f"{md_escape(blocked)}")
    if clicked:
        st.session_state.pop(S.DATA_UPLOAD_OUTCOME, None)  # a new try: the last one's failure is no longer news
    else:
        show_upload_outcome()
        show_upload_job()
        return
    building_now = session_jobs.running(S.DATA_UPLOAD_JOB)
    if building_now is not None:  # a second click (queued while the first one's run waited): no second build
        st.info(f"Already building “{md_escape(building_now.split(':', 1)[1])}”: this click started nothing; "
                "its progress is below and in the sidebar.", icon=":material/hourglass_top:")
        show_upload_job()
        return
    if not files:
        st.error("Choose at least one file to build a workspace from.")
        return
    if blocked:  # told above and beside the (disabled) button; nothing is built from swapped or empty files
        return
    try:
        target = child_path(workspaces_root(), name, kind="workspace name")
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        return
    if name in {i.name for i in list_workspaces()}:
        st.error(f"A workspace named “{md_escape(name)}” already exists. Pick another name.")
        return

    # The build is a background job of the server (it survives page switches; the sidebar shows it) that
    # runs in a child process within the memory and time caps (core.index.isolated), on uploads the job holds.
    # Saving and checking the files, then the first seconds of the build, take seconds: a line right under the
    # button says at once that the click was taken (an audit saw nothing there for ~3 s); the build's live panel
    # replaces it.
    building = st.empty()
    building.info(f"Building “{md_escape(name)}”: reading the files…", icon=":material/hourglass_top:")
    paths, qpath, drop_uploads = stage_uploads(list(files), questions)
    problem = _swapped_files_problem(paths, qpath)
    if problem:
        building.empty()
        drop_uploads()
        st.error(md_escape(problem))
        return
    building.info(f"Building “{md_escape(name)}”: starting the build…", icon=":material/hourglass_top:")
    spec = BuildSpec(tuple(str(p) for p in paths), str(target), name, act.embedder_name, ex_name, act.llm_name,
                     str(qpath) if qpath else None, title=title, passages=passages)

    def work(job: Job) -> Workspace:
        from core.backends.registry import get_extractor
        from core.index.create import create_workspace
        from core.index.workspace import Workspace

        try:  # create_workspace(overwrite=False): a second upload under an existing name fails, never replaces
            if not isolated_builds():  # EGX_BUILD_ISOLATED=0: in this process, uncapped
                return create_workspace(paths, target, name=name, title=title, embedder=act.embedder,
                                        questions=qpath,
                                        extractor=get_extractor(ex_name, llm=act.llm), progress=job.progress,
                                        passages=PassageSplit.parse(passages))
            job.extra["build"] = build_isolated(spec, progress=job.progress, cancel=job.cancel_event)
            return Workspace.open(target)
        finally:
            drop_uploads()

    started = session_jobs.start(S.DATA_UPLOAD_JOB, f"upload:{name}", f"Building “{name}” from an upload", work,
                                 on_busy=drop_uploads, wait=1.5, rerun=True)
    building.empty()
    if started:
        show_upload_job()


def build_estimate(files: list, passages: str, extractor: str, act: Active) -> tuple[float, str, str] | None:
    """Seconds the dropped ``files`` take to build with ``extractor`` and the app's embedder, split as ``passages``
    says, what the figure rests on (:func:`core.index.estimate.inputs_build_estimate`), and what the build will find
    in text that is no prose ("" for prose); None where it cannot be told (a file the build will refuse says so
    itself). Measured once per set of files and settings (the
    session keeps it); the copies it reads are deleted at once."""
    from core.index.estimate import inputs_build_estimate

    ident = (tuple((f.file_id, f.name, f.size) for f in files), passages, extractor, act.embedder_name)
    kept = st.session_state.get(S.DATA_BUILD_ESTIMATE)
    if kept is not None and kept[0] == ident:
        return kept[1]
    paths, _, drop = stage_uploads(files)
    notes: list[str] = []
    try:
        with st.spinner("Estimating how long the build takes…"):
            seconds, how = inputs_build_estimate(paths, act.embedder, extractor=extractor,
                                                 passages=PassageSplit.parse(passages), notes=notes)
        found: tuple[float, str, str] | None = (seconds, how, " ".join(notes))
    except EgxError:
        found = None
    finally:
        drop()
    st.session_state[S.DATA_BUILD_ESTIMATE] = (ident, found)
    return found


def _swapped_files_problem(paths: list, qpath: Any) -> str:
    """What is wrong with saved uploads, from their first records: a questions file among the graph or corpus
    files, or a corpus (triples, a graph, unreadable questions) on the questions uploader; "" when nothing."""
    from core.graph.formats.load import refuse_questions_files
    from core.index.questions import check_questions_file

    try:
        refuse_questions_files(paths)
        if qpath is not None:
            check_questions_file(qpath)
    except EgxError as exc:
        return error_text(exc)
    return ""


#: a plain-text upload read whole to tell whether it holds any text (larger ones are assumed to)
EMPTY_CHECK_BYTES = 1 << 20
_TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".json", ".jsonl", ".tsv", ".csv")
#: of those, the ones the build reads line by line (the others whole)
_LINE_SUFFIXES = (".jsonl", ".tsv", ".csv")


def empty_uploads(files: list) -> list[str]:
    """The names of dropped files with no text: no bytes at all, or a plain-text file (up to
    :data:`EMPTY_CHECK_BYTES`) of whitespace only. Other kinds (a PDF, a Word file) are read at the build, which
    says so there."""
    out = []
    for f in files:
        name = str(getattr(f, "name", ""))
        size = int(getattr(f, "size", 0) or 0)
        if size == 0:
            out.append(name)
        elif name.lower().endswith(_TEXT_SUFFIXES) and size <= EMPTY_CHECK_BYTES and not f.getvalue().strip():
            out.append(name)
    return out


#: suffixes the build reads as documents: an empty one is left out while another file is read (a JSON, CSV or
#: GraphML file with nothing in it stops the build)
_DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm", ".xhtml", ".docx")


def empty_upload_notes(files: list, unreadable: Mapping[str, str] | None = None, *,
                       doing: str = "the build") -> tuple[str, str]:
    """``(blocking, left_out)`` for the dropped files with no text (:func:`empty_uploads`) and those the build cannot
    read (``unreadable``: name → the build's message, :func:`unreadable_uploads`): why the build cannot run — no file
    is left to read, or such a file is no document (the build reads it and stops) — else the documents the build
    will leave out; ``""`` for what does not apply. Says what the build (``doing``: "adding", for Add documents)
    then does."""
    blank = empty_uploads(files)
    bad = {n: why for n, why in (unreadable or {}).items() if n not in blank}
    if not blank and not bad:
        return "", ""
    first = doing[:1].upper() + doing[1:]  # the sentence's first word

    def are(names: list[str]) -> str:
        return f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} empty"

    def it(names: list[str]) -> str:
        return "it" if len(names) == 1 else "them"

    def said(names: list[str]) -> str:  # what is wrong with each: empty, or the build's own message
        parts = ([are(empties)] if (empties := [n for n in names if n in blank]) else []) + [
            bad[n].rstrip(".") for n in names if n in bad]
        return "; ".join(parts)

    names = [*blank, *bad]
    if len(names) >= len(files):
        if not bad:
            return (f"{are(blank)}, so {doing} cannot run: there is no text to build from. Drop a file with text, "
                    "or the file again with its text."), ""
        return (f"{said(names)}. So {doing} cannot run: no file can be read. Drop a UTF-8 text file instead (a "
                "binary file's text saved as .txt, or the document itself: PDF, Word, HTML, Markdown)."), ""
    data = [n for n in names if base_suffix(Path(n)) not in _DOCUMENT_SUFFIXES]
    if data:
        if not bad:
            return (f"{are(data)}, so {doing} cannot run: it leaves out an empty document, never an empty data "
                    f"file. Remove {it(data)} (×), or drop the file again with its content."), ""
        return (f"{said(data)}. So {doing} cannot run: it leaves out a document it cannot read, never a data "
                f"file. Remove {it(data)} (×), or drop the file again as UTF-8 text."), ""
    if not bad:
        return "", (f"{are(blank)}: {doing} will leave {it(blank)} out. Remove {it(blank)} (×), or drop the file "
                    "again with its text.")
    return "", (f"{said(names)}. {first} will leave {it(names)} out. Remove {it(names)} (×), or drop the file "
                "again as UTF-8 text.")


def add_drop_notes(files: list) -> bool:
    """What the Upload tab says of dropped files, said on Add documents too as they are dropped: an empty or unreadable
    file that adding will leave out, a questions file dropped as a document (audit 48 learned of its empty file only
    after the add). Whether adding cannot run (then its button is off)."""
    if not files:
        return False
    problem, _, unreadable = drop_check(files, None, key=S.DATA_ADD_DROP_CHECK)
    block, left_out = empty_upload_notes(files, unreadable, doing="adding")
    for text in (problem, block):
        if text:
            st.error(md_escape(text), icon=":material/block:")
    if left_out:
        st.warning(md_escape(left_out), icon=":material/warning:")
    return bool(problem or block)


def dropped_files_problem(files: list, questions: Any) -> str:
    """:func:`_swapped_files_problem` for the files as they are dropped on the uploaders (see :func:`drop_check`)."""
    return drop_check(files, questions)[0]


def drop_check(files: list, questions: Any, *, key: str = S.DATA_DROP_CHECK) -> tuple[str, str, dict[str, str]]:
    """What is wrong with the files as they are dropped on the uploaders, so a corpus on the questions uploader is
    told at once, not after Build (:func:`_swapped_files_problem`), and the questions' gold titles that match no
    title of the dropped documents, named with the nearest one (:func:`unmatched_gold_note`; "" when the titles
    cannot be told before the build), and the dropped text files the build cannot read, each with the build's own
    message (:func:`unreadable_uploads`). Checked once per set of dropped files (the session keeps the answer); the
    copies it reads are deleted at once. ``key``: where the session keeps the answer (one per uploader)."""
    if not files and questions is None:
        return "", "", {}
    ident = tuple((f.file_id, f.name, f.size) for f in files) + ((questions.file_id, questions.name, questions.size)
                                                                if questions is not None else ())
    kept = st.session_state.get(key)
    if kept is not None and kept[0] == ident and len(kept) > 3:
        return str(kept[1]), str(kept[2]), dict(kept[3])
    from core.index.gold_titles import documents_unmatched_gold

    paths, qpath, drop = stage_uploads(files, questions)
    unmatched = ""
    try:
        unreadable = unreadable_uploads(files, paths)
        problem = _swapped_files_problem(paths, qpath)
        if not problem and qpath is not None and paths:
            unmatched = unmatched_gold_note(documents_unmatched_gold(paths, qpath), "in these documents")
    finally:
        drop()
    st.session_state[key] = (ident, problem, unmatched, unreadable)
    return problem, unmatched, unreadable


def unreadable_uploads(files: list, paths: Sequence[Path]) -> dict[str, str]:
    """Dropped name → why the build cannot read it, for the plain-text files (up to :data:`EMPTY_CHECK_BYTES`) among
    ``files`` whose saved copies ``paths`` the build's own text reader refuses: a .txt of NUL bytes was accepted at
    drop time and only refused at Build (an audit), while an empty one was said at once. The message is the build's
    (:func:`~core.graph.formats.textio.read_text` / ``iter_lines``), so both say the same. Empty files are left to
    :func:`empty_uploads`."""
    from core.errors import InputFormatError
    from core.graph.formats.textio import iter_lines, read_text

    out: dict[str, str] = {}
    for f, path in zip(files, paths, strict=False):
        name = str(getattr(f, "name", ""))
        size = int(getattr(f, "size", 0) or 0)
        if not size or size > EMPTY_CHECK_BYTES or not name.lower().endswith(_TEXT_SUFFIXES):
            continue
        try:
            if name.lower().endswith(_LINE_SUFFIXES):
                for _ in iter_lines(path):  # read as the build reads them: line by line
                    pass
            else:
                read_text(path)
        except InputFormatError as exc:
            why = str(exc)
            # the saved copy's name stands for the dropped one (a copy may be renamed when saved)
            out[name] = name + why[len(exc.source):] if why.startswith(exc.source) else why
    return out


def show_upload_outcome() -> None:
    """The ended upload build's failure or cancellation, set by :func:`show_upload_job`, under the Build button
    (scrolled to the first time it is drawn). It stays through the page's reruns (a job panel's, a widget's) until
    Build is clicked again: shown once, it could vanish at the rerun that followed it."""
    ss = st.session_state
    outcome = ss.get(S.DATA_UPLOAD_OUTCOME)
    if outcome is None:
        return
    level, text = outcome[0], outcome[1]
    (st.warning if level == "warning" else st.error)(text)
    if len(outcome) < 3:  # not scrolled to yet: at the top of the tab an audit clicked Build and saw nothing change
        # around the button; under it, without the scroll, it lay at the window's bottom edge (y≈860 of 900)
        scroll_here("egx-build-outcome")
        ss[S.DATA_UPLOAD_OUTCOME] = (level, text, "shown")


def show_upload_job() -> None:
    """This session's upload build: live while it runs; when it ended, its outcome (once). A built workspace
    empties the form (its files are spent); a failed or cancelled build keeps the chosen files and name, so
    fixing one file means swapping that file, not picking every file again."""
    ss = st.session_state
    job = session_jobs.finished(S.DATA_UPLOAD_JOB)
    if job is None:
        return
    s = job.status()
    name = job.key.split(":", 1)[1]
    if s.state == "cancelled":
        ss[S.DATA_UPLOAD_OUTCOME] = ("warning", f"The build of “{md_escape(name)}” was cancelled. Nothing was saved; "
                                                "the files are still chosen above.")
        st.rerun()
    try:
        new_ws = job.result()
        g = new_ws.graph
    except EgxError as exc:
        ss[S.DATA_UPLOAD_OUTCOME] = ("error", f"**Could not build workspace “{md_escape(name)}”.** "
                                              f"{md_escape(error_text(exc))}\n\nNothing was saved. Your files "
                                              "are still chosen above: remove the one named here (×), add its "
                                              "corrected version, and build again.")
        st.rerun()
    ss[S.DATA_UPLOAD_DONE] = True  # built: the form's files and name are spent
    ss.pop(S.DATA_UPLOAD_OUTCOME, None)
    st.session_state[S.PENDING_WORKSPACE] = name
    # the build's time in its first words (an audit's driver looked for it below the uploader; the stages' times are
    # drawn in the Statistics tab): the job's wall time, as its progress line counted it (the stages' sum left out
    # reading the files and read 4.8 s after "6 s elapsed")
    took = float(s.elapsed or 0.0) or sum(float(r.get("seconds") or 0.0) for r in new_ws.meta.build_stages)
    took_text = f" in {took:.1f} s" if took else ""
    gold, gold_off = _gold_note(new_ws)
    title = new_ws.title if new_ws.title and new_ws.title != name else ""
    shown = f"“{title}” (folder “{name}”)" if title else f"“{name}”"  # a typed name with spaces: its title first
    st.session_state[S.DATA_BUILT_MESSAGE] = (f"Built workspace {shown}{took_text}: {g.n_nodes:,} nodes, "
                                              f"{g.n_edges:,} edges, "
                                              f"{g.n_chunks:,} chunks. " + _repeats_note(new_ws.meta.files)
                                              + passages_note(new_ws.meta.files, new_ws.meta.passages) + " "
                                              + "It is now the active workspace. " + (gold if not gold_off else "")
                                              ).strip()
    st.session_state[S.DATA_BUILT_FILES] = new_ws.meta.files
    # gold titles that match no passage go in the warning, not the green box (an audit read "1 of 1 question matches
    # no passage … left out of a benchmark" as a success)
    st.session_state[S.DATA_BUILT_WARNING] = " ".join(  # the gold first: an audit read past it after the other
        x for x in (gold if gold_off else "", new_ws.meta.few_passages_warning(), built_prose_note(g)) if x)
    st.rerun()


def _repeats_note(files: list[dict[str, Any]]) -> str:
    """The passages the build left out because a file repeated passages read before it (a PDF of a corpus's
    passages), as sentences ("" for none)."""
    said = [duplicates_text(str(f.get("file")), int(f.get("duplicates") or 0), f.get("duplicate_of") or ())
            for f in files if f.get("duplicates")]
    return "".join(f"{md_escape(t[0].upper() + t[1:])}. " for t in said)


def _gold_note(ws: Workspace) -> tuple[str, bool]:
    """What a new workspace's questions file says about its gold passages (at upload, not first at a benchmark):
    how many questions were read and how many have every gold passage here; the gold titles that match no passage
    are counted as never retrieved, and named with the questions naming them and the nearest title here ("" without
    a questions file); and whether some gold matched no passage (or the file could not be read): a warning then."""
    from core.eval.selection import gold_coverage
    from core.index.gold_titles import workspace_unmatched_gold
    from core.index.questions import load_questions

    try:
        qs = load_questions(ws)
        if not qs:
            return "", False
        cov = gold_coverage(qs)
        whole = cov.questions - len(cov.partial) - len(cov.none)
        said = (f"{cov.questions:,} question{'s' if cov.questions != 1 else ''} read from its questions file; "
                f"{whole:,} of them {'has' if whole == 1 else 'have'} every gold passage in this workspace.")
        named = unmatched_gold_note(workspace_unmatched_gold(ws, qs))
        text = f"{said} {cov.note(left_out=True)} {named} {split_titles_note(qs, question_graph(ws))}".strip()
        return text, bool(cov.partial or cov.none)
    except EgxError as exc:
        return f"Its questions file could not be read: {error_text(exc)}", True


#: How many narrowed gold titles the build's note names (the rest are counted).
NAMED_TITLES = 12


def split_titles_note(questions: list[Any], graph: GraphLike) -> str:
    """What the gold of titles that are several passages here is ("" when no gold title is): a supporting fact
    ``[title, sentence]`` names the passage holding that sentence, counted from 0 across the document (said with
    where the first facts landed: a fact written with 0 for "this document" names the first sentence's passage
    only); a gold given by title alone (``ground_truth``, an index past the document's end) makes every passage of
    the title gold (an audit read "1 of 4 gold passages" for a one-paragraph fact)."""
    notes = []
    placed = list(dict.fromkeys(f for q in questions for f in getattr(q, "split_facts", ())))
    if placed:
        some = "; ".join(f"“{t}” sentence {k} → passage {i} of {n}" for t, k, i, n in placed[:3])
        notes.append(f"Supporting facts on documents split into several passages name the passage holding their "
                     f"sentence (counted from 0 across the document): {some}{' …' if len(placed) > 3 else ''}. "
                     "Check that each index is the evidence sentence's: 0 is the first sentence, not the document.")
    titles: dict[str, int] = {}
    for q in questions:
        whole = {t.casefold() for t in getattr(q, "whole_titles", ())}  # as written: a title matches whatever its case
        seen: dict[str, int] = {}
        for cid in q.gold_chunks:
            t = graph.chunk(cid).title
            if t.casefold() in whole:
                seen[t] = seen.get(t, 0) + 1
        for t, n in seen.items():
            if n > 1:
                titles[t] = max(titles.get(t, 0), n)
    if titles:
        some = ", ".join(f"“{t}” ({n} passages)" for t, n in list(titles.items())[:3])
        notes.append(f"Gold titles given without a sentence that are several passages here: {some}"
                     f"{' …' if len(titles) > 3 else ''}. Such a title is one gold document, found when any one of its passages is retrieved "
                     "(R@k and the verdicts count it once); to name one passage, give a supporting fact `[title, sentence index]` or `paragraphs` with its text (Questions file "
                     "format, above).")
    answered = list(dict.fromkeys(t for q in questions for t in getattr(q, "answer_titles", ())))
    if answered:  # audit 56: the answer stood in one passage of a title-only gold, and any passage counted as found
        # named, not cut at three with "…" (audit 57 could not tell which titles were narrowed)
        some = ", ".join(f"“{t}”" for t in answered[:NAMED_TITLES])
        more = f" and {len(answered) - NAMED_TITLES} more" if len(answered) > NAMED_TITLES else ""
        notes.append(f"Gold titles given without a sentence whose gold answer stands in only some of their passages: "
                     f"{some}{more}. For each, the passages that hold the answer are the "
                     "gold (the others do not count as finding it).")
    return " ".join(notes)


# -------------------------------------------------------------------------------------- export
def create_export_ui(act: Active, g: GraphLike, shown: list[int], shown_is_whole: bool, doc: str) -> None:
    ws = act.workspace
    scope = "Whole graph"
    if shown and not shown_is_whole:
        scope = S.keep(S.DATA_EXPORT_SCOPE, st.radio(
            "What to export", ["Shown drawing", "Whole graph"], key=S.bind(S.DATA_EXPORT_SCOPE, "Shown drawing"),
            horizontal=True, help="The drawing is the neighbourhood (or capped view) on the Graph tab."))
    nodes = None if scope == "Whole graph" else list(shown)
    if nodes is None and whole_graph(g) is None:  # a graph store: the whole graph is read for it
        full = workspaces.whole_graph_if_it_fits(ws, "a whole-graph export")
        if full is None:
            return
        g = full
    n = g.n_nodes if nodes is None else len(nodes)
    stem = ws.name if nodes is None else f"{ws.name}-subgraph-{n}"
    st.caption(f"{n:,} nodes with the edges among them and the passages they cite. JSON is the egx format "
               "(loadable on this page); GraphML opens in Gephi, yEd, networkx.")
    c1, c2, c3 = st.columns(3)
    c1.download_button("Download egx JSON", data=lambda: graph_view.graph_json_bytes(g, nodes),
                       file_name=f"{stem}.egx.json", mime="application/json", key=S.DATA_DL_JSON, on_click="ignore")
    c2.download_button("Download GraphML", data=lambda: graph_view.graphml_bytes(g, nodes),
                       file_name=f"{stem}.graphml", mime="application/xml", key=S.DATA_DL_GRAPHML, on_click="ignore")
    if doc:
        c3.download_button("Download drawing (HTML)", data=doc, file_name=f"{ws.name}-drawing.html",
                           mime="text/html", key=S.DATA_DL_HTML, on_click="ignore")
