"""What an LLM backend sees of the guard's attempt it runs in: its deadline and its abandonment.

:class:`~core.backends.llm_guard.GuardedLLM` runs each attempt of a call in a worker thread with the attempt's
wall-clock limit (:func:`attempt_timeout`) and an :class:`Attempt` (:func:`current_attempt`) in its context. When
the guard stops waiting — the deadline passed, the run was cancelled, a retry comes — it :func:`abandon` s the
attempt: the releases the backend registered run (the ``openai`` backend shuts the attempt's socket; the local
model checks :attr:`Attempt.abandoned` between tokens) and the thread ends instead of running on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar

_ATTEMPT_LIMIT: ContextVar[float | None] = ContextVar("egx_llm_attempt_limit", default=None)

#: Seconds the guard waits, after abandoning an attempt, for its thread to end: it ends in milliseconds once
#: its connection is shut, a local model at its next token (tens of ms; later only while it still reads the
#: prompt). A backend that cannot be stopped is left to its own deadline after this short wait.
ABANDON_JOIN_S = 0.5


class Attempt:
    """One attempt of a :class:`GuardedLLM` call, as the backend running it sees it
    (:func:`current_attempt`).

    When the guard stops waiting for it — its deadline passed, or the run was cancelled — the attempt is
    *abandoned*: :attr:`abandoned` is set and every release the backend registered with
    :meth:`on_abandon` runs (the ``openai`` backend shuts its connection's socket, so a read blocked on a
    server that trickles bytes returns at once; the local model checks :attr:`abandoned` between tokens).
    So an abandoned attempt's thread and connection end with it, instead of running on in the background.
    """

    def __init__(self) -> None:
        self.abandoned = threading.Event()
        self._lock = threading.Lock()
        self._releases: dict[int, Callable[[], None]] = {}

    def on_abandon(self, key: int, release: Callable[[], None]) -> None:
        """Run ``release()`` when this attempt is abandoned (at once if it already was); ``key`` names the
        resource, so registering one twice keeps one release."""
        with self._lock:
            if not self.abandoned.is_set():
                self._releases[key] = release
                return
        _release(release)

    def abandon(self) -> None:
        """Mark the attempt abandoned and run every registered release (each one's failure is ignored:
        the resource may already be gone)."""
        with self._lock:
            self.abandoned.set()
            releases, self._releases = list(self._releases.values()), {}
        for release in releases:
            _release(release)


def _release(release: Callable[[], None]) -> None:
    try:
        release()
    except (OSError, ValueError, RuntimeError):  # already closed, or never opened
        pass


_ATTEMPT: ContextVar[Attempt | None] = ContextVar("egx_llm_attempt", default=None)


def current_attempt() -> Attempt | None:
    """The :class:`GuardedLLM` attempt this backend call runs in (None outside a guard)."""
    return _ATTEMPT.get()


def attempt_timeout(default: float) -> float:
    """The wall-clock limit of the attempt being made: ``default``, lowered by a guard's deadline."""
    limit = _ATTEMPT_LIMIT.get()
    return default if limit is None else min(default, limit)


def abandon(attempt: Attempt, thread: threading.Thread) -> None:
    """Stop waiting for ``attempt``: release what its backend holds and let its thread end
    (waited for up to :data:`ABANDON_JOIN_S`)."""
    attempt.abandon()
    thread.join(ABANDON_JOIN_S)
