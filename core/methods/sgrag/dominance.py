"""ℳ: GNN dominance embeddings over 1-hop stars (sg_rag.txt §4.2, Appendix C, Algorithm 2).

Architecture (Fig. 4): input projection → one ``GATConv`` layer (Eqs. 9-11) → sum readout over the
star's nodes (Eq. 12) → linear projection with a non-linearity (Eq. 13): ``o(g_v) = σ(W y_v)``,
``o(v) = o(g_v)``. Node features are the label embeddings o_0 (the workspace's node vectors).

**The loss.** The text states the constraint (Eq. 14) ``o(s) ⪯ o(g)`` for every proper substructure
``s ⊂ g``, but Eqs. (3)/(15) as printed, ``‖max(0, o(g) − o(s))‖²``, penalize ``o(g) > o(s)`` — the
opposite. We implement the stated constraint: ``L = Σ ‖max(0, o(s) − o(g) + m)‖²``. The margin
``m`` (``DominanceConfig.margin``, 0 = the paper's form) keeps the trivial constant solution out and
leaves slack for substructures never seen in training. Training stops when the epoch loss is 0
(Alg. 2 line 16) or after ``max_epochs``.

**Substructures.** A star ``g_v`` is the centre ``v`` and its distinct neighbours (edge direction
ignored). A proper substructure keeps the centre and a proper subset of the leaves (Fig. 5). A star
with ``k`` leaves has ``2^k − 1`` of them, so each epoch samples: the lone centre, up to 8
leave-one-out stars and ``subsets_per_star`` random subsets (2 and 2 for hubs above
``max_leaves``). A query node's star in a matched query graph is exactly such a substructure of its data node's star (same label features, a subset
of the neighbours), which is why ``o(p_q) ⪯ o(p_z)`` can prune without losing true matches once the
model satisfies dominance — :func:`dominance_violations` measures that on held-out substructures.

Training uses ``max_train_stars`` stars per epoch (a seeded sample on large graphs; all of them on
small ones). The trained model and all node embeddings are cached per workspace under
``<workspace>/sgrag/`` keyed by the graph content hash, the embedder and this config.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.backends.device import select_device
from core.graph.model import KnowledgeGraph
from core.methods.sgrag.config import DominanceConfig

Progress = Callable[[str, float], None]


@dataclass(frozen=True, eq=False)
class DominanceModel:
    """A trained ℳ with the dominance embedding of every graph node (``node_emb[v] = o(v)``)."""

    config: DominanceConfig
    state: dict[str, Any]  #: torch state_dict (CPU tensors)
    in_dim: int
    node_emb: np.ndarray  #: (n_nodes, d) float32
    losses: tuple[float, ...]  #: epoch losses (Alg. 2 line 14)
    epochs: int
    converged: bool  #: the last epoch loss was 0
    device: str
    seconds: float
    from_cache: bool = False
    key: str = ""
    note: str = ""  #: why a cached model was rejected and retrained (shown in the trace); "" otherwise

    def embed_stars(self, features: np.ndarray, stars: Sequence[Sequence[int]] | Sequence[np.ndarray]) -> np.ndarray:
        """o(g) for stars given as rows of ``features`` (centre first): shape ``(len(stars), d)``."""
        net = self.__dict__.get("_net_cpu")
        if net is None:
            net = _net(self.in_dim, self.config)
            net.load_state_dict(self.state)
            net.eval()
            object.__setattr__(self, "_net_cpu", net)
        return _embed(net, features, [np.asarray(s, dtype=np.int64) for s in stars], "cpu")


def star_leaves(graph: KnowledgeGraph, v: int) -> np.ndarray:
    """Distinct neighbours of ``v`` (either direction, self-loops dropped), sorted."""
    nbr, _ = graph.csr.row(v)
    u = np.unique(nbr)
    return u[u != v].astype(np.int64)


def _net(in_dim: int, cfg: DominanceConfig) -> Any:
    import torch
    from torch import nn
    from torch_geometric.nn import GATConv, global_add_pool

    class DominanceGNN(nn.Module):  # Fig. 4
        def __init__(self) -> None:
            super().__init__()
            self.inp = nn.Linear(in_dim, cfg.hidden)
            self.gat = GATConv(cfg.hidden, cfg.hidden, heads=cfg.heads, concat=False, add_self_loops=True)
            self.out = nn.Linear(cfg.hidden, cfg.dim)

        def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor, n: int) -> torch.Tensor:
            h = torch.relu(self.inp(x))
            h = torch.relu(self.gat(h, edge_index))  # x'_i, Eq. 11
            y = global_add_pool(h, batch, size=n)  # Eq. 12
            return nn.functional.softplus(self.out(y))  # Eq. 13, σ = softplus

    torch.manual_seed(cfg.seed)
    return DominanceGNN()


def _batch(stars: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint union of stars (centre first): node rows, edge_index (both directions), batch vector."""
    sizes = np.fromiter((len(s) for s in stars), dtype=np.int64, count=len(stars))
    offsets = np.zeros(len(stars), dtype=np.int64)
    np.cumsum(sizes[:-1], out=offsets[1:])
    rows = np.concatenate(stars) if stars else np.zeros(0, np.int64)
    batch = np.repeat(np.arange(len(stars)), sizes)
    pos = np.arange(len(rows)) - np.repeat(offsets, sizes)
    leaf = pos > 0
    centre = np.repeat(offsets, sizes)[leaf]
    leaves = np.nonzero(leaf)[0]
    ei = np.stack([np.concatenate([leaves, centre]), np.concatenate([centre, leaves])])
    return rows, ei, batch


