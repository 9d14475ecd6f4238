"""Instances: per rented box, hours on the meter, cost, what still bills, the next danger clock.

Derived from events only: the lifecycle kinds (``instance.rented``, ``.stopped``, ``.started``,
``.released``) and every event tagged with the instance. Platform facts come from the profile
snapshot recorded in ``instance.rented``, never from today's profile files, so editing a profile
never changes history.

State machine (a change that does not fit is kept as an anomaly and otherwise ignored; the CLI
refuses to record one, but ``labledger emit`` and merged ledgers can still contain them)::

    (none) --rented--> running --stopped--> stopped --started--> running
    running | stopped --released--> released --rented--> running   (a new lease; hours add up)

The meter runs in ``running``, and in ``stopped`` too where the snapshot says stopping does not
stop compute billing (Lambda's shutdown; any platform whose only meter-stop verb is irreversible).

Runs: a run launched on an instance is active until its ``run.exited`` or its capsule
(``capsule.sealed``: final, whatever comes after it; ``capsule.quarantined`` while it is the
run's latest lifecycle event), unless the ledger shows it cannot be running: ``lost`` when
the instance was stopped, released or confirmed absent after the run's latest lifecycle event
(a stop kills every process on the box: a run resumed after ``instance.started`` records a new
launch or heartbeat, which makes it active again),
``stalled`` when its heartbeats stopped at the report's ``now`` (the
``runs`` view's rules, ledger/sql/runs.sql, judged at ``--now`` instead of the query's clock).
Nothing is stored: a later heartbeat or relaunch makes the run active again. A box that died
under its run therefore shows ``idle`` instead of hiding behind a run that never exited.

Why Python and not SQL: interval sums against a reference time (``--now``) and rules read from a
JSON snapshot are clearer here. The ``instances`` SQL view gives the same per-instance basics
for ad-hoc queries, and a test pins that both derive the same state.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec

from labledger.ledger.events import format_ts
from labledger.ledger.root import LedgerPaths

LIFECYCLE = ("instance.rented", "instance.stopped", "instance.started", "instance.released")
State = Literal["running", "stopped", "released", "unrecorded"]
IDLE_HOURS = 2.0
WARN_HOURS = 48.0
STALLED_AFTER_S = 600.0  # the runs view's: 3 x the launch's heartbeat interval, else this
RUN_LIFECYCLE = ("run.launched", "run.heartbeat", "run.exited", "capsule.sealed",
                 "capsule.quarantined")
# Lifecycle events that end a run as `instances` counts them (the `runs` view's states exited-ok,
# failed, killed, sealed, quarantined); a seal is final, the others until a later launch or beat.
_ENDED = frozenset({"run.exited", "capsule.sealed", "capsule.quarantined"})
_CAPSULE = ("capsule.sealed", "capsule.quarantined")


def format_time(when: datetime) -> str:
    """The ledger's one timestamp format (a four-digit year even before 1000)."""
    return format_ts(when)


class InstanceEvent(msgspec.Struct, frozen=True, kw_only=True):
    """The part of an event the projection reads. ``instance`` is None only for run lifecycle
    events recorded without one (an exit still ends a run launched on an instance, a heartbeat
    still shows it alive)."""

    ts: datetime
    writer: str
    seq: int
    kind: str
    instance: str | None
    run: str | None = None
    body: dict[str, Any] = {}


# What `load_events` reads: every event tagged with an instance, and the run lifecycle events
# recorded without one of the runs such events name.
_PICKED = ("FROM events WHERE (instance IS NOT NULL OR (kind IN ('run.launched', "
           "'run.heartbeat', 'run.exited', 'capsule.sealed', 'capsule.quarantined') "
           "AND run IN (SELECT run FROM events "
           "WHERE instance IS NOT NULL AND run IS NOT NULL)))")
_UNTIL = " AND CAST(ts AS TIMESTAMP) <= $until"
_COLUMNS = "CAST(ts AS TIMESTAMP), writer, seq, kind, instance, run, CAST(body AS VARCHAR)"
# Events after which a heartbeat may not stand for an earlier one (`load_events`): those that
# change an instance's state, or end the runs on it.
_BARRIERS = (*LIFECYCLE, "teardown.confirmed")


