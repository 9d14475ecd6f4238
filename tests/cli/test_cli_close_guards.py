"""`labledger close` and `checkpoint` bad input through the CLI: exit codes, messages, no
traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def test_an_export_root_under_a_file_exits_2_without_a_traceback(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, project: Path
) -> None:
    (project / "active" / "e1").mkdir(parents=True)
    (project / "afile").write_text("\n")
    code, out, err = call(capsys, "close", "active/e1", "--run", "e1", "--export-root",
                          "afile/sub")
    assert code == 2
    assert "Traceback" not in err
    assert "afile" in err
    assert "not a directory" in err
    assert list(ledger.records()) == []
    assert (project / "afile").read_text() == "\n"


def test_close_without_a_run_id_says_close_needs_one(
    capsys: pytest.CaptureFixture[str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LABLEDGER_RUN", raising=False)
    (project / "active" / "e2").mkdir(parents=True)
    code, _out, err = call(capsys, "close", "active/e2", "--export-root", "export")
    assert code == 2
    assert "checkpoint.saved" not in err
    assert "close" in err
    assert "--run" in err


def test_an_empty_checkpoint_is_recorded_with_a_warning(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, project: Path
) -> None:
    (project / "empty.pth").write_bytes(b"")
    code, _out, err = call(capsys, "checkpoint", "empty.pth", "--run", "z1")
    assert code == 0
    assert "empty" in err
    assert "0 bytes" in err
    assert [r.kind for r in ledger.records()] == ["checkpoint.saved"]
