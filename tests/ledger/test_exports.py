"""The public names of `labledger.ledger`: adding or removing one is a deliberate API change."""

from __future__ import annotations

import labledger.ledger as api
from labledger.ledger import errors, events, ledger, record

PUBLIC = [
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


def test_all_is_pinned() -> None:
    assert api.__all__ == PUBLIC


def test_every_public_name_is_the_real_object() -> None:
    assert api.Ledger is ledger.Ledger
    assert api.EventInput is ledger.EventInput
    assert api.Record is record.Record
    assert api.KINDS is events.KINDS
    assert api.SCHEMA_VERSION == events.SCHEMA_VERSION
    assert api.validate_body is events.validate_body
    assert api.json_schema is events.json_schema
    for name in PUBLIC:
        if name.endswith("Error"):
            assert getattr(api, name) is getattr(errors, name)


def test_every_error_class_is_exported() -> None:
    error_classes = {name for name, value in vars(errors).items()
                     if isinstance(value, type) and issubclass(value, Exception)
                     and value.__module__ == errors.__name__}
    assert error_classes <= set(api.__all__)
    for name in error_classes:
        assert issubclass(getattr(api, name), api.LedgerError)


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from labledger.ledger import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(PUBLIC)


def test_package_docstring_states_the_invariants() -> None:
    doc = api.__doc__ or ""
    for words in ("never rewritten", "BLAKE3", "fsync", "nothing is written", "projection"):
        assert words in doc
