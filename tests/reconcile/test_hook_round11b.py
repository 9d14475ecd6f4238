"""`labledger hook` against the git commands of review 50 that still removed a capsule (or
the ledger) unseen, through the real console script, and the false alarms of round 11.

1. A ``-C``/``--work-tree`` computed when it runs (``git -C "$D" clean -fdx``) may name any
   repository the line reaches: the project's included.

Every judgment must leave the project's files and its git config as they were (`judged`):
the hook's own questions to git are read-only. The project is `test_hook_round8`'s
(``capsules/c2`` sealed with no stored copy: deleting it is refused) in a real git repository
(git 2.39 on the test machine).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_passes
from tests.reconcile.test_hook_round11 import assert_deletes, home, hook, judged

box = round8.box
__all__ = ["box", "home", "hook"]  # fixtures, used by name

BOTH = ".labledger/\ncapsules/\n"


# 1: a computed -C or --work-tree ---------------------------------------------------------------
# git(1): `-C PATH` runs git as if started in PATH, `--work-tree=PATH` sets the work tree; a
# value computed when it runs may be any folder, the project's repository included
@pytest.mark.parametrize("command", [
    "D=.; git -C $D clean -fdx",
    "D=.; git -C $D stash -a",
    'git -C "$(git rev-parse --show-toplevel)" clean -fdx',
    'git -C "$(git rev-parse --show-toplevel)" stash -a',
    "D=.; echo clean -fdx | xargs git -C $D",
    'D=.; git -C "$D" -c alias.c=clean c -fdx',
    'D=$(pwd); S=clean; git -C "$D" $S -fdx',
    'S=clean; git -C "$(pwd)" $S -fdx',
    'git --work-tree="$(git rev-parse --show-toplevel)" clean -fdx',
    "git -C `pwd` clean -fdx",
])
def test_a_computed_git_folder_stands_for_every_repository_it_may_reach(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_deletes(judged(hook, box, command), command)


def test_a_computed_git_folder_reaches_the_project_from_a_nested_repository(
        hook: Callable[..., Any], box: Path) -> None:
    # the agent works in a repository of its own inside the project (a vendored library):
    # `..` from there, computed, is the project's repository
    round8._repository(box, BOTH)
    vendor = box / "vendor"
    vendor.mkdir()
    subprocess.run(["git", "init", "-q", "."], cwd=vendor, check=True)
    command = "D=..; git -C $D clean -fdx"
    assert_deletes(judged(hook, box, command, cwd=vendor), command)


@pytest.mark.parametrize("command", [
    "D=src; git -C $D status",
    'git -C "$(git rev-parse --show-toplevel)" clean -ndx',
    'git -C "$(git rev-parse --show-toplevel)" log -3',
    "D=.; git -C $D stash list",
])
def test_a_computed_git_folder_that_removes_nothing_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_passes(judged(hook, box, command), command)
