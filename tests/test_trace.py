from __future__ import annotations

import json
import math

import numpy as np
import pytest

from core.errors import InputFormatError
from core.trace import Trace, to_jsonable


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
    p.write_text("{")
    with pytest.raises(InputFormatError, match=r"x\.json, line 1: invalid JSON"):
        Trace.load(p)
