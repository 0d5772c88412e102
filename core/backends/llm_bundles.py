"""Recording bundles: the read-only JSON files a recorded LLM run is replayed from.

A bundle (``format: egx-llm-recording``, ``sample_data/llm_recordings/*.json`` for the shipped ones)
holds the provenance of the recording (model, quantization, date, settings), its runs (workspace,
method, question, config, seconds per stage, retrieval state) and one entry per LLM request, keyed
by :func:`core.backends.llm_keys.cache_key`. Every bundle carries a content hash; one changed after
egx wrote it is refused (:func:`load_recording`). A hash alone is no protection against a bundle forged with
a recomputed hash, so a bundle also has to be trusted (:mod:`core.backends.llm_integrity`): a shipped one by
its content hash in the committed manifest (``sample_data/llm_recordings/MANIFEST.txt``), one made on this
machine by its HMAC under the local key. Every writer here keeps that up to date.

* :class:`Recorder` — collects what a live run asked and got (also failures, to replay them as they
  happened); :func:`save_recording` merges it into a bundle (``egx record``, ``make record-llm``).
* :func:`load_recording`, :func:`recording_paths` — what the ``recorded`` backend
  (:mod:`core.backends.llm_recorded`) answers from.
* :func:`write_bundle`, :func:`prune_bundle`, :func:`stamp_bundle` — every writer of a bundle (a shipped
  bundle's manifest line, another bundle's HMAC).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.backends.base import LLMResponse
from core.backends.llm_integrity import MANIFEST_NAME, shipped_hashes, sign, verify, write_manifest_line
from core.backends.llm_keys import FORMAT_VERSION, content_sha256
from core.errors import ConfigError, EgxError, InputFormatError
from core.fsio import atomic_write_json, path_lock

RECORDING_FORMAT = "egx-llm-recording"

#: The shipped recordings (read-only): one JSON bundle per model and sample.
RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "sample_data" / "llm_recordings"


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
    problem = _untrusted(data)
    if problem:
        raise InputFormatError(p.name, f"the LLM recording is neither a shipped one nor one made on this machine "
                               f"({problem}), so its replies cannot be trusted as the model's",
                               "a bundle `egx record` wrote on this machine, or a shipped one: restore it (git checkout) "
                               "or record it again; after checking it by hand, `scripts/check_recordings.py --stamp "
                               "FILE` signs it for this machine (in the shipped folder: lists it in "
                               f"{MANIFEST_NAME}, to commit with it)")
    raw = data.get("provenance")
    prov: dict[str, Any] = raw if isinstance(raw, dict) else {}
    runs = tuple(r for r in data.get("runs", []) if isinstance(r, dict))
    entries = {str(k): v for k, v in data["entries"].items() if isinstance(v, dict)}
    return Recording(p, prov, runs, entries)


def bundle_sha256(data: dict[str, Any]) -> str:
    """The content hash of a recording bundle: :func:`content_sha256` of everything but its ``sha256`` and
    ``hmac``."""
    return content_sha256({k: v for k, v in data.items() if k not in ("sha256", "hmac")})


def _untrusted(data: dict[str, Any]) -> str:
    """Why a bundle whose content hash is right is still not trusted ("" when it is): its hash is not in the
    shipped manifest and it carries no valid HMAC of this machine's key."""
    content = str(data.get("sha256"))
    if content in shipped_hashes(RECORDINGS_DIR):
        return ""
    listed = f"its content hash {content[:12]}… is not in {MANIFEST_NAME} of {RECORDINGS_DIR.name}/"
    if "hmac" not in data:
        return f"{listed}, and it carries no signature of this machine's key"
    try:
        if verify("recording", content, data["hmac"]):
            return ""
    except ConfigError as exc:
        return f"{listed}, and its signature cannot be checked: {exc}"
    return f"{listed}, and its signature is not this machine's key's (made elsewhere, or forged)"


def shipped(path: str | Path) -> bool:
    """Whether ``path`` is a bundle of the shipped folder (trusted by the committed manifest)."""
    return Path(path).resolve().parent == RECORDINGS_DIR.resolve()


