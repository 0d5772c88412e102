"""Failure diagnosis: for one question × method, the first stage at which the gold evidence was lost.

:func:`diagnose` looks the method up in the registry and runs its own diagnoser
(:attr:`core.methods.base.Method.diagnose`), or :func:`~core.methods.diagnoser.generic_diagnosis`
for a method that has none. The words of the contract (:class:`StageDecl`, :class:`Gold`,
:class:`Diagnosis`, the stage keys) live in :mod:`core.methods.base` and the helpers every diagnoser
shares in :mod:`core.methods.diagnoser`, below the method packages; they are re-exported here, the
entry point for evaluation code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.methods.base import (
    NO_GOLD,
    OK,
    STAGE_LABELS,
    STAGE_ORDER,
    VERDICTS,
    Diagnoser,
    Diagnosis,
    Gold,
    StageDecl,
)
from core.methods.diagnoser import (
    GENERIC_STAGES,
    AnswerJudgement,
    answer_by_llm,
    answer_verdict,
    finish,
    generic_diagnosis,
    gold_ranks,
    judge_answer,
    lost_gold,
    missing_from_graph,
    no_gold,
    retrieval_summary,
)
from core.methods.registry import METHODS, get_method

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.base import MethodResult

__all__ = ["GENERIC_STAGES", "NO_GOLD", "OK", "STAGE_LABELS", "STAGE_ORDER", "VERDICTS", "AnswerJudgement", "Diagnoser",
           "Diagnosis", "Gold", "StageDecl", "answer_by_llm", "answer_verdict", "diagnose", "diagnoser_for", "finish",
           "generic_diagnosis", "gold_ranks", "judge_answer", "lost_gold", "missing_from_graph", "no_gold",
           "retrieval_summary", "stages_for"]


def stages_for(method: str) -> tuple[StageDecl, ...]:
    """The stages ``method`` declares (the generic ones when it declares none)."""
    return get_method(method).stages or GENERIC_STAGES


def diagnoser_for(method: str) -> Diagnoser:
    """The diagnoser of ``method`` (:func:`~core.methods.diagnoser.generic_diagnosis` when it declares
    none or is not registered)."""
    spec = METHODS.get(method)
    return (spec.diagnose if spec is not None else None) or generic_diagnosis


def diagnose(result: MethodResult, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """Where ``result`` lost ``gold``: the method's own diagnoser via the registry, else the generic one.

    Parameters
    ----------
    result
        A method's result (its ``method`` names the registry entry).
    workspace
        The workspace it ran on.
    gold
        Gold chunk ids (and answers) of the question.
    cut
        Rank cut: gold below it counts as lost (default 5, as in R@5).

    Returns
    -------
    Diagnosis

    Raises
    ------
    ValueError
        If ``cut < 1``.
    """
    if cut < 1:
        raise ValueError(f"cut must be at least 1, got {cut}")
    return diagnoser_for(result.method)(result, workspace, gold, cut=cut)
