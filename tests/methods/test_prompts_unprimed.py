"""No primed prompts: no few-shot example or inline example of any method's prompt
is a question of ``sample_data/`` — nor names its entities or its gold answer — so no prompt hands a
model the answer to a question it is evaluated on."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from core.backends import prompts as backend_prompts
from core.methods.baselines import hipporag2_prompts as hipporag2
from core.methods.bubblerag import prompts as bubble
from core.methods.reg import prompts as reg
from core.methods.sgrag import prompts as sgrag

ROOT = Path(__file__).resolve().parents[2]
EMPTY = ""  # a query / passage that adds nothing, so only the prompts' own text is checked


def rendered_prompts() -> dict[str, str]:
    """Every prompt of every method with empty inputs: what remains is instructions and examples."""
    return {
        "bubblerag.system": bubble.SYSTEM, "bubblerag.answer_system": bubble.ANSWER_SYSTEM,
        "bubblerag.sufficiency": bubble.sufficiency_prompt(EMPTY, []),
        "bubblerag.keywords": bubble.keywords_prompt(EMPTY, []),
        "bubblerag.specialize": bubble.specialize_prompt(EMPTY, []),
        "bubblerag.relax": bubble.relax_prompt(EMPTY, [], []),
        "bubblerag.grouping": bubble.grouping_prompt(EMPTY, [], []),
        "bubblerag.expand": bubble.expand_prompt(EMPTY, [], []),
        "bubblerag.answer": bubble.answer_prompt(EMPTY, [], []),
        "reg.qa_system": reg.QA_SYSTEM, "reg.qa_chains": reg.qa_prompt(EMPTY, EMPTY, "chains"),
        "reg.qa_triples": reg.qa_prompt(EMPTY, EMPTY, "triples"),
        "reg.select": reg.select_prompt(EMPTY, [], []),
        "reg.select_chain": reg.chain_prompt(EMPTY, [], []),
        "reg.select_facts": reg.context_prompt(EMPTY, [], EMPTY, [], 2),
        "reg.qa_chains_demo": reg.qa_prompt(EMPTY, EMPTY, "chains", demonstration=True),
        "reg.qa_triples_demo": reg.qa_prompt(EMPTY, EMPTY, "triples", demonstration=True),
        "sgrag.query_graph": sgrag.QUERY_GRAPH_SYSTEM, "sgrag.answer_system": sgrag.ANSWER_SYSTEM,
        "sgrag.answer": sgrag.answer_user(EMPTY, EMPTY, []),
        "extraction": backend_prompts.TRIPLES_INSTRUCTIONS,
        "hipporag2.filter_system": hipporag2.FILTER_SYSTEM, "hipporag2.filter": hipporag2.filter_prompt(EMPTY, []),
    }


def sample_questions() -> list[dict[str, str]]:
    demo = json.loads((ROOT / "sample_data" / "demo" / "questions.json").read_text(encoding="utf-8"))
    with gzip.open(ROOT / "sample_data" / "musique" / "musique_train.json.gz", "rt", encoding="utf-8") as f:
        musique = json.load(f)
    return [{"question": q["question"], "answer": str(q.get("answer", ""))} for q in [*demo, *musique]]


_NAME = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:of|the|de|von|II|III|[A-Z][\w'’.-]*))*")
_GENERIC = {"who", "what", "when", "where", "which", "how", "find", "the", "in", "is", "was", "did", "does"}


_JOIN = {"of", "the", "de", "von"}


def names_in(text: str) -> set[str]:
    """Capitalised runs of a question ("Lothair II", "Keanu Reeves", "Journal of Psychotherapy Integration"),
    without a leading question word or a dangling "of"/"the"."""
    out = set()
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        while words and words[0].lower() in _GENERIC | _JOIN:
            words.pop(0)
        while words and words[-1].lower() in _JOIN:
            words.pop()
        name = " ".join(words).strip(" .'’s")
        if name and name[0].isupper() and len(name) >= 4:
            out.add(name)
    return out


def test_the_check_sees_the_old_primed_example():
    """The test can fail: the example ReG's prompt used to carry is caught."""
    old = "Question: When did Lothair II's mother die?\nAnswer: 20 March 851"
    hits = [q for q in sample_questions() if q["question"] in old or names_in(q["question"]) & names_in(old)]
    assert hits and hits[0]["answer"] == "20 March 851"


@pytest.mark.parametrize("name", sorted(rendered_prompts()))
def test_no_prompt_example_matches_a_sample_question(name):
    text = rendered_prompts()[name]
    low = text.lower()
    for q in sample_questions():
        assert q["question"].lower().rstrip("?") not in low, f"{name} quotes the sample question {q['question']!r}"
        for ent in names_in(q["question"]):
            assert not re.search(rf"\b{re.escape(ent.lower())}\b", low), \
                f"{name} names {ent!r} of the sample question {q['question']!r}"
        ans = q["answer"].strip()
        if len(ans) >= 4 and not ans.isdigit():
            assert not re.search(rf"\b{re.escape(ans.lower())}\b", low), \
                f"{name} contains the gold answer {ans!r} of {q['question']!r}"
