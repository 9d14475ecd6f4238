"""Commands that verify and maintain the ledger: check, compact."""

from __future__ import annotations

from typing import Any

import click

from labledger.ledger.cli._context import common, ledger_paths, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info


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
    deep_report, missing = _check_objects() if deep and report.ok else (None, [])
    corrupt_objects = list(deep_report.corrupt) if deep_report is not None else []
    # An object quarantined by this very check is one problem, not two: its corruption line
    # names the events that it leaves without their bytes.
    just_moved = {c.digest for c in corrupt_objects}
    named_by = {m.digest: m for m in missing if m.digest in just_moved}
    lost = [m for m in missing if m.is_problem and m.digest not in just_moved]
    elsewhere = [m for m in missing if not m.is_problem and m.digest not in just_moved]
    problems = len(report.corrupt) + len(corrupt_objects) + len(lost)
    if state().json:
        data = report.to_json()
        if deep_report is not None:
            data["objects"] = {**deep_report.to_json(),
                               "missing": [m.to_json() for m in missing]}
            data["ok"] = not problems
        emit_json(data)
    else:
        for finding in report.findings:
            click.echo(str(finding))
        for item in corrupt_objects:
            refs = named_by[item.digest].references if item.digest in named_by else []
            click.echo(f"corruption: object {item.digest}: content does not match its digest; "
                       f"moved to {item.quarantine_path}"
                       + (f"; named by {_names(refs)}" if refs else ""))
        for m in lost:
            click.echo(f"corruption: {_describe(m)}")
        if state().verbose:  # a box's own objects: expected after a pull, listed on request
            for m in elsewhere:
                click.echo(f"note: {_describe(m)}")
        if elsewhere:
            info(ctx, f"{len(elsewhere)} object(s) named only by other writers' events (merged "
                      "from a box) are not in this store; they live in that writer's store "
                      "(-v lists them)")
        verdict = "ok" if not problems else f"{problems} problem(s)"
        objects = (f" and {deep_report.checked} objects ({deep_report.bytes} bytes)"
                   if deep_report is not None else "")
        info(ctx, f"checked {report.events} events in {report.segments} segments from "
                  f"{report.writers} writers{objects}: {verdict}")
        if deep and not report.ok:
            info(ctx, "objects not checked: repair or restore the ledger first")
    if problems:
        ctx.exit(EXIT_PROBLEMS)


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


def _check_objects() -> tuple[Any, list[Any]]:
    from labledger.ledger.artifacts import missing_objects, open_store, record_quarantine
    from labledger.ledger.cli._context import open_ledger
    from labledger.ledger.cli._output import progress_bar

    ledger = open_ledger()
    store = open_store(ledger)
    total = sum(p.stat().st_size for p in store.objects_dir.rglob("*") if p.is_file())
    with progress_bar(total, "verifying objects") as advance:
        result = store.verify_all(progress=advance)
    record_quarantine(ledger, result.corrupt)
    # After the re-hash, so an object quarantined just now is found missing too: that is how
    # its corruption line learns which events it leaves without their bytes.
    return result, missing_objects(ledger, store)


@click.command()
@common
def compact() -> None:
    """Close open segments and seal every closed one to Parquet (chain preserved).

    Example: labledger compact
    """
    from labledger.ledger.seal import compact as seal_all

    sealed = seal_all(ledger_paths())
    if state().json:
        emit_json({"sealed": [str(p) for p in sealed]})
    else:
        for path in sealed:
            click.echo(str(path))
        info(click.get_current_context(), f"sealed {len(sealed)} segment(s)")