def _thinned(picked: str) -> str:
    """The query of ``picked`` less the heartbeats `fold` cannot tell from a later one
    (`load_events`): ledger order numbered once (``n``), the barriers before each event counted
    (``epoch``), and a run's heartbeat left out when its run's next event is a heartbeat of the
    same instance with no barrier between them."""
    barriers = ", ".join(f"'{kind}'" for kind in _BARRIERS)
    return (
        "WITH picked AS (SELECT ts, writer, seq, kind, instance, run, body, "
        "row_number() OVER (ORDER BY ts, writer, seq) AS n "
        f"{picked}), "
        "counted AS (SELECT *, sum(CASE WHEN kind IN "
        f"({barriers}) THEN 1 ELSE 0 END) OVER (ORDER BY n) AS epoch FROM picked), "
        "followed AS (SELECT *, lead(kind) OVER w AS next_kind, "
        "lead(instance) OVER w AS next_instance, lead(epoch) OVER w AS next_epoch "
        "FROM counted WINDOW w AS (PARTITION BY run ORDER BY n)) "
        f"SELECT {_COLUMNS} FROM followed "
        "WHERE NOT coalesce(kind = 'run.heartbeat' AND run IS NOT NULL "
        "AND next_kind = 'run.heartbeat' AND next_instance IS NOT DISTINCT FROM instance "
        "AND next_epoch = epoch, false) "
        "ORDER BY n")


def load_events(paths: LedgerPaths, *, until: datetime | None = None,
                latest_heartbeats: bool = False) -> list[InstanceEvent]:
    """Every event tagged with an instance, plus the run lifecycle events (launch, heartbeat,
    exit, capsule sealed or quarantined) recorded without one of the runs such events name, in
    ledger time order; with ``until``, none after it (as `fold` leaves them out).

    ``latest_heartbeats``: a run's heartbeat is left out when the run's next event (in ledger
    order) is a heartbeat of the same instance (or of none, both) and no instance was rented,
    stopped, started, released or confirmed absent between them. `fold` then gives the same
    leases (and `report` the same reports) with ``until`` as given here, as from every event:

    * the later beat does all the earlier one did: the run's latest lifecycle event (its kind
      and time; a stop or release after it loses the run, and none came between), the
      instance the run is on (set from the first such event: none of the run's came between),
      the instance's runs and its last run activity (a later time, assigned or maximized, over
      anything set between);
    * an event between them of another run, or of no run, reads and writes only its own run
      and its instance's lease: what the earlier beat set there is written again by the later
      one.

    A ledger of week-long runs keeps a few beats per run and instance, not one per interval.
    A property test (tests/reconcile/test_gate_big_ledger.py) holds `report` and `fold` to
    the same results either way.
    """
    from labledger.ledger.query import read_retrying

    picked = _PICKED + (_UNTIL if until is not None else "")
    query = _thinned(picked) if latest_heartbeats else (
        f"SELECT {_COLUMNS} {picked} ORDER BY ts, writer, seq")
    parameters = {} if until is None else {
        "until": until.astimezone(UTC).replace(tzinfo=None)}  # TIMESTAMP is UTC here
    # read again from a fresh listing when `compact` seals a segment away under the read;
    # damage found mid-query, an interrupt: the mapped error (`read_error`)
    rows = read_retrying(
        paths, lambda con: (con.execute(query, parameters) if parameters
                            else con.execute(query)).fetchall(),
        what="reading the instances' events failed")
    return [InstanceEvent(ts=ts.replace(tzinfo=UTC), writer=writer, seq=seq, kind=kind,
                          instance=instance, run=run, body=msgspec.json.decode(body or "{}"))
            for ts, writer, seq, kind, instance, run, body in rows]


# --- the snapshot, read leniently: it was written by whatever labledger did the rent ----------
class _Lenient(msgspec.Struct, kw_only=True, rename="kebab"):
    pass


class _Clock(_Lenient, kw_only=True):
    name: str = "danger clock"
    starts_when: str = ""
    after_hours: float = 0.0
    action: str = ""
    verified: str | None = None


class _Trap(_Lenient, kw_only=True):
    when: str = ""
    what: str = ""


class _Stop(_Lenient, kw_only=True):
    verb: str = "stop"
    stops_compute_billing: bool = True


class _MeterStop(_Lenient, kw_only=True):
    verb: str = ""
    irreversible: bool = False


