"""The Upload tab's choice of how documents are split into passages: built with "one per paragraph", three short
files become one passage per paragraph (each keeping its file's title), the build's message says which split was
used, and a warning says that so few passages leave recall unable to tell methods apart."""

from __future__ import annotations

from pathlib import Path

from components import state as S
from components.data_view import PASSAGE_CHOICES
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page

FILES = {
    "alder.txt": ["The Alder signal guards the junction.", "Alder junction joins the Coastal Line.",
                  "Trains leave Alder every hour."],
    "birch.txt": ["Birch station has two platforms.", "The Coastal Line runs through Birch.",
                  "Birch depot stores wagons."],
    "cedar.txt": ["The Coastal Line ends at Cedar.", "Cedar depot repairs locomotives.",
                  "Cedar has a turntable."],
}


def test_one_passage_per_paragraph_from_the_upload_tab(home: Path) -> None:
    at = run_page("pages/data.py")
    box = at.selectbox(key=S.widget_key(S.DATA_PASSAGES))
    assert box.value == "1200" and PASSAGE_CHOICES[box.value] == "packed up to 1,200 characters (default)"
    assert "gold titles still match" in box.help and "JSON(L) corpus passages stay whole" in box.help
    at.file_uploader(key=S.DATA_UPLOADS).set_value(
        [(name, "\n\n".join(paras).encode(), "text/plain") for name, paras in FILES.items()])
    box.set_value("paragraph")
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("rail")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    built = [plain(s.value) for s in at.success if "Built workspace" in s.value]
    assert built and "9 chunks" in built[0] and "Passages per file: alder.txt 3, birch.txt 3, cedar.txt 3." in built[0]
    assert "Documents were split one passage per paragraph" in built[0], built
    warned = [plain(w.value) for w in at.warning if "cannot tell methods apart" in w.value]
    assert warned and warned[0].startswith("Only 9 passages: a method's top 5 holds 5 of them (56 % of the corpus)")
    chunks = Workspace.open(home / "workspaces" / "rail").graph.chunks
    assert sorted(c.text for c in chunks) == sorted(p for paras in FILES.values() for p in paras)
    assert {c.id.split("#")[0]: c.title for c in chunks} == {"alder": "Alder", "birch": "Birch", "cedar": "Cedar"}


def test_the_default_packs_the_same_files_and_says_so(home: Path) -> None:
    at = run_page("pages/data.py")
    at.file_uploader(key=S.DATA_UPLOADS).set_value(
        [(name, "\n\n".join(paras).encode(), "text/plain") for name, paras in FILES.items()])
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("rail")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    built = [plain(s.value) for s in at.success if "Built workspace" in s.value]
    assert built and "3 chunks" in built[0] and "packed together into passages of up to 1,200 characters" in built[0]
    warned = [plain(w.value) for w in at.warning if "cannot tell methods apart" in w.value]
    assert warned and warned[0].startswith("Only 3 passages: a method's top 5 holds all of them")
    assert "one passage per paragraph or passages packed up to 300 characters" in warned[0]


def test_a_supporting_fact_on_a_split_document_names_the_passage_of_its_sentence(home: Path) -> None:
    """HotpotQA's ``[title, sentence]``: split one per paragraph, ``["alder", 1]`` is the passage of alder.txt's
    second sentence, not all three (an audit read "1 of 4 gold passages" and recall flat when every paragraph was
    gold); the build says where the fact landed. A ``ground_truth`` title has no place in it: all its passages are
    gold, and the build says so. Packed (one passage a file) nothing is said."""
    import json

    from core.index.questions import load_questions

    questions = [{"question": "Where does the Alder junction lead?", "answer": "the Coastal Line",
                  "supporting_facts": [["alder", 1]]},
                 {"question": "Which depot repairs locomotives?", "answer": "Cedar depot",
                  "paragraphs": [{"title": "cedar", "paragraph_text": FILES["cedar.txt"][1], "is_supporting": True}]},
                 {"question": "What runs through Birch?", "ground_truth": ["birch"]},
                 # the answer stands in one of birch's passages: that one is the gold (audit 56)
                 {"question": "How many platforms has Birch?", "answer": "two", "ground_truth": ["birch"]}]
    for split, said in (("paragraph", True), ("1200", False)):
        at = run_page("pages/data.py")
        at.file_uploader(key=S.DATA_UPLOADS).set_value(
            [(name, "\n\n".join(paras).encode(), "text/plain") for name, paras in FILES.items()])
        at.file_uploader(key=S.DATA_QUESTIONS).set_value(("q.json", json.dumps(questions).encode(), "application/json"))
        at.selectbox(key=S.widget_key(S.DATA_PASSAGES)).set_value(split)
        at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input(f"rail{split}")
        at.button(key=S.DATA_BUILD).click().run()
        assert not at.exception, [e.value for e in at.exception]
        built = next(plain(s.value) for s in at.success if "Built workspace" in s.value)
        assert ("“alder” sentence 1 → passage 2 of 3" in built) == said, built
        assert ("Gold titles given without a sentence that are several passages here: “Birch” (3 passages)"
                in built) == said, built
        assert ("found when any one of its passages is retrieved" in built) == said, built
        assert "“cedar”" not in built  # named by its text: one passage, whatever the split
        ws = Workspace.open(home / "workspaces" / f"rail{split}")
        gold = [[ws.graph.chunk(c).text for c in q.gold_chunks] for q in load_questions(ws)]
        assert ("whose gold answer stands in only some of their passages: “birch”" in built) == said, built
        if said:
            assert gold == [[FILES["alder.txt"][1]], [FILES["cedar.txt"][1]], FILES["birch.txt"],
                            [FILES["birch.txt"][0]]]
        else:
            assert [len(g) for g in gold] == [1, 1, 1, 1]


def test_every_narrowed_gold_title_is_named_up_to_a_dozen() -> None:
    """Audit 57: the build's note cut its list of title-only golds narrowed to the answer's passages at three, with
    "…": which titles were narrowed could not be told. Up to :data:`NAMED_TITLES` are named, the rest counted."""
    from types import SimpleNamespace

    from components.data_view import NAMED_TITLES, split_titles_note

    def note(n: int) -> str:
        qs = [SimpleNamespace(split_facts=(), whole_titles=(), gold_chunks=(), answer_titles=(f"Title {i}",))
              for i in range(n)]
        return split_titles_note(qs, SimpleNamespace(chunk=lambda cid: None))

    five = note(5)
    assert all(f"“Title {i}”" in five for i in range(5)) and "…" not in five and "more" not in five
    many = note(NAMED_TITLES + 3)
    assert f"“Title {NAMED_TITLES - 1}”" in many and f"“Title {NAMED_TITLES}”" not in many and "and 3 more" in many
