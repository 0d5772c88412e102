"""Keyed integrity of stored LLM replies: the response cache and the recording bundles.

A content hash alone detects a change, not a forgery: whoever edits a cache entry can recompute its sha256,
and an edited entry with a recomputed hash was served as the model's reply. So:

* **Made on this machine** (LLM cache entries; recording bundles written outside the shipped folder by
  ``egx record``, ``--prune``, ``--retape``, ``--stamp``) carry an HMAC-SHA256 under a local secret,
  :func:`integrity_key`: 32 random bytes created once in ``$EGX_HOME/keys/llm-integrity.key`` (a folder of
  mode 0700, the file 0600, owned by the user; ``$EGX_HOME`` is outside the repository, or ``.egx/`` which
  git ignores, so the key is never shipped). An entry or bundle whose HMAC is missing or wrong is refused:
  the cache asks the LLM again, a bundle is not loaded.
* **Shipped** recording bundles (``sample_data/llm_recordings/``) cannot carry a local key's HMAC: every
  checkout has its own key. Their content hashes are listed in a committed file,
  :data:`MANIFEST_NAME` in that folder (:func:`shipped_hashes`); a bundle is loaded when its content hash
  is listed there or its HMAC verifies under this machine's key. Every egx writer of a shipped bundle
  updates its line (:func:`write_manifest_line`), so a re-recording changes the manifest in the same commit.

What this protects against, and what not:

* The cache: someone who can write to the cache folder but cannot read the key (a shared or synced cache
  folder, files planted by a downloaded archive, another user with write access to ``.cache/llm``) cannot
  make egx serve a reply of their choosing. Anyone who can read the key file — the same user account, root
  — can; so can anyone who can change egx's code.
* The recordings: a bundle edited, swapped or planted after checkout (a file dropped into the folder or into
  ``$EGX_LLM_RECORDINGS``, a bundle replaced in a deployed copy) is refused unless its hash is in the
  committed manifest. The manifest is **not a signature**: a change committed together with its manifest line
  loads everywhere. It makes such a change visible in review (a one-line diff beside the bundle's); trust in
  the shipped recordings is trust in the repository's history, as for its code.
* Not chosen: an HMAC whose key is derived from the repository's own files protects nothing (anyone can
  derive it); a manifest signed with a key only maintainers hold (Ed25519) would need that private key in
  every session that re-records, which an offline CI or these sessions cannot hold, and its public key
  would ship in the same checkout an attacker could edit — no more than the reviewed list in this setting.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import threading
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from core.fsio import atomic_write_text, egx_home, fsync_dir, path_lock, temp_sibling

#: The committed list of the shipped recording bundles' content hashes (in their folder).
MANIFEST_NAME = "MANIFEST.txt"
KEY_BYTES = 32

_KEYS: dict[str, bytes] = {}
_LOCK = threading.Lock()


def key_path() -> Path:
    """Where the local secret lives: ``$EGX_HOME/keys/llm-integrity.key``."""
    return egx_home() / "keys" / "llm-integrity.key"


def integrity_key() -> bytes:
    """This machine's secret for the LLM cache and local recordings, created on first use.

    Raises
    ------
    ConfigError
        If the key file is not a regular file of 32 bytes owned by this user and readable by nobody else,
        or cannot be created; the message names the path and the fix.
    """
    path = key_path()
    with _LOCK:
        if str(path) in _KEYS:
            return _KEYS[str(path)]
        try:
            if not os.path.lexists(path):
                _create_key(path)
            key = _read_key(path)
        except OSError as exc:
            raise ConfigError(f"The LLM integrity key {str(path)!r} could not be created or read ({exc}). Make "
                              "$EGX_HOME writable (or point EGX_HOME at a folder that is), or use --no-cache.") from None
        _KEYS[str(path)] = key
        return key


def _create_key(path: Path) -> None:
    """Write a new random key, readable by its owner only; when two processes race, the first one wins."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = temp_sibling(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_bytes(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # never replaces a key another process made meanwhile
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _read_key(path: Path) -> bytes:
    st = os.lstat(path)
    fix = f"remove {str(path)!r} (a new key is made; replies cached under the old one are asked again)"
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"The LLM integrity key {str(path)!r} is not a regular file (a link or a device); {fix}.")
    if st.st_uid != os.getuid():
        raise ConfigError(f"The LLM integrity key {str(path)!r} belongs to another user (uid {st.st_uid}); {fix}.")
    if st.st_mode & 0o077:
        raise ConfigError(f"The LLM integrity key {str(path)!r} is readable by others (mode "
                          f"{stat.S_IMODE(st.st_mode):o}), so anyone who reads it could forge cache entries: "
                          f"run chmod 600 {str(path)!r}, or {fix}.")
    data = path.read_bytes()
    if len(data) != KEY_BYTES:
        raise ConfigError(f"The LLM integrity key {str(path)!r} holds {len(data)} bytes, not {KEY_BYTES}; {fix}.")
    return data


def canonical(obj: Any) -> bytes:
    """``obj`` as canonical JSON bytes (sorted keys, no spaces): what a hash or an HMAC is taken of."""
    raw = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return raw.encode("utf-8", "surrogatepass")


def sign(purpose: str, obj: Any) -> str:
    """The HMAC-SHA256 (hex) of ``obj`` for ``purpose`` (``"cache"``, ``"recording"``) under :func:`integrity_key`.

    Raises
    ------
    ConfigError
        When the key cannot be had (:func:`integrity_key`).
    """
    return hmac.new(integrity_key(), purpose.encode() + b"\0" + canonical(obj), hashlib.sha256).hexdigest()


def verify(purpose: str, obj: Any, mac: object) -> bool:
    """Whether ``mac`` is :func:`sign` of ``obj`` for ``purpose`` (compared in constant time)."""
    return isinstance(mac, str) and hmac.compare_digest(mac, sign(purpose, obj))


# --- the shipped recordings' manifest -----------------------------------------------------------------------

def manifest_path(folder: Path) -> Path:
    return folder / MANIFEST_NAME


def shipped_hashes(folder: Path) -> dict[str, str]:
    """The content hashes the committed manifest in ``folder`` lists: hash → bundle file name (empty when
    there is none). Lines are ``<sha256> <file name>``; ``#`` starts a comment."""
    try:
        text = manifest_path(folder).read_text(encoding="utf-8")
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split("#", 1)[0].split()
        if len(parts) == 2 and len(parts[0]) == 64:
            out[parts[0].lower()] = parts[1]
    return out


_MANIFEST_HEAD = """\
# Content hashes of the shipped LLM recording bundles (core/backends/llm_integrity.py).
# A bundle loads only when its content hash (its "sha256": the sha256 of its canonical JSON without its
# "sha256" and "hmac" fields) is listed here, or it was signed with this machine's local key. Every egx writer of a
# bundle here updates its line (`egx record`, scripts/check_recordings.py --prune/--retape/--stamp); review a
# changed line like the bundle it names. This is no signature: it makes a change visible, git keeps it.
"""


def write_manifest_line(bundle: Path, content_hash: str) -> None:
    """Set the manifest line of ``bundle`` (in its own folder) to ``content_hash``, atomically, under the
    manifest's lock."""
    path = manifest_path(bundle.parent)
    with path_lock(path):
        listed = {name: h for h, name in shipped_hashes(bundle.parent).items()}
        listed[bundle.name] = content_hash
        lines = [f"{h} {name}" for name, h in sorted(listed.items()) if (bundle.parent / name).exists()]
        atomic_write_text(path, _MANIFEST_HEAD + "\n".join(lines) + "\n")
