"""What the Data page says about the questions file where it is uploaded: the uploader's help and a folded
"Questions file format" with a minimal example. Every sentence follows what the readers do:
:mod:`core.index.questions` (the gold formats and how a gold title meets a passage),
:mod:`core.graph.formats.documents` (a document's title) and ``core.index.create._copy_questions`` (the upload
is kept as one JSON document, so JSONL and BEIR qrels are read by the command line only)."""

from __future__ import annotations

import streamlit as st

#: the example shown in the expander: one question whose gold passage is the document ``Ostra_River.txt``
#: (a test matches it against that document's passage)
EXAMPLE = """[
  {
    "id": "q1",
    "question": "Who designed the bridge over the Ostra River?",
    "answer": "Sofia Marrow",
    "supporting_facts": [["Ostra River", 0]]
  }
]"""

#: the uploader's help (a tooltip: short, the expander below has the rest)
UPLOADER_HELP = (
    "A JSON list (`.json`, or `.json.gz`; or JSONL, one question a line) of questions, each with a `question` and its gold evidence in one of "
    "three forms: `supporting_facts` `[[title, sentence index], …]` (HotpotQA, 2Wiki), MuSiQue `paragraphs` "
    "`[{title, paragraph_text, is_supporting}, …]`, or `ground_truth` `[title, …]`. `answer` and `id` are "
    "optional. A gold title must equal a passage's title (punctuation counts; case only where two titles differ by it "
    "alone). Example and details: "
    "“Questions file format” below.")

FORMAT_TEXT = """\
Each record needs a `question` (a string) and gold evidence in **one** of these forms; a record with none of
them is refused when the file is dropped.

| key | gold passages |
|---|---|
| `supporting_facts`: `[["title", 0], …]` | the passage titled `title`; in a document split into several passages, the one holding sentence `0` (sentences counted from 0 across the document) |
| `ground_truth`: `["title", …]` | the document titled `title`: one gold document, found when any one of its passages is retrieved |
| `paragraphs`: `[{"title": …, "paragraph_text": …, "is_supporting": true}, …]` | each supporting paragraph, matched by its title **and** its text (`text` works too) to a passage with both the same, else to the passages it was split into or the passage it was packed in |

Optional: `answer`, `answer_aliases` (or `aliases`), and `id` (or `_id`; else the record's number). A string
`answer` is **one** answer, and `answer_aliases` its other forms (`"answer": "New York City", "answer_aliases":
["NYC"]`): the papers' answer-set metrics count the two as one gold answer. A list `answer` is an **answer set**
(`"answer": ["Oslo", "Bergen"]`, every item a separate gold answer, as ERQA and KGQA list them): Recall, F1 and
Micro-F1 ask for every item. EM and F1 take the best of every accepted string either way.

**How a gold title finds its passage.** It must equal the passage's title — punctuation counts; only runs of
spaces and line breaks are treated as one space, and case is ignored unless a title is written exactly so (then
that one is matched). A passage's title is:

- JSON / JSONL passages: their `"title"`;
- Markdown: the first heading; HTML: the first `<h1>`, else the `<title>`; Word: the first Title- or
  Heading-styled paragraph;
- PDF and plain text: the first line when it reads as a heading (at most 12 words and 100 characters, a
  letter in it, no `.` `,` `;` `:` `!` `?` or dash at its end, and a next line that does not go on in lower
  case); a text file's `# Heading` first line too;
- otherwise the file name without its extension, with `_` turned into spaces: `Ostra_River.txt` is titled
  “Ostra River”; a name all in lower case is capitalised as a heading is (`ostra_river_ii.txt`: “Ostra River II”).

A long document is split into several passages (or one per paragraph, if the build asks), and each has the
document's title: a `supporting_facts` sentence index picks the passage holding that sentence — write the
evidence sentence's index, not 0 for "this document" — and a `ground_truth` title makes them one gold document:
found when any one of its passages is retrieved (R@k, nDCG and the verdicts count it once; a run's `results.jsonl`
lists each such document's passages under `gold_documents`).
A MuSiQue paragraph matches the passage(s) of its title that hold exactly its text. Gold titles that match no passage are counted in the
build's message and count as gold passages never retrieved; a question none of whose gold is here is left
out of a benchmark.

JSONL (one question a line) is read too, and kept as one JSON list. The command line also reads BEIR qrels (a
`.tsv` with `queries.jsonl` beside it), e.g. `egx bench --workspace NAME --questions qrels.tsv`; this uploader
keeps one JSON or JSONL file.
"""


def create_questions_format_ui() -> None:
    """The folded format note under the questions uploader, with the minimal example."""
    with st.expander("Questions file format", icon=":material/help:"):
        st.markdown("A minimal questions file, for a workspace built from a document `Ostra_River.txt`:")
        st.code(EXAMPLE, language="json")
        st.markdown(FORMAT_TEXT)
