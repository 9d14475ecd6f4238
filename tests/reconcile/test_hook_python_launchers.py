"""`labledger hook` reads the local script a launcher runs as it reads ``python FILE``'s, for
its deletes and writes (the policy of `test_hook_python_writes`): ``torchrun``, ``python -m
torch.distributed.run``, ``accelerate launch``, ``deepspeed`` (which of their options take a
value, from each one's argument parser), ``uv run FILE``, ``./FILE.py`` (its ``#!``) and
``python DIR`` (DIR's ``__main__.py``). A launcher told to run its script without Python
(``--no-python``) or asked for its help reads none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_python_writes import box  # noqa: F401 - the project fixture
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes


def _refused_over_c2(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "the capsule" in result.stderr, result.stderr
    assert "c2" in result.stderr, result.stderr


# launchers ----------------------------------------------------------------------------------
# (torch 2.x torch/distributed/run.py get_args_parser: --standalone, -m/--module, --no-python,
# --run-path take no value, every other option one; deepspeed launcher/runner.py: --module,
# --no_python, --no_local_rank, --no_ssh, --no_ssh_check, --force_multi, --save_pid,
# --elastic_training, --bind_cores_to_rank take none; accelerate commands/launch.py: its
# store_true flags, hyphens or underscores; Python 3.11 library reference: python -m cProfile
# [-o output_file] [-s sort_order] (-m module | myscript.py), python -m pdb [-c command] pyfile.
# Lines as public run scripts write them:
# StrongResearch/isc-demos tiny_training/run.sh, codebyzeb/BabyLM scripts/run_hpc_expt.sh,
# hyggy2019/MARS scripts/run_rnnps_small.sh, tedyhabtegebrial/ultra_light_trainer
# run_example.sh)
_SAVES_OVER_C2 = "import torch\ntorch.save({}, 'capsules/c2/ckpt.pt')\n"


@pytest.mark.parametrize(("files", "command"), [
    ({"train.py": _SAVES_OVER_C2}, "torchrun train.py"),
    ({"train.py": _SAVES_OVER_C2}, "torchrun --nproc_per_node=8 train.py --out runs/exp1"),
    ({"train.py": _SAVES_OVER_C2}, "torchrun --standalone --nproc-per-node 8 train.py"),
    ({"train.py": _SAVES_OVER_C2},
     "torchrun --nnodes=1 --nproc_per_node=1 --rdzv_id=100 --rdzv_backend=c10d "
     "--rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT train.py $@"),
    ({"examples/__init__.py": "", "examples/train.py": _SAVES_OVER_C2},
     "torchrun --nnodes=1 --nproc_per_node=gpu -m examples.train"),
    ({"train.py": _SAVES_OVER_C2},
     "python -m torch.distributed.run --nproc_per_node=2 train.py"),
    ({"train.py": _SAVES_OVER_C2}, "python -m torch.distributed.launch --use_env train.py"),
    ({"train.py": _SAVES_OVER_C2}, "python -m cProfile -o prof.out -s cumtime train.py"),
    ({"train.py": _SAVES_OVER_C2}, "python3 -m pdb -c continue train.py"),
    ({"train.py": _SAVES_OVER_C2}, "accelerate launch train.py"),
    ({"train.py": _SAVES_OVER_C2},
     "accelerate launch --multi_gpu --num_processes 2 --mixed-precision bf16 train.py"),
    ({"train.py": _SAVES_OVER_C2}, "deepspeed train.py"),
    ({"train.py": _SAVES_OVER_C2}, "deepspeed --num_gpus 2 train.py --deepspeed ds.json"),
    ({"train.py": _SAVES_OVER_C2}, "uv run train.py"),
    ({"train.py": _SAVES_OVER_C2}, "uv run --with torch train.py --epochs 1"),
    ({"train.py": "#!/usr/bin/env python3\n" + _SAVES_OVER_C2}, "./train.py"),
    ({"appdir/__main__.py": _SAVES_OVER_C2}, "python appdir/"),
    ({"appdir/__main__.py": _SAVES_OVER_C2}, "python3 appdir"),
    # already read: kept
    ({"train.py": _SAVES_OVER_C2}, "python -u train.py"),
    ({"script.py": _SAVES_OVER_C2}, "python3.11 script.py"),
    ({"x.py": _SAVES_OVER_C2}, "nohup python x.py &"),
    ({"x.py": _SAVES_OVER_C2}, "CUDA_VISIBLE_DEVICES=0 python x.py"),
    ({"x.py": _SAVES_OVER_C2}, "uv run python x.py"),
])
def test_a_launched_script_is_read(hook: Callable[..., Any], box: Path,  # noqa: F811
                                   files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).parent.mkdir(parents=True, exist_ok=True)
        (box / name).write_text(text)
    _refused_over_c2(hook(command), command)


@pytest.mark.parametrize(("files", "command"), [
    # the script names no protected file: passes as `python train.py` does
    ({"train.py": "import torch\ntorch.save({}, 'runs/exp1/ckpt.pt')\n"},
     "torchrun --nproc_per_node=8 train.py"),
    # not a Python script: nothing read as one
    ({"train.sh": _SAVES_OVER_C2}, "torchrun --no-python train.sh"),
    ({"train.sh": _SAVES_OVER_C2}, "deepspeed --no_python train.sh"),
    # an option's value is no script (`--config_file` names the accelerate config)
    ({"cfg.py": _SAVES_OVER_C2, "train.py": "print(1)\n"},
     "accelerate launch --config_file cfg.py train.py"),
    ({"train.py": _SAVES_OVER_C2}, "torchrun --help"),
])
def test_a_launcher_whose_script_writes_nothing_protected_passes(
        hook: Callable[..., Any], box: Path,  # noqa: F811
        files: dict[str, str], command: str) -> None:
    for name, text in files.items():
        (box / name).write_text(text)
    assert_passes(hook(command), command)


# profilers and shells that run a script as `python FILE` does (coverage.py 7 `coverage run
# [-a] [--branch] [-p] [--rcfile=F] [--source S] (-m MODULE | FILE)`, also `python -m coverage
# run`; memray `memray run [-o OUT] [-f] [--native] [-q] (-m MODULE | FILE)`; line_profiler
# `kernprof [-l] [-v] [-o OUT] [-s SETUP] [-u UNIT] FILE`; `ipython FILE` (its options one
# word each))
@pytest.mark.parametrize("command", [
    "coverage run train.py",
    "coverage run --branch --source src -p train.py --epochs 1",
    "coverage run --rcfile=.coveragerc -a train.py",
    "python -m coverage run train.py",
    "memray run -o out.bin --native train.py",
    "python -m memray run -f -q train.py",
    "kernprof -l -v train.py",
    "kernprof -l -o prof.lprof train.py",
    "ipython train.py",
    "ipython --no-banner -i train.py",
])
def test_a_profiled_script_is_read(hook: Callable[..., Any], box: Path,  # noqa: F811
                                   command: str) -> None:
    (box / "train.py").write_text(_SAVES_OVER_C2)
    _refused_over_c2(hook(command), command)


@pytest.mark.parametrize("command", [
    "coverage run -m pytest", "coverage report", "coverage html", "memray flamegraph out.bin",
    "kernprof --help", "ipython", "ipython -c 'print(1)'", "coverage run --help",
])
def test_a_profiler_running_no_local_script_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:  # noqa: F811
    (box / "train.py").write_text(_SAVES_OVER_C2)
    assert_passes(hook(command), command)
