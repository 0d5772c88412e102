"""The ``recorded`` LLM on a workspace its recordings hold no run of runs every method as in ``none`` mode, as the
app's notice says: the same answer, picked by the same scorer, and the same ranking. An audit found the recorded
LLM's extractive answers picked "by embedding cosine" where ``none`` mode picked them "by the reranker": the
recorded LLM counted as available, so a method that does not rerank was handed no reranker for its answer."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.llm_recorded import RecordedLLM
from core.backends.rerankers import BiEncoderReranker
from core.methods.base import Backends
from core.methods.evidence.formats import AnswerStepData
from core.methods.registry import method_names
from core.methods.run import run_method

#: a question the demo recordings hold: on the demo workspace the recorded LLM would replay its replies
QUESTION = "When did Lothair II's mother die?"


class ContraryReranker(BiEncoderReranker):
    """A reranker that ranks by the opposite of the embedder's cosine: its extractive answer is another sentence
    than the cosine fallback's whenever there are two to choose from, so a run that drops it shows."""

    def __init__(self, embedder: HashingEmbedder) -> None:
        super().__init__(embedder)
        self.name = "contrary"
        self.model_id = f"contrary:{embedder.model_id}"

    def head(self, features: np.ndarray) -> np.ndarray:
        return -np.asarray(super().head(features))


@pytest.fixture(scope="module")
def mine(demo_and_upload):  # type: ignore[no-untyped-def]
    """The demo's data under a name the recordings do not hold (an upload)."""
    emb, _, mine = demo_and_upload
    return emb, mine


def _seen(result) -> dict:
    """What a reader compares between two runs: the answer, how it was made, the ranking."""
    step = AnswerStepData.of(result.trace, last=True)
    pick = (step.extractive or {}) if step is not None else {}
    return {"answer": result.answer, "made_by": step.made_by if step is not None else None,
            "scorer": pick.get("scorer"), "candidates": [c["sentence"] for c in pick.get("candidates", [])],
            "ranking": [(c.chunk_id, round(float(c.score), 6)) for c in result.ranked_chunks]}


@pytest.mark.parametrize("method", method_names())
def test_recorded_llm_on_a_workspace_without_recordings_answers_and_ranks_as_none_mode(mine, method):
    emb, ws = mine
    reranker = ContraryReranker(emb)
    llm = RecordedLLM(strict=False)
    assert not llm.holds_workspace(ws.name)
    none = _seen(run_method(method, QUESTION, ws, Backends(emb, NoLLM(), reranker)))
    recorded = _seen(run_method(method, QUESTION, ws, Backends(emb, llm, reranker)))
    assert recorded == none


@pytest.mark.parametrize("method", method_names())
def test_recorded_llm_on_a_question_it_holds_no_run_of_answers_and_ranks_as_none_mode(demo_and_upload, method):
    """On a workspace the recordings hold, a question they hold no run of is a none run too: an audit's "Who
    directed The Matrix?" (recorded LLM, demo) quoted the cast sentence by embedding cosine, where ``none`` mode's
    cross-encoder quotes "written and directed by the Wachowskis"."""
    from core.methods.run import is_unanswered

    emb, demo, _ = demo_and_upload
    reranker = ContraryReranker(emb)
    llm = RecordedLLM(strict=False)
    question = "Who directed The Matrix?"
    assert llm.holds_workspace(demo.name) and not llm.for_question(demo.name, method, question).available
    none = _seen(run_method(method, question, demo, Backends(emb, NoLLM(), reranker)))
    run = run_method(method, question, demo, Backends(emb, llm, reranker))
    assert _seen(run) == none
    assert is_unanswered(run.trace) and run.trace.backends["llm"].endswith("holds no run of this question")
    assert not run.trace.replay  # no replay to report: the page said before the run that it runs as none mode


