"""A ReG model folder is data: its files are read only when regular and within a size bound, its manifest's
dimensions and rounds are bounded before anything is allocated, and training writes only into a model folder of
egx's or an empty one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.errors import OutputPathError, WorkspaceError
from core.methods.reg.retriever import FORMAT, MANIFEST_FILE, MODEL_FILE, build_mlp, load_retriever, save_model

FIX = "train one with `egx train-reg --workspace W --questions FILE`."


def _folder(tmp_path: Path, **manifest) -> Path:
    """A small, valid ReG@Triple folder (in_dim 8, hidden 4) with ``manifest`` changes."""
    folder = tmp_path / "m"
    save_model(folder, build_mlp(8, 4), {"in_dim": 8, "hidden": 4, "dim": 0}, "triple")
    if manifest:
        m = json.loads((folder / MANIFEST_FILE).read_text())
        (folder / MANIFEST_FILE).write_text(json.dumps({**m, **manifest}))
    return folder


def test_a_small_model_folder_loads(tmp_path):
    assert load_retriever(_folder(tmp_path), device="cpu").manifest["hidden"] == 4


def test_a_retriever_weights_file_linked_to_dev_zero_is_refused_not_read(tmp_path):
    """Before: the weights were read whole, to 4 GB of zeros."""
    folder = _folder(tmp_path)
    (folder / MODEL_FILE).unlink()
    (folder / MODEL_FILE).symlink_to("/dev/zero")
    with pytest.raises(WorkspaceError, match=re.escape(f"The ReG weights file {folder / MODEL_FILE} is a character "
                                                       f"device, not a regular file; it was not read. Train one with")):
        load_retriever(folder)


def test_a_retriever_manifest_linked_to_dev_zero_is_refused_not_read(tmp_path):
    folder = _folder(tmp_path)
    (folder / MANIFEST_FILE).unlink()
    (folder / MANIFEST_FILE).symlink_to("/dev/zero")
    with pytest.raises(WorkspaceError, match=r"manifest\.json is a character device, not a regular file"):
        load_retriever(folder)


def test_a_weights_file_larger_than_its_model_is_refused_not_read(tmp_path):
    folder = _folder(tmp_path)
    (folder / MODEL_FILE).write_bytes(b"\0" * (17 * 2**20))  # the model is 4 · (8·4 + 4 + 4 + 1) bytes
    with pytest.raises(WorkspaceError, match=r"was rejected \(DataFileError: The ReG weights file .* is 17,825,792 "
                                             r"bytes, more than any ReG weights file can be \(16,777,380\)"):
        load_retriever(folder)


@pytest.mark.parametrize("field, value, problem", [
    ("in_dim", 10**9, "in_dim = 1000000000 is not an integer in [1, 100,000]"),
    ("hidden", -3, "hidden = -3 is not an integer in [1, 16,384]"),
    ("dde_rounds", 3_000_000, "dde_rounds = 3000000 is not an integer in [0, 32]"),
    ("dde_reverse_rounds", "2", "dde_reverse_rounds = '2' is not an integer in [0, 32]"),
    ("hidden", 16_384, "in_dim × hidden = 131,072 is over"),
])
def test_a_tampered_manifest_is_refused_before_any_allocation(tmp_path, field, value, problem):
    """Before: huge dims crashed or took 3.5-4 GB; millions of DDE rounds ran per question."""
    folder = _folder(tmp_path, **{field: value, **({"in_dim": 16_384} if field == "hidden" and value > 0 else {})})
    if field == "hidden" and value > 0:  # in range alone, too large together with in_dim
        problem = "in_dim × hidden = 268,435,456 is over 134,217,728 weights"
    with pytest.raises(WorkspaceError, match=re.escape(f"The ReG retriever manifest {folder / MANIFEST_FILE} was "
                                                       f"rejected: {problem}") + r".*" + re.escape(FIX)):
        load_retriever(folder)


def test_an_entity_manifest_with_a_million_degree_bins_is_refused(tmp_path):
    from core.methods.reg.entity_retriever import load_entity_retriever

    folder = tmp_path / "e"
    folder.mkdir()
    (folder / MODEL_FILE).write_bytes(b"x")
    (folder / MANIFEST_FILE).write_text(json.dumps({"format": FORMAT, "version": 1, "unit": "entity", "in_dim": 8,
                                                    "hidden": 4, "deg": [1] * 1_000_001}))
    with pytest.raises(WorkspaceError, match="deg is not a list of at most 100,000 counts"):
        load_entity_retriever(folder)


def test_a_model_folder_of_someone_elses_files_is_never_trained_into(tmp_path):
    """Before: train-reg deleted DIR/model.pt and replaced manifest.json / result.json in any folder."""
    from core.methods.reg.train import train_reg

    d = tmp_path / "project"
    d.mkdir()
    (d / "model.pt").write_text("their weights")
    (d / MANIFEST_FILE).write_text('{"format": "their-tool"}')
    with pytest.raises(OutputPathError, match=re.escape(f"The model folder {d} is not empty and egx did not make it "
                                                        "(it holds 'manifest.json', 'model.pt' and no .egx-output)")):
        train_reg(object(), "q.json", backends=object(), out=d)  # refused before the workspace is touched
    with pytest.raises(OutputPathError, match="is not empty and egx did not make it"):
        save_model(d, build_mlp(8, 4), {"in_dim": 8, "hidden": 4}, "triple")
    assert (d / "model.pt").read_text() == "their weights"
    assert sorted(p.name for p in d.iterdir()) == ["manifest.json", "model.pt"]


def test_an_older_model_folder_of_egx_is_retrained_into(tmp_path):
    """A folder from before the output marker: its manifest is egx's, so it is egx's to replace."""
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "model.pt").write_text("old weights")
    (folder / MANIFEST_FILE).write_text(json.dumps({"format": FORMAT, "version": 1, "in_dim": 8, "hidden": 4}))
    save_model(folder, build_mlp(8, 4), {"in_dim": 8, "hidden": 4}, "triple")
    assert sorted(p.name for p in folder.iterdir()) == [".egx-output", MANIFEST_FILE, MODEL_FILE]
