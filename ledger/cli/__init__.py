"""The `labledger` command line: a leaf that parses, calls one library function, renders.

Subcommands are imported lazily (a name maps to ``module:attribute``) so `labledger emit`, which
runs inside training loops, pays only for what it uses. Errors are mapped to exit codes in
`_errors.py`; anything unmapped is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any, NoReturn

import click

from labledger.ledger.cli._context import State, state
from labledger.ledger.cli._errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    exit_code_for,
)

# name -> (module, attribute, one-line help shown by `labledger --help` without importing it)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("labledger.ledger.cli.record", "init", "Create a ledger (.labledger/) here."),
    "emit": ("labledger.ledger.cli.record", "emit", "Append one event; prints its id."),
    "ingest": ("labledger.ledger.cli.record", "ingest",
               "Append JSON-lines events, all or nothing."),
    "schema": ("labledger.ledger.cli.record", "schema", "Print the JSON Schema of an event kind."),
    "log": ("labledger.ledger.cli.read", "log", "Show events, oldest first."),
    "sql": ("labledger.ledger.cli.read", "sql", "Run a read-only SQL query over the ledger."),
    "check": ("labledger.ledger.cli.integrity", "check",
              "Verify every record and the hash chains."),
    "compact": ("labledger.ledger.cli.integrity", "compact",
                "Seal segments to Parquet for fast queries."),
    "cas": ("labledger.ledger.cli.cas", "cas",
            "The content-addressed store: put, get, cat, ls, stat, gc."),
    "run": ("labledger.ledger.cli.run", "run",
            "Run a command and record its launch, heartbeats and exit."),
    "profiles": ("labledger.ledger.cli.profiles", "profiles",
                 "Platform profiles: list, show, stale."),
    "rent": ("labledger.ledger.cli.instances", "rent",
             "Record renting an instance, with a snapshot of its profile."),
    "stop": ("labledger.ledger.cli.instances", "stop", "Record a reversible stop of an instance."),
    "start": ("labledger.ledger.cli.instances", "start", "Record restarting a stopped instance."),
    "release": ("labledger.ledger.cli.instances", "release",
                "Record the irreversible release of an instance."),
    "instances": ("labledger.ledger.cli.instances", "instances",
                  "Show instances: state, meter hours, cost, danger clocks, flags."),
    "advise": ("labledger.ledger.cli.instances", "advise",
               "Advice from platform facts: checkpoint cadence."),
    "checkpoint": ("labledger.ledger.cli.capture", "checkpoint",
                   "Store a checkpoint and record checkpoint.saved."),
    "close": ("labledger.ledger.cli.capture", "close",
              "Seal a run directory as an immutable capsule, or quarantine it."),
    "ingest-dir": ("labledger.ledger.cli.capture", "ingest_dir",
                   "Record a finished run directory (files into the CAS, one batch)."),
    "pull": ("labledger.ledger.cli.pull", "pull",
             "Pull a run's files off a box (SSH or a directory), hashed and verified."),
    "verify-pull": ("labledger.ledger.cli.teardown", "verify_pull",
                    "Re-verify a run's pulled files; write PULL_VERIFIED.json if all hold."),
    "gate": ("labledger.ledger.cli.teardown", "gate",
             "Gates before irreversible actions: gate teardown --instance I."),
    "teardown": ("labledger.ledger.cli.teardown", "teardown",
                 "Approve (gate first) and request an instance's teardown; confirm it."),
    "hook": ("labledger.ledger.cli.hook", "hook",
             "Agent pre-tool-call hook: block destroying what is not pull-verified."),
    "reconcile": ("labledger.ledger.cli.reconcile", "reconcile",
                  "Check claimed numbers in documents against the ledger (exit 3 on drift)."),
    "hooks": ("labledger.ledger.cli.reconcile", "hooks",
              "Git hooks: install a pre-commit hook that runs reconcile --staged."),
    "claim": ("labledger.ledger.cli.claims", "claim",
              "Claims bound to stored results: add, list, retract."),
    "evidence": ("labledger.ledger.cli.claims", "evidence",
                 "Write or --check EVIDENCE.json: current claims with disclosures."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        command: click.Command = getattr(importlib.import_module(spec[0]), spec[1])
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", type=click.Path(file_okay=False), metavar="DIR",
              help="Project folder holding .labledger/ (default: $LABLEDGER_ROOT, else the "
                   "nearest parent).")
@click.option("--json", "json_", is_flag=True, help="Print data as JSON on stdout.")
@click.option("-q", "--quiet", is_flag=True, help="Drop progress and info messages.")
@click.option("-v", "--verbose", count=True, help="More detail; -vv adds tracebacks.")
@click.version_option(package_name="labledger", prog_name="labledger")
@click.pass_context
def cli(ctx: click.Context, root: str | None, json_: bool, quiet: bool, verbose: int) -> None:
    """labledger: an evidence ledger for deep-learning runs on owned or rented GPUs.

    Every action is an immutable event; every artifact's bytes sit in a BLAKE3
    content-addressed store; run state is derived by querying the ledger.

    Example: labledger init && labledger emit note --set text="first run"
    """
    current = state(ctx)
    if root is not None:
        current.root = root
    current.json = current.json or json_
    current.quiet, current.verbose = quiet, verbose


def _report(exc: BaseException, code: int, obj: State | None) -> None:
    message = str(exc)
    if obj is not None and obj.json:
        from labledger.ledger.cli._output import dumps

        extra: dict[str, Any] = {}
        to_json = getattr(exc, "to_json", None)
        if callable(to_json):
            extra = to_json()
        click.echo(dumps({"type": "exit_error", "code": code, "message": message, **extra}),
                   err=True)
    else:
        click.echo(f"labledger: error: {message}", err=True)
    if obj is not None and obj.verbose >= 2:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)


def _format_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    """labledger's own warnings (a damaged segment a query read around) as one plain line."""
    if category.__module__.startswith("labledger."):
        return f"labledger: warning: {message}\n"
    return _plain_format(message, category, filename, lineno, line)


