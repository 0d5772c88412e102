"""What a set of runs teaches about one question: where the gold evidence is, why an answer went wrong, and
what the extractive (``none``-mode) answer says beside it — the guided demo's lessons, computed from the runs
it shows, never written by hand.

For each run (:class:`ShownRun`: a method's answer and its ranked passages):

* **where the evidence is** — the rank of each gold passage in the method's ranking (1-based; absent when
  the method did not retrieve it): the failure diagnosis' first question (BubbleRAG §4, "retrieved, answer
  wrong" against the retrieval losses); and whether it was among the passages the answer was read from (the
  run's answer context, :class:`core.methods.answering.AnswerContext`): a gold passage at rank 7 is in the
  ranking, but not in the top 5 the model read;
* **why a wrong answer is wrong** — the passage of the ranking that holds the wrong answer, as whole words
  on SQuAD-normalised text (:func:`core.text.normalize_answer`): a passage that is not gold (the villain of
  another film, the death date of another mother) means the model read the wrong passage; a gold passage
  means it read the right passage and picked the wrong name in it; none means the answer is not in what it
  retrieved (a refusal, or a name from the model's own memory);
* **the extractive answer** — the ``none``-mode run's sentence (:mod:`core.methods.extractive`), judged
  against the gold answer the same way (:func:`core.eval.verdicts.match_answer`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.errors import ConfigError
from core.eval.verdicts import AnswerMatch, match_answer
from core.text import normalize_answer

#: Match kinds that count as answering the question (SQuAD EM, an alias; the lessons say "right").
RIGHT = ("exact", "alias")


@dataclass(frozen=True)
class ShownRun:
    """One run the lesson reads: a method's answer and its ranked passages, best first."""

    method: str
    answer: str
    passages: tuple[tuple[str, str, str], ...]  #: (chunk id, title, text), best first
    #: the chunk ids the answer was read from (its context); None when the run recorded none
    context: tuple[str, ...] | None = None


@dataclass(frozen=True)
class RunLesson:
    """What one run shows.

    Attributes
    ----------
    method, answer
        The run's.
    match
        The answer against the gold answers.
    gold_ranks
        ``(title, rank)`` per gold passage, in the gold order; ``rank`` is 1-based, None when not retrieved.
    source
        ``(title, rank, gold)`` of the best-ranked passage whose text holds the answer (None: no passage
        does, or the answer is right).
    gold_read
        Per gold passage (the order of ``gold_ranks``), whether it was in the context the answer was read from;
        None when the run recorded no context.
    context_size
        How many passages that context held (0 when none was recorded).
    """

    method: str
    answer: str
    match: AnswerMatch
    gold_ranks: tuple[tuple[str, int | None], ...]
    source: tuple[str, int, bool] | None
    gold_read: tuple[bool, ...] | None = None
    context_size: int = 0

    @property
    def right(self) -> bool:
        return self.match.kind in RIGHT

    @property
    def all_gold_retrieved(self) -> bool:
        return bool(self.gold_ranks) and all(r is not None for _, r in self.gold_ranks)

    @property
    def all_gold_read(self) -> bool:
        """Every gold passage was in the context the answer was read from (without a recorded context: in the
        ranking)."""
        if self.gold_read is None:
            return self.all_gold_retrieved
        return bool(self.gold_read) and all(self.gold_read)

    def unread(self) -> str:
        """The gold passages the answer was not read from and where they ranked, e.g. "“Agent Smith” (rank 7) was
        outside the 5 passages its answer was read from" ("" when there is none)."""
        read = self.gold_read if self.gold_read is not None else tuple(k is not None for _, k in self.gold_ranks)
        unread = [(t, k) for (t, k), was in zip(self.gold_ranks, read, strict=True) if not was]
        outside = [f"“{t}” (rank {k})" for t, k in unread if k is not None]
        lost = [f"“{t}”" for t, k in unread if k is None]
        parts = []
        if outside:
            parts.append(f"{_and(outside)} {'was' if len(outside) == 1 else 'were'} outside the "
                         f"{_passages(self.context_size)} its answer was read from")
        if lost:
            parts.append(f"{_and(lost)} {'was' if len(lost) == 1 else 'were'} not retrieved")
        return "; ".join(parts)

    def reading(self) -> str:
        """Where the gold passages were for this run's answer: in the context it was read from (with their ranks),
        or which were not and where they ranked."""
        if not self.gold_ranks:
            return "the question names no gold passage"
        if not self.all_gold_read:
            return self.unread()
        n = len(self.gold_ranks)
        ranks = (f"rank {self.gold_ranks[0][1]}" if n == 1 else
                 "ranks " + ", ".join(str(k) for _, k in self.gold_ranks)
                 if all(k is not None for _, k in self.gold_ranks) else
                 ", ".join(f"“{t}” " + (f"rank {k}" if k is not None else "not in its ranking")
                           for t, k in self.gold_ranks))
        if self.gold_read is None:
            return f"every gold passage was in its ranking ({ranks}; the context it read was not recorded)"
        which = "the gold passage" if n == 1 else "both gold passages" if n == 2 else f"all {n} gold passages"
        return (f"{which} ({ranks}) {'was' if n == 1 else 'were'} among the {_passages(self.context_size)} its "
                "answer was read from")


