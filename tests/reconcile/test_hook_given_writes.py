"""`labledger hook` on a Python script whose output folder is given on its command line.

Rerunning training into the folder of a run already sealed is how results are most often lost:
``python train.py --out capsules/c2`` overwrites ``capsules/c2/metrics.json`` and the
checkpoints of the run the ledger records. The hook read a script's writes only where their
paths were written out in it; ``os.path.join(args.out, "metrics.json")`` is computed, so the
line passed. Now a written path that starts from what the command line gives the script
(``args.NAME``, ``cfg.NAME``, ``cfg["NAME"]``, ``sys.argv[K]``; an f-string or a join around
it) is read with the line's value put in (`python_deletes.argument_writes`,
`hook._given_writes`): ``--NAME V``, ``--NAME=V`` (``-`` or ``_``), Hydra's ``a.b.NAME=V``,
else the key NAME of a config file the line names (``--config exp.yaml``), of one the
script reads though the line names none (its ``--config`` default, ``open("configs/x.yaml")``,
``OmegaConf.load``, ``Config.fromfile``, ``Path(P).read_text()``) or of the config Hydra
composes (``@hydra.main(config_path, config_name)``, its ``defaults`` one level, group
choices on the line), else argparse's literal default. A part computed when it runs
(``model_{epoch}.pt``) is some file of the folder before it: judged as a save over the files
there. transformers' ``HfArgumentParser`` scripts save into ``--output_dir``.

The project is `test_hook_writes`' (``capsules/c2`` unverified, holding ``metrics.json`` and
``train.log``; ``capsules/c3`` stored and verifying; ``results`` an export root).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

SCRIPTS = {
    "train.py": """
import argparse, json, os
p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--log-dir", default="logs")
args = p.parse_args()
os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "metrics.json"), "w") as f:
    json.dump({"acc": 0.5}, f)
with open(f"{args.log_dir}/train.log", "a") as f:
    f.write("done\\n")
""",
    "ckpt.py": """
import argparse, torch
def main(args):
    for epoch in range(3):
        torch.save({"epoch": epoch}, f"{args.output_dir}/model_{epoch}.pt")
if __name__ == "__main__":
    p = argparse.ArgumentParser(); p.add_argument("--output-dir")
    main(p.parse_args())
""",
    "evaluate.py": """
import argparse, json, torch
p = argparse.ArgumentParser(); p.add_argument("--ckpt"); p.add_argument("--report")
a = p.parse_args()
state = torch.load(a.ckpt)
json.dump({"acc": 0.9}, open(a.report, "w"))
""",
    "hf_train.py": """
from transformers import HfArgumentParser, Trainer, TrainingArguments
(training_args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()
Trainer(model=None, args=training_args).train()
""",
    "convert.py": """
import sys
data = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(data)
""",
    "hydra_train.py": """
import hydra
@hydra.main(config_path="conf", config_name="config")
def main(cfg):
    with open(cfg.paths.output_dir + "/metrics.json", "w") as f:
        f.write("{}")
main()
""",
    "cfg_train.py": """
import argparse, json, os, yaml
p = argparse.ArgumentParser(); p.add_argument("--config")
cfg = yaml.safe_load(open(p.parse_args().config))
json.dump({}, open(os.path.join(cfg["train"]["output_dir"], "metrics.json"), "w"))
""",
    "hydra_main.py": """
import hydra
@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg):
    with open(f"{cfg.paths.output_dir}/metrics.json", "w") as f:
        f.write("{}")
if __name__ == "__main__":
    main()
""",
    "default_cfg.py": """
import argparse, json, os, yaml
p = argparse.ArgumentParser()
p.add_argument("--config", "-c", default="configs/exp.yaml")
p.add_argument("--seed", type=int, default=0)
cfg = yaml.safe_load(open(p.parse_args().config))
os.makedirs(cfg["train"]["output_dir"], exist_ok=True)
json.dump({}, open(os.path.join(cfg["train"]["output_dir"], "metrics.json"), "w"))
""",
    "own_cfg.py": """
import json, os, yaml
with open("configs/exp.yaml") as f:
    cfg = yaml.safe_load(f)
