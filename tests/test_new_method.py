"""Adding a method is one package exporting ``METHOD`` (plus its page): a toy method registered in
the test (tests/fakes.py) shows up in ``egx bench``, the failure diagnosis and the Compare page
(tests/app/test_compare_page.py) with no other change."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from core.cli import main
from core.eval.diagnose import diagnose, stages_for
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends, Gold
from core.methods.registry import METHODS, get_method, method_names, register, registered, unregister
from tests.fakes import TOY_METHOD, ScriptedLLM, ToyConfig


def test_registry_takes_a_method_and_gives_it_back() -> None:
    assert "toy" not in METHODS
    with registered(TOY_METHOD) as m:
        assert get_method("toy") is m and method_names()[-1] == "toy"
        assert m.make_config(top_k=3) == ToyConfig(top_k=3)
    assert "toy" not in METHODS
    from core.errors import ConfigError

    with pytest.raises(ConfigError, match="A method named 'dense' is already registered"):
        register(dataclasses.replace(TOY_METHOD, name="dense"))
    register(TOY_METHOD)
    unregister("toy")
    assert "toy" not in METHODS


def test_new_method_in_egx_bench_and_its_diagnosis(tmp_path, capsys) -> None:
    out = tmp_path / "bench"
    with registered(TOY_METHOD):
        assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,toy",
                     "--limit", "2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["methods"]) == {"dense", "toy"} and summary["methods"]["toy"]["n"] == 2
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    toy = [r for r in records if r["method"] == "toy"]
    assert len(toy) == 2 and all(r["diagnosis"]["evidence"] == {"toy": True} or r["diagnosis"]["stage"] == "ranked_out"
                                 for r in toy)
    assert all(r["stages"] == {"pick": pytest.approx(0.001)} for r in toy)


def test_new_method_diagnosis_reads_its_declarations(tmp_path) -> None:
    from core.backends.embedders import HashingEmbedder

    emb = HashingEmbedder(dim=64)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path)
    with registered(TOY_METHOD):
        r = get_method("toy").run("anything", ws, config=ToyConfig(top_k=1), backends=Backends(emb, ScriptedLLM("")))
        last = ws.graph.chunks[-1].id
        assert [c.chunk_id for c in r.ranked_chunks] == [last]
        assert [s.key for s in stages_for("toy")] == ["ranked_out"]
        ok = diagnose(r, ws, Gold("q", (last,)))
        assert ok.stage == "ok" and ok.evidence["toy"] is True
        lost = diagnose(r, ws, Gold("q", (ws.graph.chunks[0].id,)), cut=1)
        assert lost.stage == "ranked_out" and lost.method == "toy"


def test_a_new_package_under_core_methods_needs_no_registry_line(tmp_path, monkeypatch) -> None:
    import sys

    import core.methods
    from core.methods import registry

    pkg = tmp_path / "toy_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from tests.fakes import TOY_METHOD as METHOD\n", encoding="utf-8")
    monkeypatch.setattr(core.methods, "__path__", [*core.methods.__path__, str(tmp_path)])
    try:
        assert [m.name for m in registry._discover()] == ["toy"]
    finally:
        sys.modules.pop("core.methods.toy_pkg", None)


def test_a_method_package_owns_its_preparation_ablations_and_intros(tmp_path) -> None:
    """What used to be special-cased outside a method package (FastInsight's first-use embedding in the app,
    the ablation rows in core/eval, the page intros in components/) is declared on the method: the one
    runner prepares it once before the first run, ``egx ablate`` reads its rows, its pages get its intros."""
    from components.teaching import _intros
    from core.backends.embedders import HashingEmbedder
    from core.eval.ablation import ablation_rows
    from core.methods.base import AblationRow, Preparation
    from core.methods.run import pending_preparations, run_method
    from core.papers import Intro

    emb = HashingEmbedder(dim=64)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path)
    backends = Backends(emb, ScriptedLLM(""))
    marker = ws.path / "toy-prepared.txt"
    runs: list[str] = []

    def prepare(workspace, _backends, cfg, progress) -> None:
        runs.append(workspace.name)
        marker.write_text(str(cfg.top_k), encoding="utf-8")

    toy = dataclasses.replace(
        TOY_METHOD, page="pages/toy.py",
        prepare=Preparation(title=lambda w, backends, cfg: f"Preparing the toy for {w.name}",
                            needed=lambda w, b, cfg: not marker.exists(), run=prepare,
                            key=lambda w, b, cfg: f"toy:{w.path}"),
        ablations=(AblationRow("full", "Toy (full method)"), AblationRow("top-1", "top-1 only", overrides={"top_k": 1})),
        intros={"pages/toy.py": Intro("BubbleRAG", "§1", ("One.", "Two.", "Three."))})
    with registered(toy):
        assert [p.title for p in pending_preparations(toy, ws, backends)] == ["Preparing the toy for demo"]
        for _ in range(2):
            r = run_method("toy", "anything", ws, backends)
            assert r.method == "toy" and r.evidence_nodes == ()
        assert runs == ["demo"] and marker.read_text(encoding="utf-8") == "2"  # once, before the first run
        assert pending_preparations(toy, ws, backends) == []
        assert [(a.name, a.method, a.overrides) for a in ablation_rows("toy")] == [
            ("full", "toy", {}), ("top-1", "toy", {"top_k": 1})]
        assert _intros()["pages/toy.py"].text == ("One.", "Two.", "Three.")
    assert "pages/toy.py" not in _intros()


#: The toy method's page: a page file composing the app's panels (header, question box, run), nothing else.
TOY_PAGE = "pages/toy.py"
TOY_PAGE_SOURCE = Path(__file__).parent / "app" / "toy_page.py"


def test_a_new_method_page_is_listed_on_home_and_opens_with_no_other_edit(tmp_path, monkeypatch) -> None:
    """A method with its page file and its intro gets an entry in the navigation and on Home (what the page shows:
    its intro's first sentence), and its page opens under the method's title with the intro, the shared question
    box and its run, with no line added to components/ or pages/. The app's pages are linked into a folder of the
    test's, beside the toy's page file, so the checkout's pages/ stays as it is."""
    import streamlit as st

    from components import home_view, navigation
    from core.papers import Intro
    from tests.app.helpers import run_page

    st.cache_data.clear()  # st.cache_* live in the process: start empty, as every app test does
    st.cache_resource.clear()
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "egx_home"))
    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
    monkeypatch.setenv("EGX_RERANKER", "biencoder")
    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "600")
    monkeypatch.delenv("EGX_LLM", raising=False)
    root = tmp_path / "app"
    (root / "pages").mkdir(parents=True)
    for page in (navigation.ROOT / "pages").glob("*.py"):
        (root / "pages" / page.name).symlink_to(page)
    (root / TOY_PAGE).write_text(TOY_PAGE_SOURCE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(navigation, "ROOT", root)
    intro = Intro("BubbleRAG", "§1", ("Ranks the workspace's last passages first.", "Two.", "Three."))
    toy = dataclasses.replace(TOY_METHOD, page=TOY_PAGE, intros={TOY_PAGE: intro})
    assert TOY_PAGE not in {path for _, path, _, _ in navigation.entries()}
    with registered(toy):
        assert ("Methods", TOY_PAGE, toy.title, ":material/science:") in navigation.entries()
        assert navigation.heading(TOY_PAGE) == toy.title and navigation.page_of("toy") == TOY_PAGE
        assert home_view.page_summary(TOY_PAGE) == intro.text[0]
        at = run_page()
        listed = [m.value for m in at.markdown if "Toy method" in m.value]
        assert listed and "Ranks the workspace's last passages first" in listed[0]
        at.switch_page(str(root / TOY_PAGE)).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.title[0].value == toy.title
        assert any("Ranks the workspace" in m.value for m in at.markdown)  # its intro, from Method.intros
        assert [s.label for s in at.selectbox][:1] == ["Question"]
        assert len(at.dataframe) == 1 and len(at.dataframe[0].value) >= 1  # the toy's ranked passages
    assert TOY_PAGE not in {path for _, path, _, _ in navigation.entries()}
