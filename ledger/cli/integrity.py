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
    deep_report = _check_objects() if deep and report.ok else None
    corrupt_objects = list(deep_report.corrupt) if deep_report is not None else []
    if state().json:
        data = report.to_json()
        if deep_report is not None:
            data["objects"] = deep_report.to_json()
            data["ok"] = report.ok and not corrupt_objects
        emit_json(data)
    else:
        for finding in report.findings:
            click.echo(str(finding))
        for item in corrupt_objects:
            click.echo(f"corruption: object {item.digest}: content does not match its digest; "
                       f"moved to {item.quarantine_path}")
        verdict = "ok" if report.ok and not corrupt_objects else (
            f"{len(report.corrupt) + len(corrupt_objects)} problem(s)")
        objects = (f" and {deep_report.checked} objects ({deep_report.bytes} bytes)"
                   if deep_report is not None else "")
        info(ctx, f"checked {report.events} events in {report.segments} segments from "
                  f"{report.writers} writers{objects}: {verdict}")
        if deep and not report.ok:
            info(ctx, "objects not checked: repair or restore the ledger first")
    if not report.ok or corrupt_objects:
        ctx.exit(EXIT_PROBLEMS)


def _check_objects() -> Any:
    from labledger.ledger.artifacts import open_store, record_quarantine
    from labledger.ledger.cli._context import open_ledger
    from labledger.ledger.cli._output import progress_bar

    ledger = open_ledger()
    store = open_store(ledger)
    total = sum(p.stat().st_size for p in store.objects_dir.rglob("*") if p.is_file())
    with progress_bar(total, "verifying objects") as advance:
        result = store.verify_all(progress=advance)
    record_quarantine(ledger, result.corrupt)
    return result


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
