"""md_escape (components/ui.py): user text shown with st.markdown stays literal text (no autolinked URLs).

Streamlit's Markdown (remark-gfm) autolinks bare URLs, ``www.`` names and e-mail addresses after
backslash escapes are resolved; the oracle below is remark-gfm's own autolink-literal patterns
applied to the text as the browser sees it (escapes removed). The browser test
tests/app/test_escaping_browser.py checks the rendered pages.
"""

from __future__ import annotations

import re

import pytest

from components.ui import md_escape

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
