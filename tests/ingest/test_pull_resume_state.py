"""A trainer's resume state beside the weights: pulled, checked as resume state, and the gate
passes a real Hugging Face Trainer (or DeepSpeed) checkpoint folder.

Before, `optimizer.pt` and `rng_state.pth` failed "no weights key", `scheduler.pt` and
`scaler.pt` "holds no tensors" and `training_args.bin` (a pickled dataclass) weights_only's
refusal, so such a folder could never pass the teardown gate. Every file here is written by
torch itself (CPU): real optimizer, scheduler, scaler and RNG states, a real dataclass.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.checkpoint_load import is_resume_state
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.ingest.test_pull import save_safetensors

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch

CKPT = "checkpoint-500"
RESUME_FILES = ("optimizer.pt", "scheduler.pt", "scaler.pt", "rng_state.pth",
                "training_args.bin")


@dataclasses.dataclass
class FinetuneArguments:
    """Stands in for transformers' TrainingArguments: a dataclass the Trainer pickles whole."""

    output_dir: str = "out/sst2-tiny"
    learning_rate: float = 3e-4
    per_device_train_batch_size: int = 16
    num_train_epochs: float = 2.0
    save_steps: int = 500
    seed: int = 17


class LossScalerState:
    """Stands in for DeepSpeed's loss scaler, an object its optimizer state pickles whole."""

    def __init__(self) -> None:
        self.cur_scale = 1024.0
        self.cur_iter = 500


def _as_library_class(cls: type, module: str, name: str) -> type:
    """``cls`` pickled as the library's own class (``transformers.training_args.
    TrainingArguments``): a resume-state file weights_only refuses passes only when its pickle
    names a trainer library's classes (review: any refused global passed, ``subprocess.Popen``
    included). The module is registered as pickle looks it up; neither library is installed."""
    import sys
    import types

    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    cls.__module__, cls.__qualname__, cls.__name__ = module, name, name
    setattr(sys.modules[module], name, cls)
    return cls


TRAINING_ARGS = "transformers.training_args.TrainingArguments"
LOSS_SCALER = "deepspeed.runtime.fp16.loss_scaler.LossScaler"
_as_library_class(FinetuneArguments, *TRAINING_ARGS.rsplit(".", 1))
_as_library_class(LossScalerState, *LOSS_SCALER.rsplit(".", 1))


def _trained() -> tuple[torch.nn.Linear, torch.optim.AdamW, Any]:
    torch.manual_seed(5)
    model = torch.nn.Linear(6, 3)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.5, total_iters=40)
    for _ in range(3):
        model(torch.randn(4, 6)).pow(2).mean().backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    return model, optimizer, scheduler


def hf_trainer_checkpoint(box: Path) -> Path:
    """`checkpoint-500/` as transformers' Trainer saves it (huggingface/transformers,
    src/transformers/trainer.py: `_save_checkpoint`, the names TRAINING_ARGS_NAME,
    TRAINER_STATE_NAME, OPTIMIZER_NAME, SCHEDULER_NAME, SCALER_NAME and `rng_state.pth`; the
    RNG dict's keys as its `_save_rng_state` writes them), with our own model and numbers."""
    folder = box / CKPT
    folder.mkdir(parents=True)
    model, optimizer, scheduler = _trained()
    save_safetensors(model.state_dict(), folder / "model.safetensors")
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    torch.save(scheduler.state_dict(), folder / "scheduler.pt")
    torch.save(torch.amp.GradScaler("cpu", init_scale=2.0 ** 14).state_dict(),
               folder / "scaler.pt")
    rng: dict[str, Any] = {"python": random.getstate(), "cpu": torch.random.get_rng_state()}
    if importlib.util.find_spec("numpy") is not None:  # absent in this suite's environment
        import numpy as np

        rng["numpy"] = np.random.get_state()
    torch.save(rng, folder / "rng_state.pth")
    torch.save(FinetuneArguments(), folder / "training_args.bin")
    (folder / "trainer_state.json").write_text(json.dumps({
        "best_metric": None, "best_model_checkpoint": None, "epoch": 1.25, "eval_steps": 500,
        "global_step": 500, "is_hyper_param_search": False, "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": [{"epoch": 1.25, "grad_norm": 0.83, "learning_rate": 1.5e-4,
                         "loss": 0.4127, "step": 500}],
        "logging_steps": 500, "max_steps": 800, "num_train_epochs": 2, "save_steps": 500,
        "total_flos": 0.0, "train_batch_size": 16, "trial_name": None, "trial_params": None},
        indent=2) + "\n")
    return folder


