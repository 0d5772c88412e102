"""benchmarks/reg_heldout.py: ReG's scorers on the held-out questions, every pair compared on the same questions."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "reg_heldout.py"
_spec = importlib.util.spec_from_file_location("reg_heldout", _PATH)
assert _spec is not None and _spec.loader is not None
reg_heldout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reg_heldout)


def test_named_splits_name_and_path_at_the_first_equals_sign() -> None:
    assert reg_heldout.named("shipped=sample_data/x=y") == ("shipped", "sample_data/x=y")
    for bad in ("shipped", "=dir", "name="):
        with pytest.raises(argparse.ArgumentTypeError):
            reg_heldout.named(bad)


def test_recall_at_counts_the_target_among_the_k_best_and_none_without_a_target() -> None:
    scores = np.array([0.9, 0.1, 0.8, 0.7])
    assert reg_heldout.recall_at(scores, np.array([True, True, False, False]), 2) == 0.5
    assert reg_heldout.recall_at(scores, np.array([True, False, True, True]), 3) == 1.0
    assert reg_heldout.recall_at(scores, np.zeros(4, dtype=bool), 2) is None


def test_summarise_pairs_every_two_scorers_in_order_on_the_questions_both_have() -> None:
    per = {"new": {"m": {"q1": 1.0, "q2": 0.5, "q3": 0.0}},
           "shipped": {"m": {"q1": 0.5, "q2": 0.5}},
           "cosine": {"m": {"q1": 0.0, "q2": 0.0, "q3": 0.0}}}
    out = reg_heldout.summarise(per)
    assert out["means"]["new"]["m"] == {"mean": 0.5, "n": 3} and out["means"]["shipped"]["m"]["n"] == 2
    pairs = {(p["a"], p["b"]): p for p in out["paired"]}
    assert list(pairs) == [("new", "shipped"), ("new", "cosine"), ("shipped", "cosine")]
    assert pairs["new", "shipped"]["n"] == 2 and pairs["new", "shipped"]["mean_difference"] == pytest.approx(0.25)
    assert pairs["new", "cosine"]["n"] == 3 and pairs["new", "cosine"]["mean_difference"] == pytest.approx(0.5)
    low, high = pairs["new", "cosine"]["interval"]
    assert low <= 0.5 <= high


def test_a_model_holding_out_other_questions_is_refused(tmp_path: Path) -> None:
    for name, test in (("a", ["q1", "q2"]), ("b", ["q2", "q1"])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text(json.dumps({"split": {"test": test}}))
    reg_heldout.check_splits(["q1", "q2"], {"a": tmp_path / "a"})
    with pytest.raises(SystemExit, match=r"weak model's test split.*--train-weak"):
        reg_heldout.check_splits(["q1", "q2"], {"a": tmp_path / "a", "weak": tmp_path / "b"})


def test_selections_of_another_llm_or_form_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "selections.json"
    f.write_text(json.dumps({"provenance": {"model_id": "m", "selection": "stepwise"}, "selections": {"q1": {}}}))
    assert reg_heldout.read_selections(f, {"llm": "m", "selection": "stepwise"}) == {"q1": {}}
    with pytest.raises(SystemExit, match="not made by this model's LLM"):
        reg_heldout.read_selections(f, {"llm": "m", "selection": "one-shot"})


@pytest.mark.parametrize("argv", [["--compare", "cosine=d"], ["--name", "x", "--compare", "x=d"]])
def test_scorer_names_must_be_distinct_before_any_work(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        reg_heldout.main(argv)
