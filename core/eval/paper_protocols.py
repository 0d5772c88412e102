"""Each paper's evaluation protocol as data, ours read from a run, and every difference between them.

:data:`PROTOCOLS` holds how each paper evaluated its main table (datasets, split, question counts,
corpus, KG builder, LLMs, judge, embedder, reranker, answer budget, metrics, the knob values it states),
each with the section that says so. :func:`our_settings` reads the same things of one of our runs from
its benchmark settings (``summary.json``'s ``settings``: backends, judge, budget, ``--set`` changes), what
each method's answer was handed (the summary's ``context``) and its workspace's manifest;
:func:`differences` lists, in plain words, every way the two differ.

The answer budget is the one concept of :mod:`core.methods.budget`: each protocol names the preset of
:data:`~core.methods.budget.BUDGETS` that stands for its paper's budget (``egx bench --budget NAME``,
``egx reproduce``), and quotes the paper's own words beside it:

=============  ======  ==================================================================================
paper          preset  the paper's budget
=============  ======  ==================================================================================
BubbleRAG      15      at most 15 text chunks per query for every method (§4.1)
               chunks
FastInsight    top 10  the top 10 retrieved nodes are scored (R@10, nDCG@10; §4.3.1)
SG-RAG         1,200   a context window fixed at 1,200 tokens per query (§5.2)
               tokens
ReG            1,300   the top-K triples by retriever score, K set per reasoner (App. E; the values of K did
               tokens  not survive in the stored text of the paper): the preset stands for K = 100 triples
=============  ======  ==================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.eval.paper_model import ColumnGroup, PaperProtocol, PaperTable, resolve_paper
from core.methods.budget import OWN, Budget, run_budget

if TYPE_CHECKING:
    from core.index.manifest import Manifest

PROTOCOLS: dict[str, PaperProtocol] = {p.paper: p for p in (
    PaperProtocol(
        "BubbleRAG",
        datasets="HotpotQA, MuSiQue and 2WikiMultiHopQA, multi-hop QA (§4.1)",
        split="the validation split of each dataset, 'following established protocols' (§4.1)",
        questions="1,000 questions per dataset (§4.1)",
        corpus="each dataset's corpus, 'pre-processed into chunks' (§4.1); its size is not given",
        kg_builder="an LLM extracts triples from each chunk, each edge keeping its whole 'head relation tail' text "
                   "(§3.1); the extraction LLM is not named",
        llm="a 30B and an 8B model (Table 2 gives only their sizes; §4.3 names Qwen3-8B as the ablations' backbone)",
        judge="Qwen-3-7B judges ACC_L (§4.1)",
        embedder="Qwen3-Embedding-8B, for every method (§4.1)",
        reranker="none named",
        budget="bubblerag", budget_text="each method observes at most 15 text chunks per query (§4.1)",
        metrics="F1 and LLM-as-a-Judge Accuracy (ACC_L) (§4.1)",
        other=("every other hyperparameter at the default of the method's original implementation (§4.1)",),
        knobs=(("bubblerag", "B", 10, "Table 4"), ("bubblerag", "h", 6, "Table 4"), ("bubblerag", "d", 6, "Table 4"),
               ("bubblerag", "alpha", 1.0, "Table 4")),
        llm_names=("Qwen3-8B",), judge_names=("Qwen-3-7B", "Qwen3-7B"),
        embedder_names=("Qwen3-Embedding-8B",)),
    PaperProtocol(
        "FastInsight",
        datasets="five corpus graphs: the reference networks ACL-OCL and LACD, and the text-rich KGs BSARD-G, "
                 "SciFact-G and NFCorpus-G adapted from three IR benchmarks (§4.2.2)",
        split="ACL-OCL's synthetic queries (§4.2.1) and each IR benchmark's queries (the split is not named)",
        questions="753, 89, 222, 1,109 and 3,237 queries (Table 2)",
        corpus="23,468 to 402,742 nodes per graph (Table 2)",
        kg_builder="the text-rich KGs follow LightRAG's graph construction, every node built from a gold document "
                   "being gold (§4.2.2); ACL-OCL's citation edges are found by GPT-5-nano (§4.2.1)",
        llm="none scores Table 3 (retrieval only); LightRAG and PathRAG write keywords with gpt-4o-mini (§4.1.1)",
        judge="none for Table 3",
        embedder="OpenAI text-embedding-3-small (§4)",
        reranker="bge-reranker-v2-m3; FastInsight reads its frozen [CLS] features and its head's last two layers "
                 "(§4, §4.1.1)",
        budget="fastinsight", budget_text="the top 10 retrieved nodes are scored (R@10, nDCG@10; §4.3.1)",
        metrics="capped R@10 and nDCG@10 (§4.3.1)",
        knobs=(("fastinsight", "b_max", 100, "§4.1.1"), ("fastinsight", "batch", 10, "§4.1.1"),
               ("fastinsight", "alpha", 0.2, "§4.1.1"), ("fastinsight", "beta", 1.0, "§4.1.1"),
               ("rerank", "candidates", 100, "§4.1.1")),
        needs_llm=False,
        embedder_names=("text-embedding-3-small",), reranker_names=("bge-reranker-v2-m3",)),
    PaperProtocol(
        "SG-RAG",
        datasets="ERQA, the paper's multi-constraint entity-retrieval QA set: FB-ERQA, CM-ERQA and UD-ERQA (§5.1)",
        split="the subsets as §5.1 sizes them (no split is named)",
        questions="FB-ERQA 80,000, CM-ERQA 30,000 and UD-ERQA 10,000 QA pairs (§5.1); how many were evaluated is "
                  "not stated",
        corpus="KGs of 14.5K to 1.66M entities (Table 13)",
        kg_builder="FB15K-237 and CPubMed-KG as published; graphs from text extracted by GPT-4o-mini (App. B); the "
                   "questions written by GLM-4-Flash (§5.2)",
        llm="GPT-4o writes every answer (§5.2)",
        judge="GPT-5.2 scores Emp.S (§5.3)",
        embedder="text-embedding-3-small (§5.2)",
        reranker="none named",
        budget="sgrag", budget_text="a context window fixed at 1,200 tokens per query (§5.2)",
        metrics="Hit@1, Precision, Recall, F1 and Emp.S (§5.2, App. L)",
        knobs=(("sgrag", "context_tokens", 1200, "§5.2"),),
        llm_names=("GPT-4o",), judge_names=("GPT-5.2",), embedder_names=("text-embedding-3-small",)),
    PaperProtocol(
        "ReG",
        datasets="WebQSP and CWQ, and their -Sub subsets, KGQA over Freebase (§5.1)",
        split="the datasets' evaluation questions as SubgraphRAG set them up (Li et al., 2024a; §5.1); -Sub drops "
              "the questions whose answer entities are absent from the KG",
        questions="WebQSP has 4,737 and CWQ 34,689 questions in all (App. C.1); the evaluated split's size is not "
                  "given",
        corpus="Freebase (§5.1), scored per question on its subgraph",
        kg_builder="none: Freebase is a curated KG (§5.1)",
        llm="the reasoners LLaMA-3.1-8B, GPT-4o-mini and GPT-4o, zero-shot, temperature 0, seed 42; the supervision "
            "refined by GPT-4o-mini and LLaMA-3.1-8B (§5.1)",
        judge="none: every metric compares the answers with the gold answers (§5.1)",
        embedder="gte-large-en-v1.5, frozen (App. E)",
        reranker="none: a trained retriever (ReG@Triple: an MLP over DDE features; App. E)",
        budget="reg", budget_text="the top-K triples by retriever score, K set per reasoner, a smaller one for LLaMA-3.1-8B "
                    "(App. E; the values of K did not survive in the stored text)",
        budget_note="triples are not passages, so the `reg` preset is the tokens K = 100 triples take (about 1,300 "
                    "WordPiece tokens of triple lines on the MuSiQue sample's KG; SubgraphRAG's K for GPT-4o(-mini), "
                    "which ReG follows) for every method",
        metrics="Macro-F1, Micro-F1, Hit and Hit@1 (§5.1)",
        other=("retrievers trained for 80 epochs, the best validation recall kept (App. E)",
               "evidence chains without a length limit on CWQ (App. E)"),
        llm_names=("Llama3.1-8B", "LLaMA-3.1-8B", "GPT-4o-mini", "GPT-4o"), embedder_names=("gte-large-en-v1.5",)),
)}


def paper_protocol(paper: str) -> PaperProtocol:
    """The protocol of ``paper`` (an ``egx reproduce --paper`` id or a paper key)."""
    return PROTOCOLS[resolve_paper(paper)]


# ------------------------------------------------------------------------------------------ ours
#: The bundled samples' question splits, which a manifest does not record (sample_data/<name>/SOURCE.md).
SAMPLE_SPLITS = {"musique": "MuSiQue's train split: the 100 questions HippoRAG tuned on (sample_data/musique/SOURCE.md)",
                 "demo": "the papers' worked examples, not a benchmark split"}
@dataclass(frozen=True)
class OurSettings:
    """One run of ours in the words of :class:`~core.eval.paper_model.PaperProtocol` (:func:`our_settings`)."""

    workspace: str
    dataset: str
    split: str
    questions: int | None
    corpus: str
    kg_builder: str
    llm: str
    llm_backend: str  #: "none", "recorded", "local", ... ("" when the run did not record it)
    judge: str
    embedder: str
    reranker: str
    budget: Budget = OWN  #: the answer budget the run was made under (:mod:`core.methods.budget`)
    methods: tuple[str, ...] = ()  #: the compared methods of the run
    #: method → what its answers were handed, in words ("5 chunks, 690 tokens (medians over 100 answers)")
    handed: dict[str, str] = field(default_factory=dict)
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)  #: method → the run's ``--set`` changes


def _manifest(manifest: Manifest | Mapping[str, Any] | None) -> Manifest | None:
    from core.index.manifest import Manifest

    if manifest is None or isinstance(manifest, Manifest):
        return manifest
    return Manifest(manifest)


def _kg_builder(meta: Manifest) -> str:
    if meta.extraction:
        return f"triples extracted from the passages by `{meta.extraction.get('extractor', '?')}`"
    kinds = dict(meta.sources)
    openie = [f for f, kind in kinds.items() if kind == "openie"]
    if openie:
        return f"triples an LLM extracted beforehand, read from the OpenIE file {openie[0]}"
    return "a KG read as given (" + (", ".join(sorted(set(map(str, kinds.values())))) or "no source recorded") + ")"


def _corpus(meta: Manifest) -> str:
    g = meta.data.get("graph") or {}  # the counts the build wrote; Manifest has no accessor for them
    if not isinstance(g, Mapping) or "nodes" not in g:
        return "not recorded in the workspace"
    return f"{int(g.get('chunks') or 0):,} passages; a KG of {int(g['nodes']):,} nodes and {int(g.get('edges') or 0):,} edges"


def _llm_words(text: str) -> tuple[str, str]:
    """(backend name, the LLM in words) of a run's ``backends.llm`` ("none (none)", "recorded (recorded:…)")."""
    backend = text.split(" ", 1)[0] if text else ""
    model = text[len(backend):].strip(" ()")
    if backend == "none":
        return backend, "none: no LLM; each answer is the passage sentence that answers (extractive)"
    if backend == "recorded":
        return backend, f"recorded replies of {model.removeprefix('recorded:')}, replayed where a recording holds the run"
    return backend, text or "not recorded"


