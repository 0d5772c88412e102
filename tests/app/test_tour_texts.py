"""The guided demo's texts (components/tour.py) stay true to the app: the verdicts they quote are the
app's verdict labels, the answer line they point at is the one the Ask page draws, and the demo fact
they cite is in the demo graph. A browser audit found every method of the recorded run answering the
Keanu and Lothair questions wrongly with the gold evidence retrieved, and the tour not saying how to
read that."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from components import tour
from components.answer_view import gold_answer_text
from core.eval.verdicts import VERDICT_LABELS

ROOT = Path(__file__).resolve().parents[2]


def _steps(page: str, question: str) -> list[tour.TourStep]:
    return [s for s in tour.STEPS if s.page == page and s.question == question]


def test_the_verdicts_the_tour_quotes_are_the_apps_labels():
    quoted = {q for s in tour.STEPS for q in re.findall(r"“([^”]+)”", s.what + s.look)
              if "answer" in q or "cut" in q}
    assert quoted, "the Compare step names the two kinds of failure"
    assert quoted <= set(VERDICT_LABELS.values()), quoted - set(VERDICT_LABELS.values())


def test_the_ask_step_points_at_the_gold_answer_line_the_page_draws():
    (step,) = _steps("pages/bubble_ask.py", tour.KEANU)
    label = gold_answer_text("Howard Payne", ["Hugo Weaving"])[0].split(":")[0]
    assert label == "Gold answer" and f"**{label}**" in step.look


def test_the_other_mothers_death_date_the_tour_cites_is_in_the_demo_graph():
    (step,) = _steps("pages/bubble_ask.py", tour.LOTHAIR)
    head, date = "Ermengarde of Hesbaye", "3 October 818"
    assert head in step.look and date in step.look
    with open(ROOT / "sample_data" / "demo" / "triples.csv", encoding="utf-8") as f:
        rows = [tuple(r[:3]) for r in csv.reader(f)]
    assert (head, "died on", date) in rows
    assert (head, "mother of", "Lothair I") in rows
