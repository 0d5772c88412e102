"""Small Streamlit helpers: progress bars for core callbacks, safe rendering of user text, server paths and
errors made fit for the browser."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import streamlit as st

# Inline Markdown that Streamlit interprets: emphasis, code, links, headings, tables, strikethrough,
# LaTeX ($), emoji / colour directives (:name:), raw-HTML-looking text; list markers at line start.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>#|~$:])")
_MD_LINE_START = re.compile(r"(?m)^(\s*)([-+]|\d+\.)(?=\s)")


# Streamlit's markdown (remark-gfm) turns bare URLs, www. names and e-mail addresses into links
# *after* backslash escapes are resolved, so escaping cannot stop it: an invisible WORD JOINER
# (U+2060) inside the trigger breaks the match and the text still reads the same.
_WJ = "\u2060"
_AUTOLINK = re.compile(r"(?i)\b(?:https?|ftp|www)(?=://|\.)|@(?=[-\w]+\.[-\w])")


def md_escape(text: object) -> str:
    """Escape user text so ``st.markdown`` shows it literally: never as HTML, never as Markdown,
    and never with a bare URL or e-mail address turned into a clickable link."""
    out = _AUTOLINK.sub(lambda m: m.group(0) + _WJ, str(text))
    out = _MD_INLINE.sub(r"\\\1", out)
    return _MD_LINE_START.sub(_escape_marker, out)


def md_code(text: object) -> str:
    """User text as inline code for ``st.markdown``, shown exactly as it is. Backslash escapes are not
    processed inside a code span, so :func:`md_escape` there showed its backslashes ("Alonzo\\_Church"):
    the span's fence is one backtick longer than any run of backticks in the text instead, and a line
    break becomes a space (a code span is one line)."""
    body = " ".join(str(text).splitlines()) or " "
    fence = "`" * (max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body[0] == "`" or body[-1] == "`" else ""
    return f"{fence}{pad}{body}{pad}{fence}"


_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def md_escape_keep_code(text: object) -> str:
    """:func:`md_escape` for a message of ours that marks names as code (``no LLM configured (`none` mode)``):
    each single-backtick span is shown as inline code through :func:`md_code` (literal, so user text inside
    one is as safe as outside), the rest escaped — instead of the raw backticks :func:`md_escape` shows."""
    parts = _CODE_SPAN.split(str(text))
    return "".join(md_code(p[1:-1]) if i % 2 else md_escape(p) for i, p in enumerate(parts))


def _escape_marker(m: re.Match[str]) -> str:
    marker = m.group(2)
    return m.group(1) + ("\\" + marker if marker in "-+" else marker[:-1] + "\\.")


# An absolute POSIX path of two parts or more (a lone "/" or "tok/s" is not one): what follows "/" up to a space,
# a quote, a bracket or a separator of prose. Preceded by neither a word character nor ":" or "/", so a URL's
# path and "and/or" stay as they are.
_ABS_PATH = re.compile(r"(?<![\w:/~.\\])(?:/[^\s/'\"“”‘’()\[\]{}<>,;|*?`]+){2,}/?")


def _public_roots() -> list[tuple[str, str]]:
    """(server folder, what the browser shows for it): the app's own folders, longest first."""
    from core.fsio import egx_home
    from core.index.paths import cache_dir, sample_data_dir

    roots = [(egx_home(), ""), (sample_data_dir(), "sample_data"), (cache_dir(), "cache"),
             (Path(__file__).resolve().parents[1], ""), (Path.home(), "")]
    out = []
    for root, shown in roots:
        for r in {str(root), os.path.realpath(root)}:
            if len(r) > 1:
                out.append((r.rstrip("/"), shown))
    return sorted(out, key=lambda rs: -len(rs[0]))


def public_path(path: object) -> str:
    """What the browser may show of a server path: its part under one of the app's folders
    (``$EGX_HOME/runs/x`` → ``runs/x``, a bundled sample → ``sample_data/demo``), else its last part."""
    text = str(path)
    for root, shown in _public_roots():
        if text == root or text.startswith(root + "/"):
            rest = text[len(root):].strip("/")
            return "/".join(p for p in (shown, rest) if p) or "the app's folder"
    return PurePosixPath(text).name or text


def public_text(text: object) -> str:
    """``text`` with every absolute server path in it replaced by :func:`public_path` (for messages that
    carry paths: errors, a job's failure, notes from loading). Plain text; escape it for Markdown."""
    def sub(m: re.Match[str]) -> str:
        found = m.group(0)
        tail = ""
        while found and found[-1] in ".:":  # the end of a sentence, not of the path
            found, tail = found[:-1], found[-1] + tail
        return public_path(found.rstrip("/")) + tail

    return _ABS_PATH.sub(sub, str(text))


def error_text(exc: BaseException) -> str:
    """An error as the app shows it: in the app's words when the raise site gave them
    (:meth:`core.errors.EgxError.in_app`: no command-line flags), without server paths. Plain text."""
    from core.errors import EgxError

    return public_text(exc.in_app() if isinstance(exc, EgxError) else str(exc))


def scroll_here(anchor: str) -> None:
    """Scroll the page so that this point is in the middle of the window, once it is drawn (``anchor``: an HTML id,
    one per place): an outcome shown out of the user's sight — a build's failure under its button, its success at
    the page's top while the page stays scrolled to the form — read as nothing having happened (audits)."""
    st.html(f'<div id="{html.escape(anchor)}"></div>' + _SCROLL.replace("ANCHOR", json.dumps(anchor)),
            unsafe_allow_javascript=True)


_SCROLL = """<script>(() => { const go = () => { const a = document.getElementById(ANCHOR);
  if (a) a.scrollIntoView({block: 'center'}); }; setTimeout(go, 100); setTimeout(go, 500); })();</script>"""


@contextmanager
def progress_bar(title: str) -> Iterator[Callable[[str, float], None]]:
    """A ``cb(message, fraction)`` for core progress callbacks, drawn as ``st.progress``.

    The bar appears on the first call and is removed when the block ends, so a fast (cached)
    operation shows nothing.
    """
    slot = st.empty()
    last = [-1.0]

    def cb(message: str, fraction: float) -> None:
        frac = min(max(float(fraction), 0.0), 1.0)
        if frac - last[0] < 0.005 and frac < 1.0:
            return  # keep the websocket quiet for tiny steps
        last[0] = frac
        slot.progress(frac, text=f"{title}: {message}")

    try:
        yield cb
    finally:
        slot.empty()


#: The house CSS every page gets (:func:`house_style`). Streamlit's main block opens 6rem (96 px) down, and the
#: title's own padding adds 20 px: an audit at 1440×900 found a 115-px empty band above every title. 3rem keeps the
#: title below the 3.75rem header, where the sidebar's toggle sits, while the title's padding clears it. The main
#: area (the element that scrolls) keeps a scroll padding of the header's height, so a control scrolled to or
#: focused with the keyboard lands below the header, never under it (the guided demo's bar, stuck, sits in the
#: header's band). An element that holds only a style sheet or a script (this one, the guided demo's) takes no room:
#: its empty container kept its column's 1-rem gap (audit 56 at 1280×720: the Ask step's lesson under the fold).
HOUSE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3rem; }
[data-testid="stMain"] { scroll-padding-top: 4.25rem; }
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > :is(style, script):only-child) { display: none; }
</style>"""


def house_style() -> None:
    """Put :data:`HOUSE_CSS` on the page (a style element takes no room)."""
    st.html(HOUSE_CSS)
