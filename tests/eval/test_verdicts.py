"""The one verdict vocabulary and the answer match (EM / F1 / alias / partial) beside every verdict."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from core.eval.verdicts import (
    ANSWER_PARTIAL,
    ERROR,
    MATCH_LABELS,
    VERDICT_KEYS,
    VERDICT_LABELS,
    diagnosis_verdict,
    match_answer,
    record_verdict,
    verdict,
)
from core.methods.base import STAGE_LABELS, STAGE_ORDER, VERDICTS, Diagnosis
from core.text import normalize_answer

ROOT = Path(__file__).resolve().parents[2]


def _oracle_f1(pred: str, gold: str) -> float:
    """SQuAD v1.1 F1 written out again (evaluate-v1.1.py) for the oracle."""
    p, g = normalize_answer(pred).split(), normalize_answer(gold).split()
    same = sum((Counter(p) & Counter(g)).values())
    if not p or not g or not same:
        return float(p == g)
    pr, rc = same / len(p), same / len(g)
    return 2 * pr * rc / (pr + rc)


@pytest.mark.parametrize(("answer", "golds", "kind", "em", "f1"), [
    ("Hugo Weaving", ["Hugo Weaving"], "exact", 1.0, 1.0),
    ("hugo weaving.", ["Hugo Weaving"], "exact", 1.0, 1.0),  # case and punctuation normalised
    ("The Anglican Communion", ["the Anglican Communion"], "exact", 1.0, 1.0),  # articles dropped
    ("Weaving", ["Hugo Weaving"], "part", 0.0, 2 / 3),  # a surname: part of the gold answer, F1 0.67
    ("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"], "alias", 1.0, 1.0),  # MuSiQue answer_aliases
    ("Stanley Hall", ["G. Stanley Hall"], "part", 0.0, 0.8),  # without the alias: only part of it
    ("Hugo Weaving played Agent Smith", ["Hugo Weaving"], "contains", 0.0, _oracle_f1("Hugo Weaving played Agent Smith",
                                                                                     "Hugo Weaving")),
    ("26 March 851", ["20 March 851"], "overlap", 0.0, 2 / 3),  # a wrong date is not partly right
    ("Laurence Fishburne", ["Hugo Weaving"], "none", 0.0, 0.0),
    # only a function word shared: SQuAD's F1 counts "of", but no content is shared (an audit read "some words
    # shared" beside a wrong person on a class's screen)
    ("Ermengarde of Tours", ["Judith of Bavaria"], "none", 0.0, 1 / 3),
    ("Duke of London", ["Tower of London"], "overlap", 0.0, 2 / 3),  # "London" is content: shared words
    ("", ["Hugo Weaving"], "no_answer", 0.0, 0.0),
])
def test_match_answer_oracle(answer, golds, kind, em, f1):
    m = match_answer(answer, golds)
    assert m.kind == kind
    assert m.em == em
    assert m.f1 == pytest.approx(f1)
    assert m.f1 == pytest.approx(max(_oracle_f1(answer, g) for g in golds))


def test_match_answer_without_gold_has_no_scores():
    m = match_answer("anything", [])
    assert (m.kind, m.em, m.f1) == ("no_gold", None, None)
    assert match_answer("x", ["", "  "]).kind == "no_gold"  # blank gold strings are no gold answer


def test_match_labels():
    assert match_answer("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"]).label == "alias match (Stanley Hall)"
    assert match_answer("Weaving", ["Hugo Weaving"]).label == "partial match (part of the gold answer)"
    assert match_answer("Ermengarde of Tours", ["Judith of Bavaria"]).label == "no match (only “of” shared)"
    assert match_answer("Laurence Fishburne", ["Hugo Weaving"]).label == "no match"
    assert set(MATCH_LABELS) == {"exact", "alias", "contains", "part", "overlap", "none", "no_answer", "no_gold"}


def test_verdict_splits_a_partly_right_answer_from_a_wrong_one():
    partial = verdict("answer_wrong", match_answer("Weaving", ["Hugo Weaving"]))
    assert partial.key == ANSWER_PARTIAL and partial.label == "retrieved, answer partly right (F1 0.67)"
    assert partial.tone == "partial" and partial.failure  # EM is the metric: still a failure
    wrong = verdict("answer_wrong", match_answer("26 March 851", ["20 March 851"]))
    assert wrong.key == "answer_wrong" and wrong.label == STAGE_LABELS["answer_wrong"] and wrong.failure
    assert verdict("ok", match_answer("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"])).label == "ok (alias match)"
    # a quoted sentence (no LLM) is judged by holding the gold answer: the label says so (audit 57 read a bare "ok"
    # for "… the ferryman by Idris Palemont himself" asked for the father)
    quoted = verdict("ok", match_answer("It was played by the ferryman by Idris Palemont himself.", ["Idris Palemont"]))
    assert quoted.label == "ok (the quoted sentence holds it)" and quoted.tone == "ok"
    assert verdict("ok", match_answer("Idris Palemont", ["Idris Palemont"])).label == "ok"
    assert not verdict("ok").failure and not verdict("no_gold").failure and verdict("no_gold").tone == "info"
    assert verdict(None).key == ERROR and verdict(None).label == "method failed" and verdict(None).failure
    # a retrieval verdict does not depend on the answer
    assert verdict("ranked_out", match_answer("Weaving", ["Hugo Weaving"])).label == "ranked below the cut"


def test_vocabulary_covers_every_diagnosis_verdict():
    assert set(VERDICTS) | {ANSWER_PARTIAL, ERROR} == set(VERDICT_KEYS)
    assert list(VERDICT_KEYS[:len(STAGE_ORDER)]) == list(STAGE_ORDER)
    assert all(VERDICT_LABELS[k] for k in VERDICT_KEYS)
    assert len(set(VERDICT_LABELS.values())) == len(VERDICT_LABELS)  # no two verdicts read the same


def test_diagnosis_and_record_verdicts_agree():
    """The badge (a Diagnosis) and the benchmark table (its record) word one verdict the same way."""
    ev = {"answer": {"judged": True, "em": 0.0, "f1": 0.6667, "text": "Weaving", "gold": ["Hugo Weaving"]}}
    diag = Diagnosis("bubblerag", "answer_wrong", "Every gold passage is in the top 5, but the answer is wrong.", ev)
    rec = {"method": "bubblerag", "answer": "Weaving", "answers": ["Hugo Weaving"], "diagnosis": diag.to_dict()}
    assert diagnosis_verdict(diag) == record_verdict(rec)
    assert record_verdict({"answer": "", "answers": [], "diagnosis": None, "error": "QueryError: x"}).key == ERROR


def _uses(path: Path, name: str) -> list[int]:
    """Lines where the name ``name`` is used in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            out.append(node.lineno)
    return out


