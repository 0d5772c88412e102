"""AR@k, SQuAD EM / token F1, per-stage latency and LLM tokens against hand-computed cases."""

from __future__ import annotations

import pytest

from core.eval.metrics import all_recall_at_k, llm_tokens, ndcg_at_k, recall_at_k, stage_latency
from core.text import answer_scores, exact_match, normalize_answer, token_f1
from core.trace import Trace


@pytest.mark.parametrize(("raw", "norm"), [
    ("The Eiffel Tower", "eiffel tower"),
    ("  an   apple.  ", "apple"),
    ("Hugo Weaving!", "hugo weaving"),
    ("A.B.C", "abc"),
    ("the theatre", "theatre"),  # "the" inside a word is kept
    ("", ""),
])
def test_squad_normalisation(raw, norm):
    assert normalize_answer(raw) == norm


def test_exact_match_and_f1_hand_computed():
    assert exact_match("The Hugo Weaving.", "hugo weaving") == 1.0
    assert exact_match("Hugo", "Hugo Weaving") == 0.0
    # pred tokens {hugo}, gold {hugo, weaving}: P = 1, R = 1/2, F1 = 2/3
    assert token_f1("Hugo", "Hugo Weaving") == pytest.approx(2 / 3)
    # "in 1869 the year" vs "1869": P = 1/3 (in, 1869, year), R = 1 → F1 = 0.5
    assert token_f1("in 1869, the year", "1869") == pytest.approx(0.5)
    # multiplicity counts: pred "a a b" (articles dropped → "b"), gold "b b": P = 1, R = 1/2
    assert token_f1("a a b", "b b") == pytest.approx(2 / 3)
    assert token_f1("x y", "z") == 0.0
    assert token_f1("the", "a") == 1.0  # both normalise to nothing: equal, as in SQuAD


def test_answer_scores_take_best_alias():
    em, f1 = answer_scores("Lothair I", ["Ermengarde of Tours", "Lothair I"])
    assert (em, f1) == (1.0, 1.0)
    em, f1 = answer_scores("Ermengarde", ["Ermengarde of Tours", "Irmingard"])
    assert em == 0.0 and f1 == pytest.approx(2 * (1 * 1 / 3) / (1 + 1 / 3))
    with pytest.raises(ValueError, match="no gold answer"):
        answer_scores("x", [])


def test_all_recall_and_recall_and_ndcg_hand_computed():
    ranked = ["a", "x", "b", "y", "c"]
    assert all_recall_at_k(ranked, {"a", "b"}, 2) == 0.0
    assert all_recall_at_k(ranked, {"a", "b"}, 3) == 1.0
    assert all_recall_at_k(ranked, {"a", "b", "z"}, 5) == 0.0
    assert recall_at_k(ranked, {"a", "b", "z"}, 5) == pytest.approx(2 / 3)
    # DCG = 1/log2(2) + 1/log2(4) = 1.5; ideal (2 relevant... 3 gold, k = 5) = 1 + 1/log2(3) + 1/2
    ideal = 1 + 1 / 1.584962500721156 + 0.5
    assert ndcg_at_k(ranked, {"a", "b", "z"}, 5) == pytest.approx(1.5 / ideal)
    with pytest.raises(ValueError, match="k must be at least 1"):
        all_recall_at_k(ranked, {"a"}, 0)
    with pytest.raises(ValueError, match="gold set is empty"):
        all_recall_at_k(ranked, set(), 2)


def test_stage_latency_and_tokens_from_trace():
    t = Trace("m", "q")
    t.add("a", "A", seconds=0.5, prompt_tokens=10, completion_tokens=2)
    t.add("b", "B", seconds=0.25)
    t.add("a", "A again", seconds=0.5, prompt_tokens=5, completion_tokens=1)
    assert stage_latency(t) == {"a": 1.0, "b": 0.25}
    assert list(stage_latency(t)) == ["a", "b"]
    assert llm_tokens(t) == {"prompt": 15, "completion": 3, "total": 18}
