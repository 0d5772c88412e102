"""Is a text answer usable? A refusal, an echo of the prompt, special tokens or a placeholder copy is not."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from core.backends.llm_errors import _looks_like_html, _short
from core.backends.llm_json import _FENCE

# --- is a text answer usable? (a refusal or garbage is never the answer) ---------------------------

_NEG = (r"(?:can'?t|cannot|can not|won'?t|will not|am unable|'m unable|am not able|'m not able|must decline|"
        r"do not feel|don'?t feel|am not (?:allowed|permitted)|'m not (?:allowed|permitted))")
_VERB = (r"(?:help|assist|answer|provide|comply|fulfil+|respond|support|engage|share|discuss|do|give|generate|"
         r"create|complete|offer|reveal|disclose)")
_OBJ = r"(?:with|you|that|this|your|the|such|it|these|those|an?|any|to|on|in|information|request)"
_REFUSALS = (
    # "I'm sorry, but I can't help with that." / "I'm afraid I cannot answer that."
    re.compile(rf"^(?:i'?m|i am) (?:so |very |really |truly )?(?:sorry|afraid)\b[^.?!]{{0,80}}"
               rf"(?:\b{_NEG}|\b(?:do not|don'?t) (?:have|know)\b)"),
    # "Sorry, but I can't ..." / "Apologies — as an AI ..." / "Unfortunately, I am unable to ..."
    re.compile(r"^(?:sorry|apologies|my apologies|unfortunately)\s*[,.!:;—–-]\s*(?:but\s+)?"
               r"(?:i\b|i'm\b|as an ai\b)"),
    re.compile(r"^i (?:sincerely |do )?apologi[sz]e\b"),
    # "I can't help with that." / "I cannot answer this question." / "I won't provide ..."
    re.compile(rf"^i(?:\s+|(?=')){_NEG} (?:to )?{_VERB}(?:\s+{_OBJ}\b|\s*[.!]|\s*$)"),
    re.compile(r"^as an (?:ai|a\.i\.|artificial intelligence)\b"),
    re.compile(r"\b(?:against (?:my|openai'?s?|the) (?:guidelines|policies|policy|usage policies)|"
               r"content (?:policy|guidelines)|i must (?:respectfully )?decline)\b"),
)
_SPECIAL_TOKENS = re.compile(r"<\|[a-z_]{2,20}\|>|</?s>|\[/?INST\]", re.I)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class AnswerCheck:
    """What :func:`check_answer` found: the cleaned answer, or why it cannot be one."""

    text: str  #: the answer to show ("" when unusable)
    problem: str  #: why the text is no answer ("" when usable)
    raw: str  #: the LLM's text as it came

    @property
    def ok(self) -> bool:
        return not self.problem


def _title_like(text: str) -> bool:
    """A short, Title-Cased phrase without a final full stop ("I Can't Help Myself"): a name, not a sentence."""
    words = text.split()
    if not words or len(words) > 10 or text.rstrip()[-1:] in ".!":
        return False
    caps = sum(1 for w in words if w[:1].isupper() or not w[:1].isalpha())
    return caps >= max(2, len(words) - 2)


#: a format line's placeholder ("<an entity, date or number>"); a tag with attributes ("<a href='…'>") is markup,
#: which the answer's flags name (core.methods.answer_gate.answer_flags), not a placeholder
_PLACEHOLDER = re.compile(r"<(?:an?|the|one)\s[^<>=\"']{3,}>", re.I)


def check_answer(text: str) -> AnswerCheck:
    """Whether an LLM's text answer is usable, or a refusal / garbage that must not be shown as one.

    Unusable: empty or only punctuation; only chat-template tokens; a refusal ("I'm sorry, but I
    can't help with that.", "As an AI language model ...", "I cannot answer that."); an HTML
    page; a JSON fragment (truncated, or JSON without an ``answer``); a copy of a prompt's
    placeholder ("<an entity ...>"); a runaway repetition; garbled characters. A short Title-Cased phrase is never taken for a refusal, so titles such as
    "Sorry Seems to Be the Hardest Word" or "I Can't Help Myself" stay answers, and so do dates,
    numbers and honest non-answers ("Unable to determine", "The passages do not say").

    Cleaning: surrounding whitespace, a Markdown code fence and chat-template tokens are removed,
    and a JSON object with a string ``answer`` is unwrapped to that string.

    Parameters
    ----------
    text : str
        What the LLM returned for an answer step.

    Returns
    -------
    AnswerCheck
        ``text`` (cleaned) and ``problem`` ("" when usable).

    Examples
    --------
    >>> check_answer("I'm sorry, but I can't help with that.").problem
    'a refusal ("I\\'m sorry, but I can\\'t help with that.")'
    >>> check_answer("20 March 851").text
    '20 March 851'
    """
    raw = text if isinstance(text, str) else str(text)
    body = _SPECIAL_TOKENS.sub("", raw).strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()

    def bad(problem: str) -> AnswerCheck:
        return AnswerCheck("", problem, raw)

    if not body:
        return bad("an empty answer" if not raw.strip() else "only chat-template tokens")
    if not any(ch.isalnum() for ch in body):
        return bad(f"only punctuation ({_short(body, 40)!r})")
    if body.count("\ufffd") > max(2, len(body) // 20) or sum(1 for ch in body if ord(ch) < 32 and ch not in "\n\t\r") > 2:
        return bad("garbled characters")
    if _looks_like_html(body):
        return bad(f"an HTML page ({_short(body, 60)!r})")
    if body[0] in "{[":
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, RecursionError):
            return bad(f"a truncated or broken JSON fragment ({_short(body, 60)!r})")
        if isinstance(data, dict) and isinstance(data.get("answer"), (str, int, float)) \
                and not isinstance(data.get("answer"), bool):
            return check_answer(str(data["answer"]))
        return bad(f"JSON without an answer ({_short(body, 60)!r})")
    if _PLACEHOLDER.search(body):  # "<an entity, date or number from the paths>": the format line, not an answer
        return bad(f"a copy of the prompt's placeholder ({_short(body, 60)!r})")
    words = [w.lower() for w in _WORD.findall(body)]
    if len(words) >= 30 and len(set(words)) < 0.2 * len(words):
        return bad(f"a runaway repetition ({_short(body, 60)!r})")
    norm = " ".join(body.replace("’", "'").replace("‘", "'").split()).lower().lstrip("\"'*_ ")
    if not _title_like(body) and any(p.search(norm[:400]) for p in _REFUSALS):
        return bad(f'a refusal ("{_short(body, 100)}")')
    return AnswerCheck(body, "", raw)


def answer_problem(text: str) -> str:
    """Why ``text`` is no usable answer ("" when it is one); see :func:`check_answer`."""
    return check_answer(text).problem
