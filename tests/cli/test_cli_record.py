"""`labledger init | emit | ingest | schema`, root discovery and error reporting.

Success paths go through click's CliRunner; exit codes through `main()` (which maps errors to
codes) and, for what only a real process shows (argv bytes, stdin, the console script), through
the `run_cli` subprocess fixture.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from labledger.ledger import events as ev
from labledger.ledger.cli import cli
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

DIGEST = "blake3:" + "ef" * 32
ID_LINE = re.compile(r"[0-9a-f]{64}\n")
Snapshot = Callable[[Path], dict[str, bytes]]
RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands that default to the working directory (init) must never touch the repo."""
    monkeypatch.chdir(project)


def invoke(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def records(project: Path) -> list[Any]:
    return list(Ledger.open(project).records())


# --- init ----------------------------------------------------------------------------------------
def test_init_creates_the_ledger_and_is_idempotent(project: Path, snapshot: Snapshot) -> None:
    result = invoke("init")
    assert result.exit_code == 0, result.stderr
    assert "Initialized empty labledger ledger" in result.stderr
    assert result.stdout == ""
    config = (project / ".labledger" / "config.toml").read_text()
    assert re.search(r"^format = 1$", config, re.M)
    assert (project / ".labledger" / "ledger").is_dir()
    assert (project / ".labledger" / "cas").is_dir()
    invoke("emit", "note", "--set", "text=kept")
    before = snapshot(project)

    again = invoke("init")
    assert again.exit_code == 0
    assert "already exists" in again.stderr
    assert snapshot(project) == before
    as_json = invoke("--json", "init")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == {
        "root": str(project), "ledger": str(project / ".labledger"), "created": False,
        "writer": "test-writer"}
    assert snapshot(project) == before


def test_init_into_a_named_directory(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    result = invoke("--json", "init", str(target))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["created"] is True
    assert (target / ".labledger" / "config.toml").is_file()


@pytest.mark.parametrize("command", [["init"], ["emit", "note", "--set", "text=x"], ["log"],
                                     ["sql", "select 1"], ["check"], ["compact"]])
def test_unknown_format_version_is_refused(project: Path, snapshot: Snapshot,
                                           capsys: pytest.CaptureFixture[str],
                                           command: list[str]) -> None:
    Ledger.init(project)
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text().replace("format = 1", "format = 99"))
    before = snapshot(project)
    code, out, err = call(capsys, *command)
    assert code == 1
    assert out == ""
    assert "ledger format 99 is not supported" in err
    assert "upgrade labledger" in err
    assert "Traceback" not in err
    assert snapshot(project) == before


@pytest.mark.parametrize(("line", "says"), [
    ("format = true", "format must be an integer (this labledger reads format 1), not True"),
    ("segment_max_events = 0", "segment_max_events must be at least 1, not 0"),
    ("segment_max_events = -5", "segment_max_events must be at least 1, not -5"),
    ("segment_max_bytes = true", "segment_max_bytes must be an integer, not True"),
    ('segment_per_process = "yes"', "segment_per_process must be true or false, not 'yes'"),
])
def test_a_config_value_of_the_wrong_type_or_range_is_refused(
        project: Path, snapshot: Snapshot, capsys: pytest.CaptureFixture[str], line: str,
        says: str) -> None:
    Ledger.init(project)
    config = project / ".labledger" / "config.toml"
    key = line.split(" = ")[0]
    config.write_text("\n".join(line if ln.startswith(key + " ") else ln
                                for ln in config.read_text().splitlines()) + "\n")
    before = snapshot(project)
    code, out, err = call(capsys, "emit", "note", "--set", "text=x")
    assert (code, out) == (1, "")
    assert says in err
    assert "Traceback" not in err
    assert snapshot(project) == before


def test_init_again_with_another_setting_says_it_was_not_applied(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Ledger.init(project)
    code, _, err = call(capsys, "init", "--segment-per-process")
    assert code == 0
    assert "--segment-per-process was not applied" in err
    assert "segment_per_process = false" in (project / ".labledger" / "config.toml").read_text()


# --- emit ----------------------------------------------------------------------------------------


def test_set_under_extra_reads_json_scalars_as_values(ledger: Ledger, project: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "emit", "run.heartbeat", "--run", "r1", "--set", "step=5",
                        "--set", "extra.loss=0.41", "--set", "extra.n=12", "--set",
                        "extra.ok=true", "--set", "extra.none=null", "--set", "extra.tag=best",
                        "--set", "extra.zip=007", "--set", "extra.huge=1e999",
                        "--set", "extra.deep.lr=1e-4", "--set", "extra.id=99999999999999999999")
    assert code == 0, err
    body = next(iter(Ledger.open(project).records())).body_dict()
    assert body["extra"] == {"loss": 0.41, "n": 12, "ok": True, "none": None, "tag": "best",
                             "zip": "007", "huge": "1e999", "deep": {"lr": 0.0001},
                             "id": "99999999999999999999"}
    assert body["step"] == 5
def test_emit_prints_the_id_of_the_stored_event(ledger: Ledger, project: Path) -> None:
    result = invoke("emit", "note", "--run", "r1", "--instance", "box-1", "--set", "text=hi")
    assert result.exit_code == 0, result.stderr
    assert ID_LINE.fullmatch(result.stdout)
    (record,) = records(project)
    assert record.id == result.stdout.strip()
    assert (record.kind, record.run, record.instance) == ("note", "r1", "box-1")
    assert record.body_dict() == {"text": "hi"}
    assert record.actor == "tester@test"


def test_emit_json_prints_the_record(ledger: Ledger, project: Path) -> None:
    result = invoke("emit", "run.exited", "--run", "r1", "--set", "exit_code=3", "--json")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    (record,) = records(project)
    assert printed == record.to_dict()
    assert printed["body"] == {"exit_code": 3}
    assert printed["seq"] == 0
    assert printed["prev"] is None


def test_emit_set_values_fill_typed_fields(ledger: Ledger, project: Path) -> None:
    result = invoke("emit", "checkpoint.saved", "--run", "r1", "--set", "path=best.pth",
                    "--set", f"digest={DIGEST}", "--set", "size=10", "--set", "step=5",
                    "--set", "stored=false", "--set", "metrics.psnr=31.4",
                    "--set", "metrics.ssim=0.9", "--set", "extra.note=a=b")
    assert result.exit_code == 0, result.stderr
    (record,) = records(project)
    assert record.body_dict() == {
        "path": "best.pth", "digest": DIGEST, "size": 10, "step": 5, "stored": False,
        "metrics": {"psnr": 31.4, "ssim": 0.9}, "extra": {"note": "a=b"}}


def test_emit_data_and_set_merge_with_set_winning(ledger: Ledger, project: Path) -> None:
    data = json.dumps({"path": "p", "digest": DIGEST, "size": 1, "metrics": {"a": 1.0,
                                                                              "b": 2.0}})
    result = invoke("emit", "checkpoint.saved", "--run", "r1", "--data", data, "--set",
                    "metrics.b=3", "--set", "size=2")
    assert result.exit_code == 0, result.stderr
    (record,) = records(project)
    assert record.body_dict()["metrics"] == {"a": 1.0, "b": 3.0}
    assert record.body_dict()["size"] == 2


def test_emit_data_keeps_json_types(ledger: Ledger, project: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert invoke("emit", "run.launched", "--run", "r1", "--data",
                  '{"command": ["python", "t.py"], "pid": 12}').exit_code == 0
    assert records(project)[0].body_dict() == {"command": ["python", "t.py"], "pid": 12}
    code, _, err = call(capsys, "emit", "run.exited", "--data", '{"exit_code": "1"}')
    assert code == 2  # JSON text is not coerced: "1" is a string
    assert "field 'exit_code'" in err


def test_emit_at_backfills(ledger: Ledger, project: Path) -> None:
    result = invoke("emit", "note", "--set", "text=late", "--at", "2024-02-29T23:00:00-02:00",
                    "--json")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["ts"] == "2024-03-01T01:00:00.000000Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", printed["recorded"])
    assert printed["recorded"] > printed["ts"]
    (record,) = records(project)
    assert (record.ts, record.recorded) == (printed["ts"], printed["recorded"])


BIG = "x" * (ev.MAX_BODY_BYTES + 1)
# (argv after `emit`, words the message must contain)
BAD_EMITS: list[tuple[list[str], str]] = [
    (["no.such.kind", "--set", "text=x"], "unknown event kind 'no.such.kind'"),
    (["note"], "missing required field `text`"),
    (["checkpoint.saved", "--set", "path=p", "--set", "size=1"],
     "missing required field `digest`"),
    (["checkpoint.saved", "--set", "path=p", "--set", f"digest={DIGEST}", "--set", "size=big"],
     "field 'size'"),
    (["run.exited", "--set", "exit_code=1.5"], "field 'exit_code'"),
    (["note", "--set", "text=x", "--set", "colour=red"], "field 'colour'"),
    (["note", "--set", "text=x", "--set", "text.sub=y"], "field 'text.sub'"),
    (["note", "--set", "text"], "is not key=value"),
    (["note", "--set", "=x"], "is not key=value"),
    (["note", "--set", f"text={BIG}"], "over the 65536-byte limit"),
    (["note", "--set", "text=x", "--run", "bad run"], "field 'run'"),
    (["note", "--set", "text=x", "--run", "r" * 257], "field 'run'"),
    (["note", "--set", "text=x", "--instance", "a/b"], "field 'instance'"),
    (["note", "--set", "text=x", "--at", "tomorrow"], "field 'at'"),
    (["note", "--set", "text=x", "--at", "2024-01-01T10:00:00"], "has no timezone"),
    (["note", "--set", "text=x", "--at", "2024-02-30T00:00:00.000000Z"], "field 'at'"),
    (["note", "--data", "{text: 1}"], "field '--data': --data is not valid JSON"),
    (["note", "--data", "[1, 2]"], "field '--data': --data must be a JSON object"),
    (["note", "--data", '"text"'], "--data must be a JSON object"),
    (["claim.declared", "--set", "claim=c", "--set", "metric=m", "--set", "value=nan",
      "--set", "direction=higher", "--set", f"source_digest={DIGEST}"], "field 'value'"),
]


@pytest.mark.parametrize(("args", "words"), BAD_EMITS)
def test_bad_emit_exits_2_and_writes_nothing(ledger: Ledger, project: Path,
                                             snapshot: Snapshot,
                                             capsys: pytest.CaptureFixture[str],
                                             args: list[str], words: str) -> None:
    ledger.append("note", text="history")
    before = snapshot(project)
    code, out, err = call(capsys, "emit", *args)
    assert code == 2, err
    assert out == ""
    assert err.startswith("labledger: error: ")
    assert words in err
    assert "nothing was written" in err
    assert "Traceback" not in err
    assert snapshot(project) == before


def test_bad_emit_in_json_mode_ends_with_an_exit_error_line(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "--json", "emit", "note", "--set", "txt=x")
    assert code == 2
    assert out == ""
    last = json.loads(err.strip().splitlines()[-1])
    assert last["type"] == "exit_error"
    assert last["code"] == 2
    assert last["error"] == "InvalidEventError"
    assert last["kind"] == "note"
    assert last["field"] == "txt"
    assert "unknown field txt" in last["message"]
    # --json after the command name works too
    code, _, err = call(capsys, "emit", "note", "--json")
    assert code == 2
    assert json.loads(err.strip().splitlines()[-1])["type"] == "exit_error"


def test_invalid_utf8_in_argv_is_refused(ledger: Ledger, project: Path, snapshot: Snapshot
                                         ) -> None:
    """Bytes that are not UTF-8 reach Python as lone surrogates; they never reach the ledger."""
    before = snapshot(project)
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.run([bytes(exe), b"emit", b"note", b"--set", b"text=ok\xff\xfe"],
                          capture_output=True, cwd=project, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.decode("utf-8", "replace")
    assert "field 'text'" in err
    assert "not valid UTF-8" in err
    assert "Traceback" not in err
    assert proc.stdout == b""
    assert snapshot(project) == before


# --- ingest --------------------------------------------------------------------------------------
def lines(*events: dict[str, Any]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


GOOD = [
    {"kind": "run.launched", "run": "r1", "instance": "i1", "body": {"host": "gpu"}},
    {"kind": "checkpoint.saved", "run": "r1",
     "body": {"path": "e1.pth", "digest": DIGEST, "size": 4, "metrics": {"loss": 0.5}}},
    {"kind": "note", "body": {"text": "ünïcode ✓"}, "at": "2024-01-01T00:00:00+01:00",
     "actor": "agent@laptop"},
    {"kind": "run.exited", "run": "r1", "body": {"exit_code": 0}},
]


def test_ingest_file_appends_all_in_order(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text(lines(*GOOD[:2]) + "\n   \n" + lines(*GOOD[2:]), encoding="utf-8")
    result = invoke("--json", "ingest", str(source))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"type": "summary", "appended": 4, "first_seq": 0,
                                         "last_seq": 3, "writer": "test-writer"}
    stored = records(project)
    assert [r.kind for r in stored] == [e["kind"] for e in GOOD]
    assert [r.body_dict() for r in stored] == [e["body"] for e in GOOD]
    assert stored[2].ts == "2023-12-31T23:00:00.000000Z"
    assert stored[2].actor == "agent@laptop"
    assert stored[0].actor == "tester@test"
    assert (stored[0].run, stored[0].instance) == ("r1", "i1")


def test_ingest_from_stdin(ledger: Ledger, project: Path) -> None:
    result = invoke("ingest", "-", input=lines(*GOOD))
    assert result.exit_code == 0, result.stderr
    assert "appended 4 events" in result.stderr
    assert len(records(project)) == 4


def test_ingest_empty_input_appends_nothing(ledger: Ledger, project: Path) -> None:
    result = invoke("--json", "ingest", "-", input="\n\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["appended"] == 0
    assert records(project) == []


# (the bad line, words in the message); the bad line is always line 3 of the file
BAD_LINES: list[tuple[bytes, str]] = [
    (b'{"kind": "nope", "body": {}}', "unknown event kind 'nope'"),
    (b'{"kind": "note", "body": {}}', "missing required field `text`"),
    (b'{"kind": "note", "body": {"text": 1}}', "field 'text'"),
    (b'{"kind": "note", "body": {"text": "x", "colour": 1}}', "field 'colour'"),
    (b'{"kind": "note", "body": {"text": "x"}, "colour": 1}', "colour"),
    (b'{"kind": "note", "body": {"text": "x"}, "run": "a b"}', "field 'run'"),
    (b'{"kind": "note", "body": {"text": "x"}, "at": "2024-01-01T00:00:00"}', "field 'at'"),
    (b'{"kind": "note", "body": {"text": "' + b"y" * ev.MAX_BODY_BYTES + b'"}}',
     "over the 65536-byte limit"),
    (b'{"kind": "note", "body": {"text": "caf\xe9"}}', "invalid UTF-8"),
    (b'{"kind": "note", "body": {"text": "\\ud800"}}', "not a JSON event"),  # lone surrogate
    (b'{"kind": "note", "body": {"text": "x"}', "not a JSON event"),
    (b"[1, 2]", "Expected `object`"),
    (b"not json", "not a JSON event"),
]


@pytest.mark.parametrize(("bad", "words"), BAD_LINES)
def test_ingest_is_all_or_nothing_and_names_the_line(
    ledger: Ledger, project: Path, tmp_path: Path, snapshot: Snapshot,
    capsys: pytest.CaptureFixture[str], bad: bytes, words: str,
) -> None:
    ledger.append("note", text="history")
    source = tmp_path / "batch.jsonl"
    source.write_bytes(lines(*GOOD[:2]).encode() + bad + b"\n" + lines(*GOOD[2:]).encode())
    before = snapshot(project)
    code, out, err = call(capsys, "ingest", str(source))
    assert code == 2, err
    assert out == ""
    assert f"{source}:3" in err
    assert words in err
    assert "nothing was written" in err
    assert "Traceback" not in err
    assert snapshot(project) == before


def test_ingest_bad_stdin_names_stdin_and_line(ledger: Ledger, project: Path,
                                               snapshot: Snapshot,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = (lines(*GOOD) + '{"kind": "note", "body": {"text": 2}}\n').encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    before = snapshot(project)
    code, _, err = call(capsys, "--json", "ingest", "-")
    assert code == 2
    last = json.loads(err.strip().splitlines()[-1])
    assert (last["type"], last["code"], last["line"], last["field"]) == (
        "exit_error", 2, 5, "text")
    assert last["message"].startswith("<stdin>:5, event 'note', field 'text'")
    assert snapshot(project) == before


def test_ingest_missing_file_is_exit_2(ledger: Ledger, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "ingest", str(tmp_path / "absent.jsonl"))
    assert code == 2
    assert "cannot read" in err
    assert "absent.jsonl" in err


@pytest.mark.parametrize(("bad", "field", "words"), [
    (b'{"kind": "note", "body": {"text": 1}}', "text", "Expected `str`, got `int`"),
    (b'{"kind": "note", "body": {"text": "x", "colour": 1}}', "colour", "unknown field colour"),
    (b'{"kind": "note", "body": {"text": "x"}, "run": "a b"}', "run", "not a valid run id"),
    (b'{"kind": "run.exited", "body": {"duration_s": NaN}}', None, "not a JSON event"),
    (b'{"kind": "note", "body": {"text": "caf\xe9"}}', None, "invalid UTF-8"),
    (b'{"kind": "note", "body": {"text": "' + b"y" * ev.MAX_BODY_BYTES + b'"}}', None,
     "over the 65536-byte limit"),
])
def test_ingest_bad_last_line_of_a_big_file_names_it_and_writes_nothing(
    ledger: Ledger, project: Path, tmp_path: Path, snapshot: Snapshot,
    capsys: pytest.CaptureFixture[str], bad: bytes, field: str | None, words: str,
) -> None:
    ledger.append("note", text="history")
    source = tmp_path / "big.jsonl"
    source.write_bytes(b"".join(b'{"kind":"run.heartbeat","run":"r1","body":{"step":%d}}\n' % i
                                for i in range(50_000)) + b"\n" + bad + b"\n")
    before = snapshot(project)
    code, out, err = call(capsys, "--json", "ingest", str(source))
    assert code == 2, err
    assert out == ""
    last = json.loads(err.strip().splitlines()[-1])
    assert (last["line"], last["field"]) == (50_002, field)  # the blank line counts
    assert last["message"].startswith(f"{source}:50002")
    assert words in last["message"]
    assert snapshot(project) == before


def test_ingest_big_file_round_trips(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    source = tmp_path / "big.jsonl"
    source.write_bytes(b"".join(b'{"kind":"run.heartbeat","run":"r%d","body":{"step":%d}}\n'
                                % (i % 3, i) for i in range(50_000)))
    result = invoke("--json", "ingest", str(source))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"type": "summary", "appended": 50_000, "first_seq": 0,
                                         "last_seq": 49_999, "writer": "test-writer"}
    stored = records(project)
    assert [r.body_dict()["step"] for r in stored] == list(range(50_000))
    assert [r.run for r in stored[:4]] == ["r0", "r1", "r2", "r0"]
    assert sum(r.more for r in stored) == 49_999
    assert not stored[-1].more
    assert invoke("check").exit_code == 0


# --- schema --------------------------------------------------------------------------------------
JSON_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


def check_schema_node(node: Any, defs: dict[str, Any]) -> None:
    """A structural check of JSON Schema: known types, resolvable refs, required ⊆ properties."""
    if isinstance(node, dict):
        if "$ref" in node:
            assert node["$ref"].startswith("#/$defs/")
            assert node["$ref"].removeprefix("#/$defs/") in defs
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            assert set(types) <= JSON_TYPES
        if "required" in node:
            assert set(node["required"]) <= set(node["properties"])
        if "pattern" in node:
            re.compile(node["pattern"])
        for key, value in node.items():
            if key in ("properties", "$defs"):  # maps of names to schemas
                for sub in value.values():
                    check_schema_node(sub, defs)
            elif key not in ("required", "enum", "default", "title", "pattern"):
                check_schema_node(value, defs)
    elif isinstance(node, list):
        for value in node:
            check_schema_node(value, defs)


def test_schema_lists_every_kind() -> None:
    result = invoke("schema")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == sorted(ev.KINDS)
    as_json = invoke("schema", "--json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == sorted(ev.KINDS)


@pytest.mark.parametrize("kind", sorted(ev.KINDS))
def test_schema_prints_a_json_schema_per_kind(kind: str) -> None:
    result = invoke("schema", kind)
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema == json.loads(json.dumps(ev.json_schema(kind)))
    assert schema["title"] == kind
    defs = schema["$defs"]
    check_schema_node(schema, defs)
    root = defs[schema["$ref"].removeprefix("#/$defs/")]
    assert root["type"] == "object"
    assert set(root["properties"]) == set(ev.KINDS[kind].__struct_fields__)


def test_schema_of_an_unknown_kind_is_a_usage_error_that_lists_the_kinds() -> None:
    result = invoke("schema", "nope")
    assert result.exit_code == 2
    assert "unknown event kind 'nope'; known kinds: artifact.pulled" in result.stderr
    assert "nothing was written" not in result.stderr  # schema never writes
    assert result.stdout == ""


def test_schema_works_outside_any_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LABLEDGER_ROOT")
    monkeypatch.chdir(tmp_path)
    assert invoke("schema", "note").exit_code == 0


def test_schema_of_unknown_kind_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "schema", "nope")
    assert code == 2
    assert out == ""
    assert "unknown event kind 'nope'" in err


# --- root discovery ------------------------------------------------------------------------------
def test_outside_any_ledger_says_to_run_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("LABLEDGER_ROOT")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    empty = tmp_path / "nowhere"
    empty.mkdir()
    monkeypatch.chdir(empty)
    for command in (["emit", "note", "--set", "text=x"], ["log"], ["sql", "select 1"],
                    ["check"], ["ingest", "-"]):
        code, out, err = call(capsys, *command)
        assert code == 1, command
        assert out == ""
        assert "run `labledger init`" in err
        assert str(empty) in err
        assert "Traceback" not in err
    assert list(empty.iterdir()) == []


def test_root_found_from_a_nested_subfolder(ledger: Ledger, project: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LABLEDGER_ROOT")
    nested = project / "src" / "deep" / "er"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert invoke("emit", "note", "--set", "text=from below").exit_code == 0
    assert [r.body_dict()["text"] for r in records(project)] == ["from below"]
    assert not (nested / ".labledger").exists()


def test_root_option_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two, three = (tmp_path / n for n in ("one", "two", "three"))
    for folder in (one, two, three):
        Ledger.init(folder)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("LABLEDGER_ROOT", str(one))
    assert invoke("emit", "note", "--set", "text=env").exit_code == 0
    assert invoke("--root", str(two), "emit", "note", "--set", "text=global").exit_code == 0
    assert invoke("emit", "note", "--set", "text=local", "--root", str(three)).exit_code == 0
    # --root may name the .labledger folder itself
    assert invoke("--root", str(three / ".labledger"), "emit", "note",
                  "--set", "text=home").exit_code == 0
    assert [r.body_dict()["text"] for r in records(one)] == ["env"]
    assert [r.body_dict()["text"] for r in records(two)] == ["global"]
    assert [r.body_dict()["text"] for r in records(three)] == ["local", "home"]


def test_root_pointing_at_a_non_ledger_is_exit_1(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "--root", str(tmp_path), "log")
    assert code == 1
    assert "run `labledger init`" in err


def test_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "emit")
    assert code == 2
    assert "Missing argument" in err
    code, _, err = call(capsys, "no-such-command")
    assert code == 2
    code, _, _ = call(capsys, "log", "--limit", "0")
    assert code == 2


# --- through the real console script -------------------------------------------------------------
def test_subprocess_init_emit_ingest_and_errors(run_cli: RunCli, project: Path,
                                                snapshot: Snapshot) -> None:
    created = run_cli("init")
    assert created.returncode == 0, created.stderr
    assert "Initialized empty labledger ledger" in created.stderr
    assert run_cli("init").returncode == 0

    emitted = run_cli("emit", "note", "--run", "r1", "--set", "text=hello")
    assert emitted.returncode == 0, emitted.stderr
    assert ID_LINE.fullmatch(emitted.stdout)

    ingested = run_cli("--json", "ingest", "-", input=lines(*GOOD))
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["appended"] == 4

    before = snapshot(project)
    bad = run_cli("ingest", "-", input=lines(*GOOD) + '{"kind": "note"}\n')
    assert bad.returncode == 2
    assert "<stdin>:5" in bad.stderr
    assert "missing required field `text`" in bad.stderr
    assert "Traceback" not in bad.stderr

    refused = run_cli("--json", "emit", "note", "--set", "text=x", "--at", "nope")
    assert refused.returncode == 2
    last = json.loads(refused.stderr.strip().splitlines()[-1])
    assert (last["type"], last["code"], last["field"]) == ("exit_error", 2, "at")
    assert snapshot(project) == before

    stored = records(project)
    assert stored[0].id == emitted.stdout.strip()
    assert len(stored) == 5


def test_subprocess_outside_a_ledger_and_from_a_subfolder(run_cli: RunCli, project: Path,
                                                          tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    env = {"LABLEDGER_ROOT": ""}
    outside = run_cli("emit", "note", "--set", "text=x", env=env, cwd=nowhere)
    assert outside.returncode == 1
    assert "run `labledger init`" in outside.stderr
    assert "Traceback" not in outside.stderr
    assert outside.stdout == ""

    Ledger.init(project)
    nested = project / "a" / "b"
    nested.mkdir(parents=True)
    inside = run_cli("emit", "note", "--set", "text=nested", env=env, cwd=nested)
    assert inside.returncode == 0, inside.stderr
    assert records(project)[0].id == inside.stdout.strip()


# --- a sealed run ------------------------------------------------------------------------------
def test_emit_refuses_a_new_checkpoint_or_start_of_a_sealed_run(
    project: Path, run_cli: RunCli, snapshot: Snapshot, tmp_path: Path
) -> None:
    """`labledger checkpoint` and `labledger run` refuse a sealed run; `emit` (fast path and
    full CLI, with --attach too) does the same, and leaves ledger and store as they were. A
    backfill dated before the seal is history and is taken; notes and verifications are too."""
    assert run_cli("init").returncode == 0
    assert run_cli("emit", "checkpoint.saved", "--run", "s1", "--set", "path=early.pth",
                   "--set", f"digest={DIGEST}", "--set", "size=3").returncode == 0
    sealed = run_cli("emit", "capsule.sealed", "--run", "s1", "--set", "path=export/s1",
                     "--set", f"digest={DIGEST}", "--set", "files=1", "--set", "bytes=3")
    assert sealed.returncode == 0, sealed.stderr
    weights = tmp_path / "late.pth"
    weights.write_bytes(b"late")
    before = snapshot(project)
    late = ("--set", "path=late.pth", "--set", f"digest={DIGEST}", "--set", "size=3")
    for args in (("emit", "checkpoint.saved", "--run", "s1", *late),
                 ("emit", "checkpoint.saved", "--run", "s1", "--json", *late),
                 ("emit", "run.launched", "--run", "s1"),
                 ("emit", "checkpoint.saved", "--run", "s1", *late, "--attach", str(weights))):
        refused = run_cli(*args)
        assert refused.returncode == 2, (args, refused.stderr)
        assert "run 's1' is sealed" in refused.stderr
        assert "new run id" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert snapshot(project) == before, args
    backfill = run_cli("emit", "checkpoint.saved", "--run", "s1", "--at",
                       "2020-01-01T00:00:00Z", *late)
    assert backfill.returncode == 0, backfill.stderr
    for args in (("emit", "note", "--run", "s1", "--set", "text=checked"),
                 ("emit", "checkpoint.saved", "--run", "s2", *late)):
        assert run_cli(*args).returncode == 0, args


# --- progress on a terminal ----------------------------------------------------------------------
def test_ingest_of_a_large_file_shows_a_bar_on_a_terminal_and_none_in_a_pipe(
    project: Path, run_cli: RunCli, tmp_path: Path
) -> None:
    """Ingest of more than ~16 MiB takes seconds: on a terminal (a real pty here) stderr shows
    a bar that reaches 100%; in a pipe, or with -q, only the summary. The events are the same."""
    import os
    import pty

    assert run_cli("init").returncode == 0
    line = (b'{"kind":"run.heartbeat","run":"r%d",'
            b'"body":{"pid":4242,"step":%d,"extra":{"x":"%s"}}}\n')
    data = b"".join(line % (i % 9, i, b"y" * 40) for i in range(170_000))
    assert len(data) > 16 * 1024 * 1024
    source = tmp_path / "big.jsonl"
    source.write_bytes(data)
    exe = Path(sys.executable).with_name("labledger")
    env = {**os.environ, "LABLEDGER_ROOT": str(project), "COLUMNS": "100"}
    main_fd, sub_fd = pty.openpty()
    try:
        proc = subprocess.Popen([str(exe), "ingest", str(source)], stdout=subprocess.DEVNULL,
                                stderr=sub_fd, env=env)
        os.close(sub_fd)
        shown = b""
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=120) == 0
    finally:
        os.close(main_fd)
    text = shown.decode("utf-8", "replace")
    assert f"ingesting {source}" in text
    assert "100%" in text
    assert "appended 170000 events" in text
    piped = run_cli("ingest", str(source))
    assert piped.returncode == 0
    assert piped.stderr == "appended 170000 events\n"
    assert len(records(project)) == 340_000
