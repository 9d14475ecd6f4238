"""`labledger hook` against ``npm run NAME`` (yarn, pnpm, bun): the ``package.json`` scripts.

npm's documentation ("npm run-script": "runs an arbitrary command from a package's "scripts"
object ... any positional arguments are passed to the specified script"; "scripts": "pre and
post commands with matching names will be run for those as well") and yarn's and pnpm's
(``yarn <script>``, ``pnpm <script>``: a script of that name where no command has it). A
``"clean": "rm -rf outputs checkpoints"`` script passed unjudged behind ``npm run clean``; it
is now judged as if typed, in the package's folder (the nearest one up holding
``package.json``). npm is not installed here: the rows stand on those documents.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.reconcile.package_scripts import install_run, package_run, script_lines
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


@pytest.mark.parametrize(("line", "expected"), [
    ("npm run clean", ("clean", "", [])),
    ("npm run-script clean", ("clean", "", [])),
    ("npm --silent run clean -- --all", ("clean", "", ["--all"])),
    ("npm run clean --all", ("clean", "", [])),  # npm's own option
    ("npm run clean x -- --all", ("clean", "", ["x", "--all"])),
    ("yarn clean --all", ("clean", "", ["--all"])),
    ("npm --prefix web run clean", ("clean", "web", [])),
    ("npm test", ("test", "", [])),
    ("npm start", ("start", "", [])),
    ("yarn clean", ("clean", "", [])),
    ("yarn run clean", ("clean", "", [])),
    ("yarn --cwd web clean", ("clean", "web", [])),
    ("pnpm clean", ("clean", "", [])),
    ("pnpm -C web run clean", ("clean", "web", [])),
    ("bun run clean", ("clean", "", [])),
])
def test_which_script_runs(line: str, expected: tuple[str, str, list[str]]) -> None:
    words = line.split()
    run = package_run(words[0], words[1:])
    assert run is not None
    assert (run.name, run.folder, run.extra) == expected


@pytest.mark.parametrize("line", [
    "npm install", "npm ci", "npm run", "npm exec jest", "yarn install", "yarn add left-pad",
    "pnpm install", "pnpm dlx create-vite", "bun install", "bun clean", "npm --version",
])
def test_commands_that_run_no_script_by_name(line: str) -> None:
    words = line.split()
    assert package_run(words[0], words[1:]) is None


def test_pre_and_post_scripts_run_around_it() -> None:
    text = json.dumps({"scripts": {"preclean": "echo start", "clean": "rm -rf dist",
                                   "postclean": "echo done", "build": "tsc"}})
    run = package_run("npm", ["run", "clean", "--", "out dir"])
    assert run is not None
    assert script_lines(text, run) == [("preclean", "echo start"),
                                       ("clean", "rm -rf dist 'out dir'"),
                                       ("postclean", "echo done")]
    missing = package_run("npm", ["run", "nope"])
    assert missing is not None
    assert script_lines(text, missing) == []
    assert script_lines("not json", run) == []
    assert script_lines(json.dumps({"scripts": ["x"]}), run) == []


_PACKAGE = {"name": "lab", "scripts": {
    "clean": "rm -rf capsules/c2 dist", "wipe": "rm -rf", "build": "tsc -p .",
    "reset": "npm run clean && rm -rf .labledger", "lint": "eslint ."}}


@pytest.mark.parametrize("command", [
    "npm run clean", "yarn clean", "pnpm run clean", "bun run clean",
    "npm run wipe -- capsules", "npm run reset",
    "cd src && npm run clean",  # the package's folder is the one up
])
def test_a_script_that_deletes_protected_folders_is_blocked(
        box: Path, command: str) -> None:  # noqa: F811
    (box / "package.json").write_text(json.dumps(_PACKAGE))
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("in `package.json` script `" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "npm run build", "npm run lint", "npm install", "npm run nope", "npm run wipe -- dist",
])
def test_scripts_that_miss_them_pass(box: Path, command: str) -> None:  # noqa: F811
    (box / "package.json").write_text(json.dumps(_PACKAGE))
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_no_package_json_runs_nothing(box: Path) -> None:  # noqa: F811
    assert _judged(box, "npm run clean").allowed


@pytest.mark.parametrize("args", [
    ["run", "clean"], ["run", "clean", "--", "--all"], ["run", "clean", "extra"],
    ["run", "clean", "--all"], ["test"], ["run", "nope"], ["run", "clean", "a", "--", "b"],
])
def test_what_real_npm_runs(tmp_path: Path, args: list[str]) -> None:
    """Against npm itself (.ci/run installs it): each script echoes its words; what npm prints
    running them is what the lines read here print."""
    import shutil
    import subprocess

    npm = shutil.which("npm")
    assert npm is not None, "npm is needed: .ci/run installs it"
    scripts = {"preclean": "echo PRE", "clean": "echo CLEAN", "postclean": "echo POST",
               "test": "echo TEST"}
    (tmp_path / "package.json").write_text(json.dumps(
        {"name": "t", "version": "1.0.0", "scripts": scripts}))
    real = subprocess.run([npm, *args], cwd=tmp_path, capture_output=True, text=True,
                          check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    printed = [line for line in real.stdout.split("\n") if line and not line.startswith(">")]
    run = package_run("npm", args)
    ours = [] if run is None else script_lines((tmp_path / "package.json").read_text(), run)
    echoed = [subprocess.run(["sh", "-c", line], capture_output=True, text=True,
                             check=True).stdout.strip() for _, line in ours]
    assert echoed == printed


@pytest.mark.parametrize("text", [
    "[" * 100_000,  # nested past Python's recursion limit: json.loads raises RecursionError
    '{"scripts": ' * 5_000 + "1" + "}" * 5_000,
    "[1, 2]", '"scripts"', "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
])
def test_a_package_json_of_any_shape_gets_a_verdict(box: Path, text: str) -> None:  # noqa: F811
    """A package.json that is no object of scripts runs no script here (npm refuses it)."""
    (box / "package.json").write_text(text)
    assert _judged(box, "npm run clean").allowed


_LIFECYCLE = {"preinstall": "echo PREINSTALL", "install": "echo INSTALL",
              "postinstall": "echo POSTINSTALL", "prepublish": "echo PREPUBLISH",
              "preprepare": "echo PREPREPARE", "prepare": "echo PREPARE",
              "postprepare": "echo POSTPREPARE", "prerestart": "echo PRERESTART",
              "stop": "echo STOP", "start": "echo START", "test": "echo TEST",
              "clean": "echo CLEAN"}


@pytest.mark.parametrize(("args", "bom"), [
    (["install", "--offline", "--no-audit", "--no-fund"], False),
    (["ci", "--offline", "--no-audit", "--no-fund"], False),
    (["i", "--offline"], False),
    (["restart"], False),  # no restart script: npm runs stop, then start
    (["run", "clean"], True),  # a package.json saved with a byte order mark: npm reads it
])
def test_what_real_npm_runs_on_install_restart_and_a_bom(
        tmp_path: Path, args: list[str], bom: bool) -> None:
    """npm 11 itself: ``npm install``/``npm ci`` with no package named run the package's own
    lifecycle scripts (npm docs, "scripts", "Life Cycle Operation": preinstall, install,
    postinstall, prepublish, preprepare, prepare, postprepare); ``npm restart`` without a
    restart script runs stop and start. Before, none of them was read (an ``npm install``
    whose ``postinstall`` deleted a folder passed), and a package.json with a BOM was taken
    for no JSON at all."""
    import shutil
    import subprocess

    npm = shutil.which("npm")
    assert npm is not None, "npm is needed: .ci/run installs it"
    text = json.dumps({"name": "t", "version": "1.0.0", "scripts": _LIFECYCLE})
    (tmp_path / "package.json").write_text(("\ufeff" if bom else "") + text)
    if args[0] == "ci":  # it installs from the lock file `npm install` writes
        subprocess.run([npm, "install", "--offline", "--ignore-scripts"], cwd=tmp_path,
                       capture_output=True, check=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    real = subprocess.run([npm, *args], cwd=tmp_path, capture_output=True, text=True,
                          check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    printed = [line for line in real.stdout.split("\n") if line.isupper()]
    run = package_run("npm", args) or install_run("npm", args)
    assert run is not None
    ours = script_lines((tmp_path / "package.json").read_text(), run)
    assert [line.removeprefix("echo ") for _, line in ours] == printed
    assert printed


@pytest.mark.parametrize(("command", "workspace"), [
    ("npm run clean -w packages/a", True),
    ("npm run clean --workspace=a", True),
    ("npm run clean --workspaces", True),
    ("npm run clean -ws", True),
    ("npm install", False),
])
def test_lifecycle_and_workspace_scripts_are_judged(
        box: Path, command: str, workspace: bool) -> None:  # noqa: F811
    """A workspace's script runs in the workspace's folder (``npm run clean -w packages/a``
    runs packages/a's clean, checked with npm 11); ``npm install`` runs postinstall. Before,
    the root's package.json was read for both (no clean there, no install: passed)."""
    (box / "package.json").write_text(json.dumps(
        {"name": "lab", "workspaces": ["packages/*"],
         "scripts": {"build": "tsc", "postinstall": "rm -rf capsules/c2"}}))
    (box / "packages" / "a").mkdir(parents=True)
    (box / "packages" / "a" / "package.json").write_text(json.dumps(
        {"name": "a", "scripts": {"clean": "rm -rf ../../capsules/c2 dist"}}))
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons
    if workspace:
        assert _judged(box, "npm run clean").allowed  # the root has no clean script
        assert _judged(box, "npm run build -w packages/a").allowed


@pytest.mark.parametrize(("line", "at_root", "name"), [
    ("pnpm -w clean", True, "clean"),  # pnpm's -w is a flag: it took `clean` for its value
    ("pnpm -w run clean", True, "clean"),
    ("pnpm --workspace-root clean", True, "clean"),
    ("pnpm clean", False, "clean"),
    ("npm -w web run clean", False, "clean"),  # npm's -w names a workspace
    ("yarn -W clean", False, "clean"),
])
def test_pnpms_workspace_root_flag(line: str, at_root: bool, name: str) -> None:
    words = line.split()
    run = package_run(words[0], words[1:])
    assert run is not None
    assert (run.workspace_root, run.name) == (at_root, name)


def _pnpm_workspace(box: Path) -> Path:  # noqa: F811
    """A pnpm workspace at the project: its root's ``clean`` deletes the capsule, the
    package ``packages/a``'s only its own ``dist``. Tried with pnpm 9: from ``packages/a``,
    ``pnpm -w clean`` runs the root's script in the root (and refuses, outside a workspace)."""
    (box / "pnpm-workspace.yaml").write_text('packages:\n  - "packages/*"\n')
    (box / "package.json").write_text(json.dumps(
        {"name": "root", "scripts": {"clean": "rm -rf capsules/c2"}}))
    (box / "packages" / "a").mkdir(parents=True)
    (box / "packages" / "a" / "package.json").write_text(json.dumps(
        {"name": "a", "scripts": {"clean": "rm -rf dist"}}))
    return box / "packages" / "a"


@pytest.mark.parametrize(("command", "allowed"), [
    ("pnpm -w clean", False), ("pnpm -w run clean", False),
    ("pnpm --workspace-root clean", False), ("pnpm clean", True), ("pnpm run clean", True),
])
def test_pnpm_w_runs_the_roots_script_from_a_package(
        box: Path, command: str, allowed: bool) -> None:  # noqa: F811
    from labledger.reconcile.hook import judge

    package = _pnpm_workspace(box)
    verdict = judge(command, str(package), str(box))
    assert verdict.allowed is allowed, (command, verdict.reasons)
    if not allowed:
        assert any("capsules/c2" in r and "`clean`" in r for r in verdict.reasons), \
            verdict.reasons


def test_pnpm_w_outside_a_workspace_runs_nothing(box: Path) -> None:  # noqa: F811
    from labledger.reconcile.hook import judge

    package = _pnpm_workspace(box)
    (box / "pnpm-workspace.yaml").unlink()
    assert judge("pnpm -w clean", str(package), str(box)).allowed
