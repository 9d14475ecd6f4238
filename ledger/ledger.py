"""The ledger facade: open or create `.labledger/`, append events, read them back.

This is the Python API for hooks inside training code::

    from labledger.ledger import Ledger
    ledger = Ledger.open()                       # finds .labledger/ like git finds .git/
    ledger.append("checkpoint.saved", run="r1", path="best.pth", digest=d, size=n, step=100)

Importing this module (and `labledger emit`) pulls in msgspec, blake3 and the standard library
only: DuckDB and pyarrow are imported by `query()` and sealing, torch and paramiko never.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from labledger.ledger import events as ev
from labledger.ledger._fast_emit import needs_run, runless_problem
from labledger.ledger._identity import default_actor, default_writer, id_problem
from labledger.ledger.durable import sync_file
from labledger.ledger.errors import (
    InvalidEventError,
    UnsafeFilesystemError,
)
from labledger.ledger.fs import unsafe_reason
from labledger.ledger.record import Record, encode_record
from labledger.ledger.root import (
    Config,
    LedgerPaths,
    find_root,
    fsync_dir,
    read_config,
    render_config,
)
from labledger.ledger.segment import Appended, Draft, SegmentWriter

if TYPE_CHECKING:
    from labledger.ledger._bulk import Batch, Ingested


class EventInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One line of `labledger ingest`: what a caller may say about an event."""

    kind: str
    body: dict[str, Any] = {}
    run: str | None = None
    instance: str | None = None
    at: str | None = None
    actor: str | None = None


_ENVELOPE = ('an event line is {"kind": ..., "body": {...}} with optional run, instance, at and '
             "actor: the event's own fields go under body")


def event_input_problem(exc: msgspec.ValidationError) -> str:
    """msgspec's words for an `EventInput` that does not fit, with what a line holds when the
    envelope itself is wrong (a field beside ``kind``, no ``kind``): the usual slip is writing
    the body's fields at the top, as ``emit --set`` reads them."""
    text = str(exc)
    if text.startswith(("Object contains unknown field", "Object missing required field")):
        return f"{text}; {_ENVELOPE}"
    return text


def _check_id(what: str, value: str | None) -> None:
    if value is not None and not isinstance(value, str):
        raise InvalidEventError(f"{what} must be text (an id), not {type(value).__name__} "
                                f"{value!r}", field=what)
    problem = id_problem(what, value)
    if problem is not None:
        raise InvalidEventError(problem, field=what)


_JSON_SCALARS = (str, int, float, bool, type(None))


def _find_foreign(value: Any) -> tuple[str, str] | None:
    """(dotted path, type name) of the first value JSON cannot hold, or None."""
    found = ev.first_leaf(value, lambda v: not isinstance(v, _JSON_SCALARS))
    return None if found is None else (found[0] or "body", type(found[1]).__name__)


