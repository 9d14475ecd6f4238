"""QA sweep: inputs that ended in tracebacks or were silently accepted (real CLI processes).

Every refusal: the documented exit code, a one-line message naming what and where, and the
ledger byte-for-byte unchanged. Permission tests drop root's override with `setpriv` (so they
run as root too) and run as-is for a non-root user.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import permissions_enforced

LABLEDGER = Path(sys.executable).with_name("labledger")
DIGEST = "blake3:" + "0" * 64


def _cli(*args: str, cwd: Path, no_override: bool = False) -> subprocess.CompletedProcess[str]:
    command = [str(LABLEDGER), *args]
    if no_override:
        command = permissions_enforced(command)
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60,
                          check=False)


@pytest.fixture
def proj(project: Path) -> Path:
    assert _cli("init", cwd=project).returncode == 0
    assert _cli("emit", "note", "--set", "text=first", cwd=project).returncode == 0
    return project


def _refused(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in last, last
    return last


def _deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def _line(body: dict[str, object] | str, **envelope: str) -> str:
    text = body if isinstance(body, str) else json.dumps(body)
    head = "".join(f'"{k}":{json.dumps(v)},' for k, v in envelope.items())
    return '{"kind":"note",' + head + '"body":' + text + "}"


Snap = Callable[[Path], dict[str, bytes]]


# --- 1: nesting ------------------------------------------------------------------------------
@pytest.mark.parametrize("levels", [300, 2000])
def test_ingest_refuses_deep_nesting(proj: Path, snapshot: Snap, levels: int) -> None:
    (proj / "d.jsonl").write_text(_line(f'{{"text":"x","extra":{_deep(levels)}}}') + "\n")
    before = snapshot(proj / ".labledger")
    _refused(_cli("ingest", "d.jsonl", cwd=proj), 2, "d.jsonl:1", "nested too deeply",
             "more than 256 levels")
    proc = _cli("--json", "ingest", "d.jsonl", cwd=proj)
    error = json.loads(proc.stderr.strip().splitlines()[-1])
    assert error["type"] == "exit_error"
    assert error["code"] == 2
    assert error["line"] == 1
    assert snapshot(proj / ".labledger") == before


def test_ingest_keeps_nesting_within_the_limit(proj: Path) -> None:
    (proj / "ok.jsonl").write_text(_line(f'{{"text":"x","extra":{_deep(200)}}}') + "\n")
    assert _cli("ingest", "ok.jsonl", cwd=proj).returncode == 0


@pytest.mark.parametrize("levels", [300, 2000])
def test_emit_data_refuses_deep_nesting(proj: Path, snapshot: Snap, levels: int) -> None:
    data = f'{{"text":"x","extra":{_deep(levels)}}}'
    before = snapshot(proj / ".labledger")
    _refused(_cli("emit", "note", "--data", data, cwd=proj), 2, "nested too deeply")
    # The full CLI (here: --json) too; past the decoder's own limit, the central safety net.
    proc = _cli("--json", "emit", "note", "--data", data, cwd=proj)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1])["code"] == 2
    assert snapshot(proj / ".labledger") == before


def test_python_api_refuses_deep_nesting(project: Path) -> None:
    from labledger.ledger import Ledger
    from labledger.ledger.errors import InvalidEventError

    deep: dict[str, object] = {}
    node = deep
    for _ in range(3000):
        node["a"] = {}
        node = node["a"]  # type: ignore[assignment]
    with Ledger.init(project) as led, pytest.raises(InvalidEventError,
                                                     match="nested too deeply") as info:
        led.append("note", text="x", extra=deep)
    assert info.value.field == "extra"


def test_exit_code_for_maps_decoder_recursion_and_permissions() -> None:
    from labledger.ledger.cli._errors import exit_code_for

    with pytest.raises(RecursionError) as info:
        json.loads("[" * 100_000)
    assert exit_code_for(info.value) == 2
    assert exit_code_for(RecursionError("maximum recursion depth exceeded")) is None  # a bug
    assert exit_code_for(PermissionError(13, "Permission denied", "x")) == 1


# --- 2: unreadable files -----------------------------------------------------------------------
def _needs_enforced_permissions(path: Path) -> None:
    probe = _cli("cas", "--help", cwd=path, no_override=True)
    assert probe.returncode == 0, probe.stderr


def test_unreadable_config(proj: Path) -> None:
    _needs_enforced_permissions(proj)
    config = proj / ".labledger" / "config.toml"
    config.chmod(0)
    try:
        for args in (["log"], ["emit", "note", "--set", "text=x"], ["check"]):
            _refused(_cli(*args, cwd=proj, no_override=True), 1, str(config),
                     "cannot read (Permission denied)")
    finally:
        config.chmod(0o644)


def test_unreadable_segment(proj: Path, snapshot: Snap) -> None:
    _needs_enforced_permissions(proj)
    (segment,) = (proj / ".labledger" / "ledger").rglob("*.jsonl")
    before = snapshot(proj / ".labledger")
    segment.chmod(0)
    try:
        _refused(_cli("emit", "note", "--set", "text=x", cwd=proj, no_override=True), 1,
                 str(segment), "Permission denied")
        _refused(_cli("emit", "--json", "note", "--set", "text=x", cwd=proj,
                      no_override=True), 1, "Permission denied")
        # log and sql read through query.py: exit 1 naming the file.
        for args in (["log"], ["sql", "select 1"]):
            _refused(_cli(*args, cwd=proj, no_override=True), 1, str(segment),
                     "Permission denied")
        _refused(_cli("check", cwd=proj, no_override=True), 3)
    finally:
        segment.chmod(0o644)
    assert snapshot(proj / ".labledger") == before


def test_unreadable_segment_through_python_reader(project: Path) -> None:
    """`Ledger.records` (read.py) names the file and exits 1, not a traceback."""
    code = ("from labledger.ledger import Ledger\n"
            "list(Ledger.open().records())\n")
    assert _cli("init", cwd=project).returncode == 0
    assert _cli("emit", "note", "--set", "text=x", cwd=project).returncode == 0
    (segment,) = (project / ".labledger" / "ledger").rglob("*.jsonl")
    segment.chmod(0)
    try:
        proc = subprocess.run(permissions_enforced([sys.executable, "-c", code]), cwd=project,
                              capture_output=True, text=True, timeout=60, check=False)
    finally:
        segment.chmod(0o644)
    assert "LedgerError" in proc.stderr
    assert "cannot read (Permission denied)" in proc.stderr


def test_unreadable_object(proj: Path) -> None:
    _needs_enforced_permissions(proj)
    (proj / "f.txt").write_text("hello\n")
    digest = _cli("cas", "put", "f.txt", cwd=proj).stdout.split()[0]
    (obj,) = (proj / ".labledger" / "cas" / "objects").rglob(digest[7 + 2:])
    obj.chmod(0)
    try:
        _refused(_cli("cas", "cat", digest, cwd=proj, no_override=True), 1, digest,
                 "Permission denied")
        _refused(_cli("cas", "stat", digest, cwd=proj, no_override=True), 1, "Permission denied")
        proc = _cli("check", "--deep", cwd=proj, no_override=True)
        assert proc.returncode == 3, proc.stderr
        assert "Traceback" not in proc.stderr
        assert f"corruption: object {digest}: content could not be read; left in place at " \
            in proc.stdout
    finally:
        obj.chmod(0o444)
    assert obj.exists()  # left in place: a permission is not corruption
    log = _cli("log", cwd=proj).stdout
    assert "object.quarantined" not in log  # nothing was moved, so nothing is recorded as moved
    assert _cli("check", "--deep", cwd=proj).returncode == 0  # readable again: whole again


# --- 3: integers past 64 bits ------------------------------------------------------------------
@pytest.mark.parametrize(("body", "field"), [
    ({"path": "a", "digest": DIGEST, "size": 1, "step": 123456789012345678901234567890},
     "step"),
    ({"path": "a", "digest": DIGEST, "size": 2**63}, "size"),
    ({"path": "a", "digest": DIGEST, "size": 1, "extra": {"x": [1, -(2**64)]}}, "extra.x[1]"),
])
def test_ingest_refuses_integers_past_64_bits(proj: Path, snapshot: Snap,
                                              body: dict[str, object], field: str) -> None:
    line = json.dumps({"kind": "checkpoint.saved", "run": "r1", "body": body})
    (proj / "big.jsonl").write_text(_line({"text": "ok"}) + "\n" + line + "\n")
    before = snapshot(proj / ".labledger")
    _refused(_cli("ingest", "big.jsonl", cwd=proj), 2, "big.jsonl:2", f"field '{field}'",
             "integer out of range")
    assert snapshot(proj / ".labledger") == before


def test_ingest_keeps_64_bit_integers(proj: Path) -> None:
    body = {"path": "a", "digest": DIGEST, "size": 2**63 - 1, "step": 0,
            "extra": {"x": -(2**63), "y": "1234567890123456789012"}}
    (proj / "ok.jsonl").write_text(json.dumps({"kind": "checkpoint.saved", "run": "r1",
                                                 "body": body}) + "\n")
    assert _cli("ingest", "ok.jsonl", cwd=proj).returncode == 0


# --- 4: gc --grace -----------------------------------------------------------------------------
@pytest.mark.parametrize("grace", ["-5d", "-1", "nan", "inf", "1e400s", "NaNd"])
def test_gc_refuses_negative_and_non_finite_grace(proj: Path, grace: str) -> None:
    (proj / "f.txt").write_text("unreferenced\n")
    assert _cli("cas", "put", "f.txt", cwd=proj).returncode == 0
    _refused(_cli("cas", "gc", "--no-dry-run", f"--grace={grace}", cwd=proj), 2, "--grace")
    assert len(list((proj / ".labledger" / "cas" / "objects").rglob("*"))) == 2  # fan + object


# --- 5: duplicate keys -------------------------------------------------------------------------
@pytest.mark.parametrize("data", ['{"text":"a","text":"b"}', '{"text":"a","extra":{"x":1,"x":2}}'])
@pytest.mark.parametrize("form", [[], ["--json"], ["--at", "2024-01-01T00:00:00Z"]])
def test_emit_data_refuses_duplicate_keys(proj: Path, snapshot: Snap, data: str,
                                          form: list[str]) -> None:
    # the plain form is the fast path; --json and --at go through the full CLI: the same answer
    before = snapshot(proj / ".labledger")
    _refused(_cli("emit", *form, "note", "--data", data, cwd=proj), 2, "field '--data'",
             "given twice")
    assert snapshot(proj / ".labledger") == before


@pytest.mark.parametrize("form", [[], ["--json"]])
def test_emit_data_nested_too_deeply_is_refused_by_every_form(proj: Path, snapshot: Snap,
                                                              form: list[str]) -> None:
    before = snapshot(proj / ".labledger")
    data = '{"text":"x","extra":' + '{"a":' * 2000 + "1" + "}" * 2000 + "}"
    _refused(_cli("emit", *form, "note", "--data", data, cwd=proj), 2, "nested too deeply")
    assert snapshot(proj / ".labledger") == before


# --- 6: messages -------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    ("", "is empty"),
    ("# nothing here\n", "is empty"),
    ("segment_per_process = false\n", "has no `format` key"),
])
def test_config_without_format_says_so(proj: Path, text: str, words: str) -> None:
    (proj / ".labledger" / "config.toml").write_text(text)
    last = _refused(_cli("log", cwd=proj), 1, words, "format = 1")
    assert "upgrade" not in last


def test_ingest_names_a_lone_surrogate_and_a_bom(proj: Path, snapshot: Snap) -> None:
    before = snapshot(proj / ".labledger")
    (proj / "s.jsonl").write_text(_line({"text": "ok"}) + "\n" + _line('{"text":"a\\ud800"}')
                                  + "\n")
    _refused(_cli("ingest", "s.jsonl", cwd=proj), 2, "s.jsonl:2", "lone surrogate")
    (proj / "b.jsonl").write_bytes(b"\xef\xbb\xbf" + _line({"text": "a"}).encode() + b"\n")
    _refused(_cli("ingest", "b.jsonl", cwd=proj), 2, "b.jsonl:1", "byte-order mark")
    assert snapshot(proj / ".labledger") == before
    (proj / "p.jsonl").write_text(_line('{"text":"a\\ud83d\\ude00"}') + "\n")  # a pair: fine
    assert _cli("ingest", "p.jsonl", cwd=proj).returncode == 0


# --- 7: times in the future --------------------------------------------------------------------
def test_emit_and_ingest_refuse_future_times(proj: Path, snapshot: Snap) -> None:
    before = snapshot(proj / ".labledger")
    _refused(_cli("emit", "note", "--at", "9999-12-31T23:59:59Z", "--set", "text=x", cwd=proj),
             2, "field 'at'", "in the future")
    (proj / "f.jsonl").write_text(_line({"text": "x"}, at="2999-01-01T00:00:00Z") + "\n")
    _refused(_cli("ingest", "f.jsonl", cwd=proj), 2, "f.jsonl:1", "field 'at'", "in the future")
    assert snapshot(proj / ".labledger") == before
    (proj / "p.jsonl").write_text(_line({"text": "x"}, at="2020-01-01T00:00:00Z") + "\n")
    assert _cli("ingest", "p.jsonl", cwd=proj).returncode == 0
    assert _cli("emit", "note", "--at", "2020-01-01", "--set", "text=x",
                cwd=proj).returncode == 0


def test_future_allowance_matches_the_instance_commands() -> None:
    from labledger.ledger._time import FUTURE_TOLERANCE_S
    from labledger.reconcile.rental import FUTURE_TOLERANCE

    assert FUTURE_TOLERANCE.total_seconds() == FUTURE_TOLERANCE_S


# --- 8: RFC 3339 years -------------------------------------------------------------------------
def test_instances_now_is_rfc3339_for_early_years(proj: Path) -> None:
    proc = _cli("--json", "instances", "--now", "0001-01-02T00:00:00Z", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["now"] == "0001-01-02T00:00:00.000000Z"


def test_fast_path_depth_limit_matches_events() -> None:
    from labledger.ledger import _fast_body, events

    assert _fast_body.MAX_DEPTH == events.MAX_DEPTH
