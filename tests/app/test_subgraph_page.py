"""The SG-RAG "Subgraph matching" page: AppTest runs and one real-browser flow (the same app
script trick as the GRanker page test: app.py with this page as the default page)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.browser_support import launch_chromium, open_app_page, page_server

TIMEOUT = 180
QUESTION, L, PICK = S.widget_key(S.SGRAG_QUESTION), S.widget_key(S.SGRAG_L), S.widget_key(S.SGRAG_PICK)
CUSTOM = S.widget_key(S.SGRAG_CUSTOM)


def open_page(**state: object) -> AppTest:
    return open_app_page("pages/subgraph.py", timeout=TIMEOUT, **state)


def test_page_matches_the_demo_question(home: Path) -> None:
    at = open_page()
    assert at.title[0].value == "Subgraph matching"
    assert at.selectbox(key=QUESTION).value.startswith("Which film starred Keanu Reeves")
    # the workspace's own questions are offered too, so on MuSiQue it does not answer the demo's question
    assert "When did Lothair II's mother die?" in at.selectbox(key=QUESTION).options
    heads = [h.value for h in at.subheader]
    assert heads == ["1 · Query graph", "2 · Entity normalization", "3 · Path decomposition",
                     "4 · UNK completion candidates", "5 · Matched subgraphs", "6 · Answer"]
    norm = at.dataframe[1].value
    assert list(norm["graph node"]) == ["Keanu Reeves", "Laurence Fishburne"]
    assert "doubtful" in norm.columns
    assert "The Matrix" in at.success[0].value
    frames = at.get("iframe")
    assert len(frames) >= 3  # query graph, query graph beside the match, the match
    assert "UNK" in frames[0].proto.srcdoc and "The Matrix" in frames[2].proto.srcdoc
    # what each UNK stands for, whole, under both query-graph drawings (no longer cut inside them)
    legends = [h.proto.body for h in at.get("html") if "egx-unk-legend" in h.proto.body]
    assert len(legends) == 2 and "UNK · " in legends[0] and "…" not in legends[0], legends
    assert "egx-legend" not in frames[0].proto.srcdoc.split("</head>", 1)[1]
    assert at.selectbox(key=PICK).value == 0
    assert any("d_q = **2**" in m.value for m in at.markdown)
    # the demo question's gold answer under the answer, with EM / F1, as on Ask (an audit presented a wrong SG-RAG
    # answer with nothing on the page saying so)
    assert not any(m.value.startswith("Gold answer:") for m in at.markdown)  # an example without one
    keanu = next(q for q in at.selectbox(key=QUESTION).options if str(q).startswith("Who played the main villain"))
    at.selectbox(key=QUESTION).set_value(keanu).run()
    assert any(m.value.startswith("Gold answer: **Hugo Weaving**") and "no EM / F1" in m.value for m in at.markdown)


def test_out_of_range_l_shows_the_rule(home: Path) -> None:
    at = open_page()
    at.number_input(key=L).set_value(3).run()
    assert not at.exception
    assert "outside the paper's rule" in at.error[0].value


def test_fallback_and_escaping(home: Path) -> None:
    at = open_page()
    at.selectbox(key=QUESTION).set_value(S.CUSTOM_QUESTION).run()
    at.text_input(key=CUSTOM).input("<b>Which</b> film starred Keanu Reeves and 1999?").run()
    assert not at.exception
    assert any("fallback" in w.value.lower() for w in at.warning) or at.success
    assert all("<b>Which</b>" not in m.value for m in at.markdown)


def test_handed_over_question(home: Path) -> None:
    at = open_page(**{S.SGRAG_QUESTION: "Who directed The Matrix?"})
    assert at.selectbox(key=QUESTION).value == S.CUSTOM_QUESTION  # not a workspace question: typed
    assert at.text_input(key=CUSTOM).value == "Who directed The Matrix?"
    assert not at.warning or all("Session State API" not in w.value for w in at.warning)
    # none mode: the UNK binding, or (the matches bind several nodes) the sentence of the matched passages
    assert "Wachowskis" in at.success[0].value.split("** — ")[0]
    said = at.success[0].value.split("** — ")[1]  # how the answer was made, in words (not the bare "extractive")
    assert said.startswith(("from the UNK binding of the best subgraph", "from the best-scoring sentence")), said
    # one entity named: the none-mode query graph is a chain from it, and the page says so (not "bridge star")
    shape = next(m.value for m in at.markdown if m.value.startswith("Built by"))
    assert "a chain of UNK nodes" in shape and "bridge-star" not in shape, shape


def test_retrain_button_redraws_the_loss_curve(home: Path) -> None:
    at = open_page()
    at.button(key=S.SGRAG_RETRAIN).click().run()
    assert not at.exception
    assert at.get("plotly_chart")
    assert "The Matrix" in at.success[0].value


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with page_server(tmp_path, "pages/subgraph.py") as url:
        yield url


@pytest.mark.browser
def test_browser_question_to_matched_subgraph(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1600})
            page.goto(server, wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="5 · Matched subgraphs")).to_be_visible(timeout=240_000)
            expect(page.get_by_text("The Matrix").filter(visible=True).first).to_be_visible(timeout=60_000)
            # the workspace's questions, or a typed one
            page.locator("[data-testid='stSelectbox']").filter(has_text="Question").locator("input").click()
            page.get_by_role("option", name=S.CUSTOM_QUESTION).click()
            box = page.get_by_label("Your question")
            box.fill("Who directed The Matrix?")
            box.press("Enter")
            # the answer box: a bare get_by_text(...).first can resolve to a hidden cell of a data grid
            # (glide-data-grid's accessibility table) that also names the Wachowskis (CI of stop 24)
            answer = page.get_by_test_id("stAlertContentSuccess").filter(has_text="The Wachowskis")
            expect(answer.first).to_be_visible(timeout=240_000)
            page.screenshot(path=str(tmp_path / "subgraph_page.png"), full_page=True)
        finally:
            browser.close()


def test_the_page_names_the_checks_applied_to_the_query_graph(home: Path) -> None:
    """A kind the question only describes ("which deep learning pioneer") is not linked as an entity
    of the bridge star, and the page says so next to the query graph."""
    at = open_page()
    at.selectbox(key=QUESTION).set_value(S.CUSTOM_QUESTION).run()
    at.text_input(key=CUSTOM).input("Which deep learning pioneer worked with Geoffrey Hinton?").run()
    assert not at.exception
    info = [i.value for i in at.info if "Checks applied to the query graph" in i.value]
    assert info and "not linked as entities" in info[0] and "deep learning" in info[0]
    assert "deep learning" not in list(at.dataframe[0].value["label"])


def test_the_query_graph_tells_its_unknowns_apart_and_draws_no_arrows(home: Path) -> None:
    """Two asked-for nodes ("The movie", "The main villain") are drawn and listed by what they stand for, not as
    two identical "UNK" dots; the edges are Table 12's node pairs, drawn without arrow heads."""
    from components.graph_view import network_html
    from components.sgrag_view import UNK_NAME_CHARS, query_graph_kg, unk_legend, unk_legend_html, unk_name
    from core.methods.sgrag.query_graph import QNode, QueryGraph

    qg = QueryGraph((QNode("q1", "Keanu Reeves"), QNode("q2", "UNK", "The movie"),
                     QNode("q3", "UNK", "The main villain of the movie, played by an Australian actor"),
                     QNode("q4", "UNK")), (("q1", "q2"), ("q2", "q3"), ("q2", "q4")), by="llm")
    names = [unk_name(n) for n in qg.nodes[1:]]
    assert names[:2] == ["UNK · The movie", names[1]] and names[1].startswith("UNK · The main villain")
    assert len(names[1]) <= len("UNK · ") + UNK_NAME_CHARS and names[1].endswith("…")
    assert names[2] == "UNK (q4)"  # no description: its id tells it apart
    # a described kind made UNK is drawn by the question's words; the legend carries the model's too
    described = QNode("q5", "UNK", "The movie: Movie starring Keanu Reeves and Laurence Fishburne together")
    assert unk_name(described) == "UNK · The movie"
    # the legend carries the whole description (an audit read "UNK · The movie: Movie starring Keanu Reeves and…"),
    # drawn under the drawing where it wraps, escaped
    legend = unk_legend(QueryGraph((described,), (), by="llm"))[0].label
    assert legend == f"UNK · {described.description}"
    risky = QNode("q6", "UNK", "The <b>film</b> & its sequel " + "word " * 40)
    html = unk_legend_html(QueryGraph((described, risky), (), by="llm"))
    assert described.description in html and "…" not in html and "white-space:normal" in html
    assert "&lt;b&gt;film&lt;/b&gt; &amp; its sequel" in html and "<b>" not in html
    assert unk_legend_html(QueryGraph((QNode("q1", "Keanu Reeves"),), (), by="llm")) == ""
    kg = query_graph_kg(qg)
    assert [kg.node_names[i] for i in range(kg.n_nodes)] == ["Keanu Reeves", *names]
    drawn = network_html(kg, range(kg.n_nodes), directed=False)
    # neither the edges (pyvis puts "arrows": "to" on each edge of a directed network) nor the defaults draw heads
    assert '"arrows": "to"' not in drawn and '"to": {"enabled": false' in drawn
    assert '"arrows": "to"' in network_html(kg, range(kg.n_nodes))  # a KG's triples keep theirs
    # each UNK its own colour, named in the legend: "same colour = mapped node" tells which UNK became which node
    from components.sgrag_view import qnode_colors, unk_legend

    unk = [qnode_colors(qg)[n.id] for n in qg.nodes if n.unknown]
    assert len(set(unk)) == 3 and qnode_colors(qg)["q1"] not in unk
    legend = [(item.label, item.color) for item in unk_legend(qg)]
    assert [c for _, c in legend] == unk  # the legend names each by more of its description than the canvas does
    assert all(label.startswith(name.rstrip("…")) for (label, _), name in zip(legend, names, strict=True))



