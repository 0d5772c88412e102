"""The reading text of a marked-up document: HTML (what a browser shows, without scripts, styles and navigation)
and Markdown (the text without its markup), each with its title and its paragraphs separated by blank lines,
so that :func:`~core.graph.chunking.chunk_text` keeps sections and paragraphs together.

Both parsers are well kept and run in time linear in the input: lxml's HTML parser (libxml2, as a stream of
start / end / text events into :class:`_VisibleText`; no network, no entities beyond HTML's own character
references, no tree built) and markdown-it-py (CommonMark, linear time by design). The standard library's
:mod:`html.parser`, used before, rescans the rest of the page at every ``<`` that opens no complete tag
(``a<a<a…``, ``<a b='…``): a 10 MB one-line page took over ten minutes.

What a reader never sees is left out of Markdown too: the text inside a hidden element opened by inline or
block HTML (``<script>``, ``<style>``, ``<template>``, an element with ``hidden``), and, in every document,
the Unicode bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069), which
reorder how the text around them is displayed (:func:`strip_bidi`). Markdown nested deeper than
markdown-it's limit (blockquotes ``>`` or lists 20 levels deep) is not read below it: a document that has
nothing else is refused saying so, one that has is read with a warning.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from core.errors import InputFormatError

#: elements whose content a reader never sees: code, styling, embedded objects, navigation and the head
#: (whose <title> is read apart)
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "math", "canvas", "object", "iframe",
                     "nav", "head", "select", "button"})
#: elements that start a new paragraph
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "pre",
                     "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr",
                     "caption", "figure", "figcaption", "form", "fieldset", "address", "details", "summary", "hr",
                     "body", "html"})
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
#: the bidirectional embedding, override and isolate controls: invisible, they reorder the text shown around them
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def strip_bidi(text: str) -> str:
    """``text`` without the Unicode bidirectional embedding / override / isolate controls (U+202A-U+202E,
    U+2066-U+2069): a passage's stored text is what a reader reads, never text displayed in another order.

    >>> strip_bidi("abc\u202edcba\u202c")
    'abcdcba'
    """
    return _BIDI.sub("", text) if _BIDI.search(text) else text


class _VisibleText:
    """Collects the visible text of an HTML page by paragraph, its <title> and its first <h1>, from the events of
    lxml's parser (its ``target`` interface: :meth:`start`, :meth:`end`, :meth:`data`, :meth:`close`).

    Every event costs O(1) amortized, whatever the page: the open hidden elements are a stack with each tag's
    positions in it (closing one drops it and whatever was left open inside it), and a table cell's separator
    asks a flag, not the paragraph so far."""

    def __init__(self, hidden: frozenset[str] = _HIDDEN) -> None:
        self._hidden = hidden
        self.blocks: list[str] = []
        self._cur: list[str] = []
        self._cur_text = False  # whether _cur holds more than whitespace
        self._hidden_stack: list[str] = []  # the open tags from the outermost hidden element inwards
        self._open_at: dict[str, list[int]] = {}  # tag -> its positions in _hidden_stack
        self._in: str | None = None  # "title" or "h1" while collecting one
        self._grab: list[str] = []
        self.title = ""
        self.h1 = ""

    def _flush(self) -> None:
        if self._cur:
            text = " ".join("".join(self._cur).split())
            if text:
                self.blocks.append(text)
            self._cur = []
            self._cur_text = False

    def _add(self, text: str) -> None:
        self._cur.append(text)
        if not self._cur_text and not text.isspace():
            self._cur_text = True

    def start(self, tag: Any, attrib: Any) -> None:
        if not isinstance(tag, str):  # a comment or processing instruction has a factory for its tag: skipped
            return
        if tag == "title" and not self.title:
            self._in, self._grab = "title", []
        if self._hidden_stack or tag in self._hidden or (
                attrib and ("hidden" in attrib or attrib.get("aria-hidden") == "true")):
            if tag not in _VOID:  # inside a hidden element every open tag is counted, to find where it ends
                self._open_at.setdefault(tag, []).append(len(self._hidden_stack))
                self._hidden_stack.append(tag)
            return
        if tag == "h1" and not self.h1:
            self._in, self._grab = "h1", []
        if tag in _BLOCKS:
            self._flush()
        elif tag == "br":
            self._add("\n")
        elif tag == "img":
            alt = attrib.get("alt") if attrib else None
            if alt:
                self._add(f" {alt} ")
        elif tag in ("td", "th") and self._cur_text:
            self._add(" | ")

    def end(self, tag: Any) -> None:  # a void element gets an end event too, which closes nothing here
        if not isinstance(tag, str):
            return
        if self._in == tag:
            text = " ".join("".join(self._grab).split())
            if tag == "title":
                self.title = text
            else:
                self.h1 = text
            self._in = None
        if self._hidden_stack:
            at = self._open_at.get(tag)
            if at:  # closes it and whatever was left open inside it
                i = at[-1]
                for t in reversed(self._hidden_stack[i:]):
                    self._open_at[t].pop()
                del self._hidden_stack[i:]
            return
        if tag in _BLOCKS:
            self._flush()

    def data(self, data: str) -> None:
        if self._in is not None:
            self._grab.append(data)
        if not self._hidden_stack:
            self._add(data)

    def close(self) -> None:
        self._flush()

    @property
    def hidden(self) -> bool:
        """Whether the text that would come now is inside a hidden element."""
        return bool(self._hidden_stack)


def _parser(target: _VisibleText) -> Any:
    from lxml import etree

    return etree.HTMLParser(target=target, recover=True, no_network=True, remove_comments=True, remove_pis=True)


_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})


def decode_html(data: bytes, name: str) -> str:
    """HTML bytes as text: the encoding from a byte-order mark, else from a ``<meta charset>`` in the first
    4 KB, else UTF-8 (an undeclared legacy encoding is refused with the fix)."""
    enc = "utf-8"
    if data.startswith(b"\xef\xbb\xbf"):
        enc = "utf-8-sig"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        enc = "utf-16"
    else:
        m = _CHARSET.search(data[:4096])
        if m:
            try:
                enc = codecs.lookup(m.group(1).decode("ascii")).name
            except LookupError:
                raise InputFormatError(name, f"the page declares an unknown encoding {m.group(1).decode('ascii')!r}",
                                       "an HTML page in UTF-8 (or a standard encoding)") from None
    try:
        return data.decode(enc)
    except UnicodeDecodeError as exc:
        raise InputFormatError(name, f"byte {exc.start} is not valid {enc}", "an HTML page saved as UTF-8, or one "
                               "whose <meta charset> names its encoding") from None


def html_text(html: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page: the visible text by paragraph (scripts, styles, navigation, the head
    and hidden elements dropped) and the first ``<h1>``, else the ``<title>``, else ``""``."""
    p = _VisibleText()
    parser = _parser(p)
    parser.feed(html)
    parser.close()
    return p.h1 or p.title, "\n\n".join(p.blocks)


