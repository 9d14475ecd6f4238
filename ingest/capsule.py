"""Capsule closure: turn a finished run's files into a sealed, immutable, content-addressed capsule.

Protocol (DOMAIN.md, "Canonical run capsule"), with the cost of breaking each step:

1. Refuse, before touching anything, when ``<export-root>/<run>`` exists (a sealed capsule is
   never overwritten; re-running mints a new run id) or when ``<export-root>/.partial/<run>``
   exists (an interrupted closure whose files may be the only copy).
2. Wait until no file of the source has changed for ``settle`` seconds and none is held open
   for writing by another live process (a writer that paused half-way through a file must not
   be taken for finished; `labledger.ingest.checkpoint`, "Settling"); a source that keeps
   changing, or stays open for writing, for `settle_timeout` is closed anyway, and the checks
   below quarantine it. Copy the source
   into ``<export-root>/.partial/<run>`` and fsync it; with ``move`` rename the
   source there instead (same filesystem) or copy it (across filesystems, the source is removed
   only after the capsule is sealed and recorded).
3. Check the candidate against the rules (`labledger.ingest.capsule_rules`), collecting every
   problem; load checkpoints in a child process. Then the source must still be as it was
   before the copy, and still for ``2 * settle`` seconds in all: a change is a problem
   (quarantine), and so is a file still held open for writing then (naming the processes).
4. Store the candidate as a CAS tree (bytes first), then append `capsule.sealed` (tree digest,
   file count, bytes) and one `checkpoint.verified` per loaded checkpoint, in one batch.
5. Rename ``.partial/<run>`` to ``<run>`` with ``RENAME_NOREPLACE`` and fsync the export root.

The record comes before the rename so that a capsule is never in place without its record: a
crash (or Ctrl-C, or a failed rename) between the two leaves a recorded capsule in
``.partial/<run>``, and closing the same run again finds its `capsule.sealed`, checks that
``.partial/<run>`` is that very tree (its digest), and finishes the rename. A run that has a
`capsule.sealed` is never closed again otherwise (re-running mints a new run id).

On any failure in steps 2-4 the candidate is moved to ``<quarantine-root>/<run>--<attempt>``
(default quarantine root: ``<export-root>/../quarantine``) with a ``REASON.txt`` listing every
problem, and `capsule.quarantined` is recorded. Nothing is ever deleted: with ``move`` the files
are then in quarantine, not lost. Closing a quarantined folder again sets aside the top-level
reason file(s) labledger wrote there (recognised by their first line, `_REASON_HEADER`): a copy
leaves them out of the candidate, a move first renames them to ``<folder>.<name>`` beside the
folder. They are never sealed, and a ``REASON.txt`` of any other content is still refused.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shlex
import shutil
import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from labledger.ingest._fs import (
    ChangedWhileCopiedError,
    copy_tree,
    fsync_dir,
    move_dir,
    rename_noreplace,
)
from labledger.ingest._writers import Writer, describe_writers, open_writers
from labledger.ingest.capsule_rules import (
    CapsuleRules,
    check_capsule,
    ledger_knows,
    load_rules,
    run_of_folder,
)
from labledger.ingest.checkpoint import RUN_ENV, resolve_run, resolve_settle, settle_timeout
from labledger.ingest.checkpoint_load import LoadResult
from labledger.ingest.errors import (
    CapsuleBusyError,
    CapsuleExistsError,
    CapsuleInterruptedError,
    CapsuleQuarantinedError,
    CapsuleRunningError,
    CapsuleSourceError,
    CapsuleSourceKeptError,
    CapsuleSourceMissingError,
    CapsuleUnplacedError,
)
from labledger.ledger._identity import id_from_env
from labledger.ledger.durable import sync_file
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record

PARTIAL = ".partial"
_MAX_NAME = 256  # the ledger's limit on a path field
_MAX_PROBLEMS = 50
_MAX_REASON = 4000
_QUARANTINED = "\x00quarantine\x00"  # in a problem: where the candidate went (`_quarantine`)
_REASON_NAME = re.compile(r"REASON(?:\.labledger-\d+)?\.txt")  # `_write_reason`'s names
# The first line `_reason_text` writes: a reason file labledger itself wrote.
_REASON_HEADER = re.compile(rb"labledger quarantined run [A-Za-z0-9][^\s]* \(attempt \d+\) at "
                            rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.\n")


class SealedCapsule(msgspec.Struct, frozen=True, kw_only=True):
    """A sealed capsule: where it is, its tree digest, and the events that record it."""

    run: str
    path: str
    digest: str
    files: int
    bytes: int
    moved: bool
    event_id: str
    checkpoints: list[LoadResult] = msgspec.field(default_factory=list)
    unloaded: list[str] = msgspec.field(default_factory=list)  # no torch: sealed, not loaded
    warnings: list[str] = msgspec.field(default_factory=list)  # `CapsuleCheck.warnings`

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class _Rejected(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _fit(path: str) -> str:
    return path if len(path) <= _MAX_NAME else "…" + path[-(_MAX_NAME - 1):]


def _next_attempt(quarantine_root: Path, run: str) -> int:
    pattern = re.compile(re.escape(run) + r"--(\d+)")
    found = [0]
    if quarantine_root.is_dir():
        for entry in os.listdir(quarantine_root):
            match = pattern.fullmatch(entry)
            if match:
                found.append(int(match.group(1)))
    return max(found) + 1


def _write_reason(target: Path, attempt: int, text: str) -> Path:
    """Write the reason file without ever replacing a file the candidate brought along."""
    for name in ("REASON.txt", f"REASON.labledger-{attempt}.txt"):
        path = target / name
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            sync_file(fh.fileno())
        fsync_dir(target)
        return path
    raise FileExistsError(errno.EEXIST, "no free name for the reason file", str(target))


def _reason_text(run: str, attempt: int, source: Path, problems: list[str]) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"labledger quarantined run {run} (attempt {attempt}) at {when}.",
             f"Source: {source}", "", "Problems:"]
    lines += [f"- {p}" for p in problems]
    lines += ["", "Nothing was deleted. Fix the run (in its source, or here), then close it "
                  "again with `labledger close`: closing this folder sets this file aside "
                  "(it is never sealed)."]
    return "\n".join(lines) + "\n"


def _own_reasons(folder: Path) -> list[str]:
    """The top-level reason files of ``folder`` that labledger wrote when it quarantined it
    (regular files named as `_write_reason` names them, whose first line is `_REASON_HEADER`):
    closing the folder again sets them aside rather than seal them or refuse the capsule."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not _REASON_NAME.fullmatch(name):
            continue
        path = folder / name
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            with open(path, "rb") as fh:
                head = fh.readline(512)
        except OSError:
            continue
        if _REASON_HEADER.fullmatch(head):
            out.append(name)
    return out


