"""How an answer was made, shown next to it on every page that shows one: "Extractive
answer (no LLM)" with what that means, and what ``none`` mode could not do for this question.
The words come from :func:`core.methods.answering.describe_answer` (the CLI prints the same).
Beside it, when the question comes with one, the gold answer with EM, F1 and the kind of match
(:func:`core.eval.verdicts.match_answer`), so a surname is seen as a partial match, not only as wrong."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import streamlit as st

from components.ui import md_escape
from core.eval.lesson import and_list
from core.eval.verdicts import AnswerMatch, match_answer
from core.methods.answering import NO_LLM_LIMIT, AnswerNote, describe_answer, method_notices
from core.methods.base import Gold
from core.methods.run import is_unanswered
from core.pinning import replay_notice


def unrecorded_workspace(llm_name: str, workspace: str) -> bool:
    """The ``recorded`` LLM on a workspace none of its recordings holds: every LLM stage here takes its fallback,
    as in ``none`` mode. :func:`recording_gap_warning` says so once; the answer areas then leave out what would
    repeat it (:func:`replay_banner`'s "Not a recorded run", :func:`answer_note`'s "Without an LLM…")."""
    if not str(llm_name).startswith("recorded"):
        return False
    from components import resources

    return not any(w == workspace for w, _, _ in resources.recorded_runs(resources.recordings_key()))


def recorded_workspaces() -> list[str]:
    """The workspaces the shipped LLM recordings hold runs of, sorted."""
    from components import resources

    return sorted({w for w, _, _ in resources.recorded_runs(resources.recordings_key())})


def unrecorded_workspace_text(workspace: str, recorded: Sequence[str]) -> str:
    """The one notice of :func:`recording_gap_warning` for a workspace the recordings do not hold."""
    held = " and ".join(f"“{w}”" for w in recorded) or "no workspace"
    return (f"**“{workspace}” has no recordings.** The recorded LLM only replays the runs recorded on {held}, so "
            "here every method runs without an LLM, as in `none` mode: an answer is the best-scoring evidence "
            "sentence, not a generated one (on a multi-hop question it may name the answer without the chain). "
            "For generated answers pick a live LLM in the sidebar's **LLM** box: `local (live)`, a model on this "
            "machine, or `openai (live)`, an OpenAI-compatible server with its address and key.")


def recording_gap_warning(llm_name: str, workspace: str, questions: Sequence[str], methods: Sequence[str],
                          budget: str = "own") -> None:
    """Before a run with the ``recorded`` LLM: say when the recordings hold no run of these questions × methods on
    this workspace (such a run is a ``none`` run) — not only after the run — and when they hold none under the
    comparison ``budget`` (a method whose answer that budget changes then answers without an LLM). On a workspace
    they hold nothing of, that is the page's one notice (:func:`unrecorded_workspace`)."""
    if not str(llm_name).startswith("recorded") or not questions or not methods:
        return
    from components import resources
    from core.backends.llm_bundles import recording_gap

    if unrecorded_workspace(llm_name, workspace):
        st.info(unrecorded_workspace_text(md_escape(workspace), recorded_workspaces()),
                icon=":material/info:")
        return
    text = recording_gap(resources.recorded_runs(resources.recordings_key()), workspace, questions, methods)
    if text:
        st.warning(md_escape(text), icon=":material/report:")
    held = sorted({b for w, b in resources.recorded_budgets(resources.recordings_key()) if w == workspace})
    if held and budget not in held:
        st.warning(md_escape(f"The recorded LLM's runs on “{workspace}” were recorded under the budget"
                             f"{'s' if len(held) > 1 else ''} {', '.join(f'“{b}”' for b in held)}, not “{budget}”: "
                             "a method whose answer this budget changes answers without an LLM here (its answer step "
                             "says “not recorded”). Pick " + " or ".join(f"“{b}”" for b in held)
                             + " for the recorded answers."), icon=":material/report:")


