"""The agent settings snippets in docs/agent-hook.md parse and install `labledger hook`.

The console session on that page (run by test_docs_commands.py) feeds the hook each agent's
payload; this checks the settings that make the agent call it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[2] / "docs" / "agent-hook.md"
BLOCK = re.compile(r"^```(json|toml)\n(.*?)^```$", re.S | re.M)


def _snippets() -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {"json": [], "toml": []}
    for lang, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        found[lang].append(json.loads(body) if lang == "json" else tomllib.loads(body))
    return found


def _hooks(settings: Any, event: str) -> list[tuple[str, dict[str, Any]]]:
    return [(group.get("matcher"), hook) for group in settings["hooks"][event]
            for hook in group["hooks"]]


def test_claude_code_and_codex_json_run_the_hook_before_bash() -> None:
    settings = [s for s in _snippets()["json"] if "PreToolUse" in s["hooks"]]
    assert len(settings) == 2  # Claude Code (with its file tools), Codex hooks.json
    hook = {"type": "command", "command": "labledger hook", "timeout": 300}
    assert _hooks(settings[0], "PreToolUse") == [
        ("Bash|Write|Edit|MultiEdit|NotebookEdit", hook)]
    # Codex: its shell, and its file edits (the tool apply_patch)
    assert _hooks(settings[1], "PreToolUse") == [("Bash|apply_patch", hook)]


def test_gemini_runs_the_hook_before_shell_commands() -> None:
    settings = [s for s in _snippets()["json"] if "BeforeTool" in s["hooks"]]
    assert len(settings) == 1
    [(matcher, hook)] = _hooks(settings[0], "BeforeTool")
    assert matcher == "run_shell_command|write_file|replace"
    assert hook["type"] == "command"
    assert hook["command"] == "labledger hook"


def test_codex_toml_is_the_same_hook() -> None:
    [config] = _snippets()["toml"]
    assert _hooks(config, "PreToolUse") == [
        ("Bash|apply_patch", {"type": "command", "command": "labledger hook", "timeout": 300})]
