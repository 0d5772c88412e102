"""The ``local`` backends: llama.cpp running the bundled Qwen2.5-Coder GGUF (or any GGUF), its prompt-state
cache and the decoding options."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.backends.base import TRUNCATED_NOTE, ChatMessage, LLMResponse
from core.backends.device import cpu_threads, select_device
from core.backends.gguf import MODELS, ensure_model, missing_packages
from core.backends.llm_attempt import attempt_timeout, current_attempt
from core.backends.llm_errors import TIMEOUT_HINT
from core.backends.streaming import reply_sink
from core.errors import BackendError, Cancelled, ConfigError, LLMError, UnknownNameError

_LLAMA_CACHE: dict[tuple[str, int, int, int, str], tuple[Any, threading.Lock]] = {}
_LLAMA_LOCK = threading.Lock()


def _default_threads() -> int:
    """llama.cpp threads: ``$EGX_LLM_THREADS``, else ``$EGX_THREADS``, else the CPUs this process may use."""
    return cpu_threads("EGX_LLM_THREADS")


class LlamaCppLLM:
    """A local GGUF model run by llama.cpp (``llama-cpp-python``).

    Parameters
    ----------
    model_path : str, Path or None
        A GGUF file. ``None`` uses the bundled Qwen2.5-Coder model of ``size``, assembled on first
        use by :func:`core.backends.gguf.ensure_model`.
    size : {"1.5b", "0.5b"}
        Which bundled model (``"local"`` = 1.5B follows extraction prompts well; ``"local-small"``
        = 0.5B is about twice as fast and makes occasional errors).
    n_ctx : int
        Context window in tokens.
    n_threads : int or None
        CPU threads; ``None`` uses every core this process may run on.
    timeout : float
        Wall-clock limit per :meth:`chat` call in seconds, checked between generated tokens (a
        :class:`GuardedLLM` may lower it to what is left of the question's budget, and also stops
        waiting for a prompt that takes longer than that to read).
    seed : int
        Sampling seed (outputs are reproducible; at ``temperature=0`` decoding is greedy).

    Raises
    ------
    BackendError
        If ``model_path`` does not exist or the bundled model's packages are missing.

    Notes
    -----
    Constructing is cheap; the model is loaded on the first :meth:`chat` (or :meth:`load`) and
    kept once per ``(path, n_ctx)`` per process. Layers go to the GPU (``n_gpu_layers=-1``) when
    :func:`~core.backends.device.select_device` returns ``"cuda"``. A lock serializes calls on
    one model, since a llama.cpp context is not thread-safe (Streamlit runs sessions in threads).
    """

    available = True

    def __init__(self, model_path: str | Path | None = None, size: str = "1.5b",
                 n_ctx: int = 4096, n_threads: int | None = None, timeout: float = 120,
                 seed: int = 0) -> None:
        if size not in MODELS:
            raise UnknownNameError("local model size", size, list(MODELS))
        self.size = size
        self.model_path = Path(model_path).expanduser() if model_path is not None else None
        if self.model_path is not None:
            if not self.model_path.is_file():
                raise BackendError(f"GGUF model file {str(self.model_path)!r} does not exist. Pass "
                                   "the path of a .gguf file, or leave it out to use the bundled model.")
            self.name = "local"
            self.model_id = f"llama.cpp:{self.model_path.stem}"
        else:
            spec = MODELS[size]
            missing = missing_packages(spec)
            if missing:
                raise BackendError(
                    f"The local model {spec.title} needs packages that are not installed: "
                    f"{', '.join(missing)}. Install them with: {spec.pip_command()}"
                )
            self.name = "local" if size == "1.5b" else "local-small"
            self.model_id = f"llama.cpp:{spec.filename.removesuffix('.gguf')}"
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads or _default_threads()
        self.timeout = float(timeout)
        self.seed = int(seed)
        self.load_seconds: float | None = None

    def __repr__(self) -> str:
        return f"LlamaCppLLM(model_id={self.model_id!r}, n_ctx={self.n_ctx}, n_threads={self.n_threads})"

    def load(self) -> Any:
        """Load the model (once per process) and return the ``llama_cpp.Llama`` object."""
        return self._load()[0]

    def _load(self) -> tuple[Any, threading.Lock]:
        try:  # before the model file: a missing llama-cpp-python fails at once, not after assembling 1 GB of GGUF
            from llama_cpp import Llama
        except ImportError as exc:
            raise BackendError(
                f"The local LLM needs llama-cpp-python, which is not installed ({exc}). Run "
                "scripts/bootstrap.sh (it builds llama-cpp-python==0.3.36 with portable CPU flags; or: "
                "pip install llama-cpp-python==0.3.36), or pick the 'openai' or 'none' LLM backend."
            ) from None
        path = self.model_path or ensure_model(self.size)  # type: ignore[arg-type]
        gpu_layers = -1 if select_device() == "cuda" else 0
        lookup = lookup_tokens()
        draft = draft_setting()
        if lookup and draft is not None:
            raise ConfigError("EGX_LLAMA_LOOKUP and EGX_LLAMA_DRAFT both ask for guessed tokens; set one of them "
                              "(or neither).")
        key = (str(path), self.n_ctx, gpu_layers, lookup, "" if draft is None else f"{draft[0]}:{draft[1]}")
        with _LLAMA_LOCK:
            if key not in _LLAMA_CACHE:
                t0 = time.perf_counter()
                try:
                    llm = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                n_threads_batch=self.n_threads, n_gpu_layers=gpu_layers,
                                seed=self.seed, verbose=False)
                except (ValueError, RuntimeError) as exc:
                    raise BackendError(f"llama.cpp could not load {str(path)!r}: {exc}. Check that "
                                       "it is a valid GGUF file.") from exc
                _attach_prompt_cache(llm)
                if os.environ.get("EGX_LLAMA_FAST_GRAMMAR", "1").strip() != "0":
                    from core.backends.llama_sampling import install

                    install(llm)  # greedy + grammar without 152k grammar checks per token
                if lookup:
                    from core.backends.llama_sampling import install_lookup

                    install_lookup(llm, lookup)  # replies that copy ids from the prompt take several tokens a step
                if draft is not None:
                    from core.backends.llama_sampling import install_draft

                    small = Llama(model_path=str(ensure_model(draft[0])), n_ctx=self.n_ctx,  # type: ignore[arg-type]
                                  n_threads=self.n_threads, n_threads_batch=self.n_threads,
                                  n_gpu_layers=gpu_layers, seed=self.seed, verbose=False)
                    install_draft(llm, small, draft[1])  # the 0.5B guesses, the 1.5B checks: the 1.5B's reply
                _LLAMA_CACHE[key] = (llm, threading.Lock())
                self.load_seconds = time.perf_counter() - t0
            elif self.load_seconds is None:
                self.load_seconds = 0.0
            return _LLAMA_CACHE[key]

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """One chat completion using the model's own chat template.

        With ``json_schema``, llama.cpp constrains decoding to the schema with a grammar.
        Tokens are streamed so the wall-clock ``timeout`` can stop a runaway generation.

        Returns
        -------
        LLMResponse
            Token counts come from the server-style ``usage`` when llama.cpp reports it, otherwise
            by tokenizing the messages and the output with the model's tokenizer.

        Raises
        ------
        LLMError
            If the generation runs past ``timeout`` or llama.cpp fails.
        Cancelled
            If the job running this (the app's background run) is cancelled: generation stops at
            the next token, so the model and both cores are free again at once.
        """
        llm, lock = self._load()
        timeout = attempt_timeout(self.timeout)
        payload = [{"role": m.role, "content": m.content} for m in messages]
        kwargs: dict[str, Any] = {"messages": payload, "max_tokens": max_tokens,
                                  "temperature": temperature, "seed": self.seed, "stream": True}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        pieces: list[str] = []
        usage: dict[str, Any] | None = None
        finish = None
        from core.background.jobs import current_job

        job = current_job()  # the app's background run, if any: a cancel stops the generation between tokens
        sink = reply_sink() if json_schema is None else None  # the answer a page shows as it is written
        cancel = job.cancel_event if job is not None else None
        attempt = current_attempt()  # a guard that gives up on this attempt stops it at the next token
        t0 = time.perf_counter()
        with lock:
            try:
                stream = llm.create_chat_completion(**kwargs)
                try:
                    for chunk in stream:
                        choice = chunk["choices"][0] if chunk.get("choices") else {}
                        piece = choice.get("delta", {}).get("content")
                        if piece:
                            pieces.append(piece)
                            if sink is not None:
                                sink("".join(pieces))
                        finish = choice.get("finish_reason") or finish
                        usage = chunk.get("usage") or usage
                        if cancel is not None and cancel.is_set():
                            raise Cancelled(f"The local model {self.model_id} stopped generating: the run was "
                                            f"cancelled ({len(pieces)} tokens generated).")
                        if attempt is not None and attempt.abandoned.is_set():  # the guard stopped waiting
                            raise LLMError(f"The local model {self.model_id} stopped generating: its attempt was "
                                           f"abandoned ({len(pieces)} tokens generated).")
                        if time.perf_counter() - t0 > timeout:
                            raise LLMError(
                                f"The local model {self.model_id} timed out after {timeout:g} s "
                                f"({len(pieces)} tokens generated); raise the LLM timeout "
                                f"({TIMEOUT_HINT}) or use a smaller model."
                            )
                finally:
                    close = getattr(stream, "close", None)
                    if close is not None:
                        close()
            except (LLMError, Cancelled):
                raise
            except (ValueError, RuntimeError) as exc:
                raise LLMError(f"llama.cpp failed on {self.model_id}: {exc}. Shorten the input "
                               f"(context is {self.n_ctx} tokens) or raise n_ctx.") from exc
            text = "".join(pieces)
            if usage:
                p_tok = int(usage.get("prompt_tokens", 0))
                c_tok = int(usage.get("completion_tokens", 0))
            else:
                # Chat template overhead for ChatML-style models is ~5 tokens per message.
                p_tok = sum(len(llm.tokenize(m.content.encode("utf-8"), add_bos=False)) + 5
                            for m in messages) + 3
                c_tok = len(llm.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0
        notes = (TRUNCATED_NOTE,) if finish == "length" else ()
        return LLMResponse(text=text, prompt_tokens=p_tok, completion_tokens=c_tok,
                           model=self.model_id, latency_s=time.perf_counter() - t0, attempts=1,
                           notes=notes, truncated=finish == "length")


def prompt_cache_bytes() -> int:
    """``$EGX_LLAMA_PROMPT_CACHE_MB`` (default 512) in bytes; 0 turns the prompt-state cache off.

    Raises
    ------
    ConfigError
        For a value that is not a whole number of megabytes >= 0.
    """
    raw = os.environ.get("EGX_LLAMA_PROMPT_CACHE_MB", "").strip()
    try:
        mb = int(raw) if raw else 512
        if mb < 0:
            raise ValueError
    except ValueError:
        raise ConfigError(f"EGX_LLAMA_PROMPT_CACHE_MB = {raw!r} is not a whole number of megabytes >= 0; set it "
                          "to e.g. 512, 0 (no cache), or unset it.") from None
    return mb << 20


#: tokens guessed per step by prompt-lookup decoding when ``$EGX_LLAMA_LOOKUP`` is unset: off, since on 2 CPU
#: cores checking a guess of k tokens costs about what k single steps save (BubbleRAG's requests took 347 s
#: without, 415 s with k = 8; ``benchmarks/README.md``, "LLM stages for the 1.5B model")
DEFAULT_LOOKUP_TOKENS = 0


def lookup_tokens() -> int:
    """``$EGX_LLAMA_LOOKUP``: tokens prompt-lookup decoding guesses per step on the local model (0 = off;
    default :data:`DEFAULT_LOOKUP_TOKENS`). See :func:`core.backends.llama_sampling.install_lookup`.

    Raises
    ------
    ConfigError
        For a value that is not a whole number from 0 to 32.
    """
    raw = os.environ.get("EGX_LLAMA_LOOKUP", "").strip()
    try:
        n = int(raw) if raw else DEFAULT_LOOKUP_TOKENS
        if not 0 <= n <= 32:
            raise ValueError
    except ValueError:
        raise ConfigError(f"EGX_LLAMA_LOOKUP = {raw!r} is not a whole number from 0 to 32; set it to e.g. 6 "
                          "(tokens guessed per step), 0 (off), or unset it.") from None
    return n


def _attach_prompt_cache(llm: Any) -> None:
    """Keep the states of recent prompts in RAM, so a prompt that begins like an earlier one (not only the
    last one) reads only what is new. llama.cpp already reuses the beginning shared with the *previous*
    prompt; BubbleRAG's stages alternate (the preview block, then the keywords, then the preview block
    again), and its §3.5 hops share their question and evidence: restoring the longest-prefix state
    (tens of MB, copied in milliseconds) saves reading hundreds of tokens at ~40 tokens/s on 2 cores.
    The reply is the one a fresh read gives up to the last digits of the logits (the prompt is read in
    other batches), as with llama.cpp's own reuse of the previous prompt."""
    size = prompt_cache_bytes()
    if size:
        from llama_cpp import LlamaRAMCache

        llm.set_cache(LlamaRAMCache(capacity_bytes=size))


