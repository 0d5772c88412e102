"""The recorded LLM's tokenizer loads in the background when the app first makes the backend, not inside the first
replayed LLM stage (an audit read "this replay 2.6 s" on one stage beside others of a millisecond)."""

from __future__ import annotations

import threading

import pytest

from components import resources


class _Slow:
    name = "recorded"

    def __init__(self) -> None:
        self.loaded = threading.Event()

    def load(self) -> None:
        self.loaded.set()


def test_making_the_recorded_backend_starts_loading_its_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[_Slow] = []

    def fake(name: str, **kw: object) -> _Slow:
        made.append(_Slow())
        return made[-1]

    monkeypatch.setattr(resources.registry, "get_llm", fake)
    resources.llm.clear()
    try:
        resources.llm("recorded", (None, 0, 0.0), False)
        assert made and made[0].loaded.wait(10.0)  # a thread of its own: the page run does not wait for it
        resources.llm("none", (None, 0, 0.0), False)
        assert not made[1].loaded.is_set()  # only the recorded backend has a tokenizer to warm
    finally:
        resources.llm.clear()