def test_candidates_say_capped_only_when_matching_tried_fewer() -> None:
    """"UNK q3: 87 candidate label(s) (capped)" was said of every candidate found whenever the listed names were
    fewer than those found; "(capped)" now means that matching tried fewer than were found."""
    from components.sgrag_view import candidates_words

    assert candidates_words(12, 12, 12) == "12 candidate label(s)"
    assert candidates_words(87, 87, 87) == "87 candidate label(s); the first 30 listed"  # all tried, none cut
    assert candidates_words(87, 50, 50) == ("87 candidate label(s) (capped: the 50 best supported are tried, max "
                                            "candidates); the first 30 listed")


def test_other_unk_bindings_name_their_unk(home: Path) -> None:
    """"Other UNK bindings: Hugo Weaving, The Matrix, science fiction action film, The Matrix, …" was a flat list of
    each subgraph's values: each is now named by its UNK ("q3 = Hugo Weaving, q4 = The Matrix"), subgraphs apart."""
    from types import SimpleNamespace

    from components.sgrag_view import unk_bindings
    from core.methods.sgrag.query_graph import QNode, QueryGraph

    # each UNK named by what it stands for with the id the query-graph table lists (audit 58: "UNK q3 … q4" in
    # section 4 and "UNK · The movie" in section 1, nothing linking them)
    qg = QueryGraph(nodes=(QNode("q1", "Keanu Reeves"), QNode("q3", "UNK", "The main villain"),
                           QNode("q4", "UNK", "The movie: Movie starring Keanu Reeves")), edges=())
    graph = SimpleNamespace(node_names=["Keanu Reeves", "Hugo Weaving", "The Matrix", "Carrie-Anne Moss"])
    subgraphs = [SimpleNamespace(mapping=((q, v) for q, v in m)) for m in (
        [("q1", 0), ("q3", 1), ("q4", 2)], [("q1", 0), ("q3", 3), ("q4", 2)], [("q1", 0), ("q3", 1), ("q4", 2)])]
    assert unk_bindings(qg, graph, subgraphs) == ["The main villain (q3) = Hugo Weaving, The movie (q4) = The Matrix",
                                                  "The main villain (q3) = Carrie-Anne Moss, The movie (q4) = The Matrix"]
    at = open_page()
    assert not at.exception, [e.value for e in at.exception]
    lines = [m.value for m in at.markdown if "candidate label(s)" in m.value]
    assert lines and all("(capped" not in x for x in lines if "capped:" not in x), lines
    assert not any(x.startswith("**UNK**") for x in lines), lines  # named by what it stands for (audit 58)
    said = [c.value for c in at.caption if c.value.startswith("Other UNK bindings")]
    assert all(c.startswith("Other UNK bindings, by subgraph rank: ") and " = " in c for c in said), said


