"""Knobs declare their widget (label, bounds) next to their checks: every value a page's widget offers is one
the config accepts, and the widget a page draws comes from the config (components/knobs.py)."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.methods.base import Bounds, MethodConfig, knob
from core.methods.registry import METHODS

CONFIGS = sorted({m.config for m in METHODS.values()}, key=lambda c: c.__name__)


def _ends(b: Bounds, kind: type) -> list[object]:
    if b.choices:
        return list(b.choices)
    if kind is bool:
        return [True, False]
    vals = [v for v in (b.lo, b.hi) if v is not None]
    if b.lo is not None and b.hi is not None and b.step:
        vals.append(b.lo + b.step)
    return [kind(v) for v in vals]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.__name__)
def test_every_value_a_widget_offers_passes_the_configs_checks(config: type[MethodConfig]) -> None:
    for info in config.knobs():
        assert info.label and info.help, info.name
        kind = type(info.default)
        for v in _ends(info.bounds, kind):
            config.make(**{info.name: v})  # raises ConfigError when a widget could offer a refused value
        if info.bounds.choices:
            assert info.default in info.bounds.choices, info.name


def test_the_pages_knobs_are_declared() -> None:
    drawn = {(c.__name__, k.name) for c in CONFIGS for k in c.knobs()}
    assert {("BubbleConfig", "h"), ("BubbleConfig", "B"), ("BubbleConfig", "alpha"), ("BubbleConfig", "n"),
            ("FastInsightConfig", "alpha"), ("FastInsightConfig", "beta"), ("FastInsightConfig", "b_max"),
            ("FastInsightConfig", "batch"), ("FastInsightConfig", "graph"), ("SGRAGConfig", "l"),
            ("SGRAGConfig", "doubtful_below"), ("SGRAGConfig", "dominance_filter")} <= drawn


def test_a_range_wider_than_the_checks_is_caught() -> None:
    """The check above can fail: a knob whose slider starts below what checks() allows."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Loose(MethodConfig):
        k: int = knob(3, "Passages kept.", label="k", bounds=Bounds(0, 10))

        def checks(self):
            return [("k", self.k >= 1, "an integer >= 1")]

    with pytest.raises(ConfigError, match=r"Loose\.k = 0 is out of range"):
        for v in _ends(Loose.knob_info("k").bounds, int):
            Loose.make(k=v)
