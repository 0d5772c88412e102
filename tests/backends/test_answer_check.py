"""check_answer: refusals and garbage are never an answer; real answers — titles
that start like a refusal, dates, numbers, honest "cannot tell" — always are."""

from __future__ import annotations

import pytest

from core.backends.answer_check import answer_problem, check_answer

REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I’m sorry, but I can’t help with that.",
    "I'm sorry, I can't assist with that request.",
    "I am sorry, but I cannot provide that information.",
    "I'm afraid I can't answer that.",
    "Sorry, but I can't help with that.",
    "Sorry, I cannot comply with this request.",
    "Apologies, but I'm unable to help with that.",
    "I apologize, but I cannot answer this question.",
    "Unfortunately, I am unable to provide an answer.",
    "I can't help with that.",
    "I cannot answer that question.",
    "I'm unable to assist with this.",
    "I'm not able to provide an answer to that.",
    "I won't provide that.",
    "I cannot fulfill this request.",
    "As an AI language model, I cannot browse the internet.",
    "As an AI, I don't have personal opinions.",
    "I must decline to answer.",
    "That request goes against my guidelines.",
    "I'm sorry, but I don't have information about that.",
    "  **I'm sorry, but I can't help with that.**",
]

GARBAGE = [
    ('{"answer": "Hugo', "a truncated or broken JSON fragment"),
    ('{"answer": "Hugo Weaving", "confi', "a truncated or broken JSON fragment"),
    ('["Hugo Weaving", ', "a truncated or broken JSON fragment"),
    ('{"keywords": ["Lothair II"]}', "JSON without an answer"),
    ("```json\n{\"answer\": \n```", "a truncated or broken JSON fragment"),
    ("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "an HTML page"),
    ("", "an empty answer"),
    ("   \n", "an empty answer"),
    ("<|im_end|>", "only chat-template tokens"),
    ("...", "only punctuation"),
    ("?", "only punctuation"),
    ("Hugo Weaving " * 40, "a runaway repetition"),
    ("\ufffd\ufffd\ufffd\ufffd", "only punctuation"),
    ("Hu\ufffd\ufffdgo \ufffd\ufffd W\ufffd", "garbled characters"),
]

REAL_ANSWERS = [
    "Sorry Seems to Be the Hardest Word",
    "I Can't Help Myself (Sugar Pie Honey Bunch)",
    "I Can't Help Falling in Love with You",
    "I'm Sorry",
    "I Won't Back Down",
    "As an AI",  # a Title-Cased name (a book, a film) stays an answer
    "20 March 851",
    "851",
    "1999",
    "$1.2 billion",
    "Hugo Weaving",
    "Ermengarde of Tours",
    "Unable to determine",
    "The passages do not say.",
    "No",
    "Yes, both films were directed by the Wachowskis.",
    "Sorry, Blame It on Me",
    "Unfortunately Yours",
    "C++",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_detected(text):
    res = check_answer(text)
    assert not res.ok and res.text == "" and res.raw == text
    assert res.problem.startswith('a refusal ("') and res.problem.endswith('")')


@pytest.mark.parametrize(("text", "problem"), GARBAGE)
def test_garbage_is_detected(text, problem):
    assert answer_problem(text).startswith(problem)


@pytest.mark.parametrize("text", REAL_ANSWERS)
def test_real_answers_are_kept(text):
    res = check_answer(text)
    assert res.ok, res.problem
    assert res.text == text.strip()


def test_cleaning_unwraps_json_answers_and_fences():
    assert check_answer('{"answer": "Hugo Weaving"}').text == "Hugo Weaving"
    assert check_answer('```\n{"answer": 851}\n```').text == "851"
    assert check_answer("  Hugo Weaving<|im_end|>").text == "Hugo Weaving"
    assert check_answer('{"answer": "I\'m sorry, but I can\'t help with that."}').problem.startswith("a refusal")


def test_the_exact_refusal_message():
    assert answer_problem("I'm sorry, but I can't help with that.") == \
        'a refusal ("I\'m sorry, but I can\'t help with that.")'
