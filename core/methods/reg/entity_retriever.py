"""The ReG@Entity retriever: a PNA network scores the question subgraph's entities (ReG D.3 Eq. 34, App. E).

ReG's second retrieval unit. The subgraph is the same ``neighbourhood`` the triple retriever scores
(:func:`.retriever.neighbourhood`); its entities are the nodes, its triples the message-passing edges
(both directions: the GNN reads the subgraph undirected, direction enters through DDE). Node input
features, with ``z`` the workspace embedder's vectors:

    x(v) = [z_q, z_v, z_q ⊙ z_v, DDE(v)]

DDE is the triple retriever's directional distance encoding on the same subgraph (:mod:`.dde`): it
tells the network how far downstream/upstream of a query entity a node lies, which the query text
alone cannot. Relations are not features — App. E names that as the limitation of this variant.

Network: ``Linear → ReLU``, then ``PNA_LAYERS`` PNA layers (Corso et al. 2020, torch_geometric
``PNAConv``) with PNA's aggregators (mean, min, max, std) and scalers (identity, amplification,
attenuation) and the in-degree histogram of the training subgraphs, each with ReLU and a residual
connection, then ``Linear → ReLU → Linear → 1``: one logit ``s_v`` per entity, trained with binary
cross-entropy against "appears in a supervision triple" (Eq. 34, :mod:`.train_entity`).

**Entity → triple scores.** App. E converts entity scores into triple scores "for each" triple, but
the formula did not survive in our copy of the paper. We score a triple by the probability that
*both* its ends are positive entities under the model, ``σ(s_h) · σ(s_t)``, computed as
``log σ(s_h) + log σ(s_t)`` (same order, no underflow): a supervision triple is exactly one whose
two ends are both supervision entities. Parallel relations between one ordered entity pair score
alike; as App. E does, they are merged into one triple ``(h, r1 | r2, t)`` and K is raised by
``EXTRA_K`` = 200 over the triple retriever's K, because one entity pair can carry several facts.

A trained model is saved in the triple retriever's format (``model.pt`` state dict loaded with
``weights_only``, ``manifest.json``) with ``"unit": "entity"`` and the degree histogram the PNA
layers need to be rebuilt; default folder ``<workspace>/reg/retriever-entity/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import WorkspaceError
from core.methods.reg.dde import dde, dde_dim
from core.methods.reg.retriever import MODEL_FILE, load_weights, read_manifest, save_model

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace

UNIT = "entity"
#: App. E: "we increase K by 200 compared to the triple-level retriever".
EXTRA_K = 200
PNA_LAYERS = 2
AGGREGATORS = ("mean", "min", "max", "std")  #: PNA's (Corso et al. 2020)
SCALERS = ("identity", "amplification", "attenuation")  #: PNA's


def default_entity_model_dir(workspace: Workspace) -> Path:
    return workspace.path / "reg" / "retriever-entity"


@dataclass(frozen=True)
class Subgraph:
    """The scored neighbourhood as a GNN input: local entity ids and features."""

    nodes: np.ndarray  #: global node id per local entity
    x: np.ndarray  #: (n, in_dim) float32 node features
    edge_index: np.ndarray  #: (2, 2·m) int64, both directions, local ids
    head: np.ndarray  #: local head per scored edge (m)
    tail: np.ndarray  #: local tail per scored edge (m)


def entity_in_dim(dim: int, rounds: int = 2, reverse_rounds: int = 2) -> int:
    return 3 * dim + dde_dim(rounds, reverse_rounds)


def subgraph_inputs(qvec: np.ndarray, edges: np.ndarray, graph: KnowledgeGraph, node_vectors: np.ndarray,
                    topic: tuple[int, ...] | list[int], *, rounds: int = 2, reverse_rounds: int = 2) -> Subgraph:
    """Node features and message-passing edges of the subgraph formed by ``edges`` (module docstring)."""
    edges = np.asarray(edges, dtype=np.int64)
    dim = node_vectors.shape[1]
    if edges.size == 0:
        z = np.zeros(0, dtype=np.int64)
        return Subgraph(z, np.zeros((0, entity_in_dim(dim, rounds, reverse_rounds)), np.float32),
                        np.zeros((2, 0), np.int64), z, z)
    h = graph.edge_head[edges].astype(np.int64)
    t = graph.edge_tail[edges].astype(np.int64)
    local, inv = np.unique(np.concatenate([h, t]), return_inverse=True)
    lh, lt = inv[: edges.size].astype(np.int64), inv[edges.size:].astype(np.int64)
    pos = {int(v): i for i, v in enumerate(local.tolist())}
    enc = dde(local.size, lh, lt, [pos[int(v)] for v in topic if int(v) in pos], rounds=rounds,
              reverse_rounds=reverse_rounds)
    q = np.asarray(qvec, dtype=np.float32).reshape(1, -1)
    zv = node_vectors[local]
    x = np.concatenate([np.repeat(q, local.size, axis=0), zv, zv * q, enc], axis=1).astype(np.float32)
    return Subgraph(local.astype(np.int64), x, np.stack([np.concatenate([lh, lt]), np.concatenate([lt, lh])]), lh, lt)


def degree_histogram(subgraphs: list[Subgraph]) -> list[int]:
    """PNA's ``deg``: how many nodes of the training subgraphs have each in-degree (as
    ``PNAConv.get_degree_histogram`` counts it)."""
    hist = np.zeros(1, dtype=np.int64)
    for sg in subgraphs:
        d = np.bincount(sg.edge_index[1], minlength=sg.nodes.size) if sg.nodes.size else np.zeros(0, np.int64)
        b = np.bincount(d, minlength=hist.size)
        hist = np.pad(hist, (0, max(0, b.size - hist.size)))
        hist[: b.size] += b
    return hist.tolist()


def triple_scores(entity_logits: np.ndarray, head: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """Triple score ``log σ(s_h) + log σ(s_t)`` from entity logits (module docstring: the product of the
    two ends' probabilities, in log space)."""
    s = np.asarray(entity_logits, dtype=np.float64)
    logsig = -np.logaddexp(0.0, -s)  # log σ(s), stable for large |s|
    return (logsig[np.asarray(head, dtype=np.int64)] + logsig[np.asarray(tail, dtype=np.int64)]).astype(np.float32)


def merge_parallel(graph: KnowledgeGraph, edges: np.ndarray, scores: np.ndarray,
                   k: int) -> list[tuple[int, ...]]:
    """Top-``k`` triples with parallel relations merged (App. E): edges sharing an ordered (head, tail)
    pair form one unit, ranked by its best edge; within a unit the edges keep score order.

    Returns the units best first, each a tuple of edge ids (its first is the best edge).
    """
    edges = np.asarray(edges, dtype=np.int64)
    order = np.argsort(-np.asarray(scores), kind="stable")
    units: dict[tuple[int, int], list[int]] = {}
    for i in order.tolist():
        e = int(edges[i])
        key = (int(graph.edge_head[e]), int(graph.edge_tail[e]))
        if key not in units:
            if len(units) == k:
                continue  # a later edge may still join a kept unit
            units[key] = []
        units[key].append(e)
    return [tuple(u) for u in units.values()]


def merged_relation(graph: KnowledgeGraph, unit: tuple[int, ...]) -> str:
    """``"r1 | r2"``: the relations of one merged unit, distinct, in score order."""
    return " | ".join(dict.fromkeys(str(graph.edge_relation[e]) for e in unit))


def build_pna(in_dim: int, hidden: int, deg: list[int], layers: int = PNA_LAYERS) -> Any:
    import torch
    from torch_geometric.nn import PNAConv

    class EntityPNA(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            d = torch.tensor(deg, dtype=torch.long)
            self.inp = torch.nn.Linear(in_dim, hidden)
            self.convs = torch.nn.ModuleList(PNAConv(hidden, hidden, aggregators=list(AGGREGATORS),
                                                     scalers=list(SCALERS), deg=d) for _ in range(layers))
            self.drop = torch.nn.Dropout(0.1)
            self.out = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                           torch.nn.Linear(hidden, 1))

        def forward(self, x: Any, edge_index: Any) -> Any:
            h = torch.relu(self.inp(x))
            for conv in self.convs:
                h = h + torch.relu(conv(h, edge_index))
            return self.out(self.drop(h)).squeeze(-1)

    return EntityPNA()


@dataclass
class EntityRetriever:
    """A trained PNA entity scorer and its manifest; scores triples through their entities."""

    model: Any  #: torch.nn.Module
    manifest: dict[str, Any] = field(default_factory=dict)
    device: str = "cpu"
    unit: str = UNIT

    @property
    def rounds(self) -> tuple[int, int]:
        return int(self.manifest.get("dde_rounds", 2)), int(self.manifest.get("dde_reverse_rounds", 2))

    def entity_logits(self, sg: Subgraph) -> np.ndarray:
        import torch

        if sg.nodes.size == 0:
            return np.zeros(0, dtype=np.float32)
        self.model.eval()
        with torch.no_grad():
            out = self.model(torch.from_numpy(sg.x).to(self.device), torch.from_numpy(sg.edge_index).to(self.device))
        return out.float().cpu().numpy()

    def inputs(self, qvec: np.ndarray, edges: np.ndarray, graph: KnowledgeGraph, node_vectors: np.ndarray,
               topic: tuple[int, ...] | list[int]) -> Subgraph:
        r, rr = self.rounds
        return subgraph_inputs(qvec, edges, graph, node_vectors, topic, rounds=r, reverse_rounds=rr)

    def score(self, qvec: np.ndarray, edges: np.ndarray, graph: KnowledgeGraph, node_vectors: np.ndarray,
              edge_vectors: np.ndarray, topic: tuple[int, ...] | list[int]) -> np.ndarray:
        """Triple scores of ``edges`` (higher = more relevant), from the entity logits; ``edge_vectors``
        is unused (the entity unit ignores relations) and kept so both retrievers score alike."""
        sg = self.inputs(qvec, edges, graph, node_vectors, topic)
        if sg.nodes.size == 0:
            return np.zeros(0, dtype=np.float32)
        return triple_scores(self.entity_logits(sg), sg.head, sg.tail)

    def save(self, folder: Path) -> Path:
        return save_model(folder, self.model, self.manifest, UNIT)


def load_entity_retriever(folder: Path, *, workspace: Workspace | None = None, embedder_id: str | None = None,
                          device: str | None = None) -> EntityRetriever:
    """Load a saved ReG@Entity retriever, checking it fits the workspace and embedder.

    Raises
    ------
    WorkspaceError
        If the folder holds no entity retriever (or a triple one), it was trained on another graph or
        embedder, or its weights are damaged; the message names ``egx train-reg --unit entity``.
    """
    from core.backends.device import select_device

    folder = Path(folder)
    mp = folder / MODEL_FILE
    ws_arg = workspace.name if workspace is not None else "W"
    fix = f"train one with `egx train-reg --workspace {ws_arg} --unit entity`"
    manifest = read_manifest(folder, mp, unit=UNIT, name="ReG@Entity", fix=fix,
                             other_unit="point `model` at an entity retriever", workspace=workspace,
                             embedder_id=embedder_id)
    dev = select_device(device)
    try:
        deg = [int(v) for v in manifest["deg"]]
        model = build_pna(int(manifest["in_dim"]), int(manifest["hidden"]), deg, int(manifest.get("layers", PNA_LAYERS)))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkspaceError(f"The ReG@Entity manifest in {folder} lacks its dimensions ({exc}); {fix}.") from None
    load_weights(model, mp, name="ReG@Entity", fix=fix)
    model.to(dev)
    return EntityRetriever(model, manifest, dev)
