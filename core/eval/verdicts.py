"""The one verdict vocabulary, and how an answer compares with the gold answer.

Every place that names the outcome of one question × method — the Benchmark page's per-question table,
the verdict badges on Compare, the triage downloads, the failure chart and ``egx bench``'s report — asks
this module for its words, so a verdict reads the same wherever it is shown.

A *verdict* is the diagnosis stage (:data:`core.methods.base.VERDICTS`: where the gold evidence was lost,
``ok`` or ``no_gold``) with two additions:

* ``answer_partial`` — every gold passage retrieved and the answer is not an exact match, but it is part
  of the gold answer (a surname: "Weaving" for "Hugo Weaving") or holds it ("Hugo Weaving played Agent
  Smith"). The diagnosis calls it ``answer_wrong``, as SQuAD exact match does; the vocabulary splits it
  off, so the user sees "partly right (F1 0.67)" instead of "answer wrong". It still counts as a failure
  (EM is the metric; a partial answer is not counted correct).
* ``error`` — the method raised an error on the question (a benchmark pair recorded as failed).

A ``ranked_out`` verdict is worded by what happened to its lost gold passages (:func:`diagnosis_verdict`,
:func:`record_verdict`; the diagnosis' cut and its evidence, :func:`core.eval.diagnose.with_answer_context`):
"gold not retrieved" when none of them was retrieved at all (nothing "ranked below" the cut) — "1 of 4 gold passages
not retrieved" when the question's other gold passages were retrieved within the cut (:func:`partly_retrieved_label`:
a multi-hop question needs all its gold, so it stays a ``ranked_out`` loss, but the label must not say that no gold
was found) — and "below the cut, but read by the answer" when every one ranked below the cut and was among the
passages the answer was handed.
The key stays ``ranked_out`` (charts and counts are unchanged); only the words follow the evidence. Likewise an
``answer_wrong`` whose extracted sentence holds the gold answer but comes from a passage that is not gold is worded
:data:`CHANCE_LABEL`, and a ``not_connected`` whose exact subgraphs matched (SG-RAG §4.3, Alg. 8: no fallback) but
brought none of the lost gold passages is worded :data:`OFF_GOLD_LABEL` (:func:`matched_off_gold`): "anchors not
connected" over "30 exact subgraph(s) matched" contradicted itself (an audit); the failure chart keeps it in the
``not_connected`` bucket, whose legend says both.

The answer's comparison (:func:`match_answer`) is SQuAD EM and token F1 (lower-case, punctuation, articles
and extra whitespace removed; :func:`core.text.normalize_answer`), each the best over the gold answer and
its aliases (MuSiQue's ``answer_aliases``), and the *kind* of match: exact, alias, holds the gold answer,
part of it, some words shared, none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.methods.base import NO_GOLD, OK, STAGE_LABELS, STAGE_ORDER
from core.text import FUNCTION_WORDS, exact_match, normalize_answer, token_f1

__all__ = ["ANSWER_PARTIAL", "ANSWER_STAGE", "BUCKET_LABELS", "CHANCE_LABEL", "ERROR", "MATCH_LABELS", "NOT_RETRIEVED_LABEL",
           "OFF_GOLD_LABEL", "READ_BY_ANSWER_LABEL", "VERDICT_KEYS", "VERDICT_LABELS", "AnswerMatch", "MatchKind", "Tone",
           "Verdict", "bucket_label", "diagnosis_verdict", "is_failure", "is_retrieval_loss", "match_answer", "matched_off_gold",
           "off_gold_summary", "off_gold_verdict", "partly_retrieved_label", "ranked_out_verdict", "record_match", "record_verdict",
           "unmatched_note", "verdict", "verdict_label"]

ANSWER_PARTIAL = "answer_partial"
ERROR = "error"
#: ``ranked_out``'s label when no lost gold passage was retrieved, and when every one was read by the answer
NOT_RETRIEVED_LABEL = "gold not retrieved"
READ_BY_ANSWER_LABEL = "below the cut, but read by the answer"
#: ``answer_wrong``'s label for an extracted sentence that holds the gold answer but comes from a passage that is not gold
CHANCE_LABEL = "retrieved, gold answer quoted from a non-gold passage"
#: ``not_connected``'s label when exact subgraphs matched but none brought the lost gold passage(s)
OFF_GOLD_LABEL = "matched, not through the gold passage"
#: How a count or chart names a verdict key's bucket where it holds more than the key's label says: the rows'
#: own labels tell its cases apart (:func:`ranked_out_verdict`, :func:`off_gold_verdict`).
BUCKET_LABELS: dict[str, str] = {"ranked_out": STAGE_LABELS["ranked_out"] + " or not retrieved",
                                 "not_connected": STAGE_LABELS["not_connected"] + " or matched off the gold"}
#: Every verdict key, pipeline order first (the order of the failure chart and the report's columns).
VERDICT_KEYS: tuple[str, ...] = (*STAGE_ORDER, ANSWER_PARTIAL, OK, NO_GOLD, ERROR)
#: The verdicts of a question whose gold evidence was all retrieved and whose answer missed: an answer-stage miss,
#: not a retrieval loss (without an LLM the answer is an extracted sentence, which is never an exact answer).
ANSWER_STAGE: tuple[str, ...] = ("answer_wrong", ANSWER_PARTIAL)
#: The label of every verdict key: the stage words of the diagnosis contract plus the two keys above.
VERDICT_LABELS: dict[str, str] = {**STAGE_LABELS, ANSWER_PARTIAL: "retrieved, answer partly right",
                                  ERROR: "method failed"}

MatchKind = Literal["exact", "alias", "contains", "part", "overlap", "none", "no_answer", "no_gold"]
#: How each kind of answer match is worded (beside EM and F1).
MATCH_LABELS: dict[str, str] = {
    "exact": "exact match",
    "alias": "alias match",
    "contains": "holds the gold answer",
    "part": "partial match (part of the gold answer)",
    "overlap": "some words shared",
    "none": "no match",
    "no_answer": "no answer",
    "no_gold": "no gold answer",
}
Tone = Literal["ok", "partial", "failure", "info"]


@dataclass(frozen=True)
class AnswerMatch:
    """How an answer compares with the gold answers: SQuAD EM / F1 (best over the aliases) and the kind."""

    kind: MatchKind
    em: float | None = None  #: None without a gold answer
    f1: float | None = None
    gold: str = ""  #: the gold answer or alias the kind refers to (the primary answer when none matched)
    #: the function words ("of", "in") a ``none`` answer shares with the gold answer: they give it token F1 > 0
    #: (SQuAD's F1 counts them) but are no shared content
    shared: tuple[str, ...] = ()

    @property
    def partly_right(self) -> bool:
        """Not an exact match, but part of a gold answer or holding one."""
        return self.kind in ("contains", "part")

    @property
    def label(self) -> str:
        """E.g. ``"alias match (Stanley Hall)"``, ``"partial match (part of the gold answer)"``."""
        text = MATCH_LABELS[self.kind]
        if self.kind == "none" and self.shared:
            return f"{text} (only {', '.join(f'“{w}”' for w in self.shared)} shared)"
        return f"{text} ({self.gold})" if self.kind == "alias" else text


def match_answer(answer: str, golds: Sequence[str]) -> AnswerMatch:
    """Compare ``answer`` with the gold answers ``golds`` (the primary answer first, then its aliases).

    The kind, checked in this order on SQuAD-normalised text: ``exact`` (EM with the primary answer),
    ``alias`` (EM with an alias only), ``contains`` (a gold answer occurs in the answer as whole words),
    ``part`` (every word of the answer is a word of one gold answer: a surname, a year of a date),
    ``overlap`` (F1 > 0 otherwise: "26 March 851" for "20 March 851" is not partly right), ``none`` (also when
    the only words shared are function words: "Ermengarde of Tours" for "Judith of Bavaria" keeps SQuAD's F1 0.33,
    but is no match; :attr:`AnswerMatch.shared` names the words);
    ``no_answer`` for an empty answer, ``no_gold`` when there is no gold answer (EM and F1 are then None).

    Examples
    --------
    >>> m = match_answer("Weaving", ["Hugo Weaving"])
    >>> m.kind, m.em, round(m.f1, 2)
    ('part', 0.0, 0.67)
    >>> match_answer("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"]).label
    'alias match (Stanley Hall)'
    >>> match_answer("Ermengarde of Tours", ["Judith of Bavaria"]).label
    'no match (only “of” shared)'
    """
    gs = [str(g) for g in golds if g is not None and normalize_answer(str(g))]
    if not gs:
        return AnswerMatch("no_gold")
    em = max(exact_match(answer, g) for g in gs)
    f1 = max(token_f1(answer, g) for g in gs)
    a = normalize_answer(answer or "")
    if not a:
        return AnswerMatch("no_answer", 0.0, 0.0, gs[0])
    if exact_match(answer, gs[0]):
        return AnswerMatch("exact", em, f1, gs[0])
    for g in gs[1:]:
        if exact_match(answer, g):
            return AnswerMatch("alias", em, f1, g)
    for g in gs:
        if f" {normalize_answer(g)} " in f" {a} ":
            return AnswerMatch("contains", em, f1, g)
    words = Counter(a.split())
    for g in gs:
        if not words - Counter(normalize_answer(g).split()):
            return AnswerMatch("part", em, f1, g)
    if f1 <= 0:
        return AnswerMatch("none", em, f1, gs[0])
    common = set(a.split()) & {w for g in gs for w in normalize_answer(g).split()}
    if common <= FUNCTION_WORDS:
        return AnswerMatch("none", em, f1, gs[0], tuple(w for w in dict.fromkeys(a.split()) if w in common))
    return AnswerMatch("overlap", em, f1, gs[0])


@dataclass(frozen=True)
class Verdict:
    """One question × method's verdict as every page, download and report words it."""

    key: str  #: one of :data:`VERDICT_KEYS` (an unknown stage of a future record passes through)
    label: str  #: e.g. "ranked below the cut", "retrieved, answer partly right (F1 0.67)", "ok (alias match)"
    tone: Tone

    @property
    def failure(self) -> bool:
        """Whether the pair failed: anything but ``ok`` and ``no_gold`` (a partly right answer is a failure)."""
        return self.tone in ("failure", "partial")


