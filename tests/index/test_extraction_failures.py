"""No cache poisoning: a failed LLM extraction is never cached as "no triples", the
build summary and the manifest report it, and the next build retries exactly those chunks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.backends.base import ExtractedTriple
from core.backends.extractors import LLMTripleExtractor
from core.backends.llm_guard import GuardedLLM, LLMSettings
from core.backends.llm_openai import OpenAILLM
from core.cli import main
from core.errors import LLMError
from core.graph.builder import _cache_file, extract_triples
from core.graph.model import Chunk
from tests.fake_openai import extraction_reply, fake_openai_server, openai_env

REFUSAL = "I'm sorry, but I can't help with that."
LIMITS = ["--llm", "openai", "--llm-timeout", "0.5", "--llm-retries", "0"]
CHUNKS = [Chunk(f"c{i}", f"Doc {i}", f"Alice Smith met Bob Jones in Paris in 19{i}0.") for i in range(4)]


def _llm(server) -> GuardedLLM:
    return GuardedLLM(OpenAILLM(model="fake-model", base_url=server.base_url, api_key="k"),
                      LLMSettings(timeout=0.5, retries=0, backoff=0.01, breaker=50))


def _corpus(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.jsonl"
    p.write_text("\n".join(json.dumps({"title": f"Doc {i}", "text": f"Alice Smith met Bob Jones in Paris in 19{i}0."})
                           for i in range(3)), encoding="utf-8")
    return p


def test_failed_chunks_are_reported_not_cached_and_retried(tmp_path):
    with fake_openai_server({"content": REFUSAL}) as server:
        ex = LLMTripleExtractor(_llm(server), batch_size=1)
        first = extract_triples(CHUNKS, ex, cache_dir=tmp_path)
        assert first.failed == ("c0", "c1", "c2", "c3") and first.n_triples == 0
        assert any("output unusable" in n for n in first.notes)
        assert not list(tmp_path.rglob("*.json"))  # nothing cached
        server.reply({"content": extraction_reply})  # the endpoint is fixed
        second = extract_triples(CHUNKS, ex, cache_dir=tmp_path)
        assert second.failed == () and second.from_cache == 0 and second.extracted == 4
        assert second.triples["c2"] == (ExtractedTriple("Doc 2", "is described in", "passage 1"),)
        third = extract_triples(CHUNKS, ex, cache_dir=tmp_path)
        assert third.from_cache == 4 and third.extracted == 0 and third.n_triples == 4


def test_only_malformed_triples_count_as_a_failure(tmp_path):
    """[["a", "b"]] is an unusable output, not "this passage has no facts": never cached as empty."""
    with fake_openai_server({"content": json.dumps({"triples": [["Alice Smith", "met"]]})}) as server:
        res = extract_triples(CHUNKS[:1], LLMTripleExtractor(_llm(server), batch_size=1), cache_dir=tmp_path)
        assert res.failed == ("c0",) and server.chat_requests == 3  # chat_json told the model why, twice
        server.reply({"content": json.dumps({"triples": []})})  # a real "nothing here" is a result
        res = extract_triples(CHUNKS[:1], LLMTripleExtractor(_llm(server), batch_size=1), cache_dir=tmp_path)
        assert res.failed == () and res.n_triples == 0
    assert len(list(tmp_path.rglob("*.json"))) == 1


def test_v1_empty_cache_entries_are_not_trusted(tmp_path):
    """Entries written before this fix stored failures as []: those are asked again, non-empty ones kept."""
    class Rules:
        name, model_id = "rules", "rules-v1"

        def __init__(self):
            self.asked: list[str] = []

        def extract(self, passages):
            self.asked += passages
            return [[ExtractedTriple("x", "y", "z")] for _ in passages]

    ex = Rules()
    for c, rows in zip(CHUNKS[:2], ([], [["Alice Smith", "met", "Bob Jones"]])):
        f = _cache_file(tmp_path, "rules:rules-v1", c)
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(rows))
    res = extract_triples(CHUNKS[:2], ex, cache_dir=tmp_path)
    assert ex.asked == [CHUNKS[0].passage] and res.from_cache == 1
    assert res.triples["c1"] == (ExtractedTriple("Alice Smith", "met", "Bob Jones"),)
    assert json.loads(_cache_file(tmp_path, "rules:rules-v1", CHUNKS[0]).read_text()) == \
        {"v": 2, "triples": [["x", "y", "z"]]}


def test_a_dead_endpoint_stops_the_build_and_a_rerun_resumes(tmp_path):
    with fake_openai_server({"content": extraction_reply}, {"content": extraction_reply}, {"status": 500}) as server:
        ex = LLMTripleExtractor(_llm(server), batch_size=1)
        with pytest.raises(LLMError, match=r"^Triple extraction stopped at chunk 3 of 4: .*HTTP 500.* The 2 chunk\(s\) "
                                           r"done so far are cached; fix the LLM endpoint and run the same command "
                                           r"again to resume\.$"):
            extract_triples(CHUNKS, ex, cache_dir=tmp_path, batch_size=1)
        server.reply({"content": extraction_reply})
        res = extract_triples(CHUNKS, ex, cache_dir=tmp_path, batch_size=1)
    assert res.from_cache == 2 and res.extracted == 2 and res.n_triples == 4


def test_cli_rebuild_after_the_endpoint_is_fixed_yields_triples(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    corpus, ws = _corpus(tmp_path), tmp_path / "w"
    with fake_openai_server({"content": REFUSAL}) as server:
        for k, v in openai_env(server).items():
            monkeypatch.setenv(k, v)
        assert main(["index", str(corpus), "--workspace", str(ws), "--embedder", "hashing", *LIMITS]) == 0
        out = capsys.readouterr().out
        assert re.search(r"  extraction \(llm:llm-openie-v2:openai:fake-model@http://127\.0\.0\.1:\d+/v1\): 0 triples; "
                         r"3 chunk\(s\) extracted now, 0 from the cache, 3 failed \(corpus:0, corpus:1, corpus:2\)", out)
        assert "note: Triple extraction failed for 3 of 3 chunks (the LLM's output stayed unusable), so they have " \
               "no triples. Failures are not cached: build the workspace again (egx index ... --overwrite) to " \
               "retry just those chunks." in out
        manifest = json.loads((ws / "manifest.json").read_text())
        assert manifest["extraction"]["failed_chunks"] == 3 and len(manifest["extraction"]["failed_chunk_ids"]) == 3

        server.reply({"content": extraction_reply})  # fixed
        assert main(["index", str(corpus), "--workspace", str(ws), "--embedder", "hashing", "--overwrite",
                     *LIMITS]) == 0
        out = capsys.readouterr().out
    assert re.search(r"\): 3 triples; 3 chunk\(s\) extracted now, 0 from the cache, 0 failed\n", out)
    manifest = json.loads((ws / "manifest.json").read_text())
    assert manifest["graph"]["edges"] == 3 and manifest["extraction"]["failed_chunks"] == 0
    assert not any("Triple extraction failed" in w for w in manifest["warnings"])