def recorded_questions(llm_name: str, workspace: str, method: str) -> list[str]:
    """The questions the ``recorded`` LLM holds a run of with ``method`` on ``workspace``, sorted
    ([] when the LLM is another)."""
    if not str(llm_name).startswith("recorded"):
        return []
    from components import resources

    runs = resources.recorded_runs(resources.recordings_key())
    return sorted({q for w, m, q in runs if w == workspace and m == method})


def recorded_first(llm_name: str, workspace: str, method: str, questions: Sequence[str]) -> list[str]:
    """``questions`` with those the ``recorded`` LLM holds a run of with ``method`` first, so that a page's default
    question replays a recording (unchanged with another LLM)."""
    held = set(recorded_questions(llm_name, workspace, method))
    return [q for q in questions if q in held] + [q for q in questions if q not in held]


def not_recorded_notice(llm_name: str, workspace: str, method: str, title: str, question: str) -> bool:
    """Before a run with the ``recorded`` LLM of a question it holds no run of with ``method``: say so plainly, with
    the questions it does hold, instead of letting each LLM stage report a failure. Whether it said so."""
    if unrecorded_workspace(llm_name, workspace):  # nothing recorded here at all: the page's one notice
        st.info(unrecorded_workspace_text(md_escape(workspace), recorded_workspaces()), icon=":material/info:")
        return True
    held = recorded_questions(llm_name, workspace, method)
    if not str(llm_name).startswith("recorded") or not question or question in held:
        return False
    pick = ("pick a recorded question (" + "; ".join(f"“{q}”" for q in held) + ")") if held else \
        f"no question of this workspace is recorded for {title}"
    st.warning(md_escape(f"This question is not recorded for {title} — {pick} or switch the LLM to none or local "
                         "in the sidebar. Until then it runs without an LLM, as in none mode: the answer is an evidence "
                         "sentence, not a generated one."),
               icon=":material/report:")
    return True


def replay_banner(result: Any, *, said: bool = False) -> None:
    """With the ``recorded`` LLM, say first when the run is not the recorded one (some stage ran without
    its recorded reply, or no recorded run matches): a partial replay is never shown as the recording. ``said``:
    the page already said that this workspace has no recordings (:func:`unrecorded_workspace`)."""
    if said or is_unanswered(result.trace):  # a none run, said before it started (recording_gap_warning)
        return
    trace = result.trace
    hits = sum(int(s.llm_cache.get("hits", 0)) for s in trace.steps)
    text = replay_notice(getattr(trace, "replay", None), hits)
    if text:
        st.warning(md_escape(text), icon=":material/report:")


def answer_note(result: Any, *, compact: bool = False, said: bool = False) -> AnswerNote:
    """A caption naming how ``result``'s answer was made, and a warning per limit of ``none`` mode.

    ``compact`` (narrow columns): the label alone and the limits in one caption. ``said``: the page's notice
    already said that answers here are evidence sentences (:func:`unrecorded_workspace`), so that limit is left
    out."""
    note = describe_answer(result)
    if said or is_unanswered(result.trace):  # a none run of the recorded LLM: the notice before the run said it
        note = replace(note, limits=tuple(x for x in note.limits if x != NO_LLM_LIMIT))
    for notice in method_notices(result, app=True):  # e.g. reg without a trained retriever is not ReG's retriever
        st.warning(md_escape(notice), icon=":material/warning:")
    cache = llm_cache_line(result.trace)
    if cache and note.kind in ("extractive", "heuristic"):
        # the LLM's replies went to other stages (SG-RAG's query graph): "no LLM wrote it" beside "1 of 1 LLM reply
        # replayed" read as a contradiction to an audit
        cache = cache.rstrip(".") + f" — for {and_list(llm_stages(result.trace)) or 'other stages'}, not the answer."
    if compact:
        text = f"**{md_escape(note.label)}**"
        if note.kind == "extractive":
            text += " — it quotes the evidence; no LLM wrote it."
        elif note.kind in ("heuristic", "none"):  # a heuristic answer may quote nothing ("Unable to determine")
            text += " — " + md_escape(note.how)
        st.caption(text + (f" · {md_escape(cache)}" if cache else ""))
        return note
    st.caption(note_caption(note.label, note.how))
    reread = reread_line(result)
    if reread:
        st.caption(md_escape(reread))
    budget = own_budget_line(result)
    if budget:
        st.caption(md_escape(budget))
    if cache:
        st.caption(md_escape(cache))
    for limit in note.limits:
        st.warning(md_escape(limit), icon=":material/info:")
    return note


