"""Adopt a finished run directory: every file into the CAS, every file recorded, in one batch.

For projects that start using labledger mid-way. The directory is stored as a CAS tree (every
file first, then the tree object), then one batch appends an `artifact.recorded` per file and
one of type ``tree`` for the directory, under one lock and one fsync: either the whole run is
recorded or none of it. The directory is only read, never changed or checked against the
capsule rules (it predates them; `labledger close` is the way to seal a capsule).

Its run. The folder's own files may name the run they belong to (``run.json``'s ``run_id`` or
``run``, ...: ``run-id-fields`` of ``.labledger/capsule.toml``). They are compared with the run it
is recorded as, by `labledger close`'s rule and words (`check_run_identity`): a field naming
another run that the ledger knows refuses the folder before anything is stored (the ledger is
append-only: a typo'd ``--run`` would file the results under another run for good); one naming a
run the ledger has never seen (a tracker's id) is a warning, said once for all of them. They are
read with the folder, once it has settled: the files compared are the files recorded.

Settling. A results file written with pauses (half, a sync, the rest) looks finished during the
pause. So the directory is read only once it has *settled*, by the rule `labledger checkpoint`
uses (`labledger.ingest.checkpoint.read_settled`): no entry in it (files, folders, symlinks: their
identity, size, mtime and ctime) has changed for ``settle`` seconds before the read, none
changed while it was read, and it has been still for ``2 * settle`` seconds in all; a change
waits and reads again (objects already stored stay, unnamed, for `labledger cas gc`). No file
of it may be held open for writing by another live process (one ``/proc`` scan for the whole
directory per settle poll, `labledger.ingest._writers`). A directory that never settles within
`settle_timeout` is refused with nothing recorded, naming any process that still holds one of
its files open for writing.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from labledger.ingest.capsule_rules import (
    RECORDING,
    CapsuleRules,
    check_run_identity,
    ledger_knows,
    load_rules,
    run_of_folder,
)
from labledger.ingest.checkpoint import (
    INSTANCE_ENV,
    RUN_ENV,
    Stillness,
    read_settled,
    resolve_run,
    resolve_settle,
)
from labledger.ingest.errors import (
    CapsuleSourceEmptyError,
    CapsuleSourceError,
    CheckpointSourceError,
)
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger

if TYPE_CHECKING:
    from labledger.cas import Store
    from labledger.cas.results import PutResult

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
    warnings: list[str] = msgspec.field(default_factory=list)  # run ids the ledger never saw

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


def _fit(path: str) -> str:
    return path if len(path) <= _MAX_NAME else "…" + path[-(_MAX_NAME - 1):]


def _look_tree(base: Path) -> Stillness:
    """How ``base`` looks for `read_settled`: every entry's identity, size, mtime and ctime
    (symlinks never followed; folders included, so a file created or removed is a change), and
    its regular files' identities (none may be open for writing in another process)."""
    entries: list[tuple[str, int, int, int, int, int, int]] = []
    files: set[tuple[int, int]] = set()
    newest = size = 0
    stack = [""]
    while stack:
        rel = stack.pop()
        folder = base / rel if rel else base
        try:
            st = os.lstat(folder)
            with os.scandir(folder) as it:
                listing = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            raise CapsuleSourceError(folder, f"it cannot be read ({exc.strerror or exc})"
                                     ) from None
        items = [(rel, st)]
        for entry in listing:
            name = f"{rel}/{entry.name}" if rel else entry.name
            try:
                est = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since the listing: the folder's own times show the change
            except OSError as exc:
                raise CapsuleSourceError(base / name, f"it cannot be read "
                                                      f"({exc.strerror or exc})") from None
            if entry.is_dir(follow_symlinks=False):
                stack.append(name)
            else:
                items.append((name, est))
        for name, est in items:
            entries.append((name, est.st_mode, est.st_dev, est.st_ino, est.st_size,
                            est.st_mtime_ns, est.st_ctime_ns))
            newest = max(newest, est.st_ctime_ns, est.st_mtime_ns)
            if name and not stat.S_ISDIR(est.st_mode):
                size += est.st_size
            if stat.S_ISREG(est.st_mode):
                files.add((est.st_dev, est.st_ino))
    return Stillness(tuple(sorted(entries)), newest, size, frozenset(files))


def _same_run(led: Ledger, base: Path, run: str, instance: str | None,
              warnings: list[str], rules: CapsuleRules) -> Callable[[], None]:
    """The check that ``base``'s own files name no other run than ``run`` (module docstring,
    "Its run"), to call before each read: raises `InvalidEventError` for one the ledger knows;
    else leaves in ``warnings`` the line naming those it has never seen, if any."""
    known = ledger_knows(led)
    again = f"labledger ingest-dir {shlex.quote(str(base))}" + (
        f" --instance {shlex.quote(instance)}" if instance else "")

    def check() -> None:
        problems, said = check_run_identity(base, rules, run, again=again, known=known,
                                            act=RECORDING)
        if problems:
            raise InvalidEventError("; ".join(problems), field="run")
        warnings[:] = said

    return check


def _holds_an_entry(folder: Path) -> bool:
    """Whether ``folder`` holds anything to record: a file or a symlink, at any depth (stops at
    the first, so a full run folder costs one listing)."""
    try:
        with os.scandir(folder) as entries:
            listing = list(entries)
    except OSError as exc:
        raise CapsuleSourceError(folder, f"it cannot be read ({exc.strerror or exc})") from None
    return any(not entry.is_dir(follow_symlinks=False) or _holds_an_entry(Path(entry.path))
               for entry in listing)


