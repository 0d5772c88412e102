"""The gold answer beside an answer (components/answer_view.py): EM / F1 / match, user text escaped."""

from __future__ import annotations

from components.answer_view import gold_answer_text, question_answers
from core.index.questions import Question


def test_gold_answer_line_scores_and_escapes():
    text, m = gold_answer_text("Weaving", ["Hugo Weaving"])
    assert text == ("Gold answer: **Hugo Weaving** · EM 0 · F1 0.67 · partial match (part of the gold answer)")
    assert m.kind == "part"
    text, _ = gold_answer_text("x", ["<b>Hugo</b> *W*", "a_b", "https://evil.example"])
    assert "<b>" not in text and "\\<b\\>" in text and "\\*W\\*" in text and "a\\_b" in text
    assert "https://evil.example" not in text  # no autolink: md_escape breaks the URL
    assert gold_answer_text("Hugo Weaving", []) == ("", gold_answer_text("Hugo Weaving", [])[1])  # nothing to show


def test_an_answer_no_llm_wrote_gets_its_kind_of_match_and_no_em_f1():
    """The Benchmark scores no EM / F1 for a sentence quoted without an LLM; the pages' gold line said "EM 0 · F1
    0.33" for the same answer (an audit). The kind of match stays."""
    from components.answer_view import QUOTED_NOTE

    text, m = gold_answer_text("He was played by Hugo Weaving in 1999.", ["Hugo Weaving"], by_llm=False)
    assert text == f"Gold answer: **Hugo Weaving** · {m.label} · {QUOTED_NOTE}" and " · EM " not in text
    assert m.kind == "contains"


def test_question_answers_finds_the_workspace_question_with_its_aliases():
    qs = [Question("1", "Who founded it?", "G. Stanley Hall", ("c1",), aliases=("Stanley Hall",)),
          Question("2", "Where?", "", ("c2",))]
    assert question_answers(qs, "Who founded it?") == ("G. Stanley Hall", "Stanley Hall")
    assert question_answers(qs, "Where?") == () and question_answers(qs, "typed") == ()


def test_an_answer_quoted_from_a_passage_that_is_not_gold_says_it_may_be_right_by_chance(monkeypatch) -> None:
    """Every method answered "The Norrant Group is a holding company based in Essmoor." (an audit): the words hold
    the gold answer, but the sentence came from a passage that is not gold, and the line said only "holds the gold
    answer". It now names the passage and says Hit counts it; a gold source, an LLM's answer or a miss add nothing."""
    import components.answer_view as av
    import core.methods.diagnoser as dg

    class Chunk:
        title = "Norrant Group"

    class Graph:
        def chunk(self, cid):  # type: ignore[no-untyped-def]
            return Chunk()

    monkeypatch.setattr(dg, "answer_by_llm", lambda r: r == "llm")
    monkeypatch.setattr(dg, "answer_source", lambda r: "p9")
    off = av.off_gold_source("extractive", ["p4"], Graph())
    assert off == "Norrant Group"
    assert av.off_gold_source("extractive", ["p9"], Graph()) == ""  # quoted from a gold passage
    assert av.off_gold_source("llm", ["p4"], Graph()) == "" and av.off_gold_source("extractive", [], Graph()) == ""
    text, _ = gold_answer_text("The Norrant Group is a holding company based in Essmoor.", ["Essmoor"], by_llm=False,
                               off_gold=off)
    assert "holds the gold answer" in text and "quoted from “Norrant Group”, a passage outside the gold list" in text
    # both readings, as the diagnosis says them: that passage may state the fact (the gold list lacks it), or chance
    assert dg.OFF_GOLD_READINGS in text and "may state the same fact" in text and "by chance" in text, text
    text, _ = gold_answer_text("It is based in Dunmore.", ["Essmoor"], by_llm=False, off_gold=off)
    assert "outside the gold list" not in text  # no gold words: nothing to be right by chance