def _embed(net: Any, features: np.ndarray, stars: Sequence[np.ndarray], device: str, *,
           max_nodes: int = 200_000) -> np.ndarray:
    import torch

    net = net.to(device).eval()
    feats = torch.as_tensor(features, device=device)
    out = []
    with torch.no_grad():
        for chunk in _chunks(stars, max_nodes):
            rows, ei, batch = _batch(chunk)
            o = net(feats[torch.as_tensor(rows, device=device)], torch.as_tensor(ei, device=device),
                    torch.as_tensor(batch, device=device), len(chunk))
            out.append(o.cpu().numpy())
    return np.concatenate(out).astype(np.float32) if out else np.zeros((0, net.out.out_features), np.float32)


def _chunks(stars: Sequence[np.ndarray], max_nodes: int) -> list[list[np.ndarray]]:
    out: list[list[np.ndarray]] = []
    cur: list[np.ndarray] = []
    n = 0
    for s in stars:
        if cur and n + len(s) > max_nodes:
            out.append(cur)
            cur, n = [], 0
        cur.append(s)
        n += len(s)
    if cur:
        out.append(cur)
    return out


def _substructures(centre: int, leaves: np.ndarray, rng: np.random.Generator, cfg: DominanceConfig) -> list[np.ndarray]:
    k = len(leaves)
    c = np.array([centre], dtype=np.int64)
    subs = [c]
    if k == 0:
        return []
    if k >= 2:
        hub = k > cfg.max_leaves
        for i in rng.choice(k, size=min(k, 2 if hub else 8), replace=False):
            subs.append(np.concatenate([c, np.delete(leaves, i)]))
        for _ in range(2 if hub else cfg.subsets_per_star):
            keep = rng.random(k) < rng.random()
            if keep.all():
                keep[rng.integers(k)] = False
            subs.append(np.concatenate([c, leaves[keep]]))
    return subs


