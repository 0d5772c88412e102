"""The guided demo's lessons (core.eval.lesson): every line is read from the runs, so changing a run changes
the text — the gold passages' ranks, the passage a wrong answer came from, the count of right answers, the
extractive answer beside them — and a lesson without runs or without a gold answer says what is missing."""

from __future__ import annotations

import re

import pytest

from core.errors import ConfigError
from core.eval.lesson import ShownRun, lesson, run_lesson

SPEED = ("speed", "Speed (1994 film)", "Speed stars Keanu Reeves, with Dennis Hopper as Howard Payne.")
MATRIX = ("matrix", "The Matrix", "It stars Keanu Reeves as Neo and Hugo Weaving as Agent Smith.")
SMITH = ("smith", "Agent Smith", "Agent Smith is the main antagonist of The Matrix.")
WICK = ("wick", "John Wick (film)", "Viggo Tarasov is the villain of John Wick.")
GOLD = ["matrix", "smith"]
Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def test_a_wrong_answer_is_traced_to_the_passage_that_holds_it_and_its_rank_follows_the_run():
    run = ShownRun("bubblerag", "Howard Payne", (MATRIX, SPEED, SMITH))
    lines = lesson(Q, [run], GOLD, ["Hugo Weaving"]).lines()
    assert lines[0] == ("Where the evidence is: “The Matrix” at rank 1 of bubblerag's ranking; “Agent Smith” at rank 3 "
                        "of bubblerag's ranking.")
    assert lines[1] == "The recorded 1.5B model answered “Howard Payne”: wrong (gold: “Hugo Weaving”, no match)."
    assert lines[2].startswith("“Howard Payne” (bubblerag) comes from “Speed (1994 film)” (rank 2), a passage that is "
                               "not gold") and lines[2].endswith(
        "every gold passage was in its ranking (ranks 1, 3; the context it read was not recorded).")
    # another run: the ranks in the text move with it, and a gold passage it lost is named as lost
    moved = lesson(Q, [ShownRun("bubblerag", "Howard Payne", (SPEED, MATRIX))], GOLD, ["Hugo Weaving"],
                   titles={"smith": "Agent Smith"}).lines()
    assert "“The Matrix” at rank 2" in moved[0] and "“Agent Smith” not retrieved by bubblerag" in moved[0]
    assert "(rank 1)" in moved[2] and moved[2].endswith("“Agent Smith” was not retrieved.")


def test_a_right_answer_has_no_why_line_and_a_name_from_a_gold_passage_is_the_wrong_name_in_it():
    right = lesson(Q, [ShownRun("dense", "Hugo Weaving", (MATRIX, SMITH))], GOLD, ["Hugo Weaving"])
    assert right.why_lines() == []
    assert right.answer_line().endswith("right (gold: “Hugo Weaving”, exact match).")
    character = lesson(Q, [ShownRun("sgrag", "Agent Smith", (SPEED, MATRIX, SMITH))], GOLD, ["Hugo Weaving"])
    assert character.why_lines()[0].startswith("“Agent Smith” (sgrag) is in the gold passage “The Matrix” (rank 2): "
                                               "the right passage, the wrong name in it")


def test_many_runs_are_counted_and_grouped_by_answer():
    runs = [ShownRun("dense", "Viggo Tarasov", (MATRIX, WICK, SMITH)),
            ShownRun("rerank", "Howard Payne", (SPEED, MATRIX, SMITH)),
            ShownRun("ppr", "Howard Payne", (MATRIX, SMITH, SPEED, WICK)),
            ShownRun("sgrag", "Unable to determine", (MATRIX,)),
            ShownRun("reg", "Hugo Weaving", (SMITH, MATRIX))]
    le = lesson(Q, runs, GOLD, ["Hugo Weaving"], extractive=ShownRun("bubblerag", MATRIX[2], (MATRIX,)))
    assert le.evidence_line() == ("Where the evidence is: All 5 methods rank “The Matrix” in their top 5 (ranks 1–2). "
                                  "4 of 5 methods rank “Agent Smith” in their top 5 (ranks 1–3): dense, rerank, ppr "
                                  "and reg; sgrag did not retrieve it.")
    assert le.answer_line() == ("The recorded 1.5B model answered “Howard Payne” ×2, “Viggo Tarasov”, "
                                "“Unable to determine”, “Hugo Weaving”: 1 of 5 right — reg (gold: “Hugo Weaving”).")
    why = le.why_lines()
    assert len(why) == 3  # one per distinct wrong answer
    assert why[1].startswith("“Howard Payne” (2 methods: rerank, ppr) comes from “Speed (1994 film)” (ranks 1–3)")
    assert "both had every gold passage in the passages their answer was read from (or, where that was not " \
           "recorded, in their ranking)" in why[1]
    assert why[2].startswith("“Unable to determine” (sgrag) is in none of the passages retrieved")
    # the gold answer named, as SG-RAG's no-LLM line names it (audit 55 read "— it holds the gold answer." on Ask)
    assert le.extractive_line() == (f"Without an LLM (none mode) bubblerag quotes: “{MATRIX[2]}” — it holds the gold "
                                    "answer, “Hugo Weaving”.")
    assert le.lines()[-1] == le.extractive_line()


