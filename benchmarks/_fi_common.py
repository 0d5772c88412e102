"""Shared set-up for the FastInsight / baseline benchmarks (not a benchmark itself).

All benchmarks run on the MuSiQue sample workspace (built on first use under ``$EGX_HOME``) with
the same embedder for every method, and read gold passages from the workspace's questions file.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def setup(embedder: str = "minilm", workspace: str = "musique") -> tuple[Any, Any, list[Any]]:
    """(workspace, Backends with the bi-encoder stand-in, questions with gold chunks)."""
    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder, get_reranker
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = get_embedder(embedder)
    ws = ensure_sample_workspace(workspace, emb)
    _ = ws.graph
    backends = Backends(emb, NoLLM(), get_reranker("biencoder", embedder=emb))
    return ws, backends, [q for q in load_questions(ws) if q.gold_chunks]


def minilm_sized_cross_encoder(folder: Path | None = None, *, layers: int = 6) -> str:
    """A randomly initialised BERT cross-encoder with all-MiniLM-L6-v2's architecture (6 layers,
    hidden 384, 12 heads; the shape of ms-marco-MiniLM-L-6-v2) and MiniLM's tokenizer, saved to a
    folder. Its scores are meaningless: it exists for timing only (no pretrained cross-encoder
    ships offline)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from core.backends.embedders import minilm_path

    src = minilm_path()
    folder = Path(folder or tempfile.mkdtemp(prefix="egx_ce_"))
    cfg = BertConfig.from_pretrained(src)
    cfg.num_labels = 1
    cfg.num_hidden_layers = layers
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).eval().save_pretrained(folder)
    AutoTokenizer.from_pretrained(src).save_pretrained(folder)
    return str(folder)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def summary(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {"mean_ms": round(1000 * statistics.fmean(s), 2), "p50_ms": round(1000 * s[len(s) // 2], 2),
            "p95_ms": round(1000 * s[min(len(s) - 1, int(0.95 * len(s)))], 2)}
