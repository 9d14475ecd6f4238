"""Errors raised by judgments over the ledger.

Hierarchy (the CLI maps each class to an exit code in `labledger.ledger.cli._errors`)::

    ReconcileError               exit 1: the command failed
    ├── InstanceStateError       exit 2: a lifecycle event that makes no sense in the instance's
    │                            recorded history (stop of an unknown or released instance, ...);
    │                            nothing was written
    ├── ClaimInputError          exit 2: bad input to `claim add|retract` (an id, a selector, a
    │   │                        value that is not a number); nothing was written
    │   ├── ClaimSourceError     the run or the result file in it is unknown or ambiguous
    │   ├── MetricNotFoundError  the selector names nothing in the result (lists what exists)
    │   ├── DirectionRequiredError  a metric the registry does not know, without --direction
    │   └── ClaimNotFoundError   retracting an id that is not a current claim
    ├── DocumentError            exit 2: a document to reconcile is missing, unreadable, of an
    │                            unknown type or malformed (a notebook that is not JSON); every
    │                            bad document is named, none is skipped
    ├── DocumentsConfigError     exit 2: no documents given and none configured, or a bad
    │                            ``[reconcile]`` table in ``.labledger/config.toml``
    └── GitHookError             exit 1: ``--staged`` outside a git work tree, a git command that
                                 failed, or ``hooks install`` over a pre-commit hook it did not
                                 write (without ``--force``)
"""

from __future__ import annotations

_NOTHING_WRITTEN = "nothing was written"


class ReconcileError(Exception):
    """Base for reconcile errors a caller can act on."""

    def to_json(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": str(self)}


class InstanceStateError(ReconcileError):
    """A lifecycle change refused because of what the ledger already records."""

    def __init__(self, instance: str, action: str, problem: str) -> None:
        super().__init__(f"cannot {action} instance {instance!r}: {problem}; nothing was written")
        self.instance, self.action, self.problem = instance, action, problem

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "instance": self.instance, "action": self.action,
                "problem": self.problem}


class ClaimInputError(ReconcileError):
    """Bad input to a claim command; nothing was written. ``where`` names the run, file and
    object the problem is in (``r1:test/kodak/metrics.json (blake3:...)``) when there is one."""

    def __init__(self, message: str, *, claim: str | None = None,
                 where: str | None = None) -> None:
        if _NOTHING_WRITTEN not in message:  # every claim refusal says so, as the others do
            message = f"{message}; {_NOTHING_WRITTEN}"
        super().__init__(message)
        self.claim, self.where = claim, where

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "claim": self.claim, "where": self.where}


class ClaimSourceError(ClaimInputError):
    """The run, or the result file inside it, is unknown to the ledger or ambiguous."""

    def __init__(self, run: str, problem: str, *, path: str | None = None,
                 candidates: list[str] | None = None, claim: str | None = None) -> None:
        shown = list(candidates or [])
        listing = ""
        if shown:
            more = f", and {len(shown) - 30} more" if len(shown) > 30 else ""
            listing = ": " + ", ".join(shown[:30]) + more
        super().__init__(f"run {run!r}: {problem}{listing}; nothing was written", claim=claim,
                         where=f"{run}:{path}" if path else run)
        self.run, self.path, self.problem, self.candidates = run, path, problem, shown

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "run": self.run, "path": self.path,
                "problem": self.problem, "candidates": self.candidates}


class MetricNotFoundError(ClaimInputError):
    """The selector names no number in the result object; ``available`` lists what does."""

    def __init__(self, selector: str, where: str, available: list[str], *,
                 problem: str = "no such metric", claim: str | None = None) -> None:
        more = f", and {len(available) - 40} more" if len(available) > 40 else ""
        has = ", ".join(available[:40]) + more if available else "no numeric metric at all"
        super().__init__(f"{selector!r} in {where}: {problem}; it has: {has}; nothing was "
                         "written", claim=claim, where=where)
        self.selector, self.available, self.problem = selector, available, problem

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "selector": self.selector, "available": self.available}


class DirectionRequiredError(ClaimInputError):
    """The metric is not in the direction registry and no ``--direction`` was given."""

    def __init__(self, metric: str, *, claim: str | None = None) -> None:
        super().__init__(
            f"metric {metric!r} is not in the registry of known directions; say which way is "
            "better with --direction higher or --direction lower; nothing was written",
            claim=claim)
        self.metric = metric

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "metric": self.metric}


class ClaimNotFoundError(ClaimInputError):
    """No current claim has the id (never declared, or already retracted)."""

    def __init__(self, claim: str, current: list[str]) -> None:
        known = ", ".join(current) if current else "none"
        super().__init__(f"no current claim {claim!r} (current claims: {known}); nothing was "
                         "written", claim=claim)
        self.current = current

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "current": self.current}


class DocumentError(ReconcileError):
    """Documents that cannot be reconciled: each path with what is wrong with it."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        lines = [f"{path}: {problem}" for path, problem in problems]
        head = ("cannot reconcile a document" if len(problems) == 1
                else f"cannot reconcile {len(problems)} documents")
        them = "it" if len(problems) == 1 else "them"
        super().__init__(f"{head} (fix or remove {them} from the command line or the "
                         "[reconcile] documents globs; nothing is skipped): " + "; ".join(lines))
        self.problems = problems

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(),
                "documents": [{"path": p, "problem": why} for p, why in self.problems]}


class DocumentsConfigError(ReconcileError):
    """No documents to reconcile, or a ``[reconcile]`` table that does not parse."""

    def __init__(self, problem: str, config: str | None = None) -> None:
        super().__init__(problem)
        self.problem, self.config = problem, config

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "config": self.config}


class GitHookError(ReconcileError):
    """A git repository or pre-commit hook problem (``--staged``, ``hooks install``)."""

    def __init__(self, problem: str, path: str | None = None) -> None:
        super().__init__(problem)
        self.problem, self.path = problem, path

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "path": self.path}