def _set_aside_reasons(source: Path) -> None:
    """Before a move: rename labledger's own reason files out of ``source`` to
    ``<source>.<name>`` beside it (never replacing a file), so the capsule does not hold them."""
    for name in _own_reasons(source):
        aside = source.parent / f"{source.name}.{name}"
        try:
            rename_noreplace(source / name, aside)
        except OSError as exc:
            raise CapsuleSourceError(source, f"its {name} (labledger's reason for quarantining "
                                             f"it) cannot be set aside as {aside} "
                                             f"({exc.strerror or exc})") from None
    fsync_dir(source.parent)


def _quarantine(led: Ledger, candidate: Path, *, run: str, source: Path,
                quarantine_root: Path, problems: list[str]) -> CapsuleQuarantinedError:
    """Move the candidate to quarantine, write its reason, record the event; returns the error
    to raise. A ledger failure propagates (with a note saying where the files are)."""
    quarantine_root.mkdir(parents=True, exist_ok=True)
    attempt = _next_attempt(quarantine_root, run)
    while True:
        target = quarantine_root / f"{run}--{attempt}"
        try:
            move_dir(candidate, target)
            break
        except FileExistsError:
            attempt += 1
    # A moved run's files are only in quarantine now: a fix that names them names the folder.
    problems = [p.replace(_QUARANTINED, shlex.quote(str(target))) for p in problems]
    _write_reason(target, attempt, _reason_text(run, attempt, source, problems))
    listed = [p[:500] for p in problems[:_MAX_PROBLEMS]]
    if len(problems) > _MAX_PROBLEMS:
        listed.append(f"and {len(problems) - _MAX_PROBLEMS} more (see REASON.txt)")
    reason = "; ".join(problems)
    if len(reason) > _MAX_REASON:
        reason = reason[:_MAX_REASON - 1] + "…"
    try:
        record = led.append("capsule.quarantined", run=run, path=_fit(str(target)),
                            reason=reason, attempt=attempt, problems=listed,
                            source=_fit(str(source)))
    except BaseException as exc:
        exc.add_note(f"run {run} was quarantined in {target} but the event was not recorded")
        raise
    return CapsuleQuarantinedError(run, target, attempt, problems, record.id)


