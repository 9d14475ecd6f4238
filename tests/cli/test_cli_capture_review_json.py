"""Capture review through the CLI: warnings reach stderr with --json, and the refusals of
`close` and `ingest-dir` at the project root exit 2 without a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def test_an_empty_checkpoint_warns_on_stderr_with_json_too(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, project: Path
) -> None:
    # docs/json-shapes.md: with --json "warnings ... still go to stderr"; this one was dropped.
    (project / "empty.pth").write_bytes(b"")
    code, out, err = call(capsys, "--json", "checkpoint", "empty.pth", "--run", "z1")
    assert code == 0
    assert json.loads(out)["body"]["size"] == 0
    assert "empty" in err
    assert "0 bytes" in err


@pytest.mark.parametrize("args", [
    ("ingest-dir", ".", "--run", "whole"),
    ("close", ".", "--run", "whole", "--export-root", "../export", "--move"),
])
def test_the_project_root_is_refused_with_exit_2(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, project: Path, args: tuple[str, ...]
) -> None:
    (project / "train.csv").write_text("step,loss\n1,0.5\n")
    code, out, err = call(capsys, *args)
    assert code == 2
    assert "Traceback" not in err
    assert "ledger" in err
    assert out == ""
    assert list(ledger.records()) == []
    assert (project / ".labledger").is_dir()
    assert not (project.parent / "export").exists()
