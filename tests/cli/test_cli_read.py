"""`labledger log | sql | check` over a ledger with a known history."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from labledger.ledger.cli import cli
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

DIGEST = "blake3:" + "12" * 32
RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def history(ledger: Ledger) -> Ledger:
    a = ledger.append
    a("instance.rented", instance="box", profile="runpod", at="2024-05-01T00:00:00Z")
    a("run.launched", run="r1", instance="box", host="gpu", at="2024-05-01T01:00:00Z")
    a("checkpoint.saved", run="r1", path="e1.pth", digest=DIGEST, size=1, step=1,
      at="2024-05-01T02:00:00Z")
    a("checkpoint.verified", run="r1", path="e1.pth", digest=DIGEST, ok=True,
      at="2024-05-01T02:30:00Z")
    a("run.launched", run="r2", at="2024-05-01T03:00:00Z")
    a("checkpoint.saved", run="r1", path="e2.pth", digest=DIGEST, size=1, step=2,
      at="2024-05-01T04:00:00Z")
    a("run.exited", run="r1", exit_code=0, at="2024-05-01T05:00:00Z")
    a("note", text="written late, happened early", at="2024-04-30T00:00:00Z")
    return ledger


def log_json(*args: str) -> list[dict[str, Any]]:
    result = invoke("log", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


# --- log -----------------------------------------------------------------------------------------
def test_log_json_lines_oldest_first(history: Ledger) -> None:
    items = log_json()
    assert [i["kind"] for i in items] == [
        "note", "instance.rented", "run.launched", "checkpoint.saved", "checkpoint.verified",
        "run.launched", "checkpoint.saved", "run.exited"]
    first = items[0]
    assert set(first) == {"id", "seq", "ts", "writer", "actor", "kind", "run", "instance",
                          "recorded", "body"}
    assert first["ts"] == "2024-04-30T00:00:00.000000Z"
    assert first["body"] == {"text": "written late, happened early"}
    assert first["seq"] == 7
    assert first["recorded"] is not None
    by_id = {r.id: r for r in history.records()}
    assert all(by_id[i["id"]].body_dict() == i["body"] for i in items)


def test_log_filters(history: Ledger) -> None:
    assert [i["kind"] for i in log_json("--run", "r2")] == ["run.launched"]
    assert [i["body"]["path"] for i in log_json("--kind", "checkpoint.saved")] == [
        "e1.pth", "e2.pth"]
    assert [i["kind"] for i in log_json("--kind", "checkpoint.*")] == [
        "checkpoint.saved", "checkpoint.verified", "checkpoint.saved"]
    assert [i["kind"] for i in log_json("--kind", "run.*", "--run", "r1")] == [
        "run.launched", "run.exited"]
    assert log_json("--kind", "checkpoint") == []  # exact unless it ends with *
    assert [i["kind"] for i in log_json("--instance", "box")] == [
        "instance.rented", "run.launched"]
    assert [i["ts"] for i in log_json("--since", "2024-05-01T04:00:00Z")] == [
        "2024-05-01T04:00:00.000000Z", "2024-05-01T05:00:00.000000Z"]
    # an offset is converted before comparing: 06:30+02:00 is 04:30Z
    assert [i["kind"] for i in log_json("--since", "2024-05-01T06:30:00+02:00")] == [
        "run.exited"]
    # --limit keeps the last N, still oldest first
    assert [i["kind"] for i in log_json("--limit", "2")] == ["checkpoint.saved", "run.exited"]
    assert [i["body"]["step"] for i in log_json("--kind", "checkpoint.saved",
                                                "--limit", "1")] == [2]
    assert log_json("--run", "nobody") == []


def test_log_text_output(history: Ledger) -> None:
    result = invoke("log", "--run", "r1", "--kind", "run.exited")
    assert result.exit_code == 0
    (line,) = result.stdout.splitlines()
    (record,) = [r for r in history.records() if r.kind == "run.exited"]
    assert line.startswith("2024-05-01 05:00:00  run.exited")
    assert "run=r1" in line
    assert record.id[:12] in line
    assert '"exit_code":0' in line.replace(" ", "")


def test_log_on_an_empty_ledger(ledger: Ledger) -> None:
    result = invoke("log")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert log_json() == []


def test_log_bad_since_is_exit_2(history: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "log", "--since", "last tuesday")
    assert code == 2
    assert out == ""
    assert "--since" in err
    assert "'last tuesday' is not a timestamp" in err
    assert "nothing was written" not in err  # a read writes nothing: the phrase would puzzle
    assert "Traceback" not in err


# --- sql -----------------------------------------------------------------------------------------
QUERY = "select run, state, checkpoints, exit_code, first_ts from runs order by run"


def test_sql_table_format(history: Ledger) -> None:
    result = invoke("sql", QUERY)
    assert result.exit_code == 0, result.stderr
    header, rule, *rows = result.stdout.splitlines()
    assert header.split() == ["run", "state", "checkpoints", "exit_code", "first_ts"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert [r.split()[:4] for r in rows] == [["r1", "exited-ok", "2", "0"],
                                             ["r2", "launched", "0", "2024-05-01"]]
    assert "2024-05-01 01:00:00" in rows[0]


def test_sql_csv_format(history: Ledger) -> None:
    result = invoke("sql", QUERY, "--format", "csv")
    assert result.exit_code == 0
    parsed = list(csv.reader(io.StringIO(result.stdout)))
    assert parsed == [["run", "state", "checkpoints", "exit_code", "first_ts"],
                      ["r1", "exited-ok", "2", "0", "2024-05-01 01:00:00"],
                      ["r2", "launched", "0", "", "2024-05-01 03:00:00"]]


@pytest.mark.parametrize("args", [["--format", "json"], ["--json"]])
def test_sql_json_format(history: Ledger, args: list[str]) -> None:
    result = invoke("sql", QUERY, *args)
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [
        {"run": "r1", "state": "exited-ok", "checkpoints": 2, "exit_code": 0,
         "first_ts": "2024-05-01T01:00:00.000000Z"},
        {"run": "r2", "state": "launched", "checkpoints": 0, "exit_code": None,
         "first_ts": "2024-05-01T03:00:00.000000Z"},
    ]


def test_sql_json_body_and_text(history: Ledger) -> None:
    result = invoke("sql", "select body->>'text' as t, body->'text' as raw from events "
                           "where kind = 'note'", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [{"t": "written late, happened early",
                                          "raw": "written late, happened early"}]


def _strict_json(text: str) -> object:
    """JSON as the standard defines it: NaN and Infinity are not tokens."""
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_sql_json_writes_null_for_nan_and_infinity(history: Ledger) -> None:
    result = invoke("sql", "--json", "select 0.0/0.0 as nan, 1.0/0 as inf, -1.0/0 as neg, "
                                     "[1.5, 0.0/0.0] as xs, {'r': 0.0/0.0} as s, 2.5 as ok")
    assert result.exit_code == 0
    assert _strict_json(result.stdout) == [
        {"nan": None, "inf": None, "neg": None, "xs": [1.5, None], "s": {"r": None}, "ok": 2.5}]


def test_sql_json_parses_json_typed_columns_at_any_depth(history: Ledger) -> None:
    result = invoke("sql", "--json", "select body, body->'digest' as digest, [body] as bodies, "
                                     "{'b': body} as wrapped, to_json([1, 2]) as built, "
                                     "body::varchar as text from events "
                                     "where kind = 'checkpoint.saved' order by ts limit 1")
    assert result.exit_code == 0
    (row,) = _strict_json(result.stdout)  # type: ignore[misc]
    body = {"path": "e1.pth", "digest": DIGEST, "size": 1, "step": 1}
    assert row["body"] == body
    assert row["digest"] == DIGEST
    assert row["bodies"] == [body]
    assert row["wrapped"] == {"b": body}
    assert row["built"] == [1, 2]
    assert json.loads(row["text"]) == body  # a VARCHAR stays text
    table = invoke("sql", "select body->'digest' as digest from events "
                          "where kind = 'checkpoint.saved' limit 1", "--format", "csv")
    assert table.stdout.splitlines()[1] == f'"""{DIGEST}"""'  # csv keeps the JSON text


def test_sql_on_an_empty_ledger(ledger: Ledger) -> None:
    for fmt, expected in (("json", "[]\n"), ("csv", "run,state\n")):
        result = invoke("sql", "select run, state from runs", "--format", fmt)
        assert result.exit_code == 0
        assert result.stdout == expected
    table = invoke("sql", "select count(*) as n from events")
    assert table.exit_code == 0
    assert table.stdout.splitlines()[-1].strip() == "0"


def test_sql_unknown_format_is_a_usage_error(history: Ledger,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "sql", "select 1", "--format", "xml")
    assert code == 2
    assert "xml" in err


# --- check ---------------------------------------------------------------------------------------
def test_check_a_clean_ledger(history: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--json", "check")
    assert code == 0
    report = json.loads(out)
    assert (report["ok"], report["events"], report["findings"]) == (True, 8, [])
    code, out, err = call(capsys, "check")
    assert code == 0
    assert "checked 8 events" in err


# --- subprocess ----------------------------------------------------------------------------------
def test_subprocess_log_and_sql(history: Ledger, run_cli: RunCli) -> None:
    logged = run_cli("log", "--json", "--kind", "run.*")
    assert logged.returncode == 0, logged.stderr
    assert [json.loads(line)["run"] for line in logged.stdout.splitlines()] == [
        "r1", "r2", "r1"]
    queried = run_cli("sql", "select run, state from runs order by run", "--format", "json")
    assert queried.returncode == 0, queried.stderr
    assert json.loads(queried.stdout) == [{"run": "r1", "state": "exited-ok"},
                                          {"run": "r2", "state": "launched"}]
    refused = run_cli("sql", "COPY (select 1) TO 'x.csv'")
    assert refused.returncode == 2
    assert "query refused" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (Path(history.paths.project) / "x.csv").exists()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_during_a_running_query_exits_130_without_a_traceback(history: Ledger) -> None:
    # DuckDB 2.0 reports an interrupted query as a plain RuntimeError("Query interrupted"):
    # the signal must land while DuckDB executes, so wait for CPU time well past the start-up's.
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.Popen([str(exe), "--json", "sql", "select count(*) from range(50000000000)"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _cpu_seconds(proc.pid) < 2.0 and proc.poll() is None:
            assert time.monotonic() < deadline, "the query never started"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    assert err.splitlines()[0] == b"labledger: interrupted"
    assert json.loads(err.splitlines()[-1])["code"] == 130
    assert out == b""
