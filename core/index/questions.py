"""Questions with gold evidence, matched to the passages (chunks) of a workspace.

Two HippoRAG-style formats are read:

* **MuSiQue** style — ``paragraphs: [{title, paragraph_text, is_supporting}]``: a gold passage is
  a supporting paragraph, matched to a chunk by (title, text) after the same whitespace cleaning
  the loaders apply, else to the chunks it was split into or the chunk it was packed in (:func:`paragraph_chunks`);
* **HotpotQA / 2Wiki** style — ``supporting_facts: [[title, sentence_index], ...]``: the chunk with that
  title that holds the sentence (:func:`fact_chunks`; the only chunk of a title that is one chunk, as before);
* **2Wiki ground-truth** style — ``ground_truth: [title, ...]`` (or ``[[title, ...], ...]``), a
  plain list of gold titles, often without answers;
* **BEIR** style — a qrels TSV (``query-id  corpus-id  score``, header optional, score > 0 is
  relevant) plus a queries JSONL (``{"_id", "text"}``), see :func:`load_beir`; a corpus id is
  matched to a chunk id, else to a chunk title.

Answers are optional everywhere. ``answer`` may be a string, one answer, whose other accepted forms are
``answer_aliases`` (MuSiQue) or ``aliases``; or a list, an **answer set** (ERQA, KGQA), every item a separate
gold answer of the question. The difference counts for the papers' answer-set metrics (SG-RAG §5, ReG §5.1):
an alias is matched with its answer as one gold answer, an item of a set on its own
(:attr:`Question.answer_groups`); EM / F1 take the best of every accepted string either way.

Gold evidence that matches no chunk is kept in :attr:`Question.unmatched` (and never silently
counted as retrieved or missed).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputFormatError
from core.text import clean_text, split_sentences

if TYPE_CHECKING:
    from core.graph.model import Chunk, KnowledgeGraph
    from core.index.workspace import Workspace


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    gold_chunks: tuple[str, ...]  #: chunk ids of the gold passages, in file order
    unmatched: tuple[str, ...] = ()  #: gold titles that match no chunk of the workspace
    aliases: tuple[str, ...] = ()  #: other accepted answers (EM / F1 take the best)
    #: gold titles named without a place in them (``ground_truth``, a sentence index past the document's end):
    #: every chunk of such a title is gold
    whole_titles: tuple[str, ...] = ()
    #: supporting facts on a title of several chunks, placed by their sentence: (title, sentence index, the chunk's
    #: place among the title's from 1, how many the title has); the build says where each landed
    split_facts: tuple[tuple[str, int, int, int], ...] = ()
    #: the chunk ids of each of :attr:`whole_titles` that is several chunks: one gold document, found when one of
    #: them is (:meth:`core.methods.base.Gold.narrowed`)
    gold_groups: tuple[tuple[str, ...], ...] = ()
    #: the gold answers as the answer-set metrics count them: one group per answer, its aliases with it
    #: (empty: every string of :attr:`answer` and :attr:`aliases` is an answer of its own, as before)
    answer_groups: tuple[tuple[str, ...], ...] = ()
    #: gold titles named without a place in them whose gold is the passages holding the gold answer (:func:`_title_gold`)
    answer_titles: tuple[str, ...] = ()


#: what a question record holds, in an error's "Expected …": the question and one of the three gold forms
GOLD_FORMS = ('{"question": ..., "answer": ...} with its gold evidence as "supporting_facts": [[title, sentence index], '
              '...], "paragraphs": [{"title", "paragraph_text", "is_supporting"}, ...] or "ground_truth": [title, ...]')


def _answer(rec: dict[str, Any]) -> str:
    a = rec.get("answer", "")
    if isinstance(a, list):
        return str(a[0]) if a else ""
    return "" if a is None else str(a)


def _aliases(rec: dict[str, Any]) -> tuple[str, ...]:
    a = rec.get("answer", "")
    out = [str(x) for x in a[1:]] if isinstance(a, list) else []
    extra = rec.get("answer_aliases") or rec.get("aliases") or []
    if isinstance(extra, list):
        out += [str(x) for x in extra]
    return tuple(dict.fromkeys(x for x in out if x and x != _answer(rec)))


def _answer_groups(rec: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """One group per gold answer: a string ``answer`` with its aliases, or each item of an ``answer`` list (the
    aliases, if any, with its first item)."""
    a = rec.get("answer", "")
    items = [str(x) for x in a if x not in (None, "")] if isinstance(a, list) else ([str(a)] if a else [])
    if not items:
        return ()
    extra = rec.get("answer_aliases") or rec.get("aliases") or []
    first = tuple(dict.fromkeys([items[0], *(str(x) for x in extra if x)])) if isinstance(extra, list) else (items[0],)
    return (first, *((x,) for x in dict.fromkeys(items[1:]) if x not in first))


def parse_questions(data: Any, graph: KnowledgeGraph | ChunkTable, *, source: str = "questions.json") -> list[Question]:
    """Match the questions in ``data`` (a parsed JSON list) to ``graph``'s chunks.

    Raises
    ------
    InputFormatError
        If ``data`` is not a list of question objects with a ``question`` and either
        ``paragraphs`` or ``supporting_facts``.
    """
    if not isinstance(data, list):
        raise InputFormatError(source, "the top level is not a list", "a JSON list of question objects")
    by_content = {(c.title, c.text): c.id for c in graph.chunks}
    by_title: dict[str, list[Chunk]] = {}
    for c in graph.chunks:
        by_title.setdefault(c.title, []).append(c)
    for t in list(by_title):  # a gold title matches whatever its case where no title is written as it is
        by_title.setdefault(t.casefold(), by_title[t])  # ("tobin ashgrove" for a document titled from its file name)
    out = []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict) or not isinstance(rec.get("question"), str):
            raise InputFormatError(source, 'a record has no "question" string', GOLD_FORMS, record=i)
        gold: list[str] = []
        unmatched: list[str] = []
        whole: list[str] = []
        placed: list[tuple[str, int, int, int]] = []
        groups: list[tuple[str, ...]] = []
        answered: list[str] = []
        if isinstance(rec.get("paragraphs"), list):
            for p in rec["paragraphs"]:
                if not isinstance(p, dict) or not p.get("is_supporting"):
                    continue
                key = (clean_text(p.get("title", "")), str(p.get("paragraph_text", p.get("text", ""))).strip())
                cid = by_content.get(key)
                run = [cid] if cid else paragraph_chunks(by_title.get(key[0]) or by_title.get(key[0].casefold(), []), key[1])
                (gold.extend(run) if run else unmatched.append(key[0]))
        elif isinstance(rec.get("supporting_facts"), list):
            for fact in rec["supporting_facts"]:
                title = clean_text(fact[0] if isinstance(fact, (list, tuple)) and fact else str(fact))
                chunks = by_title.get(title) or by_title.get(title.casefold())
                if chunks:
                    sentence = fact[1] if isinstance(fact, (list, tuple)) and len(fact) > 1 else None
                    ids, all_of_it = fact_chunks(chunks, sentence)
                    if all_of_it:
                        ids, narrowed = _title_gold(chunks, rec)
                        (answered if narrowed else whole).append(title)
                        groups.append(tuple(ids))
                    elif len(chunks) > 1:
                        placed.append((title, int(sentence or 0), [c.id for c in chunks].index(ids[0]) + 1, len(chunks)))
                    gold.extend(ids)
                else:
                    unmatched.append(title)
        elif isinstance(rec.get("ground_truth"), list):
            for t in rec["ground_truth"]:
                if isinstance(t, (list, tuple)):
                    t = t[0] if t else ""
                if not isinstance(t, str) or not t.strip():
                    raise InputFormatError(source, f'a "ground_truth" entry is not a title ({t!r})',
                                           '"ground_truth": a list of passage titles', record=i)
                title = clean_text(t)
                chunks = by_title.get(title) or by_title.get(title.casefold())
                if chunks:
                    ids, narrowed = _title_gold(chunks, rec)
                    gold.extend(ids)
                    (answered if narrowed else whole).append(title)
                    groups.append(tuple(ids))
                else:
                    unmatched.append(title)
        else:
            raise InputFormatError(source, 'a record has neither "paragraphs", "supporting_facts"'
                                   ' nor "ground_truth"', GOLD_FORMS, record=i)
        raw_id = rec.get("id", rec.get("_id", i))
        if not isinstance(raw_id, (str, int)) or isinstance(raw_id, bool):
            raise InputFormatError(source, f'the question "id" is a {type(raw_id).__name__} ({raw_id!r:.40})',
                                   'an "id" string or number', record=i)
        qid = str(raw_id)
        out.append(Question(qid, rec["question"], _answer(rec), tuple(dict.fromkeys(gold)),
                            tuple(dict.fromkeys(unmatched)), _aliases(rec), tuple(dict.fromkeys(whole)),
                            tuple(dict.fromkeys(placed)), tuple(dict.fromkeys(g for g in groups if len(g) > 1)),
                            _answer_groups(rec), tuple(dict.fromkeys(answered))))
    return out


def _title_gold(chunks: list[Chunk], rec: dict[str, Any]) -> tuple[list[str], bool]:
    """The gold passages of a title named without a place in it (chunk ids), and whether they were narrowed to those
    holding the record's gold answer (:func:`core.index.answer_passages.answer_holders`); else all of the title's."""
    from core.index.answer_passages import answer_holders

    held = answer_holders(chunks, [_answer(rec), *_aliases(rec)])
    return (held, True) if held else ([c.id for c in chunks], False)


def fact_chunks(chunks: list[Chunk], sentence: Any) -> tuple[list[str], bool]:
    """The chunk ids a supporting fact ``[title, sentence]`` names among its title's ``chunks`` (in document order),
    and whether that is all of them for want of a place.

    HotpotQA's and 2Wiki's second item is the index of a sentence in the titled paragraph. A title that is one
    chunk gives that chunk whatever the index. A document split into several passages (long, or one passage per
    paragraph) gives the chunk holding sentence ``sentence``, counted with the splitter the chunker cuts at
    (:func:`core.text.split_sentences`), so a fact names the paragraph it is in, not the whole document. An index
    that is no whole number or lies past the document's sentences gives every chunk (``True``: said at build).

    >>> from core.graph.model import Chunk
    >>> doc = [Chunk("d#0", "D", "Ada was born in Lisk. She built bridges."), Chunk("d#1", "D", "The viaduct fell.")]
    >>> fact_chunks(doc, 2), fact_chunks(doc, 1), fact_chunks(doc, 9)
    ((['d#1'], False), (['d#0'], False), (['d#0', 'd#1'], True))
    """
    ids = [c.id for c in chunks]
    if len(chunks) == 1:
        return ids, False
    if isinstance(sentence, bool) or not isinstance(sentence, int) or sentence < 0:
        return ids, True
    seen = 0
    for c in chunks:
        seen += len(split_sentences(c.text))
        if sentence < seen:
            return [c.id], False
    return ids, True


def paragraph_chunks(chunks: list[Chunk], text: str) -> list[str]:
    """The passages of a title's ``chunks`` that hold the paragraph ``text`` when none is exactly it: the run whose
    texts joined give it (a paragraph longer than a passage, split when read: every piece is gold), else the one
    passage it lies in (short paragraphs of a document packed together); [] when none does. Whitespace is compared
    as the chunker keeps it: any run of it counts as one space."""
    want = " ".join(text.split())
    if not want:
        return []
    for c in chunks:
        if want in " ".join(c.text.split()):
            return [c.id]
    for i in range(len(chunks)):
        got = ""
        for j in range(i, len(chunks)):
            got = f"{got} {' '.join(chunks[j].text.split())}".strip()
            if got == want:
                return [c.id for c in chunks[i:j + 1]]
            if len(got) >= len(want) or not want.startswith(got):
                break
    return []


def load_beir(qrels: str | Path, queries: str | Path, graph: KnowledgeGraph | ChunkTable) -> list[Question]:
    """BEIR-style questions: a qrels TSV and a queries JSONL, matched to ``graph``'s chunks.

    A qrels row is ``query-id <TAB> corpus-id <TAB> score`` (a header row starting ``query-id`` is
    skipped; rows with score <= 0 are not relevant). A queries line is ``{"_id": ..., "text": ...}``
    (``answer``/``answers`` optional). Only queries with at least one qrels row are returned, in the
    order of the queries file. ``corpus-id`` is matched to a chunk id, else to a chunk title.

    Raises
    ------
    InputFormatError
        On a malformed qrels row or queries line (file, line, what was expected).
    """
    from core.graph.formats.jsonio import parse_json
    from core.graph.formats.textio import read_text

    qp, rp = Path(qrels), Path(queries)
    rel: dict[str, list[str]] = {}
    for ln, line in enumerate(read_text(qp).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        if ln == 1 and parts[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if len(parts) < 2:
            raise InputFormatError(qp.name, f"expected 3 tab-separated columns but found {len(parts)}",
                                   "query-id<TAB>corpus-id<TAB>score", line=ln)
        score = parts[2].strip() if len(parts) > 2 else "1"
        try:
            val = float(score)
        except ValueError:
            raise InputFormatError(qp.name, f"the score {score!r} is not a number",
                                   "query-id<TAB>corpus-id<TAB>score with a numeric score", line=ln) from None
        if val > 0:
            rel.setdefault(parts[0].strip(), []).append(parts[1].strip())
    known = graph.chunk_index
    by_title: dict[str, list[str]] = {}
    for c in graph.chunks:
        by_title.setdefault(c.title, []).append(c.id)
    out: list[Question] = []
    for ln, line in enumerate(read_text(rp).splitlines(), start=1):
        if not line.strip():
            continue
        rec = parse_json(line, rp.name, expected='one {"_id": ..., "text": ...} per line', line=ln)
        if not isinstance(rec, dict) or not isinstance(rec.get("text"), str) or "_id" not in rec:
            raise InputFormatError(rp.name, 'a line has no "_id" and "text"', 'one {"_id": ..., "text": ...} per line',
                                   line=ln)
        qid = str(rec["_id"])
        if qid not in rel:
            continue
        gold, unmatched = [], []
        for cid in rel[qid]:
            if cid in known:
                gold.append(cid)
            elif clean_text(cid) in by_title:
                gold.extend(by_title[clean_text(cid)])
            else:
                unmatched.append(cid)
        ans = rec.get("answers", rec.get("answer", ""))
        answers = [str(a) for a in ans] if isinstance(ans, list) else ([str(ans)] if ans else [])
        out.append(Question(qid, rec["text"], answers[0] if answers else "", tuple(dict.fromkeys(gold)),
                            tuple(dict.fromkeys(unmatched)), tuple(answers[1:]),
                            answer_groups=tuple((a,) for a in dict.fromkeys(answers))))
    return out


def load_questions(workspace: Workspace) -> list[Question]:
    """The workspace's questions with gold chunk ids (empty when it has no questions file).

    Raises
    ------
    InputFormatError
        If the questions file is not valid JSON or not in a supported format.
    """
    path = workspace.questions_path
    if path is None:
        return []
    return load_questions_file(path, chunk_table(workspace))


class ChunkTable:
    """What matching questions reads of a graph: its chunks (``chunks``, in row order) and
    ``chunk_index`` (id → row). For a workspace whose graph lives in a graph store (never read whole) it is
    read from the store's chunk rows, page by page, without reading a node or an edge."""

    def __init__(self, chunks: tuple[Chunk, ...]) -> None:
        self.chunks = chunks
        self.chunk_index = {c.id: i for i, c in enumerate(chunks)}


