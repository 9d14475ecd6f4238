"""Commands that capture a run's outputs: checkpoint, close, ingest-dir."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import (
    FiniteFloatRange,
    NonEmptyPath,
    common,
    open_ledger,
    state,
)
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info, progress_bar, warn
from labledger.ledger.errors import InvalidEventError

_F = TypeVar("_F", bound=Callable[..., Any])
SETTLE_MAX_S = 60.0  # labledger.ingest.checkpoint.MAX_SETTLE_S, without importing it here

_RUN_HELP = "Run id (default: $LABLEDGER_RUN, which `labledger run` sets)."
_SETTLE_HELP = ("Seconds {what} must stand still before it is read, and twice that in all "
                "around the read, so a writer that paused half-way is not taken for finished "
                "(default: $LABLEDGER_SETTLE_S, else 1; 0: no wait). On Linux a file another "
                "process still holds open for writing is waited for too. Costs nothing for "
                "files last changed long ago.")


def _settle_option(what: str) -> Callable[[_F], _F]:
    return click.option("--settle", type=FiniteFloatRange(min=0, max=SETTLE_MAX_S),
                        metavar="SECONDS", help=_SETTLE_HELP.format(what=what))


def _parse_metrics(pairs: tuple[str, ...]) -> dict[str, float]:
    metrics: dict[str, float] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise InvalidEventError(f"--metric {pair!r} is not key=value",
                                    kind="checkpoint.saved", field="metrics")
        if key in metrics:  # silently keeping the last would drop what was typed first
            raise InvalidEventError(f"--metric {key!r} is given twice (only one value can be "
                                    "recorded); give each metric once",
                                    kind="checkpoint.saved", field=f"metrics.{key}")
        try:
            metrics[key] = float(value)
        except ValueError:
            raise InvalidEventError(f"--metric {key}={value!r} is not a number",
                                    kind="checkpoint.saved", field=f"metrics.{key}") from None
    return metrics


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--run", metavar="RUN", help=_RUN_HELP)
@click.option("--step", type=click.IntRange(min=0), help="Training step.")
@click.option("--epoch", type=click.IntRange(min=0), help="Epoch.")
@click.option("--role", type=click.Choice(["best", "last", "latest"]),
              help="best: the selection checkpoint; last: the final one; latest: the resume "
                   "anchor.")
@click.option("--metric", "metrics", multiple=True, metavar="KEY=VALUE",
              help="A metric at this checkpoint (repeatable): --metric val_psnr=31.42.")
@click.option("--digest-only", is_flag=True,
              help="Record the BLAKE3 digest and size without copying the file into the store "
                   "(stored=false), for a box with little disk.")
@click.option("--instance", metavar="INSTANCE", help="Instance (box) id.")
@_settle_option("the file")
@common
def checkpoint(path: str, run: str | None, step: int | None, epoch: int | None,
               role: str | None, metrics: tuple[str, ...], digest_only: bool,
               instance: str | None, settle: float | None) -> None:
    """Store checkpoint PATH in the CAS and record `checkpoint.saved`; prints the event id.

    Example: labledger checkpoint ckpt/best.pth --run r1 --step 4000 --role best --metric psnr=31.4
    """
    from labledger.ingest.checkpoint import Role, record_checkpoint  # noqa: F401 - Role: cast

    parsed = _parse_metrics(metrics)
    ledger = open_ledger()
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    with progress_bar(size, "hashing" if digest_only else "storing") as update:
        record = record_checkpoint(path, run=run, step=step, epoch=epoch,
                                   role=cast("Role | None", role), metrics=parsed,
                                   digest_only=digest_only, instance=instance, ledger=ledger,
                                   progress=update, settle=settle)
    body = record.body_dict()
    if body.get("size") == 0:  # a message: on stderr with --json too
        warn(f"labledger: warning: {path} is empty (0 bytes): recorded, but an empty "
             "checkpoint is usually one saved over a failed write")
    if state().json:
        emit_json(record.to_dict())
        return
    click.echo(record.id)
    verb = "hashed (not stored)" if digest_only else "stored"
    info(click.get_current_context(), f"{verb} {body['digest']}  {path}")


@click.command()
@click.argument("source", type=NonEmptyPath(file_okay=False))
@click.option("--run", metavar="RUN",
              help="Run id, also the capsule's directory name (default: $LABLEDGER_RUN, else "
                   "the run SOURCE/run.json names by run_id or run). A capsule whose run.json "
                   "names another run this ledger knows is quarantined, not sealed under the "
                   "wrong name; one it has never seen (a tracker's id) is only warned about.")
@click.option("--export-root", required=True, type=NonEmptyPath(file_okay=False), metavar="DIR",
              help="Where sealed capsules live: the capsule becomes DIR/<run>.")
@click.option("--move", is_flag=True,
              help="Move the files instead of copying them (on failure they are in quarantine; "
                   "nothing is ever deleted).")
@click.option("--quarantine-root", type=NonEmptyPath(file_okay=False), metavar="DIR",
              help="Where failed candidates go (default: EXPORT_ROOT/../quarantine).")
@click.option("--allow-running", is_flag=True,
              help="Close a run the ledger shows as still running (run.launched without "
                   "run.exited): only when you know nothing writes to it any more.")
@_settle_option("every file of SOURCE")
@common
def close(source: str, run: str | None, export_root: str, move: bool,
          quarantine_root: str | None, allow_running: bool, settle: float | None) -> None:
    """Seal the run in SOURCE as an immutable capsule EXPORT_ROOT/<run>, or quarantine it.

    Copies (or moves) SOURCE to EXPORT_ROOT/.partial/<run>, checks it against the capsule rules
    (required run.json, config.yaml, train.csv, best.pth and test/<id>/ results; no latest.pth;
    checkpoints load safely when torch is installed; change them in .labledger/capsule.toml),
    stores it as a CAS tree, renames it into place and records `capsule.sealed`; prints the
    capsule's path. A candidate that breaks a rule goes to
    quarantine with REASON.txt, `capsule.quarantined` is recorded, and the exit code is 3.

    Example: labledger close active/r7 --run r7 --export-root export
    """
    from labledger.ingest.capsule import close_capsule
    from labledger.ingest.errors import CapsuleQuarantinedError

    ledger = open_ledger()
    ctx = click.get_current_context()
    try:
        sealed = close_capsule(source, run=run, export_root=export_root, move=move,
                               quarantine_root=quarantine_root, allow_running=allow_running,
                               ledger=ledger, settle=settle)
    except CapsuleQuarantinedError as exc:
        if state().json:
            emit_json({"sealed": False, **exc.to_json()})
        else:
            warn(f"labledger: run {exc.run} quarantined in {exc.quarantine} (nothing sealed; "
                 f"fix these and close it again):")
            for problem in exc.problems:
                warn(f"  - {problem}")
        ctx.exit(EXIT_PROBLEMS)
    for warning in sealed.warnings:  # a run id the ledger has never seen: said, not refused
        warn(f"labledger: warning: {warning}")
    if sealed.unloaded:  # with --json too: a warning goes to stderr in every mode
        shown = ", ".join(sealed.unloaded[:5]) + (", ..." if len(sealed.unloaded) > 5 else "")
        them = "it" if len(sealed.unloaded) == 1 else "them"
        warn(f"labledger: warning: {counted(len(sealed.unloaded), 'checkpoint')} sealed "
             f"without being loaded ({shown}): torch is not installed here. "
             f"pip install 'labledger[torch]' to verify {them} when closing; `labledger pull` "
             f"loads {them} again on your side")
    if state().json:
        emit_json({"sealed": True, **sealed.to_json()})
        return
    click.echo(sealed.path)
    if not run and not os.environ.get("LABLEDGER_RUN"):
        info(ctx, f"run {sealed.run}: the run {source}'s own files name")
    info(ctx, f"sealed {sealed.digest}  {counted(sealed.files, 'file')}, "
              f"{counted(sealed.bytes, 'byte')}")


@click.command("ingest-dir")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--run", metavar="RUN",
              help="Run id (default: $LABLEDGER_RUN, else the run RUN_DIR/run.json names by "
                   "run_id or run, as for close). A RUN_DIR whose run.json names another run "
                   "this ledger knows is refused (exit 2, nothing stored); one it has never "
                   "seen (a tracker's id) is only warned about, as by close.")
@click.option("--instance", metavar="INSTANCE", help="Instance (box) id.")
@_settle_option("every file of RUN_DIR")
@common
def ingest_dir(run_dir: str, run: str | None, instance: str | None,
               settle: float | None) -> None:
    """Record a finished run directory: every file into the CAS, one event per file, one batch.

    Prints the directory's tree digest. For adopting labledger mid-project; nothing in RUN_DIR
    is changed.

    Example: labledger ingest-dir runs/baseline-3 --run baseline-3
    """
    from labledger.ingest.run_dir import ingest_run_dir

    ledger = open_ledger()
    result = ingest_run_dir(run_dir, run=run, instance=instance, ledger=ledger, settle=settle)
    for warning in result.warnings:  # a run id the ledger has never seen: said, as by close
        warn(f"labledger: warning: {warning}")
    if state().json:
        emit_json(result.to_json())
        return
    click.echo(result.digest)
    if not run and not os.environ.get("LABLEDGER_RUN"):
        info(click.get_current_context(), f"run {result.run}: the run {run_dir}'s own files name")
    extra = (f", {counted(len(result.symlinks), 'symlink')} kept as links" if result.symlinks
             else "")
    info(click.get_current_context(),
         f"recorded {counted(result.files, 'file')} ({counted(result.bytes, 'byte')}, "
         f"{counted(result.objects_new, 'new object')}){extra} for run {result.run}")
