"""The GraphStore contract: FalkorDB vs the in-memory graph (the oracle), loading without
half-written graphs, and the errors for a bad store."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from falkordb import FalkorDB

from core.errors import StoreError
from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.graph.stores import open_store
from core.graph.stores.falkor import FalkorStore
from core.graph.stores.falkor_conn import (
    EDGE_ID_BASE,
    NODE_ID_BASE,
    PROVENANCE,
    RELATIONS,
    SCHEMA_VERSION,
    Ids,
    pack_codes,
    split_ids,
    unpack_codes,
)
from core.graph.stores.falkor_load import edge_codes, load_graph_into
from core.graph.stores.falkor_server import FalkorServer, free_port
from core.graph.stores.store import GraphStore, MemoryStore, parse_store_url


def _graph() -> KnowledgeGraph:
    """The Matrix example plus a hub, a self-loop, parallel edges and provenance."""
    b = GraphBuilder(name="toy")
    c1 = b.add_chunk("The Matrix", "Keanu Reeves and Laurence Fishburne starred in The Matrix.")
    c2 = b.add_chunk("John Wick", "Keanu Reeves starred in John Wick.")
    b.add_triple("Keanu Reeves", "starred in", "The Matrix", chunk_id=c1)
    b.add_triple("Laurence Fishburne", "starred in", "The Matrix", chunk_id=c1)
    b.add_triple("Keanu Reeves", "starred in", "John Wick", chunk_id=c2)
    b.add_triple("Keanu Reeves", "acted in", "John Wick", chunk_id=c2)
    b.add_triple("John Wick", "sequel", "John Wick", chunk_id=c2)
    for i in range(30):
        b.add_triple(f"Film {i}", "released in", "1999")
    b.add_triple("The Matrix", "released in", "1999", chunk_id=c1)
    b.add_node("Lonely", description="no edges")
    odd = b.add_chunk('Zoë "quoted", title', "text with 'quotes', commas [and] \\ backslashes", chunk_id='id, "odd" [1]')
    b.add_triple('Zoë "Z" O\'Neil', "knows, \"well\"", "Keanu Reeves", chunk_id=odd)
    return b.build()


@pytest.fixture(scope="module")
def loaded(falkordb_server: FalkorServer) -> tuple[KnowledgeGraph, FalkorStore]:
    g = _graph()
    url = parse_store_url(falkordb_server.url("toy"))
    load_graph_into(g, url, overwrite=True)
    return g, FalkorStore.open(url)


def test_both_stores_meet_the_protocol(loaded):
    g, fs = loaded
    assert isinstance(MemoryStore(g), GraphStore) and isinstance(fs, GraphStore)
    assert fs.remote and not MemoryStore(g).remote
    assert (fs.n_nodes, fs.n_edges) == (g.n_nodes, g.n_edges)


def test_lookups_match_memory(loaded):
    g, fs = loaded
    mem = MemoryStore(g)
    every = list(range(g.n_nodes))
    assert fs.node_rows(every) == mem.node_rows(every)
    assert fs.edge_rows(list(range(g.n_edges))) == mem.edge_rows(list(range(g.n_edges)))
    assert fs.degrees(every).tolist() == mem.degrees(every).tolist() == g.degree.tolist()
    for v in every:
        assert fs.neighbors(v).tolist() == mem.neighbors(v).tolist()
    for key in ("keanu reeves", "  KEANU   Reeves", g.node_ids[3], "nobody"):
        assert fs.find_nodes(key) == mem.find_nodes(key)
    assert fs.find_nodes("Keanu Reeves") == [g.node("Keanu Reeves")]
    for c in g.chunks:
        assert fs.chunk_provenance(c.id) == mem.chunk_provenance(c.id)
    assert fs.chunk_provenance("no such chunk") == ([], [])


def test_search_and_top_degree_match_memory_and_the_graph(loaded):
    """The Data page's node search and default picks: FalkorDB = memory = the graph's own search (the
    first node of each matching name, shortest names first), and degree order against brute force."""
    g, fs = loaded
    mem = MemoryStore(g)
    for text in ("keanu", "  KEANU ", "film", "o", "Zoë", "zzz", "", "   "):
        want = [g.node(name) for name in g.search_nodes(text, limit=5)]
        assert mem.search_nodes(text, 5) == want, text
        assert fs.search_nodes(text, 5) == want, text
    assert fs.search_nodes("film", 0) == []
    brute = sorted(range(g.n_nodes), key=lambda v: (-int(g.degree[v]), g.node_names[v], v))
    for k in (1, 3, g.n_nodes + 2):
        assert mem.top_degree_nodes(k) == fs.top_degree_nodes(k) == brute[:k]


@pytest.mark.parametrize(("seeds", "hops", "cap"), [
    (["Keanu Reeves"], 0, 100), (["Keanu Reeves"], 1, 100), (["Keanu Reeves"], 3, 100),
    (["Laurence Fishburne", "Film 3"], 2, 100), (["Keanu Reeves"], 3, 8), (["Film 0"], 4, 5), (["Lonely"], 2, 10)])
def test_region_matches_memory_and_khop(loaded, seeds, hops, cap):
    g, fs = loaded
    s = [g.node(x) for x in seeds]
    a, b = MemoryStore(g).region(s, hops=hops, max_nodes=cap, with_chunks=True), fs.region(
        s, hops=hops, max_nodes=cap, with_chunks=True)
    assert a.nodes.tolist() == b.nodes.tolist() and a.edges.tolist() == b.edges.tolist()
    assert (a.hops, a.capped, a.hop.tolist()) == (b.hops, b.capped, b.hop.tolist())
    assert a.graph.to_dict() == b.graph.to_dict()
    if not a.capped:  # oracle: the h-hop neighbourhood and its induced edges
        assert a.nodes.tolist() == g.khop(s, hops).tolist()
        assert a.edges.tolist() == g.induced_edges(a.nodes.tolist()).tolist()
    else:
        assert a.nodes.size <= cap and a.hops < hops
    r = b.graph  # same ids, names and relations as the global graph
    for e in range(r.n_edges):
        assert r.edge_text(e) == g.edge_text(int(b.edges[e]))
    assert b.local_nodes(s).tolist() == [int(np.searchsorted(b.nodes, v)) for v in s]


REGION_CASES = [(["Keanu Reeves"], 3, 100), (["Laurence Fishburne", "Film 3"], 2, 100), (["Keanu Reeves"], 3, 8),
                (["Film 0"], 4, 5), (["Lonely"], 2, 10)]


def test_the_load_records_how_falkordb_ids_map_to_indices(loaded):
    """The loader checks ID(node v) = base + v over the whole graph (likewise edges) and records the bases,
    which is what lets the reader find nodes by id seek instead of the range index."""
    g, fs = loaded
    ids = Ids.of(fs.meta)
    assert ids.node_base is not None and ids.edge_base is not None
    got = fs._q(f"UNWIND $ids AS x {ids.match('n')} RETURN n.i", {"ids": ids.qids(range(g.n_nodes))})
    assert sorted(int(r[0]) for r in got) == list(range(g.n_nodes))
    assert fs._q("MATCH ()-[e:REL]->() WHERE ID(e) - e.i <> $b RETURN count(e)", {"b": ids.edge_base}) == [[0]]


def test_a_store_without_id_bases_reads_through_the_index(loaded, falkordb_server):
    """A graph loaded before the bases were recorded: every lookup and region goes through ``Node.i``'s index
    and still equals memory."""
    g, fs = loaded
    meta = {k: v for k, v in fs.meta.items() if k not in (NODE_ID_BASE, EDGE_ID_BASE)}
    old = FalkorStore(parse_store_url(falkordb_server.url("toy")), fs._db, meta)
    mem, every = MemoryStore(g), list(range(g.n_nodes))
    assert old.node_table(every) == mem.node_table(every)
    assert old.degrees(every).tolist() == mem.degrees(every).tolist()
    assert [a.tolist() for a in old.neighbor_lists(every)] == [a.tolist() for a in mem.neighbor_lists(every)]
    assert old.neighbor_counts(every).tolist() == mem.neighbor_counts(every).tolist()
    assert old.incident_edges([0, 3]).tolist() == mem.incident_edges([0, 3]).tolist()
    for seeds, hops, cap in REGION_CASES:
        s = [g.node(x) for x in seeds]
        a, b = mem.region(s, hops=hops, max_nodes=cap), old.region(s, hops=hops, max_nodes=cap)
        assert (a.nodes.tolist(), a.edges.tolist(), a.hop.tolist(), a.capped) == (
            b.nodes.tolist(), b.edges.tolist(), b.hop.tolist(), b.capped)
        assert a.graph.to_dict() == b.graph.to_dict()


def test_edges_carry_relation_and_provenance_as_codes_into_the_tables(loaded):
    """Store format 3: an edge holds only integers (its index and two codes); the code tables hold each
    distinct relation and provenance list once, numbered by first appearance (brute force over the graph)."""
    g, fs = loaded
    assert fs._q("MATCH ()-[e:REL]->() RETURN DISTINCT keys(e)", {}) in ([["[i, c]"]], [["[c, i]"]])
    rels = dict(fs._q(f"MATCH (t:{RELATIONS}) RETURN t.c, t.text", {}))
    provs = {c: split_ids(v) for c, v in fs._q(f"MATCH (t:{PROVENANCE}) RETURN t.c, t.chunks", {})}
    want_rels = list(dict.fromkeys(g.edge_relation))
    want_provs = list(dict.fromkeys(tuple(c) for c in g.edge_chunks))
    assert [rels[c] for c in range(len(rels))] == want_rels and len(rels) < g.n_edges
    assert [provs[c] for c in range(len(provs))] == want_provs
    assert (fs.meta["n_relations"], fs.meta["n_provenance"]) == (len(want_rels), len(want_provs))
    for i, c in fs._q("MATCH ()-[e:REL]->() RETURN e.i, e.c", {}):
        assert (rels[c // 2**32], provs[c % 2**32]) == (g.edge_relation[i], tuple(g.edge_chunks[i]))
    assert edge_codes(g)[:2] == ([want_rels.index(r) for r in g.edge_relation],
                                 [want_provs.index(tuple(c)) for c in g.edge_chunks])


def test_packed_codes_round_trip_and_their_limits_are_refused(monkeypatch):
    from core.graph.stores import falkor_load

    r = np.array([0, 1, 5, 2**31 - 1], dtype=np.int64)
    p = np.array([0, 2**32 - 1, 7, 123_456_789], dtype=np.int64)
    packed = np.array([pack_codes(int(a), int(b)) for a, b in zip(r, p)], dtype=np.int64)
    assert [x.tolist() for x in unpack_codes(packed)] == [r.tolist(), p.tolist()]
    monkeypatch.setattr(falkor_load, "CODE_BITS", 1)  # room for 2 provenance lists; the toy graph has more
    with pytest.raises(StoreError, match=r"has 5 distinct relations and 4 distinct provenance lists; the graph "
                                         r"store packs both codes into one integer and holds at most \d+ and 2\. "
                                         r"Keep this graph in memory"):
        falkor_load.edge_codes(_graph())


def test_a_region_read_sends_only_integers_and_decodes_each_code_once(falkordb_server):
    """The edge read's reply is integer lists only (ids and codes, no relation or provenance text: any
    character in a value is fine, U+001E included, which format 2 joined values by); the client asks the
    code tables only for codes it has not read before, and the region equals memory's."""
    b = GraphBuilder(name="codes")
    c = b.add_chunk("t", "x", chunk_id="odd\x1eid, [1]")
    b.add_triple("a", "is\x1ea", "b", chunk_id=c)
    b.add_triple("b", 'r, "q" [x]', "c")
    b.add_triple("c", "r\x1e", "a", chunk_id=c)
    b.add_triple("c", "is\x1ea", "d", chunk_id=c)
    g = b.build()
    url = parse_store_url(falkordb_server.url("codes"))
    load_graph_into(g, url, overwrite=True)
    fs, mem = FalkorStore.open(url), MemoryStore(g)
    sent: list[tuple[str, list[list[Any]]]] = []
    query = fs._q

    def spy(cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        rows = query(cypher, params)
        sent.append((cypher, rows))
        return rows

    fs._q = spy  # type: ignore[method-assign]
    fs._relations._q = fs._provenance._q = spy
    for _ in range(2):
        a, r = mem.region([0], hops=3, max_nodes=10), fs.region([0], hops=3, max_nodes=10)
        assert a.edges.tolist() == r.edges.tolist() == list(range(g.n_edges))
        assert a.graph.to_dict() == r.graph.to_dict()
    edge_reads = [rows for cypher, rows in sent if "[e:REL]->" in cypher]
    assert len(edge_reads) == 2 and all(re.fullmatch(r"\[[0-9, ]*\]", str(cell))
                                        for rows in edge_reads for row in rows for cell in row)
    table_reads = [cypher for cypher, _ in sent if RELATIONS in cypher or PROVENANCE in cypher]
    assert len(table_reads) == 2  # one per table, the first time only


def test_a_missing_code_says_the_graph_was_changed(falkordb_server):
    b = GraphBuilder(name="lost")
    b.add_triple("a", "r", "b")
    b.add_triple("b", "s", "c")
    url = parse_store_url(falkordb_server.url("lost"))
    load_graph_into(b.build(), url, overwrite=True)
    db = FalkorDB(host="127.0.0.1", port=falkordb_server.port)
    db.select_graph("lost").query(f"MATCH (t:{RELATIONS} {{c: 1}}) DELETE t")
    with pytest.raises(StoreError, match=rf"no {RELATIONS} row for code 1 .*changed outside egx.*"
                                         rf"--store {re.escape(str(url))} --overwrite"):
        FalkorStore.open(url).region([0], hops=2, max_nodes=10)


@pytest.mark.parametrize("owner", ["/data/ws/musique", ""])
def test_a_graph_in_an_older_store_format_names_its_version_and_the_reload(falkordb_server, owner):
    """A graph written by an older egx (format 2 kept relation and provenance strings on the edges) is
    refused with the graph, its version, the needed one and the exact command; that command's load
    (``--overwrite``) replaces it, and the new graph opens."""
    url = parse_store_url(falkordb_server.url("old"))
    load_graph_into(_graph(), url, overwrite=True, owner=owner)
    db = FalkorDB(host="127.0.0.1", port=falkordb_server.port)
    db.select_graph("old").query("MATCH (m:EgxMeta) SET m.version = 2")
    folder = owner or "DIR"
    msg = (rf"The graph 'old' at {re.escape(str(url))} is in egx store format version 2; this egx reads version "
           rf"{SCHEMA_VERSION} \(relations and provenance as integer codes\)\. Reload it in this version's format: "
           rf"`egx index INPUTS --workspace {re.escape(folder)} --store {re.escape(str(url))} --overwrite` "
           r"\(INPUTS: the files the workspace was built from\)\.")
    with pytest.raises(StoreError, match=msg):
        open_store(str(url))
    with pytest.raises(StoreError, match=r"already holds an egx graph 'old'.*Pass --overwrite"):
        load_graph_into(_graph(), url, owner=owner)
    load_graph_into(_graph(), url, overwrite=True, owner=owner)
    assert FalkorStore.open(url).meta["version"] == SCHEMA_VERSION == 3


def test_a_graph_from_a_newer_egx_asks_for_an_upgrade(falkordb_server):
    url = parse_store_url(falkordb_server.url("newer"))
    load_graph_into(_graph(), url, overwrite=True)
    FalkorDB(host="127.0.0.1", port=falkordb_server.port).select_graph("newer").query(
        "MATCH (m:EgxMeta) SET m.version = 99")
    with pytest.raises(StoreError, match=r"is in egx store format version 99; this egx reads version 3 .*"
                                         r"Upgrade egx to read it, or reload it in this version's format"):
        FalkorStore.open(url)


def test_chunk_id_with_the_separator_is_refused(falkordb_server):
    b = GraphBuilder()
    c = b.add_chunk("t", "x", chunk_id="a\x1fb")
    b.add_triple("a", "r", "b", chunk_id=c)
    with pytest.raises(StoreError, match=r"chunk id 'a\\x1fb' contains the control character U\+001F"):
        load_graph_into(b.build(), parse_store_url(falkordb_server.url("sep")))


def test_whole_graph_round_trips(loaded):
    g, fs = loaded
    back = fs.graph()
    assert back.to_dict() == g.to_dict() and back.content_hash == g.content_hash


def test_open_store_urls(loaded, falkordb_server):
    g, _ = loaded
    assert isinstance(open_store(None, g), MemoryStore)
    assert open_store(falkordb_server.url("toy")).url == falkordb_server.url("toy")


def test_reload_needs_overwrite_and_replaces_atomically(falkordb_server):
    url = parse_store_url(falkordb_server.url("reload"))
    load_graph_into(_graph(), url)
    with pytest.raises(StoreError, match=r"already holds an egx graph 'reload'\. Pass --overwrite"):
        load_graph_into(_graph(), url)
    b = GraphBuilder()
    b.add_triple("a", "r", "b")
    small = b.build()
    load_graph_into(small, url, overwrite=True)
    assert FalkorStore.open(url).n_edges == 1


def test_failed_load_leaves_nothing(falkordb_server, monkeypatch):
    url = parse_store_url(falkordb_server.url("broken"))
    g = _graph()
    def boom(msg: str, frac: float) -> None:
        if frac > 0.5:
            raise KeyboardInterrupt  # a cancel in the middle of the edges
    with pytest.raises(KeyboardInterrupt):
        load_graph_into(g, url, progress=boom, batch=4)
    db = FalkorDB(host="127.0.0.1", port=falkordb_server.port)
    assert not [n for n in db.list_graphs() if n.startswith("broken")]


def test_unreachable_store():
    url = f"falkordb://127.0.0.1:{free_port()}/g"
    with pytest.raises(StoreError, match=rf"Cannot reach the graph store {url} \(.*\)\. Start the server"):
        open_store(url)


def test_wrong_graph_name(loaded, falkordb_server):
    with pytest.raises(StoreError, match=r"has no graph 'nope' \(graphs there: .*toy.*\)\. Fix the graph name"):
        open_store(falkordb_server.url("nope"))


def test_foreign_schema_is_refused_and_never_overwritten(falkordb_server):
    FalkorDB(host="127.0.0.1", port=falkordb_server.port).select_graph("theirs").query("CREATE (:Person {name: 'x'})")
    msg = r"The graph 'theirs' at falkordb://127\.0\.0\.1:\d+/theirs was not written by egx \(no EgxMeta node"
    with pytest.raises(StoreError, match=msg):
        open_store(falkordb_server.url("theirs"))
    with pytest.raises(StoreError, match=msg):
        load_graph_into(_graph(), parse_store_url(falkordb_server.url("theirs")), overwrite=True)


@pytest.mark.parametrize(("url", "msg"), [
    ("redis://h:1/g", r"not a FalkorDB URL \(scheme 'redis'\)"),
    ("falkordb://u:secret@h:1/g", r"'falkordb://u:\*\*\*@h:1/g' contains a password.*EGX_FALKORDB_PASSWORD"),
    ("falkordb://h/g", r"names no host and port"),
    ("falkordb://h:1/a b", r"names the graph 'a b'"),
    ("falkordb://h:1/", r"names the graph ''"),
])
def test_bad_urls(url, msg):
    with pytest.raises(StoreError, match=msg):
        parse_store_url(url)


def test_server_refuses_a_taken_port(falkordb_server):
    with pytest.raises(StoreError, match=rf"Port {falkordb_server.port} on 127\.0\.0\.1 is already in use"):
        FalkorServer(port=falkordb_server.port, ready_timeout=5).start()


def test_redis_reply_parser_is_the_c_one():
    """``hiredis`` is a dependency: with redis-py's pure-Python parser a BubbleRAG G' region (one large reply
    per hop) took 40 % longer to read (benchmarks/README.md, "BubbleRAG on the store")."""
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE


def test_a_dead_falkordb_server_is_started_again_on_its_port(tmp_path) -> None:
    """The session's server once segfaulted under a store test (FalkorDB 4.16.3, ``IndexSpec_GetField``) and every later
    store test failed on a refused connection: the suite starts it again before the next test that uses it."""
    import redis

    from tests.conftest import restart_if_dead

    with FalkorServer(tmp_path / "srv") as server:
        assert not restart_if_dead(server)  # alive: left alone
        port = server.port
        assert server.proc is not None
        server.proc.kill()
        server.proc.wait(timeout=10)
        assert restart_if_dead(server) and server.port == port
        assert redis.Redis(host="127.0.0.1", port=port, socket_timeout=5).ping()
        assert (tmp_path / "srv" / "falkordb-exited-0.log").exists()