def _handed(context: Mapping[str, Any] | None) -> str:
    """What a method's answers were handed (a summary's ``context``, :func:`core.eval.context.summarize_context`),
    in words; "" when the run recorded none."""
    if not context or not context.get("n"):
        return ""

    def num(x: Any) -> str:
        return f"{float(x):,.0f}" if float(x).is_integer() else f"{float(x):,.1f}"

    c, t = context.get("chunks") or {}, context.get("tokens") or {}
    return (f"{num(c.get('median', 0))} chunks, {num(t.get('median', 0))} tokens (medians over {context['n']} "
            f"answers; at most {c.get('max', 0)} chunks, {int(t.get('max', 0)):,} tokens)")


def our_settings(settings: Mapping[str, Any], manifest: Manifest | Mapping[str, Any] | None = None, *,
                 questions: int | None = None, methods: Iterable[str] = (),
                 contexts: Mapping[str, Mapping[str, Any] | None] | None = None) -> OurSettings:
    """A run of ours in the terms of a paper's protocol.

    Parameters
    ----------
    settings
        The run's settings (``summary.json``'s ``settings`` / ``run.json``'s): ``workspace``, ``backends``
        (``embedder``, ``llm``, ``reranker`` as :meth:`Backends.names` writes them), ``judge``
        (:mod:`core.eval.judge_choice`) and ``config_changes`` (``egx bench --set``).
    manifest
        The workspace's manifest (``workspace.meta``, or the dict): dataset, corpus size, KG builder.
    questions
        How many questions the run scored (``summary["questions"]``).
    methods
        The compared methods (whose ``--set`` changes and stated knobs are compared).
    contexts
        Per method, what its answers were handed (the summary's ``methods[m]["context"]``), said beside the
        run's budget.
    """
    from core.eval.judge_choice import judge_label, run_judge

    meta = _manifest(manifest)
    backends = settings.get("backends") or {}
    backend, llm = _llm_words(str(backends.get("llm", "")))
    changes = {str(m): dict(c) for m, c in (settings.get("config_changes") or {}).items()}
    name = meta.name if meta is not None and meta.name else str(settings.get("workspace", ""))
    split = SAMPLE_SPLITS.get(name, "not recorded") if meta is None or meta.sample else "not recorded in the workspace"
    judge = judge_label(run_judge(dict(settings))) if "judge" in settings else "none"
    return OurSettings(
        workspace=name, dataset=(meta.title if meta is not None and meta.title else name) or "not recorded",
        split=split, questions=questions,
        corpus=_corpus(meta) if meta is not None else "not recorded",
        kg_builder=_kg_builder(meta) if meta is not None else "not recorded",
        llm=llm, llm_backend=backend, judge=judge,
        embedder=str(backends.get("embedder") or "not recorded"),
        reranker=str(backends.get("reranker") or "none"),
        budget=run_budget(settings), methods=tuple(dict.fromkeys(methods)),
        handed={m: h for m in dict.fromkeys(methods) if (h := _handed((contexts or {}).get(m)))},
        changes=changes)


