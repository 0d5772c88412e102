"""The expansion page's budget counters and CEG captions, walked over every frame of a search: each number
they show is checked against the CEG list (a collision once said "→ CEG #11" under "2 / 10", and the end
"20 CEGs — budget B reached" at B = 10)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from components.bubblerag.shared import budget_text, ceg_ids
from core.methods.bubblerag import BubbleConfig
from core.methods.bubblerag.localize import localized_graph
from core.methods.bubblerag.replay import expansion_replay
from tests.methods.bubblerag.test_expansion import make_groups, random_graph, unit


def _replays(cfg: BubbleConfig):  # type: ignore[no-untyped-def]
    """Four seeded searches over random graphs, replayed frame by frame under ``cfg``."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        g = random_graph(seed, n=60, m=200)
        groups = make_groups(g, rng, m=3, per=4)
        local = localized_graph(g, {v for grp in groups for v in grp.terminals(g)}, unit(rng, g.n_nodes),
                                unit(rng, 1)[0], h=6)
        yield expansion_replay(g, local, groups, budget=cfg.B, intra_counts=cfg.intra_counts)


@pytest.mark.parametrize("intra_counts", [False, True])
def test_every_counter_and_caption_agrees_with_the_ceg_list(intra_counts: bool) -> None:
    cfg = BubbleConfig().with_(B=4, intra_counts=intra_counts)
    walked_intra = False
    for replay in _replays(cfg):
        cegs = replay.result.cegs
        places = {True: 0, False: 0}
        for f in replay.frames:
            said = budget_text(cegs, f, cfg)
            found = [c for c in cegs if f.done or c.found_at <= f.step]
            counted = [c for c in found if c.kind != "intra" or intra_counts]
            assert said.metric == f"{len(counted)} / {cfg.B}"
            assert len(counted) <= cfg.B  # the counter never passes B
            total = re.match(r"(\d+) CEGs? so far", said.caption)
            assert total and int(total.group(1)) == len(found)
            if len(found) > 1:
                assert f"(#0–#{len(found) - 1})" in said.caption
            assert f"{len(counted)} count toward B" in said.caption
            if not intra_counts:  # the intra-group ones listed by number (audit 57)
                intra = [c.index for c in found if c.kind == "intra"]
                assert (f"{len(intra)} intra-group ({ceg_ids(intra)}) do not" if intra else
                        "0 intra-group do not") in said.caption, said.caption
            assert len(said.lines) == len(f.new_cegs)
            for c, line in zip(f.new_cegs, said.lines, strict=True):
                assert line.startswith(f"CEG #{c.index},")
                counts = c.kind != "intra" or intra_counts
                places[counts] += 1
                walked_intra |= c.kind == "intra"
                if counts:  # the n-th CEG that counts says "n of B", and n never passes the counter
                    assert f", {places[True]} of B = {cfg.B}" in line and places[True] <= len(counted)
                else:
                    assert f"intra-group {places[False]} of at most {cfg.B}, not counted toward B" in line
        assert places[True] == sum(1 for c in cegs if c.kind != "intra" or intra_counts) - (
            1 if replay.result.fallback else 0)  # the fallback is made after the last frame's step
    if not intra_counts:
        assert walked_intra



def test_a_collision_says_what_it_misses_with_the_rankings_r_miss() -> None:
    """The note under a collision names the groups its CEG holds no anchor of and their weight: the r_miss the
    ranking (§3.4) charges it (an audit read a collision of two side groups as the method's answer)."""
    from components.bubblerag.expansion import missing_note
    from core.methods.bubblerag.grouping import AnchorGroups
    from core.methods.bubblerag.ranking import rank_cegs

    seen = {"missing": 0, "whole": 0}
    for seed in range(6):
        rng = np.random.default_rng(seed)
        g = random_graph(seed, n=60, m=200)
        groups = make_groups(g, rng, m=4, per=3)
        local = localized_graph(g, {v for grp in groups for v in grp.terminals(g)}, unit(rng, g.n_nodes),
                                unit(rng, 1)[0], h=6)
        replay = expansion_replay(g, local, groups, budget=6)
        result = SimpleNamespace(groups=AnchorGroups(tuple(groups), "embedding"))
        weights = [grp.weight for grp in groups]
        ranked = {id(r.ceg): r for r in rank_cegs(replay.result.cegs, dict.fromkeys(range(g.n_nodes), 0.5), weights)}
        for c in replay.result.cegs:
            if c.kind != "collision":
                continue
            note = missing_note(result, c)
            r = ranked[id(c)]
            if r.missing:
                seen["missing"] += 1
                assert f"r_miss = {r.r_miss:.2f}" in note, (note, r.r_miss)
                assert all(f"“{groups[i].concept}”" in note for i in r.missing)
                assert not any(f"“{groups[i].concept}”" in note for i in c.groups)
            else:
                seen["whole"] += 1
                assert note == " It holds an anchor of every group."
    assert seen["missing"] and seen["whole"], seen  # both kinds of note were walked
    # a missed group named like the node the bubbles met at is said to be the group, not that node
    c = next(c for c in replay.result.cegs if c.kind == "collision" and set(range(len(groups))) - set(c.groups))
    missed = groups[min(set(range(len(groups))) - set(c.groups))]
    assert "its anchors are other nodes" in missing_note(result, c, missed.concept.upper())
    assert "its anchors are other nodes" not in missing_note(result, c, "elsewhere")


@pytest.mark.parametrize("intra_counts", [False, True])
def test_the_run_notes_tally_reads_as_the_side_panel(intra_counts: bool) -> None:
    """Under the drawing, the run's CEGs against B are worded as the side panel's caption at the last frame ("19 CEGs,
    10 toward B = 10 + 9 intra-group" read as 10 = 10 + 9, an audit); the end frame's sentence says why the counter
    shows one step more than the settle steps ("Step 36 / 36" beside "Done after 35 settle steps")."""
    from components.bubblerag.expansion import done_text, run_tally_text

    cfg = BubbleConfig().with_(B=4, intra_counts=intra_counts)
    walked_uncounted = False
    for replay in _replays(cfg):
        text = run_tally_text(SimpleNamespace(config=cfg, expansion=replay.result))
        panel = budget_text(replay.result.cegs, replay.frames[-1], cfg).caption
        assert " + " not in text and " = " not in text.replace(f"(B = {cfg.B})", ""), text
        # said to be the end's, not another count of the frame on screen (audit 57)
        assert text.startswith("by the end frame, "), text
        text = text.removeprefix("by the end frame, ")
        head = re.match(r"(\d+ CEGs?)( \(#0(–#\d+)?\))?: (\d+) count toward B", text)
        assert head and panel.startswith(head.group(1) + " so far" + (head.group(2) or "")), (text, panel)
        assert f"{head.group(4)} count toward B" in panel
        uncounted = re.search(r", (\d+) intra-group (\([^)]*\) )?do not", text)
        if uncounted:
            walked_uncounted = True
            assert f"{uncounted.group(1)} intra-group {uncounted.group(2)}do not" in panel, (text, panel)
        last = len(replay.frames) - 1
        said = done_text(replay.result, cfg, last)
        assert said.startswith(f"Done after {replay.result.steps} settle step")
        # the counter's last frame is one past the last settle step: the sentence says so
        assert last == replay.result.steps + 1 and f"Step {last} is the end frame" in said, (last, said)
    assert walked_uncounted or intra_counts
