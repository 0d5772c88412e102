"""A numpy stand-in for the few FAISS calls egx makes, for the GPU path check on the device machine only.

faiss-cpu (66 MB installed) does not fit the device tool's 64 MiB carry limit next to the two bundled
ONNX models, and the device image has no faiss. egx uses only exact flat inner-product indexes
(IndexFlatIP: add, search, range_search, reconstruct_n, write_index/read_index), which this module
computes exactly in numpy. It is not part of the app: benchmarks/gpu_carry.sh copies it to
.gpucarry/site/faiss/__init__.py, which is on PYTHONPATH only in the device command (.gpucarry/run.sh, a copy
of benchmarks/gpu_carry_run.sh). The timed model stages never call it; it serves the (untimed) sample
workspace build and the node vectors the GAT stage reads.
"""
from __future__ import annotations

import numpy as np

_MAGIC = b"EGXFLAT1"


class IndexFlat:
    def __init__(self, d: int) -> None:
        self.d = int(d)
        self._x = np.zeros((0, self.d), np.float32)

    @property
    def ntotal(self) -> int:
        return int(self._x.shape[0])

    def add(self, x) -> None:
        x = np.ascontiguousarray(x, dtype=np.float32).reshape(-1, self.d)
        self._x = np.ascontiguousarray(np.concatenate([self._x, x]))

    def search(self, q, k: int):
        q = np.ascontiguousarray(q, dtype=np.float32).reshape(-1, self.d)
        s = q @ self._x.T
        k = int(k)
        kk = min(k, self.ntotal)
        order = np.argsort(-s, axis=1, kind="stable")[:, :kk]
        scores = np.take_along_axis(s, order, axis=1)
        if kk < k:  # FAISS pads with -1 ids
            pad = k - kk
            scores = np.concatenate([scores, np.full((len(q), pad), -np.inf, np.float32)], axis=1)
            order = np.concatenate([order, np.full((len(q), pad), -1)], axis=1)
        return scores.astype(np.float32), order.astype(np.int64)

    def range_search(self, q, thresh: float):
        q = np.ascontiguousarray(q, dtype=np.float32).reshape(-1, self.d)
        s = q @ self._x.T
        rows, cols = np.nonzero(s >= thresh)
        lims = np.zeros(len(q) + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=len(q)), out=lims[1:])
        return lims, s[rows, cols].astype(np.float32), cols.astype(np.int64)

    def reconstruct_n(self, i0: int, n: int):
        return self._x[i0:i0 + n].copy()


class IndexFlatIP(IndexFlat):
    pass


def write_index(index: IndexFlat, path: str) -> None:
    with open(path, "wb") as f:
        f.write(_MAGIC + np.array([index.d, index.ntotal], np.int64).tobytes())
        f.write(np.ascontiguousarray(index._x, np.float32).tobytes())


def read_index(path: str) -> IndexFlat:
    with open(path, "rb") as f:
        raw = f.read()
    if not raw.startswith(_MAGIC):
        raise RuntimeError(f"{path}: not an index written by the faiss stand-in")
    d, n = (int(v) for v in np.frombuffer(raw[8:24], np.int64))
    idx = IndexFlatIP(d)
    idx._x = np.frombuffer(raw[24:], np.float32).reshape(n, d).copy()
    return idx
