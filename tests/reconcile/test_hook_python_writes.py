"""`labledger hook` against what a Python program WRITES onto, through the real console script.

A program (``python -c PROGRAM``, ``python - <<EOF``) destroys a file's bytes as surely by
writing onto it as by removing it: ``open(P, 'w')`` truncates it, ``os.replace(SRC, P)`` and
``shutil.copy(SRC, P)`` replace it, ``open(P, 'r+')`` and ``os.open(P, os.O_WRONLY)`` change it
in place, ``open(P, 'a')`` adds to it. Such a write gets the verdict deleting that file gets:

* in the ledger and store (``.labledger/`` but its cache): every write is refused (a segment or
  an object changed, added to or replaced breaks the ledger's chain or the store's digests),
  its settings too (``.labledger/config.toml``, ``hook.toml``: the rules the agent is judged
  by, edited by a person, as `test_hook_writes` has for the shell's writes);
* in a recorded capsule whose stored copy does not verify (here ``capsules/c2``: no stored
  copy), or in an export root of hook.toml (``results``): replacing or changing an existing
  file is refused; a new file, or a log appended to, loses nothing and passes (every training
  run does both); in a capsule whose stored copy verifies (``capsules/c1``) any write passes:
  the store keeps its bytes.

Only paths the program writes out (literals, ``os.path.join``/``Path /`` of literals, a name
bound once to one) are judged: a computed one (``os.path.join(args.out, 'ckpt.pt')``, an
f-string, ``sys.argv``) passes, as programs write to computed paths all the time. Reads
(``open(P)``, ``'rb'``), ``Path.touch()`` and writes elsewhere pass.

A local script the line runs (``python FILE``, ``python -m pkg.mod``) is read as ``python -c``'s
program is, for its deletes and writes: an ordinary training script passes.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    ledger.append("note", text="a segment to write onto")
    # c1: sealed, its stored copy verifies; c2: sealed, no stored copy
    c1 = project / "capsules" / "c1"
    c1.mkdir(parents=True)
    (c1 / "metrics.json").write_text('{"acc": 0.88}\n')
    digest = pull_seed.store.put(c1).digest
    ledger.append("capsule.sealed", run="r1", path="capsules/c1", digest=digest, files=1,
                  bytes=14)
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=5, bytes=1)
    c2 = project / "capsules" / "c2"
    c2.mkdir(parents=True)
    for name, data in {"metrics.json": b'{"acc": 0.91}\n', "train.log": b"step 1\n",
                       "ckpt.pt": b"\x80weights", "emb.npy": b"\x93NUMPY",
                       "metrics.csv": b"step,loss\n1,0.5\n"}.items():
        (c2 / name).write_bytes(data)
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "best.pth").write_bytes(b"weights")
    (project / ".labledger" / "cache").mkdir(exist_ok=True)
    (project / "t").write_text("new bytes\n")
    return project


def _segment(box: Path) -> str:
    """The ledger's segment file, relative to the project."""
    return str(next((box / ".labledger" / "ledger").glob("*/*.jsonl")).relative_to(box))


def _object(box: Path) -> str:
    """A stored object of the CAS (c1's file), relative to the project."""
    found = [p for p in (box / ".labledger" / "cas").rglob("*")
             if p.is_file() and p.stat().st_size == 14]
    assert found, sorted((box / ".labledger" / "cas").rglob("*"))
    return str(found[0].relative_to(box))


def _heredoc(program: str) -> str:
    return f"python3 - <<'EOF'\n{program}\nEOF"


def _inline(program: str) -> str:
    return "python3 -c " + shlex.quote(program)


def _fill(program: str, box: Path) -> str:
    """``program`` with the ledger's files it names: SEG, the segment (LEDGER_SEG: from inside
    ``.labledger``), OBJ, a stored object."""
    segment = _segment(box)
    return program.replace("LEDGER_SEG", segment.split("/", 1)[1]).replace(
        "SEG", segment).replace("OBJ", _object(box))


