"""Answers from retrieved passages, shared by every method that returns passages.

* With an available LLM: the top passages go into one short-answer prompt
  (:data:`core.backends.prompts.ANSWER_USER`).
* In ``none`` mode (or when the LLM fails): an **extractive** answer — the sentence of the top
  passages that answers the question (:mod:`core.methods.extractive`: scored by the reranker,
  sentences naming the answer type the question asks for first, bridges resolved). This
  is not an answer generator; it points at the evidence sentence, and the trace and pages say so.
* The LLM's reply goes through the one answer check of every method
  (:func:`core.methods.answer_gate.check_llm_answer`). When its text is no answer — a refusal ("I'm
  sorry, but I can't help with that."), a truncated JSON fragment, an HTML page, punctuation — the
  extractive answer replaces it, the result keeps the rejected text in ``PassageAnswer.rejected`` and the
  trace step says why; an answer cut at its token limit is shown cut; one that addresses the system or
  carries markup is flagged beside it.

Evidence format (ReG §4.2): with ``evidence_format="triples"`` the prompt holds the KG
triples extracted from those passages as an unordered list, with ``"chains"`` the same triples
reorganized into ReG evidence chains. The caller hands that evidence over (ReG's
:func:`core.methods.evidence.formats.passage_evidence` builds it for a passage method); whenever it is
given, the answer step records the token counts of the passage, triple and chain prompts, whichever
one was sent. This module imports no method package (the evidence is whatever has the fields of
:class:`Evidence`).

What the answer is handed (:class:`AnswerContext`): every method's answer step records the chunk ids and
the WordPiece tokens of the evidence it hands to its answer, and the budget it was handed under
(:mod:`core.methods.budget`), in its step's ``data["context"]``; :func:`context_of` reads it back from any
result. Here, the top ``max_passages`` passages, then, under a token budget (``max_tokens``), those that fit,
best first (:func:`fit_passages`); with triple or chain evidence, the passages whose triples fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

from core.backends import prompts
from core.backends.base import ChatMessage
from core.backends.streaming import answer_sink, streaming_reply
from core.errors import LLMError
from core.methods.answer_gate import CheckedAnswer, check_llm_answer
from core.methods.base import Backends
from core.methods.evidence.formats import AnswerStepData, answering_steps
from core.methods.extractive import SentencePick, pick_sentence
from core.text import plural
from core.trace import Trace

AnswerMode = Literal["llm", "extractive", "empty"]
EvidenceFormat = Literal["passages", "triples", "chains"]


class Evidence(Protocol):
    """What the answer step needs of triple / chain evidence (ReG's ``EvidencePrompts`` has it)."""

    @property
    def triples(self) -> Sequence[Any]: ...

    @property
    def system(self) -> str: ...

    @property
    def prompts(self) -> dict[str, str]: ...

    def trace_data(self) -> dict[str, Any]: ...

    def evidence_text(self, fmt: str) -> str:
        """The evidence block of format ``fmt`` as the prompt shows it (the triple lines, or the chains)."""
        ...


# ------------------------------------------------------------------------------------ what the answer is handed
#: The counter of every context's tokens: the offline WordPiece tokenizer (core.backends.tokens), the same for
#: every method, LLM and machine, so one budget means the same amount of evidence everywhere.
CONTEXT_TOKENIZER = "wordpiece"


@dataclass(frozen=True)
class AnswerContext:
    """What a method handed to its answer step: the passages of its evidence and their tokens.

    ``chunk_ids`` are the passages the answer was given, best first — for a method whose evidence is triples
    (SG-RAG, ReG's chains, a passage method's triple format) the passages those triples come from; for
    BubbleRAG its source chunks beside the triples. ``tokens`` counts the evidence as the prompt shows it
    (passage titles and texts, triple or chain lines; not the instructions or the question) with the offline
    WordPiece counter. With an LLM this is the prompt's evidence; in ``none`` mode the extractive answer picks
    its sentence from the top passages of this same context. ``budget`` names the comparison budget the
    method ran under (``own``: its paper default), ``max_chunks`` / ``max_tokens`` the limits its answer
    step applied (None: none), ``dropped`` how many evidence pieces (passages, triples, sentences) those limits left out.
    """

    chunk_ids: tuple[str, ...]
    tokens: int
    budget: str = "own"
    max_chunks: int | None = None
    max_tokens: int | None = None
    evidence: str = "passages"  #: what the pieces were: "passages", "triples", "chains", "subgraph triples"
    dropped: int = 0
    tokenizer: str = CONTEXT_TOKENIZER

    @property
    def chunks(self) -> int:
        return len(self.chunk_ids)

    def data(self) -> dict[str, Any]:
        """The JSON-ready value an answer step keeps under ``data["context"]``."""
        return {"chunk_ids": list(self.chunk_ids), "chunks": self.chunks, "tokens": int(self.tokens),
                "budget": self.budget, "max_chunks": self.max_chunks, "max_tokens": self.max_tokens,
                "evidence": self.evidence, "dropped": int(self.dropped), "tokenizer": self.tokenizer}

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> AnswerContext:
        return cls(tuple(str(c) for c in d.get("chunk_ids") or ()), int(d.get("tokens") or 0),
                   str(d.get("budget") or "own"), d.get("max_chunks"), d.get("max_tokens"),
                   str(d.get("evidence") or "passages"), int(d.get("dropped") or 0),
                   str(d.get("tokenizer") or CONTEXT_TOKENIZER))


def context_of(result: Any) -> AnswerContext | None:
    """What ``result``'s answer step was handed (the last ``answer`` or ``early_exit`` step that recorded
    it); None for a run that recorded none (a method from elsewhere, a trace older than budgets)."""
    for a in reversed(answering_steps(result.trace)):
        if isinstance(a.data.context, dict):
            return AnswerContext.from_data(a.data.context)
    return None


def count_evidence(texts: Sequence[str]) -> list[int]:
    """WordPiece tokens of each evidence text (:data:`CONTEXT_TOKENIZER`)."""
    from core.backends.tokens import count_tokens

    return count_tokens(list(texts), None)[0]


def fit_count(sizes: Sequence[int], max_tokens: int | None, *, used: int = 0) -> int:
    """How many of the pieces of ``sizes`` tokens, best first, fit in ``max_tokens`` (after ``used``):
    the first that does not fit ends the context, so a shorter, worse piece never jumps a better one.

    >>> fit_count([100, 50, 500, 10], 200), fit_count([100, 50], None), fit_count([300], 200)
    (2, 2, 0)
    """
    if max_tokens is None:
        return len(sizes)
    k, total = 0, used
    for n in sizes:
        if total + n > max_tokens:
            break
        total += n
        k += 1
    return k


def passage_text(title: str, text: str) -> str:
    """A passage as the answer prompt shows it (title line, then text)."""
    return f"{title}\n{text}" if title else text


def fit_passages(passages: Sequence[tuple[str, str, str]], max_tokens: int | None) -> tuple[list[tuple[str, str, str]], int]:
    """The ``(chunk_id, title, text)`` passages, best first, that fit in ``max_tokens`` (all of them with None)
    and their tokens (:func:`fit_count`)."""
    sizes = count_evidence([passage_text(t, x) for _, t, x in passages])
    k = fit_count(sizes, max_tokens)
    return list(passages[:k]), int(sum(sizes[:k]))


def no_fit(max_tokens: int, what: str, tokens: int) -> str:
    """Why a budget left the answer nothing (an empty answer's fallback)."""
    return (f"the answer budget of {max_tokens:,} tokens holds no {what}: the best one takes {tokens:,} tokens; "
            "raise the budget's tokens")


@dataclass(frozen=True)
class PassageAnswer:
    text: str
    mode: AnswerMode
    chunk_id: str = ""  #: extractive: the passage the sentence comes from
    fallback: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    rejected: str = ""  #: the LLM's text when it was no usable answer (a refusal, a fragment)
    pick: SentencePick | None = None  #: extractive: how the sentence was chosen
    cached: bool | None = None  #: whether the LLM's reply came from the LLM cache (None: no LLM reply)
    check: CheckedAnswer | None = None  #: what the answer check found in the LLM's reply (None: no LLM reply)


#: Why a run over passages without text has no answer.
NO_TEXT = ("the retrieved passages hold no text — a triples-only workspace names source chunks but has no corpus, "
           "so there is no sentence to extract; upload the corpus too, or ask BubbleRAG, which answers from the "
           "evidence graph's triples")

#: Tokens the LLM's answer may take (a short answer; a longer one is cut and flagged).
ANSWER_MAX_TOKENS = 64

#: How many top passages supply the extractive answer's candidate sentences.
EXTRACTIVE_PASSAGES = 3


def extractive_answer(query: str, passages: Sequence[tuple[str, str, str]], backends: Backends) -> PassageAnswer:
    """The sentence of the top passages that answers ``query`` (:func:`core.methods.extractive.pick_sentence`)."""
    pick = pick_sentence(query, passages, backends, max_passages=EXTRACTIVE_PASSAGES)
    if not pick.text:
        return PassageAnswer("", "empty", fallback=NO_TEXT, pick=pick)
    return PassageAnswer(pick.text, "extractive", pick.chunk_id, pick=pick)


def passages_prompt(query: str, passages: Sequence[tuple[str, str, str]], *, max_passages: int = 5) -> str:
    """The user message of the passage-format answer prompt."""
    texts = [f"{t}\n{x}" if t else x for _, t, x in passages[:max_passages]]
    return prompts.answer_prompt(query, texts)


def answer_question(query: str, passages: Sequence[tuple[str, str, str]], backends: Backends, *,
                    max_passages: int = 5, prompt: tuple[str, str] | None = None,
                    stage: str = "Answer from the top passages", demonstration: str = "") -> PassageAnswer:
    """Answer ``query`` from ranked ``(chunk_id, title, text)`` passages (best first).

    Uses the LLM when ``backends.llm.available``; otherwise, or if the LLM call fails, the
    extractive answer from the top passages (``fallback`` says why). ``prompt`` = ``(system, user)``
    replaces the passage prompt (the triple / chain evidence formats). A live LLM's reply streams to
    :func:`core.backends.streaming.answer_sink` under ``stage`` as it is written. ``demonstration``: the
    in-context example the prompt opens with (ReG's); a reply naming its made-up entities, not the real
    evidence's, copied it and is unusable (:func:`core.methods.copy_check.demonstration_copies`).
    """
    if not passages:
        return PassageAnswer("", "empty", fallback="no passage was retrieved")
    if not backends.llm.available:
        return extractive_answer(query, passages, backends)
    system, user = prompt or (prompts.ANSWER_SYSTEM, passages_prompt(query, passages, max_passages=max_passages))
    msgs = [ChatMessage("system", system), ChatMessage("user", user)]
    try:
        with streaming_reply(answer_sink(stage)):
            resp = backends.llm.chat(msgs, max_tokens=ANSWER_MAX_TOKENS)
    except LLMError as exc:
        ans = extractive_answer(query, passages, backends)
        return PassageAnswer(ans.text, ans.mode, ans.chunk_id, fallback=f"the LLM failed ({exc}); extractive answer",
                      pick=ans.pick)
    check = check_llm_answer(resp.text, truncated=resp.truncated)
    if check.ok and demonstration:
        from core.methods.copy_check import demonstration_copies

        copied = demonstration_copies(check.text, user, demonstration)
        if copied:  # the example's answer, not one from this question's evidence
            ans = extractive_answer(query, passages, backends)
            return PassageAnswer(ans.text, ans.mode, ans.chunk_id,
                                 fallback=("the LLM's answer copies the prompt's demonstration ("
                                           + ", ".join(map(repr, copied[:3])) + "); extractive answer instead"),
                                 prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens,
                                 rejected=resp.text[:2000], pick=ans.pick, check=check)
    if not check.ok:
        ans = extractive_answer(query, passages, backends)
        return PassageAnswer(ans.text, ans.mode, ans.chunk_id,
                      fallback=f"the LLM's answer was unusable ({check.problem}); extractive answer instead",
                      prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens,
                      rejected=resp.text[:2000], pick=ans.pick, check=check)
    if resp.truncated:  # shown as cut, never as a whole answer (and the LLM cache did not keep it)
        return PassageAnswer(check.text, "llm", "",
                      fallback=f"the LLM's answer stopped at its {ANSWER_MAX_TOKENS}-token limit: shown cut (…)",
                      prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens, cached=resp.cached,
                      check=check)
    return PassageAnswer(check.text, "llm", "", prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens,
                  cached=resp.cached, check=check)


def record_answer(trace: Trace, query: str, passages: Sequence[tuple[str, str, str]], backends: Backends, *,
                  max_passages: int = 5, evidence_format: EvidenceFormat = "passages",
                  evidence: Evidence | Callable[[Sequence[tuple[str, str, str]]], Evidence | None] | None = None,
                  max_tokens: int | None = None, budget: str = "own",
                  evidence_chunks: Sequence[str] | None = None, evidence_max_chunks: int | None = None) -> PassageAnswer:
    """:func:`answer_question` recorded as the ``answer`` trace step, with what it was handed
    (:class:`AnswerContext`, in ``data["context"]``).

    Parameters
    ----------
    max_passages : int
        The top passages handed to the answer (a comparison budget's chunk count lands here).
    evidence_format : {"passages", "triples", "chains"}
        What the prompt shows (see the module docstring). "triples" / "chains" need ``evidence``.
    evidence : Evidence, a function of the handed passages returning one (or None), or None
        The triples behind the answer as raw list and ReG chains, with the token counts of every
        prompt (recorded as ``evidence_tokens``). A function is called inside the answer step with the
        passages handed to the answer, so building the evidence counts as answer time; None (or a
        function returning None: a corpus graph has no triples) falls back to the passages. A function of
        no argument (the evidence of passages its caller chose) is called once and used as it is.
    max_tokens : int or None
        A comparison budget's tokens (:mod:`core.methods.budget`): passages are handed best first while
        their WordPiece tokens fit; with triple / chain evidence built from passages, the most passages
        whose triples (chains) fit. None: no token limit (every method's paper default).
    budget : str
        The budget's name, recorded with the context.
    evidence_chunks : sequence of str or None
        The passages a ready-made ``evidence`` (not a function) comes from (ReG: its kept triples'); None:
        the handed passages.
    evidence_max_chunks : int or None
        The limit on ``evidence_chunks`` the caller applied (ReG's ``answer_chunks``), recorded with them.
    """
    if evidence_format not in ("passages", "triples", "chains"):
        from core.errors import ConfigError

        raise ConfigError(f"evidence_format = {evidence_format!r} is not valid; use 'passages', 'triples' or 'chains'.")
    title = ("Answer from the top passages" if evidence_format == "passages"
             else f"Answer from the evidence {evidence_format}")
    with trace.timed("answer", title) as step:
        if callable(evidence) and _takes_no_passages(evidence):
            evidence = cast("Callable[[], Evidence | None]", evidence)()
        top = list(passages[:max_passages])
        fmt: str = evidence_format
        handed, ev, ev_tokens, no_room = _hand_over(top, fmt, evidence, max_tokens)
        fmt_fallback = ""
        if fmt != "passages" and (ev is None or not ev.triples):
            fmt_fallback = (f"evidence format {fmt!r} needs KG triples, but "
                            + ("this workspace has none (a corpus graph)" if ev is None else
                               "the retrieved passages cite no triple") + "; the passages were used instead")
            fmt = "passages"
            handed, ev, ev_tokens, no_room = _hand_over(top, fmt, evidence, max_tokens)
        prompt = (ev.system, ev.prompts[fmt]) if fmt != "passages" and ev is not None else None
        if no_room:
            ans = PassageAnswer("", "empty", fallback=no_room)
        else:
            # ReG's evidence prompts open with a demonstration (EvidencePrompts.demonstrations); the protocol
            # leaves it out so other evidence types need not carry one
            demo = getattr(ev, "demonstrations", {}).get(fmt, "") if prompt is not None else ""
            ans = answer_question(query, handed, backends, max_passages=len(handed), prompt=prompt, stage=title,
                                  demonstration=demo)
        step.prompt_tokens, step.completion_tokens = ans.prompt_tokens, ans.completion_tokens
        if ans.mode == "extractive":
            n, k = len(handed), min(EXTRACTIVE_PASSAGES, len(handed))  # both numbers: "top 3" beside "read 5"
            how = (f"Extractive answer (no LLM generation): the sentence of the {f'top {k} of the ' if n > k else ''}"
                   f"{plural(n, 'passage')} handed to the answer step that answers the question best, scored by "
                   + (ans.pick.scorer if ans.pick is not None else "the embedder") + ". It quotes the evidence; "
                   "it does not reason across passages.")
        elif ans.mode == "llm":
            assert fmt == "passages" or ev is not None  # a triple format without evidence fell back above
            src = (f"the top {len(handed)} passages" if fmt == "passages" or ev is None else
                   f"{len(ev.triples)} KG triples as " + ("ReG evidence chains" if fmt == "chains" else "a raw triple list"))
            how = f"Generated by the LLM {backends.llm.model_id} from {src}."
        else:
            how = "No answer: " + (ans.fallback or "nothing was retrieved") + "."
        if ans.cached is not None:
            step.note_cache(ans.cached)
        if ev is not None:
            step.section = "ReG §4.2 (evidence format)"
        ids: list[str] = [p[0] for p in handed]
        limit: int | None = max_passages
        if fmt != "passages" and evidence_chunks is not None and not callable(evidence):
            ids, limit = list(evidence_chunks), evidence_max_chunks
        context = AnswerContext(
            tuple(dict.fromkeys(c for c in ids if c)), ev_tokens, budget, limit, max_tokens,
            fmt, (len(top) - len(handed)) if fmt == "passages" or callable(evidence) else 0)
        # every LLM reply meant as the answer went through the one answer check (ans.check)
        step.data = AnswerStepData(
            mode=ans.mode, how=how, answer=ans.text, chunk_id=ans.chunk_id, evidence_format=fmt,
            evidence_format_requested=evidence_format,
            extractive=ans.pick.trace_data() if ans.pick is not None else None,
            rejected_answer=ans.rejected or None, context=context.data(),
            **(ans.check.step_fields() if ans.check is not None else {}),
            **(ev.trace_data() if ev is not None else {})).data()
        fallbacks = []
        if ans.mode == "extractive" and not backends.llm.available:
            fallbacks.append("no LLM configured (backend 'none'): extractive answer")
        elif ans.mode == "empty" and ans.fallback:
            fallbacks.append(f"no answer: {ans.fallback}")
        elif ans.fallback:
            fallbacks.append(ans.fallback)
        if fmt_fallback:
            fallbacks.append(fmt_fallback)
        step.fallback = "; ".join(fallbacks)
    return ans


def _takes_no_passages(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is called without the handed passages (an evidence function made before budgets)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)


def _hand_over(top: list[tuple[str, str, str]], fmt: str,
               evidence: Evidence | Callable[[Sequence[tuple[str, str, str]]], Evidence | None] | None,
               max_tokens: int | None) -> tuple[list[tuple[str, str, str]], Evidence | None, int, str]:
    """What the answer is handed from the ``top`` passages in format ``fmt``: the passages, the evidence
    built from them, its WordPiece tokens, and why nothing fits the budget ("" when something does)."""
    if fmt == "passages" or not callable(evidence):
        ev = evidence(top) if callable(evidence) else evidence
        if fmt != "passages" and ev is not None and ev.triples:  # ready-made triples: the caller budgeted them
            return top, ev, count_evidence([ev.evidence_text(fmt)])[0], ""
        handed, tokens = fit_passages(top, max_tokens)
        if len(handed) < len(top) and callable(evidence):  # the other formats' counts: of what is handed
            ev = evidence(handed) if handed else None
        why = "" if handed or not top or max_tokens is None else \
            no_fit(max_tokens, "passage", count_evidence([passage_text(top[0][1], top[0][2])])[0])
        return handed, ev, tokens, why
    # triples / chains built from the passages: the most top passages whose evidence fits
    ev = evidence(top)
    if ev is None or not ev.triples:
        return top, ev, 0, ""
    tokens = count_evidence([ev.evidence_text(fmt)])[0]
    if max_tokens is None or tokens <= max_tokens:
        return top, ev, tokens, ""
    best: tuple[int, Evidence | None, int] = (0, None, 0)
    first = 0
    for n in range(1, len(top)):
        e = evidence(top[:n])
        t = count_evidence([e.evidence_text(fmt)])[0] if e is not None and e.triples else 0
        first = first or t
        if t > max_tokens:
            break
        best = (n, e, t)
    n, e, t = best
    if n == 0:
        return [], None, 0, no_fit(max_tokens, f"passage's {fmt}", first or tokens)
    return top[:n], e, t, ""


@dataclass(frozen=True)
class AnswerNote:
    """How a result's answer was made, in words a page or the CLI shows next to it."""

    kind: str  #: "llm", "extractive", "heuristic" (SG-RAG's UNK binding without an LLM), "early exit" or "none"
    label: str  #: e.g. "Extractive answer (no LLM)"
    how: str  #: one or two sentences: what the text is and how it was chosen
    limits: tuple[str, ...] = ()  #: what ``none`` mode could not do for this question; flags on an LLM answer

    @property
    def extractive(self) -> bool:
        return self.kind == "extractive"


NO_LLM_LIMIT = ("Without an LLM this is the best-scoring evidence sentence, not a generated answer: on a multi-hop "
          "question it may name the answer without stating the chain. Pick an LLM in the sidebar for a generated one.")


def method_notices(result: Any, *, app: bool = False) -> tuple[str, ...]:
    """Notices a method's trace asks every view to show (a step's :attr:`~core.trace.StepNotes.notice`, then any of
    its ``more_notices``), e.g. that the ``reg`` method ran without ReG's trained retriever. Pages, ``egx ask``
    and ``egx bench`` show them; with ``app`` a step's ``notice_app`` (the same notice in the app's words)
    where it has one."""
    out: list[str] = []
    for s in result.trace.steps:
        notes = s.notes
        for text in [(app and notes.notice_app) or notes.notice, *(notes.more_notices or ())]:
            if text and str(text) not in out:
                out.append(str(text))
    return tuple(out)


def step_fallback(step: Any, *, app: bool = False) -> str:
    """Why ``step`` took its fallback ("" when it took none); with ``app`` in the app's words where the
    stage gave them (:attr:`~core.trace.StepNotes.fallback_app`: no command line, no folder)."""
    if not step.fallback:
        return ""
    return str((app and step.notes.fallback_app) or step.fallback)


def describe_answer(result: Any) -> AnswerNote:
    """Read the answer step of ``result.trace`` (any method) into an :class:`AnswerNote`."""
    steps = answering_steps(result.trace)
    data = steps[-1].data if steps else AnswerStepData()
    fallback = steps[-1].step.fallback if steps else ""
    by = str(data.made_by or getattr(result, "answer_by", "") or "")
    flags = tuple(f"Flagged: {str(f).rstrip('.')}." for f in data.flags or ())
    if steps and steps[-1].early_exit:
        return AnswerNote("early exit", "Answer from the pre-retrieved passages (early exit)",
                          "The pre-retrieved passages were judged sufficient, so graph retrieval was skipped.", flags)
    if not str(getattr(result, "answer", "") or "").strip():
        why = (fallback or "nothing was retrieved").removeprefix("no answer: ")
        return AnswerNote("none", "No answer", f"No answer: {why}.", ())
    if by == "llm":
        return AnswerNote("llm", "Generated by the LLM", str(data.how or "Generated by the LLM from the evidence."),
                          flags)
    if by == "extractive":
        ex = data.extractive or {}
        limits = [NO_LLM_LIMIT]
        if ex.get("note"):
            limits.append(str(ex["note"]).rstrip(".") + ".")
        limits += _query_graph_limits(result)  # SG-RAG's extractive answer: what its query graph could not say
        how = str(data.how or "Extractive answer (no LLM generation): a sentence of the top passages.")
        return AnswerNote("extractive", "Extractive answer (no LLM)", how, tuple(limits))
    if by in ("unk-binding", "typed-binding", "fallback-heuristic", "none"):
        limits = _query_graph_limits(result)  # SG-RAG's heuristic answers: its query graph says why
        if data.type_note:  # SG-RAG: bindings not of the asked type were passed over (or none was of it)
            limits.append(data.type_note[:1].upper() + data.type_note[1:].rstrip(".") + ".")
        how = {"unk-binding": "The node bound to UNK in the best-ranked matched subgraph (no LLM reads the subgraph).",
               "typed-binding": "The node bound to UNK in the best-ranked matched subgraph whose binding is of the "
                                "type the question asks for (no LLM reads the subgraph).",
               "fallback-heuristic": "No exact match: the neighbour of the question's entities that touches most of "
                                     "them (no LLM reads the 1-hop context).",
               "none": "No subgraph matched, and no neighbour of the question's entities was found to guess."}[by]
        return AnswerNote("heuristic", "Heuristic answer (no LLM)", how, tuple(limits))
    return AnswerNote(by or "none", by or "Answer", str(data.how or ""), ())


def _query_graph_limits(result: Any) -> list[str]:
    """SG-RAG's query-graph limitation (what its ``none``-mode graph could not express), read through the shared
    :class:`~core.trace.StepNotes` (this shared module imports no method package, so not SG-RAG's QueryGraphData)."""
    steps = result.trace.stage("query_graph")
    limitation = steps[0].notes.limitation if steps else None
    return [str(limitation).rstrip(".") + "."] if limitation else []