os.makedirs(cfg["train"]["output_dir"], exist_ok=True)
json.dump({}, open(os.path.join(cfg["train"]["output_dir"], "metrics.json"), "w"))
""",
    "own_new.py": """
import json, os, yaml
cfg = yaml.safe_load(open("configs/new.yaml"))
json.dump({}, open(os.path.join(cfg["train"]["output_dir"], "metrics.json"), "w"))
""",
    "omega_cfg.py": """
from omegaconf import OmegaConf
cfg = OmegaConf.load("configs/exp.yaml")
with open(f"{cfg.train.output_dir}/metrics.json", "w") as f:
    f.write("{}")
""",
    "mm_cfg.py": """
from mmengine.config import Config
cfg = Config.fromfile("configs/exp.yaml")
open(cfg.train.output_dir + "/metrics.json", "w").write("{}")
""",
    "path_cfg.py": """
import json, os
from pathlib import Path
cfg = json.loads(Path("configs/exp.json").read_text())
with open(os.path.join(cfg["train"]["output_dir"], "metrics.json"), "w") as f:
    f.write("{}")
""",
    "pl_train.py": """
import argparse
from lightning.pytorch import Trainer
from lightning.pytorch.callbacks import ModelCheckpoint
p = argparse.ArgumentParser(); p.add_argument("--ckpt-dir", default="runs/pl")
a = p.parse_args()
Trainer(callbacks=[ModelCheckpoint(dirpath=a.ckpt_dir, save_last=True)]).fit(None)
""",
    "export.py": """
import argparse, shutil
p = argparse.ArgumentParser(); p.add_argument("--src"); p.add_argument("--dest")
a = p.parse_args()
shutil.copy(a.src, a.dest)
shutil.copy("metrics.json", a.dest)
""",
    "defaults.py": """
