"""A method owns its heavy work and its files: ``Method.tasks`` (worker tasks) and ``Method.artifacts`` (its
workspace folder, what an insert makes stale, its model stamp), read by the worker, the index layer and the
cached-run key without a method name written anywhere outside the method's package."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from core.background.workers import WorkerTask, task_function
from core.errors import ConfigError, EgxError
from core.index.commit import _only_ours
from core.index.paths import method_folders
from core.methods.base import Artifacts
from core.methods.registry import METHODS, get_method, registered
from tests.fakes import TOY_METHOD


def test_every_declared_task_imports_in_a_method_package():
    declared = [(m.name, t) for m in METHODS.values() for t in m.tasks]
    assert {t.kind for _, t in declared} >= {"train-reg", "train-dominance"}
    for name, task in declared:
        assert task.function.startswith(f"core.methods.{name}."), task
        assert callable(task_function(task.kind, task.function))
        assert get_method(name).task(task.kind) is task


def test_a_worker_task_runs_only_a_method_packages_function():
    with pytest.raises(EgxError, match=r"function 'os:system' must be 'module:function' in a method package"):
        WorkerTask("evil", "os:system")
    with pytest.raises(EgxError, match=r"must be 'module:function' in a method package"):
        task_function("evil", "core.methods.reg.training_jobs")  # no function named: refused in the child too


def test_an_unknown_task_kind_lists_the_declared_ones():
    with pytest.raises(ConfigError, match=r"Method 'reg' has no worker task 'nope'; it declares train-reg\."):
        get_method("reg").task("nope")
    with pytest.raises(ConfigError, match=r"Method 'dense' has no worker task 'x'; it declares none\."):
        get_method("dense").task("x")


@pytest.mark.parametrize("folder", ["", "a/b", ".hidden", "index"])
def test_artifacts_live_in_one_plain_folder(folder):
    with pytest.raises(ConfigError, match=r"must be one plain folder name of the workspace"):
        Artifacts(folder, "what an insert drops")


def _stamp_by_hand(files: list[Path]) -> str:
    return ";".join(f"{f.parent.name}/{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files)


def model_stamp(ws: SimpleNamespace, method: str) -> str:
    """The stamp a cached run's key holds for ``method`` (components/runs.py), "" for an unknown one."""
    spec = METHODS.get(method)
    return spec.artifacts.stamp(ws.path) if spec is not None and spec.artifacts is not None else ""


def test_model_stamp_reads_the_files_each_method_declares(tmp_path):
    ws = SimpleNamespace(path=tmp_path)
    assert model_stamp(ws, "reg") == "" and model_stamp(ws, "sgrag") == ""  # nothing trained yet
    ent = tmp_path / "reg" / "retriever-entity" / "manifest.json"
    tri = tmp_path / "reg" / "retriever" / "manifest.json"
    for f, body in ((ent, "{}"), (tri, '{"a": 1}')):
        f.parent.mkdir(parents=True)
        f.write_text(body)
    (tmp_path / "reg" / "selections-x.json").write_text("[]")  # not a model: not in the stamp
    assert model_stamp(ws, "reg") == _stamp_by_hand([tri, ent])  # the declared order: ReG@Triple first
    dom = [tmp_path / "sgrag" / n for n in ("dominance-b.pt", "dominance-a.pt")]
    dom[0].parent.mkdir()
    for f in dom:
        f.write_bytes(b"x")
    assert model_stamp(ws, "sgrag") == _stamp_by_hand(sorted(dom))
    before = model_stamp(ws, "sgrag")
    os.utime(dom[0], ns=(1, 1))
    assert model_stamp(ws, "sgrag") != before  # a model trained since is a new run
    assert model_stamp(ws, "dense") == "" and model_stamp(ws, "no_such_method") == ""


def test_the_index_layer_knows_every_methods_folder(tmp_path):
    folders = method_folders()
    assert folders["reg"].startswith("ReG's trained retriever") and folders["sgrag"].startswith("SG-RAG's dominance")
    debris = tmp_path / ".ws.building-1"
    (debris / "index").mkdir(parents=True)
    (debris / "reg").mkdir()
    assert _only_ours(debris)
    (debris / "thesis").mkdir()  # a folder no method declares: not egx's, never deleted
    assert not _only_ours(debris)


def test_a_registered_method_brings_its_folder(tmp_path):
    import dataclasses

    toy = dataclasses.replace(TOY_METHOD, name="toy_artifacts", artifacts=Artifacts("toyfiles", "the toy's cache"))
    with registered(toy):
        assert method_folders()["toyfiles"] == "the toy's cache"
        debris = tmp_path / ".ws.old-1"
        (debris / "toyfiles").mkdir(parents=True)
        assert _only_ours(debris)
