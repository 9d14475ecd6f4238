"""Defects found by using the read side as a researcher would (log, sql, check, compact).

Each test names what went wrong before it was fixed:

* `sql --format csv` wrote floats with 6 significant digits and times without their
  microseconds (the table's display rules), and click stripped ANSI-like escapes from text
  written to a pipe: a spreadsheet export silently lost data.
* the table and `log` wrote a body's control characters raw (a newline broke the row; an
  escape sequence reached the terminal).
* one damaged record whose body is a JSON string made every query fail (exit 1), and one
  without a body made `log --json` end in a traceback.
* `compact` closed an open segment that ended in a torn append or an unfinished batch: the torn
  tail became permanent corruption, and the never-acknowledged records of a cut-short batch
  were sealed into history, after which `check` said nothing.
* `check` said nothing of files in the ledger folder that are not segments (no view reads them).
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from labledger.ledger.cli import cli
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import SegmentDamageWarning, connect
from labledger.ledger.segment import list_segments
from tests.conftest import cli_call as call
from tests.conftest import permissions_enforced


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _segment(ledger: Ledger) -> Path:
    (writer,) = [d for d in ledger.paths.segments.iterdir() if d.is_dir()]
    return list_segments(writer)[-1]


def _edit_line(segment: Path, index: int, edit: object) -> None:
    lines = segment.read_bytes().split(b"\n")
    lines[index] = edit(lines[index])  # type: ignore[operator]
    segment.write_bytes(b"\n".join(lines))


# --- sql output ---------------------------------------------------------------------------------
def test_csv_keeps_every_digit_and_every_microsecond(ledger: Ledger) -> None:
    ledger.append("note", text="x", at="2026-01-02T03:04:05.123456Z")
    ledger.append("note", text="y", at="2026-01-02T03:04:06Z")
    result = invoke("sql", "--format", "csv",
                    "select ts, 1234567.891::double as big, 0.000123456789::double as small, "
                    "1e300::double as huge, 0.0/0.0 as nan from events order by ts")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["ts", "big", "small", "huge", "nan"]
    assert rows[1] == ["2026-01-02 03:04:05.123456", "1234567.891", "0.000123456789", "1e+300",
                       "nan"]
    assert rows[2][0] == "2026-01-02 03:04:06"  # a whole second is written as before
    assert float(rows[1][1]) == 1234567.891


def test_csv_keeps_control_characters_and_the_table_shows_them_escaped(ledger: Ledger) -> None:
    text = "line1\nline2\x1b[31mred\x07\tend"
    ledger.append("note", text=text)
    query = "select body->>'text' as t from events"
    exported = invoke("sql", "--format", "csv", query)
    assert exported.exit_code == 0
    assert list(csv.reader(io.StringIO(exported.stdout))) == [["t"], [text]]
    shown = invoke("sql", query)
    assert shown.exit_code == 0
    assert "\x1b" not in shown.stdout
    assert "\x07" not in shown.stdout
    header, rule, row = shown.stdout.splitlines()  # the value stays on one row
    assert row == "line1\\nline2\\x1b[31mred\\x07\\tend"
    logged = invoke("log")
    assert logged.exit_code == 0
    assert "\x1b" not in logged.stdout
    assert len(logged.stdout.splitlines()) == 1


# --- damaged records ----------------------------------------------------------------------------
def test_a_record_whose_body_is_a_string_is_left_out_and_named(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="kept")
    ledger.append("note", text="damaged")
    ledger.append("run.heartbeat", run="r1", step=3)
    ledger.close()
    _edit_line(_segment(ledger), 1,
               lambda line: line.replace(b'"body":{"text":"damaged"}', b'"body":"damaged"'))
    code, out, err = call(capsys, "sql", "--json", "select kind from events order by seq")
    assert code == 0, err
    assert json.loads(out) == [{"kind": "note"}, {"kind": "run.heartbeat"}]
    assert "1 record cannot be read" in err
    assert "line 2 (byte" in err
    assert "its body is a string" in err
    code, out, err = call(capsys, "sql", "select state from runs")
    assert code == 0, err
    code, out, _ = call(capsys, "log", "--json")
    assert code == 0
    assert [json.loads(line)["body"] for line in out.splitlines()] == [{"text": "kept"},
                                                                       {"step": 3}]


def test_a_record_without_a_body_reads_as_an_empty_body(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="a")
    ledger.append("note", text="b")
    ledger.close()
    _edit_line(_segment(ledger), 1, lambda line: line.replace(b',"body":{"text":"b"}', b""))
    code, out, err = call(capsys, "log", "--json")
    assert code == 0, err
    assert [json.loads(line)["body"] for line in out.splitlines()] == [{"text": "a"}, {}]
    assert "1 record no longer matches its id" in err  # and it is still named as altered
    code, out, _ = call(capsys, "log")
    assert code == 0
    assert out.splitlines()[1].endswith("  {}")


def test_counts_cached_under_the_older_rule_are_not_trusted(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import ledger_with_rollover

    ledger = ledger_with_rollover(project, 2)
    for text in ("a", "b", "c"):
        ledger.append("note", text=text)
    ledger.close()
    closed = list_segments(_segment(ledger).parent)[0]
    closed.chmod(0o644)
    _edit_line(closed, 1, lambda line: line.replace(b'"body":{"text":"b"}', b'"body":"b"'))
    closed.chmod(0o444)
    st = closed.stat()
    cache = ledger.paths.home / "cache" / "query"
    cache.mkdir(parents=True, exist_ok=True)
    # what the older rule counted for this closed segment: nothing unreadable
    (cache / "unreadable.json").write_text(json.dumps(
        {str(closed): [st.st_ino, st.st_size, st.st_mtime_ns, 0]}))
    with pytest.warns(SegmentDamageWarning) as caught:
        connect(ledger.paths).close()
    assert any("1 record cannot be read" in str(w.message) for w in caught)


# --- compact ------------------------------------------------------------------------------------
def test_compact_leaves_an_open_segment_with_a_torn_tail_open(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("a", "b", "c"):
        ledger.append("note", text=text)
    ledger.close()
    segment = _segment(ledger)
    with open(segment, "r+b") as fh:  # a crash in the middle of the last append
        fh.truncate(segment.stat().st_size - 10)
    code, out, err = call(capsys, "compact")
    assert code == 0, err
    assert out == ""
    assert f"left {segment} open" in err
    assert "after the last complete record" in err
    assert segment.stat().st_mode & stat.S_IWUSR  # still open: the next append can cut it
    assert call(capsys, "check")[0] == 0
    assert call(capsys, "emit", "note", "--set", "text=d")[0] == 0
    code, out, err = call(capsys, "check")
    assert code == 0, out
    assert "corruption" not in out
    assert "recovered:" in out
    code, out, _ = call(capsys, "--json", "compact")
    assert code == 0
    assert json.loads(out) == {"sealed": [str(segment.with_suffix(".parquet"))]}
    assert call(capsys, "check")[0] == 0


def test_compact_does_not_seal_the_records_of_an_unfinished_batch(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="first")
    ledger.append_batch([{"kind": "note", "body": {"text": t}} for t in ("b1", "b2", "b3")])
    ledger.close()
    segment = _segment(ledger)
    lines = segment.read_bytes().splitlines(keepends=True)
    segment.write_bytes(b"".join(lines[:-1]))  # the batch's last record never reached the disk
    code, out, _ = call(capsys, "--json", "compact")
    assert code == 0
    (left,) = json.loads(out)["left_open"]
    assert json.loads(out)["sealed"] == []
    assert left["segment"] == str(segment)
    assert left["severity"] == "torn"
    assert left["seq"] == 1
    # the next append cuts the whole unfinished batch; only then is the segment sealed
    assert call(capsys, "emit", "note", "--set", "text=after")[0] == 0
    assert call(capsys, "compact")[0] == 0
    code, out, _ = call(capsys, "sql", "--json", "select body->>'text' as t from events "
                                                "order by seq")
    assert code == 0
    assert [r["t"] for r in json.loads(out)] == ["first", "after"]
    assert call(capsys, "check")[0] == 0


def test_compact_leaves_an_open_segment_that_does_not_verify_open_and_exits_3(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="a")
    ledger.append("note", text="b")
    ledger.close()
    segment = _segment(ledger)
    _edit_line(segment, 1, lambda line: line.replace(b'"b"', b'"B"'))
    code, _, err = call(capsys, "compact")
    assert code == 3
    assert "does not verify" in err
    assert "content does not match its id" in err
    assert segment.stat().st_mode & stat.S_IWUSR


def test_check_reports_a_sealed_segment_that_ends_inside_an_unfinished_batch(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    from labledger.ledger.seal import compact, seal_segment

    ledger.append("note", text="first")
    ledger.append_batch([{"kind": "note", "body": {"text": t}} for t in ("b1", "b2")])
    ledger.close()
    segment = _segment(ledger)
    segment.write_bytes(b"".join(segment.read_bytes().splitlines(keepends=True)[:-1]))
    # The library's compact (not only the command) leaves it open, saying why ...
    left: list = []
    assert compact(ledger.paths, left_open=left) == []
    assert [f.severity for f in left] == ["torn"]
    assert segment.stat().st_mode & 0o200
    # ... and a segment sealed that way anyway (what compact did before it looked first) is
    # reported by check.
    os.chmod(segment, 0o444)
    seal_segment(segment)
    code, out, _ = call(capsys, "check")
    assert code == 3
    assert "sealed segment ends inside an unfinished batch (1 record " in out
    assert "seq 1" in out


# --- check --------------------------------------------------------------------------------------
def test_check_names_files_that_no_reader_reads(ledger: Ledger,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="a")
    ledger.close()
    segment = _segment(ledger)
    writer = segment.parent
    (ledger.paths.segments / segment.name).write_bytes(segment.read_bytes())  # one level up
    (writer / f"{segment.name}.bak").write_bytes(segment.read_bytes())
    (writer / "000000000000.parquet.tmp").write_bytes(b"compact at work")
    code, out, _ = call(capsys, "check")
    assert code == 0
    stray = sorted(line.split(":")[1].strip() for line in out.splitlines()
                   if line.startswith("stray:"))
    assert stray == sorted([str(ledger.paths.segments / segment.name),
                            str(writer / f"{segment.name}.bak")])
    assert ".lock" not in out
    assert "parquet.tmp" not in out
    code, out, _ = call(capsys, "--json", "check")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True
    assert sorted(f["segment"] for f in report["findings"] if f["severity"] == "stray") == stray


def test_check_on_a_ledger_without_strays_reports_none(ledger: Ledger,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="a")
    call(capsys, "compact")
    ledger.append("note", text="b")
    code, out, _ = call(capsys, "check")
    assert code == 0
    assert "stray" not in out
    assert os.path.exists(ledger.paths.segments)


def test_a_writer_folder_that_cannot_be_listed_is_a_problem_not_a_traceback(
        ledger: Ledger, project: Path) -> None:
    import subprocess
    import sys

    ledger.append("note", text="a")
    ledger.close()
    writer = _segment(ledger).parent
    exe = str(Path(sys.executable).with_name("labledger"))
    writer.chmod(0)
    try:
        checked, queried = (subprocess.run(permissions_enforced([exe, *args]),
                                           capture_output=True, text=True, cwd=project,
                                           timeout=120, check=False)
                            for args in (["check"], ["sql", "select count(*) from events"]))
    finally:
        writer.chmod(0o755)
    assert checked.returncode == 3, checked.stderr
    assert f"corruption: {writer}: cannot list its segments (Permission denied)" in checked.stdout
    assert queried.returncode == 1
    assert queried.stderr.strip() == (f"labledger: error: {writer}: cannot list its segments "
                                      "(Permission denied); fix its permissions, or run "
                                      "labledger as the user who owns the ledger")


def test_log_says_when_the_kind_asked_for_does_not_exist(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", text="a")
    code, out, err = call(capsys, "log", "--kind", "checkpoint.save")  # a typo
    assert code == 0
    assert out == ""
    assert "no event kind is 'checkpoint.save'; the kinds are " in err
    assert "checkpoint.saved" in err
    code, out, err = call(capsys, "log", "--kind", "chk*")
    assert "no event kind matches 'chk*'" in err
    code, out, err = call(capsys, "log", "--kind", "checkpoint.*")  # known, merely absent
    assert (code, out, err) == (0, "", "")