def train_dominance(graph: KnowledgeGraph, features: np.ndarray, *, config: DominanceConfig | None = None,
                    max_train_stars: int = 3000, progress: Progress | None = None) -> DominanceModel:
    """Algorithm 2: train ℳ on (star, substructure) pairs until the epoch loss is 0 or ``max_epochs``.

    Parameters
    ----------
    graph
        The KG whose 1-hop stars are trained on.
    features
        Label embedding per node, ``(n_nodes, F)`` (rows of the workspace's node vectors by label).
    config
        :class:`DominanceConfig`.
    max_train_stars
        Stars per epoch (a seeded sample when the graph has more).
    progress
        ``progress(message, fraction)`` after every epoch (the page's progress bar).

    Returns
    -------
    DominanceModel
        With ``node_emb`` = o(v) for every node and the loss curve.
    """
    import time

    import torch

    cfg = config or DominanceConfig()
    t0 = time.perf_counter()
    device = select_device(cfg.device or None)
    rng = np.random.default_rng(cfg.seed)
    net = _net(features.shape[1], cfg).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    feats = torch.as_tensor(np.ascontiguousarray(features, dtype=np.float32), device=device)
    all_leaves = [star_leaves(graph, v) for v in range(graph.n_nodes)]
    trainable = np.array([v for v in range(graph.n_nodes) if len(all_leaves[v])], dtype=np.int64)
    losses: list[float] = []
    converged = False
    for epoch in range(cfg.max_epochs):
        net.train()
        centres = trainable if len(trainable) <= max_train_stars else rng.choice(trainable, max_train_stars, replace=False)
        rng.shuffle(centres)  # Alg. 2 line 6
        pairs_g: list[np.ndarray] = []
        pairs_s: list[list[np.ndarray]] = []
        for v in centres:
            g = np.concatenate([[v], all_leaves[v]]).astype(np.int64)
            pairs_g.append(g)
            pairs_s.append(_substructures(int(v), all_leaves[v], rng, cfg))
        epoch_loss = 0.0
        for b in range(0, len(pairs_g), cfg.batch_stars):
            gs = pairs_g[b:b + cfg.batch_stars]
            subs = pairs_s[b:b + cfg.batch_stars]
            owner = np.concatenate([np.full(len(s), i) for i, s in enumerate(subs)])
            flat = [s for ss in subs for s in ss]
            rows, ei, batch = _batch(list(gs) + flat)
            o = net(feats[torch.as_tensor(rows, device=device)], torch.as_tensor(ei, device=device),
                    torch.as_tensor(batch, device=device), len(gs) + len(flat))
            og, os_ = o[:len(gs)], o[len(gs):]
            viol = torch.relu(os_ - og[torch.as_tensor(owner, device=device)] + cfg.margin)
            loss = (viol ** 2).sum()
            if loss.item() > 0:
                opt.zero_grad()
                loss.backward()
                opt.step()
            epoch_loss += float(loss.item())
        # Alg. 2 lines 12-15: the loss after the epoch's updates, on the same pairs
        net.eval()
        with torch.no_grad():
            after = 0.0
            for b in range(0, len(pairs_g), cfg.batch_stars):
                gs = pairs_g[b:b + cfg.batch_stars]
                subs = pairs_s[b:b + cfg.batch_stars]
                owner = np.concatenate([np.full(len(s), i) for i, s in enumerate(subs)])
                flat = [s for ss in subs for s in ss]
                rows, ei, batch = _batch(list(gs) + flat)
                o = net(feats[torch.as_tensor(rows, device=device)], torch.as_tensor(ei, device=device),
                        torch.as_tensor(batch, device=device), len(gs) + len(flat))
                after += float((torch.relu(o[len(gs):] - o[:len(gs)][torch.as_tensor(owner, device=device)]
                                           + cfg.margin) ** 2).sum().item())
        losses.append(after)
        if progress:
            progress(f"Dominance model: epoch {epoch + 1}, loss {after:.4g}", (epoch + 1) / cfg.max_epochs)
        if after == 0.0:
            converged = True
            break
    stars = [np.concatenate([[v], all_leaves[v]]).astype(np.int64) for v in range(graph.n_nodes)]
    node_emb = _embed(net, np.ascontiguousarray(features, dtype=np.float32), stars, device)
    state = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    if progress:
        progress("Dominance model trained", 1.0)
    return DominanceModel(cfg, state, int(features.shape[1]), node_emb, tuple(losses), len(losses), converged,
                          device, time.perf_counter() - t0)


def dominance_violations(model: DominanceModel, graph: KnowledgeGraph, features: np.ndarray, *,
                         samples_per_star: int = 4, max_stars: int = 2000, seed: int = 12345,
                         tol: float = 0.0) -> dict[str, float]:
    """Check o(s) ⪯ o(g) on freshly sampled (held-out) proper substructures.

    Returns ``{"pairs": n, "violations": k, "rate": k/n, "max_excess": worst o(s) − o(g)}``.
    """
    rng = np.random.default_rng(seed)
    centres = [v for v in range(graph.n_nodes) if len(star_leaves(graph, v))]
    if len(centres) > max_stars:
        centres = sorted(rng.choice(centres, max_stars, replace=False).tolist())
    g_list, s_list = [], []
    for v in centres:
        leaves = star_leaves(graph, v)
        g = np.concatenate([[v], leaves])
        for _ in range(samples_per_star):
            keep = rng.random(len(leaves)) < rng.random()
            if keep.all():
                keep[rng.integers(len(leaves))] = False
            g_list.append(g)
            s_list.append(np.concatenate([[v], leaves[keep]]))
    og = model.embed_stars(features, g_list)
    os_ = model.embed_stars(features, s_list)
    excess = (os_ - og).max(axis=1) if len(g_list) else np.zeros(0)
    k = int((excess > tol).sum())
    return {"pairs": len(g_list), "violations": k, "rate": k / max(len(g_list), 1),
            "max_excess": float(excess.max()) if len(excess) else 0.0}


