"""Builders shared by the FastInsight, baseline and metric tests (plain functions, no fixtures)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.backends.embedders import HashingEmbedder
from core.backends.rerankers import BiEncoderReranker
from core.graph.passage_graph import PassageGraph

TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"""
keanu reeves starred in the matrix with laurence fishburne who played agent smith film movie actor
hugo weaving photosynthesis plants light energy sun leaf green chlorophyll water carbon a an of and
is was did what which when where born died year city river mountain john wick directed by
wachowskis 1999 sequel released warner bros lothair ii mother ermengarde tours king son daughter
question answer passage evidence graph node edge chain retrieval rerank score , . ? ! ##s ##ed ##ing
""".split()]

#: A small reference network (corpus graph): a chain of papers citing each other plus a side branch.
CORPUS_NODES = [
    {"id": "rag", "title": "Retrieval-augmented generation", "text": "RAG retrieves passages and feeds them to a language model."},
    {"id": "dpr", "title": "Dense passage retrieval", "text": "DPR encodes questions and passages with two BERT encoders."},
    {"id": "agentic", "title": "Agentic RAG", "text": "Agentic RAG plans several retrieval steps with prompting strategies."},
    {"id": "react", "title": "ReAct", "text": "ReAct interleaves reasoning traces and actions in prompting."},
    {"id": "hotpot", "title": "HotpotQA", "text": "HotpotQA is a multi-hop question answering dataset."},
    {"id": "halluc", "title": "Hallucination", "text": "Language models hallucinate facts that are not in their sources."},
    {"id": "bert", "title": "BERT", "text": "BERT is a bidirectional transformer encoder pre-trained on text."},
    {"id": "lonely", "title": "Photosynthesis", "text": "Plants turn light into chemical energy."},
]
CORPUS_EDGES = [("rag", "dpr"), ("rag", "agentic"), ("agentic", "react"), ("rag", "hotpot"), ("rag", "halluc"),
                ("dpr", "bert"), ("agentic", "rag")]


def write_corpus_graph(folder: Path) -> list[Path]:
    """Nodes JSONL + edges CSV of :data:`CORPUS_NODES` / :data:`CORPUS_EDGES` under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    nodes = folder / "nodes.jsonl"
    nodes.write_text("\n".join(json.dumps(n) for n in CORPUS_NODES) + "\n", encoding="utf-8")
    edges = folder / "edges.csv"
    edges.write_text("source,target,relation\n" + "".join(f"{a},{b},cites\n" for a, b in CORPUS_EDGES),
                     encoding="utf-8")
    return [nodes, edges]


def random_graph(n: int, p: float, seed: int) -> PassageGraph:
    """An Erdős–Rényi passage graph with random texts (reproducible)."""
    import networkx as nx

    g = nx.gnp_random_graph(n, p, seed=seed)
    words = ["graph", "retrieval", "rerank", "passage", "node", "edge", "chain", "evidence", "score", "query"]
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(words, size=4)) for _ in range(n)]
    return PassageGraph.from_edges(n, list(g.edges()), passages=texts)


def unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


class CountingReranker:
    """Wraps a reranker and records every passage sent to ``features``."""

    def __init__(self, inner: BiEncoderReranker | None = None) -> None:
        self.inner = inner or BiEncoderReranker(HashingEmbedder(dim=64))
        self.name = "counting"
        self.model_id = "counting:" + self.inner.model_id
        self.linear_head = True
        self.description = "test reranker"
        self.seen: list[str] = []

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        self.seen.extend(passages)
        return self.inner.features(query, passages)

    def head(self, features: np.ndarray) -> np.ndarray:
        return self.inner.head(features)


class MLPReranker:
    """Deterministic reranker with a non-linear head: ``tanh(H W1) · w2`` over ``q ⊙ p`` features."""

    linear_head = False
    name = "mlp"
    model_id = "mlp-test"
    description = "test reranker with a non-linear head"

    def __init__(self, dim: int = 32, hidden: int = 8, seed: int = 0) -> None:
        self.emb = HashingEmbedder(dim=dim)
        rng = np.random.default_rng(seed)
        self.w1 = rng.normal(size=(dim, hidden)) * 3
        self.w2 = rng.normal(size=hidden)

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros((0, self.emb.dim), dtype=np.float32)
        q = self.emb.embed([query])[0]
        return (self.emb.embed(list(passages)) * q[None, :]).astype(np.float32)

    def head(self, features: np.ndarray) -> np.ndarray:
        return np.tanh(np.asarray(features, dtype=np.float64) @ self.w1) @ self.w2


def tiny_bert(folder: Path) -> Path:
    """A randomly initialised 1-layer BERT cross-encoder + WordPiece tokenizer saved to ``folder``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(TINY_VOCAB) + "\n", encoding="utf-8")
    tok = BertTokenizer(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(TINY_VOCAB), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, num_labels=1, max_position_embeddings=128)
    BertForSequenceClassification(config).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