def test_part_of_the_gold_answer_is_partly_right():
    r = lesson("When did Lothair II's mother die?",
               [ShownRun("ppr", "851", (("tours", "Ermengarde of Tours", "She died on 20 March 851."),), ("tours",))],
               ["tours"], ["20 March 851"])
    assert r.why_lines() == ["“851” (ppr) is part of the gold answer “20 March 851”: partly right, not an exact "
                             "match; the gold passage (rank 1) was among the one passage its answer was read from."]



def test_the_answer_line_counts_answers_that_are_part_of_the_gold_answer():
    """The tour's Lothair step read "0 of 8 right" above a table that calls four "851" answers partly right."""
    tours = (("tours", "Ermengarde of Tours", "She died on 20 March 851."),)
    runs = [ShownRun(m, "851", tours, ("tours",)) for m in ("dense", "ppr")] + [
        ShownRun("sgrag", "860", tours, ("tours",)), ShownRun("reg", "20 March 851", tours, ("tours",))]
    line = lesson("When did Lothair II's mother die?", runs, ["tours"], ["20 March 851"]).answer_line()
    assert line.endswith(": 1 of 4 exactly right — reg; 2 of 4 partly right — “851” ×2 is part of it "
                         "(gold: “20 March 851”)."), line
    wrong = lesson("When?", runs[2:3], ["tours"], ["20 March 851"])  # nothing partly right: the line as before
    assert "partly" not in wrong.answer_line()


def test_a_sentence_holding_the_gold_answer_is_neither_called_wrong_nor_part_of_it():
    """SG-RAG without an LLM (the tour's step) quotes the mother's sentence: it holds the gold date, so the answer line
    says so instead of "wrong", and the why line says it holds the gold answer, not that it is part of it."""
    said = "She died on 20 March 851 and was buried in the abbey of Erstein."
    r = lesson("When did Lothair II's mother die?",
               [ShownRun("sgrag", said, (("tours", "Ermengarde of Tours", said),), ("tours",))], ["tours"],
               ["20 March 851"], model="Without an LLM, the extractive answer step")
    assert ": wrong" not in r.answer_line()
    assert r.answer_line().endswith(": not exact, the gold answer inside a longer answer (gold: “20 March 851”, "
                                    "holds the gold answer).")
    # the whole gold answer in a sentence is right in substance, not "partly right" (audit 53)
    assert r.why_lines()[0].startswith(f"“{said}” (sgrag) holds the gold answer “20 March 851” in a longer answer: "
                                       "right in substance, not an exact match (EM 0);"), r.why_lines()
    assert "partly" not in r.why_lines()[0]


def test_a_gold_passage_ranked_below_the_context_the_answer_read_is_named_with_its_rank():
    """An audit read "it had every gold passage in its ranking" for a run whose gold passage was at rank 7, outside
    the 5 passages its answer was read from: the lesson now says where each gold passage ranked and whether the
    answer read it, from the run's own context."""
    ranked = (MATRIX, SPEED, WICK, ("w", "w", "w"), ("y", "y", "y"), ("z", "z", "z"), SMITH)
    top5 = tuple(c for c, _t, _x in ranked[:5])
    dense = ShownRun("dense", "Howard Payne", ranked, top5)
    assert lesson(Q, [dense], GOLD, ["Hugo Weaving"]).why_lines()[0].endswith(
        "“Agent Smith” (rank 7) was outside the 5 passages its answer was read from.")
    wide = ShownRun("bm25", "Howard Payne", ranked, tuple(c for c, _t, _x in ranked))  # a context of all seven
    assert lesson(Q, [wide], GOLD, ["Hugo Weaving"]).why_lines()[0].endswith(
        "both gold passages (ranks 1, 7) were among the 7 passages its answer was read from.")
    # ranks in ascending order whatever the gold passages' order (a tour step read "both gold passages (ranks 3, 1)")
    flipped = ShownRun("bm25", "Howard Payne", ranked, tuple(c for c, _t, _x in ranked))
    assert lesson(Q, [flipped], list(reversed(GOLD)), ["Hugo Weaving"]).why_lines()[0].endswith(
        "both gold passages (ranks 1, 7) were among the 7 passages its answer was read from.")
    both = lesson(Q, [dense, wide], GOLD, ["Hugo Weaving"]).why_lines()[0]
    assert both.endswith("1 of 2 had every gold passage in the context their answer was read from; dense: “Agent "
                         "Smith” (rank 7) was outside the 5 passages its answer was read from.")
    r = run_lesson(dense, GOLD, ["Hugo Weaving"])
    assert r.all_gold_retrieved and not r.all_gold_read and r.gold_read == (True, False) and r.context_size == 5


def test_the_answer_line_names_the_methods_that_were_right():
    runs = [ShownRun("dense", "Hugo Weaving", (MATRIX,)), ShownRun("ppr", "Howard Payne", (SPEED,)),
            ShownRun("bubblerag", "Hugo Weaving", (SMITH,))]
    assert lesson(Q, runs, GOLD, ["Hugo Weaving"]).answer_line().endswith(
        ": 2 of 3 right — dense, bubblerag (gold: “Hugo Weaving”).")
    assert lesson(Q, runs[:1], GOLD, ["Hugo Weaving"]).answer_line().endswith("right (gold: “Hugo Weaving”, exact match).")