# ----------------------------------------------------------------------------- caching
def model_key(graph: KnowledgeGraph, embedder_id: str, cfg: DominanceConfig, max_train_stars: int) -> str:
    d = asdict(cfg)
    d.pop("device", None)
    blob = json.dumps({"graph": graph.content_hash, "embedder": embedder_id, "cfg": d, "stars": max_train_stars},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_or_train(graph: KnowledgeGraph, features: np.ndarray, cache_dir: Path | None, embedder_id: str, *,
                  config: DominanceConfig | None = None, max_train_stars: int = 3000, retrain: bool = False,
                  progress: Progress | None = None) -> DominanceModel:
    """The cached model for this graph + embedder + config, training (and caching) it when missing.

    The cache file is read with ``torch.load(weights_only=True)``: tensors and plain values only,
    never code (a workspace folder is user data; a pickle there could run anything). It is read only
    when it is a regular file no larger than this model and its node embeddings can be (a file linked
    to ``/dev/zero`` is not read), and its input width and embedding shape must be this graph's and
    config's. A file that does not load — damaged, of an older layout, or not a weights file — is
    retrained and replaced, and ``DominanceModel.note`` says so (the pipeline records it as a trace
    fallback).
    """
    cfg = config or DominanceConfig()
    key = model_key(graph, embedder_id, cfg, max_train_stars)
    path = cache_dir / f"dominance-{key}.pt" if cache_dir is not None else None
    note = ""
    if path is not None and path.exists() and not retrain:
        try:
            return _load_cached(path, cfg, key, n_nodes=graph.n_nodes, in_dim=int(features.shape[1]))
        except Exception as exc:  # any failure to read it: say so, retrain, replace the file
            why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            note = (f"the cached dominance model {path.name} was rejected ({type(exc).__name__}: {why}); "
                    "retrained and replaced it")
    m = train_dominance(graph, features, config=cfg, max_train_stars=max_train_stars, progress=progress)
    m = DominanceModel(m.config, m.state, m.in_dim, m.node_emb, m.losses, m.epochs, m.converged, m.device,
                       m.seconds, False, key, note)
    if path is not None:
        _save_cached(path, m)
    return m


def _save_cached(path: Path, m: DominanceModel) -> None:
    import torch

    from core.fsio import atomic_path

    if path.is_symlink() or (path.exists() and not path.is_file() and not path.is_dir()):
        # this name in the workspace's own cache folder is egx's: a link or a device planted there is removed
        # (the entry, never what it points to), since every write refuses to rename over one
        path.unlink()

    blob = {"format": "egx-sgrag-dominance", "version": 2, "state": dict(m.state), "in_dim": m.in_dim,
            "node_emb": torch.from_numpy(np.ascontiguousarray(m.node_emb, dtype=np.float32)),
            "losses": [float(x) for x in m.losses], "epochs": int(m.epochs), "converged": bool(m.converged),
            "device": str(m.device), "seconds": float(m.seconds)}
    with atomic_path(path) as tmp:
        torch.save(blob, tmp)


_CACHE_SLACK = 16 * 2**20  #: a cache file's framing, its loss curve and the rest beyond its tensors


def _load_cached(path: Path, cfg: DominanceConfig, key: str, *, n_nodes: int, in_dim: int) -> DominanceModel:
    import io

    import torch

    from core.fsio import read_data_file

    # the most this model can take: its parameters (built from this config, not from the file; _net seeds
    # torch, so the caller's generator state is kept) and the node embeddings, float32 each
    with torch.random.fork_rng(devices=[]):
        params = sum(p.numel() * p.element_size() for p in _net(in_dim, cfg).state_dict().values())
    cap = params + 4 * n_nodes * cfg.dim + _CACHE_SLACK
    data = read_data_file(path, max_bytes=cap, what="cached dominance model")
    d = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)  # never unpickles code
    if not isinstance(d, dict) or d.get("format") != "egx-sgrag-dominance" or d.get("version") != 2:
        raise ValueError("not a dominance model written by this egx")
    if d.get("in_dim") != in_dim:
        raise ValueError(f"input width {str(d.get('in_dim'))[:20]} for node features of width {in_dim}")
    emb = d["node_emb"]
    if not isinstance(emb, torch.Tensor) or emb.ndim != 2 or emb.shape != (n_nodes, cfg.dim):
        raise ValueError(f"node embeddings of shape {getattr(emb, 'shape', None)} for {n_nodes} nodes of dimension "
                         f"{cfg.dim}")
    state = d["state"]
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError("the model state is not a dict of tensors")
    return DominanceModel(cfg, state, int(d["in_dim"]), emb.numpy().astype(np.float32, copy=False),
                          tuple(float(x) for x in d["losses"]), int(d["epochs"]), bool(d["converged"]),
                          str(d["device"]), float(d["seconds"]), True, key)
