"""Questions with gold evidence for evaluation (HippoRAG / MuSiQue / 2Wiki / BEIR formats).

They are workspace data, read by evaluation and by ReG's training alike, so they live in
:mod:`core.index.questions` (below the method packages); this module keeps the evaluation-side name.
"""

from __future__ import annotations

from core.index.questions import Question, load_beir, load_questions, load_questions_file, parse_questions

__all__ = ["Question", "load_beir", "load_questions", "load_questions_file", "parse_questions"]
