"""The read side: DuckDB in-process over every segment, read-only by construction.

Views are defined in ``ledger/sql/*.sql``, one per file, so a user can read exactly how each state
is derived; they build on ``raw_events``, the union of all JSONL and Parquet segments.

The guard is DuckDB's own sandbox, not string matching: the connection may read only the ledger's
segment folder (``allowed_directories``), all other file access and extension loading is off
(``enable_external_access=false``) and the configuration is locked. Because an allowed directory is
writable too, `run_query` also accepts only statements whose *parsed* type is SELECT or EXPLAIN,
so no query can copy a file into the ledger.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import duckdb

from labledger.ledger.errors import LedgerError, QueryRefusedError
from labledger.ledger.root import LedgerPaths
from labledger.ledger.segment import list_segments

COLUMNS = {
    "id": "VARCHAR", "v": "INTEGER", "seq": "BIGINT", "prev": "VARCHAR", "ts": "VARCHAR",
    "writer": "VARCHAR", "actor": "VARCHAR", "kind": "VARCHAR", "run": "VARCHAR",
    "instance": "VARCHAR", "recorded": "VARCHAR", "body": "VARCHAR",
}
# Views in dependency order (runs counts from checkpoints); later issues add files here.
VIEWS = ["events", "checkpoints", "runs", "artifacts", "instances", "pulls", "verifications",
         "pull_verified", "claims"]
READ_ONLY_TYPES = {"SELECT", "EXPLAIN"}


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _raw_events_sql(paths: LedgerPaths) -> str:
    jsonl: list[str] = []
    parquet: list[str] = []
    root = paths.segments
    writer_dirs = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for writer_dir in writer_dirs:
        for segment in list_segments(writer_dir):
            if segment.stat().st_size == 0:
                continue
            (parquet if segment.suffix == ".parquet" else jsonl).append(str(segment))
    names = ", ".join(COLUMNS)
    parts = []
    if jsonl:
        pairs = ", ".join(f"{_sql_literal(k)}: {_sql_literal(v)}" for k, v in COLUMNS.items())
        cols = "{" + pairs + "}"
        files = "[" + ", ".join(_sql_literal(f) for f in jsonl) + "]"
        # ignore_errors: a torn final line (never acknowledged) reads as an all-NULL row, dropped
        # by the events view; integrity is `labledger check`'s job, not the query's.
        parts.append(f"SELECT {names} FROM read_json({files}, columns={cols}, "
                     "format='newline_delimited', ignore_errors=true, maximum_object_size=1048576)")
    if parquet:
        files = "[" + ", ".join(_sql_literal(f) for f in parquet) + "]"
        parts.append(f"SELECT {names} FROM read_parquet({files})")
    if not parts:
        empty = ", ".join(f"CAST(NULL AS {t}) AS {k}" for k, t in COLUMNS.items())
        parts.append(f"SELECT {empty} WHERE false")
    return "CREATE OR REPLACE VIEW raw_events AS " + " UNION ALL ".join(parts)


def view_sql(name: str) -> str:
    return resources.files("labledger.ledger.sql").joinpath(f"{name}.sql").read_text("utf-8")


def connect(paths: LedgerPaths) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the ledger's views, sandboxed to the ledger."""
    con = duckdb.connect(":memory:", config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    })
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET allowed_directories = [{_sql_literal(str(paths.segments) + '/')}]")
    con.execute("SET enable_external_access = false")
    con.execute(_raw_events_sql(paths))
    for name in VIEWS:
        con.execute(view_sql(name))
    con.execute("SET lock_configuration = true")
    return con


def check_read_only(query: str) -> None:
    """Refuse anything but SELECT/EXPLAIN statements, judged by DuckDB's own parser."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise QueryRefusedError(f"it does not parse ({str(exc).splitlines()[0]})") from None
    if not statements:
        raise QueryRefusedError("it is empty")
    for statement in statements:
        kind = str(statement.type).rsplit(".", 1)[-1]
        if kind not in READ_ONLY_TYPES:
            raise QueryRefusedError(f"it contains a {kind} statement")


def run_query(paths: LedgerPaths, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run a read-only query; returns (column names, rows) of its last statement."""
    check_read_only(query)
    con = connect(paths)
    try:
        result = con.execute(query)
        columns = [d[0] for d in result.description or []]
        return columns, result.fetchall()
    except duckdb.PermissionException as exc:
        raise QueryRefusedError(str(exc).split("\n")[0]) from None
    except duckdb.Error as exc:
        raise LedgerError(f"query failed: {str(exc).strip()}") from None
    finally:
        con.close()