def verdict_label(key: str) -> str:
    """The label of a verdict key (the key itself for an unknown one)."""
    return VERDICT_LABELS.get(key, key)


def bucket_label(key: str) -> str:
    """The name of a verdict key's bucket in the failure chart and the report's count table (:data:`BUCKET_LABELS`,
    else :func:`verdict_label`)."""
    return BUCKET_LABELS.get(key) or verdict_label(key)


def ranked_out_verdict(evidence: Mapping[str, Any], gold_ranks: Mapping[str, Any]) -> Verdict | None:
    """The ``ranked_out`` verdict worded by its evidence (module docstring): "gold not retrieved", "1 of 4 gold
    passages not retrieved" or "below the cut, but read by the answer"; None when none holds or the evidence lacks
    the cut (an older record)."""
    cut = evidence.get("cut")
    if not isinstance(cut, int) or isinstance(cut, bool):
        return None
    lost = [c for c, r in gold_ranks.items() if r is None or int(r) > cut]
    if not lost:
        return None
    if all(gold_ranks[c] is None for c in lost):
        # gold the workspace lacks counts as gold never retrieved (unmatched_note), here too
        unmatched = len(evidence.get("unmatched") or ())
        total = len(gold_ranks) + unmatched
        if len(lost) < len(gold_ranks):  # some gold passage was retrieved: say how much was lost, not "gold"
            return Verdict("ranked_out", partly_retrieved_label(len(lost) + unmatched, total), "failure")
        return Verdict("ranked_out", NOT_RETRIEVED_LABEL, "failure")
    read = set(evidence.get("read_by_answer") or ())
    if all(c in read for c in lost):  # still lost for R@k: a failure, told apart from gold the answer never saw
        return Verdict("ranked_out", READ_BY_ANSWER_LABEL, "partial")
    return None


