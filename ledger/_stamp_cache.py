"""Per-segment rows of integers kept in a JSON file: what the read side remembers between runs.

The readers (`query`'s unreadable-line counts, `altered`'s hashed lines) each keep one file in
``.labledger/cache/query/``: a JSON object mapping a segment's path to a fixed-width list of
integers that starts with the segment's stamp (inode, size, mtime). Invariants:

* A cache only ever saves work: a missing, unreadable, malformed or foreign file reads as empty,
  and an entry of the wrong width or type is dropped, so the worst case is reading again.
* Writes are atomic (a temporary file renamed over the old one). A ledger whose cache folder
  cannot be written (a read-only copy) keeps its cache in the user's cache folder instead
  (``$XDG_CACHE_HOME/labledger/`` or ``~/.cache/labledger/``, named after the ledger's path),
  so its readers do not pay the first read's work again on every query; when neither can be
  written, they go on without a word.
* While a `hold` is open (the command line opens one per command), saves wait in memory, where
  `load` sees them, and reach the disk only through `Held.write`: a command that is refused
  (exit 2) or fails leaves the project as it was, cache folders included.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["Held", "hold", "load", "save"]

_held: Held | None = None


def load(cache: Path | None, width: int) -> dict[str, list[int]]:
    """The entries of ``cache`` (or of its fallback) that are lists of ``width`` integers."""
    if cache is None:
        return {}
    if _held is not None and cache in _held.saves:
        return dict(_held.saves[cache])
    for path in (cache, _fallback(cache)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == width
                    and all(type(x) is int for x in v)}
    return {}


def save(cache: Path, entries: dict[str, list[int]]) -> None:
    """Replace ``cache`` with ``entries`` atomically (or its fallback when ``cache`` cannot be
    written); give up quietly when neither can. Inside a `hold`, only remembered."""
    if _held is not None:
        _held.saves[cache] = dict(entries)
        return
    _write(cache, entries)


class Held:
    """The saves made since `hold`, not yet on disk."""

    def __init__(self) -> None:
        self.saves: dict[Path, dict[str, list[int]]] = {}

    def write(self) -> None:
        """Put every held save on disk (the command ran to its end)."""
        for cache, entries in self.saves.items():
            _write(cache, entries)
        self.saves.clear()

    def release(self) -> None:
        """End the hold; what was not written is dropped."""
        global _held
        if _held is self:
            _held = None


def hold() -> Held:
    """Hold every save in memory from now until the returned `Held` is released."""
    global _held
    _held = Held()
    return _held


def _write(cache: Path, entries: dict[str, list[int]]) -> None:
    text = json.dumps(entries, sort_keys=True)
    for path in (cache, _fallback(cache)):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
            return
        except OSError:
            continue


def _fallback(cache: Path) -> Path:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(str(cache.absolute()).encode()).hexdigest()[:24]
    return Path(home) / "labledger" / f"{key}-{cache.name}"
