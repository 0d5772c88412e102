"""What a set of runs teaches about one question: where the gold evidence is, why an answer went wrong, and
what the extractive (``none``-mode) answer says beside it — the guided demo's lessons, computed from the runs
it shows, never written by hand.

For each run (:class:`ShownRun`: a method's answer and its ranked passages):

* **where the evidence is** — the rank of each gold passage in the method's ranking (1-based; absent when
  the method did not retrieve it): the failure diagnosis' first question (BubbleRAG §4, "retrieved, answer
  wrong" against the retrieval losses); and whether it was among the passages the answer was read from (the
  run's answer context, :class:`core.methods.answering.AnswerContext`): a gold passage at rank 7 is in the
  ranking, but not in the top 5 the model read;
* **why a wrong answer is wrong** — the passage that holds the wrong answer, as whole words on SQuAD-normalised
  text (:func:`core.text.normalize_answer`), looked for first in what the answer was read from (its context,
  which may hold passages the method did not rank: ReG reads its evidence chains' source passages): a passage
  that is not gold (the villain of another film, the death date of another mother) means the model read the
  wrong passage; a gold passage means it read the right passage and picked the wrong date, number or name in it
  (:func:`answer_kind`); none means the answer is not in what it retrieved or read (a refusal, or a name from
  the model's own memory);
* **the extractive answer** — the ``none``-mode run's sentence (:mod:`core.methods.extractive`), judged
  against the gold answer the same way (:func:`core.eval.verdicts.match_answer`); a sentence that does not hold
  it is shown with the words it shares with the gold answer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.errors import ConfigError
from core.eval.verdicts import AnswerMatch, match_answer
from core.text import normalize_answer

#: The evidence line's cut: which methods rank a gold passage in their top 5 (the Compare table's R@5).
TOP = 5
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
    #: (chunk id, title, text) of the context's passages that are not in ``passages``: a method may read passages
    #: it did not rank (ReG reads its evidence chains' source passages), and a wrong answer may come from one
    unranked: tuple[tuple[str, str, str], ...] = ()


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
        ``(title, rank, gold, read)`` of the passage whose text holds the answer (None: no passage does, or the
        answer is right): the best-ranked one the answer was read from, else a context passage outside the
        ranking (``rank`` None), else the best-ranked one it was not read from (``read`` False).
    gold_read
        Per gold passage (the order of ``gold_ranks``), whether it was in the context the answer was read from;
        None when the run recorded no context.
    context_size
        How many passages that context held (0 when none was recorded).
    ranked_size
        How many passages the run ranked.
    """

    method: str
    answer: str
    match: AnswerMatch
    gold_ranks: tuple[tuple[str, int | None], ...]
    source: tuple[str, int | None, bool, bool] | None
    gold_read: tuple[bool, ...] | None = None
    context_size: int = 0
    ranked_size: int = 0

    @property
    def passages_seen(self) -> bool:
        """Whether the run ranked or read any passage at all."""
        return bool(self.ranked_size or self.context_size)

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
            parts.append(f"{and_list(outside)} {'was' if len(outside) == 1 else 'were'} outside the "
                         f"{_passages(self.context_size)} its answer was read from")
        if lost:
            parts.append(f"{and_list(lost)} {'was' if len(lost) == 1 else 'were'} not retrieved"
                         + (" (neither ranked nor read)" if self.gold_read is not None else ""))
        return "; ".join(parts)

    def reading(self) -> str:
        """Where the gold passages were for this run's answer: in the context it was read from (with their ranks),
        or which were not and where they ranked."""
        if not self.gold_ranks:
            return "the question names no gold passage"
        if not self.all_gold_read:
            return self.unread()
        n = len(self.gold_ranks)
        nums = sorted(k for _, k in self.gold_ranks if k is not None)  # "ranks 1, 3" (a tour step read "ranks 3, 1")
        if len(nums) == n:
            ranks = f"rank {nums[0]}" if n == 1 else "ranks " + ", ".join(map(str, nums))
        else:  # read from the context without being ranked (ReG's chains' source passages): say so by name
            ranks = ", ".join(f"“{t}” " + (f"rank {k}" if k is not None else "read though not in its ranking")
                              for t, k in self.gold_ranks)
        if self.gold_read is None:
            return f"every gold passage was in its ranking ({ranks}; the context it read was not recorded)"
        which = "the gold passage" if n == 1 else "both gold passages" if n == 2 else f"all {n} gold passages"
        among = f"{'was' if n == 1 else 'were'} among the {_passages(self.context_size)} its answer was read from"
        if len(nums) == n:
            return f"{which} ({ranks}) {among}"
        return f"{which} {among} ({ranks})"


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
    m = match_answer(run.answer, gold_answers)
    title_of.update({cid: t for cid, t, _x in run.unranked if cid not in title_of})
    gold_ranks = tuple((title_of.get(c) or c, rank.get(c)) for c in gold_chunks)
    source = None
    # an extract shows whom its "She" was read as ("She [Miriam Castellane] introduced …"): the passage holds it without
    a = normalize_answer(re.sub(r" \[[^\]]*\]", "", run.answer or ""))
    if a and m.kind not in RIGHT:
        gold = set(gold_chunks)
        ctx = None if run.context is None else set(run.context)
        ranked = [(cid, t, x, i + 1) for i, (cid, t, x) in enumerate(run.passages)]
        # what the answer was read from first (its ranked passages, then those it read unranked), then the rest
        order = (ranked if ctx is None else
                 [p for p in ranked if p[0] in ctx] + [(c, t, x, None) for c, t, x in run.unranked if c in ctx]
                 + [p for p in ranked if p[0] not in ctx])
        for cid, title, text, k in order:
            if f" {a} " in f" {normalize_answer(f'{title}. {text}')} ":
                source = (title or cid, k, cid in gold, ctx is None or cid in ctx)
                break
    read = None if run.context is None else tuple(c in set(run.context) for c in gold_chunks)
    return RunLesson(run.method, run.answer, m, gold_ranks, source, read, len(run.context or ()), len(run.passages))


