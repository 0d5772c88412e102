"""Limits on every LLM wait: :class:`LLMSettings`, the per-question scope and :class:`GuardedLLM`."""

from __future__ import annotations

import contextvars
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from core.backends.base import ChatMessage, LLMResponse, LLMWrapper
from core.backends.llm_attempt import _ATTEMPT, _ATTEMPT_LIMIT, Attempt, abandon
from core.backends.llm_errors import (
    BUDGET_HINT,
    RETRIES_HINT,
    TIMEOUT_HINT,
    LLMReplyError,
    LLMSkippedError,
    LLMTransportError,
    _short,
)
from core.errors import ConfigError, EgxError, LLMError

# --- limits on every LLM wait: settings, the per-question scope, the guard -----------------------

_MAX_COOLDOWN = 600.0


def _env_number(var: str, cast: Callable[[str], Any]) -> Any:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return None
    try:
        return cast(raw)
    except ValueError:
        kind = "a whole number" if cast is int else "a number of seconds"
        raise ConfigError(f"{var} = {raw!r} is not {kind}; set it to {kind} (e.g. {var}="
                          f"{'2' if cast is int else '60'}) or unset it.") from None


@dataclass(frozen=True)
class LLMSettings:
    """How long LLM calls may take: one set of limits for every backend and every caller.

    Parameters
    ----------
    timeout : float or None
        Wall-clock seconds one attempt may take — a hung server, a reply trickling in, a local
        prompt that takes too long to read. ``None``: the backend's own default (60 s for
        ``openai``, 120 s for the local models). CLI ``--llm-timeout``, env ``EGX_LLM_TIMEOUT``.
    retries : int
        Extra attempts after a timeout, a connection error, HTTP 429 / 5xx or a reply that is no
        chat completion. Before the n-th retry the guard waits ``backoff · 2^(n-1)`` s (not after
        a timeout, which has waited already). CLI ``--llm-retries``, env ``EGX_LLM_RETRIES``.
    budget : float
        Seconds of LLM time one question may use (inside :func:`question_scope`); once spent, the
        question's remaining LLM steps take their fallback at once. 0 = no limit. CLI
        ``--llm-budget``, env ``EGX_LLM_BUDGET``.
    breaker : int
        Failed attempts in a row that open the circuit breaker: the remaining LLM steps of the
        question fall back at once, and so do later calls until ``cooldown`` has passed.
    cooldown : float
        Seconds an open breaker refuses calls before it lets one probe through; doubled after
        each failed probe, up to 10 minutes; reset by any success.
    backoff : float
        First retry delay in seconds.

    Raises
    ------
    ConfigError
        For a value out of range; the message names the flag and variable that set it.
    """

    timeout: float | None = None
    retries: int = 2
    budget: float = 300.0
    breaker: int = 3
    cooldown: float = 30.0
    backoff: float = 1.0

    def __post_init__(self) -> None:
        if self.timeout is not None and not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise ConfigError(f"LLM timeout = {self.timeout!r} is out of range; use a number of seconds > 0 "
                              f"({TIMEOUT_HINT}).")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or not 0 <= self.retries <= 10:
            raise ConfigError(f"LLM retries = {self.retries!r} is out of range; use a whole number from 0 to 10 "
                              f"({RETRIES_HINT}).")
        if not (self.budget >= 0 and math.isfinite(self.budget)):
            raise ConfigError(f"LLM budget = {self.budget!r} is out of range; use seconds >= 0, 0 for no limit "
                              f"({BUDGET_HINT}).")
        if isinstance(self.breaker, bool) or not isinstance(self.breaker, int) or self.breaker < 1:
            raise ConfigError(f"LLM breaker = {self.breaker!r} is out of range; use a whole number >= 1.")
        if not (self.cooldown >= 0 and self.backoff >= 0):
            raise ConfigError(f"LLM cooldown / backoff must be >= 0 seconds, got {self.cooldown!r} / {self.backoff!r}.")

    @classmethod
    def from_env(cls, *, timeout: float | None = None, retries: int | None = None,
                 budget: float | None = None) -> LLMSettings:
        """Settings from the arguments given, else ``EGX_LLM_TIMEOUT`` / ``EGX_LLM_RETRIES`` /
        ``EGX_LLM_BUDGET``, else the defaults.

        Raises
        ------
        ConfigError
            If a variable is not a number, or a value is out of range.
        """
        kw: dict[str, Any] = {}
        t = timeout if timeout is not None else _env_number("EGX_LLM_TIMEOUT", float)
        r = retries if retries is not None else _env_number("EGX_LLM_RETRIES", int)
        b = budget if budget is not None else _env_number("EGX_LLM_BUDGET", float)
        if t is not None:
            kw["timeout"] = float(t)
        if r is not None:
            kw["retries"] = r
        if b is not None:
            kw["budget"] = float(b)
        return cls(**kw)