def test_gold_titles_of_passages_no_run_retrieved_come_from_titles():
    r = run_lesson(ShownRun("dense", "x", (SPEED,)), GOLD, ["Hugo Weaving"], {"matrix": "The Matrix"})
    assert r.gold_ranks == (("The Matrix", None), ("smith", None)) and not r.all_gold_retrieved


def test_a_lesson_needs_runs_and_a_gold_answer():
    with pytest.raises(ConfigError, match=r"needs at least one run, got none: run a method on it first"):
        lesson(Q, [], GOLD, ["Hugo Weaving"])
    with pytest.raises(ConfigError, match=r"the lesson on dense's answer needs a gold answer, got \['', ' '\]"):
        lesson(Q, [ShownRun("dense", "x", (MATRIX,))], GOLD, ["", " "])


# The Judith question of the demo, as the recorded runs have it: ReG ranks neither Judith nor Gisela, yet reads both
# (its chains' source passages), and answers "Gisela"; SG-RAG retrieves nothing.
JUDITH_Q = "Find the second-married woman whose son started a war."
JUDITH = ("judith", "Judith of Bavaria", "Judith of Bavaria was the second wife of Louis the Pious.")
CHARLES = ("charles", "Charles the Bald", "Charles the Bald was the son of Louis the Pious and Judith.")
GISELA = ("gisela", "Gisela (abbess)", "Gisela was a daughter of Louis the Pious and an abbess.")
LOTHAIR_I = ("lothair1", "Lothair I", "Lothair I fought his brothers at Fontenoy.")


def test_a_passage_read_but_not_ranked_is_never_called_unretrieved():
    """An audit read "Judith of Bavaria not retrieved by sgrag, reg" and then, for ReG, "“Gisela” is in none of the
    passages retrieved … both gold passages were among the 15 passages its answer was read from": ReG read Judith
    and Gisela from its chains' source passages without ranking them. Each line now decides from the context."""
    reg = ShownRun("reg", "Gisela", (LOTHAIR_I, CHARLES), ("lothair1", "charles", "judith", "gisela"),
                   (JUDITH, GISELA))
    sgrag = ShownRun("sgrag", "Unable to determine", (), ())
    le = lesson(JUDITH_Q, [ShownRun("dense", "Judith of Bavaria", (JUDITH, CHARLES)), sgrag, reg],
                ["judith", "charles"], ["Judith of Bavaria"], titles={"judith": "Judith of Bavaria"})
    ev = le.evidence_line()
    assert ev.startswith("Where the evidence is: 1 of 3 methods rank “Judith of Bavaria” in their top 5 (rank 1): "
                         "dense; sgrag and reg do not rank it. ")
    # ReG's reading is a short sentence of its own, after the ranks
    assert ev.endswith(" reg did not rank “Judith of Bavaria”, but its answer step was handed that passage all the same "
                       "(and answered “Gisela”).")
    assert "sgrag did not retrieve it" in ev  # Charles the Bald: reg ranked it, sgrag retrieved nothing
    assert "not retrieved by sgrag, reg" not in ev and "reg did not retrieve" not in ev
    why = le.why_lines()
    assert why[0].startswith("“Unable to determine” (sgrag): it retrieved no passage, so the answer rests on no "
                             "evidence")
    assert why[1] == ("“Gisela” (reg) comes from “Gisela (abbess)” (read, though not in its ranking), a passage that "
                      "is not gold: the model answered from the wrong passage; both gold passages were among the 4 "
                      "passages its answer was read from (“Judith of Bavaria” read though not in its ranking, "
                      "“Charles the Bald” rank 2).")
    assert not any("in none of the passages" in w for w in why)
    # a gold passage neither ranked nor read is not said to have been read
    lost = lesson(JUDITH_Q, [ShownRun("reg", "Gisela", (CHARLES,), ("charles", "gisela"), (GISELA,))],
                  ["judith", "charles"], ["Judith of Bavaria"], titles={"judith": "Judith of Bavaria"})
    assert lost.why_lines()[0].endswith("“Judith of Bavaria” was not retrieved (neither ranked nor read).")
    assert "not retrieved by reg" in lost.evidence_line()
    # an answer found only in a ranked passage the model did not read did not come from what it read
    unread = lesson(JUDITH_Q, [ShownRun("dense", "Gisela", (JUDITH, CHARLES, GISELA), ("judith", "charles"))],
                    ["judith", "charles"], ["Judith of Bavaria"])
    assert unread.why_lines()[0].startswith("“Gisela” (dense) is in “Gisela (abbess)” (rank 3), a passage its answer "
                                            "was not read from")


