"""What a benchmark report says about records of the recorded LLM that are not the recorded runs
(core/eval/report.py): one note per distinct text, with the methods it is about, and wording that does
not claim every stage fell back when some prompts were replayed."""

from __future__ import annotations

from core.eval.report import grouped_replay_notes, replay_summary_note

IDS = ["2hop__1_2", "3hop__3_4_5"]


def _method(unmatched=(), partial=(), replayed=2):
    return {"replay": {"replayed": replayed, "unmatched": list(unmatched), "partial": list(partial)}}


def test_the_same_note_for_several_methods_is_said_once_with_their_names():
    summary = {"methods": {"dense": _method(IDS), "ppr": _method(IDS), "bubblerag": _method(partial=IDS[:1]),
                           "reg": {"replay": {"replayed": 2, "unmatched": [], "partial": []}}, "sgrag": {}}}
    notes = grouped_replay_notes(summary)
    assert [ms for ms, _ in notes] == [["dense", "ppr"], ["bubblerag"]]
    assert notes[0][1] == replay_summary_note(summary["methods"]["dense"])
    assert notes[0][1].count("2hop__1_2") == 1
    assert grouped_replay_notes({"methods": {"reg": {}}}) == []


def test_an_unmatched_question_is_not_said_to_have_lost_every_llm_stage():
    note = replay_summary_note(_method(IDS))
    assert note.startswith("2 of 2 questions have no recorded run with these settings")
    assert "every LLM stage took its fallback" not in note  # a prompt a recording holds word for word replays
    assert "only where a recording holds its exact prompt" in note



def test_a_run_on_a_few_passages_says_beside_its_figures_that_recall_cannot_tell_the_methods_apart():
    """An audit's 9-passage workspace read R@5 "100 [100, 100]" for every method in the report, with the warning
    only on the Data page's Statistics tab."""
    from core.eval.report import markdown_report
    from core.eval.run_notes import run_note_items

    def summary(passages: int) -> dict:
        return {"methods": {}, "questions": 3, "settings": {"cut": 5, "content": {"passages": passages}}}

    items = dict(run_note_items(summary(9)))
    assert items["Few passages"].startswith("Only 9 passages: a method's top 5 holds 5 of them (56 % of the corpus)")
    assert "> **Few passages**: Only 9 passages" in markdown_report(summary(9))
    assert "Few passages" not in dict(run_note_items(summary(400)))
    assert "Few passages" not in dict(run_note_items({"methods": {}}))  # a summary without its content: nothing
