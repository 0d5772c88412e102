"""Where a workspace's graph can live: a URL scheme → its :class:`~core.graph.stores.store.GraphStore`.

==============  ========================================  ===================================
scheme          implementation                            module
==============  ========================================  ===================================
``memory:``     :class:`~core.graph.stores.store.MemoryStore`    ``core/graph/stores/store.py`` (the oracle)
``falkordb:``   :class:`~core.graph.stores.falkor.FalkorStore`   ``core/graph/stores/falkor.py``
==============  ========================================  ===================================

A method never sees which: it reads the question's graph through :mod:`core.graph.reader` (the whole
graph in memory, or :class:`~core.graph.view.StoreGraphView` over any store here). A new store is a
class with the :class:`~core.graph.stores.store.GraphStore` methods and one line in :data:`STORES`.
"""

from __future__ import annotations

from collections.abc import Callable

from core.errors import StoreError
from core.graph.model import KnowledgeGraph
from core.graph.stores.store import MEMORY_URL, GraphStore, MemoryStore, parse_store_url


def _memory(url: str, graph: KnowledgeGraph | None) -> GraphStore:
    if graph is None:
        raise StoreError("An in-memory store needs its graph.")
    return MemoryStore(graph)


def _falkordb(url: str, graph: KnowledgeGraph | None) -> GraphStore:
    from core.graph.stores.falkor import FalkorStore  # redis and falkordb are imported only for a FalkorDB URL

    return FalkorStore.open(parse_store_url(url))


#: URL scheme → how to open a store of it (``graph``: the in-memory graph, for ``memory:``)
STORES: dict[str, Callable[[str, KnowledgeGraph | None], GraphStore]] = {"memory": _memory, "falkordb": _falkordb}


def open_store(url: str | None, graph: KnowledgeGraph | None = None) -> GraphStore:
    """The store named by ``url``: ``None``/``memory:`` → :class:`~core.graph.stores.store.MemoryStore` over
    ``graph``; ``falkordb://…`` → :class:`~core.graph.stores.falkor.FalkorStore` (checked: reachable, ours)."""
    url = url or MEMORY_URL
    scheme = url.split(":", 1)[0].lower()
    if scheme not in STORES:
        parse_store_url(url)  # raises the error that names the URL forms we read
        raise StoreError(f"No graph store for {url!r}; known: {', '.join(f'{s}:' for s in STORES)}.")
    return STORES[scheme](url, graph)