def test_the_top_5_count_is_the_methods_whose_r_at_5_is_above_0():
    """An audit read "“Judith of Bavaria” at ranks 1–9 in 6 of 8 methods' rankings" beside a table where two of the six
    had R@5 0: the line now counts the methods that rank each gold passage in their top 5, the table's R@5 cut, and
    names the ranks below it."""
    from core.eval.metrics import recall_at_k

    filler = tuple((f"f{i}", f"Filler {i}", "nothing here") for i in range(8))
    runs = [ShownRun("dense", "Judith of Bavaria", (JUDITH, CHARLES, *filler)),
            ShownRun("ppr", "Sandra Bullock", (*filler, JUDITH, CHARLES)),  # ranks 9 and 10
            ShownRun("bm25", "Judith of Bavaria", (*filler[:4], CHARLES, JUDITH)),  # ranks 6 and 5
            ShownRun("sgrag", "Unable to determine", ())]
    le = lesson(JUDITH_Q, runs, ["judith", "charles"], ["Judith of Bavaria"], titles={"judith": "Judith of Bavaria"})
    gold = ["judith", "charles"]
    r5 = {r.method: recall_at_k([c for c, _t, _x in r.passages], gold, 5) for r in runs}
    above = {m for m, v in r5.items() if v > 0}
    assert above == {"dense", "bm25"}
    # every method with R@5 above 0 ranks some gold passage in its top 5, and no other does
    assert set(le.top_methods(0)) | set(le.top_methods(1)) == above
    ev = le.evidence_line()
    assert "1 of 4 methods rank “Judith of Bavaria” in their top 5 (rank 1): dense; ranked lower: ppr at 9, bm25 " \
           "at 6; sgrag did not retrieve it." in ev
    assert "2 of 4 methods rank “Charles the Bald” in their top 5 (ranks 2–5): dense and bm25; ranked lower: ppr " \
           "at 10;" in ev
    # a list just read out is not read again
    twice = [runs[0], ShownRun("rerank", "Judith of Bavaria", (CHARLES, JUDITH)), runs[1]]
    same = lesson(JUDITH_Q, twice, ["judith", "charles"], ["Judith of Bavaria"]).evidence_line()
    assert "2 of 3 methods rank “Judith of Bavaria” in their top 5 (ranks 1–2): dense and rerank; ranked lower: ppr at " \
           "9. The same 2 rank “Charles the Bald” in their top 5 (ranks 1–2); ranked lower: ppr at 10." in same


def test_the_wrong_thing_in_a_gold_passage_is_worded_by_the_answers_type():
    """An audit read "“8 August 869” is in the gold passage “Lothair II”: the right passage, the wrong name in it":
    a date is not a name."""
    lothair = ("lothair2", "Lothair II", "Lothair II died on 8 August 869; he had 3 children.")
    tours = ("tours", "Ermengarde of Tours", "She died on 20 March 851.")

    def why(answer: str) -> str:
        return lesson("When did Lothair II's mother die?", [ShownRun("sgrag", answer, (lothair, tours))],
                      ["lothair2", "tours"], ["20 March 851"]).why_lines()[0]

    assert "the right passage, the wrong date in it" in why("8 August 869")
    assert "the right passage, the wrong date in it" in why("869")  # a bare year, against a gold date
    assert "the right passage, the wrong number in it" in why("3")
    assert "the right passage, the wrong name in it" in why("Lothair II")
    assert "the right passage, the wrong answer in it" in why("children")


def test_the_none_mode_line_says_what_a_wrong_quote_shares_and_why_it_was_quoted():
    """An audit read "— some words shared" after a quote that shares only "of" with “Judith of Bavaria”."""
    quote = "Charles the Bald and Louis the German defeated their brother Lothair I in the civil war of 841."
    ext = ShownRun("bubblerag", quote, (CHARLES,))
    line = lesson(JUDITH_Q, [ShownRun("dense", "Judith of Bavaria", (JUDITH,))], ["judith"], ["Judith of Bavaria"],
                  extractive=ext).extractive_line()
    assert "some words shared" not in line
    assert line.endswith("— not the answer: it shares only the word “of” with the gold answer “Judith of Bavaria”. "
                         "None mode quotes the retrieved sentence that best matches the question, whether or not it "
                         "holds the answer.")
    none = lesson(JUDITH_Q, [ShownRun("dense", "x", (JUDITH,))], ["judith"], ["Judith of Bavaria"],
                  extractive=ShownRun("bubblerag", "Louis won.", (CHARLES,))).extractive_line()
    assert "it shares no word with the gold answer" in none


# ------------------------------------------------------------------------------ the methods' own lessons
def test_granker_lines_say_where_each_gold_node_went_and_what_rose_instead() -> None:
    """The audit's GRanker step: gold at plain ranks 6-8 left the top 10 (or dropped a rank) under GRanker, and the
    lesson repeated the Ask lesson instead of saying so."""
    from core.eval.method_lessons import granker_lines

    rows = [("A", 1, 1, False), ("B", 2, 2, False), ("C", 4, 3, False), ("Hugo", 6, 21, True),
            ("Laurence", 7, 12, True), ("Matrix", 8, 9, True), ("Far", 30, 31, True)]
    first, top3, passages, why = granker_lines(rows, 0.2)
    # on KG nodes, why Compare's passage-level R@5 can be 100 beside "no gold among them" (an audit saw both)
    assert passages.startswith("Compare's R@5 counts passages, not nodes")
    assert len(granker_lines(rows, 0.2, unit="passage")) == 3  # on passages the two count the same thing
    assert first.startswith("GRanker (α = 0.2) moved the gold nodes down on this question: ")
    assert "Hugo 6 → not in the top 10 (rank 21)" in first and "Laurence 7 → not in the top 10 (rank 12)" in first
    assert "Matrix 8 → 9" in first and "1 more gold node rank" in first and "Far" not in first
    assert all(n in top3 for n in ("A", "B", "C")) and "no gold among them" in top3
    assert "(1−α)·H + α·P·H" in why and "FastInsight §3.3" in why
    up = granker_lines([("G", 5, 2, True), ("X", 1, 1, False)], 0.5)[0]
    assert "moved the gold node up" in up and "G 5 → 2" in up
    assert "left the gold node in place" in granker_lines([("G", 2, 2, True)], 0.2)[0]
    assert "moved 1 gold node up and 1 down" in granker_lines([("G", 2, 1, True), ("H", 1, 2, True)], 0.2)[0]
    assert "is gold" in granker_lines([("X", 1, 1, False)], 0.2)[0]


