"""Compare's method colours against the gold-passage border they are drawn beside."""

from __future__ import annotations

from components import colors


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB "#rrggbb"."""
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b))) ** 0.5


def test_no_method_is_drawn_in_a_colour_near_the_gold_border() -> None:
    """An audit could not tell the "Re2 alone" fill (Okabe–Ito orange, ΔE 28 from the gold border) from a gold-passage
    entity's border on a projector. ΔE*76 ≥ 30: well past the ~10 that reads as "another shade of the same colour"
    on a washed-out projector (Okabe–Ito's yellow, already left out of this palette for that reason, is ΔE 17)."""
    near = {c: round(_delta_e(c, colors.GOLD_BORDER), 1) for c in colors.METHODS
            if _delta_e(c, colors.GOLD_BORDER) < 30}
    assert not near, near
    assert _delta_e(colors.YELLOW, colors.GOLD_BORDER) < 30 and _delta_e(colors.ORANGE, colors.GOLD_BORDER) < 30
    assert len(set(colors.METHODS)) == len(colors.METHODS)
