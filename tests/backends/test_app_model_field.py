"""The app's model field must not tell which server paths exist (a hub id or a folder under the
model folders only; one message for every other path, existing or not)."""

from __future__ import annotations

import pytest

from core.backends.hub import check_app_model, load_model
from core.errors import BackendError


def test_hub_ids_and_folders_under_the_model_dirs_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EGX_MODEL_DIRS", str(tmp_path / "extra"))
    assert check_app_model(" BAAI/bge-small-en-v1.5 ") == "hf:BAAI/bge-small-en-v1.5"  # a hub id, never a folder
    assert check_app_model("hf:BAAI/bge-small-en-v1.5") == "hf:BAAI/bge-small-en-v1.5"
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


def _cached_snapshot(cache, repo: str) -> object:
    """A Hugging Face cache holding one snapshot of ``repo`` (the layout huggingface_hub writes)."""
    folder = cache / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text("0123abcd")
    snap = folder / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    return snap


def test_the_app_model_field_never_loads_a_folder_of_the_servers_working_folder(tmp_path, monkeypatch):
    """Before: `org/name` typed into the field was loaded from ./org/name of the folder the server runs in."""
    import huggingface_hub.constants

    server_cwd = tmp_path / "server"
    (server_cwd / "org" / "name").mkdir(parents=True)
    (server_cwd / "org" / "name" / "config.json").write_text('{"planted": true}')
    monkeypatch.chdir(server_cwd)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    snap = _cached_snapshot(tmp_path / "hf", "org/name")
    seen: list[tuple[str, bool]] = []

    def loader(source: str, local_only: bool) -> str:
        seen.append((source, local_only))
        return source

    name = check_app_model("org/name")
    assert name == "hf:org/name"
    assert load_model(name, loader, what="Model", spec="st", folder_hint="", bundled="") == str(snap.resolve())
    assert seen == [(str(snap.resolve()), True)]
    seen.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(BackendError, match=r"^Model 'other/name' is not in the local Hugging Face cache and "
                                           r"downloads are off"):
        (server_cwd / "other" / "name").mkdir(parents=True)
        load_model(check_app_model("other/name"), loader, what="Model", spec="st", folder_hint="", bundled="x")
    assert seen == []  # ./other/name was never handed to the loader
