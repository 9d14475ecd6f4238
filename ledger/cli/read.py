"""Commands that read the ledger through DuckDB: log, sql."""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import re
from typing import Any

import click

from labledger.ledger.cli._context import common, ledger_paths, state
from labledger.ledger.cli._output import cell, dumps, emit_json, table, warn


def _paths() -> Any:
    return ledger_paths()


# C0 controls (a newline included), DEL and C1 controls: in a table or a log line they would
# break the row apart or reach the terminal as escape sequences (a body's text is free-form).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _visible(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\x1b``)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _csv_value(value: Any) -> str:
    """A value as CSV text, exact: a float keeps every digit (``repr``: the table's 6
    significant digits would lose data), a time keeps its microseconds (written like the
    table's, in UTC, with a fraction only when there is one). Text is written as it is (CSV
    quotes it); JSON as its text, as in the table."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, _dt.datetime) and value.tzinfo is not None:
        utc = value.astimezone(_dt.UTC)
        return utc.strftime("%Y-%m-%d %H:%M:%S" + (".%f" if utc.microsecond else ""))
    return cell(value)


def _warn_damage(message: str) -> None:
    """Unreadable records are reported, never dropped silently; the read itself goes on (see
    ledger/query.py), also with --json, where warnings stay on stderr."""
    warn(f"labledger: warning: {message}")


@click.command()
@click.option("--run", metavar="RUN", help="Only this run's events.")
@click.option("--kind", metavar="KIND", help="Only this kind (a trailing * matches a prefix).")
@click.option("--instance", metavar="INSTANCE", help="Only this instance's events.")
@click.option("--since", metavar="TS", help="Only events at or after this time (RFC 3339).")
@click.option("--limit", type=click.IntRange(min=1), metavar="N", help="Only the last N events.")
@common
def log(run: str | None, kind: str | None, instance: str | None, since: str | None,
        limit: int | None) -> None:
    """Show events oldest first (filtered); --json prints one JSON object per line.

    When nothing matches, a --kind, --run or --instance that no event names is warned about on
    stderr, with the ones that exist (a typo would otherwise read as "nothing happened").

    Example: labledger log --run r1 --kind 'checkpoint.*'
    """
    from labledger.ledger import events as ev
    from labledger.ledger.query import read_retrying

    where, params = [], []
    if run is not None:
        where.append("run = ?")
        params.append(run)
    if instance is not None:
        where.append("instance = ?")
        params.append(instance)
    if kind is not None:
        if kind.endswith("*"):
            where.append("starts_with(kind, ?)")
            params.append(kind[:-1])
        else:
            where.append("kind = ?")
            params.append(kind)
    if since is not None:
        try:
            params.append(ev.parse_ts(since))
        except ValueError as exc:  # a read: "nothing was written" would puzzle
            raise click.BadParameter(str(exc), param_hint="--since") from None
        where.append("ts >= CAST(? AS TIMESTAMPTZ)")
    sql = ("SELECT id, seq, ts, writer, actor, kind, run, instance, recorded, body FROM events"
           + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY ts DESC, writer DESC, seq DESC"
           + (f" LIMIT {int(limit)}" if limit else ""))
    import duckdb

    def read(con: duckdb.DuckDBPyConnection) -> tuple[list[Any], list[str]]:
        rows = con.execute(sql, params).fetchall()
        if rows:  # a typo in a run id would otherwise read as "nothing happened"
            return rows, []
        return rows, [_unknown_name(con, column, value)
                      for column, value in (("run", run), ("instance", instance))
                      if value is not None and _never_named(con, column, value)]

    # started again when a running `compact` seals a segment away under the read
    rows, unknown = read_retrying(_paths(), read, on_damage=_warn_damage,
                                  what="cannot read the events", hint="; run `labledger check`")
    for line in unknown:
        warn(f"labledger: warning: {line}")
    rows.reverse()
    if not rows and kind is not None and not _known_kind(kind, ev.KINDS):
        # a typo (`checkpoint.save`) would otherwise read as "nothing happened"
        verb = "matches" if kind.endswith("*") else "is"
        warn(f"labledger: warning: no event kind {verb} {kind!r}; the kinds are "
             f"{', '.join(sorted(ev.KINDS))} (a trailing * matches a prefix: 'checkpoint.*')")
    names = ["id", "seq", "ts", "writer", "actor", "kind", "run", "instance", "recorded", "body"]
    if state().json:
        for row in rows:
            item = dict(zip(names, row, strict=True))
            # the events view gives every readable record a JSON body ({} when it has none)
            item["body"] = json.loads(item["body"]) if item["body"] is not None else {}
            click.echo(dumps(item))
        return
    for row in rows:
        item = dict(zip(names, row, strict=True))
        scope = " ".join(f"{k}={item[k]}" for k in ("run", "instance") if item[k])
        click.echo(_visible(f"{cell(item['ts'])}  {item['kind']:<20} {scope:<24} "
                            f"{item['id'][:12]}  {item['body'] or '{}'}"))


def _never_named(con: Any, column: str, value: str) -> bool:
    """Whether no event of the ledger names ``value`` as its ``column`` (run or instance)."""
    got = con.execute(f"SELECT count(*) FROM events WHERE {column} = ?", [value]).fetchone()
    return not got or got[0] == 0


def _unknown_name(con: Any, column: str, value: str) -> str:
    """The warning for a run or instance no event names, listing the ones that exist."""
    names = [r[0] for r in con.execute(
        f"SELECT DISTINCT {column} FROM events WHERE {column} IS NOT NULL ORDER BY 1 LIMIT 21"
    ).fetchall()]
    shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "") if names else "none"
    return f"no event names {column} {value!r}; the {column}s in the ledger: {shown}"


def _known_kind(pattern: str, kinds: Any) -> bool:
    if pattern.endswith("*"):
        return any(k.startswith(pattern[:-1]) for k in kinds)
    return pattern in kinds


@click.command()
@click.argument("query")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default=None,
              help="Output format (default: table; json with --json).")
@common
def sql(query: str, fmt: str | None) -> None:
    """Run one read-only SQL QUERY over the ledger's views (events, runs, ...).

    Statements that write, attach, copy or read files outside the ledger, several statements,
    and unknown views or columns are refused (exit 2). JSON output writes JSON values as JSON
    and NaN/Infinity as null.

    Example: labledger sql "select run, state, checkpoints from runs order by first_ts"
    """
    from labledger.ledger.query import execute_query

    result = execute_query(_paths(), query, on_damage=_warn_damage)
    fmt = fmt or ("json" if state().json else "table")
    if fmt == "json":
        emit_json(result.records())
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows([[_csv_value(v) for v in row] for row in result.rows])
        # color=True: click would strip what looks like an ANSI escape from text it writes to
        # a pipe or file, silently changing the data
        click.echo(buffer.getvalue(), nl=False, color=True)
    else:
        click.echo(table([_visible(c) for c in result.columns],
                         [[_visible(cell(v)) for v in row] for row in result.rows]))