def reread_line(result: Any) -> str:
    """Without an LLM: the question as the extractive answer also read it, a description in it replaced by the entity
    a retrieved sentence resolved it to (:mod:`core.methods.bridges`); "" when it read none. Audit 57 found the
    re-read questions only in the trace's JSON."""
    from core.methods.evidence.formats import answering_steps

    steps = answering_steps(result.trace)
    picked = (steps[-1].data.extractive or {}) if steps else {}
    bridges = [str(b) for b in picked.get("bridges") or () if b]
    if not bridges:
        return ""
    return ("No LLM: the question was also read with what a retrieved sentence names for its description — "
            + "; ".join(bridges) + ". The sentence picked scores the better of the two readings.")


def own_budget_line(result: Any) -> str:
    """On a method's own page (its paper's budget, ``own``): how many passages its answer step was handed (with no
    LLM, that the extracted sentence comes from the top :data:`~core.methods.answering.EXTRACTIVE_PASSAGES` of them),
    and that Compare and the Benchmark cap every method at BubbleRAG §4.1's 15 chunks, where the same method may read
    more (an audit read "the top 5 passages" on HippoRAG 2's page and up to 15 for it on Compare, unexplained). ""
    for a run under another budget or one that recorded no context."""
    from core.methods.answering import EXTRACTIVE_PASSAGES, context_of
    from core.methods.budget import BUDGETS, COMPARISON_DEFAULT
    from core.methods.evidence.formats import answering_steps

    ctx = context_of(result)
    if ctx is None or (ctx.budget or "own") != "own":
        return ""
    cap = BUDGETS[COMPARISON_DEFAULT]
    n = len(ctx.chunk_ids)
    steps = answering_steps(result.trace)
    # without an LLM the sentence comes from the top 3 of them: both numbers, as the answer's note says them (an
    # audit read "the top 3 passages" beside "its answer read 5 passages")
    pick = (f" (no LLM: its extracted sentence comes from the top {EXTRACTIVE_PASSAGES} of them)"
            if n > EXTRACTIVE_PASSAGES and steps and steps[-1].data.mode == "extractive" else "")
    used = f"{n} passage{'s' if n != 1 else ''}{pick}"
    if ctx.max_chunks is not None and cap.chunks is not None and ctx.max_chunks >= cap.chunks:  # BubbleRAG's own
        # the cap first, then what this run used under it: "handed 8 … the same cap (at most 15)" read as 8 vs 15
        same = ("the same cap Compare and the Benchmark open at" if ctx.max_chunks == cap.chunks
                else f"Compare and the Benchmark open at {cap.chunks}")
        return (f"This page runs the method at its paper's own budget, a cap of at most {ctx.max_chunks} chunks "
                f"(“{cap.name}”, {same}). This run's answer step used {used} under that cap.")
    head = f"This page runs the method at its paper's own budget: its answer step was handed {used}."
    return (head + f" Compare and the Benchmark open at “{cap.name}” (at most {cap.chunks} chunks for every method, "
            "BubbleRAG §4.1), where the same method may read more and answer differently.")


def note_caption(label: str, how: str) -> str:
    """``**label.** how`` as escaped markdown, without saying the label twice where ``how`` opens with it
    ("Generated by the LLM. Generated by the LLM from the evidence." read as a stutter)."""
    head, sep, rest = how.partition(": ")
    if how.startswith(label):
        return f"**{md_escape(label)}**{md_escape(how[len(label):])}"
    if sep and rest and head.startswith(label.split(" (")[0]):  # "Extractive answer (no LLM generation): …"
        return f"**{md_escape(label)}.** {md_escape(rest[:1].upper() + rest[1:])}"
    return f"**{md_escape(label)}.** {md_escape(how)}"


