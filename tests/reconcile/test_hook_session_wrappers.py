"""`labledger hook` reads the command a session manager, an MPI launcher or a process wrapper
runs (the policy of `test_hook_python_writes`: ``rm -rf capsules/c2`` of a capsule whose stored
copy does not verify is refused, wherever it runs).

* tmux(1) (3.x): ``new-session``/``new``, ``new-window``/``neww``, ``split-window``/``splitw``,
  ``respawn-pane``/``respawnp``, ``respawn-window``/``respawnw`` and ``run-shell``/``run`` run
  their ``shell-command`` (``sh -c``; several words: run as they are); ``send-keys``/``send``
  types its keys into a pane's shell (``Enter``, ``C-m`` run the line). Commands are chained
  with a ``;`` word. Their options taking a value: ``-c -e -f -F -n -s -t -x -y -l -d -N``
  (https://man.archlinux.org/man/tmux.1.en.txt).
* screen(1): ``screen [-opts] [cmd [args]]`` starts ``cmd`` in a new session (``-dm``,
  ``-dmS name``: detached); ``screen -X stuff TEXT`` types TEXT into a session's window.
* Open MPI mpirun(1) (``mpirun``, ``mpiexec``, ``orterun`` are synonyms): ``mpirun [options]
  <program> [<args>]``; ``--mca``/``-mca key value`` takes two words
  (https://manpages.ubuntu.com/manpages/plucky/man1/mpirun.openmpi.1.html); MPICH's
  ``mpiexec -genv NAME VALUE`` too.
* Horovod's ``horovodrun [options] COMMAND`` (horovod/runner/launch.py: ``-np``, ``-H``,
  ``-hostfile``, ``-p``, ``-i``, ``--start-timeout`` ... take a value; the rest are flags).
* xvfb-run(1) (Debian): ``xvfb-run [options] command`` (``-e -f -n -p -s -w`` take a value).
* numactl(8): ``-N -m -i -p -C -P -w`` (``--cpunodebind`` ...) take a value.
* flock(1): ``flock [options] FILE -c COMMAND`` runs COMMAND with ``sh -c``.
* procps watch(1): ``watch [options] command`` runs ``sh -c`` on its words joined (``-x``:
  exec'd as they are); ``-d``/``--differences[=permanent]`` takes no separate value, ``-n``
  one (https://manpages.ubuntu.com/manpages/focal/man1/watch.1.html).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_python_writes import box  # noqa: F401 - the project fixture
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

_DELETES_C2 = "import shutil\nshutil.rmtree('capsules/c2')\n"
_EVAL = "import json\nprint(json.load(open('capsules/c2/metrics.json')))\n"


def _scripts(project: Path) -> None:
    (project / "train.py").write_text(_DELETES_C2)
    (project / "eval.py").write_text(_EVAL)


@pytest.mark.parametrize("command", [
    "tmux new -d 'rm -rf capsules/c2'",
    "tmux new-session -d -s x 'rm -rf capsules/c2'",
    "tmux new-session -d -s x -c . rm -rf capsules/c2",
    "tmux new -d -s train 'python train.py'",
    "tmux new-window -d -n w 'rm -rf capsules/c2'",
    "tmux split-window -h -l 30 'rm -rf capsules/c2'",
    "tmux respawn-pane -k -t x 'rm -rf capsules/c2'",
    "tmux -L sock new -d 'rm -rf capsules/c2'",
    "tmux send-keys -t x 'rm -rf capsules/c2' Enter",
    "tmux send -t x:0 'rm -rf capsules/c2' C-m",
    "tmux send-keys -t x rm Space -rf Space capsules/c2 Enter",
    "tmux new -d -s x \\; send-keys -t x 'python train.py' Enter",
    "screen -dm rm -rf capsules/c2",
    "screen -dmS name rm -rf capsules/c2",
    "screen -S name -dm python train.py",
    "screen -dmS name bash -c 'rm -rf capsules/c2'",
    "screen -S name -X stuff 'rm -rf capsules/c2\\n'",
    "mpirun -np 4 rm -rf capsules/c2",
    "mpirun -np 4 python train.py",
    "mpirun -n 4 --allow-run-as-root --bind-to none python train.py",
    "mpirun --mca btl ^openib -np 2 -x NCCL_DEBUG=INFO python train.py",
    "mpiexec -n 2 -genv OMP_NUM_THREADS 1 python train.py",
    "horovodrun -np 2 rm -rf capsules/c2",
    "horovodrun -np 4 -H server1:2,server2:2 --start-timeout 60 python train.py",
    "xvfb-run rm -rf capsules/c2",
    "xvfb-run -a python train.py",
    "xvfb-run -s '-screen 0 1024x768x24' python train.py",
    "numactl -N 0 -m 0 python train.py",
    "numactl --cpunodebind 0 --membind 0 rm -rf capsules/c2",
    "flock /tmp/train.lock -c 'rm -rf capsules/c2'",
    "flock -n /tmp/train.lock --command 'python train.py'",
    "watch -n 5 'rm -rf capsules/c2'",
    "watch -d rm -rf capsules/c2",
    "watch -n 60 -x python train.py",
])
def test_what_a_session_or_launcher_runs_is_judged(
        hook: Callable[..., Any], box: Path, command: str) -> None:  # noqa: F811
    _scripts(box)
    result = hook(command)
    assert_blocked(result, command)
    assert "capsules/c2" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "tmux new -d -s train 'python eval.py'",
    "tmux new -s work",
    "tmux ls",
    "tmux attach -t x",
    "tmux send-keys -t x 'nvidia-smi' Enter",
    "tmux send-keys -t x C-c",
    "tmux capture-pane -p -t x",
    "screen -ls",
    "screen -r name",
    "screen -dmS name python eval.py",
    "mpirun -np 4 python eval.py",
    "horovodrun -np 4 --gloo python eval.py",
    "xvfb-run -a python eval.py",
    "numactl -N 0 -m 0 python eval.py",
    "flock /tmp/train.lock -c 'python eval.py'",
    "watch -d nvidia-smi",
    "watch -n 1 'nvidia-smi; tail -n 3 capsules/c2/train.log'",
])
def test_an_ordinary_session_or_launcher_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:  # noqa: F811
    _scripts(box)
    assert_passes(hook(command), command)


# more wrappers: bash's `time -p` and GNU time(1) (-f FORMAT, -o FILE take a value); GNU xargs
# `-i[replace-str]` (its value only attached: `xargs -i rm {}` runs rm); GNU parallel's options
# taking a value (--joblog FILE, --results DIR, --delay S, -N N, ...); cpulimit -l N [--] CMD;
# runuser -u USER [--] CMD; systemd-run [-p PROP] [--scope] CMD; firejail CMD; apptainer /
# singularity exec [-B SRC] IMAGE CMD (the current folder is bound in as it is); py-spy record
# [-o OUT] -- CMD; nsys profile [-o OUT -t cuda,nvtx] CMD (every option of nsys takes a value)
@pytest.mark.parametrize("command", [
    "time -p python train.py",
    "/usr/bin/time -v python train.py",
    "/usr/bin/time -o t.txt -f %e rm -rf capsules/c2",
    "echo capsules/c2 | xargs -i rm -rf {}",
    "parallel --joblog jobs.log rm -rf ::: capsules/c2",
    "parallel --delay 1 -N 1 rm -rf ::: capsules/c2",
    "parallel --results out python train.py ::: 1 2",
    "cpulimit -l 50 -- python train.py",
    "runuser -u me -- rm -rf capsules/c2",
    "systemd-run --user --scope -p MemoryMax=10G python train.py",
    "firejail python train.py",
    "apptainer exec --nv img.sif python train.py",
    "singularity exec --nv -B /data:/data img.sif rm -rf capsules/c2",
    "py-spy record -o prof.svg -- python train.py",
    "nsys profile -o report -t cuda,nvtx --stats=true python train.py",
])
def test_what_more_wrappers_run_is_judged(
        hook: Callable[..., Any], box: Path, command: str) -> None:  # noqa: F811
    _scripts(box)
    result = hook(command)
    assert_blocked(result, command)
    assert "capsules/c2" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "time -p python eval.py",
    "/usr/bin/time -v python eval.py",
    "parallel --joblog jobs.log python eval.py ::: 1 2",
    "apptainer exec --nv img.sif python eval.py",
    "apptainer pull img.sif docker://pytorch/pytorch",
    "py-spy record -o prof.svg -- python eval.py",
    "py-spy dump --pid 1234",
    "nsys profile -o report python eval.py",
    "systemd-run --user --scope python eval.py",
])
def test_more_ordinary_wrapped_commands_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:  # noqa: F811
    _scripts(box)
    assert_passes(hook(command), command)
