"""Exit codes, in one table that mirrors the documented one (docs/exit-codes.md).

| code | meaning |
|------|---------|
| 0    | success |
| 1    | the command failed (any `*Error` a user can act on) |
| 2    | usage error or bad input; nothing was written |
| 3    | ran to the end and found problems (corruption, drift, gate refused) |
| 130  | interrupted |

Exceptions that are not in the table are bugs and keep their traceback.
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
    ("labledger.cas.errors", "CasError"): EXIT_FAILED,
    ("labledger.ingest.errors", "CapsuleQuarantinedError"): EXIT_PROBLEMS,
    ("labledger.ingest.errors", "PullSourceError"): EXIT_USAGE,
    ("labledger.ingest.errors", "IngestError"): EXIT_FAILED,
    ("labledger.profiles.errors", "ProfileError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "InstanceStateError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "DocumentError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "DocumentsConfigError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "ClaimInputError"): EXIT_USAGE,
    ("labledger.reconcile.errors", "ReconcileError"): EXIT_FAILED,
}


def exit_code_for(exc: BaseException) -> int | None:
    """The documented exit code for a user-facing error, or None for a bug."""
    for cls in type(exc).__mro__:
        code = _CODES.get((cls.__module__, cls.__name__))
        if code is not None:
            return code
    return None