@dataclass
class LLMScope:
    """One question's LLM accounting, opened by :func:`question_scope`."""

    budget: float  #: seconds of LLM time allowed (0 = no limit)
    spent: float = 0.0  #: seconds spent in attempts and retry pauses
    calls: int = 0
    attempts: int = 0
    failures: int = 0  #: failed attempts
    skipped: int = 0  #: calls refused (budget spent or breaker open)
    stopped: str = ""  #: why the rest of this question's LLM calls are skipped ("" while they run)
    cache_hits: int = 0  #: calls answered by the LLM cache (no LLM time)
    cache_misses: int = 0  #: calls the cache passed on to the model

    def remaining(self) -> float:
        return math.inf if self.budget <= 0 else self.budget - self.spent

    def summary(self) -> dict[str, Any]:
        return {"budget_s": self.budget, "spent_s": round(self.spent, 3), "calls": self.calls,
                "attempts": self.attempts, "failed_attempts": self.failures, "skipped_calls": self.skipped,
                "stopped": self.stopped, "cache_hits": self.cache_hits, "cache_misses": self.cache_misses}


_SCOPE: ContextVar[LLMScope | None] = ContextVar("egx_llm_scope", default=None)
def current_scope() -> LLMScope | None:
    """The question scope open in this thread / context, if any."""
    return _SCOPE.get()


@contextmanager
def question_scope(llm: Any) -> Iterator[LLMScope]:
    """Open one question's LLM scope: its budget and its "stop asking" state.

    Every caller that runs one question opens it around the run (``egx ask``, the benchmark
    runner's per-question run, the app's method-run wrappers). Inside, a :class:`GuardedLLM`
    charges its attempts to the scope, refuses calls once the budget is spent or the circuit
    breaker opened, and says so in the :class:`LLMSkippedError` each stage turns into its
    visible fallback. With any other LLM (``none``, test fakes) the scope has no budget and
    changes nothing.

    Parameters
    ----------
    llm : LLM
        The question's LLM; its :class:`LLMSettings` give the budget.

    Yields
    ------
    LLMScope
    """
    settings = getattr(llm, "settings", None)  # a GuardedLLM's, also through a CachedLLM
    if not isinstance(settings, LLMSettings):
        settings = None
    token = _SCOPE.set(LLMScope(budget=settings.budget if settings else 0.0))
    try:
        scope = _SCOPE.get()
        assert scope is not None
        yield scope
    finally:
        _SCOPE.reset(token)


def _count(**increments: int) -> None:
    """Add to the counters of the job running this (requests and tokens shown live in the app)."""
    from core.background.jobs import current_job

    job = current_job()
    if job is not None:
        job.count(**increments)


def _wait_or_cancel(done: threading.Event, seconds: float) -> bool:
    """Wait for ``done`` like ``done.wait(seconds)``, but raise :class:`~core.errors.Cancelled` as soon
    as the job running this (the app's background run) is cancelled: its user stops a slow LLM
    reply at once, not after the timeout. The caller abandons the attempt (:class:`Attempt`)."""
    from core.background.jobs import current_job

    job = current_job()
    if job is None:
        return done.wait(seconds)
    deadline = time.monotonic() + seconds
    while True:
        job.check()
        left = deadline - time.monotonic()
        if left <= 0:
            return done.is_set()
        if done.wait(min(left, 0.1)):
            return True