def close_capsule(
    source: str | os.PathLike[str],
    *,
    run: str | None = None,
    export_root: str | os.PathLike[str],
    move: bool = False,
    quarantine_root: str | os.PathLike[str] | None = None,
    rules: CapsuleRules | None = None,
    allow_running: bool = False,
    ledger: Ledger | None = None,
    root: str | os.PathLike[str] | None = None,
    settle: float | None = None,
) -> SealedCapsule:
    """Close the run in ``source`` into ``<export_root>/<run>`` (see the module docstring).

    Parameters
    ----------
    source
        The run's finished files (e.g. ``active/<run>``).
    run
        Run id, also the capsule's directory name; defaults to ``$LABLEDGER_RUN``, else to the
        one run id the source's own files name (`named_runs`: ``run.json``'s ``run_id`` or
        ``run``). A capsule whose files name another run than this is quarantined (a seal is
        final: a typo would label the results as another run's for good).
    export_root
        Where sealed capsules live; created if missing.
    move
        Move the files instead of copying them (see the module docstring for failures).
    quarantine_root
        Where failed candidates go; default ``<export_root>/../quarantine``.
    rules
        The capsule rules; default: ``.labledger/capsule.toml`` of the ledger, else built-ins.
    allow_running
        Close the run even though the ledger shows it as still running (its latest
        `run.launched` has no `run.exited` after it). Refused otherwise: a process still
        writing would change the capsule after its seal (moved) or tear it (copied). A file
        that changes while it is copied or checked fails the closure either way.
    settle
        Seconds no file of the source may change before the copy starts, and (in all) twice
        that by the time the capsule is recorded; default ``$LABLEDGER_SETTLE_S``, else 1 s;
        0: no wait. A source that changes after the wait (or never settles within
        `settle_timeout`) is quarantined.

    Raises
    ------
    CapsuleExistsError, CapsuleInterruptedError, CapsuleSourceError, CapsuleRunningError,
    CapsuleBusyError
        Refused before anything was copied or moved (`CapsuleSourceMissingError`, a
        `CapsuleSourceError`: the source does not exist or is not a directory).
    CapsuleQuarantinedError
        The candidate broke a rule or the closure failed; it is in quarantine and
        `capsule.quarantined` was recorded.
    InvalidEventError
        A bad run id, or an export or quarantine root that cannot be a directory (a file in
        the way); nothing was touched.
    """
    wait = resolve_settle(settle)
    owned = ledger is None
    led = Ledger.open(root) if ledger is None else ledger
    try:
        if rules is None:
            rules = load_rules(led.paths.home)
        run = resolve_run(run or id_from_env(RUN_ENV, "run") or run_of_folder(Path(source), rules),
                          action="close a capsule", kind=None)
        # Validates the run id (it names directories too) before anything moves.
        led.draft("capsule.quarantined", {"path": "-", "reason": "-"}, run=run)
        exports = _absolute(export_root)
        quarantine = (_absolute(quarantine_root) if quarantine_root
                      else exports.parent / "quarantine")
        _refuse_blocked_dir(exports, "export-root")
        _refuse_blocked_dir(quarantine, "quarantine-root")
        from labledger.ledger.artifacts import refuse_ledger_folder

        # The ledger is never copied or moved into a capsule (a linked source is copied through
        # its link, so its target is what is checked).
        refuse_ledger_folder(led, os.path.realpath(source))
        if not allow_running:
            _refuse_running(led, run)
        again = _close_again(source, export_root, quarantine_root, move)
        return _close(led, _absolute(source), run=run, export_root=exports, move=move,
                      quarantine_root=quarantine, rules=rules, settle=wait, again=again,
                      known=ledger_knows(led))
    finally:
        if owned:
            led.close()