@dataclass(frozen=True)
class Lesson:
    """The runs of one question, read together: the lines the guided demo shows (:meth:`lines`)."""

    question: str
    gold_answer: str
    runs: tuple[RunLesson, ...]
    extractive: RunLesson | None = None  #: the ``none``-mode run of the method the step shows
    model: str = "The recorded 1.5B model"  #: who wrote the answers, as the answer line names it

    @property
    def answerer(self) -> str:
        """Who answered, inside a sentence: "the model", or "the extractive step" for ``none``-mode runs."""
        return "the extractive step" if self.model.startswith("Without an LLM") else "the model"

    def top_methods(self, j: int) -> list[str]:
        """The methods whose ranking holds the ``j``-th gold passage within the top :data:`TOP` (the cut of the
        Compare table's R@5: a method with any gold passage there has R@5 above 0)."""
        return [r.method for r in self.runs if (k := r.gold_ranks[j][1]) is not None and k <= TOP]

    def evidence_line(self) -> str:
        """Where the gold passages are in the rankings, one sentence each, to be read aloud: "Where the evidence is:
        “Agent Smith” at rank 2 of bubblerag's ranking" (one run), or "5 of 8 methods rank “Judith of Bavaria” in
        their top 5 (rank 1): dense, …; ranked lower: ppr at 9; sgrag did not retrieve it." A method that did
        not rank a passage but read it (ReG: its chains' source passages) gets a short sentence of its own."""
        if not self.runs or not self.runs[0].gold_ranks:
            return "Where the evidence is: this question names no gold passage, so no rank can be shown."
        if len(self.runs) == 1:
            r = self.runs[0]
            parts = []
            for j, (title, k) in enumerate(r.gold_ranks):
                parts.append(f"“{title}” at rank {k} of {r.method}'s ranking" if k is not None else
                             f"“{title}” not in {r.method}'s ranking, but among the passages its answer was read from"
                             if r.gold_read and r.gold_read[j] else f"“{title}” not retrieved by {r.method}")
            return "Where the evidence is: " + "; ".join(parts) + "."
        n, sentences, read_aside, last = len(self.runs), [], [], [""]
        for j, (title, _r) in enumerate(self.runs[0].gold_ranks):
            ranks = [(r.method, r.gold_ranks[j][1]) for r in self.runs]
            top = [(m, k) for m, k in ranks if k is not None and k <= TOP]
            lower = [(m, k) for m, k in ranks if k is not None and k > TOP]
            # a method may read a passage it did not rank (ReG: its chains' source passages): "not retrieved" is
            # then false, and a sentence of its own says it was read
            read = [r.method for r in self.runs if r.gold_ranks[j][1] is None and r.gold_read and r.gold_read[j]]
            unranked = [m for m, k in ranks if k is None]
            missed = [m for m in unranked if m not in read]
            ks = [k for _, k in top]
            span = "" if not ks else f" (rank {ks[0]})" if min(ks) == max(ks) else f" (ranks {min(ks)}–{max(ks)})"
            if len(top) == n:
                head = f"{'Both' if n == 2 else f'All {n}'} methods rank “{title}” in their top {TOP}{span}"
            elif len(top) > 1 and [m for m, _ in top] == last:  # the list just read out: not again
                head = f"The same {len(top)} rank “{title}” in their top {TOP}{span}"
            elif top:
                head = (f"{len(top)} of {n} methods rank “{title}” in their top {TOP}{span}: "
                        + and_list([m for m, _ in top]))
            else:
                head = f"None of the {n} methods ranks “{title}” in its top {TOP}"
            tail = []
            if lower:
                tail.append("ranked lower: " + ", ".join(f"{m} at {k}" for m, k in lower))
            if unranked:
                tail.append(f"{and_list(unranked)} {'does' if len(unranked) == 1 else 'do'} not rank it" if read else
                            f"{and_list(missed)} did not retrieve it")
            sentences.append(head + "".join(f"; {t}" for t in tail) + ".")
            last = [m for m, _ in top]
            # "but its answer read it all the same" beside ReG's wrong "Gisela" read to an audit as "got it right"
            answers = {r.method: r for r in self.runs}
            read_aside += [f"{m} did not rank “{title}”, but its answer step was handed that passage all the same"
                           + ("." if answers[m].right else
                              f" (and answered “{answers[m].answer.strip() or '(no answer)'}”).") for m in read]
        return "Where the evidence is: " + " ".join(sentences + read_aside)

    def answer_line(self) -> str:
        """How many runs answered right (naming them when only some did), and each distinct answer with its
        count."""
        n = len(self.runs)
        right = sum(r.right for r in self.runs)
        counts = Counter(r.answer.strip() or "(no answer)" for r in self.runs)
        said = ", ".join(f"“{a}”" + (f" ×{c}" if c > 1 else "") for a, c in counts.most_common())
        if n == 1:
            r = self.runs[0]
            # a sentence holding the gold answer is no exact answer, but "wrong" beside "holds the gold answer" read
            # as a contradiction on the tour's SG-RAG step without an LLM
            verdict = "right" if r.right else "not exact, the gold answer inside a longer answer" if \
                r.match.kind == "contains" else "wrong"
            return (f"{self.model} answered “{r.answer.strip() or '(no answer)'}”: "
                    f"{verdict} (gold: “{self.gold_answer}”, {r.match.label}).")
        named = f" — {', '.join(r.method for r in self.runs if r.right)}" if 0 < right < n else ""
        # a sentence that holds the gold answer is no exact answer, but the Compare cards call it "ok … contains the
        # gold answer": an audit read "0 of 8 right" beside such a card
        holds = [r.method for r in self.runs if not r.right and r.match.kind == "contains"]
        held = (f"; {len(holds)} of {n} {'holds' if len(holds) == 1 else 'hold'} the gold answer inside a longer "
                f"answer — {', '.join(holds)}" if holds else "")
        # part of the gold answer ("851" for "20 March 851") is what the tables call "partly right": "0 of 8 right"
        # above four such rows read as a contradiction to an audit
        parts = Counter(r.answer.strip() for r in self.runs if not r.right and r.match.kind == "part")
        part = (f"; {sum(parts.values())} of {n} partly right — " + ", ".join(
            f"“{a}”" + (f" ×{c}" if c > 1 else "") for a, c in parts.most_common()) + " is part of it" if parts else "")
        exactly = "exactly right" if parts or holds else "right"
        return (f"{self.model} answered {said}: {right} of {n} {exactly}{named}{held}{part} "
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
                how = ("holds the gold answer “{}” in a longer answer: right in substance, not an exact match (EM 0)"
                       if r.match.kind == "contains" else "is part of the gold answer “{}”: partly right, not an exact match")
                out.append(f"“{r.answer.strip()}” ({by}) {how.format(r.match.gold)}; {held}.")
                continue
            if not key:
                out.append(f"No answer ({by}): {held}.")
            elif r.source is None and all(not x.passages_seen for x in group):
                out.append(f"“{r.answer.strip()}” ({by}): {'it' if len(group) == 1 else 'each'} retrieved no passage, "
                           f"so the answer rests on no evidence; {held}.")
            elif r.source is None:
                where = ("retrieved or read" if any(x.gold_read is not None for x in group) else "retrieved")
                out.append(f"“{r.answer.strip()}” ({by}) is in none of the passages {where}: {self.answerer} did "
                           f"not answer from its evidence; {held}.")
            elif not r.source[3]:
                out.append(f"“{r.answer.strip()}” ({by}) is in “{r.source[0]}” ({_ranks(group, r.source[0])}), a "
                           f"passage its answer was not read from: {self.answerer} did not answer from what it read; "
                           f"{held}.")
            elif r.source[2]:
                what = answer_kind(r.answer, self.gold_answer)
                out.append(f"“{r.answer.strip()}” ({by}) is in the gold passage “{r.source[0]}” "
                           f"({_ranks(group, r.source[0])}): the right passage, the wrong {what} in it; {held}.")
            else:
                out.append(f"“{r.answer.strip()}” ({by}) comes from “{r.source[0]}” ({_ranks(group, r.source[0])}), "
                           f"a passage that is not gold: {self.answerer} answered from the wrong passage; {held}.")
        return out

    def extractive_line(self) -> str:
        """The ``none``-mode answer beside the model's ("" without one)."""
        e = self.extractive
        if e is None:
            return ""
        if e.right or e.match.kind in ("contains", "part"):
            verdict = "right" if e.right else f"it holds the gold answer, “{self.gold_answer}”" if e.match.kind == "contains" else e.match.label
            return f"Without an LLM (none mode) {e.method} quotes: “{e.answer.strip()}” — {verdict}."
        # not the answer: say what it shares with the gold answer (a bare "some words shared" hid that it was
        # only "of") and why this sentence was the one quoted
        shared = sorted(set(normalize_answer(e.answer).split()) & set(normalize_answer(self.gold_answer).split()),
                        key=normalize_answer(self.gold_answer).split().index)
        words = ("no word with" if not shared else
                 f"only the word{'s' if len(shared) > 1 else ''} {and_list([f'“{w}”' for w in shared])} with")
        return (f"Without an LLM (none mode) {e.method} quotes: “{e.answer.strip()}” — not the answer: it shares "
                f"{words} the gold answer “{self.gold_answer}”. None mode quotes the retrieved sentence that best "
                "matches the question, whether or not it holds the answer.")

    def headline(self) -> str:
        """The lesson in one line a class reads first (an audit's lecturer asked for one): how many runs' answers read
        every gold passage (in their context; unrecorded, in their ranking — as :meth:`why_lines` and the verdicts'
        "retrieved" count it), how many answered right (without an LLM: held the gold answer), and which side went
        wrong ("" without gold passages)."""
        n = len(self.runs)
        if not n or not self.runs[0].gold_ranks:
            return ""
        read = [all(r.gold_read) if r.gold_read is not None else all(k is not None for _, k in r.gold_ranks)
                for r in self.runs]
        found, lost = sum(read), [r.method for r, ok in zip(self.runs, read) if not ok]
        extract = self.answerer == "the extractive step"
        right = sum(r.right or (extract and r.match.kind == "contains") for r in self.runs)
        said = "answers holding the gold answer" if extract else "right answers"
        part = sum(not r.right and r.match.kind == "part" for r in self.runs)  # "851" of "20 March 851"
        if n == 1:
            head = (f"Gold evidence read by the answer: {'yes' if found else 'no'} · "
                    f"{said.replace('answers', 'answer')}: {'yes' if right else 'partly' if part else 'no'}")
        else:
            head = (f"Gold evidence read by the answer: {found} of {n} methods · {said}: {right} of {n}"
                    + (f" ({part} partly)" if part else ""))
        if right == 0 and found and lost:
            # the others lost it in retrieval: audit 42 read "the answer step went wrong, not retrieval" above "SG-RAG
            # did not retrieve it"
            who = and_list(lost) if len(lost) <= 3 else f"{len(lost)} methods"
            return head + (f" — the answer step went wrong where the evidence was read; {who} lost it in retrieval.")
        if right == 0 and found:
            return head + " — the answer step went wrong, not retrieval."
        if right == 0:
            return head + " — retrieval lost the evidence."
        if not found:
            return head + " — right without every gold passage."
        return head + "."

    def lines(self) -> list[str]:
        """Every line of the lesson, in reading order."""
        out = [self.evidence_line(), self.answer_line(), *self.why_lines()]
        if self.extractive is not None:
            out.append(self.extractive_line())
        return out


_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE = re.compile(rf"\b(?:{_MONTHS})\b|\b\d{{1,2}}[./-]\d{{1,2}}[./-]\d{{2,4}}\b|\b\d{{3,4}}\s*(?:ad|bc|bce|ce)\b",
                   re.IGNORECASE)
_NUMBER = re.compile(r"^[-+]?[\d,.]+\s*%?$")


def answer_kind(answer: str, gold: str = "") -> str:
    """What kind of thing ``answer`` is, for "the wrong … in it": "date" (a month, a day, "855 AD"; a bare year
    when the gold answer is a date), "number", "name" (capitalised words), else "answer".

    >>> answer_kind("8 August 869"), answer_kind("818", "20 March 851"), answer_kind("42"), answer_kind("Agent Smith")
    ('date', 'date', 'number', 'name')
    """
    a = answer.strip()
    if _DATE.search(a):
        return "date"
    if _NUMBER.match(a):
        return "date" if re.fullmatch(r"\d{3,4}", a) and _DATE.search(gold) else "number"
    words = [w for w in re.split(r"\s+", a) if w.isalpha()]
    if words and all(w[0].isupper() or w in ("of", "the", "de", "von", "van", "and") for w in words):
        return "name"
    return "answer"


def _passages(n: int) -> str:
    return "one passage" if n == 1 else f"{n} passages"


def and_list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
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
    nums = [k for k in ks if k is not None]
    their = "its" if len(group) == 1 else "their"
    if not nums:
        return f"read, though not in {their} ranking{'s' if len(group) > 1 else ''}"
    lo, hi = min(nums), max(nums)
    span = f"rank {lo}" if lo == hi else f"ranks {lo}–{hi}"
    return span + ("; read unranked by the others" if len(nums) < len(ks) else "")


def lesson(question: str, runs: Sequence[ShownRun], gold_chunks: Sequence[str], gold_answers: Sequence[str], *,
           extractive: ShownRun | None = None, titles: Mapping[str, str] | None = None,
           model: str = "The recorded 1.5B model") -> Lesson:
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
    model
        Who wrote the answers, as the answer line names it.

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
    return Lesson(question, str(gold_answers[0]), read, ext, model)