def test_verdict_labels_are_made_only_by_the_vocabulary():
    """Pages, components and reports word verdicts through core.eval.verdicts, never STAGE_LABELS directly
    (the table and the badge once used two different wordings)."""
    allowed = {ROOT / "core" / "methods" / "base.py", ROOT / "core" / "eval" / "verdicts.py",
               ROOT / "core" / "eval" / "diagnose.py"}  # the definition, the vocabulary, the re-export
    offenders = []
    for folder in ("core", "components", "pages", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            if path not in allowed and _uses(path, "STAGE_LABELS"):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
    # the pages compose panels: the Benchmark and Compare panels word the verdicts
    for rel in ("components/benchmark_view.py", "components/compare_view.py", "core/eval/report.py",
                "core/eval/triage.py"):
        assert "core.eval.verdicts import" in (ROOT / rel).read_text(encoding="utf-8"), rel


def test_a_surname_from_the_llm_reads_partly_right_through_the_diagnosis():
    """Every gold passage retrieved and the LLM answers "Weaving": the diagnosis keeps SQuAD's answer_wrong (EM 0),
    the vocabulary words it "partly right (F1 0.67)"; an alias of the dataset is an exact match (ok)."""
    from core.eval.diagnose import diagnose
    from core.methods.base import Gold
    from tests.eval.test_diagnose import fake, toy_workspace

    ws = toy_workspace()
    gold = Gold("q", ("c1", "c2"), ("Hugo Weaving",))
    d = diagnose(fake("dense", ["c1", "c2"], "Weaving", llm=True), ws, gold)
    assert d.stage == "answer_wrong" and "not an exact match" in d.summary and "F1 0.67" in d.summary
    v = diagnosis_verdict(d)
    assert (v.key, v.label, v.tone) == (ANSWER_PARTIAL, "retrieved, answer partly right (F1 0.67)", "partial")
    d = diagnose(fake("dense", ["c1", "c2"], "Keanu Reeves", llm=True), ws, gold)
    assert diagnosis_verdict(d).label == "retrieved, answer wrong"
    aliased = Gold("q", ("c1", "c2"), ("Hugo Wallace Weaving", "Hugo Weaving"))
    d = diagnose(fake("dense", ["c1", "c2"], "Hugo Weaving", llm=True), ws, aliased)
    assert d.stage == "ok" and diagnosis_verdict(d).label == "ok (alias match)"