_plain_format = warnings.formatwarning


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the CLI and map errors to documented exit codes.

    The read caches a command fills (`_stamp_cache`) are written only when it exits 0 or 3 (it
    ran to its end): a refused command (2), a failed one (1) or an interrupted one writes none,
    so a refusal leaves the project as it was.
    """
    from labledger.ledger import _stamp_cache

    held = _stamp_cache.hold()
    try:
        _main(argv)
    except SystemExit as exc:
        if exc.code in (None, EXIT_OK, EXIT_PROBLEMS):
            held.write()
        raise
    finally:
        held.release()


def _main(argv: list[str] | None) -> None:
    warnings.formatwarning = _format_warning
    obj = State()
    try:
        # Without standalone mode click *returns* the code of a `ctx.exit(code)` (check's 3).
        result = cli.main(args=argv, prog_name="labledger", standalone_mode=False, obj=obj)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        args = sys.argv[1:] if argv is None else argv
        if obj.json or "--json" in args:  # scripts read the last line, as for any error
            from labledger.ledger.cli._output import dumps

            click.echo(dumps({"type": "exit_error", "code": exc.exit_code,
                              "message": exc.format_message(),
                              "error": type(exc).__name__}), err=True)
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, click.exceptions.Abort) as exc:
        _interrupted(exc, obj, argv)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as exc:
        if _is_query_interrupt(exc):
            _interrupted(exc, obj, argv)
        code = exit_code_for(exc)
        if code is None:
            raise
        _report(exc, code, obj)
        sys.exit(code)
    sys.exit(result if isinstance(result, int) else 0)


def _is_query_interrupt(exc: BaseException) -> bool:
    """DuckDB (2.0) reports a Ctrl-C during a query as a plain ``RuntimeError``."""
    return type(exc) is RuntimeError and str(exc) == "Query interrupted"


def _interrupted(exc: BaseException, obj: State, argv: list[str] | None) -> NoReturn:
    click.echo("labledger: interrupted", err=True)
    args = sys.argv[1:] if argv is None else argv
    if obj.json or "--json" in args:
        from labledger.ledger.cli._output import dumps

        click.echo(dumps({"type": "exit_error", "code": EXIT_INTERRUPTED,
                          "message": "interrupted", "error": type(exc).__name__}), err=True)
    sys.exit(EXIT_INTERRUPTED)
