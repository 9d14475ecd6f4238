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


# review 54 -----------------------------------------------------------------------------------
# 1: an aliasing loop is judged in bounded time and memory; a binding that grows past the caps
# is a computed delete (a hook killed by its timeout lets the command run)
_ALIAS_LOOPS = [
    # a read-only tree walk (the shape of any linked-structure code)
    "import json\ntree = json.load(open('tree.json'))\ndef walk(node):\n"
    "    while node is not None:\n        if node.key < 0:\n            node = node.left\n"
    "        elif node.key > 10:\n            node = node.right\n        else:\n"
    "            node = node.parent\n    return node\n",
    "a = a.x0\na = a.x1\na = a.x2\na = a.x3\nimport shutil\n",
    "import os as a\na = a.x0\na = a.x1\na = a.x2\na = a.x3\n",
]


def test_an_aliasing_loop_is_read_in_bounded_time() -> None:
    import subprocess
    import sys

    # The peak is what the reading allocates (tracemalloc), not the process's ru_maxrss: Linux
    # keeps the high-water mark across fork and exec, so a child of a large pytest process
    # reports the parent's RSS (1 GB in CI after thousands of tests).
    probe = (
        "import resource, sys, tracemalloc\n"
        "from labledger.reconcile.python_deletes import python_deletes, python_listings\n"
        "tracemalloc.start()\n"
        f"for p in {_ALIAS_LOOPS!r}:\n"
        "    python_deletes(p); python_listings(p)\n"
        "peak = tracemalloc.get_traced_memory()[1]\n"
        "u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(u.ru_utime + u.ru_stime, peak)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    cpu_s, peak_bytes = done.stdout.split()
    assert float(cpu_s) < 5, done.stdout  # (took 24 s and 457 MB before)
    assert int(peak_bytes) < 50_000_000, done.stdout


def test_a_binding_past_the_caps_is_a_computed_delete() -> None:
    from labledger.reconcile.python_deletes import ProgramDelete, python_deletes

    assert python_deletes(_ALIAS_LOOPS[2]) == (ProgramDelete(None),)
    assert python_deletes(_ALIAS_LOOPS[0]) == ()


# 2: the working folder's parent is the command's folder's parent, not "." again
@pytest.mark.parametrize("program", [
    "import shutil, pathlib; shutil.rmtree(pathlib.Path.cwd().parent / '.labledger')",
    "import shutil; from pathlib import Path; "
    "shutil.move(Path('.').resolve().parent / '.labledger', '/tmp/x')",
    "import shutil, os; shutil.rmtree(os.path.dirname(os.getcwd()))",
    "import shutil, os; shutil.rmtree(os.path.join(os.path.realpath('.'), '..', 'capsules'))",
    "import shutil, pathlib; shutil.rmtree(pathlib.Path('.').absolute().parent)",
])
def test_the_parent_of_the_working_folder_is_judged_from_the_command_folder(
        hook: Callable[..., Any], box: Path, program: str) -> None:
    command = _inline(program)
    assert_deletes_protected(hook(command, cwd=box / "src"), command)


def test_the_parent_of_a_relative_dot_stays_here(hook: Callable[..., Any], box: Path) -> None:
    # PurePath('.').parent is '.': not resolved, it names no folder above
    command = _inline("import shutil; from pathlib import Path; "
                      "shutil.rmtree(Path('.').parent / '__pycache__')")
    assert_passes(hook(command, cwd=box / "src"), command)


# 3, 4, 5: a listing nested too deep to read, a listing after os.chdir, a walrus-bound remover
@pytest.mark.parametrize("program", [
    "import os, shutil\nfor d in os.listdir('.' + " + " + ".join(["''"] * 2500) + "):\n"
    "    shutil.rmtree(d)",
    "import os, shutil\nos.chdir('..')\nfor d in os.listdir('project'):\n"
    "    shutil.rmtree(os.path.join('project', d))",
    "import shutil\n(f := shutil.rmtree)('capsules')",
])
def test_listings_and_walrus_are_read_closed(
        hook: Callable[..., Any], box: Path, program: str) -> None:
    command = _heredoc(program.replace("'project'", repr(box.name)))
    assert_deletes_protected(hook(command), command)


# 6: what normal training and cleanup code does passes (some read capsules/c2 too)
@pytest.mark.parametrize("program", [
    # a `*` of arithmetic is no glob: only the program's strings feed a computed path
    "import os, torch\nlr = 3e-4 * 2\ntmp = f'ckpt_{lr}.tmp'\ntorch.save({}, tmp)\n"
    "os.replace(tmp, 'ckpt.pt')",
    "import os\nx = 2 ** 3\nfor f in os.environ['FILES'].split():\n    os.rename(f, f + '.bak')",
    # pandas Series.rename(name), DataFrame.replace(dict), torch Tensor.rename(*names)
    # (pandas 2.2, PyTorch 2.3 API references): not a Path's, no move
    "import pandas as pd\ns = pd.read_json('capsules/c2/metrics.json', typ='series')\n"
    "print(s.rename('acc'))",
    "import pandas as pd\ndf = pd.read_json('capsules/c2/metrics.json', lines=True)\n"
    "print(df.replace({'x': 1}))",
    "import torch\nprint(open('capsules/c2/metrics.json').read())\n"
    "x = torch.zeros(2, 2, names=('N', 'C'))\nprint(x.rename('M', 'K'), x.rename('M'))",
    # name patterns that cannot match a protected folder or a file in one
    "import shutil\nfrom pathlib import Path\nfor p in Path('.').rglob('__pycache__'):\n"
    "    shutil.rmtree(p)",
    "from pathlib import Path\nfor p in Path('.').rglob('*.pyc'):\n    p.unlink()",
    "import shutil\nfrom pathlib import Path\nfor d in Path('.').glob('tmp_*'):\n"
    "    shutil.rmtree(d)",
    "import os, shutil\nfor root, dirs, files in os.walk('.'):\n    if '__pycache__' in dirs:\n"
    "        shutil.rmtree(os.path.join(root, '__pycache__'))",
])
def test_normal_training_and_cleanup_code_passes(
        hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    "from pathlib import Path\nfor p in Path('.').iterdir():\n    p.rename('/tmp/' + p.name)",
    "from pathlib import Path\nd = Path('capsules')\nd.rename('/tmp/c')",
    "from pathlib import Path\nfor p in Path('.').rglob('c2'):\n    p.rename('/tmp/c2')",
    "import os\nx = tmp_path()\nx.replace('capsules/c2/metrics.json')",
])
def test_a_path_renamed_is_still_read(hook: Callable[..., Any], program: str) -> None:
    command = _heredoc(program)
    assert_deletes_protected(hook(command), command)


# 7: python's own options before -c (python(1): -W arg, -X opt take a value)
@pytest.mark.parametrize("command", [
    "python3 -W ignore -c " + shlex.quote("import shutil; shutil.move('capsules', '/tmp/c')"),
    "python3 -X utf8 -c " + shlex.quote("import shutil; shutil.move('.labledger', '/tmp/c')"),
    _inline("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "\"import shutil; shutil.move('capsules', '/tmp/c')\"])"),
])
def test_a_program_behind_options_or_sys_executable_is_read(
        hook: Callable[..., Any], command: str) -> None:
    assert_deletes_protected(hook(command), command)
