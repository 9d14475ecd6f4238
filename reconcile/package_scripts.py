"""What ``npm run NAME`` (and yarn, pnpm, bun) runs: the ``scripts`` of ``package.json``.

npm docs ("scripts", "npm run-script"): ``npm run NAME [-- ARGS]`` runs ``scripts.NAME`` in a
shell, in the folder of the package (the nearest folder up holding a ``package.json``), with
ARGS appended, preceded by ``preNAME`` and followed by ``postNAME`` where they exist;
``npm test|start|stop|restart`` run those scripts; ``yarn NAME``, ``pnpm NAME`` and ``bun
run NAME`` run a script of that name too (where no built-in command has it). Each script is
judged by the agent hook as if typed. A name that is no script runs nothing here. As npm 11
does: ``npm install``/``npm ci`` naming no package run the package's own lifecycle scripts
(preinstall, install, postinstall, prepublish, preprepare, prepare, postprepare);
``npm restart`` without a restart script runs stop and start; ``-w NAME``/``--workspaces``
run the scripts of those workspaces (named or by folder) in their folders; a byte order mark
before the JSON is read past.

Invariants: nothing is run; the file is read only where the command names a script or
installs.
"""

from __future__ import annotations

import json
import os

__all__ = ["PackageRun", "install_run", "package_run", "script_lines", "workspace_folders"]

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
_WORKSPACE = {"-w", "--workspace"}
_EVERY_WORKSPACE = {"--workspaces", "-ws", "--ws"}
_PNPM_ROOT = {"-w", "--workspace-root"}  # pnpm: the workspace's root package, whatever the cwd


class PackageRun:
    """A script run: its name, the folder named for the package (``--prefix``, ``-C``,
    ``--cwd``; "" for where it runs), the words after ``--`` (appended), the workspaces
    named (``-w NAME``; ``every``: ``--workspaces``, all of them, the root not),
    ``install``: npm's install lifecycle (`_INSTALL`) rather than one script, and
    ``workspace_root``: pnpm's ``-w``/``--workspace-root``, the script of the workspace's
    root package (`workspace_root`)."""

    __slots__ = ("every", "extra", "folder", "install", "name", "workspace_root", "workspaces")

    def __init__(self, name: str, folder: str, extra: list[str]) -> None:
        self.name, self.folder, self.extra = name, folder, extra
        self.workspaces: list[str] = []
        self.every = False
        self.install = False
        self.workspace_root = False


# what `npm install`/`npm ci` with no package named run of the package's own scripts, in order
# (npm docs, "scripts", "Life Cycle Operation"; as npm 11 runs them)
_INSTALL = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare",
            "postprepare")
_NPM_INSTALLS = {"install": "", "i": "", "in": "", "ins": "", "inst": "", "insta": "",
                 "instal": "", "isnt": "", "isntal": "", "isntall": "", "add": "", "ci": "",
                 "clean-install": "", "ic": "", "install-clean": "", "isntall-clean": "",
                 "install-test": "test", "it": "test", "install-ci-test": "test", "cit": "test",
                 "clean-install-test": "test", "sit": "test"}


def package_run(tool: str, args: list[str]) -> PackageRun | None:
    """The script ``TOOL ARGS`` runs; None for any other command of the tool."""
    if tool not in _BUILTINS:
        return None
    folder, words, workspaces, every = _options(tool, args)
    if not words:
        return None
    at_root = tool == "pnpm" and bool(_PNPM_ROOT & set(args[:args.index(words[0])]))
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
    run = PackageRun(name, folder, before + after)
    run.workspaces, run.every, run.workspace_root = workspaces, every, at_root
    return run


def _options(tool: str, args: list[str]) -> tuple[str, list[str], list[str], bool]:
    """(the folder named, the words left, the workspaces named, ``--workspaces``) of
    ``TOOL ARGS``: the tool's options before its command are read and left out."""
    folder = ""
    words: list[str] = []
    workspaces: list[str] = []
    every = False
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            words.append("--")
            words += args[i:]
            break
        option, eq, value = word.partition("=")
        if option in _VALUED and (option != "-w" or tool == "npm"):  # (pnpm's: a flag)
            if not eq:
                value, i = (args[i] if i < len(args) else ""), i + 1
            if option in _FOLDER_OPTIONS:
                folder = value
            elif option in _WORKSPACE and tool == "npm":
                workspaces.append(value)
            continue
        if tool == "npm" and option in _EVERY_WORKSPACE and value in ("", "true"):
            every = True
            continue
        if word.startswith("-") and not words:
            continue  # a flag before the command (`npm --silent run x`)
        words.append(word)
    return folder, words, workspaces, every


