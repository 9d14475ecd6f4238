"""`labledger hook` against what a Python program deletes, through the real console script.

A program run by the command (``python -c PROGRAM``, ``python - <<EOF``) is read with `ast`
for the files it deletes, not searched for a delete call's text: a protected folder moved out
of the way (``shutil.move``, ``os.rename``/``os.replace``/``os.renames``, a ``Path``'s
``rename``/``replace``) leaves its place as it would by ``mv``; a remover named other than by
a call written out (``getattr(shutil, "rmtree")``, ``f = shutil.rmtree``, ``from shutil import
rmtree as r``, ``map(shutil.rmtree, ...)``), ``os.removedirs``, a ``Path``'s ``rmdir()``/
``unlink()`` deletes as ``rm -r`` would. A literal path is judged as ``rm -r PATH`` (from the
command's working folder; after ``os.chdir``, from any folder above too), a computed one by
what names it and by the folders the program lists (``os.listdir`` as ``ls -A``, ``os.walk`` as
``find``); what the program reads, or moves and deletes outside the protected folders, passes.
``os.exec*e``/``spawn*e``/``posix_spawn*`` start the program their path names with the argument
list before the environment; ``python - ARGS <<EOF`` still reads its program from stdin.

The project is `test_hook_round8`'s: pod-abc123 unverified, ``capsules/c2`` sealed with no
stored copy (deleting it is refused), the ledger in ``.labledger``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked, assert_passes

box = round8.box


def _heredoc(program: str, python: str = "python3 -") -> str:
    return f"{python} <<'EOF'\n{program}\nEOF"


def _inline(program: str) -> str:
    return "python3 -c " + shlex.quote(program)


def assert_deletes_protected(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr or "the labledger ledger" in result.stderr, \
        result.stderr


# 1: a protected folder moved out of the way -----------------------------------------------------
# (Python 3.11 library reference: shutil.move(src, dst), os.rename/os.replace/os.renames(src,
# dst), pathlib.Path.rename/replace(target): the source leaves its place)
_MOVES = [
    "import shutil\nshutil.move('.labledger', '/tmp/x')",
    "import os\nos.rename('capsules/c2', '/tmp/r')",
    "import os\nos.replace('capsules', '/tmp/r')",
    "import os\nos.renames('capsules/c2', 'old/c2')",
    "import pathlib\npathlib.Path('.labledger').rename('/tmp/l')",
    "from pathlib import Path\nPath('capsules/c2').replace('/tmp/c')",
    "from pathlib import Path\n(Path('capsules') / 'c2').rename('gone')",
    "from pathlib import Path\nPath.cwd().joinpath('capsules', 'c2').rename('gone')",
    "import shutil\nshutil.move(src='capsules/c2', dst='/tmp/c')",
    "import shutil as sh\nsh.move('./capsules/../capsules/c2/', '/tmp/c')",
    "from shutil import move\nmove('capsules', '/tmp/caps')",
    "from os import rename as mv\nmv('.labledger', '.ledger-old')",
    "import os\nos.rename(os.path.join('capsules', 'c2'), '/tmp/c')",
]


@pytest.mark.parametrize("program", _MOVES)
def test_a_protected_folder_moved_away_by_a_program_is_refused(
        hook: Callable[..., Any], program: str) -> None:
    for command in (_heredoc(program), _inline(program)):
        assert_deletes_protected(hook(command), command)


def test_a_program_moves_from_the_folder_the_line_cds_to(
        hook: Callable[..., Any]) -> None:
    command = "cd src && " + _inline("import shutil; shutil.move('../capsules/c2', '/tmp/x')")
    assert_deletes_protected(hook(command), command)


# 2: a remover however it is named -----------------------------------------------------------------
_REMOVERS = [
    "import shutil\ngetattr(shutil, 'rmtree')('capsules')",
    "import shutil\nf = shutil.rmtree\nf('capsules')",
    "from shutil import rmtree as r\nr('capsules/c2')",
    "import os\nos.removedirs('capsules/c2')",
    "from pathlib import Path\nPath('capsules/c2').rmdir()",
    "import pathlib\npathlib.Path('capsules', 'c2', 'metrics.json').unlink(missing_ok=True)",
    "import shutil\nlist(map(shutil.rmtree, ['capsules']))",
    "import os\ngetattr(os, 'remove')('capsules/c2/metrics.json')",
    "import importlib\nimportlib.import_module('shutil').rmtree('.labledger')",
    "from shutil import *\nrmtree('capsules')",
    "import os, functools\nfunctools.partial(os.unlink, 'capsules/c2/metrics.json')()",
    "import shutil\nx = 'rm' + 'tree'\ngetattr(shutil, x)('capsules')",
    "exec(\"import shutil; shutil.move('capsules', '/tmp/c')\")",
    # a star import brings os's names, not instead of the builtins
    "from os import *\ncode = 'import shutil; shutil.move(\"capsules\", \"/tmp/c\")'\nexec(code)",
    "from os import *\nimport shutil\ngetattr(shutil, 'move')('capsules', '/tmp/c')",
]


@pytest.mark.parametrize("program", _REMOVERS)
def test_a_remover_however_named_is_read(hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_deletes_protected(hook(command), command)


# computed paths: a variable, an f-string, the program's arguments; a program the hook's own
# Python cannot parse (3.12's `type` statement) is searched for a delete's words instead
@pytest.mark.parametrize("command", [
    _inline("import shutil, sys; shutil.move(sys.argv[1], '/tmp/x')") + " capsules",
    _heredoc("import shutil, sys\nshutil.move(sys.argv[1], '/tmp/x')", python="python3 - capsules"),
    _heredoc("import os\nd = '.labledger'\nos.rename(d, d + '.bak')"),
    _heredoc("import os\nrun = 'c2'\nos.rename(f'capsules/{run}', '/tmp/r')"),
    _heredoc("import glob, os\nfor d in glob.glob('caps*/*'):\n    os.replace(d, '/tmp/' + d)"),
    _heredoc("type T = int\nimport shutil\nshutil.move('capsules', '/tmp/c')"),
    _heredoc("import os\nos.chdir('..')\nos.rename('project/capsules', '/tmp/c')"),
])
def test_a_computed_path_that_may_name_a_protected_folder_is_refused(
        hook: Callable[..., Any], command: str) -> None:
    assert_deletes_protected(hook(command), command)


# a folder the program lists feeds its computed deletes what it holds, as `ls -A | xargs rm
# -rf` and `find . | xargs rm -f` do (os.listdir/scandir and Path.iterdir list dot entries;
# os.walk and Path.rglob go below)
@pytest.mark.parametrize("program", [
    "import os, shutil\nfor d in os.listdir('.'):\n    shutil.rmtree(d, ignore_errors=True)",
    "import shutil\nfrom pathlib import Path\nfor p in Path().iterdir():\n"
    "    shutil.move(str(p), '/tmp/old/')",
    "import os\nfor root, dirs, files in os.walk('.'):\n    for f in files:\n"
    "        os.remove(os.path.join(root, f))",
    "from pathlib import Path\nfor p in Path('.').rglob('*.json'):\n    p.unlink()",
    "import os, shutil\nwith os.scandir(os.getcwd()) as it:\n    for e in it:\n"
    "        shutil.rmtree(e.path)",
])
def test_what_a_program_lists_feeds_its_computed_deletes(
        hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_deletes_protected(hook(command), command)


@pytest.mark.parametrize("program", [
    "import os\nfor f in os.listdir('/tmp/scratch'):\n"
    "    os.remove(os.path.join('/tmp/scratch', f))",
    "import glob, os\nfor f in glob.glob('*.tmp'):\n    os.remove(f)",
    "import os\nfor f in os.listdir('.'):\n    print(f)\nos.remove(os.environ['TMPFILE'])",
])
def test_a_computed_delete_of_what_names_no_protected_folder_passes(
        hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_passes(hook(command), command)


def test_a_literal_path_after_the_program_changes_folder_is_computed(
        hook: Callable[..., Any], box: Path) -> None:
    # `os.chdir` moves the program: 'c2' from inside capsules is the capsule itself
    command = _heredoc("import os, shutil\nos.chdir('capsules')\nshutil.rmtree('c2')")
    assert_deletes_protected(hook(command), command)


# what must pass: moves and deletes outside the protected folders, reading the ledger ----------
@pytest.mark.parametrize("program", [
    "import os\nos.rename('a.tmp', 'a.json')",
    "import shutil\nshutil.move('ckpt.pt', 'checkpoints/')",
    "import shutil\nshutil.move('ckpt.pt', '/tmp/ckpts/')",
    "from pathlib import Path\nPath('x').unlink()",
    "from pathlib import Path\nPath('scratch.txt').unlink(missing_ok=True)",
    "print(open('.labledger/events.jsonl').read()[:100])",
    "import json\nfor line in open('.labledger/events.jsonl'):\n"
    "    print(json.loads(line)['kind'])",
    "import shutil\nshutil.rmtree('scratch_tmp')\nprint(open('.labledger/events.jsonl').read())",
    "s = 'capsules/c2'\nprint(s.replace('/', '_'))",
    "kinds = ['capsule.sealed', 'run.launched']\nkinds.remove('capsule.sealed')\n"
    "print(kinds, open('.labledger/events.jsonl').read())",
    "import os\nprint(os.listdir('capsules/c2'), os.path.getsize('capsules/c2/metrics.json'))",
    "import shutil\nshutil.copytree('capsules/c2', '/tmp/c2-copy')",
    "import os\nos.replace('capsules/c2.json.tmp', 'capsules/c2.json')",
])
def test_moves_and_deletes_outside_protected_folders_pass(
        hook: Callable[..., Any], program: str) -> None:
    for command in (_heredoc(program), _inline(program)):
        assert_passes(hook(command), command)


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


# on a box: what the program removes there
@pytest.mark.parametrize("program", [
    "import shutil\ngetattr(shutil, 'rmtree')('/workspace/runs')",
    "from pathlib import Path\nPath('/workspace/runs/r2').rmdir()",
])
def test_what_a_program_removes_on_a_box_is_judged(
        hook: Callable[..., Any], program: str) -> None:
    command = f"ssh {BOX} " + _heredoc(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


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


@pytest.mark.parametrize("program", [
    "import os\nos.rename('/workspace/runs/a.tmp', '/workspace/runs/a.json')",
    "import shutil\nshutil.move('/workspace/ckpt.pt', '/workspace/runs/')",
])
def test_a_program_that_only_moves_on_a_box_passes(
        hook: Callable[..., Any], program: str) -> None:
    # a move on the box is no destroy there (`mv` is none either)
    command = f"ssh {BOX} " + _heredoc(program)
    assert_passes(hook(command), command)
