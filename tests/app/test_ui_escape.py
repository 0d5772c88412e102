"""md_escape (components/ui.py): user text shown with st.markdown stays literal text (no autolinked URLs).

Streamlit's Markdown (remark-gfm) autolinks bare URLs, ``www.`` names and e-mail addresses after
backslash escapes are resolved; the oracle below is remark-gfm's own autolink-literal patterns
applied to the text as the browser sees it (escapes removed). The browser test
tests/app/test_escaping_browser.py checks the rendered pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components.ui import md_code, md_escape

GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I)
GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")


def as_rendered(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md)


@pytest.mark.parametrize("text", ["see https://evil.example/x now", "HTTP://EVIL.EXAMPLE", "www.evil.example",
                                  "mail boss@evil.example", "mailto:a.b+c@evil.co.uk", "[x](https://evil.example)",
                                  "<https://evil.example>", "ftp://evil.example"])
def test_no_autolink_survives(text):
    shown = as_rendered(md_escape(text))
    assert not GFM_URL.search(shown) and not GFM_EMAIL.search(shown)
    assert shown.replace("\u2060", "") == text  # reads the same


def test_ordinary_text_is_untouched_apart_from_escapes():
    assert md_escape("R@5 of Lothair II") == "R@5 of Lothair II"
    assert md_escape("a_b *c* <img src=x>") == "a\\_b \\*c\\* \\<img src=x\\>"


def _code_span(md: str) -> str:
    """What CommonMark shows for ``md`` if it is exactly one code span (§6.1): the opening run of n
    backticks, the content up to the next run of exactly n, one space stripped from each end when both
    ends have one; fails when ``md`` is not one whole code span."""
    m = re.match(r"(`+)", md)
    assert m
    n = len(m.group(1))
    closing = [c for c in re.finditer(r"`+", md[n:]) if len(c.group(0)) == n]
    assert closing and closing[0].end() + n == len(md), md  # the first closing run ends the text
    body = md[n:n + closing[0].start()]
    if len(body) > 1 and body[0] == body[-1] == " " and body.strip(" "):
        body = body[1:-1]
    return body


@pytest.mark.parametrize("text", ["Alonzo_Church", "a*b*_c_", "[x](y) <b>", "`tick`", "a``b", "```", "x\\_y", "two\nlines"])
def test_code_spans_show_the_text_as_it_is(text):
    # md_escape's backslashes are not resolved in a code span: "Alonzo\_Church" showed with its backslash
    assert _code_span(md_code(text)) == text.replace("\n", " ")


def test_no_page_escapes_text_inside_a_code_span():
    """A code span shows its text literally: an md_escape'd value inside backticks shows the backslashes."""
    root = Path(__file__).resolve().parents[2]
    found = [f"{p.relative_to(root)}:{i}" for p in [*root.glob("pages/*.py"), *root.glob("components/*.py")]
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"`\{md_escape\(|`\"\s*\+\s*md_escape\(", line)]
    assert not found, found


def test_our_code_spans_show_as_code_and_everything_else_stays_escaped():
    """A fallback message of ours marks a name as code ("no LLM configured (`none` mode)"): shown with md_escape
    its backticks appeared raw on the Ask page; the span becomes inline code, the rest is escaped as before."""
    from components.ui import md_escape_keep_code

    out = md_escape_keep_code("no LLM configured (`none` mode) for <b>*Keanu*</b>")
    assert "`none`" in out and "\\`" not in out
    assert "<b>" not in out and "\\*Keanu\\*" in out
    # a user's own backticks become a literal code span too: nothing inside it is HTML or Markdown
    assert md_escape_keep_code("`<script>`") == "`<script>`"
