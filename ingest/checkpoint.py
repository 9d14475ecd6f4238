"""Checkpoints into the ledger: record a file that exists, or save one atomically and record it.

Invariant: a `checkpoint.saved` event names bytes that were complete and durable on disk when it
was written, with their BLAKE3 digest. So the order is fixed:

1. validate the event (run id, role, step, metrics) and refuse a run that is already sealed --
   bad input writes nothing;
2. (``save_checkpoint`` only) ``torch.save`` into a temp file in the checkpoint's own directory
   (the link's target's directory when the path is a symlink), flush, fsync;
3. store the file in the CAS (or, ``digest_only``, fsync it and hash it without a copy, for a box
   with little disk: the file is then the only copy), only once it has *settled* (below);
   ``save_checkpoint`` does this to its temp file, so the event names exactly the bytes
   that call wrote even when other processes save to the same path;
4. (``save_checkpoint`` only) ``os.replace`` the temp file onto the final name (through a
   symlink, onto its target), fsync the directory;
5. append `checkpoint.saved`.

Settling (`read_settled`). A file somebody else wrote may still be being written: a writer that
writes half, pauses (a slow GPU-to-host copy, a sync to durable storage) and writes the rest
leaves a file whose size and times stand still during the pause, so "unchanged while it was
read" alone accepts the half. A file is therefore read only once its identity, size, mtime and
ctime (``st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns``) have been still for ``settle``
seconds, and its bytes are accepted only when those are the same after the read and the file has
then been still for at least ``2 * settle`` seconds in all (a short read is followed by a wait).
A change at any point starts the wait again; a file that never settles within `settle_timeout`
(10 settle times, at least 10 s) is refused (`CheckpointSourceError`). ctime, which no writer
can set back, is the clock: the wait is skipped for a file last changed long ago, and a ctime
in the future (a clock skewed against a network filesystem) is watched for a whole interval
instead. A file still held open for writing (``O_WRONLY``/``O_RDWR``) by another live process
on this machine is not settled however long it stood still (`labledger.ingest._writers`, one
scan of ``/proc`` each time the stillness is met, then once per settle time while it is held):
a writer that pauses for longer than the settle time is waited for, and one that still holds
the file at `settle_timeout` is named (pid, command) in the refusal. Where ``/proc`` cannot
tell (not Linux, another user's process, a writer on another machine) a pause longer than the
settle time cannot be told from a finished file: write to a temp file and rename it (as
`save_checkpoint` does). ``settle`` defaults to ``$LABLEDGER_SETTLE_S``, else
`DEFAULT_SETTLE_S`; 0 turns the waiting off, and with it the scan (the before/after
comparison stays).

torch is imported only inside `save_checkpoint`, so importing this module (and recording a
checkpoint) stays cheap inside a training loop. The run id defaults to ``$LABLEDGER_RUN`` and
the instance to ``$LABLEDGER_INSTANCE``, which `labledger run` exports to the command it wraps.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import time
import warnings
from collections.abc import Callable, Hashable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeVar

from labledger.cas._threads import hash_threads
from labledger.ingest._fs import fsync_dir, fsync_file
from labledger.ingest._writers import FileId, Writer, describe_writers, open_writers
from labledger.ingest.errors import CheckpointSourceError
from labledger.ledger._identity import id_from_env
from labledger.ledger.durable import sync_file
from labledger.ledger.errors import InvalidEventError, LedgerError
from labledger.ledger.ledger import Ledger, make_draft
from labledger.ledger.record import Record

Role = Literal["best", "last", "latest"]
RUN_ENV = "LABLEDGER_RUN"
INSTANCE_ENV = "LABLEDGER_INSTANCE"
_PLACEHOLDER_DIGEST = "blake3:" + "0" * 64
_CHUNK = 1 << 20
SETTLE_ENV = "LABLEDGER_SETTLE_S"
DEFAULT_SETTLE_S = 1.0
"""Seconds a file must stand still before it is read (and, in all, 2x this around the read)."""
MAX_SETTLE_S = 60.0
"""The longest settle time taken."""


def settle_timeout(settle: float) -> float:
    """How long a file may keep changing before it is refused as still being written: ten
    settle times, at least 10 s."""
    return max(10.0, 10 * settle)


_T = TypeVar("_T")
_CHANGED = "it changed while it was read (is it still being written?)"

__all__ = ["DEFAULT_SETTLE_S", "MAX_SETTLE_S", "RUN_ENV", "SETTLE_ENV", "Role", "Stillness",
           "digest_file", "read_settled", "record_checkpoint", "resolve_run", "resolve_settle",
           "save_checkpoint", "settle_timeout"]


def resolve_run(run: str | None, *, action: str = "record a checkpoint",
                kind: str | None = "checkpoint.saved") -> str:
    """``run`` itself, else ``$LABLEDGER_RUN``; raises `InvalidEventError` when neither is set.

    ``action`` says what needed the run id (``"close a capsule"``) and ``kind`` the event it
    would have named (None when the action is not one event), so the message is about the
    command that was run.
    """
    if run:
        return run
    env = id_from_env(RUN_ENV, "run")
    if env:
        return env
    raise InvalidEventError(
        f"no run id to {action}: pass --run RUN (run=... in Python) or set ${RUN_ENV} "
        "(`labledger run` sets it)", kind=kind, field="run")


SEALED_RUN_REFUSES = frozenset({"checkpoint.saved", "run.launched"})
"""The kinds a sealed run takes no more of: a new checkpoint or a new start would mean the run
goes on after its capsule was closed (notes, verifications, pulls and claims are still fine)."""


def refuse_sealed(led: Ledger, run: str, kind: str, when: str | None = None) -> None:
    """Raise `InvalidEventError` when ``run`` has a `capsule.sealed`: a sealed run is finished
    (DOMAIN: nothing sealed changes), so it takes no new checkpoints. ``when``: the time the
    event says it happened (a backfill, `emit --at`); one dated before the seal is history,
    not a change, and is let through."""
    from labledger.ingest.capsule import sealed_record

    sealed = sealed_record(led, run)
    if sealed is not None and (when is None or when >= sealed.ts):
        what = "the checkpoint" if kind == "checkpoint.saved" else "it"
        raise InvalidEventError(
            f"run {run!r} is sealed (capsule.sealed {sealed.id[:12]} at "
            f"{sealed.body_dict().get('path')}, {sealed.ts}); a sealed run takes no new events "
            f"of its own. Record {what} under a new run id", kind=kind, field="run")


def _split_metrics(metrics: Mapping[str, Any] | None) -> tuple[dict[str, float], dict[str, str]]:
    """Finite metrics as floats, and non-finite ones as text (JSON has no NaN; keep the fact)."""
    finite: dict[str, float] = {}
    other: dict[str, str] = {}
    if metrics is not None and not isinstance(metrics, Mapping):
        raise InvalidEventError(f"metrics must map names to numbers (a dict), not "
                                f"{type(metrics).__name__}", kind="checkpoint.saved",
                                field="metrics")
    for key, value in (metrics or {}).items():
        if isinstance(value, bool) or not isinstance(key, str):
            raise InvalidEventError(f"metric {key!r} is not a number", kind="checkpoint.saved",
                                    field=f"metrics.{key}")
        try:
            number = float(value)  # also takes a 0-d tensor or a numpy scalar
        except (TypeError, ValueError):
            raise InvalidEventError(f"metric {key!r} is {value!r}, not a number",
                                    kind="checkpoint.saved", field=f"metrics.{key}") from None
        if math.isfinite(number):
            finite[key] = number
        else:
            other[key] = str(number)
    return finite, other


def resolve_settle(settle: float | None, *, field: str = "settle") -> float:
    """``settle`` itself, else ``$LABLEDGER_SETTLE_S``, else `DEFAULT_SETTLE_S`; raises
    `InvalidEventError` for a value that is not a finite number of seconds >= 0."""
    where = field
    if settle is None:
        text = os.environ.get(SETTLE_ENV)
        if text is None or not text.strip():
            return DEFAULT_SETTLE_S
        where = f"${SETTLE_ENV}"
        try:
            settle = float(text)
        except ValueError:
            settle = math.nan
    if isinstance(settle, bool) or not isinstance(settle, int | float) or not (
            math.isfinite(settle) and 0 <= settle <= MAX_SETTLE_S):
        raise InvalidEventError(f"{where} is {settle!r}: the settle time must be a number of "
                                f"seconds from 0 to {MAX_SETTLE_S:g}", field=field)
    return float(settle)


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Stillness(NamedTuple):
    """What `read_settled` watches: ``identity`` (any change means the source changed),
    ``changed_ns`` (when it last changed: the newest ctime or mtime, nanoseconds since the
    epoch), ``size`` (bytes, for the message of a source that never settles) and ``files``
    (``(st_dev, st_ino)`` of its regular files: none may be open for writing elsewhere)."""

    identity: Hashable
    changed_ns: int
    size: int
    files: frozenset[FileId] = frozenset()


def _look_file(path: Path) -> Stillness:
    st = _stat_regular(path)
    return Stillness(_identity(st), max(st.st_ctime_ns, st.st_mtime_ns), st.st_size,
                     frozenset({(st.st_dev, st.st_ino)}))


def _still_for(look: Stillness) -> float:
    """Seconds since the source last changed, by its ctime (-1 when that lies in the future)."""
    age = time.time() - look.changed_ns / 1e9
    return age if age >= 0 else -1.0


def _settle_wait(watch: Callable[[], Stillness], seen: Stillness, need: float, deadline: float
                 ) -> Stillness | None:
    """Wait until the source has been still for ``need`` seconds; returns how it looks then,
    or None when it changed meanwhile (the caller starts over). Raises at ``deadline``."""
    while True:
        still = _still_for(seen)
        wait = need - still if still >= 0 else need  # a future ctime: watch a whole interval
        if wait <= 0:
            return seen
        if time.monotonic() + wait > deadline:
            raise _NotSettled
        time.sleep(wait)
        now = watch()
        if now.identity != seen.identity:
            return None
        if still < 0:
            return now  # watched unchanged for the whole interval
        seen = now


class _NotSettled(Exception):
    pass


def _wait_out_writers(seen: Stillness, settle: float, deadline: float) -> list[Writer]:
    """The processes holding ``seen``'s files open for writing (one `/proc` scan); while there
    are some, first sleep one settle time (raising `_NotSettled` when that passes
    ``deadline``), so the caller looks again. Empty: none (or none this process can see)."""
    held = open_writers(seen.files)
    if held:
        if time.monotonic() + settle > deadline:
            raise _NotSettled
        time.sleep(settle)
    return held


def _not_settled(*, seconds: float, changes: int, first: Stillness, last: Stillness,
                 settle: float) -> str:
    """Why a source that never settled is refused: who still holds it open for writing (one
    last scan), and how it kept changing."""
    changing = (f"it kept changing for {seconds:.1f} s ({changes + 1} changes seen; size "
                f"{first.size} -> {last.size} bytes)")
    held = open_writers(last.files) if settle > 0 else []
    if not held:
        return (f"it is still being written: {changing} and never stood still for {settle:g} "
                f"s; record it once its writer has finished")
    if changes or first.identity != last.identity:
        how = f"; {changing}"
    else:
        how = f", unchanged for the {seconds:.1f} s watched but never closed"
    return (f"it is still being written: it is held open for writing by "
            f"{describe_writers(held)}{how}; record it once that process has closed it")


def read_settled(path: Path, read: Callable[[], _T | None], *, settle: float,
                 timeout: float | None = None,
                 watch: Callable[[], Stillness] | None = None) -> _T:
    """``read()`` the file at ``path`` once it has settled, and return what it returned only
    if the file was still throughout (see the module docstring): still for ``settle`` seconds
    and held open for writing by no other process before the read, unchanged after it, and
    still for ``2 * settle`` seconds in all.

    A change anywhere waits and reads again, and a file another process holds open for writing
    is looked at again one settle time later, until ``timeout`` (default `settle_timeout`);
    then raises `CheckpointSourceError` ("still being written", naming the processes that
    still hold it open for writing). ``read`` itself should raise on a change
    it sees while it reads (``digest_file`` and the store do), or return None to say so.
    ``watch`` tells how the source looks (default: the regular file at ``path``): a caller
    that reads a whole directory passes one that looks at every entry in it
    (`labledger.ingest.run_dir`).
    """
    def look_file() -> Stillness:
        return _look_file(path)

    look = look_file if watch is None else watch
    started = time.monotonic()
    deadline = started + max(settle_timeout(settle) if timeout is None else timeout, 2 * settle)
    changes = 0
    first = last = look()
    while True:
        try:
            settled = _settle_wait(look, last, settle, deadline)
            if settled is not None and settle > 0 and _wait_out_writers(
                    settled, settle, deadline):
                last = look()  # still open for writing: look again, a settle time later
                continue
            if settled is not None:
                try:
                    result = read()
                except CheckpointSourceError as exc:
                    if exc.problem != _CHANGED:
                        raise
                    result = None  # changed while it was read: wait and read again
                if result is not None:
                    after: Stillness | None = look()
                    if after is not None and after.identity == settled.identity:
                        after = _settle_wait(look, after, 2 * settle, deadline)
                    if after is not None and after.identity == settled.identity:
                        return result
        except _NotSettled:
            last = look()
            raise CheckpointSourceError(path, _not_settled(
                seconds=time.monotonic() - started, changes=changes, first=first, last=last,
                settle=settle)) from None
        changes += 1
        last = look()


def digest_file(path: Path, *, progress: Callable[[int], None] | None = None,
                settle: float | None = 0.0) -> tuple[str, int]:
    """BLAKE3 digest and size of a regular file, without copying it.

    ``settle``: seconds the file must stand still around the read (`read_settled`); None reads
    ``$LABLEDGER_SETTLE_S`` (default `DEFAULT_SETTLE_S`); 0 (the default here) reads at once.

    Raises `CheckpointSourceError` if the file is missing, not a regular file, changes while
    it is read (size, mtime, ctime or inode differ before and after), or never settles.
    """
    wait = resolve_settle(settle)
    if wait > 0:
        return read_settled(path, lambda: _digest_once(path, progress), settle=wait)
    return _digest_once(path, progress)


def _digest_once(path: Path, progress: Callable[[int], None] | None) -> tuple[str, int]:
    from blake3 import blake3

    before = _stat_regular(path)
    hasher = blake3(max_threads=hash_threads())
    size = 0
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                hasher.update(chunk)
                size += len(chunk)
                if progress is not None:
                    progress(len(chunk))
    except OSError as exc:
        raise CheckpointSourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    after = _stat_regular(path)
    if _identity(before) != _identity(after) or size != after.st_size:
        raise CheckpointSourceError(path, _CHANGED)
    return "blake3:" + hasher.hexdigest(), size


def _stat_regular(path: Path) -> os.stat_result:
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CheckpointSourceError(path, "no such file") from None
    except OSError as exc:
        raise CheckpointSourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise CheckpointSourceError(path, "not a regular file")
    return st


def _make_durable(path: Path) -> None:
    """fsync a file and the directory holding it (the event will claim its bytes are durable)."""
    try:
        fsync_file(path)
        fsync_dir(path.parent if str(path.parent) else Path("."))
    except OSError as exc:
        raise CheckpointSourceError(path, f"cannot be made durable ({exc.strerror or exc})"
                                    ) from None


def _capture(led: Ledger, path: Path, *, digest_only: bool,
             progress: Callable[[int], None] | None, settle: float = 0.0) -> tuple[str, int]:
    """Digest and size of ``path`` once it has settled for ``settle`` seconds (0: at once, for
    a temp file this process wrote and fsynced): stored in the CAS, or (``digest_only``)
    fsynced in place, since the file is then the only copy of the bytes the event names."""
    if digest_only:
        def read() -> tuple[str, int]:
            _make_durable(path)
            return _digest_once(path, progress)
    else:
        def read() -> tuple[str, int]:
            return _put(led, path, progress)
    if settle > 0:
        return read_settled(path, read, settle=settle)
    return read()


def _holding_off_gc(led: Ledger, *, stores: bool) -> AbstractContextManager[None]:
    """The store's `holding_off_gc` when the checkpoint goes into it; nothing (and no store
    created) for a digest-only one."""
    if not stores:
        return contextlib.nullcontext()
    from labledger.ledger.artifacts import open_store

    return open_store(led).holding_off_gc()


def _put(led: Ledger, path: Path, progress: Callable[[int], None] | None) -> tuple[str, int]:
    from labledger.cas import SourceChangedError, SourceNotFoundError
    from labledger.ledger.artifacts import open_store

    try:
        result = open_store(led).put_file(path, progress=progress)
    except SourceNotFoundError:
        raise CheckpointSourceError(path, "no such file") from None
    except SourceChangedError:
        raise CheckpointSourceError(path, _CHANGED) from None
    return result.digest, result.size


def _body(path: Path, digest: str, size: int, *, stored: bool, step: int | None,
          epoch: int | None, role: str | None, metrics: Mapping[str, Any] | None
          ) -> dict[str, Any]:
    finite, other = _split_metrics(metrics)
    body: dict[str, Any] = {"path": str(path), "digest": digest, "size": size,
                            "stored": stored}
    if step is not None:
        body["step"] = step
    if epoch is not None:
        body["epoch"] = epoch
    if role is not None:
        body["role"] = role
    if finite:
        body["metrics"] = finite
    if other:
        body["extra"] = {"non_finite_metrics": other}
    return body


def record_checkpoint(
    path: str | os.PathLike[str],
    *,
    run: str | None = None,
    step: int | None = None,
    epoch: int | None = None,
    role: Role | None = None,
    metrics: Mapping[str, Any] | None = None,
    digest_only: bool = False,
    instance: str | None = None,
    ledger: Ledger | None = None,
    root: str | os.PathLike[str] | None = None,
    progress: Callable[[int], None] | None = None,
    settle: float | None = None,
) -> Record:
    """Store a checkpoint file in the CAS and append `checkpoint.saved`; returns the event.

    Parameters
    ----------
    path
        The checkpoint file, recorded as given (relative paths stay relative).
    run
        Run id; defaults to ``$LABLEDGER_RUN``.
    instance
        Instance (box) id; defaults to ``$LABLEDGER_INSTANCE`` (``labledger run --instance``
        sets both).
    step, epoch, role, metrics
        What the checkpoint is. ``role`` is ``best``, ``last`` or ``latest``. Metrics are
        numbers; a NaN or infinite value is kept as text under ``extra.non_finite_metrics``
        (JSON has no NaN) rather than refused, so a diverging run can still checkpoint.
    digest_only
        Hash the file (BLAKE3, size) without copying it into the store: ``stored=false``.
    ledger, root
        An open ledger to append to (cheapest inside a loop), else the one found from ``root``,
        ``$LABLEDGER_ROOT`` or the working directory.
    settle
        Seconds the file must stand still before it is read, and (in all) twice that around
        the read, so a writer that paused half-way is not taken for finished (see the module
        docstring). Default ``$LABLEDGER_SETTLE_S``, else 1 s; 0 reads at once. A file last
        changed long ago costs no wait.

    Raises
    ------
    InvalidEventError
        Bad run id, role, step, metric or settle time; nothing was stored or written.
    CheckpointSourceError
        The file is missing, not a regular file, changed while it was read, or kept changing
        for `settle_timeout` (still being written).
    CasError, LedgerError
        The store or the ledger could not be written.
    """
    run = resolve_run(run)
    instance = instance or os.environ.get(INSTANCE_ENV) or None
    path = Path(path)
    owned = ledger is None
    led = Ledger.open(root) if ledger is None else ledger
    try:
        options: dict[str, Any] = {"step": step, "epoch": epoch, "role": role,
                                   "metrics": metrics}
        # Validate first: bad input leaves neither the store nor the ledger touched.
        led.draft("checkpoint.saved", _body(path, _PLACEHOLDER_DIGEST, 0, stored=not digest_only,
                                            **options), run=run, instance=instance)
        wait = resolve_settle(settle)
        refuse_sealed(led, run, "checkpoint.saved")
        _stat_regular(path)
        # From before the put until the append: no gc (even --grace 0) removes the object
        # while the settle time is waited out after the read.
        with _holding_off_gc(led, stores=not digest_only):
            digest, size = _capture(led, path, digest_only=digest_only, progress=progress,
                                    settle=wait)
            draft = led.draft("checkpoint.saved", _body(
                path, digest, size, stored=not digest_only, **options), run=run,
                instance=instance)
            return led.append_drafts([draft])[0]
    finally:
        if owned:
            led.close()


def _import_torch() -> Any:
    with warnings.catch_warnings():
        # A CPU wheel without numpy warns on import; that is no concern for saving tensors.
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy",
                                category=UserWarning)
        import torch
    return torch


def _write_temp(obj: Any, target: Path) -> Path:
    """``torch.save`` into a new temp file beside ``target``, flushed and fsynced."""
    torch = _import_torch()
    target.parent.mkdir(parents=True, exist_ok=True)  # like torch.save users expect of a "save"
    tmp = target.parent / f".{target.name}.{secrets.token_hex(6)}.labledger-tmp"
    try:
        with open(tmp, "xb") as fh:
            torch.save(obj, fh)
            fh.flush()
            sync_file(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)  # our own incomplete temp file, never the checkpoint
        raise
    return tmp


def _save_atomically(obj: Any, path: Path,
                     capture: Callable[[Path], tuple[str, int]] | None = None
                     ) -> tuple[str, int] | None:
    """``torch.save`` to a temp file, fsync, ``capture`` it (hash or store the very bytes this
    call wrote), rename it onto ``path``, fsync the folder; returns what ``capture`` returned.

    A symlink at ``path`` is written through, as ``torch.save`` would: the temp file goes next
    to the link's target and replaces the target, so the bytes land where the link points (a
    link into durable storage stays a link). The file is put in place even when ``capture``
    fails (the checkpoint is the run's output; the error then says it was not recorded).
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else path
    directory = target.parent if str(target.parent) else Path(".")
    tmp = _write_temp(obj, target)
    captured: tuple[str, int] | None = None
    try:
        try:
            if capture is not None:
                captured = capture(tmp)
        finally:
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(directory)
    return captured


def save_checkpoint(
    obj: Any,
    path: str | os.PathLike[str],
    *,
    run: str | None = None,
    step: int | None = None,
    epoch: int | None = None,
    role: Role | None = None,
    metrics: Mapping[str, Any] | None = None,
    digest_only: bool = False,
    instance: str | None = None,
    ledger: Ledger | None = None,
    root: str | os.PathLike[str] | None = None,
) -> Record:
    """``torch.save(obj)`` atomically to ``path``, then `record_checkpoint` it.

    Missing parent folders are created. The object is written to a temp file in the same
    directory, flushed and fsynced, stored (or hashed) from there, renamed onto ``path`` with
    ``os.replace`` and the directory fsynced, so ``path`` always holds either the previous
    complete checkpoint or the new one, never a torn write, and the event's digest is that of the
    bytes this call wrote. When ``path`` is a symlink its target is replaced, not the link
    (the bytes go where the link points, e.g. to durable storage). Then the event is appended.
    The temp file is removed if saving fails. The ledger event is validated (and a sealed run
    refused) before anything is written. Parameters and errors as in `record_checkpoint`.
    """
    run = resolve_run(run)
    instance = instance or os.environ.get(INSTANCE_ENV) or None
    path = Path(path)
    body = _body(path, _PLACEHOLDER_DIGEST, 0, stored=not digest_only, step=step, epoch=epoch,
                 role=role, metrics=metrics)
    owned = ledger is None
    try:
        led = Ledger.open(root) if ledger is None else ledger
    except LedgerError:
        # No ledger to record in: the checkpoint is the run's own output, so it is still saved
        # (bad arguments were refused above), then the error says it was not recorded.
        make_draft("checkpoint.saved", body, run=run, instance=instance, at=None, actor="-")
        _save_atomically(obj, path)
        raise
    try:
        led.draft("checkpoint.saved", body, run=run, instance=instance)
        refuse_sealed(led, run, "checkpoint.saved")
        captured = _save_atomically(
            obj, path, lambda tmp: _capture(led, tmp, digest_only=digest_only, progress=None))
        digest, size = captured if captured is not None else (_PLACEHOLDER_DIGEST, 0)
        draft = led.draft("checkpoint.saved", _body(
            path, digest, size, stored=not digest_only, step=step, epoch=epoch, role=role,
            metrics=metrics), run=run, instance=instance)
        return led.append_drafts([draft])[0]
    finally:
        if owned:
            led.close()