#: chunk rows per store read when a questions file is matched against a graph store's chunks
CHUNK_PAGE = 20_000


def chunk_table(workspace: Workspace) -> KnowledgeGraph | ChunkTable:
    """The chunks questions are matched against: the graph in memory, or a graph store's chunk rows."""
    from core.graph.model import Chunk
    from core.graph.stores.store import remote_store

    if not remote_store(workspace):
        return workspace.graph
    store = workspace.store
    n = store.n_chunks
    rows: list[Chunk] = []
    for lo in range(0, n, CHUNK_PAGE):
        rows += [Chunk(*c) for c in store.chunk_rows(list(range(lo, min(n, lo + CHUNK_PAGE))))]
    return ChunkTable(tuple(rows))


#: what a record that is no question looks like, told from its keys: (keys, what it is, for the messages)
_NOT_QUESTIONS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"title", "text", "paragraph_text", "contents"}), "a corpus"),
    (frozenset({"head", "relation", "tail", "subject", "predicate", "object"}), "triples"),
)


def _looks_like(data: Any) -> tuple[str, list[str]] | None:
    """What ``data`` (a parsed file) is when it is no list of questions, and the keys that tell (None: it may be
    one, :func:`parse_questions` says why not)."""
    if isinstance(data, dict):
        if data.get("format") == "egx-graph":
            return "an egx graph export", ["format"]
        if isinstance(data.get("docs"), list):
            return "a HippoRAG OpenIE file", ["docs"]
        if isinstance(data.get("triples"), list):
            return "triples", ["triples"]
        return None
    rec = data[0] if isinstance(data, list) and data else None
    if isinstance(rec, list):
        return "triples", []
    if not isinstance(rec, dict) or isinstance(rec.get("question"), str):
        return None
    keys = [str(k) for k in rec]
    for tell, what in _NOT_QUESTIONS:
        found = [k for k in keys if k.lower() in tell]
        if found:
            return what, found
    return None


