"""The current claims: a projection of ``claim.declared`` / ``claim.retracted`` events.

Invariants:

* A claim's value is whatever ``claim.declared`` recorded, which was read from the bytes of a
  stored object (``source_digest``); nothing here re-reads or accepts a typed value.
* Re-declaring an id supersedes the earlier declaration; the history stays in the ledger and is
  listed in ``Claim.superseded``. A retraction removes the id from the current set until it is
  declared again.
* Order is ledger time (ts, writer, seq), so two machines that merged the same events agree.

This module is the contract between claim capture (``claims.py``), EVIDENCE.json
(``evidence.py``) and document reconcile (``documents/``): they all read ``current_claims``.
What needs the claims and nothing else reads only `CLAIM_KINDS` from the ledger: a project's
ledger is mostly heartbeats and checkpoints (hundreds of thousands over a few long runs), and
decoding them all made every ``reconcile`` and ``claim list`` take seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from labledger.reconcile.pull_verified import Event, load_events

# The events `current_claims` and `claim_history` read: load only these where claims are all
# that is needed (`load_claim_events`).
CLAIM_KINDS = ("claim.declared", "claim.retracted")


@dataclass(frozen=True)
class Claim:
    """One current claim, as the latest ``claim.declared`` for its id recorded it."""

    id: str
    run: str | None
    metric: str
    value: float
    direction: str  # "higher" | "lower"
    source_digest: str
    event_id: str
    declared_at: str
    source_path: str | None = None
    selector: str | None = None
    statement: str | None = None
    split: str | None = None
    unit: str | None = None
    aliases: tuple[str, ...] = ()
    paper_anchor: str | None = None
    implementation: str | None = None
    superseded: tuple[str, ...] = field(default=())  # event ids of earlier declarations
    # What the source object said at declaration (see ClaimDeclared in ledger/events.py).
    n: int | None = None
    evaluated_split: str | None = None
    seeds: tuple[int, ...] = ()
    variance_type: str | None = None  # "std" | "sem"
    variance: float | None = None
    source_event: str | None = None  # the event that stored the source object

    @classmethod
    def from_event(cls, event: Event, superseded: tuple[str, ...] = ()) -> Claim:
        b: dict[str, Any] = event.body
        return cls(
            id=b["claim"], run=event.run, metric=b["metric"], value=float(b["value"]),
            direction=b["direction"], source_digest=b["source_digest"], event_id=event.id,
            declared_at=event.ts, source_path=b.get("source_path"), selector=b.get("selector"),
            statement=b.get("statement"), split=b.get("split"), unit=b.get("unit"),
            aliases=tuple(b.get("aliases") or ()), paper_anchor=b.get("paper_anchor"),
            implementation=b.get("implementation"), superseded=superseded,
            n=b.get("n"), evaluated_split=b.get("evaluated_split"),
            seeds=tuple(b.get("seeds") or ()), variance_type=b.get("variance_type"),
            variance=b.get("variance"), source_event=b.get("source_event"),
        )


def load_claim_events(ledger: Any) -> list[Event]:
    """The ledger's `CLAIM_KINDS` events, in ledger time order (the others are not parsed)."""
    return load_events(ledger, CLAIM_KINDS)


def current_claims(events: Iterable[Event]) -> list[Claim]:
    """The claims in force after ``events`` (ledger time order), sorted by id."""
    latest: dict[str, Event] = {}
    history: dict[str, list[str]] = {}
    for e in events:
        if e.kind == "claim.declared":
            cid = e.body["claim"]
            if cid in latest:
                history.setdefault(cid, []).append(latest[cid].id)
            latest[cid] = e
        elif e.kind == "claim.retracted":
            cid = e.body["claim"]
            if cid in latest:
                history.setdefault(cid, []).append(latest.pop(cid).id)
    return [Claim.from_event(latest[c], tuple(history.get(c, ()))) for c in sorted(latest)]


_DIGITS = re.compile(r"([0-9]+)")


def reading_order(claim_id: str) -> tuple[tuple[int, int, str], ...]:
    """A sort key that puts ids in the order people number them (C2 before C10, T1.9 before
    T1.10, C before C1); every part keeps its text, so distinct ids never compare equal. For
    lists people read (`claim list`): EVIDENCE.json keeps plain text order, which committed
    files already have."""
    return tuple((0, int(p), p) if i % 2 else (1, 0, p)
                 for i, p in enumerate(_DIGITS.split(claim_id)))

