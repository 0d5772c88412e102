"""The Compare-methods page: every method side by side on one question (AppTest)."""

from __future__ import annotations

import pytest

from components import state as S
from components.compare_view import table_name
from core.methods.registry import METHODS, method_names, registered
from tests.app.helpers import run_page
from tests.fakes import TOY_METHOD

PAGE = "pages/compare.py"


def step_button(at, method: str):
    """The Compare page's button into ``method``'s step-through page (``Method.page``)."""
    return next(b for b in at.button if b.label == f"Step through → {METHODS[method].title}")


def colors_module():  # type: ignore[no-untyped-def]
    from components import colors

    return colors


def test_compare_page_runs_every_method_with_diagnosis(home):
    at = run_page(PAGE)
    assert at.title[0].value == "Compare methods"
    assert at.selectbox(key=S.widget_key(S.COMPARE_QUESTION, "compare")).value == at.session_state[S.COMPARE_QUESTION]
    # one summary table + one ranked table per method (+ the stage tables in expanders)
    assert len(at.dataframe) >= 1 + len(method_names())
    summary = at.dataframe[0].value
    assert list(summary["method"]) == [table_name(m) for m in method_names()]  # the lessons' names: Naive RAG
    assert {"R@5", "verdict", "seconds", "LLM tokens"} <= set(summary.columns)
    # a verdict box per method (success / warning for a partly right answer / error / info)
    boxes = len(at.success) + len(at.warning) + len(at.error) + len(at.info)
    assert boxes >= len(method_names())
    assert len(at.get("iframe")) == 1  # one overlaid evidence drawing
    doc = at.get("iframe")[0].proto.srcdoc
    assert "reached by:" in doc and "several methods, not all" in doc
    # every method's common ground is light grey, so what one method alone reached stands out (an audit counted 27
    # black nodes of 28 on a projector)
    assert "every method" in doc and colors_module().COMMON in doc
    # one method highlighted on the same nodes: its own in its colour, the rest grey, no "several methods" black
    from components import colors
    from components.compare_view import method_colour

    seg = at.get("button_group")
    focus = next(w for w in seg if w.key == S.widget_key(S.COMPARE_FOCUS))
    focus.set_value("dense").run()
    doc2 = at.get("iframe")[0].proto.srcdoc
    assert "reached by Naive RAG" in doc2 and "several methods" not in doc2
    assert colors.UNVISITED in doc2 and method_colour("dense", method_names()) in doc2
    assert colors.SHARED not in doc2
    # step-through buttons for methods that have a page
    labels = {b.label for b in at.button}
    with_page = {f"Step through → {m.title}" for m in METHODS.values() if m.page}
    assert with_page <= labels and {"bubblerag", "fastinsight", "sgrag", "reg"} <= {m.name for m in METHODS.values()
                                                                                     if m.page}


def test_compare_page_triage_gold_answer_verdicts_and_download(home):
    """Every answer has the gold answer beside it with the kind of match (EM / F1 only for an LLM's answer: the
    Benchmark scores none for a sentence quoted without one, and an audit read "EM 0 · F1 0.33" here beside its "–");
    the summary's verdict is worded as the badge words it; the comparison downloads as CSV and JSON."""
    from components.answer_view import QUOTED_NOTE

    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "ppr"]).run()
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[0].value
    assert {"verdict", "EM", "F1"} <= set(summary.columns)
    more = next(d.value for d in at.dataframe if "nDCG@10" in d.value.columns)  # the kind of match heads the table
    assert list(more.columns)[:2] == ["method", "answer match"] and list(more["method"]) == list(summary["method"])
    gold_lines = [m.value for m in at.markdown if m.value.startswith("Gold answer: **")]
    assert len(gold_lines) == 2 and all(QUOTED_NOTE in g and " · EM " not in g for g in gold_lines)
    # LLM none: "–", as on the Benchmark (an empty cell showed a grey "None")
    assert list(summary["EM"]) == list(summary["F1"]) == ["–", "–"]
    badges = [b.value for b in [*at.success, *at.warning, *at.error]]
    for verdict in summary["verdict"]:
        assert any(b.startswith(f"**{verdict}** — ") for b in badges), (verdict, badges)
    assert {b.label for b in at.get("download_button")} >= {"Download this comparison (CSV)",
                                                             "Download this comparison (JSON)"}
    # figures of several methods side by side: one question is said to be no comparison, with the way to intervals
    assert any(c.value.startswith("One question is no comparison") and "95 % interval" in c.value for c in at.caption)
    assert "[" not in " ".join(str(v) for v in summary.get("R@5", []))  # no interval made up from one question
    assert any(p.proto.label == "Benchmark" and p.proto.page == "benchmark" for p in at.get("page_link"))


