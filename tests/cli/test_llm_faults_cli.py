"""Every LLM path of `egx` survives every LLM fault against the scripted local
server: a clean message or a visible fallback, never a traceback, within the limits the flags set; and
every flag a message names exists."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from core.cli import build_parser, main
from tests.fake_openai import FAULTS, fake_openai_server, openai_env

QUESTION = "When did Lothair II's mother die?"
LIMITS = ["--llm", "openai", "--llm-timeout", "0.3", "--llm-retries", "1"]


def limits(fault: str) -> list[str]:
    """:data:`LIMITS`, but a fault the fake server answers at once gets 5 s: on a loaded machine (a full suite
    beside other jobs) a 0.3-s limit ran out before the server's thread answered, and the attempt failed as a
    timeout, not as the fault under test (2 requests seen, 3 failed attempts)."""
    return LIMITS if fault in ("hang", "slow_tokens") else [*LIMITS[:3], "5", *LIMITS[4:]]

FAULT_TEXT = {
    "hang": r"timed out after 0\.3 s|did not finish its reply within 0\.3 s",
    "http500": r"failed for model 'fake-model' \(HTTP 500",
    "html": r"answered HTTP 200 with an HTML page instead of a chat completion",
    "no_choices": r"answered HTTP 200 with JSON that is not a chat completion \(no 'choices'",
    "truncated": r"could not be read as a chat completion \(truncated or corrupt",
    "slow_tokens": r"did not finish its reply within 0\.3 s",
}


def _flags() -> set[str]:
    """Every option of every `egx` subcommand, nested ones (`egx samples build`) too."""
    import argparse

    def walk(parser: argparse.ArgumentParser) -> set[str]:
        out = {opt for a in parser._actions for opt in a.option_strings}
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for p in a.choices.values():
                    out |= walk(p)
        return out

    return walk(build_parser())


def assert_named_flags_exist(text: str) -> None:
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", text))
    assert named <= _flags(), f"messages name flags that do not exist: {sorted(named - _flags())}"


@pytest.fixture
def server(monkeypatch):
    with fake_openai_server() as s:
        for k, v in openai_env(s).items():
            monkeypatch.setenv(k, v)
        yield s


def _corpus(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in [
        {"title": "The Matrix", "text": "Keanu Reeves starred in The Matrix with Laurence Fishburne."},
        {"title": "Agent Smith", "text": "Agent Smith is played by Hugo Weaving."},
        {"title": "John Wick", "text": "John Wick is a 2014 film starring Keanu Reeves."}]), encoding="utf-8")
    return p


def _qa(tmp_path: Path) -> Path:
    p = tmp_path / "qa.json"
    p.write_text(json.dumps([{"id": f"q{i}", "question": q, "answer": a} for i, (q, a) in enumerate([
        ("Who played Agent Smith?", "Hugo Weaving"), ("Who starred in The Matrix?", "Keanu Reeves"),
        ("What is Lothair II son of?", "Lothair I"), ("Who died on 20 March 851?", "Ermengarde of Tours")])]),
        encoding="utf-8")
    return p


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_ask_falls_back_visibly(server, capsys, fault):
    server.reply(FAULTS[fault])
    t0 = time.monotonic()
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--json", *limits(fault)]) == 0
    took = time.monotonic() - t0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"]
    text = "\n".join(out["fallbacks"])
    assert re.search(FAULT_TEXT[fault], text), text
    assert "circuit breaker" in text
    assert out["llm"]["failed_attempts"] == 3 and out["llm"]["skipped_calls"] >= 4
    assert server.chat_requests == 3
    assert took < 8.0
    assert_named_flags_exist(text)


def test_ask_text_output_says_what_the_llm_cost(server, capsys):
    server.reply(FAULTS["http500"])
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", *LIMITS]) == 0
    out = capsys.readouterr().out
    assert re.search(r"  LLM: \d+ call\(s\), 3 failed attempt\(s\), \d+ skipped, \d+\.\d s of a 300 s budget", out)
    assert "fallback — keywords: " in out and "circuit breaker" in out


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_index_with_the_llm_extractor_stops_with_a_clean_error(server, tmp_path, capsys, fault):
    server.reply(FAULTS[fault])
    ws = tmp_path / "w"
    code = main(["index", str(_corpus(tmp_path)), "--workspace", str(ws), "--embedder", "hashing", *LIMITS])
    err = capsys.readouterr().err
    assert code == 2, err
    # (the message is taken from its own line: whether a progress bar is glued to it is tested elsewhere)
    msg = err[err.index("egx: error: "):].splitlines()[0]
    assert msg.startswith("egx: error: Triple extraction stopped at chunk 1 of 3: "), err
    assert re.search(FAULT_TEXT[fault], msg), msg
    assert msg.rstrip().endswith("The 0 chunk(s) done so far are cached; fix the LLM endpoint and run the same "
                                 "command again to resume.")
    assert "Traceback" not in err and not ws.exists()
    assert server.chat_requests <= 3
    assert_named_flags_exist(err)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_bench_records_fallbacks_and_the_breaker_spares_later_questions(server, tmp_path, capsys, fault):
    server.reply(FAULTS[fault])
    out = tmp_path / "b"
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "bubblerag,dense",
                 "--limit", "3", "--out", str(out), *LIMITS]) == 0
    capsys.readouterr()
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(recs) == 6 and all(r["error"] is None for r in recs)
    assert all(r["fallbacks"] for r in recs)
    assert server.chat_requests == 3  # the breaker stays open across questions during its cooldown
    text = "\n".join(f for r in recs for f in r["fallbacks"])
    assert re.search(FAULT_TEXT[fault], text)
    assert_named_flags_exist(text)


@pytest.mark.parametrize("fault", ["hang", "html", "truncated"])
def test_train_reg_refined_is_refused_when_every_llm_selection_fails(server, tmp_path, capsys, fault):
    server.reply(FAULTS[fault])
    from core.backends.embedders import HashingEmbedder
    from core.index.samples import ensure_sample_workspace

    ws = ensure_sample_workspace("demo", HashingEmbedder(), root=tmp_path / "ws")
    assert main(["train-reg", "--workspace", str(ws.path), "--questions", str(_qa(tmp_path)), "--embedder",
                 "hashing", "--epochs", "2", "--supervision", "refined", "--out", str(tmp_path / "m"), "--json",
                 *LIMITS]) == 2
    assert "none of the" in capsys.readouterr().err  # weak labels are never saved as a refined model
    assert not (tmp_path / "m").exists()
    assert server.chat_requests <= 3


@pytest.mark.parametrize("fault", ["hang", "html"])
def test_make_erqa_keeps_its_template_text_when_the_llm_fails(server, tmp_path, capsys, fault):
    from tests.conftest import SHARED_DATA

    server.reply(FAULTS[fault])
    out = tmp_path / "q.json"
    assert main(["make-erqa", "--kg", str(SHARED_DATA / "umls_named"), "--n", "3", "--max-answers", "3",
                 "--out", str(out), *LIMITS]) == 0
    assert len(json.loads(out.read_text())) >= 1
    assert server.chat_requests <= 3


def test_bad_limit_flags_and_variables_are_clean_errors(server, capsys, monkeypatch):
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--llm", "openai",
                 "--llm-timeout", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("egx: error: LLM timeout = -1.0 is out of range; use a number of seconds > 0 "
                          "(--llm-timeout or EGX_LLM_TIMEOUT")
    monkeypatch.setenv("EGX_LLM_BUDGET", "lots")
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--llm", "openai"]) == 2
    assert "egx: error: EGX_LLM_BUDGET = 'lots' is not a number of seconds" in capsys.readouterr().err


def test_every_limit_flag_exists_on_every_llm_command():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for cmd in ("ask", "bench", "index", "train-reg", "make-erqa"):
        opts = {o for a in sub.choices[cmd]._actions for o in a.option_strings}
        assert {"--llm", "--llm-timeout", "--llm-retries", "--llm-budget"} <= opts, cmd


#: flags of other tools the code names (pip install hints, streamlit run options)
OTHER_TOOLS_FLAGS = {"--force-reinstall", "--no-deps", "--server", "--browser", "--client", "--runner",
                     # redis-server (core/graph/stores/falkor_server.py starts FalkorDB) and that script's own options
                     "--loadmodule", "--save", "--bind", "--dir", "--appendonly", "--protected-mode", "--data-dir",
                     # `ray start --head`, named in core/batch/ray_runner.py's message about joining a Ray cluster
                     "--head",
                     }


def _script_flags(script: str) -> set[str]:
    """The options a project script declares (scripts/check_recordings.py is named in core/backends' messages
    about an edited bundle: --stamp, --prune, --retape)."""
    from tests.conftest import ROOT

    return set(re.findall(r"add_argument\(\s*\"(--[a-z][a-z-]+)\"", (ROOT / script).read_text(encoding="utf-8")))


def test_messages_in_the_code_name_only_flags_that_exist():
    """Every `--flag` in a string literal of core/ is an option of some `egx` command (the old
    "raise --timeout" named one that did not exist)."""
    import ast

    from tests.conftest import ROOT

    flags = _flags() | {"--help"} | _script_flags("scripts/check_recordings.py")
    assert {"--stamp", "--prune", "--retape"} <= flags  # the script's own options are read, not listed by hand
    bad = []
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]+[a-z]", node.value):
                    if flag not in flags and flag not in OTHER_TOOLS_FLAGS:
                        bad.append(f"{path.relative_to(ROOT)}: {flag}")
    assert not bad, bad