def questions_json_bytes(path: str | Path, shown_name: str = "") -> bytes:
    """A questions file as the JSON a workspace keeps (its ``questions.json``): a JSON file's text as it is, a JSONL
    file's records as one JSON list (kept as lines, it would read back as invalid JSON). ``.gz`` allowed.

    Raises
    ------
    InputFormatError
        If the file is not JSON (or a line of a JSONL file is not), naming it (``shown_name``, else its name).
    """
    import json

    from core.graph.formats.jsonio import parse_json
    from core.graph.formats.textio import iter_lines, read_text

    p = Path(path)
    name = shown_name or p.name
    if p.name.lower().endswith((".jsonl", ".jsonl.gz")):
        records = [parse_json(line, name, expected="one question object per line", line=ln)
                   for ln, line in iter_lines(p) if line.strip()]
        return json.dumps(records, ensure_ascii=False).encode("utf-8")
    text = read_text(p)
    parse_json(text, name, expected="a JSON list of questions")
    return text.encode("utf-8")


#: What a questions file may be named: JSON, JSON lines, either gzipped, or a BEIR qrels ``.tsv``.
QUESTION_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz", ".gz", ".tsv", ".tsv.gz")


def questions_name_problem(name: str) -> str:
    """Why a file named ``name`` cannot be a questions file ("" when its name fits :data:`QUESTION_SUFFIXES`): a
    document dropped on a questions uploader got Streamlit's bare "text/plain files are not allowed" (audit 44)."""
    low = name.lower()
    if low.endswith(QUESTION_SUFFIXES):
        return ""
    kind = Path(low).suffix or "no suffix"
    return (f"{name} is not a questions file ({kind}): questions are JSON (.json), JSON lines (.jsonl) or either "
            "gzipped. A document goes with the corpus files (“Graph or corpus files”, or “Documents to add”), "
            "not here")


