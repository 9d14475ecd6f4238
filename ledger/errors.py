"""Errors a caller of the ledger can act on.

Hierarchy (the CLI maps each class to an exit code in `labledger.ledger.cli._errors`)::

    LedgerError                      exit 1: the command failed
    ├── NotALedgerError              no `.labledger/` here or above; run `labledger init`
    ├── UnsupportedFormatError       `.labledger/config.toml` names a format this build cannot read
    ├── UnsafeFilesystemError        ledger on NFS/sshfs/cloud-sync where flock+append is unreliable
    ├── DurabilityError              a write or fsync failed: the event was NOT acknowledged
    ├── CorruptionError              a record that fails verification (segment, seq, offset)
    ├── InvalidEventError            exit 2: malformed input, nothing written
    └── QueryRefusedError            exit 2: a SQL statement that is not a read-only query

Every message says what failed, where, and what to do next; the fields stay on the exception so
`--json` can render them.
"""

from __future__ import annotations

from pathlib import Path


class LedgerError(Exception):
    """Base for ledger errors a caller can act on."""

    def to_json(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": str(self)}


class NotALedgerError(LedgerError):
    def __init__(self, start: Path, given_by: str | None = None) -> None:
        if given_by is None:  # searched upwards from the working folder
            message = (f"no labledger ledger at {start} or any parent folder; run `labledger "
                       "init` in your project folder (or pass --root / set LABLEDGER_ROOT)")
        else:  # named by --root or $LABLEDGER_ROOT: say what is wrong with that folder
            what = ("does not exist" if not start.exists() else
                    "is not a folder" if not start.is_dir() else "holds no .labledger/")
            message = (f"no labledger ledger at {start} (given by {given_by}): it {what}; "
                       f"point {given_by} at the project folder that holds .labledger/, or run "
                       "`labledger init` there")
        super().__init__(message)
        self.start = start


class UnsupportedFormatError(LedgerError):
    def __init__(self, path: Path, found: object, supported: int) -> None:
        super().__init__(
            f"{path}: ledger format {found!r} is not supported by this labledger "
            f"(it reads format {supported}); upgrade labledger to read this ledger"
        )
        self.path, self.found, self.supported = path, found, supported


class UnsafeFilesystemError(LedgerError):
    def __init__(self, path: Path, fstype: str, why: str) -> None:
        super().__init__(
            f"{path} is on {fstype} ({why}); file locks and appends are not reliable there, so "
            "several writers could interleave or lose events. Put the ledger on a local disk, or "
            "run `labledger init --segment-per-process` to give every process its own segment"
        )
        self.path, self.fstype, self.why = path, fstype, why


class DurabilityError(LedgerError):
    """A write, flush or fsync failed; the event(s) were not acknowledged."""

    def __init__(self, segment: Path, action: str, cause: OSError) -> None:
        super().__init__(
            f"could not {action} {segment}: {cause.strerror or cause}; the event was NOT recorded "
            "(free disk space or fix the filesystem, then retry)"
        )
        self.segment, self.action = segment, action


class CorruptionError(LedgerError):
    def __init__(self, segment: Path, seq: int | None, offset: int | None, problem: str) -> None:
        where = f"{segment}"
        if seq is not None:
            where += f" seq {seq}"
        if offset is not None:
            where += f" (byte {offset})"
        super().__init__(
            f"{where}: {problem}; the ledger is damaged here. Nothing was changed; "
            "run `labledger check` for a full report"
        )
        self.segment, self.seq, self.offset, self.problem = segment, seq, offset, problem

    def to_json(self) -> dict[str, object]:
        return {
            **super().to_json(),
            "segment": str(self.segment),
            "seq": self.seq,
            "offset": self.offset,
            "problem": self.problem,
        }


class InvalidEventError(LedgerError):
    """Malformed input: the message names the kind, the field and (for batches) the line."""

    def __init__(self, problem: str, *, kind: str | None = None, field: str | None = None,
                 line: int | None = None, source: str | None = None) -> None:
        parts = []
        if source is not None or line is not None:
            # An empty source ("" from an unset shell variable) is shown quoted, so the
            # message still names its subject instead of starting with a comma.
            parts.append(f"{source or '<input>'}:{line}" if line is not None
                         else source or repr(source))
        if kind is not None:
            parts.append(f"event {kind!r}")
        if field is not None:
            parts.append(f"field {field!r}")
        prefix = ", ".join(parts)
        super().__init__(f"{prefix}: {problem}; nothing was written" if prefix
                         else f"{problem}; nothing was written")
        self.problem, self.kind, self.field, self.line = problem, kind, field, line

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "kind": self.kind, "field": self.field, "line": self.line}


class QueryRefusedError(LedgerError):
    def __init__(self, why: str) -> None:
        super().__init__(f"query refused: {why}; `labledger sql` runs read-only SELECT queries")
        self.why = why


def unreadable_file(path: object, exc: OSError, what: str = "read") -> LedgerError:
    """The error for a ledger file labledger may not open (permissions, an I/O error): a failure
    to read (exit 1), named as `labledger check` names it ("cannot read (Permission denied)")."""
    return LedgerError(f"{path}: cannot {what} ({exc.strerror or exc}); fix its permissions, "
                       "or run labledger as the user who owns the ledger")
