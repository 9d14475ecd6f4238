"""Errors raised by judgments over the ledger.

Hierarchy (the CLI maps each class to an exit code in `labledger.ledger.cli._errors`)::

    ReconcileError               exit 1: the command failed
    └── InstanceStateError       exit 2: a lifecycle event that makes no sense in the instance's
                                 recorded history (stop of an unknown or released instance, ...);
                                 nothing was written
"""

from __future__ import annotations


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