def deepspeed_checkpoint(box: Path) -> Path:
    """`global_step500/` as DeepSpeed's engine saves it (microsoft/DeepSpeed,
    deepspeed/runtime/engine.py: `mp_rank_00_model_states.pt` keeps the weights under
    "module"; ZeRO's `bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt` the optimizer state,
    with its loss scaler pickled as an object), plus the `latest` tag file beside it."""
    folder = box / "global_step500"
    folder.mkdir(parents=True)
    model, optimizer, _ = _trained()
    torch.save({"module": model.state_dict(), "buffer_names": [], "optimizer": None,
                "global_steps": 500, "global_samples": 8000, "dp_world_size": 1,
                "mp_world_size": 1, "ds_version": "0.14.4"},
               folder / "mp_rank_00_model_states.pt")
    torch.save({"optimizer_state_dict": {"loss_scaler": LossScalerState(),
                                         "base_optimizer_state": optimizer.state_dict(),
                                         "zero_stage": 2, "partition_count": 1},
                "ds_config": {"train_batch_size": 16, "bf16": {"enabled": True}},
                "ds_version": "0.14.4"},
               folder / "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    (box / "latest").write_text("global_step500")
    return folder


def verifications(ledger: Ledger) -> dict[str, dict[str, Any]]:
    """The latest checkpoint.verified of each path."""
    return {r.body_dict()["path"]: r.body_dict() for r in ledger.records()
            if r.kind == "checkpoint.verified"}


def pull(capsys: pytest.CaptureFixture[str], box: Path, *extra: str) -> tuple[int, str, str]:
    return call(capsys, "pull", "--run", "r1", "--instance", "box1", "--from-dir", str(box),
                *extra)


def test_a_trainer_checkpoint_folder_pulls_and_passes_the_gate(
        pull_project: Path, ledger: Ledger, pull_seed: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    box = tmp_path / "node"
    hf_trainer_checkpoint(box)
    pull_seed.rent()
    code, out, err = pull(capsys, box)
    assert code == 0, err
    assert out.splitlines()[4].split()[:2] == ["verified", "6"]
    checks = verifications(ledger)
    for name in RESUME_FILES:
        body = checks[f"{CKPT}/{name}"]
        assert body["ok"] is True, body
        assert body["resume_state"] is True
    # weights_only refused the pickled dataclass; its whole archive passed it, and says so
    args = checks[f"{CKPT}/training_args.bin"]
    assert args["loader"] == "zip CRC"
    assert args["refused"] == f"Unsupported global: GLOBAL {TRAINING_ARGS}"
    assert checks[f"{CKPT}/optimizer.pt"]["loader"] == "zip CRC + torch.load(weights_only=True)"
    assert checks[f"{CKPT}/optimizer.pt"]["tensors"] > 0
    # the weights keep the weights rule
    weights = checks[f"{CKPT}/model.safetensors"]
    assert (weights["ok"], weights["loader"], weights["tensors"]) == (True, "safetensors", 2)
    assert "resume_state" not in weights
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err
    assert "gate passed: box1: 1 run pull-verified" in err
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 0, err
    code, out, err = call(capsys, "sql", "select verdict from pull_verified")
    assert code == 0, err
    assert out.split()[-1] == "complete"
    code, out, err = call(capsys, "sql", "select count(*) from verifications "
                          "where resume_state and ok and refused is not null")
    assert code == 0, err
    assert out.split()[-1] == "1"


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 300])