class Snapshot(_Lenient, kw_only=True):
    """The facts of an ``instance.rented`` profile snapshot that lifecycle judgments read."""

    title: str | None = None
    meter_stop: _MeterStop | None = None
    stop: _Stop | None = None
    danger_clocks: list[_Clock] = []
    billing_traps: list[_Trap] = []

    def meter_runs_when_stopped(self) -> bool:
        if self.stop is not None:
            return not self.stop.stops_compute_billing
        return self.meter_stop is not None and self.meter_stop.irreversible


def read_snapshot(raw: Any) -> Snapshot | None:
    """The snapshot read leniently; None when it is missing or not a snapshot at all."""
    if not isinstance(raw, dict):
        return None
    try:
        return msgspec.convert(raw, Snapshot)
    except msgspec.ValidationError:
        return None


# --- the fold --------------------------------------------------------------------------------
@dataclass
class RunMark:
    """A run's latest lifecycle event (launch, heartbeat or exit) and where it was launched:
    the same reading as the ``runs`` view (ledger/sql/runs.sql), so both say one thing."""

    instance: str | None  # the instance of its latest launch (None: not launched on one)
    kind: str
    ts: datetime
    interval_s: float | None = None  # the heartbeat_interval_s its latest launch promised
    lost_at: datetime | None = None  # its instance was stopped, released or gone since then
    lost_by: str = ""  # the event kind that ended the box under it (instance.stopped, ...)
    sealed: bool = False  # a capsule.sealed was seen: the run is over for good

    @property
    def ended(self) -> bool:
        return self.sealed or self.kind in _ENDED

    @property
    def stalled_after_s(self) -> float:
        return 3 * self.interval_s if self.interval_s is not None else STALLED_AFTER_S

    def stalled(self, now: datetime) -> bool:
        """Heartbeats stopped (or a launch that promised them got none) for longer than
        ``stalled_after_s``. A launch that promised none can never be judged stalled."""
        if self.kind != "run.heartbeat" and self.interval_s is None:
            return False
        return (now - self.ts).total_seconds() > self.stalled_after_s

    def seen(self, event: InstanceEvent) -> None:
        """Fold in a later lifecycle event of the run."""
        if event.kind == "run.launched":
            interval = event.body.get("heartbeat_interval_s")
            self.instance = event.instance
            self.interval_s = (float(interval) if isinstance(interval, int | float)
                               and not isinstance(interval, bool) and interval > 0 else None)
        if self.sealed:
            return  # a seal is final: a heartbeat or exit recorded after it changes nothing
        self.sealed = event.kind == "capsule.sealed"
        self.kind, self.ts, self.lost_at = event.kind, event.ts, None


