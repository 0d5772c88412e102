"""A built workspace's questions file replaced by another (the Data page's "Questions" panel).

Questions come with a workspace's build (``egx index --questions``); after "Add documents" a user has passages no
question asks about, and an audit found no way to attach the questions written for them. :func:`replace_questions`
reads the new file as a benchmark will (matched to the workspace's passages, so a file that matches nothing or holds
no question is refused before anything is written), then swaps it in under the workspace's lock and records the swap
in the manifest. The manifest write is what tells the app's caches the workspace changed; a benchmark run made with
the old questions is told apart from a new one by its questions hash (:func:`core.eval.identity.questions_hash`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputFormatError
from core.fsio import atomic_write_bytes, atomic_write_json

#: the file a workspace keeps its questions in (:attr:`core.index.workspace.Workspace.questions_path`)
QUESTIONS_FILE = "questions.json"


@dataclass(frozen=True)
class QuestionsReplaced:
    """What the new questions file holds against the workspace: its questions, and how many name every gold
    passage here (``whole``), some (``partial``) or none (``none``: a benchmark leaves those out)."""

    questions: int
    whole: int
    partial: int
    none: int
    replaced: bool  #: whether a questions file was there before


def replace_questions(workspace: str | Path, source: str | Path, *, shown_name: str = "") -> QuestionsReplaced:
    """Make ``source`` the questions file of the workspace at ``workspace`` (``shown_name``: the file's name as the
    user knows it, for messages and the manifest; default its own name).

    Raises
    ------
    InputFormatError
        If ``source`` is no questions file (not JSON, no question in it), or if no question of it names a gold
        passage this workspace has (nothing could be benchmarked; the workspace keeps its questions).
    WorkspaceError
        If ``workspace`` is not a workspace.
    """
    from core.index.commit import recover, workspace_lock
    from core.index.manifest import MANIFEST, read_manifest
    from core.index.questions import chunk_table, load_questions_file, questions_json_bytes
    from core.index.workspace import Workspace

    path, src = Path(workspace), Path(source)
    name = shown_name or src.name
    lower = src.name.lower()
    if lower.endswith((".tsv", ".tsv.gz")):
        raise InputFormatError(name, "a BEIR qrels file needs its queries file beside it, which an upload lacks",
                               "a JSON list (or JSONL) of questions with supporting_facts or gold passages")
    read_manifest(path)  # "not a workspace" before a lock file is made beside a wrong path
    ws = Workspace.open(path)
    questions = load_questions_file(src, chunk_table(ws))
    if not questions:
        raise InputFormatError(name, "it holds no question", "a JSON list (or JSONL) of questions with "
                                                             "supporting_facts or gold passages, as the build takes")
    none = [q for q in questions if not q.gold_chunks]  # as core.eval.selection.gold_coverage counts them
    partial = [q for q in questions if q.unmatched and q.gold_chunks]
    if len(none) == len(questions):
        raise InputFormatError(name, f"none of its {len(questions):,} question{'' if len(questions) == 1 else 's'} names a passage title this "
                                     "workspace has", "gold titles as the workspace's passages are titled (the "
                                                      "Statistics tab lists them); the old questions are kept")
    data = questions_json_bytes(src, name)  # a JSONL file as the JSON list questions.json is read as
    with workspace_lock(path):
        recover(path, locked=True)
        had = (path / QUESTIONS_FILE).exists()
        atomic_write_bytes(path / QUESTIONS_FILE, data)
        manifest = read_manifest(path)
        manifest["questions_file"] = {"file": name, "questions": len(questions),
                                      "replaced_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
        atomic_write_json(path / MANIFEST, manifest)  # its new mtime is what tells the app's caches
    return QuestionsReplaced(len(questions), len(questions) - len(partial) - len(none), len(partial), len(none), had)
