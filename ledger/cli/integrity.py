"""Commands that verify and maintain the ledger: check, compact."""

from __future__ import annotations

import click

from labledger.ledger.cli._context import common, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info


@click.command()
@common
def check() -> None:
    """Verify every record's hash, every chain link and every segment; report recovery.

    Exits 3 when anything is corrupt, naming segment and seq. Never modifies the ledger.

    Example: labledger check
    """
    from labledger.ledger.check import check_ledger
    from labledger.ledger.root import find_root

    report = check_ledger(find_root(state().root))
    ctx = click.get_current_context()
    if state().json:
        emit_json(report.to_json())
    else:
        for finding in report.findings:
            click.echo(str(finding))
        verdict = "ok" if report.ok else f"{len(report.corrupt)} problem(s)"
        info(ctx, f"checked {report.events} events in {report.segments} segments from "
                  f"{report.writers} writers: {verdict}")
    if not report.ok:
        ctx.exit(EXIT_PROBLEMS)


@click.command()
@common
def compact() -> None:
    """Close open segments and seal every closed one to Parquet (chain preserved).

    Example: labledger compact
    """
    from labledger.ledger.root import find_root
    from labledger.ledger.seal import compact as seal_all

    sealed = seal_all(find_root(state().root))
    if state().json:
        emit_json({"sealed": [str(p) for p in sealed]})
    else:
        for path in sealed:
            click.echo(str(path))
        info(click.get_current_context(), f"sealed {len(sealed)} segment(s)")