def test_sgrag_lines_name_the_unk_the_answer_and_the_gold_answer_came_from() -> None:
    from core.eval.method_lessons import QueryNode, sgrag_lines

    nodes = [QueryNode("q1", "Keanu Reeves", "Actor"), QueryNode("q2", "Laurence Fishburne", "Actor"),
             QueryNode("q3", "UNK", "The movie: starring both"), QueryNode("q4", "UNK", "The main villain: a character")]
    edges = [("q1", "q4"), ("q2", "q4"), ("q3", "q4")]
    subs = [{"q1": "Keanu Reeves", "q2": "Laurence Fishburne", "q3": "Agent Smith", "q4": "The Matrix"},
            {"q1": "Keanu Reeves", "q2": "Laurence Fishburne", "q3": "Hugo Weaving", "q4": "The Matrix"}]
    joined, answer, gold = sgrag_lines(nodes, edges, subs, "Agent Smith", ["Hugo Weaving"])
    assert joined.startswith("The query graph joins “Keanu Reeves”, “Laurence Fishburne” and the unknown “the movie” "
                             "to the unknown “the main villain”.")
    assert answer.startswith("The answer “Agent Smith” is what the unknown “the movie” became in the rank-1 matched "
                             "subgraph (of 2); there the unknown “the main villain” became “The Matrix”")
    assert gold.startswith("The gold answer “Hugo Weaving” was there: the unknown “the movie” became it in the rank-2")
    # a right answer: no gold line; a typed answer no UNK holds; no match at all
    assert len(sgrag_lines(nodes, edges, subs, "Hugo Weaving", ["Hugo Weaving"])) == 2
    assert "is bound to no unknown" in sgrag_lines(nodes, edges, subs, "Neo", ["Hugo Weaving"])[1]
    assert "fell back" in sgrag_lines(nodes, edges, [], "Neo", ["Hugo Weaving"], fallback=True)[1]


def test_reg_lines_name_the_chain_of_the_answer_and_the_chains_holding_the_gold() -> None:
    from core.eval.method_lessons import reg_lines

    chains = [("Keanu Reeves → [played] → Neo", ("Keanu Reeves", "Neo"), 1),
              ("Dennis Hopper → [played villain] → Howard Payne", ("Dennis Hopper", "Howard Payne"), 1),
              ("Hugo Weaving → [played] → Agent Smith", ("Hugo Weaving", "Agent Smith"), 2)]
    came, gold = reg_lines(chains, "Howard Payne", ["Hugo Weaving"])
    assert came == "The answer “Howard Payne” comes from chain 2 of 3: Dennis Hopper → [played villain] → Howard Payne."
    assert gold.startswith("The gold answer “Hugo Weaving” is in 1 of the 3 chains (chain 3: Hugo Weaving")
    assert reg_lines(chains, "Hugo Weaving", ["Hugo Weaving"]) == [
        "The answer “Hugo Weaving” comes from chain 3 of 3: Hugo Weaving → [played] → Agent Smith."]
    none = reg_lines(chains[:2], "Morpheus", ["Hugo Weaving"])
    assert "in none of the 2 evidence chains" in none[0] and "is in none of the 2 chains" in none[1]
    assert reg_lines([], "X", ["Y"]) == ["ReG built no evidence chain on this question, so its answer rests on no chain."]


def test_the_answer_line_names_who_wrote_the_answers() -> None:
    r = ShownRun("dense", "Howard Payne", (("s", "Speed", "Dennis Hopper as Howard Payne."),))
    assert lesson("Who?", [r], ["m"], ["Hugo Weaving"]).answer_line().startswith("The recorded 1.5B model answered")
    assert lesson("Who?", [r], ["m"], ["Hugo Weaving"], model="The LLM “x”").answer_line().startswith(
        "The LLM “x” answered")


def test_an_extract_with_its_pronoun_resolved_still_names_its_source_passage():
    """A none-mode answer shows whom its "She" was read as ("She [Gisela] was an abbess."): the lesson still finds
    the passage it was quoted from, which holds the sentence without the brackets."""
    nun = ("nun", "Convent", "The convent was led by Gisela. She was an abbess of Chelles.")
    r = run_lesson(ShownRun("dense", "She [Gisela] was an abbess of Chelles.", (JUDITH, nun)), ["judith"],
                   ["Judith of Bavaria"])
    assert r.source is not None and r.source[:3] == ("Convent", 2, False)