import argparse
p = argparse.ArgumentParser(); p.add_argument("--out", default="capsules/c2")
a = p.parse_args()
open(a.out + "/metrics.json", "w").write("{}")
""",
}


@pytest.fixture
def scripts(box: Path) -> Path:  # noqa: F811
    for name, text in SCRIPTS.items():
        (box / name).write_text(text)
    (box / "configs").mkdir()
    (box / "configs" / "exp.yaml").write_text("train:\n  output_dir: capsules/c2\n  lr: 0.1\n")
    (box / "configs" / "new.yaml").write_text("train:\n  output_dir: runs/new\n")
    (box / "configs" / "exp.json").write_text('{"train": {"output_dir": "capsules/c2"}}')
    (box / "configs" / "bad.yaml").write_text("train: [unclosed\n")
    # Hydra's composed config: conf/config.yaml's defaults pick conf/paths/default.yaml
    (box / "conf" / "paths").mkdir(parents=True)
    (box / "conf" / "config.yaml").write_text("defaults:\n  - paths: default\n  - _self_\n")
    (box / "conf" / "paths" / "default.yaml").write_text("output_dir: capsules/c2\n")
    (box / "conf" / "paths" / "scratch.yaml").write_text("output_dir: runs/scratch\n")
    (box / "conf" / "flat.yaml").write_text("paths:\n  output_dir: capsules/c2\n")
    (box / "conf" / "interpolated.yaml").write_text(
        "paths:\n  output_dir: ${hydra:runtime.output_dir}\n")
    # OmegaConf interpolations of other keys: followed; a resolver's value: the run's
    (box / "conf" / "chained.yaml").write_text(
        "paths:\n  root_dir: .\n  log_dir: ${paths.root_dir}/capsules\n"
        "  output_dir: ${paths.log_dir}/c2\n")
    (box / "conf" / "paths" / "rooted.yaml").write_text(
        "root_dir: capsules\noutput_dir: ${paths.root_dir}/c2\n")
    (box / "conf" / "paths" / "fresh.yaml").write_text(
        "root_dir: capsules\noutput_dir: ${paths.root_dir}/c9\n")
    (box / "conf" / "env.yaml").write_text(
        "paths:\n  root_dir: ${oc.env:PROJECT_ROOT}\n  output_dir: ${paths.root_dir}/capsules/c2\n")
    (box / "conf" / "cycle.yaml").write_text(
        "paths:\n  a: ${paths.output_dir}\n  output_dir: ${paths.a}/c2\n")
    return box


@pytest.mark.parametrize(("command", "said"), [
    ("python train.py --out capsules/c2", "overwrites capsules/c2/metrics.json"),
    ("python train.py --out=capsules/c2/", "overwrites capsules/c2/metrics.json"),
    ("python -m train --out capsules/c2", "overwrites capsules/c2/metrics.json"),
    ("torchrun --nproc_per_node=2 train.py --out capsules/c2", "metrics.json"),
    ("accelerate launch --num_processes 2 train.py --out capsules/c2", "metrics.json"),
    ("cd src && python ../train.py --out ../capsules/c2", "metrics.json"),
    ("labledger run -- python train.py --out capsules/c2", "metrics.json"),
    ("nohup python train.py --out capsules/c2 > log.txt 2>&1 &", "metrics.json"),
    ("CUDA_VISIBLE_DEVICES=0 python3 -u train.py --out capsules/c2", "metrics.json"),
    ("sbatch --wrap 'python train.py --out capsules/c2'", "metrics.json"),
    ("tmux new -d 'python train.py --out capsules/c2'", "metrics.json"),
    ("uv run train.py --out capsules/c2", "metrics.json"),
    # Lightning 2's `fabric run` and MosaicML's `composer` (LLM Foundry) launchers
    ("fabric run --devices=2 --accelerator gpu train.py --out capsules/c2", "metrics.json"),
    ("composer -n 8 train.py --out capsules/c2", "metrics.json"),
    ("composer --nproc 2 -v --master_port 29500 train.py --out capsules/c2", "metrics.json"),
    # Lightning 2.0's `lightning run model` (fabric run's first name); Horovod's horovodrun
    ("lightning run model --accelerator=cuda --devices 2 train.py --out capsules/c2",
     "metrics.json"),
    ("horovodrun -np 4 -H localhost:4 --gloo python train.py --out capsules/c2",
     "metrics.json"),
    ("horovodrun --num-proc 2 --verbose --network-interfaces eth0 python3 -u train.py "
     "--out capsules/c2", "metrics.json"),
    ("python ckpt.py --output-dir capsules/c2", "may save over the files of capsules/c2"),
    ("python ckpt.py --output_dir capsules/c2", "may save over the files of capsules/c2"),
    ("python evaluate.py --ckpt capsules/c3/model.pt --report capsules/c2/metrics.json",
     "overwrites capsules/c2/metrics.json"),
    ("python hf_train.py --output_dir capsules/c2 --num_train_epochs 1",
     "may save over the files of capsules/c2"),
    ("python convert.py in.txt capsules/c2/metrics.json", "overwrites"),
    ("python hydra_train.py paths.output_dir=capsules/c2", "metrics.json"),
    ("python hydra_train.py +paths.output_dir=capsules/c2", "metrics.json"),
    ("python defaults.py", "overwrites capsules/c2/metrics.json"),
    ("python hydra_main.py", "overwrites capsules/c2/metrics.json"),
    ("python hydra_main.py --config-name flat", "overwrites capsules/c2/metrics.json"),
    ("python hydra_main.py -cn flat.yaml lr=0.1", "overwrites capsules/c2/metrics.json"),
    ("python hydra_main.py --config-name chained", "overwrites capsules/c2/metrics.json"),
    ("python hydra_main.py paths=rooted", "overwrites capsules/c2/metrics.json"),
    ("python cfg_train.py --config configs/exp.yaml", "overwrites capsules/c2/metrics.json"),
    ("python cfg_train.py --config=configs/exp.json", "overwrites capsules/c2/metrics.json"),
    ("cd configs && python ../cfg_train.py --config exp.yaml", "metrics.json"),
    ("python train.py --out results/r1", "results"),  # an export root: any save over it
    # a config file the script reads though the line names none: its option's default, or
    # a file it loads by a literal path
    ("python default_cfg.py", "overwrites capsules/c2/metrics.json"),
    ("python default_cfg.py --seed 1", "overwrites capsules/c2/metrics.json"),
    ("python own_cfg.py", "overwrites capsules/c2/metrics.json"),
    ("python omega_cfg.py", "overwrites capsules/c2/metrics.json"),
    ("python mm_cfg.py", "overwrites capsules/c2/metrics.json"),
    ("python path_cfg.py", "overwrites capsules/c2/metrics.json"),
    ("nohup python own_cfg.py > log.txt &", "overwrites capsules/c2/metrics.json"),
    ("python pl_train.py --ckpt-dir capsules/c2", "may save over the files of capsules/c2"),
    # a copy into the folder the line gives: the file named as its source there
    ("python export.py --src notes.txt --dest capsules/c2",
     "overwrites capsules/c2/metrics.json"),
    ("python export.py --src notes.txt --dest capsules/c2/train.log",
     "overwrites capsules/c2/train.log"),
])
def test_a_script_writing_where_its_line_says_is_judged(
        scripts: Path, command: str, said: str) -> None:
    (scripts / "results" / "r1" / "metrics.json").write_text("{}\n")
    (scripts / "src").mkdir(exist_ok=True)
    verdict = _judged(scripts, command)
    assert not verdict.allowed, command
    assert any(said in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "python train.py --out runs/new",
    "python train.py --out capsules/c3",  # its stored copy verifies
    "python train.py --out capsules/c2 --help",  # (argparse exits first: still judged)
    "python ckpt.py --output-dir runs/new",
    "python evaluate.py --ckpt capsules/c2/model.pt --report reports/c2.json",  # reads c2
    "python hf_train.py --output_dir runs/hf",
    "python convert.py capsules/c2/metrics.json copy.json",
    "python hydra_train.py paths.output_dir=runs/h",
    "python defaults.py --out runs/d",
    "python hydra_main.py paths=scratch",  # another option of the group
    "python hydra_main.py paths.output_dir=runs/h2",
    "python hydra_main.py --config-name interpolated",  # computed when it runs
    "python hydra_main.py --config-name env",  # ${oc.env:...}: the run's environment
    "python hydra_main.py --config-name cycle",  # interpolations that never end: none
    "python hydra_main.py paths=fresh",  # capsules/c9: no capsule there
    "python hydra_main.py --config-path elsewhere",  # no such config: Hydra refuses
    "python cfg_train.py --config configs/new.yaml",
    "python cfg_train.py --config configs/bad.yaml",  # not YAML: nothing read
    "python cfg_train.py --config configs/missing.yaml",
    "python train.py --out $OUT",  # computed when it runs: not read here
    "python train.py --out runs/new --log-dir capsules/c2",  # an append: nothing lost
    "python default_cfg.py --config configs/new.yaml",  # the default not read: another given
    "python default_cfg.py -c configs/new.yaml",
    "python default_cfg.py --config=configs/new.yaml",
    "python own_new.py",
    "cd configs && python ../own_cfg.py",  # its literal path is the working folder's: none
    "python pl_train.py",
    "fabric run train.py --out runs/new",
    "lightning run model train.py --out runs/new",
    "lightning run app app.py --out capsules/c2",  # an app, not the script as a model
    "horovodrun -np 4 python train.py --out runs/new",
    "horovodrun --check-build",
    "composer -c train.py --out capsules/c2",  # -c: a command run as it is, not Python
    "python export.py --src notes.txt --dest runs/new",
    "python export.py --src notes.txt --dest capsules/c3",  # its stored copy verifies
])
def test_a_script_writing_elsewhere_passes(scripts: Path, command: str) -> None:
    verdict = _judged(scripts, command)
    if command.endswith("--help"):
        assert not verdict.allowed  # the line is judged as written, whatever argparse does
        return
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("words", [["--config-name", "chained"], ["paths=rooted"]])
def test_hydra_really_resolves_the_interpolation_to_the_capsule(
        scripts: Path, tmp_path: Path, words: list[str]) -> None:
    """What the interpolation rows stand on: run by the real Hydra (hydra-core, OmegaConf),
    ``${paths.root_dir}/c2`` is capsules/c2, whose metrics.json the script replaces."""
    copy = tmp_path / "copy"
    shutil.copytree(scripts, copy, symlinks=True)
    metrics = copy / "capsules" / "c2" / "metrics.json"
    metrics.write_text("sealed\n")
    done = subprocess.run([sys.executable, "hydra_main.py", *words], cwd=copy,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert metrics.read_text() == "{}"


def test_the_script_really_overwrites_the_capsule(scripts: Path, tmp_path: Path) -> None:
    """What the rows stand on: run for real, ``train.py --out capsules/c2`` replaces the
    sealed capsule's metrics.json."""
    copy = tmp_path / "copy"
    shutil.copytree(scripts, copy, symlinks=True)
    (copy / "logs").mkdir()
    before = (copy / "capsules" / "c2" / "metrics.json").read_text()
    subprocess.run([sys.executable, "train.py", "--out", "capsules/c2"], cwd=copy,
                   check=True, capture_output=True, timeout=60)
    assert (copy / "capsules" / "c2" / "metrics.json").read_text() != before