def _close_again(source: str | os.PathLike[str], export_root: str | os.PathLike[str],
                 quarantine_root: str | os.PathLike[str] | None, move: bool) -> str:
    """The `labledger close` that closes this run again, without its ``--run``: a problem with
    the run's id names it. A moved run's files are in quarantine then, not in ``source``."""
    where = _QUARANTINED if move else shlex.quote(os.fspath(source))
    out = f"labledger close {where} --export-root {shlex.quote(os.fspath(export_root))}"
    if quarantine_root:
        out += f" --quarantine-root {shlex.quote(os.fspath(quarantine_root))}"
    return out


def _absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute, with any ``..`` resolved the way the kernel resolves it.

    ``Path.absolute`` keeps ``..``: ``--export-root ../../export`` given inside the source
    would name ``<source>/../../export``, a path that stops resolving once ``--move`` renamed
    the source away (and a recorded path that needs the source to exist). The folder part of
    a path with ``..`` is therefore resolved (symlinks included, as the kernel follows them);
    its last name is kept, so a source that is a link is still seen as one. A path without
    ``..`` keeps its spelling.
    """
    absolute = Path(path).absolute()
    if ".." not in absolute.parts:
        return absolute
    if absolute.name == "..":
        return Path(os.path.realpath(absolute))
    return Path(os.path.realpath(absolute.parent)) / absolute.name


def _refuse_blocked_dir(path: Path, option: str) -> None:
    """Raise `InvalidEventError` when ``path`` cannot be (made) a directory: it, or the nearest
    of its parents that exists, is not a directory."""
    here = path
    while True:
        try:
            mode = os.stat(here).st_mode
        except (FileNotFoundError, NotADirectoryError):
            if here.parent == here:
                return
            here = here.parent
            continue
        except OSError as exc:
            raise InvalidEventError(
                f"--{option} {path}: {here} cannot be read ({exc.strerror or exc})",
                field=option) from None
        if not stat.S_ISDIR(mode):
            what = "is" if here == path else "lies under"
            raise InvalidEventError(f"--{option} {path} {what} {here}, which is not a "
                                    f"directory; nothing was copied or moved", field=option)
        return


def _key(record: Record) -> tuple[str, str, int]:
    return (record.ts, record.writer, record.seq)


def live_launch(led: Ledger, run: str) -> Record | None:
    """The run's latest `run.launched` when no `run.exited` came after it (the ledger shows the
    run as still going: launched, running or stalled), else None (one pass over the ledger)."""
    launched: Record | None = None
    exited: Record | None = None
    for record in led.records(kinds=("run.launched", "run.exited")):
        if record.run != run:
            continue
        if record.kind == "run.launched":
            if launched is None or _key(record) > _key(launched):
                launched = record
        elif exited is None or _key(record) > _key(exited):
            exited = record
    if launched is None or (exited is not None and _key(exited) > _key(launched)):
        return None
    return launched


def _refuse_running(led: Ledger, run: str) -> None:
    launched = live_launch(led, run)
    if launched is not None:
        raise CapsuleRunningError(run, launched.id, launched.ts,
                                  launched.body_dict().get("host"))


def sealed_record(led: Ledger, run: str) -> Record | None:
    """The latest `capsule.sealed` of ``run``, or None (one pass over the ledger)."""
    found = None
    for record in led.records(kinds=("capsule.sealed",)):
        if record.run == run:
            found = record
    return found


def _finish_interrupted(led: Ledger, sealed: Record, *, run: str, destination: Path,
                        partial: Path) -> SealedCapsule:
    """Close a run already recorded as sealed: put its ``.partial`` tree in place if that is
    what an interrupted closure left, else refuse (nothing sealed is closed twice)."""
    body = sealed.body_dict()
    if os.path.lexists(destination) or not os.path.isdir(partial):
        raise CapsuleExistsError(run, destination, sealed=sealed.id)
    from labledger.ledger.artifacts import open_store

    put = open_store(led).put_tree(partial, symlinks="record")  # bytes are there: a re-hash
    if put.digest != body.get("digest"):
        raise CapsuleInterruptedError(run, partial, sealed_digest=str(body.get("digest")),
                                      destination=destination)
    try:
        rename_noreplace(partial, destination)
        fsync_dir(destination.parent)
        fsync_dir(partial.parent)
    except OSError as exc:
        raise CapsuleUnplacedError(run, partial, destination, sealed.id,
                                   exc.strerror or str(exc)) from None
    return SealedCapsule(run=run, path=str(destination), digest=put.digest,
                         files=int(body.get("files", 0)), bytes=int(body.get("bytes", 0)),
                         moved=False, event_id=sealed.id)


def _lock(export_root: Path, run: str) -> int:
    """An exclusive lock on ``<export_root>/.partial/.lock-<run>`` (never deleted: removing a
    lock file races with the next taker); raises `CapsuleBusyError` when another closure of
    the same run holds it. Run ids start with a letter or digit, so no lock can be a
    candidate's name."""
    folder = export_root / PARTIAL
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f".lock-{run}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise CapsuleBusyError(run, folder / run) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


