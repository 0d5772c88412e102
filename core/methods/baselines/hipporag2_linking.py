"""HippoRAG 2's query-to-triple linking and recognition memory (Gutiérrez et al. 2025, §3.2; the released code's
``get_fact_scores`` and ``rerank_facts`` with its DSPy filter).

**Linking.** Every fact — a KG edge, embedded as its enriched ``head relation tail`` text in the workspace's edge
index — is scored by cosine against the question; the scores are min-max normalised over all facts (all equal:
all 1, as the code's ``min_max_normalize``) and the ``linking_top_k`` best are linked.

**Recognition memory.** The LLM reads the question and the linked facts and keeps the relevant ones
(:mod:`~core.methods.baselines.hipporag2_prompts`). Without an LLM, or when its reply stays unusable after the
retries, the linked facts are kept unfiltered, and the trace says so; a reply that keeps no fact is the LLM's
verdict, after which the pipeline takes HippoRAG 2's dense fallback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.graph.reader import GraphLike, read_ahead
from core.methods.baselines import hipporag2_prompts as prompts
from core.methods.baselines.hipporag2_config import HippoRAG2Config
from core.methods.baselines.hipporag2_stages import FactLinkingData, RecognitionData
from core.pinning import pin_search
from core.trace import Trace

if TYPE_CHECKING:
    from core.backends.base import LLM
    from core.index.workspace import Workspace
    from core.methods.base import Backends


@dataclass(frozen=True)
class LinkedFact:
    """One fact linked to the question."""

    edge: int  #: global edge index (its row of the edge index)
    head: int  #: global node of the subject phrase
    tail: int  #: global node of the object phrase
    subject: str
    relation: str
    object: str
    score: float  #: cosine min-max normalised over every fact (what seeds the walk)
    cosine: float

    @property
    def text(self) -> str:
        return f"{self.subject} {self.relation} {self.object}"

    def row(self) -> dict[str, Any]:
        return {"edge": self.edge, "subject": self.subject, "relation": self.relation, "object": self.object,
                "score": self.score, "cosine": self.cosine}


def min_max(x: np.ndarray) -> np.ndarray:
    """``(x − min) / (max − min)``; all ones when every value is the same (HippoRAG 2's ``min_max_normalize``).

    >>> min_max(np.array([1.0, 3.0, 2.0])).tolist(), min_max(np.array([0.4, 0.4])).tolist()
    ([0.0, 1.0, 0.5], [1.0, 1.0])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x
    lo, span = float(x.min()), float(x.max() - x.min())
    return np.ones_like(x) if span == 0 else (x - lo) / span


def link_facts(trace: Trace, workspace: Workspace, graph: GraphLike, cfg: HippoRAG2Config, backends: Backends,
               query_vector: np.ndarray) -> tuple[LinkedFact, ...]:
    """Query-to-triple linking (§3.2): the ``linking_top_k`` facts most similar to the question, recorded as the
    ``fact_linking`` step."""
    with trace.timed("fact_linking", "Query-to-triple linking: facts most similar to the question",
                     section="HippoRAG 2 §3.2") as step:
        cosine = workspace.index("edges", backends.embedder).scores(query_vector).astype(np.float64)
        score = min_max(cosine)
        top = np.lexsort((np.arange(score.size), -score))[:cfg.linking_top_k]
        kept, top = pin_search("hipporag2.link.facts", score[top], top)  # the facts the LLM sees and the seeds read
        edges = [int(e) for e in top]
        read_ahead(graph, edges=edges)
        heads, tails = [int(graph.edge_head[e]) for e in edges], [int(graph.edge_tail[e]) for e in edges]
        read_ahead(graph, names=heads + tails)
        linked = tuple(LinkedFact(e, h, t, graph.node_names[h], graph.edge_relation[e], graph.node_names[t], float(s),
                                  float(cosine[e]))
                       for e, h, t, s in zip(edges, heads, tails, kept))
        step.data = FactLinkingData(int(score.size), cfg.linking_top_k, [f.row() for f in linked]).data()
    return linked


def recognize(trace: Trace, query: str, linked: tuple[LinkedFact, ...], cfg: HippoRAG2Config,
              llm: LLM) -> tuple[tuple[LinkedFact, ...], RecognitionData]:
    """Recognition memory (§3.2): the linked facts the LLM keeps, in its order, and what happened, recorded as
    the ``recognition_memory`` step (its fallback: the facts unfiltered)."""
    from core.methods.llm_steps import ask_json

    n = len(linked)
    with trace.timed("recognition_memory", "Recognition memory: the LLM keeps the relevant linked facts",
                     section="HippoRAG 2 §3.2") as step:
        if not cfg.recognition_memory:
            data = RecognitionData("unfiltered", 0, list(range(n)),
                                   f"recognition memory is off (the paper's 'w/o filter' ablation): all {n} linked "
                                   "facts seed the walk")
        else:
            user = prompts.filter_prompt(query, [(f.subject, f.relation, f.object) for f in linked])

            def check(reply: object) -> None:
                prompts.check_filter_reply(reply, n)  # raises ValueError: the model is asked again

            res = ask_json(llm, prompts.FILTER_SYSTEM, user, prompts.filter_schema(n),
                           max_tokens=prompts.FILTER_MAX_TOKENS, validate=check, step=step)
            if res.data is None:
                step.fallback = f"{res.fallback}; the {n} linked facts are kept unfiltered"
                data = RecognitionData("unfiltered", n, list(range(n)), step.fallback)
            else:
                kept = prompts.check_filter_reply(res.data, n)
                verdict = (f"the LLM kept {len(kept)} of the {n} linked facts" if kept else
                           f"the LLM kept none of the {n} linked facts")
                data = RecognitionData("llm", n, kept, verdict)
        step.data = data.data()
    return tuple(linked[i] for i in data.kept), data
