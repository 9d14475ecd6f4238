"""`labledger hook` reads the local shell script a command runs (``bash FILE``, ``sh FILE``,
``./FILE``, ``source FILE``, ``. FILE``, ``zsh FILE``, ``sbatch FILE``, and so through
``srun``, ``nohup``, ``tmux new``) and judges its text as if the agent had typed it: its
positional parameters bound to the words it is run with (computed when the script shifts
them or defines functions), its own ``cd``, the scripts it runs in turn (a script that runs
itself read once), a ``#!`` naming Python read as Python. A script that runs nothing
protected passes: the run scripts agents write (`_TRAIN`, shaped as public ones are:
huggingface/transformers examples/pytorch/language-modeling README's ``python run_clm.py
--output_dir``, karpathy/nanoGPT's ``torchrun --standalone --nproc_per_node=8 train.py``,
Slurm's sbatch(1) ``#SBATCH`` header lines).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_python_writes import box  # noqa: F401 - the project fixture
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

_DELETES_C2 = "#!/bin/bash\nset -euo pipefail\necho cleaning\nrm -rf capsules/c2\n"
_EMPTIES_CONFIG = "#!/bin/sh\n: > .labledger/config.toml\n"
_SBATCH = ("#!/bin/bash\n#SBATCH --job-name=clean\n#SBATCH --gres=gpu:1\n#SBATCH -t 01:00:00\n"
           "module load cuda\nrm -rf capsules/c2\n")

_TRAIN = """#!/usr/bin/env bash
#SBATCH --job-name=exp2
#SBATCH --output=logs/%j.out
set -euo pipefail

OUT=runs/exp2
EPOCHS=${EPOCHS:-3}

log() { echo "[$(date +%H:%M:%S)] $*"; }

setup() {
    rm -rf build/
    mkdir -p runs/exp3 "$OUT" logs
}

train() {
    log "training into $OUT"
    python train.py --out "$OUT" --epochs "$EPOCHS" "$@" 2>&1 | tee "$OUT/train.log"
}

setup
train "$@"
rm -rf /tmp/exp2-cache
log done
"""

# the root ~/.bashrc that RHEL/CentOS ship (the setup package's /etc/skel/.bashrc for root)
_RHEL_BASHRC = """# .bashrc

# User specific aliases and functions

alias rm='rm -i'
alias cp='cp -i'
alias mv='mv -i'

# Source global definitions
if [ -f /etc/bashrc ]; then
        . /etc/bashrc
fi
"""

# conda/conda conda/shell/etc/profile.d/conda.sh (its functions and case, shortened)
_CONDA_SH = """
__conda_activate() {
    \\local cmd="$1"
    shift
    \\local ask_conda
    ask_conda="$(PS1="$PS1" "$CONDA_EXE" shell.posix "$cmd" "$@")" || \\return $?
    \\eval "$ask_conda"
}

