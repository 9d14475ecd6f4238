"""reconcile (documents against claims) and hooks install (a git pre-commit hook)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import NonEmptyPath, common, open_ledger, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info, warn

if TYPE_CHECKING:
    from labledger.reconcile.findings import Report


# How the summary counts each finding type: "drift" is a mass noun and "ambiguous" an adjective
# ("2 drift, 1 ambiguous", as the docs show them); the others are nouns that take a plural.
_FINDING_NOUNS = {"marker": "bad marker", "unit": "wrong unit", "unknown_claim": "unknown claim"}


def _finding_count(kind: str, n: int) -> str:
    noun = _FINDING_NOUNS.get(kind)
    return counted(n, noun) if noun else f"{n} {kind.replace('_', ' ')}"


def _summary(report: Report, disclose: bool) -> str:
    counts = report.counts()
    included = f" ({report.included} included by the files given)" \
        if report.included else ""
    head = (f"reconcile: {counted(report.documents, 'document')}{included}, "
            f"{counted(report.checked, 'number')} checked against "
            f"{counted(report.claims, 'claim')}")
    parts = [_finding_count(kind, n) for kind, n in sorted(counts.items())]
    if report.evidence is not None and report.evidence["differences"]:
        parts.append(f"{report.evidence['path']} differs from the ledger in "
                     f"{counted(len(report.evidence['differences']), 'place')}")
    if not parts:
        return head + ": no drift"
    return head + ": " + ", ".join(parts) + (" (disclosed with --disclose: exit 0)"
                                             if disclose else "")


@click.command("reconcile")
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=NonEmptyPath())
@click.option("--staged", is_flag=True,
              help="Reconcile what git would commit (the configured documents as the index "
                   "holds them, else the staged ones, and EVIDENCE.json when staged or "
                   "present): the pre-commit hook's mode. Takes no PATH.")
@click.option("--disclose", is_flag=True,
              help="Report every finding but exit 0: drift is disclosed, not failed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Judge in N processes (default: one per core, and one per 512 KB of "
                   "documents); 1 keeps it to this process. The report is the same.")
@click.option("--no-cache", is_flag=True,
              help="Judge every document afresh instead of reusing what was judged before "
                   "for the same bytes, claims and code (.labledger/cache/reconcile/). The "
                   "report is the same.")
@common
def reconcile(paths: tuple[str, ...], staged: bool, disclose: bool, jobs: int | None,
              no_cache: bool) -> None:
    """Check every claimed number in documents against the ledger's claims.

    Reads Markdown (Quarto and R Markdown too), LaTeX, Typst, HTML pages, reST, text,
    CSV/TSV and notebooks (markdown cells and outputs), and the files a document includes
    (LaTeX's \\input and the CSV files it typesets; Typst, Quarto, knitr, reST, MyST, MkDocs
    snippets, Jekyll). With no PATH, reads the [reconcile] documents globs of
    .labledger/config.toml. Numbers are
    tied to claims by markers (<!-- claim:C1 -->31.42, \\claim{C1}{31.42}) or by a claim's
    aliases and metric name in the same sentence or table row, and compared at the precision
    shown (31.4 matches 31.42). Prints file:line:col: findings; exits 3 on drift, ambiguity or
    a bad marker (0 with --disclose), 2 when a document is missing or unreadable.

    Example: labledger reconcile paper/ README.md --json
    """
    import gc

    from labledger.reconcile.drift import reconcile_project, reconcile_staged

    if staged and paths:
        raise click.UsageError("--staged reconciles what git has staged; it takes no PATH")
    ledger = open_ledger()
    cwd = Path.cwd()
    # Many small objects, no cycles, a short-lived process: the collector would only rescan
    # them (as `ingest` does, it stays off for the judging only).
    gc.disable()
    try:
        report = (reconcile_staged(ledger, cwd, jobs, use_cache=not no_cache) if staged
                  else reconcile_project(ledger, paths, cwd, jobs, use_cache=not no_cache))
    finally:
        gc.enable()
    ctx = click.get_current_context()
    if state().json:
        emit_json({**report.to_json(), "disclosed": disclose})
    else:
        for finding in report.findings:
            click.echo(finding.render())
        if report.evidence is not None:
            for line in report.evidence["differences"]:
                click.echo(f"{report.evidence['path']}: differs from the ledger: {line}")
        for note in report.notes:
            warn(f"reconcile: {note}")
        if report.ok:
            info(ctx, _summary(report, disclose))
        else:
            warn(_summary(report, disclose))
            if staged and not disclose:
                if report.findings:
                    warn("commit blocked: fix the numbers (or the claims), or bind them with a "
                         "marker; see docs/reconcile.md")
                if report.evidence is not None and report.evidence["differences"]:
                    again = " --locations" if report.evidence.get("locations") else ""
                    warn(f"commit blocked: regenerate it with `labledger evidence{again} -o "
                         f"{report.evidence['path']}` and stage it")
    if not report.ok and not disclose:
        ctx.exit(EXIT_PROBLEMS)


@click.group("hooks")
def hooks() -> None:
    """Git hooks that keep documents in step with the ledger.

    Example: labledger hooks install
    """


@hooks.command("install")
@click.option("--force", is_flag=True,
              help="Replace a pre-commit hook labledger did not write (kept as "
                   "pre-commit.labledger-backup).")
@common
def hooks_install(force: bool) -> None:
    """Write a git pre-commit hook that runs `labledger reconcile --staged`.

    For projects without the pre-commit framework (with it, add the `labledger-reconcile` hook
    of .pre-commit-hooks.yaml instead). A commit whose staged documents drift from the ledger
    is refused with the report.

    Example: labledger hooks install
    """
    from labledger.reconcile.git_hooks import install_pre_commit

    exe = Path(sys.argv[0]).absolute() if sys.argv and sys.argv[0] else None
    preferred = str(exe) if exe is not None and exe.name == "labledger" and exe.exists() else None
    result = install_pre_commit(Path.cwd(), preferred, force=force)
    if state().json:
        emit_json(result.to_json())
        return
    click.echo(str(result.path))
    ctx = click.get_current_context()
    if result.backup is not None:
        warn(f"the previous pre-commit hook was moved to {result.backup}")
    info(ctx, ("updated" if result.updated else "installed") +
         " the labledger pre-commit hook: commits that drift from the ledger are refused")
