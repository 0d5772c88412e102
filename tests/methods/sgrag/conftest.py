"""Fixtures for SG-RAG tests: UMLS and an FB15k-237 slice as KGs, trained dominance models."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.graph.formats.named_kg import read_named_kg
from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.methods.sgrag.config import DominanceConfig
from core.methods.sgrag.dominance import DominanceModel, train_dominance
from core.methods.sgrag.labels import GraphLabels, graph_labels
from tests.conftest import SHARED_DATA

UMLS = SHARED_DATA / "umls_named"
FB = SHARED_DATA / "fb15k237_named"

#: The paper's App. G example (Fig. 7): star nodes Magnesium and Zinc sharing two bridge nodes.
MAGNESIUM_TRIPLES = [
    ("Magnesium", "promotes", "Bone formation"),
    ("Magnesium", "related to", "Hormone metabolism"),
    ("Magnesium", "influences", "Thyroid health"),
    ("Magnesium", "associated with", "Immune system"),
    ("Zinc", "influences", "Thyroid health"),
    ("Zinc", "associated with", "Immune system"),
    ("Zinc", "supports", "Wound healing"),
    ("Zinc", "affects", "Taste perception"),
    ("Calcium", "promotes", "Bone formation"),
    ("Calcium", "regulates", "Muscle contraction"),
    ("Iodine", "influences", "Thyroid health"),
    ("Iodine", "related to", "Hormone metabolism"),
]


def write_triples(path: Path, triples: list[tuple[str, str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["head", "relation", "tail"])
        w.writerows(triples)
    return path


@pytest.fixture(scope="session")
def umls_graph() -> KnowledgeGraph:
    b = GraphBuilder(name="umls")
    read_named_kg(UMLS, b)
    return b.build()


@pytest.fixture(scope="session")
def fb_slice() -> KnowledgeGraph:
    """FB15k-237's test split (20,466 triples) as a KG."""
    b = GraphBuilder(name="fb15k237-test")
    read_named_kg(FB, b, splits=("test",))
    return b.build()


def label_features(graph: KnowledgeGraph, dim: int = 64) -> tuple[GraphLabels, np.ndarray]:
    labels = graph_labels(graph)
    return labels, np.asarray(HashingEmbedder(dim=dim).embed(list(labels.names)), dtype=np.float32)


@pytest.fixture(scope="session")
def umls_model(umls_graph: KnowledgeGraph) -> tuple[GraphLabels, np.ndarray, DominanceModel]:
    labels, lv = label_features(umls_graph)
    return labels, lv, train_dominance(umls_graph, lv[labels.of_node], config=DominanceConfig(seed=0))
