from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import ClassVar  # at module level: dataclasses resolve a string ClassVar annotation here

import numpy as np
import pytest

from core.errors import InputFormatError
from core.trace import StageData, Trace, to_jsonable


def test_trace_records_steps_and_round_trips(tmp_path):
    t = Trace("bubblerag", "When did Lothair II's mother die?", workspace="demo", config={"B": 10})
    t.add("keywords", "Keywords", {"explicit": ("Lothair II",), "scores": np.array([0.5, 0.25])}, prompt_tokens=12)
    with t.timed("grouping", "Anchor groups", section="BubbleRAG §3.2") as step:
        step.data["weights"] = np.array([0.5, 0.3, 0.2], dtype=np.float32)
        step.fallback = "LLM none: embedding-based grouping"
    assert [s.stage for s in t.steps] == ["keywords", "grouping"]
    assert t.steps[1].seconds >= 0 and t.tokens == 12
    p = tmp_path / "trace.json"
    p.write_text(t.to_json())
    back = Trace.load(p)
    assert back.to_dict() == t.to_dict()
    assert back.stage("grouping")[0].fallback.startswith("LLM none")
    assert back.steps[0].data["scores"] == [0.5, 0.25]


def test_to_jsonable_handles_numpy_and_non_finite():
    out = to_jsonable({"a": np.int64(3), "b": (1, 2), "c": {np.float32(1.5)}, "d": math.inf, "e": math.nan})
    assert json.loads(json.dumps(out)) == {"a": 3, "b": [1, 2], "c": [1.5], "d": "inf", "e": None}


def test_bad_trace_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "other"}')
    with pytest.raises(InputFormatError, match=r"x\.json: this is not an egx trace"):
        Trace.load(p)
    p.write_text("{")  # a file cut off: said so
    with pytest.raises(InputFormatError, match=r"x\.json, line 1: the JSON ends before it is complete"):
        Trace.load(p)
    p.write_text('{"format": }')
    with pytest.raises(InputFormatError, match=r"x\.json, line 1: invalid JSON"):
        Trace.load(p)


def test_stage_data_is_written_and_read_back_by_attribute(tmp_path):
    """A typed stage result: written as plain JSON step data, read back by attribute (also from a saved trace);
    None fields are left out, unknown keys (a newer trace) ignored, a missing required key named."""
    @dataclass(frozen=True)
    class Demo(StageData):
        STAGE: ClassVar[str] = "demo"
        n: int
        names: list[str] = field(default_factory=list)
        store: str | None = None

    t = Trace("m", "q")
    assert Demo.of(t) is None  # the stage did not run
    t.add("demo", "Demo", Demo(n=np.int64(3), names=["a"]))
    t.add("demo", "Demo again", Demo(n=4, store="falkordb://h:1/g"))
    assert t.steps[0].data == {"n": 3, "names": ["a"]}  # plain JSON, no None field
    path = tmp_path / "t.json"
    path.write_text(t.to_json(), encoding="utf-8")
    back = Trace.load(path)
    assert Demo.of(back) == Demo(n=3, names=["a"])
    assert Demo.of(back, last=True) == Demo(n=4, store="falkordb://h:1/g")
    assert Demo.from_data({"n": 1, "later_key": True}) == Demo(n=1)
    with pytest.raises(InputFormatError, match="'demo' step has no 'n'"):
        Demo.from_data({"names": []})
    assert t.fallback("demo") == "" and t.fallback("absent") == ""


def test_every_key_of_the_answer_evidence_is_a_field_of_its_type():
    """Renaming a key the answer step records must fail here, not silently blank the Evidence chains page."""
    from dataclasses import fields

    from core.methods.evidence.chains import Triple
    from core.methods.evidence.formats import AnswerStepData, evidence_prompts

    ev = evidence_prompts("Who directed Heat?", [Triple("Heat", "directed by", "Michael Mann", 0, 1.0)],
                          query_entities=["Heat"])
    data = ev.trace_data()
    assert set(data) <= {f.name for f in fields(AnswerStepData)}
    typed = AnswerStepData.from_data(data)
    assert typed.evidence_triples == 1 and typed.evidence_tokens == data["evidence_tokens"]
