"""Retrieval methods: one package per paper plus baselines, all returning traced results.

=============  =====================================================================
package        paper section
=============  =====================================================================
bubblerag/     BubbleRAG §3 (anchor grouping, bubble expansion, CEG ranking, ...)
fastinsight/   FastInsight §3 (GRanker, STeX, Algorithm 1 loop), §4.3.2 metrics
baselines/     dense (NaiveRAG), retrieve-then-rerank (Re2), HippoRAG-style PPR
=============  =====================================================================
"""

from __future__ import annotations

from core.methods.base import Backends, MethodResult, RankedChunk
from core.methods.registry import METHODS, get_method, method_names

__all__ = ["METHODS", "Backends", "MethodResult", "RankedChunk", "get_method", "method_names"]
