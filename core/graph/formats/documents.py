"""Documents as people have them — PDF, HTML, Word (``.docx``), Markdown and plain text — as passages.

Each file is one document: its text is read by a well-kept parser (pypdf, the standard library's HTML parser,
python-docx, markdown-it-py), then split by :func:`~core.graph.chunking.chunk_text` exactly as a text
document always was (ids ``<file stem>`` or ``<file stem>#<i>``; the title is the document's first heading —
for a PDF, which marks no headings, a short first line that reads as one (:func:`pdf_heading`) — else its file
name). :func:`document_passages` does all the reading before anything enters a
:class:`~core.graph.graph_builder.GraphBuilder`, so a file that fails adds nothing and a load can go on
without it (:func:`~core.graph.formats.load.load_inputs`).

Whatever the kind, the bidirectional override and isolate controls are dropped from the text and title
(:func:`~core.graph.formats.markup.strip_bidi`): a passage is the text a reader reads, in the order it is read.

Every file is read whole through :func:`~core.graph.formats.bounds.read_bytes` (size limit, bounded gzip).
Beyond that: a PDF's page count is capped (``InputLimits.max_pages``) and pypdf caps each stream's
decompression itself; a ``.docx`` is a zip, whose members' declared sizes are checked against the size and
compression-ratio limits before any is read (Python's zip reader never inflates a member past its declared
size), and python-docx parses its XML with entity resolution off.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.chunking import CHUNK_CHARS, chunk_text
from core.graph.formats.bounds import (
    InputLimits,
    base_suffix,
    display_name,
    file_stem,
    read_bytes,
    resolve_limits,
    size_text,
)
from core.graph.formats.markup import decode_html, html_text, markdown_text, strip_bidi
from core.graph.formats.repeats import RepeatIndex
from core.graph.formats.textio import read_text
from core.graph.graph_builder import GraphBuilder

#: document format name -> what a person calls it (the file-status table shows it)
DOCUMENT_KINDS = {"pdf": "PDF", "html": "HTML", "docx": "Word", "markdown": "Markdown", "document": "text"}
#: the formats read whole before they touch the builder (so a load can skip one that fails)
DOCUMENT_FORMATS = tuple(DOCUMENT_KINDS)
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
MARKDOWN_SUFFIXES = (".md", ".markdown")

#: one passage of a document: (chunk id, title, text)
Passage = tuple[str, str, str]


def read_document(path: Path, builder: GraphBuilder, *, limits: InputLimits | None = None,
                  max_chars: int = CHUNK_CHARS, repeats: RepeatIndex | None = None,
                  per_paragraph: bool = False) -> list[str]:
    """Add the passages of one document (any kind :func:`document_passages` reads) to ``builder``; return the
    warnings (e.g. PDF pages without a text layer).

    With ``repeats``, the passages it knows are cut out of the document's text first
    (:meth:`~core.graph.formats.repeats.RepeatIndex.cut`, noted under the file's name), and this document's
    passages are known to it afterwards. A document that held only such repeats adds nothing.

    Passage ids come from the file's stem; when another file of the same stem (``report.pdf`` beside
    ``report.docx``) already took them, this file's passages take its whole name instead (``report.pdf``,
    ``report.pdf#1``, …) and a warning says so, so no file of a folder is left out for its name. The same
    file read again keeps its ids (its passages are found, not added twice)."""
    name = display_name(Path(path))
    passages, warnings = document_passages(path, limits=limits, max_chars=max_chars, repeats=repeats,
                                           per_paragraph=per_paragraph)

    def clashes(items: list[Passage]) -> list[str]:
        return [cid for cid, title, text in items if builder.has_chunk(cid) and builder.find_chunk(title, text) != cid]

    taken = clashes(passages)
    if taken:  # checked before adding, so a clash leaves the builder as it was
        stem, whole = file_stem(Path(path)), Path(path).name
        whole = whole[:-3] if whole.lower().endswith(".gz") else whole
        renamed = [(whole + cid[len(stem):], title, text) for cid, title, text in passages]
        if clashes(renamed):
            raise InputFormatError(name, f"passage id {taken[0]!r} is already taken by another file's passage (ids "
                                   "come from file names: two files named alike, e.g. report.pdf and report.docx)",
                                   "files whose names differ before the extension")
        passages = renamed
        warnings = [*warnings, f"another file already has the passage id {stem!r} (ids come from file names), so "
                               f"this file's passages are named {whole!r}"
                               + (f" to {renamed[-1][0]!r}" if len(renamed) > 1 else "")]
    for cid, title, text in passages:
        builder.add_chunk(title, text, chunk_id=cid)
        if repeats is not None:
            repeats.add(title, text)
    return warnings


def document_passages(path: Path, *, limits: InputLimits | None = None, max_chars: int = CHUNK_CHARS,
                      repeats: RepeatIndex | None = None,
                      per_paragraph: bool = False) -> tuple[list[Passage], list[str]]:
    """The passages of one document and the warnings its reading gave.

    The kind is the file's extension (``.gz`` ignored): ``.pdf``, ``.html``/``.htm``/``.xhtml``, ``.docx``,
    ``.md``/``.markdown``; anything else is plain text (whose first line, when it is a ``# heading`` or reads
    as a heading by :func:`pdf_heading`'s rule, is its title). ``max_chars`` and ``per_paragraph`` are
    :func:`~core.graph.chunking.chunk_text`'s (a workspace's :class:`~core.graph.chunking.PassageSplit`).

    Raises
    ------
    InputFormatError
        Naming the file: an encrypted PDF (decrypt it first), a PDF without a text layer (run OCR first), a
        PDF over the page limit, a malformed PDF or ``.docx``, a ``.docx`` whose zip would inflate past the
        limits, undecodable text, or a document without text.
    """
    title, text, warnings = document_text(path, limits=limits)
    if repeats is not None:
        name = display_name(Path(path))
        seen = len(repeats.found.get(name, ()))
        text = repeats.cut(text, name)
        if not re.search(r"[^\W_]", text):
            return [], warnings  # every passage of it was read before
        if title in repeats.found.get(name, [])[seen:]:  # the title was a repeated passage's: not the rest's
            head, rest = pdf_heading(text)
            title, text = (head, rest) if head else (name_title(Path(path)), text)
    pieces = chunk_text(text, max_chars=max_chars, per_paragraph=per_paragraph)
    stem = file_stem(Path(path))
    return [(f"{stem}#{i}" if len(pieces) > 1 else stem, title, p) for i, p in enumerate(pieces)], warnings


def document_text(path: Path, *, limits: InputLimits | None = None) -> tuple[str, str, list[str]]:
    """``(title, text, warnings)`` of one document before it is split into passages (see
    :func:`document_passages`, which says what raises); the title is the file's name when the document
    names none."""
    lim = resolve_limits(limits)
    path = Path(path)
    name = display_name(path)
    warnings: list[str] = []
    title = ""
    suffix = base_suffix(path)
    if suffix in (".pdf", ".docx") and path.suffix.lower() != ".gz" and path.stat().st_size == 0:
        # no bytes at all: said as empty, not as a damaged PDF or a .docx that is no zip archive
        raise InputFormatError(name, "the document is empty", "some text")
    if suffix == ".pdf":
        text, warnings = pdf_text(path, lim)
        title, text = pdf_heading(text)  # before the lines are joined: the heading is a line of its own
        text = join_wrapped_lines(text)
    elif suffix in HTML_SUFFIXES:
        title, text = html_text(decode_html(read_bytes(path, lim), name))
    elif suffix == ".docx":
        title, text = docx_text(path, lim)
    elif suffix in MARKDOWN_SUFFIXES:
        title, text = markdown_text(read_text(path, lim), name=name, warnings=warnings)
    else:
        text = read_text(path, lim)
        m = re.match(r"\s*#\s+(.+)", text)
        if m:
            title, text = m.group(1).strip(), text[m.end():]
        else:  # a first line that reads as a heading, as in a PDF (else the file name titles it: a hub node)
            title, text = pdf_heading(text)
    title, text = strip_bidi(title), strip_bidi(text)  # what a reader reads, never text shown reordered
    if not text.strip():
        raise InputFormatError(name, "the document is empty", "some text")
    return title or name_title(path), text, warnings


#: words a title made from a file name keeps in lower case, unless first (as a heading writes them)
SMALL_WORDS = frozenset("a an and as at by for from in into of on or the to with".split())


def name_title(path: Path) -> str:
    """The title of a document without a heading: its file name, "_" read as a space, and a name written all in
    lower case capitalised word by word as a heading would be (audit 56 found "He [tobin ashgrove] …" in the answers
    and a hub node "tobin ashgrove" beside the person "Tobin Ashgrove"); a name with any capital is kept as written.
    Gold titles match it whatever their case (:func:`core.index.questions.parse_questions`).

    >>> name_title(Path("tobin_ashgrove.txt")), name_title(Path("history of the quarry.md"))
    ('Tobin Ashgrove', 'History of the Quarry')
    >>> name_title(Path("McAllister_notes.pdf")), name_title(Path("2024-report.txt")), name_title(Path("lothair_ii.pdf"))
    ('McAllister notes', '2024-report', 'Lothair II')
    """
    name = file_stem(path).replace("_", " ")
    if name != name.lower():
        return name
    words = name.split(" ")
    return " ".join(w.upper() if _ROMAN.fullmatch(w) else w if (i and w in SMALL_WORDS) else w[:1].upper() + w[1:]
                    for i, w in enumerate(words))


#: a regnal or volume number written in lower case in a file name ("lothair_ii", "part_iv"), 1–39: set in capitals
_ROMAN = re.compile(r"(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})")


# ------------------------------------------------------------------------------------------------ PDF
def pdf_text(path: Path, lim: InputLimits) -> tuple[str, list[str]]:
    """The text layer of a PDF, page by page (a blank line between pages), and a warning naming the pages
    that have none."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    name = display_name(path)
    data = read_bytes(path, lim)
    encrypted = (name, "it is encrypted (password-protected)",
                 "an unencrypted PDF: decrypt it first (open it with its password and save or print it to a new "
                 "PDF, or use a PDF tool such as qpdf) and upload that")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):  # an owner password alone still lets anyone read it
            raise InputFormatError(*encrypted)
        n = len(reader.pages)
        if n > lim.max_pages:
            raise InputFormatError(name, f"it has {n:,} pages, over the limit of {lim.max_pages:,}",
                                   "a shorter PDF (split it), or a higher limit: EGX_MAX_PDF_PAGES=<pages>")
        pages: list[str] = []
        total = 0
        for page in reader.pages:
            text = with_paragraph_breaks(page)
            total += len(text)
            if total > lim.max_bytes:
                raise InputFormatError(name, f"its text is over the input size limit of {size_text(lim.max_bytes)}",
                                       "a smaller PDF, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
            pages.append(text.strip())
    except InputFormatError:
        raise
    except (FileNotDecryptedError, DependencyError):  # DependencyError: AES, whose decryption needs a crypto package
        raise InputFormatError(*encrypted) from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        # a damaged PDF makes the parser fail anywhere inside; the cause is what a person can act on
        raise InputFormatError(name, f"it is not a readable PDF ({type(exc).__name__}: {exc})",
                               "a valid PDF file (re-save or re-export it)") from None
    empty = [i for i, t in enumerate(pages, start=1) if not t]
    if len(empty) == len(pages):
        raise InputFormatError(name, f"none of its {len(pages):,} page(s) has a text layer: it looks scanned",
                               "a PDF with text: run OCR first (e.g. ocrmypdf in.pdf out.pdf) and upload the result")
    warnings = []
    if empty:
        shown = ", ".join(map(str, empty[:10])) + (", ..." if len(empty) > 10 else "")
        warnings.append(f"{name}: {len(empty)} of {len(pages)} pages have no text layer (scanned?) and were left out "
                        f"(pages {shown}); run OCR on the PDF to include them.")
    return "\n\n".join(t for t in pages if t), warnings


def with_paragraph_breaks(page: Any) -> str:
    """A PDF page's text (pypdf's plain extraction, which keeps a multi-column page's reading order) with a blank
    line before each line that starts a paragraph. A PDF's text layer has no paragraph marks, only positions: the
    plain extraction puts every printed line on a line of its own, so a PDF became one passage under "one per
    paragraph" while the same text as a .txt became four (audit 55). pypdf's layout extraction renders the vertical
    gaps as blank lines; a plain line that matches a layout line after a gap (spaces aside) starts a paragraph.
    Where the layout extraction fails, or puts a gap before most lines (double spacing, not paragraphs), the
    text is left as it was."""
    plain = page.extract_text() or ""
    try:
        layout = page.extract_text(extraction_mode="layout") or ""
    except Exception:  # layout mode is an extra: the plain text stands without it
        return plain
    starts, lines, gap = set(), 0, False
    for line in layout.splitlines():
        words = " ".join(line.split())
        if not words:
            gap = True
            continue
        lines += 1
        if gap and lines > 1:
            starts.add(words)
        gap = False
    if not starts or len(starts) > lines / 2:
        return plain
    out: list[str] = []
    for line in plain.splitlines():
        if out and out[-1].strip() and " ".join(line.split()) in starts:
            out.append("")
        out.append(line)
    return "\n".join(out)


def join_wrapped_lines(text: str) -> str:
    r"""A PDF's lines joined as a reader reads them: a line break inside a paragraph is a space, and a word
    hyphenated at the line's end ("centre-" then "d ...") is joined whole; paragraph breaks (blank lines, and
    the blank line between pages) stay. A PDF's text layer breaks every line where the page wraps it, and a
    passage kept that way quotes "person-centere\nd counseling" in an answer.

    >>> join_wrapped_lines("a person-centre-\nd counselling\nservice.\n\nNext paragraph")
    'a person-centred counselling service.\n\nNext paragraph'
    """
    paragraphs = []
    for para in re.split(r"\n[ \t]*\n", text):
        lines = [ln.strip() for ln in para.splitlines() if ln.strip()]
        if not lines:
            continue
        cur = lines[0]
        for line in lines[1:]:
            if re.search(r"[^\W\d_]-$", cur) and line[0].islower():
                cur = cur[:-1] + line
            else:
                cur += " " + line
        paragraphs.append(cur)
    return "\n\n".join(paragraphs)


#: a PDF's first line is its heading when it is this short (words, characters) and reads as a title
HEADING_MAX_WORDS, HEADING_MAX_CHARS = 12, 100


def pdf_heading(text: str) -> tuple[str, str]:
    r"""``(title, rest)``: a PDF's first line when it reads as a heading, taken out of the text; else ``("",
    text)``. A PDF marks no headings, and its text layer puts a heading on a line of its own — left in, the
    heading runs into the first sentence ("Aurelia Vance Aurelia Vance was born …", one glued entity for the
    KG) and the passage is titled by its file name, which becomes a hub node.

    A heading: at most :data:`HEADING_MAX_WORDS` words and :data:`HEADING_MAX_CHARS` characters, a letter in
    it, no sentence punctuation at its end, and text after it whose next line does not go on in lower case (a
    sentence wrapped at the line's end is no heading).

    >>> pdf_heading("Aurelia Vance\nAurelia Vance was born in Tromsø.")
    ('Aurelia Vance', 'Aurelia Vance was born in Tromsø.')
    >>> pdf_heading("Vance was born in\nthe north of Norway.")[0]
    ''
    """
    head, sep, rest = text.lstrip().partition("\n")
    line, rest = head.strip(), rest.lstrip()
    if not (sep and rest and line and len(line) <= HEADING_MAX_CHARS and len(line.split()) <= HEADING_MAX_WORDS
            and re.search(r"[^\W\d_]", line) and line[-1] not in ".,;:!?-–—" and not rest[0].islower()):
        return "", text
    return line, rest


# ----------------------------------------------------------------------------------------------- DOCX
def docx_text(path: Path, lim: InputLimits) -> tuple[str, str]:
    """``(title, text)`` of a Word document: its paragraphs and tables in order (a row per line, cells
    separated by ``|``), the first Title- or Heading-styled paragraph as the title."""
    import docx
    from docx.opc.exceptions import OpcError

    name = display_name(path)
    data = read_bytes(path, lim)
    check_zip(data, name, lim)
    try:
        doc = docx.Document(io.BytesIO(data))
        title = ""
        blocks: list[str] = []
        for item in doc.iter_inner_content():
            if isinstance(item, docx.table.Table):
                rows = [" | ".join(c.text.strip() for c in row.cells) for row in item.rows]
                blocks.append("\n".join(r for r in rows if r.strip(" |")))
                continue
            text = item.text.strip()
            style = (item.style.name if item.style is not None else "") or ""
            if text and not title and (style == "Title" or style.startswith("Heading")):
                title = text
                if not blocks:
                    continue  # the title opens the document: it is the passages' title, not their text
            blocks.append(text)
    except (OpcError, zipfile.BadZipFile, KeyError, ValueError, TypeError, AttributeError, SyntaxError) as exc:
        # a damaged package fails anywhere inside python-docx (lxml's XMLSyntaxError is a SyntaxError)
        raise InputFormatError(name, f"it is not a readable Word document ({type(exc).__name__}: {exc})",
                               "a .docx saved by Word, LibreOffice or Google Docs (an old .doc: save it as .docx)"
                               ) from None
    return title, "\n\n".join(b for b in blocks if b)


def check_zip(data: bytes, name: str, lim: InputLimits) -> None:
    """Refuse a zip-based document before any member is inflated: not a zip, too many members, or declared
    sizes over the size limit or the compression-ratio limit (a zip bomb)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise InputFormatError(name, f"it is not a .docx (not a zip archive: {exc})",
                               "a Word document saved as .docx (an old .doc: open it and save it as .docx)") from None
    if len(infos) > lim.max_members:
        raise InputFormatError(name, f"it holds {len(infos):,} files, over the limit of {lim.max_members:,}",
                               "a real Word document (a few dozen parts)")
    total = sum(i.file_size for i in infos)
    if total > lim.max_bytes:
        raise InputFormatError(name, f"it unpacks to {size_text(total)}, over the input size limit of "
                               f"{size_text(lim.max_bytes)}", "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
    if total > max(lim.ratio_floor, lim.max_ratio * max(len(data), 1)):
        raise InputFormatError(name, f"it unpacks to {size_text(total)} from {size_text(len(data))} (a compression "
                               f"ratio above {lim.max_ratio:g}:1 — a zip bomb, or extremely repetitive data)",
                               "a real document, which compresses 3-10x (raise the limit with "
                               "EGX_MAX_COMPRESSION_RATIO if this file is genuine)")
