"""Prompt token counts for the evidence-format comparison (ReG §5.4 reports token savings).

* With a local llama.cpp model: that model's own tokenizer (``Llama.tokenize``), so counts equal
  what the model reads.
* Otherwise (``none`` mode, or an OpenAI-compatible endpoint whose tokenizer is not available
  offline): BERT's uncased WordPiece tokenizer shipped with the engine (:mod:`core.backends.wordpiece`:
  the vocabulary and rules of all-MiniLM-L6-v2's ``tokenizer.json``, so the counts are the ones that
  tokenizer gives) — deterministic, offline, and needing no model package, so a run loads only the
  models it names. It is *not* the answering model's tokenizer; ratios between prompts are
  what it is good for, and the trace names it.

Counts are of the message contents (system + user); chat-template overhead is the same for every
format and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WORDPIECE = "wordpiece (all-MiniLM-L6-v2 vocab)"


def _wordpiece_count(texts: Sequence[str]) -> list[int]:
    from core.backends.wordpiece import count

    return count(texts)


def count_tokens(texts: Sequence[str], llm: Any = None) -> tuple[list[int], str]:
    """Token count of each text and the name of the tokenizer used (see the module docstring)."""
    if llm is not None and getattr(llm, "available", False) and hasattr(llm, "load"):
        try:
            model = llm.load()
            return [len(model.tokenize(t.encode("utf-8"), add_bos=False)) if t else 0 for t in texts], \
                f"{llm.model_id} (the answering model's tokenizer)"
        except Exception:  # a missing/broken model must not break counting; the returned name says so
            pass
    return _wordpiece_count(texts), WORDPIECE