@pytest.mark.browser
def test_browser_the_query_graph_table_has_room_for_what_a_node_stands_for(server: str, tmp_path: Path) -> None:
    """At 1440 px the query-graph table's "stands for" column was cut ("Actor in the mov…"): the table now has three
    fifths of the row, its columns fixed widths with QG_DESC_WIDTH px for "stands for", and it fits its column."""
    from playwright.sync_api import expect, sync_playwright

    from components.sgrag_view import QG_DESC_WIDTH

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(server, wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="1 · Query graph")).to_be_visible(timeout=240_000)
            expect(page.locator("[data-testid='stColumn'] [data-testid='stDataFrame']").first).to_be_visible(
                timeout=60_000)
            # each table drawn in a column fits that column; the query graph's is the one with every column at its
            # width (the page's first table in document order need not be it: the run draws others too)
            fits = []
            for column in page.locator("[data-testid='stColumn']").filter(
                    has=page.locator("[data-testid='stDataFrame']")).all():
                col, box = column.bounding_box(), column.locator("[data-testid='stDataFrame']").first.bounding_box()
                assert col and box
                assert box["x"] + box["width"] <= col["x"] + col["width"] + 1, (box, col)  # and it fits
                fits.append(box["width"])
            assert max(fits) >= 40 + 135 + 55 + QG_DESC_WIDTH, fits  # every column at its width, none squeezed
            # what each UNK stands for, whole under the drawing: wrapped within its column, never cut
            legend = page.locator(".egx-unk-legend").first
            expect(legend).to_be_visible(timeout=60_000)
            text, needed, shown = legend.evaluate("e => [e.innerText, e.scrollWidth, e.clientWidth]")
            assert "UNK · " in text and "…" not in text and needed <= shown, (text, needed, shown)
        finally:
            browser.close()


