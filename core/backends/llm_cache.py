"""LLM response cache and recorded LLM runs, so the same request never costs LLM time twice.

* :class:`CachedLLM` — what :func:`core.backends.registry.get_llm` puts around every live LLM (the
  :class:`~core.backends.llm.GuardedLLM`): a request whose answer is in the cache costs no LLM time.
  Entries are content-addressed by :func:`cache_key` over the backend's model key (model id plus the
  GGUF file's sha256, or the endpoint's model name), the messages, the JSON schema and the sampling
  parameters, and stored one file per key under ``$EGX_LLM_CACHE_DIR`` (default
  ``$EGX_CACHE_DIR/llm``), written atomically (:mod:`core.fsio`), so concurrent sessions, threads and
  processes share it safely (identical keys hold identical content; the last rename wins). A call
  that failed, returned invalid JSON, a refusal or garbage is never written; an entry that a caller's
  validation rejects afterwards is removed (:meth:`CachedLLM.reject`).
* :class:`RecordedLLM` — the ``recorded`` backend: answers only from shipped, read-only recording
  bundles (``sample_data/llm_recordings/*.json``), with provenance (model, quantization, date,
  settings, seconds per stage). A request that is not in any bundle raises
  :class:`LLMNotRecordedError`, and the stage takes its visible fallback.
* :class:`Recorder` — collects what a live run asked and got (also failures, to replay them as
  they happened) and merges it into a bundle (``egx record``, ``make record-llm``).

Whether a step's LLM calls were answered by the cache is recorded in the trace step
(``data["cached"]``, ``data["llm_cache"]``) by :mod:`core.methods.llm_steps`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.backends.base import TRUNCATED_NOTE, ChatMessage, LLMResponse, LLMWrapper
from core.errors import ConfigError, EgxError, InputFormatError, LLMError
from core.fsio import atomic_write_json, path_lock
from core.replay import NOT_RECORDED

CACHE_FORMAT = "egx-llm-cache"
RECORDING_FORMAT = "egx-llm-recording"
FORMAT_VERSION = 1

#: The shipped recordings (read-only): one JSON bundle per model and sample.
RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "sample_data" / "llm_recordings"


class LLMNotRecordedError(LLMError):
    """The ``recorded`` backend has no answer for this request: the question or stage was not recorded."""


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


# --------------------------------------------------------------------------------------------- keys
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


def usable_reply(text: str, json_schema: dict[str, Any] | None) -> str:
    """Why ``text`` must not be cached ("" when it may): not strict JSON of the schema's shape for a
    JSON request (a reply that needed repair is not kept either); empty, a refusal or garbage (:func:`~core.backends.llm.check_answer`) for a text one."""
    from core.backends.answer_check import check_answer
    from core.backends.llm_json import _parse_json, _schema_problem

    if json_schema is not None:
        data, repaired, problem = _parse_json(text)
        if problem is None and repaired:
            return "it needed JSON repair (truncated or malformed)"
        return problem or _schema_problem(data, json_schema) or ""
    return check_answer(text).problem


# -------------------------------------------------------------------------------------------- store
def content_sha256(obj: Any) -> str:
    """SHA-256 of ``obj`` as canonical JSON (sorted keys, no spaces): the content hash that cache entries and
    recording bundles carry, so one edited after it was written is refused. It detects a change; it is no
    signature (whoever edits a file can also recompute the hash), so trust still comes from where a file is
    kept (the project's own folders, git for the shipped bundles)."""
    raw = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def _entry_hash(entry: dict[str, Any]) -> str:
    return content_sha256({k: v for k, v in entry.items() if k != "sha256"})


def _entry(key: str, model: str, resp: LLMResponse) -> dict[str, Any]:
    e: dict[str, Any] = {"format": CACHE_FORMAT, "version": FORMAT_VERSION, "key": key, "model_key": model,
                         "text": resp.text, "prompt_tokens": resp.prompt_tokens,
                         "completion_tokens": resp.completion_tokens, "model": resp.model,
                         "latency_s": round(resp.latency_s, 4),
                         "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
    e["sha256"] = _entry_hash(e)
    return e


def _response(entry: dict[str, Any], note: str) -> LLMResponse:
    truncated = entry.get("truncated") is True
    return LLMResponse(text=str(entry["text"]), prompt_tokens=int(entry.get("prompt_tokens", 0)),
                       completion_tokens=int(entry.get("completion_tokens", 0)), model=str(entry.get("model", "")),
                       latency_s=0.0, attempts=0, notes=(note, *((TRUNCATED_NOTE,) if truncated else ())),
                       cached=True, original_latency_s=float(entry.get("latency_s", 0.0) or 0.0), truncated=truncated)


class DiskCache:
    """One JSON file per key under ``root/<key[:2]>/<key>.json``; atomic writes, tolerant reads."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else llm_cache_dir()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry, or None when absent or unreadable (a damaged file is a miss, never an error). An entry
        whose content hash is missing or wrong (edited after it was written) is returned with
        ``"tampered": True``; :class:`CachedLLM` asks the LLM again instead of using it."""
        p = self.path(key)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key \
                or not isinstance(data.get("text"), str):
            return None
        if data.get("sha256") != _entry_hash(data):
            data["tampered"] = True
        return data

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Write ``entry`` atomically; a full disk or a read-only folder only costs the cache."""
        try:
            atomic_write_json(self.path(key), entry, indent=None)
        except OSError:
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
    tampered: int = 0  #: entries refused for a wrong or missing content hash (asked again)


class CachedLLM(LLMWrapper):
    """An LLM whose answers are cached on disk (see the module docstring).

    Parameters
    ----------
    inner : LLM
        The live backend, normally a :class:`~core.backends.llm.GuardedLLM`.
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
        if self.enabled:
            hit = self.cache.get(key)
            if hit is not None and hit.get("tampered"):
                self.stats.tampered += 1
                refused = ("a cached reply for this request failed its content hash (edited after it was written, "
                           "or written by an egx without content hashes): not used, the LLM was asked again")
                hit = None
            if hit is not None:
                self.stats.hits += 1
                _count_scope(hit=True)
                resp = _response(hit, "answered from the LLM cache (no LLM time)")
                if self.recorder is not None:
                    self.recorder.note(key, resp)
                return replace(resp, cache_key=key)
        try:
            resp = self.inner.chat(messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema)
        except LLMError as exc:
            if self.recorder is not None:
                self.recorder.note_error(key, exc)
            raise
        if self.enabled:
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
    from core.backends.llm import current_scope

    scope = current_scope()
    if scope is not None:
        if hit:
            scope.cache_hits += 1
        else:
            scope.cache_misses += 1


# -------------------------------------------------------------------------------------- recordings
@dataclass(frozen=True)
class Recording:
    """One loaded, read-only recording bundle."""

    path: Path
    provenance: dict[str, Any]
    runs: tuple[dict[str, Any], ...]
    entries: dict[str, dict[str, Any]]

    @property
    def model_key(self) -> str:
        return str(self.provenance.get("model_key", ""))

    @property
    def label(self) -> str:
        p = self.provenance
        return f"{p.get('model', '?')} {p.get('quantization', '')}".strip() + f", recorded {p.get('date', '?')}"


def load_recording(path: str | Path) -> Recording:
    """Read one bundle (``format: egx-llm-recording``).

    Raises
    ------
    InputFormatError
        If the file is not JSON or not a recording, naming the file and what was expected.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputFormatError(p.name, f"the LLM recording could not be read ({exc})",
                               "a JSON bundle written by `egx record`") from None
    if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT or not isinstance(data.get("entries"), dict):
        raise InputFormatError(p.name, "this is not an egx LLM recording",
                               f'a JSON object with "format": "{RECORDING_FORMAT}" and "entries"')
    if data.get("sha256") != bundle_sha256(data):
        why = "it has no content hash" if "sha256" not in data else "its content hash does not match"
        raise InputFormatError(p.name, f"the LLM recording was changed after egx wrote it ({why}), so its replies "
                               "cannot be replayed as the model's", "a bundle as `egx record` wrote it: restore it "
                               "(git checkout for a shipped one) or record it again; after checking an edit by "
                               "hand, `scripts/check_recordings.py --stamp FILE` gives it a new hash")
    raw = data.get("provenance")
    prov: dict[str, Any] = raw if isinstance(raw, dict) else {}
    runs = tuple(r for r in data.get("runs", []) if isinstance(r, dict))
    entries = {str(k): v for k, v in data["entries"].items() if isinstance(v, dict)}
    return Recording(p, prov, runs, entries)


def bundle_sha256(data: dict[str, Any]) -> str:
    """The content hash of a recording bundle: :func:`content_sha256` of everything but its ``sha256``."""
    return content_sha256({k: v for k, v in data.items() if k != "sha256"})


def write_bundle(path: str | Path, data: dict[str, Any]) -> None:
    """Write a recording bundle atomically with its content hash (every writer goes through here)."""
    data = {k: v for k, v in data.items() if k != "sha256"}
    data["sha256"] = bundle_sha256(data)
    atomic_write_json(path, data, indent=1)


def prune_bundle(path: str | Path, keep: set[str]) -> int:
    """Drop the entries of the bundle at ``path`` whose key is not in ``keep`` (replies only runs that were since
    re-recorded asked for), stamp it and write it atomically; returns how many were dropped."""
    p = Path(path)
    with path_lock(p):
        data = json.loads(p.read_text(encoding="utf-8"))
        entries = data.get("entries", {})
        stale = [k for k in entries if k not in keep]
        for k in stale:
            del entries[k]
        write_bundle(p, data)
    return len(stale)


def stamp_bundle(path: str | Path) -> None:
    """Give the bundle at ``path`` a new content hash (after an edit checked by hand), under its lock."""
    p = Path(path)
    with path_lock(p):
        data = json.loads(p.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
            raise InputFormatError(p.name, "this is not an egx LLM recording", f'"format": "{RECORDING_FORMAT}"')
        write_bundle(p, data)


def recording_paths(folder: str | Path | None = None) -> list[Path]:
    """The bundles in ``folder`` (default ``$EGX_LLM_RECORDINGS``, else ``sample_data/llm_recordings``)."""
    env = os.environ.get("EGX_LLM_RECORDINGS", "").strip()
    root = Path(folder) if folder is not None else (Path(env) if env else RECORDINGS_DIR)
    if root.is_file():
        return [root]
    return sorted(root.glob("*.json")) if root.is_dir() else []


#: vocab-only llama.cpp models by GGUF path (:meth:`RecordedLLM.load`), one per process
_VOCAB_CACHE: dict[str, Any] = {}
_VOCAB_LOCK = threading.Lock()


class RecordedLLM:
    """The ``recorded`` backend: answers only from recording bundles, never from a model.

    Parameters
    ----------
    paths : sequence of path or None
        Bundles to answer from; default :func:`recording_paths`.
    strict : bool or None
        Raise :class:`~core.replay.ReplayMissError` at the first request (or retrieval state) that is
        not recorded, instead of letting the stage take its fallback: what the tests and ``make
        check-recordings`` use. None: ``$EGX_REPLAY_STRICT`` (``1`` turns it on).

    Raises
    ------
    BackendError
        If there is no bundle to answer from.
    """

    name = "recorded"
    available = True

    def __init__(self, paths: Sequence[str | Path] | None = None, *, strict: bool | None = None) -> None:
        from core.errors import BackendError

        self.strict = _strict_from_env() if strict is None else bool(strict)
        found = list(paths) if paths is not None else recording_paths()
        self.recordings = [load_recording(p) for p in found]
        if not self.recordings:
            raise BackendError(f"No LLM recordings found in {str(RECORDINGS_DIR)!r} (or $EGX_LLM_RECORDINGS). "
                               "Record some with `egx record` (make record-llm), or pick the LLM 'local', "
                               "'openai' or 'none'.")
        self._vocab: Any = None  # the recorded model's tokenizer, once load() has opened it
        #: (bundle path, key) of every entry a request was answered from (what scripts/check_recordings.py keeps
        #: when it prunes a bundle)
        self.used: set[tuple[str, str]] = set()
        models = sorted({r.provenance.get("model_id", "?") for r in self.recordings})
        self.model_id = "recorded:" + "+".join(str(m) for m in models)

    def __repr__(self) -> str:
        return f"RecordedLLM({[r.path.name for r in self.recordings]})"

    def describe(self) -> str:
        """One line naming the recordings: model, quantization, date, what was recorded."""
        parts = []
        for r in self.recordings:
            qs = {(x.get("workspace"), x.get("question")) for x in r.runs}
            ms = sorted({str(x.get("method")) for x in r.runs})
            parts.append(f"{r.label}: {len(qs)} question(s) × {', '.join(ms) or 'no method'}")
        return "; ".join(parts)

    def load(self) -> Any:
        """The tokenizer of the bundled model the recordings were made with (a vocab-only ``Llama``).

        Some prompts depend on token counts: SG-RAG's answer prompt fills its §5 context budget
        counted by :func:`core.backends.tokens.count_tokens`, which uses a local model's own
        tokenizer. Counted with another tokenizer on replay, a long context is cut elsewhere and the
        prompt is one that was never recorded. Only the vocabulary is loaded (no weights).

        Raises
        ------
        BackendError
            If the recordings do not name one bundled llama.cpp model (an ``openai`` recording was
            counted with the WordPiece stand-in, which ``count_tokens`` then falls back to as well),
            or the model cannot be loaded.
        """
        if self._vocab is not None:  # counted several times per answer: check and open the file once
            return self._vocab
        from core.backends.gguf import MODELS, ensure_model
        from core.errors import BackendError

        files = {(r.provenance.get("gguf_file"), r.provenance.get("gguf_sha256")) for r in self.recordings}
        specs = [s for s in MODELS.values() if (s.filename, s.sha256) in files]
        if len(files) != 1 or len(specs) != 1:
            raise BackendError(f"The recordings ({self.model_id}) do not name one bundled llama.cpp model, so "
                               "their prompts were counted with the WordPiece stand-in.")
        path = str(ensure_model(specs[0].key))  # type: ignore[arg-type]
        with _VOCAB_LOCK:
            if path not in _VOCAB_CACHE:
                try:
                    from llama_cpp import Llama

                    _VOCAB_CACHE[path] = Llama(model_path=path, vocab_only=True, verbose=False)
                except (ImportError, ValueError, RuntimeError) as exc:
                    raise BackendError(f"Could not load the tokenizer of {path!r}: {exc}") from exc
            self._vocab = _VOCAB_CACHE[path]
        return self._vocab

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """The recorded answer, or :class:`LLMNotRecordedError`; a recorded failure is raised again."""
        from core.backends.llm import LLMOutputError

        for rec in self.recordings:
            key = cache_key(rec.model_key, messages, max_tokens=max_tokens, temperature=temperature,
                            json_schema=json_schema)
            e = rec.entries.get(key)
            if e is None:
                continue
            self.used.add((str(rec.path), key))
            if e.get("error"):
                raise LLMOutputError(f"(as recorded with {rec.label}) {e['error']}")
            resp = _response(e, f"recorded run: {rec.label}")
            return replace(resp, cache_key=key)
        if self.strict:
            from core.replay import ReplayMissError

            first = next((m.content for m in messages if m.role == "user"), "")[:160]
            raise ReplayMissError(f"Strict replay: this LLM request {NOT_RECORDED} (its prompt differs from every "
                                  f"recorded one; it begins {first!r}). Re-record the run "
                                  "(RECORD_ARGS=--redo scripts/record_llm.sh WORKSPACE local METHOD ID).")
        raise LLMNotRecordedError(
            f"This question/stage {NOT_RECORDED} (no recorded LLM answer for this exact prompt: another "
            "question, workspace, method setting or backend than the recording used). Use the live LLM "
            "('local' or 'openai') or 'none'.")

    def find_run(self, workspace: str, method: str, question: str, config: dict[str, Any],
                 backends: dict[str, str]) -> tuple[Recording, dict[str, Any]] | None:
        """The recorded run of ``question`` by ``method`` on ``workspace`` with these settings and the same
        embedder and reranker, or None. Settings that only bound wall-clock time (:data:`UNTIMED_KEYS`)
        are not compared: they are lifted while recording (the replay is never cut short by them); nor
        are settings the recording does not name (added to the method since)."""
        for rec in self.recordings:
            for run in rec.runs:
                if (run.get("workspace"), run.get("method"), run.get("question")) != (workspace, method, question):
                    continue
                kept = run.get("config") or {}
                # a setting added since the recording is not in it: its default is what the recording ran
                # with, and a changed value changes a prompt, which the replay then reports as a miss
                if _canon_config(kept) == _canon_config({k: config.get(k) for k in kept}) \
                        and _same_models(run.get("backends") or {}, backends):
                    return rec, run
        return None

    def tape_for(self, workspace: str, method: str, question: str, config: dict[str, Any],
                 backends: dict[str, str]) -> tuple[Any, str] | None:
        """A replay :class:`~core.replay.StateTape` holding the retrieval state of the matching recorded
        run (:meth:`find_run`) and the recording's label, or None when no recorded run matches."""
        from core.replay import StateTape

        found = self.find_run(workspace, method, question, config, backends)
        if found is None:
            return None
        rec, run = found
        state = run.get("state")
        entries = {str(k): str(v) for k, v in state.items()} if isinstance(state, dict) else {}
        return StateTape("replay", entries, strict=self.strict), rec.label


#: settings that only bound wall-clock time: lifted while recording, so not compared on replay
UNTIMED_KEYS = frozenset({"time_budget_s"})


def _canon_config(config: dict[str, Any]) -> str:
    """The settings as JSON text, as a recording keeps them (tuples become lists)."""
    return json.dumps({k: v for k, v in config.items() if k not in UNTIMED_KEYS}, sort_keys=True, default=str)


def _same_models(recorded: dict[str, str], now: dict[str, str]) -> bool:
    """The same embedder, and the same reranker where both runs had one (a method that does not rerank
    is handed none, and the LLM is the recording's by definition)."""
    if recorded.get("embedder") != now.get("embedder"):
        return False
    return "reranker" not in recorded or "reranker" not in now or recorded["reranker"] == now["reranker"]


def _strict_from_env() -> bool:
    raw = os.environ.get("EGX_REPLAY_STRICT", "").strip().lower()
    if raw in ("", "0", "off", "no", "false"):
        return False
    if raw in ("1", "on", "yes", "true"):
        return True
    raise ConfigError(f"EGX_REPLAY_STRICT = {raw!r} is not on or off; set it to 1 (stop at the first request a "
                      "recording does not hold) or 0, or unset it.")


class Recorder:
    """Journal of every request a run made and its outcome, merged into a bundle by :meth:`save`."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def note(self, key: str, resp: LLMResponse) -> None:
        e = {"text": resp.text, "prompt_tokens": resp.prompt_tokens, "completion_tokens": resp.completion_tokens,
             "model": resp.model, "latency_s": round(resp.original_latency_s if resp.cached else resp.latency_s, 4)}
        if resp.truncated:  # a recording replays a cut reply as cut
            e["truncated"] = True
        with self._lock:
            self.entries[key] = e

    def note_error(self, key: str, exc: EgxError) -> None:
        with self._lock:
            self.entries.setdefault(key, {"text": "", "error": str(exc)[:600]})

    def mark_invalid(self, key: str, why: str) -> None:
        with self._lock:
            if key in self.entries:
                self.entries[key]["invalid"] = why[:300] or True

    def take(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            out, self.entries = self.entries, {}
        return out


def save_recording(path: str | Path, provenance: dict[str, Any], run: dict[str, Any] | None,
                   entries: dict[str, dict[str, Any]]) -> int:
    """Merge one run and its entries into the bundle at ``path`` (created when absent), atomically
    and under the bundle's lock, so a kill leaves the previous bundle and two recorders take turns.

    Returns
    -------
    int
        The bundle's number of runs.
    """
    p = Path(path)
    with path_lock(p):
        if p.exists():
            rec = load_recording(p)
            prov, runs, ents = {**rec.provenance}, list(rec.runs), dict(rec.entries)
            if prov.get("model_key") and prov["model_key"] != provenance.get("model_key"):
                raise ConfigError(f"{p.name} records {prov.get('model_id')!r}, not {provenance.get('model_id')!r}; "
                                  "record into another file (--out).")
        else:
            prov, runs, ents = {}, [], {}
        prov.update(provenance)
        if run is not None:
            runs = [r for r in runs if (r.get("workspace"), r.get("method"), r.get("question"))
                    != (run.get("workspace"), run.get("method"), run.get("question"))] + [run]
        ents.update(entries)
        write_bundle(p, {"format": RECORDING_FORMAT, "version": FORMAT_VERSION, "provenance": prov,
                         "runs": runs, "entries": dict(sorted(ents.items()))})
    return len(runs)
