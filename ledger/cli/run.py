"""`labledger run -- CMD...`: run a command as a recorded run (see `labledger.ingest.run`)."""

from __future__ import annotations

from typing import Any

import click

from labledger.ledger.cli._context import FiniteFloatRange, common, state
from labledger.ledger.cli._output import dumps

MIN_HEARTBEAT_S = 1.0
"""The shortest ``--heartbeat`` the command line takes (docs/runs.md): the floor of the Python
API, `labledger.ingest.run.MIN_HEARTBEAT_S`, repeated here so that parsing the command line
imports nothing heavy (a test checks they agree). Refused here, it is a usage error before
anything is gathered or started."""


def _reporter(quiet: bool, as_json: bool) -> Any:
    def report(kind: str, message: str) -> None:
        # stdout belongs to the command: labledger's own lines always go to stderr.
        if as_json:
            key = "run" if kind == "run" else "message"
            click.echo(dumps({"type": "status" if kind == "run" else "warning", key: message}),
                       err=True)
        elif kind == "warning":
            click.echo(f"labledger: warning: {message}", err=True)
        elif not quiet:
            click.echo(f"labledger: run {message}", err=True)

    return report


class _HeartbeatInterval(FiniteFloatRange):
    """Seconds, at least `MIN_HEARTBEAT_S`: a shorter interval is a usage error (exit 2,
    nothing started or written). Every heartbeat is an fsynced event, so ``--heartbeat 1e-9``
    would flood the ledger with thousands of events a second and tell nothing a 1 s beat does
    not."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = FiniteFloatRange().convert(value, param, ctx)
        if number < MIN_HEARTBEAT_S:
            self.fail(f"{value} is below the floor of {MIN_HEARTBEAT_S:g} s (every heartbeat "
                      "is an fsynced event: a shorter interval would flood the ledger)",
                      param, ctx)
        return super().convert(number, param, ctx)


# No ignore_unknown_options: a mistyped wrapper option (--instnace) is a usage error, not the
# command; the command's own options are safe behind its name (allow_interspersed_args=False).
@click.command(context_settings={"allow_interspersed_args": False})
@click.option("--run", "run_id", metavar="RUN",
              help="Run id (default: <command>-<UTC yyyymmdd-HHMMSS>-<4 hex>, printed to stderr).")
@click.option("--instance", metavar="INSTANCE", envvar="LABLEDGER_INSTANCE",
              help="Instance (box) the run executes on (default: $LABLEDGER_INSTANCE).")
@click.option("--config", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="The resolved config file: stored (secrets scrubbed) in the CAS.")
@click.option("--heartbeat", type=_HeartbeatInterval(min=MIN_HEARTBEAT_S), metavar="SECONDS",
              help=f"Record run.heartbeat every SECONDS while the command runs (at least "
                   f"{MIN_HEARTBEAT_S:g}; a shorter interval is refused).")
@click.option("--strict", is_flag=True,
              help="Refuse to start the command when the ledger cannot record its launch.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@common
def run(run_id: str | None, instance: str | None, config: str | None, heartbeat: float | None,
        strict: bool, command: tuple[str, ...]) -> None:
    """Run COMMAND and record its launch, heartbeats and exit as events.

    Exits with the command's own status (128 + N when signal N killed it). When the ledger
    cannot be written the command still runs and the failure is reported on stderr, unless
    --strict. Secrets in the command line, environment, git diff and config never reach the
    ledger (docs/runs.md). The command sees LABLEDGER_RUN and LABLEDGER_ROOT.

    Example: labledger run --heartbeat 60 --config conf.yaml -- python train.py --lr 3e-4
    """
    from labledger.ingest.run import run_command

    current = state()
    result = run_command(list(command), run=run_id, instance=instance, config=config,
                         heartbeat=heartbeat, strict=strict, root=current.root,
                         report=_reporter(current.quiet, current.json), hold_signals=True)
    if current.json:
        click.echo(dumps({"type": "summary", "run": result.run, "exit_code": result.exit_code,
                          "signal": result.signal, "duration_s": round(result.duration_s, 3),
                          "peak_rss_bytes": result.peak_rss_bytes,
                          "heartbeats": result.heartbeats, "recorded": result.is_recorded,
                          "problems": result.problems}), err=True)
    elif current.verbose:
        how = (f"killed by signal {result.signal}" if result.signal is not None
               else f"exited {result.exit_code}")
        click.echo(f"labledger: run {result.run} {how} after {result.duration_s:.1f} s", err=True)
    click.get_current_context().exit(result.exit_code)