def check_questions_file(path: str | Path) -> None:
    """Refuse a file given as a workspace's questions file that is not one, before the build that keeps it starts
    (the reverse of :func:`core.graph.formats.load.refuse_questions_files`): a corpus, triples or a graph given
    as the questions, or questions whose records :func:`parse_questions` cannot read. Every record is checked
    (no passage is matched yet). A BEIR qrels ``.tsv`` is not checked here (its queries file is found later).

    Raises
    ------
    InputFormatError
        Naming the file, what it looks like and where it goes instead; or the first bad record.

    Examples
    --------
    A corpus given as the questions (``[{"title": "The Matrix", "text": "..."}]``) raises
    ``corpus.json: this looks like a corpus (its records have "title", "text" and no "question"), not a questions
    file. ...``.
    """
    from core.graph.formats.jsonio import parse_json
    from core.graph.formats.textio import iter_lines, read_text

    p = Path(path)
    low = p.name.lower()
    if questions_name_problem(p.name):
        raise InputFormatError(p.name, f"not a questions file ({p.suffix or 'no suffix'})",
                               "JSON (.json), JSON lines (.jsonl) or either gzipped; a document goes with the corpus "
                               "files, not with the questions")
    if low.endswith((".tsv", ".tsv.gz")):
        return
    if low.endswith((".jsonl", ".jsonl.gz")):
        data: Any = [parse_json(line, p.name, expected="one question object per line", line=ln)
                     for ln, line in iter_lines(p) if line.strip()]
    else:
        data = parse_json(read_text(p), p.name, expected="a JSON list of questions")
    looks = _looks_like(data)
    if looks is not None:
        what, keys = looks

        def told(q: str, end: str) -> str:  # "(its records have "title", "text" and no "question")"
            if not keys or what != "a corpus":
                return ""
            return f" (its records have {', '.join(q + k + end for k in keys)} and no {q}question{end})"

        err = InputFormatError(
            p.name, f"this looks like {what}{told(chr(34), chr(34))}, not a questions file",
            'a JSON list of questions with gold evidence ({"question": ..., "paragraphs" or "supporting_facts": '
            "...}); the corpus or graph is an input: egx index FILES --questions QUESTIONS")
        err.app_message = (f"{p.name} looks like {what}{told('“', '”')}, not a questions file: drop it on the “Graph "
                           "or corpus files” uploader, and on this one a questions file (records with a “question” "
                           "and its gold evidence), or nothing.")
        raise err
    parse_questions(data, ChunkTable(()), source=p.name)


