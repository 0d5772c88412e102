"""The Papers page's panels: a paper's quoted table beside our reproduction of it (the one shipped for the MuSiQue
sample, and a fresh one of the active workspace), its citation, our rows compared paired, every difference of
setting, what "within noise" means, the command that reruns it, and the "Re-run on this workspace" job.

The figures come from :mod:`core.eval.reproduce` (``reproduce.json``); nothing here computes one. Every text that
comes from a file (workspace names, reasons, settings) is escaped before it is drawn as Markdown.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import jobs_view, resources
from components import state as S
from components.ui import error_text, md_code, md_escape
from core.errors import Cancelled, EgxError
from core.eval.paper_compare import OurCell
from core.eval.paper_model import PAPER_IDS
from core.eval.recorded_answers import fill_recorded_answers
from core.eval.reproduce import REPRODUCE_JSON, reproduce_root
from core.eval.reproduce_record import RETRIEVAL_KEYS, load_reproduction, stored_reproduction

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.background.jobs import Job

#: The LLM modes a reproduction is shipped in, as the picker names them.
MODES = {"none": "none — no LLM: extracted answers", "recorded": "recorded — the shipped real-LLM runs, replayed"}
#: Marks a figure of ours whose 95 % interval holds the paper's figure.
NOISE_MARK = "≈"


def choose() -> tuple[str, str]:
    """The paper and the LLM mode of the figures shown."""
    c1, c2 = st.columns([2, 3])
    paper = S.keep(S.PAPERS_PAPER, c1.selectbox("Paper", list(PAPER_IDS), key=S.bind(S.PAPERS_PAPER, "bubblerag"),
                                                format_func=PAPER_IDS.get))
    # the figures are stored, whatever the sidebar's LLM: the page opens on the recorded model's, since the papers'
    # tables score written answers and with "none" every such cell of ours is blank (a table of blanks greeted a
    # lecturer on "none", an audit); the switch is the page's own from then on
    mode = S.keep(S.PAPERS_MODE, c2.radio("LLM", list(MODES), key=S.bind(S.PAPERS_MODE, "recorded"),
                                          format_func=MODES.get, horizontal=True,
                                          help="none: no LLM, every method's answer is the passage sentence that "
                                               "answers (answer metrics that need a written answer are blank). "
                                               "recorded: the real runs of a 1.5B local model shipped with the "
                                               "samples, replayed where a recording holds the run."))
    return str(paper), str(mode)


def stored(paper: str, mode: str) -> dict[str, Any] | None:
    """The reproduction shipped with the samples for ``paper`` in ``mode`` (None, said, when there is none)."""
    try:
        modes = stored_reproduction(paper)["modes"]
    except EgxError as exc:
        st.warning(md_escape(error_text(exc)), icon=":material/report:")
        return None
    if mode not in modes:
        st.info(f"No stored reproduction with the LLM {md_code(mode)}; re-run it on a workspace below.")
    rec = modes.get(mode)
    return fill_recorded_answers(rec) if rec else rec


def fresh(act: Active, paper: str, mode: str) -> dict[str, Any] | None:
    """The last re-run of ``paper`` on the active workspace in ``mode`` (what ``reproduce.json`` holds), if any."""
    path = reproduce_root(act.workspace.name) / paper / mode / REPRODUCE_JSON
    try:
        return fill_recorded_answers(load_reproduction(path)) if path.exists() else None
    except EgxError as exc:
        st.warning(md_escape(error_text(exc)))
        return None


def table_choice(records: list[dict[str, Any]]) -> str:
    """The table shown, when the paper has several (its main table first)."""
    ids = list(dict.fromkeys(t["id"] for r in records for t in r["tables"]))
    if len(ids) == 1:
        return ids[0]
    return str(S.keep(S.PAPERS_TABLE, st.selectbox("Table", ids, key=S.bind(S.PAPERS_TABLE, ids[0]),
                                                   help="The paper's main table first.")))


def table_of(record: dict[str, Any] | None, table_id: str) -> dict[str, Any] | None:
    """The table ``table_id`` of a reproduction (None when it has none)."""
    return next((t for t in (record or {}).get("tables", ()) if t["id"] == table_id), None)


def citation(record: dict[str, Any], table_id: str) -> None:
    """The table's section, the paper's full citation, its caption and the column group compared."""
    t = table_of(record, table_id)
    c = record["citation"]
    if t is None:
        return
    st.subheader(f"{t['id']} ({t['section']})")
    st.markdown(f"*{md_escape(c['title'])}* — {md_escape(', '.join(c['authors']))} ({c['year']}). "
                f"{md_escape(c['venue'])}, arXiv:{md_escape(c['arxiv'])}.")
    st.caption(f"“{md_escape(t['caption'])}” Compared column group: **{md_escape(t['header'])}**"
               + (f", {md_escape(t['group_llm'])}" if t["group_llm"] else "")
               + (f", the {md_escape(t['closest_llm'])} rows" if t["closest_llm"] else "")
               + f" — {md_escape(t['dataset'])}. Why this one: {md_escape(t['closest_why'])}")


#: A blank cell's reason in the few words a lecturer reads out from the table (the whole reason, numbered, is under
#: it): the reason's start → the words. "– [3]" alone sent everyone to the footnotes.
_BLANK_WORDS = (("not implemented here", "not implemented here"),
                ("not computed: no judge LLM", "no judge LLM chosen"),
                ("no LLM-written answer was scored: the recordings hold no run", "no recorded LLM answer"),
                ("no LLM-written answer was scored", "no LLM-written answer"),
                ("a run of ours has one LLM", "another LLM's row"),
                ("a rank among the paper's rows", "a rank, not a figure"))


def blank_words(reason: str) -> str:
    """A blank cell's reason in a few words (its first clause when it is not one of :data:`_BLANK_WORDS`)."""
    for start, words in _BLANK_WORDS:
        if reason.startswith(start):
            return words
    if reason.startswith(NEEDS_MODEL):  # the folder and command stay in "How to fill the rows not run", never here
        return "needs a trained model"
    head = reason.split(":", 1)[0].strip().rstrip(".")
    return head if len(head) <= 32 else head[:31].rstrip() + "…"


