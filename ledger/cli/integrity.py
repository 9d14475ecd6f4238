"""Commands that verify and maintain the ledger: check, compact."""

from __future__ import annotations

import errno
from typing import Any

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import common, ledger_paths, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info, warn
from labledger.ledger.errors import LedgerError


@click.command()
@click.option("--deep", is_flag=True,
              help="Also re-hash every object in the content store; corrupt objects are moved "
                   "to .labledger/cas/quarantine/ and recorded.")
@common
def check(deep: bool) -> None:
    """Verify every record's hash, every chain link and every segment; report recovery.

    Exits 3 when anything is corrupt, naming segment and seq (or object digest). Never
    rewrites the ledger; with --deep a corrupt object is moved to quarantine (never deleted)
    and an `object.quarantined` event records it.

    Example: labledger check --deep
    """
    from labledger.ledger.check import check_ledger

    paths = ledger_paths()
    report = check_ledger(paths)
    ctx = click.get_current_context()
    objects = _check_objects() if deep and report.ok else None
    problems = len(report.corrupt) + (objects.problems if objects is not None else 0)
    if state().json:
        data = report.to_json()
        if objects is not None:
            data["objects"] = objects.to_json()
            data["ok"] = not problems
        emit_json(data)
    else:
        for finding in report.findings:
            click.echo(str(finding))
        if objects is not None:
            _render_objects(ctx, objects)
        verdict = "ok" if not problems else counted(problems, "problem")
        checked = (f" and {counted(objects.verified.checked, 'object')} "
                   f"({counted(objects.verified.bytes, 'byte')})" if objects is not None else "")
        info(ctx, f"checked {counted(report.events, 'event')} in "
                  f"{counted(report.segments, 'segment')} from "
                  f"{counted(report.writers, 'writer')}{checked}: {verdict}")
        if deep and not report.ok:
            info(ctx, "objects not checked: repair or restore the ledger first")
    if problems:
        ctx.exit(EXIT_PROBLEMS)


def _render_objects(ctx: click.Context, objects: Any) -> None:
    named_by = objects.named_by
    for item in objects.corrupt:
        refs = named_by[item.digest].references if item.digest in named_by else []
        if item.quarantine_path is not None:
            what = f"content does not match its digest; moved to {item.quarantine_path}"
        elif item.actual_digest is None:
            what = (f"content could not be read; left in place at {item.path} (fix its "
                    "permissions, then check again)")
        else:
            what = "content does not match its digest; another process moved it meanwhile"
        click.echo(f"corruption: object {item.digest}: {what}"
                   + (f"; named by {_names(refs)}" if refs else ""))
    for m in objects.lost:
        click.echo(f"corruption: {_describe(m)}")
    for folder in objects.verified.unreadable:
        click.echo(f"corruption: folder {folder} of the store cannot be listed (permission "
                   "denied): the objects in it were not checked; fix its permissions, then "
                   "check again")
    stray = objects.verified.stray
    if state().verbose:
        for path in stray:
            click.echo(f"note: {path} is not an object (its name is not a digest); left alone")
    if stray:
        one = len(stray) == 1
        info(ctx, f"{counted(len(stray), 'file')} under cas/objects/ "
                  + ("is not an object (its name is not a digest) and was" if one else
                     "are not objects (their names are not digests) and were")
                  + " left alone (-v lists them)")
    elsewhere = objects.elsewhere
    if state().verbose:  # a box's own objects: expected after a pull, listed on request
        for m in elsewhere:
            click.echo(f"note: {_describe(m)}")
    if elsewhere:
        one = len(elsewhere) == 1
        info(ctx, f"{counted(len(elsewhere), 'object')} named only by other writers' events "
                  f"(merged from a box) {'is' if one else 'are'} not in this store; "
                  f"{'it lives' if one else 'they live'} in that writer's store (-v lists "
                  f"{'it' if one else 'them'})")


def _names(refs: list[Any]) -> str:
    shown = ", ".join(str(r) for r in refs[:3])
    return shown + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")


def _describe(m: Any) -> str:
    """One line for a missing object: what names it, and what happened to it."""
    shown = _names(m.references)
    named = (f"a file of tree {m.tree}, named by {shown}" if m.tree is not None
             else f"named by {shown}")
    if m.quarantined:
        where = (f"it was quarantined ({m.quarantined[-1]}); store the original again with "
                 "`labledger cas put` if you still have it")
    else:
        where = "it is missing from the store"
    return f"object {m.digest} ({named}): {where}"


def _check_objects() -> Any:
    from labledger.ledger.cli._context import open_ledger
    from labledger.ledger.cli._output import progress_bar
    from labledger.ledger.deep_check import check_objects, stored_bytes

    ledger = open_ledger()
    with progress_bar(stored_bytes(ledger), "verifying objects") as advance:
        return check_objects(ledger, progress=advance)


@click.command()
@common
def compact() -> None:
    """Close open segments and seal every closed one to Parquet (chain preserved).

    Example: labledger compact
    """
    # An open segment whose last append was torn by a crash (or that does not verify) stays
    # open, with a warning (docs/ledger.md "Sealing"); its writer's closed segments are sealed.
    from labledger.ledger.check import Finding
    from labledger.ledger.seal import compact as seal_all

    left_open: list[Finding] = []
    try:
        sealed = seal_all(ledger_paths(), left_open=left_open)
    except PermissionError as exc:
        raise LedgerError(f"cannot seal the segments: {exc.strerror} ({exc.filename}); fix "
                          "the permissions, or run labledger as the user who owns the "
                          "ledger") from None
    except OSError as exc:
        if exc.errno != errno.EROFS:
            raise
        raise LedgerError(f"cannot seal the segments: {exc.strerror} ({exc.filename}): the "
                          "ledger is on a read-only filesystem; nothing was changed") from None
    ctx = click.get_current_context()
    if state().json:
        data: dict[str, Any] = {"sealed": [str(p) for p in sealed]}
        if left_open:  # only then, as `check --json` has "objects" only with --deep
            data["left_open"] = [{"segment": f.segment, "severity": f.severity,
                                  "problem": f.problem, "seq": f.seq, "offset": f.offset}
                                 for f in left_open]
        emit_json(data)
    else:
        for path in sealed:
            click.echo(str(path))
        info(ctx, f"sealed {counted(len(sealed), 'segment')}")
    for finding in left_open:
        if finding.severity == "torn":
            why = "a closed segment is never cut again; compact again after the next append"
        else:
            why = "it does not verify; run `labledger check` for a full report"
        where = "" if finding.offset is None else f" (byte {finding.offset})"
        warn(f"labledger: warning: left {finding.segment} open: {finding.problem}{where}. "
             f"It stays open: {why}")
    if any(f.severity == "corruption" for f in left_open):
        ctx.exit(EXIT_PROBLEMS)


