"""`egx bench`: the runner from the command line (demo workspace, hashing embedder)."""

from __future__ import annotations

import json

import pytest

from core.cli import main


def test_bench_demo_writes_report_and_resumes(tmp_path, capsys):
    out = tmp_path / "b"
    args = ["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,ppr", "--limit", "2",
            "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "| dense | 2 |" in text and "4 runs now, 0 already done" in text
    assert {p.name for p in out.iterdir()} >= {"results.jsonl", "summary.json", "report.md", "charts.html", "run.json",
                                               "triage.csv"}
    # the per-question triage table beside the report, its verdicts worded as the report's (one vocabulary)
    import csv

    from core.eval.triage import CONTEXT_COLUMNS, TRIAGE_COLUMNS
    from core.eval.verdicts import VERDICT_LABELS

    rows = list(csv.DictReader((out / "triage.csv").read_text(encoding="utf-8-sig").splitlines()))
    # the triage columns, then what each answer was handed (the run's budget, the context's size and ctx recall)
    assert len(rows) == 4 and list(rows[0]) == [*TRIAGE_COLUMNS, *CONTEXT_COLUMNS] and "triage.csv" in text
    assert {r["budget"] for r in rows} == {"own"} and {r["context chunks"] for r in rows} == {"5"}
    report = (out / "report.md").read_text(encoding="utf-8")
    for r in rows:
        assert VERDICT_LABELS[r["verdict key"]] in report and r["verdict"].startswith(VERDICT_LABELS[r["verdict key"]])
    assert main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["methods"]) == {"dense", "ppr"} and summary["questions"] == 2
    assert len((out / "results.jsonl").read_text().splitlines()) == 4  # resumed: nothing ran twice


def test_bench_errors(tmp_path, capsys):
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,nope",
                 "--out", str(tmp_path / "x")]) == 2
    assert "Unknown method 'nope'" in capsys.readouterr().err
    bad = tmp_path / "q.json"
    bad.write_text('{"question": "x"}', encoding="utf-8")
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--questions", str(bad),
                 "--out", str(tmp_path / "y")]) == 2
    assert "q.json: the top level is not a list" in capsys.readouterr().err
    out = tmp_path / "z"
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--limit", "1",
                 "--out", str(out)]) == 0
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--limit", "1",
                 "--cut", "2", "--out", str(out)]) == 2
    assert "holds a benchmark run with other settings" in capsys.readouterr().err


