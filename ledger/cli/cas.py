"""`labledger cas`: the content-addressed store, by hand."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import NonEmptyPath, common, open_ledger, state
from labledger.ledger.cli._output import emit_json, info, progress_bar, table, warn


def _store() -> Any:
    from labledger.ledger.artifacts import open_store

    return open_store(open_ledger())


@contextmanager
def _reading(ledger: Any) -> Iterator[Any]:
    """The store, for a command that verifies what it reads; records what it quarantines.

    A reader that finds an object corrupt has already moved it to quarantine (the store does
    that); the `object.quarantined` event is what turns `in_store` false and lets `check --deep`
    name the loss, so it is appended before the error reaches the user (exit 3).
    """
    from labledger.cas import ObjectCorruptError
    from labledger.ledger.artifacts import corrupt_object, open_store, record_quarantine

    try:
        yield open_store(ledger)
    except ObjectCorruptError as exc:
        # quarantine_path is None when another process moved it first; that process records it.
        if exc.quarantine_path is not None:
            (event,) = record_quarantine(ledger, [corrupt_object(exc)])
            info(click.get_current_context(),
                 f"recorded object.quarantined for {exc.digest} (event {event.id[:12]})")
        raise


def _parse_duration(text: str, option: str = "--grace") -> float:
    """Seconds in ``text`` (90s, 12h, 7d, 2w; a bare number is seconds): a finite number, zero
    or more. A negative or NaN grace would keep nothing recent (NaN compares false)."""
    import math

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    try:
        if text[-1:] in units:
            seconds = float(text[:-1]) * units[text[-1]]
        else:
            seconds = float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a duration like 90s, 12h or 7d",
                                 param_hint=f"'{option}'") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise click.BadParameter(f"{text!r} is not a duration like 90s, 12h or 7d (a finite "
                                 "length of time, zero or more)", param_hint=f"'{option}'")
    return seconds


def _later(read: Any, ledger: Any) -> Iterator[str]:
    """``read(ledger)``'s digests, read only when first iterated (gc iterates them once it
    holds the store's lock)."""
    yield from read(ledger)


@click.group()
def cas() -> None:
    """The BLAKE3 content-addressed store under .labledger/cas/.

    Example: labledger cas put best.pth
    """


@cas.command("put")
@click.argument("paths", nargs=-1, required=True, type=NonEmptyPath())
@click.option("--sha256", is_flag=True, help="Also compute SHA-256 in the same pass.")
@click.option("--refuse-symlinks", is_flag=True,
              help="Fail on a symlink inside a directory instead of recording it as a link.")
@common
def put(paths: tuple[str, ...], sha256: bool, refuse_symlinks: bool) -> None:
    """Store files or directories (a directory becomes one tree object); print their digests.

    Symlinks are never followed. Storing the same content twice stores it once. Storing again
    an object the ledger says was quarantined (found corrupt) restores it: that is recorded as
    artifact.recorded with role "restored", so the checkpoints view counts it in the store again.

    Example: labledger cas put runs/r1 best.pth --sha256
    """
    from labledger.cas import CasError
    from labledger.ledger.artifacts import open_store, record_restored, refuse_ledger_folder

    symlinks: Literal["record", "refuse"] = "refuse" if refuse_symlinks else "record"
    # Every argument is checked before the first is stored: a typo in the last path must not
    # leave the others stored (bad input changes nothing, exit 2).
    ledger = open_ledger()
    store = open_store(ledger)
    for raw in paths:
        try:
            store.check_source(Path(raw), symlinks=symlinks)
        except CasError as exc:
            raise click.BadParameter(str(exc), param_hint=repr(raw)) from None
        refuse_ledger_folder(ledger, raw)
    results = []
    for raw in paths:
        path = Path(raw)
        size = path.stat().st_size if path.is_file() else 0
        with progress_bar(size, f"hashing {path.name}") as advance:
            if path.is_dir():
                result = store.put_tree(path, symlinks=symlinks, sha256=sha256,
                                        progress=advance)
            else:
                result = store.put_file(path, sha256=sha256, progress=advance)
        results.append((raw, result))
        for group in result.case_collisions:
            click.echo(f"labledger: warning: {raw}: names differ only by case: "
                       f"{', '.join(group)}", err=True)
    restored = record_restored(ledger, results)
    if restored:
        info(click.get_current_context(),
             f"restored {counted(len(restored), 'quarantined object')} the ledger names: "
             "recorded artifact.recorded (role restored)")
    if state().json:
        emit_json([{"path": raw, "digest": r.digest, "type": r.type, "size": r.size,
                    "sha256": r.sha256, "stored_new": r.stored_new} for raw, r in results])
        return
    for raw, r in results:
        extra = f"  sha256:{r.sha256}" if r.sha256 else ""
        click.echo(f"{r.digest}  {raw}{extra}")


