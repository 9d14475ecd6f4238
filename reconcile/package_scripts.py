"""What ``npm run NAME`` (and yarn, pnpm, bun) runs: the ``scripts`` of ``package.json``.

npm docs ("scripts", "npm run-script"): ``npm run NAME [-- ARGS]`` runs ``scripts.NAME`` in a
shell, in the folder of the package (the nearest folder up holding a ``package.json``), with
ARGS appended, preceded by ``preNAME`` and followed by ``postNAME`` where they exist;
``npm test|start|stop|restart`` run those scripts; ``yarn NAME``, ``pnpm NAME`` and ``bun
run NAME`` run a script of that name too (where no built-in command has it). Each script is
judged by the agent hook as if typed. A name that is no script runs nothing here.

Invariants: nothing is run; the file is read only where the command names a script.
"""

from __future__ import annotations

import json
import os

__all__ = ["PackageRun", "package_run", "script_lines"]

# each tool's own commands: `yarn install` is no script (a script named so would not run)
_BUILTINS = {
    "npm": {"install", "i", "ci", "uninstall", "update", "exec", "init", "publish", "pack",
            "ls", "list", "link", "config", "cache", "audit", "outdated", "version", "view",
            "help", "prune", "dedupe", "login", "logout", "whoami", "search", "doctor"},
    "yarn": {"install", "add", "remove", "upgrade", "init", "publish", "pack", "link",
             "config", "cache", "info", "list", "why", "dlx", "exec", "workspace",
             "workspaces", "version", "help", "global", "bin", "node", "set", "plugin"},
    "pnpm": {"install", "i", "add", "remove", "rm", "update", "up", "exec", "dlx", "init",
             "publish", "pack", "link", "config", "store", "list", "ls", "why", "audit",
             "outdated", "help", "env", "setup", "create"},
    "bun": set(),  # `bun run NAME` only (`bun NAME` runs a file when one has that name)
}
_NPM_SCRIPT_COMMANDS = {"test": "test", "t": "test", "tst": "test", "start": "start",
                        "stop": "stop", "restart": "restart"}
_FOLDER_OPTIONS = {"--prefix", "-C", "--dir", "--cwd"}
_VALUED = {"--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter", "-F",
           "--loglevel", "--registry"}


class PackageRun:
    """A script run: its name, the folder named for the package (``--prefix``, ``-C``,
    ``--cwd``; "" for where it runs) and the words after ``--`` (appended)."""

    __slots__ = ("extra", "folder", "name")

    def __init__(self, name: str, folder: str, extra: list[str]) -> None:
        self.name, self.folder, self.extra = name, folder, extra


def package_run(tool: str, args: list[str]) -> PackageRun | None:
    """The script ``TOOL ARGS`` runs; None for any other command of the tool."""
    if tool not in _BUILTINS:
        return None
    folder = ""
    words: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            words.append("--")
            words += args[i:]
            break
        option, eq, value = word.partition("=")
        if option in _VALUED:
            if not eq:
                value, i = (args[i] if i < len(args) else ""), i + 1
            if option in _FOLDER_OPTIONS:
                folder = value
            continue
        if word.startswith("-") and not words:
            continue  # a flag before the command (`npm --silent run x`)
        words.append(word)
    if not words:
        return None
    command, rest = words[0], words[1:]
    if command in ("run", "run-script", "rum", "urn"):
        if not rest or rest[0] == "--":
            return None  # lists the scripts
        name, rest = rest[0], rest[1:]
    elif tool == "npm" and command in _NPM_SCRIPT_COMMANDS:
        name = _NPM_SCRIPT_COMMANDS[command]
    elif tool in ("yarn", "pnpm") and command not in _BUILTINS[tool]:
        name = command
    else:
        return None
    # (the words after the name: npm keeps the options before a `--` for itself, as tried
    # with npm 11: `npm run clean --all` runs `clean` alone, `npm run clean x -- --all` it
    # with `x --all`; yarn and pnpm hand every word on)
    if "--" in rest:
        cut = rest.index("--")
        before, after = rest[:cut], rest[cut + 1:]
    else:
        before, after = rest, []
    if tool == "npm":
        before = [w for w in before if not w.startswith("-")]
    return PackageRun(name, folder, before + after)


def package_folder(start: str) -> str | None:
    """The nearest folder from ``start`` up that holds a ``package.json`` (npm's prefix)."""
    folder = os.path.abspath(start)
    while True:
        if os.path.isfile(os.path.join(folder, "package.json")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def script_lines(text: str, run: PackageRun) -> list[tuple[str, str]]:
    """(script name, command line) of what ``run`` runs, in order: ``preNAME``, ``NAME``
    with the extra words appended, ``postNAME``; [] when package.json holds no such script
    or is not a JSON object (or is nested past what Python's parser reads: a RecursionError,
    read as no script)."""
    import shlex

    try:
        scripts = json.loads(text).get("scripts")
    except (ValueError, AttributeError, RecursionError):
        return []
    if not isinstance(scripts, dict) or not isinstance(scripts.get(run.name), str):
        return []
    found = []
    for name in (f"pre{run.name}", run.name, f"post{run.name}"):
        line = scripts.get(name)
        if isinstance(line, str) and line.strip():
            if name == run.name and run.extra:
                line = line + " " + shlex.join(run.extra)
            found.append((name, line))
    return found
