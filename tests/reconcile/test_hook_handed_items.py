"""`labledger hook` on a delete whose computed path is handed the project's folder itself, or
another project's, whole.

A word naming the project folder (or one above it) fed no computed delete: ``find . -name
'*.pyc' | xargs rm`` must pass, and ``.`` is the project. But where the word is not a folder
to look into but the path the delete takes as it is, the whole project goes, ledger and all,
and these passed:

- ``rm -rf "$(pwd)"``, ``rm -rf "$(git rev-parse --show-toplevel)"``, ``ROOT=$(pwd); rm -rf
  $ROOT``;
- ``P=/abs/project; rm -rf "$P"``, ``D=../exp1; rm -rf $D`` (a literal assignment);
- ``for d in ../*/; do rm -rf "$d"; done`` (a loop's list);
- ``rm -rf $(ls -d ../exp*)``, ``ls -d ../exp* | xargs rm -rf``, ``echo ../exp1 | xargs rm
  -rf``, ``ls -d ../exp* | xargs -I{} rm -rf {}`` (a command printing its operands as given).

So did a delete handed the paths a file there lists now (``xargs -a stale.txt rm -rf``,
``cat stale.txt | xargs rm -rf``, ``rm -rf $(cat stale.txt)``, ``... done < stale.txt``): only
a file the line itself wrote was read (`hook._read_lists` reads it now).

Each is now judged as the path it takes (`hook._delete_values`, `hook._piped_items`,
`hook._known_folders`). The layout: ``project`` (`test_hook_round8`'s: ``capsules/c2``
sealed with no stored copy, in a git repository), ``exp1`` beside it (another project) and
``scratch`` beside it (a plain folder). Each row is first run by real bash on a copy of the
layout: a blocked row really deletes what the hook names, a passing one deletes none of it.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile import test_hook_round8 as round8
from tests.reconcile import test_hook_round11 as round11
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box, home, hook, judged = round11.box, round11.home, round11.hook, round11.judged


@pytest.fixture
def layout(box: Path) -> Path:
    round8._repository(box, ".labledger/\ncapsules/\n")
    with Ledger.init(box.parent / "exp1") as ledger:
        ledger.append("run.launched", run="r1", instance="vast-111", command=["python"])
    (box / "build").mkdir()
    (box / "build" / "out.o").write_bytes(b"\x00")
    return box


def _guarded(project: Path) -> dict[str, bool]:
    """Which of the guarded things stand: the project's ledger, its capsule, exp1's ledger."""
    return {"ledger": (project / ".labledger").is_dir(),
            "capsule": (project / "capsules" / "c2" / "metrics.json").is_file(),
            "exp1": (project.parent / "exp1" / ".labledger").is_dir()}


def _run_by_bash(layout: Path, tmp_path: Path, command: str) -> dict[str, bool]:
    """What stands of the guarded things after real bash runs ``command`` in a copy."""
    copy = tmp_path.parent / f"{tmp_path.name}-bash"  # (the layout is in tmp_path)
    shutil.copytree(layout.parent, copy, symlinks=True)
    project = copy / layout.name
    subprocess.run(["bash", "-c", command.replace("{project}", str(project))], cwd=project,
                   check=False, capture_output=True, timeout=60)
    return _guarded(project)


# (command, what real bash deletes of the guarded things, what the hook's reason names)
BLOCKED = [
    ('rm -rf "$(pwd)"', "ledger", "of this project"),
    ("rm -rf $(pwd)/", "ledger", "of this project"),
    ("rm -rf `pwd`", "ledger", "of this project"),
    ('rm -rf "$(git rev-parse --show-toplevel)"', "ledger", "of this project"),
    ("ROOT=$(pwd); rm -rf $ROOT", "ledger", "of this project"),
    ('P={project}; rm -rf "$P"', "ledger", "of this project"),
    ('P={project}; rm -rf "$P/"', "ledger", "of this project"),
    ("for d in {project}; do rm -rf $d; done", "ledger", "of this project"),
    ("cd .. && rm -rf $(ls -d project)", "ledger", "of this project"),
    ('for d in ../*/; do rm -rf "$d"; done', "exp1", "of the project"),
    ("rm -rf $(ls -d ../exp*)", "exp1", "of the project"),
    ("ls -d ../exp* | xargs rm -rf", "exp1", "of the project"),
    ("ls -d ../exp* | xargs -I{} rm -rf {}", "exp1", "of the project"),
    ("ls -d ../exp* | xargs -I % rm -rf %/.labledger", "exp1", "of the project"),
    ("echo ../exp1 | xargs rm -rf", "exp1", "of the project"),
    ("printf '%s\\n' ../exp1 | xargs rm -rf", "exp1", "of the project"),
    ("rm -rf $(realpath ../exp1)", "exp1", "of the project"),
    ("D=../exp1; rm -rf $D", "exp1", "of the project"),
    ("ROOT=$(pwd)/..; rm -rf $ROOT/exp1", "exp1", "of the project"),
    ("for k in 1 2; do rm -rf ../exp$k; done", "exp1", "of the project"),
    ("echo capsules/c2 | xargs rm -rf", "capsule", "the capsule"),
]

PASSING = [
    'rm -rf "$(pwd)/build"',
    "ROOT=$(pwd); rm -rf $ROOT/build",
    "ROOT=$(pwd); find $ROOT -name '*.pyc' | xargs rm -rf",
    "for d in build scratch; do rm -rf $d; done",
    "echo build | xargs rm -rf",
    "ls -d build* | xargs rm -rf",
    "ls -d ../scratch | xargs rm -rf",
    "rm -rf $(ls -d ../scratch/*)",
    "for f in *.log; do rm -f \"$f\"; done",
    "P={project}; rm -rf $P/src/__pycache__",
    "echo ../exp1 | xargs ls -la",  # xargs runs no delete
    "echo ../exp1; rm -rf build",  # the echo is piped into nothing
]


@pytest.mark.parametrize(("command", "gone", "named"), BLOCKED)
def test_a_delete_handed_the_project_whole_is_blocked(
        hook: Callable[..., Any], layout: Path, tmp_path: Path, command: str, gone: str,
        named: str) -> None:
    after = _run_by_bash(layout, tmp_path, command)
    assert after[gone] is False, (command, after)  # what the row stands on
    line = command.replace("{project}", str(layout))
    result = judged(hook, layout, line)
    assert_blocked(result, line)
    assert named in result.stderr, result.stderr


@pytest.mark.parametrize("command", PASSING)
def test_a_delete_handed_something_else_passes(
        hook: Callable[..., Any], layout: Path, tmp_path: Path, command: str) -> None:
    after = _run_by_bash(layout, tmp_path, command)
    assert all(after.values()), (command, after)
    line = command.replace("{project}", str(layout))
    assert_passes(judged(hook, layout, line), line)


def test_the_toplevel_is_the_repository_holding_the_working_folder(
        hook: Callable[..., Any], layout: Path) -> None:
    # from src/, `git rev-parse --show-toplevel` is still the project: its delete takes all
    line = 'rm -rf "$(git rev-parse --show-toplevel)"'
    result = judged(hook, layout, line, cwd=layout / "src")
    assert_blocked(result, line)
    assert str(layout / ".labledger") in result.stderr, result.stderr


# A list of paths in a file there now is what the delete reading it is handed: these passed
# with `stale.txt` naming the capsule (only a file the line itself wrote first was read).
@pytest.mark.parametrize(("command", "blocked"), [
    ("xargs -a stale.txt rm -rf", True),
    ("xargs --arg-file=stale.txt rm -rf", True),
    ("cat stale.txt | xargs rm -rf", True),
    ("xargs rm -rf < stale.txt", True),
    ("rm -rf $(cat stale.txt)", True),
    ('while read -r f; do rm -rf "$f"; done < stale.txt', True),
    ("sort -u stale.txt | xargs rm -rf", True),
    ("xargs -a build.txt rm -rf", False),
    ("cat build.txt | xargs rm -rf", False),
    ("rm -rf $(cat build.txt)", False),
    ("cat missing.txt | xargs rm -rf", False),
])
def test_a_list_read_from_a_file_feeds_the_delete(
        hook: Callable[..., Any], layout: Path, tmp_path: Path, command: str,
        blocked: bool) -> None:
    (layout / "stale.txt").write_text("build\ncapsules/c2\n")
    (layout / "build.txt").write_text("build\n")
    after = _run_by_bash(layout, tmp_path, command)
    assert after["capsule"] is not blocked, (command, after)
    result = judged(hook, layout, command)
    if blocked:
        assert_blocked(result, command)
        assert "the capsule" in result.stderr, result.stderr
    else:
        assert_passes(result, command)