def matched_off_gold(stage: Any, evidence: Any) -> bool:
    """Whether a ``not_connected`` diagnosis is SG-RAG's "exact subgraphs matched (§4.3, Alg. 8), none brought the
    gold passage" rather than "no exact subgraph, the 1-hop fallback was used" (§4.4): its evidence counts matched
    subgraphs (``subgraphs`` > 0) and names no fallback, and it is no Table 5 baseline (which matches nothing)."""
    if stage != "not_connected" or not isinstance(evidence, Mapping):
        return False
    found = evidence.get("subgraphs")
    return (isinstance(found, int) and not isinstance(found, bool) and found > 0 and not evidence.get("fallback")
            and "baseline" not in evidence and "fallback_reason" not in evidence)


def off_gold_verdict(stage: Any, evidence: Any, gold_ranks: Mapping[str, Any]) -> Verdict | None:
    """:data:`OFF_GOLD_LABEL` ("…passages" when several gold passages were lost) for a diagnosis
    :func:`matched_off_gold` holds for; None otherwise."""
    if not matched_off_gold(stage, evidence):
        return None
    lost = evidence.get("gold_lost")
    n = len(lost) if isinstance(lost, list) else sum(1 for r in gold_ranks.values() if r is None)
    return Verdict("not_connected", OFF_GOLD_LABEL + ("s" if n > 1 else ""), "failure")


