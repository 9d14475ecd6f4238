"""Bad input found by the new-user walkthrough (round 32's left-outs), each a test that fails on
the code before its fix: a folder with a FIFO given to `ingest-dir` is bad input (exit 2, not
1), an invalid ``$LABLEDGER_RUN``/``$LABLEDGER_INSTANCE`` is named as the environment's (the
user never typed it on that command line), and a UTF-16 file with its byte-order mark (Excel's
"Unicode Text", older Windows editors) is read, not refused as "not UTF-8 text".
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Cli = Callable[..., subprocess.CompletedProcess[str]]


def test_ingest_dir_of_a_folder_holding_a_fifo_is_bad_input(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    """`cas put` of such a folder already exited 2; `ingest-dir` exited 1 ("the command
    failed"), as if labledger or the disk had failed, for what the user gave it."""
    monkeypatch.chdir(project)
    run = project / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "metrics.json").write_text('{"psnr": 31.4}\n')
    os.mkfifo(run / "progress.pipe")
    before = snapshot(project)
    code, out, err = call(capsys, "ingest-dir", "runs/r1", "--run", "r1")
    assert (code, out) == (2, "")
    assert "progress.pipe is a FIFO" in err
    assert snapshot(project) == before


@pytest.mark.parametrize(("args", "env", "named"), [
    (("emit", "note", "--set", "text=x"), {"LABLEDGER_RUN": "bad run"}, "$LABLEDGER_RUN"),
    (("emit", "note", "--set", "text=x", "--run", "r1"), {"LABLEDGER_INSTANCE": "a/b"},
     "$LABLEDGER_INSTANCE"),
    (("checkpoint", "ckpt.pt"), {"LABLEDGER_RUN": "bad run"}, "$LABLEDGER_RUN"),
    (("ingest-dir", "runs/r1"), {"LABLEDGER_RUN": "r 1"}, "$LABLEDGER_RUN"),
], ids=["emit (fast path)", "emit --run, bad instance", "checkpoint", "ingest-dir"])
def test_an_invalid_id_from_the_environment_is_named_as_such(
        args: tuple[str, ...], env: dict[str, str], named: str, ledger: Ledger,
        project: Path, run_cli: Cli, snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    """It said "field 'run': 'bad run' is not a valid run id", about an id the command line did
    not hold: a shell that exported LABLEDGER_RUN long ago left the user looking for it."""
    (project / "ckpt.pt").write_bytes(b"weights")
    (project / "runs" / "r1").mkdir(parents=True)
    (project / "runs" / "r1" / "metrics.json").write_text('{"psnr": 31.4}\n')
    before = snapshot(project)
    env = {"LABLEDGER_RUN": "", "LABLEDGER_INSTANCE": "", **env}
    done = run_cli(*args, env=env)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert f"{named} is set: " in done.stderr
    assert "not a valid" in done.stderr
    flag = "--instance" if "INSTANCE" in named else "--run"
    assert f"unset it or pass {flag}" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(project) == before


def test_a_valid_id_from_the_environment_is_still_taken(ledger: Ledger, run_cli: Cli) -> None:
    done = run_cli("emit", "note", "--set", "text=x", "--json",
                   env={"LABLEDGER_RUN": "r-env.1", "LABLEDGER_INSTANCE": "box-9"})
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert (record["run"], record["instance"]) == ("r-env.1", "box-9")


@pytest.mark.parametrize("mark", ["utf-16-le", "utf-16-be"])
def test_a_utf16_document_with_its_mark_is_reconciled(
        mark: str, ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A UTF-16 results table (Excel's "Unicode Text") and a UTF-16 README were refused as
    "not UTF-8 text (byte 0: invalid start byte)". With a byte-order mark the reading is
    certain: the claim reads its value from the CSV, and reconcile finds the drift."""
    monkeypatch.chdir(project)
    bom = codecs.BOM_UTF16_LE if mark.endswith("le") else codecs.BOM_UTF16_BE
    run = project / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "results.csv").write_bytes(bom + "method,psnr\nours,31.42\n".encode(mark))
    code, _, err = call(capsys, "ingest-dir", "runs/r1", "--run", "r1")
    assert code == 0, err
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr[-1]",
                        "--from", "results.csv")
    assert code == 0, err
    assert "31.42" in err
    (project / "README.md").write_bytes(bom + "Our PSNR is 31.5 dB.\n".encode(mark))
    code, out, err = call(capsys, "reconcile", "README.md")
    assert code == 3, err
    assert "README.md:1:13: C1 says 31.5, evidence says 31.42" in out + err
    (project / "README.md").write_bytes(bom + "Our PSNR is 31.42 dB.\n".encode(mark))
    code, out, err = call(capsys, "reconcile", "README.md")
    assert code == 0, out + err


def test_utf16_without_its_mark_is_still_refused(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the mark nothing says which encoding it is: refused, never guessed."""
    monkeypatch.chdir(project)
    (project / "README.md").write_bytes("Our PSNR is 31.5 dB.\n".encode("utf-16-le"))
    code, _, err = call(capsys, "reconcile", "README.md")
    assert code == 2
    assert "README.md: not UTF-8 text" in err


def test_sql_json_shows_a_blob_as_hex_and_other_types_as_documented(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A BLOB came out as Python's repr, "b'x'", which no JSON reader can turn back into bytes."""
    monkeypatch.chdir(project)
    code, out, err = call(capsys, "sql", "--json",
                          "select 'x\\x00'::blob as b, interval 90 second as i, "
                          "date '2020-01-02' as d, 1.25::decimal(5, 2) as dec")
    assert code == 0, err
    assert json.loads(out) == [{"b": "7800", "i": 90.0, "d": "2020-01-02", "dec": 1.25}]


@pytest.mark.parametrize(("claims", "said"), [
    ({}, "claims: file has {}, not a list of claims"),
    (None, "claims: file has null, not a list of claims"),
    ([[], "C1"], "claims: item 2 of the file is \"C1\", not a claim (an object)"),
], ids=["an object", "null", "items that are no objects"])
def test_evidence_check_names_a_claims_list_that_is_malformed(claims: object, said: str) -> None:
    """`"claims": {}` in a hand-edited EVIDENCE.json read as "no claims": with none in the
    ledger either, the file was said to hold the same content, differently formatted."""
    from labledger.reconcile.evidence import differences

    document = {"version": "1.0", "claims": []}
    text = json.dumps({"version": "1.0", "claims": claims})
    assert said in differences(text, document)


def test_a_marked_utf16_document_that_does_not_decode_is_named_utf16(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its mark says UTF-16: "not UTF-8 text" sent the user to the wrong encoding."""
    monkeypatch.chdir(project)
    (project / "README.md").write_bytes(codecs.BOM_UTF16_LE + b"h\x00i")  # an odd byte
    code, _, err = call(capsys, "reconcile", "README.md")
    assert code == 2
    assert ("README.md: not UTF-16 text (it starts with a UTF-16 byte-order mark) (byte 4: "
            "truncated data)") in err
