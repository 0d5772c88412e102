"""The graph a corpus build gives does not depend on which passages the extraction cache already held."""

from __future__ import annotations

from core.backends.registry import get_extractor
from core.graph.builder import build_kg_from_corpus, extract_triples
from core.graph.graph_builder import GraphBuilder

PASSAGES = [("Lothair II", "Lothair II was the son of Ermengarde of Tours. Lothair II ruled Lotharingia."),
            ("Ermengarde", "Ermengarde of Tours married Lothair I. Ermengarde of Tours died in Erstein."),
            ("Lotharingia", "Lotharingia bordered West Francia. Charles the Bald ruled West Francia."),
            ("Erstein", "Erstein Abbey was founded by Ermengarde of Tours near Strasbourg.")]


def _corpus():
    b = GraphBuilder(kind="kg")
    for title, text in PASSAGES:
        b.add_chunk(title, text)
    return b.build()


def test_the_graph_content_hash_does_not_depend_on_which_chunks_were_in_the_extraction_cache(tmp_path):
    """Before: cached chunks were merged first, so a half-filled cache gave other node and edge orders."""
    rules = get_extractor("rules")
    corpus = _corpus()
    cold, _ = build_kg_from_corpus(corpus, rules, cache_dir=None)
    half = tmp_path / "half"
    extract_triples([c for i, c in enumerate(corpus.chunks) if i % 2], rules, cache_dir=half)  # warm 2 of 4
    warm_half, res = build_kg_from_corpus(corpus, rules, cache_dir=half)
    assert res.from_cache == 2 and res.extracted == 2
    warm_all, res = build_kg_from_corpus(corpus, rules, cache_dir=half)
    assert res.from_cache == 4
    assert cold.n_edges > 0
    for g in (warm_half, warm_all):
        assert g.node_names == cold.node_names and g.edge_texts == cold.edge_texts
        assert g.content_hash == cold.content_hash