#: How a reason of a row not run for want of a trained model starts (core.eval.reproduce_plan).
NEEDS_MODEL = "not run: no trained model"


def _cell(rec: dict[str, Any], unit: str, mark: Any) -> str:
    if rec["ours"] is None:
        return f"– {blank_words(rec['blank'])} [{mark(rec['blank'])}]"
    text = OurCell(rec["ours"], rec["low"], rec["high"], rec["n"], rec["n_at_most"]).text(unit)
    basis = f" ({rec['basis']})" if rec["basis"] else ""
    why = f" [{mark(rec['basis_why'])}]" if rec.get("basis_why") else ""  # a figure of the recorded runs says so
    return text + basis + (f" {NOISE_MARK}" if rec.get("paper_in_interval") else "") + why


def comparison(table_id: str, shown: list[tuple[str, dict[str, Any]]]) -> None:
    """The quoted table with our figures of each reproduction in ``shown`` ((column label, record)) beside the
    paper's: mean [95 % interval] n, blanks numbered with their reasons below."""
    tables = [(label, t) for label, r in shown if (t := table_of(r, table_id)) is not None]
    if not tables:
        return
    first = tables[0][1]
    notes: dict[str, int] = {}

    def mark(reason: str) -> int:
        return notes.setdefault(reason, len(notes) + 1)

    units = {m["id"]: m["unit"] for m in first["metrics"]}
    rows: dict[str, dict[str, Any]] = {r["row"]: {"row": r["row"], "ours": r["method"] or "—"} for r in first["rows"]}
    for label, t in tables:
        for rec in t["records"]:
            name = next(m["name"] for m in t["metrics"] if m["id"] == rec["metric_id"])
            row = rows.setdefault(rec["row"], {"row": rec["row"], "ours": "—"})
            row[f"{name} · paper"] = rec["paper_printed"]
            row[f"{name} · {label}"] = _cell(rec, units.get(rec["metric_id"], "%"), mark)
    frame = shown_metrics(table_id, [m["name"] for m in first["metrics"]], pd.DataFrame(list(rows.values())))
    st.dataframe(frame, hide_index=True, width="stretch", column_config=column_widths(frame),
                 height=35 * (len(rows) + 1) + 3)  # every row of the paper's table at once, no inner scrolling
    headline = gap_headline(table_id)
    if headline:  # right by the table: why ours sits far from the paper's, before any count or footnote
        st.markdown(f"**Why ours is far from the paper's figure:** {md_escape(headline)}")
    ours = [rec for _, t in tables for rec in t["records"]]
    if ours and all(rec["ours"] is None for rec in ours):  # say why at once, not only in the numbered reasons
        llms = ", ".join(dict.fromkeys(f"“{r.get('llm') or '?'}”" for _, r in shown))
        st.info(f"All {len(ours)} of our cells in this table are blank with the LLM {md_escape(llms)}: each figure of "
                "this table scores a written answer (or needs an LLM judge), and no run here wrote one — the "
                "numbered reasons are under the table. Pick the LLM “recorded” for the shipped real-LLM runs, or "
                "open “Our retrieval in the same runs” below for what this mode measures.", icon=":material/info:")
    for label, r in shown:
        line = answers_line(table_of(r, table_id), r)
        if line:
            st.caption(f"**{md_escape(label)}**: {line}")
    st.caption(f"Ours: mean [95 % interval] n (n≤: over those of the n questions with gold for it); {NOISE_MARK} = "
               "the paper's figure lies inside our interval: at this n the two cannot be told apart, which is not a "
               "reproduction (20 questions give an interval about ±20 points wide; see within noise, below). "
               "Percentages as the paper prints them.")
    if notes:
        with st.expander(f"Why {len(notes)} kind{'s' if len(notes) != 1 else ''} of cell are blank", expanded=False):
            st.markdown("\n".join(f"{i}. {md_escape(why)}" for why, i in notes.items()))
    with st.expander("What each row is, and how this run made it"):
        for r in first["rows"]:
            extra = "; ".join(r["run_notes"])
            st.markdown(f"- **{md_escape(r['row'])}**: {md_escape(r['note'] or 'the paper’s own row')}"
                        + (f" — {md_escape(extra)}" if extra else ""))


