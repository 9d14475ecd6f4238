"""`labledger hook` against ``just RECIPE``: the recipe's lines and its dependencies'
(`justfiles`). Before, ``just clean`` passed unjudged whatever its recipe deleted.

What just runs is checked against just itself (the ``rust-just`` package of the dev extras
ships the real binary, 1.59 here): ``just --dry-run RECIPE ARGS`` prints each line it would
run, expanded, without running it, and the reader must read the same lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.reconcile.justfiles import just_lines, just_run
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

_JUST = shutil.which("just") or str(Path(sys.executable).with_name("just"))

_JUSTFILE = """\
set shell := ["bash", "-cu"]
alias c := clean
export DATA := env_var_or_default("DATA_DIR", "data")
root := justfile_directory()
out := "outputs"
ckpt := out / "checkpoints"
ver := "1.2"
name := if ver == "1.2" { "new" } else { "old" }

# the default: the first recipe
train epochs="10" *flags:
    python train.py --epochs {{epochs}} {{flags}} --data {{DATA}} --out {{out}}

[no-cd]
here:
    ls

clean target=(root / "outputs"): lint
    @echo cleaning {{target}}
    -rm -rf {{target}}/{{name}} {{ckpt}} {{{{literal}}}}
    rm -rf {{ join("a", "b", "c") }} {{file_stem("x/y.tar")}} {{parent_directory("a/b/c")}}

lint:
    ruff check .

script:
    #!/usr/bin/env bash
    set -e
    rm -rf build

nuke *args: (clean "cap") && lint
    rm -rf {{args}} {{uppercase("ok")}} {{replace("a-b", "-", "_")}} `echo hi`
    echo {{`git rev-parse --short HEAD`}}
"""


@pytest.fixture
def justfile(tmp_path: Path) -> Path:
    (tmp_path / "justfile").write_text(_JUSTFILE)
    return tmp_path


def _ours(folder: Path, *args: str) -> list[str]:
    def read(path: str) -> str | None:
        return Path(path).read_text() if os.path.isfile(path) else None

    lines = just_lines(just_run(list(args)), read, str(folder / "justfile"), str(folder),
                       {"HOME": "/home/me"})
    return [] if lines is None else "\n".join(line.text for line in lines).split("\n")


def _real(folder: Path, *args: str) -> list[str]:
    assert os.path.exists(_JUST), "just is needed: the dev extras install rust-just"
    done = subprocess.run([_JUST, "--dry-run", *args], cwd=folder, capture_output=True,
                          text=True, check=False, env={"PATH": "/usr/bin:/bin",
                                                       "HOME": "/home/me"})
    assert done.returncode == 0, done.stderr
    return [line for line in (done.stdout + done.stderr).split("\n") if line]


@pytest.mark.parametrize("args", [
    [], ["train", "5", "--fast"], ["clean"], ["c"], ["clean", "/x"], ["out=zzz", "clean"],
    ["--set", "ver", "2", "clean"], ["lint", "clean"], ["script"], ["nuke", "a", "b"],
    ["here"], ["nuke"],
])
def test_the_lines_are_those_just_runs(justfile: Path, args: list[str]) -> None:
    assert _ours(justfile, *args) == _real(justfile, *args)


@pytest.mark.parametrize(("args", "runs"), [
    (["--dry-run", "clean"], False), (["-n", "clean"], False), (["--list"], False),
    (["-l"], False), (["--show", "clean"], False), (["--evaluate"], False),
    (["clean"], True), (["-f", "other.just", "clean"], True), (["--yes", "clean"], True),
])
def test_what_runs_no_recipe(args: list[str], runs: bool) -> None:
    assert just_run(args).runs is runs


def test_an_unknown_recipe_runs_nothing(justfile: Path) -> None:
    """just checks every recipe named before it runs any: "justfile does not contain
    recipe `nope`"."""
    assert _ours(justfile, "lint", "nope") == []
    refused = subprocess.run([_JUST, "lint", "nope"], cwd=justfile, capture_output=True,
                             text=True, check=False)
    assert refused.returncode != 0
    assert "ruff" not in refused.stdout + refused.stderr


_PROJECT_JUSTFILE = """\
ckpt := "capsules"

build:
    python -m build

clean:
    rm -rf dist build

wipe dir=ckpt:
    rm -rf {{dir}}/c2

reset: clean
    rm -rf .labledger

py:
    #!/usr/bin/env python3
    import shutil
    shutil.rmtree("capsules/c2")
"""


@pytest.mark.parametrize(("command", "said"), [
    ("just wipe", "`rm -rf capsules/c2`, line 10 of `justfile`"),
    ("just reset", "`rm -rf .labledger`, line 13 of `justfile`"),
    ("just wipe capsules", "`rm -rf capsules/c2`, line 10 of `justfile`"),
    ("cd src && just wipe", "`rm -rf capsules/c2`, line 10 of `justfile`"),
    ("just py", ""),  # a Python shebang recipe cannot be read here: it holds a delete
])
def test_a_recipe_that_deletes_protected_folders_is_blocked(
        box: Path, command: str, said: str) -> None:  # noqa: F811
    (box / "justfile").write_text(_PROJECT_JUSTFILE)
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any(said in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "just build", "just clean", "just --dry-run wipe", "just --list", "just wipe build",
    "just nope",
])
def test_recipes_that_miss_them_pass(box: Path, command: str) -> None:  # noqa: F811
    (box / "justfile").write_text(_PROJECT_JUSTFILE)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)
