"""The hot paths stay light: importing the ledger and `labledger emit` never import heavy packages.

Each check runs in a fresh interpreter and reads `sys.modules` at exit, so what an earlier test
imported cannot hide a regression.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

HEAVY = ("duckdb", "pyarrow", "torch", "paramiko", "numpy", "pandas")

# Runs the code under test, then prints the heavy top-level modules that were imported, whatever
# way the code under test exits (main() always raises SystemExit).
WRAPPER = """
import atexit, json, sys
HEAVY = {heavy!r}
def report():
    loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set(HEAVY))
    sys.stderr.write("\\nLOADED=" + json.dumps(loaded) + "\\n")
atexit.register(report)
{body}
"""


def loaded_heavy(body: str, cwd: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    code = WRAPPER.format(heavy=HEAVY, body=body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, timeout=120, check=False)
    marker = [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")]
    assert marker, proc.stderr
    return json.loads(marker[-1].removeprefix("LOADED=")), proc


def test_wrapper_detects_a_heavy_import(project: Path) -> None:
    """The probe itself works: importing the query layer does show duckdb."""
    loaded, proc = loaded_heavy("import labledger.ledger.query", project)
    assert proc.returncode == 0, proc.stderr
    assert "duckdb" in loaded


def test_importing_the_ledger_api_and_cli_is_light(project: Path) -> None:
    loaded, proc = loaded_heavy(
        "import labledger, labledger.ledger, labledger.ledger.ledger, labledger.ledger.events, "
        "labledger.ledger.cli\n"
        "from labledger.ledger import Ledger, EventInput, Record, KINDS, json_schema", project)
    assert proc.returncode == 0, proc.stderr
    assert loaded == []


def test_api_append_is_light(project: Path) -> None:
    Ledger.init(project)
    loaded, proc = loaded_heavy(
        "from labledger.ledger import Ledger\n"
        "with Ledger.open() as led:\n"
        "    led.append('note', text='x', run='r1')\n"
        "    led.append_batch([{'kind': 'note', 'body': {'text': 'y'}}])\n"
        "    assert len(list(led.records())) == 2\n", project)
    assert proc.returncode == 0, proc.stderr
    assert loaded == []


@pytest.mark.parametrize("argv", [
    ["emit", "note", "--set", "text=x"],
    ["emit", "checkpoint.saved", "--run", "r1", "--set", "path=p", "--set",
     "digest=blake3:" + "0" * 64, "--set", "size=3", "--json"],
    ["emit", "note", "--set", "text=x", "--at", "2024-01-01T00:00:00Z"],
    ["emit", "note", "--set", "txt=bad"],  # the error path too
    ["schema", "note"],
    ["--help"],
])
def test_cli_emit_is_light(project: Path, argv: list[str]) -> None:
    Ledger.init(project)
    loaded, proc = loaded_heavy(
        f"from labledger.ledger.cli import main\nmain({argv!r})", project)
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    assert loaded == []


def test_emit_through_the_console_script_is_light(project: Path) -> None:
    """`python -X importtime` of the real entry point lists every module it imported."""
    Ledger.init(project)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from labledger.ledger.cli import main; "
         "sys.argv = ['labledger', 'emit', 'note', '--set', 'text=x']; main()"],
        capture_output=True, text=True, cwd=project, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0]
                for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "msgspec" in imported  # the probe sees imports at all
    assert imported.isdisjoint(HEAVY), sorted(imported & set(HEAVY))
