"""The build progress bar reflects the work done: no jump over a stage that is skipped."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from core.backends.registry import get_embedder, get_extractor
from core.index.create import create_workspace


def _triples(tmp_path: Path, n: int = 400) -> Path:
    rows = ["head,relation,tail,source"]
    rows += [f"entity {i},links to,entity {i + 1},c{i % 40}" for i in range(n)]
    f = tmp_path / "t.csv"
    f.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return f


def _corpus(tmp_path: Path, n: int = 60) -> Path:
    docs = [{"title": f"Doc {i}", "text": f"Alice Smith met Bob Jones in Paris in {1900 + i}. "
             f"Carol White founded Acme Corp {i} in Berlin."} for i in range(n)]
    f = tmp_path / "corpus.json"
    f.write_text(json.dumps(docs), encoding="utf-8")
    return f


def _fractions(inputs: list[Path], path: Path, extractor: str | None = None) -> list[float]:
    seen: list[float] = []
    create_workspace(inputs, path, embedder=get_embedder("hashing"), progress=lambda m, f: seen.append(f),
                     extractor=get_extractor(extractor) if extractor else None)
    return seen


def _assert_smooth(seen: list[float], limit: float) -> None:
    assert seen == sorted(seen), "progress went backwards"
    assert seen[-1] == 1.0
    jumps = [b - a for a, b in pairwise(seen)]
    assert max(jumps) <= limit, f"the bar jumped by {max(jumps):.0%}: {seen}"


def test_triples_upload_goes_straight_to_embedding(tmp_path: Path) -> None:
    seen = _fractions([_triples(tmp_path)], tmp_path / "ws")
    # the old bar went 5 % (loaded) → 50 % (embedding starts: extraction, which never ran, took 5-50 %)
    _assert_smooth(seen, 0.35)
    assert max(f for f in seen if f < 1.0) > 0.6  # embedding is most of the bar


def test_corpus_with_rule_extraction_is_weighed_by_cost(tmp_path: Path) -> None:
    # named: without one the builder takes spaCy, weighed at its own rate, whose 60 passages are one batch
    seen = _fractions([_corpus(tmp_path)], tmp_path / "ws", extractor="rules")
    _assert_smooth(seen, 0.5)
