"""verify-pull, the teardown gate, and teardown itself."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import (
    FiniteFloatRange,
    common,
    open_ledger,
    refuse_bad_id,
    state,
)
from labledger.ledger.cli._errors import EXIT_FAILED, EXIT_PROBLEMS, EXIT_USAGE
from labledger.ledger.cli._output import emit_json, info, table, warn

if TYPE_CHECKING:
    from labledger.reconcile.pull_verified import GateResult, RunVerification

_COLUMNS = ("run", "path", "expected", "pulled", "digest", "verified", "ok", "next")


def _yn(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def _rows(runs: list[RunVerification]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for run in runs:
        # a run's own problems name commands to run: in full below the table, not cut in it
        rows += [(run.run, "-", "", "", "", "", "NO", "see below") for _ in run.problems]
        for a in run.artifacts:
            problems = "; ".join(a.problems)
            rows.append((run.run, a.path, ",".join(a.sources), _yn(a.pulled),
                         _yn(a.digest_match), _yn(a.verified) if a.is_checkpoint else "n/a",
                         "yes" if a.ok else "NO",
                         "" if a.ok else f"{problems} -> {a.next_step or 'see docs/teardown.md'}"))
    return rows


def _show_table(runs: list[RunVerification], *, err: bool = False,
                problems: bool = True) -> None:
    """The audit table (data: stdout, unless ``err``), then each run's own problems (the rows
    that say "see below") on stderr, unless the caller lists them itself."""
    rows = _rows(runs)
    if rows:  # no run recorded on the instance: the gate's own problem line says so
        # the next step is a command to run: never cut (other columns are short)
        click.echo(table(_COLUMNS, rows, max_width=400), err=err)
    if problems:
        for run in runs:
            for problem in run.problems:
                warn(f"{run.run}: {problem}")


@click.command("verify-pull")
@click.argument("run")
@click.option("--instance", metavar="I",
              help="Judge only what was pulled from instance I (listings recorded with "
                   "--instance I), as `gate teardown --instance I` does; the marker goes to "
                   ".labledger/verified/RUN/instances/I/PULL_VERIFIED.json.")
@click.option("--out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Where to write PULL_VERIFIED.json (default: "
                   ".labledger/verified/RUN/PULL_VERIFIED.json).")
@common
def verify_pull(run: str, instance: str | None, out: str | None) -> None:
    """Re-verify a run's pulled files now and write PULL_VERIFIED.json only if all hold.

    Every expected file (roster, latest listing, what the box announced) must be pulled with
    matching digests, its local object must re-hash to its digest, and every checkpoint must
    have loaded safely. Otherwise exits 3, lists every gap and renames every PULL_VERIFIED.json
    it wrote before for this run to PULL_VERIFIED.json.invalid (with the reason).

    With --instance I, only listings taken from I count (what the teardown gate of I says
    of this run), and the marker records the instance.

    Example: labledger verify-pull r1 --out export/r1/PULL_VERIFIED.json
    """
    from labledger.reconcile.pull_verified import (
        ObjectChecker,
        default_marker,
        gate_events,
        invalidate_markers,
        ledger_head,
        open_store,
        record_corrupt,
        unknown_instance,
        verify_run,
        write_marker,
    )

    refuse_bad_id("run", run)
    refuse_bad_id("instance", instance)
    ledger = open_ledger()
    events = gate_events(ledger)
    checker = ObjectChecker(open_store(ledger))
    unknown = None if instance is None else unknown_instance(events, instance)
    if unknown is not None:  # a typo must not read as a box with nothing pulled
        raise click.BadParameter(unknown, param_hint="--instance")
    result = verify_run(run, events, checker, instance=instance)
    record_corrupt(ledger, checker)
    target = Path(out) if out else default_marker(ledger, run, instance)
    ctx = click.get_current_context()
    if result.ok:
        document = write_marker(ledger, result, ledger_head(events), target)
        if state().json:
            emit_json({"ok": True, "path": str(target), "marker": document,
                       "verification": result.to_json()})
        else:
            click.echo(str(target))
            where = f" from instance {instance}" if instance else ""
            info(ctx, f"run {run}: {counted(result.files, 'file')}, "
                      f"{counted(result.bytes, 'byte')} pull-verified"
                      f"{where}")
        return
    moved = invalidate_markers(ledger, result, [target, default_marker(ledger, run, instance)])
    if state().json:
        emit_json({"ok": False, "invalidated": [str(p) for p in moved],
                   "verification": result.to_json()})
    else:
        _show_table([result], problems=False)  # the gaps below name them, once
        for gap in result.gaps():
            warn(f"gap: {gap}")
        for path in moved:
            warn(f"invalidated: {path}")
        warn(f"run {run} is NOT pull-verified ({counted(len(result.gaps()), 'gap')}); "
             "no marker written")
        if not any(e.run == run for e in events):  # a typo must not read as "pull it first"
            known = sorted({e.run for e in events if e.run is not None})
            shown = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
            warn(f"warning: no event names run {run!r}; the runs in the ledger: "
                 f"{shown or 'none'}")
    ctx.exit(EXIT_PROBLEMS)


def _echo_err(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


@contextlib.contextmanager
def _one_interrupt() -> Iterator[None]:
    """The first Ctrl-C raises `KeyboardInterrupt` as usual; every later one is ignored until
    the block ends: however often it is pressed while the provider command runs, the record
    of the request (the call may have gone out) is written before labledger stops."""
    def first(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@click.group()
def gate() -> None:
    """Gates that must pass before something irreversible.

    Example: labledger gate teardown --instance box1
    """


def _evaluate(instance: str) -> tuple[Any, GateResult, list[Any]]:
    from labledger.reconcile.pull_verified import (
        ObjectChecker,
        evaluate_gate,
        gate_events,
        open_store,
        record_corrupt,
    )

    ledger = open_ledger()
    events = gate_events(ledger)
    checker = ObjectChecker(open_store(ledger))
    result = evaluate_gate(ledger, instance, events=events, checker=checker)
    if record_corrupt(ledger, checker):
        events = gate_events(ledger)
    return ledger, result, events


@gate.command("teardown")
@click.option("--instance", required=True, metavar="I", help="The instance to tear down.")
@common
def gate_teardown(instance: str) -> None:
    """Exit 0 only when every run hosted on instance I is pull-verified now.

    Local bytes are re-hashed; a PULL_VERIFIED.json marker is never read. Otherwise exits 3
    with a per-artifact table of what is missing and what to run next.

    Example: labledger gate teardown --instance box1 --json
    """
    refuse_bad_id("instance", instance)
    _, result, _ = _evaluate(instance)
    if state().json:
        emit_json(result.to_json())
    elif result.ok:
        _show_table(result.runs)
        info(click.get_current_context(),
             f"gate passed: {instance}: {counted(len(result.runs), 'run')} pull-verified "
             f"(state {result.state_digest()})")
    else:
        _show_table(result.runs)
        for problem in result.problems:
            warn(f"gate: {problem}")
        warn(f"gate REFUSED: {instance}: {counted(len(result.unmet()), 'unmet check')}")
    if not result.ok:
        click.get_current_context().exit(EXIT_PROBLEMS)


@click.command(context_settings={"ignore_unknown_options": True})
@click.option("--instance", required=True, metavar="I", help="The instance to tear down.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--override", metavar="REASON",
              help="Approve although the gate refuses; the reason and unmet checks are recorded.")
@click.option("--confirm-absent", is_flag=True,
              help="Record that the resource was observed gone (teardown.confirmed).")
@click.option("--evidence", metavar="TEXT", help="With --confirm-absent: what showed it gone.")
@click.option("--method", default="observed", show_default=True, metavar="M",
              help="With --confirm-absent: how absence was observed.")
@click.option("--at", metavar="TS",
              help="With --confirm-absent: when it was gone (RFC 3339; default now): the meter "
                   "stops there, for a confirmation recorded later.")
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True), default=600.0,
              show_default=True, metavar="S",
              help="Seconds to wait for the provider command (then it is killed).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@common
def teardown(instance: str, yes: bool, override: str | None, confirm_absent: bool,
             evidence: str | None, method: str, at: str | None, timeout: float,
             command: tuple[str, ...]) -> None:
    """Approve tearing down instance I (gate first), then run the provider's command.

    Shows the platform's meter-stop verb and what it destroys, asks for confirmation (or
    --yes; with no terminal and no --yes it refuses), records teardown.approved bound to the
    gate's state, runs COMMAND (the provider's destroy, after --) if given and records
    teardown.requested with its exit code. A refused gate without --override exits 3 and
    records nothing. An acknowledged destroy is not a confirmation: once the box reads as gone,
    run it again with --confirm-absent (and --evidence) to record teardown.confirmed.

    --confirm-absent is idempotent: when the instance was already confirmed absent, nothing is
    recorded, the recorded confirmation's time and event id are shown and it exits 0. A repeat
    that gives a different --method, --evidence or --at is refused (exit 2, nothing written):
    the first confirmation stands; record more evidence with `labledger emit note`.

    Example: labledger teardown --instance box1 --yes -- vastai destroy instance 123
    """
    from labledger.reconcile.teardown import (
        ensure_not_released,
        record_approval,
        record_confirmed,
        record_request,
        run_provider_command,
        teardown_plan,
    )

    ctx = click.get_current_context()
    refuse_bad_id("instance", instance)
    if command and command[0] == "--":
        command = command[1:]
    if override is not None and not override.strip():
        raise click.BadParameter("the reason is blank; say why the gate may be overridden",
                                 param_hint="'--override'")
    if not confirm_absent:
        # said without --confirm-absent they would be dropped, and the approval go ahead
        for name in ("evidence", "method", "at"):
            if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT:
                raise click.UsageError(f"--{name} goes with --confirm-absent (record that the "
                                       "instance was observed gone); nothing was written")
    if confirm_absent:
        if command or override:
            raise click.UsageError("--confirm-absent takes no command and no --override")
        said = ctx.get_parameter_source("method") != click.core.ParameterSource.DEFAULT
        done = record_confirmed(open_ledger(), instance, method=method if said else None,
                                evidence=evidence, at=at)
        if done.already:  # said on stderr even with --json and -q: nothing was recorded
            warn(done.message)
        if state().json:
            emit_json({**done.record.to_dict(), "already_confirmed": True,
                       "message": done.message} if done.already else done.record.to_dict())
        else:
            click.echo(done.record.id)
            if not done.already:
                info(ctx, done.message)
        return
    ensure_not_released(open_ledger(), instance)
    ledger, gate_result, events = _evaluate(instance)
    plan = teardown_plan(events, instance)
    if plan.verb:
        verb = plan.verb
    elif plan.profile:
        verb = f"(none: the {plan.profile} profile names no meter-stop verb)"
    else:
        verb = "(unknown: the instance was not rented through labledger)"
    warn(f"instance {instance}" + (f" on {plan.profile}" if plan.profile else "") +
         f": meter-stop verb {verb!r}" +
         (" (IRREVERSIBLE)" if plan.irreversible else ""))
    if plan.deletes:
        warn(f"  destroys: {', '.join(plan.deletes)}")
    if plan.keeps:
        warn(f"  keeps: {', '.join(plan.keeps)}")
    if plan.confirm:
        warn(f"  confirm it is gone: {plan.confirm}")
    if not gate_result.ok:
        _show_table(gate_result.runs, err=True)  # why it is refused: stdout is the approval
        for problem in gate_result.problems:
            warn(f"gate: {problem}")
        if not override:
            warn(f"gate REFUSED: {instance}: {counted(len(gate_result.unmet()), 'unmet check')}; "
                 "nothing recorded")
            if state().json:
                emit_json({"ok": False, "gate": gate_result.to_json(), "plan": plan.to_json()})
            ctx.exit(EXIT_PROBLEMS)
        warn("!!! OVERRIDE: the gate refused "
             f"({counted(len(gate_result.unmet()), 'unmet check')}); "
             f"approving anyway because: {override}")
    if not yes:
        if not sys.stdin.isatty():
            warn("labledger: error: no terminal to confirm on; pass --yes to approve")
            ctx.exit(EXIT_USAGE)
        if not click.confirm(f"Approve teardown of {instance}?", default=False, err=True):
            warn("not approved; nothing recorded")
            ctx.exit(EXIT_FAILED)
    approved = record_approval(ledger, gate_result, approver=ledger.actor, override=override)
    out: dict[str, Any] = {"ok": True, "gate": gate_result.to_json(), "plan": plan.to_json(),
                           "approved": approved.to_dict()}
    code = 0
    if command:
        # Its output goes to stderr as it comes (kept for the event too): an interrupted or
        # hung provider call has shown what it did so far.
        with _one_interrupt():
            result = run_provider_command(command, timeout=timeout, echo=_echo_err)
            if result.interrupted:
                requested = record_request(ledger, instance, result)
        if result.interrupted:
            out["requested"] = requested.to_dict()
            warn(f"interrupted while the provider command ran: recorded teardown.requested "
                 f"{requested.id} ("
                 + ("acknowledged: it exited 0" if result.exit_code == 0
                    else "not acknowledged; the call may have gone out")
                 + "): check the "
                 f"provider, then `labledger teardown --instance {instance} --confirm-absent` "
                 f"when it reads as gone")
            if state().json:
                emit_json({**out, "ok": False, "interrupted": result.interrupted})
            else:
                click.echo(approved.id)
            raise KeyboardInterrupt
        requested = record_request(ledger, instance, result)
        out["requested"] = requested.to_dict()
        if result.exit_code is None:  # not found, or timed out (the output says which)
            warn("provider command did not finish: not acknowledged")
            code = EXIT_FAILED
        elif result.exit_code != 0:
            warn(f"provider command exited {result.exit_code}: not acknowledged")
            code = EXIT_FAILED
        else:
            warn("acknowledged (exit 0); this is not a confirmation: when it reads as gone, run "
                 f"`labledger teardown --instance {instance} --confirm-absent`")
    if state().json:
        emit_json(out)
    else:
        click.echo(approved.id)
    if code:
        ctx.exit(code)
