"""Training keeps the better scorer (ours, on top of App. E's checkpoint choice): a newly trained ReG retriever
replaces the active one only when it does not lose on the held-out split to the untrained cosine scorer nor to
the retriever active now, both scored on the same questions (:func:`judge`). One that loses is kept aside
(:func:`aside_dir`), never loaded by ``reg``; ``egx train-reg --use-anyway`` and the Evidence chains page's
"Use it anyway" (:func:`core.methods.reg.training_jobs.use_kept_aside`) install it. :func:`below_cosine` words the case of an
active retriever (e.g. a sample's shipped one) that scores below cosine, for every view of a ``reg`` run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from core.methods.reg.retriever import TripleRetriever


class HeldOut(Protocol):
    """What :func:`judge` reads of a training result (:class:`core.methods.reg.train.TrainResult` has it)."""

    config: dict[str, Any]
    test: dict[str, float]
    baseline_test: dict[str, float]
    current_test: dict[str, float]


#: The held-out figure a new model must not lose on, in order of preference: gold-passage triple recall is the same
#: target whatever the supervision (label recall is each run's own labels); answer hit when no question has gold.
JUDGED = (("gold_passage_recall", "gold-passage triple recall", "with_gold"), ("answer_hit", "answer hit", "questions"))


@dataclass(frozen=True)
class Verdict:
    """Whether a newly trained retriever replaces the active scorer: it must not lose, on the held-out split, to
    the untrained cosine scorer nor to the retriever active now (both scored on the same questions)."""

    install: bool
    metric: str  #: the :data:`JUDGED` key compared
    new: float
    rivals: dict[str, float]  #: "untrained cosine" / "the current retriever" → its figure
    questions: int  #: held-out questions behind the figure
    text: str


def held_out_metric(test: dict[str, Any]) -> tuple[str, str, int]:
    """``(key, words, questions)`` of the held-out figure :func:`judge` and the pages compare (:data:`JUDGED`)."""
    for key, words, n in JUDGED:
        v = test.get(key)
        if v is not None and not np.isnan(float(v)):
            return key, words, int(test.get(n, 0) or 0)
    return JUDGED[0][0], JUDGED[0][1], 0


def judge(res: HeldOut) -> Verdict:
    """The new model against the untrained cosine and the current retriever on the held-out split, at ``recall_k``.

    A tie keeps the new model (it is no worse); a split without a question to judge on cannot show it is worse, so
    it is installed and the verdict says so.
    """
    key, words, n = held_out_metric(res.test)
    k = res.config.get("recall_k", 30)
    new = float(res.test.get(key, float("nan")))
    rivals = {"untrained cosine": float(res.baseline_test.get(key, float("nan")))}
    if res.current_test:
        rivals["the current retriever"] = float(res.current_test.get(key, float("nan")))
    if n == 0 or np.isnan(new):
        return Verdict(True, key, new, rivals, 0, f"no held-out question to compare {words}@{k} on; installed")
    beaten = {name: v for name, v in rivals.items() if not np.isnan(v) and v > new}
    vs = ", ".join(f"{name} {v:.3f}" for name, v in rivals.items() if not np.isnan(v))
    figures = f"held-out {words}@{k} {new:.3f} vs {vs} ({n} questions)"
    if beaten:
        return Verdict(False, key, new, rivals, n, f"it loses to {' and '.join(beaten)}: {figures}")
    return Verdict(True, key, new, rivals, n, f"no worse than {' and '.join(rivals)}: {figures}")


def below_cosine(figures: dict[str, Any]) -> str:
    """A sentence saying that a trained retriever (its manifest or ``result.json``: ``test`` and ``baseline_test``)
    scores below the untrained cosine scorer on its held-out split, with the figures; "" when it does not (or
    there is nothing to compare)."""
    test, base = figures.get("test") or {}, figures.get("baseline_test") or {}
    if not isinstance(test, dict) or not isinstance(base, dict):
        return ""
    key, words, n = held_out_metric(test)
    new, cos = float(test.get(key, float("nan"))), float(base.get(key, float("nan")))
    if n == 0 or np.isnan(new) or np.isnan(cos) or new >= cos:
        return ""
    k = (figures.get("config") or {}).get("recall_k", 30)
    unit = "ReG@Entity" if figures.get("unit") == "entity" else "ReG@Triple"
    return (f"The {unit} retriever used here scores below the untrained cosine scorer on its held-out split: "
            f"{words}@{k} {new:.3f} vs cosine {cos:.3f} ({n} questions).")


def aside_dir(folder: Path) -> Path:
    """Where a retriever that lost on the held-out split is kept, next to the active ``folder`` and never loaded
    by ``reg`` (``<folder>-kept-aside``)."""
    return folder.with_name(folder.name + "-kept-aside")


def active_retriever(workspace: Any, embedder_id: str) -> TripleRetriever | None:
    """The ReG@Triple retriever ``reg`` loads on ``workspace`` now (its own, else a sample's shipped one); None when
    it scores by cosine (no model, or one that does not fit the graph or the embedder)."""
    from core.errors import WorkspaceError
    from core.methods.reg.retriever import find_model_dir, load_retriever

    try:
        return load_retriever(find_model_dir(workspace), workspace=workspace, embedder_id=embedder_id)
    except (WorkspaceError, OSError):
        return None
