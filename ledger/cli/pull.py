"""`labledger pull`: copy a run's files off a box (SSH or a local directory), proving each byte."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from labledger.ledger.cli._context import common, open_ledger, refuse_bad_id, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import LateBar, dumps, emit_json, info, table, warn


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


@click.command()
@click.option("--run", "run_id", metavar="RUN",
              help="Run id the pulled files belong to (required).")
@click.option("--from", "from_", metavar="[USER@]HOST[:PORT]:DIR",
              help="Pull over SSH (HOST may be a ~/.ssh/config alias; the "
                   "ssh://USER@HOST:PORT/DIR source a pull prints works too).")
@click.option("--from-dir", type=click.Path(file_okay=False, exists=True), metavar="DIR",
              help="Pull from a directory on this machine (owned box, mounted storage).")
@click.option("--instance", metavar="INSTANCE",
              help="Instance (box) id the run lived on. Without --from/--from-dir: pull from "
                   "the folder the run's latest pull from it named.")
@click.option("--roster", type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="Expected files: PULL/v1 JSON, a JSON list, or one path per line.")
@click.option("--import-manifest", type=click.Path(dir_okay=False, exists=True),
              metavar="FILE", help="A PULL_MANIFEST.json (PULL/v1), used as the roster.")
@click.option("--export-manifest", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the pull's manifest as PULL/v1 JSON (without --from/--from-dir: the "
                   "run's latest recorded listing).")
@click.option("--only", multiple=True, metavar="GLOB",
              help="Pull only files whose path matches (repeatable): --only 'ckpt/*'.")
@click.option("--allow-symlinks", is_flag=True,
              help="Record links that stay inside the tree (never followed or copied).")
@click.option("--accept-new-host-key", is_flag=True,
              help="Pin an unknown host key on first use (a changed key is always refused).")
@click.option("--identity", type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="SSH private key file.")
@click.option("--password-stdin", is_flag=True,
              help="Read the SSH password from the first line of stdin (never from argv; at a "
                   "terminal, typed without echo).")
@click.option("--known-hosts", type=click.Path(dir_okay=False), metavar="FILE",
              help="labledger's known_hosts file (default: .labledger/known_hosts).")
@click.option("--ssh-config", type=click.Path(dir_okay=False), metavar="FILE",
              help="SSH config file (default: ~/.ssh/config).")
@click.option("--ssh", "ssh_mode", type=click.Choice(["auto", "openssh", "paramiko"]),
              default="auto", show_default=True,
              help="How to log in: paramiko; openssh (the system ssh over one connection: a "
                   "second factor, a password or a passphrase asked once at the terminal); "
                   "auto: paramiko, or openssh at a terminal when the box asks for a second "
                   "factor.")
@click.option("--allow-pickle", is_flag=True,
              help="Load checkpoints with weights_only=False: their code RUNS. Recorded.")
@click.option("--checkpoint-glob", "checkpoint_globs", multiple=True, metavar="GLOB",
              help="Names treated as checkpoints (default: *.pth *.pt *.ckpt *.bin "
                   "*.safetensors).")
@click.option("--no-verify", is_flag=True,
              help="Skip loading checkpoints (which needs torch); the run then is not "
                   "pull-verified until a pull loads them.")
@click.option("--retries", type=click.IntRange(0, 20), default=3, show_default=True,
              help="Retries of a transport error (with backoff), resuming mid-file.")
@common
def pull(run_id: str | None, from_: str | None, from_dir: str | None, instance: str | None,
         roster: str | None, import_manifest: str | None, export_manifest: str | None,
         only: tuple[str, ...], allow_symlinks: bool, accept_new_host_key: bool,
         identity: str | None, password_stdin: bool, known_hosts: str | None,
         ssh_config: str | None, ssh_mode: str, allow_pickle: bool,
         checkpoint_globs: tuple[str, ...], no_verify: bool, retries: int) -> None:
    """Pull a run's files into the store: list, hash on the box, transfer, merge, verify.

    Prints a table (expected, pulled, verified, failed, with sizes); exits 3 when any file
    failed, is missing or unexpected, was refused, is still being written on the box (copied,
    not verified), or a checkpoint did not load.

    Example: labledger pull --run r1 --from root@box:2222:/root/runs/r1 --accept-new-host-key
    """
    ctx = click.get_current_context()
    if run_id is None:
        raise click.UsageError("--run is required")
    # before the box is reached (an SSH connection may pin its host key) or anything listed
    refuse_bad_id("run", run_id)
    refuse_bad_id("instance", instance)
    if from_ and from_dir:
        raise click.UsageError("give one of --from and --from-dir")
    if roster and import_manifest:
        raise click.UsageError("give one of --roster and --import-manifest")
    if ssh_mode == "openssh" and password_stdin:
        raise click.UsageError("--ssh openssh asks for a password at the terminal (once); leave "
                               "out --password-stdin")
    if export_manifest is not None:
        _refuse_missing_folder(Path(export_manifest))
    if not from_ and not from_dir and export_manifest is not None:
        _export(open_ledger(), run_id, Path(export_manifest), summary=True)
        return
    source_given = bool(from_ or from_dir)
    if not from_ and not from_dir:
        if instance is None:
            raise click.UsageError("give --from or --from-dir, or --instance I to pull from "
                                   "the folder an earlier pull of the run from I named (or "
                                   "only --export-manifest)")
        from_, from_dir = _recorded_source(run_id, instance)

    from labledger.ingest.pull import CHECKPOINT_GLOBS, load_roster
    from labledger.ingest.pull import pull as do_pull

    # The whole roster is validated before the ledger is even opened: a bad one (exit 2) must
    # leave no trace.
    loaded = None
    if roster:
        loaded = load_roster(Path(roster))
    elif import_manifest:
        loaded = load_roster(Path(import_manifest), manifest=True)
    if not from_dir:
        _need_paramiko(from_ or "")
    ledger = open_ledger()
    if source_given and instance is not None:
        _warn_if_new_instance(ledger, run_id, instance)
    transport: Any
    if from_dir:
        from labledger.ingest.transport import LocalTransport

        transport = LocalTransport(from_dir)
    else:
        from labledger.ingest.transport_mux import connect
        from labledger.ingest.transport_ssh import parse_target

        password = _read_password(from_ or "") if password_stdin else None
        assert from_ is not None
        transport = connect(
            ssh_mode, parse_target(from_),  # type: ignore[arg-type]  # click checked the choice
            known_hosts=Path(known_hosts) if known_hosts else ledger.paths.home / "known_hosts",
            accept_new=accept_new_host_key, identity=Path(identity) if identity else None,
            password=password, ssh_config=Path(ssh_config) if ssh_config else None,
            on_switch=warn)
    bar = LateBar("pulling")
    try:
        report = do_pull(ledger, transport, run=run_id, instance=instance, roster=loaded,
                         only=only, allow_symlinks=allow_symlinks, allow_pickle=allow_pickle,
                         checkpoint_globs=checkpoint_globs or CHECKPOINT_GLOBS,
                         verify_checkpoints=not no_verify, retries=retries,
                         on_total=bar.start, progress=bar.update)
    except KeyboardInterrupt:
        bar.close()
        if not state().json:
            warn("pull interrupted: the events already recorded stay true, and none claims a "
                 "file that was not received whole and compared. Received bytes are kept: run "
                 "the same command again to resume them (stored files are not transferred "
                 "again)")
        raise
    finally:
        bar.close()
        transport.close()
    if export_manifest is not None:
        _export(ledger, run_id, Path(export_manifest))
    if state().json:
        emit_json(report.to_json())
    else:
        counts = report.counts()
        click.echo(table(["", "files", "bytes", "size"],
                         [[k, v["files"], v["bytes"], _human(v["bytes"])]
                          for k, v in counts.items()]))
        problems = [*(f"missing: {p}" for p in report.missing),
                    *(f"unexpected: {p}" for p in report.unexpected),
                    *(f"differs from roster: {p}" for p in report.roster_mismatched),
                    *(f"refused: {p}" for p in report.refused),
                    *(f"merge: {p}" for p in report.merge_problems),
                    *(f"failed: {f.path}: {f.error}" for f in report.files
                      if f.status == "failed"),
                    *(f"checkpoint: {f.path}: {f.checkpoint_error}" for f in report.files
                      if f.checkpoint_ok is False),
                    *(_still_written(f.path, f.writers) for f in report.files if f.writers),
                    *(_corrupt_found(q, report) for q in report.quarantined
                      if not q["repaired"])]
        for line in problems:
            click.echo(line, err=True)
        for repaired in (q for q in report.quarantined if q["repaired"]):
            # fixed, but the user should know that this disk lost bytes
            warn(f"repaired: {repaired['path']}: its stored copy {_was_corrupt(repaired)} and "
                 "sent again from the box")
        if counts["expected"]["files"] == 0:  # a wrong path, most likely: say so, not just ok
            warn(f"warning: {report.source} holds no files: nothing was pulled, and run {run_id} "
                 "cannot be pull-verified from this listing (is it the run's folder?)")
        if report.earlier_commit:
            found = sum(1 for n in report.earlier_commit if n["found"])
            warn(f"an earlier pull moved {len(report.earlier_commit)} of these files into "
                 f"the store but did not finish its commit ({report.earlier_commit[0]['error']})"
                 f": {found} found there by their digests (re-hashed), not transferred again"
                 + (f"; {len(report.earlier_commit) - found} no longer there, transferred "
                    "again" if found < len(report.earlier_commit) else ""))
        info(ctx, f"{'ok' if report.ok else 'PROBLEMS'}: {report.source} -> run {run_id} "
                  f"(manifest {report.manifest_digest})")
    if not report.ok:
        ctx.exit(EXIT_PROBLEMS)


def _still_written(path: str, writers: list[dict[str, Any]]) -> str:
    """The stderr line for a file a box process still held open for writing."""
    who = ", ".join(f"pid {w['pid']} ({w['command']})" for w in writers[:3])
    more = f" and {len(writers) - 3} more" if len(writers) > 3 else ""
    return (f"still being written: {path}: held open for writing on the box by {who}{more}; "
            f"its bytes so far were copied, but it is not verified (the run is not "
            f"pull-verified) until a pull finds it closed")


def _was_corrupt(found: dict[str, Any]) -> str:
    """How a stored object found corrupt was handled (`PullReport.quarantined`), in words."""
    hashes = (f" (its bytes hash to {found['actual_digest']})" if found["actual_digest"]
              else "")
    moved = (f"moved to {found['quarantine_path']} (recorded: object.quarantined "
             f"{found['event'][:12]})" if found["event"] is not None
             else "moved to quarantine by another process, which records it")
    return f"{found['digest']} was corrupt{hashes}: {moved},"


def _corrupt_found(found: dict[str, Any], report: Any) -> str:
    """The stderr line for a stored object found corrupt that this pull could not repair. Its
    box copy failing is the reason only for the object that file is stored under (``of_path``);
    another file's object of the same size was never the box's to repair."""
    failed = found["of_path"] and any(
        f.path == found["path"] and f.status == "failed" for f in report.files)
    why = (f"its copy on the box failed too (failed: {found['path']})" if failed
           else f"the box's {found['path']} is other bytes (same size); store the original "
                "again with `labledger cas put` if you still have it")
    return (f"corrupt: {found['path']}: the stored object {_was_corrupt(found)} not repaired: "
            f"{why}")


def _recorded_source(run_id: str, instance: str) -> tuple[str | None, str | None]:
    """``(--from, --from-dir)`` of the latest pull of ``run_id`` recorded from ``instance``;
    exit 2 (nothing written) when none is recorded: naming the instances the ledger knows when
    no event names ``instance`` (a typo; its hint would repeat the typo), else the --from form.

    With --from or --from-dir an instance no event names is taken: that pull is how a box that
    was not rented through labledger (an owned box, a second box a run resumed on) enters the
    ledger, and the pull itself names where it was taken (docs/pull.md)."""
    from labledger.ingest.errors import PullSourceError
    from labledger.reconcile.pull_verified import (
        PULL_SOURCE_KINDS,
        load_events,
        pull_source,
        unknown_instance,
    )

    ledger = open_ledger()
    found = pull_source(load_events(ledger, PULL_SOURCE_KINDS), run_id, instance)
    if found.option is None:
        # Every event only now, to tell a typo from a box with no folder pulled yet.
        unknown = unknown_instance(load_events(ledger, latest_heartbeats=True), instance)
        if unknown is not None:
            raise click.BadParameter(unknown, param_hint="--instance")
        raise PullSourceError(f"--instance {instance}", found.problem())
    info(click.get_current_context(),
         f"pulling from {found.value} (the latest pull of {run_id} from {instance})")
    if found.option == "--from-dir":
        if not Path(found.value or "").is_dir():
            raise PullSourceError(str(found.value), f"the folder the latest pull of {run_id} "
                                  f"from {instance} named is not a directory here any more: "
                                  "give --from or --from-dir")
        return None, found.value
    return found.value, None


_NAMING_KINDS = ("instance.rented", "run.launched", "pull.listed")


def _warn_if_new_instance(ledger: Any, run_id: str, instance: str) -> None:
    """Before the box is reached, when no event names ``instance`` yet: a warning on stderr
    (even with --json or -q: a typo costs a gate that never passes) when it looks like a typo
    of a known instance; a note (dropped by -q and --json) when the run is recorded on other
    boxes only. The pull goes on: this is how a box not rented through labledger enters the
    ledger (docs/pull.md)."""
    from labledger.reconcile.pull_verified import load_events, new_instance

    # A box rented, launched on or pulled from before is named by one of these kinds: read
    # first, they settle the usual pull (0.15 s on a ledger of 300,000 heartbeats, where
    # reading every event takes 1.0-1.4 s: benchmarks/bench_evidence_ledger.py's project).
    if any(e.instance == instance for e in load_events(ledger, _NAMING_KINDS)):
        return
    found = new_instance(load_events(ledger, latest_heartbeats=True), run_id, instance)
    if found is None:
        return
    if found.typo_of is not None:
        warn(f"labledger: warning: {found.message()}")
    else:
        info(click.get_current_context(), f"labledger: note: {found.message()}")


def _refuse_missing_folder(dest: Path) -> None:
    """Exit 2 before anything is pulled when --export-manifest's folder does not exist: found
    only after the pull, it ended in a traceback with the pull recorded."""
    from labledger.ingest.errors import PullSourceError

    folder = dest.parent
    if not folder.is_dir():
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise PullSourceError(str(dest), f"its folder {folder} {problem}; create it, or name "
                              "another --export-manifest")


def _export(ledger: Any, run_id: str, dest: Path, *, summary: bool = False) -> None:
    from labledger.ingest.errors import PullSourceError
    from labledger.ingest.pull import latest_listing, pull_v1

    found = latest_listing(ledger, run_id)
    if found is None:
        raise PullSourceError(run_id, "no pull.listed event for this run; pull it first")
    document = pull_v1(run_id, found[0], found[1])
    try:
        dest.write_text(dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:  # a full disk, a folder removed meanwhile: exit 1, no traceback
        raise click.FileError(str(dest), hint=exc.strerror or str(exc)) from exc
    if summary and state().json:  # the export was the whole command: its one JSON document
        emit_json({"ok": True, "run": run_id, "path": str(dest), "schema": document["schema"],
                   "created_at_utc": document["created_at_utc"], **document["totals"]})
    else:
        info(click.get_current_context(), f"wrote {dest} (PULL/v1)")


def _read_password(target: str) -> str:
    """The first line of stdin; at a terminal, typed without echo (a plain read would show it
    on the screen and in a recording of the session)."""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"SSH password for {target}: ")
    return sys.stdin.readline().rstrip("\r\n")


def _need_paramiko(source: str) -> None:
    """Pulling over SSH needs paramiko, an optional dependency: without it, say how to get it
    (exit 2, before anything is opened) instead of a traceback."""
    try:
        import paramiko  # noqa: F401
    except ImportError:
        from labledger.ingest.errors import PullSourceError

        raise PullSourceError(source, "pulling over SSH needs paramiko, which is not installed: "
                                      "pip install 'labledger[ssh]' (or pull from a folder with "
                                      "--from-dir)") from None

