"""`egx index ... --store falkordb://...`: the graph goes into FalkorDB, the manifest names the store
(no password), `egx ask` reads it from there, and a bad store is one clear error."""

from __future__ import annotations

import json

from core.cli import main
from core.graph.stores.falkor_server import free_port
from core.index.workspace import Workspace
from tests.conftest import SAMPLE_DATA

DEMO = [str(SAMPLE_DATA / "demo" / "corpus.json"), str(SAMPLE_DATA / "demo" / "triples.csv")]


def test_index_into_falkordb_and_ask(tmp_path, falkordb_server, monkeypatch, capsys):
    monkeypatch.setenv("EGX_FALKORDB_PASSWORD", "")  # the fixture's server has none
    url = falkordb_server.url("cli_demo")
    ws_dir = tmp_path / "w"
    assert main(["index", *DEMO, "--workspace", str(ws_dir), "--embedder", "hashing", "--store", url]) == 0
    assert f"graph store: {url}." in capsys.readouterr().out
    manifest = json.loads((ws_dir / "manifest.json").read_text())
    assert manifest["store"]["url"] == url and manifest["graph"]["store"] == url
    assert not (ws_dir / "graph.json.gz").exists()
    ws = Workspace.open(ws_dir)
    assert ws.store.remote and ws.graph.n_edges == manifest["graph"]["edges"]
    assert main(["ask", "When did Lothair II's mother die?", "--workspace", str(ws_dir), "--embedder", "hashing",
                 "--reranker", "biencoder", "--method", "bubblerag", "--llm", "none", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chunks"]


def test_move_workspace_into_store(tmp_path, falkordb_server, capsys):
    ws_dir = tmp_path / "w"
    assert main(["index", *DEMO, "--workspace", str(ws_dir), "--embedder", "hashing"]) == 0
    before = Workspace.open(ws_dir).graph.to_dict()
    url = falkordb_server.url("cli_move")
    assert main(["index", "--workspace", str(ws_dir), "--embedder", "hashing", "--store", url]) == 0
    assert f"Graph moved into {url}" in capsys.readouterr().out
    assert main(["workspaces", "--root", str(tmp_path)]) == 0
    assert f"chunks in {url}" in capsys.readouterr().out
    ws = Workspace.open(ws_dir)
    assert ws.store_url == url and ws.graph.to_dict() == before
    assert not (ws_dir / "graph.json.gz").exists()


def test_unreachable_store_is_one_error_and_no_workspace(tmp_path, capsys):
    url = f"falkordb://127.0.0.1:{free_port()}/g"
    code = main(["index", *DEMO, "--workspace", str(tmp_path / "w"), "--embedder", "hashing", "--store", url])
    assert code == 2
    err = capsys.readouterr().err
    assert f"Cannot reach the graph store {url}" in err and "Traceback" not in err
    assert not (tmp_path / "w").exists()


def test_password_in_url_is_refused_before_any_work(tmp_path, capsys):
    code = main(["index", *DEMO, "--workspace", str(tmp_path / "w"), "--embedder", "hashing",
                 "--store", "falkordb://me:hunter2@127.0.0.1:1/g"])
    assert code == 2
    err = capsys.readouterr().err
    assert "hunter2" not in err and "EGX_FALKORDB_PASSWORD" in err


def test_failed_build_writes_nothing_into_the_store(tmp_path, falkordb_server, monkeypatch):
    import pytest
    from falkordb import FalkorDB

    import core.index.create as wsmod
    from core.backends.registry import get_embedder

    def fail(*a, **k):
        raise KeyboardInterrupt  # a cancel while the index is built

    monkeypatch.setattr(wsmod, "build_indexes", fail)
    with pytest.raises(KeyboardInterrupt):
        wsmod.create_workspace(DEMO, tmp_path / "w", embedder=get_embedder("hashing"),
                               store=falkordb_server.url("never_written"))
    assert not (tmp_path / "w").exists()
    assert not [g for g in FalkorDB(host="127.0.0.1", port=falkordb_server.port).list_graphs()
                if g.startswith("never_written")]


def test_overwrite_never_replaces_another_workspaces_graph(tmp_path, falkordb_server, monkeypatch, capsys):
    """`--store …/g1 --overwrite` for workspace B once replaced workspace A's graph; the refusal without
    --overwrite did not say whose graph it is."""
    monkeypatch.setenv("EGX_FALKORDB_PASSWORD", "")
    url = falkordb_server.url("cli_owned")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["index", *DEMO, "--workspace", str(a), "--embedder", "hashing", "--store", url]) == 0
    capsys.readouterr()
    before = Workspace.open(a).graph.to_dict()
    triples_only = [str(SAMPLE_DATA / "demo" / "triples.csv")]
    assert main(["index", *triples_only, "--workspace", str(b), "--embedder", "hashing", "--store", url]) == 2
    assert f"of the workspace {a.resolve()}" in capsys.readouterr().err
    assert main(["index", *triples_only, "--workspace", str(b), "--embedder", "hashing", "--store", url,
                 "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert f"the egx graph 'cli_owned' of the workspace {a.resolve()}" in err and "only a graph this workspace" in err
    assert not b.exists()
    assert Workspace.open(a).graph.to_dict() == before  # A still reads its own graph
    # A itself may replace its graph
    assert main(["index", *DEMO, "--workspace", str(a), "--embedder", "hashing", "--store", url, "--overwrite"]) == 0
    assert Workspace.open(a).graph.to_dict() == before
