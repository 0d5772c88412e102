"""Deterministic fakes shared by every test: one scripted LLM and one toy retrieval method.

* :class:`ScriptedLLM` answers from a script — fixed replies, replies chosen by the prompt, or
  errors — and records every call, so a test can check what each stage sent and how it falls back.
* :data:`TOY_METHOD` is a complete method in a dozen lines (config, ``run``, stages, diagnoser):
  what a new method package exports. Registering it in a test shows that the CLI, the benchmark
  runner, the diagnosis and the Compare page take a new method with no other change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.backends.base import ChatMessage, LLMResponse
from core.errors import QueryError
from core.methods.base import Backends, Check, Diagnosis, Gold, Method, MethodConfig, RankedChunk, StageDecl, knob
from core.methods.diagnoser import finish, gold_ranks, no_gold
from core.trace import Trace

if TYPE_CHECKING:
    from core.index.workspace import Workspace

Reply = str | LLMResponse | Exception | Callable[[Sequence[ChatMessage]], "str | LLMResponse"]


@dataclass(frozen=True)
class Call:
    """One request a :class:`ScriptedLLM` received."""

    messages: list[ChatMessage]
    max_tokens: int
    json_schema: dict[str, Any] | None


class ScriptedLLM:
    """Deterministic fake LLM (the ``LLM`` protocol of :mod:`core.backends.base`).

    Parameters
    ----------
    *replies
        Consumed in order, one per call: a string (the reply text), an :class:`LLMResponse` (its own
        token counts), an exception (raised, e.g. ``LLMError("timed out")``) or a function of the
        messages returning either (to answer by prompt).
    name
        Backend name; ``model_id`` is ``"fake:<name>"``.
    tokens
        ``(prompt, completion)`` tokens reported for string replies.
    repeat_last
        True: the last reply repeats forever. False: a call past the script fails the test (as does
        any call when there is no reply at all).
    """

    available = True

    def __init__(self, *replies: Reply, name: str = "scripted", tokens: tuple[int, int] = (10, 5),
                 repeat_last: bool = True) -> None:
        self.replies = list(replies)
        self.name = name
        self.model_id = f"fake:{name}"
        self.tokens = tokens
        self.repeat_last = repeat_last
        self.calls: list[Call] = []

    @property
    def prompts(self) -> list[str]:
        """The last message (the user prompt) of every call, in order."""
        return [c.messages[-1].content for c in self.calls]

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        self.calls.append(Call(list(messages), max_tokens, json_schema))
        if not self.replies:
            raise AssertionError(f"ScriptedLLM ran out of replies after {len(self.calls) - 1} calls")
        if len(self.replies) > 1 or not self.repeat_last:
            reply = self.replies.pop(0)
        else:
            reply = self.replies[0]
        if callable(reply) and not isinstance(reply, Exception):
            reply = reply(messages)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, LLMResponse):
            return reply
        return LLMResponse(text=reply, prompt_tokens=self.tokens[0], completion_tokens=self.tokens[1],
                           model=self.model_id, latency_s=0.01)


# ------------------------------------------------------------------------------------ a toy method
@dataclass(frozen=True)
class ToyConfig(MethodConfig):
    """The toy method's one knob."""

    top_k: int = knob(2, "Passages returned: the workspace's last ones, best first.")

    def checks(self) -> list[Check]:
        return [("top_k", self.top_k >= 1, "an integer >= 1")]


@dataclass(frozen=True, eq=False)
class ToyResult:
    method: str
    query: str
    ranked_chunks: tuple[RankedChunk, ...]
    answer: str
    trace: Trace
    config: ToyConfig = field(default_factory=ToyConfig)

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        return ()  # its evidence is its passages


def toy_run(query: str, workspace: Workspace, *, config: ToyConfig | None = None, backends: Backends) -> ToyResult:
    """Return the workspace's last ``top_k`` passages (a method that ignores the question)."""
    cfg = ToyConfig() if config is None else config
    if not query.strip():
        raise QueryError("The question is empty. Type a question.")
    t = Trace("toy", query, workspace.name, config=cfg.to_dict(), backends=backends.names())
    t.add("pick", "Pick the last passages", {"top_k": cfg.top_k}, seconds=0.001)
    chunks = workspace.graph.chunks[-cfg.top_k:][::-1]
    return ToyResult("toy", query, tuple(RankedChunk(c.id, 1.0 / (i + 1)) for i, c in enumerate(chunks)), "", t, cfg)


TOY_STAGES = (StageDecl("ranked_out", "not among the last passages", "the toy method returns the last passages only"),)


def toy_diagnose(result: ToyResult, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    ranks = gold_ranks(result, gold)
    if not gold.chunk_ids:
        return no_gold(result.method, gold, ranks)
    return finish(result.method, result, gold, ranks, cut=cut, evidence={"toy": True})


TOY_METHOD: Method[ToyConfig, ToyResult] = Method(
    "toy", "Toy method (last passages)", "none: a test fixture", run=toy_run, config=ToyConfig, stages=TOY_STAGES,
    diagnose=toy_diagnose)