def test_a_question_the_recordings_hold_keeps_the_recorded_llm(demo_and_upload):
    _, demo, _ = demo_and_upload
    llm = RecordedLLM(strict=False)
    assert llm.for_question(demo.name, "bubblerag", QUESTION) is llm  # another setting of it replays what it can
    assert not llm.for_question(demo.name, "bubblerag", QUESTION + " ").available  # the question as recorded


def test_a_scoped_recorded_llm_is_unavailable_only_where_it_holds_nothing(mine):
    _, ws = mine
    llm = RecordedLLM(strict=False)
    assert llm.available and llm.for_workspace("demo").available
    assert not llm.for_workspace(ws.name).available  # every caller takes the fallback none mode takes
    assert llm.available  # the backend itself is unchanged


def test_the_app_keeps_the_reranker_of_a_run_on_a_workspace_without_recordings(mine):
    """The app keys and runs a method with the backends it uses (``components.runs``): on a workspace the
    recordings do not hold, the reranker ``none`` mode answers with is kept, and the run is no LLM job."""
    from components.runs import _run_key
    from core.methods.registry import get_method

    emb, ws = mine
    reranker = ContraryReranker(emb)
    for llm in (NoLLM(), RecordedLLM(strict=False)):
        used, *_ = _run_key(get_method("dense"), ws, Backends(emb, llm, reranker), None)
        assert used.reranker is reranker and not used.llm.available, type(llm).__name__


def test_egx_ask_with_the_recorded_llm_on_a_workspace_without_recordings_answers_as_none(tmp_path, capsys,
                                                                                           monkeypatch):
    """`egx ask --llm recorded` loads the reranker its extractive answer needs where ``--llm none`` does."""
    import json

    from core.backends.registry import get_embedder, get_extractor
    from core.cli import main
    from core.index.create import create_workspace

    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "films.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in (
        {"id": "a1", "title": "The Matrix", "text": "The Matrix is a 1999 film. Keanu Reeves starred in The Matrix "
                                                    "with Laurence Fishburne. It was directed by the Wachowskis."},
        {"id": "a2", "title": "Speed", "text": "Speed is a 1994 film. Keanu Reeves starred in Speed with Sandra "
                                               "Bullock. It was directed by Jan de Bont."})))
    ws = tmp_path / "films"
    create_workspace([src], ws, title="Films", embedder=get_embedder("hashing"), extractor=get_extractor("rules"))
    out = {}
    for llm in ("none", "recorded"):
        assert main(["ask", "Who directed Speed?", "--workspace", str(ws), "--method", "dense", "--llm", llm,
                     "--embedder", "hashing", "--reranker", "biencoder", "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        # the recorded LLM also says that no recorded run matched (replay, replay_notice): provenance, not the run
        out[llm] = {k: v for k, v in got.items() if k not in ("seconds", "replay", "replay_notice")}
    assert "scored by the reranker biencoder" in out["none"]["answer_note"]["how"]
    said = out["recorded"]["notices"].pop(0)  # it says first that it is a none-mode run, and why
    assert said.startswith("LLM: none — the recorded LLM (") and "holds no run of this workspace" in said
    assert out["recorded"] == out["none"]


def test_the_app_keeps_the_reranker_of_a_question_without_a_recorded_run(demo_and_upload):
    """The app's key and backends of a run (``components.runs``) narrow the recorded LLM to the question as
    ``run_method`` does: else a method that does not rerank is handed no reranker, and its extractive answer falls
    back to embedding cosine whatever the run itself decides."""
    from components.runs import _run_key
    from core.methods.registry import get_method

    emb, demo, _ = demo_and_upload
    reranker = ContraryReranker(emb)
    spec = get_method("bubblerag")
    used, *_ = _run_key(spec, demo, Backends(emb, RecordedLLM(strict=False), reranker), None,
                        "Who directed The Matrix?")
    assert used.reranker is reranker and not used.llm.available
    used, *_ = _run_key(spec, demo, Backends(emb, RecordedLLM(strict=False), reranker), None, QUESTION)
    assert used.llm.available and (used.reranker is None) == (not spec.needs_reranker)  # the recorded run's