def _titles(ts: Sequence[str]) -> str:
    quoted = [f"“{t}”" for t in ts]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def off_gold_summary(found: int, off: Sequence[str], reached: Mapping[str, Sequence[str]] | None = None,
                     below: Mapping[str, int] | None = None, *, cut: int | None = None, known: bool = True,
                     kept: int | None = None) -> str:
    """The summary of a :func:`matched_off_gold` diagnosis, naming every lost gold passage by its title: ``off``,
    those no matched subgraph passes through (no entity of theirs is on a match); ``reached``, those whose entities
    a match reaches (title → those entities) though no matched triple comes from them; ``below``, those retrieved
    below the cut (title → rank). ``known`` False (an older record: which entities the matches hold is not kept)
    says of ``off`` only that no match brought them. ``kept``: how many of the ``found`` subgraphs the method kept
    (its cap), when fewer: what the matches are read from.

    >>> off_gold_summary(30, ["Perpetua Vane"], {"Bellcastle Holdings": ["Bellcastle Holdings"]})
    '30 exact subgraphs matched the query graph, but none passes through the gold passage “Perpetua Vane”; “Bellcastle Holdings” was not retrieved either: a match reaches its entity Bellcastle Holdings, through triples of other passages.'
    """
    parts = []
    if off:
        s = "s" if len(off) > 1 else ""
        parts.append(f"none passes through the gold passage{s} {_titles(off)}" if known else
                     f"none brought the gold passage{s} {_titles(off)} (not retrieved)")
    for t, ents in (reached or {}).items():
        who = "was not retrieved either" if parts else f"the gold passage “{t}” was not retrieved"
        names = ", ".join(list(ents)[:3]) + (f" and {len(ents) - 3} more" if len(ents) > 3 else "")
        parts.append(f"{'“' + t + '” ' if parts else ''}{who}: a match reaches its "
                     f"entit{'y' if len(ents) == 1 else 'ies'} {names}, through triples of other passages")
    for t, r in (below or {}).items():
        parts.append(f"“{t}” was retrieved at rank {r}, below the cut" + (f" of {cut}" if cut else ""))
    return (f"{found} exact subgraph{'s' if found != 1 else ''} matched the query graph"
            + (f" (the best {kept} kept)" if kept is not None and kept < found else "") + ", but "
            + "; ".join(parts or ["none brought the gold evidence"]) + ".")


def partly_retrieved_label(missing: int, total: int) -> str:
    """``ranked_out``'s label when some gold passages were never retrieved and the others were (within the cut):
    ``"1 of 4 gold passages not retrieved"``.

    >>> partly_retrieved_label(1, 2)
    '1 of 2 gold passages not retrieved'
    """
    return f"{missing} of {total} gold passage{'' if total == 1 else 's'} not retrieved"


def verdict(stage: str | None, match: AnswerMatch | None = None) -> Verdict:
    """The verdict of a diagnosis ``stage`` (None: the method failed) and the answer's ``match``.

    ``answer_wrong`` with a partly right answer becomes ``answer_partial`` with its F1 in the label; ``ok``
    reached through an alias says so.
    """
    key = ERROR if not stage else str(stage)
    m = match or AnswerMatch("no_gold")
    if key == "answer_wrong" and m.partly_right:
        return Verdict(ANSWER_PARTIAL, f"{VERDICT_LABELS[ANSWER_PARTIAL]} (F1 {m.f1 or 0.0:.2f})", "partial")
    if key == OK:  # a quoted sentence is judged by holding the gold answer, not by saying it is the answer (audit
        # 57 read "ok" for "… the ferryman by Idris Palemont himself" asked for the father): the label says which
        how = " (alias match)" if m.kind == "alias" else " (the quoted sentence holds it)" if m.kind == "contains" else ""
        return Verdict(OK, VERDICT_LABELS[OK] + how, "ok")
    if key == NO_GOLD:
        return Verdict(NO_GOLD, VERDICT_LABELS[NO_GOLD], "info")
    return Verdict(key, verdict_label(key), "failure")