@cas.command("get")
@click.argument("digest")
@click.option("-o", "--output", required=True, type=NonEmptyPath(), help="Where to restore it.")
@click.option("--force", is_flag=True, help="Replace an existing file or folder at OUTPUT.")
@common
def get(digest: str, output: str, force: bool) -> None:
    """Restore an object to OUTPUT (a tree restores a directory), verifying while copying.

    Example: labledger cas get blake3:9f2c… -o restored/
    """
    from labledger.cas.restore import DestinationOverlapsError, check_destination

    ledger = open_ledger()
    # Never inside or around .labledger/: with --force, `-o .` run from the project folder (or
    # its absolute path, or `-o .labledger`) would replace the folder and with it every event
    # and object; without it a restore could plant a file among the segments. Bad input (2),
    # judged before anything is read or written.
    try:
        check_destination(Path(output), [ledger.paths.home])
    except DestinationOverlapsError as exc:
        raise click.BadParameter(str(exc), param_hint="'-o' / '--output'") from None
    with _reading(ledger) as store:
        info_ = store.get(digest, Path(output), force=force, protect=[ledger.paths.home])
    if state().json:
        emit_json(info_.to_json())
    else:
        info(click.get_current_context(), f"restored {info_.type} {digest} to {output}")


@cas.command("cat")
@click.argument("digest")
@common
def cat(digest: str) -> None:
    """Write an object's bytes to stdout, verifying them on the way.

    Example: labledger cas cat blake3:9f2c… > metrics.json
    """
    out = sys.stdout.buffer
    with _reading(open_ledger()) as store:
        # Verify before the first byte reaches stdout: whatever reads it (a redirect, a pipe)
        # cannot take bytes back. Hashing first and streaming second reads the object twice,
        # but the second read comes from the page cache and the hash runs at several GB/s;
        # spooling to a temp file instead would need the object's size again in free disk.
        # read_chunks still re-hashes, so an object tampered with in between is caught too.
        store.verify(digest)
        for chunk in store.read_chunks(digest):
            out.write(chunk)
    out.flush()


@cas.command("ls")
@click.argument("tree", required=False)
@common
def ls(tree: str | None) -> None:
    """List a tree's entries; without TREE, every object in the store.

    Example: labledger cas ls blake3:4d1e…
    """
    ledger = open_ledger()
    if tree is None:
        from labledger.ledger.artifacts import open_store

        digests = sorted(open_store(ledger).iter_objects())
        if state().json:
            emit_json(digests)
        else:
            for digest in digests:
                click.echo(digest)
        return
    import msgspec

    with _reading(ledger) as store:
        entries = store.ls(tree)
    rows: list[dict[str, Any]] = [msgspec.to_builtins(e) for e in entries]
    if state().json:
        emit_json(rows)
        return
    click.echo(table(["kind", "mode", "size", "digest", "path"],
                     [[r["kind"], oct(r["mode"]) if r.get("mode") else "", r.get("size", 0),
                       r.get("digest") or ("-> " + r["target"] if r.get("target") else ""),
                       r["path"]] for r in rows], max_width=80))


@cas.command("stat")
@click.argument("digest")
@common
def stat(digest: str) -> None:
    """Show an object's type (file or tree), size, location and time stored.

    Example: labledger cas stat blake3:9f2c…
    """
    data = _store().stat(digest).to_json()
    if state().json:
        emit_json(data)
    else:
        for key, value in data.items():
            click.echo(f"{key}: {value}")


@cas.command("gc")
@click.option("--dry-run/--no-dry-run", default=True, show_default=True,
              help="Only list what would be removed.")