def test_the_picker_opens_on_the_match_the_answer_was_read_from(home: Path) -> None:
    """An audit's class asked why the lesson read the answer from "the rank-14 matched subgraph" while §5 opened on #1:
    without an LLM the answer sentence of "When did Lothair II's mother die?" is picked among all matches' passages,
    so §5 opens on the match whose passage it is, says why, and can still be set to #1."""
    at = open_page()
    at.selectbox(key=QUESTION).set_value("When did Lothair II's mother die?").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "20 March 851" in at.success[0].value
    said = [c.value for c in at.caption if c.value.startswith("Opened on #")]
    assert len(said) == 1 and "picked among all matches' passages" in said[0], [c.value for c in at.caption]
    read = int(said[0].removeprefix("Opened on #").split(",")[0]) - 1
    assert read > 0 and at.selectbox(key=PICK).value == read
    frames = at.get("iframe")
    assert "20 March 851" in frames[2].proto.srcdoc  # the match drawn is the one whose UNK the sentence names
    at.selectbox(key=PICK).set_value(0).run()  # still resettable
    assert at.selectbox(key=PICK).value == 0 and not at.exception


def test_the_query_graph_table_wraps_a_long_stands_for_text(home: Path) -> None:
    """The tour's Keanu step (recorded LLM) read "The movie: Movie starring Keanu Reeves and Laurence", cut at the
    column's edge: rows tall enough for the longest text wrapped (Streamlit wraps a cell only in rows over 64 px);
    one-line texts keep the default rows."""
    from components import tour
    from components.sgrag_view import QG_DESC_LINE_CHARS, qg_row_height

    assert qg_row_height(["Actor in the movie", "the asked-for entity"]) is None
    assert qg_row_height([]) is None
    long = "The movie: Movie starring Keanu Reeves and Laurence Fishburne; Target to be queried"
    assert qg_row_height([long]) > 64 and qg_row_height([long]) >= qg_row_height([long[:2 * QG_DESC_LINE_CHARS]])
    at = open_page(**{S.LLM: "recorded", S.SGRAG_QUESTION: tour.KEANU})
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0]
    said = list(table.value["stands for"])
    assert max(map(len, said)) > QG_DESC_LINE_CHARS, said  # the recorded query graph's long description
    assert table.proto.row_height == qg_row_height(said, list(table.value["label"])) > 64
    # a long label wraps too (a later audit: "Velmora Chocolate Wor" cut in the 135-px label column)
    assert qg_row_height(["Company"], ["Velmora Chocolate Works"]) > 64 and qg_row_height(["Company"], ["Karsk"]) is None
    # the entity-normalization table gives the names room (auto-sized, "Laurence Fishburn" was cut)
    norm = next(d for d in at.dataframe if "query label" in d.value.columns)
    widths = {(c.get("label") or k): c.get("width") for k, c in json.loads(norm.proto.columns or "{}").items()}
    assert widths.get("query label") == 200 and widths.get("graph node") == 200, widths


def test_the_normalization_table_wraps_its_runners_up_within_the_page(home: Path) -> None:
    """An audit read "marionette productions (0.748); puppet theatres (0.716" cut at the right edge of the
    entity-normalization table: "runners-up" was the last column, with no width, past the page's main column at
    1440 px. Every column now has a width, together no wider than that column (about 945 px), and the rows wrap a
    runners-up text longer than a line (Streamlit wraps a cell only in rows over 64 px)."""
    from components.bench_view import text_px
    from components.sgrag_view import NORM_WIDTHS, norm_row_height

    audit = {"query label": "Tavrin Marionette Theatre", "graph node": "Tavrin Marionette Theatre",
             "runners-up": "marionette productions (0.748); puppet theatres (0.716); brelloc (0.61)"}
    assert norm_row_height([audit]) > 64
    assert norm_row_height([{**audit, "runners-up": "puppet theatres (0.716)"}]) is None
    assert sum(NORM_WIDTHS.values()) <= 945
    at = open_page()
    norm = next(d for d in at.dataframe if "query label" in d.value.columns)
    widths = {(c.get("label") or k): c.get("width") for k, c in json.loads(norm.proto.columns or "{}").items()}
    assert {c: widths.get(c) for c in norm.value.columns} == {c: NORM_WIDTHS[c] for c in norm.value.columns}, widths
    rows = norm.value.to_dict("records")
    assert (norm.proto.row_height or None) == norm_row_height(rows)
    if any(text_px(r["runners-up"]) > NORM_WIDTHS["runners-up"] for r in rows):
        assert norm.proto.row_height > 64