def ingest_run_dir(
    run_dir: str | os.PathLike[str],
    *,
    run: str | None = None,
    instance: str | None = None,
    ledger: Ledger | None = None,
    root: str | os.PathLike[str] | None = None,
    progress: Callable[[int], None] | None = None,
    settle: float | None = None,
) -> IngestedRun:
    """Store and record every file of ``run_dir`` for ``run`` (default ``$LABLEDGER_RUN``) and
    ``instance`` (default ``$LABLEDGER_INSTANCE``, which ``labledger run --instance`` exports).

    File events name ``<run_dir>/<relative path>`` as given (so a relative ``run_dir`` stays
    relative); the tree event names ``run_dir``. Symlinks are kept in the tree by their text,
    never followed.

    ``settle``: seconds no entry of ``run_dir`` may change before it is read, and (in all)
    twice that around the read, so a file whose writer paused half-way is not recorded as
    finished (see the module docstring). Default ``$LABLEDGER_SETTLE_S``, else 1 s; 0 reads at
    once. A directory last changed long ago costs no wait.

    Raises
    ------
    CapsuleSourceError
        ``run_dir`` is not a directory, holds no file (`CapsuleSourceEmptyError`), or it kept
        changing for `settle_timeout` (still being written); nothing was recorded.
    InvalidEventError
        A bad run or instance id, a bad settle time, or ``run_dir`` is the ledger's own folder,
        inside it or holds it (``.`` at the project root); nothing was stored.
    InvalidEventError
        The folder's own files name another run that the ledger knows (module docstring, "Its
        run"); nothing was stored.
    CapsuleConfigError
        ``.labledger/capsule.toml`` (its ``run-id-fields``) is not valid; nothing was stored.
    CasError, LedgerError
        The store or the ledger could not be written (no event was appended).
    """
    instance = instance or os.environ.get(INSTANCE_ENV) or None
    base = Path(run_dir)
    wait = resolve_settle(settle)
    owned = ledger is None
    led = Ledger.open(root) if ledger is None else ledger
    try:
        rules: CapsuleRules | None = None  # read once, where first needed
        if not run and not os.environ.get(RUN_ENV) and base.is_dir():  # as `close` does
            rules = load_rules(led.paths.home)
            run = run_of_folder(base, rules)
        run = resolve_run(run, action="record a run directory", kind=None)
        led.draft("note", {"text": "-"}, run=run, instance=instance)  # validates the ids
        if not base.is_dir():
            raise CapsuleSourceError(base, "it is not a directory")
        from labledger.ledger.artifacts import open_store, refuse_ledger_folder

        # `ingest-dir .` at the project root would store the ledger and every object again.
        refuse_ledger_folder(led, base)
        if not _holds_an_entry(base):
            raise CapsuleSourceEmptyError(base, "it holds no file to record (it is empty, or "
                                                "holds only empty folders): is it the run's "
                                                "folder?")

        warnings: list[str] = []
        same_run = _same_run(led, base, run, instance, warnings,
                             rules or load_rules(led.paths.home))
        store = open_store(led)
        same_run()  # a refusal before gc's lock file is made: the project stays as it was
        # From before the put until the append: no gc (even --grace 0) removes what it stored
        # while it waits out its settle time or builds its events.
        with store.holding_off_gc():
            put = _put_dir(store, base, wait, progress, same_run)
            drafts = [
                led.draft("artifact.recorded", {
                    "path": _fit(str(base / entry.path)), "digest": entry.digest,
                    "size": entry.size, "type": "file"}, run=run, instance=instance)
                for entry in put.entries if entry.kind == "file" and entry.digest is not None]
            files = len(drafts)
            drafts.append(led.draft("artifact.recorded", {
                "path": _fit(str(base)), "digest": put.digest, "size": put.size,
                "type": "tree", "role": "run-dir"}, run=run, instance=instance))
            records = led.append_drafts(drafts)
        return IngestedRun(run=run, path=str(base), digest=put.digest, files=files,
                           bytes=put.size, objects_new=put.objects_new,
                           event_id=records[-1].id,
                           symlinks=[e.path for e in put.entries if e.kind == "symlink"],
                           warnings=warnings)
    finally:
        if owned:
            led.close()


def _put_dir(store: Store, base: Path, wait: float, progress: Callable[[int], None] | None,
             check: Callable[[], None]) -> PutResult:
    """Store the folder, once it has stood still for ``wait`` seconds (0: at once); ``check``
    runs before each read (the run-id check: a change to run.json while settling is read
    again)."""
    if wait <= 0:
        check()
        return store.put_tree(base, symlinks="record", progress=progress)
    from labledger.cas import SourceChangedError, SourceNotFoundError

    def read() -> PutResult | None:
        check()
        try:
            return store.put_tree(base, symlinks="record", progress=progress)
        except (SourceChangedError, SourceNotFoundError):
            return None  # a file changed or went while it was read: settle again

    try:
        return read_settled(base, read, settle=wait, watch=lambda: _look_tree(base))
    except CheckpointSourceError as exc:
        raise CapsuleSourceError(base, exc.problem) from None