@dataclass
class Lease:
    """One instance's lifecycle so far (mutable while folding; read-only afterwards)."""

    instance: str
    state: State = "unrecorded"
    profile: str | None = None
    host: str | None = None
    price: float | None = None
    currency: str | None = None
    spot: bool = False
    snapshot: Snapshot | None = None
    has_snapshot: bool = False
    leases: int = 0
    rented_at: datetime | None = None
    released_at: datetime | None = None
    changed_at: datetime | None = None  # the last lifecycle change
    counted_to: datetime | None = None  # the totals below cover time up to here
    running_since: datetime | None = None  # the last rent or start
    stopped_since: datetime | None = None
    meter_on: bool = False
    meter_since: datetime | None = None  # when the meter's current stretch began
    running_s: float = 0.0
    metered_s: float = 0.0
    cost: float | None = 0.0
    runs: set[str] = field(default_factory=set)
    # runs launched here and not exited, split once folded: ``live`` (its latest lifecycle
    # event; `RunMark.stalled` tells a dead one at report time) and ``lost`` (the instance was
    # stopped, released or confirmed absent after it: it cannot still be running; when, and
    # the event kind that said so)
    live: dict[str, RunMark] = field(default_factory=dict)
    lost: dict[str, tuple[datetime, str]] = field(default_factory=dict)
    last_run_at: datetime | None = None
    teardown_requested: InstanceEvent | None = None  # the latest, until confirmed or re-rented
    anomalies: list[str] = field(default_factory=list)

    def advance(self, to: datetime) -> None:
        """Add the time since the totals were last brought up to date, up to ``to``."""
        if self.counted_to is None or to <= self.counted_to:
            return
        seconds = (to - self.counted_to).total_seconds()
        if self.state == "running":
            self.running_s += seconds
        if self.meter_on:
            self.metered_s += seconds
            if self.cost is not None:
                self.cost = None if self.price is None else self.cost + seconds / 3600 * self.price
        self.counted_to = to

    def apply(self, event: InstanceEvent) -> None:
        kind, ts = event.kind, event.ts
        if kind not in LIFECYCLE:
            if kind == "teardown.requested":
                self.teardown_requested = event
            elif kind == "teardown.confirmed":
                self.teardown_requested = None
            if event.run is not None:
                self.runs.add(event.run)
                self.last_run_at = ts
            return
        action = kind.removeprefix("instance.")
        allowed = {"rented": ("unrecorded", "released"), "stopped": ("running",),
                   "started": ("stopped",), "released": ("running", "stopped")}[action]
        if self.state not in allowed:
            self.anomalies.append(f"{action} at {format_time(ts)} while {self.state}; ignored")
            return
        self.advance(ts)
        self.changed_at = self.counted_to = ts
        if action == "rented":
            self._rent(event)
        elif action == "stopped":
            self.state, self.stopped_since = "stopped", ts
            if self.snapshot is None or not self.snapshot.meter_runs_when_stopped():
                self.meter_on, self.meter_since = False, None
        elif action == "started":
            self.state, self.running_since, self.stopped_since = "running", ts, None
            if not self.meter_on:
                self.meter_on, self.meter_since = True, ts
        else:
            self.state, self.released_at = "released", ts
            self.meter_on = False
            self.meter_since = self.running_since = self.stopped_since = None

    def _rent(self, event: InstanceEvent) -> None:
        from labledger.ingest.ssh_url import shown_host

        body = event.body
        price = body.get("price_per_hour")
        self.leases += 1
        self.profile = str(body.get("profile")) if body.get("profile") is not None else None
        self.host = shown_host(body.get("host"))  # an older bare IPv6 one in brackets
        self.price = float(price) if isinstance(price, int | float) else None
        self.currency = body.get("currency")
        self.spot = bool(body.get("spot", False))
        self.has_snapshot = isinstance(body.get("profile_snapshot"), dict)
        self.snapshot = read_snapshot(body.get("profile_snapshot"))
        self.state = "running"
        self.rented_at = self.running_since = self.meter_since = event.ts
        self.released_at = self.stopped_since = self.teardown_requested = None
        self.meter_on = True


def fold(events: Iterable[InstanceEvent], *, until: datetime | None = None) -> dict[str, Lease]:
    """Fold events (in ledger time order) into one :class:`Lease` per instance.

    With ``until``, events after it are left out and open stretches are counted up to it.

    A run launched on an instance and never exited is ``lost`` once the instance is stopped,
    released or confirmed absent after its latest lifecycle event (the box is gone or was shut
    down, so the run is not running, whatever its last event said); otherwise it stays
    ``live``, and the report tells a stalled one (heartbeats stopped) from an active one at its
    ``now``.
    """
    leases: dict[str, Lease] = {}
    marks: dict[str, RunMark] = {}
    for event in events:
        if until is not None and event.ts > until:
            continue
        if event.run is not None and event.kind in RUN_LIFECYCLE:
            mark = marks.get(event.run)
            if mark is None:
                mark = marks[event.run] = RunMark(event.instance, event.kind, event.ts)
            elif event.instance is not None and event.kind != "run.launched":
                mark.instance = mark.instance or event.instance
            mark.seen(event)
            if event.instance is None:  # recorded without the instance: still its run's activity
                lease = leases.get(mark.instance) if mark.instance is not None else None
                if event.kind in _CAPSULE:
                    lease = None  # a capsule closed elsewhere (the laptop) is no work on the box
                if lease is not None and (lease.last_run_at is None
                                          or event.ts > lease.last_run_at):
                    lease.last_run_at = event.ts
                continue
        if event.instance is None:
            continue
        lease = leases.get(event.instance)
        if lease is None:
            lease = leases[event.instance] = Lease(event.instance)
        lease.apply(event)
        # (a stop or release the state machine refused as an anomaly ends nothing)
        gone = event.kind == "teardown.confirmed" or (
            event.kind == "instance.released" and lease.released_at == event.ts) or (
            event.kind == "instance.stopped" and lease.stopped_since == event.ts
            and lease.changed_at == event.ts)
        if gone:
            for mark in marks.values():
                if (mark.instance == event.instance and not mark.ended
                        and mark.lost_at is None):
                    mark.lost_at, mark.lost_by = event.ts, event.kind
    for run, mark in marks.items():
        lease = leases.get(mark.instance) if mark.instance is not None else None
        if lease is None or mark.ended:
            continue
        if mark.lost_at is not None:
            lease.lost[run] = (mark.lost_at, mark.lost_by)
        else:
            lease.live[run] = mark
    if until is not None:
        for lease in leases.values():
            lease.advance(until)
    return leases