def test_a_none_mode_lesson_names_the_extractive_step_not_a_model():
    """An audit's own workspace held no recorded run, so every method ran without an LLM, yet the lesson said "The
    recorded 1.5B model answered …" and "the model answered from the wrong passage" beside the notice that no LLM ran."""
    from dataclasses import replace

    from components.tour import NONE_ANSWERER, _model_name
    from core.methods.run import unanswered_llm

    class Run:
        def __init__(self, llm: str) -> None:
            self.trace = type("T", (), {"backends": {"llm": llm}, "replay": None})()

    missing = Run(unanswered_llm("qwen", workspace=True))
    assert _model_name("recorded", {"dense": missing, "ppr": missing}).startswith(NONE_ANSWERER)
    assert "where it holds a run" in _model_name("recorded", {"dense": missing, "ppr": Run("recorded (qwen)")})
    assert _model_name("recorded", {"ppr": Run("recorded (qwen)")}) == "The recorded 1.5B model"
    assert _model_name("none") == NONE_ANSWERER
    le = lesson(JUDITH_Q, [ShownRun("dense", "Gisela", (GISELA,), ("gisela",))], ["judith", "charles"],
                ["Judith of Bavaria"])
    assert "the model answered from the wrong passage" in " ".join(le.why_lines())
    none = replace(le, model=_model_name("recorded", {"dense": missing}))
    assert none.answer_line().startswith(NONE_ANSWERER)
    assert "the extractive step answered from the wrong passage" in " ".join(none.why_lines())


def test_the_answer_line_counts_a_sentence_that_holds_the_gold_answer_apart_from_wrong_ones() -> None:
    """An audit's Compare lesson said "0 of 8 right" beside an SG-RAG card reading "ok … contains the gold answer": a
    quoted sentence holding the gold answer is no exact answer, and the line now says which hold it."""
    runs = [ShownRun("dense", "Howard Payne", (SPEED,)),
            ShownRun("sgrag", "It stars Keanu Reeves as Neo and Hugo Weaving as Agent Smith.", (MATRIX,))]
    line = lesson(Q, runs, GOLD, ["Hugo Weaving"], model="Without an LLM (none mode), the extractive step").answer_line()
    assert ": 0 of 2 exactly right; 1 of 2 holds the gold answer inside a longer answer — sgrag (gold: “Hugo Weaving”)." in line
    assert "holds the gold" not in lesson(Q, runs[:1], GOLD, ["Hugo Weaving"]).answer_line()


def test_sgrag_lines_say_why_a_sentence_answer_comes_from_a_lower_match() -> None:
    """An audit's class asked why the lesson read "When did Lothair II's mother die?" from "the rank-14 matched
    subgraph": without an LLM the answer is a sentence picked among all matches' passages, and the line says so."""
    from core.eval.method_lessons import QueryNode, sgrag_lines

    nodes = [QueryNode("q0", "UNK", "The date"), QueryNode("q1", "Lothair II"), QueryNode("q2", "UNK", "The mother")]
    edges = [("q1", "q2"), ("q2", "q0")]
    subs = [{"q0": "29 September 855", "q1": "Lothair II", "q2": "Lothair I"},
            {"q0": "Ermengarde of Tours", "q1": "Lothair II", "q2": "Lothair I"},
            {"q0": "20 March 851", "q1": "Lothair II", "q2": "Ermengarde of Tours"}]
    sentence = "She [Ermengarde of Tours] died on 20 March 851 and was buried in the abbey of Erstein."
    line = sgrag_lines(nodes, edges, subs, sentence, ["20 March 851"])[1]
    assert "picked it among all 3 matches' passages (not match #1)" in line, line
    # ... and says it holds the gold answer, in the lines a class sees, not only in the fold's title (audit 54)
    assert line.endswith(" It holds the gold answer, “20 March 851”."), line
    assert "comes from match #3 of 3, where the unknown “the date” became “20 March 851”" in line, line  # not #2, naming
    # only the mother
    assert len(sgrag_lines(nodes, edges, subs, sentence, ["20 March 851"])) == 2  # its match's binding: no gold line
    told = sgrag_lines(nodes, edges, subs, sentence, ["20 March 851"], read_from=2, rule="the reranker X")[1]
    assert "comes from match #3 of 3" in told and "; the reranker X picked it among all 3" in told, told
    # a binding given as the answer is still read off its match
    assert "is what the unknown “the date” became in the rank-1" in sgrag_lines(nodes, edges, subs, "29 September 855", [])[1]


def test_the_sgrag_lesson_says_when_the_query_graph_joins_the_entities_to_the_wrong_unk():
    """The recorded model's Keanu query graph joins both actors to the villain, not the movie; the lesson described it
    without saying it was wrong (an audit). Named from the question's words: the UNK noun just before the entities."""
    from core.eval.method_lessons import QueryNode, sgrag_lines

    question = "Who directed the film in which Ada Vane and Bo Lund first appeared together?"
    nodes = [QueryNode("q1", "Ada Vane"), QueryNode("q2", "Bo Lund"), QueryNode("q3", "UNK", "The film: both in it"),
             QueryNode("q4", "UNK", "The director: who made it")]
    swapped = [("q1", "q4"), ("q2", "q4"), ("q3", "q4")]
    subs = [{"q1": "Ada Vane", "q2": "Bo Lund", "q3": "Rhea Dunn", "q4": "Glass Harbour"}]
    lines = sgrag_lines(nodes, swapped, subs, "Rhea Dunn", ["Rhea Dunn"], question=question)
    # in the query graph's line, the first of the two that open the tour's page (folded below them, an audit's class
    # never read it), in place of the "every path runs through" sentence
    # said plainly, the swap first (audit 53 read the joins, then "the two UNKs are swapped", twice before it made sense)
    assert lines[0] == ("The query graph swapped its two unknowns: the question puts “Ada Vane” and “Bo Lund” with the "
                        "unknown “the film”, the graph joins them to the unknown “the director”. So the matching looks "
                        "for the director where the film should be, and the other way round."), lines[0]
    assert "Every path" not in lines[0]
    # the answer line says a wrong answer is not the gold one (an audit's class was left with "Agent Smith" standing)
    wrong = sgrag_lines(nodes, swapped, subs, "Rhea Dunn", ["Glass Harbour"], question=question)[1]
    assert wrong.endswith("It is not the gold answer, “Glass Harbour”.") and "not the gold" not in lines[1]
    wired = [("q1", "q3"), ("q2", "q3"), ("q4", "q3")]
    assert not any("swapped" in x for x in sgrag_lines(nodes, wired, subs, "Rhea Dunn", ["Rhea Dunn"], question=question))
    assert not any("swapped" in x for x in sgrag_lines(nodes, swapped, subs, "Rhea Dunn", ["Rhea Dunn"]))  # no question