def test_compare_page_custom_question_and_method_subset(home):
    at = run_page(PAGE)
    at.selectbox(key=S.widget_key(S.COMPARE_QUESTION, "compare")).set_value("(type your own question)").run()
    at.text_input(key=S.widget_key(S.COMPARE_CUSTOM, "compare")).set_value("Who directed The Matrix?").run()
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "ppr"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.dataframe[0].value["method"]) == ["Naive RAG", "HippoRAG PPR"]
    assert any(c.value.startswith("2 of ") and c.value.endswith("methods: Naive RAG (dense), HippoRAG PPR (ppr)")
               for c in at.caption)
    assert "verdict" not in at.dataframe[0].value.columns  # no gold for a typed question
    assert any("no gold evidence" in i.value for i in at.info)
    assert not [m.value for m in at.markdown if m.value.startswith("Gold answer:")]  # none to show


def test_open_in_step_page_hands_the_question_over(home):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    step_button(at, "bubblerag").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value != "Compare methods"  # on the BubbleRAG page now
    assert at.session_state[S.BUBBLE_QUESTION] == q
    assert S.HANDOFF_QUESTION not in at.session_state  # the page took the hand-off (once)


def test_open_granker_page_with_the_same_question(home):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    step_button(at, "fastinsight").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "GRanker vs plain reranking"
    assert at.selectbox(key=S.widget_key(S.GRANKER_QUESTION)).value == q


@pytest.mark.slow
@pytest.mark.parametrize(("method", "keys"), [("sgrag", (S.SGRAG_QUESTION, S.SGRAG_CUSTOM)),
                                           ("reg", (S.REG_QUESTION, S.REG_CUSTOM))])
def test_open_sgrag_and_reg_pages_with_the_same_question(home, method, keys):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    step_button(at, method).click().run()
    assert not at.exception, [e.value for e in at.exception]
    # a workspace question is picked in the page's list, any other question typed
    assert at.title[0].value != "Compare methods" and q in [at.session_state[k] for k in keys if k in at.session_state]


def test_new_method_on_the_compare_page(home) -> None:
    with registered(TOY_METHOD):
        at = run_page("pages/compare.py")
        summary = at.dataframe[0].value
        assert list(summary["method"]) == [table_name(m) for m in method_names()] and "toy" in list(summary["method"])
        assert summary.set_index("method").loc["toy", "verdict"]  # diagnosed like every other method
        assert any("Toy method (last passages)" in m.value for m in at.markdown)
        assert any("No step-through page for this method." in c.value for c in at.caption)
        # the comparison starts under one budget; a method with no budget hook runs at its own, and says so
        assert any("declares no budget hook, so it ran at its own budget" in c.value for c in at.caption)


def test_a_new_method_page_joins_the_navigation(home, monkeypatch) -> None:
    """A registered method's page that the navigation does not list is added to it, as a new method's
    page is: with its section left out of the list, SG-RAG's ``Method.page`` brings its page back, once
    even when a second method (the toy one) names the same page."""
    import dataclasses

    from components import navigation
    from tests.app.helpers import switch

    monkeypatch.setattr(navigation, "SECTIONS", {k: v for k, v in navigation.SECTIONS.items() if k != "SG-RAG"})
    with registered(dataclasses.replace(TOY_METHOD, page="pages/subgraph.py")):
        at = run_page()
        switch(at, "pages/subgraph.py")  # fails unless st.navigation lists the page
        assert not at.exception, [e.value for e in at.exception]
        assert at.title[0].value == "Subgraph matching"


def test_a_gold_passage_the_workspace_lacks_is_said_and_counted_as_missed(home):
    """A question naming a gold title the workspace lacks (a typo) is compared with that passage counted as never
    retrieved: the page says so, R@k stays below 100 and no verdict reads "ok"."""
    import json

    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    ws = ensure_sample_workspace("demo", get_embedder("hashing"), root=home / "workspaces")
    qs = json.loads(ws.questions_path.read_text())
    qs[0]["supporting_facts"].append(["Teh Matrix", 0])  # the first question, which the page opens on
    ws.questions_path.write_text(json.dumps(qs))
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "ppr"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("1 of 3 gold passages is not in the workspace ('Teh Matrix'): it counts as a gold passage never "
               "retrieved" in w.value.replace("\\", "") for w in at.warning), [w.value for w in at.warning]
    summary = at.dataframe[0].value
    # R@10 is in the summary, or in the table below it when long verdicts need the room (summary_layout)
    r10 = next(d.value["R@10"] for d in at.dataframe if "R@10" in d.value.columns)
    assert (r10 <= 66.7).all() and not (summary["verdict"] == "ok").any()


