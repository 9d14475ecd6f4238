"""`labledger hook` against what the review of the ninth round found: judging a ``git clean``
must never run one.

The hook asks git what a clean removes by a dry run of the clean's own arguments. It appended
``-n`` after them; where they end in ``-e``/``--exclude`` still waiting for its value, or in
``--end-of-options``, git read that ``-n`` as the pattern or as a pathspec and the hook's own
question was a real ``git clean -fdx``: the ledger and the capsules were gone before the agent's
command was even refused. And git takes the last of ``-n``/``--no-dry-run``, so ``git clean -n
-fdx --no-dry-run`` cleans, though it was let through as a dry run.

The project is `test_hook_round8`'s (pod-abc123 unverified, capsules/c2 sealed with no stored
copy), in a git repository that ignores the ledger and the capsules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box = round8.box


def _files(project: Path) -> set[str]:
    return {str(p.relative_to(project)) for p in project.rglob("*") if ".git/" not in str(p)}


@pytest.mark.parametrize("command", [
    "git clean -fdx -e",
    "git clean -fdx --exclude",
    "git clean -fdxe",
    "git clean -fX --exclude",
    "git clean -fdx --end-of-options .labledger",
    "git clean -fdx --end-of-options",
    "git clean -n -fdx --no-dry-run",
    "git clean -nfdx --no-d",
    "git clean --dry-run -fdx --no-dry-run",
    # twice forced (the question then holds -ff itself, after its -n)
    "git clean -ffdx -e",
    "git clean -ffdx --end-of-options",
    "git clean -n -ffdx --no-dry-run",
    "git clean -f -f -dx --exclude",
])
def test_judging_a_clean_never_runs_one_and_refuses_it(
        hook: Callable[..., Any], box: Path, ledger: Ledger, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    result = hook(command)
    # the critical part: the hook's question removed nothing
    assert _files(box) == before, sorted(before - _files(box))[:5]
    assert_blocked(result, command)


@pytest.mark.parametrize("command", [
    "git clean -fdx -enope",  # -e's pattern holds an n: no dry run
    "git clean -fdx -e nope",
])
def test_an_exclude_pattern_holding_n_is_no_dry_run(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    result = hook(command)
    assert _files(box) == before
    assert_blocked(result, command)


@pytest.mark.parametrize("command", [
    "git clean -fd",  # the capsules are ignored: -fd keeps them
    "git clean -n -fdx",
    "git clean -fdx --dry-run",
    "git clean -nfdx",
    "git clean -fd -e build",
    "git clean -fd --end-of-options build",
])
def test_cleans_that_keep_the_capsules_or_only_list_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    assert_passes(hook(command), command)
    assert {f for f in before if f.startswith((".labledger", "capsules"))} <= _files(box)


# What a Python program runs, however it names the function (review 44, item 3) and whatever
# Python it is written for (item 4: the box's python3 may be 3.12+, whose syntax, `type T =
# int` or PEP 701's f"{"a"}", this 3.11 cannot parse; item 5: nested too deep for `ast`).
_SSH = "ssh root@203.0.113.7 python3 - <<'EOF'\n{}\nEOF"


@pytest.mark.parametrize("program", [
    "import os\nf = os.system\nf('poweroff')",
    "from os import system as s\ns('poweroff')",
    "import os\ngetattr(os, 'system')('poweroff')",
    "import os\nlist(map(os.system, ['poweroff']))",
    "exec(\"import os; os.system('poweroff')\")",
    "code = 'import os; os.system(\"poweroff\")'\nexec(code)",
    "type T = int\nimport os\nos.system('poweroff')",
    "x = f\"{'a'}\" + f\"{\"b\"}\"\nimport subprocess\nsubprocess.run(['poweroff'])",
    "y = " + "-" * 3000 + "1\nimport subprocess\nsubprocess.run(['poweroff'])",
], ids=["a name for os.system", "imported as another name", "getattr", "map", "exec of a literal",
        "exec of a variable", "3.12 type alias", "PEP 701 f-string", "nested too deep"])
def test_what_a_python_program_starts_under_any_name_is_judged(
        hook: Callable[..., Any], program: str) -> None:
    command = _SSH.format(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("program", [
    "import os\nprint(os.getcwd())",
    "import subprocess\nprint(subprocess.run(['nvidia-smi']).returncode)",
    "type T = int\nprint('done')",
    "exec('print(1)')",
    "import asyncio\nasyncio.run(main())",
], ids=["getcwd", "nvidia-smi", "3.12 syntax that prints", "exec that prints", "asyncio.run"])
def test_a_python_program_that_starts_nothing_harmful_passes(
        hook: Callable[..., Any], program: str) -> None:
    command = _SSH.format(program)
    assert_passes(hook(command), command)
