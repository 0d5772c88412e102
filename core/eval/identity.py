"""What a benchmark run's figures were computed on beyond its settings, and whether a folder's run may be resumed.

A run's ``run.json`` settings (:mod:`core.eval.bench_files`) keep, besides the workspace's *name*, the backends
and the cut:

* ``content`` — the workspace's content identity (:func:`workspace_identity`): the graph's content and
  provenance hashes, its size, how many times documents were added, the index's embedder, and a hash of the
  questions with their gold passages (a gold title fixed in the questions file changes it);
* ``models`` — every trained model a benchmarked method uses, as the method declares it through
  ``Method.stamp`` (ReG's retriever: a digest of its files; SG-RAG's dominance model: its cache key).
  FastInsight's node vectors and PPR's synonymy edges declare none: their cache keys are made of the graph's
  content, the embedder and the method's config, which the settings already hold.

A rerun into the same folder resumes only when both are unchanged (:func:`resume_check`); otherwise it is
refused with what changed ("3 documents added (content hash a1b2c3d4 → e5f6a7b8)") and how to start a new run —
never a silent resume that puts an older workspace's rows beside new ones. A ``run.json`` written before runs
kept their identity cannot say whether anything changed: it resumes only when the user says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.errors import UnknownNameError
from core.eval.bench_files import RUN, read_run
from core.text import content_hash, plural

if TYPE_CHECKING:
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends

__all__ = ["IDENTITY_KEYS", "ResumeCheck", "content_change", "model_change", "model_stamps", "questions_hash",
           "report_change", "resume_check", "trained_questions", "workspace_identity"]

#: the settings keys a run's identity lives in (compared by :func:`resume_check` with their own messages)
IDENTITY_KEYS = ("content", "models")


def questions_hash(questions: Sequence[Question]) -> str:
    """A digest of the questions as a benchmark scores them: ids, text, matched and unmatched gold, answers, and the
    passages that count as one gold document (``gold_groups``, only where a question has them: the digest of every
    other question set is as it was, while a run scored before such gold counted once is not resumed beside it)."""
    rows = [[q.id, q.question, list(q.gold_chunks), list(q.unmatched), q.answer, list(q.aliases),
             *([[list(g) for g in q.gold_groups]] if getattr(q, "gold_groups", ()) else [])] for q in questions]
    return content_hash(json.dumps(rows, ensure_ascii=False))


def questions_text_hash(questions: Sequence[Question], title_of: Callable[[str], str]) -> str:
    """A digest of what the questions file says (ids, text, answers and the gold titles it names: those it matched,
    by ``title_of`` their passage, and those it did not), without where its gold landed in the workspace: it tells
    "the file changed" from "the same gold now matches other passages" (documents were added), which an audit read
    as "the questions changed" after adding none."""
    rows = [[q.id, q.question, q.answer, list(q.aliases),
             sorted({*(title_of(c) for c in q.gold_chunks), *q.unmatched})] for q in questions]
    return content_hash(json.dumps(rows, ensure_ascii=False))


def workspace_identity(workspace: Workspace, questions: Sequence[Question]) -> dict[str, Any]:
    """The content a run's figures were computed on (module docstring). Read after the index is ensured, so a
    first run that builds the index and its resume agree."""
    return {**_content(workspace, workspace.graph), "questions": questions_hash(questions),
            "questions_text": questions_text_hash(questions, _titles(workspace.graph))}


def _titles(graph: Any) -> Callable[[str], str]:
    def title_of(cid: str) -> str:
        try:
            return str(graph.chunk(cid).title)
        except UnknownNameError:
            return cid

    return title_of


def _content(workspace: Workspace, graph: Any) -> dict[str, Any]:
    """The workspace part of :func:`workspace_identity`, counted on ``graph`` (the workspace's graph, or a
    graph-store view of it, which counts without reading the whole graph)."""
    return {"content_hash": workspace.content_hash, "provenance_hash": workspace.provenance_hash,
            "passages": graph.n_chunks, "nodes": graph.n_nodes, "edges": graph.n_edges,
            "inserts": len(workspace.meta.inserts), "index": workspace.meta.index_model_id}


def model_stamps(methods: Sequence[str], workspace: Workspace, backends: Backends,
                 configs: Mapping[str, object] | None = None) -> dict[str, dict[str, str]]:
    """``{method: {model: identity}}`` of every method in ``methods`` that declares trained models
    (``Method.stamp``), with its config from ``configs`` (else its defaults)."""
    from core.methods.registry import get_method

    out: dict[str, dict[str, str]] = {}
    for m in methods:
        spec = get_method(m)
        if spec.stamp is not None:
            cfg = (configs or {}).get(m) or spec.make_config()
            out[m] = dict(spec.stamp(workspace, backends, cfg))
    return out


def trained_questions(methods: Sequence[str], workspace: Workspace, backends: Backends,
                      configs: Mapping[str, object] | None = None) -> dict[str, frozenset[str]]:
    """``{method: question ids}``: the questions the trained models of each method in ``methods`` were trained or
    validated on (``Method.trained_on``; methods without trained models are absent)."""
    from core.methods.registry import get_method

    out: dict[str, frozenset[str]] = {}
    for m in methods:
        spec = get_method(m)
        if spec.trained_on is not None:
            ids = frozenset(spec.trained_on(workspace, backends, (configs or {}).get(m) or spec.make_config()))
            if ids:
                out[m] = ids
    return out


def content_change(old: Mapping[str, Any], new: Mapping[str, Any],
                   inserts: Sequence[Mapping[str, Any]] | None = None) -> str:
    """What changed between two :func:`workspace_identity` values, in words ("" when nothing did), e.g. ``3
    documents added (a.md, b.md, c.md; 5 passages) (content hash a1b2c3d4 → e5f6a7b8)``. ``inserts``: the
    workspace's insert records (``Workspace.meta.inserts``), which name the documents added."""
    parts: list[str] = []
    added = int(new.get("inserts") or 0) - int(old.get("inserts") or 0)
    if added > 0 and inserts is not None:
        recs = list(inserts)[-added:]
        docs = [str(name) for r in recs for name in (r.get("sources") or {})]
        passages = sum(int(r.get("added") or 0) for r in recs)
        shown = ", ".join(docs[:3]) + (f" and {len(docs) - 3} more" if len(docs) > 3 else "")
        parts.append(f"{plural(len(docs), 'document')} added ({shown}; {plural(passages, 'passage')})" if docs
                     else f"documents added {added} time(s)")
    elif old.get("passages") != new.get("passages"):
        d = int(new.get("passages") or 0) - int(old.get("passages") or 0)
        parts.append(f"{plural(abs(d), 'passage')} {'added' if d > 0 else 'removed'} "
                     f"({old.get('passages')} → {new.get('passages')})")
    for key, word in (("nodes", "node"), ("edges", "triple")):
        if old.get(key) != new.get(key) and not parts:
            parts.append(f"{word}s {old.get(key)} → {new.get(key)}")
    if old.get("content_hash") != new.get("content_hash") and not parts:
        parts.append("the graph was rebuilt with other content")
    a, b = str(old.get("content_hash") or "?")[:8], str(new.get("content_hash") or "?")[:8]
    if parts and a != b:  # beside the content's change, not after a questions change it has nothing to do with
        parts[-1] += f" (content hash {a} → {b})"
    if old.get("index") != new.get("index"):
        parts.append(f"the index was rebuilt with {new.get('index') or 'another embedder'}")
    if old.get("questions") != new.get("questions"):
        same_file = old.get("questions_text") is not None and old.get("questions_text") == new.get("questions_text")
        parts.append("the questions' gold titles now match other passages of the workspace (the questions themselves "
                     "are unchanged)" if same_file else "the questions changed (their text, gold passages or answers)")
    if not parts:
        return ""
    return "; ".join(parts)


