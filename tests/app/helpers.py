"""Helpers shared by the AppTest modules."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
#: AppTest runs app.py through this entry script (its docstring says why).
APP = str(Path(__file__).with_name("app_entry.py"))
TIMEOUT = 120


def plain(markdown: str) -> str:
    """Undo the escapes the app puts into user text shown as Markdown (backslashes, and the
    invisible word joiners that keep URLs from becoming links): the text a reader sees."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def drawn_nodes(at: AppTest) -> list[dict]:
    frames = at.get("iframe")
    assert len(frames) == 1, "expected exactly one graph drawing"
    doc = frames[0].proto.srcdoc
    m = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", doc, re.S)
    assert m
    return json.loads(m.group(1))


def app() -> AppTest:
    """The app, not yet run."""
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def switch(at: AppTest, page: str) -> AppTest:
    """Switch to ``page`` (``"pages/x.py"``) and run it."""
    return at.switch_page(str(ROOT / page)).run()


#: The button a method page offers before its first run with a live LLM (components/runs.ask_live_run).
LIVE_RUN_BUTTON = "Run with the live LLM"


def go_live(at: AppTest) -> AppTest:
    """Press the page's "Run with the live LLM" (a live LLM's run waits for it) and run the page; asserts it was
    offered, with nothing started before."""
    button = next((b for b in at.button if b.label == LIVE_RUN_BUTTON), None)
    assert button is not None, "no live-LLM run was offered"
    return button.click().run()


def run_page(page: str | None = None, **state: object) -> AppTest:
    at = app()
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    if page:
        switch(at, page)
    assert not at.exception, [e.value for e in at.exception]
    return at


def recordings_of_another_workspace(tmp_path: Path, monkeypatch) -> Path:  # type: ignore[no-untyped-def]
    """The recorded LLM with the demo's bundle moved to a workspace named "elsewhere" (re-stamped): the demo is then
    a workspace its recordings hold no run of, so every method there runs without an LLM."""
    from core.backends.llm_bundles import recording_paths, stamp_bundle

    src = next(p for p in recording_paths() if p.name == "demo-local.json")
    data = json.loads(src.read_text())
    data["runs"] = [{**r, "workspace": "elsewhere"} for r in data["runs"]]
    bundle = tmp_path / "elsewhere.json"
    bundle.write_text(json.dumps(data))
    stamp_bundle(bundle)
    monkeypatch.setenv("EGX_LLM", "recorded")
    monkeypatch.setenv("EGX_LLM_RECORDINGS", str(bundle))
    return bundle


def gate_index_builds(monkeypatch, module):  # type: ignore[no-untyped-def]
    """Make ``module.build_indexes`` wait for the returned ``threading.Event`` before it embeds (after saying
    "Embedding nodes (gated by the test)" at 0 %), so that "the page shows the build's progress" is a fact, not a
    race. The caller sets the event when done (a fixture: after its ``yield``)."""
    import threading

    event = threading.Event()
    orig = module.build_indexes

    def gated(path, graph, embedder, *, progress=None, **kw):  # type: ignore[no-untyped-def]
        if progress:
            progress("Embedding nodes (gated by the test)", 0.0)
        event.wait(60)
        return orig(path, graph, embedder, progress=progress, **kw)

    monkeypatch.setattr(module, "build_indexes", gated)
    return event