def run_lesson(run: ShownRun, gold_chunks: Sequence[str], gold_answers: Sequence[str],
               titles: Mapping[str, str] | None = None) -> RunLesson:
    """Read one run against the question's gold passages and answers (see the module docstring).

    Parameters
    ----------
    run
        The method's answer and ranking.
    gold_chunks
        The gold passages' chunk ids.
    gold_answers
        The gold answer first, then its aliases.
    titles
        Chunk id → title for gold passages the run did not retrieve (else their id is shown).

    Returns
    -------
    RunLesson

    Raises
    ------
    ConfigError
        Without a gold answer: a lesson on why an answer is wrong needs one.
    """
    if not [g for g in gold_answers if normalize_answer(str(g))]:
        raise ConfigError(f"the lesson on {run.method}'s answer needs a gold answer, got {list(gold_answers)!r}: "
                          "pass the question's gold answer (and its aliases)")
    rank = {cid: i + 1 for i, (cid, _t, _x) in reversed(list(enumerate(run.passages)))}
    title_of = {**(titles or {}), **{cid: t for cid, t, _x in run.passages}}
    gold_ranks = tuple((title_of.get(c) or c, rank.get(c)) for c in gold_chunks)
    m = match_answer(run.answer, gold_answers)
    source = None
    a = normalize_answer(run.answer or "")
    if a and m.kind not in RIGHT:
        gold = set(gold_chunks)
        for i, (cid, title, text) in enumerate(run.passages):
            if f" {a} " in f" {normalize_answer(f'{title}. {text}')} ":
                source = (title or cid, i + 1, cid in gold)
                break
    read = None if run.context is None else tuple(c in set(run.context) for c in gold_chunks)
    return RunLesson(run.method, run.answer, m, gold_ranks, source, read, len(run.context or ()))


@dataclass(frozen=True)
class Lesson:
    """The runs of one question, read together: the lines the guided demo shows (:meth:`lines`)."""

    question: str
    gold_answer: str
    runs: tuple[RunLesson, ...]
    extractive: RunLesson | None = None  #: the ``none``-mode run of the method the step shows

    def evidence_line(self) -> str:
        """Where the gold passages are in the rankings, e.g. "Where the evidence is: “Agent Smith” at rank 2 of
        bubblerag's ranking" (one run) or "… at ranks 2–9 in 7 of 8 methods' rankings (not retrieved by sgrag)"."""
        if not self.runs or not self.runs[0].gold_ranks:
            return "Where the evidence is: this question names no gold passage, so no rank can be shown."
        parts = []
        for j, (title, _r) in enumerate(self.runs[0].gold_ranks):
            ranks = [(r.method, r.gold_ranks[j][1]) for r in self.runs]
            found = [(m, k) for m, k in ranks if k is not None]
            missed = [m for m, k in ranks if k is None]
            if len(self.runs) == 1:
                k = ranks[0][1]
                parts.append(f"“{title}” at rank {k} of {self.runs[0].method}'s ranking" if k is not None else
                             f"“{title}” not retrieved by {self.runs[0].method}")
                continue
            if not found:
                parts.append(f"“{title}” retrieved by none of the {len(ranks)} methods")
                continue
            lo, hi = min(k for _, k in found), max(k for _, k in found)
            span = f"rank {lo}" if lo == hi else f"ranks {lo}–{hi}"
            parts.append(f"“{title}” at {span} in {len(found)} of {len(ranks)} methods' rankings"
                         + (f" (not retrieved by {', '.join(missed)})" if missed else ""))
        return "Where the evidence is: " + "; ".join(parts) + "."

    def answer_line(self) -> str:
        """How many runs answered right (naming them when only some did), and each distinct answer with its
        count."""
        n = len(self.runs)
        right = sum(r.right for r in self.runs)
        counts = Counter(r.answer.strip() or "(no answer)" for r in self.runs)
        said = ", ".join(f"“{a}”" + (f" ×{c}" if c > 1 else "") for a, c in counts.most_common())
        if n == 1:
            r = self.runs[0]
            return (f"The recorded 1.5B model answered “{r.answer.strip() or '(no answer)'}”: "
                    f"{'right' if r.right else 'wrong'} (gold: “{self.gold_answer}”, {r.match.label}).")
        named = f" — {', '.join(r.method for r in self.runs if r.right)}" if 0 < right < n else ""
        return (f"The recorded 1.5B model answered {said}: {right} of {n} right{named} "
                f"(gold: “{self.gold_answer}”).")

    def why_lines(self) -> list[str]:
        """Why each distinct wrong answer is wrong, from the passage that holds it (one line per answer)."""
        out: list[str] = []
        seen: set[str] = set()
        for r in self.runs:
            key = normalize_answer(r.answer or "")
            if r.right or key in seen:
                continue
            seen.add(key)
            group = [x for x in self.runs if normalize_answer(x.answer or "") == key]
            by = group[0].method if len(group) == 1 else f"{len(group)} methods: {', '.join(x.method for x in group)}"
            held = _held(group)
            if r.match.partly_right:
                out.append(f"“{r.answer.strip()}” ({by}) is part of the gold answer “{r.match.gold}”: partly right, "
                           f"not an exact match; {held}.")
                continue
            if not key:
                out.append(f"No answer ({by}): {held}.")
            elif r.source is None:
                out.append(f"“{r.answer.strip()}” ({by}) is in none of the passages retrieved: the model did not "
                           f"answer from its evidence; {held}.")
            elif r.source[2]:
                out.append(f"“{r.answer.strip()}” ({by}) is in the gold passage “{r.source[0]}” "
                           f"({_ranks(group, r.source[0])}): the right passage, the wrong name in it; {held}.")
            else:
                out.append(f"“{r.answer.strip()}” ({by}) comes from “{r.source[0]}” ({_ranks(group, r.source[0])}), "
                           f"a passage that is not gold: the model answered from the wrong passage; {held}.")
        return out

    def extractive_line(self) -> str:
        """The ``none``-mode answer beside the model's ("" without one)."""
        e = self.extractive
        if e is None:
            return ""
        verdict = ("right" if e.right else "it holds the gold answer" if e.match.kind == "contains" else
                   f"{e.match.label}")
        return f"Without an LLM (none mode) {e.method} quotes: “{e.answer.strip()}” — {verdict}."

    def lines(self) -> list[str]:
        """Every line of the lesson, in reading order."""
        out = [self.evidence_line(), self.answer_line(), *self.why_lines()]
        if self.extractive is not None:
            out.append(self.extractive_line())
        return out


