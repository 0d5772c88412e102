"""A config knob's widget, drawn from the config itself (:meth:`core.methods.base.MethodConfig.knob_info`).

A knob declares its label, help text and :class:`~core.methods.base.Bounds` where it is defined, next to its
``checks()``; :func:`knob_widget` draws the matching widget (slider, number box, checkbox, choice), binds it
to its session-state key (:mod:`components.state`: the value survives page switches, a preset default seeds
it) and returns the value. So a page never copies a knob's range, and a range never offers a value its
config refuses (tests/methods/test_knobs.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from components import state as S
from core.methods.base import MethodConfig


def knob_widget(config: type[MethodConfig], name: str, state_key: str, *, where: Any = None, default: Any = None,
                hi: float | None = None, format_func: Callable[[Any], str] | None = None) -> Any:
    """The widget of ``config``'s knob ``name`` in ``where`` (default: the page), bound to ``state_key``.

    ``default`` replaces the config's default as the first value (e.g. the value a run used); ``hi`` lowers
    the upper bound for this page (e.g. the CEGs a run found); ``format_func`` names a choice's values."""
    info = config.knob_info(name)
    b = info.bounds
    if b is None:
        raise ValueError(f"{config.__name__}.{name} declares no widget bounds; add bounds=Bounds(...) to its knob.")
    at = where if where is not None else st
    first = info.default if default is None else default
    kind = type(info.default)
    if b.choices:
        if first not in b.choices:
            first = b.choices[0]
        wkey = S.bind(state_key, first)
        if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in b.choices):
            value = at.select_slider(info.label, list(b.choices), key=wkey, help=info.help)
        else:
            value = at.radio(info.label, list(b.choices), key=wkey, help=info.help, horizontal=True,
                             format_func=format_func or str)
    elif kind is bool:
        value = at.checkbox(info.label, key=S.bind(state_key, bool(first)), help=info.help)
    else:
        top = b.hi if hi is None else min(hi, b.hi) if b.hi is not None else hi
        cast = float if kind is float else int
        lo, top = (None if b.lo is None else cast(b.lo)), (None if top is None else cast(top))
        if top is not None and lo is not None:
            top = max(top, lo)
        if top is not None and st.session_state.get(state_key) is not None and st.session_state[state_key] > top:
            S.set_value(state_key, top)  # a bound this page lowered: keep the value inside it
        start = cast(first)
        if top is not None:
            start = min(start, top)
        wkey = S.bind(state_key, start)
        step = None if b.step is None else cast(b.step)
        if b.number:
            value = at.number_input(info.label, lo, top, key=wkey, step=step, help=info.help)
        else:
            value = at.slider(info.label, lo, top, key=wkey, step=step, help=info.help)
    return S.keep(state_key, value)
