"""Loading a Hugging Face model named by the user: a local folder, the local cache, or a download.

The bundled defaults never touch the hub (they are read from installed packages). An explicit hub
id — ``st:BAAI/bge-base-en-v1.5``, ``cross-encoder:cross-encoder/ms-marco-MiniLM-L-6-v2`` — is
looked up in the local Hugging Face cache first and downloaded only when it is not there, the
network allows it and offline mode is off (``HF_HUB_OFFLINE`` unset; ``make test`` sets it, the app
and ``egx`` no longer do). When it cannot be had, :func:`load_model` raises one
:class:`~core.errors.BackendError` naming the model and the fix.

A name ``hf:org/name`` (:data:`HUB_PREFIX`) is a hub id and never a folder: it is looked up in the Hugging
Face cache (or downloaded) by huggingface_hub and the loader is handed that cache folder's absolute path.
The app's model field gives hub ids in this form (:func:`check_app_model`): a bare ``org/name`` is a folder
to sentence-transformers and transformers whenever one of that name exists relative to the working folder,
and the server's working folder is no place a browser should reach. Every hub request is bounded by
huggingface_hub's own timeouts (``HF_HUB_ETAG_TIMEOUT`` / ``HF_HUB_DOWNLOAD_TIMEOUT``, 10 s each by
default).
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from core.errors import BackendError

T = TypeVar("T")

def offline_mode() -> bool:
    """Whether downloads are off: ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set to a true value,
    in the environment or in huggingface_hub's constants (read when it was imported)."""
    def true(v: str | None) -> bool:
        return (v or "").strip().upper() in ("1", "ON", "YES", "TRUE")

    if true(os.environ.get("HF_HUB_OFFLINE")) or true(os.environ.get("TRANSFORMERS_OFFLINE")):
        return True
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


def hub_endpoint() -> str:
    """The hub URL downloads would use: ``$HF_ENDPOINT``, else huggingface_hub's default."""
    env = os.environ.get("HF_ENDPOINT", "").strip()
    if env:
        return env.rstrip("/")
    try:
        from huggingface_hub import constants

        return str(constants.ENDPOINT).rstrip("/")
    except ImportError:
        return "https://huggingface.co"


def hub_unreachable(endpoint: str, timeout: float = 3.0) -> str | None:
    """Why ``endpoint`` cannot be reached (a TCP connection within ``timeout`` s), or None when it can.

    huggingface_hub retries a refused connection five times with backoff (about a minute per
    model); this one bounded probe lets a machine without a network fail at once.
    """
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"


_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
#: marks a model name as a hub id, never a local folder (``st:hf:BAAI/bge-base-en-v1.5``)
HUB_PREFIX = "hf:"
#: files a hub-only download leaves out: other frameworks' copies of the weights
_OTHER_WEIGHTS = ["*.onnx", "onnx/*", "openvino/*", "*.h5", "*.msgpack", "*.ot", "*.tflite", "coreml/*", "*.mlmodel"]


def hub_id(model: str) -> str | None:
    """The hub id of a name marked ``hf:org/name`` (:data:`HUB_PREFIX`), else None.

    >>> hub_id("hf:BAAI/bge-small-en-v1.5"), hub_id("BAAI/bge-small-en-v1.5")
    ('BAAI/bge-small-en-v1.5', None)
    """
    if not model.startswith(HUB_PREFIX):
        return None
    rest = model[len(HUB_PREFIX):].strip()
    return rest if _HUB_ID.match(rest) else None


def model_dirs() -> list[Path]:
    """Folders the app may load a model folder from: ``$EGX_HOME/models`` and those in ``EGX_MODEL_DIRS``
    (``os.pathsep``-separated)."""
    from core.fsio import egx_home

    extra = [Path(p).expanduser() for p in os.environ.get("EGX_MODEL_DIRS", "").split(os.pathsep) if p.strip()]
    return [egx_home() / "models", *extra]


def check_app_model(model: str) -> str:
    """``model`` as typed into the app's model field, if the app may load it: a hub id (``org/name``, returned
    as ``hf:org/name``, so it is never read as a folder relative to the server's working folder) or a folder
    inside :func:`model_dirs` (returned as its absolute path). Anything else is refused with one message
    whether or not the path exists, so the field cannot be used to probe which paths exist on the server (the
    command line, run by the machine's own user, takes any folder).

    Raises
    ------
    BackendError
        Naming the allowed folders and the hub-id form.
    """
    text = model.strip()
    if text.startswith(HUB_PREFIX) and hub_id(text):
        return f"{HUB_PREFIX}{hub_id(text)}"
    if _HUB_ID.match(text) and not text.startswith((".", "~")):
        return f"{HUB_PREFIX}{text}"
    roots = model_dirs()
    try:
        p = Path(text).expanduser()
        p = (roots[0] / p if not p.is_absolute() else p).resolve()
        if any(p.is_relative_to(r.resolve()) for r in roots):
            return str(p)
    except (OSError, ValueError, RuntimeError):
        pass
    raise BackendError(f"The app loads model folders only from {', '.join(str(r) for r in roots)} "
                       "(add folders with EGX_MODEL_DIRS), or a hub id such as 'BAAI/bge-small-en-v1.5'; "
                       f"{text[:80]!r} is neither.")


