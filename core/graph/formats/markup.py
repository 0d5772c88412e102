"""The reading text of a marked-up document: HTML (what a browser shows, without scripts, styles and navigation)
and Markdown (the text without its markup), each with its title and its paragraphs separated by blank lines,
so that :func:`~core.graph.chunking.chunk_text` keeps sections and paragraphs together.

Both parsers are well kept and bounded by the input size alone: the standard library's :mod:`html.parser`
(no network, no entity expansion beyond HTML's own character references) and markdown-it-py (CommonMark,
linear time by design).
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

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


class _VisibleText(HTMLParser):
    """Collects the visible text of an HTML page by paragraph, its <title> and its first <h1>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._cur: list[str] = []
        self._hidden_stack: list[str] = []  # the open tags from the outermost hidden element inwards
        self._in: str | None = None  # "title" or "h1" while collecting one
        self._grab: list[str] = []
        self.title = ""
        self.h1 = ""

    def _flush(self) -> None:
        text = " ".join("".join(self._cur).split())
        if text:
            self.blocks.append(text)
        self._cur = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.title:
            self._in, self._grab = "title", []
        if self._hidden_stack or tag in _HIDDEN or any(k == "hidden" or (k == "aria-hidden" and v == "true")
                                                       for k, v in attrs):
            if tag not in _VOID:  # inside a hidden element every open tag is counted, to find where it ends
                self._hidden_stack.append(tag)
            return
        if tag == "h1" and not self.h1:
            self._in, self._grab = "h1", []
        if tag in _BLOCKS:
            self._flush()
        elif tag == "br":
            self._cur.append("\n")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._cur.append(f" {alt} ")
        elif tag in ("td", "th"):
            self._cur.append(" | " if "".join(self._cur).strip() else "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._in == tag:
            text = " ".join("".join(self._grab).split())
            if tag == "title":
                self.title = text
            else:
                self.h1 = text
            self._in = None
        if self._hidden_stack:
            if tag in self._hidden_stack:  # closes it and whatever was left open inside it
                del self._hidden_stack[len(self._hidden_stack) - 1 - self._hidden_stack[::-1].index(tag):]
            return
        if tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self._grab.append(data)
        if not self._hidden_stack:
            self._cur.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


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
    p.feed(html)
    p.close()
    return p.h1 or p.title, "\n\n".join(p.blocks)


def markdown_text(source: str) -> tuple[str, str]:
    """``(title, text)`` of a Markdown document: the text without markup, one paragraph per block (headings,
    paragraphs, list items, code blocks, table rows with ``|`` between cells), and the first heading as the
    title (left out of the text when it opens the document)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(source)
    blocks: list[str] = []
    title = ""
    row: list[str] | None = None
    heading = False
    for tok in tokens:
        if tok.type == "heading_open":
            heading = True
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and row is not None:
            blocks.append(" | ".join(row))
            row = None
        elif tok.type in ("fence", "code_block"):
            blocks.append(tok.content.strip("\n"))
        elif tok.type == "html_block":
            blocks.append(html_text(tok.content)[1])
        elif tok.type == "inline":
            text = _inline_text(tok.children or [])
            if row is not None:
                row.append(text)
            elif heading and not title:
                title = text
                if blocks:  # a heading further down stays a section heading in the text
                    blocks.append(text)
            else:
                blocks.append(text)
            heading = False
    return title, "\n\n".join(b for b in blocks if b.strip())


def _inline_text(children: list) -> str:  # list[markdown_it.token.Token]
    out: list[str] = []
    for c in children:
        if c.type in ("text", "code_inline"):
            out.append(c.content)
        elif c.type == "softbreak":
            out.append(" ")
        elif c.type == "hardbreak":
            out.append("\n")
        elif c.type == "image":
            out.append(_inline_text(c.children or []))
        elif c.type == "html_inline":
            continue
    return "".join(out).strip()
