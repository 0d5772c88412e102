"""A workspace folder that is missing or damaged is refused in the app's words (no path, no command line)."""

from __future__ import annotations

import pytest

from core.errors import WorkspaceError
from core.index.manifest import MANIFEST, read_manifest


def test_not_a_workspace_in_the_apps_words(tmp_path) -> None:
    with pytest.raises(WorkspaceError) as ei:
        read_manifest(tmp_path / "mine")
    assert "egx index" in str(ei.value) and str(tmp_path) in str(ei.value)  # the CLI's words
    app = ei.value.in_app()
    assert "'mine'" in app and "Data page" in app and str(tmp_path) not in app and "egx" not in app


def test_damaged_manifest_in_the_apps_words(tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / MANIFEST).write_text("{not json", encoding="utf-8")
    with pytest.raises(WorkspaceError) as ei:
        read_manifest(tmp_path / "ws")
    app = ei.value.in_app()
    assert "damaged" in app and str(tmp_path) not in app and "egx" not in app
