"""`none`-mode keyword heuristics of BubbleRAG (issue 17 item 8)."""

from __future__ import annotations

from core.methods.bubblerag.heuristics import entity_mentions


def test_a_lone_capitalised_first_word_is_no_entity() -> None:
    # MuSiQue 3hop1__155787_497059_42188: "Besides" was the first entity, so the core-subject group
    # (weight x1.5) anchored on nodes such as "some" and "unknown".
    q = ("Besides the continent of the river which the Tekeze River turns into, where did Germany have "
         "imperial interests?")
    assert entity_mentions(q) == ["Tekeze River", "Germany"]


def test_a_first_word_that_starts_a_name_is_kept() -> None:
    assert entity_mentions("Humboldt Peak, in the state where Silverton is located?")[0] == "Humboldt Peak"
    assert entity_mentions("The 1920 Summer Olympics in which Hans Edler's country competed")[:2] == [
        "The 1920 Summer Olympics", "Hans Edler"]
    assert entity_mentions("Lord of Misrule was written by whom?") == ["Lord of Misrule"]
    assert entity_mentions("Who played the main villain in the movie where Keanu Reeves starred?") == ["Keanu Reeves"]
    assert entity_mentions("1921 Nobel Prize in Physics winner?")[0] == "1921"