#: The main column's width at 1440 px (the tables must fit it, no horizontal scrolling), a character's mean width
#: in the table's font and a cell's padding, in px.
MAIN_WIDTH, CHAR_PX, PAD_PX = 960, 6.6, 26
#: The narrowest a column other than the row label gets (SG-RAG's Table 2 has ten of them beside the label).
MIN_PX = 60


def _wanted(frame: pd.DataFrame) -> dict[str, int]:
    """Each column's width in px for its longest text (header or cell) whole."""
    return {str(c): math.ceil(PAD_PX + CHAR_PX * max([len(str(c))] + [len(str(v)) for v in frame[c]]))
            for c in frame.columns}


def shown_metrics(table_id: str, names: list[str], frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the columns of the metrics shown: every metric when all fit the main column whole, else those
    picked above the table (by default as many as fit, in the paper's order). SG-RAG's Table 2 has five metrics, ten
    figure columns beside the row label: squeezed into 960 px each got 77 px and every "12.0 [6.0, 19.0] n=100"
    was cut."""
    names = list(dict.fromkeys(names))  # FastInsight's metrics share names across its column groups ("R@10")
    want = _wanted(frame)
    cols = {n: [c for c in frame.columns if str(c).startswith(f"{n} · ")] for n in names}
    used, fit = sum(w for c, w in want.items() if not any(c in cs for cs in cols.values())), []
    for n in names:
        if fit and used + sum(want[c] for c in cols[n]) > MAIN_WIDTH:
            break
        fit.append(n)
        used += sum(want[c] for c in cols[n])
    if len(fit) == len(names):
        return frame
    picked = st.pills(f"Metrics shown ({len(fit)} of {len(names)} fit the page at once)", names, default=fit,
                      selection_mode="multi", key=S.sub(S.PAPERS_METRICS, table_id),
                      help="The paper's table has more columns than fit the page with every figure whole: pick the "
                           "metrics to show (more than fit narrows every column).") or fit[:1]
    return frame[[c for c in frame.columns if not any(c in cs for cs in cols.values()) or
                  any(c in cols[n] for n in picked)]]


def column_widths(frame: pd.DataFrame, total: int = MAIN_WIDTH) -> dict[str, Any]:
    """Each column's width in px: its longest text (header or cell) in full, the row label always (the reasoner in
    "ReG@Triple: ReG (Llama3.1-8B)" is what tells rows apart; it was cut at 1440 px); when the whole is wider than
    ``total``, the other columns give up width, the widest first, so the table fits the main column."""
    want = _wanted(frame)
    room = total - want.get("row", 0)
    others = [c for c in want if c != "row"]
    cap = max((want[c] for c in others), default=0)
    while cap > MIN_PX and sum(min(want[c], cap) for c in others) > room:  # the widest give up width first
        cap -= 1
    want.update({c: min(want[c], cap) for c in others})
    return {c: st.column_config.TextColumn(c, width=w) for c, w in want.items()}


def gap_headline(table_id: str) -> str:
    """The one-sentence reason of setting the table's definition gives for our figures sitting far from the paper's
    ("" when it gives none, or the table is not one this build defines)."""
    from core.eval.paper_tables import get_table

    try:
        return get_table(table_id).gap_headline
    except EgxError:
        return ""


#: What a metric scores when it scores an answer (a table of rankings has no LLM-written answer to count).
ANSWER_NEEDS = ("generated answer", "answer")


def recorded_rows(table: dict[str, Any] | None) -> dict[str, str]:
    """Our rows of ``table`` whose answer figure scores the recorded runs' own answers (filled by
    :func:`core.eval.recorded_answers.fill_recorded_answers`) → the settings they were recorded at."""
    return {rec["row"]: str(rec.get("basis_budget") or "its own settings") for rec in (table or {}).get("records", ())
            if rec.get("basis_why")}


def answer_counts(table: dict[str, Any] | None, record: dict[str, Any]) -> dict[str, int]:
    """Each of our rows of ``table`` → how many of the questions run it has an LLM-written answer for: the n of its
    answer figure (a blank "no recorded LLM answer" counts 0); {} when the table has no answer figure of ours."""
    if table is None:
        return {}
    names = {r["row"]: r["method"] for r in table["rows"]}
    answer = {m["id"] for m in table["metrics"] if m.get("needs") in ANSWER_NEEDS}
    counts: dict[str, int] = {}
    for rec in table["records"]:  # the first answer metric of each row that is ours (a ranking counts none)
        if not names.get(rec["row"]) or rec["row"] in counts or rec["metric_id"] not in answer:
            continue
        if rec["ours"] is not None and rec["n"] is not None:
            counts[rec["row"]] = int(rec["n"])
        elif str(rec["blank"] or "").startswith("no LLM-written answer"):
            counts[rec["row"]] = 0
    return counts


def _counts_words(counts: dict[str, int]) -> str:
    return ", ".join(f"{md_escape(row)} {n}" for row, n in sorted(counts.items(), key=lambda kv: -kv[1]))


#: The title of the recorded-LLM notice, which the line under the table points to.
RECORDED_TITLE = "Recorded LLM, in part."


def answers_line(table: dict[str, Any] | None, record: dict[str, Any]) -> str:
    """How many of the questions run each of our rows has an LLM-written answer for (:func:`answer_counts`), said
    under the table; "" when every row has one for every question, or none does (then the note on a table of blanks
    says why). With the recorded LLM it points to :func:`recordings_note`, which says where those answers come
    from."""
    of = record["questions"]["n"]
    counts = answer_counts(table, record)
    if not counts or all(n >= of for n in counts.values()) or not any(counts.values()):
        return ""
    why = f" Where they come from: “{RECORDED_TITLE.rstrip('.')}” below." if record.get("recordings") else ""
    return (f"LLM-written answers, of the {of} questions run: {_counts_words(counts)}. Every other answer is the "
            f"extractive fallback (no LLM wrote it), which the answer columns do not score: that is why n is below "
            f"{of} and why a row with 0 is blank.{why}")


def pairs(table_id: str, shown: list[tuple[str, dict[str, Any]]]) -> None:
    """Our rows against each other, paired on the same questions (each reproduction shown)."""
    for label, r in shown:
        t = table_of(r, table_id)
        if t is not None and t["pairs"]:
            st.markdown(f"**Our rows compared, paired** ({md_escape(label)})")
            st.markdown("\n".join(f"- {md_escape(p['words'])}" for p in t["pairs"]))


def retrieval(shown: list[tuple[str, dict[str, Any]]]) -> None:
    """What each method ranked and handed its answer in the same runs (not a column of the paper's table, but
    there with every LLM mode, ``none`` included): R@k, nDCG@10, node figures, ctx recall, each with its interval
    and n."""
    rows = []
    for label, r in shown:
        for name, m in r["methods"].items():
            row: dict[str, Any] = {"reproduction": label, "method": name}
            for k in RETRIEVAL_KEYS:
                f = m.get("retrieval", {}).get(k)
                row[k] = None if f is None else OurCell(100 * f["value"], None if f["low"] is None else 100 * f["low"],
                                                        None if f["high"] is None else 100 * f["high"],
                                                        f["n"]).text("%")
            rows.append(row)
    if rows:
        with st.expander("Our retrieval in the same runs (not a column of the paper's table)"):
            st.dataframe(pd.DataFrame(rows).dropna(axis=1, how="all"), hide_index=True, width="stretch")
            st.caption("In %: mean [95 % interval] n. ctx recall: the share of the gold passages in what the answer "
                       "was handed, under the paper's budget.")


def facts(label: str, record: dict[str, Any], table: dict[str, Any] | None = None) -> None:
    """How a reproduction was made: workspace, LLM, budget, questions (and those left out), time; with the
    recorded LLM, what the recordings hold and which records did not replay."""
    q, b = record["questions"], record["budget"]
    st.caption(f"**{md_escape(label)}**: {md_escape(record['dataset'])} · LLM "
               f"{md_escape(record['backends'].get('llm', record['llm']))} · budget {md_code(b['name'])} "
               f"({md_escape(b['limits'])}) · {q['n']} of {q['of']} questions · made {md_escape(record['date'])}; "
               f"its question × method pairs took {sum(r.get('compute_s') or 0 for r in record['runs']):,.0f} s"
               + (f" · {md_escape(q['note'])}" if q.get("note") else ""))
    missing = record.get("not_run") or ()
    if missing:  # the folders and commands of the engineer who fills these rows, folded (the cells say it short)
        with st.expander(f"How to fill the rows not run ({md_escape(label)})", expanded=False):
            st.markdown("\n".join(f"- {md_code(x['method'])} ({md_escape(x['run'])}): {md_escape(x['why'])}"
                                   for x in missing))
    rec = record.get("recordings")
    if rec:  # one statement: which questions the recordings hold, and which of these runs matched a recorded run
        st.warning(recordings_note(record, table), icon=":material/report:")
    for name, m in record["methods"].items():
        if m.get("replay_note") and not (rec and m.get("method", name) in rec["methods"]):
            st.warning(f"**{md_escape(name)}**: {md_escape(m['replay_note'])}", icon=":material/report:")


def _grouped(per_method: dict[str, str]) -> str:
    """``{"dense": "20 of 100", "bubblerag": "20 of 100"}`` → "20 of 100 for dense and bubblerag"."""
    groups: dict[str, list[str]] = {}
    for m, words in per_method.items():
        groups.setdefault(words, []).append(md_escape(m))
    return "; ".join(f"{words} for {', '.join(ms[:-1]) + ' and ' + ms[-1] if len(ms) > 1 else ms[0]}"
                     for words, ms in groups.items())


def recordings_note(record: dict[str, Any], table: dict[str, Any] | None = None) -> str:
    """What a reproduction with the recorded LLM says once about the recordings, in the order a lecturer reads it:
    which questions they hold (recorded at each method's own settings); whether this paper's settings let a run
    here be a recorded run (mostly not: the budget changes the prompts, and an LLM step then reused a reply only
    for a prompt recorded word for word, else took its fallback); and which answers an LLM wrote (``table``'s
    :func:`answer_counts`, the n of each answer figure, some scored from the recorded runs themselves), or that
    the table scores rankings, where no answer enters. It said "20 of 100 recorded", "no run matches: 100 of 100"
    and "an LLM wrote the answer for … 100 of the 100 questions" of a table of rankings, which contradicted itself."""
    rec = record["recordings"]["methods"]
    n = record["questions"]["n"]
    held = _grouped({m: f"{c['recorded']} of these {c['of']} questions" for m, c in rec.items()})
    text = f"**{RECORDED_TITLE}** The shipped recordings hold real LLM runs of {held}, each at the method's own settings."
    unmatched: dict[str, str] = {}
    partial: dict[str, str] = {}
    for name, m in record["methods"].items():
        rp = m.get("replay") or {}
        if rp.get("unmatched"):
            unmatched[name] = f"{len(rp['unmatched'])} of {rp.get('replayed', m.get('n'))}"
        if rp.get("partial"):
            partial[name] = f"{len(rp['partial'])} of {rp.get('replayed', m.get('n'))}"
    b = record.get("budget") or {}
    if unmatched or partial:
        every = not partial and all(len((m.get("replay") or {}).get("unmatched") or ()) == int(m.get("n") or -1)
                                    for m in record["methods"].values())
        which = ("none of these runs replays a recorded run whole" if every else
                 "these runs are not the recorded ones: "
                 + "; only partly: ".join(x for x in (_grouped(unmatched), _grouped(partial)) if x))
        text += (f" This paper's settings (budget {md_code(str(b.get('name', '?')))}, "
                 f"{md_escape(str(b.get('limits', '')))}) change the prompts, so {which}: a step that asks the LLM "
                 "reused a recorded reply only where its exact prompt was recorded, and otherwise took its fallback "
                 "(no LLM ran).")
    counts = answer_counts(table, record)
    filled = recorded_rows(table)
    if counts:
        text += (f" LLM-written answers scored in this table, of the {n} questions: {_counts_words(counts)} (the n of "
                 "each answer figure); every other answer is the extractive fallback, not scored.")
        replayed = [row for row, c in counts.items() if c and row not in filled]
        if replayed and (unmatched or partial):  # "none replays whole" beside "BubbleRAG 20" read as a contradiction
            text += (f" {md_escape(' and '.join(replayed))}: recorded replies, replayed where the answer stage's exact "
                     "prompt was recorded.")
        if filled:
            names = list(filled)  # in the table's order
            text += (f" {md_escape(' and '.join(names) if len(names) < 3 else ', '.join(names))}: the recorded runs' "
                     f"own answers, made at {md_escape(' / '.join(sorted(set(filled.values()))))}"
                     " (the paper's budget changed their prompt, which was never recorded), marked “recorded at …” in "
                     "the table.")
    elif table is not None and not any(m.get("needs") in ANSWER_NEEDS for m in table["metrics"]):
        text += " This table scores rankings, not answers: no LLM-written answer enters it."
    return text


def differences(table_id: str, shown: list[tuple[str, dict[str, Any]]]) -> None:
    """Every difference of setting between the paper and each reproduction shown, as a list."""
    for i, (label, r) in enumerate(shown):
        t = table_of(r, table_id)
        if t is None:
            continue
        text = "\n".join(f"- {md_escape(d['sentence'])}" for d in t["differences"])
        if i == 0:
            st.markdown(f"**Every difference of setting** ({md_escape(label)})")
            st.markdown(text)
        else:
            with st.expander(f"Every difference of setting ({label})"):
                st.markdown(text)


def noise_and_command(record: dict[str, Any]) -> None:
    """What "within noise" means, and the command that reruns the reproduction."""
    st.markdown("**What “within noise” means**")
    st.markdown(md_escape(record["within_noise"]))
    st.markdown("**Rerun it**")
    st.code(record["command"], language="bash")


# ------------------------------------------------------------------------------------------ the re-run job
def rerun(act: Active, paper: str, mode: str) -> None:
    """The "Re-run on this workspace" panel: the paper's protocol on the active workspace with the chosen LLM
    mode, as a background job of the server (progress in the sidebar and here); a resumed run does only the
    question × method pairs it has not done."""
    n = max(1, len(resources.workspace_questions(act.workspace, act.key)))
    c1, c2 = st.columns([1, 3])
    limit = int(S.keep(S.PAPERS_LIMIT, c1.number_input("Questions", 1, n, key=S.bind(S.PAPERS_LIMIT, min(3, n)),
                                                       help="The first N questions every run of the paper may "
                                                            "use (with gold, and no trained model saw them).")))
    c2.caption(f"Runs {md_escape(PAPER_IDS[paper])}'s protocol on **{md_escape(act.workspace.name)}** with the "
               f"sidebar's {md_escape(act.embedder_name)} embedder and {md_escape(act.reranker_name)} reranker and "
               f"the LLM {md_code(mode)}; the result is shown beside the stored one.")
    if st.button("Re-run on this workspace", key=S.PAPERS_RUN, icon=":material/play_arrow:"):
        _launch(act, paper, mode, limit)
    key = st.session_state.get(S.PAPERS_JOB)
    job = jobs_view.jobs().get(key) if key else None
    if job is not None and not job.finished:
        jobs_view.watch(job)
    elif job is not None:
        st.session_state.pop(S.PAPERS_JOB, None)
        try:
            res = job.result()
        except Cancelled:
            st.warning(f"{md_escape(job.title)} was cancelled; what finished is kept: re-run to resume.")
        except EgxError as exc:
            st.error(md_escape(error_text(exc)))
        else:
            for w in res.get("warnings", ()):
                st.info(md_escape(error_text(w)))
            st.success(f"{res['ran']} runs now, {res['skipped']} done before.")


def _launch(act: Active, paper: str, mode: str, limit: int) -> None:
    from core.background.jobs import JobBusyError
    from core.batch.tasks import reproduce_job, reproduce_spec
    from core.eval.reproduce import reproduce_command, run_reproduction
    from core.index.isolated import isolated_builds
    from core.index.questions import load_questions

    ws = act.workspace
    out: Path = reproduce_root(ws.name)
    llm = resources.llm(mode)
    spec = reproduce_spec(ws, paper, embedder=act.embedder_name, llm=llm, reranker=act.reranker_name, out_dir=out,
                          limit=limit)

    def work(job: Job) -> dict[str, Any]:
        job.report(page="pages/papers.py")  # the banner on every page links back here
        if isolated_builds():  # a worker process at a lower priority: the pages stay responsive
            return reproduce_job(spec, progress=job.progress, cancel=job.cancel_event)

        def progress(done: int, total: int, msg: str) -> None:
            job.report(f"{done}/{total} · {msg}", done / max(total, 1))

        rep = run_reproduction(ws, load_questions(ws), paper, dataclasses.replace(act.backends, llm=llm), out_dir=out,
                               limit=limit, progress=progress, meta={"questions_file": str(ws.questions_path)},
                               command=reproduce_command(paper, ws.name, mode, limit=limit, embedder=act.embedder_name,
                                                         reranker=act.reranker_name))
        return {"record": rep.record, "ran": rep.ran, "skipped": rep.skipped, "warnings": list(rep.warnings)}

    key = f"reproduce:{ws.name}:{paper}:{mode}"
    try:
        jobs_view.jobs().submit(key, f"Reproducing {PAPER_IDS[paper]} on “{ws.name}” ({mode})", work,
                                kind="reproduce", join=False).wait(jobs_view.inline_wait(3.0))
    except JobBusyError as exc:
        st.error(md_escape(error_text(exc)))
    else:
        st.session_state[S.PAPERS_JOB] = key