def markdown_text(source: str, *, name: str = "", warnings: list[str] | None = None) -> tuple[str, str]:
    """``(title, text)`` of a Markdown document: the text without markup, one paragraph per block (headings,
    paragraphs, list items, code blocks, table rows with ``|`` between cells), and the first heading as the
    title (left out of the text when it opens the document). Text inside hidden HTML elements (``<script>``
    … ``</script>`` inline or as blocks, an element with ``hidden``) is left out, as a browser hides it.

    Raises
    ------
    InputFormatError
        Naming ``name``, when the document has text only below markdown-it's nesting limit (e.g. 50,000 ``>``);
        with text above it too, the deeper text is left out and ``warnings`` says so.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(source)
    blocks: list[str] = []
    title = ""
    row: list[str] | None = None
    heading = False
    # follows the hidden elements HTML tokens open and close across the document ("head" aside: lxml opens one
    # around a leading <script> and closes it only at the next visible element)
    hidden = _VisibleText(_HIDDEN - {"head"})
    html = _parser(hidden)
    for tok in tokens:
        if tok.type == "heading_open":
            heading = True
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and row is not None:
            blocks.append(" | ".join(row))
            row = None
        elif tok.type in ("fence", "code_block"):
            if not hidden.hidden:
                blocks.append(tok.content.strip("\n"))
        elif tok.type == "html_block":
            if not hidden.hidden:  # inside a hidden element (opened by an earlier block) nothing is shown
                blocks.append(html_text(tok.content)[1])
            html.feed(tok.content)
        elif tok.type == "inline":
            text = _inline_text(tok.children or [], hidden, html)
            if row is not None:
                row.append(text)
            elif heading and not title:
                title = text
                if blocks:  # a heading further down stays a section heading in the text
                    blocks.append(text)
            else:
                blocks.append(text)
            heading = False
    text = "\n\n".join(b for b in blocks if b.strip())
    limit = int(md.options["maxNesting"])
    if any(t.level >= limit - 1 for t in tokens):  # markdown-it stopped reading below its nesting limit
        what = (f"its Markdown nests blockquotes ('>') or lists more than {limit - 1} levels deep, and a Markdown "
                "reader stops there")
        if not text.strip():
            raise InputFormatError(name or "the document", f"{what}, so none of its text can be read",
                                   "Markdown nested at most a few levels deep (or save it as plain .txt)")
        if warnings is not None:
            warnings.append(f"{name or 'the document'}: {what}; the text nested deeper was left out.")
    return title, text


def _inline_text(children: list, hidden: _VisibleText, html: Any) -> str:  # list[markdown_it.token.Token]
    out: list[str] = []
    for c in children:
        if c.type == "html_inline":
            html.feed(c.content)  # a <script> or <span hidden> hides the text up to its closing tag
        elif hidden.hidden:
            continue
        elif c.type in ("text", "code_inline"):
            out.append(c.content)
        elif c.type == "softbreak":
            out.append(" ")
        elif c.type == "hardbreak":
            out.append("\n")
        elif c.type == "image":
            out.append(_inline_text(c.children or [], hidden, html))
    return "".join(out).strip()
