"""Exit codes, in one table that mirrors the documented one (docs/exit-codes.md).

| code | meaning |
|------|---------|
| 0    | success |
| 1    | the command failed (any `*Error` a user can act on) |
| 2    | usage error or bad input; nothing was written |
| 3    | ran to the end and found problems (corruption, drift, gate refused) |
| 130  | interrupted |

Exceptions that are not in the table are bugs and keep their traceback. Two builtins are
not bugs wherever they come from, and are a safety net for the places that do not say more:

* ``PermissionError``: a file labledger may not read or write. A failure (1); its message names
  the file ("[Errno 13] Permission denied: '...'").
* ``RecursionError`` raised *while decoding* (json's "while decoding a JSON object", msgspec's
  "while deserializing"): input nested deeper than the decoder can go. Bad input (2); nothing
  is written before input is decoded. Any other RecursionError stays a bug.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PROBLEMS = 3
EXIT_INTERRUPTED = 130

# (module, class name) -> code; matched along the exception's MRO so subclasses inherit, and so
# this table never imports a subsystem just to name its errors.
_CODES: dict[tuple[str, str], int] = {
    ("labledger.ledger.errors", "InvalidEventError"): EXIT_USAGE,
    ("labledger.ledger.errors", "QueryRefusedError"): EXIT_USAGE,
    ("labledger.ledger.errors", "LedgerError"): EXIT_FAILED,
    ("labledger.cas.errors", "MalformedDigestError"): EXIT_USAGE,
    ("labledger.cas.errors", "ObjectCorruptError"): EXIT_PROBLEMS,
    # a folder given to be stored that holds what cannot be (a FIFO, a refused symlink): input
    ("labledger.cas.errors", "UnsupportedFileTypeError"): EXIT_USAGE,
    ("labledger.cas.errors", "SymlinkRefusedError"): EXIT_USAGE,
    ("labledger.cas.errors", "CasError"): EXIT_FAILED,
    ("labledger.ingest.errors", "CapsuleQuarantinedError"): EXIT_PROBLEMS,
    ("labledger.ingest.errors", "PullSourceError"): EXIT_USAGE,
    ("labledger.ingest.errors", "CapsuleSourceMissingError"): EXIT_USAGE,
    ("labledger.ingest.errors", "IngestError"): EXIT_FAILED,
    ("labledger.profiles.errors", "ProfileError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "InstanceStateError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "DocumentError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "DocumentsConfigError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "ClaimInputError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "ReconcileError"): EXIT_FAILED,
    ("builtins", "PermissionError"): EXIT_FAILED,
}
# The words Python's json and msgspec put in a RecursionError raised by a decoder.
_DECODING = (" while decoding ", " while deserializing ")


def exit_code_for(exc: BaseException) -> int | None:
    """The documented exit code for a user-facing error, or None for a bug."""
    for cls in type(exc).__mro__:
        code = _CODES.get((cls.__module__, cls.__name__))
        if code is not None:
            return code
    if isinstance(exc, RecursionError) and any(words in str(exc) for words in _DECODING):
        return EXIT_USAGE
    return None
