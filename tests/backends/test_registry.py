"""Registry: names → backends, unknown names, descriptions."""

from __future__ import annotations

import pytest

from core.backends import (
    LLM,
    Embedder,
    Reranker,
    TripleExtractor,
    default_extractor,
    describe,
    get_embedder,
    get_extractor,
    get_llm,
    get_reranker,
    list_backends,
)
from core.backends.embedders import HashingEmbedder
from core.backends.extractors import LLMTripleExtractor, RuleBasedExtractor
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.errors import BackendError, LLMUnavailableError, UnknownNameError


def test_list_backends():
    assert list_backends() == {
        "embedder": ["bge-small", "minilm", "hashing", "st:<path-or-hub-id>"],
        "reranker": ["ms-marco-minilm", "biencoder", "llm", "cross-encoder:<path-or-hub-id>"],
        "llm": ["none", "local", "local-small", "openai", "recorded"],
        "extractor": ["llm", "spacy", "rules"],
    }


@pytest.mark.parametrize(("factory", "message"), [
    (lambda: get_embedder("bert"),
     r"^Unknown embedder 'bert'\. Valid embedders: 'bge-small', 'minilm', 'hashing', 'st:<path-or-hub-id>'\.$"),
    (lambda: get_reranker("colbert", embedder=HashingEmbedder()),
     r"^Unknown reranker 'colbert'\. Valid rerankers: 'ms-marco-minilm', 'biencoder', 'llm', "
     r"'cross-encoder:<path-or-hub-id>'\.$"),
    (lambda: get_llm("gpt"),
     r"^Unknown LLM backend 'gpt'\. Valid LLM backends: 'none', 'local', 'local-small', 'openai', 'recorded'\.$"),
    (lambda: get_extractor("openie"),
     r"^Unknown triple extractor 'openie'\. Valid triple extractors: 'llm', 'spacy', 'rules'\.$"),
])
def test_unknown_names_list_the_registered_ones(factory, message):
    with pytest.raises(UnknownNameError, match=message):
        factory()


def test_unknown_name_is_a_keyerror_with_a_readable_str():
    with pytest.raises(KeyError) as info:
        get_llm("gpt")
    assert str(info.value).startswith("Unknown LLM backend 'gpt'")


def test_prefixed_name_without_model():
    with pytest.raises(BackendError, match=r"The embedder name 'st:' needs a model after the colon"):
        get_embedder("st:")


def test_factories_build_the_right_classes():
    emb = get_embedder("hashing", dim=32)
    assert isinstance(emb, HashingEmbedder) and isinstance(emb, Embedder)
    rr = get_reranker("biencoder", embedder=emb)
    assert isinstance(rr, BiEncoderReranker) and isinstance(rr, Reranker)
    llm = get_llm("none")
    assert isinstance(llm, NoLLM) and isinstance(llm, LLM)
    ex = get_extractor("rules")
    assert isinstance(ex, RuleBasedExtractor) and isinstance(ex, TripleExtractor)


def test_default_extractor_depends_on_llm(scripted_llm):
    from core.backends.spacy_extractor import SpacyExtractor

    # without an LLM the default is spaCy; 'rules' stays a named option
    assert isinstance(default_extractor(get_llm("none")), SpacyExtractor)
    assert isinstance(get_extractor("spacy"), TripleExtractor)
    assert isinstance(default_extractor(scripted_llm([])), LLMTripleExtractor)


def test_llm_backed_components_need_an_llm():
    with pytest.raises(LLMUnavailableError, match=r"Pick another reranker .* or configure an LLM"):
        get_reranker("llm", embedder=HashingEmbedder())
    with pytest.raises(LLMUnavailableError, match=r"Use the 'spacy' or 'rules' extractor or configure an LLM"):
        get_extractor("llm", llm=get_llm("none"))


def test_describe():
    for kind, names in list_backends().items():
        for name in names:
            text = describe(kind, name.replace("<path-or-hub-id>", "/models/x"))
            assert text and len(text) < 400
    assert "bi-encoder stand-in" in describe("reranker", "biencoder").lower()
    assert "/models/ce" in describe("reranker", "cross-encoder:/models/ce")
    assert "ms-marco-MiniLM-L-12-v2" in describe("reranker", "ms-marco-minilm")
    assert "bge-small-en-v1.5" in describe("embedder", "bge-small")
    with pytest.raises(UnknownNameError, match=r"Unknown backend kind 'gnn'"):
        describe("gnn", "x")
    with pytest.raises(UnknownNameError, match=r"Unknown LLM backend 'gpt'"):
        describe("llm", "gpt")
