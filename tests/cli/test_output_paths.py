"""Every path an `egx` command writes to goes through the one safe writer (core/outputs.py): a file option never
renames over a device, a named pipe or a symbolic link, and a folder option writes only into a new, empty or
egx-made folder. The options are found by walking the parser, so a new command or option is covered (or the
enumeration test fails until it is declared)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

from core.cli import build_parser, main
from core.cli_support import OutputPath
from core.outputs import OUTPUT_MARKER

#: value-taking options that are not output paths, by what they are. Inputs are only read; `--workspace` of
#: `egx index` is built by core.index.create, which refuses a file, a device or a folder that is not a
#: workspace (test_index_workspace_on_a_device_or_a_file_is_refused below).
INPUTS = {"inputs", "--kg", "--questions", "--root", "--workspace"}
NOT_PATHS = {"--address", "--budget", "--embedder", "--extractor", "--llm", "--method", "--methods", "--name",
             "--only", "--passages", "--port", "--prepare", "--ray", "--relations", "--reranker", "--rows", "--sample", "--set",
             "--store", "names", "question"}


def _options(parser: argparse.ArgumentParser, command: tuple[str, ...] = ()):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _options(sub, (*command, name))
        else:
            yield command, a


def output_options() -> list[tuple[tuple[str, ...], str, str]]:
    """(command, flag, "file" | "folder") of every option declared with core.cli_support.output_*_arg."""
    return sorted((cmd, a.option_strings[0], a.type.kind) for cmd, a in _options(build_parser())
                  if isinstance(a.type, OutputPath))


OUTPUTS = output_options()


def test_every_value_option_is_an_output_path_an_input_or_no_path():
    """A new option that takes a text value must be declared: an output through output_file_arg /
    output_folder_arg (checked, and covered by the tests below), or named here as an input or no path."""
    unknown = []
    for cmd, a in _options(build_parser()):
        if a.nargs == 0 or a.choices is not None or a.type in (int, float) or isinstance(a.type, OutputPath):
            continue
        if isinstance(a, argparse._HelpAction):
            continue
        name = a.option_strings[0] if a.option_strings else a.dest
        if name not in INPUTS | NOT_PATHS:
            unknown.append(f"egx {' '.join(cmd)} {name}")
    assert unknown == []


def test_the_known_output_options_are_all_declared():
    assert OUTPUTS == [(("ablate",), "--out", "folder"), (("ask",), "--trace", "file"),
                       (("bench",), "--out", "folder"), (("make-erqa",), "--out", "file"),
                       (("record",), "--out", "file"), (("reproduce",), "--out", "folder"),
                       (("train-reg",), "--out", "folder")]


# ------------------------------------------------------------------------------------------- hostile targets
def _fifo(tmp_path: Path) -> Path:
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


def _link(tmp_path: Path) -> Path:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    return link


def _thesis(tmp_path: Path) -> Path:
    home = tmp_path / "thesis"
    home.mkdir()
    (home / "chapter1.tex").write_text("four years")
    return home


def _state(p: Path) -> tuple:
    st = os.lstat(p)
    kind = stat.S_IFMT(st.st_mode)
    extra = sorted(os.listdir(p)) if stat.S_ISDIR(st.st_mode) and str(p) != "/" else None
    return kind, st.st_ino, extra, (p.resolve().read_text() if p.is_symlink() else None)


FILE_TARGETS = {"dev_null": lambda t: Path("/dev/null"), "dev_full": lambda t: Path("/dev/full"), "fifo": _fifo,
                "symlink": _link, "folder": lambda t: t}
FOLDER_TARGETS = {"root": lambda t: Path("/"), "thesis_folder": _thesis, "dev_null": lambda t: Path("/dev/null"),
                  "fifo": _fifo, "a_file": lambda t: _link(t).resolve()}


def _cases(kind: str, targets: dict) -> list:
    return [pytest.param(cmd, flag, name, id=f"{'-'.join(cmd)}{flag}-to-{name}")
            for cmd, flag, k in OUTPUTS if k == kind for name in targets]


@pytest.mark.parametrize("cmd, flag, target", _cases("file", FILE_TARGETS))
def test_an_output_file_on_a_device_pipe_link_or_folder_is_refused(cmd, flag, target, tmp_path, capsys):
    """Refused while the arguments are parsed, before any model loads; the target is exactly as it was."""
    p = FILE_TARGETS[target](tmp_path)
    if not p.exists() and not p.is_symlink():
        pytest.skip(f"{p} does not exist on this machine")
    before = _state(p)
    assert main([*cmd, flag, str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"egx: error: {flag} {p} is ") and err.count("\n") == 1
    assert _state(p) == before


@pytest.mark.parametrize("cmd, flag, target", _cases("folder", FOLDER_TARGETS))
def test_an_output_folder_that_is_not_new_empty_or_egx_made_is_refused(cmd, flag, target, tmp_path, capsys):
    p = FOLDER_TARGETS[target](tmp_path)
    before = _state(p)
    assert main([*cmd, flag, str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("egx: error: The ") and f"{p} ({flag}) is " in err
    assert _state(p) == before
    assert not (p / OUTPUT_MARKER).exists() if p.is_dir() else True


def test_trace_to_dev_null_is_refused(tmp_path, capsys):
    assert main(["ask", "q", "--workspace", "demo", "--embedder", "hashing", "--trace", "/dev/null"]) == 2
    assert capsys.readouterr().err == (
        "egx: error: --trace /dev/null is a character device; egx writes its outputs whole beside the target and "
        "renames them into place, which would replace it, so it writes only to regular files. Nothing was "
        "written. Give the path of a regular file (or of one to create).\n")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_trace_to_dev_stdout_is_refused(capsys):
    """/dev/stdout is a symbolic link (to /proc/self/fd/1): refused like any link, never streamed into (a
    stream cannot be written atomically; `egx ask --json` prints to standard output)."""
    assert main(["ask", "q", "--trace", "/dev/stdout"]) == 2
    assert capsys.readouterr().err.startswith("egx: error: --trace /dev/stdout is a symbolic link (to ")


def test_make_erqa_out_to_a_symlink_is_refused_and_its_target_kept(tmp_path, capsys):
    link = _link(tmp_path)
    assert main(["make-erqa", "--kg", "x", "--out", str(link)]) == 2
    assert "is a symbolic link (to " in capsys.readouterr().err
    assert link.is_symlink() and link.resolve().read_text() == "keep me"


def test_bench_out_root_is_refused(capsys):
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense", "--out", "/"]) == 2
    assert capsys.readouterr().err.startswith("egx: error: The benchmark folder / (--out) is not empty and egx did "
                                              "not make it (it holds ")
    assert not Path("/", OUTPUT_MARKER).exists()


def test_ablate_out_into_a_thesis_folder_is_refused(tmp_path, capsys):
    home = _thesis(tmp_path)
    assert main(["ablate", "--method", "bubblerag", "--workspace", "demo", "--out", str(home)]) == 2
    assert capsys.readouterr().err == (
        f"egx: error: The ablation folder {home} (--out) is not empty and egx did not make it (it holds "
        f"'chapter1.tex' and no {OUTPUT_MARKER}), so egx will not write into it. Nothing was written. Give a new or "
        "an empty folder.\n")
    assert sorted(os.listdir(home)) == ["chapter1.tex"]


def test_train_reg_out_into_a_folder_with_a_model_pt_of_someone_else_is_refused(tmp_path, capsys):
    """Before: `egx train-reg --out DIR` deleted DIR/model.pt and replaced manifest.json / result.json."""
    d = tmp_path / "work"
    d.mkdir()
    for name, text in (("model.pt", "their weights"), ("manifest.json", '{"format": "theirs"}'),
                       ("result.json", "{}")):
        (d / name).write_text(text)
    assert main(["train-reg", "--workspace", "demo", "--out", str(d)]) == 2
    assert "The model folder" in capsys.readouterr().err
    assert (d / "model.pt").read_text() == "their weights" and (d / "manifest.json").read_text() == '{"format": "theirs"}'


def test_index_workspace_on_a_device_or_a_file_is_refused(tmp_path, capsys):
    from tests.conftest import SAMPLE_DATA

    f = tmp_path / "notes.txt"
    f.write_text("mine")
    for target in ("/dev/null", str(f)):
        assert main(["index", str(SAMPLE_DATA / "demo" / "triples.csv"), "--workspace", target,
                     "--embedder", "hashing"]) == 2
        assert capsys.readouterr().err == (f"egx: error: {target} exists and is not a folder. Nothing was changed. "
                                           "Pick another --workspace.\n")
    assert f.read_text() == "mine" and stat.S_ISCHR(os.lstat("/dev/null").st_mode)


# ------------------------------------------------------------------------------------------- what still works
def test_trace_replaces_a_regular_file_whole(tmp_path, capsys):
    t = tmp_path / "t.json"
    t.write_text("old")
    assert main(["ask", "Who starred in The Matrix?", "--workspace", "demo", "--method", "dense", "--embedder",
                 "hashing", "--trace", str(t)]) == 0
    assert t.read_text().startswith("{") and not t.is_symlink()


def test_make_erqa_writes_its_questions_through_the_safe_writer(tmp_path, capsys):
    from tests.conftest import SAMPLE_DATA

    out = tmp_path / "new" / "q.json"
    assert main(["make-erqa", "--kg", str(SAMPLE_DATA / "demo" / "triples.csv"), "--n", "2", "--min-degree", "2",
                 "--max-answers", "3", "--out", str(out)]) == 0
    assert out.read_text().startswith("[")