def report_change(settings: Mapping[str, Any], workspace: Workspace, graph: Any = None) -> str:
    """What changed in ``workspace`` since a finished run with these ``run.json`` settings was made on it, in
    :func:`content_change`'s words ("" when nothing did, or when the run predates content identities), the questions
    included as the Run tab's refusal names them (:func:`current_questions`: an audit's loaded report said "1 document
    added" and not that the questions file had been replaced since; a questions file that cannot be read is left
    unsaid). ``graph``: the graph to count on (a page's graph-store view; default the workspace's whole graph)."""
    old = settings.get("content")
    if not isinstance(old, Mapping):
        return ""
    g = workspace.graph if graph is None else graph
    now = {**_content(workspace, g), "questions": old.get("questions"), "questions_text": old.get("questions_text")}
    if old.get("questions") is not None:
        now.update(current_questions(workspace, settings.get("questions_file")) or {})
    if old.get("index") is None:  # a run that never reached the index (e.g. graph methods only) does not name one
        now["index"] = None
    return content_change(old, now, workspace.meta.inserts)


#: (questions file, its mtime and size, the workspace's content hash) → its :func:`current_questions` hashes
_QUESTIONS_SEEN: dict[tuple[str, int, int, str], dict[str, str]] = {}


def current_questions(workspace: Workspace, questions_file: Any = None) -> dict[str, str] | None:
    """The ``questions`` and ``questions_text`` hashes of :func:`workspace_identity` for the questions a run would
    read now: ``questions_file`` (the file a run's settings name) when it still exists, else the workspace's own; None
    when there is none or it cannot be read (then nothing is said about the questions). Kept per file, mtime, size and
    workspace content, so a page that asks on every rerun reads the file once."""
    from core.errors import EgxError
    from core.index.questions import chunk_table, load_questions_file

    path = Path(str(questions_file)) if questions_file else None
    if path is None or not path.is_file():
        path = workspace.questions_path
    try:
        if path is None or not path.is_file():
            return None
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size, str(workspace.content_hash))
        if key not in _QUESTIONS_SEEN:
            table = chunk_table(workspace)
            qs = load_questions_file(path, table)
            _QUESTIONS_SEEN[key] = {"questions": questions_hash(qs),
                                    "questions_text": questions_text_hash(qs, _chunk_titles(table))}
        return _QUESTIONS_SEEN[key]
    except (EgxError, OSError, ValueError):
        return None


