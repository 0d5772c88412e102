"""The app's model field must not tell which server paths exist (a hub id or a folder under the
model folders only; one message for every other path, existing or not)."""

from __future__ import annotations

import pytest

from core.backends.hub import check_app_model
from core.errors import BackendError


def test_hub_ids_and_folders_under_the_model_dirs_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EGX_MODEL_DIRS", str(tmp_path / "extra"))
    assert check_app_model(" BAAI/bge-small-en-v1.5 ") == "BAAI/bge-small-en-v1.5"
    assert check_app_model(str(tmp_path / "extra" / "m")) == str((tmp_path / "extra" / "m").resolve())
    assert check_app_model("mine") == str((tmp_path / "home" / "models" / "mine").resolve())


def test_any_other_path_gets_one_message_whether_it_exists_or_not(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("EGX_MODEL_DIRS", raising=False)
    (tmp_path / "secret").mkdir()
    messages = []
    for probe in (str(tmp_path / "secret"), str(tmp_path / "nothing"), "/etc", "/nonexistent/x",
                  "../../etc", "~/.ssh"):
        with pytest.raises(BackendError) as err:
            check_app_model(probe)
        messages.append(str(err.value).replace(repr(probe[:80]), "<path>"))
    assert len(set(messages)) == 1 and "EGX_MODEL_DIRS" in messages[0]