# --- the report ------------------------------------------------------------------------------
class Deadline(msgspec.Struct, frozen=True, kw_only=True):
    clock: str
    action: str
    at: str
    hours_left: float


class Flag(msgspec.Struct, frozen=True, kw_only=True):
    code: Literal["idle", "danger-clock", "deadline-passed", "billing-while-stopped",
                  "no-snapshot", "unrecorded", "anomaly", "teardown-unconfirmed",
                  "run-stalled", "run-lost"]
    message: str


class InstanceReport(msgspec.Struct, frozen=True, kw_only=True):
    """One instance as ``labledger instances`` shows it (fields are only ever added)."""

    instance: str
    platform: str | None
    title: str | None
    state: State
    host: str | None
    spot: bool
    rented_at: str | None
    released_at: str | None
    changed_at: str | None
    price_per_hour: float | None
    currency: str | None
    hours_running: float
    hours_metered: float
    cost: float | None
    still_bills: list[str]
    next_deadline: Deadline | None
    runs: list[str]
    active_runs: list[str]
    last_run_event_at: str | None
    leases: int
    flags: list[Flag]


def _still_bills(lease: Lease) -> list[str]:
    snap = lease.snapshot
    states = {"running": ("running", "always"), "stopped": ("stopped", "always"),
              "released": ("released", "always")}.get(lease.state, ())
    out = []
    if lease.meter_on and lease.state != "running":
        out.append("compute, at the full rate: stopping does not stop the meter here")
    if snap is not None:
        out += [trap.what for trap in snap.billing_traps if trap.when in states]
    return out


def _next_deadline(lease: Lease, now: datetime) -> Deadline | None:
    if lease.snapshot is None or lease.state not in ("running", "stopped"):
        return None
    starts = {"stopped": lease.stopped_since if lease.state == "stopped" else None,
              "running": lease.running_since if lease.state == "running" else None,
              "rented": lease.rented_at}
    best: Deadline | None = None
    best_at: datetime | None = None
    for clock in lease.snapshot.danger_clocks:
        base = starts.get(clock.starts_when)
        if base is None or clock.after_hours <= 0:
            continue
        at = base + timedelta(hours=clock.after_hours)
        if best_at is None or at < best_at:
            best_at = at
            best = Deadline(clock=clock.name, action=clock.action, at=format_time(at),
                            hours_left=round((at - now).total_seconds() / 3600, 6))
    return best


