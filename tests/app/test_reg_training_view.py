"""The Evidence chains page's record of its trained retrievers, read after a reload: an audit trained on 12 questions
(2 held out), reloaded, and found the held-out table with a raw ``None`` and snake_case headers, a bar group with no
bars and no reason, and nothing saying whether the new model was installed or kept aside."""

from __future__ import annotations

import math

from components.charts import heldout_figure
from components.reg_view import training_table, verdict_lines

RUNS = {
    "retriever (weak)": {"supervision": "weak", "best_epoch": 47, "verdict": "no worse than untrained cosine: answer "
                         "hit@30 0.500 vs 0.500 (2 questions)",
                         "test": {"gold_passage_recall": float("nan"), "answer_hit": 0.5, "label_recall": 0.667},
                         "baseline_test": {"gold_passage_recall": None, "answer_hit": 0.5, "label_recall": 0.556},
                         "counts": {"train_examples": 8, "val_examples": 2}},
    "retriever-aside (weak)": {"supervision": "weak", "best_epoch": 12, "kept_aside": True,
                               "verdict": "it loses to untrained cosine: answer hit@30 0.000 vs 1.000",
                               "test": {"answer_hit": 0.0}, "baseline_test": {"answer_hit": 1.0}, "counts": {}},
}


def test_the_held_out_table_reads_in_words_with_n_a_for_a_missing_target():
    df = training_table(RUNS, 30)
    assert "held-out gold-passage triple recall@30" in df.columns and "train examples" in df.columns
    assert not any("_" in c for c in df.columns), list(df.columns)
    row = df.iloc[0]
    assert row["held-out gold-passage triple recall@30"] == "n/a" and row["held-out answer hit@30"] == "0.500"
    assert "None" not in df.astype(str).to_string() and "nan" not in df.astype(str).to_string()


def test_an_installed_run_says_so_with_the_comparison_that_installed_it():
    lines = verdict_lines(RUNS)  # the kept-aside run is said by the Train panel, with its "Use it anyway"
    assert len(lines) == 1 and lines[0].startswith("retriever (weak) — **installed**: the scorer `reg` uses now; "
                                                   "no worse than"), lines
    assert verdict_lines({"shipped (refined)": {"supervision": "refined"}}) == []  # no verdict recorded: nothing said


def test_a_figure_no_held_out_question_has_is_named_not_left_blank():
    fig = heldout_figure(RUNS, 30)
    names = list(fig.data[0].x)
    assert names[0].startswith("gold-passage triple recall@30<br>(n/a"), names
    assert names[1] == "answer hit@30"
    assert all(y is None or not math.isnan(y) for t in fig.data for y in t.y)
    # a 0.000 is written on its (invisible) bar, not left to read as missing (an audit)
    aside = next(t for t in fig.data if t.name == "retriever-aside (weak)")
    assert list(aside.text)[1] == "0.00"


def test_the_curve_choices_read_in_words():
    from components.reg_view import CURVES

    assert CURVES == {"val_recall": "validation recall", "train_loss": "training loss",
                      "val_loss": "validation loss"}


def test_the_held_out_tables_headers_are_short_with_the_whole_name_in_their_tooltip():
    """Audit 40: the table's last column was cut ("train ex…") at 1440 px."""
    from components.reg_view import training_columns

    cols = training_columns(list(training_table(RUNS, 30).columns))
    assert cols["held-out gold-passage triple recall@30"]["label"] == "gold triples@30"
    assert "held-out gold-passage triple recall@30" in cols["held-out gold-passage triple recall@30"]["help"]
    assert cols["train examples"]["label"] == "train" and cols["held-out answer hit@30"]["label"] == "answer hit@30"
    assert max(len(c["label"]) for c in cols.values()) <= 15