# 1: the ledger and store -------------------------------------------------------------------------
# (Python 3.11 library reference: open() modes 'w' truncate, 'a' append, 'x' create, '+' update;
# os.replace/os.rename(src, dst) replace dst; shutil.copy/copy2/copyfile(src, dst) overwrite dst,
# copy into it when it is a folder; shutil.copytree(..., dirs_exist_ok=True) copies over what is
# there; os.truncate; os.open flags)
_LEDGER_WRITES = [
    # the settings too: they are the rules the agent is judged by (`test_hook_writes`)
    "open('.labledger/config.toml', 'w').write('[ledger]\\n')",
    "import os\nos.replace('t', '.labledger/config.toml')",
    "from pathlib import Path\nPath('.labledger/hook.toml').write_text('export-roots = []\\n')",
    "open('SEG', 'w')",
    "open('SEG', 'wb').write(b'')",
    "f = open('SEG', 'w+')\nf.write('{}')",
    "with open('SEG', 'r+') as f:\n    f.write('x')",
    "open('SEG', 'a').write('{\"kind\": \"teardown.approved\"}\\n')",
    "open('SEG', 'ab')",
    "import io\nio.open('SEG', mode='w')",
    "from pathlib import Path\nPath('SEG').write_text('')",
    "from pathlib import Path\nPath('SEG').write_bytes(b'')",
    "from pathlib import Path\nPath('SEG').open('w').write('x')",
    "import pathlib\npathlib.Path.write_text(pathlib.Path('SEG'), '')",
    "import os\nos.replace('t', 'SEG')",
    "import os\nos.rename('t', 'SEG')",
    "import os\nos.renames(old='t', new='SEG')",
    "import shutil\nshutil.copy('t', 'SEG')",
    "import shutil\nshutil.copy2('t', 'SEG')",
    "import shutil\nshutil.copyfile('t', 'SEG')",
    "import shutil\nshutil.move('t', 'SEG')",
    "import shutil\nshutil.copyfileobj(open('t', 'rb'), open('SEG', 'wb'))",
    "import shutil\nshutil.copytree('backup', '.labledger', dirs_exist_ok=True)",
    "import os\nos.truncate('SEG', 0)",
    "import os\nfd = os.open('SEG', os.O_WRONLY | os.O_TRUNC)",
    "import os\nos.open('SEG', os.O_RDWR)",
    "import json\njson.dump({}, open('SEG', 'w'))",
    "open('OBJ', 'wb').write(b'rot')",
    "import os\nos.replace('t', 'OBJ')",
    # a new file among the segments (the ledger reads every one)
    "open('.labledger/ledger/extra.jsonl', 'x')",
    "import shutil, os\nshutil.copy('t', os.path.dirname('SEG'))",
    # the path made of literals, or a name bound once to one
    "import os\nos.truncate(os.path.join('.labledger', 'LEDGER_SEG'), 0)",
    "seg = 'SEG'\nopen(seg, 'w')",
    "from pathlib import Path\nhome = Path('.labledger')\nseg = home / 'LEDGER_SEG'\n"
    "seg.write_text('')",
    "exec(\"open('SEG', 'w')\")",
]


