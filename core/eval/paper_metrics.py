"""The papers' own answer metrics, next to our retrieval metrics.

Set metrics (no LLM needed; computed from every benchmark record with gold answers):

* **SG-RAG §5 / ReG §5** — answer-set Precision, Recall, F1, Hit and Hit@1, computed the way the
  KGQA code these papers build on does it (RoG's ``eval_f1`` / ``eval_hit`` / ``eval_hit1``, used by
  SubgraphRAG and ReG): the prediction is split into answer items (one per line, or separated by
  ``;`` / ``|``); a gold answer is *matched* when its SQuAD-normalised text occurs in the normalised
  prediction; ``precision = matched / #items``, ``recall = matched / #gold``; **Hit** = some gold
  answer occurs in the prediction; **Hit@1** = the first item contains a gold answer.
* **ReG Macro-F1** = the mean of the per-question F1; **Micro-F1** = the F1 of the pooled counts
  (Σ matched / Σ items, Σ matched / Σ gold), which weighs questions by their number of answers
  (ReG §5: "to account for the imbalance in the number of answers across samples").

Matching is containment, so an answer that is a whole sentence (an extractive answer, no LLM) scores
Precision 1 whenever it contains the gold answer: compare such runs by Hit, not by Precision/F1.
Every gold string counts as one gold answer: exact for answer-set datasets (ERQA lists every valid
answer), but a dataset's *aliases* of one answer (MuSiQue) lower Recall — compare methods on one
dataset, not these figures with the papers'.

LLM-judged metrics (only with an LLM configured; without one they are reported as *not computed*,
never as 0). The judge's prompts are module constants; the runner records them and the judge model
in the run's ``summary.json``:

* **ACC_L** (BubbleRAG §4.1): the judge decides whether the answer is semantically equivalent to
  the gold answer — 1 or 0.
* **Emp.S** (SG-RAG App. L, Table 17): Logical Coherence 0–2 + Informational Value 0–1, total 0–3.
* **Pairwise win rate** (FastInsight §4.3.1, LightRAG's protocol): the judge compares two answers
  to one question on comprehensiveness, diversity and empowerment and names the overall winner;
  each pair is judged in both orders (position bias), a split verdict counts ½ (ours).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.text import normalize_answer

_SPLIT = re.compile(r"\n|;|\|")
_PREFIX = re.compile(r"^\s*(?:[-*•]|\d+[.)]|ans(?:wer)?\s*:)\s*", re.IGNORECASE)


def answer_items(prediction: str) -> list[str]:
    """The predicted answers of one response: one per line or ``;`` / ``|`` part, bullets and
    ``ans:`` prefixes removed, empty parts dropped.

    >>> answer_items("ans: Brevik\\nans: Pellam")
    ['Brevik', 'Pellam']
    """
    out = []
    for part in _SPLIT.split(prediction or ""):
        p = _PREFIX.sub("", part).strip()
        if normalize_answer(p):
            out.append(p)
    return out


def _contains(text: str, gold: str) -> bool:
    g = normalize_answer(gold)
    return bool(g) and f" {g} " in f" {normalize_answer(text)} "


@dataclass(frozen=True)
class AnswerSetScores:
    """One question's answer-set scores (module docstring) and the counts Micro-F1 pools."""

    precision: float
    recall: float
    f1: float
    hit: float
    hit1: float
    matched: int
    predicted: int
    gold: int


