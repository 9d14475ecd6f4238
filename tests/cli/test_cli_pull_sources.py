"""`labledger pull`: where it pulls from (the rent's host, the folder an earlier pull named, the
gate's next step run as printed), files already stored, bad sources, --json export."""

from __future__ import annotations

import json
import shlex
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME


def kinds(project: Path) -> list[str]:
    return [r.kind for r in Ledger.open(project).records()]


def test_a_file_already_in_the_store_is_not_transferred_again_over_ssh(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any) -> None:
    """A checkpoint stored by `labledger checkpoint` (never pulled) is found present by its
    hash: only the other files cross the link."""
    best = box / "ckpt" / "best.pth"
    code, _, err = call(capsys, "checkpoint", str(best), "--run", "r1", "--step", "1")
    assert code == 0, err
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from", sshd.target(box),
                          "--identity", str(sshd.client_key), "--accept-new-host-key")
    assert code == 0, err
    summary = json.loads(out)
    files = {f["path"]: f for f in summary["files"]}
    assert files["ckpt/best.pth"]["status"] == "present"
    assert files["ckpt/best.pth"]["attempts"] == 0
    assert files["ckpt/best.pth"]["checkpoint_ok"] is True
    assert files["run.json"]["status"] == "pulled"
    assert summary["bytes_transferred"] == (box / "run.json").stat().st_size


def test_each_stored_object_is_read_at_most_once_per_pull_over_ssh(
        capsys: pytest.CaptureFixture[str], box: Path, sshd: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A box that gains a checkpoint of the same size before each pull (SSH sends SHA-256
    only): the earlier ones are found present, each stored object is re-read at most once per
    pull (not twice), and only the new checkpoint crosses the link."""
    from labledger.ingest import pull as pull_module

    reads: list[str] = []
    real = pull_module._Puller._stored_sha256

    def counted(self: Any, digest: str) -> str:
        reads.append(digest)
        return real(self, digest)

    monkeypatch.setattr(pull_module._Puller, "_stored_sha256", counted)
    size = (box / "ckpt" / "best.pth").stat().st_size
    for k in range(1, 4):
        torch.manual_seed(k)
        torch.save({"model_state_dict": torch.nn.Linear(3, 2).state_dict()},
                   box / "ckpt" / f"ep{k:02d}.pth")  # a name as long as best's: same size
        assert (box / "ckpt" / f"ep{k:02d}.pth").stat().st_size == size
        reads.clear()
        code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from",
                              sshd.target(box), "--identity", str(sshd.client_key),
                              "--accept-new-host-key")
        assert code == 0, err
        summary = json.loads(out)
        assert len(reads) == len(set(reads)), reads  # no object read twice
        if k > 1:
            assert summary["bytes_transferred"] == size  # the new checkpoint alone
            assert {f["path"]: f["status"] for f in summary["files"]}[f"ckpt/ep{k:02d}.pth"] \
                == "pulled"


def test_a_file_already_in_the_store_is_not_transferred_again_from_a_folder(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    code, _, err = call(capsys, "checkpoint", str(box / "ckpt" / "best.pth"), "--run", "r1",
                        "--step", "1")
    assert code == 0, err
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["bytes_transferred"] == (box / "run.json").stat().st_size
    assert {f["path"]: f["status"] for f in summary["files"]} == {
        "ckpt/best.pth": "present", "run.json": "pulled"}


def test_pull_with_instance_uses_the_rented_host_and_the_folder_pulled_before(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any,
        snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    host = f"{sshd.user}@127.0.0.1:{sshd.port}"
    code, _, err = call(capsys, "rent", "--profile", "runpod", "--instance", "box1", "--host",
                        host, "--price-per-hour", "1.89", "--currency", "USD")
    assert code == 0, err
    code, _, err = call(capsys, "emit", "run.launched", "--run", "r1", "--instance", "box1")
    assert code == 0, err
    ssh = ["--identity", str(sshd.client_key), "--accept-new-host-key"]
    # The gate names what to run; the folder on the box is not known yet: the hint says so,
    # and a pull without it is refused (exit 2, nothing written), naming the --from form.
    code, table, _ = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    before = snapshot(Ledger.open(project).paths.segments)
    code, out, err = call(capsys, "pull", "--run", "r1", "--instance", "box1", *ssh)
    assert code == 2
    assert out == ""
    assert f"instance box1 was rented with host {host}" in err
    assert f"labledger pull --run r1 --instance box1 --from {host}:DIR" in err
    assert snapshot(Ledger.open(project).paths.segments) == before
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1",
                        "--from", f"{host}:{box}", *ssh)
    assert code == 0, err
    # The box announces a checkpoint the pull has not seen: the gate's next step is the bare
    # `--instance` form, and it runs as printed.
    (box / "ckpt" / "last.pth").write_bytes((box / "ckpt" / "best.pth").read_bytes() + b"")
    torch.save({"model_state_dict": torch.nn.Linear(2, 2).state_dict()},
               box / "ckpt" / "last.pth")
    code, _, err = call(capsys, "checkpoint", str(box / "ckpt" / "last.pth"), "--run", "r1",
                        "--instance", "box1", "--step", "2", "--digest-only")
    assert code == 0, err
    code, table, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    hints = [line.split(" -> ", 1)[1] for line in table.splitlines() if " -> " in line]
    assert hints == ["labledger pull --run r1 --instance box1"], table
    code, _, err = call(capsys, *shlex.split(hints[0])[1:], *ssh)
    assert code == 0, err
    assert f"pulling from {host}:{box}" in err
    listed = [r.body_dict()["source"] for r in Ledger.open(project).records()
              if r.kind == "pull.listed"]
    assert listed == [f"ssh://{host}{box}"] * 2
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err


def test_pull_with_instance_and_no_host_recorded_says_so(
        capsys: pytest.CaptureFixture[str], project: Path) -> None:
    code, _, err = call(capsys, "rent", "--profile", "runpod", "--instance", "box2")
    assert code == 0, err
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box2")
    assert code == 2
    assert "instance box2 has no host recorded" in err
    assert "--from [USER@]HOST[:PORT]:DIR" in err
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "never-rented")
    assert code == 2
    assert "'never-rented' is not in the ledger (no event names it; recorded instances: " \
        "box2)" in err  # a typo is named as one, not hinted at as a box to pull from
    assert [k for k in kinds(project) if k.startswith("pull.")] == []


def test_pull_with_instance_reuses_a_folder_pulled_before(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path) -> None:
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1", "--from-dir",
                        str(box))
    assert code == 0, err
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1")
    assert code == 0, err
    sources = [r.body_dict()["source"] for r in Ledger.open(project).records()
               if r.kind == "pull.listed"]
    assert sources == [f"dir:{box}"] * 2


def test_a_missing_from_dir_is_bad_input(capsys: pytest.CaptureFixture[str], project: Path,
                                         tmp_path: Path,
                                         snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    before = snapshot(project / ".labledger")
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(tmp_path / "nope"))
    assert code == 2
    assert out == ""
    assert "--from-dir" in err
    assert "does not exist" in err
    assert "connection" not in err
    assert snapshot(project / ".labledger") == before


def test_export_manifest_alone_prints_one_json_document(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path) -> None:
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 0, err
    dest = project / "m.json"
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--export-manifest",
                          str(dest))
    assert code == 0, err
    document = json.loads(out)
    manifest = json.loads(dest.read_text())
    assert document["path"] == str(dest)
    assert document["run"] == "r1"
    assert document["files"] == len(manifest["files"]) == 2
    assert document["bytes"] == manifest["totals"]["bytes"]