#: tokens the draft model guesses per step when ``$EGX_LLAMA_DRAFT`` names a model without ``:K``
DEFAULT_DRAFT_TOKENS = 4


def draft_setting() -> tuple[str, int] | None:
    """``$EGX_LLAMA_DRAFT``: speculative decoding with a bundled model as the draft, ``SIZE[:K]`` (``0.5b`` or
    ``0.5b:6``: the 0.5B Qwen2.5-Coder, which shares the 1.5B's tokenizer, guessing K tokens a step, default
    :data:`DEFAULT_DRAFT_TOKENS`); unset, empty or ``0``: off (the default: not faster on 2 CPU cores,
    ``benchmarks/README.md``, "A 0.5B draft model"). See :class:`core.backends.llama_sampling.SmallModelDraft`.

    Raises
    ------
    ConfigError
        For an unknown size or a K that is not a whole number from 1 to 16.
    """
    raw = os.environ.get("EGX_LLAMA_DRAFT", "").strip().lower()
    if raw in ("", "0", "off"):
        return None
    size, _, k_raw = raw.partition(":")
    try:
        k = int(k_raw) if k_raw else DEFAULT_DRAFT_TOKENS
        if size not in MODELS or not 1 <= k <= 16:
            raise ValueError
    except ValueError:
        raise ConfigError(f"EGX_LLAMA_DRAFT = {raw!r} is not a draft model: set it to e.g. 0.5b or 0.5b:4 (the "
                          f"bundled model guessing 4 tokens a step; sizes {', '.join(MODELS)}), 0 (off), or "
                          "unset it.") from None
    return size, k
