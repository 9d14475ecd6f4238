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

Importing this package stays light (msgspec, blake3, the standard library): DuckDB and pyarrow
load only when a query or sealing needs them.
"""

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