def _find_bad_text(value: Any, path: str) -> str | None:
    """The dotted path of the first string that is not valid Unicode (lone surrogates)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "$"
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _find_bad_text(key, path) or _find_bad_text(item, f"{path}.{key}" if path
                                                                 else str(key))
            if found:
                return found
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _find_bad_text(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _find_non_finite(value: Any, path: str) -> str | None:
    """The path of the first NaN or infinity: JSON has no such numbers (they'd be null)."""
    found = ev.first_leaf(value, lambda v: isinstance(v, float) and not math.isfinite(v), path)
    return None if found is None else found[0] or "$"


def make_draft(kind: str, body: Mapping[str, Any], *, run: str | None, instance: str | None,
               at: str | None, actor: str, coerce_strings: bool = False,
               latest: str | None = None) -> Draft:
    """`Ledger.draft` with the actor resolved: validate one event and encode its body.

    ``at`` may be at most ``latest`` (default: now plus the clock-skew allowance). A run event
    (``run.*``, ``checkpoint.saved``) needs ``run``: without one it is refused here, so emit,
    ingest and the API all refuse it alike. Only new events pass through here: records a
    ledger already holds (written before this rule) are read, checked and sealed as they are."""
    _check_id("run", run)
    _check_id("instance", instance)
    # Fast path (the two tree walks below cost more than the rest of an append): a body that
    # validates and encodes holds no lone surrogate (msgspec refuses to encode one), and one
    # whose JSON has no `null` holds no NaN/infinity (msgspec writes those as null). Any
    # other body takes the checks in their documented order, so errors stay the same.
    encoded: bytes | None
    try:
        encoded = msgspec.json.encode(
            ev.validate_body(kind, body, coerce_strings=coerce_strings))
    except Exception:  # noqa: BLE001 - re-raised below, in order, by the slow path
        encoded = None  # (a RecursionError, too: the body is then refused as too deep)
    if encoded is None or ev.may_be_too_deep(encoded):
        deep = ev.too_deep(body)  # before the recursive walks below, which it keeps safe
        if deep is not None:
            raise InvalidEventError(ev.TOO_DEEP, kind=kind, field=deep)
    if encoded is None or b"null" in encoded:
        bad = _find_bad_text(body, "")
        if bad is not None:
            raise InvalidEventError("text is not valid UTF-8", kind=kind, field=bad)
        typed = ev.validate_body(kind, body, coerce_strings=coerce_strings)
        foreign = _find_foreign(typed)
        if foreign is not None:  # a tensor under `extra`, most likely: say where and what
            where, what = foreign
            raise InvalidEventError(f"a {what} is not a JSON value; convert it first (a tensor "
                                    "or numpy scalar: float(x) or x.item(); anything else: "
                                    "str(x))", kind=kind, field=where)
        # After validation: `--set x=nan` becomes a float only there. JSON would store null.
        bad = _find_non_finite(msgspec.to_builtins(typed), "")
        if bad is not None:
            raise InvalidEventError("NaN and infinity are not JSON numbers", kind=kind,
                                    field=bad)
        encoded = msgspec.json.encode(typed)
    if len(encoded) > ev.MAX_BODY_BYTES:
        raise InvalidEventError(
            f"body is {len(encoded)} bytes, over the {ev.MAX_BODY_BYTES}-byte limit; store "
            "large data in the CAS (`labledger cas put`) and record its digest", kind=kind)
    now = ev.now_ts()
    if at is not None:
        try:
            ts = ev.parse_ts(at)
        except ValueError as exc:
            raise InvalidEventError(str(exc), kind=kind, field="at") from None
        future = ev.future_problem(ts, latest or ev.latest_ts())
        if future is not None:
            raise InvalidEventError(future, kind=kind, field="at")
        recorded: str | None = now
    else:
        ts, recorded = now, None
    if run is None and needs_run(kind):  # after the body: its own mistakes are named first
        raise InvalidEventError(runless_problem(kind), kind=kind, field="run")
    return Draft(kind=kind, body=encoded, ts=ts, actor=actor,
                 v=ev.SCHEMA_VERSION, run=run, instance=instance, recorded=recorded)


class Ledger:
    """An open ledger. Cheap to create; the writer opens its files on the first append."""

    def __init__(self, paths: LedgerPaths, config: Config) -> None:
        self.paths = paths
        self.config = config
        per_process = config.segment_per_process or bool(
            os.environ.get("LABLEDGER_SEGMENT_PER_PROCESS"))
        self.per_process = per_process
        self.writer = default_writer(per_process)
        self.actor = default_actor()
        self._appender: SegmentWriter | None = None
        self._appender_pid = -1
        self._fs_checked = False

    # -- opening ----------------------------------------------------------------------------------
    @classmethod
    def open(cls, root: str | os.PathLike[str] | None = None) -> Ledger:
        """Open the ledger at ``root`` (or found from ``$LABLEDGER_ROOT`` / the working dir)."""
        paths = find_root(root)
        return cls(paths, read_config(paths))

    @classmethod
    def init(cls, project: str | os.PathLike[str], *, segment_per_process: bool = False) -> Ledger:
        """Create `.labledger/` in ``project`` (idempotent; an existing ledger is opened)."""
        paths = LedgerPaths(Path(project).absolute())
        if paths.config.exists():
            return cls(paths, read_config(paths))
        if not segment_per_process:
            reason = unsafe_reason(paths.project)
            if reason is not None:
                raise UnsafeFilesystemError(paths.project, *reason)
        config = Config(segment_per_process=segment_per_process)
        paths.home.mkdir(parents=True, exist_ok=True)
        for sub in (paths.segments, paths.cas):
            sub.mkdir(exist_ok=True)
        # gc's lock, made now: else the first writer makes it, and a writer refused for bad
        # input (a FIFO in `ingest-dir`'s folder) left a file behind in a ledger it did not
        # change (refusals leave the project as it was, docs/exit-codes.md)
        from labledger.cas.gc import GC_LOCK

        (paths.cas / GC_LOCK).touch(mode=0o644)
        tmp = paths.home / "config.toml.tmp"
        tmp.write_text(render_config(config), encoding="utf-8")
        with open(tmp, "rb") as fh:
            sync_file(fh.fileno())
        os.replace(tmp, paths.config)
        fsync_dir(paths.home)
        fsync_dir(paths.project)
        return cls(paths, config)

    # -- writing ----------------------------------------------------------------------------------
    def _writer(self) -> SegmentWriter:
        if self._appender is None or self._appender_pid != os.getpid():
            if not self._fs_checked and not self.per_process:
                reason = unsafe_reason(self.paths.segments)
                if reason is not None:
                    raise UnsafeFilesystemError(self.paths.segments, *reason)
                self._fs_checked = True
            if self._appender_pid != os.getpid() and self.per_process:
                self.writer = default_writer(True)  # a forked child gets its own segment
            self._appender = SegmentWriter(
                self.paths.segments / self.writer,
                writer=self.writer,
                recovered_dir=self.paths.recovered / self.writer,
                max_events=self.config.segment_max_events,
                max_bytes=self.config.segment_max_bytes,
                encoder=encode_record,  # msgspec: fastest for batches; same bytes as _line's
            )
            self._appender_pid = os.getpid()
        return self._appender

    def draft(
        self,
        kind: str,
        body: Mapping[str, Any],
        *,
        run: str | None = None,
        instance: str | None = None,
        at: str | None = None,
        actor: str | None = None,
        coerce_strings: bool = False,
    ) -> Draft:
        """Validate one event and encode its body; raises `InvalidEventError` naming the field."""
        return make_draft(kind, body, run=run, instance=instance, at=at,
                          actor=actor or self.actor, coerce_strings=coerce_strings)

    def append(
        self,
        kind: str,
        *,
        run: str | None = None,
        instance: str | None = None,
        at: str | None = None,
        **body: Any,
    ) -> Record:
        """Validate and durably append one event; returns it once it is on disk (fsynced)."""
        draft = self.draft(kind, body, run=run, instance=instance, at=at)
        return self.append_drafts([draft])[0]

    def append_drafts(self, drafts: list[Draft]) -> list[Record]:
        """Append already-validated drafts under one lock and one fsync: all or nothing."""
        placed = self._writer().append(drafts)
        return [self._record(d, p, more=i < len(drafts) - 1)
                for i, (d, p) in enumerate(zip(drafts, placed, strict=True))]

    def _record(self, draft: Draft, placed: Appended, *, more: bool) -> Record:
        return Record(id=placed.id, v=draft.v, seq=placed.seq, prev=placed.prev, ts=draft.ts,
                      writer=self.writer, actor=draft.actor, kind=draft.kind, run=draft.run,
                      instance=draft.instance, recorded=draft.recorded, more=more,
                      body=msgspec.Raw(draft.body))

    def append_batch(self, items: Iterable[EventInput | Mapping[str, Any]]) -> list[Record]:
        """Validate every event first, then append them all under one lock and one fsync."""
        if isinstance(items, Mapping | str | bytes):
            raise InvalidEventError("append_batch takes a list of events (one mapping each); "
                                    "for one event use append")
        drafts = []
        for number, item in enumerate(items, start=1):
            if not isinstance(item, EventInput | Mapping):
                raise InvalidEventError(f"an event is a mapping (kind, body, ...), not "
                                        f"{type(item).__name__}", line=number)
            try:
                event = item if isinstance(item, EventInput) else msgspec.convert(
                    dict(item), EventInput)
                drafts.append(self.draft(event.kind, event.body, run=event.run,
                                         instance=event.instance, at=event.at, actor=event.actor))
            except InvalidEventError as exc:
                raise InvalidEventError(exc.problem, kind=exc.kind, field=exc.field,
                                        line=number) from None
            except msgspec.ValidationError as exc:
                raise InvalidEventError(event_input_problem(exc), line=number) from None
        return self.append_drafts(drafts)

    def ingest(self, data: bytes, *, source: str | None = None,
               parallel: bool = False) -> Ingested:
        """Validate a JSON-lines batch (what `labledger ingest` reads), then append it all under
        one lock and one fsync: all or nothing, like `append_batch`, without building a
        `Record` per event. Every event gets the same timestamp. Errors name ``source`` and the
        line (blank lines count). ``parallel`` parses a large batch in two processes (fork:
        only for a single-threaded program)."""
        from labledger.ledger._bulk import parse_lines

        return self.append_parsed(parse_lines(data, actor=self.actor, source=source,
                                              parallel=parallel))

    def append_parsed(self, batch: Batch,
                      progress: Callable[[int], None] | None = None) -> Ingested:
        """Append a batch from `_bulk.parse_lines` (validated already): one lock, one fsync.
        ``progress`` is called with counts of records as they are encoded for the write."""
        from labledger.ledger._bulk import Ingested

        render = batch.render if progress is None else functools.partial(batch.render,
                                                                         progress=progress)
        placed = self._writer().append_rendered(len(batch), render)
        if placed is None:
            return Ingested(0, None, None)
        return Ingested(len(batch), placed[0], placed[1])

    def close(self) -> None:
        if self._appender is not None and self._appender_pid == os.getpid():
            self._appender.close()
        self._appender = None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------------------------
    def writers(self) -> list[str]:
        try:
            return sorted(p.name for p in self.paths.segments.iterdir() if p.is_dir())
        except FileNotFoundError:
            return []

    def records(self, kinds: Collection[str] | None = None) -> Iterator[Record]:
        """Every readable record (only those of ``kinds``, when given: the others are not
        parsed), writer by writer in chain order (no verification; see check)."""
        from labledger.ledger.read import iter_writer_records

        for writer in self.writers():
            yield from iter_writer_records(self.paths.segments / writer, kinds)

    def query(self) -> Any:
        """A read-only DuckDB connection with the ledger's views (imports DuckDB). Made
        again when `compact` seals a listed segment away while it is made
        (`query.connect_retrying`); its views read the segments listed then, so hold it for a
        query or a few, not for hours beside a compact (docs/ledger.md, "Reads beside
        compact")."""
        from labledger.ledger.query import connect_retrying

        return connect_retrying(self.paths)

    def sql(self, query: str) -> Any:
        """Run one read-only query, as `labledger sql` does: a `query.QueryResult` (columns,
        types, rows). Read again from a fresh listing when `compact` seals a segment away
        under it (`query.read_retrying`), so it never fails for that (imports DuckDB)."""
        from labledger.ledger.query import execute_query

        return execute_query(self.paths, query)

    def attach(
        self,
        path: str | os.PathLike[str],
        *,
        run: str | None = None,
        instance: str | None = None,
        role: str | None = None,
        sha256: bool = False,
    ) -> Record:
        """Store a file or directory in the CAS, then record `artifact.recorded` for it.

        The bytes are durable in the store before the event is written, so the event never
        names an object the store lacks.
        """
        from labledger.ledger.artifacts import record_attachment

        return record_attachment(self, Path(path), run=run, instance=instance, role=role,
                                 sha256=sha256)