def test_the_headline_counts_runs_that_read_the_evidence_and_right_answers_and_says_which_side_failed() -> None:
    """Audit 39's lecturer read 3–4 dense lines per bullet and asked for one headline per lesson. "Read" is what the
    verdicts and the why lines count: the gold passages in the answer's context, else anywhere in the ranking."""
    runs = [ShownRun("dense", "Viggo Tarasov", (MATRIX, WICK, SMITH), ("matrix", "wick", "smith")),
            ShownRun("rerank", "Howard Payne", (SPEED, MATRIX, SMITH), ("speed", "matrix")),  # Agent Smith not read
            ShownRun("sgrag", "Unable to determine", (MATRIX,))]
    assert lesson(Q, runs, GOLD, ["Hugo Weaving"], titles={"smith": "Agent Smith"}).headline() == (
        "Gold evidence read by the answer: 1 of 3 methods · right answers: 0 of 3 — the answer step went wrong where "
        "the evidence was read; rerank and sgrag lost it in retrieval.")  # audit 42: not "not retrieval" for all
    assert lesson(Q, runs[:1], GOLD, ["Hugo Weaving"]).headline().endswith(
        "the answer step went wrong, not retrieval.")
    lost = [ShownRun("ppr", "Howard Payne", (SPEED, WICK))]
    assert lesson(Q, lost, GOLD, ["Hugo Weaving"], titles={"matrix": "The Matrix", "smith": "Agent Smith"}).headline() == (
        "Gold evidence read by the answer: no · right answer: no — retrieval lost the evidence.")
    deep = (SPEED, WICK, ("a", "A", "x"), ("b", "B", "x"), ("c", "C", "x"), MATRIX, SMITH)  # ranked 6, 7: read
    assert lesson(Q, [ShownRun("reg", "Hugo Weaving", deep)], GOLD, ["Hugo Weaving"]).headline() == (
        "Gold evidence read by the answer: yes · right answer: yes.")
    assert lesson(Q, [ShownRun("reg", "Hugo Weaving", (MATRIX,))], GOLD, ["Hugo Weaving"],
                  titles={"smith": "Agent Smith"}).headline() == (
        "Gold evidence read by the answer: no · right answer: yes — right without every gold passage.")
    # part of the gold answer is said beside the count (the Lothair lesson: "851" ×4 for "20 March 851")
    tours = ("tours", "Ermengarde of Tours", "She died on 20 March 851.")
    parts = [ShownRun("ppr", "851", (tours,)), ShownRun("dense", "860", (tours,))]
    assert lesson("When did Lothair II's mother die?", parts, ["tours"], ["20 March 851"]).headline() == (
        "Gold evidence read by the answer: 2 of 2 methods · right answers: 0 of 2 (1 partly) — the answer step went "
        "wrong, not retrieval.")
    many = [ShownRun(m, "860", (SPEED,)) for m in ("a", "b", "c", "d")] + [ShownRun("e", "860", (tours,))]
    assert lesson("When did Lothair II's mother die?", many, ["tours"], ["20 March 851"],
                  titles={"tours": "Ermengarde of Tours"}).headline().endswith("; 4 methods lost it in retrieval.")
    # without an LLM a sentence holding the gold answer counts: no extract is ever an exact answer
    quoted = [ShownRun("sgrag", "It stars Keanu Reeves as Neo and Hugo Weaving as Agent Smith.", (MATRIX, SMITH))]
    none = lesson(Q, quoted, GOLD, ["Hugo Weaving"], model="Without an LLM (none mode), the extractive step")
    assert none.headline() == "Gold evidence read by the answer: yes · answer holding the gold answer: yes."


def test_the_granker_headline_counts_the_moves_its_lines_list():
    """Audit 49: the GRanker step's headline read "5 moved up, 4 down" over lines that listed 4 and 4 — a gold node
    moved from rank 40 to 30, outside both top 10s, was counted in the headline only."""
    from core.eval.method_lessons import granker_headline, granker_lines

    rows = [("A", 1, 2, False), ("G", 3, 12, True), ("H", 9, 4, True), ("K", 40, 30, True), ("L", 50, 60, True)]
    head, first = granker_headline(rows, 0.2), granker_lines(rows, 0.2)[0]
    assert head.endswith("— 1 moved up, 1 down.") and "moved 1 gold node up and 1 down" in first, (head, first)


