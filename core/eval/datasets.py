"""Questions with gold evidence, matched to the passages (chunks) of a workspace.

Two HippoRAG-style formats are read:

* **MuSiQue** style — ``paragraphs: [{title, paragraph_text, is_supporting}]``: a gold passage is
  a supporting paragraph, matched to a chunk by (title, text) after the same whitespace cleaning
  the loaders apply;
* **HotpotQA / 2Wiki** style — ``supporting_facts: [[title, sentence_index], ...]``: every chunk
  with that title is gold.

Gold evidence that matches no chunk is kept in :attr:`Question.unmatched` (and never silently
counted as retrieved or missed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputFormatError
from core.text import clean_text

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    gold_chunks: tuple[str, ...]  #: chunk ids of the gold passages, in file order
    unmatched: tuple[str, ...] = ()  #: gold titles that match no chunk of the workspace


def _answer(rec: dict[str, Any]) -> str:
    a = rec.get("answer", "")
    if isinstance(a, list):
        return str(a[0]) if a else ""
    return str(a)


def parse_questions(data: Any, graph: KnowledgeGraph, *, source: str = "questions.json") -> list[Question]:
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
    by_title: dict[str, list[str]] = {}
    for c in graph.chunks:
        by_title.setdefault(c.title, []).append(c.id)
    out = []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict) or not isinstance(rec.get("question"), str):
            raise InputFormatError(source, 'a record has no "question" string', '{"question": ..., "paragraphs": [...]}',
                                   record=i)
        gold: list[str] = []
        unmatched: list[str] = []
        if isinstance(rec.get("paragraphs"), list):
            for p in rec["paragraphs"]:
                if not isinstance(p, dict) or not p.get("is_supporting"):
                    continue
                key = (clean_text(p.get("title", "")), str(p.get("paragraph_text", p.get("text", ""))).strip())
                cid = by_content.get(key)
                (gold.append(cid) if cid else unmatched.append(key[0]))
        elif isinstance(rec.get("supporting_facts"), list):
            for fact in rec["supporting_facts"]:
                title = clean_text(fact[0] if isinstance(fact, (list, tuple)) and fact else str(fact))
                ids = by_title.get(title)
                if ids:
                    gold.extend(ids)
                else:
                    unmatched.append(title)
        else:
            raise InputFormatError(source, 'a record has neither "paragraphs" nor "supporting_facts"',
                                   "HippoRAG-format questions with gold evidence", record=i)
        qid = str(rec.get("id", rec.get("_id", i)))
        out.append(Question(qid, rec["question"], _answer(rec), tuple(dict.fromkeys(gold)),
                            tuple(dict.fromkeys(unmatched))))
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
    return load_questions_file(path, workspace.graph)


def load_questions_file(path: str | Path, graph: KnowledgeGraph) -> list[Question]:
    """Read a questions file (JSON; ``.gz`` allowed) and match it to ``graph``."""
    from core.graph.loaders import read_text

    p = Path(path)
    try:
        data = json.loads(read_text(p))
    except json.JSONDecodeError as exc:
        raise InputFormatError(p.name, f"invalid JSON ({exc.msg})", "a JSON list of questions", line=exc.lineno) from None
    return parse_questions(data, graph, source=p.name)
