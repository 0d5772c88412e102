"""The ``recorded`` LLM: answers only from shipped, read-only recording bundles, never from a model.

:class:`RecordedLLM` answers a request from the bundles (:mod:`core.backends.llm_bundles`,
``sample_data/llm_recordings/*.json``) with their provenance (model, quantization, date, settings,
seconds per stage). A request that is not in any bundle raises :class:`LLMNotRecordedError`, and the
stage takes its visible fallback (or, strict, :class:`~core.pinning.ReplayMissError`).
:meth:`RecordedLLM.tape_for` finds the recorded run of a question and hands its retrieval state to
the replay (:class:`~core.pinning.StateTape`), so the replay is the same on every CPU.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.backends.base import ChatMessage, LLMResponse
from core.backends.llm_bundles import RECORDINGS_DIR, Recording, load_recording, recording_paths
from core.backends.llm_cache import response_from_entry
from core.backends.llm_keys import cache_key
from core.errors import ConfigError, LLMError
from core.pinning import NOT_RECORDED


class LLMNotRecordedError(LLMError):
    """The ``recorded`` backend has no answer for this request: the question or stage was not recorded."""


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
        Raise :class:`~core.pinning.ReplayMissError` at the first request (or retrieval state) that is
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
        #: the bundles :meth:`chat` answers from (:meth:`for_workspace` narrows them to one workspace's)
        self.replying: list[Recording] = list(self.recordings)
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
            parts.append(f"{r.label}: {len(qs)} question{'' if len(qs) == 1 else 's'} × {', '.join(ms) or 'no method'}")
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
        from core.backends.llm_errors import LLMOutputError

        for rec in self.replying:
            key = cache_key(rec.model_key, messages, max_tokens=max_tokens, temperature=temperature,
                            json_schema=json_schema)
            e = rec.entries.get(key)
            if e is None:
                continue
            self.used.add((str(rec.path), key))
            if e.get("error"):
                raise LLMOutputError(f"(as recorded with {rec.label}) {e['error']}")
            resp = response_from_entry(e, f"recorded run: {rec.label}")
            return replace(resp, cache_key=key)
        if self.strict:
            from core.pinning import ReplayMissError

            first = next((m.content for m in messages if m.role == "user"), "")[:160]
            raise ReplayMissError(f"Strict replay: this LLM request {NOT_RECORDED} (its prompt differs from every "
                                  f"recorded one; it begins {first!r}). Re-record the run "
                                  "(RECORD_ARGS=--redo scripts/record_llm.sh WORKSPACE local METHOD ID).")
        raise LLMNotRecordedError(
            f"This question/stage {NOT_RECORDED} (no recorded LLM answer for this exact prompt: another "
            "question, workspace, method setting or backend than the recording used). Use the live LLM "
            "('local' or 'openai') or 'none'.")

    def holds_workspace(self, workspace: str) -> bool:
        """Whether a bundle holds a recorded run on ``workspace``."""
        return any(run.get("workspace") == workspace for rec in self.recordings for run in rec.runs)

    def for_workspace(self, workspace: str) -> RecordedLLM:
        """This backend answering only from the bundles that hold a run on ``workspace`` (itself when all do).

        A reply is keyed by its prompt alone, and a prompt made of the question only (SG-RAG's query graph,
        PPR's query entities) is the same on every workspace: a question recorded on one workspace and asked
        on another got that stage's recorded reply there, while every other stage fell back, so a run the app
        says runs without an LLM (a workspace the recordings do not hold) counted the replayed reply's LLM
        tokens. Scoped, a workspace without recordings runs as in ``none`` mode, and one with recordings
        replays its own runs. Everything else (the tokenizer, :attr:`used`, :meth:`find_run`) is shared.

        Where no bundle holds a run of ``workspace`` the scoped backend is not :attr:`available`, as the ``none``
        backend is not: every caller then takes the fallback ``none`` mode takes, not the one of a live LLM that
        failed. Those differ: a method that does not rerank keeps the reranker only for the extractive answer of
        an LLM-free run (:func:`core.methods.run.backends_for`), and prompts count tokens with the answering
        model's tokenizer (:func:`core.backends.tokens.count_tokens`).
        """
        keep = [rec for rec in self.recordings if any(run.get("workspace") == workspace for run in rec.runs)]
        if len(keep) == len(self.replying) and (keep or not self.available):
            return self
        out = copy.copy(self)
        out.replying = keep
        out.available = bool(keep)
        return out

    def for_question(self, workspace: str, method: str, question: str) -> RecordedLLM:
        """This backend where a bundle holds a run of ``question`` by ``method`` on ``workspace`` (under any
        settings: another setting replays what it can and says what it could not); else one that is not
        :attr:`available`, like :meth:`for_workspace` on a workspace without recordings.

        A question the recordings hold no run of is a run without an LLM: every stage would take its fallback,
        and the fallbacks of an LLM that failed are not those of ``none`` mode (a method that does not rerank
        answered by embedding cosine instead of the cross-encoder, and "Who directed The Matrix?" quoted the
        cast sentence that ``none`` mode ranks below "written and directed by the Wachowskis")."""
        if not self.available or any((run.get("workspace"), run.get("method"), run.get("question"))
                                     == (workspace, method, question) for rec in self.replying for run in rec.runs):
            return self
        out = copy.copy(self)
        out.replying = []
        out.available = False
        return out

    def find_run(self, workspace: str, method: str, question: str, config: dict[str, Any],
                 backends: dict[str, str]) -> tuple[Recording, dict[str, Any]] | None:
        """The recorded run of ``question`` by ``method`` on ``workspace`` with these settings and the same
        embedder and reranker, or None. Settings that only bound wall-clock time (:data:`UNTIMED_KEYS`)
        are not compared: they are lifted while recording (the replay is never cut short by them); nor
        are settings the recording does not name (added to the method since), nor labels that change no prompt
        (:data:`LABEL_KEYS`)."""
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
        """A replay :class:`~core.pinning.StateTape` holding the retrieval state of the matching recorded
        run (:meth:`find_run`) and the recording's label, or None when no recorded run matches."""
        from core.pinning import StateTape

        found = self.find_run(workspace, method, question, config, backends)
        if found is None:
            return None
        rec, run = found
        state = run.get("state")
        entries = {str(k): str(v) for k, v in state.items()} if isinstance(state, dict) else {}
        return StateTape("replay", entries, strict=self.strict), rec.label


#: settings that only bound wall-clock time: lifted while recording, so not compared on replay
UNTIMED_KEYS = frozenset({"time_budget_s"})
#: settings that only name things and change no prompt: the comparison budget a config was set for
#: (:func:`core.methods.budget.apply_budget`). A budget that maps onto a method's own values (BubbleRAG's
#: own 15 chunks under BubbleRAG §4.1's budget) runs the very prompts its own recording holds.
LABEL_KEYS = frozenset({"answer_budget"})


def _canon_config(config: dict[str, Any]) -> str:
    """The settings as JSON text, as a recording keeps them (tuples become lists)."""
    return json.dumps({k: v for k, v in config.items() if k not in UNTIMED_KEYS | LABEL_KEYS}, sort_keys=True,
                      default=str)


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