def _passages(n: int) -> str:
    return "one passage" if n == 1 else f"{n} passages"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _held(group: Sequence[RunLesson]) -> str:
    """Where the gold passages were for the runs of one wrong answer: one run's own reading; for several, how
    many read every gold passage, and for each of the others which gold passage it did not read and why."""
    if len(group) == 1:
        return group[0].reading()
    full = [x for x in group if x.all_gold_read]
    rest = [x for x in group if not x.all_gold_read]
    where = ("in the context their answer was read from" if all(x.gold_read is not None for x in group) else
             "in the passages their answer was read from (or, where that was not recorded, in their ranking)")
    head = (f"{'both' if len(group) == 2 else f'all {len(group)}'} had every gold passage {where}" if not rest else
            f"{len(full)} of {len(group)} had every gold passage {where}")
    return head + "".join(f"; {x.method}: {x.unread()}" for x in rest)


def _ranks(group: Sequence[RunLesson], title: str) -> str:
    """The rank ``title`` held as the source of the same answer in each run of ``group``: "rank 2", "ranks 2–5"."""
    ks = [x.source[1] for x in group if x.source is not None and x.source[0] == title]
    lo, hi = min(ks), max(ks)
    return f"rank {lo}" if lo == hi else f"ranks {lo}–{hi}"


def lesson(question: str, runs: Sequence[ShownRun], gold_chunks: Sequence[str], gold_answers: Sequence[str], *,
           extractive: ShownRun | None = None, titles: Mapping[str, str] | None = None) -> Lesson:
    """Read ``runs`` of ``question`` together (see the module docstring).

    Parameters
    ----------
    question
        The question the runs answered.
    runs
        The runs shown (one per method), in the order to report them.
    gold_chunks, gold_answers
        The question's gold passages and its gold answer (then aliases).
    extractive
        The ``none``-mode run to show beside them.
    titles
        Chunk id → title, for gold passages no run retrieved.

    Returns
    -------
    Lesson

    Raises
    ------
    ConfigError
        Without runs, or without a gold answer.

    Examples
    --------
    >>> r = ShownRun("dense", "Howard Payne", (("s", "Speed", "Dennis Hopper as Howard Payne."),
    ...                                         ("m", "The Matrix", "Hugo Weaving as Agent Smith.")))
    >>> lesson("Who?", [r], ["m"], ["Hugo Weaving"]).why_lines()[0][:42]
    '“Howard Payne” (dense) comes from “Speed” '
    """
    if not runs:
        raise ConfigError(f"a lesson on “{question}” needs at least one run, got none: run a method on it first")
    read = tuple(run_lesson(r, gold_chunks, gold_answers, titles) for r in runs)
    ext = run_lesson(extractive, gold_chunks, gold_answers, titles) if extractive is not None else None
    return Lesson(question, str(gold_answers[0]), read, ext)
