"""One answer budget for a comparison: how much evidence every method may hand to its answer.

The papers compare methods under one budget, each its own: BubbleRAG §4.1 lets "each method ... observe
at most 15 text chunks per query"; FastInsight §4.3.1 scores the top 10; SG-RAG §5 fixes "a context window
... at 1,200 tokens per query"; ReG App. E hands its answer the top-K retrieved triples. Left alone, each
method answers from its own paper default (BubbleRAG up to 15 chunks plus triples, the passage methods 5
passages, SG-RAG 1,200 tokens of triples), so a comparison is not like for like. A :class:`Budget` is one
setting for every method of a comparison:

* ``chunks`` — at most this many passages reach the answer. A method whose context is triples (SG-RAG,
  ReG's chains) counts the passages its triples come from.
* ``tokens`` — at most this many tokens of evidence (the passages' title and text, the triple or chain
  lines) reach the answer, counted with the project's offline WordPiece counter
  (:mod:`core.backends.tokens`), so the count is the same for every method, LLM and machine. Evidence is
  added best first while it fits; the first piece that does not fit ends it (a later, shorter piece never
  jumps a better one).

``own`` (what a method run alone always uses, and the command line's default) changes nothing: each method
keeps its own paper default. A comparison in the app (Compare, Benchmark) starts at
:data:`COMPARISON_DEFAULT`, BubbleRAG §4.1's one budget for every method, so its first table is like for like. Every method declares how a budget maps onto its own knobs — a
``budget`` hook on its :class:`~core.methods.base.Method` (``config, budget -> config``) — so nothing
outside its package names it; :func:`apply_budget` calls the hook. Passage methods share
:func:`passage_budget`; a new passage method's hook is that one line (``Method(..., budget=passage_budget)``).

This module sits below every method package and below :mod:`core.eval`, and imports neither.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from core.errors import ConfigError

#: The smallest token budget: SG-RAG's prompt instructions alone take about 100 tokens, and a MuSiQue
#: passage about 100 (its median is 90 WordPiece tokens), so a smaller budget could hold no evidence at all.
MIN_TOKENS = 100


@dataclass(frozen=True)
class Budget:
    """How much evidence every method of a comparison may hand to its answer.

    Parameters
    ----------
    name
        A preset's name (:data:`BUDGETS`) or a custom budget's text (``"10"``, ``"1500tok"``, ``"10,1500tok"``).
    chunks
        At most this many passages reach the answer (None: no limit beyond the method's own).
    tokens
        At most this many WordPiece tokens of evidence reach the answer (None: no limit).
    label
        What the UI shows, e.g. ``"BubbleRAG §4.1: ≤ 15 chunks"``.
    source
        Where the protocol comes from, quoting the paper (the widget's help text).
    """

    name: str
    chunks: int | None
    tokens: int | None
    label: str
    source: str = ""

    def __post_init__(self) -> None:
        if self.chunks is not None and (isinstance(self.chunks, bool) or not isinstance(self.chunks, int)
                                        or self.chunks < 1):
            raise ConfigError(f"Budget {self.name!r}: chunks = {self.chunks!r} is out of range; use an integer >= 1 "
                              "or None.")
        if self.tokens is not None and (isinstance(self.tokens, bool) or not isinstance(self.tokens, int)
                                        or self.tokens < MIN_TOKENS):
            raise ConfigError(f"Budget {self.name!r}: tokens = {self.tokens!r} is out of range; use an integer >= "
                              f"{MIN_TOKENS} (smaller holds no passage) or None.")

    @property
    def own(self) -> bool:
        """Whether this budget leaves every method at its own default (no chunk or token limit)."""
        return self.chunks is None and self.tokens is None

    def limits(self) -> str:
        """The limits in words: ``"≤ 15 chunks"``, ``"≤ 1,200 tokens"``, ``"each method's own"``."""
        parts = ([f"≤ {self.chunks} chunk{'s' if self.chunks != 1 else ''}"] if self.chunks is not None else []) + \
                ([f"≤ {self.tokens:,} tokens"] if self.tokens is not None else [])
        return ", ".join(parts) or "each method's own"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "chunks": self.chunks, "tokens": self.tokens}


#: The ``reg`` preset's tokens: ReG App. E hands its answer its top-K triples, K = 100 for GPT-4o and
#: GPT-4o-mini (SubgraphRAG's setting, which ReG follows; the value did not survive in our copy of the
#: paper). A budget is passages or tokens, and triples are not passages, so K = 100 is taken as the
#: tokens 100 triples take in ReG's raw triple list: a ``(head, relation, tail)`` line is 12.9 WordPiece
#: tokens on average on the MuSiQue sample's KG (median 12, 17,037 triples), so 100 lines are ~1,300.
REG_TRIPLES = 100
REG_TOKENS_PER_TRIPLE = 13

#: The papers' protocols, by name, ``own`` first (the default).
BUDGETS: dict[str, Budget] = {b.name: b for b in (
    Budget("own", None, None, "each method's own paper default",
            "Each method answers from its own paper default: BubbleRAG up to 15 chunks plus its evidence graph's "
            "triples, dense / Re2 / PPR / FastInsight their top 5 passages, SG-RAG its matched triples within "
            "1,200 tokens, ReG the chains of its top 100 triples. What a method run alone always uses."),
    Budget("bubblerag", 15, None, "BubbleRAG §4.1: ≤ 15 chunks",
            "BubbleRAG §4.1: \"we impose a unified retrieval budget: each method is allowed to observe at most 15 "
            "text chunks per query. This constraint prevents performance gains that stem purely from larger "
            "contexts.\""),
    Budget("fastinsight", 10, None, "FastInsight §4.3.1: top 10",
            "FastInsight §4.3.1: retrieval is scored by R@k and nDCG \"both evaluated at top-10\"; the answer reads "
            "those 10 passages (nodes)."),
    Budget("sgrag", None, 1200, "SG-RAG §5: ≤ 1,200 tokens",
            "SG-RAG §5: \"In the answer generation stage, we adopted GPT-4o with a context window fixed at 1,200 "
            "tokens per query.\" Every method's evidence is cut to 1,200 tokens (SG-RAG's own prompt, "
            "instructions included, keeps its 1,200)."),
    Budget("reg", None, REG_TRIPLES * REG_TOKENS_PER_TRIPLE, f"ReG App. E: top-{REG_TRIPLES} triples (≈ 1,300 tokens)",
            f"ReG App. E: \"the top-K triples are selected to form the retrieved subgraph for downstream LLM "
            f"reasoning\" (K = {REG_TRIPLES} for GPT-4o / GPT-4o-mini). Triples are not passages, so the budget is "
            f"the tokens {REG_TRIPLES} triples take: {REG_TOKENS_PER_TRIPLE} WordPiece tokens a (head, relation, "
            "tail) line on the MuSiQue sample's KG."),
)}

OWN = BUDGETS["own"]

#: The budget a comparison page starts at: BubbleRAG §4.1's "unified retrieval budget" (≤ 15 chunks for every
#: method), the one protocol among the four papers made to compare methods like for like ("prevents performance
#: gains that stem purely from larger contexts"). 15 ≥ every method's retrieval cut (R@10), so no retrieval
#: figure changes; only what each answer reads does (the passage methods read 15 passages, not their own 5;
#: ReG's chains come from at most 15 passages). ``own`` stays one pick away.
COMPARISON_DEFAULT = "bubblerag"

_CHUNKS = re.compile(r"^(\d+)\s*(?:chunks?)?$", re.I)
_TOKENS = re.compile(r"^(\d+)\s*tok(?:ens?)?$", re.I)
FORMS = ("a preset (" + ", ".join(BUDGETS) + "), a chunk count (10), a token count (1500tok) or both (10,1500tok)")


def custom_budget(chunks: int | None, tokens: int | None) -> Budget:
    """The custom budget of ``chunks`` and/or ``tokens`` (its name is the text :func:`parse_budget` reads back)."""
    if chunks is None and tokens is None:
        return OWN
    name = ",".join([*([str(chunks)] if chunks is not None else []), *([f"{tokens}tok"] if tokens is not None else [])])
    limits = Budget(name, chunks, tokens, "").limits()
    return Budget(name, chunks, tokens, f"custom: {limits}", f"A budget of your own: {limits} for every method.")


def parse_budget(value: str | Budget | None) -> Budget:
    """The budget ``value`` names: a preset of :data:`BUDGETS`, ``"N"`` (chunks), ``"Ntok"`` (tokens) or
    ``"N,Ntok"`` (both); None or ``""`` is ``own``.

    Raises
    ------
    ConfigError
        Naming the value and the accepted forms, for anything else (and for a count out of range).

    Examples
    --------
    >>> parse_budget("bubblerag").chunks, parse_budget("1500tok").tokens, parse_budget("10,1500tok").name
    (15, 1500, '10,1500tok')
    """
    if value is None or isinstance(value, Budget):
        return value or OWN
    text = str(value).strip()
    if not text:
        return OWN
    if text.lower() in BUDGETS:
        return BUDGETS[text.lower()]
    chunks: int | None = None
    tokens: int | None = None
    parts = [p.strip() for p in text.split(",")]
    for part in parts:
        c, t = _CHUNKS.match(part), _TOKENS.match(part)
        if len(parts) > 2 or not (c or t) or (c and chunks is not None) or (t and tokens is not None):
            raise ConfigError(f"Budget {text!r} is not a budget; use {FORMS}.")
        if c:
            chunks = int(c.group(1))
        elif t:
            tokens = int(t.group(1))
    if chunks is not None and chunks < 1:
        raise ConfigError(f"Budget {text!r}: {chunks} chunks is out of range; use at least 1 chunk, or {FORMS}.")
    if tokens is not None and tokens < MIN_TOKENS:
        raise ConfigError(f"Budget {text!r}: {tokens} tokens is out of range; use at least {MIN_TOKENS} tokens "
                          f"(smaller holds no passage), or {FORMS}.")
    return custom_budget(chunks, tokens)


# ------------------------------------------------------------------------------------------ the hook
#: ``hook(config, budget) -> config``: a method's config with ``budget`` mapped onto its own knobs
#: (declared as :attr:`core.methods.base.Method.budget` in the method's package).
BudgetHook = Callable[[Any, Budget], Any]

#: The knob every budget-aware config carries for a token budget (its help text).
ANSWER_TOKENS_HELP = ("Answer budget (ours, for like-for-like comparisons; empty = none): at most this many tokens of "
                      "evidence reach the answer, counted offline with WordPiece; evidence is added best first while "
                      "it fits. Set by a comparison's budget (egx bench --budget), never by the paper's default.")
#: ... and the name of the budget its config was set for (recorded with the answer's context).
ANSWER_BUDGET_HELP = ("The comparison budget this config was set for ('own' = the method's own paper default; "
                      "egx bench --budget): recorded with the context the answer was given.")
#: The knob of a method whose context is triples: the passages those triples come from.
ANSWER_CHUNKS_HELP = ("Answer budget (ours; empty = none): the triples handed to the answer come from at most this many "
                      "passages (best triples first; a triple citing a passage past the limit is left out). Set by a "
                      "comparison's budget (egx bench --budget).")


def answer_tokens_knob() -> Any:
    """The ``answer_tokens: int | None`` field of a budget-aware config (default None: no token limit)."""
    return field(default=None, metadata={"help": ANSWER_TOKENS_HELP, "label": "", "bounds": None})


def answer_budget_knob() -> Any:
    """The ``answer_budget: str`` field of a budget-aware config (default ``"own"``)."""
    return field(default="own", metadata={"help": ANSWER_BUDGET_HELP, "label": "", "bounds": None})


def answer_chunks_knob() -> Any:
    """The ``answer_chunks: int | None`` field of a config whose answer reads triples (default None)."""
    return field(default=None, metadata={"help": ANSWER_CHUNKS_HELP, "label": "", "bounds": None})


def budget_checks(config: Any) -> list[tuple[str, bool, str]]:
    """The range rules of the budget knobs ``config`` has (for its :meth:`MethodConfig.checks`)."""
    out: list[tuple[str, bool, str]] = []
    names = {f.name for f in fields(config)}
    if "answer_tokens" in names:
        v = config.answer_tokens
        out.append(("answer_tokens", v is None or v >= MIN_TOKENS, f"an integer >= {MIN_TOKENS} or None"))
    if "answer_chunks" in names:
        v = config.answer_chunks
        out.append(("answer_chunks", v is None or v >= 1, "an integer >= 1 or None"))
    return out


def _has(config: Any, name: str) -> bool:
    return name in {f.name for f in fields(config)}


def _needs(config: Any, names: Sequence[str], budget: Budget) -> None:
    missing = [n for n in names if not _has(config, n)]
    if missing:
        raise ConfigError(f"{type(config).__name__} has no {', '.join(missing)}, which the budget {budget.name!r} "
                          f"({budget.limits()}) sets; add the knob(s) (core.methods.budget.answer_tokens_knob / "
                          "answer_budget_knob) to the config, or run under --budget own.")


#: A short passage's WordPiece tokens (the audit corpora's ~40; MuSiQue's median is 90): a token budget with no chunk
#: count lets a passage method read ``tokens / 40`` passages deep, so its evidence can fill the budget.
TOKENS_PER_SHORT_PASSAGE = 40


def passage_budget(config: Any, budget: Budget) -> Any:
    """The budget hook of a method that answers from its top passages (dense, Re2, PPR; FastInsight's starts
    here): ``chunks`` → ``answer_passages`` (and ``top_k``, ``candidates`` raised to it where lower, so the
    ranked list holds that many passages); ``tokens`` → ``answer_tokens`` (with no chunk count, the list is made
    deep enough to fill them — ``top_k``, ``candidates`` and ``answer_passages`` at least ``tokens /``
    :data:`TOKENS_PER_SHORT_PASSAGE` — and every passage of it may go in while the tokens last).

    Raises
    ------
    ConfigError
        When the config lacks ``answer_passages`` or ``answer_budget`` (the name its answer records; without
        it a budgeted run would say ``own``), or, for a token budget, ``answer_tokens``.
    """
    _needs(config, ["answer_passages", "answer_budget", *(["answer_tokens"] if budget.tokens is not None else [])],
           budget)
    changes: dict[str, Any] = {}
    if budget.chunks is not None:
        changes["answer_passages"] = budget.chunks
        for name in ("top_k", "candidates"):  # the list the answer reads must be that long
            if _has(config, name) and getattr(config, name) < budget.chunks:
                changes[name] = budget.chunks
    elif budget.tokens is not None and _has(config, "top_k"):
        # the list must hold enough passages to fill the tokens, as the graph methods' evidence does: capped at
        # top_k = 10, dense handed about 410 of 1,200 tokens where HippoRAG 2 handed 1,188 (an audit)
        deep = max(int(config.top_k), -(-budget.tokens // TOKENS_PER_SHORT_PASSAGE))
        changes["answer_passages"] = deep
        for name in ("top_k", "candidates"):
            if _has(config, name) and getattr(config, name) < deep:
                changes[name] = deep
    if budget.tokens is not None:
        changes["answer_tokens"] = budget.tokens
    return config.with_(**changes)


def apply_budget(method: Any, config: Any, budget: Budget | str | None) -> Any:
    """``config`` (None: ``method``'s defaults) under ``budget``: unchanged under ``own``, else mapped onto
    the method's own knobs by its ``budget`` hook, with ``answer_budget`` naming the budget.

    Raises
    ------
    ConfigError
        When ``method`` declares no ``budget`` hook and a budget other than ``own`` is asked (naming the
        hook), or the budget text is not one (:func:`parse_budget`).
    """
    b = parse_budget(budget)
    if b.own:
        return config
    hook: BudgetHook | None = getattr(method, "budget", None)
    if hook is None:
        raise ConfigError(f"Method {method.name!r} declares no budget hook, so the budget {b.name!r} ({b.limits()}) "
                          "cannot be applied to it. Declare one on its Method — Method(..., budget=hook), hook(config, "
                          "budget) -> config (core.methods.budget.passage_budget for a method that answers from its "
                          "top passages) — or run it under --budget own.",
                          app=f"{method.name} cannot run under the budget “{b.name}” ({b.limits()}): the method declares "
                              "no budget hook. Pick the budget “own”, or leave this method out.")
    cfg = config if config is not None else method.make_config()
    out = hook(cfg, b)
    return out.with_(answer_budget=b.name) if _has(out, "answer_budget") else out


def budget_configs(methods: Sequence[Any], budget: Budget | str | None,
                   configs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Each method's config under ``budget`` (starting from ``configs[name]`` where given, e.g. ``--set``
    changes): what ``egx bench --budget`` and the Benchmark page hand the runner. Under ``own`` the given
    ``configs`` come back as they are."""
    b = parse_budget(budget)
    base = dict(configs or {})
    if b.own:
        return base
    return {m.name: apply_budget(m, base.get(m.name), b) for m in methods}


def budget_settings(budget: Budget | str | None) -> dict[str, Any]:
    """What a benchmark's ``run.json`` settings record of ``budget``: nothing under ``own`` (so runs made
    before budgets existed resume as they were), else ``{"budget": name, "budget_limits": {...}}`` — a run
    is never resumed under another budget."""
    b = parse_budget(budget)
    return {} if b.own else {"budget": b.name, "budget_limits": {"chunks": b.chunks, "tokens": b.tokens}}


def run_budget(settings: Mapping[str, Any] | None) -> Budget:
    """The budget a benchmark run was made under, read back from its settings (``own`` when none is named)."""
    return parse_budget(str((settings or {}).get("budget") or "own"))
