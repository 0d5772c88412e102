"""Recording under a comparison budget with the replies the shipped bundles already hold (``egx record
--reuse-recorded``, :func:`core.batch.recording.record`): the requests a budget leaves unchanged are answered from
those replies through the LLM cache, so only what the budget changes (an answer reading more passages) asks the
model; a reused stage keeps the live seconds of the run it came from.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.backends.llm_bundles import load_recording
from core.backends.llm_cache import CachedLLM


def reuse_recorded(llm: CachedLLM, paths: Sequence[str | Path]) -> set[str]:
    """Put the replies the bundles at ``paths`` hold for ``llm``'s model into its response cache, so a recording
    under a new budget asks the model only for what changed (the answer prompt) and replays the rest. A reply is
    reused only when the bundle recorded the same model file (its ``model_key``: model id and GGUF sha256) and
    the reply is a usable one (no error, not rejected, not cut); the cache key covers the messages, schema and
    sampling, so a reused reply is the one this model gave to this very request. Returns the keys it can answer
    (those added and those the cache already held)."""
    added: set[str] = set()
    for path in paths:
        rec = load_recording(path)
        if rec.provenance.get("model_key") != llm.model_key:
            continue
        for key, entry in rec.entries.items():
            if entry.get("error") or entry.get("invalid") or entry.get("truncated"):
                continue
            have = llm.cache.get(key)
            if have is None or have.get("tampered"):
                llm.cache.put(key, _cache_entry(key, llm.model_key, entry))
            added.add(key)
    return added


def reused_stage_seconds(stages: list[dict[str, Any]], earlier: dict[str, Any] | None) -> list[dict[str, Any]]:
    """``stages`` of a run recorded with reused replies (:func:`reuse_recorded`), each stage the cache answered
    given the live seconds the same stage took in the ``earlier`` run of the same question and method (matched by
    name and occurrence, as :func:`stage_times` pairs them) and flagged ``"reused": true`` — not the milliseconds
    the cache took, which a page's "live s" would read as the run's live time (BubbleRAG's read 0.0 s). A stage is
    the earlier one's when it asked and got the same numbers of tokens (a reply a check refused is not flagged
    cached, and a cached reply of another request, e.g. another method's identical answer prompt, is no reuse of
    this stage). A stage the earlier run lacks, or ran from a cache itself, keeps what was measured."""
    before: dict[tuple[str, int], dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for st in (earlier or {}).get("stages") or ():
        name = str(st.get("stage", ""))
        before[(name, seen.get(name, 0))] = st
        seen[name] = seen.get(name, 0) + 1
    out, seen = [], {}
    for st in stages:
        name = str(st.get("stage", ""))
        i = seen.get(name, 0)
        seen[name] = i + 1
        was = before.get((name, i))
        # the same request and reply as the earlier stage (a reply a check refused is not flagged cached)
        same = was is not None and bool(st.get("prompt_tokens")) and all(
            st.get(k) == was.get(k) for k in ("prompt_tokens", "completion_tokens"))
        if same and was is not None and not was.get("cached") and isinstance(was.get("seconds"), int | float):
            st = {**st, "seconds": was["seconds"], "cached": False, "reused": True}
        out.append(st)
    return out


def _cache_entry(key: str, model_key: str, entry: dict[str, Any]) -> dict[str, Any]:
    from core.backends.llm_cache import CACHE_FORMAT
    from core.backends.llm_keys import FORMAT_VERSION

    return {"format": CACHE_FORMAT, "version": FORMAT_VERSION, "key": key, "model_key": model_key,
            "text": str(entry.get("text", "")), "prompt_tokens": int(entry.get("prompt_tokens", 0) or 0),
            "completion_tokens": int(entry.get("completion_tokens", 0) or 0), "model": str(entry.get("model", "")),
            "latency_s": float(entry.get("latency_s", 0.0) or 0.0),
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
