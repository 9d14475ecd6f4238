"""The instances projection: meter hours, cost, what still bills, danger clocks and flags.

Fed with hand-made events (no ledger), so each rule is checked on exact timestamps.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from labledger.profiles import shipped_profiles, snapshot
from labledger.reconcile.instances import (
    InstanceEvent,
    InstanceReport,
    fold,
    format_time,
    report,
)

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def h(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


class History:
    """A little event builder: one instance, events in order."""

    def __init__(self) -> None:
        self.events: list[InstanceEvent] = []

    def add(self, at: float, kind: str, instance: str | None = "box", run: str | None = None,
            **body: Any) -> History:
        self.events.append(InstanceEvent(ts=h(at), writer="w", seq=len(self.events), kind=kind,
                                         instance=instance, run=run, body=body))
        return self

    def rent(self, at: float, profile: str = "autodl", instance: str = "box",
             price: float | None = 2.0, **extra: Any) -> History:
        body: dict[str, Any] = {"profile": profile, "currency": "CNY",
                                "profile_snapshot": snapshot(shipped_profiles()[profile].profile)}
        if price is not None:
            body["price_per_hour"] = price
        return self.add(at, "instance.rented", instance=instance, **{**body, **extra})

    def one(self, now: float, **kwargs: Any) -> InstanceReport:
        reports = report(self.events, now=h(now), **kwargs)
        assert len(reports) == 1
        return reports[0]


def codes(item: InstanceReport) -> list[str]:
    return [flag.code for flag in item.flags]


def test_running_meter_and_cost() -> None:
    item = History().rent(0).one(now=10)
    assert item.state == "running"
    assert item.hours_running == 10
    assert item.hours_metered == 10
    assert item.cost == 20
    assert item.currency == "CNY"
    assert item.platform == "autodl"
    assert item.title == "AutoDL"


def test_stop_start_history_counts_only_running_intervals() -> None:
    history = (History().rent(0)
               .add(3, "instance.stopped")
               .add(27, "instance.started")
               .add(28.5, "instance.stopped"))
    item = history.one(now=40)
    assert item.state == "stopped"
    assert item.hours_running == 4.5
    assert item.hours_metered == 4.5
    assert item.cost == 9.0
    # AutoDL: auto-release 360 h after the *last* stop
    assert item.next_deadline is not None
    assert item.next_deadline.clock == "auto-release"
    assert item.next_deadline.at == "2026-03-17T04:30:00.000000Z"  # 28.5 h + 15 d
    assert item.next_deadline.hours_left == 360 - 11.5
    assert "danger-clock" not in codes(item)


def test_now_leaves_out_later_events() -> None:
    history = History().rent(0).add(3, "instance.stopped").add(27, "instance.started")
    item = history.one(now=10)
    assert item.state == "stopped"
    assert item.hours_metered == 3
    assert item.changed_at == "2026-03-01T03:00:00.000000Z"


def test_a_restart_resets_the_stopped_clock() -> None:
    history = History().rent(0).add(1, "instance.stopped").add(300, "instance.started")
    item = history.one(now=302)
    assert item.next_deadline is None  # autodl's only clock runs while stopped
    assert item.hours_metered == 3


@pytest.mark.parametrize(("now", "code", "left"), [
    (1 + 360 - 49, None, 49.0),
    (1 + 360 - 47, "danger-clock", 47.0),
    (1 + 360, "deadline-passed", 0.0),
    (1 + 400, "deadline-passed", -40.0),
])
def test_danger_clock_window(now: float, code: str | None, left: float) -> None:
    item = History().rent(0).add(1, "instance.stopped").one(now=now)
    assert item.next_deadline is not None
    assert item.next_deadline.hours_left == left
    clock_codes = [c for c in codes(item) if c in ("danger-clock", "deadline-passed")]
    assert clock_codes == ([code] if code else [])


def test_warn_hours_is_configurable() -> None:
    item = History().rent(0).add(1, "instance.stopped").one(now=1 + 360 - 100, warn_hours=120)
    assert "danger-clock" in codes(item)


def test_gpushare_auto_releases_after_ten_days() -> None:
    item = History().rent(0, profile="gpushare").add(5, "instance.stopped").one(now=6)
    assert item.next_deadline is not None
    assert item.next_deadline.at == "2026-03-11T05:00:00.000000Z"


def test_paperspace_auto_shutdown_runs_from_the_last_start() -> None:
    history = (History().rent(0, profile="paperspace")
               .add(10, "instance.stopped").add(20, "instance.started"))
    item = history.one(now=25)
    assert item.next_deadline is not None
    assert item.next_deadline.clock == "auto-shutdown"
    assert item.next_deadline.at == "2026-03-02T08:00:00.000000Z"
    assert item.next_deadline.hours_left == 7
    assert "danger-clock" in codes(item)


def test_release_stops_the_meter_and_the_clocks() -> None:
    history = History().rent(0, profile="vastai", price=0.5).add(4, "instance.released")
    item = history.one(now=100)
    assert item.state == "released"
    assert item.released_at == "2026-03-01T04:00:00.000000Z"
    assert item.hours_metered == 4
    assert item.cost == 2.0
    assert item.next_deadline is None
    assert item.still_bills == [
        "bandwidth bills in any state",
        "Volumes keep billing after the instance is destroyed, until each is deleted"]


def test_what_still_bills_while_stopped_comes_from_the_snapshot() -> None:
    item = History().rent(0, profile="runpod").add(2, "instance.stopped").one(now=5)
    assert item.hours_metered == 2
    assert item.still_bills == ["the volume disk bills at 2x while the pod is stopped "
                                "($0.20/GB/mo)"]


def test_a_stop_that_does_not_stop_the_meter() -> None:
    """Lambda has no stop state: a shut-down instance keeps billing until terminated."""
    item = History().rent(0, profile="lambda", price=1.5).add(2, "instance.stopped").one(now=5)
    assert item.state == "stopped"
    assert item.hours_running == 2
    assert item.hours_metered == 5
    assert item.cost == 7.5
    assert "billing-while-stopped" in codes(item)
    assert item.still_bills[0].startswith("compute, at the full rate")


def test_idle_meter_is_flagged() -> None:
    history = (History().rent(0)
               .add(1, "run.launched", run="r1").add(2, "run.exited", run="r1", exit_code=0))
    assert "idle" not in codes(history.one(now=3.5))
    item = history.one(now=4)
    assert "idle" in codes(item)
    assert item.runs == ["r1"]
    assert item.active_runs == []
    assert item.last_run_event_at == "2026-03-01T02:00:00.000000Z"
    assert "idle" not in codes(history.one(now=4, idle_hours=3))


def test_an_active_run_is_not_idle() -> None:
    item = History().rent(0).add(1, "run.launched", run="r1").one(now=30)
    assert item.active_runs == ["r1"]
    assert "idle" not in codes(item)


def test_an_exit_recorded_without_the_instance_ends_the_run() -> None:
    history = (History().rent(0).add(1, "run.launched", run="r1")
               .add(2, "run.exited", instance=None, run="r1", exit_code=0))
    item = history.one(now=5)
    assert item.active_runs == []
    assert "idle" in codes(item)


def test_a_stopped_instance_is_not_idle() -> None:
    item = History().rent(0).add(1, "instance.stopped").one(now=30)
    assert "idle" not in codes(item)
    assert item.hours_metered == 1


def test_no_price_means_no_cost() -> None:
    item = History().rent(0, price=None).one(now=10)
    assert item.cost is None
    assert item.hours_metered == 10


def test_anomalies_are_kept_and_ignored() -> None:
    history = (History().rent(0)
               .add(1, "instance.started")
               .add(2, "instance.released")
               .add(3, "instance.stopped"))
    item = history.one(now=10)
    assert item.state == "released"
    assert item.hours_metered == 2
    assert [f.message for f in item.flags if f.code == "anomaly"] == [
        "started at 2026-03-01T01:00:00.000000Z while running; ignored",
        "stopped at 2026-03-01T03:00:00.000000Z while released; ignored"]


def test_a_new_lease_after_release_adds_up() -> None:
    history = (History().rent(0).add(2, "instance.released")
               .rent(10, price=3.0).add(11, "instance.stopped"))
    item = history.one(now=20)
    assert item.leases == 2
    assert item.hours_metered == 3
    assert item.cost == 2 * 2.0 + 1 * 3.0
    assert item.price_per_hour == 3.0


def test_instances_never_rented_are_shown_as_unrecorded() -> None:
    item = History().add(1, "run.launched", run="r9").one(now=2)
    assert item.state == "unrecorded"
    assert item.platform is None
    assert item.cost is None
    assert codes(item)[0] == "unrecorded"


def test_a_rent_without_snapshot_is_flagged() -> None:
    item = History().add(0, "instance.rented", profile="autodl").one(now=1)
    assert item.state == "running"
    assert "no-snapshot" in codes(item)
    assert item.next_deadline is None


def test_an_unreadable_snapshot_is_treated_as_none() -> None:
    history = History().add(0, "instance.rented", profile="x",
                            profile_snapshot={"danger-clocks": "not a list"})
    item = history.add(1, "instance.stopped").one(now=2)
    assert item.next_deadline is None
    assert item.hours_metered == 1


def test_fold_orders_and_separates_instances() -> None:
    history = History().rent(0, instance="a").rent(1, instance="b").add(2, "instance.stopped",
                                                                          instance="a")
    leases = fold(history.events)
    assert sorted(leases) == ["a", "b"]
    assert leases["a"].state == "stopped"
    assert leases["b"].state == "running"


def test_times_are_rendered_with_a_four_digit_year_even_before_1000() -> None:
    assert format_time(datetime(1, 1, 2, tzinfo=UTC)) == "0001-01-02T00:00:00.000000Z"
    assert format_time(datetime(2026, 12, 3, 9, 5, tzinfo=UTC)) == "2026-12-03T09:05:00.000000Z"
