"""Recording a rental and its lifecycle, refused when the change makes no sense in the history.

``record_rent`` writes ``instance.rented`` with a snapshot of the profile's facts, and its
``--host`` as `labledger.ingest.ssh_url.canonical_host` reads it (an IPv6 address in brackets;
a host it cannot read is refused before anything is locked or written);
``record_change`` writes ``instance.stopped``, ``.started`` or ``.released``. Each first folds
the instance's recorded events (:mod:`labledger.reconcile.instances`) and refuses, writing
nothing, a stop of an unknown or released instance, a second rent of an id, a release twice,
or a change timed before the instance's last recorded change. What is recorded comes back
with warnings: what still bills, and every danger clock the change starts, with its due time
(a stopped AutoDL instance is released 15 days later: the time to pull is now, not 48 hours
before), or ran out before a start.

The check and the append are one step on this machine: both run under an exclusive ``flock`` of
``.labledger/locks/lifecycle.lock`` (`lifecycle_lock`), so two processes renting the same id at
once record one rental and refuse the other. Machines whose ledgers are merged later cannot be
serialized this way; the projection tolerates (and flags) what such a merge produces.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec

from labledger.ledger import events as ev
from labledger.ledger._time import FUTURE_TOLERANCE_S
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record
from labledger.profiles import LoadedProfile, snapshot
from labledger.reconcile.errors import InstanceStateError
from labledger.reconcile.instances import (
    Lease,
    Snapshot,
    fold,
    format_time,
    load_events,
    read_snapshot,
)

Change = Literal["instance.stopped", "instance.started", "instance.released"]
# clock skew between the boxes that write a ledger: the one allowance every `--at` gets
FUTURE_TOLERANCE = timedelta(seconds=FUTURE_TOLERANCE_S)
_CURRENCY = re.compile(r"[A-Z]{3}")
_VERB = {"instance.rented": "rent", "instance.stopped": "stop", "instance.started": "start",
         "instance.released": "release"}


@contextmanager
def lifecycle_lock(ledger: Ledger) -> Iterator[None]:
    """Hold the machine-wide lock that makes an instance's check-then-append one step."""
    import fcntl

    folder = ledger.paths.home / "locks"
    folder.mkdir(exist_ok=True)
    fd = os.open(folder / "lifecycle.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """What was written, and what the caller should know about it (printed as warnings)."""

    record: Record
    warnings: list[str] = []


def time_of(kind: str, at: str | None, now: datetime) -> tuple[str | None, datetime]:
    if at is None:
        return None, now
    try:
        text = ev.parse_ts(at)
    except ValueError as exc:
        raise InvalidEventError(str(exc), kind=kind, field="--at") from None
    when = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    if when > now + FUTURE_TOLERANCE:
        raise InvalidEventError(f"{text} is in the future; --at records when something "
                                "happened", kind=kind, field="--at")
    return text, when


def lease_of(ledger: Ledger, instance: str) -> Lease | None:
    """The instance's current lease as its recorded events make it (None: never seen)."""
    return fold(load_events(ledger.paths, latest_heartbeats=True)).get(instance)


def not_before_last_change(lease: Lease, action: str, when: datetime) -> None:
    if lease.changed_at is not None and when < lease.changed_at:
        raise InstanceStateError(
            lease.instance, action,
            f"{format_time(when)} is before its last recorded change at "
            f"{format_time(lease.changed_at)}; lifecycle events must follow each other in time")


def record_rent(ledger: Ledger, loaded: LoadedProfile, instance: str, *,
                host: str | None = None, price_per_hour: float | None = None,
                currency: str | None = None, spot: bool = False, at: str | None = None,
                now: datetime | None = None) -> Recorded:
    """Record ``instance.rented`` with a snapshot of ``loaded``'s facts.

    Raises :class:`InstanceStateError` when the id was rented before (live or released: ids
    are never reused) and :class:`InvalidEventError` for bad input (a spot rental on a platform
    without spot capacity, a price without a currency, ``--at`` in the future).
    """
    kind = "instance.rented"
    at_text, _ = time_of(kind, at, now or datetime.now(UTC))
    profile = loaded.profile
    if spot and (profile.preemption is None or not profile.preemption.spot):
        stamp = f" (verified {profile.preemption.verified})" if profile.preemption else ""
        raise InvalidEventError(
            f"profile {profile.name!r} says the platform offers no spot capacity{stamp}; drop "
            "--spot, or fix the profile if that changed", kind=kind, field="--spot")
    if price_per_hour is not None and currency is None:
        raise InvalidEventError("a price needs its currency: add --currency (e.g. USD, CNY)",
                                kind=kind, field="--currency")
    if currency is not None:
        currency = currency.upper()
        if not _CURRENCY.fullmatch(currency):
            raise InvalidEventError(f"{currency!r} is not a three-letter currency code (USD, "
                                    "CNY, EUR)", kind=kind, field="--currency")
    if host is not None:
        host = _checked_host(kind, host)
    with lifecycle_lock(ledger):
        return _rent_locked(ledger, profile, instance, spot=spot, host=host,
                            price_per_hour=price_per_hour, currency=currency, at_text=at_text)


def _checked_host(kind: str, host: str) -> str:
    """``host`` as recorded (`canonical_host`: an IPv6 address in brackets), or the refusal
    (exit 2, before anything is locked or written) saying what is wrong with it."""
    from labledger.ingest.ssh_url import canonical_host

    problem = "it is empty or holds a space" if not host.strip() or any(
        c.isspace() for c in host) else None
    if problem is None:
        try:
            return canonical_host(host)
        except ValueError as exc:
            problem = str(exc)
    raise InvalidEventError(f"{host!r} is not a host: {problem}; use user@host:port (an IPv6 "
                            "address in brackets: root@[fe80::1]:22)", kind=kind,
                            field="--host")


def _rent_locked(ledger: Ledger, profile: Any, instance: str, *, spot: bool, host: str | None,
                 price_per_hour: float | None, currency: str | None,
                 at_text: str | None) -> Recorded:
    kind = "instance.rented"
    lease = lease_of(ledger, instance)
    if lease is not None and lease.state != "unrecorded":
        if lease.state == "released":
            problem = (f"it was rented before and released at {format_time(lease.released_at)}"
                       if lease.released_at else "it was rented before")
            problem += "; instance ids are never reused: pick a new id"
        else:
            problem = f"it is already rented and {lease.state}"
        raise InstanceStateError(instance, "rent", problem)
    body: dict[str, Any] = {"profile": profile.name, "spot": spot,
                            "profile_snapshot": snapshot(profile)}
    for key, value in (("host", host), ("price_per_hour", price_per_hour),
                       ("currency", currency)):
        if value is not None:
            body[key] = value
    draft = ledger.draft(kind, body, instance=instance, at=at_text)
    record = ledger.append_drafts([draft])[0]
    snap = read_snapshot(body["profile_snapshot"])
    when = datetime.strptime(record.ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return Recorded(record=record, warnings=_clock_warnings(snap, ("rented", "running"), when,
                                                           "the rent"))


def record_change(ledger: Ledger, instance: str, kind: Change, *, at: str | None = None,
                  reason: str | None = None, now: datetime | None = None) -> Recorded:
    """Record a stop, start or release of a rented instance.

    Raises :class:`InstanceStateError` when the instance was never rented, is released, is
    already in the target state, or when ``at`` is before its last recorded change.
    """
    action = _VERB[kind]
    now = now or datetime.now(UTC)
    at_text, when = time_of(kind, at, now)
    with lifecycle_lock(ledger):
        return _change_locked(ledger, instance, kind, action=action, at_text=at_text, when=when,
                              reason=reason)


def _change_locked(ledger: Ledger, instance: str, kind: Change, *, action: str,
                   at_text: str | None, when: datetime, reason: str | None) -> Recorded:
    lease = lease_of(ledger, instance)
    if lease is None or lease.state == "unrecorded":
        raise InstanceStateError(
            instance, action, "no instance.rented records it; record the rental first "
                              "(labledger rent --profile P --instance I --at TS)")
    if lease.state == "released":
        raise InstanceStateError(
            instance, action, f"it was released at {format_time(lease.released_at)}"
            if lease.released_at else "it was released")
    if kind == "instance.stopped" and lease.state == "stopped":
        raise InstanceStateError(instance, action, "it is already stopped (since "
                                 f"{format_time(lease.stopped_since or when)})")
    if kind == "instance.started" and lease.state == "running":
        raise InstanceStateError(instance, action, "it is already running (since "
                                 f"{format_time(lease.running_since or when)})")
    not_before_last_change(lease, action, when)
    body = {"reason": reason} if reason is not None else {}
    draft = ledger.draft(kind, body, instance=instance, at=at_text)
    record = ledger.append_drafts([draft])[0]
    return Recorded(record=record, warnings=_warnings(lease, kind, when))


def _clock_warnings(snap: Snapshot | None, starts: tuple[str, ...], when: datetime,
                    since: str) -> list[str]:
    """The danger clocks that start now (``starts``: the state entered), each with its due
    time: a stopped AutoDL instance is released 15 days later, and the time to pull is now."""
    if snap is None:
        return []
    out = []
    for clock in snap.danger_clocks:
        if clock.starts_when not in starts or clock.after_hours <= 0:
            continue
        at = when + timedelta(hours=clock.after_hours)
        stamp = f"; verified {clock.verified}" if clock.verified else ""
        out.append(f"danger clock: {clock.name} at {format_time(at)} ({clock.after_hours:g} h "
                   f"after {since}{stamp}): {clock.action}")
    return out


def _passed_clocks(lease: Lease, when: datetime) -> list[str]:
    """Clocks of the stop a start ends that ran out before it: the platform may have acted."""
    snap, since = lease.snapshot, lease.stopped_since
    if snap is None or since is None:
        return []
    out = []
    for clock in snap.danger_clocks:
        if clock.starts_when != "stopped" or clock.after_hours <= 0:
            continue
        due = since + timedelta(hours=clock.after_hours)
        if due <= when:
            out.append(f"{clock.name} was due at {format_time(due)} ({clock.after_hours:g} h "
                       f"after the stop at {format_time(since)}): {clock.action}; if it "
                       "happened, this start did not bring the data back: check the provider "
                       "before relying on the instance's disks")
    return out


def _warnings(lease: Lease, kind: Change, when: datetime) -> list[str]:
    snap = lease.snapshot
    if snap is None:
        return []
    platform = lease.profile or "this platform"
    out = []
    if kind == "instance.stopped" and snap.meter_runs_when_stopped():
        verb = snap.stop.verb if snap.stop else "stopping"
        out.append(f"on {platform}, {verb} does not stop compute billing: the meter keeps "
                   "running until the instance is released")
    state = {"instance.stopped": "stopped", "instance.released": "released"}.get(kind)
    if state is not None:
        out += [f"still bills: {trap.what}" for trap in snap.billing_traps
                if trap.when in (state, "always")]
    if kind == "instance.stopped":
        out += _clock_warnings(snap, ("stopped",), when, "this stop")
    elif kind == "instance.started":
        out += _passed_clocks(lease, when)
        out += _clock_warnings(snap, ("running",), when, "this start")
    return out
