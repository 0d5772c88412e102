"""One small error hierarchy. Pages catch only :class:`EgxError` and show its message.

Every message says what was wrong, the offending value, and how to fix it. The fix is often a command-line
flag or a file path (``use another --out folder``), which means nothing in a browser: a raise site whose fix
reads differently in the app passes it as ``app=`` too, and the app shows :meth:`EgxError.in_app` — the
same refusal in the app's words (a run *name*, a tab, a button) — while the CLI prints ``str(error)``.
"""

from __future__ import annotations


class EgxError(Exception):
    """Base class of every error this engine raises on purpose.

    Parameters
    ----------
    *args
        The message (what was wrong + the value + the fix, as the command line reads it).
    app
        The same message in the app's words, when they differ: no command-line flags, no file paths.
    """

    app_message: str | None = None  #: for subclasses whose own ``__init__`` never reaches this one

    def __init__(self, *args: object, app: str | None = None) -> None:
        super().__init__(*args)
        self.app_message = app

    def in_app(self) -> str:
        """What the app shows: the app's wording when the raise site gave one, else the message."""
        return self.app_message or str(self)


class InputFormatError(EgxError, ValueError):
    """An input file (or record) is malformed.

    The message names the file, the line or record, what is wrong and what was expected::

        triples.csv, line 3: expected 3 columns (head, relation, tail) but found 2.
    """

    def __init__(self, source: str, problem: str, expected: str, *, line: int | None = None,
                 record: int | None = None) -> None:
        where = source
        if line is not None:
            where += f", line {line}"
        elif record is not None:
            where += f", record {record}"
        self.source = source
        self.line = line
        self.record = record
        self.problem = problem
        self.expected = expected
        super().__init__(f"{where}: {problem}. Expected {expected}.")


class InputReadError(EgxError):
    """An :class:`InputFormatError` raised by a task in a worker process (:mod:`core.background.workers`), as the
    parent sees it: the worker's message, and the kind, so a caller can tell unreadable input (the user's files) from
    any other refusal."""


class EmptyGraphError(EgxError, ValueError):
    """An input yielded no nodes, edges or chunks at all."""


class UnknownNameError(EgxError, KeyError):
    """A name (backend, node, workspace, ...) is not known; the message lists the valid ones."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...]) -> None:
        self.kind = kind
        self.name = name
        self.valid = list(valid)
        shown = ", ".join(repr(v) for v in self.valid[:20])
        more = f" (and {len(self.valid) - 20} more)" if len(self.valid) > 20 else ""
        super().__init__(f"Unknown {kind} {name!r}. Valid {kind}s: {shown}{more}.")

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class BackendError(EgxError, RuntimeError):
    """A backend could not be loaded or failed while running (model missing, bad config, ...)."""


class LLMError(BackendError):
    """The LLM call failed after retries, timed out, or returned unusable output."""


class LLMUnavailableError(LLMError):
    """No LLM is configured (``none`` backend); callers take their documented fallback."""


class WorkspaceError(EgxError, RuntimeError):
    """A workspace folder is missing, incomplete, or was built with incompatible settings."""


class ConfigError(EgxError, ValueError):
    """A method configuration value is out of range or inconsistent; the message names the field,
    the value and the valid range."""


class NoQuestionsError(ConfigError):
    """A benchmark (``egx bench``, ``ablate``, ``reproduce``) has no questions to run: no questions file was given
    and the workspace has none. The command line says so as its other usage errors (``egx COMMAND: ...``, exit
    status 1), not as ``egx: error:``."""


class QueryError(EgxError, ValueError):
    """A question cannot be run as given (empty, or naming passages that do not exist)."""


class NameNotAllowedError(EgxError, ValueError):
    """A user-chosen name (workspace, benchmark run) cannot be used as a folder name under the
    project's roots (a path, ``..``, a hidden or reserved name, too long, ...)."""


class OutputPathError(EgxError):
    """A path a user named for egx to write to cannot take its output: a device, a named pipe, a socket or a
    symbolic link where a file goes (egx writes files whole and renames them into place, which would replace
    the device or the link), a file where a folder goes, or a folder that is neither empty nor one egx made.
    Nothing was written. Not a ``ValueError``: raised while ``egx`` parses its arguments, it must reach
    :func:`core.cli.main` (which prints it as ``egx: error: ...``) instead of becoming an argparse usage line."""


class DataFileError(EgxError, ValueError):
    """A file egx reads as data (a trained model's weights or manifest, a cached model) is not a regular file,
    or is larger than any file of its kind can be; it was not read. The message names the file, what it is and
    the bound."""


class Cancelled(EgxError):
    """Work was stopped on request (a job's cancel button, :meth:`core.background.jobs.Job.cancel`).

    Not an :class:`LLMError`: a method stage never turns it into its fallback, so a cancel
    unwinds the whole run; what was committed before (a workspace, benchmark lines) is kept.
    """


class StoreError(EgxError, RuntimeError):
    """A graph store (FalkorDB) cannot be used: unreachable, no such graph, a graph that egx did not
    write, or a failed load. The message names the store URL (never its password) and the fix."""


class ScaleError(EgxError, RuntimeError):
    """Ray (``--ray``) cannot be used: the optional ``scale`` extra is not installed, the cluster
    address is malformed or unreachable, or a worker failed. The message names the address and the fix."""
