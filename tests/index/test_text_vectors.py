"""A method's cached text vectors updated row by row (:mod:`core.index.text_vectors`): rows matched by text
against brute force, only changed texts embedded, and a rows file that does not describe its vectors (a kill
between the two writes, a damaged file) costing a full embedding, never a wrong vector."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.registry import get_embedder
from core.index.create import create_workspace
from core.index.text_vectors import match_rows, row_hashes, rows_path, write_rows
from core.index.vector_index import embed_texts
from tests.conftest import SAMPLE_DATA

#: a reused row is normalized once more by the new index: a few float32 ulp (~1e-7), far below a ranking gap
ATOL = 1e-6


class Counting:
    """The hashing embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        self.inner = get_embedder("hashing")
        self.name, self.model_id, self.dim = self.inner.name, self.inner.model_id, self.inner.dim
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return create_workspace([SAMPLE_DATA / "demo" / "triples.csv"], tmp_path_factory.mktemp("w") / "w",
                            embedder=get_embedder("hashing"))


@pytest.mark.parametrize("seed", range(5))
def test_match_rows_is_first_equal_text_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    stored = [f"t{i}" for i in rng.integers(0, 30, size=40)]
    new = [f"t{i}" for i in rng.integers(0, 40, size=50)]
    want = [stored.index(t) if t in stored else -1 for t in new]
    assert match_rows(row_hashes(new), row_hashes(stored)).tolist() == want


def test_only_changed_texts_are_embedded_and_the_vectors_equal_a_full_embedding(ws):
    emb = Counting()
    texts = [f"text number {i}" for i in range(50)]
    first = ws.text_vectors("t", texts, emb)
    assert first.built and first.reused == 0 and len(emb.seen) == 50
    changed = texts[:10] + [f"changed {i}" for i in range(5)] + texts[15:] + ["appended"]
    assert ws.text_vectors_to_embed("t", changed, emb) == 6
    emb.seen.clear()
    second = ws.text_vectors("t", changed, emb)
    assert second.built and second.reused == 45 and sorted(emb.seen) == sorted([*changed[10:15], "appended"])
    np.testing.assert_allclose(second.vectors, embed_texts(changed, emb.inner), atol=ATOL)
    assert ws.text_vectors_to_embed("t", changed, emb) == 0


def test_a_rows_file_that_does_not_describe_its_vectors_costs_a_full_embedding(ws):
    emb = Counting()
    texts = [f"row {i}" for i in range(20)]
    ws.text_vectors("k", texts, emb)
    path = ws.index_dir / "extra" / "k.faiss"
    write_rows(path, row_hashes(texts[:7]))  # a rows file of another size than the vectors (a kill, a damage)
    emb.seen.clear()
    got = ws.text_vectors("k", [*texts, "one more"], emb)
    assert got.reused == 0 and len(emb.seen) == 21
    rows_path(path).write_bytes(b"not an npy file")
    emb.seen.clear()
    got = ws.text_vectors("k", texts, emb)
    assert got.reused == 0 and len(emb.seen) == 20
    np.testing.assert_allclose(got.vectors, embed_texts(texts, emb.inner), atol=ATOL)