conda() {
    if [ "$#" -lt 1 ]; then
        "$CONDA_EXE"
    else
        \\local cmd="$1"
        shift
        case "$cmd" in
            activate|deactivate)
                __conda_activate "$cmd" "$@"
                ;;
            install|update|uninstall|remove)
                "$CONDA_EXE" "$cmd" "$@" && __conda_reactivate
                ;;
            *) "$CONDA_EXE" "$cmd" "$@" ;;
        esac
    fi
}
"""


def _write(box: Path, files: dict[str, str]) -> None:  # noqa: F811
    for name, text in files.items():
        path = box / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)


@pytest.mark.parametrize("script", [_DELETES_C2, _EMPTIES_CONFIG])
@pytest.mark.parametrize("command", [
    "bash job.sh", "sh job.sh", "./job.sh", "source job.sh", ". job.sh", "bash -x job.sh",
    "bash -e job.sh arg", "bash -o pipefail job.sh", "zsh job.sh", "sbatch job.sh",
    "sbatch --job-name=x -p gpu -t 10 job.sh", "srun bash job.sh", "nohup bash job.sh &",
    "tmux new -d 'bash job.sh'", "cd scripts && bash ../job.sh",
    "bash job.sh > clean.log 2>&1", "busybox sh job.sh",
])
def test_a_shell_script_file_is_read(hook: Callable[..., Any], box: Path,  # noqa: F811
                                     script: str, command: str) -> None:
    _write(box, {"job.sh": script, "scripts/.keep": ""})
    result = hook(command)
    assert_blocked(result, command)
    assert "job.sh" in result.stderr, result.stderr


def test_the_reason_names_the_script_and_its_line(hook: Callable[..., Any],
                                                  box: Path) -> None:  # noqa: F811
    _write(box, {"job.sh": _DELETES_C2})
    result = hook("bash job.sh")
    assert_blocked(result, "bash job.sh")
    assert "line 4 of `job.sh`" in result.stderr, result.stderr
    assert "c2" in result.stderr, result.stderr


def test_a_sbatch_script_is_read_past_its_header(hook: Callable[..., Any],
                                                 box: Path) -> None:  # noqa: F811
    _write(box, {"job.sbatch": _SBATCH})
    assert_blocked(hook("sbatch job.sbatch"), "sbatch job.sbatch")


@pytest.mark.parametrize(("files", "command"), [
    # its own cd
    ({"job.sh": "cd capsules\nrm -rf c2\n"}, "bash job.sh"),
    ({"scripts/job.sh": "rm -rf ../capsules/c2\n"}, "cd scripts && bash job.sh"),
    # a script that runs another
    ({"outer.sh": "echo start\nbash inner.sh\n", "inner.sh": "rm -rf capsules/c2\n"},
     "bash outer.sh"),
    ({"outer.sh": "source ./inner.sh\n", "inner.sh": "rm -rf capsules/c2\n"},
     "bash outer.sh"),
    # a script that runs itself: read once, its delete judged
    ({"loop.sh": "bash loop.sh\nrm -rf capsules/c2\n"}, "bash loop.sh"),
    # its positional parameters, bound to its words
    ({"clean.sh": 'rm -rf "$1"\n'}, "bash clean.sh capsules/c2"),
    ({"clean.sh": 'rm -rf "${1}"/\n'}, "bash clean.sh capsules/c2"),
    ({"clean.sh": 'rm -rf "$@"\n'}, "bash clean.sh build capsules/c2"),
    ({"clean.sh": 'D=$2\nrm -rf "$D"\n'}, "sh clean.sh build capsules/c2"),
    # ... computed, when it shifts them or defines functions
    ({"clean.sh": 'shift\nrm -rf "$1"\n'}, "bash clean.sh build capsules/c2"),
    ({"clean.sh": 'wipe() { rm -rf "$1"; }\nwipe "$1"\n'}, "bash clean.sh capsules/c2"),
    # an alias a sourced file defines: judged as it stands, and where the line uses it
    ({"rc": "alias nuke='rm -rf capsules/c2'\n"}, "source rc"),
    ({"rc": "alias c='rm -rf'\n"}, "source rc && c capsules/c2"),
    # a #! naming Python: read as Python (by Slurm too: it runs the script by its #!)
    ({"job.sh": "#!/usr/bin/env python\nimport shutil\nshutil.rmtree('capsules/c2')\n"},
     "./job.sh"),
    ({"job.sh": "#!/usr/bin/env python3\n#SBATCH -p gpu\nimport shutil\n"
                "shutil.rmtree('capsules/c2')\n"}, "sbatch job.sh"),
    # run by its path (no #!: the shell runs it itself)
    ({"tools/wipe": "rm -rf capsules/c2\n"}, "tools/wipe"),
    # its stdin a file: that is its script
    ({"job.sh": "rm -rf capsules/c2\n"}, "bash < job.sh"),
    ({"job.sh": "rm -rf capsules/c2\n"}, "bash -s -- --fast < job.sh"),
    # the words xargs appends: computed, fed by what is piped to it
    ({"clean.sh": 'rm -rf "$1"\n'}, "echo capsules/c2 | xargs bash clean.sh"),
])
def test_what_a_script_does_is_read(hook: Callable[..., Any], box: Path,  # noqa: F811
                                    files: dict[str, str], command: str) -> None:
    _write(box, files)
    result = hook(command)
    assert_blocked(result, command)
    assert "c2" in result.stderr, result.stderr


@pytest.mark.parametrize(("files", "command"), [
    ({"train.sh": _TRAIN, "train.py": "print('hi')\n"}, "bash train.sh"),
    ({"train.sh": _TRAIN, "train.py": "print('hi')\n"}, "bash train.sh --lr 3e-4"),
    ({"train.sh": _TRAIN, "train.py": "print('hi')\n"}, "./train.sh"),
    ({"train.sh": _TRAIN, "train.py": "print('hi')\n"}, "sbatch train.sh"),
    ({"train.sh": _TRAIN, "train.py": "print('hi')\n"}, "nohup bash train.sh > out.log 2>&1 &"),
    ({"clean.sh": 'rm -rf "$1"\n'}, "bash clean.sh build"),
    ({"clean.sh": 'rm -rf "$@"\n'}, "bash clean.sh build dist"),
    ({"clean.sh": 'shift\nrm -rf "$1"\n'}, "bash clean.sh capsules/c1 build"),
    ({"loop.sh": "rm -rf build\nbash loop.sh\n"}, "bash loop.sh"),
    ({"eval.sh": "python eval.py --ckpt capsules/c2/ckpt.pt --out runs/eval\n",
      "eval.py": "print('eval')\n"}, "bash eval.sh"),
    # a computed word binds $1 to something computed; the script's own words stay literal
    ({"job.sh": "python eval.py --ckpt capsules/c2/ckpt.pt\nrm -rf build\n",
      "eval.py": "print('eval')\n"}, 'bash job.sh "$CFG"'),
    # -n: read for its syntax, nothing run
    ({"job.sh": _DELETES_C2}, "bash -n job.sh"),
    # its redirections are no words of it
    ({"clean.sh": 'rm -rf "$1"\n'}, "bash clean.sh build > capsules.log 2>&1"),
    # bash -c is read as before, not as a file
    ({}, "bash -c 'rm -rf build'"),
    # a sourced dotfile's aliases (RHEL's root ~/.bashrc: alias rm='rm -i', cp, mv)
    ({"rc": _RHEL_BASHRC}, "source rc && python eval.py --ckpt capsules/c2/ckpt.pt"),
    # conda's own conda.sh (conda/conda conda/shell/etc/profile.d/conda.sh): functions,
    # `"$CONDA_EXE" "$cmd" "$@"`, a case of `install|update|uninstall|remove`
    ({"conda.sh": _CONDA_SH}, ". conda.sh && conda activate exp && python eval.py "
                              "--ckpt capsules/c2/ckpt.pt"),
    # a setup the system holds is not read
    ({}, ". /etc/os-release && echo $ID"),
    # a script not there: judged by its words, as before
    ({}, "bash missing.sh"),
    # an executable that is no script
    ({"bin/tool": "\x7fELF\x00\x00rm -rf capsules/c2\n"}, "bin/tool"),
])
def test_a_script_that_touches_nothing_protected_passes(
        hook: Callable[..., Any], box: Path, files: dict[str, str],  # noqa: F811
        command: str) -> None:
    _write(box, files)
    assert_passes(hook(command), command)


def test_a_script_written_and_run_in_one_line_is_judged_by_its_text(
        hook: Callable[..., Any], box: Path) -> None:  # noqa: F811
    """``cat > j.sh <<EOF ... EOF; bash j.sh``: the file is not there when the hook reads it;
    the here-document written to it is the script's text (the hook sees it as data)."""
    for command in ("cat > j.sh <<'EOF'\nrm -rf capsules/c2\nEOF\nbash j.sh",
                    "cat <<EOF > j.sh\nrm -rf capsules/c2\nEOF\nchmod +x j.sh && ./j.sh"):
        assert_blocked(hook(command), command)
