"""Retrieval methods: one package per paper plus baselines, all returning traced results.

=============  =====================================================================
package        paper section
=============  =====================================================================
bubblerag/     BubbleRAG §3 (anchor grouping, bubble expansion, CEG ranking, ...)
fastinsight/   FastInsight §3 (GRanker, STeX, Algorithm 1 loop), §4.3.2 metrics
sgrag/         SG-RAG §4 (query graph, path index, exact subgraph matching)
reg/           ReG §4 (evidence chains for every method, ReG@Triple retriever)
baselines/     dense (NaiveRAG), retrieve-then-rerank (Re2), HippoRAG (v1) PPR
=============  =====================================================================

Shared by the methods, below every package: :mod:`~core.methods.base` (the :class:`Method` and
:class:`MethodConfig` contract, diagnosis words), :mod:`~core.methods.answering` (the answer step),
:mod:`~core.methods.llm_steps` (LLM JSON calls with visible fallbacks), :mod:`~core.methods.reranking`
(reranker features and plain reranking) and :mod:`~core.methods.diagnoser` (what diagnosers share).
:mod:`~core.methods.registry` collects every package's ``METHOD``. Importing this package imports
nothing else.
"""
