"""Where the ledger meets the content-addressed store.

Order is the invariant (restic's rule): bytes first, events second. `attach` stores a file or a
directory and only then records `artifact.recorded`; an event therefore never names an object the
store does not hold (unless the object was later quarantined, which is itself recorded).

Two sets of references, for two jobs:

* `referenced_digests` is what `cas gc` must keep: every ``blake3:…`` digest any event mentions,
  anywhere in its body, even one that names no stored object (gc errs on the side of keeping).
* `store_references` is what the store must *hold*: the fields whose events say the bytes went
  into a store (`STORED_FIELDS`). A digest of a document that was never stored
  (``pull.listed``'s ``manifest_digest``/``roster_digest``, ``teardown.approved``'s
  ``state_digest``), a hash a box computed, a ``--digest-only`` checkpoint or a failed pull is
  not one. `missing_objects` checks them against the store (`labledger check --deep`, and what
  `cas gc` reports as missing). Events merged from another writer (a box's segments, which a
  pull copies in) name objects in *that* writer's store; one of those missing here is noted,
  not counted as damage, unless this store quarantined it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labledger.cas import CorruptObject, ObjectCorruptError, PutResult, Store, TreeEntry
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


# kind -> body fields naming an object the writer's store holds. A field is absent or None when
# the event stored nothing; `_stores` excludes the events whose body says so.
STORED_FIELDS: dict[str, tuple[str, ...]] = {
    "checkpoint.saved": ("digest",),            # unless stored is false (--digest-only)
    "artifact.recorded": ("digest",),
    "capsule.sealed": ("digest",),              # a tree: its files must be stored too
    "artifact.pulled": ("digest",),             # only when ok
    "checkpoint.verified": ("digest",),         # loaded from the store or a sealed capsule
    "run.launched": ("git_diff_digest", "config_digest"),
    "code.pushed": ("diff_digest", "tree_digest"),
    "claim.declared": ("source_digest",),       # its value is read from that object
}


@dataclass(frozen=True)
class Reference:
    """One event field that names an object the store must hold."""

    digest: str
    kind: str
    writer: str
    seq: int
    id: str
    field: str

    def __str__(self) -> str:
        return f"{self.kind} (writer {self.writer} seq {self.seq}, {self.field})"


def _stores(kind: str, body: dict[str, Any]) -> bool:
    if kind == "checkpoint.saved":
        return body.get("stored", True) is not False
    if kind == "artifact.pulled":
        return body.get("ok") is True
    return True


def store_references(ledger: Ledger) -> list[Reference]:
    """Every event field that says its object went into a store (see `STORED_FIELDS`)."""
    refs: list[Reference] = []
    for record in ledger.records(kinds=STORED_FIELDS):
        fields = STORED_FIELDS[record.kind]
        body = record.body_dict()
        if not _stores(record.kind, body):
            continue
        for name in fields:
            value = body.get(name)
            if isinstance(value, str) and _DIGEST_RE.fullmatch(value.encode()):
                refs.append(Reference(value, record.kind, record.writer, record.seq, record.id,
                                      name))
    return refs


def _local_writers(ledger: Ledger) -> Callable[[str], bool]:
    from labledger.ledger._identity import default_writer

    # This machine's writer, and its per-process writers (`<machine writer>-p<pid>-<random>`).
    machine = default_writer(False)
    return lambda w: w in (ledger.writer, machine) or w.startswith(machine + "-p")


def required_digests(ledger: Ledger) -> set[str]:
    """The digests this machine's events say its store holds (what `cas gc` calls missing)."""
    local = _local_writers(ledger)
    return {r.digest for r in store_references(ledger) if local(r.writer)}


@dataclass
class MissingObject:
    """A referenced object the store does not hold, with who names it and where it went."""

    digest: str
    references: list[Reference]
    tree: str | None = None  # the stored tree naming it, when it is one of a tree's files
    quarantined: list[Path] = field(default_factory=list)
    is_problem: bool = True  # False: only other writers name it, and it was never here

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "tree": self.tree, "problem": self.is_problem,
                "quarantined": [str(p) for p in self.quarantined],
                "references": [{"kind": r.kind, "writer": r.writer, "seq": r.seq, "id": r.id,
                                "field": r.field} for r in self.references]}


def missing_objects(ledger: Ledger, store: Store | None = None) -> list[MissingObject]:
    """The objects `store_references` name (and files of the trees they name) that are absent.

    An object counts as a problem (``is_problem``) when an event of this machine names it, or
    when it was quarantined here; one named only by events merged from another writer is
    expected to live in that writer's store and is listed with ``is_problem`` False.
    """
    store = store or open_store(ledger)
    by_digest: dict[str, list[Reference]] = {}
    for ref in store_references(ledger):
        by_digest.setdefault(ref.digest, []).append(ref)
    local = _local_writers(ledger)
    found: list[MissingObject] = []
    for digest, parents in sorted(store.find_missing(by_digest).items()):
        # its own references and those of every tree holding it: one local tree is enough
        # to make it this machine's problem, whichever tree the walk reached first
        refs = list(by_digest.get(digest, []))
        for parent in parents:
            if parent is not None:
                refs += by_digest.get(parent, [])
        tree = next((t for t in parents if t is not None), None) if digest not in by_digest \
            else None
        quarantined = store.quarantined(digest)
        found.append(MissingObject(
            digest=digest, references=refs, tree=tree, quarantined=quarantined,
            is_problem=bool(quarantined) or any(local(r.writer) for r in refs)))
    return found


