"""labledger's event ledger: typed events appended to hash-chained, append-only segments.

Invariants
----------
* The log is never rewritten: corrections are new events. Tags (``kind``) are stable forever.
* Every record is self-checking: its ``id`` is the BLAKE3 of its own bytes, ``prev`` links it to
  the writer's previous record and ``seq`` numbers it, so a changed, deleted or reordered record
  is detected and reported, never silently repaired.
* Bodies are validated on the way in; a malformed event is refused and nothing is written.
* An event is acknowledged only after ``fsync``; a batch is written all or nothing.
* Run state is a projection queried from the events (DuckDB views), never a stored flag.

Importing this package costs nothing: the public names below load on first use (PEP 562), so
`labledger emit`'s fast path, which lives in submodules, never pays for msgspec. DuckDB and
pyarrow load only when a query or sealing needs them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing would cost `emit` ~5 ms
if TYPE_CHECKING:
    from labledger.ledger.errors import (
        CorruptionError,
        DurabilityError,
        InvalidEventError,
        LedgerError,
        NotALedgerError,
        QueryRefusedError,
        UnsafeFilesystemError,
        UnsupportedFormatError,
    )
    from labledger.ledger.events import KINDS, SCHEMA_VERSION, json_schema, validate_body
    from labledger.ledger.ledger import EventInput, Ledger
    from labledger.ledger.record import Record

from labledger.ledger._lazy import lazy_getattr  # noqa: E402 - after the type-only block

_HOME = {
    "KINDS": "events", "SCHEMA_VERSION": "events", "json_schema": "events",
    "validate_body": "events", "EventInput": "ledger", "Ledger": "ledger", "Record": "record",
    "CorruptionError": "errors", "DurabilityError": "errors", "InvalidEventError": "errors",
    "LedgerError": "errors", "NotALedgerError": "errors", "QueryRefusedError": "errors",
    "UnsafeFilesystemError": "errors", "UnsupportedFormatError": "errors",
}

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "CorruptionError",
    "DurabilityError",
    "EventInput",
    "InvalidEventError",
    "Ledger",
    "LedgerError",
    "NotALedgerError",
    "QueryRefusedError",
    "Record",
    "UnsafeFilesystemError",
    "UnsupportedFormatError",
    "json_schema",
    "validate_body",
]


__getattr__ = lazy_getattr(__name__, _HOME, globals())