def _flags(lease: Lease, deadline: Deadline | None, now: datetime, idle_hours: float,
           warn_hours: float) -> list[Flag]:
    flags = []
    if lease.state == "unrecorded":
        flags.append(Flag(code="unrecorded", message=(
            "events name this instance but it was never rented through labledger; record it "
            "with `labledger rent --at`")))
    elif not lease.has_snapshot:
        flags.append(Flag(code="no-snapshot", message=(
            "its instance.rented has no profile snapshot: clocks and billing traps are unknown")))
    if deadline is not None and deadline.hours_left <= 0:
        flags.append(Flag(code="deadline-passed", message=(
            f"{deadline.clock} was due at {deadline.at} ({-deadline.hours_left:.1f} h ago): "
            f"{deadline.action}; if it happened, record it with its time (--at)")))
    elif deadline is not None and deadline.hours_left <= warn_hours:
        flags.append(Flag(code="danger-clock", message=(
            f"{deadline.clock} in {deadline.hours_left:.1f} h (at {deadline.at}): "
            f"{deadline.action}")))
    if lease.meter_on and lease.state == "stopped":
        verb = lease.snapshot.stop.verb if lease.snapshot and lease.snapshot.stop else "stop"
        flags.append(Flag(code="billing-while-stopped", message=(
            f"stopped, but {verb} does not stop compute billing on this platform: the meter is "
            "still running until the instance is released")))
    asked = lease.teardown_requested
    if asked is not None and lease.state in ("running", "stopped"):
        answer = ("acknowledged: the command exited 0" if asked.body.get("acknowledged")
                  else "not acknowledged")
        flags.append(Flag(code="teardown-unconfirmed", message=(
            f"teardown requested at {format_time(asked.ts)} ({answer}) but not confirmed, so it "
            "is counted as still billing: when the provider shows it gone, run `labledger "
            f"teardown --instance {lease.instance} --confirm-absent`")))
    for run, mark in sorted(lease.live.items()):
        if mark.stalled(now):
            what = "heartbeat" if mark.kind == "run.heartbeat" else "launch (no heartbeat since)"
            flags.append(Flag(code="run-stalled", message=(
                f"run {run} is not counted as active: no run.exited, and its last {what} was at "
                f"{format_time(mark.ts)}, more than {mark.stalled_after_s:g} s before "
                f"{format_time(now)} (the box, the wrapper or the run died)")))
    for run, (when, by) in sorted(lease.lost.items()):
        how = ("stopped (which kills every process on it; a resumed run records a new launch)"
               if by == "instance.stopped" else "released or confirmed absent")
        flags.append(Flag(code="run-lost", message=(
            f"run {run} never recorded run.exited and its instance was {how} at "
            f"{format_time(when)}: it is lost, not running")))
    times = [t for t in (lease.last_run_at, lease.meter_since) if t is not None]
    if lease.meter_on and not _active(lease, now) and times:
        since = max(times)
        hours = (now - since).total_seconds() / 3600
        if hours >= idle_hours:
            flags.append(Flag(code="idle", message=(
                f"idle {hours:.1f} h with the meter running (no run activity since "
                f"{format_time(since)})")))
    if lease.cost is not None and not math.isfinite(lease.cost):
        rate = " ".join(str(x) for x in (lease.price, lease.currency) if x is not None)
        flags.append(Flag(code="anomaly", message=(
            f"the cost overflows (price per hour {rate}): is the recorded price right?")))
    flags += [Flag(code="anomaly", message=text) for text in lease.anomalies]
    return flags


def _active(lease: Lease, now: datetime) -> list[str]:
    """Runs launched on the instance, not exited, not lost, and not stalled at ``now``."""
    return sorted(run for run, mark in lease.live.items() if not mark.stalled(now))


def _optional_time(when: datetime | None) -> str | None:
    return format_time(when) if when is not None else None


def report(events: Iterable[InstanceEvent], *, now: datetime, idle_hours: float = IDLE_HOURS,
           warn_hours: float = WARN_HOURS) -> list[InstanceReport]:
    """Every instance as of ``now`` (events after it are left out), sorted by instance id.

    ``idle_hours``: flag an instance whose meter runs with no active run and no run event for
    that long. ``warn_hours``: flag a danger clock due within that many hours.

    ``active_runs`` are the runs launched on the instance that have not exited, are not lost
    (the instance was released or confirmed absent after their last lifecycle event) and are
    not stalled at ``now`` (their heartbeats stopped for 3 x the interval the launch promised,
    else 600 s: the ``runs`` view's rule); stalled and lost runs are flagged (``run-stalled``,
    ``run-lost``, also after a stop) and never hide the ``idle`` flag.
    """
    out = []
    for name, lease in sorted(fold(events, until=now).items()):
        deadline = _next_deadline(lease, now)
        snap = lease.snapshot
        out.append(InstanceReport(
            instance=name, platform=lease.profile, title=snap.title if snap else None,
            state=lease.state, host=lease.host, spot=lease.spot,
            rented_at=_optional_time(lease.rented_at),
            released_at=_optional_time(lease.released_at),
            changed_at=_optional_time(lease.changed_at),
            price_per_hour=lease.price, currency=lease.currency,
            hours_running=round(lease.running_s / 3600, 6),
            hours_metered=round(lease.metered_s / 3600, 6),
            cost=(round(lease.cost, 6) if lease.cost is not None and lease.price is not None
                  and math.isfinite(lease.cost) else None),
            still_bills=_still_bills(lease), next_deadline=deadline,
            runs=sorted(lease.runs), active_runs=_active(lease, now),
            last_run_event_at=_optional_time(lease.last_run_at), leases=lease.leases,
            flags=_flags(lease, deadline, now, idle_hours, warn_hours)))
    return out
