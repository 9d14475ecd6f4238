"""`pull`: copy a run's files off a box into the store, proving every byte on the way.

Order, and why (each step records before the next starts, so an interruption leaves true facts):

1. **List** the tree through the transport without following links. Empty directories and
   top-level files are entries like any other; the box's own ``.labledger/`` is not (step 4).
   A symlink is refused (a problem, exit 3) unless ``allow_symlinks``, and one whose target
   leaves the root is refused always; a link is recorded, never followed or transferred. Names
   with control characters, backslashes, bytes that are not UTF-8 or over 256 bytes of path
   are refused, as are links whose target is not UTF-8 (the manifest is JSON) and a folder that
   vanished before it could be listed.
2. **Hash on the box** in one batched remote command, then record ``pull.listed``: the manifest
   (entries, their digest), bound to the roster when one was given (``missing``,
   ``unexpected``, ``roster_mismatched``, ``roster_digest``), the ``refused`` names, and the
   ``only`` globs when ``--only`` restricted the listing (a partial listing of the box).
   While the box hashes, files no earlier pull saw at the same path and size, and of no size
   an object the ledger says is stored has (a checkpoint `labledger checkpoint` stored), already
   stream into their partial files (a remote box hashes with its own CPU while the link carries the
   bytes); nothing about them is compared, stored or recorded before ``pull.listed``.
   A file the box could no longer open to hash (rotated away after the listing) leaves the
   manifest, which holds only what the box hashed, and is recorded as failed.
   A file a live process on the box still held open for writing once the box had hashed it
   (`RemoteHash.writers`: a slow ``torch.save``, a log kept open) may be half-written, and the
   box's hash and the received bytes then agree on the half. It is pulled all the same (the
   bytes may be needed), but its manifest entry names those processes (``writers``), its result
   is not ok (the pull exits 3), and `labledger.reconcile.pull_verified` holds it unverified
   until a later listing shows it closed.
3. **Transfer** each file into ``cas/tmp/pull-<key>.partial`` (keyed by source, path and size;
   the source as written now, `canonical_source`: a partial file a labledger from before IPv6
   hosts were bracketed left under its bare source's key is renamed and resumed), hashing
   while receiving, over one OpenSSH stream when the transport has one, else file by
   file. A transport error is retried (bounded, with backoff, after a reconnect) from the
   partial file's end; a later `pull` resumes the same partial file. Each partial file is
   claimed (`labledger.cas._stage.Claim`: an exclusive ``flock`` on it) before this pull reads
   what an earlier attempt left in it, appends, stores or removes it, and held from the first
   byte to the commit that moves it into the store: two pulls of the same box never append to
   one partial file, nor store the other's bytes. A file whose partial file another pull holds
   is left to that pull and recorded as failed (`_BUSY`), never waited for; one received whole
   whose partial file changed after this pull let go of it (another pull stored or resumed it)
   is received again. The received SHA-256 is
   compared with the box's: a difference (the file changed between the box's hash and the
   send) is retried once from zero, then recorded as failed. Only a matching file enters the
   store (moved in place, `Store.adopt`; objects are made durable before their events), and
   ``artifact.pulled`` names both digests. A file whose BLAKE3 (or SHA-256: from an earlier
   pull, or of a stored object of its size) is already in the store is not transferred again;
   its stored bytes are re-hashed; a stored copy found corrupt then (moved to quarantine by
   the store) is recorded at once (``object.quarantined``, `PullReport.quarantined`) and the
   file is sent again, its bytes repairing the object. An object no event names that already
   holds a received file's bytes is re-hashed before it is kept in place of them. A failed
   sync or move into the store leaves every received
   file in its partial file (`PullWriteError`): the next pull resumes it at its end. When only
   the commit's last step fails (syncing the object folders after the moves), the files are in
   the store and their partial files gone: each is noted where its partial file was
   (``pull-<key>.stored``: digest, SHA-256, size, the error), and the next pull finds it there,
   re-hashes the stored bytes against the box's SHA-256 and sends nothing (a note is a hint,
   never trusted: an object lost since is sent again); its report names the earlier failure
   (``earlier_commit``). While a
   pull runs it holds ``tmp/pull.lock`` shared, so `labledger cas gc` (which removes partial
   files left by pulls that never resumed) removes none of them meanwhile.
   A file the box can no longer open (`FileUnreadableError`:
   it vanished after it was hashed) is recorded as failed and the pull goes on: only a lost box
   stops it.
4. **Merge** the box's ledger segments (``.labledger/ledger/<writer>/`` in the pulled folder or
   up to three folders above it, where a box's project root usually is): they are downloaded to
   a staging folder, their chains verified with `labledger.ledger.check.check_ledger`, then
   copied in as a union of files. Only acknowledged bytes are copied: a JSONL segment without a
   torn tail or a batch whose last record never came (the box's next append cuts both, so a
   copy of them would never again be a prefix of its segment). A local file with the same name
   and different bytes is never overwritten (a conflict is reported), except that a segment the
   box kept appending to (the local acknowledged bytes are a prefix of the box's) is extended;
   unacknowledged bytes an older pull copied are then cut, and kept under ``recovered/``.
5. **Verify** every pulled checkpoint (names matching ``checkpoint_globs``) in a child process
   (`labledger.ingest.checkpoint_load`) and record ``checkpoint.verified`` bound to its digest.
   A trainer's resume state beside the weights (`checkpoint_load.is_resume_state`: the optimizer,
   scheduler, scaler, RNG and training-argument files of HF Trainer, Accelerate, DeepSpeed) is
   checked as resume state, not weights (``resume_state`` in the event). Every pull re-checks
   what it lists, files already in the store included, and the newest check of a digest is
   the one that counts, so a file that failed an older rule holds after a pull that passes it.

A `TransportError` that outlives the retries stops the pull: events already written stay true,
no event claims a file that was not received and compared, and no run's state changes. A roster
is validated whole by `load_roster` before anything is listed or recorded.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import hashlib
import json
import os
import posixpath
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import blake3
import msgspec

from labledger.cas import Store, StoreFullError, StoreWriteError
from labledger.cas._stage import Claim
from labledger.cas.batch import Batch
from labledger.cas.errors import ObjectCorruptError, ObjectNotFoundError
from labledger.cas.gc import (
    PULL_NOTE_SUFFIX,
    PULL_PARTIAL_PREFIX,
    PULL_PARTIAL_SUFFIX,
    hold_pull_partials,
    remove_pull_partials,
)
from labledger.ingest.checkpoint_load import (
    CheckpointLoader,
    default_memory_limit,
    is_resume_state,
)
from labledger.ingest.errors import IngestError, PullSourceError, TransportError
from labledger.ingest.ssh_url import bare_source, canonical_source
from labledger.ingest.transport import BoxWriter, FileUnreadableError, RemoteHash, Transport
from labledger.ledger._words import counted, noun_for
from labledger.ledger.artifacts import corrupt_object, open_store, record_quarantine
from labledger.ledger.durable import sync_data, sync_file
from labledger.ledger.ledger import Ledger
from labledger.ledger.segment import Draft

PULL_V1 = "remote-gpu-trainer/PULL/v1"
CHECKPOINT_GLOBS = ("*.pth", "*.pt", "*.ckpt", "*.bin", "*.safetensors")
BOX_LEDGER = ".labledger"
_MAX_PATH = 256
_FLUSH_EVERY = 256
_LEDGER_SEARCH_DEPTH = 3  # how many folders above the pulled one may hold the box's .labledger


_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class PullWriteError(IngestError):
    """The bytes received could not be written here (a full disk, a read-only store, an I/O
    error), or could not be synced or moved into the store: exit 1. What was received so far
    stays in its partial file, and the same pull resumes it once the cause is fixed; nothing
    unverified was recorded."""

    _fields = ("path", "problem", "kept_in", "stored")

    def __init__(self, path: Path, exc: OSError, *, kept_in: Path | None = None,
                 stored: int | None = None, noted: bool = True) -> None:
        """``kept_in``: where the received files wait when ``path`` is not one of them (the
        store's ``tmp/``, when moving them into the store failed). ``stored``: the commit's
        last step failed (syncing the object folders ``path`` after the moves): that many
        received files are in the store, their partial files gone; ``noted``: whether the
        notes that let the next pull find them (`_note_path`) were written."""
        reason = exc.strerror or str(exc)
        if exc.errno in _FULL_ERRNOS:
            problem = f"no space left on the local disk ({reason})"
            fix = "free space (`labledger cas gc`, or elsewhere on that disk)"
        else:
            problem = reason
            fix = "fix the store's permissions or filesystem"
        if stored is not None:
            again = ("it finds them in the store by their digests (their bytes re-hashed) and "
                     "they are not transferred again" if noted else
                     "the note of what was stored could not be written either, so they will "
                     "be transferred again")
            message = (f"cannot sync the store's folders under {path}: {problem}. The "
                       f"{stored} received {noun_for(stored, 'file')} "
                       f"{'is' if stored == 1 else 'are'} in the store, but their entries may "
                       f"not survive a crash, so nothing was recorded for them; {fix}, then "
                       f"run the same `labledger pull` again: {again}")
        else:
            where = "there" if kept_in is None else f"in {kept_in} (pull-*.partial)"
            message = (f"cannot write {path}: {problem}. The bytes received so far are kept "
                       f"{where}; {fix}, then run the same `labledger pull` again: it resumes "
                       f"them, and files already stored are not transferred again")
        super().__init__(message)
        self.path, self.problem = str(path), problem
        self.kept_in = str(kept_in) if kept_in is not None else None
        self.stored = stored


@dataclass
class Roster:
    """The files a pull is expected to find: path -> (bytes or None, sha256 or None)."""

    files: dict[str, tuple[int | None, str | None]]
    digest: str
    source: str


@dataclass
class Entry:
    path: str
    type: str
    size: int = 0
    mode: int | None = None
    target: str | None = None
    sha256: str | None = None
    blake3: str | None = None
    # Processes on the box that held the file open for writing when the box hashed it
    writers: tuple[BoxWriter, ...] = ()

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "type": self.type, "size": self.size}
        for key in ("sha256", "mode", "target"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.blake3 is not None:
            out["blake3"] = "blake3:" + self.blake3
        if self.writers:  # absent when none: a listing without writers reads as before
            out["writers"] = _writers_json(self.writers)
        return out


def _writers_json(writers: Sequence[BoxWriter]) -> list[dict[str, Any]]:
    return [{"pid": w.pid, "command": w.command} for w in writers]


@dataclass
class FileResult:
    """One file's outcome: ``status`` is pulled, present (already stored), failed or missing."""

    path: str
    size: int
    status: str
    remote_sha256: str | None = None
    local_sha256: str | None = None
    digest: str | None = None
    error: str | None = None
    resumed_from: int = 0
    attempts: int = 0
    checkpoint_ok: bool | None = None
    checkpoint_error: str | None = None
    # Still being written on the box (`Entry.writers`): its bytes are copied, never verified
    writers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.status in ("pulled", "present") and self.checkpoint_ok is not False
                and not self.writers)


