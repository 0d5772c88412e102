"""Which LLM judges a benchmark run: a separate judge, the generator itself only when asked, or none.

The papers judge with a model other than the one that answers (BubbleRAG's ACC_L: Qwen-3-7B judging the
30B/8B models' answers; SG-RAG's Emp.S: GPT-5.2; FastInsight's pairwise: a generative LLM as evaluator).
A run names its judge with ``egx bench --judge-llm NAME`` (any LLM backend of
:data:`core.backends.registry.LLMS`) or on the Benchmark page. ``same`` lets the generator judge its own
answers; such a run is labelled *self-judged* in ``run.json``, the report and the page. With no judge the
LLM-judged metrics are not computed, and the report says how to get them.

``run.json`` records the choice as ``settings["judge"]``: ``False`` (no judge, also what ``--no-judge``
wrote) or ``{"llm": name, "model": model id, "self_judged": bool}``. Runs written before the choice
existed have no such key; they were judged by their generator whenever it was an LLM, and read as
"self-judged (older run)".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.errors import ConfigError

#: ``--judge-llm`` value: the generator judges its own answers (labelled self-judged).
SAME = "same"
#: The label of a run written before the judge was a choice (its generator judged itself, if any).
OLDER_RUN = "self-judged (older run)"


@dataclass(frozen=True)
class Judge:
    """The LLM that judges a run's answers.

    ``name`` is the backend's registry name or ``"same"``; ``self_judged`` is True when the judge is the
    generator (``same``, or the generator's own model under another name)."""

    llm: Any
    name: str
    self_judged: bool

    @property
    def model_id(self) -> str:
        return str(getattr(self.llm, "model_id", self.name))

    def settings(self) -> dict[str, Any]:
        """What ``run.json`` records (a resumed run must name the same judge)."""
        return {"llm": self.name, "model": self.model_id, "self_judged": self.self_judged}


def choose_judge(name: str | None, generator: Any, *,
                 build: Callable[[str], Any] | None = None) -> Judge | None:
    """The judge named ``name`` for a run whose answers ``generator`` writes.

    Parameters
    ----------
    name
        ``None``, ``""`` or ``"none"``: no judge (the LLM-judged metrics are not computed).
        ``"same"``: the generator judges itself. Else an LLM backend name (``local``, ``local-small``,
        ``openai``, ``recorded``), built with ``build`` (default :func:`core.backends.registry.get_llm`).
    generator
        The run's answering LLM.

    Raises
    ------
    ConfigError
        ``same`` while the generator is ``none`` (there is no LLM to judge with).
    UnknownNameError
        An unregistered backend name.
    """
    if name is None or name in ("", "none"):
        return None
    if name == SAME:
        if not getattr(generator, "available", False):
            raise ConfigError("--judge-llm same asks the generator to judge itself, but the generator is `none`; "
                              "name an LLM with --llm, or a judge with --judge-llm local-small.")
        return Judge(generator, SAME, True)
    if name == getattr(generator, "name", None) and getattr(generator, "available", False):
        return Judge(generator, name, True)  # the generator's own backend: one model, loaded once, self-judged
    if build is None:
        from core.backends.registry import get_llm

        build = get_llm
    llm = build(name)
    same_model = getattr(generator, "available", False) and getattr(llm, "model_id", None) == generator.model_id
    return Judge(llm, name, bool(same_model))


def run_judge(settings: dict[str, Any]) -> dict[str, Any] | None:
    """The judge a run's ``run.json`` settings name: the recorded dict, None for no judge, or — for a run
    written before the choice existed — its generator as a self-judge (``{"llm": "same", "older": True}``)."""
    j = settings.get("judge", "absent")
    if j is False or j is None:
        return None
    if isinstance(j, dict):
        return j
    return {"llm": SAME, "model": "", "self_judged": True, "older": True}


def judge_label(judge: dict[str, Any] | None) -> str:
    """How the report and the page name a run's judge (from :func:`run_judge`)."""
    if judge is None:
        return "none"
    if judge.get("older"):
        return OLDER_RUN
    model = str(judge.get("model") or judge.get("llm") or "?")
    if judge.get("self_judged"):
        how = "the generator judged its own answers" if judge.get("llm") == SAME else \
            "the judge is the generator's own model"
        return f"{model} — self-judged ({how})"
    return f"{model} (`{judge.get('llm')}`, separate from the generator)"
