"""Numeric options refuse nan and inf as usage errors (exit 2, no traceback), with --json too."""

from __future__ import annotations

import json

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


@pytest.mark.parametrize("args", [
    ["advise", "cadence", "--profile", "runpod", "--checkpoint-seconds", "nan"],
    ["advise", "cadence", "--profile", "runpod", "--mtbf-hours", "inf"],
    ["--json", "advise", "cadence", "--profile", "runpod", "--announced-share", "nan"],
    ["instances", "--idle-hours", "nan"],
    ["instances", "--warn-hours", "inf"],
])
def test_nan_and_inf_are_usage_errors(ledger: Ledger, capsys: pytest.CaptureFixture[str],
                                      args: list[str]) -> None:
    code, out, err = call(capsys, *args)
    assert code == 2
    assert "is not a finite number" in err
    assert "Traceback" not in err
    if args[0] == "--json":
        assert json.loads(err.strip().splitlines()[-1])["type"] == "exit_error"