_Snapshot = dict[str, tuple[int, int, int, int, int]]
"""Relative path -> (inode, size, mtime, ctime, device) of every file below a folder."""


def _snapshot(root: Path) -> _Snapshot:
    """(inode, size, mtime, ctime, device) of every file below ``root``: a later difference
    means a process is still writing into the candidate."""
    out: _Snapshot = {}
    stack = [root]
    while stack:
        here = stack.pop()
        with os.scandir(here) as it:
            for entry in it:
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append(Path(entry.path))
                else:
                    out[os.path.relpath(entry.path, root)] = (
                        st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_dev)
    return out


def _changed(before: _Snapshot, after: _Snapshot) -> list[str]:
    names = sorted(set(before) | set(after))
    return [n for n in names if before.get(n) != after.get(n)]


def _changing(paths: list[str]) -> str:
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return (f"files changed while the run was being closed ({shown}): is the run still "
            "writing? Close it once its process has finished")


def _newest_change(snapshot: _Snapshot) -> float:
    """When the newest file of a snapshot last changed (its ctime; seconds since the epoch)."""
    return max((max(v[2], v[3]) for v in snapshot.values()), default=0) / 1e9


def _writers(snapshot: _Snapshot) -> list[Writer]:
    """The live processes holding a file of ``snapshot`` open for writing: one ``/proc`` scan
    for all of them (`labledger.ingest._writers`)."""
    return open_writers({(v[4], v[0]) for v in snapshot.values()})


def _held_open(snapshot: _Snapshot, writers: list[Writer]) -> str:
    names = {(v[4], v[0]): rel for rel, v in snapshot.items()}
    held = sorted({names[w.file] for w in writers if w.file in names})
    shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
    verb = "is" if len(held) == 1 else "are"
    return (f"{shown} {verb} still held open for writing by {describe_writers(writers)}: is "
            "the run still writing? Close it once its process has finished")


def _settled_snapshot(source: Path, settle: float, deadline: float) -> _Snapshot:
    """`_snapshot` of ``source`` once none of its files has changed for ``settle`` seconds
    (by their ctimes; a ctime in the future is watched for a whole interval instead) and none
    is held open for writing by another process (one scan per poll), or at ``deadline`` the
    latest one (the closure then goes on, and its checks quarantine a run that is still being
    written)."""
    snap = _snapshot(source)
    watched = False  # unchanged for a whole interval (a ctime in the future)
    while True:
        still = time.time() - _newest_change(snap)
        wait = 0.0 if watched else (settle - still if still >= 0 else settle)
        if wait <= 0 and settle > 0 and _writers(snap):
            wait = settle  # still, but not closed: look again a settle time later
        if wait <= 0 or time.monotonic() >= deadline:
            return snap
        time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
        now = _snapshot(source)
        watched = now == snap and still < 0
        snap = now


def _close(led: Ledger, source: Path, *, run: str, export_root: Path, move: bool,
           quarantine_root: Path, rules: CapsuleRules, settle: float = 0.0,
           again: str = "labledger close DIR",
           known: Callable[[str], bool] = lambda _run: True) -> SealedCapsule:
    _precheck(led, source, run=run, export_root=export_root, move=move,
              quarantine_root=quarantine_root)  # refusals that need no lock write nothing
    lock = _lock(export_root, run)  # one closure of a run at a time; released by close()
    try:
        return _close_locked(led, source, run=run, export_root=export_root, move=move,
                             quarantine_root=quarantine_root, rules=rules, settle=settle,
                             again=again, known=known)
    finally:
        os.close(lock)