def llm_stages(trace: Any) -> list[str]:
    """The titles of the stages of ``trace`` that asked the LLM (a reply generated, cached or replayed)."""
    return [str(s.title) for s in trace.steps
            if int(s.llm_cache.get("hits", 0)) + int(s.llm_cache.get("misses", 0)) > 0]


def llm_cache_line(trace: Any) -> str:
    """One line saying how many of the run's LLM replies came from the cache or a recording ("" when none
    was asked), so a reused reply is never passed off as one generated now."""
    hits = sum(int(s.llm_cache.get("hits", 0)) for s in trace.steps)
    total = hits + sum(int(s.llm_cache.get("misses", 0)) for s in trace.steps)
    if not total:
        return ""
    replies = "reply" if total == 1 else "replies"
    if str(trace.backends.get("llm", "")).startswith("recorded"):
        # a stage whose prompt was not recorded raised (no reply to count): name those stages, or "4 of 4
        # replayed" would pass a run that lost three stages off as a complete replay
        replay = trace.replay if isinstance(getattr(trace, "replay", None), dict) else {}
        if replay and not replay.get("matched"):  # no recorded run matched: the banner above says it, with the count
            return ""
        missed = [str(m) for m in replay.get("missed_stages") or []]
        if missed:
            return (f"Recorded LLM run, in part: {hits} LLM {replies} replayed from the shipped recording (not "
                    f"generated now); not recorded, so these stages ran without the LLM: {'; '.join(missed)}.")
        return (f"Recorded LLM run: {hits} of {total} LLM {replies} replayed from the shipped recording "
                "(not generated now; see the provenance in the sidebar).")
    if not hits:
        return f"LLM: {total} {replies} generated now (none from the LLM cache)."
    return (f"LLM cache: {hits} of {total} LLM {replies} answered from the cache (no LLM time; "
            "the sidebar's “Reuse cached LLM replies” switch asks the LLM again).")


#: Beside an answer quoted without an LLM, instead of EM / F1: the Benchmark scores no such answer by EM / F1 (a
#: sentence is never an exact answer), and Compare showing "EM 0 · F1 0.33" for one disagreed with it (an audit).
QUOTED_NOTE = "no LLM wrote this answer, so no EM / F1 (as on the Benchmark page)"


def off_gold_source(result: Any, gold_chunks: Sequence[str], graph: Any = None) -> str:
    """The title (else id) of the passage an extracted answer was quoted from when the question has gold passages
    and that one is not among them; "" otherwise (an LLM's answer, no source recorded, no gold passages)."""
    from core.methods.diagnoser import off_gold_source as source_of

    source = source_of(result, set(gold_chunks))
    if not source:
        return ""
    chunk = graph.chunk(source) if graph is not None and hasattr(graph, "chunk") else None
    return str(getattr(chunk, "title", "") or source)


