"""Small durable-file helpers for the judgments' outputs (markers, EVIDENCE.json)."""

from __future__ import annotations

import os
from pathlib import Path

from labledger.ledger.durable import sync_file


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``: a reader sees the old file or the new one, never a torn
    one, and the new bytes are on disk before the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        sync_file(f.fileno())
    os.replace(tmp, path)
