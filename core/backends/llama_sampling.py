"""Greedy decoding under a JSON grammar at the speed of plain greedy decoding (llama.cpp).

llama-cpp-python's sampler chain applies a grammar to *every* token of the vocabulary before it picks
one: for Qwen2.5 that is 151,936 grammar checks per generated token, which on 2 CPU cores made a
constrained reply several times slower than an unconstrained one (measured: ``benchmarks/README.md``).
llama.cpp's own command-line sampler avoids this ("sample first, then check"); the Python binding does
not expose it, so this module does it for the one case our stages use, greedy decoding (temperature 0,
no penalties): the grammar checks the best few tokens first and the whole vocabulary only when none of
them fits. The chosen token is the one the full check would choose: the highest-logit token the grammar
allows (the lowest id among equal logits, as llama.cpp's greedy sampler picks).
"""

from __future__ import annotations

import ctypes
import types
from typing import Any

import numpy as np

#: tokens checked against the grammar first; the best valid token is nearly always among them
FIRST_CHECK = 64
#: llama.cpp's ``llama_token_data`` (id, logit, p) as a numpy record, so an array of them is one buffer
_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class GreedyGrammarSampler:
    """Stands in for llama-cpp-python's ``LlamaSampler`` (``sample`` / ``accept`` / ``reset`` / ``close``)
    for greedy decoding, with the grammar applied to the best :data:`FIRST_CHECK` tokens first."""

    def __init__(self, llama: Any, grammar: Any | None) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self._n_vocab = int(llama.n_vocab())
        self._grammar = None
        if grammar is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(
                llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
        self.full_checks = 0  #: tokens for which the best few did not fit and the whole vocabulary was checked

    def _check(self, ids: np.ndarray, logits: np.ndarray) -> int:
        """The best token of ``ids`` the grammar allows, or -1 (the grammar sets the others to -inf)."""
        lib = self._lib
        data = np.empty(ids.size, dtype=_TOKEN_DATA)
        data["id"], data["logit"], data["p"] = ids, logits, 0.0
        arr = lib.llama_token_data_array(data.ctypes.data_as(lib.llama_token_data_p), ids.size, -1, False)
        lib.llama_sampler_apply(self._grammar, ctypes.byref(arr))
        allowed = np.isfinite(data["logit"])
        if not allowed.any():
            return -1
        best = data["logit"][allowed].max()
        return int(data["id"][allowed & (data["logit"] == best)].min())

    def sample(self, ctx: Any, idx: int = -1) -> int:
        ptr = self._lib.llama_get_logits_ith(ctx.ctx, idx)
        logits = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
        if self._grammar is None:
            return int(np.argmax(logits))
        k = min(FIRST_CHECK, self._n_vocab)
        top = np.argpartition(-logits, k - 1)[:k]
        token = self._check(top, logits[top])
        if token < 0:
            self.full_checks += 1
            every = np.arange(self._n_vocab, dtype=np.int32)
            token = self._check(every, logits)
        if token < 0:
            raise RuntimeError("the grammar allows no token here")
        self._lib.llama_sampler_accept(self._grammar, token)
        return token

    def accept(self, token: int) -> None:
        if self._grammar is not None:
            self._lib.llama_sampler_accept(self._grammar, token)

    def reset(self) -> None:
        if self._grammar is not None:
            self._lib.llama_sampler_reset(self._grammar)

    def close(self) -> None:
        if self._grammar is not None:
            self._lib.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()


def install(llama: Any) -> None:
    """Make ``llama`` (a ``llama_cpp.Llama``) decode greedily under a grammar with
    :class:`GreedyGrammarSampler`; any other sampling (a temperature, penalties, a logits processor) keeps
    llama-cpp-python's own chain."""
    original = llama._init_sampler

    def _init_sampler(self: Any, *args: Any, **kw: Any) -> Any:
        greedy = (float(kw.get("temp", 0.8)) == 0.0 and kw.get("logits_processor") is None
                  and float(kw.get("repeat_penalty", 1.0)) == 1.0 and float(kw.get("frequency_penalty", 0.0)) == 0.0
                  and float(kw.get("presence_penalty", 0.0)) == 0.0 and int(kw.get("mirostat_mode", 0)) == 0
                  and not args)
        if greedy:
            return GreedyGrammarSampler(self, kw.get("grammar"))
        return original(*args, **kw)

    llama._init_sampler = types.MethodType(_init_sampler, llama)


def install_lookup(llama: Any, num_pred_tokens: int, max_ngram_size: int = 3) -> None:
    """Prompt-lookup decoding (faster local runs) on ``llama`` without llama-cpp-python's ``logits_all``.

    The reply's next tokens are guessed by finding its last ``max_ngram_size`` tokens earlier in the prompt
    or reply and copying the ``num_pred_tokens`` that followed (``LlamaPromptLookupDecoding``); the model
    reads the guess in one batch and keeps the longest prefix that greedy decoding would have produced
    itself, plus its own next token (llama-cpp-python's ``generate`` does the checking). BubbleRAG's
    replies copy candidate ids and names from their prompts, so several tokens are often taken per step.

    Measured on 2 CPU cores (``benchmarks/llm_lookup_ab.py``): no faster. The review's id lists took 197
    tokens in 117 steps with k = 3, yet the same 30 s, since a batch of 4 tokens costs about twice one token
    here; with k = 8 the requests of two questions took 415 s instead of 347 s. It is an option
    (``EGX_LLAMA_LOOKUP``) for machines where a short batch costs about one token (a GPU build).
    """
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    llama.draft_model = LlamaPromptLookupDecoding(max_ngram_size=max_ngram_size, num_pred_tokens=num_pred_tokens)
    _short_batch_logits(llama, num_pred_tokens)


class SmallModelDraft:
    """Speculative decoding's draft from a smaller model of the same tokenizer (the bundled 0.5B Qwen2.5-Coder
    for the 1.5B): it reads what the large model has read and written, and guesses the next ``k`` tokens
    greedily; the large model checks the guess in one batch and keeps what it would have written itself
    (llama-cpp-python's ``generate``), so the reply is the large model's greedy reply.

    The small model keeps its own context: each call reads only the tokens past the longest prefix it
    shares with the previous call (the prompt once, then the tokens accepted since). A guess stops early at
    an end-of-turn token. ``stats`` counts calls, guessed tokens and the small model's reading.
    """

    def __init__(self, small: Any, k: int) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self.small, self.k = small, int(k)
        self._n_vocab = int(small.n_vocab())
        self._stops = {int(small.token_eos())}
        im_end = small.tokenize(b"<|im_end|>", add_bos=False, special=True)
        if len(im_end) == 1:
            self._stops.add(int(im_end[0]))
        self.stats = {"calls": 0, "guessed": 0, "read": 0}

    def _logits(self) -> np.ndarray:
        ptr = self._lib.llama_get_logits_ith(self.small._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))

    def __call__(self, input_ids: np.ndarray, /, **kwargs: Any) -> np.ndarray:
        s = self.small
        ids = np.asarray(input_ids, dtype=np.intc)
        n = min(int(s.n_tokens), ids.size)
        differ = np.flatnonzero(s.input_ids[:n] != ids[:n])
        keep = min(int(differ[0]) if differ.size else n, ids.size - 1)  # at least one token read: fresh logits
        s.n_tokens = keep
        s.eval(ids[keep:].tolist())
        self.stats["read"] += int(ids.size - keep)
        out: list[int] = []
        while True:
            token = int(np.argmax(self._logits()))
            out.append(token)
            if token in self._stops or len(out) == self.k:
                break
            s.eval([token])
        self.stats["calls"] += 1
        self.stats["guessed"] += len(out)
        return np.asarray(out, dtype=np.intc)


def install_draft(llama: Any, small: Any, k: int) -> SmallModelDraft:
    """Speculative decoding on ``llama`` with :class:`SmallModelDraft` over ``small`` guessing ``k`` tokens a
    step (``EGX_LLAMA_DRAFT``); like :func:`install_lookup`, without ``logits_all``."""
    draft = SmallModelDraft(small, k)
    llama.draft_model = draft
    _short_batch_logits(llama, k)
    return draft


def _short_batch_logits(llama: Any, most: int) -> None:
    """Make ``llama`` compute logits at every position of a short batch (a guess being checked, at most
    ``most`` + 1 tokens), which llama-cpp-python's ``generate`` needs to check a guess.

    llama-cpp-python only supports a draft model with ``logits_all=True``, which computes the vocabulary's
    logits for every *prompt* token too (~18 % more prompt work for a 1.5B model, and an n_ctx × vocabulary
    score array of 2.5 GB). Here only a short batch asks llama.cpp for logits at every position; prompts are
    read as before. ``llama.lookup_stats`` counts the short batches and their tokens.
    """
    llama.lookup_stats = stats = {"batches": 0, "tokens": 0}  #: short batches read, and their tokens
    original = llama.eval

    def eval_(self: Any, tokens: Any) -> None:
        if len(tokens) > most + 1 or self._logits_all:
            return original(tokens)
        stats["batches"] += 1
        stats["tokens"] += len(tokens)
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        n_past, n = self.n_tokens, len(tokens)
        self._batch.set_batch(batch=list(tokens), n_past=n_past, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[n_past:n_past + n] = tokens
        self.n_tokens += n
        self._requires_eval = False
        return None

    llama.eval = types.MethodType(eval_, llama)
