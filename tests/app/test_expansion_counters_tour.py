"""The tour's Lothair expansion step played frame by frame in AppTest: every counter on the page (the budget metric,
the side panel's caption, the "On the way here" line of a collision frame, the CEG lines of the frame and the run
notes under the drawing) counts the same CEGs at the same frame, and says which (audit 57 read "8 CEGs so far
(#0–#7) … 7 intra-group" beside "6 intra-group (#0–#5)" on this step)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components import state as S
from components import tour
from tests.app.helpers import plain
from tests.app.test_tour import _own_home, _to_step

pytestmark = [pytest.mark.model, pytest.mark.slow]

CAPTION = re.compile(r"(\d+) CEGs? so far(?: \(#0(?:–#(\d+))?\))?: (\d+) count toward B"
                     r"(?:, (\d+) intra-group(?: \(([^)]*)\))? do not)?")


def _numbers(ids: str) -> set[int]:
    """ "#0–#2, #5" → {0, 1, 2, 5}."""
    out: set[int] = set()
    for part in filter(None, (p.strip() for p in ids.split(","))):
        a, _, b = part.partition("–")
        out |= set(range(int(a.lstrip("#")), int((b or a).lstrip("#")) + 1))
    return out


def test_every_counter_of_the_lothair_expansion_step_agrees_at_every_frame(home: Path) -> None:
    (i,) = [j for j, s in enumerate(tour.STEPS) if s.page == "pages/bubble_expansion.py" and s.question == tour.LOTHAIR]
    at = _to_step(_own_home(), i)
    assert not at.exception and at.title[0].value == "Bubble expansion"
    slider = at.slider(key=S.widget_key(S.BUBBLE_FRAME))
    last = int(slider.max)
    walked = {"passed": 0, "beside": 0, "intra": 0}
    for frame in range(last + 1):
        at.slider(key=S.widget_key(S.BUBBLE_FRAME)).set_value(frame).run()
        assert not at.exception, [e.value for e in at.exception]
        captions = [plain(str(c.value)) for c in at.caption]
        (panel,) = [c for c in captions if c.startswith("Steps: ")]
        m = CAPTION.search(panel)
        assert m, panel
        total, counted, uncounted = int(m.group(1)), int(m.group(3)), int(m.group(4) or 0)
        intra = _numbers(m.group(5) or "")
        assert total == counted + uncounted and len(intra) == uncounted, (frame, panel)
        assert m.group(2) is None or int(m.group(2)) == total - 1, (frame, panel)
        metric = {x.label: x.value for x in at.metric}["Toward budget B"]
        assert metric.split(" / ")[0] == str(counted), (frame, metric, panel)
        # the collision frame's line over the intra-group CEGs Next collision passed: its numbers are the caption's
        passed = [c for c in captions if c.startswith("On the way here: ")]
        for line in passed:
            walked["passed"] += 1
            k, ids = re.match(r"On the way here: (\d+) intra-group CEGs? \(([^)]*)\)", line).groups()  # type: ignore[union-attr]
            assert len(_numbers(ids)) == int(k) and _numbers(ids) <= intra, (frame, line, panel)
            so_far = re.search(r"Intra-group CEGs so far: (\d+) \(([^)]*)\)", line)
            assert so_far and int(so_far.group(1)) == uncounted and _numbers(so_far.group(2)) == intra, (frame, line,
                                                                                                         panel)
            now = re.search(r" (#[\d–#, ]+), intra-group too, (?:is|are) found at this step", line)
            if now:
                walked["beside"] += 1
                assert _numbers(now.group(1)) <= intra and not _numbers(now.group(1)) & _numbers(ids), line
        # each CEG found at this frame: its number among the caption's, its place within the caption's counts
        for box in [*at.error, *at.warning]:
            text = plain(str(box.value))
            for n, place, kind in re.findall(r"→ CEG #(\d+), (?:intra-group )?(\d+)(?:st|nd|rd|th)? of (at most|B)",
                                             text):
                assert int(n) < total, (frame, text, panel)
                if kind == "at most":
                    walked["intra"] += 1
                    assert int(n) in intra and int(place) <= uncounted, (frame, text, panel)
                else:
                    assert int(n) not in intra and int(place) <= counted, (frame, text, panel)
        if frame == last:  # the run notes under the drawing: the end frame's numbers, and said to be
            (notes,) = [c for c in captions if c.startswith("G' = ")]
            end = re.search(r"by the end frame, (\d+) CEGs?(?: \([^)]*\))?: (\d+) count toward B \(B = \d+\)"
                            r"(?:, (\d+) intra-group \(([^)]*)\) do not)?", notes)
            assert end, notes
            assert (int(end.group(1)), int(end.group(2)), int(end.group(3) or 0)) == (total, counted, uncounted), \
                (notes, panel)
            assert _numbers(end.group(4) or "") == intra, (notes, panel)
    # the audit's frame was walked: a collision beside an intra-group CEG of its own step, after others passed
    assert walked["passed"] and walked["beside"] and walked["intra"], walked