def diagnosis_verdict(diag: Any, answer: str = "", golds: Sequence[str] = ()) -> Verdict:
    """The verdict of a :class:`~core.methods.base.Diagnosis` (``None``: the method failed). The answer is
    matched against the gold answers the diagnosis recorded, else against ``golds``."""
    if diag is None:
        return verdict(None)
    if diag.stage == "ranked_out" and isinstance(diag.evidence, Mapping):
        worded = ranked_out_verdict(diag.evidence, diag.gold_ranks or {})
        if worded is not None:
            return worded
    off = off_gold_verdict(diag.stage, diag.evidence, diag.gold_ranks or {})
    if off is not None:
        return off
    ev = diag.evidence.get("answer") if isinstance(diag.evidence, Mapping) else None
    if diag.stage == "answer_wrong" and isinstance(ev, Mapping) and ev.get("from_gold") is False:
        return Verdict("answer_wrong", CHANCE_LABEL, "partial")
    if isinstance(ev, Mapping) and ev.get("gold"):
        return verdict(diag.stage, match_answer(str(ev.get("text", answer) or ""), [str(g) for g in ev["gold"]]))
    return verdict(diag.stage, match_answer(answer, golds))


def record_match(rec: Mapping[str, Any]) -> AnswerMatch:
    """The answer match of a benchmark record (``results.jsonl``: its ``answer`` against its ``answers``)."""
    return match_answer(str(rec.get("answer") or ""), [str(a) for a in rec.get("answers") or ()])


def record_verdict(rec: Mapping[str, Any]) -> Verdict:
    """The verdict of a benchmark record (``error`` when the pair raised)."""
    diag = rec.get("diagnosis")
    stage = diag.get("stage") if isinstance(diag, Mapping) else None
    if stage == "ranked_out" and isinstance(diag, Mapping) and isinstance(diag.get("evidence"), Mapping):
        worded = ranked_out_verdict(diag["evidence"], diag.get("gold_ranks") or {})
        if worded is not None:
            return worded
    ev = diag.get("evidence") if isinstance(diag, Mapping) else None
    off = off_gold_verdict(stage, ev, (diag or {}).get("gold_ranks") or {}) if isinstance(diag, Mapping) else None
    if off is not None:
        return off
    answer = ev.get("answer") if isinstance(ev, Mapping) else None
    if stage == "answer_wrong" and isinstance(answer, Mapping) and answer.get("from_gold") is False:
        return Verdict("answer_wrong", CHANCE_LABEL, "partial")
    return verdict(stage, record_match(rec))


def is_failure(key: str) -> bool:
    """Whether a verdict key is a failure (everything but ``ok`` and ``no_gold``)."""
    return key not in (OK, NO_GOLD)


def is_retrieval_loss(key: str) -> bool:
    """Whether a verdict key says the gold evidence was lost before the answer (a diagnosis stage other than
    the answer's): what the failure chart counts and the Benchmark's "Losses only" filter keeps."""
    return key in STAGE_ORDER and key not in ANSWER_STAGE


def unmatched_note(unmatched: Sequence[str], total: int) -> str:
    """How every view words the gold passages a question names that the workspace lacks, each counted as a
    gold passage never retrieved: ``"1 of 2 gold passages is not in the workspace ('Titel of X')"``; ""
    when there is none. ``total`` counts every gold passage of the question, matched or not.

    >>> unmatched_note(["Titel of X"], 2)
    "1 of 2 gold passages is not in the workspace ('Titel of X')"
    """
    n = len(unmatched)
    if not n:
        return ""
    shown = ", ".join(f"'{t}'" for t in list(unmatched)[:3]) + (f" and {n - 3} more" if n > 3 else "")
    return (f"{n} of {max(total, n)} gold passage{'s' if max(total, n) != 1 else ''} {'is' if n == 1 else 'are'} "
            f"not in the workspace ({shown})")