def load_questions_file(path: str | Path, graph: KnowledgeGraph | ChunkTable, *, queries: str | Path | None = None) -> list[Question]:
    """Read a questions file and match it to ``graph``: JSON list or JSONL (``.gz`` allowed) in the
    HippoRAG formats, or a BEIR qrels ``.tsv`` together with ``queries`` (a queries JSONL; default:
    ``queries.jsonl`` next to the qrels file or one folder up, BEIR's layout)."""
    from core.graph.formats.jsonio import parse_json
    from core.graph.formats.textio import read_text

    p = Path(path)
    if p.suffix.lower() == ".tsv" or p.name.lower().endswith(".tsv.gz"):
        if queries is None:
            for cand in (p.parent / "queries.jsonl", p.parent.parent / "queries.jsonl"):
                if cand.exists():
                    queries = cand
                    break
        if queries is None:
            raise InputFormatError(p.name, "a qrels TSV needs its queries file and none was found next to it",
                                   "queries.jsonl beside the qrels (or pass queries=...)")
        return load_beir(p, queries, graph)
    if p.suffix.lower() == ".jsonl" or p.name.lower().endswith(".jsonl.gz"):
        from core.graph.formats.textio import iter_lines

        data = [parse_json(line, p.name, expected="one question object per line", line=ln)
                for ln, line in iter_lines(p) if line.strip()]
        return parse_questions(data, graph, source=p.name)
    data = parse_json(read_text(p), p.name, expected="a JSON list of questions")
    return parse_questions(data, graph, source=p.name)