# ------------------------------------------------------------------------------------------ differences
@dataclass(frozen=True)
class Difference:
    """One way our run's setting differs from the paper's: ``aspect`` (LLM, judge, budget, ...), both sides in
    words, and what that does to the comparison."""

    aspect: str
    paper: str
    ours: str
    consequence: str = ""

    @property
    def sentence(self) -> str:
        """The difference as one plain sentence."""
        tail = f" {self.consequence}" if self.consequence else ""
        return f"{self.aspect}: the paper — {self.paper}; this run — {self.ours}.{tail}"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", text.lower())


def _names_in(names: Iterable[str], text: str) -> bool:
    """Whether one of the model ``names`` stands in ``text`` (case, dashes and spaces aside), as a whole name:
    GPT-4o is not found in gpt-4o-mini, the one model name here that another one extends."""
    t = _norm(text)
    return any(_norm(n) and re.search(re.escape(_norm(n)) + r"(?!mini)", t) for n in names)


def _paper_llm(protocol: PaperProtocol, table: PaperTable | None, group: ColumnGroup | None) -> tuple[str, tuple[str, ...]]:
    """The paper's LLM for the compared columns, and the model names that would make ours the same."""
    if group is not None and group.llm:
        sizes = re.findall(r"\b\d+B\b", group.llm)[:1]  # "an 8B model (...)": the names of that size
        return group.llm, tuple(n for n in protocol.llm_names if sizes and _norm(sizes[0]) in _norm(n))
    if table is not None and table.closest_llm:
        return f"{table.closest_llm} (the rows compared; {protocol.llm})", (table.closest_llm,)
    return protocol.llm, protocol.llm_names


