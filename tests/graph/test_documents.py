"""Documents as people have them (PDF, HTML, Word, Markdown, text) become passages the way a text document
always did; a scanned, encrypted, damaged or bomb-like file is refused with a message naming it and the fix,
and a folder with one bad file still loads the others, saying what became of each."""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
from pathlib import Path

import pytest

from core.errors import InputFormatError
from core.graph.chunking import PassageSplit
from core.graph.formats.bounds import InputLimits
from core.graph.formats.documents import document_passages
from core.graph.formats.load import load_inputs
from core.graph.formats.registry import detect_format


def pdf_bytes(pages: list[str | None]) -> bytes:
    """A minimal valid PDF: one page per entry, with a text object (a string) or only a drawn line (None, a
    page without a text layer, as a scan has)."""
    n = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, text in enumerate(pages):
        lines = " 0 -16 Td ".join(f"({line}) Tj" for line in (text or "").split("\n"))  # a line each, as printed
        stream = (f"BT /F1 12 Tf 72 720 Td {lines} ET" if text is not None else "0 0 m 200 200 l S").encode()
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
                    "/Resources << /Font << /F1 3 0 R >> >> >>".encode())
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def encrypted_pdf(user_password: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Secret text of Lothair."]))))
    w.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def docx_file(path: Path) -> Path:
    import docx

    d = docx.Document()
    d.add_heading("Lothair II", 0)
    d.add_paragraph("Lothair II was king of Lotharingia.")
    d.add_heading("Family", 1)
    d.add_paragraph("His mother was Ermengarde of Tours.")
    t = d.add_table(rows=2, cols=2)
    for r, row in enumerate([("Name", "Role"), ("Ermengarde", "mother")]):
        for c, v in enumerate(row):
            t.cell(r, c).text = v
    d.save(str(path))
    return path


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    return p


# ------------------------------------------------------------------------------------------ good documents
def test_pdf_text_layer_becomes_passages(tmp_path):
    p = write(tmp_path, "lothair_ii.pdf", pdf_bytes(["Lothair II was king of Lotharingia.", "He died in 869."]))
    assert detect_format(p) == "pdf"
    g = load_inputs([p]).graph
    assert [(c.id, c.title) for c in g.chunks] == [("lothair_ii", "Lothair II")]  # a lower-case name capitalised
    assert g.chunks[0].text == "Lothair II was king of Lotharingia.\n\nHe died in 869."


def test_a_pdfs_heading_line_is_its_title_not_glued_to_its_first_sentence(tmp_path):
    """A PDF marks no headings: its short first line is the passages' title and leaves the text, so the KG
    sees "Aurelia Vance was born …" (not "Aurelia Vance Aurelia Vance was born …") and no file-name hub."""
    p = write(tmp_path, "vance.pdf", pdf_bytes(["Aurelia Vance\nAurelia Vance was born in Tromso.\nShe moved to "
                                                "Trondheim.", "She died in 1990."]))
    (chunk,) = load_inputs([p]).graph.chunks
    assert chunk.title == "Aurelia Vance"
    assert chunk.text.startswith("Aurelia Vance was born in Tromso.") and "Aurelia Vance\nAurelia" not in chunk.text
    assert chunk.text.endswith("She died in 1990.")


@pytest.mark.parametrize("first,why", [
    ("Aurelia Vance was born in Tromso.", "a sentence"),
    ("In the winter of 1950 Aurelia Vance", "a sentence wrapped at the line's end"),
    ("1", "a page number"),
])
def test_a_pdf_line_that_is_no_heading_stays_in_the_text(tmp_path, first, why):
    rest = "moved to Trondheim." if why.startswith("a sentence wrapped") else "She moved to Trondheim."
    p = write(tmp_path, "notes.pdf", pdf_bytes([f"{first}\n{rest}"]))
    (chunk,) = load_inputs([p]).graph.chunks
    assert chunk.title == "Notes" and chunk.text.startswith(first), why


def test_pdf_with_an_owner_password_only_is_read(tmp_path):
    p = write(tmp_path, "open.pdf", encrypted_pdf(""))
    assert load_inputs([p]).graph.chunks[0].text == "Secret text of Lothair."


def test_pdf_pages_without_text_are_named_in_a_warning(tmp_path):
    p = write(tmp_path, "mixed.pdf", pdf_bytes(["Page one has text.", None, "Page three too."]))
    passages, warnings = document_passages(p)
    assert passages[0][2] == "Page one has text.\n\nPage three too."
    assert warnings == ["mixed.pdf: 1 of 3 pages have no text layer (scanned?) and were left out (pages 2); run OCR "
                        "on the PDF to include them."]


def test_html_keeps_the_visible_text_only(tmp_path):
    html = ("<!doctype html><html><head><title>Lothair II - Wikipedia</title><style>p {color: red}</style>"
            "<script>var hidden = 'script text';</script></head><body><nav><a href='/'>Home</a> | Menu</nav>"
            "<h1>Lothair <i>II</i></h1><p>Lothair II was king of <b>Lotharingia</b> &amp; more.</p>"
            "<div hidden><p>Not shown</p></div><ul><li>Born 835</li><li>Died 869</li></ul>"
            "<table><tr><th>Mother</th><td>Ermengarde</td></tr></table></body></html>")
    g = load_inputs([write(tmp_path, "page.html", html)]).graph
    (c,) = g.chunks
    assert c.title == "Lothair II"
    assert c.text == ("Lothair II\n\nLothair II was king of Lotharingia & more.\n\nBorn 835\n\nDied 869\n\n"
                      "Mother | Ermengarde")
    for hidden in ("script text", "color", "Home", "Menu", "Not shown", "Wikipedia"):
        assert hidden not in c.text


def test_html_title_falls_back_to_title_then_file_name_and_decodes_its_charset(tmp_path):
    latin = '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>Caf\xe9 au lait.</p>'
    g = load_inputs([write(tmp_path, "cafe.htm", latin.encode("latin-1"))]).graph
    assert (g.chunks[0].title, g.chunks[0].text) == ("Café", "Café au lait.")
    g = load_inputs([write(tmp_path, "no_title.html", "<p>Just text.</p>")]).graph
    assert g.chunks[0].title == "No Title"


def test_docx_paragraphs_headings_and_tables(tmp_path):
    p = docx_file(tmp_path / "lothair.docx")
    assert detect_format(p) == "docx"
    (c,) = load_inputs([p]).graph.chunks
    assert c.title == "Lothair II"
    assert c.text == ("Lothair II was king of Lotharingia.\n\nFamily\n\nHis mother was Ermengarde of Tours.\n\n"
                      "Name | Role\nErmengarde | mother")


def test_markdown_markup_is_stripped_and_the_first_heading_is_the_title(tmp_path):
    md = ("# Lothair *II*\n\nHe was **king** of [Lotharingia](https://example.org).\n\n## Family\n\n"
          "- mother: `Ermengarde`\n- father: Lothair I\n\n| who | role |\n|---|---|\n| Ermengarde | mother |\n")
    (c,) = load_inputs([write(tmp_path, "lothair.md", md)]).graph.chunks
    assert c.title == "Lothair II"
    assert c.text == ("He was king of Lotharingia.\n\nFamily\n\nmother: Ermengarde\n\nfather: Lothair I\n\n"
                      "who | role\n\nErmengarde | mother")


def test_long_documents_are_chunked_like_text(tmp_path):
    body = "\n\n".join(f"Paragraph {i} about the king of Lotharingia. " * 8 for i in range(6))
    html = write(tmp_path, "long.html", "<h1>Lothair II</h1>" + "".join(f"<p>{p}</p>" for p in body.split("\n\n")))
    md = write(tmp_path, "long.md", "# Lothair II\n\n" + body)
    for p in (html, md):
        chunks = load_inputs([p]).graph.chunks
        assert len(chunks) > 1 and all(len(c.text) <= 1200 for c in chunks) and chunks[0].id == "long#0"
        assert all(c.title == "Lothair II" for c in chunks)


# ------------------------------------------------------------------------------------------- bad documents
def _zip_claiming(size: int) -> bytes:
    """A small zip whose central directory says its document.xml unpacks to ``size`` bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/document.xml", "<w:document/>")
    data = bytearray(buf.getvalue())
    cd = data.index(b"PK\x01\x02")
    data[cd + 24:cd + 28] = struct.pack("<I", size)
    return bytes(data)


def _repetitive_docx() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/document.xml", b" " * (20 * 2**20))
    return buf.getvalue()


BAD = [
    ("scan.pdf", pdf_bytes([None, None]), "scan.pdf: none of its 2 page(s) has a text layer: it looks scanned. "
     "Expected a PDF with text: run OCR first (e.g. ocrmypdf in.pdf out.pdf) and upload the result."),
    ("locked.pdf", encrypted_pdf("secret"), "locked.pdf: it is encrypted (password-protected). Expected an "
     "unencrypted PDF: decrypt it first"),
    ("broken.pdf", b"%PDF-1.4\nthis is not a PDF body", "broken.pdf: it is not a readable PDF ("),
    ("notzip.docx", b"plain text, not a zip", "notzip.docx: it is not a .docx (not a zip archive"),
    ("bomb.docx", _zip_claiming(0xFFFFFFF0), "bomb.docx: it unpacks to 4,096.0 MB, over the input size limit of "
     "2,048.0 MB"),
    ("ratio.docx", _repetitive_docx(), "ratio.docx: it unpacks to 20.0 MB from"),
    ("empty.docx", _zip_claiming(13), "empty.docx: it is not a readable Word document ("),
    ("blank.html", "<html><head><title>Only a title</title><script>x()</script></head></html>",
     "blank.html: the document is empty. Expected some text."),
    ("latin.html", "<p>caf\xe9</p>".encode("latin-1"), "latin.html: byte 6 is not valid utf-8. Expected an HTML "
     "page saved as UTF-8, or one whose <meta charset> names its encoding."),
    ("heading.md", "# Only a heading\n", "heading.md: the document is empty. Expected some text."),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_documents_are_refused_naming_the_file_and_the_fix(tmp_path, name, content, message):
    with pytest.raises(InputFormatError, match="^" + re.escape(message)):
        load_inputs([write(tmp_path, name, content)])


def test_page_limit(tmp_path):
    p = write(tmp_path, "book.pdf", pdf_bytes(["a", "b", "c"]))
    with pytest.raises(InputFormatError, match=re.escape("book.pdf: it has 3 pages, over the limit of 2. Expected a "
                                                         "shorter PDF (split it), or a higher limit: EGX_MAX_PDF_PAGES")):
        load_inputs([p], limits=InputLimits(max_pages=2))


# ------------------------------------------------------------------------------------------ per-file status
def test_one_bad_file_among_good_ones_is_left_out_and_each_file_says_what_became_of_it(tmp_path):
    good_md = write(tmp_path, "lothair.md", "# Lothair II\n\nKing of Lotharingia.")
    scan = write(tmp_path, "scan.pdf", pdf_bytes([None]))
    good_pdf = write(tmp_path, "mother.pdf", pdf_bytes(["Ermengarde of Tours was his mother."]))
    word = docx_file(tmp_path / "family.docx")
    twin = write(tmp_path, "lothair.html", "<p>Another text under the same name.</p>")
    (tmp_path / "b").mkdir()
    triplet = write(tmp_path / "b", "lothair.html", "<p>A third text under the same name.</p>")
    loaded = load_inputs([good_md, scan, good_pdf, word, twin, triplet])
    # a file whose stem another file took is read under its whole name; only a second clash leaves one out
    assert [c.id for c in loaded.graph.chunks] == ["lothair", "mother", "family", "lothair.html"]
    got = [(f.file, f.format, f.passages, f.error.split(":", 2)[1].strip() if f.error else "") for f in loaded.files]
    assert got == [("lothair.md", "markdown", 1, ""), ("scan.pdf", "pdf", None, "none of its 1 page(s) has a text layer"),
                   ("mother.pdf", "pdf", 1, ""), ("family.docx", "docx", 1, ""), ("lothair.html", "html", 1, ""),
                   ("lothair.html", "html", None, "passage id 'lothair' is already taken by another file's passage "
                                                  "(ids come from file names")]
    assert any("this file's passages are named 'lothair.html'" in w for w in loaded.warnings), loaded.warnings
    assert any(w.startswith("2 of 6 files could not be read and were left out: scan.pdf: none of its")
               for w in loaded.warnings), loaded.warnings


def test_same_stem_documents_are_all_read_and_read_again_without_copies(tmp_path):
    """A long report.txt, then a long report.pdf: the text's passages are report#0, #1, …, the PDF's
    report.pdf#0, #1, …; reading both again (as "Add documents" may) adds nothing."""
    txt = write(tmp_path, "report.txt", " ".join(f"Line {i}: Ermengarde of Tours died on 20 March 851."
                                                 for i in range(100)))
    long = " ".join(f"Sentence {i} about Lothair II and his family." for i in range(200))
    pdf = write(tmp_path, "report.pdf", pdf_bytes([long]))
    loaded = load_inputs([txt, pdf])
    ids = [c.id for c in loaded.graph.chunks]
    n = sum(i.startswith("report#") for i in ids)
    assert n > 1 and ids[:n] == [f"report#{k}" for k in range(n)]
    assert len(ids) > n + 1 and ids[n:] == [f"report.pdf#{k}" for k in range(len(ids) - n)]
    again = load_inputs([txt, pdf, txt, pdf])
    assert [c.id for c in again.graph.chunks] == ids


def test_when_no_file_can_be_read_every_reason_is_given(tmp_path):
    scan = write(tmp_path, "scan.pdf", pdf_bytes([None]))
    empty = write(tmp_path, "empty.txt", "  \n")
    with pytest.raises(InputFormatError, match=r"^2 files: none of them could be read \(scan\.pdf: none of its 1 "
                                               r"page\(s\) has a text layer.*; empty\.txt: the document is empty"):
        load_inputs([scan, empty])


def test_a_bad_triples_file_still_fails_the_whole_load(tmp_path):
    # a triples file is read as it streams, so what it added cannot be taken back: the load stops
    good = write(tmp_path, "lothair.md", "# Lothair II\n\nKing of Lotharingia.")
    bad = write(tmp_path, "t.csv", "head,relation,tail\na,r\n")
    with pytest.raises(InputFormatError, match=r"^t\.csv, line 2"):
        load_inputs([good, bad])


# ------------------------------------------------------------------------------ what a reader never sees
def test_hidden_markdown_script_text_is_left_out(tmp_path):
    """Before: the text between an inline <script> and </script> (and inside a hidden block) was kept."""
    md = ("# Notes\n\nBefore <script>steal('inline secret')</script> after.\n\n<script>\nvar x = 'block secret';\n"
          "</script>\n\nShown <span hidden>span secret</span> too.\n\n<div hidden>\n\nparagraph secret\n\n</div>\n\n"
          "<style>p { color: red }</style>\n\nEnd.")
    (c,) = load_inputs([write(tmp_path, "notes.md", md)]).graph.chunks
    assert c.text == "Before after.\n\nShown too.\n\nEnd."
    for secret in ("secret", "steal", "color"):
        assert secret not in c.text


def test_bidi_override_characters_are_dropped_from_every_document(tmp_path):
    """U+202E shows "invoice_\u202efdp.exe" as "invoice_exe.pdf": a passage keeps the text in reading order."""
    rlo = "Pay invoice_\u202efdp.exe now \u2066isolated\u2069 \u202aembedded\u202c."
    want = "Pay invoice_fdp.exe now isolated embedded."
    for name, content in (("t.txt", rlo), ("m.md", f"# Title\u202e\n\n{rlo}"),
                          ("h.html", f"<h1>Title\u202e</h1><p>{rlo}</p>")):
        (c,) = load_inputs([write(tmp_path, name, content)]).graph.chunks
        assert c.text.endswith(want) and not any(ch in c.text + c.title for ch in "\u202a\u202c\u202e\u2066\u2069")


def test_50000_nested_blockquotes_say_what_they_are(tmp_path):
    """Before: "the document is empty"."""
    p = write(tmp_path, "deep.md", ">" * 50_000 + " text")
    with pytest.raises(InputFormatError, match=re.escape(
            "deep.md: its Markdown nests blockquotes ('>') or lists more than 19 levels deep, and a Markdown reader "
            "stops there, so none of its text can be read. Expected Markdown nested at most a few levels deep (or "
            "save it as plain .txt).")):
        document_passages(p)
    passages, warnings = document_passages(write(tmp_path, "some.md", "Top text.\n\n" + "> " * 30 + "deep"))
    assert [t for _, _, t in passages] == ["Top text."]
    assert warnings == ["some.md: its Markdown nests blockquotes ('>') or lists more than 19 levels deep, and a "
                        "Markdown reader stops there; the text nested deeper was left out."]


@pytest.mark.parametrize("piece", ["a<", "<a b='", "<a/", "<!--", "<div hidden><span>", "<td>x"])
def test_a_one_line_html_of_a_pathological_pattern_is_read(tmp_path, piece):
    """Before: the standard library's parser rescanned the rest of the page at each `<` opening no complete tag,
    so a 10 MB one-line page took over 10 minutes (40 KB of `<a/` took 52 s), and a row of many cells rescanned
    the row at each cell. Now linear: 2 MB of each pattern is read here (the time is measured in
    benchmarks/hostile_files.py, not asserted; before, each of these ran past the test timeout)."""
    p = write(tmp_path, "one_line.html", "<p>Start.</p>" + piece * (2_000_000 // len(piece)))  # no `>` after it
    passages, _ = document_passages(p)
    assert passages[0][2].startswith("Start.")


def test_a_text_file_s_heading_line_is_its_title_as_in_a_pdf(tmp_path):
    """A plain-text note starting with a heading line is titled by it (not by its file name, which the KG would
    turn into a hub node linked to every name in the note); a first line that is a sentence stays in the text."""
    vance = write(tmp_path, "vance.txt", "Aurelia Vance\nAurelia Vance was born in Tromsø.")
    notes = write(tmp_path, "notes.txt", "Vance was born in\nthe north of Norway.")
    chunks = {c.id: c for c in load_inputs([vance, notes]).graph.chunks}
    assert (chunks["vance"].title, chunks["vance"].text) == ("Aurelia Vance", "Aurelia Vance was born in Tromsø.")
    assert chunks["notes"].title == "Notes" and chunks["notes"].text.startswith("Vance was born in")


# ------------------------------------------------------------------------------------ wrapped lines, repeats
def test_pdf_lines_are_joined_as_a_reader_reads_them(tmp_path):
    """A PDF's text layer breaks every printed line: inside a paragraph a break is a space, a word hyphenated
    at the line's end is joined whole, and the break between pages stays a paragraph break."""
    p = write(tmp_path, "therapy.pdf", pdf_bytes(["Person-centred coun-\nselling is a form of\npsychotherapy.",
                                                  "Carl Rogers - American\npsychologist - developed it."]))
    (chunk,) = load_inputs([p]).graph.chunks
    assert chunk.text == ("Person-centred counselling is a form of psychotherapy.\n\n"
                          "Carl Rogers - American psychologist - developed it.")


CORPUS = [
    {"title": "Journal of Mathematical Physics", "text": "The Journal of Mathematical Physics is a peer-reviewed "
     "journal published monthly by the American Institute of Physics."},
    {"title": "Person-centered therapy", "text": "Person - centered therapy, also known as person - centered "
     "counseling, is a form of psychotherapy developed by psychologist Carl Rogers."},
    {"title": "Riemann integral", "text": "In the branch of mathematics known as real analysis, the Riemann "
     "integral was the first rigorous definition of the integral of a function on an interval."},
]


def wrapped(text: str, width: int) -> str:
    """Text broken every ``width`` characters, mid-word, as the audit's hand-made PDF was."""
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def test_a_pdf_of_a_corpus_s_passages_adds_no_copies_and_says_so(tmp_path):
    """The audit's case: a corpus, and a PDF printing three of its passages (each under its title, wrapped
    mid-word): the copies took retrieval slots and held the gold text under an id no question names. The PDF
    is read after the corpus whatever the order given, and says what it left out."""

    corpus = write(tmp_path, "my_corpus.json", json.dumps(CORPUS))
    pdf = write(tmp_path, "three_passages.pdf", pdf_bytes(
        ["\n".join(f"{r['title']}\n{wrapped(r['text'], 37)}" for r in CORPUS)]))
    loaded = load_inputs([pdf, corpus])
    assert [c.id for c in loaded.graph.chunks] == ["my_corpus:0", "my_corpus:1", "my_corpus:2"]
    pdf_status = loaded.files[0]
    assert (pdf_status.file, pdf_status.passages, pdf_status.duplicates) == ("three_passages.pdf", 0, 3)
    assert pdf_status.to_dict()["duplicate_of"] == [r["title"] for r in CORPUS]
    assert ("3 passages of three_passages.pdf repeat passages already read (e.g. “Journal of Mathematical "
            "Physics”, “Person-centered therapy”, “Riemann integral”) and were left out.") in loaded.warnings
    assert "duplicates" not in loaded.files[1].to_dict()  # a file without repeats reads as it always did


def test_a_document_keeps_what_is_new_around_a_repeated_passage(tmp_path):
    """Case, whitespace and the spelling of quotes do not make a passage new; the new paragraphs stay, in
    order, and the file's passages are titled by what is left (not by the repeat's title)."""

    corpus = write(tmp_path, "c.json", json.dumps([{"title": "Rogers", "text": "Carl Rogers said ``the good life "
                                                   "is a process, not a state of being'' in 1961."}]))
    notes = write(tmp_path, "notes.txt", "Rogers\nCARL ROGERS SAID “THE GOOD LIFE IS A PROCESS,\nNOT A STATE "
                                         "OF BEING” IN 1961.\n\nLake Tana\nLake Tana is the source of the Blue Nile.")
    loaded = load_inputs([corpus, notes])
    assert [(c.title, c.text) for c in loaded.graph.chunks][1:] == [("Lake Tana",
                                                                    "Lake Tana is the source of the Blue Nile.")]
    assert loaded.files[1].duplicates == 1 and loaded.files[1].passages == 1


def test_a_json_corpus_keeps_its_repeated_records_in_a_build(tmp_path):
    """A dataset's corpus is read as published (HippoRAG's 2Wiki corpus holds a paragraph under two titles; the
    questions' gold names both): a build drops no record of a JSON corpus, so the samples' graphs stay."""

    same = CORPUS[0]["text"]
    corpus = write(tmp_path, "c.json", json.dumps([{"title": "A", "text": same}, {"title": "B", "text": same}]))
    loaded = load_inputs([corpus])
    assert [c.title for c in loaded.graph.chunks] == ["A", "B"] and loaded.files[0].duplicates == 0


def test_a_pdfs_paragraphs_are_passages_under_one_per_paragraph(tmp_path):
    """A PDF's text layer has no paragraph marks: the gap between two printed paragraphs is one. A PDF of four
    paragraphs was one passage under "one per paragraph" while the same text as a .txt was four (audit 55)."""
    paras = ["Brisk designed the rack section.\nHe modelled it on a Swiss line.", "The rack was made by the Corrick\n"
             "Ironworks in Halverton.", "He retired to Tollmere in 1910."]
    p = write(tmp_path, "brisk.pdf", pdf_bytes(["Ansel Brisk\n\n" + "\n\n".join(paras)]))
    chunks = load_inputs([p], passages=PassageSplit(per_paragraph=True)).graph.chunks
    assert [c.text for c in chunks] == ["Brisk designed the rack section. He modelled it on a Swiss line.",
                                        "The rack was made by the Corrick Ironworks in Halverton.",
                                        "He retired to Tollmere in 1910."]
    assert {c.title for c in chunks} == {"Ansel Brisk"}
    # evenly spaced lines (no gap anywhere) stay one paragraph, as before
    q = write(tmp_path, "even.pdf", pdf_bytes(["Ansel Brisk\n" + "\n".join(paras)]))
    (one,) = load_inputs([q], passages=PassageSplit(per_paragraph=True)).graph.chunks
    assert one.text.startswith("Brisk designed the rack section. He modelled it") and one.text.endswith("in 1910.")
