"""`labledger hook` on an agent's file tools: Claude Code's Write, Edit, MultiEdit and
NotebookEdit (``tool_input.file_path``, ``notebook_path``), Gemini CLI's write_file and
replace (``file_path``).

A shell write onto the ledger's settings, the ledger, or a file of a capsule whose stored copy
does not verify is refused (`test_hook_writes`); the same write through the agent's Edit tool
was never judged (no ``command`` in the payload), so an agent could empty hook.toml's
``export-roots`` with Edit and then delete ``results`` with ``rm``. Each file tool is now judged
as the shell write it amounts to (`hook.file_tool_write`): a whole file written as ``tee PATH``,
an edit as ``sed -i '' PATH``. Payload shapes: Claude Code's hooks reference (PreToolUse input:
``tool_name``, ``tool_input.file_path``; NotebookEdit's ``notebook_path``), Gemini CLI's tools
(``write_file``, ``replace``: ``file_path``).

The project is `test_hook_writes`'s (``capsules/c2`` unverified, ``capsules/c3`` verified,
``results`` an export root), judged through the real console script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.reconcile.hook import extract_command
from tests.reconcile.test_hook_writes import box  # noqa: F401 - the project fixture

EXE = Path(sys.executable).with_name("labledger")
EDITS = [("Edit", "file_path"), ("MultiEdit", "file_path"), ("NotebookEdit", "notebook_path"),
         ("replace", "file_path")]
WRITES = [("Write", "file_path"), ("write_file", "file_path")]


def _hook(project: Path, tool: str, key: str, path: str) -> subprocess.CompletedProcess[str]:
    payload = {"tool_name": tool, "tool_input": {key: path, "content": "x = 1\n",
                                                 "old_string": "1", "new_string": "2"},
               "cwd": str(project)}
    return subprocess.run([str(EXE), "hook"], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=project, timeout=120, check=False)


@pytest.mark.parametrize(("tool", "key"), EDITS + WRITES)
@pytest.mark.parametrize("path", [".labledger/hook.toml", ".labledger/config.toml",
                                  "capsules/c2/metrics.json", "results/r1/notes.txt"])
def test_a_file_tool_onto_protected_bytes_is_blocked(
        box: Path, tool: str, key: str, path: str) -> None:  # noqa: F811
    before = (box / path).read_bytes()
    for written in (path, str(box / path)):  # relative to the payload's cwd, or absolute
        result = _hook(box, tool, key, written)
        assert result.returncode == 2, (tool, written, result.stderr)
        assert "blocked" in result.stderr
        assert path.split("/")[-1] in result.stderr
    assert (box / path).read_bytes() == before


@pytest.mark.parametrize(("tool", "key"), EDITS + WRITES)
@pytest.mark.parametrize("path", ["src/train.py", "notes.txt", "capsules/c3/metrics.json",
                                  ".labledger/cache/notes.txt", "../scratch/x.py"])
def test_a_file_tool_elsewhere_passes(box: Path, tool: str, key: str, path: str) -> None:  # noqa: F811
    result = _hook(box, tool, key, str(box / path))
    assert result.returncode == 0, (tool, path, result.stderr)
    assert result.stderr == ""


@pytest.mark.parametrize(("tool", "key"), WRITES)
def test_a_new_file_written_into_a_capsule_passes(box: Path, tool: str, key: str) -> None:  # noqa: F811
    # a run writes new files into its capsule: nothing there is lost
    assert _hook(box, tool, key, str(box / "capsules/c2/plot.png")).returncode == 0


@pytest.mark.parametrize("payload", [
    {"tool_name": "Read", "tool_input": {"file_path": "/p/.labledger/hook.toml"}},
    {"tool_name": "Write", "tool_input": {"content": "x"}},  # no path: nothing to judge
    {"tool_name": "Write", "tool_input": {"file_path": ""}},
    {"tool_name": "Write", "tool_input": {"file_path": 7}},
    {"tool_name": "Glob", "tool_input": {"pattern": "**/*.py"}},
])
def test_other_tools_run_no_command(payload: dict) -> None:
    assert extract_command(payload) == (None, None)


def test_a_path_with_shell_characters_is_one_word() -> None:
    command, _ = extract_command({"tool_name": "Write", "tool_input": {
        "file_path": "/p/a b; rm -rf ~/$(x).py"}})
    assert command == "tee '/p/a b; rm -rf ~/$(x).py'"
