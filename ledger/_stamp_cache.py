"""Per-segment rows of integers kept in a JSON file: what the read side remembers between runs.

The readers (`query`'s unreadable-line counts, `altered`'s hashed lines) each keep one file in
``.labledger/cache/query/``: a JSON object mapping a segment's path to a fixed-width list of
integers that starts with the segment's stamp (inode, size, mtime). Invariants:

* A cache only ever saves work: a missing, unreadable, malformed or foreign file reads as empty,
  and an entry of the wrong width or type is dropped, so the worst case is reading again.
* Writes are atomic (a temporary file renamed over the old one) and best effort: a reader that
  cannot write (a read-only copy of a ledger) goes on without a word.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["load", "save"]


def load(cache: Path | None, width: int) -> dict[str, list[int]]:
    """The entries of ``cache`` that are lists of ``width`` integers."""
    if cache is None:
        return {}
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items()
            if isinstance(v, list) and len(v) == width and all(type(x) is int for x in v)}


def save(cache: Path, entries: dict[str, list[int]]) -> None:
    """Replace ``cache`` with ``entries`` atomically; give up quietly when it cannot be written."""
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entries, sort_keys=True), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass
