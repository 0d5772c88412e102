"""The ReG@Triple retriever: an MLP triple scorer on query + triple embeddings + DDE (ReG D.3 Eq. 33, App. E).

Features of triple ``(h, r, t)`` for query ``q`` (all embeddings from the workspace's index, so the
frozen text encoder is the workspace embedder — the paper uses gte-large, we use what the
workspace was indexed with):

    x = [z_q, z_h, z_(h r t), z_t, z_q ⊙ z_(h r t), DDE(h), DDE(t)]

``z_(h r t)`` is the enriched edge text embedding (the workspace's edge index); SubgraphRAG embeds
the relation alone — our KG stores relation text only inside the edge text. The elementwise product
is ours: with about a hundred training questions it gives the MLP the query–triple similarity
directly instead of having to learn it. The scorer is ``Linear → ReLU → Linear → 1``, trained with
binary cross-entropy (:mod:`.train`).

A trained model is saved per workspace (default ``<workspace>/reg/retriever/``): ``model.safetensors``
(tensors only: nothing in it can run) + ``manifest.json`` (embedder, dims, DDE rounds, supervision, metrics,
graph hash). Older folders hold ``model.pt``, read with ``torch.load(weights_only=True)``. Loading checks
the manifest against the workspace and embedder and says how to retrain on a mismatch.

A model folder is data, possibly someone else's: its files are read only when they are regular files within
a size bound (:func:`core.fsio.read_data_file`; a manifest of at most :data:`MAX_MANIFEST_BYTES`, weights of
at most the size the manifest's dimensions give), and the manifest's dimensions and DDE rounds are checked
against :data:`BOUNDS` before any tensor is allocated. Saving goes only into a folder that is new, empty or
a model folder of egx's (:func:`is_model_folder`; :func:`core.outputs.output_folder`).

Which retriever ``reg`` uses (:func:`find_model_dir`): the configured folder, else the one trained in the
workspace, else — for a bundled sample — the retriever shipped with it (``sample_data/<name>/reg/retriever``,
trained on LLM-refined supervision S(I) whose selections ship beside it), else none (cosine fallback).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import WorkspaceError
from core.methods.reg.dde import dde, dde_dim
from core.pinning import pin

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace

MODEL_FILE = "model.safetensors"
LEGACY_MODEL_FILE = "model.pt"  #: a torch state dict, from before safetensors
MANIFEST_FILE = "manifest.json"

FORMAT = "egx-reg-retriever"

#: the largest manifest read (its split lists every training question id; a few MB for 100k questions)
MAX_MANIFEST_BYTES = 32 * 2**20
#: the largest weights file looked at before the manifest says how large it should be (every weights file is
#: then read within the size of the model its dimensions build, plus :data:`WEIGHTS_SLACK`)
MAX_WEIGHTS_BYTES = 2 * 2**30
WEIGHTS_SLACK = 16 * 2**20  #: a safetensors header or an older ``model.pt``'s pickle framing
#: manifest field -> (smallest, largest): checked before a model is built, so a tampered manifest cannot make
#: a scorer allocate gigabytes or run a million DDE rounds per question (the defaults: 2 rounds, width 256)
BOUNDS = {"dim": (0, 16_384), "in_dim": (1, 100_000), "hidden": (1, 16_384), "dde_rounds": (0, 32),
          "dde_reverse_rounds": (0, 32), "layers": (1, 16)}
MAX_PARAMS = 2**27  #: in_dim × hidden at most (a 512 MB first layer; the default model has 0.5 M)
MAX_DEG_BINS = 100_000  #: ReG@Entity's degree histogram (one bin per in-degree; the candidate cap is 3,000 edges)


def default_model_dir(workspace: Workspace) -> Path:
    return workspace.path / "reg" / "retriever"


def shipped_model_dir(workspace: Workspace) -> Path | None:
    """The retriever shipped with a bundled sample workspace (None for any other workspace)."""
    if not workspace.meta.sample:
        return None
    from core.index.samples import sample_recipes

    for r in sample_recipes():
        if r.name == workspace.name:
            folder = r.folder / "reg" / "retriever"
            return folder if (folder / MANIFEST_FILE).exists() else None
    return None


def is_model_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a ReG retriever of egx's (a ``manifest.json`` of :data:`FORMAT`): a model folder
    from before egx marked its output folders is still its own to retrain into."""
    from core.errors import DataFileError
    from core.fsio import read_data_file

    try:
        data = json.loads(read_data_file(Path(folder) / MANIFEST_FILE, max_bytes=MAX_MANIFEST_BYTES,
                                         what="ReG retriever manifest"))
    except (OSError, DataFileError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def model_output_folder(folder: str | Path, *, flag: str = "") -> Path:
    """``folder`` claimed for a trained retriever (:func:`core.outputs.output_folder`): new, empty, or a model
    folder of egx's — never a folder of someone's files, whose ``model.pt`` would be deleted and whose
    ``manifest.json`` / ``result.json`` replaced."""
    from core.outputs import output_folder

    return output_folder(folder, flag=flag, what="model folder", ours=is_model_folder,
                         app="The model folder is taken by files that are not a trained retriever; pick another "
                             "model name.")


def find_model_dir(workspace: Workspace, configured: str = "") -> Path:
    """The folder ``reg`` loads: ``configured``, else the workspace's own, else a sample's shipped one."""
    if configured:
        return Path(configured)
    own = default_model_dir(workspace)
    if (own / MANIFEST_FILE).exists():
        return own
    return shipped_model_dir(workspace) or own


def scorer_identity(manifest: dict[str, Any] | None) -> str:
    """A short digest of which trained scorer this is ("" for the cosine fallback): what a recorded run's
    pinned scores are keyed by, so a replay with another scorer misses instead of borrowing its ranking."""
    if manifest is None:
        return ""
    import hashlib

    keys = ("unit", "supervision", "llm", "selection", "config", "best_epoch", "trained_on_graph", "graph_hash",
            "embedder", "in_dim", "hidden")
    blob = json.dumps({k: manifest.get(k) for k in keys}, sort_keys=True, default=str)
    return "model:" + hashlib.sha256(blob.encode()).hexdigest()[:12]


def scorer_label(manifest: dict[str, Any] | None) -> str:
    """What scored the triples, in the words the pages and reports use: ReG's retriever trained on S(I),
    the paper's "w/o S(I)" ablation (weak labels), or the untrained cosine fallback."""
    if manifest is None:
        return "cosine (untrained fallback — not ReG's retriever)"
    unit = "ReG@Entity" if manifest.get("unit") == "entity" else "ReG@Triple"
    if manifest.get("supervision") == "refined":
        how = f", {manifest['selection']}" if manifest.get("selection") else ""
        label = f"{unit} trained on S(I) (LLM-refined supervision by {manifest.get('llm') or '?'}{how})"
    else:
        label = f"{unit} w/o S(I) (trained on weak shortest-path labels)"
    shipped = manifest.get("shipped")
    return f"{label}; {shipped}" if shipped else label


def neighbourhood(graph: KnowledgeGraph, topic: tuple[int, ...] | list[int], hops: int, *,
                  edge_vectors: np.ndarray | None = None, qvec: np.ndarray | None = None,
                  max_candidates: int = 5000) -> tuple[np.ndarray, int]:
    """Edge ids among the nodes within ``hops`` undirected hops of ``topic`` (ReG/SubgraphRAG score
    the question's subgraph). Past ``max_candidates`` the edges most similar to the query are kept.

    Returns ``(edges, n_before_cap)``.
    """
    if not len(topic):
        return np.zeros(0, dtype=np.int64), 0
    nodes = graph.khop(topic, hops)
    edges = graph.induced_edges(nodes.tolist()).astype(np.int64)
    n = int(edges.size)
    if n > max_candidates:
        if edge_vectors is not None and qvec is not None:
            sims = pin("reg.neighbourhood.edge_cosine",
                       edge_vectors[edges] @ np.asarray(qvec, dtype=np.float32).reshape(-1), ids=edges)
            edges = np.sort(edges[np.argsort(-sims, kind="stable")[:max_candidates]])
        else:
            edges = edges[:max_candidates]
    return edges, n


def triple_features(qvec: np.ndarray, edges: np.ndarray, graph: KnowledgeGraph, node_vectors: np.ndarray,
                    edge_vectors: np.ndarray, topic: tuple[int, ...] | list[int], *, rounds: int = 2,
                    reverse_rounds: int = 2) -> np.ndarray:
    """Feature matrix ``(len(edges), 4·dim + dim + 2·DDE)`` for the triples ``edges`` (module docstring).

    DDE is computed on the subgraph formed by ``edges`` themselves (the scored neighbourhood).
    """
    edges = np.asarray(edges, dtype=np.int64)
    dim = node_vectors.shape[1]
    if edges.size == 0:
        return np.zeros((0, 5 * dim + 2 * dde_dim(rounds, reverse_rounds)), dtype=np.float32)
    h = graph.edge_head[edges].astype(np.int64)
    t = graph.edge_tail[edges].astype(np.int64)
    local, inv = np.unique(np.concatenate([h, t]), return_inverse=True)
    lh, lt = inv[: edges.size], inv[edges.size:]
    pos = {int(v): i for i, v in enumerate(local.tolist())}
    lt_topic = [pos[int(v)] for v in topic if int(v) in pos]
    enc = dde(local.size, lh, lt, lt_topic, rounds=rounds, reverse_rounds=reverse_rounds)
    q = np.asarray(qvec, dtype=np.float32).reshape(1, -1)
    ze = edge_vectors[edges]
    return np.concatenate([np.repeat(q, edges.size, axis=0), node_vectors[h], ze, node_vectors[t], ze * q,
                           enc[lh], enc[lt]], axis=1).astype(np.float32)


def build_mlp(in_dim: int, hidden: int, *, cosine_residual: bool = False, dim: int = 0) -> Any:
    """The paper's scorer (``Linear → ReLU → Linear``), or with ``cosine_residual`` (ours) the query–triple
    cosine plus that MLP, whose output layer starts near zero: training starts from the cosine ranking and
    learns a correction, which a hundred training questions can afford where learning the whole ranking
    from scratch cannot (benchmarks/README.md, ReG supervision)."""
    import torch

    mlp = torch.nn.Sequential(torch.nn.Linear(in_dim, hidden), torch.nn.ReLU(), torch.nn.Dropout(0.1),
                              torch.nn.Linear(hidden, 1))
    if not cosine_residual:
        return mlp
    out = mlp[3]
    assert isinstance(out, torch.nn.Linear)
    with torch.no_grad():  # small, not zero: a zero layer passes no gradient to the hidden one and learns slowly
        out.weight.mul_(0.1)
        out.bias.zero_()
    return _residual_module()(mlp, dim)


def _residual_module() -> Any:
    """The cosine-residual scorer's class (defined on first use, so importing this module needs no torch)."""
    import torch

    class _CosineResidual(torch.nn.Module):
        def __init__(self, mlp: Any, dim: int) -> None:
            super().__init__()
            self.mlp, self.dim = mlp, dim
            self.scale = torch.nn.Parameter(torch.tensor(10.0))  # cosines span ~0.5; logits want more

        def forward(self, x: Any) -> Any:
            cos = x[:, 4 * self.dim:5 * self.dim].sum(-1, keepdim=True)  # the z_q ⊙ z_(h r t) block, unit vectors
            return self.scale * cos + self.mlp(x)

    return _CosineResidual


@dataclass
class TripleRetriever:
    """A trained scorer and its manifest."""

    model: Any  #: torch.nn.Module
    manifest: dict[str, Any] = field(default_factory=dict)
    device: str = "cpu"

    @property
    def rounds(self) -> tuple[int, int]:
        return int(self.manifest.get("dde_rounds", 2)), int(self.manifest.get("dde_reverse_rounds", 2))

    def score_features(self, x: np.ndarray) -> np.ndarray:
        import torch

        if len(x) == 0:
            return np.zeros(0, dtype=np.float32)
        self.model.eval()
        with torch.no_grad():
            out = self.model(torch.from_numpy(np.ascontiguousarray(x)).to(self.device)).squeeze(-1)
        return out.float().cpu().numpy()

    def score(self, qvec: np.ndarray, edges: np.ndarray, graph: KnowledgeGraph, node_vectors: np.ndarray,
              edge_vectors: np.ndarray, topic: tuple[int, ...] | list[int]) -> np.ndarray:
        """Logits (higher = more relevant) of ``edges`` for the query."""
        r, rr = self.rounds
        return self.score_features(triple_features(qvec, edges, graph, node_vectors, edge_vectors, topic,
                                                   rounds=r, reverse_rounds=rr))

    def save(self, folder: Path) -> Path:
        return save_model(folder, self.model, self.manifest, "triple")


def save_model(folder: Path, model: Any, manifest: dict[str, Any], unit: str) -> Path:
    """A trained scorer's folder: safetensors weights (a header and raw tensors, nothing in the file can run) and
    the manifest, naming the retrieval ``unit`` ("triple" or "entity")."""
    from safetensors.torch import save

    from core.fsio import atomic_write_bytes, atomic_write_json

    folder = model_output_folder(folder)  # a folder of someone else's files is refused, nothing deleted
    atomic_write_bytes(folder / MODEL_FILE,
                       save({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}))
    (folder / LEGACY_MODEL_FILE).unlink(missing_ok=True)  # one set of weights per folder
    atomic_write_json(folder / MANIFEST_FILE, {"format": FORMAT, "version": 1, **manifest, "unit": unit})
    return folder


#: How the app says to get a fitting retriever (the CLI's ``fix`` names ``egx train-reg``).
APP_FIX = "train ReG@{unit} in the Train panel of the Evidence chains page"


def read_manifest(folder: Path, weights: Path, *, unit: str, name: str, fix: str, other_unit: str,
                  workspace: Workspace | None = None, embedder_id: str | None = None) -> dict[str, Any]:
    """A saved scorer's manifest, checked: present, ours, of ``unit``, trained on this graph and embedder.

    ``name`` is what messages call the scorer, ``fix`` how to get a fitting one, ``other_unit`` what to do
    when the folder holds the other unit. Raises :class:`WorkspaceError` naming the problem and ``fix``.
    """
    mf = folder / MANIFEST_FILE
    # the app's words (EgxError.in_app): no folder, and the Train panel instead of the command line
    app_fix = APP_FIX.format(unit=unit.title())
    from core.errors import DataFileError
    from core.fsio import check_data_file, read_data_file

    if not mf.exists() or not weights.exists():
        raise WorkspaceError(f"No trained {name} retriever in {folder}; {fix}.",
                             app=f"No trained {name} retriever for this workspace; {app_fix}.")
    try:
        # files checked before a byte is read: a weights file linked to /dev/zero is refused, not read to 4 GB
        check_data_file(weights, max_bytes=MAX_WEIGHTS_BYTES, what=f"{name} weights file")
        manifest = json.loads(read_data_file(mf, max_bytes=MAX_MANIFEST_BYTES, what=f"{name} retriever manifest"))
    except DataFileError as exc:
        raise WorkspaceError(f"{exc} {fix[:1].upper()}{fix[1:]}.",
                             app=f"The {name} retriever's files are not ones egx reads; {app_fix}.") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WorkspaceError(f"The {name} retriever manifest {mf} was rejected ({exc}); {fix}.",
                             app=f"The {name} retriever's manifest could not be read; {app_fix}.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise WorkspaceError(f"{mf} is not a ReG retriever manifest; {fix}.",
                             app=f"The {name} retriever's manifest is not one of ours; {app_fix}.")
    problem = manifest_problem(manifest)
    if problem:
        raise WorkspaceError(f"The {name} retriever manifest {mf} was rejected: {problem}; {fix}.",
                             app=f"The {name} retriever's manifest is out of bounds ({problem}); {app_fix}.")
    held = str(manifest.get("unit", "triple"))  # files from before the entity unit have no "unit"
    if held != unit:
        raise WorkspaceError(f"{folder} holds a ReG@{held.title()} retriever, not ReG@{unit.title()}; "
                             f"{other_unit.format(unit=held)} or {fix}.",
                             app=f"The trained retriever is ReG@{held.title()}, not ReG@{unit.title()}; pick the "
                                 f"{held} unit or {app_fix}.")
    if workspace is not None and manifest.get("graph_hash") and manifest["graph_hash"] != workspace.content_hash:
        raise WorkspaceError(f"The {name} retriever in {folder} was trained on another graph (hash "
                             f"{manifest['graph_hash']}, this workspace {workspace.content_hash}); {fix}.",
                             app=f"The {name} retriever was trained on another graph; {app_fix}.")
    if embedder_id is not None and manifest.get("embedder") != embedder_id:
        raise WorkspaceError(f"The {name} retriever in {folder} was trained with embedder {manifest.get('embedder')!r}, "
                             f"the active one is {embedder_id!r}; switch embedders or {fix}.",
                             app=f"The {name} retriever was trained with the embedder {manifest.get('embedder')!r}, "
                                 f"the active one is {embedder_id!r}; switch embedders in the sidebar or {app_fix}.")
    return manifest


def manifest_problem(manifest: dict[str, Any]) -> str:
    """What is out of bounds in a retriever manifest's dimensions and rounds (:data:`BOUNDS`,
    :data:`MAX_PARAMS`, :data:`MAX_DEG_BINS`), or ``""``: checked before anything is allocated from them."""
    for key, (lo, hi) in BOUNDS.items():
        if key not in manifest:
            continue
        v = manifest[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
            return f"{key} = {shown} is not an integer in [{lo:,}, {hi:,}]"
    in_dim, hidden = manifest.get("in_dim"), manifest.get("hidden")
    if isinstance(in_dim, int) and isinstance(hidden, int) and in_dim * hidden > MAX_PARAMS:
        return f"in_dim × hidden = {in_dim * hidden:,} is over {MAX_PARAMS:,} weights"
    deg = manifest.get("deg")
    if deg is not None:
        if not isinstance(deg, list) or len(deg) > MAX_DEG_BINS:
            return f"deg is not a list of at most {MAX_DEG_BINS:,} counts"
        if not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 2**53 for d in deg):
            return "deg holds something other than counts"
    return ""


def load_weights(model: Any, weights: Path, *, name: str, fix: str) -> None:
    """Weights into ``model``: safetensors, or an older ``model.pt`` read with ``weights_only`` (tensors and plain
    values, never code — a pickle in a workspace could run anything). A damaged or foreign file is refused
    visibly, never run or half-loaded; one larger than ``model``'s tensors (plus :data:`WEIGHTS_SLACK`), a
    device or a named pipe is not read at all."""
    import io

    size = sum(v.numel() * v.element_size() for v in model.state_dict().values()) + WEIGHTS_SLACK
    try:
        from core.fsio import read_data_file

        data = read_data_file(weights, max_bytes=size, what=f"{name} weights file")
        if weights.name == MODEL_FILE:
            from safetensors.torch import load

            state = load(data)
        else:
            import torch

            state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except Exception as exc:
        why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise WorkspaceError(f"The {name} retriever file {weights} was rejected ({type(exc).__name__}: {why}); "
                             f"{fix}.") from None


def load_retriever(folder: Path, *, workspace: Workspace | None = None, embedder_id: str | None = None,
                   device: str | None = None) -> TripleRetriever:
    """Load a saved retriever, checking it fits the workspace and embedder.

    Raises
    ------
    WorkspaceError
        If the folder holds no retriever, or it was trained on another graph or embedder (the
        message names `egx train-reg` to retrain).
    """
    from core.backends.device import select_device

    folder = Path(folder)
    mp = folder / MODEL_FILE
    if not mp.exists() and (folder / LEGACY_MODEL_FILE).exists():
        mp = folder / LEGACY_MODEL_FILE
    ws_arg = workspace.name if workspace is not None else "W"
    fix = f"train one with `egx train-reg --workspace {ws_arg} --questions FILE`"
    manifest = read_manifest(folder, mp, unit="triple", name="ReG", fix=fix, other_unit="set retriever='{unit}'",
                             workspace=workspace, embedder_id=embedder_id)
    dev = select_device(device)
    try:
        model = build_mlp(int(manifest["in_dim"]), int(manifest["hidden"]),
                          cosine_residual=bool(manifest.get("cosine_residual")), dim=int(manifest.get("dim", 0)))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkspaceError(f"The ReG retriever manifest in {folder} lacks its dimensions ({exc}); {fix}.") from None
    load_weights(model, mp, name="ReG", fix=fix)
    model.to(dev)
    return TripleRetriever(model, manifest, dev)
