"""What a set of runs teaches about one question: where the gold evidence is, why an answer went wrong, and
what the extractive (``none``-mode) answer says beside it — the guided demo's lessons, computed from the runs
it shows, never written by hand.

For each run (:class:`ShownRun`: a method's answer and its ranked passages):

* **where the evidence is** — the rank of each gold passage in the method's ranking (1-based; absent when
  the method did not retrieve it): the failure diagnosis' first question (BubbleRAG §4, "retrieved, answer
  wrong" against the retrieval losses);
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
    """

    method: str
    answer: str
    match: AnswerMatch
    gold_ranks: tuple[tuple[str, int | None], ...]
    source: tuple[str, int, bool] | None

    @property
    def right(self) -> bool:
        return self.match.kind in RIGHT

    @property
    def all_gold_retrieved(self) -> bool:
        return bool(self.gold_ranks) and all(r is not None for _, r in self.gold_ranks)


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
    return RunLesson(run.method, run.answer, m, gold_ranks, source)


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
        """How many runs answered right, and each distinct answer with its count."""
        n = len(self.runs)
        right = sum(r.right for r in self.runs)
        counts = Counter(r.answer.strip() or "(no answer)" for r in self.runs)
        said = ", ".join(f"“{a}”" + (f" ×{c}" if c > 1 else "") for a, c in counts.most_common())
        if n == 1:
            r = self.runs[0]
            return (f"The recorded 1.5B model answered “{r.answer.strip() or '(no answer)'}”: "
                    f"{'right' if r.right else 'wrong'} (gold: “{self.gold_answer}”, {r.match.label}).")
        return f"The recorded 1.5B model answered {said}: {right} of {n} right (gold: “{self.gold_answer}”)."

    def why_lines(self) -> list[str]:
        """Why each distinct wrong answer is wrong, from the passage that holds it (one line per answer)."""
        out: list[str] = []
        seen: set[str] = set()
        for r in self.runs:
            key = normalize_answer(r.answer or "")
            if r.right or key in seen:
                continue
            seen.add(key)
            who = [x.method for x in self.runs if normalize_answer(x.answer or "") == key]
            by = who[0] if len(who) == 1 else f"{len(who)} methods"
            had = sum(x.all_gold_retrieved for x in self.runs if normalize_answer(x.answer or "") == key)
            one = len(who) == 1
            held = (("it had every gold passage in its ranking" if one else
                     f"{had} of them had every gold passage in their ranking") if had else
                    "it did not have every gold passage in its ranking" if one else
                    "none of them had every gold passage in its ranking")
            group = [x for x in self.runs if normalize_answer(x.answer or "") == key]
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