def answer_set_scores(prediction: str, golds: Sequence[str]) -> AnswerSetScores:
    """Precision, Recall, F1, Hit and Hit@1 of ``prediction`` against the gold answers (SG-RAG §5, ReG §5).

    Parameters
    ----------
    prediction
        The method's answer text.
    golds
        The gold answers (each one string; duplicates after normalisation count once).

    Returns
    -------
    AnswerSetScores
        All zero for an empty prediction.

    Raises
    ------
    ValueError
        If ``golds`` holds no answer.

    Examples
    --------
    >>> s = answer_set_scores("Brevik\\nPellam\\nOslo", ["Pellam", "Brevik", "Varn"])
    >>> round(s.precision, 3), round(s.recall, 3), s.hit, s.hit1
    (0.667, 0.667, 1.0, 1.0)
    """
    gold = list(dict.fromkeys(normalize_answer(g) for g in golds if normalize_answer(g)))
    if not gold:
        raise ValueError("answer_set_scores needs at least one gold answer; got none.")
    items = answer_items(prediction)
    if not items:
        return AnswerSetScores(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, len(gold))
    joined = " ".join(items)
    matched = sum(1 for g in gold if _contains(joined, g))
    p, r = matched / len(items), matched / len(gold)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    hit = float(any(_contains(prediction, g) for g in gold))
    hit1 = float(any(_contains(items[0], g) for g in gold))
    return AnswerSetScores(min(p, 1.0), r, min(f1, 1.0), hit, hit1, matched, len(items), len(gold))


def aggregate_answer_sets(scores: Iterable[AnswerSetScores]) -> dict[str, float | None]:
    """Means over questions plus ReG's Macro-F1 (mean F1) and Micro-F1 (F1 of the pooled counts).

    Empty input gives ``None`` for every metric.

    >>> a = answer_set_scores("Brevik", ["Brevik"])            # P=R=F1=1
    >>> b = answer_set_scores("Oslo\\nVarn", ["Varn", "Pellam", "Dray"])  # P=1/2, R=1/3
    >>> agg = aggregate_answer_sets([a, b])
    >>> round(agg["Macro-F1"], 3), round(agg["Micro-F1"], 3)
    (0.7, 0.571)
    """
    s = list(scores)
    keys = ("Precision", "Recall", "F1", "Hit", "Hit@1", "Macro-F1", "Micro-F1")
    if not s:
        return dict.fromkeys(keys)
    n = len(s)
    matched, predicted, gold = (sum(x.matched for x in s), sum(x.predicted for x in s), sum(x.gold for x in s))
    mp = matched / predicted if predicted else 0.0
    mr = matched / gold if gold else 0.0
    return {"Precision": sum(x.precision for x in s) / n, "Recall": sum(x.recall for x in s) / n,
            "F1": sum(x.f1 for x in s) / n, "Hit": sum(x.hit for x in s) / n, "Hit@1": sum(x.hit1 for x in s) / n,
            "Macro-F1": sum(x.f1 for x in s) / n, "Micro-F1": 2 * mp * mr / (mp + mr) if mp + mr else 0.0}


# ------------------------------------------------------------------------------------ LLM judges
JUDGE_SYSTEM = "You are a strict, impartial evaluator of answers to questions. Answer with JSON only."

ACC_PROMPT = """Question: {question}
Gold answer(s): {gold}
Model answer: {prediction}

Is the model answer semantically equivalent to a gold answer (the same entity, date, number or fact, \
possibly phrased differently)? Extra correct detail is fine; a different or missing answer is not.
Return {{"correct": 1}} if it is, else {{"correct": 0}}."""

EMPS_PROMPT = """Question: {question}
Answer to evaluate: {prediction}

Score the answer's reasoning quality on two dimensions:
- Logical Coherence (0-2 points): does the response follow a clear and structured reasoning process?
- Informational Value (0-1 point): does the response provide useful insights, elaboration, or interpretative depth?
Return {{"coherence": <0, 1 or 2>, "information": <0 or 1>}}."""

PAIRWISE_PROMPT = """Question: {question}

Answer 1: {first}

Answer 2: {second}

Compare the two answers on Comprehensiveness (how much detail it gives to cover the question), \
Diversity (how varied and rich its perspectives are) and Empowerment (how well it helps the reader \
understand the topic and make informed judgements), then pick the overall winner.
Return {{"comprehensiveness": 1 or 2, "diversity": 1 or 2, "empowerment": 1 or 2, "overall": 1 or 2}}."""