@dataclass
class PullReport:
    """What one pull found and did; ``ok`` when nothing failed, was missing or was refused."""

    run: str
    source: str
    entries: list[Entry] = field(default_factory=list)
    files: list[FileResult] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    roster_mismatched: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    merged_segments: list[str] = field(default_factory=list)
    merge_problems: list[str] = field(default_factory=list)
    manifest_digest: str | None = None
    listed_event: str | None = None
    bytes_transferred: int = 0
    bulk_error: str | None = None  # why the bulk stream stopped early (the rest went per file)
    box_ledger: str | None = None  # where the box's .labledger was found, relative to the root
    # files an earlier pull moved into the store without recording them (its commit's last
    # step failed, `PullWriteError` with ``stored``): path, digest, that pull's error, and
    # whether the stored bytes still hash to the box's SHA-256 (else sent again)
    earlier_commit: list[dict[str, Any]] = field(default_factory=list)
    # stored objects this pull found corrupt when it re-hashed them (moved to quarantine by the
    # store, recorded as ``object.quarantined``): path (the listed file being compared),
    # digest, quarantine_path, actual_digest, event (the id of the ``object.quarantined``;
    # None when another process moved it, and records it), and repaired (the box's bytes are
    # stored under the digest again)
    quarantined: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.unexpected or self.roster_mismatched or self.refused
                    or self.merge_problems or any(not f.ok for f in self.files)
                    or any(not q["repaired"] for q in self.quarantined))

    def counts(self) -> dict[str, dict[str, int]]:
        """expected / pulled / verified / failed, each as ``{files, bytes}``."""
        def total(items: Sequence[FileResult]) -> dict[str, int]:
            return {"files": len(items), "bytes": sum(f.size for f in items)}

        # A roster file that vanished after the listing is missing and failed: count it once.
        seen = {f.path for f in self.files}
        missing = [FileResult(p, 0, "missing") for p in self.missing if p not in seen]
        expected = [*self.files, *missing]
        good = [f for f in self.files if f.status in ("pulled", "present")]
        verified = [f for f in good if f.checkpoint_ok is True]
        failed = [f for f in self.files if not f.ok] + missing
        return {"expected": total(expected), "pulled": total(good),
                "verified": total(verified), "failed": total(failed)}

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "summary", "ok": self.ok, "run": self.run, "source": self.source,
            "manifest_digest": self.manifest_digest, "listed_event": self.listed_event,
            "bytes_transferred": self.bytes_transferred, **self.counts(),
            "missing": self.missing, "unexpected": self.unexpected,
            "roster_mismatched": self.roster_mismatched, "refused": self.refused,
            "merged_segments": self.merged_segments, "merge_problems": self.merge_problems,
            "box_ledger": self.box_ledger, "bulk_error": self.bulk_error,
            "earlier_commit": self.earlier_commit, "quarantined": self.quarantined,
            "files": [vars(f) for f in self.files],
        }


# -- roster and PULL/v1 ---------------------------------------------------------------------------
_BOM = b"\xef\xbb\xbf"
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_ITEM_KEYS = ("path", "bytes", "size", "sha256")


def load_roster(path: Path, *, manifest: bool = False) -> Roster:
    """Read a roster, validating all of it (nothing is pulled or recorded from a bad one).

    Grammar (docs/pull.md, "Rosters"): UTF-8 (a leading BOM is ignored), either JSON or text.
    Content starting with ``{`` or ``[`` is JSON: ``{"files": [...]}`` (the seed's PULL/v1;
    its other keys are free, but a ``totals`` present must agree with the list) or a bare list.
    Each item is a path string or ``{"path", "bytes" (or "size"), "sha256"}``, ``bytes`` a
    non-negative integer, ``sha256`` 64 hex digits (either may be null: not checked). Other
    content is text: one path per line, blank lines and ``#`` lines skipped, a JSON scalar
    (``null``, ``3``) refused. A path is relative, ``/``-separated, without empty, ``.`` or
    ``..`` parts (a leading ``./`` is dropped), with no control characters or backslashes, at
    most 256 bytes; it appears once; at least one is named. ``manifest`` (``--import-manifest``)
    also requires a JSON object with ``schema: "remote-gpu-trainer/PULL/v1"``.
    Raises `PullSourceError` naming the file and the first problem.
    """
    what = "manifest" if manifest else "roster"

    def bad(problem: str) -> PullSourceError:
        return PullSourceError(str(path), f"not a valid {what}: {problem}")

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PullSourceError(str(path), f"cannot read the {what}: {exc.strerror}") from exc
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad(f"it is not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start})"
                  ) from None
    if not text.strip():
        raise bad("it is empty; a roster names at least one file")
    data: Any = None
    is_json = manifest or text.lstrip().startswith(("{", "["))
    try:
        data = json.loads(text)
        is_json = True
    except ValueError as exc:
        if is_json:
            raise bad(f"it is not valid JSON ({exc})") from None
    if not is_json:
        items: list[Any] = []
        lines: list[str] = []
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                items.append(line)
                lines.append(f"line {number}")
    else:
        if manifest and not (isinstance(data, dict) and data.get("schema") == PULL_V1):
            schema = data.get("schema") if isinstance(data, dict) else None
            raise bad(f"its schema is {schema!r}, not {PULL_V1!r}" if schema is not None
                      else f"it has no \"schema\": {PULL_V1!r}")
        if isinstance(data, dict):
            if not isinstance(data.get("files"), list):
                raise bad('expected a "files" list ({"files": [...]}, as PULL/v1 has)')
            items = data["files"]
        elif isinstance(data, list):
            items = data
        else:
            raise bad(f"it is the JSON value {json.dumps(data)[:40]}, not a list of files or "
                      f'{{"files": [...]}}')
        lines = [f"files[{i}]" for i in range(len(items))]
    if not items:
        raise bad("it names no files; a roster names at least one file")
    files: dict[str, tuple[int | None, str | None]] = {}
    where: dict[str, str] = {}
    for at, item in zip(lines, items, strict=True):
        rel, size, sha = _roster_item(item, at, bad)
        if rel in files:
            raise bad(f"{at}: {rel!r} is named twice (also {where[rel]})")
        files[rel], where[rel] = (size, sha), at
    if isinstance(data, dict) and "totals" in data:
        _check_totals(data["totals"], files, bad)
    return Roster(files=files, digest="blake3:" + blake3.blake3(raw).hexdigest(),
                  source=str(path))


def _roster_item(item: Any, at: str, bad: Callable[[str], PullSourceError]
                 ) -> tuple[str, int | None, str | None]:
    """One roster entry as ``(path, bytes or None, sha256 or None)``; raises ``bad(...)``."""
    size: Any = None
    sha: Any = None
    if isinstance(item, dict):
        unknown = sorted(set(item) - set(_ITEM_KEYS))
        if unknown:
            raise bad(f"{at}: unknown key {unknown[0]!r} (an item has path, bytes, sha256)")
        if "bytes" in item and "size" in item:
            raise bad(f'{at}: give "bytes" or "size", not both')
        rel, size, sha = item.get("path"), item.get("bytes", item.get("size")), item.get("sha256")
        if not isinstance(rel, str):
            raise bad(f'{at}: "path" must be a string, not {json.dumps(rel)[:40]}')
    elif isinstance(item, str):
        rel = item
    else:
        raise bad(f"{at}: an item is a path string or an object with a path, not "
                  f"{json.dumps(item)[:40]}")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise bad(f"{at}: bytes must be a non-negative integer, not {json.dumps(size)[:40]}")
    if sha is not None and not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
        raise bad(f"{at}: sha256 must be 64 hex digits, not {json.dumps(sha)[:80]}")
    why = _roster_path_problem(rel.removeprefix("./"))
    if why is not None:
        raise bad(f"{at}: path {rel!r} {why}")
    return rel.removeprefix("./"), size, sha.lower() if sha is not None else None