def _precheck(led: Ledger, source: Path, *, run: str, export_root: Path, move: bool,
              quarantine_root: Path) -> None:
    """The refusals of `_close_locked`, read-only, before the lock file is created; they are
    checked again under the lock."""
    destination = export_root / run
    partial = export_root / PARTIAL / run
    sealed = sealed_record(led, run)
    if sealed is not None:
        if os.path.lexists(destination) or not os.path.isdir(partial):
            raise CapsuleExistsError(run, destination, sealed=sealed.id)
        return  # an interrupted closure to finish, under the lock
    _check_source(source, run=run, move=move, destination=destination, partial=partial,
                  quarantine_root=quarantine_root)


def _check_source(source: Path, *, run: str, move: bool, destination: Path, partial: Path,
                  quarantine_root: Path) -> None:
    if not source.is_dir():
        raise CapsuleSourceMissingError(
            source, "it is not a directory" if os.path.lexists(source) else "it does not exist")
    if move and source.is_symlink():
        raise CapsuleSourceError(source, "it is a symlink; pass the directory it points to")
    if move and not os.access(source.parent, os.W_OK | os.X_OK):
        raise CapsuleSourceError(source, f"--move must take it out of {source.parent}, which is "
                                         "not writable; close it without --move (a copy)")
    if os.path.lexists(destination):
        raise CapsuleExistsError(run, destination)
    if os.path.lexists(partial):
        raise CapsuleInterruptedError(run, partial)
    real = source.resolve()
    for inside in (destination, partial, quarantine_root):
        if real == inside.resolve() or real in inside.resolve().parents:
            raise CapsuleSourceError(source, f"{inside} lies inside it")


def _close_locked(led: Ledger, source: Path, *, run: str, export_root: Path, move: bool,
                  quarantine_root: Path, rules: CapsuleRules, settle: float,
                  again: str, known: Callable[[str], bool]) -> SealedCapsule:
    destination = export_root / run
    partial = export_root / PARTIAL / run
    sealed = sealed_record(led, run)
    if sealed is not None:
        return _finish_interrupted(led, sealed, run=run, destination=destination,
                                   partial=partial)
    _check_source(source, run=run, move=move, destination=destination, partial=partial,
                  quarantine_root=quarantine_root)
    if move:  # a quarantined folder closed again: its reason file is not the run's
        _set_aside_reasons(source)
    partial.parent.mkdir(parents=True, exist_ok=True)
    fsync_dir(partial.parent.parent)

    try:
        # A difference later: the run is still being written. Nothing is copied before no
        # file has changed for `settle` seconds (a writer pausing half-way looks finished).
        before = _settled_snapshot(source, settle, time.monotonic() + settle_timeout(settle))
    except OSError as exc:
        raise CapsuleSourceError(source, f"it cannot be read ({exc})") from None
    copied = False  # the source still exists and must be removed after success (move only)
    try:
        if move:
            try:
                rename_noreplace(source, partial)
                fsync_dir(source.parent)
                fsync_dir(partial.parent)
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise
                copy_tree(source, partial, unchanging=True)
                copied = True
        else:
            copy_tree(source, partial, unchanging=True)
            for name in _own_reasons(partial):  # the copy's; the source keeps its own
                os.unlink(partial / name)
        check = check_capsule(partial, rules, run=run, again=again, known=known)
        if check.problems:
            raise _Rejected(check.problems)
        from labledger.ledger.artifacts import open_store

        store = open_store(led)
        # From before the put until the append (the settle wait between them included): no
        # `cas gc`, even --grace 0, removes the capsule's objects before they are recorded.
        with store.holding_off_gc():
            put = store.put_tree(partial, symlinks="record")
            # Renamed: the source's files are the candidate's (a writer follows the inode);
            # copied: a source that changed since means the copy is already stale.
            watched = source if copied or not move else partial
            changed = _changed(before, _snapshot(watched))
            if not changed and settle > 0:  # still, in all, for twice the settle time
                time.sleep(max(0.0, _newest_change(before) + 2 * settle - time.time()))
                after = _snapshot(watched)
                changed = _changed(before, after)
                writers = [] if changed else _writers(after)
                if writers:  # still not closed at the end: more may come (the settle timeout)
                    raise _Rejected([_held_open(after, writers)])
            if changed:
                raise _Rejected([_changing(changed)])
            files = sum(1 for e in put.entries if e.kind == "file")
            digests = {e.path: e.digest for e in put.entries if e.digest is not None}
            # Drafts validate now, so nothing can refuse them once the capsule is in place.
            drafts = [led.draft("capsule.sealed", {
                "path": _fit(str(destination)), "digest": put.digest, "files": files,
                "bytes": put.size, "source": _fit(str(source))}, run=run)]
            drafts += [led.draft("checkpoint.verified", _verified_body(
                r, path=_fit(str(destination / r.path)), digest=digests[r.path],
                loader=r.loader or check.loader), run=run) for r in check.loaded]
            records = led.append_drafts(drafts)  # recorded first: see the module docstring
    except (Exception, KeyboardInterrupt) as exc:
        if not os.path.lexists(partial):
            raise  # nothing was copied or moved yet: the source is untouched
        if isinstance(exc, ChangedWhileCopiedError):
            exc = _Rejected([_changing([exc.rel])])
        problems = exc.problems if isinstance(exc, _Rejected) else [
            f"closure failed: {type(exc).__name__}: {exc}"]
        error = _quarantine(led, partial, run=run, source=source,
                            quarantine_root=quarantine_root, problems=problems)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise error from (None if isinstance(exc, _Rejected) else exc)
    try:
        rename_noreplace(partial, destination)
        fsync_dir(export_root)
        fsync_dir(partial.parent)
    except OSError as exc:  # recorded, not in place: closing again finishes it
        raise CapsuleUnplacedError(run, partial, destination, records[0].id,
                                   exc.strerror or str(exc)) from None
    capsule = SealedCapsule(run=run, path=str(destination), digest=put.digest, files=files,
                            bytes=put.size, moved=move, event_id=records[0].id,
                            checkpoints=check.loaded, unloaded=check.unloaded,
                            warnings=check.warnings)
    if copied:  # sealed, stored, recorded and in place: the copy is the run now
        kept = _remove_moved_source(source, before)
        if kept is not None:
            problem, partly = kept
            raise CapsuleSourceKeptError(run, source, destination, records[0].id, problem,
                                         partly=partly, sealed=capsule)
    return capsule


