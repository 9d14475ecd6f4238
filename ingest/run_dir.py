"""Adopt a finished run directory: every file into the CAS, every file recorded, in one batch.

For projects that start using labledger mid-way. The directory is stored as a CAS tree (every
file first, then the tree object), then one batch appends an `artifact.recorded` per file and
one of type ``tree`` for the directory, under one lock and one fsync: either the whole run is
recorded or none of it. The directory is only read, never changed or checked against the
capsule rules (it predates them; `labledger close` is the way to seal a capsule).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from labledger.ingest.checkpoint import INSTANCE_ENV, resolve_run
from labledger.ingest.errors import CapsuleSourceError
from labledger.ledger.ledger import Ledger

_MAX_NAME = 256


class IngestedRun(msgspec.Struct, frozen=True, kw_only=True):
    """What `ingest_run_dir` recorded: the tree digest, counts, and the tree event's id.

    ``symlinks`` lists links recorded in the tree (by their text) but not as files.
    """

    run: str
    path: str
    digest: str
    files: int
    bytes: int
    objects_new: int
    event_id: str
    symlinks: list[str] = msgspec.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


def _fit(path: str) -> str:
    return path if len(path) <= _MAX_NAME else "…" + path[-(_MAX_NAME - 1):]


def ingest_run_dir(
    run_dir: str | os.PathLike[str],
    *,
    run: str | None = None,
    instance: str | None = None,
    ledger: Ledger | None = None,
    root: str | os.PathLike[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestedRun:
    """Store and record every file of ``run_dir`` for ``run`` (default ``$LABLEDGER_RUN``) and
    ``instance`` (default ``$LABLEDGER_INSTANCE``, which ``labledger run --instance`` exports).

    File events name ``<run_dir>/<relative path>`` as given (so a relative ``run_dir`` stays
    relative); the tree event names ``run_dir``. Symlinks are kept in the tree by their text,
    never followed.

    Raises
    ------
    CapsuleSourceError
        ``run_dir`` is not a directory; nothing was stored.
    InvalidEventError
        A bad run or instance id, or ``run_dir`` is the ledger's own folder, inside it or holds
        it (``.`` at the project root); nothing was stored.
    CasError, LedgerError
        The store or the ledger could not be written (no event was appended).
    """
    run = resolve_run(run, action="record a run directory", kind=None)
    instance = instance or os.environ.get(INSTANCE_ENV) or None
    base = Path(run_dir)
    owned = ledger is None
    led = Ledger.open(root) if ledger is None else ledger
    try:
        led.draft("note", {"text": "-"}, run=run, instance=instance)  # validates the ids
        if not base.is_dir():
            raise CapsuleSourceError(base, "it is not a directory")
        from labledger.ledger.artifacts import open_store, refuse_ledger_folder

        # `ingest-dir .` at the project root would store the ledger and every object again.
        refuse_ledger_folder(led, base)

        put = open_store(led).put_tree(base, symlinks="record", progress=progress)
        drafts = [
            led.draft("artifact.recorded", {
                "path": _fit(str(base / entry.path)), "digest": entry.digest,
                "size": entry.size, "type": "file"}, run=run, instance=instance)
            for entry in put.entries if entry.kind == "file" and entry.digest is not None]
        files = len(drafts)
        drafts.append(led.draft("artifact.recorded", {
            "path": _fit(str(base)), "digest": put.digest, "size": put.size, "type": "tree",
            "role": "run-dir"}, run=run, instance=instance))
        records = led.append_drafts(drafts)
        return IngestedRun(run=run, path=str(base), digest=put.digest, files=files,
                           bytes=put.size, objects_new=put.objects_new,
                           event_id=records[-1].id,
                           symlinks=[e.path for e in put.entries if e.kind == "symlink"])
    finally:
        if owned:
            led.close()