def _flip_in_member(path: Path, member_suffix: str) -> None:
    """Flip one byte inside the stored bytes of the archive member ending in
    ``member_suffix``: the size and every header stay; only its CRC can tell."""
    with zipfile.ZipFile(path) as zf:
        info = next(i for i in zf.infolist() if i.filename.endswith(member_suffix))
    data = bytearray(path.read_bytes())
    name_len, extra_len = (int.from_bytes(data[info.header_offset + at:info.header_offset + at
                                               + 2], "little") for at in (26, 28))
    start = info.header_offset + 30 + name_len + extra_len
    data[start + info.compress_size // 2] ^= 0x01
    path.write_bytes(bytes(data))


class _RunsCode:
    """A pickle that would start a process if loaded with weights_only=False (review)."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        import subprocess

        return (subprocess.Popen, (["true"],))


def _code_in_optimizer(path: Path) -> None:
    torch.save({"state": {}, "param_groups": [], "hook": _RunsCode()}, path)


def _eval_only_archive(path: Path) -> None:
    """A zip torch.save's shape whose data.pkl is `builtins.eval` and nothing else."""
    path.unlink()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/version", "3\n")
        zf.writestr("archive/data.pkl", b"cbuiltins\neval\n.")


def _nan_model(path: Path) -> None:
    model = torch.nn.Linear(4, 2)
    with torch.no_grad():
        model.weight.fill_(float("nan"))
    torch.save(model, path)


@pytest.mark.parametrize(("name", "damage", "why"), [
    ("optimizer.pt", _cut, "it is not a whole zip archive (torch.save's format)"),
    ("optimizer.pt", lambda p: _flip_in_member(p, "/data/0"),
     "fails its CRC check: the file is damaged"),
    # refused by weights_only, but accepted only on a whole archive
    ("training_args.bin", lambda p: _flip_in_member(p, "/data.pkl"),
     "fails its CRC check: the file is damaged"),
    # whole archives weights_only refuses, for no trainer library's class (review: any refused
    # global passed): code a weights_only=False load runs, a bare eval, a NaN model
    ("optimizer.pt", _code_in_optimizer, "Popen"),  # (pickled under the name "commands")
    ("scheduler.pt", _eval_only_archive, "builtins.eval"),
    ("optimizer.pt", _nan_model, "torch.nn.modules.linear.Linear"),
])
def test_a_damaged_resume_state_file_fails(
        pull_project: Path, ledger: Ledger, pull_seed: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], name: str, damage: Any, why: str) -> None:
    box = tmp_path / "node"
    damage(hf_trainer_checkpoint(box) / name)
    pull_seed.rent()
    code, _, err = pull(capsys, box)
    assert code == 3
    assert f"checkpoint: {CKPT}/{name}: " in err
    assert why in err
    failed = verifications(ledger)[f"{CKPT}/{name}"]
    assert (failed["ok"], failed["resume_state"]) == (False, True)
    assert "refused" not in failed
    code, out, _ = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    assert f"{CKPT}/{name}" in out