def _verified_body(result: LoadResult, *, path: str, digest: str,
                   loader: str | None) -> dict[str, Any]:
    """A `checkpoint.verified` body for a loaded checkpoint, with the same fields as pull's
    (`labledger.ingest.pull`): ``resume_state`` and ``refused`` when set."""
    body: dict[str, Any] = {"path": path, "digest": digest, "ok": True,
                            "tensors": result.tensors, "loader": loader}
    if result.resume_state:
        body["resume_state"] = True
    if result.refused is not None:
        body["refused"] = result.refused
    return body


def _remove_moved_source(source: Path, before: _Snapshot) -> tuple[str, bool] | None:
    """Delete the source of a move that had to copy (across filesystems), only once the sealed
    copy is known to hold it: the source is still exactly as it was before the copy (the
    capsule's tree was hashed from that copy and recorded). Folders of the run that are
    read-only (``chmod -R a-w`` on a finished run) are made writable by their owner first; the
    files' own modes do not matter. Returns None when removed, else (why it was kept, whether
    removal failed half-way); nothing is deleted unless everything can be."""
    try:
        changed = _changed(before, _snapshot(source))
    except OSError as exc:
        return f"it can no longer be read ({exc.strerror or exc})", False
    if changed:
        return (f"it changed after it was copied ({', '.join(changed[:5])}), so the capsule does "
                "not hold what is there now"), False
    if not os.access(source.parent, os.W_OK | os.X_OK):
        return f"its folder {source.parent} is not writable", False
    restored: list[tuple[str, int]] = []
    try:
        for folder in _folders(source):
            if not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
                mode = stat.S_IMODE(os.lstat(folder).st_mode)
                os.chmod(folder, mode | stat.S_IRWXU)
                restored.append((folder, mode))
    except OSError as exc:
        for folder, mode in reversed(restored):  # back as they were: the source is kept whole
            try:
                os.chmod(folder, mode)
            except OSError:
                pass
        return (f"{exc.filename or source} is read-only and cannot be made writable "
                f"({exc.strerror or exc})"), False
    try:
        shutil.rmtree(source)
    except OSError as exc:
        return f"{exc.filename or source}: {exc.strerror or exc}", True
    fsync_dir(source.parent)
    return None


def _folders(root: Path) -> list[str]:
    """``root`` and every folder below it, never following symlinks."""
    out = [str(root)]
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    out.append(entry.path)
                    stack.append(entry.path)
    return out
