"""What ``pdm run NAME``, ``hatch run NAME`` and ``poe NAME`` run: ``pyproject.toml`` scripts.

Python projects keep their task scripts in ``pyproject.toml``, run by name (each tool's
documentation: pdm "Scripts", hatch "Environment scripts", poethepoet "Tasks"):

* pdm: ``[tool.pdm.scripts]``, ``NAME = "cmd args"`` or ``{cmd = "..." | [...]}`` (run with the
  words after ``NAME`` appended), ``{shell = "..."}`` (a shell line), ``{composite = [...]}``
  (each item a script name or a command, with its words), ``pre_NAME``/``post_NAME`` around it;
* hatch: ``[tool.hatch.envs.ENV.scripts]`` (``hatch run [ENV:]NAME``; ``default`` without
  one), ``NAME = "line"`` or a list of lines, each a shell line (``{args}`` the words after
  ``NAME``; a line naming another script runs that script's lines);
* poethepoet: ``[tool.poe.tasks]``, ``NAME = "cmd"`` or ``{cmd = ...}`` (the words appended),
  ``{shell = ...}``, ``{sequence = [...]}`` (each a task name, or an inline task), ``{ref =
  ...}``.

A ``call``/``script`` task (a Python function) cannot be read here: none. Names are followed
a bounded depth (a script naming itself stops there). Invariants: pure functions over the
text of one ``pyproject.toml``; a text that is no TOML gives none; never raises.
"""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["PYPROJECT_TOOLS", "pyproject_lines"]

PYPROJECT_TOOLS = {"pdm", "hatch", "poe", "poethepoet"}
_DEPTH = 8  # scripts naming scripts, followed this deep
# options of each tool before the script's name that take a value
_VALUED = {"pdm": {"-p", "--project", "--venv", "-c", "--config"},
           "hatch": {"-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "-c"},
           "poe": {"-C", "--directory", "--root", "-e", "--executor", "--ansi"},
           "poethepoet": {"-C", "--directory", "--root", "-e", "--executor", "--ansi"}}


def pyproject_lines(tool: str, args: list[str], text: str) -> list[tuple[str, str]] | None:
    """(script name, shell line) of what ``TOOL ARGS`` runs of the ``pyproject.toml`` text,
    in order; None when it runs no script of it (another command, a name it does not hold,
    a ``--list``)."""
    try:
        import tomllib

        data = tomllib.loads(text)
    except (ValueError, RecursionError):
        return None
    words = _after_options(tool, args)
    if tool == "pdm":
        if words[:1] != ["run"] or len(words) < 2:
            return None
        scripts = _table(data, "tool", "pdm", "scripts")
        return _pdm(scripts, words[1], words[2:], 0) if words[1] in scripts else None
    if tool == "hatch":
        if words[:1] != ["run"] or len(words) < 2:
            return None
        env, _, name = words[1].rpartition(":")
        scripts = _table(data, "tool", "hatch", "envs", env or "default", "scripts")
        return _hatch(scripts, name, words[2:], 0) if name in scripts else None
    tasks = _table(data, "tool", "poe", "tasks")
    if not words or words[0] not in tasks:
        return None
    return _poe(tasks, words[0], tasks[words[0]], words[1:], 0)


def _after_options(tool: str, args: list[str]) -> list[str]:
    """``args`` without the tool's options before its first word (`_VALUED` take one)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        if args[i] in ("-l", "--list", "-h", "--help"):
            return []
        i += 2 if args[i] in _VALUED.get(tool, ()) else 1
    return args[i + (args[i:i + 1] == ["--"]):]


def _words(text: str) -> list[str]:
    """``text`` split as the shell splits it (an open quote: at blanks)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _table(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _joined(command: Any, extra: list[str]) -> str | None:
    """A command given as a string or a list, the words ``extra`` appended, as a line."""
    if isinstance(command, str):
        return " ".join([command, *map(shlex.quote, extra)]) if extra else command
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        return shlex.join([*command, *extra])
    return None


def _pdm(scripts: dict[str, Any], name: str, extra: list[str], depth: int
         ) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if depth > _DEPTH:
        return found
    for hook, words in ((f"pre_{name}", []), (name, extra), (f"post_{name}", [])):
        if hook not in scripts:
            continue
        spec = scripts[hook]
        if isinstance(spec, dict) and isinstance(spec.get("composite"), list):
            for item in spec["composite"]:
                if not isinstance(item, str):
                    continue
                first, *rest = item.split(None, 1) or [""]
                found += _pdm(scripts, first, _words(rest[0]) if rest else [], depth + 1) \
                    if first in scripts else [(hook, item)]
            continue
        line = _joined(spec.get("cmd", spec.get("shell")) if isinstance(spec, dict) else spec,
                       words)
        if line is not None:
            found.append((hook, line))
    return found


def _hatch(scripts: dict[str, Any], name: str, extra: list[str], depth: int
           ) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if depth > _DEPTH:
        return found
    spec = scripts.get(name)
    lines = spec if isinstance(spec, list) else [spec]
    given = shlex.join(extra)
    for line in lines:
        if not isinstance(line, str):
            continue
        first = line.split(None, 1)[0] if line.split() else ""
        if first in scripts and first != name:
            found += _hatch(scripts, first, _words(line)[1:] + extra, depth + 1)
            continue
        filled = line.replace("{args}", given) if "{args" in line else (
            f"{line} {given}" if given else line)
        found.append((name, filled))
    return found


def _poe(tasks: dict[str, Any], name: str, spec: Any, extra: list[str], depth: int
         ) -> list[tuple[str, str]]:
    if depth > _DEPTH:
        return []
    if isinstance(spec, str):
        line = _joined(spec, extra)
        return [(name, line)] if line is not None else []
    if isinstance(spec, list):  # a sequence written as a list
        spec = {"sequence": spec}
    if not isinstance(spec, dict):
        return []
    if "ref" in spec and isinstance(spec["ref"], str):
        first, *rest = spec["ref"].split(None, 1) or [""]
        return _poe(tasks, first, tasks.get(first), _words(rest[0]) if rest else [],
                    depth + 1)
    if isinstance(spec.get("sequence"), list):
        found: list[tuple[str, str]] = []
        for item in spec["sequence"]:
            if isinstance(item, str) and item in tasks:  # (a sequence's strings are refs)
                found += _poe(tasks, item, tasks[item], [], depth + 1)
            elif isinstance(item, dict):
                found += _poe(tasks, name, item, [], depth + 1)
        return found
    for key in ("cmd", "shell"):
        line = _joined(spec.get(key), extra if key == "cmd" else [])
        if line is not None:
            return [(name, line)]
    return []
