"""Small Streamlit helpers: progress bars for core callbacks, safe rendering of user text, server paths and
errors made fit for the browser, the question picker of the pages that offer the workspace's questions."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

import streamlit as st

from components import deep_link
from components import state as S

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


OWN_QUESTION_LABEL = "Use another question on this page only"
OWN_QUESTION_HELP = ("Off: this page shows the workspace's question, the one Ask, the paper pages, HippoRAG 2 and "
                     "Compare share, and a question picked here becomes theirs. On: this page keeps a question of its "
                     "own and the other pages keep theirs.")


def own_question_toggle(page: str, *, scope: str = "", container: Any = None) -> bool:
    """The page's "use another question on this page only" switch (``page``: the key of its question value;
    ``scope``: one per page that draws it, as for :func:`state.bind`); returns whether it is on. Turning it
    off brings the workspace's question back (:func:`state.release_own_question`)."""
    where = container if container is not None else st
    rec = st.session_state.get(S.ACTIVE)
    workspace = rec.info.name if rec is not None else ""
    key = S.sub(S.QUESTION_OWN, page)
    wkey = S.bind(key, False, scope=scope)
    return bool(S.keep(key, where.toggle(OWN_QUESTION_LABEL, key=wkey, help=OWN_QUESTION_HELP,
                                         on_change=_own_question_changed, args=(workspace, page, wkey))))


def _own_question_changed(workspace: str, page: str, wkey: str) -> None:
    on = bool(st.session_state.get(wkey))
    st.session_state[S.sub(S.QUESTION_OWN, page)] = on  # read before the switch is drawn on this run
    if not on:
        S.release_own_question(workspace, page)


def _picked_question(key: str, custom_key: str) -> str | None:
    """The question the picker of ``key`` holds now (None: it holds none yet)."""
    ss = st.session_state
    if key not in ss:
        return None
    choice = ss[key]
    return str(ss.get(custom_key, "") if choice == S.CUSTOM_QUESTION else choice).strip()


def question_picker(questions: Sequence[str], *, key: str, custom_key: str, default_custom: str, scope: str = "",
                    help: str = "", container: Any = None) -> str:
    """A "Question" selectbox over ``questions`` plus :data:`state.CUSTOM_QUESTION`, which opens a
    "Your question" text box; returns the question, stripped.

    The page shows the workspace's question (:func:`state.workspace_question`), the one every method page
    shares, unless its "use another question on this page only" switch is on; a question picked here becomes
    the workspace's question. The question is kept per workspace (:func:`state.follow_workspace`): another
    workspace starts on its own question. A question handed over by another page (:func:`state.take_handoff`)
    is picked when it is one of ``questions`` and typed otherwise; so is a remembered one this workspace lacks.
    """
    where = container if container is not None else st
    options = [*questions, S.CUSTOM_QUESTION]
    rec = st.session_state.get(S.ACTIVE)
    workspace = rec.info.name if rec is not None else ""
    if rec is not None:
        S.follow_workspace(workspace, key, custom_key)
    handed = S.take_handoff()
    if handed is not None:
        S.set_value(key, handed)
    shared = S.workspace_question(workspace, key, _picked_question(key, custom_key))
    if shared is not None:
        S.set_value(key, shared)
    wkey = S.bind(key, options[0], scope=scope)
    current = st.session_state[wkey]
    if current not in options:
        if current:
            S.set_value(custom_key, str(current))
        st.session_state[wkey] = S.CUSTOM_QUESTION
    choice = S.keep(key, where.selectbox("Question", options, key=wkey, help=help))
    if choice != S.CUSTOM_QUESTION:
        question = str(choice).strip()
    else:
        ckey = S.bind(custom_key, default_custom, scope=scope)
        question = str(S.keep(custom_key, st.text_input("Your question", key=ckey))).strip()
    own_question_toggle(key, scope=scope, container=where)
    S.share_question(workspace, key, question)
    deep_link.publish(question)  # the address bar links to this view
    return question
