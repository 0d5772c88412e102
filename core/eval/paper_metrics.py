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
A gold answer may come with *aliases* (MuSiQue's ``answer_aliases``: other forms of one answer): the answer and
its aliases are one gold answer, matched when any of them occurs. An *answer set* (a questions file's ``answer``
list: ERQA, KGQA) holds one gold answer per item (:func:`core.index.questions.parse_questions`).

LLM-judged metrics, only with a judge LLM chosen for the run (``egx bench --judge-llm NAME``, a choice on
the Benchmark page; :mod:`core.eval.judge_choice`). The judge is a separate LLM from the generator, as in the
papers (BubbleRAG's ACC_L: Qwen-3-7B judging other models' answers); the generator judges itself only when
asked (``--judge-llm same``) and the run is then labelled *self-judged*. Without a judge they are reported
as *not computed*, never as 0. The prompts are module constants; the run records them and the judge model
in its ``summary.json``:

* **ACC_L** (BubbleRAG §4.1): the judge decides whether the answer is semantically equivalent to
  the gold answer — 1 or 0.
* **Emp.S** (SG-RAG App. L, Table 17): one judge call per question shows the question, the gold answer
  and every method's answer under an anonymous label (``[Method_A] …``) and returns, per label,
  ``logic`` (Logical Coherence, 0–2), ``insight`` (0–1) and ``total`` (0–3).
* **Pairwise win rate** (FastInsight §4.1.2, §4.3.1, LightRAG's protocol and prompt): the generator
  writes a long-form answer from each method's top-10 passages (one prompt for every method); the
  judge compares the reference method's with each other method's on comprehensiveness, diversity
  and empowerment and names the overall winner, once in each placement. A question counts as a win
  or a loss only when both placements agree; a split is a tie, in neither column (Table 4 reports the
  baseline's and FastInsight's win rates separately; they need not sum to 100).
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


def answer_set_scores(prediction: str, golds: Sequence[str | Sequence[str]]) -> AnswerSetScores:
    """Precision, Recall, F1, Hit and Hit@1 of ``prediction`` against the gold answers (SG-RAG §5, ReG §5).

    Parameters
    ----------
    prediction
        The method's answer text.
    golds
        The gold answers: each a string, or a group of strings that are one answer (the answer and its
        aliases), matched when any of them occurs. Duplicates after normalisation count once.

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
    >>> answer_set_scores("New York", [("New York City", "New York", "NYC")]).recall  # one answer, an alias matched
    1.0
    """
    groups: dict[tuple[str, ...], None] = {}
    for g in golds:
        forms = tuple(dict.fromkeys(n for n in map(normalize_answer, [g] if isinstance(g, str) else g) if n))
        if forms:
            groups.setdefault(forms)
    gold = list(groups)
    if not gold:
        raise ValueError("answer_set_scores needs at least one gold answer; got none.")
    items = answer_items(prediction)
    if not items:
        return AnswerSetScores(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, len(gold))
    joined = " ".join(items)

    def found(text: str, forms: tuple[str, ...]) -> bool:
        return any(_contains(text, f) for f in forms)

    matched = sum(1 for g in gold if found(joined, g))
    p, r = matched / len(items), matched / len(gold)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    hit = float(any(found(prediction, g) for g in gold))
    hit1 = float(any(found(items[0], g) for g in gold))
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
    # precision pools each question's matches up to its number of items, as its own Precision is capped at 1: a
    # one-sentence answer holding two aliases of one gold answer ("Pellow Reach", "the Pellow Reach crossing") is one
    # right item, not two (an audit read a Micro-F1 of 105.9)
    mp = sum(min(x.matched, x.predicted) for x in s) / predicted if predicted else 0.0
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

#: SG-RAG Table 17, section by section; ``{answers}`` is one ``[Method_X] answer`` line per method and
#: ``{format}`` the output format for exactly those labels.
EMPS_PROMPT = """Goal: Automatically evaluate answers from multiple methods to the same question. \
You act as a reviewer and score each answer independently according to the criteria below.

Input:
- Question: {question}
- Gold Answer: {gold}
- Answer List:
{answers}

Evaluation Instruction: You are a senior evaluator. Please carefully read the question, the gold-standard \
answer, and the list of candidate answers. For each answer, assign scores based on the criteria below. \
Return the evaluation as a structured JSON.

Scoring Criteria:
- Logical Coherence (0-2): Is the reasoning clear, complete, and well-sequenced?
- Insight (0-1): Does the answer offer new insight or helpful suggestions?

Output Format: Return the scores as follows (total = logic + insight):
{format}"""

#: What every method's retrieved passages are turned into for the pairwise comparison (FastInsight
#: §4.1.2: "We generate responses by feeding the nodes retrieved by each retriever ... into" one LLM).
LONG_FORM_SYSTEM = ("You answer questions from the given passages only. Write a complete answer of one to three "
                    "paragraphs: cover every aspect of the question the passages support, explain how the facts "
                    "connect, and say what the passages leave open.")

LONG_FORM_USER = """Passages:
{passages}

Question: {question}
Answer:"""

#: LightRAG's comparison prompt (the protocol FastInsight §4.3.1 adopts): each criterion's winner with its
#: explanation, then the overall winner.
PAIRWISE_SYSTEM = ("You are an expert tasked with evaluating two answers to the same question based on three "
                   "criteria: Comprehensiveness, Diversity, and Empowerment. Answer with JSON only.")

PAIRWISE_PROMPT = """You will evaluate two answers to the same question based on three criteria: \
Comprehensiveness, Diversity, and Empowerment.

- Comprehensiveness: How much detail does the answer provide to cover all aspects and details of the question?
- Diversity: How varied and rich is the answer in providing different perspectives and insights on the question?
- Empowerment: How well does the answer help the reader understand and make informed judgments about the topic?

For each criterion, choose the better answer (either Answer 1 or Answer 2) and explain why. Then, select an \
overall winner based on these three categories.

Here is the question:
{question}

Here are the two answers:

Answer 1:
{first}

Answer 2:
{second}

Evaluate both answers using the three criteria listed above and provide a short explanation for each criterion.
Output your evaluation in the following JSON format:
{{"Comprehensiveness": {{"Winner": "Answer 1 or Answer 2", "Explanation": "..."}},
 "Diversity": {{"Winner": "Answer 1 or Answer 2", "Explanation": "..."}},
 "Empowerment": {{"Winner": "Answer 1 or Answer 2", "Explanation": "..."}},
 "Overall Winner": {{"Winner": "Answer 1 or Answer 2", "Explanation": "..."}}}}"""

_ACC_SCHEMA = {"type": "object", "properties": {"correct": {"type": "integer", "enum": [0, 1]}}, "required": ["correct"]}
PAIR_CRITERIA = ("Comprehensiveness", "Diversity", "Empowerment", "Overall Winner")
_PAIR_SCHEMA = {"type": "object", "additionalProperties": False, "required": list(PAIR_CRITERIA),
                "properties": {k: {"type": "object", "additionalProperties": False, "required": ["Winner", "Explanation"],
                                   "properties": {"Winner": {"type": "string", "enum": ["Answer 1", "Answer 2"]},
                                                  "Explanation": {"type": "string", "maxLength": 300}}}
                               for k in PAIR_CRITERIA}}
EMPS_KEYS = {"logic": (0, 1, 2), "insight": (0, 1)}


def judge_prompts() -> dict[str, str]:
    """The judge's prompts as the run records them (system + templates), and the long-form answer prompt
    the generator writes the pairwise comparison's answers with."""
    return {"system": JUDGE_SYSTEM, "ACC_L": ACC_PROMPT, "Emp.S": EMPS_PROMPT, "pairwise_system": PAIRWISE_SYSTEM,
            "pairwise": PAIRWISE_PROMPT, "long_form_system": LONG_FORM_SYSTEM, "long_form": LONG_FORM_USER}


@dataclass(frozen=True)
class Judgement:
    """One LLM-judge verdict: ``value`` is None when the judge gave no usable reply (``why`` says why)."""

    value: float | None
    why: str = ""
    tokens: int = 0


def _ask(llm: Any, user: str, schema: dict[str, Any], check: Any, *, system: str = JUDGE_SYSTEM,
         max_tokens: int = 64) -> tuple[Any, str, int]:
    """``check(d)`` raises ValueError with what is wrong (the judge is told, then it retries)."""
    from core.methods.llm_steps import ask_json

    def validate(d: Any) -> None:
        if not isinstance(d, dict):
            raise ValueError("reply with the JSON object the prompt asks for")
        check(d)

    out = ask_json(llm, system, user, schema, max_tokens=max_tokens, validate=validate)
    return out.data, out.fallback, out.prompt_tokens + out.completion_tokens


def judge_accuracy(question: str, prediction: str, golds: Sequence[str], llm: Any) -> Judgement:
    """ACC_L (BubbleRAG §4.1): 1 when the LLM judge finds ``prediction`` equivalent to a gold answer."""
    if not prediction.strip():
        return Judgement(0.0, "no answer")

    def check(d: dict[str, Any]) -> None:
        if d.get("correct") not in (0, 1):
            raise ValueError(f'"correct" must be 0 or 1, not {d.get("correct")!r}')

    data, why, tok = _ask(llm, ACC_PROMPT.format(question=question, gold="; ".join(golds), prediction=prediction),
                          _ACC_SCHEMA, check)
    return Judgement(None if data is None else float(data["correct"]), why, tok)


def emps_label(i: int) -> str:
    """The anonymous label of the ``i``-th answer in the Emp.S prompt (Table 17: ``Method_A`` … ``Method_F``,
    then ``Method_AA`` …)."""
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(65 + r) + letters
    return f"Method_{letters}"


@dataclass(frozen=True)
class EmpowermentScores:
    """One question's Emp.S judgement (SG-RAG App. L): ``scores`` maps each method to its
    ``{"logic", "insight", "total"}``, or is None when the judge gave no usable reply (``why`` says why).
    ``labels`` maps the prompt's anonymous labels to the methods."""

    scores: dict[str, dict[str, int]] | None
    labels: dict[str, str]
    why: str = ""
    tokens: int = 0


def empowerment_prompt(question: str, golds: Sequence[str], answers: Sequence[tuple[str, str]]) -> tuple[str, dict[str, str]]:
    """The Table 17 prompt for ``answers`` (``(method, answer)`` pairs, in the order shown) and its label map."""
    labels = {emps_label(i): m for i, (m, _) in enumerate(answers)}
    listing = "\n".join(f"  [{lab}] {' '.join(a.split())}" for lab, (_, a) in zip(labels, answers))
    fmt = "{\n" + ",\n".join(f'  "{lab}": {{"logic": L, "insight": I, "total": T}}' for lab in labels) + "\n}"
    return EMPS_PROMPT.format(question=question, gold="; ".join(golds), answers=listing, format=fmt), labels


def empowerment_scores(question: str, golds: Sequence[str], answers: Sequence[tuple[str, str]],
                       llm: Any) -> EmpowermentScores:
    """Emp.S (SG-RAG App. L, Table 17): **one** judge call per question that shows the question, the gold
    answer and every method's answer under an anonymous label, and returns ``logic`` (0–2), ``insight``
    (0–1) and ``total`` per label. A reply with an unknown or missing label, a score out of range or a
    total that is not logic + insight is refused (the judge is told and retries); when no reply is
    usable, ``scores`` is None — never a made-up score.

    Parameters
    ----------
    question, golds
        The question and its gold answers.
    answers
        ``(method, answer text)`` per method, non-empty answers only, in the order shown.
    llm
        The judge.
    """
    if not answers:
        return EmpowermentScores(None, {}, "no answer to score")
    prompt, labels = empowerment_prompt(question, golds, answers)
    item = {"type": "object", "additionalProperties": False, "required": ["logic", "insight", "total"],
            "properties": {"logic": {"type": "integer", "enum": [0, 1, 2]}, "insight": {"type": "integer", "enum": [0, 1]},
                           "total": {"type": "integer", "enum": [0, 1, 2, 3]}}}
    schema = {"type": "object", "additionalProperties": False, "required": list(labels),
              "properties": dict.fromkeys(labels, item)}

    def check(d: dict[str, Any]) -> None:
        unknown = [k for k in d if k not in labels]
        if unknown:
            raise ValueError(f"the reply names labels that are not in the answer list: {', '.join(map(repr, unknown))}")
        missing = [k for k in labels if k not in d]
        if missing:
            raise ValueError(f"the reply lacks the label(s) {', '.join(missing)}")
        for lab, v in d.items():
            if not isinstance(v, dict):
                raise ValueError(f"{lab} must be an object with logic, insight and total")
            for key, allowed in EMPS_KEYS.items():
                x = v.get(key)
                if isinstance(x, bool) or x not in allowed:
                    raise ValueError(f"{lab}'s {key} is {x!r}; it must be one of {', '.join(map(str, allowed))}")
            if v.get("total") != v["logic"] + v["insight"]:
                raise ValueError(f"{lab}'s total is {v.get('total')!r}, not logic + insight = {v['logic'] + v['insight']}")

    data, why, tok = _ask(llm, prompt, schema, check, max_tokens=48 + 32 * len(labels))
    if data is None:
        return EmpowermentScores(None, labels, why or "the judge gave no usable reply", tok)
    scores = {labels[lab]: {k: int(data[lab][k]) for k in ("logic", "insight", "total")} for lab in labels}
    return EmpowermentScores(scores, labels, why, tok)


def long_form_prompt(question: str, passages: Sequence[str]) -> str:
    """The user message that asks the generator for a long-form answer from numbered passages."""
    body = "\n\n".join(f"[{i}] {p.strip()}" for i, p in enumerate(passages, start=1))
    return LONG_FORM_USER.format(passages=body, question=question.strip())


@dataclass(frozen=True)
class PairVerdict:
    """FastInsight's pairwise comparison of one question (LightRAG's protocol, both placements).

    ``orders`` holds each placement's winner per criterion — ``"reference"`` or ``"other"`` — with the
    reference's answer shown first, then second. ``outcome`` is ``"win"`` (the reference won both
    placements), ``"loss"`` (the other answer won both) or ``"tie"`` (the placements disagree: the
    position, not the answer, decided); None when a placement got no usable reply (``why``)."""

    outcome: str | None
    orders: tuple[dict[str, str], ...] = ()
    why: str = ""
    tokens: int = 0


def pairwise_verdict(question: str, reference: str, other: str, llm: Any) -> PairVerdict:
    """FastInsight §4.3.1 (LightRAG's protocol): the judge compares the reference method's long-form answer
    with another method's on comprehensiveness, diversity and empowerment and names the overall winner,
    once with each answer first (LightRAG alternates the placement against position bias)."""
    orders: list[dict[str, str]] = []
    tokens = 0

    def check(d: dict[str, Any]) -> None:
        for k in PAIR_CRITERIA:
            w = d.get(k)
            if not isinstance(w, dict) or w.get("Winner") not in ("Answer 1", "Answer 2"):
                raise ValueError(f'"{k}" must be {{"Winner": "Answer 1" or "Answer 2", "Explanation": ...}}')

    for first, second, ref_is in ((reference, other, "Answer 1"), (other, reference, "Answer 2")):
        data, why, tok = _ask(llm, PAIRWISE_PROMPT.format(question=question, first=first, second=second),
                              _PAIR_SCHEMA, check, system=PAIRWISE_SYSTEM, max_tokens=512)
        tokens += tok
        if data is None:
            return PairVerdict(None, tuple(orders), why or "the judge gave no usable reply", tokens)
        orders.append({k: "reference" if data[k]["Winner"] == ref_is else "other" for k in PAIR_CRITERIA})
    overall = {o["Overall Winner"] for o in orders}
    outcome = "tie" if len(overall) > 1 else "win" if overall == {"reference"} else "loss"
    return PairVerdict(outcome, tuple(orders), "", tokens)


#: The reference's win / tie / loss as the ``win`` figure of a ``pairwise.jsonl`` line (older lines have only it).
PAIR_WIN = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def pair_outcome(line: dict[str, Any]) -> str | None:
    """``"win"`` / ``"tie"`` / ``"loss"`` of the reference in one ``pairwise.jsonl`` line (older lines by
    their ``win`` figure: 1, ½, 0)."""
    if line.get("outcome") in PAIR_WIN:
        return str(line["outcome"])
    w = line.get("win")
    return {1.0: "win", 0.5: "tie", 0.0: "loss"}.get(float(w)) if isinstance(w, (int, float)) else None


NOT_COMPUTED = "not computed: no LLM is configured (run with --llm local, local-small or openai)"
JUDGE_OFF = "not computed: the LLM judge was turned off for this run (egx bench --no-judge)"
NO_JUDGE = ("not computed: no judge LLM was chosen — pass --judge-llm local-small (or local, openai; on the "
            "Benchmark page pick a judge). The generator never judges itself unless asked with --judge-llm same")
#: The three above in the app's words (the Benchmark page's controls instead of the command line's flags).
APP_WORDING = {
    NOT_COMPUTED: "not computed: no LLM is configured (pick local, local-small or openai as the sidebar's LLM)",
    JUDGE_OFF: "not computed: the LLM judge was turned off for this run",
    NO_JUDGE: ("not computed: no judge LLM was chosen — pick one under “Judge LLM” (e.g. local-small) and run "
               "again under a new name. The generator never judges itself unless “same” is chosen there"),
}