@pytest.mark.parametrize("program", _LEDGER_WRITES)
def test_a_write_into_the_ledger_is_refused(hook: Callable[..., Any], box: Path,
                                            program: str) -> None:
    program = _fill(program, box)
    command = _heredoc(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "the labledger ledger and store" in result.stderr, result.stderr
    assert " in " + str(box / ".labledger") in result.stderr, result.stderr


@pytest.mark.parametrize("program", [
    "open('SEG', 'w')",
    "import os\nos.replace('t', 'SEG')",
])
def test_a_write_into_the_ledger_is_refused_inline_too(hook: Callable[..., Any], box: Path,
                                                       program: str) -> None:
    command = _inline(_fill(program, box))
    result = hook(command)
    assert_blocked(result, command)
    assert "overwrites" in result.stderr, result.stderr


def test_the_reason_says_what_the_write_does(hook: Callable[..., Any], box: Path) -> None:
    seg = _segment(box)
    result = hook(_heredoc(f"open('{seg}', 'w')"))
    assert f"overwrites {seg} in {box / '.labledger'}, the labledger ledger" in result.stderr, \
        result.stderr
    result = hook(_heredoc(f"open('{seg}', 'a')"))
    assert f"appends to {seg} in {box / '.labledger'}" in result.stderr, result.stderr


# 2: a capsule whose stored copy does not verify, an export root ---------------------------------
# (numpy 1.26 numpy.save(file, arr): ".npy extension will be appended to the filename if it does
# not already have one"; pandas 2.2 DataFrame.to_csv(path_or_buf, mode='w'); torch 2.3
# torch.save(obj, f))
_CAPSULE_OVERWRITES = [
    "open('capsules/c2/metrics.json', 'w').write('{}')",
    "import json\njson.dump({'acc': 0.99}, open('capsules/c2/metrics.json', 'w'))",
    "from pathlib import Path\nPath('capsules/c2/metrics.json').write_text('{}')",
    "from pathlib import Path\n(Path('capsules') / 'c2' / 'metrics.json').write_bytes(b'')",
    "with open('capsules/c2/ckpt.pt', 'r+b') as f:\n    f.write(b'x')",
    "import os\nos.replace('t', 'capsules/c2/metrics.json')",
    "import shutil\nshutil.copy('t', 'capsules/c2/ckpt.pt')",
    "import shutil\nshutil.copy('elsewhere/metrics.json', 'capsules/c2')",
    "import shutil\nshutil.copytree('new', 'capsules/c2', dirs_exist_ok=True)",
    "import shutil\nshutil.copytree('new', 'capsules', dirs_exist_ok=True)",
    "import os\nos.truncate('capsules/c2/train.log', 0)",
    "import os\nos.open('capsules/c2/train.log', os.O_WRONLY | os.O_TRUNC)",
    "import torch\ntorch.save({}, 'capsules/c2/ckpt.pt')",
    "import torch\ntorch.save(obj={}, f='capsules/c2/ckpt.pt')",
    "import numpy as np\nnp.save('capsules/c2/emb', np.zeros(3))",
    "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('capsules/c2/metrics.csv')",
    "import pandas as pd\ndf = pd.read_csv('capsules/c2/metrics.csv')\n"
    "df.to_csv('capsules/c2/metrics.csv', index=False)",
    "from pathlib import Path\nout = Path('capsules/c2')\n(out / 'metrics.json').write_text('{}')",
    "open('results/r1/best.pth', 'wb')",
]


@pytest.mark.parametrize("program", _CAPSULE_OVERWRITES)
def test_overwriting_a_file_of_an_unsafe_capsule_is_refused(
        hook: Callable[..., Any], box: Path, program: str) -> None:
    command = _heredoc(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "overwrites" in result.stderr, result.stderr
    assert "the capsule " + str(box / "capsules" / "c2") in result.stderr or \
        "an export root" in result.stderr, result.stderr


def test_the_capsule_reason_says_its_copy_does_not_verify(hook: Callable[..., Any],
                                                          box: Path) -> None:
    result = hook(_inline("open('capsules/c2/metrics.json', 'w')"))
    assert_blocked(result, "open(w)")
    assert (f"overwrites capsules/c2/metrics.json in the capsule {box / 'capsules' / 'c2'} of "
            "run r2, and its stored copy does not verify") in result.stderr, result.stderr


# 3: what must pass ------------------------------------------------------------------------------
_PASSES = [
    # reads of protected files
    "print(open('SEG').read())",
    "print(open('SEG', 'rb').read())",
    "print(open('capsules/c2/metrics.json', 'r').read())",
    "from pathlib import Path\nprint(Path('capsules/c2/metrics.json').open().read())",
    "import os\nos.open('SEG', os.O_RDONLY)",
    "import shutil\nshutil.copy('capsules/c2/metrics.json', 'backup.json')",
    "import shutil\nshutil.copytree('capsules/c2', '/tmp/c2-copy')",
    "import gzip\ngzip.open('capsules/c2/train.log').read()",
    # the cache, elsewhere
    "open('.labledger/cache/judged.json', 'w')",
    "import shutil\nshutil.copytree('x', '.labledger/cache', dirs_exist_ok=True)",
    "open('out.json', 'w')",
    "import torch\ntorch.save({}, 'ckpt.pt')",
    # touching only changes times
    "from pathlib import Path\nPath('capsules/c2/metrics.json').touch()",
    "from pathlib import Path\nPath('SEG').touch()",
    # new files in a capsule, a log appended to
    "open('capsules/c2/eval.json', 'w')",
    "open('capsules/c2/eval.json', 'x')",
    "import torch\ntorch.save({}, 'capsules/c2/ckpt_step2.pt')",
    "import shutil\nshutil.copytree('new', 'capsules/c2/plots')",
    "import shutil\nshutil.move('t', 'capsules/c2')",
    "open('capsules/c2/train.log', 'a').write('step 2\\n')",
    "import pandas as pd\npd.DataFrame({'a': [2]}).to_csv('capsules/c2/metrics.csv', mode='a',"
    " header=False)",
    "import os\nos.open('capsules/c2/train.log', os.O_WRONLY | os.O_APPEND)",
    "open('results/r2.json', 'w')",
    # a capsule whose stored copy verifies: the store keeps its bytes
    "open('capsules/c1/metrics.json', 'w')",
    "import os\nos.replace('t', 'capsules/c1/metrics.json')",
    # paths the program computes
    "import argparse, os, torch\np = argparse.ArgumentParser()\np.add_argument('--out')\n"
    "args = p.parse_args()\ntorch.save({}, os.path.join(args.out, 'ckpt.pt'))",
    "import sys\nopen(sys.argv[1], 'w')",
    "run = 'c2'\nrun = run.upper()\nopen(f'capsules/{run}/metrics.json', 'w')",
    "import os\nfor name in os.listdir('capsules/c2'):\n    open(name + '.bak', 'w')",
]


@pytest.mark.parametrize("program", _PASSES)
def test_reads_new_files_appends_and_computed_paths_pass(
        hook: Callable[..., Any], box: Path, program: str) -> None:
    program = _fill(program, box)
    for command in (_heredoc(program), _inline(program)):
        assert_passes(hook(command), command)


def test_a_relative_write_is_from_the_folder_the_line_cds_to(
        hook: Callable[..., Any], box: Path) -> None:
    (box / "src").mkdir()
    command = "cd src && " + _inline("open('../capsules/c2/metrics.json', 'w')")
    assert_blocked(hook(command), command)
    command = "cd capsules && " + _inline("open('c2/metrics.json', 'w')")
    assert_blocked(hook(command), command)
    command = _inline("open('c2/metrics.json', 'w')")  # c2/ is no folder of the project
    assert_passes(hook(command), command)


# 4: the reader, without the hook ----------------------------------------------------------------
@pytest.mark.parametrize(("program", "expected"), [
    ("open('a', 'w')", [("a", "overwrite")]),
    ("open('a')", []),
    ("open('a', 'rb')", []),
    ("open('a', 'a+')", [("a", "append")]),
    ("open('a', 'x')", [("a", "create")]),
    ("open('a', 'r+')", [("a", "overwrite")]),
    ("import sys\nopen('a', sys.argv[1])", [("a", "overwrite")]),  # a mode not read: may write
    ("import os\nos.open('a', os.O_CREAT | os.O_EXCL | os.O_WRONLY)", [("a", "create")]),
    ("import os\nos.open('a', 0)", []),
    ("import numpy\nnumpy.save('e', [1])", [("e.npy", "overwrite")]),
    ("import numpy\nnumpy.savez('e.npz', a=[1])", [("e.npz", "overwrite")]),
    ("from pathlib import Path\nPath('a').touch()", []),
    ("from pathlib import Path\nPath('a').rename('b')", [("b", "overwrite")]),
    ("import shutil\nshutil.copytree('a', 'b')", [("b", "create")]),
    ("import shutil, sys\nshutil.copytree('a', 'b', dirs_exist_ok=sys.argv[1])",
     [("b", "tree")]),
    ("a = 'x'\nb = a + a\nc = b + b\nd = c + c\nopen(d, 'w')", [("x" * 8, "overwrite")]),
    ("import fileinput\nfor line in fileinput.input('a', inplace=True):\n    print(line)",
     [("a", "overwrite")]),
    ("import wandb\nwandb.save('a')", []),  # uploads it: no write here
])
def test_the_writes_read_from_a_program(program: str,
                                        expected: list[tuple[str, str]]) -> None:
    from labledger.reconcile.python_deletes import python_writes

    assert [(w.path, w.kind) for w in python_writes(program)] == expected


def test_a_chain_of_names_is_read_in_bounded_time_and_size() -> None:
    from labledger.reconcile.python_deletes import python_writes

    # each name doubles the one before: 2**200 characters if followed without a bound
    program = "a0 = 'x'\n" + "".join(f"a{i} = a{i - 1} + a{i - 1}\n" for i in range(1, 200)) + \
        "open(a199, 'w')\nb = b + 'x'\nopen(b, 'w')\n"
    assert python_writes(program) == ()


# 5: a local script the line runs (`python FILE`, `python -m pkg.mod`) -----------------------
# Its own text is read as `python -c`'s is (not the modules it imports), from the line's working
# folder; one that cannot be read here (missing now, over the size bound) is judged by the
# line's words alone, as before.
_CLEANUP = "import shutil\nshutil.rmtree('capsules/c2')\n"

# The shape of pytorch/examples mnist/main.py (argparse flags, a training loop, `torch.save(
# model.state_dict(), "mnist_cnn.pt")`), writing into its own new capsule folder, appending to
# a log and reading the ledger's events.
_TRAIN = """\
import argparse, glob, json, logging, os
import torch

def main():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--epochs', type=int, default=14)
    parser.add_argument('--out', default='capsules/c3')
    parser.add_argument('--save-model', action='store_true')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    logging.basicConfig(filename=os.path.join(args.out, 'train.log'), level=logging.INFO)
    runs = [json.loads(line) for seg in glob.glob('.labledger/ledger/*/*.jsonl')
            for line in open(seg)]
    logging.info('%d events recorded so far', len(runs))
    model = torch.nn.Linear(4, 2)
    for epoch in range(1, args.epochs + 1):
        with open('capsules/c2/train.log', 'a') as log:
            log.write(f'epoch {epoch}\\n')
        torch.save(model.state_dict(), os.path.join(args.out, f'ckpt_{epoch}.pt'))
    with open(os.path.join(args.out, 'metrics.json'), 'w') as f:
        json.dump({'acc': 0.9}, f)
    with open('capsules/c3/summary.txt', 'w') as f:
        f.write('done\\n')
    if args.save_model:
        torch.save(model.state_dict(), 'mnist_cnn.pt')

if __name__ == '__main__':
    main()
"""


@pytest.mark.parametrize(("files", "command"), [
    ({"cleanup.py": _CLEANUP}, "python cleanup.py"),
    ({"cleanup.py": _CLEANUP}, "python3 -u -W ignore cleanup.py --yes"),
    ({"tools/cleanup.py": _CLEANUP}, "cd tools && python cleanup.py"),
    ({"tools/__init__.py": "", "tools/wipe.py": _CLEANUP}, "python -m tools.wipe"),
    ({"tools/__main__.py": _CLEANUP}, "python3 -m tools"),
    ({"fix.py": "open('SEG', 'a').write('{}\\n')"}, "python fix.py"),
    ({"fix.py": "import torch\ntorch.save({}, 'capsules/c2/ckpt.pt')"}, "python fix.py"),
    # a path it computes is fed its own strings, as `python -c`'s is
    ({"clean.py": "import shutil\nd = 'capsules'\nshutil.rmtree(d)"}, "python clean.py"),
])
def test_a_local_script_is_read(hook: Callable[..., Any], box: Path,
                                files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).parent.mkdir(parents=True, exist_ok=True)
        (box / name).write_text(_fill(text, box))
    result = hook(command)
    assert_blocked(result, command)
    assert "capsule" in result.stderr or "the labledger ledger" in result.stderr, result.stderr


@pytest.mark.parametrize(("files", "command"), [
    ({"train.py": _TRAIN}, "python train.py --epochs 1 --save-model"),
    ({"train.py": _TRAIN}, "CUDA_VISIBLE_DEVICES=0 nohup python3 -u train.py > out.log 2>&1 &"),
    ({"src/train.py": _TRAIN}, "cd src && python train.py"),
    # a script that cannot be read here, or past the size bound: its words alone, as before
    ({}, "python cleanup.py"),
    ({"big.py": _CLEANUP + "#" * (1 << 18)}, "python big.py"),
    ({"cleanup.py": _CLEANUP}, "python -c 'print(1)' cleanup.py"),
    ({"cleanup.py": _CLEANUP}, "python -m pytest cleanup.py"),
    ({"cleanup.py": _CLEANUP}, "ssh pod python cleanup.py"),
])
def test_an_ordinary_script_and_one_not_read_pass(hook: Callable[..., Any], box: Path,
                                                   files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).parent.mkdir(parents=True, exist_ok=True)
        (box / name).write_text(_fill(text, box))
    assert_passes(hook(command), command)


# 6: review of the local-script reading: everyday scripts pass ------------------------------------
# A local script's computed delete is fed by the line's words and the script's own strings; the
# folder a script made itself, its docstrings and its help texts feed nothing, and a file that is
# no Python source (a zip app) is not read as one. A write that can destroy nothing (a new file,
# an append) is judged without reading the ledger.

# `tmpdir = tempfile.mkdtemp()` ... `finally: shutil.rmtree(tmpdir)`: the shape of countless
# scripts (found with the public code search: PPTX annotators, LaTeX compilers, beam tests)
_EVAL_TMP = """\
import argparse, json, os, shutil, tempfile
import torch

parser = argparse.ArgumentParser()
parser.add_argument('--ckpt', required=True)
args = parser.parse_args()
tmpdir = tempfile.mkdtemp()
try:
    state = torch.load(args.ckpt)
    json.dump({'acc': 0.9}, open(os.path.join(tmpdir, 'm.json'), 'w'))
finally:
    shutil.rmtree(tmpdir)
"""

_LEDGER_SUMMARY = """\
import glob, json, os, shutil, tempfile

with tempfile.TemporaryDirectory() as work:
    events = [json.loads(line) for seg in glob.glob('.labledger/ledger/*/*.jsonl')
              for line in open(seg)]
    json.dump(events, open(os.path.join(work, 'events.json'), 'w'))
    shutil.rmtree(work)
"""

# checkpoint rotation (keep the last 3), its out folder's default and what it says about it in
# its docstring and --help
_ROTATE = '''\
"""Train, keeping the last 3 checkpoints; see capsules/ for the sealed runs (labledger)."""
import argparse, glob, os
import torch

p = argparse.ArgumentParser(description='writes under capsules/ by default')
p.add_argument('--out', default='OUT', help='output folder, e.g. capsules/NAME/')
args = p.parse_args()
for epoch in range(10):
    torch.save({}, os.path.join(args.out, f'ckpt_{epoch}.pt'))
    for old in sorted(glob.glob(os.path.join(args.out, 'ckpt_*.pt')))[:-3]:
        os.remove(old)
'''


@pytest.mark.parametrize(("files", "command"), [
    ({"eval.py": _EVAL_TMP}, "python eval.py --ckpt capsules/c2/ckpt.pt"),
    ({"summary.py": _LEDGER_SUMMARY}, "python summary.py"),
    ({"train.py": _ROTATE.replace("OUT", "runs/r3")}, "python train.py"),
    ({"train.py": _ROTATE.replace("OUT", "capsules/c3")}, "python train.py --out runs/x"),
    # a banner printed or logged ("*" * 80: everywhere in training scripts) is no glob
    ({"train.py": _ROTATE.replace("OUT", "runs/r3").replace(
        "args = p.parse_args()\n", "args = p.parse_args()\nprint('*' * 80)\n"
        "import logging\nlogging.info('%s', '*' * 80)\nprint('cleaning *')\n")},
     "python train.py"),
    # it reads a recorded run's metrics (the file named where it is opened, only there)
    ({"compare.py": "import json, shutil, sys\n"
                    "base = json.load(open('capsules/c2/metrics.json'))\n"
                    "with open('.labledger/hook.toml', 'rb') as f:\n    f.read()\n"
                    "shutil.rmtree(sys.argv[1], ignore_errors=True)\n"},
     "python compare.py runs/cache"),
])
def test_an_everyday_script_with_a_computed_delete_passes(
        hook: Callable[..., Any], box: Path, files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).write_text(text)
    assert_passes(hook(command), command)


@pytest.mark.parametrize(("files", "command"), [
    # a folder it names, then reads in, may be what it removes
    ({"compare.py": "import json, os, shutil, sys\nd = 'capsules/c2'\n"
                    "base = json.load(open(os.path.join(d, 'metrics.json')))\n"
                    "shutil.rmtree(sys.argv[1] if len(sys.argv) > 1 else d)\n"},
     "python compare.py"),
    # the name is bound to a folder made here, and to what the line gives it
    ({"eval.py": "import shutil, sys, tempfile\nd = tempfile.mkdtemp()\nd = sys.argv[1]\n"
                 "shutil.rmtree(d)\n"}, "python eval.py capsules/c2"),
    ({"eval.py": "import shutil, sys, tempfile\nd = tempfile.mkdtemp()\n"
                 "for d in sys.argv[1:]:\n    shutil.rmtree(d)\n"}, "python eval.py capsules/c2"),
    ({"eval.py": _EVAL_TMP.replace("shutil.rmtree(tmpdir)", "os.remove(args.ckpt)")},
     "python eval.py --ckpt capsules/c2/ckpt.pt"),
    # rotating the checkpoints of an unsafe capsule (its default out folder) deletes its files
    ({"train.py": _ROTATE.replace("OUT", "capsules/c2")}, "python train.py"),
    # a glob it lists and removes (not printed)
    ({"clean.py": "import glob, os\nfor f in glob.glob('*'):\n    os.remove(f)\n"},
     "python clean.py"),
])
def test_a_script_deleting_what_the_line_or_its_strings_name_is_still_refused(
        hook: Callable[..., Any], box: Path, files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).write_text(text)
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("program", [
    "import shutil, tempfile\nshutil.rmtree(tempfile.mkdtemp())",
    "import shutil\nfrom tempfile import mkdtemp\nt = mkdtemp(dir='capsules')\nshutil.rmtree(t)",
    "import shutil, tempfile\nwith tempfile.TemporaryDirectory() as t:\n    shutil.rmtree(t)",
])
def test_removing_a_folder_the_program_made_deletes_nothing(program: str) -> None:
    from labledger.reconcile.python_deletes import python_deletes

    assert python_deletes(program) == ()


def test_docstrings_and_help_texts_feed_no_delete() -> None:
    from labledger.reconcile.python_deletes import program_strings

    strings = program_strings(_ROTATE.replace("OUT", "runs/r3")).splitlines()
    assert "runs/r3" in strings
    assert "ckpt_*.pt" in strings
    assert not [s for s in strings if "capsules" in s], strings


def test_a_zip_app_is_not_read_as_source(hook: Callable[..., Any], box: Path) -> None:
    """``python app.zip`` runs the archive's ``__main__.py``; its bytes read as text would
    feed a delete found in them words of anything (here: ``.labledger``, the capsules)."""
    import zipfile

    with zipfile.ZipFile(box / "app.zip", "w") as z:
        z.writestr("__main__.py", "import shutil, sys\nshutil.rmtree(sys.argv[1])\n")
        z.writestr("data/.labledger/capsules/c2/notes.txt", "x")
    command = "python app.zip /tmp/scratch"
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    "open('figs/new.png', 'w')",
    "import torch\ntorch.save({}, 'capsules/c2/new_ckpt.pt')",
    "open('capsules/c2/train.log', 'a').write('x')",
    # an overwrite outside every capsule and export root (last epoch's file, `t` exists): the
    # capsules are read from the ledger's capsule.sealed lines alone, not every line verified
    # (half a second a call on a ledger of 50,000 events)
    "open('t', 'w').write('x')",
    "import torch\ntorch.save({}, 't')",
    "import shutil\nshutil.copytree('x', 'figs', dirs_exist_ok=True)",
])
def test_a_write_that_destroys_nothing_does_not_read_the_ledger(
        hook: Callable[..., Any], box: Path, program: str) -> None:
    """With the ledger damaged, reading it refuses every destroy; a new file or an append
    (nothing there lost, whatever is recorded) passes without reading it, as ``ls`` does,
    where a replace of a file there now is still judged (and refused: fail closed)."""
    segment = box / _segment(box)
    segment.write_bytes(segment.read_bytes().replace(b'"note"', b'"nOte"', 1))
    assert_passes(hook(_inline(program)), program)
    assert_blocked(hook(_inline("open('capsules/c2/metrics.json', 'w')")), "replace")


@pytest.mark.parametrize("program", [
    "import builtins\nbuiltins.open('SEG', 'w')",
    "import logging\nlogging.FileHandler('SEG', mode='w')",
    "import logging\nlogging.basicConfig(handlers=[logging.FileHandler('SEG')])",
])
def test_the_builtins_open_and_a_log_file_handler_write(hook: Callable[..., Any], box: Path,
                                                         program: str) -> None:
    """``builtins.open`` is ``open``; ``logging.FileHandler(filename, mode='a')`` opens its
    file as ``open`` does (Python 3.11 library reference, logging.handlers)."""
    command = _inline(_fill(program, box))
    assert_blocked(hook(command), command)
    passes = _inline("import logging\nlogging.FileHandler('capsules/c2/train.log')")
    assert_passes(hook(passes), passes)
