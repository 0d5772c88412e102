"""Which questions a benchmark runs: those with gold evidence in the workspace and none that a benchmarked
method's trained model was trained or validated on (:func:`left_out`, unless kept on request), in file order or
shuffled with a seed, cut to a limit, with every question left out reported; and how well a questions file's gold
passages match the workspace (:func:`gold_coverage`), said wherever a questions file is read for a workspace.
:func:`choose_questions` decides all of it for one run, in one call (:class:`Selection`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.errors import ConfigError

if TYPE_CHECKING:
    from core.index.questions import Question


def select_questions(questions: Sequence[Question], *, limit: int | None = None, seed: int | None = None,
                     only_gold: bool = True, exclude: Collection[str] = ()) -> list[Question]:
    """Questions to run: those with gold passages in this workspace (``only_gold``) and not in ``exclude``
    (ids: e.g. the questions a benchmarked method's model was trained on), in file order or shuffled with
    ``seed``, cut to ``limit``.

    Raises
    ------
    ConfigError
        When ``limit`` is below 1 (``--limit -1`` would silently drop the last question).
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ConfigError(f"limit = {limit!r} is out of range; use a positive number of questions "
                          "(or no limit for all of them).")
    qs = [q for q in questions if (q.gold_chunks or not only_gold) and q.id not in exclude]
    if seed is not None:
        random.Random(seed).shuffle(qs)
    return qs[:limit] if limit is not None else qs


def check_questions(questions: Sequence[Question], workspace_name: str = "") -> list[str]:
    """Warnings for the questions a benchmark cannot run (every one is either run or reported).

    Raises
    ------
    ConfigError
        When two questions share an id (results are keyed by id: one would silently replace the
        other), or when none has gold evidence in this workspace.
    """
    seen: dict[str, int] = {}
    for i, q in enumerate(questions, start=1):
        if q.id in seen:
            raise ConfigError(f"Question id {q.id!r} is used twice (questions {seen[q.id]} and {i}); results are "
                              "kept per question id, so one would silently replace the other. Give every question "
                              "a unique id.")
        seen[q.id] = i
    no_gold = [q for q in questions if not q.gold_chunks]
    if questions and len(no_gold) == len(questions):
        eg = next((u for q in no_gold for u in q.unmatched), "")
        where = f" {workspace_name!r}" if workspace_name else ""
        raise ConfigError(f"None of the {len(questions)} questions has gold evidence in workspace{where}: their gold "
                          "passages match no chunk" + (f" (e.g. {eg!r})" if eg else "") + ". Check that the "
                          "questions belong to this workspace's corpus.")
    out = []
    if no_gold:
        ids = ", ".join(repr(q.id) for q in no_gold[:5]) + (" ..." if len(no_gold) > 5 else "")
        out.append(f"{len(no_gold)} of {len(questions)} questions are left out: their gold passages match no chunk "
                   f"of this workspace ({ids}).")
    return out


@dataclass(frozen=True)
class GoldCoverage:
    """How a questions file's gold passages match a workspace: the questions naming a gold passage the
    workspace lacks (``partial``: some matched; ``none``: nothing matched) among ``questions``."""

    questions: int
    partial: tuple[Question, ...]
    none: tuple[Question, ...]

    @property
    def unmatched_passages(self) -> int:
        """Gold passages of the ``partial`` questions that match no passage."""
        return sum(len(q.unmatched) for q in self.partial)

    def note(self, *, left_out: bool = False) -> str:
        """One sentence on the ``partial`` questions ("" when there are none): they stay in, and each missing
        passage counts as gold never retrieved. With ``left_out``, one more on the ``none`` questions, which a
        benchmark leaves out (:func:`check_questions` warns about those itself)."""
        out = []
        if self.partial:
            n, k = len(self.partial), self.unmatched_passages
            eg = ", ".join(f"'{t}'" for t in list(dict.fromkeys(t for q in self.partial for t in q.unmatched))[:3])
            out.append(f"{n} of {self.questions} question{'s' if self.questions != 1 else ''} "
                       f"name{'s' if n == 1 else ''} gold passages this workspace lacks ({k} passage{'s' if k != 1 else ''}"
                       f", e.g. {eg}): each counts as a gold passage never retrieved, so such a question scores R@k "
                       "below 100 and is never “ok”.")
        if left_out and self.none:
            n = len(self.none)
            out.append(f"{n} of {self.questions} question{'s' if self.questions != 1 else ''} match{'es' if n == 1 else ''}"
                       " no passage of this workspace at all and will be left out of a benchmark.")
        return " ".join(out)


def gold_coverage(questions: Sequence[Question]) -> GoldCoverage:
    """Which ``questions`` name gold passages the workspace lacks (their titles are ``Question.unmatched``)."""
    return GoldCoverage(len(questions), tuple(q for q in questions if q.unmatched and q.gold_chunks),
                        tuple(q for q in questions if not q.gold_chunks))


@dataclass(frozen=True)
class LeftOut:
    """The questions a benchmark leaves out of ``of`` and why: ``no_gold`` (none of their gold passages is in the
    workspace) and ``trained_on`` (question id → the methods whose trained model was trained or validated on it;
    left out unless ``keep_trained``, then kept and their rows flagged)."""

    of: int
    no_gold: tuple[str, ...] = ()
    trained_on: dict[str, tuple[str, ...]] = field(default_factory=dict)
    keep_trained: bool = False

    @property
    def excluded(self) -> frozenset[str]:
        """The question ids left out for a trained model (none when they are kept)."""
        return frozenset() if self.keep_trained else frozenset(self.trained_on)

    def note(self) -> str:
        """Why questions a model trained on are left out ("" when none are, or they are kept): the CLI and the
        page each add how to keep them. (The ``no_gold`` ones have :func:`check_questions`' own warning.)"""
        from core.eval.run_notes import left_out_note

        return left_out_note(0, {} if self.keep_trained else self.trained_on, self.of)

    def to_json(self) -> dict[str, object]:
        """What ``run.json`` keeps (``left_out``; read back into a summary by :mod:`core.eval.run_notes`)."""
        return {"of": self.of, "no_gold": list(self.no_gold), "trained_on": {q: list(m) for q, m in self.trained_on.items()},
                "keep_trained": self.keep_trained}


def left_out(questions: Sequence[Question], trained: Mapping[str, Collection[str]], *,
             keep_trained: bool = False) -> LeftOut:
    """What a benchmark of ``questions`` leaves out, given ``trained`` (method → the question ids its trained model
    was trained or validated on, :func:`core.eval.identity.trained_questions`)."""
    by_q: dict[str, tuple[str, ...]] = {}
    for q in questions:
        ms = tuple(m for m, ids in trained.items() if q.id in ids)
        if ms and q.gold_chunks:
            by_q[q.id] = ms
    return LeftOut(len(questions), tuple(q.id for q in questions if not q.gold_chunks), by_q, keep_trained)


@dataclass(frozen=True)
class Selection:
    """What a benchmark run runs of its questions, and what it says about the rest: ``questions`` (gold in the
    workspace, none left out, in order or shuffled, cut to the limit), ``left`` (:class:`LeftOut`), ``coverage``
    (:meth:`GoldCoverage.note`) and ``warnings`` (the coverage note, :func:`check_questions`' warnings and
    ``left``'s note, each once, in that order)."""

    questions: tuple[Question, ...]
    left: LeftOut
    coverage: str = ""
    warnings: tuple[str, ...] = ()


def choose_questions(questions: Sequence[Question], trained: Mapping[str, Collection[str]], *,
                     workspace_name: str = "", limit: int | None = None, seed: int | None = None,
                     keep_trained: bool = False, notes: Callable[[str, str], None] | None = None) -> Selection:
    """The :class:`Selection` of a run of ``questions``, given ``trained`` (method → the question ids its trained
    model learned from, :func:`core.eval.identity.trained_questions`): ``notes(coverage, trained note)`` is told
    what is left out before the questions are checked (:func:`check_questions`, :func:`select_questions`' limit).

    Raises
    ------
    ConfigError
        As :func:`check_questions` and :func:`select_questions` do. (No question left at all is not refused here:
        the run says so once it has checked its folder.)"""
    coverage = gold_coverage(questions).note()
    left = left_out(questions, trained, keep_trained=keep_trained)
    if notes is not None:
        notes(coverage, left.note())
    warnings = [w for w in (coverage, *check_questions(questions, workspace_name), left.note()) if w]
    chosen = select_questions(questions, limit=limit, seed=seed, exclude=left.excluded)
    return Selection(tuple(chosen), left, coverage, tuple(warnings))