def differences(protocol: PaperProtocol, ours: OurSettings, *, table: PaperTable | None = None,
                group: ColumnGroup | None = None) -> list[Difference]:
    """Every difference of setting between ``protocol`` (seen from ``table``'s column ``group``, by default
    its closest) and our run, in plain words: dataset, question split, question count, corpus, KG builder,
    LLM, judge, embedder, reranker, the answer budget (the run's preset against the paper's, with what each
    method was handed), and the knobs the paper states.

    Texts cannot be compared for meaning, so an aspect counts as the same only where that is certain: a
    model the paper names appears in our backend's model id, a dataset's name in our workspace's title, a
    budget of the same limits, a knob of the same value.

    >>> ours = OurSettings("musique", "MuSiQue (100 questions)", "train", 100, "1,890 passages", "OpenIE",
    ...                    "none: no LLM", "none", "none", "bge-small", "none")
    >>> [d.aspect for d in differences(paper_protocol("bubblerag"), ours)][:3]
    ['dataset', 'question split', 'questions']
    """
    if group is None and table is not None:
        group = table.group()
    out: list[Difference] = []
    dataset = group.dataset if group is not None else protocol.datasets
    header = group.header if group is not None else ""
    if not (header and _names_in([header], ours.dataset)):
        out.append(Difference("dataset", dataset, ours.dataset, "Not the same questions: read the paper's figures "
                                                                "beside ours as orientation, not as a reproduction."))
    out.append(Difference("question split", protocol.split, ours.split))
    paper_n = group.questions if group is not None else None
    if paper_n is None or paper_n != ours.questions:
        small = (ours.questions is not None and ours.questions <= 200)
        out.append(Difference("questions", f"{paper_n:,}" if paper_n else protocol.questions,
                              f"{ours.questions}" if ours.questions is not None else "not recorded",
                              "At this many questions a 95 % interval spans about ±8-10 points." if small else ""))
    out.append(Difference("corpus", protocol.corpus, ours.corpus))
    out.append(Difference("KG builder", protocol.kg_builder, ours.kg_builder))
    if protocol.needs_llm:
        words, names = _paper_llm(protocol, table, group)
        if not _names_in(names, ours.llm):
            out.append(Difference("LLM", words, ours.llm, _llm_consequence(ours.llm_backend)))
    judged = table is None or any(m.needs == "judge" for m in table.metrics)
    if judged and not _names_in(protocol.judge_names, ours.judge) and protocol.judge_names:
        out.append(Difference("judge", protocol.judge, ours.judge,
                              "The LLM-judged metrics are blank (run with --judge-llm)." if ours.judge == "none" else
                              "A different judge model scores the answers."))
    if not _names_in(protocol.embedder_names, ours.embedder):
        out.append(Difference("embedder", protocol.embedder, ours.embedder))
    if protocol.reranker_names and not _names_in(protocol.reranker_names, ours.reranker):
        out.append(Difference("reranker", protocol.reranker, ours.reranker))
    out += _budget_differences(protocol, ours)
    for method, knob, value, where in protocol.knobs:
        if method in ours.methods:
            mine = _knob_value(method, knob, ours.changes.get(method))
            if mine is not None and mine != value:
                out.append(Difference("setting", f"{method}.{knob} = {value} ({where})", f"{method}.{knob} = {mine}"))
    return out