@pytest.mark.parametrize("script", ["default_cfg.py", "own_cfg.py"])
def test_a_script_reading_its_own_config_really_overwrites_the_capsule(
        scripts: Path, tmp_path: Path, script: str) -> None:
    """What the config rows stand on: run for real with no option, a script reading its
    ``--config`` default, or a config file it names itself, writes where that file says."""
    copy = tmp_path / "copy"
    shutil.copytree(scripts, copy, symlinks=True)
    target = copy / "capsules" / "c2" / "metrics.json"
    before = target.read_text()
    subprocess.run([sys.executable, script], cwd=copy, check=True, capture_output=True,
                   timeout=60)
    assert target.read_text() != before


_FRAGMENTS = ["import argparse, os, sys, torch\n", "a = p.parse_args()\n",
              "open(os.path.join(a.out, 'm.json'), 'w')\n", "open(f'{a.out}/x{i}.pt', 'wb')\n",
              "torch.save(s, a.out)\n", "open(sys.argv[1], 'w')\n", "open(sys.argv[0], 'w')\n",
              "open(cfg['out'] + '/m', 'w')\n", "p.add_argument('--out', default='capsules/c2')\n",
              "p.add_argument(dest='out', default=1)\n", "os.chdir(a.out)\n",
              "def f(a):\n    open(a.out, 'a')\n", "x = a.out\nx = 'y'\nopen(x, 'w')\n",
              "open(f'{a.out!r}/{a.out:>3}', 'w')\n", "open(sys.argv[-1], 'w')\n",
              "from transformers import HfArgumentParser\n", "(", "'''", "\x00", "\udcff",
              "cfg = yaml.safe_load(open('c.yaml'))\n", "cfg = OmegaConf.load('c.yaml')\n",
              "p.add_argument('--config', '-c', default='c.yaml')\n",
              "cfg = json.loads(Path('c.json').read_text())\n", "Path('c.toml').open('w')\n"]


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map("".join),
       words=st.lists(st.sampled_from(["--out", "--out=capsules/c2", "capsules/c2", "runs/x",
                                       "out=capsules/c2", "--output_dir", "/abs", "$X", "",
                                       "-", "--"]), max_size=6))
def test_any_script_and_line_get_one_verdict(box: Path, program: str,  # noqa: F811
                                             words: list[str]) -> None:
    (box / "s.py").write_bytes(program.encode("utf-8", "surrogatepass"))
    command = shlex.join(["python", "s.py", *words])
    first, again = _judged(box, command), _judged(box, command)
    assert (first.allowed, first.reasons) == (again.allowed, again.reasons), command


@given(st.text(max_size=200))
def test_argument_writes_reads_any_text(text: str) -> None:
    from labledger.reconcile.python_deletes import (
        argument_defaults,
        argument_writes,
        config_defaults,
        config_reads,
    )

    assert all(w.path for w in argument_writes(text))
    assert isinstance(argument_defaults(text), dict)
    assert all(path.endswith((".yaml", ".yml", ".json", ".toml")) for path in config_reads(text))
    assert all(flags and default for flags, default in config_defaults(text))
