"""Pinned retrieval state: what makes a recorded LLM run replay the same on every CPU and GPU.

A recorded run (:mod:`core.batch.recording`) is replayed by the ``recorded`` LLM, which answers a request
only when its exact prompt was recorded (:func:`core.backends.llm_keys.cache_key`). Prompts list
passages, candidates, triples and subgraphs in score order, and the scores come from int8 ONNX and
BLAS kernels whose last digits differ from one CPU to the next (AVX2 against AVX-512 VNNI, other
thread counts, a GPU): bge-small scored two Keanu Reeves passages 0.6507 and 0.6475 on one machine
and the other way round on another, the keyword prompt listed them in another order, and the replay
missed. No rounding or tolerance removes this: any threshold has scores just beside it.

So a recording also keeps the *retrieval state* its decisions read. Every score array that an
order, a cut or a threshold of a method reads passes through :func:`pin`, every vector search's
result through :func:`pin_search`, and every wall-clock cut through :func:`pin_flag`. While a run is
recorded, a :class:`StateTape` in ``record`` mode keeps what each pin saw; while that same run is
replayed (same workspace, method, question, settings and models: :meth:`core.backends.llm_recorded.
RecordedLLM.tape_for`), a tape in ``replay`` mode hands each pin the recorded array instead of the
one computed now. The prompts, the ranked passages and the answer are then the recorded ones on any
hardware, and a live run is untouched: with no tape, every pin returns its input as it is.

A pin whose state is not on the tape (the run took another path, or the workspace holds other items)
keeps the value computed now and is listed in :attr:`StateTape.misses`; the run is then a partial
replay and says so (:func:`replay_status`). With ``strict`` (the tests, ``make check-recordings``) the
first miss raises :class:`ReplayMissError` instead.

Entries are keyed by the pin's site, the caller's key (e.g. the text searched for), a digest of the
item ids the scores are for, and the number of times that same key was pinned before in the run, so
a replay finds each array by what it is about, and the ids a score belongs to are checked.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from core.errors import EgxError

TapeMode = Literal["record", "replay"]


class ReplayMissError(EgxError, RuntimeError):
    """A strict replay met a request or a retrieval state that the recording does not hold.

    Not an :class:`~core.errors.LLMError`: a stage's fallback does not catch it, so a strict replay
    stops at the first miss and names it."""


@dataclass
class StateTape:
    """The retrieval state of one run: recorded while it runs live, handed back while it is replayed.

    Parameters
    ----------
    mode
        ``"record"`` keeps what every pin sees; ``"replay"`` hands back what was kept.
    entries
        Key -> encoded array (:func:`encode_array`); a replay tape's are the recording's.
    strict
        Replay only: raise :class:`ReplayMissError` at the first pin that is not on the tape.
    """

    mode: TapeMode
    entries: dict[str, str] = field(default_factory=dict)
    strict: bool = False
    misses: list[str] = field(default_factory=list)  #: sites pinned in replay whose state was not on the tape
    hits: int = 0
    _seen: dict[str, int] = field(default_factory=dict, repr=False)

    def _key(self, site: str, key: str, ids: Any) -> str:
        base = f"{site}|{key}|{_digest(ids)}"
        n = self._seen.get(base, 0)
        self._seen[base] = n + 1
        return f"{base}#{n}"

    def take(self, site: str, key: str, ids: Any, values: tuple[np.ndarray, ...], *,
             same_shape: bool = True) -> tuple[np.ndarray, ...]:
        """Record ``values`` (record mode) or return the recorded ones when they fit (replay mode).

        ``same_shape``: the recorded arrays must have the shapes of ``values`` (scores of given items);
        False for a result whose size is itself the recorded decision (a search's hits)."""
        k = self._key(site, key, ids)
        if self.mode == "record":
            self.entries[k] = " ".join(encode_array(v) for v in values)
            return values
        raw = self.entries.get(k)
        got = _decode_all(raw) if raw is not None else None
        if got is None or len(got) != len(values) or any(g.ndim != v.ndim or (same_shape and g.shape != v.shape)
                                                         for g, v in zip(got, values)):
            why = "not on the tape" if raw is None else "recorded for other items"
            self.misses.append(f"{site} ({why})")
            if self.strict:
                raise ReplayMissError(f"Strict replay: the retrieval state at {site!r} ({key or 'the question'}) "
                                      f"is {why}; the run took another path than the recording. Re-record it "
                                      "(RECORD_ARGS=--redo scripts/record_llm.sh WORKSPACE local METHOD ID).")
            return values
        self.hits += 1
        return tuple(g.astype(v.dtype, copy=False) for g, v in zip(got, values))


_TAPE: ContextVar[StateTape | None] = ContextVar("egx_state_tape", default=None)


def current_tape() -> StateTape | None:
    """The tape of the run in progress in this thread / context, or None (a live, unrecorded run)."""
    return _TAPE.get()


@contextmanager
def tape_scope(tape: StateTape | None) -> Iterator[StateTape | None]:
    """Make ``tape`` the current one for the duration of the block (None: no tape)."""
    token = _TAPE.set(tape)
    try:
        yield tape
    finally:
        _TAPE.reset(token)


# ------------------------------------------------------------------------------------------- pins
def pin(site: str, values: Any, *, ids: Any = None, key: str = "") -> Any:
    """``values`` as this run's decisions must read them: recorded (while recording), the recorded
    array (while replaying the recorded run), or ``values`` itself (a live run).

    Parameters
    ----------
    site : str
        Where the scores are computed, e.g. ``"bubblerag.localize.cosine"``.
    values : array_like
        The scores (any shape and numeric dtype) an order, cut or threshold will read.
    ids : array_like or None
        The items the scores are for (checked on replay by their digest).
    key : str
        What else tells two calls of the site apart, e.g. the term a search embedded.

    Returns
    -------
    ndarray (or ``values`` unchanged when no tape is active)
    """
    tape = _TAPE.get()
    if tape is None:
        return values
    arr = np.asarray(values)
    return tape.take(site, key, ids, (arr,))[0]


def pin_search(site: str, scores: np.ndarray, ids: np.ndarray, *, key: str = "") -> tuple[np.ndarray, np.ndarray]:
    """A search's ``(scores, ids)``, pinned like :func:`pin`: which items it found, and how many, are the
    recorded decision (a replay may hand back another number of hits than computed now)."""
    tape = _TAPE.get()
    if tape is None:
        return scores, ids
    s, i = tape.take(site, key, None, (np.asarray(scores), np.asarray(ids)), same_shape=False)
    return s, i


def pin_ids(site: str, ids: np.ndarray, *, key: str = "") -> np.ndarray:
    """The items a machine-dependent test let through (e.g. the paths whose learned embeddings pass a
    dominance test), pinned like :func:`pin_search`."""
    tape = _TAPE.get()
    if tape is None:
        return ids
    return tape.take(site, key, None, (np.asarray(ids),), same_shape=False)[0]


def pin_flag(site: str, value: bool, *, key: str = "") -> bool:
    """A wall-clock (or other machine-dependent) yes/no, pinned like :func:`pin`: e.g. "the anytime
    budget ran out before this hop", which depends on the machine's speed."""
    tape = _TAPE.get()
    if tape is None:
        return value
    return bool(tape.take(site, key, None, (np.asarray([value], dtype=np.bool_),))[0][0])


# ------------------------------------------------------------------------------------------ codec
def _digest(ids: Any) -> str:
    if ids is None:
        return "-"
    arr = np.ascontiguousarray(np.asarray(ids, dtype=np.int64).reshape(-1))
    return hashlib.sha1(arr.tobytes()).hexdigest()[:12] + f":{arr.size}"


_DTYPES = {"f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "b1"}


def encode_array(a: np.ndarray) -> str:
    """``dtype:shape:base64`` of the array's little-endian bytes: exact, so a replay reads back the
    very bits the recording computed (JSON floats would round float32 scores)."""
    arr = np.asarray(a, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    code = arr.dtype.newbyteorder("<").str[1:] if arr.dtype != np.bool_ else "b1"
    if code not in _DTYPES:
        arr = arr.astype(np.float64)
        code = "f8"
    data = arr.astype(np.dtype(code).newbyteorder("<"), copy=False).tobytes()
    return f"{code}:{'x'.join(str(n) for n in arr.shape)}:{base64.b64encode(data).decode('ascii')}"


def decode_array(s: str) -> np.ndarray:
    """The array :func:`encode_array` wrote.

    Raises
    ------
    ValueError
        If ``s`` is not one (a damaged or edited recording).
    """
    code, shape_s, data = s.split(":", 2)
    if code not in _DTYPES:
        raise ValueError(f"unknown array type {code!r}")
    shape = tuple(int(n) for n in shape_s.split("x")) if shape_s else ()
    arr = np.frombuffer(base64.b64decode(data, validate=True), dtype=np.dtype(code).newbyteorder("<"))
    if arr.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"{arr.size} values for shape {shape}")
    return arr.reshape(shape).astype(np.dtype(code), copy=False)


def _decode_all(raw: str) -> tuple[np.ndarray, ...] | None:
    try:
        return tuple(decode_array(p) for p in raw.split(" "))
    except (ValueError, TypeError):
        return None  # a damaged entry is a miss, never a crash


# ------------------------------------------------------------------------------------ replay status
NOT_RECORDED = "was not recorded"  #: in every fallback that a missing recorded LLM reply caused


@dataclass(frozen=True)
class ReplayStatus:
    """How completely a run with the ``recorded`` LLM replayed its recording (``trace.replay``)."""

    recording: str  #: which recording answered ("" when no recorded run matched)
    matched: bool  #: a recorded run of this workspace, method, question and settings was found
    missed_stages: tuple[str, ...] = ()  #: stages whose LLM request was not recorded (they ran without the LLM)
    missed_state: tuple[str, ...] = ()  #: pins whose retrieval state was not on the tape
    pinned: int = 0  #: retrieval states read back from the recording

    @property
    def complete(self) -> bool:
        return self.matched and not self.missed_stages and not self.missed_state

    def to_dict(self) -> dict[str, Any]:
        return {"recording": self.recording, "matched": self.matched, "complete": self.complete,
                "missed_stages": list(self.missed_stages), "missed_state": list(self.missed_state),
                "pinned": self.pinned}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReplayStatus:
        return cls(str(d.get("recording", "")), bool(d.get("matched")), tuple(d.get("missed_stages", ())),
                   tuple(d.get("missed_state", ())), int(d.get("pinned", 0)))


def replay_status(trace: Any, tape: StateTape | None, recording: str) -> ReplayStatus:
    """The status of a run replayed with the ``recorded`` LLM, from its trace (the stages whose
    fallback says a request :data:`NOT_RECORDED`) and its tape (None: no recorded run matched)."""
    missed = tuple(dict.fromkeys(s.title or s.stage for s in trace.steps if NOT_RECORDED in (s.fallback or "")))
    return ReplayStatus(recording if tape is not None else "", tape is not None, missed,
                        tuple(dict.fromkeys(tape.misses)) if tape is not None else (),
                        tape.hits if tape is not None else 0)


def replay_notice(replay: dict[str, Any] | None, replayed: int | None = None) -> str:
    """What the answer area says first about a run with the ``recorded`` LLM ("" when it is not one, or
    when it replayed its recording in full): never is a partial replay shown as the recorded run.

    ``replayed``: how many LLM replies the run read back (its trace's cache hits; None: not known). A run no
    recording matches may still replay a reply whose exact prompt another recorded run holds: the notice then
    counts them, so one statement covers both (a second line "Recorded LLM run, in part" read as a contradiction).
    """
    if not replay:
        return ""
    st = ReplayStatus.from_dict(replay)
    if st.complete:
        return ""
    if not st.matched:
        head = "Not a recorded run: no recording holds this question with these settings and models"
        tail = " Pick a recorded sample question at the default settings, or a live LLM."
        if replayed is None:
            return (head + ", so each LLM stage whose exact prompt was not recorded ran without the LLM (its "
                    "fallback)." + tail)
        if not replayed:
            return head + ", so every LLM stage ran without the LLM (its fallback)." + tail
        n = f"{replayed} LLM {'reply' if replayed == 1 else 'replies'}"
        return (f"{head}. {n} whose exact prompt another recorded run holds {'was' if replayed == 1 else 'were'} "
                "replayed from it (not generated now); every other LLM stage ran without the LLM (its fallback)."
                + tail)
    parts = []
    if st.missed_stages:
        parts.append(f"stages {', '.join(st.missed_stages)} ran without the LLM because their prompts were not "
                     "recorded")
    if st.missed_state:
        parts.append(f"the retrieval state at {', '.join(st.missed_state[:4])}"
                     f"{' …' if len(st.missed_state) > 4 else ''} was not on the recording and was computed now")
    return ("Partly replayed: " + "; ".join(parts) + ". This is not the recorded run; re-record it "
            "(`make record-llm`) or use a live LLM.")
