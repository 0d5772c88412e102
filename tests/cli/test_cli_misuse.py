"""Command-line misuse: each ends in one `egx: error:` line naming the fix, exit 2."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from core.cli import main
from core.errors import ConfigError
from core.methods.registry import get_method, method_names


@pytest.mark.parametrize("value, word", [("abc", "is not an integer"), ("true", "is not an integer"),
                                         ("2.5", "is not an integer"), ("[1]", "is not an integer")])
def test_set_with_a_value_of_the_wrong_type_is_a_clean_error(tmp_path, capsys, value, word):
    """Before: `--set top_k=abc` was a TypeError traceback; true and 2.5 were taken silently."""
    rc = main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense",
               "--set", f"dense.top_k={value}", "--limit", "1", "--out", str(tmp_path / "out")])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("egx: error: DenseConfig.top_k = ") and word in err and "give an integer" in err
    rc = main(["ask", "--workspace", "demo", "--embedder", "hashing", "--method", "dense", "--llm", "none",
               "--set", f"top_k={value}", "Who directed The Matrix?"])
    assert rc == 2 and word in capsys.readouterr().err


def test_every_scalar_field_of_every_method_refuses_the_wrong_type():
    """int, float, bool and str fields, each given a value of another type; an integral float is an int."""
    wrong = {int: ["x", True, 2.5, None], float: ["x", False, float("nan"), None], bool: [1, "yes", None],
             str: [3, None]}
    for name in method_names():
        cfg = get_method(name).make_config()
        hints = typing.get_type_hints(type(cfg))
        for f in dataclasses.fields(cfg):
            kind = hints[f.name]
            for bad in wrong.get(kind, []):
                with pytest.raises(ConfigError, match=rf"\.{f.name} = .* is not "):
                    cfg.with_(**{f.name: bad})
            if kind is int:
                assert cfg.with_(**{f.name: float(getattr(cfg, f.name))}) == cfg


@pytest.mark.parametrize("port", ["99999", "0", "http"])
def test_app_port_out_of_range_is_a_usage_error(capsys, port):
    """Before: `egx app --port 99999` started Streamlit and died with an OverflowError traceback."""
    with pytest.raises(SystemExit) as exit_:
        main(["app", "--port", port, "--no-prebuild"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port" in err and "1-65535" in err


def test_workspaces_root_that_is_no_folder_is_an_error(tmp_path, capsys):
    """Before: `egx workspaces --root /nonexistent` listed the samples and exited 0."""
    assert main(["workspaces", "--root", str(tmp_path / "nope")]) == 2
    assert "is no folder" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["workspaces", "--root", str(tmp_path / "file")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["workspaces", "--root", str(tmp_path)]) == 0