_ACC_SCHEMA = {"type": "object", "properties": {"correct": {"type": "integer", "enum": [0, 1]}}, "required": ["correct"]}
_EMPS_SCHEMA = {"type": "object", "properties": {"coherence": {"type": "integer", "enum": [0, 1, 2]},
                                                 "information": {"type": "integer", "enum": [0, 1]}},
                "required": ["coherence", "information"]}
_PAIR_SCHEMA = {"type": "object", "properties": {k: {"type": "integer", "enum": [1, 2]} for k in
                                                 ("comprehensiveness", "diversity", "empowerment", "overall")},
                "required": ["overall"]}


def judge_prompts() -> dict[str, str]:
    """The judge's prompts as the run records them (system + templates)."""
    return {"system": JUDGE_SYSTEM, "ACC_L": ACC_PROMPT, "Emp.S": EMPS_PROMPT, "pairwise": PAIRWISE_PROMPT}


@dataclass(frozen=True)
class Judgement:
    """One LLM-judge verdict: ``value`` is None when the judge gave no usable reply (``why`` says why)."""

    value: float | None
    why: str = ""
    tokens: int = 0


def _ask(llm: Any, user: str, schema: dict[str, Any], check: Any) -> tuple[Any, str, int]:
    from core.methods.llm_steps import ask_json

    def validate(d: Any) -> None:
        if not isinstance(d, dict) or not check(d):
            raise ValueError("reply with the JSON object the prompt asks for")

    out = ask_json(llm, JUDGE_SYSTEM, user, schema, max_tokens=64, validate=validate)
    return out.data, out.fallback, out.prompt_tokens + out.completion_tokens


def judge_accuracy(question: str, prediction: str, golds: Sequence[str], llm: Any) -> Judgement:
    """ACC_L (BubbleRAG §4.1): 1 when the LLM judge finds ``prediction`` equivalent to a gold answer."""
    if not prediction.strip():
        return Judgement(0.0, "no answer")
    data, why, tok = _ask(llm, ACC_PROMPT.format(question=question, gold="; ".join(golds), prediction=prediction),
                          _ACC_SCHEMA, lambda d: d.get("correct") in (0, 1))
    return Judgement(None if data is None else float(data["correct"]), why, tok)


def empowerment_score(question: str, prediction: str, llm: Any) -> Judgement:
    """Emp.S (SG-RAG App. L, Table 17): coherence 0–2 + information 0–1, by the LLM judge."""
    if not prediction.strip():
        return Judgement(0.0, "no answer")
    data, why, tok = _ask(llm, EMPS_PROMPT.format(question=question, prediction=prediction), _EMPS_SCHEMA,
                          lambda d: d.get("coherence") in (0, 1, 2) and d.get("information") in (0, 1))
    return Judgement(None if data is None else float(data["coherence"] + data["information"]), why, tok)


def pairwise_preference(question: str, answer_a: str, answer_b: str, llm: Any) -> Judgement:
    """FastInsight §4.3.1 (LightRAG's protocol): A's share of the two orders' overall verdicts (0, ½, 1)."""
    wins, why, tokens = 0.0, "", 0
    for first, second, a_is in ((answer_a, answer_b, 1), (answer_b, answer_a, 2)):
        data, w, tok = _ask(llm, PAIRWISE_PROMPT.format(question=question, first=first or "(no answer)",
                                                        second=second or "(no answer)"),
                            _PAIR_SCHEMA, lambda d: d.get("overall") in (1, 2))
        tokens += tok
        if data is None:
            return Judgement(None, w, tokens)
        wins += 1.0 if data["overall"] == a_is else 0.0
        why = why or w
    return Judgement(wins / 2, why, tokens)


NOT_COMPUTED = "not computed: no LLM is configured (run with --llm local, local-small or openai)"
JUDGE_OFF = "not computed: the LLM judge was turned off for this run (egx bench --no-judge)"
