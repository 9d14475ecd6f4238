"""Where the ledger meets the content-addressed store.

Order is the invariant (restic's rule): bytes first, events second. `attach` stores a file or a
directory and only then records `artifact.recorded`; an event therefore never names an object the
store does not hold (unless the object was later quarantined, which is itself recorded).

`referenced_digests` is what `cas gc` must keep: every ``blake3:…`` digest any event mentions,
anywhere in its body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from labledger.cas import CorruptObject, PutResult, Store
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record

_DIGEST_RE = re.compile(rb"blake3:[0-9a-f]{64}")


def open_store(ledger: Ledger) -> Store:
    store = Store(ledger.paths.cas)
    store.init()
    return store


def referenced_digests(ledger: Ledger) -> set[str]:
    """Every object digest mentioned by any event of any writer."""
    found: set[str] = set()
    for record in ledger.records():
        found.update(m.decode() for m in _DIGEST_RE.findall(bytes(record.body)))
    return found


def attach(
    ledger: Ledger,
    path: str | Path,
    *,
    run: str | None = None,
    instance: str | None = None,
    role: str | None = None,
    sha256: bool = False,
    progress: Callable[[int], None] | None = None,
) -> tuple[PutResult, dict[str, Any]]:
    """Store ``path`` (file or directory) and return (result, body of `artifact.recorded`).

    The caller appends the body (alone or in a batch with the event it belongs to); the bytes
    are already durable in the store when this returns.
    """
    result = open_store(ledger).put(Path(path), sha256=sha256, progress=progress)
    body: dict[str, Any] = {"path": str(path), "digest": result.digest, "size": result.size,
                            "type": result.type}
    if result.sha256 is not None:
        body["sha256"] = result.sha256
    if role is not None:
        body["role"] = role
    return result, body


def record_attachment(ledger: Ledger, path: str | Path, **options: Any) -> Record:
    """Store ``path`` and append its `artifact.recorded` event (the Python API's one call)."""
    run, instance = options.pop("run", None), options.pop("instance", None)
    _, body = attach(ledger, path, run=run, instance=instance, **options)
    return ledger.append("artifact.recorded", run=run, instance=instance, **body)


def record_quarantine(ledger: Ledger, corrupt: Iterable[CorruptObject]) -> list[Record]:
    """Append one `object.quarantined` event per corrupt object (evidence of the evidence)."""
    drafts = [
        ledger.draft("object.quarantined", {
            "digest": item.digest,
            "path": str(item.quarantine_path or item.path),
            "reason": ("content hashes to " + item.actual_digest) if item.actual_digest
            else "content could not be read",
        })
        for item in corrupt
    ]
    return ledger.append_drafts(drafts) if drafts else []
