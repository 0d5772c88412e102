"""The preamble every method's ``run`` shares (:func:`begin_run`): the config checked, the question checked, the trace
begun with its header, and for a method that reranks the reranker chosen (the bi-encoder stand-in's use recorded as
a visible fallback step when none is configured)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from core.errors import ConfigError, QueryError
from core.methods.base import Backends, MethodConfig
from core.trace import Trace

if TYPE_CHECKING:
    from core.backends.base import Reranker
    from core.index.workspace import Workspace

C = TypeVar("C", bound=MethodConfig)


#: What an empty question is told by a method that retrieves passages (the others say what they retrieve).
EMPTY_QUERY = "The question is empty. Type a question to retrieve passages for."
#: The title of the step a method records when it had to take the bi-encoder stand-in for a missing reranker.
NO_RERANKER_TITLE = "No reranker configured: using the bi-encoder stand-in"


@dataclass(frozen=True)
class RunStart(Generic[C]):
    """What :func:`begin_run` hands a method's ``run``: its checked config, its trace with the header filled in
    (method, question, workspace, config, backends), and — when asked for — the reranker to use."""

    config: C
    trace: Trace
    reranker: Reranker | None = None


def resolve_reranker(backends: Backends) -> tuple[Reranker, str]:
    """The reranker to use and, when none is configured, why the bi-encoder stand-in was taken."""
    if backends.reranker is not None:
        return backends.reranker, ""
    from core.backends.rerankers import BiEncoderReranker

    return BiEncoderReranker(backends.embedder), ("no reranker configured; using the bi-encoder stand-in over "
                                                  f"the embedder {backends.embedder.model_id}")


def begin_run(method: str, query: str, workspace: Workspace, config: C | None, config_type: type[C],
              backends: Backends, *, empty_query: str = EMPTY_QUERY, article: str = "a",
              reranker: bool = False) -> RunStart[C]:
    """The preamble every method's ``run`` shares: the config checked (its paper defaults when None), the question
    checked, the trace begun, and for a method that reranks the reranker chosen, the bi-encoder stand-in's use
    recorded as a visible fallback step (``reranker``) when none is configured.

    Parameters
    ----------
    method
        The method's registry name (what the trace and the messages call it).
    config, config_type
        The config given (None: ``config_type()``) and the type it must have.
    empty_query
        What an empty question is told (the method says what it retrieves).
    article
        The article before the config type's name in the message (``an SGRAGConfig``).
    reranker
        Whether the method reranks: the trace's backends then name the reranker actually used.

    Raises
    ------
    ConfigError
        If ``config`` is not a ``config_type``.
    QueryError
        If the question is empty.
    """
    cfg = config_type() if config is None else config
    if not isinstance(cfg, config_type):
        raise ConfigError(f"{method} takes {article} {config_type.__name__}, got {type(cfg).__name__}.")
    if not query or not query.strip():
        raise QueryError(empty_query)
    if not reranker:
        return RunStart(cfg, Trace(method, query, workspace.name, config=cfg.to_dict(), backends=backends.names()))
    rr, fallback = resolve_reranker(backends)
    trace = Trace(method, query, workspace.name, config=cfg.to_dict(),
                  backends={**backends.names(), "reranker": f"{rr.name} ({rr.model_id})"})
    if fallback:
        trace.add("reranker", NO_RERANKER_TITLE, {"reranker": rr.name}, fallback=fallback)
    return RunStart(cfg, trace, rr)
