"""The reproductions shipped with the samples (sample_data/reproduce/, scripts/make_reproductions.py): each loads,
names its paper, covers both LLM modes, and every cell of ours carries its interval and n or a stated blank."""

from __future__ import annotations

import json

import pytest

from core.eval.paper_model import PAPER_IDS
from core.eval.paper_tables import tables_of
from core.eval.reproduce_record import FORMAT, stored_path, stored_reproduction
from core.methods.budget import BUDGETS
from core.papers import get_paper

PAPERS = list(PAPER_IDS)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_stored_reproduction_loads_and_names_its_paper_in_both_modes(paper):
    data = stored_reproduction(paper)
    assert data["paper"] == paper and data["workspace"] == "musique" and set(data["modes"]) == {"none", "recorded"}
    for mode, rec in data["modes"].items():
        assert rec["format"] == FORMAT and rec["paper"] == paper and rec["llm"] == mode
        assert rec["citation"]["title"] == get_paper(PAPER_IDS[paper]).title
        assert [t["id"] for t in rec["tables"]] == [t.id for t in sorted(tables_of(paper), key=lambda t: not t.main)]
        assert rec["budget"]["name"] == paper and rec["budget"]["limits"] == BUDGETS[paper].limits()
        assert rec["command"] == f"egx reproduce --paper {paper} --workspace musique --llm {mode}"
        q = rec["questions"]
        assert q["limit"] is None and q["n"] == len(q["ids"]) and q["n"] + len(q["left_out"]["trained_on"]) \
            + len(q["left_out"]["no_gold"]) == q["of"]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_cell_of_ours_carries_an_interval_and_n_or_says_why_it_is_blank(paper):
    for mode, rec in stored_reproduction(paper)["modes"].items():
        for t in rec["tables"]:
            for r in t["records"]:
                where = (paper, mode, t["id"], r["row"], r["metric_id"])
                if r["ours"] is None:
                    assert r["blank"].strip(), where
                else:
                    assert r["low"] is not None and r["high"] is not None and r["n"] >= 2, where
                    assert r["low"] - 1e-9 <= r["ours"] <= r["high"] + 1e-9, where
                    assert r["paper_in_interval"] in (True, False, None), where


def test_the_recorded_mode_says_which_questions_each_method_has_no_recording_for():
    for paper in PAPERS:
        rec = stored_reproduction(paper)["modes"]["recorded"]
        cov = rec["recordings"]
        assert cov["bundles"] and set(cov["methods"]) >= {m for r in rec["runs"] for m in r["methods"]}
        for m, c in cov["methods"].items():
            assert c["recorded"] + len(c["missing"]) == c["of"] == rec["questions"]["n"], (paper, m)
            assert set(c["missing"]) <= set(rec["questions"]["ids"])


def test_no_path_of_the_machine_that_made_them_ships():
    for paper in PAPERS:
        text = stored_path(paper).read_text(encoding="utf-8")
        assert "/work/" not in text and "/home/" not in text and "/tmp/" not in text, paper
        assert len(text) < 200_000, (paper, len(text))  # no per-question records: those stay in the run folders
        assert '"question_id"' not in json.dumps(json.loads(text))
