"""The ReG retriever shipped with the samples (scripts/ship_reg_retriever.py): found, fitting, labelled, and
its S(I) selections reused by `egx train-reg` on the sample without an LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.methods.reg.retriever import MANIFEST_FILE, MODEL_FILE, find_model_dir, load_retriever

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = {name: ROOT / "sample_data" / name / "reg" / "retriever" for name in ("musique", "demo")}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_files_are_tensors_and_a_manifest_saying_what_trained_them(name) -> None:
    folder = SHIPPED[name]
    assert (folder / MODEL_FILE).exists() and not (folder / "model.pt").exists()
    m = json.loads((folder / MANIFEST_FILE).read_text())
    assert m["supervision"] == "refined" and m["llm"].startswith("llama.cpp:qwen2.5-coder-1.5b")
    assert m["selection"] in ("stepwise", "one-shot") and m["embedder"].startswith("BAAI/bge-small-en-v1.5")
    assert m["counts"]["refined_by_llm"] > 0 and "shipped with the" in m["shipped"]
    result = json.loads((folder / "result.json").read_text())
    assert len(result["curves"]["val_recall"]) == m["config"]["epochs"] == 80  # App. E's 80 epochs, curve kept
    assert not any(str(Path.home()) in json.dumps(x) or "/work/" in json.dumps(x) for x in (m, result))


def test_the_shipped_selections_carry_their_provenance() -> None:
    from core.methods.reg.train import SELECTIONS_FORMAT

    data = json.loads((ROOT / "sample_data" / "musique" / "reg" / "selections.json").read_text())
    prov = data["provenance"]
    assert data["format"] == SELECTIONS_FORMAT and prov["gguf_sha256"] and prov["selection"]
    assert prov["graph_hash"] == json.loads((SHIPPED["musique"] / MANIFEST_FILE).read_text())["trained_on_graph"]
    llm = [s for s in data["selections"].values() if s["mode"] == "llm"]
    assert llm and all(s["edges"] for s in llm)


def test_reg_on_the_demo_sample_is_reg_trained_on_s_i(real_sample) -> None:
    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder
    from core.methods.base import Backends
    from core.methods.run import run_method

    emb = get_embedder("bge-small")
    ws = real_sample("demo", emb)
    assert find_model_dir(ws) == SHIPPED["demo"]  # nothing trained in the workspace: the shipped one
    load_retriever(SHIPPED["demo"], workspace=ws, embedder_id=emb.model_id)  # fits this graph and embedder
    res = run_method("reg", "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne "
                     "starred together?", ws, Backends(emb, NoLLM()))
    assert res.scorer.startswith("ReG@Triple trained on S(I)") and "shipped with the demo sample" in res.scorer
    step = next(s for s in res.trace.steps if s.stage == "score")
    assert not step.fallback and "notice" not in step.data


def test_another_embedder_takes_the_visible_cosine_fallback(real_sample) -> None:
    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder
    from core.methods.base import Backends
    from core.methods.run import run_method

    emb = get_embedder("minilm")
    ws = real_sample("demo", emb)
    res = run_method("reg", "Who played Agent Smith?", ws, Backends(emb, NoLLM()))
    assert res.scorer.startswith("cosine")
    step = next(s for s in res.trace.steps if s.stage == "score")
    assert "trained with embedder" in step.fallback and "egx train-reg" in step.fallback
    # the app says it in its own words: no command line, no folder, the Train panel and the sidebar instead
    from core.methods.answering import method_notices, step_fallback

    app = step_fallback(step, app=True)
    assert "trained with the embedder" in app and "Train panel" in app and "sidebar" in app
    assert "egx" not in app and str(ROOT) not in app and "sample_data" not in app
    assert step_fallback(step) == step.fallback  # the CLI's words stay
    (notice,) = method_notices(res, app=True)
    assert "Train panel" in notice and "egx" not in notice
    assert "egx train-reg" in method_notices(res)[0]


def test_the_musique_model_fits_the_sample_graph(real_sample, monkeypatch) -> None:
    from core.backends.registry import get_embedder

    ws = real_sample("musique", get_embedder("minilm"))  # the graph hash does not depend on the embedder
    assert json.loads((SHIPPED["musique"] / MANIFEST_FILE).read_text())["graph_hash"] == ws.content_hash
    from core.methods.reg import prompts
    from core.methods.reg.train import shipped_selections

    prov = json.loads((ROOT / "sample_data" / "musique" / "reg" / "selections.json").read_text())["provenance"]
    # the selections are reused only under the prompts that made them (their sha256 is in the provenance)
    monkeypatch.setattr(prompts, "selection_prompts_sha256", lambda: prov["prompts_sha256"])
    got = shipped_selections(ws, prov["model_id"], prov["selection"])
    assert got and all("mode" in v for v in got.values())  # egx train-reg reuses them: no LLM call needed
    assert shipped_selections(ws, "fake:other", prov["selection"]) == {}  # another model's S(I) is its own
    assert shipped_selections(ws, prov["model_id"], "other-form") == {}
    monkeypatch.setattr(prompts, "selection_prompts_sha256", lambda: "0" * 64)
    assert shipped_selections(ws, prov["model_id"], prov["selection"]) == {}  # other prompts: not reused


def test_the_shipped_model_never_saw_a_benchmarked_or_recorded_question() -> None:
    """No train/test leak: the first 20 MuSiQue-sample questions (file order: what `egx bench --limit 20` and the
    recordings evaluate) are the shipped model's test split, and no question of the MuSiQue recording is in its
    train or validation split (the manifest's ``split``, which benchmarks read to leave such questions out)."""
    import gzip

    m = json.loads((SHIPPED["musique"] / MANIFEST_FILE).read_text())
    seen = set(m["split"]["train"]) | set(m["split"]["val"])
    with gzip.open(ROOT / "sample_data" / "musique" / "musique_train.json.gz", "rt", encoding="utf-8") as fh:
        first = [str(q["id"]) for q in json.load(fh)[:20]]
    assert m["split"]["test"] == first and not seen & set(first)
    assert m["config"]["hold_out_first"] == 20 and len(seen) == 80
    recorded = {str(r["question_id"]) for f in (ROOT / "sample_data" / "llm_recordings").glob("musique-*.json")
                for r in json.loads(f.read_text())["runs"] if r["workspace"] == "musique"}
    assert recorded and not seen & recorded
    assert "the first 20 questions" in m["shipped"] and "held out as the test split" in m["shipped"]
    assert json.loads((SHIPPED["demo"] / MANIFEST_FILE).read_text())["split"] == m["split"]  # the same weights


def _paragraph(text: str, marker: str) -> str:
    """The paragraph (or list item) of ``text`` holding ``marker``, on one line."""
    at = text.index(marker)
    start = max(text.rfind("\n\n", 0, at), text.rfind("\n- ", 0, at)) + 1
    end = min(i for i in (text.find("\n\n", at), text.find("\n- ", at), len(text)) if i >= 0)
    return " ".join(text[start:end].split())


@pytest.mark.parametrize("doc, marker", [("README.md", "The samples ship"),
                                         ("benchmarks/README.md", "**What `reg` scores with on the samples.**")])
def test_the_docs_name_the_scorer_the_samples_ship(doc, marker) -> None:
    """The method descriptions say what ``reg`` scores with on the samples, read from the shipped model's
    manifest: its unit and supervision, its held-out figure against cosine with the question count, and whether
    it is below cosine — so a retrained or removed model makes this fail until the docs follow."""
    from core.methods.reg.keep import below_cosine, held_out_metric, held_out_note
    from core.methods.reg.retriever import scorer_label

    m = json.loads((SHIPPED["musique"] / MANIFEST_FILE).read_text())
    text = _paragraph((ROOT / doc).read_text(encoding="utf-8"), marker)
    scorer = scorer_label(m).split(" (", 1)[0]  # "ReG@Triple trained on S(I)" / "ReG@Triple w/o S(I)"
    assert scorer in text, f"{doc} does not name the shipped scorer {scorer!r}: {text[:300]}"
    key, words, n = held_out_metric(m["test"])
    figures = f"{words}@{m['config']['recall_k']} {m['test'][key]:.3f} vs the untrained cosine scorer's " \
              f"{m['baseline_test'][key]:.3f} ({n} questions"
    assert figures in text, f"{doc} does not give the shipped model's held-out figures ({figures!r})"
    assert ("below the untrained cosine scorer" in text) == bool(below_cosine(m))
    assert ("inside noise" in text) == bool(held_out_note(m))
    assert "uses the untrained cosine" not in text and "reg (cosine scorer, untrained) |" not in text
