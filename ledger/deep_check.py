"""`labledger check --deep`'s second half: the store re-hashed against what the ledger names.

Runs only after the ledger itself verified (`check.check_ledger`): it needs the events to know
which objects must be held. Three outcomes per object, counted as problems or not:

* **corrupt**: its bytes no longer hash to its name. The store moves it to quarantine (never
  deletes it) and an ``object.quarantined`` event records the move, so the `checkpoints`
  view's ``in_store`` turns false and later checks keep reporting the loss. One problem.
* **lost**: an event of this machine names it (or it was quarantined here) and the store does
  not hold it. One problem each. An object quarantined by this very check is reported once,
  as corrupt, with the events it leaves without their bytes (`ObjectsCheck.named_by`).
* **elsewhere**: named only by events merged from another writer (a box's segments, which a
  pull copies in) and never held here: it lives in that writer's store. Not a problem.

The caller renders; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from labledger.cas import CorruptObject, VerifyReport
from labledger.ledger.artifacts import (
    MissingObject,
    missing_objects,
    open_store,
    record_quarantine,
)
from labledger.ledger.ledger import Ledger

__all__ = ["ObjectsCheck", "check_objects", "stored_bytes"]


@dataclass(frozen=True)
class ObjectsCheck:
    """What re-hashing the store against the ledger's references found."""

    verified: VerifyReport
    missing: tuple[MissingObject, ...]

    @property
    def corrupt(self) -> tuple[CorruptObject, ...]:
        return self.verified.corrupt

    @cached_property
    def _found_corrupt(self) -> frozenset[str]:
        """Digests this check found corrupt: reported as such, never again as missing."""
        return frozenset(c.digest for c in self.corrupt)

    @property
    def named_by(self) -> dict[str, MissingObject]:
        """The objects quarantined by this check, with the events they leave without bytes."""
        return {m.digest: m for m in self.missing if m.digest in self._found_corrupt}

    @property
    def lost(self) -> list[MissingObject]:
        """Objects this machine's events need that the store does not hold (problems)."""
        return [m for m in self.missing if m.is_problem and m.digest not in self._found_corrupt]

    @property
    def elsewhere(self) -> list[MissingObject]:
        """Objects only other writers' events name, held in their stores (not problems)."""
        return [m for m in self.missing
                if not m.is_problem and m.digest not in self._found_corrupt]

    @property
    def problems(self) -> int:
        """Corrupt or unreadable objects, lost ones, and folders of the store that could not
        be listed (their objects went unchecked)."""
        return len(self.corrupt) + len(self.lost) + len(self.verified.unreadable)

    def to_json(self) -> dict[str, Any]:
        return {**self.verified.to_json(), "missing": [m.to_json() for m in self.missing]}


def check_objects(ledger: Ledger, progress: Callable[[int], None] | None = None,
                  ) -> ObjectsCheck:
    """Re-hash every stored object (quarantining and recording corrupt ones), then list the
    referenced objects the store does not hold.

    ``progress`` is called with the bytes hashed so far. Appends one ``object.quarantined``
    event per corrupt object; writes nothing else.
    """
    store = open_store(ledger)
    verified = store.verify_all(progress=progress)
    record_quarantine(ledger, verified.corrupt)
    # After the re-hash, so an object quarantined just now is found missing too: that is how
    # its corruption line learns which events it leaves without their bytes.
    return ObjectsCheck(verified, tuple(missing_objects(ledger, store)))


def stored_bytes(ledger: Ledger) -> int:
    """The bytes the store's objects take (the total a progress bar counts to)."""
    from labledger.cas.verify import scan_objects

    total = 0
    for _hex, path in scan_objects(open_store(ledger), unreadable=[]):  # reported by the check
        try:
            total += path.stat().st_size
        except FileNotFoundError:  # removed meanwhile
            continue
    return total