def _roster_path_problem(rel: str) -> str | None:
    """Why ``rel`` cannot name a file inside the pulled folder, or None."""
    if not rel:
        return "is empty"
    if rel.startswith("/"):
        return "is absolute; roster paths are relative to the pulled folder"
    if len(rel.encode("utf-8")) > _MAX_PATH:
        return f"is longer than {_MAX_PATH} bytes"
    for part in rel.split("/"):
        if part in ("", ".", ".."):
            return ("leaves the pulled folder (a '..' part)" if part == ".."
                    else "has an empty or '.' part")
        why = _unsafe(part)
        if why is not None:
            return why
    return None


def _check_totals(totals: Any, files: dict[str, tuple[int | None, str | None]],
                  bad: Callable[[str], PullSourceError]) -> None:
    """A PULL/v1 ``totals`` must agree with its ``files`` (a truncated manifest does not)."""
    if not isinstance(totals, dict):
        raise bad(f'"totals" must be an object, not {json.dumps(totals)[:40]}')
    count, size = totals.get("files"), totals.get("bytes")
    if count is not None and count != len(files):
        raise bad(f'totals.files is {json.dumps(count)[:40]} but "files" lists {len(files)}')
    sizes = [s for s, _ in files.values()]
    if size is not None and None not in sizes and size != sum(s or 0 for s in sizes):
        raise bad(f'totals.bytes is {json.dumps(size)[:40]} but the files add up to '
                  f'{sum(s or 0 for s in sizes)}')