def _llm_consequence(backend: str) -> str:
    if backend == "none":
        return ("Answers are extracted sentences: EM/F1 are blank and the answer-set metrics score a sentence by "
                "containment.")
    if backend == "recorded":
        return "Replies of a small local model, replayed only for the questions and settings it was recorded with."
    return ""


def _budget_differences(protocol: PaperProtocol, ours: OurSettings) -> list[Difference]:
    """The paper's answer budget (its words, and the preset that stands for it) against the run's, with what
    each method's answers were handed. A retrieval-only table (FastInsight Table 3) scores a cut of the ranking,
    which no answer budget changes: nothing to say there."""
    if not protocol.needs_llm:
        return []
    preset = protocol.budget_preset
    paper = f"{protocol.budget_text}; the preset `{preset.name}`: {preset.limits()}"
    run = "`own`: each method's own paper default" if ours.budget.own else \
        f"`{ours.budget.name}`: {ours.budget.limits()}"
    handed = "; ".join(f"{m} {h}" for m, h in ours.handed.items())
    words = run + (f" — handed: {handed}" if handed else "")
    if (ours.budget.chunks, ours.budget.tokens) != (preset.chunks, preset.tokens):
        return [Difference("answer budget", paper, words,
                           f"Not a like-for-like context: `--budget {preset.name}` gives every method the paper's "
                           "budget.")]
    if protocol.budget_note:
        return [Difference("answer budget", paper, words, f"The preset stands in for it: {protocol.budget_note}.")]
    return []


def _knob_value(method: str, knob: str, changes: Mapping[str, Any] | None) -> Any:
    from core.methods.registry import METHODS

    spec = METHODS.get(method)
    return None if spec is None else getattr(spec.make_config(**dict(changes or {})), knob, None)