def _chunk_titles(table: Any) -> Callable[[str], str]:
    """``title_of`` over a graph or a :class:`~core.index.questions.ChunkTable` (both have ``chunks`` and
    ``chunk_index``), as :func:`_titles` reads a graph."""
    def title_of(cid: str) -> str:
        i = table.chunk_index.get(cid)
        return cid if i is None else str(table.chunks[i].title)

    return title_of


#: What a model stamp's value is where it is not the model itself: SG-RAG's names the model it would train (a key
#: of the graph, embedder and seed), so after "Add documents" it changes before any model is trained on the new graph.
STAMP_GLOSS = {"dominance model": "the key of the graph, embedder and seed it is trained from: after a change to the "
                                  "graph a new one is trained on first use"}


def model_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """Which trained models differ between two :func:`model_stamps` values, for the methods both hold ("" when
    none), each under its method's title, e.g. ``ReG's ReG@Triple retriever sha256:3f2a… → sha256:9c1d…``; a
    stamp that is a key rather than a model says so (:data:`STAMP_GLOSS`)."""
    from core.methods.registry import get_method
    from core.papers import paper_of

    def title(m: str) -> str:  # the method's paper ("SG-RAG", "ReG") where it is one method of one paper
        try:
            found = paper_of(get_method(m).paper)
        except UnknownNameError:  # a method no longer registered keeps its name
            return m
        return found[0].key if found is not None else m

    parts = []
    for m in [m for m in new if m in old]:
        a, b = old.get(m) or {}, new.get(m) or {}
        parts += [f"{title(m)}'s {name} {a.get(name, 'none')} → {b.get(name, 'none')}"
                  + (f" ({STAMP_GLOSS[name]})" if name in STAMP_GLOSS else "")
                  for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
    return "; ".join(parts)


@dataclass(frozen=True)
class ResumeCheck:
    """Whether a run folder can take a run with these settings.

    ``state``: ``new`` (no run there), ``resume`` (the same settings, content and models: its finished pairs are
    kept), ``stale`` (the workspace or a trained model changed since), ``unverified`` (a ``run.json`` from before
    runs kept their identity), ``other`` (other settings, or another judge). ``message`` says it with the
    command line's fixes, ``app`` in the app's words."""

    state: Literal["new", "resume", "stale", "unverified", "other"]
    message: str = ""
    app: str = ""
    old: Mapping[str, Any] | None = None  #: the folder's run.json (None when there is none)
    changed: str = ""  #: what changed since the run (``stale``): "the workspace changed since this run: …"

    @property
    def ok(self) -> bool:
        return self.state in ("new", "resume")


def resume_check(out: Path, settings: Mapping[str, Any],
                 inserts: Sequence[Mapping[str, Any]] | None = None) -> ResumeCheck:
    """Compare the run in ``out`` (its ``run.json``) with a run of ``settings``; ``inserts``, the workspace's insert
    records (``Workspace.meta.inserts``), name the documents added since, when they are given (module docstring)."""
    from core.eval.judge_choice import judge_label, run_judge

    path = Path(out) / RUN
    if not path.exists():
        return ResumeCheck("new")
    run = read_run(path)
    old = dict(run["settings"])
    name = Path(out).name
    if "judge" in old and old["judge"] is not False:  # a run not judged yet (or older) may take a judge
        was, now = run_judge(old), run_judge(dict(settings))
        if not (was is not None and now is not None
                and (was.get("llm"), was.get("model")) == (now.get("llm"), now.get("model"))):
            flag = f"--judge-llm {was['llm']}" if was is not None else "no --judge-llm"
            pick = f"“{was['llm']}”" if was is not None else "“none”"
            return ResumeCheck(
                "other", f"{out} holds a benchmark run judged by {judge_label(was)}; this run asks for judge "
                         f"{judge_label(now)}. One run folder holds one judge's verdicts: resume it with {flag}, "
                         "or use another --out folder.",
                f"The run “{name}” was judged by {judge_label(was)}; this run asks for judge {judge_label(now)}. "
                f"One run holds one judge's verdicts: pick {pick} as Judge LLM to resume it, or pick another run "
                "name.", run)
    old["judge"] = settings.get("judge", False) if old.get("judge", False) is False else old["judge"]
    legacy = "content" not in old
    if legacy:  # nothing to compare the identity with: the user decides (module docstring)
        old.update({k: settings.get(k) for k in ("content", "models", "keep_trained") if k in settings})
    diff = sorted(k for k in set(old) | set(settings) if k not in IDENTITY_KEYS and old.get(k) != settings.get(k))
    if diff:
        return ResumeCheck(
            "other", f"{out} holds a benchmark run with other settings ({', '.join(diff)}: "
                     f"{[old.get(k) for k in diff]} vs {[settings.get(k) for k in diff]}); use another --out folder, "
                     "pass --restart to replace its results, or delete that folder.",
            f"The run “{name}” was made with other settings ({settings_diff(old, settings, diff)}), so these results "
            "cannot join it. Start a new run (a new run name), or open that run on the “Load a report” tab.", run)
    if legacy:
        return ResumeCheck(
            "unverified", f"{out} holds a benchmark run from before runs recorded what they were computed on (the "
                          "workspace's content and the trained models), so nothing can tell whether the workspace or "
                          "a model changed since; resuming could put stale results beside new ones. Resume it anyway "
                          "with --resume-unverified, pass --restart to replace its results, or use another --out "
                          "folder.",
            f"The run “{name}” was saved before runs recorded what they were computed on (the workspace's content and "
            "the trained models), so nothing can tell whether the workspace or a model changed since; resuming could "
            "put stale results beside new ones. Resume it anyway, or start a new run.", run)
    changed = content_change(old.get("content") or {}, settings.get("content") or {}, inserts)
    retrained = model_change(old.get("models") or {}, settings.get("models") or {})
    what = ([f"the workspace changed since this run: {changed}"] if changed else []) + \
        ([f"the trained models changed since this run: {retrained}"] if retrained else [])
    return ResumeCheck("resume", old=run) if not what else _stale(out, what, run)


def _stale(out: Path, what: list[str], run: Mapping[str, Any]) -> ResumeCheck:
    text = "; ".join(what)
    return ResumeCheck(
        "stale", f"{out} holds a benchmark run that is out of date — {text}. Its results would be stale beside new "
                 f"ones, so it is not resumed; start a new run with another --out folder, or pass --restart to "
                 f"replace the old results in {out}.",
        f"The run “{Path(out).name}” is out of date — {text}. Its results would be stale beside new ones, so it is "
        "not resumed: start a new run (a new run name), or open the old one on the “Load a report” tab.", run,
        changed=text)


#: The settings :func:`settings_diff` names first, in this order.
SETTINGS_FIRST = ("workspace", "budget", "backends", "cut")


def settings_diff(old: Mapping[str, Any], new: Mapping[str, Any], keys: list[str]) -> str:
    """``workspace: demo → musique; backends.llm: none → recorded`` — the settings a resumed run would change,
    named without the run's files (paths in the values are cut to their last part)."""
    def show(v: Any) -> str:
        text = json.dumps(v, ensure_ascii=False, sort_keys=True) if isinstance(v, (dict, list)) else str(v)
        return Path(text).name if text.startswith("/") else text

    parts = []
    # what a reader checks first leads (only four are shown): another workspace, then another budget
    for k in sorted(keys, key=lambda k: (SETTINGS_FIRST.index(k) if k in SETTINGS_FIRST else len(SETTINGS_FIRST), k)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            parts += [f"{k}.{s}: {show(a.get(s))} → {show(b.get(s))}" for s in sorted(set(a) | set(b))
                      if a.get(s) != b.get(s)]
        else:
            parts.append(f"{k}: {show(a)} → {show(b)}")
    return "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")
