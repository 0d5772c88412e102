"""Request keys and content hashes shared by the LLM response cache and the recorded LLM runs.

:func:`cache_key` addresses one request (model key, messages, schema, sampling parameters); the
cache (:mod:`core.backends.llm_cache`) stores a reply under it and a recording bundle
(:mod:`core.backends.llm_bundles`) keeps it as an entry's key. :func:`model_key` is what names the
model in that key. :func:`content_sha256` is the content hash a bundle carries (what the shipped
recordings' manifest lists; :mod:`core.backends.llm_integrity` keys what a hash alone cannot protect).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.backends.base import ChatMessage

#: Version of the request key and of the cache entry and recording bundle formats.
FORMAT_VERSION = 1

_FILE_HASHES: dict[tuple[str, int, float], str] = {}
_HASH_LOCK = threading.Lock()


def _file_sha256(path: Path) -> str:
    st = path.stat()
    k = (str(path.resolve()), st.st_size, st.st_mtime)
    with _HASH_LOCK:
        if k not in _FILE_HASHES:
            h = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(8 * 1024 * 1024), b""):
                    h.update(block)
            _FILE_HASHES[k] = h.hexdigest()
        return _FILE_HASHES[k]


def model_key(llm: Any) -> str:
    """What identifies the model behind ``llm`` in a cache key.

    A bundled local model: its id and the GGUF file's pinned sha256 (plus the sampling seed); a
    GGUF file of your own: its id and the file's sha256 (hashed once per process); an
    OpenAI-compatible endpoint: ``openai:<model>@<url>`` (the server owns the weights, so a
    changed model behind the same name is not seen: bypass the cache with ``--no-cache``);
    anything else: its ``model_id``.
    """
    inner = llm
    while hasattr(inner, "__dict__") and "inner" in inner.__dict__:  # CachedLLM / GuardedLLM wrappers
        inner = inner.__dict__["inner"]
    mid = str(getattr(inner, "model_id", "") or getattr(llm, "model_id", ""))
    size = getattr(inner, "size", None)
    path = getattr(inner, "model_path", None)
    seed = getattr(inner, "seed", None)
    extra = f"|seed={seed}" if seed is not None else ""
    if mid.startswith("llama.cpp:"):
        if path is not None:
            return f"{mid}|sha256={_file_sha256(Path(path))}{extra}"
        from core.backends.gguf import MODELS

        if size in MODELS:
            return f"{mid}|sha256={MODELS[size].sha256}{extra}"
    return mid + extra


def cache_key(model: str, messages: Sequence[ChatMessage], *, max_tokens: int, temperature: float,
              json_schema: dict[str, Any] | None) -> str:
    """The sha256 of one request: model key, messages (role, content), schema and sampling parameters.

    Examples
    --------
    >>> k = cache_key("m", [ChatMessage("user", "hi")], max_tokens=8, temperature=0.0, json_schema=None)
    >>> len(k), k == cache_key("m", [ChatMessage("user", "hi")], max_tokens=8, temperature=0.0, json_schema=None)
    (64, True)
    """
    body = {"v": FORMAT_VERSION, "model": model, "messages": [[m.role, m.content] for m in messages],
            "max_tokens": int(max_tokens), "temperature": float(temperature), "schema": json_schema}
    raw = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def content_sha256(obj: Any) -> str:
    """SHA-256 of ``obj`` as canonical JSON (sorted keys, no spaces): the content hash a recording bundle
    carries, so one edited after it was written is refused. It detects a change; it is no signature (whoever
    edits a file can also recompute the hash): a bundle is trusted when the committed manifest lists this hash
    or this machine's key signed it, a cache entry by its HMAC (:mod:`core.backends.llm_integrity`)."""
    raw = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