def test_the_reg_column_says_when_its_retriever_is_below_cosine(home):
    """Compare's reg column carries the run's notice: the active retriever scores below cosine, with the figures."""
    import json

    from tests.app.helpers import plain
    from tests.app.test_train_panels import _train_into

    at = run_page(PAGE)  # builds the demo workspace
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["reg"]).run()
    said = "scores below the untrained cosine scorer on its held-out split"
    assert not any(said in w.value for w in at.warning)  # the cosine fallback: nothing to compare with
    mf = _train_into(home, "retriever") / "manifest.json"
    manifest = json.loads(mf.read_text())
    manifest["test"] = {**manifest["test"], "answer_hit": 0.0, "questions": 8, "gold_passage_recall": None}
    manifest["baseline_test"] = {**manifest["baseline_test"], "answer_hit": 1.0}  # beyond noise at 8
    mf.write_text(json.dumps(manifest))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("The ReG@Triple retriever used here " + said + ": answer hit@30 0.000 vs cosine 1.000 (8 questions)."
               in plain(w.value) for w in at.warning), [w.value for w in at.warning]


def test_the_evidence_says_when_the_answer_read_gold_below_the_cut():
    """The verdict's evidence names the gold passages below the cut that the answer read all the same."""
    from components.compare_view import evidence_sentences, evidence_tables

    ev = {"cut": 5, "below_cut": {"c1": 6}, "read_by_answer": ["c1"], "answer_context": 10}
    lines = evidence_sentences(ev)
    assert "Read by the answer all the same (among the 10 passages it was handed): “c1”." in lines
    assert "read_by_answer" not in {str(v) for df in evidence_tables(ev).values() for v in df.get("what", [])}


def test_compare_says_its_seconds_were_made_beside_other_jobs(home) -> None:
    """An audit waited 257 s for Compare (6.6 s on an idle server) while the server built a sample, with nothing
    saying why: a comparison made while other jobs run says so under its progress, counting (never naming) them."""
    import threading

    from components import jobs_view
    from tests.app.helpers import plain

    at = run_page(PAGE)
    assert not any("were made while" in c.value for c in at.caption)  # an idle server: nothing said
    hold = threading.Event()
    job = jobs_view.jobs().submit("test:busy", "Someone's secret build", lambda j: hold.wait(60), session="other")
    try:
        at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense"]).run()
        said = [plain(c.value) for c in at.caption if "were made while" in c.value]
        assert said and said[0].endswith("These runs were made while 1 other job ran on the server beside them: "
                                         "their seconds are longer than on an idle server."), said
        assert not any("secret" in c.value for c in at.caption)
    finally:
        hold.set()
        job.wait(10)


def test_the_verdict_header_names_the_depth_it_was_judged_at(home):
    """An audit's step 17 read "retrieved, answer wrong" beside R@5 0 / R@10 50 as a contradiction: the verdict is
    judged at the diagnosis top-k (15 there), deeper than the R@ columns. The verdict's header names that depth,
    beside the R@5 and R@10 headers, and its help says what "retrieved" means; it follows the Diagnosis top-k box."""
    import json

    def header(at) -> tuple[str, str]:  # type: ignore[no-untyped-def]
        cols = json.loads(at.dataframe[0].proto.columns or "{}")
        verdict = cols["verdict"]
        return verdict.get("label"), verdict.get("help", "")

    at = run_page(PAGE)
    cut = next(n for n in at.number_input if n.label == "Diagnosis top-k")
    label, said = header(at)
    assert label == f"verdict (top {int(cut.value)})", label
    assert "“retrieved”" in said and "R@5" in said and str(int(cut.value)) in said, said
    cut.set_value(15).run()
    assert not at.exception, [e.value for e in at.exception]
    assert header(at)[0] == "verdict (top 15)"
    assert {"R@5", "R@10"} <= set(at.dataframe[0].value.columns)  # the depths it stands beside
