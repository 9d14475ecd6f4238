"""`labledger profiles list | show | stale`: the platform facts labledger knows, and their age."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import common, state
from labledger.ledger.cli._errors import EXIT_PROBLEMS
from labledger.ledger.cli._output import emit_json, info, table


def user_profile_dir() -> Path | None:
    """`.labledger/profiles/` of the current ledger; None outside a ledger (shipped only)."""
    from labledger.ledger.errors import NotALedgerError
    from labledger.ledger.root import find_root
    from labledger.profiles import USER_DIRNAME

    try:
        return find_root(state().root).home / USER_DIRNAME
    except NotALedgerError:
        return None


def _today(text: str | None) -> date:
    if text is None:
        return datetime.now(UTC).date()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a date like 2026-12-02",
                                 param_hint="--today") from None


@click.group()
def profiles() -> None:
    """Platform profiles: what each provider bills, destroys and when, each fact stamped.

    Shipped profiles can be added to or replaced by .labledger/profiles/NAME.toml.

    Example: labledger profiles show autodl
    """


@profiles.command("list")
@common
def list_() -> None:
    """List the profiles: kind, origin, facts, oldest stamp, facts stale today.

    Example: labledger profiles list
    """
    from labledger.profiles import iter_facts, load_profiles, stale

    loaded = load_profiles(user_profile_dir())
    today = _today(None)
    rows = []
    for item in loaded.values():
        stamps = [fact.verified for _, fact in iter_facts(item.profile)]
        rows.append({
            "name": item.name, "title": item.profile.title, "kind": item.profile.kind.value,
            "origin": item.origin, "overrides_shipped": item.overrides_shipped,
            "file": item.file, "facts": len(stamps), "oldest": min(stamps),
            "stale": len(stale([item], today=today))})
    if state().json:
        emit_json(rows)
        return
    click.echo(table(
        ["NAME", "KIND", "ORIGIN", "FACTS", "OLDEST", "STALE", "TITLE"],
        [[r["name"], r["kind"], "user (replaces shipped)" if r["overrides_shipped"]
          else r["origin"], r["facts"], r["oldest"], r["stale"], r["title"]] for r in rows]))


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _fact_lines(path: str, fact: Any) -> str:
    """One fact, summarised on one line (the stamp and source follow on the next)."""
    from labledger.profiles import profile as p

    if isinstance(fact, p.KindFact):
        return f"kind: {fact.value}"
    if isinstance(fact, p.MeterStop):
        text = (f"meter-stop: {fact.verb}; {'IRREVERSIBLE' if fact.irreversible else 'reversible'}"
                f"; deletes: {', '.join(fact.deletes) or 'nothing'}")
        return text + (f"; keeps: {', '.join(fact.keeps)}" if fact.keeps else "")
    if isinstance(fact, p.Stop):
        billing = "stops compute billing" if fact.stops_compute_billing else \
            "does NOT stop compute billing"
        return f"stop: {fact.verb}; {billing}" + (
            f"; deletes: {', '.join(fact.deletes)}" if fact.deletes else "")
    if isinstance(fact, p.StorageTier):
        cap = f"; inode limit {fact.inode_limit}" if fact.inode_limit else ""
        return (f"{path}: {fact.name}{' at ' + fact.path if fact.path else ''}; survives stop: "
                f"{_yes(fact.survives_stop)}; survives destroy: {_yes(fact.survives_destroy)}{cap}")
    if isinstance(fact, p.DangerClock):
        return (f"{path}: {fact.name}: {fact.after_hours:g} h after it is {fact.starts_when}, "
                f"{fact.action}")
    if isinstance(fact, p.Preemption):
        if not fact.spot and fact.grace_seconds is None:
            return "preemption: no spot capacity"
        grace = "unknown" if fact.grace_seconds is None else f"{fact.grace_seconds:g} s"
        return (f"preemption: spot {'offered' if fact.spot else 'not offered'}; grace {grace}; "
                f"signal {fact.signal or 'not stated'}")
    if isinstance(fact, p.BillingTrap):
        return f"{path}: while {fact.when}: {fact.what}"
    if isinstance(fact, p.Teardown):
        confirmed = "confirmed" if fact.acknowledged_is_confirmed else "NOT confirmed"
        return f"teardown: an acknowledged delete is {confirmed}; confirm: {fact.confirm}"
    if isinstance(fact, p.ShellPattern):
        return f"{path}: {fact.effect}: {fact.pattern}"
    if isinstance(fact, p.DurablePath):
        return f"{path}: {fact.path + ': ' if fact.path else ''}{fact.advice}"
    return path


@profiles.command()
@click.argument("name")
@click.option("--toml", "as_toml", is_flag=True,
              help="Print the profile's TOML file (a start for your own); with --json, as the "
                   "document's \"toml\" field.")
@common
def show(name: str, as_toml: bool) -> None:
    """Show every fact of profile NAME with its stamp and source.

    Example: labledger profiles show runpod
    """
    from labledger.profiles import get_profile, iter_facts, snapshot

    item = get_profile(name, user_profile_dir())
    if state().json:  # one JSON document, with the TOML text in it when asked for
        data = {"name": item.name, "origin": item.origin, "file": item.file,
                "overrides_shipped": item.overrides_shipped, "profile": snapshot(item.profile)}
        emit_json({**data, "toml": item.text} if as_toml else data)
        return
    if as_toml:
        click.echo(item.text, nl=False)
        return
    click.echo(f"{item.name}: {item.profile.title} ({item.origin}: {item.file})")
    for path, fact in iter_facts(item.profile):
        click.echo(_fact_lines(path, fact))
        click.echo(f"    verified {fact.verified}; {fact.source}")
        if fact.note:
            click.echo(f"    note: {fact.note}")


@profiles.command("stale")
@click.option("--months", type=click.IntRange(min=0), default=6, show_default=True,
              help="A fact is stale when its stamp is more than this many months old.")
@click.option("--today", metavar="DATE", help="Judge as of this date (default: today, UTC).")
@common
def stale_(months: int, today: str | None) -> None:
    """List every fact whose own `verified` stamp is older than --months.

    Only the stamp counts: a date inside a source or note never does. Exits 3 when any fact is
    stale (so a CI job or a cron can notice), 0 when none is.

    Example: labledger profiles stale --months 6 --today 2026-12-02
    """
    from labledger.profiles import iter_facts, load_profiles, stale

    day = _today(today)
    loaded = load_profiles(user_profile_dir())
    found = stale(loaded.values(), months=months, today=day)
    total = sum(1 for item in loaded.values() for _ in iter_facts(item.profile))
    if state().json:
        emit_json({"today": day, "months": months, "facts": total,
                   "stale": [{"profile": s.profile, "fact": s.fact, "verified": s.verified,
                              "age_months": s.age_months, "source": s.source, "file": s.file,
                              "line": s.line} for s in found]})
    elif found:
        click.echo(table(
            ["PROFILE", "FACT", "VERIFIED", "AGE", "WHERE", "SOURCE"],
            [[s.profile, s.fact, s.verified, f"{s.age_months} mo",
              f"{Path(s.file).name}:{s.line}", s.source] for s in found]))
    ctx = click.get_current_context()
    if not state().json:
        one = len(found) == 1
        info(ctx, f"{len(found)} of {counted(total, 'fact')} {'is' if one else 'are'} stamped "
                  f"more than {counted(months, 'month')} before {day}; re-check "
                  f"{'it' if one else 'them'} against the provider before money or data depends "
                  f"on {'it' if one else 'them'}")
    if found:
        ctx.exit(EXIT_PROBLEMS)