def write_bundle(path: str | Path, data: dict[str, Any]) -> None:
    """Write a recording bundle atomically with its content hash, and make it trusted: a shipped bundle's
    hash goes into the manifest (committed with it), any other bundle is signed with this machine's key.
    Every writer goes through here.

    Raises
    ------
    ConfigError
        When a bundle outside the shipped folder cannot be signed (no usable local key).
    """
    data = {k: v for k, v in data.items() if k not in ("sha256", "hmac")}
    data["sha256"] = bundle_sha256(data)
    if not shipped(path):
        data["hmac"] = sign("recording", data["sha256"])
    atomic_write_json(path, data, indent=1)
    if shipped(path):
        write_manifest_line(Path(path), data["sha256"])


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
    """Trust the bundle at ``path`` as it is now (after an edit checked by hand, or a shipped bundle re-recorded
    elsewhere), under its lock: a new content hash, and the manifest line (shipped) or this machine's
    signature (any other). A shipped bundle whose content hash is right is not rewritten: only its
    manifest line is."""
    p = Path(path)
    with path_lock(p):
        data = json.loads(p.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
            raise InputFormatError(p.name, "this is not an egx LLM recording", f'"format": "{RECORDING_FORMAT}"')
        if shipped(p) and "hmac" not in data and data.get("sha256") == bundle_sha256(data):
            write_manifest_line(p, str(data["sha256"]))
        else:
            write_bundle(p, data)


def recording_paths(folder: str | Path | None = None) -> list[Path]:
    """The bundles in ``folder`` (default ``$EGX_LLM_RECORDINGS``, else ``sample_data/llm_recordings``)."""
    env = os.environ.get("EGX_LLM_RECORDINGS", "").strip()
    root = Path(folder) if folder is not None else (Path(env) if env else RECORDINGS_DIR)
    if root.is_file():
        return [root]
    return sorted(root.glob("*.json")) if root.is_dir() else []


class Recorder:
    """Journal of every request a run made and its outcome, merged into a bundle by :func:`save_recording`."""

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


def recorded_runs(paths: Sequence[Path] | None = None) -> frozenset[tuple[str, str, str]]:
    """``(workspace, method, question text)`` of every run the bundles hold (default: :func:`recording_paths`)."""
    out = set()
    for p in recording_paths() if paths is None else paths:
        out |= {(str(r.get("workspace")), str(r.get("method")), str(r.get("question"))) for r in load_recording(p).runs}
    return frozenset(out)


def recorded_budgets(paths: Sequence[Path] | None = None) -> frozenset[tuple[str, str]]:
    """``(workspace, answer budget)`` of every run the bundles hold (default: :func:`recording_paths`): the
    comparison budgets (:mod:`core.methods.budget`; ``own`` for a run with no budget) whose replays the
    recordings hold, so a comparison page can default to one whose recorded answers exist."""
    out = set()
    for p in recording_paths() if paths is None else paths:
        out |= {(str(r.get("workspace")), str((r.get("config") or {}).get("answer_budget") or "own"))
                for r in load_recording(p).runs}
    return frozenset(out)


def recording_gap(runs: frozenset[tuple[str, str, str]], workspace: str, questions: Sequence[str],
                  methods: Sequence[str]) -> str:
    """What to say BEFORE a run with the ``recorded`` LLM whose questions × methods the recordings do not all
    hold ("" when they do): such a pair runs without an LLM, as ``none`` mode does
    (:meth:`~core.backends.llm_recorded.RecordedLLM.for_question`), so its figures will not be an LLM's.

    >>> runs = frozenset({("musique", "dense", "Who?")})
    >>> recording_gap(runs, "musique", ["Who?"], ["dense"])
    ''
    >>> recording_gap(runs, "mine", ["Who?"], ["dense"])[:60]
    'The recorded LLM holds no run on the workspace “mine” (it ho'
    """
    pairs = [(m, q) for q in dict.fromkeys(questions) for m in dict.fromkeys(methods)]
    held = [p for p in pairs if (workspace, *p) in runs]
    if not pairs or len(held) == len(pairs):
        return ""
    one = len(pairs) - len(held) == 1
    fallback = (f"{'it runs' if one else 'they run'} without an LLM, as in none mode: an answer is the best-scoring "
                "evidence sentence, not a generated one (on a multi-hop question it may name the answer without the "
                "chain), and no figure is an LLM's. Pick a recorded question, or a live LLM in the sidebar.")
    if not any(w == workspace for w, _, _ in runs):
        spaces = ", ".join(f"“{w}”" for w in sorted({w for w, _, _ in runs})) or "none"
        return f"The recorded LLM holds no run on the workspace “{workspace}” (it holds {spaces}): {fallback}"
    if not held:
        return (f"The recorded LLM holds no run of {'this question' if len(set(questions)) == 1 else 'these questions'}"
                f" with {'this method' if len(set(methods)) == 1 else 'these methods'}: {fallback}")
    return (f"The recorded LLM holds a run for {len(held)} of {len(pairs)} question × method pairs here; for the "
            f"other {len(pairs) - len(held)}, " + fallback)


def recorded_live_seconds(method: str) -> tuple[float, int] | None:
    """The median seconds a question of ``method`` took live in the recorded runs (the shipped bundles: the local
    1.5B model on the machine each names), and how many runs: what a live run of it may take, said before one
    starts. None when no bundle holds a run of it."""
    import statistics

    secs = [s for m, s in _recorded_seconds() if m == method]
    return (statistics.median(secs), len(secs)) if secs else None


def _recorded_seconds() -> tuple[tuple[str, float], ...]:
    key = tuple((str(p), p.stat().st_mtime) for p in recording_paths())
    with _SECONDS_LOCK:
        if _SECONDS_CACHE.get("key") != key:
            out: list[tuple[str, float]] = []
            for p in recording_paths():
                try:
                    runs = json.loads(p.read_text(encoding="utf-8")).get("runs") or []
                except (OSError, ValueError, AttributeError):
                    continue  # an unreadable bundle gives no figure (the recorded LLM itself says why)
                out += [(str(r.get("method")), float(r["seconds"])) for r in runs
                        if isinstance(r, dict) and isinstance(r.get("seconds"), (int, float))]
            _SECONDS_CACHE.update(key=key, value=tuple(out))
        return tuple(_SECONDS_CACHE["value"])


_SECONDS_LOCK = threading.Lock()
_SECONDS_CACHE: dict[str, Any] = {}
