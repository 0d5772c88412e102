"""LLM response cache, so the same request never costs LLM time twice.

:class:`CachedLLM` is what :func:`core.backends.registry.get_llm` puts around every live LLM (the
:class:`~core.backends.llm_guard.GuardedLLM`): a request whose answer is in the cache costs no LLM time.
Entries are content-addressed by :func:`~core.backends.llm_keys.cache_key` over the backend's model
key (model id plus the GGUF file's sha256, or the endpoint's model name), the messages, the JSON
schema and the sampling parameters, and stored one file per key under ``$EGX_LLM_CACHE_DIR``
(default ``$EGX_CACHE_DIR/llm``), written atomically (:mod:`core.fsio`), so concurrent sessions,
threads and processes share it safely (identical keys hold identical content; the last rename
wins). A call that failed, returned invalid JSON, a refusal or garbage is never written; an entry
that a caller's validation rejects afterwards is removed (:meth:`CachedLLM.reject`).

Every entry carries an HMAC under this machine's secret (:mod:`core.backends.llm_integrity`); one whose
HMAC is missing or wrong — edited after it was written, forged with a recomputed hash, written on another
machine or by an egx before keyed entries — is never served: the LLM is asked again and the reply says why.

Recorded runs (the ``recorded`` backend, :mod:`core.backends.llm_recorded`) answer from recording
bundles (:mod:`core.backends.llm_bundles`) whose entries have the shape of a cache entry.

Whether a step's LLM calls were answered by the cache is recorded in the trace step
(``data["cached"]``, ``data["llm_cache"]``) by :mod:`core.methods.llm_steps`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.backends.base import TRUNCATED_NOTE, ChatMessage, LLMResponse, LLMWrapper
from core.backends.llm_integrity import sign, verify
from core.backends.llm_keys import FORMAT_VERSION, cache_key, model_key
from core.errors import ConfigError, LLMError
from core.fsio import atomic_write_json

if TYPE_CHECKING:
    from core.backends.llm_bundles import Recorder

CACHE_FORMAT = "egx-llm-cache"


def llm_cache_dir() -> Path:
    """``$EGX_LLM_CACHE_DIR`` if set, else ``<cache dir>/llm`` (``$EGX_CACHE_DIR`` or ``~/.cache/egx``)."""
    env = os.environ.get("EGX_LLM_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    from core.backends.gguf import cache_dir

    return cache_dir() / "llm"


def cache_enabled_from_env() -> bool:
    """False when ``EGX_LLM_CACHE`` is ``0`` / ``off`` / ``no`` / ``false`` (the CLI's ``--no-cache``).

    Raises
    ------
    ConfigError
        For any other value than those and ``1`` / ``on`` / ``yes`` / ``true``.
    """
    raw = os.environ.get("EGX_LLM_CACHE", "").strip().lower()
    if raw in ("", "1", "on", "yes", "true"):
        return True
    if raw in ("0", "off", "no", "false"):
        return False
    raise ConfigError(f"EGX_LLM_CACHE = {raw!r} is not on or off; set it to 1 (use the LLM cache) or 0 "
                      "(bypass it), or unset it.")


def usable_reply(text: str, json_schema: dict[str, Any] | None) -> str:
    """Why ``text`` must not be cached ("" when it may): not strict JSON of the schema's shape for a
    JSON request (a reply that needed repair is not kept either); empty, a refusal or garbage (:func:`~core.backends.answer_check.check_answer`) for a text one."""
    from core.backends.answer_check import check_answer
    from core.backends.llm_json import _parse_json, _schema_problem

    if json_schema is not None:
        data, repaired, problem = _parse_json(text)
        if problem is None and repaired:
            return "it needed JSON repair (truncated or malformed)"
        return problem or _schema_problem(data, json_schema) or ""
    return check_answer(text).problem


def _entry(key: str, model: str, resp: LLMResponse) -> dict[str, Any]:
    e: dict[str, Any] = {"format": CACHE_FORMAT, "version": FORMAT_VERSION, "key": key, "model_key": model,
                         "text": resp.text, "prompt_tokens": resp.prompt_tokens,
                         "completion_tokens": resp.completion_tokens, "model": resp.model,
                         "latency_s": round(resp.latency_s, 4),
                         "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
    return e


def _body(entry: dict[str, Any]) -> dict[str, Any]:
    """What an entry's HMAC covers: everything but the HMAC (and the plain hash older entries carried)."""
    return {k: v for k, v in entry.items() if k not in ("hmac", "sha256")}


def response_from_entry(entry: dict[str, Any], note: str) -> LLMResponse:
    truncated = entry.get("truncated") is True
    return LLMResponse(text=str(entry["text"]), prompt_tokens=int(entry.get("prompt_tokens", 0)),
                       completion_tokens=int(entry.get("completion_tokens", 0)), model=str(entry.get("model", "")),
                       latency_s=0.0, attempts=0, notes=(note, *((TRUNCATED_NOTE,) if truncated else ())),
                       cached=True, original_latency_s=float(entry.get("latency_s", 0.0) or 0.0), truncated=truncated)


class DiskCache:
    """One JSON file per key under ``root/<key[:2]>/<key>.json``; atomic writes, tolerant reads, every entry
    signed with this machine's key (:mod:`core.backends.llm_integrity`)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else llm_cache_dir()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def key_problem(self) -> str:
        """Why entries can be neither signed nor checked ("" when they can): the key is unusable."""
        try:
            sign("cache", {})
        except ConfigError as exc:
            return str(exc)
        return ""

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry, or None when absent or unreadable (a damaged file is a miss, never an error). An entry
        whose HMAC is missing or wrong (edited or forged after it was written, or written elsewhere) is
        returned with ``"tampered": True``; :class:`CachedLLM` asks the LLM again instead of using it."""
        p = self.path(key)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key \
                or not isinstance(data.get("text"), str):
            return None
        try:
            trusted = verify("cache", _body(data), data.get("hmac"))
        except ConfigError:  # no usable key: nothing can be trusted
            trusted = False
        if not trusted:
            data["tampered"] = True
        return data

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Sign ``entry`` and write it atomically; a full disk, a read-only folder or an unusable key only
        costs the cache."""
        try:
            signed = {**_body(entry), "hmac": sign("cache", _body(entry))}
            atomic_write_json(self.path(key), signed, indent=None)
        except (OSError, ConfigError):
            pass

    def delete(self, key: str) -> None:
        try:
            self.path(key).unlink()
        except OSError:
            pass


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    writes: int = 0
    tampered: int = 0  #: entries refused for a wrong or missing HMAC (asked again)


class CachedLLM(LLMWrapper):
    """An LLM whose answers are cached on disk (see the module docstring).

    Parameters
    ----------
    inner : LLM
        The live backend, normally a :class:`~core.backends.llm_guard.GuardedLLM`.
    cache : DiskCache or None
        Default: :class:`DiskCache` under :func:`llm_cache_dir`.
    enabled : bool
        False: every call goes to ``inner`` and nothing is read or written (``--no-cache``,
        the sidebar's switch); responses still say ``cached=False``.
    recorder : Recorder or None
        Also journal every request and its outcome (``egx record``).

    Notes
    -----
    A hit returns ``cached=True``, ``latency_s=0`` and ``attempts=0`` (no LLM time, nothing charged
    to the question's budget), the original latency in ``original_latency_s``. Attributes this
    class does not define (``settings``, ``load``, ``breaker_open`` ...) are the inner backend's.
    """

    def __init__(self, inner: Any, cache: DiskCache | None = None, *, enabled: bool = True,
                 recorder: Recorder | None = None) -> None:
        self.inner: Any = inner
        self.cache = cache if cache is not None else DiskCache()
        self.enabled = bool(enabled)
        self.recorder = recorder
        self.stats = CacheStats()
        self._model_key: str | None = None

    @property
    def model_key(self) -> str:
        if self._model_key is None:
            self._model_key = model_key(self.inner)
        return self._model_key

    def __repr__(self) -> str:
        return f"CachedLLM({self.inner!r}, enabled={self.enabled}, root={str(self.cache.root)!r})"

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """The cached answer when there is one, else the inner backend's (cached when usable)."""
        key = cache_key(self.model_key, messages, max_tokens=max_tokens, temperature=temperature,
                        json_schema=json_schema)
        refused = ""
        off = self.cache.key_problem() if self.enabled else ""  # without a usable key nothing is read or kept
        if off:
            refused = f"the LLM cache is not used: {off}"
        elif self.enabled:
            hit = self.cache.get(key)
            if hit is not None and hit.get("tampered"):
                self.stats.tampered += 1
                refused = ("a cached reply for this request is not signed with this machine's key (edited or forged "
                           "after it was written, or written elsewhere or by an older egx): not used, the LLM was "
                           "asked again")
                hit = None
            if hit is not None:
                self.stats.hits += 1
                _count_scope(hit=True)
                resp = response_from_entry(hit, "answered from the LLM cache (no LLM time)")
                if self.recorder is not None:
                    self.recorder.note(key, resp)
                return replace(resp, cache_key=key)
        try:
            resp = self.inner.chat(messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema)
        except LLMError as exc:
            if self.recorder is not None:
                self.recorder.note_error(key, exc)
            raise
        if self.enabled and not off:
            self.stats.misses += 1
            _count_scope(hit=False)
            if not resp.truncated and not usable_reply(resp.text, json_schema):  # a cut reply is never kept
                self.cache.put(key, _entry(key, self.model_key, resp))
                self.stats.writes += 1
        if self.recorder is not None:
            self.recorder.note(key, resp)
        if refused:
            resp = replace(resp, notes=(refused, *resp.notes))
        return replace(resp, cache_key=key)

    def reject(self, resp: LLMResponse, why: str = "") -> None:
        """Remove the entry of ``resp``: the caller found it unusable (a failed validation)."""
        if resp.cache_key:
            self.cache.delete(resp.cache_key)
            if self.recorder is not None:
                self.recorder.mark_invalid(resp.cache_key, why)


def _count_scope(*, hit: bool) -> None:
    from core.backends.llm_guard import current_scope

    scope = current_scope()
    if scope is not None:
        if hit:
            scope.cache_hits += 1
        else:
            scope.cache_misses += 1