def refuse_ledger_folder(ledger: Ledger, path: str | Path) -> None:
    """Raise `InvalidEventError` when ``path`` is the ledger's own folder, inside it, or a folder
    holding it (``.`` at the project root): storing it would copy the ledger and every stored
    object into the store again. A symlink is stored as its text, never followed: fine."""
    from labledger.ledger.errors import InvalidEventError

    given = Path(path)
    if given.is_symlink():
        return
    home, where = Path(ledger.paths.home).resolve(), given.resolve()
    if where == home or home in where.parents:
        raise InvalidEventError(f"{where} is inside the ledger's own folder {home}; store your "
                                "files from outside it", field="path", source=str(path))
    if given.is_dir() and where in home.parents:
        raise InvalidEventError(
            f"{where} holds the ledger's own folder {home}: storing it would copy the ledger and "
            "every stored object into the store again; store the folders you mean (e.g. runs/, "
            "results/)", field="path", source=str(path))


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
    refuse_ledger_folder(ledger, path)
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
    refuse_ledger_folder(ledger, path)  # a refusal before the store (and its lock) is made
    with open_store(ledger).holding_off_gc():  # no gc between the put and the append
        _, body = attach(ledger, path, run=run, instance=instance, **options)
        return ledger.append("artifact.recorded", run=run, instance=instance, **body)


# Events after which the ledger holds the digest's bytes (the checkpoints view's in_store rule)
_HOLDS = ("artifact.recorded", "checkpoint.saved", "artifact.pulled")


def record_restored(ledger: Ledger, stored: Iterable[tuple[str, PutResult]]) -> list[Record]:
    """Record ``artifact.recorded`` (role ``restored``) for each object just stored whose last
    word in the ledger is its ``object.quarantined``: the bytes a reader moved aside are back,
    so the `checkpoints` view's ``in_store`` (and every rule built on it) holds again. The
    quarantine's advice is "store the original again with `labledger cas put`"; this is what
    makes that advice true. A stored tree restores its files too (a folder put again holding
    the lost file). An object never quarantined, or already restored, records nothing.
    """
    store = open_store(ledger)
    wanted: dict[str, tuple[str, PutResult | TreeEntry]] = {}
    for path, result in stored:
        wanted[result.digest] = (path, result)
        if result.type == "tree":
            for entry in store.ls(result.digest):
                if entry.digest is not None:
                    wanted.setdefault(entry.digest, (f"{path.rstrip('/')}/{entry.path}", entry))
    if not wanted:
        return []
    latest: dict[str, tuple[str, str]] = {}  # digest -> (ts, kind) of its latest event
    for record in ledger.records(kinds=(*_HOLDS, "object.quarantined")):
        body = record.body_dict()
        digest = body.get("digest")
        if digest not in wanted or (record.kind == "checkpoint.saved" and
                                    body.get("stored") is False) or (
                record.kind == "artifact.pulled" and not body.get("ok")):
            continue
        if digest not in latest or record.ts >= latest[digest][0]:
            latest[digest] = (record.ts, record.kind)
    drafts = [ledger.draft("artifact.recorded", {
        "path": path, "digest": digest, "size": r.size,
        "type": r.type if isinstance(r, PutResult) else "file", "role": "restored"})
        for digest, (path, r) in wanted.items()
        if latest.get(digest, ("", ""))[1] == "object.quarantined"]
    return ledger.append_drafts(drafts) if drafts else []


def corrupt_object(exc: ObjectCorruptError) -> CorruptObject:
    """The `CorruptObject` that a raised `ObjectCorruptError` describes."""
    return CorruptObject(digest=exc.digest, path=exc.path, quarantine_path=exc.quarantine_path,
                         actual_digest=exc.actual_digest)


def record_quarantine(ledger: Ledger, corrupt: Iterable[CorruptObject]) -> list[Record]:
    """Append one `object.quarantined` event per corrupt object (evidence of the evidence).

    Whoever moved an object records it: every reader that quarantines (``check --deep``,
    ``cas cat``/``get``/``ls``) calls this, so the `checkpoints` view's ``in_store`` turns false
    and ``check --deep`` keeps reporting the lost object until it is stored again. An object
    this process did not move (``quarantine_path`` None: another process moved it and records
    it, or it could not be read and was left in place) is not recorded here.
    """
    drafts = [
        ledger.draft("object.quarantined", {
            "digest": item.digest,
            "path": str(item.quarantine_path or item.path),
            "reason": ("content hashes to " + item.actual_digest) if item.actual_digest
            else "content could not be read",
        })
        for item in corrupt if item.quarantine_path is not None
    ]
    return ledger.append_drafts(drafts) if drafts else []