def test_a_weights_file_without_weights_still_fails(
        pull_project: Path, ledger: Ledger, pull_seed: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    box = tmp_path / "node"
    folder = hf_trainer_checkpoint(box)
    # named as weights, holding none: the weights rule, as before
    torch.save({"epoch": 1.25, "global_step": 500}, folder / "pytorch_model.bin")
    torch.save({"optimizer": _trained()[1].state_dict()}, box / "best.pth")
    pull_seed.rent()
    code, _, err = pull(capsys, box)
    assert code == 3
    checks = verifications(ledger)
    assert checks[f"{CKPT}/pytorch_model.bin"]["error"] == "it holds no tensors"
    assert checks["best.pth"]["error"].startswith("no weights key")
    assert checks["best.pth"]["loader"] == "torch.load(weights_only=True)"
    assert all(checks[f"{CKPT}/{name}"]["ok"] for name in RESUME_FILES)
    code, _, _ = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3


def test_the_newest_check_of_a_digest_counts(
        pull_project: Path, ledger: Ledger, pull_seed: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A file an older rule failed holds once a later `pull --only` passes it (and a later
    failure would undo a pass): the latest checkpoint.verified of the digest decides."""
    box = tmp_path / "node"
    hf_trainer_checkpoint(box)
    pull_seed.rent()
    assert pull(capsys, box)[0] == 0
    passed = verifications(ledger)[f"{CKPT}/optimizer.pt"]
    # the check an older labledger recorded for these bytes, under the weights rule
    ledger.append("checkpoint.verified", run="r1", instance="box1", path=passed["path"],
                  digest=passed["digest"], ok=False, tensors=6,
                  loader="torch.load(weights_only=True)",
                  error="no weights key (model_state_dict, model or state_dict) and not a "
                        "flat state dict of tensors; its keys: param_groups, state")
    code, out, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    assert f"{CKPT}/optimizer.pt" in out + err
    code, _, err = pull(capsys, box, "--only", f"{CKPT}/optimizer.pt")
    assert code == 0, err
    assert verifications(ledger)[f"{CKPT}/optimizer.pt"]["ok"] is True
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 0, err
    code, out, err = call(capsys, "sql", "select verdict from pull_verified")
    assert code == 0, err
    assert out.split()[-1] == "complete"


def test_a_deepspeed_checkpoint_passes_the_gate(
        pull_project: Path, ledger: Ledger, pull_seed: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    box = tmp_path / "node"
    deepspeed_checkpoint(box)
    pull_seed.rent()
    code, _, err = pull(capsys, box)
    assert code == 0, err
    checks = verifications(ledger)
    optim = checks["global_step500/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"]
    assert (optim["ok"], optim["resume_state"], optim["loader"]) == (True, True, "zip CRC")
    assert optim["refused"] == f"Unsupported global: GLOBAL {LOSS_SCALER}"
    weights = checks["global_step500/mp_rank_00_model_states.pt"]
    assert (weights["ok"], weights["tensors"]) == (True, 2)
    assert "resume_state" not in weights
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err


@pytest.mark.parametrize(("path", "resume"), [
    # Hugging Face Trainer
    ("checkpoint-500/optimizer.pt", True), ("checkpoint-500/optimizer.bin", True),
    ("checkpoint-500/scheduler.pt", True), ("checkpoint-500/scaler.pt", True),
    ("checkpoint-500/rng_state.pth", True), ("checkpoint-500/rng_state_3.pth", True),
    ("checkpoint-500/training_args.bin", True),
    # Accelerate's save_state
    ("checkpoints/checkpoint_2/optimizer_1.bin", True), ("ckpt/scheduler.bin", True),
    ("ckpt/scheduler_1.bin", True), ("ckpt/sampler.bin", True),
    ("ckpt/random_states_0.pkl", True),
    # DeepSpeed
    ("global_step500/zero_pp_rank_3_mp_rank_00_optim_states.pt", True),
    ("global_step500/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt", True),
    # weights, and names that only look alike
    ("checkpoint-500/model.safetensors", False), ("checkpoint-500/pytorch_model.bin", False),
    ("global_step500/mp_rank_00_model_states.pt", False), ("ckpt/best.pth", False),
    ("lightning_logs/version_0/checkpoints/epoch=3-step=500.ckpt", False),
    ("ckpt/optimizer_best.pth", False), ("ckpt/my_optimizer.pt", False),
    ("ckpt/rng_state_final.pth", False),
    # a process number is digits alone (review: the globs took "optimizer_2_final.bin")
    ("ckpt/optimizer_2_final.bin", False), ("ckpt/rng_state_0_backup.pth", False),
])
def test_resume_state_names(path: str, resume: bool) -> None:
    assert is_resume_state(path) is resume


def test_close_seals_a_trainer_output_folder(ledger: Ledger, make_run: Any, tmp_path: Path,
                                             read_events: Any) -> None:
    """`close` checks a capsule's checkpoints with the same loader: a Trainer's output folder
    was quarantined for its scheduler.pt and scaler.pt ("it holds no tensors") before its
    resume state was checked as such."""
    from labledger.ingest import close_capsule

    source = make_run("r1")
    hf_trainer_checkpoint(source / "checkpoints")
    sealed = close_capsule(source, run="r1", export_root=tmp_path / "export", ledger=ledger)
    assert sealed.digest.startswith("blake3:")
    verified = {Path(e["path"]).name: e for e in read_events(ledger, "checkpoint.verified")}
    for name in ("optimizer.pt", "scheduler.pt", "scaler.pt", "rng_state.pth"):
        assert verified[name]["ok"], verified[name]


def test_a_weights_key_must_hold_weights(pull_project: Path, ledger: Ledger, pull_seed: Any,
                                         tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Only a weights key's presence was checked: `{"module": None, "optimizer": ...}` (a
    resume dict with the model left out) passed the weights rule once `module` became a
    weights key (review), and `{"model": "resnet50", ...}` always had."""
    box = tmp_path / "node"
    (box / "runs").mkdir(parents=True)
    model, optimizer, _ = _trained()
    torch.save({"module": None, "epoch": 3, "optimizer": optimizer.state_dict()},
               box / "runs" / "best.pth")
    torch.save({"model": "resnet50", "epoch": 3, "optimizer": optimizer.state_dict()},
               box / "runs" / "last.pth")
    torch.save({"model": model.state_dict(), "epoch": 3}, box / "runs" / "good.pth")
    pull_seed.rent()
    code, _, err = pull(capsys, box)
    assert code == 3
    checked = verifications(ledger)
    assert "its weights key (module) holds no tensors" in checked["runs/best.pth"]["error"]
    assert "its weights key (model) holds no tensors" in checked["runs/last.pth"]["error"]
    assert checked["runs/good.pth"]["ok"]
