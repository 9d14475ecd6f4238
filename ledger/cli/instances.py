"""Instances: rent, stop, start, release, instances, and advice from platform facts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from labledger.ledger.cli._context import FiniteFloatRange, common, open_ledger, state
from labledger.ledger.cli._output import emit_json, info, table, warn
from labledger.ledger.cli.profiles import user_profile_dir
from labledger.ledger.errors import InvalidEventError

if TYPE_CHECKING:
    from labledger.reconcile.rental import Change


def _report(recorded: Any, message: str) -> None:
    if state().json:
        emit_json({**recorded.record.to_dict(), "warnings": recorded.warnings})
        return
    click.echo(recorded.record.id)
    info(click.get_current_context(), message)
    for text in recorded.warnings:
        warn(f"warning: {text}")


@click.command()
@click.option("--profile", "profile_name", required=True, metavar="P",
              help="Platform profile (labledger profiles list).")
@click.option("--instance", required=True, metavar="I", help="Your id for the box.")
@click.option("--host", metavar="USER@HOST:PORT",
              help="How to reach it (IPv6 in brackets: root@[fe80::1]:22).")
@click.option("--price-per-hour", type=float, metavar="X", help="Compute price per hour.")
@click.option("--currency", metavar="C", help="Currency of the price (USD, CNY, ...).")
@click.option("--spot", is_flag=True, help="Spot / interruptible capacity.")
@click.option("--at", metavar="TS", help="When it was rented (RFC 3339; default now).")
@common
def rent(profile_name: str, instance: str, host: str | None, price_per_hour: float | None,
         currency: str | None, spot: bool, at: str | None) -> None:
    """Record renting instance I on platform P, with a snapshot of P's facts.

    The snapshot keeps history fixed: editing the profile later changes nothing recorded.
    Refused (exit 2, nothing written) when the instance id was rented before.

    Example: labledger rent --profile runpod --instance pod1 --price-per-hour 2.49 --currency USD
    """
    from labledger.profiles import get_profile
    from labledger.reconcile.rental import record_rent

    loaded = get_profile(profile_name, user_profile_dir())
    ledger = open_ledger()
    recorded = record_rent(ledger, loaded, instance, host=host, price_per_hour=price_per_hour,
                           currency=currency, spot=spot, at=at)
    _report(recorded, f"rented {instance} on {loaded.name} ({loaded.profile.title}) at "
                      f"{recorded.record.ts}")


def _change(kind: Change, instance: str, at: str | None, reason: str | None) -> None:
    from labledger.reconcile.rental import record_change

    ledger = open_ledger()
    recorded = record_change(ledger, instance, kind, at=at, reason=reason)
    verb = kind.removeprefix("instance.")
    _report(recorded, f"{verb} {instance} at {recorded.record.ts}")


def _change_command(name: str, kind: Change, summary: str, example: str) -> click.Command:
    @click.command(name=name, help=f"{summary}\n\nExample: {example}")
    @click.option("--instance", required=True, metavar="I", help="The instance id.")
    @click.option("--at", metavar="TS", help="When it happened (RFC 3339; default now).")
    @click.option("--reason", metavar="TEXT", help="Why (kept in the event).")
    @common
    def command(instance: str, at: str | None, reason: str | None) -> None:
        _change(kind, instance, at, reason)

    return command


stop = _change_command(
    "stop", "instance.stopped",
    "Record a reversible stop of instance I. Refused (exit 2, nothing written) when I was "
    "never rented, is released or is already stopped. Warns what still bills and when a "
    "danger clock the stop starts runs out (AutoDL releases a stopped instance after 15 days).",
    "labledger stop --instance box1 --reason 'training done, pulling results'")
start = _change_command(
    "start", "instance.started",
    "Record restarting a stopped instance I. Refused (exit 2, nothing written) unless I is "
    "stopped.",
    "labledger start --instance box1")
release = _change_command(
    "release", "instance.released",
    "Record the irreversible release (destroy, terminate) of instance I. Refused (exit 2, "
    "nothing written) when I was never rented or is already released.",
    "labledger release --instance box1 --at 2026-12-02T18:00:00Z")


def _now(text: str | None) -> datetime:
    from labledger.ledger import events as ev

    if text is None:
        return datetime.now(UTC)
    try:
        canonical = ev.parse_ts(text)
    except ValueError as exc:
        raise InvalidEventError(str(exc), field="--now") from None
    return datetime.strptime(canonical, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _hours(value: float) -> str:
    return f"{value:.2f}"


def _cost(item: Any) -> str:
    if item.cost is None:
        return "-"
    return f"{item.cost:.2f} {item.currency or ''}".rstrip()


def _deadline(item: Any) -> str:
    d = item.next_deadline
    if d is None:
        return "-"
    when = d.at[:16].replace("T", " ") + " UTC"  # the ledger's times are all UTC: say so
    left = f"in {d.hours_left:.1f} h" if d.hours_left > 0 else f"{-d.hours_left:.1f} h ago"
    return f"{d.clock} {when} ({left})"


@click.command()
@click.option("--now", metavar="TS", help="Judge as of this time (RFC 3339; default now). "
                                          "Events after it are left out.")
@click.option("--idle-hours", type=FiniteFloatRange(min=0), default=2.0, show_default=True,
              help="Flag a running meter with no run activity for this long.")
@click.option("--warn-hours", type=FiniteFloatRange(min=0), default=48.0, show_default=True,
              help="Flag a danger clock due within this many hours.")
@common
def instances(now: str | None, idle_hours: float, warn_hours: float) -> None:
    """Show every instance: state, hours on the meter, cost, what still bills, danger clocks.

    Computed from events only; platform facts come from the snapshot taken at rent. Times are
    UTC (the table says so; --json gives RFC 3339 with Z). A run with no run.exited whose
    heartbeats stopped (run-stalled) or whose instance is gone (run-lost) is not active, so it
    does not hide the idle flag.

    Example: labledger instances --now 2026-12-02T12:00:00Z
    """
    import msgspec

    from labledger.ledger.cli._context import ledger_paths
    from labledger.reconcile.instances import load_events, report

    when = _now(now)
    # of a run's heartbeats only those that can change the report (`load_events`)
    events = load_events(ledger_paths(), until=when, latest_heartbeats=True)
    reports = report(events, now=when, idle_hours=idle_hours, warn_hours=warn_hours)
    if state().json:
        from labledger.ledger.events import format_ts  # RFC 3339 for any year (4 digits)

        emit_json({"now": format_ts(when),
                   "instances": [msgspec.to_builtins(r) for r in reports]})
        return
    if not reports:
        info(click.get_current_context(), "no instances recorded (labledger rent ...)")
        return
    click.echo(table(
        ["INSTANCE", "PLATFORM", "STATE", "HOST", "HOURS", "COST", "NEXT DEADLINE", "RUNS"],
        [[r.instance, r.platform, r.state, r.host, _hours(r.hours_metered), _cost(r),
          _deadline(r), len(r.runs)] for r in reports]))
    for r in reports:
        for text in r.still_bills:
            click.echo(f"{r.instance}: still bills: {text}")
        for flag in r.flags:
            click.echo(f"{r.instance}: {flag.code.upper()}: {flag.message}")


@click.group()
def advise() -> None:
    """Advice computed from platform facts.

    Example: labledger advise cadence --profile runpod --checkpoint-seconds 30 --mtbf-hours 3
    """


@advise.command()
@click.option("--profile", "profile_name", required=True, metavar="P", help="Platform profile.")
@click.option("--checkpoint-seconds", type=FiniteFloatRange(min=0, min_open=True), default=30.0,
              show_default=True, metavar="C", help="What one checkpoint costs (blocking).")
@click.option("--mtbf-hours", type=FiniteFloatRange(min=0, min_open=True), default=3.0,
              show_default=True, metavar="H", help="Mean time between failures of any kind.")
@click.option("--announced-share", type=FiniteFloatRange(min=0, max=1, max_open=True),
              default=0.0, show_default=True, metavar="F",
              help="Share of failures that come with the platform's preemption warning.")
@common
def cadence(profile_name: str, checkpoint_seconds: float, mtbf_hours: float,
            announced_share: float) -> None:
    """The Young/Daly checkpoint interval sqrt(2*MTBF*C), adjusted to the preemption grace.

    Prints the arithmetic. Where a save fits in the platform's warning, announced failures
    lose nothing, and --announced-share stretches the interval.

    Example: labledger advise cadence --profile runpod --checkpoint-seconds 30 --mtbf-hours 3
    """
    import msgspec

    from labledger.profiles import get_profile
    from labledger.reconcile.cadence import advise_cadence

    loaded = get_profile(profile_name, user_profile_dir())
    try:
        advice = advise_cadence(loaded.profile, checkpoint_seconds=checkpoint_seconds,
                                mtbf_hours=mtbf_hours, announced_share=announced_share)
    except ValueError as exc:  # numbers each in range, together out of it (1e-300 * 1e-300)
        raise click.UsageError(str(exc)) from None
    if state().json:
        emit_json(msgspec.to_builtins(advice))
        return
    for line in advice.arithmetic:
        click.echo(line)
    for line in advice.advice:
        click.echo(f"advice: {line}")
    click.echo(f"checkpoint every {advice.interval_seconds:.0f} s")
