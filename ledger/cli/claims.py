"""claim add | list | retract, and evidence (EVIDENCE.json)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import common, open_ledger, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info, table, warn

if TYPE_CHECKING:
    from labledger.reconcile.claim_model import Claim


def _claim_json(claim: Claim) -> dict[str, Any]:
    return {"id": claim.id, "run": claim.run, "metric": claim.metric, "value": claim.value,
            "direction": claim.direction, "unit": claim.unit, "selector": claim.selector,
            "source_path": claim.source_path, "source_digest": claim.source_digest,
            "source_event": claim.source_event, "split": claim.split,
            "evaluated_split": claim.evaluated_split, "n": claim.n, "seeds": list(claim.seeds),
            "variance": None if claim.variance is None else {
                "type": claim.variance_type, "value": claim.variance},
            "statement": claim.statement, "aliases": list(claim.aliases),
            "paper_anchor": claim.paper_anchor, "implementation": claim.implementation,
            "event": claim.event_id, "declared_at": claim.declared_at,
            "superseded": list(claim.superseded)}


def _value(claim: Claim) -> str:
    return _exact(claim.value) + (f" {claim.unit}" if claim.unit else "")


def _exact(value: float) -> str:
    """The value for reading, never one that looks exact but is not: a whole number in full
    (123456789012, where ``.10g`` printed 1.23456789e+11, which reads as 123456789000), a value
    of a billion or more in full too (``.10g`` would drop its fraction); otherwise ten
    significant digits, as before (an aggregate's float noise, 31.519999999999996, reads 31.52).
    A claim line is what a user copies into the paper."""
    if value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    if abs(value) >= 1e9:
        return repr(value)
    return f"{value:.10g}"


@click.group()
def claim() -> None:
    """Claims: a number bound to the bytes of a stored result (add, list, retract).

    Example: labledger claim add C1 --run r1 --metric psnr --statement "PSNR on Kodak"
    """


@claim.command("add")
@click.argument("claim_id", metavar="ID")
@click.option("--run", required=True, metavar="R", help="The run whose result holds the value.")
@click.option("--metric", required=True, metavar="SELECTOR",
              help="What to read: a key (test.psnr) or JSON pointer (/test/psnr) in a JSON "
                   "file; an aggregate (mean(psnr); also median min max sum count first last) "
                   "or a cell (psnr[-1], psnr[epoch=100], value[metric=psnr,split=test]) in "
                   "a Parquet/CSV table; a statistic (psnr.mean, psnr.std) of a pandas "
                   "describe() table.")
@click.option("--from", "source", metavar="PATH",
              help="The result file's path in the run (default: the run's one metrics.json); "
                   "a unique ending is enough (kodak/results.parquet).")
@click.option("--split", metavar="S", help="The split the claim is about (test, val, ...); "
                                          "disclosed when the result was evaluated on another.")
@click.option("--direction", type=click.Choice(["higher", "lower"]),
              help="Which way is better; default from the metric registry, required for a "
                   "metric it does not know.")
@click.option("--statement", metavar="TEXT", help="The claim as the paper states it.")
@click.option("--alias", "aliases", multiple=True, metavar="TEXT",
              help="Another name documents use for the metric (repeatable).")
@click.option("--unit", metavar="U", help="Unit of the value (dB, %, ...).")
@click.option("--paper-anchor", metavar="TEXT", help="Where the paper states it (Table 2, ...).")
@click.option("--implementation", metavar="FILE:LINE", help="Where the code computes it.")
@common
def claim_add(claim_id: str, run: str, metric: str, source: str | None, split: str | None,
              direction: str | None, statement: str | None, aliases: tuple[str, ...],
              unit: str | None, paper_anchor: str | None, implementation: str | None) -> None:
    """Declare claim ID: the value SELECTOR reads from a stored result of run R.

    The value is read from the object's bytes in the store, never typed. Records
    claim.declared with the object's digest and prints its event id. Re-declaring an ID
    supersedes the earlier claim (history kept); an identical re-declaration records nothing.
    A missing run, file or metric, or an unknown metric without --direction: exit 2, nothing
    written.

    Example: labledger claim add C1 --run r1 --metric 'mean(psnr)' --from results.parquet --unit dB
    """
    from labledger.reconcile.claims import declare_claim

    ledger = open_ledger()
    done = declare_claim(ledger, claim_id, run=run, metric=metric, source=source, split=split,
                         direction=direction, statement=statement, aliases=aliases, unit=unit,
                         paper_anchor=paper_anchor, implementation=implementation)
    c = done.claim
    if state().json:
        emit_json({"claim": _claim_json(c), "recorded": not done.unchanged,
                   "superseded": done.superseded, "source_route": done.source.route,
                   "warnings": done.warnings})
    else:
        click.echo(c.event_id)
        what = "unchanged" if done.unchanged else (
            f"supersedes {done.superseded[:12]}" if done.superseded else "declared")
        info(click.get_current_context(),
             f"{c.id}: {c.metric} = {_value(c)} ({c.direction} is better) from "
             f"{run}:{c.source_path} [{c.source_digest[:19]}], {what}")
    for text in done.warnings:
        warn(f"warning: {text}")


@claim.command("list")
@click.option("--all", "all_", is_flag=True,
              help="Every declaration, with superseded and retracted ones.")
@common
def claim_list(all_: bool) -> None:
    """Show the current claims (latest declaration per id, retracted ones left out).

    Example: labledger claim list --json
    """
    from labledger.reconcile.claim_model import current_claims, load_claim_events, reading_order
    from labledger.reconcile.claims import claim_history

    events = load_claim_events(open_ledger())
    if all_:
        history = claim_history(events)
        if state().json:
            emit_json([{**_claim_json(h.claim), "status": h.status,
                        "retraction": h.retraction} for h in history])
            return
        click.echo(table(["ID", "STATUS", "RUN", "METRIC", "VALUE", "SOURCE", "EVENT"],
                         [[h.claim.id, h.status, h.claim.run, h.claim.metric, _value(h.claim),
                           f"{h.claim.source_path}:{h.claim.selector}", h.claim.event_id[:12]]
                          for h in history]))
        return
    claims = sorted(current_claims(events), key=lambda c: reading_order(c.id))
    if state().json:
        emit_json([_claim_json(c) for c in claims])
        return
    if not claims:
        info(click.get_current_context(), "no current claims (labledger claim add ...)")
        return
    click.echo(table(["ID", "RUN", "METRIC", "VALUE", "BETTER", "SPLIT", "SOURCE", "STATEMENT"],
                     [[c.id, c.run, c.metric, _value(c), c.direction,
                       c.split or c.evaluated_split, f"{c.source_path}:{c.selector}",
                       c.statement] for c in claims]))


@claim.command("retract")
@click.argument("claim_id", metavar="ID")
@click.option("--reason", required=True, metavar="TEXT", help="Why (kept in the ledger).")
@common
def claim_retract(claim_id: str, reason: str) -> None:
    """Retract current claim ID (records claim.retracted; its history stays).

    Example: labledger claim retract C1 --reason "evaluated on the wrong checkpoint"
    """
    from labledger.reconcile.claims import retract_claim

    record = retract_claim(open_ledger(), claim_id, reason)
    if state().json:
        emit_json(record.to_dict())
    else:
        click.echo(record.id)
        info(click.get_current_context(), f"retracted {claim_id}")


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory when it is below it (shorter messages)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _output_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``-o``: a file's path (exit 2, before anything is read, for one that cannot be)."""
    if value is None:
        return None
    if not value.strip():
        raise click.BadParameter("an empty path; name a file, e.g. -o EVIDENCE.json",
                                 ctx=ctx, param=param)
    if value.endswith(("/", os.sep)) or Path(value).name in ("", ".", ".."):
        raise click.BadParameter(f"{value!r} names a folder; name a file, e.g. "
                                 f"-o {value.rstrip('/' + os.sep) or '.'}/EVIDENCE.json",
                                 ctx=ctx, param=param)
    for folder in reversed(Path(value).parents):
        if folder.exists() and not folder.is_dir():
            raise click.BadParameter(f"{value!r}: {folder} is not a folder",
                                     ctx=ctx, param=param)
    return value


def _existing(target: Path) -> str | None:
    """The text of a file about to be replaced, None when it cannot be read (it is rewritten
    whole, so an unreadable or broken one only means no name to keep)."""
    from labledger.reconcile.errors import ReconcileError

    try:
        return _read_committed(target)
    except ReconcileError:
        return None


def _read_committed(target: Path) -> str | None:
    """The text of the EVIDENCE.json to check, None when there is none; exit 1 when it cannot
    be read."""
    from labledger.reconcile.errors import ReconcileError

    try:
        # Bytes that are not UTF-8 are a difference to report, not a crash.
        return target.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ReconcileError(f"cannot read {target}: {exc.strerror or exc}") from None


@click.command()
@click.option("-o", "--output", metavar="FILE", type=click.Path(dir_okay=False),
              callback=_output_path,
              help="Write EVIDENCE.json here (only when it changed; missing folders are "
                   "created) instead of to stdout.")
@click.option("--check", is_flag=True,
              help="Compare FILE (default: EVIDENCE.json at the project root) with the "
                   "projection; exit 3 when they differ. Writes no file (a corrupt stored object "
                   "it finds is quarantined and recorded, as by every reader).")
@click.option("--locations", is_flag=True,
              help="Add each claim's places in the configured [reconcile] documents (path, "
                   "line, column, the number shown, match or drift). A file written with them "
                   "is checked with them.")
@common
def evidence(output: str | None, check: bool, locations: bool) -> None:
    """Project every current claim into EVIDENCE.json, with computed disclosures.

    Disclosures come from the ledger: single seed or no variance, a run not pull-verified
    (local bytes re-hashed now), a launch from a dirty git tree or with no launch record, a
    stated split other than the evaluated one. The output is deterministic (sorted, no
    timestamps of its own), so it diffs cleanly in git. --locations adds where each claim
    is stated in the documents (lines move with edits: regenerate it when the prose moves).

    Example: labledger evidence -o EVIDENCE.json && labledger evidence --check
    """
    from labledger.reconcile.drift import evidence_document
    from labledger.reconcile.evidence import (
        EVIDENCE_NAME,
        differences,
        kept_name,
        render,
        wants_locations,
        write_evidence,
    )

    ledger = open_ledger()
    ctx = click.get_current_context()
    if check:
        target = (Path(output) if output is not None
                  else _shown(ledger.paths.project / EVIDENCE_NAME))
        committed = _read_committed(target)
        asked_by_file = not locations and wants_locations(committed)
        document = evidence_document(ledger, locations=locations or asked_by_file,
                                     written_with=str(target) if asked_by_file else None,
                                     name=kept_name(committed))
        found = differences(committed, document)
        if state().json:
            emit_json({"ok": not found, "path": str(target), "claims": len(document["claims"]),
                       "differences": found})
        elif found:
            for line in found:
                warn(f"{target}: {line}")
            again = " --locations" if locations or asked_by_file else ""
            warn(f"{target} differs from the ledger's projection; regenerate it with "
                 f"`labledger evidence{again} -o {target}`")
        else:
            info(ctx, f"{target} matches the ledger ({counted(len(document['claims']), 'claim')})")
        if found:
            ctx.exit(EXIT_PROBLEMS)
        return
    # -o keeps the project name the file already has (see `project_name`)
    kept = kept_name(_existing(Path(output))) if output is not None else None
    document = evidence_document(ledger, locations=locations, name=kept)
    text = render(document)
    if output is None:
        click.echo(text, nl=False)
        return
    written = write_evidence(Path(output), text)
    if state().json:
        emit_json({"path": output, "written": written, "claims": len(document["claims"])})
    else:
        info(ctx, f"{output}: {counted(len(document['claims']), 'claim')}"
                  + ("" if written else " (unchanged)"))