def test_the_sgrag_lines_name_unknowns_by_what_they_stand_for_never_by_id() -> None:
    """Audit 57: the SG-RAG lessons read "UNK q3 (the main villain) became …", "UNK q0 … q2" — a class cannot read
    that aloud. An unknown is "the unknown “the main villain”"; two that read alike are told apart by their place."""
    from core.eval.method_lessons import QueryNode, sgrag_lines

    nodes = [QueryNode("q1", "Keanu Reeves"), QueryNode("q3", "UNK", "The movie: starring him"),
             QueryNode("q4", "UNK", "The main villain: a character")]
    edges = [("q1", "q4"), ("q3", "q4")]
    subs = [{"q1": "Keanu Reeves", "q3": "Agent Smith", "q4": "The Matrix"},
            {"q1": "Keanu Reeves", "q3": "Hugo Weaving", "q4": "The Matrix"}]
    for answer in ("Agent Smith", "Neo", "Hugo Weaving"):
        lines = sgrag_lines(nodes, edges, subs, answer, ["Hugo Weaving"], question="Who played the main villain?")
        assert not any(re.search(r"\bUNK\b|\bq\d\b", x) for x in lines), lines
    _joined, answer, gold = sgrag_lines(nodes, edges, subs, "Agent Smith", ["Hugo Weaving"])
    assert "is what the unknown “the movie” became" in answer and "there the unknown “the main villain” became" in answer
    assert "— the model read the answer from the other unknown" not in gold  # the same unknown held both
    # two unknowns of one description: the first and the second, in the query graph's order
    twins = [QueryNode("q0", "UNK", "A person"), QueryNode("q1", "Lothair II"), QueryNode("q2", "UNK", "a person")]
    lines = sgrag_lines(twins, [("q1", "q2"), ("q2", "q0")], [{"q0": "X", "q1": "Lothair II", "q2": "Y"}], "X", ["Y"])
    assert "is what the first unknown “a person” became" in lines[1], lines
    assert "the second unknown “a person” became" in lines[1] + lines[2], lines
    assert not any(re.search(r"\bUNK\b|\bq\d\b", x) for x in lines), lines


def test_an_sgrag_lesson_without_an_llm_speaks_of_the_rule_not_a_model() -> None:
    """Audit 57: the no-LLM SG-RAG step's lesson spoke of "the model"; the answer there was chosen by a rule."""
    from core.eval.method_lessons import QueryNode, sgrag_lines

    nodes = [QueryNode("q1", "Keanu Reeves"), QueryNode("q3", "UNK", "The movie"), QueryNode("q4", "UNK", "The villain")]
    subs = [{"q1": "Keanu Reeves", "q3": "The Matrix", "q4": "Agent Smith"},
            {"q1": "Keanu Reeves", "q3": "Hugo Weaving", "q4": "Neo"}]
    edges = [("q1", "q3"), ("q3", "q4")]
    for answer in ("Morpheus", "Agent Smith"):  # bound to no unknown; read from the other unknown than the gold's
        ruled = " ".join(sgrag_lines(nodes, edges, subs, answer, ["Hugo Weaving"], chooser="the rule"))
        assert "the model" not in ruled and "the rule " in ruled, ruled
        assert "the model " in " ".join(sgrag_lines(nodes, edges, subs, answer, ["Hugo Weaving"]))


def test_the_granker_top_3_is_said_kept_when_it_is_the_plain_top_3() -> None:
    """Audit 57 read "GRanker's top 3 instead: … (plain 1), (plain 2), (plain 3)": the same top 3. Kept (whatever the
    order) is said so; otherwise the line says which rose into it and which fell out."""
    from core.eval.method_lessons import granker_lines, top3_line

    same = [("A", 1, 1, False), ("B", 2, 2, False), ("C", 3, 3, False), ("G", 4, 5, True), ("D", 5, 4, False)]
    line = granker_lines(same, 0.2)[1]
    assert line == "GRanker kept the plain reranker's top 3: A (plain 1), B (plain 2), C (plain 3): no gold among them."
    shuffled = [("A", 1, 3, False), ("B", 2, 1, False), ("C", 3, 2, False), ("G", 4, 4, True)]
    assert top3_line(shuffled).startswith("GRanker kept the plain reranker's top 3, in another order: B (plain 2), ")
    rose = [("A", 1, 1, False), ("B", 2, 5, False), ("C", 3, 4, False), ("G", 6, 2, True), ("H", 7, 3, True)]
    assert top3_line(rose) == ("GRanker's top 3: A (plain 1), G ✓ (plain 6), H ✓ (plain 7) — G and H rose into it, "
                               "B (plain 2) fell to rank 5 and C (plain 3) fell to rank 4.")
    assert not any("instead" in x for rows in (same, shuffled, rose) for x in granker_lines(rows, 0.2))


def test_a_reg_lesson_without_an_llm_speaks_of_the_rule_not_a_model() -> None:
    """The class of audit 57's finding on ReG's page: an answer in no chain was "not taken by the model" without one."""
    from core.eval.method_lessons import reg_lines

    chains = [("Keanu Reeves → [played] → Neo", ("Keanu Reeves", "Neo"), 1)]
    assert "the rule did not take it" in reg_lines(chains, "Morpheus", ["Neo"], chooser="the rule")[0]
    assert "the model did not take it" in reg_lines(chains, "Morpheus", ["Neo"])[0]