def gold_answer_text(answer: str, golds: Sequence[str], *, by_llm: bool = True,
                     off_gold: str = "") -> tuple[str, AnswerMatch]:
    """The gold-answer line as escaped markdown ("" when the question has no gold answer) and the match:
    ``Gold answer: **Hugo Weaving** · EM 0 · F1 0.67 · partial match (part of the gold answer)``; for an answer
    not written by an LLM (``by_llm=False``) the kind of match and :data:`QUOTED_NOTE` instead of EM / F1.
    ``off_gold``: the passage (not a gold one) the answer was quoted from — an answer holding the gold answer then
    says it may state the same fact or hold the words by chance (:data:`core.methods.diagnoser.OFF_GOLD_READINGS`:
    an audit read "holds the gold answer" on "X is a holding company based in Essmoor" from every method, though the
    gold passage was never retrieved; another's passage stated the fact, their gold list lacked it; Hit counts it)."""
    m = match_answer(answer, golds)
    if m.kind == "no_gold":
        return "", m
    gs = [g for g in golds if g]
    text = f"Gold answer: **{md_escape(gs[0])}**"
    if len(gs) > 1:
        more = f" … (+{len(gs) - 5})" if len(gs) > 5 else ""
        text += f" (aliases: {md_escape(', '.join(gs[1:5]))}{more})"
    from core.methods.diagnoser import OFF_GOLD_READINGS

    chance = (f" · :orange[quoted from “{md_escape(off_gold)}”, a passage outside the gold list: {OFF_GOLD_READINGS} "
              "(Hit counts it)]" if off_gold and m.kind in ("exact", "alias", "contains") else "")
    if not by_llm:
        return text + f" · {md_escape(m.label)}{chance} · {QUOTED_NOTE}", m
    return text + f" · EM {m.em or 0:g} · F1 {m.f1 or 0:.2f} · {md_escape(m.label)}{chance}", m


def gold_answer(answer: str, golds: Sequence[str], *, by_llm: bool = True, off_gold: str = "") -> AnswerMatch:
    """The gold answer beside a method's answer, with EM, F1 and the kind of match (nothing when the
    question has no gold answer; no EM / F1 for an answer quoted without an LLM, ``by_llm=False``; ``off_gold``:
    :func:`gold_answer_text`)."""
    text, m = gold_answer_text(answer, golds, by_llm=by_llm, off_gold=off_gold)
    if text:
        st.markdown(text)
    return m


def question_answers(questions: Sequence[Any], query: str) -> tuple[str, ...]:
    """The gold answer and its aliases of the workspace question whose text is ``query`` (() for a typed one)."""
    for q in questions:
        if getattr(q, "question", None) == query:
            return Gold.from_question(q).answers
    return ()


def question_gold_chunks(questions: Sequence[Any], query: str) -> tuple[str, ...]:
    """The gold passages (chunk ids) of the workspace question whose text is ``query`` (() for a typed one)."""
    for q in questions:
        if getattr(q, "question", None) == query:
            return Gold.from_question(q).chunk_ids
    return ()


def source_passages_ui(act: Any, result: Any, gold_chunks: Sequence[str] = ()) -> None:
    """The passages an answer was read from (``result.chunks``: BubbleRAG's evidence and preview passages), ranked,
    with a ✓ on the gold ones when the question has gold passages (the lesson above speaks of their ranks), and
    the first eight's texts folded under it."""
    import pandas as pd

    from core.graph.reader import read_ahead

    g = act.graph
    read_ahead(g, chunk_ids=[c.chunk_id for c in result.chunks])
    gold = set(gold_chunks)
    st.caption("“evidence”: cited by a node or edge of G_final (support = how much of G_final cites it); "
               "“preview”: a pre-retrieved passage filling the remaining slots."
               + (" ✓: a gold passage of the question." if gold else ""))
    rows = []
    for i, c in enumerate(result.chunks):
        row: dict[str, object] = {"rank": i + 1}
        if gold:
            row["gold"] = "✓" if c.chunk_id in gold else ""
        row.update({"passage": g.chunk(c.chunk_id).title if c.chunk_id in g.chunk_index else c.chunk_id,
                    "chunk id": c.chunk_id, "source": c.source, "score": round(c.score, 3),
                    "support": round(c.support, 3), "similarity": round(c.similarity, 3)})
        rows.append(row)
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    for c in result.chunks[:8]:
        if c.chunk_id not in g.chunk_index:
            continue
        ch = g.chunk(c.chunk_id)
        mark = " · ✓ gold" if c.chunk_id in gold else ""
        with st.expander(f"{md_escape(ch.title) if ch.title else '(untitled)'} · {md_escape(c.chunk_id)} · "
                         f"{c.source}{mark}"):
            st.text(ch.text)
