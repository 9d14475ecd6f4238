"""`labledger cas`: the content-addressed store, by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from labledger.ledger.cli._context import common, open_ledger, state
from labledger.ledger.cli._output import emit_json, info, progress_bar, table


def _store() -> Any:
    from labledger.ledger.artifacts import open_store

    return open_store(open_ledger())


def _parse_duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    try:
        if text[-1:] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a duration like 90s, 12h or 7d") from None


@click.group()
def cas() -> None:
    """The BLAKE3 content-addressed store under .labledger/cas/.

    Example: labledger cas put best.pth
    """


@cas.command("put")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--sha256", is_flag=True, help="Also compute SHA-256 in the same pass.")
@click.option("--refuse-symlinks", is_flag=True,
              help="Fail on a symlink inside a directory instead of recording it as a link.")
@common
def put(paths: tuple[str, ...], sha256: bool, refuse_symlinks: bool) -> None:
    """Store files or directories (a directory becomes one tree object); print their digests.

    Symlinks are never followed. Storing the same content twice stores it once.

    Example: labledger cas put runs/r1 best.pth --sha256
    """
    store = _store()
    results = []
    for raw in paths:
        path = Path(raw)
        size = path.stat().st_size if path.is_file() else 0
        with progress_bar(size, f"hashing {path.name}") as advance:
            if path.is_dir():
                result = store.put_tree(path, symlinks="refuse" if refuse_symlinks else "record",
                                        sha256=sha256, progress=advance)
            else:
                result = store.put_file(path, sha256=sha256, progress=advance)
        results.append((raw, result))
        for group in result.case_collisions:
            click.echo(f"labledger: warning: {raw}: names differ only by case: "
                       f"{', '.join(group)}", err=True)
    if state().json:
        emit_json([{"path": raw, "digest": r.digest, "type": r.type, "size": r.size,
                    "sha256": r.sha256, "stored_new": r.stored_new} for raw, r in results])
        return
    for raw, r in results:
        extra = f"  sha256:{r.sha256}" if r.sha256 else ""
        click.echo(f"{r.digest}  {raw}{extra}")


@cas.command("get")
@click.argument("digest")
@click.option("-o", "--output", required=True, type=click.Path(), help="Where to restore it.")
@click.option("--force", is_flag=True, help="Replace an existing file or folder at OUTPUT.")
@common
def get(digest: str, output: str, force: bool) -> None:
    """Restore an object to OUTPUT (a tree restores a directory), verifying while copying.

    Example: labledger cas get blake3:9f2c… -o restored/
    """
    info_ = _store().get(digest, Path(output), force=force)
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
    for chunk in _store().read_chunks(digest):
        out.write(chunk)
    out.flush()


@cas.command("ls")
@click.argument("tree", required=False)
@common
def ls(tree: str | None) -> None:
    """List a tree's entries; without TREE, every object in the store.

    Example: labledger cas ls blake3:4d1e…
    """
    store = _store()
    if tree is None:
        digests = sorted(store.iter_objects())
        if state().json:
            emit_json(digests)
        else:
            for digest in digests:
                click.echo(digest)
        return
    import msgspec

    rows: list[dict[str, Any]] = [msgspec.to_builtins(e) for e in store.ls(tree)]
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
@common
def gc(dry_run: bool, grace: str) -> None:
    """Remove objects that no event references and that are older than the grace period.

    Dry run by default; pass --no-dry-run to delete. Evidence any event names is never removed.

    Example: labledger cas gc --grace 30d --no-dry-run
    """
    from labledger.ledger.artifacts import open_store, referenced_digests

    ledger = open_ledger()
    report = open_store(ledger).gc(referenced_digests(ledger),
                                   grace_seconds=_parse_duration(grace), dry_run=dry_run)
    if state().json:
        emit_json(report.to_json())
        return
    verb = "would remove" if dry_run else "removed"
    for item in (*report.removed, *report.temp_removed):
        click.echo(f"{verb} {item.digest or item.path}  {item.size} bytes")
    info(click.get_current_context(),
         f"{verb} {len(report.removed)} object(s), {report.bytes_freed} bytes; kept "
         f"{report.kept_referenced} referenced and {report.kept_recent} recent"
         + (f"; {len(report.missing)} referenced object(s) are missing from the store"
            if report.missing else ""))