class GuardedLLM(LLMWrapper):
    """Any LLM backend under :class:`LLMSettings` — the one mechanism that bounds LLM waits.

    Every :meth:`chat` is made of attempts. Each attempt runs the backend in a worker thread and
    waits at most ``min(timeout, what is left of the question's budget)`` seconds of wall clock,
    whatever the backend does (an endpoint that never answers, or one whose reply trickles in
    byte by byte; the backend is also told the limit, so its own HTTP or token timeout fires
    first when it can). An attempt the guard stops waiting for (a timeout, a cancel; before a retry)
    is abandoned (:class:`Attempt`): its connection is shut and its thread ends, so nothing of it
    runs on in the background. A timeout, a connection error, HTTP 429 / 5xx or a reply that is no
    chat completion is retried up to ``retries`` times with exponential backoff. ``breaker``
    failed attempts in a row open the circuit breaker: the rest of the question's LLM calls are
    refused at once, and so is every call until ``cooldown`` has passed (then one probe goes
    through; a success closes the breaker). Any exception other than this project's errors is
    turned into an :class:`LLMError` naming it, so callers only ever handle ``LLMError``.

    Parameters
    ----------
    inner : LLM
        The backend (an :class:`OpenAILLM`, :class:`LlamaCppLLM`, or any object of the protocol).
    settings : LLMSettings or None
        Defaults: :meth:`LLMSettings.from_env`.

    Notes
    -----
    Before its first attempt the guard lets the backend get ready outside any deadline
    (``prepare()`` or ``load()``: building the HTTP client, loading the GGUF model), since that is
    bounded local work, not a wait on the endpoint.

    The breaker state belongs to the guard (one endpoint, shared by every app session); the
    budget belongs to the question scope of the calling thread. Attributes the guard does not
    define (``load``, ``model``, ``base_url`` ...) are the backend's.
    """

    def __init__(self, inner: Any, settings: LLMSettings | None = None) -> None:
        if isinstance(inner, GuardedLLM):
            inner = inner.__dict__["inner"]
        self.inner: Any = inner
        self.settings = settings if settings is not None else LLMSettings.from_env()
        self._lock = threading.Lock()
        self._fails = 0  # failed attempts in a row (every thread)
        self._last = ""
        self._open_until = 0.0  # time.monotonic() until which calls are refused; 0 = closed
        self._opens = 0  # breaker openings in a row (doubles the cooldown)
        self._prepared = False

    @property
    def timeout(self) -> float:
        """The per-attempt limit: the setting, else the backend's own timeout, else 60 s."""
        return float(self.settings.timeout or getattr(self.inner, "timeout", None) or 60.0)

    def __repr__(self) -> str:
        s = self.settings
        return (f"GuardedLLM({self.inner!r}, timeout={self.timeout:g}, retries={s.retries}, "
                f"budget={s.budget:g}, breaker={s.breaker})")

    @property
    def breaker_open(self) -> bool:
        with self._lock:
            return self._open_until > time.monotonic()

    def reset(self) -> None:
        """Close the circuit breaker (e.g. after the endpoint was fixed)."""
        with self._lock:
            self._fails = self._opens = 0
            self._open_until = 0.0
            self._last = ""

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """The backend's :meth:`chat` under the timeout, retries, budget and breaker.

        Returns
        -------
        LLMResponse
            The backend's, with ``attempts`` and ``latency_s`` covering failed attempts too and a
            note per retry.

        Raises
        ------
        LLMSkippedError
            Without calling the backend: the question's budget is spent or the breaker is open.
        LLMError
            The last attempt's failure, naming the attempts made and, when the breaker opened,
            saying that the question's remaining LLM steps take their fallback.
        """
        scope = _SCOPE.get()
        if scope is not None:
            scope.calls += 1
        self._prepare()
        limit = self.timeout
        notes: list[str] = []
        t_start = time.monotonic()
        attempt = 0
        while True:
            self._admit(scope)
            attempt += 1
            left = scope.remaining() if scope is not None else math.inf
            t = min(limit, left)
            t0 = time.monotonic()
            try:
                resp = self._attempt(messages, max_tokens, temperature, json_schema, t)
            except LLMError as exc:
                elapsed = time.monotonic() - t0
                self._charge(scope, elapsed)
                _count(llm_calls=1, llm_failures=1)
                msg = str(exc)
                if t < limit and isinstance(exc, LLMTransportError):
                    msg += (f" (this attempt had only the {t:.1f} s left of the question's LLM budget; "
                            f"{BUDGET_HINT})")
                opened = self._failed(msg, scope)
                retryable = isinstance(exc, (LLMTransportError, LLMReplyError))
                budget_left = scope is None or scope.remaining() > 0
                if retryable and not opened and budget_left and attempt <= self.settings.retries:
                    pause = 0.0 if elapsed >= 0.9 * t else self.settings.backoff * 2 ** (attempt - 1)
                    pause = max(0.0, min(pause, scope.remaining() if scope is not None else pause))
                    _wait_or_cancel(threading.Event(), pause)  # a backoff a cancel cuts short
                    self._charge(scope, pause)
                    notes.append(f"attempt {attempt} failed ({_short(msg, 120)}); retried")
                    continue
                if attempt > 1:
                    msg += f" Gave up after {attempt} attempts."
                if opened:
                    msg += (" The LLM circuit breaker is now open: the remaining LLM steps of this question "
                            "take their fallback at once.")
                raise type(exc)(msg) from None
            self._charge(scope, time.monotonic() - t0)
            self._succeeded()
            _count(llm_calls=1, prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens)
            if attempt == 1:
                return resp
            return replace(resp, attempts=resp.attempts + attempt - 1, latency_s=time.monotonic() - t_start,
                           notes=(*notes, *resp.notes))

    def _prepare(self) -> None:
        """Load the model / build the client once, before the first deadline starts: that is local,
        bounded work (seconds for a GGUF file), not a wait on the endpoint."""
        if self._prepared:
            return
        ready = getattr(self.inner, "prepare", None) or getattr(self.inner, "load", None)
        if callable(ready):
            ready()
        self._prepared = True

    def _attempt(self, messages: Sequence[ChatMessage], max_tokens: int, temperature: float,
                 json_schema: dict[str, Any] | None, limit: float) -> LLMResponse:
        box: dict[str, Any] = {}
        done = threading.Event()
        attempt = Attempt()

        def work() -> None:
            _ATTEMPT_LIMIT.set(limit)  # inside the copied context: the backend sees its deadline
            _ATTEMPT.set(attempt)  # ... and what to release when the guard abandons it
            try:
                box["r"] = self.inner.chat(messages, max_tokens=max_tokens, temperature=temperature,
                                           json_schema=json_schema)
            except BaseException as exc:  # handed to the caller's thread below
                box["e"] = exc
            finally:
                done.set()

        # A daemon thread, so a backend stuck where nothing can reach it (a TCP connect, a local model
        # reading its prompt) neither blocks this caller past the deadline nor the process's exit.
        thread = threading.Thread(target=contextvars.copy_context().run, args=(work,), daemon=True,
                                  name="egx-llm-attempt")
        thread.start()
        try:
            finished = _wait_or_cancel(done, limit + min(2.0, 0.25 + 0.1 * limit))
        except BaseException:  # the run was cancelled: its attempt ends too
            abandon(attempt, thread)
            raise
        if not finished:
            abandon(attempt, thread)
            raise LLMTransportError(
                f"{self.model_id} did not finish its reply within {limit:g} s (a hung or very slow "
                f"server); raise the LLM timeout ({TIMEOUT_HINT}), or check the server.")
        if "e" in box:
            exc = box["e"]
            if isinstance(exc, EgxError):
                raise exc
            raise LLMError(f"{self.model_id} failed while answering ({type(exc).__name__}: "
                           f"{_short(str(exc))}); the step takes its fallback.") from exc
        resp = box["r"]
        if not isinstance(resp, LLMResponse):
            raise LLMReplyError(f"{self.model_id} returned {type(resp).__name__}, not an LLMResponse.")
        return resp

    def _admit(self, scope: LLMScope | None) -> None:
        """Raise :class:`LLMSkippedError` when this question or this endpoint must not be asked."""
        if scope is not None and not scope.stopped and scope.remaining() <= 0:
            scope.stopped = (f"LLM call skipped: this question's LLM budget of {scope.budget:g} s is spent "
                             f"({scope.spent:.1f} s over {scope.calls - 1} call(s)). The remaining LLM steps "
                             f"take their fallback at once; raise the budget with {BUDGET_HINT}.")
        if scope is not None and scope.stopped:
            scope.skipped += 1
            raise LLMSkippedError(scope.stopped)
        with self._lock:
            wait = self._open_until - time.monotonic()
            if wait > 0:
                msg = self._open_message(wait)
            else:
                return  # closed, or half-open: this attempt is the probe
        if scope is not None:
            scope.stopped = msg
            scope.skipped += 1
        raise LLMSkippedError(msg)

    def _open_message(self, wait: float) -> str:
        return (f"LLM call skipped: the circuit breaker for {self.model_id} is open after repeated "
                f"failures (last: {_short(self._last, 240)}). The remaining LLM steps take their fallback at once; "
                f"the next try is allowed in {math.ceil(wait)} s.")

    def _charge(self, scope: LLMScope | None, seconds: float) -> None:
        if scope is not None:
            scope.spent += seconds

    def _failed(self, msg: str, scope: LLMScope | None) -> bool:
        """Count a failed attempt; True when it opened the breaker."""
        with self._lock:
            probing = self._open_until > 0  # the cooldown had passed: this was the probe
            self._fails += 1
            self._last = msg
            opened = probing or self._fails >= self.settings.breaker
            if opened:
                self._opens += 1
                cooldown = min(self.settings.cooldown * 2 ** (self._opens - 1), _MAX_COOLDOWN)
                self._open_until = time.monotonic() + cooldown
                stop = self._open_message(cooldown)
        if scope is not None:
            scope.attempts += 1
            scope.failures += 1
            if opened:
                scope.stopped = stop
        return opened

    def _succeeded(self) -> None:
        scope = _SCOPE.get()
        if scope is not None:
            scope.attempts += 1
        with self._lock:
            self._fails = self._opens = 0
            self._open_until = 0.0