def install_run(tool: str, args: list[str]) -> PackageRun | None:
    """The package's own lifecycle scripts ``npm install``/``npm ci`` (``install-test``:
    then ``test``) runs where it names no package (`_INSTALL`); None for any other command.
    (Checked with npm 11: ``npm install ./dep`` runs none of them.)"""
    if tool != "npm":
        return None
    folder, words, workspaces, every = _options(tool, args)
    if not words or words[0] not in _NPM_INSTALLS or words[0] == "add":
        return None
    if any(not w.startswith("-") for w in words[1:]):
        return None  # `npm install PKG`: the package's own scripts are not run
    run = PackageRun(_NPM_INSTALLS[words[0]] or "install", folder, [])
    run.install, run.workspaces, run.every = True, workspaces, every
    return run


def workspace_folders(root: str, text: str, run: PackageRun) -> list[str]:
    """The folders of the workspaces ``run`` names (``-w NAME``: a workspace's name or its
    folder; ``--workspaces``: every one) among those the root's package.json lists
    (``"workspaces": [GLOB, ...]`` or ``{"packages": [...]}``), sorted; each has a
    package.json."""
    import glob

    try:
        listed = json.loads(text.removeprefix("\ufeff")).get("workspaces")
    except (ValueError, AttributeError, RecursionError):
        return []
    if isinstance(listed, dict):
        listed = listed.get("packages")
    if not isinstance(listed, list):
        return []
    folders: list[str] = []
    for pattern in listed:
        if isinstance(pattern, str) and not os.path.isabs(pattern):
            folders += sorted(glob.glob(os.path.join(glob.escape(root), pattern)))[:256]
    found = []
    for folder in dict.fromkeys(os.path.normpath(f) for f in folders):
        if not os.path.isfile(os.path.join(folder, "package.json")):
            continue
        if run.every or any(os.path.normpath(os.path.join(root, w)) == folder
                            or _package_name(folder) == w for w in run.workspaces):
            found.append(folder)
    return found


def _package_name(folder: str) -> str | None:
    try:
        with open(os.path.join(folder, "package.json"), encoding="utf-8-sig") as f:
            name = json.loads(f.read(1 << 20)).get("name")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return name if isinstance(name, str) else None


def workspace_root(start: str) -> str | None:
    """The root of the pnpm workspace holding ``start``: the nearest folder from it up that
    holds a ``pnpm-workspace.yaml`` (as pnpm 9 finds it; none: pnpm refuses ``-w``)."""
    folder = os.path.abspath(start)
    while not os.path.isfile(os.path.join(folder, "pnpm-workspace.yaml")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return folder


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
    with the extra words appended, ``postNAME`` (npm's install lifecycle for ``run.install``,
    then ``test`` for ``npm install-test``; ``restart`` without a script of that name: stop,
    then start, as npm does); [] when package.json holds no such script or is not a JSON
    object (or is nested past what Python's parser reads: a RecursionError, read as no
    script). A byte order mark before it is read past, as npm does."""
    try:
        scripts = json.loads(text.removeprefix("\ufeff")).get("scripts")
    except (ValueError, AttributeError, RecursionError):
        return []
    if not isinstance(scripts, dict):
        return []
    found = []
    if run.install:
        found = [(name, scripts[name]) for name in _INSTALL
                 if isinstance(scripts.get(name), str) and scripts[name].strip()]
        if run.name == "install":
            return found
    if run.name == "restart" and not isinstance(scripts.get("restart"), str):
        around = _around(scripts, "restart", [])
        stop, start = _around(scripts, "stop", []), _around(scripts, "start", [])
        return around[:1] + stop + start + around[1:] if around else stop + start
    if not isinstance(scripts.get(run.name), str):
        return found
    return found + _around(scripts, run.name, run.extra)


def _around(scripts: dict[str, object], name: str, extra: list[str]) -> list[tuple[str, str]]:
    """``preNAME``, ``NAME`` with ``extra`` appended, ``postNAME``: those there."""
    import shlex

    found = []
    for each in (f"pre{name}", name, f"post{name}"):
        line = scripts.get(each)
        if isinstance(line, str) and line.strip():
            if each == name and extra:
                line = line + " " + shlex.join(extra)
            found.append((each, line))
    return found