def test_bench_says_reg_without_a_trained_model_is_not_regs_retriever(tmp_path, capsys):
    """The untrained cosine fallback must never pass for ReG in a benchmark table."""
    from core.methods.reg.pipeline import NOT_TRAINED_NOTICE

    out = tmp_path / "r"
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,reg", "--limit", "2",
                 "--out", str(out)]) == 0
    cap = capsys.readouterr()
    assert f"egx bench: note: reg (2 of 2 questions): {NOT_TRAINED_NOTICE}" in cap.err
    assert "dense (" not in cap.err
    assert f"> **Note — reg** (2 of 2 questions): {NOT_TRAINED_NOTICE}" in (out / "report.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["methods"]["reg"]["notices"] == {NOT_TRAINED_NOTICE: 2}
    assert summary["methods"]["dense"]["notices"] == {}


def test_bench_set_overrides_a_method_setting(tmp_path, capsys):
    """`--set METHOD.NAME=VALUE` (e.g. `--set fastinsight.graph=passages`): the setting reaches
    the method, is recorded in run.json, and a resume with other settings is refused."""
    base = ["bench", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--methods",
            "fastinsight", "--limit", "2", "--traces"]
    out = tmp_path / "p"
    assert main([*base, "--out", str(out), "--set", "fastinsight.graph=passages", "--set", "fastinsight.b_max=20"]) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["config_changes"] == {"fastinsight": {"graph": "passages", "b_max": 20}}
    traces = list((out / "traces" / "fastinsight").glob("*.json"))
    assert len(traces) == 2
    for t in traces:
        steps = json.loads(t.read_text())["steps"]
        assert steps[0]["stage"] == "passage_graph" and steps[-2]["data"]["retrieved"] == 20
    assert main([*base, "--out", str(out), "--set", "fastinsight.graph=kg_nodes"]) == 2
    assert "holds a benchmark run with other settings" in capsys.readouterr().err
    nodes = tmp_path / "n"
    assert main([*base, "--out", str(nodes)]) == 0  # the default searches KG nodes
    t = next((nodes / "traces" / "fastinsight").glob("*.json"))
    assert json.loads(t.read_text())["steps"][0]["stage"] == "node_graph"


def test_bench_set_errors_name_the_field(tmp_path, capsys):
    base = ["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "fastinsight,dense",
            "--out", str(tmp_path / "x"), "--set"]
    cases = {
        "fastinsight.graph=nodes": "egx: error: FastInsightConfig.graph = 'nodes' is out of range; use 'kg_nodes' or "
                                   "'passages'.",
        "fastinsight.grap=passages": "egx: error: FastInsightConfig has no field ['grap']; it has ['alpha', ",
        "graph=passages": "egx: error: --set 'graph=passages' is not METHOD.NAME=VALUE; e.g. --set "
                          "fastinsight.graph=passages.",
        "ppr.damping=0.5": "egx: error: --set 'ppr.damping=0.5' names the method 'ppr', which this run does not "
                           "include (--methods fastinsight,dense).",
        "fastinsight.b_max=0": "egx: error: FastInsightConfig.b_max = 0 is out of range; use an integer >= 1.",
    }
    for pair, msg in cases.items():
        assert main([*base, pair]) == 2
        assert capsys.readouterr().err.startswith(msg), pair
    assert not (tmp_path / "x").exists()  # nothing ran, nothing written


def test_bench_node_level_turns_on_every_methods_node_ranking(tmp_path, capsys):
    """`--node-level`: dense and rerank rank the KG nodes too (FastInsight §4.3.1, Table 3), recorded like a --set
    (so a resume keeps it, and a resume without it is refused); a method without the knob is left alone."""
    out = tmp_path / "nl"
    base = ["bench", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--methods",
            "dense,rerank,ppr", "--limit", "2", "--out", str(out)]
    assert main([*base, "--node-level", "--set", "dense.node_level=false", "--set", "dense.top_k=5"]) == 0
    report = capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["config_changes"] == {"dense": {"node_level": True, "top_k": 5},
                                                 "rerank": {"node_level": True}}
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(recs) == 6 and all("node R@10" in r["metrics"] for r in recs)
    assert "## Node level (FastInsight §4.3.1, Table 3)" in report and "| dense | 2 |" in report
    assert main(base) == 2  # the same folder without --node-level: other settings
    assert "holds a benchmark run with other settings" in capsys.readouterr().err
    plain = tmp_path / "plain"
    assert main([*base[:-1], str(plain)]) == 0
    summary = json.loads((plain / "summary.json").read_text())
    assert summary["methods"]["dense"]["node_level"]["n"] == 0 and summary["methods"]["ppr"]["node_level"]["n"] == 2


def test_bench_arguments_become_one_frozen_request_then_plan(tmp_path):
    """`egx bench` turns its arguments into one frozen BenchRequest at the command line (nothing opened yet); the
    runner opens it into one BenchPlan, which the run takes alone."""
    import dataclasses

    import pytest

    from core.cli import build_parser
    from core.cli.bench import request_of
    from core.eval.plan import BenchPlan
    from core.eval.request import BenchRequest, open_plan

    args = build_parser().parse_args(
        ["bench", "--workspace", "demo", "--embedder", "hashing", "--reranker", "biencoder", "--methods",
         "dense,fastinsight", "--limit", "2", "--seed", "3", "--budget", "4", "--set", "fastinsight.b_max=20",
         "--keep-trained", "--out", str(tmp_path / "p")])
    request = request_of(args)
    assert isinstance(request, BenchRequest) and request.workspace == "demo" and request.cut is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.seed = 4  # type: ignore[misc]
    plan = open_plan(request)
    assert isinstance(plan, BenchPlan) and plan.workspace.name == "demo"
    assert plan.methods == ("dense", "fastinsight") and plan.limit == 2 and plan.seed == 3 and plan.keep_trained
    assert plan.cut == 4  # the diagnosis' cut follows the budget's chunk count
    assert plan.configs["fastinsight"].b_max == 20 and plan.meta["config_changes"] == {"fastinsight": {"b_max": 20}}
    assert plan.meta["questions_file"] == str(plan.workspace.questions_path) and plan.judge is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.cut = 5  # type: ignore[misc]


def test_bench_without_questions_is_a_usage_error_with_its_words_and_status(tmp_path, capsys):
    """No questions is an EgxError of the engine (NoQuestionsError, a ConfigError: what the app shows) and, at the
    command line, the usage error it always was: `egx bench: no questions; ...`, exit status 1."""
    from core.errors import ConfigError, NoQuestionsError
    from core.eval.request import BenchRequest, open_plan

    empty = tmp_path / "q.json"
    empty.write_text("[]", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--questions", str(empty),
              "--out", str(tmp_path / "b")])
    assert exit_.value.code == ("egx bench: no questions; give --questions FILE or a workspace that has a "
                                "questions file")  # SystemExit with a message: printed to stderr, status 1
    with pytest.raises(NoQuestionsError, match=r"^no questions; give --questions FILE") as raised:
        open_plan(BenchRequest("demo", ("dense",), tmp_path / "c", questions_file=str(empty), embedder="hashing",
                              reranker="biencoder"))
    assert isinstance(raised.value, ConfigError) and "has no questions" in raised.value.in_app()
