"""`labledger hook` against what a Python program execs, through the real console script.

``os.exec*e``/``spawn*e``/``posix_spawn*`` start the program their path names (argv[0] is only
the name it is told) with the argument list before the environment: the environment is no
word of the command. A program read from stdin with arguments (``python - ARGS <<EOF``) is
still read.

The project is `test_hook_round8`'s: pod-abc123 unverified, ``capsules/c2`` sealed with no
stored copy (deleting it is refused), the ledger in ``.labledger``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked, assert_passes

box = round8.box


def _heredoc(program: str, python: str = "python3 -") -> str:
    return f"{python} <<'EOF'\n{program}\nEOF"


def assert_deletes_protected(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr or "the labledger ledger" in result.stderr, \
        result.stderr


# 3: os.exec*/spawn*/posix_spawn* with an environment --------------------------------------------
# (Python 3.11 library reference, os: execle(path, arg0, ..., env), execvpe(file, args, env),
# spawnvpe(mode, file, args, env), posix_spawnp(path, argv, env): the environment is last,
# the program run is the one `path` names, whatever argv[0] says)
@pytest.mark.parametrize("program", [
    "import os\nos.execvpe('rm', ['rm', '-rf', 'capsules'], os.environ)",
    "import os\nos.execve('/bin/rm', ['rm', '-rf', 'capsules/c2'], {'LC_ALL': 'C'})",
    "import os\nos.posix_spawnp('rm', ['rm', '-rf', '.labledger'], os.environ)",
    "import os\nos.posix_spawn('/bin/rm', ['rm', '-rf', '.labledger'], dict(os.environ))",
    "import os\nos.spawnvpe(os.P_WAIT, 'rm', ['rm', '-rf', 'capsules'], os.environ)",
    "import os\nos.spawnlpe(os.P_WAIT, 'rm', 'rm', '-rf', 'capsules', os.environ)",
    "import os\nos.execle('/bin/rm', 'rm', '-rf', 'capsules', os.environ)",
    "import os\nos.execv('/bin/rm', ['anything', '-rf', 'capsules'])",
    "import os\nargs = ['rm', '-rf', 'capsules']\nos.execv('/bin/rm', args)",
])
def test_an_exec_with_an_environment_runs_its_argument_list(
        hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_deletes_protected(hook(command), command)


@pytest.mark.parametrize("program", [
    "import os\nos.execvpe('python3', ['python3', 'train.py'], "
    "{**os.environ, 'CUDA_VISIBLE_DEVICES': '0'})",
    "import os\nos.posix_spawnp('nvidia-smi', ['nvidia-smi'], os.environ)",
    "import os\nos.execle('/usr/bin/python3', 'python3', 'eval.py', {'RM': 'rm -rf capsules'})",
])
def test_an_exec_of_a_harmless_program_passes(hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    "import os\nos.execvpe('pkill', ['pkill', '-f', 'train.py'], os.environ)",
    "import os\nos.posix_spawnp('poweroff', ['poweroff'], os.environ)",
])
def test_an_exec_with_an_environment_on_a_box_is_judged(
        hook: Callable[..., Any], program: str) -> None:
    command = f"ssh {BOX} " + _heredoc(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


# `python - ARGS <<EOF`: the program is still stdin's, the words after `-` its arguments
# (python(1): "-  Read commands from standard input"; the rest is sys.argv[1:])
def test_a_program_read_from_stdin_with_arguments_is_read(hook: Callable[..., Any]) -> None:
    command = _heredoc("import os\nos.system('rm -rf capsules')", python="python3 - runs")
    assert_deletes_protected(hook(command), command)
