"""Every method with the real MiniLM embedder on the demo questions (marked ``model``)."""

from __future__ import annotations

import pytest

from core.backends.llm import NoLLM
from core.backends.registry import get_embedder, get_reranker
from core.eval.datasets import load_questions
from core.eval.metrics import recall_at_k
from core.index.workspace import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.registry import get_method


@pytest.mark.model
def test_all_methods_find_demo_evidence_with_minilm(tmp_path):
    emb = get_embedder("minilm")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path)
    b = Backends(emb, NoLLM(), get_reranker("biencoder", embedder=emb))
    qs = load_questions(ws)
    for name in ("dense", "rerank", "ppr", "fastinsight"):
        run = get_method(name).run
        recalls = [recall_at_k([c.chunk_id for c in run(q.question, ws, backends=b).ranked_chunks], q.gold_chunks, 10)
                   for q in qs]
        # 23 passages, 5 questions: every method must get most gold passages into its top 10
        assert sum(recalls) / len(recalls) >= 0.7, (name, recalls)