def load_model(model: str, loader: Callable[[str, bool], T], *, what: str, spec: str, folder_hint: str,
               bundled: str) -> T:
    """Load ``model`` with ``loader(source, local_files_only)``: a folder, the local cache, or a download.

    Parameters
    ----------
    model : str
        A local folder or a hub id.
    loader : callable
        ``(source, local_files_only) -> model``; raises ``OSError``/``ValueError`` when not found.
    what : str
        What it is, for messages (``"Sentence-transformers model"``, ``"Cross-encoder"``).
    spec : str
        The registry prefix (``"st"``, ``"cross-encoder"``) for the suggested ``prefix:/path``.
    folder_hint : str
        What a usable folder holds (said when a folder fails to load).
    bundled : str
        The bundled alternative to suggest (``"'bge-small' or 'minilm'"``).

    Returns
    -------
    The loaded model.

    Raises
    ------
    BackendError
        A folder that does not load; a hub id that is neither cached nor downloadable (offline mode,
        no network, unknown id), naming the model and the fix.
    """
    hub = hub_id(model)
    if hub is not None:
        return _load_hub_only(hub, loader, what=what, spec=spec, bundled=bundled)
    path = Path(model).expanduser()
    if path.exists():
        try:
            return loader(str(path), True)
        except (OSError, ValueError) as exc:
            raise BackendError(f"Could not load a {what.lower()} from the folder {model!r}: "
                               f"{str(exc).rstrip('.')}. Pass {folder_hint}.") from exc
    try:
        return loader(model, True)  # already in the local Hugging Face cache: no network needed
    except (OSError, ValueError):
        pass
    if offline_mode():
        raise BackendError(
            f"{what} {model!r} is not in the local Hugging Face cache and downloads are off "
            "(HF_HUB_OFFLINE=1). Unset HF_HUB_OFFLINE to let it download (the app and egx leave it unset; "
            f"`make test` sets it), or download it on a machine with a network and pass the folder: "
            f"'{spec}:/path/to/model'. Or use the bundled {bundled}.")
    endpoint = hub_endpoint()
    why = hub_unreachable(endpoint)
    if why is not None:
        raise BackendError(
            f"{what} {model!r} is not in the local Hugging Face cache and the hub at {endpoint} cannot be "
            f"reached ({why}). Connect to the network (or set HF_ENDPOINT to a reachable mirror), or download it "
            f"on a machine with a network and pass the folder: '{spec}:/path/to/model'. Or use the bundled "
            f"{bundled}.")
    try:
        return loader(model, False)
    except Exception as exc:  # network errors come as several library-specific types
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        raise BackendError(
            f"{what} {model!r} could not be downloaded from the Hugging Face hub ({reason}). Check the hub id "
            "and the network (HF_ENDPOINT and proxy settings), or download it on a machine with a network "
            f"and pass the folder: '{spec}:/path/to/model'. Or use the bundled {bundled}.") from exc


def _load_hub_only(hub: str, loader: Callable[[str, bool], T], *, what: str, spec: str, bundled: str) -> T:
    """:func:`load_model` of a ``hf:`` hub id: the loader gets the absolute path of the id's snapshot in the
    Hugging Face cache (downloaded first when it is not there and downloads are allowed), never the id itself,
    which it would read as a folder when one of that name exists relative to the working folder."""
    from huggingface_hub import snapshot_download

    try:
        local = snapshot_download(hub, local_files_only=True)
    except Exception:  # not in the cache (huggingface_hub raises several types for it)
        local = None
    if local is not None:
        try:
            return loader(str(Path(local).resolve()), True)
        except (OSError, ValueError):
            pass  # an incomplete snapshot: fetch what is missing below, when allowed
    if offline_mode():
        raise BackendError(
            f"{what} {hub!r} is not in the local Hugging Face cache and downloads are off (HF_HUB_OFFLINE=1). "
            f"Unset HF_HUB_OFFLINE to let it download, or download it on a machine with a network and pass the "
            f"folder: '{spec}:/path/to/model'. Or use the bundled {bundled}.")
    endpoint = hub_endpoint()
    why = hub_unreachable(endpoint)
    if why is not None:
        raise BackendError(
            f"{what} {hub!r} is not in the local Hugging Face cache and the hub at {endpoint} cannot be reached "
            f"({why}). Connect to the network (or set HF_ENDPOINT to a reachable mirror), or pass a folder: "
            f"'{spec}:/path/to/model'. Or use the bundled {bundled}.")
    try:
        local = snapshot_download(hub, ignore_patterns=_OTHER_WEIGHTS)
        return loader(str(Path(local).resolve()), True)
    except Exception as exc:  # network errors come as several library-specific types
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        raise BackendError(
            f"{what} {hub!r} could not be downloaded from the Hugging Face hub ({reason}). Check the hub id and "
            f"the network, or pass a folder: '{spec}:/path/to/model'. Or use the bundled {bundled}.") from exc
