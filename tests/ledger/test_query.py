"""The read side: the `events` and `runs` views, and the read-only SQL guard.

The guard is checked twice: through `run_query` (the error) and through `labledger sql` (exit 2,
nothing written anywhere in the project folder).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from labledger.ledger.errors import LedgerError, QueryRefusedError
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import check_read_only, connect, run_query
from tests.conftest import cli_call as cli

DIGEST = "blake3:" + "cd" * 32
Snapshot = Callable[[Path], dict[str, bytes]]


def at(hour: int, minute: int = 0) -> str:
    return f"2024-05-01T{hour:02d}:{minute:02d}:00Z"


def utc(hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2024, 5, 1, hour, minute, tzinfo=dt.UTC)


def rows(led: Ledger, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = led.query()
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


# --- events --------------------------------------------------------------------------------------
def test_empty_ledger_queries_work(ledger: Ledger) -> None:
    assert rows(ledger, "select count(*) from events") == [(0,)]
    assert rows(ledger, "select * from runs") == []
    columns, result = run_query(ledger.paths, "select * from events")
    assert columns == ["id", "v", "seq", "prev", "ts", "writer", "actor", "kind", "run",
                       "instance", "recorded", "body"]
    assert result == []


def test_events_view_has_typed_envelope_and_json_body(ledger: Ledger) -> None:
    first = ledger.append("note", text="hello ✓", run="r1", instance="i1")
    late = ledger.append("checkpoint.saved", run="r1", path="best.pth", digest=DIGEST, size=7,
                         metrics={"psnr": 31.52}, at=at(9, 30))
    (row,) = rows(ledger, "select id, v, seq, prev, writer, actor, kind, run, instance, "
                          "recorded, body->>'text' from events where seq = 0")
    assert row == (first.id, 1, 0, None, "test-writer", "tester@test", "note", "r1", "i1", None,
                   "hello ✓")
    (row,) = rows(ledger, "select prev, ts, recorded is not null, "
                          "CAST(body->'metrics'->>'psnr' AS DOUBLE), body->>'digest' "
                          "from events where seq = 1")
    assert row == (first.id, utc(9, 30), True, 31.52, DIGEST)
    types = dict(rows(ledger, "select column_name, column_type from "
                              "(describe select * from events)"))
    assert types["ts"] == types["recorded"] == "TIMESTAMP WITH TIME ZONE"
    assert types["seq"] == "BIGINT"
    assert types["body"] == "JSON"
    assert late.recorded is not None


def test_events_from_several_writers_are_one_view(ledger: Ledger, project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ledger.append("note", text="from a", run="r1")
    monkeypatch.setenv("LABLEDGER_WRITER", "box-b")
    with Ledger.open(project) as other:
        other.append("note", text="from b", run="r1")
    assert rows(ledger, "select writer, seq, body->>'text' from events order by writer") == [
        ("box-b", 0, "from b"), ("test-writer", 0, "from a")]


# --- runs ----------------------------------------------------------------------------------------
@pytest.fixture
def history(ledger: Ledger) -> Ledger:
    """Runs with known lifecycles; times are backfilled so order is by time, not by append."""
    a = ledger.append
    # ok: launched, two checkpoints, exit 0
    a("run.launched", run="ok", instance="i1", host="gpu-a", command=["python", "t.py"],
      at=at(1))
    a("checkpoint.saved", run="ok", path="e1.pth", digest=DIGEST, size=1, at=at(2))
    a("checkpoint.saved", run="ok", path="e2.pth", digest=DIGEST, size=1, at=at(3))
    a("run.exited", run="ok", exit_code=0, at=at(4))
    # relaunched after a failure and still running
    a("run.launched", run="again", host="gpu-b", at=at(1))
    a("run.exited", run="again", exit_code=1, at=at(2))
    a("run.launched", run="again", host="gpu-c", instance="i2", at=at(3))
    a("checkpoint.saved", run="again", path="e1.pth", digest=DIGEST, size=1, at=at(5))
    # killed by a signal
    a("run.launched", run="killed", at=at(1))
    a("run.exited", run="killed", signal=9, at=at(6))
    # killed, relaunched, then succeeded: the old signal must not stick
    a("run.launched", run="recovered", at=at(1))
    a("run.exited", run="recovered", signal=15, at=at(2))
    a("run.launched", run="recovered", at=at(3))
    a("run.exited", run="recovered", exit_code=0, at=at(4))
    # failed with a code; the exit was written before the launch but happened after it
    a("run.exited", run="late", exit_code=137, at=at(7))
    a("run.launched", run="late", host="gpu-d", at=at(1))
    # never launched through labledger
    a("note", run="notes-only", text="scratch", at=at(8))
    a("artifact.recorded", run="notes-only", instance="i3", path="out.csv", digest=DIGEST,
      size=2, at=at(9))
    # events without a run are not a run
    a("instance.rented", instance="i1", profile="runpod", at=at(0))
    return ledger


def runs_by_id(led: Ledger) -> dict[str, dict[str, Any]]:
    columns, result = run_query(led.paths, "select * from runs")
    return {row[0]: dict(zip(columns, row, strict=True)) for row in result}


def test_runs_view_columns(history: Ledger) -> None:
    columns, _ = run_query(history.paths, "select * from runs limit 0")
    # the first ten columns are the original contract; the rest were added with run capture
    assert columns == ["run", "state", "first_ts", "last_ts", "exit_code", "exit_signal",
                       "checkpoints", "events", "host", "instance", "state_ts",
                       "last_heartbeat_ts", "heartbeat_interval_s", "stalled_after_s",
                       "checkpoints_stored", "checkpoints_verified"]


def test_runs_state_is_derived_from_launch_and_exit_history(history: Ledger) -> None:
    runs = runs_by_id(history)
    assert set(runs) == {"ok", "again", "killed", "recovered", "late", "notes-only"}
    summary = {run: (r["state"], r["exit_code"], r["exit_signal"]) for run, r in runs.items()}
    assert summary == {
        "ok": ("exited-ok", 0, None),
        "again": ("launched", None, None),
        "killed": ("killed", None, 9),
        "recovered": ("exited-ok", 0, None),
        "late": ("failed", 137, None),
        "notes-only": ("recorded", None, None),
    }


def test_runs_counts_times_host_and_instance(history: Ledger) -> None:
    runs = runs_by_id(history)
    ok = runs["ok"]
    assert (ok["first_ts"], ok["last_ts"]) == (utc(1), utc(4))
    assert (ok["checkpoints"], ok["events"], ok["host"], ok["instance"]) == (2, 4, "gpu-a", "i1")
    again = runs["again"]
    assert (again["checkpoints"], again["events"]) == (1, 4)
    assert (again["host"], again["instance"]) == ("gpu-c", "i2")  # from the latest launch
    assert (runs["late"]["first_ts"], runs["late"]["last_ts"]) == (utc(1), utc(7))
    assert runs["late"]["host"] == "gpu-d"
    # no launch host: the writer that last wrote about the run stands in
    assert runs["killed"]["host"] == "test-writer"
    assert runs["killed"]["instance"] is None
    notes = runs["notes-only"]
    assert (notes["checkpoints"], notes["events"], notes["instance"]) == (0, 2, "i3")


def test_runs_state_follows_new_events(history: Ledger) -> None:
    history.append("run.exited", run="again", exit_code=0, at=at(10))
    history.append("run.launched", run="ok", at=at(11))
    runs = runs_by_id(history)
    assert runs["again"]["state"] == "exited-ok"
    assert (runs["ok"]["state"], runs["ok"]["exit_code"]) == ("launched", None)


def test_runs_survive_exit_codes_beyond_32_bits(ledger: Ledger) -> None:
    ledger.append("run.launched", run="odd", at=at(1))
    ledger.append("run.exited", run="odd", exit_code=2**40, at=at(2))
    ledger.append("run.launched", run="fine", at=at(1))
    ledger.append("run.exited", run="fine", exit_code=0, at=at(2))
    runs = runs_by_id(ledger)
    assert (runs["odd"]["state"], runs["odd"]["exit_code"]) == ("failed", 2**40)
    assert runs["fine"]["state"] == "exited-ok"


def test_runs_ties_in_time_break_by_seq(ledger: Ledger) -> None:
    ledger.append("run.launched", run="tie", at=at(1))
    ledger.append("run.exited", run="tie", exit_code=2, at=at(1))
    assert runs_by_id(ledger)["tie"]["state"] == "failed"


# --- the read-only guard -------------------------------------------------------------------------
def refused_queries(project: Path) -> list[str]:
    home = project / ".labledger"
    return [
        f"COPY (select * from events) TO '{home}/ledger/test-writer/999999999999.jsonl'",
        f"COPY (select 1) TO '{home}/ledger/planted.csv'",
        f"COPY (select 1) TO '{project}/out.csv'",
        f"EXPORT DATABASE '{home}/ledger/export'",
        f"ATTACH '{project}/other.duckdb' AS other",
        "INSTALL httpfs",
        "LOAD httpfs",
        "LOAD json",
        "CREATE TABLE t AS SELECT 1",
        "CREATE OR REPLACE VIEW runs AS SELECT 1",
        "CREATE MACRO m() AS 1",
        "SET enable_external_access = true",
        "SET allowed_directories = ['/']",
        "RESET lock_configuration",
        "PRAGMA enable_profiling",
        "CALL pragma_version()",
        "INSERT INTO events VALUES (1)",
        "DROP VIEW runs",
        "select * from read_csv('/etc/passwd')",
        "select * from read_text('/etc/hostname')",
        f"select * from read_text('{home}/config.toml')",
        "select * from glob('/etc/*')",
        f"select * from read_parquet('{project}/x.parquet')",
        f"select 1; COPY (select 1) TO '{home}/ledger/planted.csv'",
        "select 1; create table t(a int)",
        f"select 1; ATTACH '{project}/x.db'",
        "",
        "  ;  ",
        "select (",
    ]


def test_guard_refuses_through_the_api(ledger: Ledger, project: Path, snapshot: Snapshot
                                       ) -> None:
    ledger.append("note", text="keep me", run="r1")
    before = snapshot(project)
    for query in refused_queries(project):
        with pytest.raises(QueryRefusedError):
            run_query(ledger.paths, query)
    assert snapshot(project) == before


@pytest.mark.parametrize("index", range(len(refused_queries(Path("/p")))))
def test_guard_refuses_through_the_cli_with_exit_2(ledger: Ledger, project: Path,
                                                   snapshot: Snapshot, index: int,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="keep me", run="r1")
    query = refused_queries(project)[index]
    before = snapshot(project)
    code, out, err = cli(capsys, "sql", query)
    assert code == 2, (query, out, err)
    assert out == ""
    assert err.startswith("labledger: error: query refused:")
    assert "Traceback" not in err
    assert snapshot(project) == before


@pytest.mark.parametrize(("query", "refusal"), [
    ("attach 'x.db'", "it contains an ATTACH statement"),
    ("insert into t values (1)", "it contains an INSERT statement"),
    ("delete from t", "it contains a DELETE statement"),
])
def test_a_refusal_names_the_statement_in_plain_english(ledger: Ledger, query: str,
                                                        refusal: str) -> None:
    with pytest.raises(QueryRefusedError, match=refusal):
        run_query(ledger.paths, query)


def test_guard_judges_parsed_statements_not_text(ledger: Ledger) -> None:
    """Words like COPY or ATTACH inside strings and identifiers are fine in a SELECT."""
    ledger.append("note", text="COPY x TO 'y'; ATTACH 'z'", run="r1")
    columns, result = run_query(
        ledger.paths,
        "select body->>'text' as \"create table\", 'drop view runs' as s from events "
        "where body->>'text' like '%ATTACH%'")
    assert columns == ["create table", "s"]
    assert result == [("COPY x TO 'y'; ATTACH 'z'", "drop view runs")]
    check_read_only("EXPLAIN select * from runs")
    check_read_only("select 1; select 2")


def test_sandbox_holds_even_without_the_statement_check(ledger: Ledger, project: Path) -> None:
    """The mechanism is DuckDB's: no file access outside the ledger, and a locked config."""
    ledger.append("note", text="x")
    con = connect(ledger.paths)
    try:
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"COPY (select 1) TO '{project}/escape.csv'")
        with pytest.raises(duckdb.PermissionException):
            con.execute("select * from read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error, match="lock"):
            con.execute("SET enable_external_access = true")
        with pytest.raises(duckdb.Error):
            con.execute("LOAD httpfs")
    finally:
        con.close()
    assert not (project / "escape.csv").exists()


def test_an_unknown_name_is_bad_input_exit_2_not_a_traceback(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    for query, name in (("select no_such_column from events", "no_such_column"),
                        ("select * from nosuch", "nosuch"),
                        ("select no_such_function(1)", "no_such_function")):
        code, out, err = cli(capsys, "sql", query)
        assert (code, out) == (2, ""), (query, err)
        assert err.startswith("labledger: error: query failed:")
        assert name in err
        assert "information_schema.columns" in err
        assert "Traceback" not in err
    with pytest.raises(QueryRefusedError, match="query failed"):
        run_query(ledger.paths, "select no_such_column from events")
    code, out, err = cli(capsys, "--json", "sql", "select * from nosuch")
    last = json.loads(err.strip().splitlines()[-1])
    assert (code, last["type"], last["code"], last["error"]) == (
        2, "exit_error", 2, "QueryInputError")


def test_a_runtime_failure_is_exit_1(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "sql", "select cast('x' as int)")
    assert (code, out) == (1, "")
    assert "query failed: Conversion Error" in err
    assert "Traceback" not in err
    with pytest.raises(LedgerError, match="Conversion Error"):
        run_query(ledger.paths, "select cast('x' as int)")


def test_several_statements_are_refused_one_with_a_trailing_semicolon_runs(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "sql", "select 1 as a; select 2 as b")
    assert (code, out) == (2, "")
    assert "2 statements" in err
    assert "one query at a time" in err
    code, out, _ = cli(capsys, "--json", "sql", "select 1 as a;")
    assert (code, json.loads(out)) == (0, [{"a": 1}])
    with pytest.raises(QueryRefusedError, match="3 statements"):
        run_query(ledger.paths, "select 1; select 2; select 3")


def test_json_error_mode_for_a_refused_query(ledger: Ledger,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--json", "sql", "CREATE TABLE t(a int)")
    assert code == 2
    assert out == ""
    last = json.loads(err.strip().splitlines()[-1])
    assert last["type"] == "exit_error"
    assert last["code"] == 2
    assert last["error"] == "QueryRefusedError"
    assert "CREATE" in last["message"]