@click.option("--grace", default="7d", show_default=True, metavar="DURATION",
              help="Keep unreferenced objects younger than this (90s, 12h, 7d).")
@click.option("--partial-grace", metavar="DURATION",
              help="Keep pull partial files (an interrupted pull's received bytes, which the "
                   "same pull resumes) written to within this; 0 removes them all. [default: "
                   "--grace]")
@common
def gc(dry_run: bool, grace: str, partial_grace: str | None) -> None:
    """Remove objects that no event references and that are older than the grace period.

    Dry run by default; pass --no-dry-run to delete. Evidence any event names is never removed.

    Pull partial files go too (cas/tmp/pull-*.partial: the bytes an interrupted pull received,
    kept so that the same pull resumes them; each is shown with the box and file it came from)
    once not written to for the partial grace period, but none while a pull is running. When
    the box is destroyed, its pull can never resume: --partial-grace 0 frees them at once.

    Example: labledger cas gc --grace 30d --no-dry-run
    """
    from labledger.ingest.pull import partial_origins
    from labledger.ledger.artifacts import open_store, referenced_digests, required_digests

    seconds = _parse_duration(grace)
    partial_seconds = (_parse_duration(partial_grace, "--partial-grace")
                       if partial_grace is not None else seconds)
    ledger = open_ledger()

    def waiting() -> None:  # said in every mode (-q, --json): a wait must not look like a hang
        warn("labledger: waiting for the commands storing objects (ingest-dir, checkpoint, "
             "cas put, ...) to record their events")

    # Keep every digest any event mentions; call missing only what events say was stored here
    # (a pull's manifest_digest names a listing, not an object). Both are read only once gc
    # holds the store's lock (generators), so an event recorded while it waited counts.
    report = open_store(ledger).gc(_later(referenced_digests, ledger),
                                   required=_later(required_digests, ledger),
                                   grace_seconds=seconds, dry_run=dry_run,
                                   partial_grace_seconds=partial_seconds, on_wait=waiting)
    origins = partial_origins(ledger) if report.partials_removed else {}
    if state().json:
        data = report.to_json()
        for item in data["partials_removed"]:
            source, file = origins.get(Path(item["path"]).name, (None, None))
            item.update(source=source, file=file)
        emit_json(data)
    else:
        verb = "would remove" if dry_run else "removed"
        for item in (*report.removed, *report.temp_removed):
            click.echo(f"{verb} {item.digest or item.path}  {counted(item.size, 'byte')}")
        for item in report.partials_removed:
            origin = origins.get(item.path.name)
            came = f"{origin[0]}: {origin[1]}" if origin else "from a pull with no listing"
            click.echo(f"{verb} pull partial {item.path}  {counted(item.size, 'byte')}  "
                       f"({came}; last written {item.mtime:%Y-%m-%d %H:%M} UTC)")
        for item in report.failed:
            click.echo(f"could not remove {item.digest or item.path}  "
                       f"{counted(item.size, 'byte')}")
        partials = ""
        if report.partials_removed or report.partials_kept_recent or report.partials_in_use:
            partials = (f"; {verb} {counted(len(report.partials_removed), 'pull partial file')}"
                        f", kept {report.partials_kept_recent} written to within --partial-grace")
            if report.partials_in_use:
                partials += (f" and {report.partials_in_use} because a pull is running (run gc "
                             "again once it ends)")
        info(click.get_current_context(),
             f"{verb} {counted(len(report.removed), 'object')}, "
             f"{counted(report.bytes_freed, 'byte')}; kept "
             f"{report.kept_referenced} referenced and {report.kept_recent} recent"
             + partials
             + (f"; {counted(len(report.missing), 'referenced object')} "
                f"{'is' if len(report.missing) == 1 else 'are'} missing from the store "
                "(`labledger check --deep` names them)" if report.missing else ""))
    if report.failed:
        from labledger.cas import StoreWriteError

        # Not a silent partial success: the store was not cleaned as asked (exit 1).
        raise StoreWriteError(ledger.paths.cas, f"{len(report.failed)} of the unreferenced "
                              "objects, temp files or pull partials could not be removed: "
                              + "; ".join(report.failed_because))