def pull_v1(run: str, created_at: str, entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The seed's PULL/v1 document for a manifest (file entries only carry path/bytes/sha256)."""
    files = [{"path": e["path"], "bytes": e.get("size", 0), "sha256": e.get("sha256")}
             for e in entries if e.get("type", "file") == "file"]
    tops = sorted({e["path"] for e in entries
                   if e.get("type") == "dir" and "/" not in e["path"]})
    return {"schema": PULL_V1, "run_id": run, "created_at_utc": created_at,
            "top_level_dirs": tops, "files": files,
            "totals": {"files": len(files), "bytes": sum(f["bytes"] for f in files)}}


def latest_listing(ledger: Ledger, run: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The timestamp and entries of the run's latest full ``pull.listed`` event, if any (a
    listing restricted by ``--only`` shows part of the box: it is no manifest of the run)."""
    found: tuple[str, list[dict[str, Any]]] | None = None
    for record in ledger.records(kinds=("pull.listed",)):
        if (record.run == run
                and (found is None or record.ts >= found[0])):
            body = record.body_dict()
            if not body.get("only"):
                found = (record.ts, list(body.get("entries", [])))
    return found


# -- listing --------------------------------------------------------------------------------------
def _unsafe(name: str) -> str | None:
    if name in (".", "..") or "/" in name:
        return "not a plain name"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "contains a control character"
    if "\\" in name:
        return "contains a backslash"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # surrogates: bytes that were not UTF-8 on the box
        return False
    return True


def _escapes(rel: str, target: str) -> bool:
    if target.startswith("/"):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
    return joined == ".." or joined.startswith("../")


def list_tree(transport: Transport, *, allow_symlinks: bool = False,
              only: Sequence[str] = ()) -> tuple[list[Entry], list[str]]:
    """Walk the box's tree (links never followed); returns (entries, refused problems)."""
    entries: list[Entry] = []
    refused: list[str] = []
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            listing = transport.list_dir(rel_dir)
        except FileUnreadableError:
            # Removed after its parent was listed (a rotated checkpoint folder): it is not part
            # of the manifest, and the pull says so.
            entries = [e for e in entries if e.path != rel_dir]
            refused.append(f"{rel_dir}: the folder vanished while the tree was listed")
            continue
        for st in sorted(listing, key=lambda s: s.name):
            rel = f"{rel_dir}/{st.name}" if rel_dir else st.name
            if not rel_dir and st.name == BOX_LEDGER:
                continue
            why = _unsafe(st.name)
            if why is None and len(rel.encode("utf-8")) > _MAX_PATH:
                why = f"its path is longer than {_MAX_PATH} bytes"
            if why is not None:
                refused.append(f"{rel!r}: unsafe name ({why})")
                continue
            if st.kind == "symlink":
                target = st.target or ""
                if not _utf8(target):  # the manifest is JSON: it could not hold the target
                    refused.append(f"{rel}: symlink to {target!r}, which is not valid UTF-8; "
                                   f"never followed")
                elif _escapes(rel, target):
                    refused.append(f"{rel}: symlink to {target} escapes the root; never followed")
                elif not allow_symlinks:
                    refused.append(f"{rel}: symlink to {target}; refused (pass --allow-symlinks "
                                   f"to record it as a link; it is never followed)")
                else:
                    entries.append(Entry(rel, "symlink", 0, st.mode, target))
                continue
            if st.kind == "other":
                refused.append(f"{rel}: not a regular file, directory or symlink")
                continue
            if st.kind == "dir":
                stack.append(rel)
                if not only:
                    entries.append(Entry(rel, "dir", 0, st.mode))
                continue
            if only and not any(fnmatch.fnmatchcase(rel, g) for g in only):
                continue
            entries.append(Entry(rel, "file", st.size, st.mode))
    entries.sort(key=lambda e: e.path)
    return entries, refused


def manifest_digest(entries: Sequence[Entry]) -> str:
    encoded = msgspec.json.encode([e.manifest() for e in entries], order="deterministic")
    return "blake3:" + blake3.blake3(encoded).hexdigest()


# -- transfer -------------------------------------------------------------------------------------
def partial_name(source: str, path: str, size: int) -> str:
    """The name, in the store's ``tmp/``, of the partial file a pull receives ``path`` of
    ``source`` into: ``pull-<key>.partial``, keyed by where the bytes come from (the box's
    hashes arrive after files start streaming) and by the listed size. A later pull of the same
    file resumes it (a changed file fails the SHA-256 comparison and is received again from
    zero). The source is taken as labledger writes it now (`canonical_source`), so a source
    recorded before IPv6 hosts were bracketed names the same partial file as the same source
    now."""
    return _keyed(canonical_source(source), path, size)


def _older_partial_name(source: str, path: str, size: int) -> str:
    """The name a labledger from before IPv6 hosts were bracketed gave the same partial file
    (keyed by the bare source, `bare_source`); `partial_name` itself for any other host."""
    return _keyed(bare_source(canonical_source(source)), path, size)


def _keyed(source: str, path: str, size: int) -> str:
    key = blake3.blake3(f"{source}\0{path}\0{size}".encode())
    return f"{PULL_PARTIAL_PREFIX}{key.hexdigest()[:40]}{PULL_PARTIAL_SUFFIX}"


def partial_origins(ledger: Ledger) -> dict[str, tuple[str, str]]:
    """Partial file name -> (source, path) for every file a recorded ``pull.listed`` named, so
    a leftover partial can be told apart (`labledger cas gc` shows it). A partial of a pull
    interrupted before its listing was recorded is not among them."""
    names: dict[str, tuple[str, str]] = {}
    for record in ledger.records(kinds=("pull.listed",)):
        body = record.body_dict()
        source = body.get("source")
        if not isinstance(source, str):
            continue
        for e in body.get("entries") or ():
            if isinstance(e, dict) and e.get("type", "file") == "file" \
                    and isinstance(e.get("path"), str) and isinstance(e.get("size"), int):
                for name in {partial_name(source, e["path"], e["size"]),
                             _older_partial_name(source, e["path"], e["size"])}:
                    names[name] = names[_note_path(Path(name)).name] = (
                        canonical_source(source), e["path"])
    return names


@dataclass
class _Received:
    path: Path
    size: int
    sha256: str
    resumed_from: int
    blake3: str  # hex, of exactly the bytes now in ``path`` (the store's name for them)
    identity: tuple[int, int]  # (st_dev, st_ino) of the partial file received into


_BUSY = ("another pull is receiving it from the same box right now (it holds the partial file "
         "this pull would resume); not transferred by this pull: pull again once that pull "
         "has finished")
"""A file whose partial file another pull holds claimed: left to that pull, never waited for
(a pull may hold a large file for hours, and two pulls waiting on each other's files would
wait forever)."""


_Adopting = tuple[Entry, _Received, str, Claim]
"""A received file staged in the pull's batch: its entry, the file, its digest, its claim."""


class _Hashes:
    """SHA-256 (compared with the box's) and BLAKE3 (the store's name) of the same bytes."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.b3 = blake3.blake3()

    def update(self, chunk: bytes) -> None:
        self.sha.update(chunk)
        self.b3.update(chunk)


class _HashThread:
    """Feeds chunks to a hash object in a worker thread, in order (bounded queue).

    The thread never sleeps on its queue without a deadline: a Ctrl-C can land in the main
    thread's `Queue.put` inside `Condition.notify`, after the thread's waiter was taken off
    and before it was released, and a thread waiting for that wake-up slept forever, with
    `finish` waiting on it (an interrupted pull hung). Waking every `_HASH_POLL` seconds, it
    finds what was put meanwhile. An interrupted feed is `abandon`ed: its hash is thrown away,
    so nothing waits for the thread; it stops at its next wake-up.
    """

    def __init__(self, hasher: _Hashes) -> None:
        import queue
        import threading

        self._q: queue.Queue[bytes | None] = queue.Queue(maxsize=16)
        self._hasher = hasher
        self._abandoned = False
        self._thread = threading.Thread(target=self._run, name="labledger-pull-hash",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import queue

        while not self._abandoned:
            try:
                chunk = self._q.get(timeout=_HASH_POLL)
            except queue.Empty:
                continue
            if chunk is None:
                return
            self._hasher.update(chunk)

    def feed(self, chunk: bytes) -> None:
        self._q.put(chunk)

    def finish(self) -> None:
        self._q.put(None)
        self._thread.join()

    def abandon(self) -> None:
        """Give up the hash (the feed was interrupted): return at once."""
        self._abandoned = True


_HASH_POLL = 0.2  # seconds the hashing thread sleeps on its queue before looking again


class _Puller:
    def __init__(self, ledger: Ledger, store: Store, transport: Transport, report: PullReport,
                 *, run: str, instance: str | None, retries: int, backoff: float,
                 progress: Callable[[int], None] | None) -> None:
        self.ledger, self.store, self.transport, self.report = ledger, store, transport, report
        self.run, self.instance = run, instance
        self.retries, self.backoff, self.progress = retries, backoff, progress
        self.drafts: list[Draft] = []
        self._batch: Batch | None = None  # received files, durable and visible at flush
        self.prefetched: dict[str, _Received] = {}  # path -> received before the hashes came
        self.vanished: list[FileResult] = []  # listed, then gone before the box could hash them
        self._syncer: Any = None
        self._syncing: list[Any] = []
        self.stored_by_size: dict[int, set[str]] = {}  # objects events say the store holds
        self._stored_sha: dict[str, str] = {}  # digest -> SHA-256 of the stored bytes
        self._adopting: list[_Adopting] = []  # in the batch, each with its claim
        self._notes_read: list[Path] = []  # removed once what they led to is recorded
        # drafts (by position) naming an object found already stored, which no put of this
        # pull protects from gc: each is checked again under gc's lock at `flush`
        self._found: dict[int, FileResult] = {}
        # (path, size) of the files whose partial file an older labledger may have named
        # otherwise (`_older_partial_name`) that were looked for: once per file and pull
        self._older_looked_for: set[tuple[str, int]] = set()
        # claims on partial files not let go yet (`_claim`): released by `close` at the latest
        self._held: list[Claim] = []

    def close(self) -> None:
        if self._syncer is not None:
            self._syncer.shutdown(wait=True)
        for claim in self._held:
            claim.release()
        self._held.clear()

    def _claim(self, partial: Path, *, create: bool = True) -> Claim | None:
        """Claim a partial file for this pull (`labledger.cas._stage.Claim`: an exclusive lock
        on it) before reading what an earlier attempt left in it, appending, storing or
        removing it; None when another pull holds it. Without ``create``, a partial file that
        is not there raises FileNotFoundError."""
        try:
            claim = Claim.take(partial, create=create)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise PullWriteError(partial, exc) from exc
        if claim is not None:
            self._held = [c for c in self._held if c.held]
            self._held.append(claim)
        return claim

    def _busy(self, entry: Entry) -> bool:
        """Whether another pull holds ``entry``'s partial file claimed right now."""
        try:
            claim = self._claim(self._partial(entry), create=False)
        except FileNotFoundError:
            return False
        if claim is None:
            return True
        claim.release()
        return False

    def _drop(self, partial: Path, got: _Received | None = None) -> None:
        """Remove a partial file this pull has no use for (of a listing's stale size, or
        received and then found already stored), unless another pull holds it, or (``got``)
        it is no longer the file this pull received: then it is that pull's."""
        try:
            claim = self._claim(partial, create=False)
        except FileNotFoundError:
            return
        if claim is None:
            return
        try:
            if got is None or _still_received(claim, got):
                partial.unlink(missing_ok=True)
        finally:
            claim.release()

    def add(self, kind: str, body: dict[str, Any]) -> None:
        self.drafts.append(self.ledger.draft(kind, body, run=self.run, instance=self.instance))
        if len(self.drafts) >= _FLUSH_EVERY:
            self.flush()

    def adopt(self, entry: Entry, got: _Received, claim: Claim) -> str:
        """Stage a received file in the store (no copy, named by the BLAKE3 computed while it
        was written); it becomes visible at `flush`, which then lets go of ``claim`` (held
        until the file is moved, so no other pull appends to it meanwhile). A stored object
        already holding these bytes (one no event names: a box without BLAKE3 could not find
        it) is kept instead of the received copy, so it is re-hashed first: a corrupt one is
        quarantined (recorded) and the received bytes are stored in its place."""
        named = "blake3:" + got.blake3
        if named not in self._stored_sha and self.store.exists(named):
            self._stored_sha256_if_there(named, entry.path, of_path=True)
        if self._batch is None:
            # Per-file fsyncs, not syncfs: the files were already written back (`_sync_soon`).
            self._batch = Batch(self.store, per_file_sync=True)
        digest = self._batch.adopt(got.path, blake3_hex=got.blake3, size=got.size,
                                   claim=claim).digest
        self._adopting.append((entry, got, digest, claim))
        self._stored_sha[digest] = got.sha256  # hashed as it arrived: never re-read this pull
        return digest

    def flush(self) -> None:
        """Make the received objects durable and visible, then record their events: an event
        never names an object that a crash could still take away.

        The events are taken out first: when the sync or the commit fails or is interrupted
        (Ctrl-C), they are dropped with it, never written by a later flush (the ``finally`` of
        `pull`) for objects that did not reach the store. Nothing is lost by that: the next
        pull finds what did reach the store present, and resumes the rest from their partial
        files, which a failed commit leaves in place (whole: nothing is received again). A
        failed sync or move is a `PullWriteError` that says so."""
        pending, self._syncing = self._syncing, []
        batch, self._batch = self._batch, None
        drafts, self.drafts = self.drafts, []
        adopted, self._adopting = self._adopting, []
        notes, self._notes_read = self._notes_read, []
        found, self._found = self._found, {}
        try:
            self._flush(pending, batch, drafts, adopted, found)
        finally:
            for *_, claim in adopted:  # moved into the store, or left to be resumed
                claim.release()
        for note in notes:  # what they pointed at is recorded now (present, or sent again)
            with contextlib.suppress(OSError):
                note.unlink()

    def _flush(self, pending: list[Any], batch: Batch | None, drafts: list[Draft],
               adopted: list[_Adopting], found: dict[int, FileResult]) -> None:
        for job in pending:
            job.result()  # a failed early sync (EIO, ENOSPC) is raised before any event
        if batch is None and not found:
            if drafts:
                self.ledger.append_drafts(drafts)
        else:
            # gc held off from the commit until the events naming its objects are recorded
            # (milliseconds, once per flush; never while bytes cross the link).
            with self.store.holding_off_gc():
                self._commit(batch, adopted)
                self._forget_removed(drafts, found)
                if drafts:
                    self.ledger.append_drafts(drafts)

    def _forget_removed(self, drafts: list[Draft], found: dict[int, FileResult]) -> None:
        """Under gc's lock: an object found already stored that gc removed since (it was
        named by no event, and older than gc's grace), or that was deleted by hand, is no
        longer there to record; its event says it failed instead of naming bytes that are
        gone (pull again to send it). Under the lock, gc cannot remove one between this look
        and the append of its event."""
        for at, result in found.items():
            if result.digest is not None and not self.store.exists(result.digest):
                result.status, result.digest = "failed", None
                result.error = ("found in the store (so not transferred), then removed from "
                                "it (by `labledger cas gc`, or by hand) before it was "
                                "recorded; pull again to send it")
                drafts[at] = self.ledger.draft("artifact.pulled", _pulled_body(result),
                                               run=self.run, instance=self.instance)

    def _commit(self, batch: Batch | None, adopted: list[_Adopting]
                ) -> None:
        """Make the batch's objects durable and visible (nothing when there is no batch)."""
        if batch is not None:
            try:
                batch.commit()
            except (StoreFullError, StoreWriteError) as exc:
                # The batch leaves the received files in place when a sync or a move fails:
                # the same pull resumes them at their ends, nothing crosses the link again.
                if not isinstance(exc.__cause__, OSError):
                    raise
                raise PullWriteError(Path(exc.path), exc.__cause__,
                                     kept_in=self.store.tmp_dir) from exc
            except OSError as exc:
                # A bare OSError from the commit's last step: syncing the object folders after
                # the moves. Files now in the store with their partial files gone are noted,
                # so that the next pull finds them (`_noted`); none such: raised as it is.
                moved = self._commit_tail_failed(adopted, exc)
                if moved is None:
                    raise
                raise moved from exc

    def _commit_tail_failed(self, adopted: list[_Adopting],
                            exc: OSError) -> PullWriteError | None:
        """Note each received file the failed commit moved into the store (its partial file
        gone, its object there: its digest, the box's SHA-256 and size, the error), next to
        where its partial file was, and return the error that says so; None when it moved
        none. The notes are hints: the next pull re-hashes what they name."""
        error = (f"an earlier pull moved it into the store, then syncing the store's folders "
                 f"failed ({exc.strerror or exc}); nothing was recorded for it")
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        stored, noted = 0, True
        for entry, got, digest, _ in adopted:
            if got.path.exists() or not self.store.exists(digest):
                continue  # not moved in: its partial file is still there, resumed as usual
            stored += 1
            note = {"path": entry.path, "size": entry.size, "sha256": got.sha256,
                    "digest": digest, "error": error, "at": at}
            try:
                _note_path(got.path).write_bytes(json.dumps(note, sort_keys=True).encode())
            except OSError:
                noted = False
        if not stored:
            return None
        return PullWriteError(self.store.objects_dir, exc, stored=stored, noted=noted)

    def has_note(self, entry: Entry) -> bool:
        """Whether a failed commit noted this file as moved into the store (`_noted`)."""
        return _note_path(self._partial(entry)).exists()

    def _noted(self, entry: Entry) -> str | None:
        """The digest a failed commit noted for this file (same source, path, size and
        SHA-256), else None. Only a hint: the caller re-hashes the stored bytes. Each note
        read is removed at the next flush that records events."""
        path = _note_path(self._partial(entry))
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        self._notes_read.append(path)
        try:
            note = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(note, dict) or note.get("sha256") != entry.sha256 or \
                note.get("size") != entry.size or not isinstance(note.get("digest"), str) or \
                not _B3_DIGEST.fullmatch(note["digest"]):
            return None
        self.report.earlier_commit.append(
            {"path": entry.path, "digest": note["digest"], "error": str(note.get("error")),
             "at": str(note.get("at")), "found": False})
        return str(note["digest"])

    @staticmethod
    def _prefix(partial: Path) -> tuple[_Hashes, int]:
        """Hash states and length of what an earlier attempt left in ``partial``."""
        sha = _Hashes()
        offset = 0
        if partial.exists():
            with open(partial, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    sha.update(chunk)
                    offset += len(chunk)
        return sha, offset

    def _receive(self, entry: Entry, claim: Claim,
                 streamed: Iterator[bytes] | None = None) -> _Received:
        """Receive into the partial file this pull holds ``claim`` on from its current end,
        hashing while writing.

        ``streamed`` is the file's bytes from a bulk stream, already positioned at the
        partial's end; a transport error inside it is raised (the caller gives up the stream
        and resumes file by file). Otherwise transport errors are retried here, after a
        reconnect, from the partial's end.
        """
        partial = claim.path
        sha, offset = self._prefix(partial)
        resumed_from = offset
        delay = self.backoff
        attempt = 0
        chunks = streamed
        _writable(partial)
        # A bulk stream hashes in a second thread (SHA-256 releases the GIL) so the pipe keeps
        # draining meanwhile. SFTP hashes inline: paramiko's packet thread already competes
        # for the GIL, and a third thread made 1 GiB 40% slower (2 cores).
        hasher = _HashThread(sha) if streamed is not None else None
        try:
            with _dropped_if_empty(partial), _Written(partial) as out:
                while True:
                    try:
                        if chunks is None:
                            chunks = self.transport.read(entry.path, offset)
                        for chunk in chunks:
                            out.write(chunk)
                            if hasher is not None:
                                hasher.feed(chunk)
                            else:
                                sha.update(chunk)
                            offset += len(chunk)
                            self.report.bytes_transferred += len(chunk)
                            if self.progress is not None:
                                self.progress(len(chunk))
                        break
                    except TransportError:
                        out.flush()  # `_Written`: a write error here is a `PullWriteError`
                        if streamed is not None or attempt >= self.retries:
                            raise
                        attempt += 1
                        time.sleep(delay)
                        delay *= 2
                        self.transport.reconnect()
                        chunks = None
        except BaseException:
            if hasher is not None:
                hasher.abandon()  # never wait for a thread an interrupt may have left asleep
            raise
        if hasher is not None:
            hasher.finish()
        self._sync_soon(partial)
        return _Received(partial, offset, sha.sha.hexdigest(), resumed_from, sha.b3.hexdigest(),
                         claim.identity())

    def _sync_soon(self, partial: Path) -> None:
        """Start writing a received file to disk now, in the background, so the sync before its
        event (`flush`) finds little left to write (scp never syncs; a pull must)."""
        if self._syncer is None:
            from concurrent.futures import ThreadPoolExecutor

            self._syncer = ThreadPoolExecutor(1, thread_name_prefix="labledger-pull-sync")
        self._syncing.append(self._syncer.submit(_datasync, partial))

    def _stored_sha256(self, digest: str) -> str:
        sha = hashlib.sha256()
        for chunk in self.store.read_chunks(digest):
            sha.update(chunk)
        return sha.hexdigest()

    def _stored_sha256_if_there(self, digest: str, path: str, *, of_path: bool) -> str | None:
        """The SHA-256 of a stored object (kept: each is read at most once per pull), or None
        when it was removed between the caller's look and this read (by `cas gc`, which may
        remove an object no event names yet, or by hand), or when its bytes do not hash to its
        name (read while comparing the listed file ``path``): not stored after all, so the file
        is sent like any other. ``of_path``: the object is the one ``path`` is stored under
        (by the box's BLAKE3, an earlier pull of its SHA-256, or its received bytes), not
        another file's of the same size."""
        try:
            sha = self._stored_sha[digest] = self._stored_sha256(digest)
        except ObjectNotFoundError:
            return None
        except ObjectCorruptError as exc:
            # The store moved the bad bytes to quarantine: recorded, and the file is sent
            # again like any other (the box's copy repairs the object, `_repaired`).
            self._quarantined(exc, path, of_path=of_path)
            return None
        return sha

    def _quarantined(self, exc: ObjectCorruptError, path: str, *, of_path: bool) -> None:
        """Record a stored object found corrupt while comparing ``path`` with it (``of_path``:
        the object ``path`` is stored under; else another file's: the box's copy of ``path``
        cannot repair it).

        Appended at once, in its own append (not with the pull's drafts, which a failed
        commit drops): the store has already moved the object, and the ledger must stop
        vouching for it whatever happens next. One another process moved first is recorded
        by that process (`record_quarantine`)."""
        recorded = record_quarantine(self.ledger, [corrupt_object(exc)])
        self.report.quarantined.append({
            "path": path, "digest": exc.digest,
            "quarantine_path": None if exc.quarantine_path is None else str(exc.quarantine_path),
            "actual_digest": exc.actual_digest,
            "event": recorded[0].id if recorded else None, "of_path": of_path,
            "repaired": False})

    def _repaired(self, digest: str) -> None:
        """The box's bytes of a quarantined object are stored under its digest again."""
        for found in self.report.quarantined:
            if found["digest"] == digest:
                found["repaired"] = True

    def _partial(self, entry: Entry) -> Path:
        partial = self.store.tmp_dir / partial_name(self.transport.source, entry.path,
                                                    entry.size)
        if (entry.path, entry.size) not in self._older_looked_for:
            self._older_looked_for.add((entry.path, entry.size))
            older = partial.with_name(_older_partial_name(self.transport.source, entry.path,
                                                          entry.size))
            if older != partial:
                _take_over(older, partial)
                _take_over(_note_path(older), _note_path(partial))
        return partial

    def _present(self, entry: Entry, known: dict[str, str]) -> FileResult | None:
        """The result for a file whose bytes the store already holds, else None."""
        assert entry.sha256 is not None
        candidate = ("blake3:" + entry.blake3) if entry.blake3 else known.get(entry.sha256)
        noted = self._noted(entry)
        candidate = candidate or noted
        if candidate is None:
            # Only a SHA-256 from the box: compare it with the stored objects of this size
            # (a checkpoint recorded with `labledger checkpoint`, never pulled).
            for digest in sorted(self.stored_by_size.get(entry.size, ())):
                if digest not in self._stored_sha and self.store.exists(digest):
                    # (another file's object, maybe: only its size is known to match)
                    self._stored_sha256_if_there(digest, entry.path, of_path=False)
                if self._stored_sha.get(digest) == entry.sha256:
                    candidate = digest
                    break
        if candidate is None or not self.store.exists(candidate):
            return None
        local = self._stored_sha.get(candidate)
        if local is None:  # each stored object is read at most once per pull
            local = self._stored_sha256_if_there(candidate, entry.path, of_path=True)
        if local != entry.sha256:
            return None
        result = FileResult(entry.path, entry.size, "present", remote_sha256=entry.sha256,
                            digest=candidate, local_sha256=local,
                            writers=_writers_json(entry.writers))
        if noted is not None and candidate == noted:
            self.report.earlier_commit[-1]["found"] = True
        self._found[len(self.drafts)] = result
        self._record(result)
        return result

    def pull_files(self, entries: Sequence[Entry], known: dict[str, str]) -> list[FileResult]:
        """Pull every file: one bulk stream first (when the transport has one), then file by
        file for whatever the stream did not deliver. Results come back in ``entries`` order."""
        results: dict[int, FileResult] = {}
        first_of: dict[str, int] = {}
        todo: list[int] = []
        for gone in self.vanished:  # recorded now: no event comes before ``pull.listed``
            self._record(gone)
        for i, e in enumerate(entries):
            assert e.sha256 is not None
            got = self.prefetched.pop(e.path, None)
            if got is not None:  # received while the box hashed: compare it now
                # ... unless the store held those bytes already (an object no event named):
                # the received copy is dropped, the stored one re-hashed
                present = self._present(e, known)
                if present is not None:
                    self._drop(got.path, got)
                    results[i] = present
                else:
                    results[i] = self._complete(e, got, known)
                continue
            if e.sha256 in first_of:
                continue  # the same bytes twice: pulled once, then found present below
            present = self._present(e, known)
            if present is not None:
                results[i] = present
                continue
            first_of[e.sha256] = i
            todo.append(i)
        if todo:
            try:
                index = {entries[i].path: i for i in todo}
                for entry, received in self._stream([entries[i] for i in todo]):
                    results[index[entry.path]] = self._complete(entry, received, known)
            except TransportError as exc:
                # The rest go file by file, each resuming from its partial, over a fresh
                # connection (whatever cut the stream may have cut the other one too).
                self._spend_retry(exc, stream_failed=True)
        for i in todo:
            if i not in results:
                results[i] = self._complete(entries[i], None, known)
        self.flush()  # duplicates below look for what was just stored
        for i, e in enumerate(entries):
            if i not in results:
                assert e.sha256 is not None
                results[i] = (self._present(e, known)
                              or self._complete(e, None, known))
        return sorted([*self.vanished, *(results[i] for i in range(len(entries)))],
                      key=lambda r: r.path)

    def apply_hashes(self, entries: list[Entry], files: list[Entry],
                     hashes: dict[str, RemoteHash]) -> None:
        """Give each listed file the box's digests. A file the box could no longer open (a
        training loop rotated it away after the listing) leaves the manifest, which holds only
        what the box hashed, and becomes a failed result, recorded by `pull_files`."""
        gone: dict[str, str] = {}
        for e in files:
            h = hashes[e.path]
            if h.sha256 is None:
                gone[e.path] = h.error or "the box did not hash it"
            elif h.size is not None and h.size != e.size:
                # It grew or shrank between the listing and the hash (a checkpoint still being
                # written, a log appended to): the manifest holds the bytes the box hashed, so
                # size and SHA-256 describe one version, and what streamed early (of another
                # version, under the listed size's partial) is dropped.
                early = self.prefetched.pop(e.path, None)
                if early is not None:
                    self._drop(early.path, early)
                self._drop(self._partial(e))
                e.size = h.size
            e.sha256, e.blake3, e.writers = h.sha256, h.blake3, h.writers
        if not gone:
            return
        for e in files:
            if e.path in gone:
                self.vanished.append(FileResult(
                    e.path, e.size, "failed",
                    error=f"vanished from the box after the listing: {gone[e.path]}"))
                self.prefetched.pop(e.path, None)
                self._drop(self._partial(e))  # never to be resumed: it is gone
        entries[:] = [e for e in entries if e.path not in gone]
        files[:] = [e for e in files if e.path not in gone]

    def hash_and_prefetch(self, files: Sequence[Entry], early: Sequence[Entry]
                          ) -> dict[str, RemoteHash]:
        """Have the box hash ``files`` (one batched command, in a thread) while ``early`` files
        stream into their partial files; returns the box's hashes.

        Nothing is compared, stored or recorded here: that waits for the listing (the hashes)
        to be recorded. A transport error on either side uses up one bounded retry; the hash
        is then redone over a fresh connection, and the files not received go later, file by
        file, each resuming from its partial.
        """
        prefetch_error: TransportError | None = None
        hash_error: TransportError | None = None
        hashes: dict[str, RemoteHash] | None = None
        done: dict[str, Any] = {}

        def box_hash() -> None:
            try:
                done["hashes"] = self.transport.hash_files([e.path for e in files])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                done["error"] = exc

        # A daemon thread, joined interruptibly: a Ctrl-C while the box hashes (minutes, for
        # hundreds of GiB) stops the pull at once instead of waiting for the box to finish.
        job = threading.Thread(target=box_hash, name="labledger-box-hash", daemon=True)
        job.start()
        try:
            self._prefetch(early)
        except TransportError as exc:
            prefetch_error = exc
        job.join()
        if isinstance(done.get("error"), TransportError):
            hash_error = done["error"]
        elif "error" in done:
            raise done["error"]
        else:
            hashes = done["hashes"]
        failed = prefetch_error or hash_error
        if failed is not None:
            self._spend_retry(failed, stream_failed=prefetch_error is not None)
        if hashes is None:
            hashes = self.transport.hash_files([e.path for e in files])
        return hashes

    def _spend_retry(self, exc: TransportError, *, stream_failed: bool) -> None:
        """One of the bounded retries goes to a failed stream or hash: back off and reconnect,
        or re-raise ``exc`` when none is left."""
        if self.retries <= 0:
            raise exc
        self.retries -= 1
        if stream_failed:
            self.report.bulk_error = str(exc)
        time.sleep(self.backoff)
        self.transport.reconnect()

    def _prefetch(self, early: Sequence[Entry]) -> None:
        for entry, got in self._stream(early):
            if isinstance(got, _Received):  # one that could not be read is tried again later
                self.prefetched[entry.path] = got

    def _stream(self, entries: Sequence[Entry]
                ) -> Iterator[tuple[Entry, _Received | FileUnreadableError]]:
        """Receive ``entries`` through the transport's bulk stream, each from its partial's
        end. A file the box could not open comes back as its `FileUnreadableError` (the stream
        goes on); a transport error is raised (the caller decides what it costs)."""
        # A file another pull is receiving is not asked for: it is left to that pull, or
        # resumed file by file (`_complete`) if that pull has finished with it by then.
        entries = [e for e in entries if not self._busy(e)]
        if not entries:
            return
        by_path = {e.path: e for e in entries}
        items = [(e.path, self._prefix_size(e)) for e in entries]
        for rel, offset, chunks in self.transport.read_many(items):
            entry = by_path[rel]
            claim = self._claim(self._partial(entry))
            if claim is None or claim.size() != offset:
                # Another pull took its partial file after it was asked for: these bytes
                # (from the size it had then) are not used; `_complete` tries it again.
                if claim is not None:
                    claim.release()
                _drain(chunks)
                continue
            got: _Received | FileUnreadableError
            try:
                got = self._receive(entry, claim, chunks)
            except FileUnreadableError as exc:
                got = exc
            finally:
                claim.release()  # claimed again to be stored (`_complete`), checked unchanged
            yield entry, got

    def _prefix_size(self, entry: Entry) -> int:
        try:
            return self._partial(entry).stat().st_size
        except FileNotFoundError:
            return 0

    def _complete(self, entry: Entry, got: _Received | FileUnreadableError | None,
                  known: dict[str, str]) -> FileResult:
        """Compare what was received with the box's hashes; store it or retry once. A file the
        box can no longer open is recorded as failed (the pull goes on with the others), and
        so is a file another pull is receiving (`_BUSY`). A file received earlier (``got``)
        whose partial file changed since (another pull stored it, or resumed it) is received
        again."""
        assert entry.sha256 is not None
        result = FileResult(entry.path, entry.size, "failed", remote_sha256=entry.sha256,
                            writers=_writers_json(entry.writers))
        claim = None if isinstance(got, FileUnreadableError) else self._claim(
            self._partial(entry))
        if isinstance(got, FileUnreadableError):
            result.error = _vanished(got)
        elif claim is None:
            result.error = _BUSY
        else:
            if got is not None and not _still_received(claim, got):
                got = None
            staged = False
            try:
                staged = self._store_received(entry, got, claim, result, known)
            finally:
                if not staged:  # a staged file's claim goes at the `flush` that stores it
                    claim.release()
        self._record(result)
        return result

    def _store_received(self, entry: Entry, got: _Received | None, claim: Claim,
                        result: FileResult, known: dict[str, str]) -> bool:
        """`_complete` under the claim on the file's partial file: receive (what is not yet),
        compare, and stage the file in the store, or drop it and try once more. Returns
        whether the file was staged (its claim is then the batch's until `flush`)."""
        assert entry.sha256 is not None
        for attempt in (1, 2):
            result.attempts = attempt
            if got is None:
                try:
                    got = self._receive(entry, claim)
                except FileUnreadableError as exc:
                    result.error = _vanished(exc)
                    return False
            result.local_sha256 = got.sha256
            result.resumed_from = max(result.resumed_from, got.resumed_from)
            if got.sha256 == entry.sha256 and got.size == entry.size:
                digest = self.adopt(entry, got, claim)
                if entry.blake3 is not None and digest != "blake3:" + entry.blake3:
                    result.error = (f"BLAKE3 mismatch: the box says blake3:{entry.blake3}, "
                                    f"received {digest}")
                    return True
                result.status, result.digest, result.error = "pulled", digest, None
                known[entry.sha256] = digest
                self._repaired(digest)
                return True
            if attempt == 1:  # received again from zero, into the same claimed file
                _emptied(claim.path)
            else:
                claim.path.unlink(missing_ok=True)
            result.error = (f"SHA-256 mismatch after {counted(attempt, 'attempt')}: the box hashed "
                            f"{entry.sha256} ({entry.size} bytes) at listing, received "
                            f"{got.sha256} ({got.size} bytes); the file changed on the box or "
                            f"in transit")
            got = None
        return False

    def _record(self, r: FileResult) -> None:
        self.add("artifact.pulled", _pulled_body(r))


def _vanished(exc: FileUnreadableError) -> str:
    return (f"vanished from the box after it was hashed (it could not be opened any more: "
            f"{exc.problem})")


def _emptied(partial: Path) -> None:
    try:
        os.truncate(partial, 0)
    except OSError as exc:
        raise PullWriteError(partial, exc) from exc


def _still_received(claim: Claim, got: _Received) -> bool:
    """Whether the claimed partial file is still the one ``got`` describes: the same file,
    as long (not stored, resumed or replaced by another pull since this pull received it)."""
    return claim.identity() == got.identity and claim.size() == got.size


def _drain(chunks: Iterator[bytes]) -> None:
    """Read a streamed file's bytes to their end without keeping them (a bulk stream must be
    consumed file by file)."""
    with contextlib.suppress(FileUnreadableError):
        for _ in chunks:
            pass


def _pulled_body(r: FileResult) -> dict[str, Any]:
    """The body of the `artifact.pulled` event recording ``r``."""
    body: dict[str, Any] = {"path": r.path, "ok": r.status in ("pulled", "present"),
                            "size": r.size, "remote_sha256": r.remote_sha256}
    if r.local_sha256 is not None:
        body["local_sha256"] = r.local_sha256
    if r.digest is not None and body["ok"]:
        body["digest"] = r.digest
    if r.error is not None:
        body["error"] = r.error
    return body


_B3_DIGEST = re.compile(r"blake3:[0-9a-f]{64}")


def _take_over(older: Path, current: Path) -> None:
    """Give a partial file (or note) an older labledger left under its older name
    (`_older_partial_name`) its current name, so that this pull resumes it. One already under
    the current name is this labledger's own and wins; the older one stays a leftover that
    `labledger cas gc` lists and removes."""
    with contextlib.suppress(FileNotFoundError, FileExistsError):
        try:
            # a link never replaces: a current one another pull made meanwhile is kept
            os.link(older, current)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            if current.exists():  # a filesystem without hard links
                return
            os.rename(older, current)
            return
        os.unlink(older)


def _note_path(partial: Path) -> Path:
    """Where a failed commit notes that the file received into ``partial`` was moved into the
    store (``pull-<key>.stored``, keyed as its partial file: source, path and size)."""
    return partial.with_name(partial.name[:-len(PULL_PARTIAL_SUFFIX)] + PULL_NOTE_SUFFIX)


@contextlib.contextmanager
def _dropped_if_empty(partial: Path) -> Iterator[None]:
    """On `FileUnreadableError`, remove ``partial`` if nothing was ever received into it (a
    file that vanished leaves no empty partial behind; received bytes stay to be resumed)."""
    try:
        yield
    except FileUnreadableError:
        with contextlib.suppress(FileNotFoundError):
            if partial.stat().st_size == 0:
                partial.unlink()
        raise


def _writable(partial: Path) -> None:
    """Make a partial file writable again: a pull that was killed after a file was received
    whole and staged (`Store.adopt` makes it read-only), but before the store took it, leaves
    it read-only; the next pull appends nothing to it, but must be able to open it."""
    try:
        mode = partial.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PullWriteError(partial, exc) from exc
    if not mode & stat.S_IWUSR:
        try:
            os.chmod(partial, stat.S_IMODE(mode) | stat.S_IWUSR)
        except OSError as exc:
            raise PullWriteError(partial, exc) from exc


class _Written:
    """A partial file open for appending whose write errors are `PullWriteError`s."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fh = open(path, "ab")  # noqa: SIM115 - closed by __exit__
        except OSError as exc:
            raise PullWriteError(path, exc) from exc

    def write(self, chunk: bytes) -> None:
        try:
            self._fh.write(chunk)
        except OSError as exc:
            raise PullWriteError(self.path, exc) from exc

    def flush(self) -> None:
        try:
            self._fh.flush()
        except OSError as exc:
            raise PullWriteError(self.path, exc) from exc

    def __enter__(self) -> _Written:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._fh.close()
        except OSError as error:
            if exc[0] is None:  # never hide the exception already on its way out
                raise PullWriteError(self.path, error) from error


def _datasync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # dropped meanwhile (a mismatch is received again)
    try:
        sync_data(fd)
    except OSError as exc:
        raise PullWriteError(path, exc) from exc
    finally:
        os.close(fd)


def _earlier_pulls(ledger: Ledger
                   ) -> tuple[dict[str, str], set[tuple[str, int]], dict[int, set[str]]]:
    """In one pass over the ledger: from every ok ``artifact.pulled`` (any run, any box),
    SHA-256 -> stored digest and the (path, size) pairs seen; and size -> digests of the
    objects stored here without a pull (``checkpoint.saved`` with its bytes stored,
    ``artifact.recorded``; the caller keeps those the store holds): a listed file of such a
    size may already be stored under no pull's SHA-256, so it waits for the box's hash instead
    of streaming early, and is compared with those objects. Objects pulled before are found
    by their SHA-256 instead, so a new checkpoint as large as the earlier ones still streams
    early."""
    known: dict[str, str] = {}
    seen: set[tuple[str, int]] = set()
    sizes: dict[int, set[str]] = {}
    kinds = ("artifact.pulled", "checkpoint.saved", "artifact.recorded")
    for record in ledger.records(kinds=kinds):
        body = record.body_dict()
        size = body.get("size")
        if record.kind == "artifact.pulled":
            if not body.get("ok"):
                continue
            seen.add((str(body.get("path")), int(size or 0)))
            if body.get("digest") and body.get("local_sha256"):
                known[body["local_sha256"]] = body["digest"]
            continue  # found by its SHA-256 (``known``), never by its size
        if record.kind == "checkpoint.saved" and body.get("stored") is False:
            continue  # hashed on the box, bytes left there: not in this store
        digest = body.get("digest")
        if isinstance(size, int) and isinstance(digest, str) \
                and body.get("type", "file") == "file":  # a tree's size is no file's
            sizes.setdefault(size, set()).add(digest)
    return known, seen, sizes


# -- ledger merge ---------------------------------------------------------------------------------
def merge_box_ledger(ledger: Ledger, transport: Transport, staging: Path,
                     report: PullReport) -> None:
    """Copy the box's ledger segments in as a union of files (step 4 of the module docstring)."""
    from labledger.ledger.check import check_ledger
    from labledger.ledger.root import LedgerPaths

    # The box's ledger sits at its project root, which is often an ancestor of the pulled
    # folder (a pull of export/<run> from a project at /root/proj): look up a few levels.
    for up in range(_LEDGER_SEARCH_DEPTH + 1):
        base = "../" * up + f"{BOX_LEDGER}/ledger"
        if transport.exists_dir(base):
            break
    else:
        return
    report.box_ledger = base.removesuffix("/ledger")
    box = LedgerPaths(staging)
    fetched: list[tuple[str, str]] = []
    for wdir in transport.list_dir(base):
        if wdir.kind != "dir" or _unsafe(wdir.name) is not None:
            continue
        (box.segments / wdir.name).mkdir(parents=True, exist_ok=True)
        for seg in transport.list_dir(f"{base}/{wdir.name}"):
            stem, dot, suffix = seg.name.partition(".")
            if seg.kind != "file" or not stem.isdigit() or suffix not in ("jsonl", "parquet"):
                continue
            try:
                with open(box.segments / wdir.name / seg.name, "wb") as out:
                    for chunk in transport.read(f"{base}/{wdir.name}/{seg.name}"):
                        out.write(chunk)
            except FileUnreadableError as exc:  # sealed or removed since it was listed
                report.merge_problems.append(f"box ledger: {exc.path}: {exc.problem}; nothing "
                                             f"was merged (pull again to merge it)")
                return
            fetched.append((wdir.name, seg.name))
    check = check_ledger(box)
    if not check.ok:
        report.merge_problems += [f"box ledger: {f}" for f in check.corrupt]
        return
    for writer, name in fetched:
        src = box.segments / writer / name
        dst = ledger.paths.segments / writer / name
        new = _acknowledged(src)
        kept = cut = b""
        if dst.exists():
            old = dst.read_bytes()
            if old == new:
                continue
            # What an older pull copied past the acknowledged end (a torn tail) the box has
            # since cut: it may differ from the box's bytes there, and is dropped (kept aside).
            kept = old[:len(_acknowledged(dst))] if dst.suffix == ".jsonl" else old
            if not new.startswith(kept) or writer == ledger.writer:
                report.merge_problems.append(
                    f"{dst}: differs from the box's {writer}/{name}; never overwritten"
                    + (_same_writer_hint(writer) if writer == ledger.writer else ""))
                continue
            cut = old[len(kept):]
        elif not new:
            continue  # nothing acknowledged in it yet: copied once the box completes a line
        dst.parent.mkdir(parents=True, exist_ok=True)
        if cut:
            _keep_cut(ledger, writer, dst, len(kept), cut)
        tmp = dst.with_name(f".{name}.pull-tmp")
        with open(tmp, "wb") as out:
            out.write(new)
            out.flush()
            sync_file(out.fileno())
        os.replace(tmp, dst)
        report.merged_segments.append(f"{writer}/{name}")
    if report.merged_segments:
        after = check_ledger(ledger.paths)
        report.merge_problems += [f"after merge: {f}" for f in after.corrupt]


def _same_writer_hint(writer: str) -> str:
    """Why a box segment can collide with one of ours: both ledgers write under one name."""
    return (f" (the box's ledger writes as {writer!r}, this ledger's own writer name: two "
            f"ledgers on one machine, or one LABLEDGER_WRITER for both, so its events in "
            f"this segment were not merged; give the box a name of its own, `export "
            f"LABLEDGER_WRITER=box1` before it records, see docs/pull.md)")


def _acknowledged(segment: Path) -> bytes:
    """The bytes of a box segment its writer acknowledged: a JSONL segment without a torn tail
    (a last line with no newline) or the records of a batch whose last record never came (a
    crash mid-append; the box's next append cuts both, so a copy of them would never again be a
    prefix of the box's segment). Parquet segments are sealed: all of them."""
    from labledger.ledger.segment import incomplete_batch_start

    data = segment.read_bytes()
    return data[:incomplete_batch_start(segment)] if segment.suffix == ".jsonl" else data


def _keep_cut(ledger: Ledger, writer: str, segment: Path, at: int, cut: bytes) -> None:
    """Keep bytes a merge drops from a local copy of a box segment where `labledger check`
    reports recovered cuts (``recovered/<writer>/<stem>-at-<offset>-<n>bytes.torn``), durably,
    before the segment is replaced."""
    from labledger.ingest._fs import fsync_dir

    folder = ledger.paths.recovered / writer
    folder.mkdir(parents=True, exist_ok=True)
    keep = folder / f"{segment.stem}-at-{at}-{len(cut)}bytes.torn"
    copy = 1
    while keep.exists():
        copy += 1
        keep = folder / f"{segment.stem}-at-{at}-{len(cut)}bytes.{copy}.torn"
    with open(keep, "wb") as out:
        out.write(cut)
        out.flush()
        sync_file(out.fileno())
    fsync_dir(folder)


# -- the whole pull -------------------------------------------------------------------------------
def pull(
    ledger: Ledger,
    transport: Transport,
    *,
    run: str,
    instance: str | None = None,
    roster: Roster | None = None,
    only: Sequence[str] = (),
    allow_symlinks: bool = False,
    allow_pickle: bool = False,
    checkpoint_globs: Sequence[str] = CHECKPOINT_GLOBS,
    verify_checkpoints: bool = True,
    retries: int = 3,
    backoff: float = 0.5,
    load_timeout: float = 300.0,
    memory_limit: int | None = None,
    merge_ledger: bool = True,
    on_listed: Callable[[PullReport], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> PullReport:
    """Pull ``transport``'s tree into the store and record what happened (see the module doc).

    Returns a `PullReport` (``ok`` is False when anything failed, was missing or was refused).
    Raises `TransportError` when the box cannot be reached or read within the retries; events
    recorded before that stay, and none claims a file that was not received and compared.
    """
    report = PullReport(run=run, source=transport.source)
    entries, report.refused = list_tree(transport, allow_symlinks=allow_symlinks, only=only)
    files = [e for e in entries if e.type == "file"]
    if on_total is not None:
        on_total(sum(e.size for e in files))
    # The loader child imports torch (seconds) while the box hashes and the files transfer.
    loader: CheckpointLoader | None = None
    if verify_checkpoints and any(_is_checkpoint(e.path, checkpoint_globs) for e in files):
        largest = max(e.size for e in files if _is_checkpoint(e.path, checkpoint_globs))
        loader = CheckpointLoader(
            allow_pickle=allow_pickle, require_weights_key=True,
            memory_limit=memory_limit if memory_limit is not None
            else default_memory_limit(largest))
    try:
        return _pull_listed(ledger, transport, report, entries, files, loader, run=run,
                            instance=instance, roster=roster, only=only,
                            checkpoint_globs=checkpoint_globs,
                            allow_pickle=allow_pickle, retries=retries, backoff=backoff,
                            load_timeout=load_timeout, merge_ledger=merge_ledger,
                            on_listed=on_listed, progress=progress)
    finally:
        if loader is not None:
            loader.abort()


def _pull_listed(ledger: Ledger, transport: Transport, report: PullReport,
                 entries: list[Entry], files: list[Entry], loader: CheckpointLoader | None, *,
                 run: str, instance: str | None, roster: Roster | None, only: Sequence[str],
                 checkpoint_globs: Sequence[str], allow_pickle: bool, retries: int,
                 backoff: float, load_timeout: float, merge_ledger: bool,
                 on_listed: Callable[[PullReport], None] | None,
                 progress: Callable[[int], None] | None) -> PullReport:
    """Steps 2-5 of the module docstring, once the tree is listed. The partial files are this
    pull's until it returns: `labledger cas gc` removes none meanwhile."""
    store = open_store(ledger)
    store.init()
    with hold_pull_partials(store):
        return _pull_locked(ledger, transport, report, entries, files, loader, store, run=run,
                            instance=instance, roster=roster, only=only,
                            checkpoint_globs=checkpoint_globs, allow_pickle=allow_pickle,
                            retries=retries, backoff=backoff, load_timeout=load_timeout,
                            merge_ledger=merge_ledger, on_listed=on_listed, progress=progress)


def _pull_locked(ledger: Ledger, transport: Transport, report: PullReport,
                 entries: list[Entry], files: list[Entry], loader: CheckpointLoader | None,
                 store: Store, *, run: str, instance: str | None, roster: Roster | None,
                 only: Sequence[str], checkpoint_globs: Sequence[str], allow_pickle: bool,
                 retries: int, backoff: float, load_timeout: float, merge_ledger: bool,
                 on_listed: Callable[[PullReport], None] | None,
                 progress: Callable[[int], None] | None) -> PullReport:
    puller = _Puller(ledger, store, transport, report, run=run, instance=instance,
                     retries=retries, backoff=backoff, progress=progress)
    try:
        # Files never pulled before in this size stream in while the box hashes; a file an earlier
        # pull saw at this path and size, or of the size of an object the ledger says is stored
        # (a checkpoint recorded with `labledger checkpoint`), may already be in the store and
        # waits for its hash: a file already stored is never transferred again.
        known, seen, by_size = _earlier_pulls(ledger)
        pulled = set(known.values())
        puller.stored_by_size = {size: here for size, digests in by_size.items()
                                 if (here := {d for d in digests - pulled if store.exists(d)})}
        # (and a file a failed commit noted as moved into the store: `_Puller.has_note`)
        early = [e for e in files
                 if (e.path, e.size) not in seen and e.size not in puller.stored_by_size
                 and not puller.has_note(e)]
        puller.apply_hashes(entries, files, puller.hash_and_prefetch(files, early))
        report.entries = entries
        report.manifest_digest = manifest_digest(entries)
        body: dict[str, Any] = {"source": transport.source,
                                "entries": [e.manifest() for e in entries],
                                "manifest_digest": report.manifest_digest}
        if roster is not None:
            listed = {e.path: e for e in files}
            # With --only, the roster is compared inside the globs: a file the pull was told to
            # leave out is not "missing" from it (the gate reads it the same way)
            expected = {p: v for p, v in roster.files.items()
                        if not only or any(fnmatch.fnmatchcase(p, g) for g in only)}
            report.missing = sorted(p for p in expected if p not in listed)
            report.unexpected = sorted(p for p in listed if p not in roster.files)
            for p, (size, sha) in sorted(expected.items()):
                got = listed.get(p)
                if got is not None and ((size is not None and size != got.size)
                                        or (sha is not None and sha != got.sha256)):
                    report.roster_mismatched.append(p)
            body.update(missing=report.missing, unexpected=report.unexpected,
                        roster_digest=roster.digest, roster_mismatched=report.roster_mismatched)
        if report.refused:
            body["refused"] = report.refused
        if only:
            # A listing restricted by --only shows part of the box: recorded as partial, so it
            # can never stand for the box's whole content at the teardown gate.
            body["only"] = list(only)
        listed_record = ledger.append("pull.listed", run=run, instance=instance, **body)
        report.listed_event = listed_record.id
        if on_listed is not None:
            on_listed(report)

        try:
            report.files.extend(puller.pull_files(files, known))
        finally:
            puller.flush()

        if merge_ledger:
            with tempfile.TemporaryDirectory(prefix="pull-ledger-", dir=store.tmp_dir) as staging:
                merge_box_ledger(ledger, transport, Path(staging), report)

        if loader is not None:
            _verify(puller, store, report, checkpoint_globs, loader=loader,
                    allow_pickle=allow_pickle, timeout=load_timeout)
        puller.flush()
        return report
    finally:
        puller.close()


def _is_checkpoint(path: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(posixpath.basename(path), g) for g in globs)


def _verify(puller: _Puller, store: Store, report: PullReport, globs: Sequence[str], *,
            loader: CheckpointLoader, allow_pickle: bool, timeout: float) -> None:
    todo = [f for f in report.files if f.digest is not None and f.status != "failed"
            and _is_checkpoint(f.path, globs)]
    if not todo:
        loader.abort()
        return
    for f in todo:
        loader.submit(store.object_path(f.digest or ""), f.path,
                      resume_state=is_resume_state(f.path))
    for f, r in zip(todo, loader.results(timeout), strict=True):
        f.checkpoint_ok, f.checkpoint_error = r.ok, r.error
        # Resume state is never unpickled with code: allow_pickle did not apply to it.
        body: dict[str, Any] = {"path": f.path, "digest": f.digest, "ok": r.ok,
                                "tensors": r.tensors, "loader": r.loader,
                                "allow_pickle": allow_pickle and not r.resume_state}
        if r.error is not None:
            body["error"] = r.error
        if r.resume_state:
            body["resume_state"] = True
        if r.refused is not None:
            body["refused"] = r.refused
        puller.add("checkpoint.verified", body)


def remove_partials(store: Store, *, older_than: float = 0.0) -> int:
    """Delete leftover ``pull-*.partial`` files (and ``pull-*.stored`` notes of a failed
    commit) last written more than ``older_than`` seconds ago (after a pull you will not
    resume: its box is gone); returns how many. None is removed
    while a pull runs (it may be resuming any of them): then it returns 0. `labledger cas gc`
    does the same with its ``--partial-grace``."""
    return len(remove_pull_partials(store, grace_seconds=older_than).partials_removed)


__all__ = ["CHECKPOINT_GLOBS", "PULL_V1", "Entry", "FileResult", "PullReport", "PullWriteError",
           "Roster", "latest_listing", "list_tree", "load_roster", "merge_box_ledger",
           "partial_name", "partial_origins", "pull", "pull_v1", "remove_partials"]
