"""AppTest runs of app.py (Home) and the Data page on the bundled samples.

Every test gets its own ``EGX_HOME`` under ``tmp_path`` and the fast hashing embedder; samples are
built on first use exactly as in the app. One test (marked ``model``) uses the default MiniLM.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components import state as S
from core.index.workspace import Workspace
from tests.app.helpers import drawn_nodes, plain, run_page

BAD_CSV_ERROR = ("bad.csv, line 1: found 2 columns. Expected 3 columns (head, relation, tail) or 4 "
                 "(head, relation, tail, source chunk).")


def test_home_page_and_sidebar(home: Path) -> None:
    at = run_page()
    assert at.title[0].value == "Evidence Graph Explorer"
    sidebar = {s.label: s.value for s in at.sidebar.selectbox}
    assert sidebar == {"Workspace": "demo", "Embedder": "hashing", "Reranker": "biencoder", "LLM": "none"}
    info = plain(at.sidebar.info[0].value)
    assert "Embedder: hashing" in info and "unit tests only" in info
    assert "Reranker: biencoder" in info and "Bi-encoder stand-in" in info
    assert "head is linear, so GRanker feature smoothing equals score smoothing" in info
    assert "LLM: none" in info and "Deterministic LLM-free mode" in info and "extractive" in info
    text = " ".join(m.value for m in at.markdown)
    for method in ("BubbleRAG", "FastInsight", "SG-RAG", "ReG"):
        assert f"**{method}**" in text
    ws = Workspace.open(home / "workspaces" / "demo")  # the sample was built on first use
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Nodes"] == f"{ws.graph.n_nodes:,}" and metrics["Chunks"] == f"{ws.graph.n_chunks:,}"
    assert ws.manifest["index"]["embedder"] == "hashing"


def test_data_page_on_demo(home: Path) -> None:
    at = run_page("pages/data.py")
    assert at.title[0].value == "Data"
    assert [t.label for t in at.tabs] == ["Graph", "Statistics", "Upload", "Export"]
    assert at.text_input(key=S.widget_key(S.DATA_SEARCH)).label == "Search nodes by name"
    assert at.radio(key=S.widget_key(S.DATA_VIEW_MODE)).value == "Whole graph"
    assert at.button(key=S.DATA_BUILD).label == "Build workspace"
    assert len(at.get("file_uploader")) == 2
    assert {b.label for b in at.get("download_button")} == {"Download egx JSON", "Download GraphML",
                                                            "Download drawing (HTML)"}
    g = Workspace.open(home / "workspaces" / "demo").graph
    assert g.n_nodes <= 300
    # every name is in its node's tooltip; only some carry a canvas label (graph_view.label_choice)
    names = {n["title"].split("\n")[0] for n in drawn_nodes(at)}
    assert len(names) == g.n_nodes  # small graph: drawn whole
    assert {"Keanu Reeves", "Laurence Fishburne", "The Matrix"} <= names
    assert "Keanu Reeves" in at.get("iframe")[0].proto.srcdoc
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Nodes"] == f"{g.n_nodes:,}" and metrics["Embedder"] == "hashing"
    # a metric's large type shows about 12 characters in a fifth of a 1440 px page: the hub's name was cut
    assert all(len(v) <= 12 for v in metrics.values()), metrics
    hub = g.stats()["hub"]
    assert any(plain(c.value) == f"Hub (the node of max degree): **{hub}**" for c in at.caption)
    # the files it was built from: with their passages (one table; the older file → format table only for a
    # workspace built before the per-file records)
    said = " ".join(m.value for m in at.markdown)
    assert "Files and their passages" in said and "**Sources**" not in said
    # nothing capped; the one warning is the demo's size (23 passages: a top 10 holds 43 % of them)
    assert [plain(w.value)[:39] for w in at.warning] == ["Only 23 passages: a method's top 10 hol"], \
        [w.value for w in at.warning]


def test_node_search_narrows_choices_and_shows_provenance(home: Path) -> None:
    at = run_page("pages/data.py")
    before = at.selectbox(key=S.widget_key(S.DATA_NODE)).options
    at.text_input(key=S.widget_key(S.DATA_SEARCH)).input("keanu").run()
    assert not at.exception
    after = at.selectbox(key=S.widget_key(S.DATA_NODE)).options
    assert 0 < len(after) < len(before)
    assert all("keanu" in o.lower() for o in after)
    assert at.selectbox(key=S.widget_key(S.DATA_NODE)).value is not None
    assert plain(at.subheader[0].value) == "Node: Keanu Reeves"
    g = Workspace.open(home / "workspaces" / "demo").graph
    v = g.node("Keanu Reeves")
    texts = [t.value for t in at.text]
    expected = [g.chunk(c).text for c in g.node_chunks[v]]
    assert expected and all(t in texts for t in expected)
    edges = at.dataframe[0].value
    assert list(edges.columns) == ["head", "relation", "tail", "chunks"]
    assert len(edges) == len(set(g.csr.row(v)[1].tolist()))
    # neighbourhood mode draws the selected node with its neighbours only
    at.radio(key=S.widget_key(S.DATA_VIEW_MODE)).set_value("Neighbourhood").run()
    at.slider(key=S.widget_key(S.DATA_HOPS)).set_value(1).run()
    assert not at.exception
    labels = {n["label"] for n in drawn_nodes(at)}
    assert labels == {g.node_names[u] for u in g.khop([v], 1).tolist()}
    at.radio(key=S.widget_key(S.DATA_EXPORT_SCOPE)).set_value("Shown drawing").run()
    assert not at.exception


def test_bad_upload_shows_the_error_and_writes_nothing(home: Path) -> None:
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("bad.csv", b"Keanu Reeves,The Matrix\nA,B\n", "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("bad")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.main.error]  # (the sidebar's jobs panel lists the failed build too)
    assert len(errors) == 1 and BAD_CSV_ERROR in errors[0] and "Nothing was saved" in errors[0]
    root = home / "workspaces"
    # no "bad", no hidden half-built folder (only the hidden lock file of the demo sample's build)
    assert sorted(p.name for p in root.iterdir() if not p.name.endswith(".lock")) == ["demo"]
    assert at.sidebar.selectbox[0].value == "demo"
    # the form keeps what was chosen: fixing one file means swapping it, not picking every file again
    assert at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).value == "bad"
    kept = at.file_uploader(key=S.DATA_UPLOADS).value
    assert [f.name for f in (kept if isinstance(kept, list) else [kept])] == ["bad.csv"]


def test_upload_builds_and_switches_to_the_new_workspace(home: Path) -> None:
    csv = b"head,relation,tail\n<script>alert(1)</script>,attacks,The_Matrix\nThe_Matrix,starring,Keanu Reeves\n"
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("my_triples.csv", csv, "text/csv"))
    at.button(key=S.DATA_BUILD).click().run()  # no name typed: suggested from the file name
    assert not at.exception and not at.error
    assert at.sidebar.selectbox[0].value == "my_triples"
    assert re.search(r"Built workspace “my_triples” in \d+\.\d s: 3 nodes, 2 edges", plain(at.success[0].value)), \
        plain(at.success[0].value)  # the build's time first
    assert (home / "workspaces" / "my_triples" / "manifest.json").exists()
    doc = at.get("iframe")[0].proto.srcdoc
    assert "<script>alert(1)</script>" not in doc
    assert {n["label"] for n in drawn_nodes(at)} == {"&lt;script&gt;alert(1)&lt;/script&gt;", "The_Matrix",
                                                     "Keanu Reeves"}


def test_a_workspace_name_with_spaces_is_its_title_and_its_folder_takes_dashes(home: Path) -> None:
    """An audit typed "Kestrel Peak" and was refused for the space: the folder is "Kestrel-Peak", the title the
    name as typed, said under the box before the build."""
    import json

    csv = b"head,relation,tail\nThe_Matrix,starring,Keanu Reeves\n"
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("films.csv", csv, "text/csv"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("Kestrel  Peak").run()
    assert any("Saved in the folder “Kestrel-Peak”, titled “Kestrel  Peak”" in plain(c.value) for c in at.caption)
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.sidebar.selectbox[0].value == "Kestrel-Peak"
    assert "Built workspace “Kestrel  Peak” (folder “Kestrel-Peak”) in " in plain(at.success[0].value)
    manifest = json.loads((home / "workspaces" / "Kestrel-Peak" / "manifest.json").read_text())
    assert manifest["title"] == "Kestrel  Peak"


def test_musique_is_drawn_as_a_neighbourhood(home: Path) -> None:
    at = run_page("pages/data.py", **{S.WORKSPACE: "musique"})
    assert at.sidebar.selectbox[0].value == "musique"
    g = Workspace.open(home / "workspaces" / "musique").graph
    assert g.n_nodes > 10_000
    assert S.widget_key(S.DATA_VIEW_MODE) not in [r.key for r in at.radio]  # no "whole graph" option
    assert any("neighbourhood of one node" in plain(i.value) for i in at.info)
    hub = at.selectbox(key=S.widget_key(S.DATA_NODE)).value
    assert g.node_names[hub] == g.stats()["hub"]
    nodes = drawn_nodes(at)
    assert len(nodes) == len(g.khop([hub], 1)) <= 300
    at.slider(key=S.widget_key(S.DATA_HOPS)).set_value(2).run()  # the hub's 2-hop neighbourhood exceeds the cap
    assert not at.exception
    assert len(drawn_nodes(at)) == 300
    assert any("capped at 300" in w.value for w in at.warning)
    at.text_input(key=S.widget_key(S.DATA_SEARCH)).input("england").run()
    options = at.selectbox(key=S.widget_key(S.DATA_NODE)).options
    assert options[0] == "England" and all("england" in o.lower() for o in options)
    assert plain(at.subheader[0].value) == "Node: England"
    at.text_input(key=S.widget_key(S.DATA_SEARCH)).input("no such entity xyz").run()
    assert any("No node name contains" in plain(c.value) for c in at.caption)


@pytest.mark.model
def test_default_backends_are_bge_small_and_the_bundled_cross_encoder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EGX_EMBEDDER")
    monkeypatch.delenv("EGX_RERANKER")
    at = run_page()
    assert at.sidebar.selectbox(key=S.widget_key(S.EMBEDDER)).value == "bge-small"
    assert at.sidebar.selectbox(key=S.widget_key(S.RERANKER)).value == "ms-marco-minilm"
    info = plain(at.sidebar.info[0].value)
    assert "Embedder: bge-small" in info and "bge-small-en-v1.5" in info
    assert "Reranker: ms-marco-minilm" in info and "non-linear" in info
    assert Workspace.open(home / "workspaces" / "demo").manifest["index"]["embedder"] == "bge-small"


def test_the_node_picker_follows_the_workspace(home: Path) -> None:
    """The picked node is an id of one workspace's graph: after a switch the picker showed the old pick (the
    same id, another node) and the old search; each workspace keeps its own."""
    at = run_page("pages/data.py")
    at.text_input(key=S.widget_key(S.DATA_SEARCH)).input("keanu").run()
    demo = Workspace.open(home / "workspaces" / "demo").graph
    picked = at.selectbox(key=S.widget_key(S.DATA_NODE)).value
    assert "keanu" in demo.node_names[picked].lower()
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("musique").run()
    assert not at.exception, [e.value for e in at.exception]
    mq = Workspace.open(home / "workspaces" / "musique").graph
    assert at.text_input(key=S.widget_key(S.DATA_SEARCH)).value == ""
    box = at.selectbox(key=S.widget_key(S.DATA_NODE))
    assert mq.node_names[box.value] == box.options[0] == mq.stats()["hub"]  # MuSiQue's own best-connected node
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("demo").run()
    assert at.text_input(key=S.widget_key(S.DATA_SEARCH)).value == "keanu"
    assert at.selectbox(key=S.widget_key(S.DATA_NODE)).value == picked
