"""A pull must not verify a file the box is still writing (real sshd on 127.0.0.1: the box).

A training process that writes a checkpoint slowly (a big ``torch.save`` to a slow network
volume pauses between chunks) or keeps its log open can be listed and pulled half-written:
the box's hash and the received bytes agree on the half. The box's hasher looks in ``/proc``
once for the batch; a file some process holds open for writing is copied but not verified
(stderr and the listing's entry name the process), so the run is not pull-verified and the
teardown gate refuses, naming the file and the process, until a later pull finds it closed.
A process that only reads a file (``tail -f``) blocks nothing.

The writers here are real processes started on this machine, which is the box: the box's
hasher sees them in /proc exactly as it would see a training loop on a rented GPU box. They
pause on a line of stdin, never on a timer.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from labledger.ingest.pull import pull
from labledger.ingest.transport import BoxWriter, LocalTransport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import ObjectChecker, evaluate_gate, load_events, verify_run
from labledger.reconcile.pull_verified import open_store as gate_store
from tests.conftest import cli_call as call

# A training loop's kept-open log, in the shape of debkumarwarrior/SampleAlgorithms
# NER/Code/infolog.py: opened once in append mode with a banner, one timestamped line per
# message, closed only at the end. It pauses (the next epoch trains) until stdin says go on.
KEPT_LOG = r"""
import sys
log = open(sys.argv[1], "a")
log.write("\n" + "-" * 30 + "\nStarting new training run\n" + "-" * 30 + "\n")
for epoch in range(3):
    log.write("[2026-05-09 07:3%d:02.118]    epoch %d  train loss %.4f\n"
              % (epoch, epoch, 0.8231 / (epoch + 1)))
log.flush()
print("half", flush=True)
sys.stdin.readline()
log.write("[2026-05-09 07:41:57.902]    training finished\n")
log.close()
print("closed", flush=True)
sys.stdin.readline()
"""

# A torch.save to a slow volume: the file is opened for writing (O_WRONLY|O_CREAT|O_TRUNC, as
# torch.save opens a path), half the serialized checkpoint reaches the disk, then the volume
# stalls until stdin says go on. The bytes are a real torch checkpoint, serialized by the test.
SLOW_SAVE = r"""
import sys
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as out:
    out.write(data[:len(data) // 2])
    out.flush()
    print("half", flush=True)
    sys.stdin.readline()
    out.write(data[len(data) // 2:])
print("closed", flush=True)
sys.stdin.readline()
"""

# Holds each named file open in the mode given ("rb", "r+b", "ab"), until stdin closes.
HOLDER = r"""
import sys
held = [open(path, mode) for path, mode in zip(sys.argv[1::2], sys.argv[2::2])]
print("half", flush=True)
sys.stdin.readline()
"""


class Box:
    """Processes on the box (this machine): each started, then let go on or stopped by pid."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, argv: list[str]) -> subprocess.Popen[str]:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.procs.append(proc)
        assert proc.stdout is not None
        proc.stdout.readline()  # "half" (or tail's first line): the file is open now
        return proc

    def python(self, code: str, *args: Path | str) -> subprocess.Popen[str]:
        return self.start([sys.executable, "-c", code, *map(str, args)])

    @staticmethod
    def finish(proc: subprocess.Popen[str]) -> None:
        """Let a paused writer write the rest and close its file (it then waits, alive)."""
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write("go on\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "closed\n"

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()


@pytest.fixture
def on_box() -> Iterator[Box]:
    box = Box()
    yield box
    box.stop()


@pytest.fixture
def home(ledger: Ledger, tmp_path: Path, project: Path,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised project as the working folder, with a HOME of its own (no ~/.ssh of the
    user's)."""
    monkeypatch.chdir(project)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return tmp_path / "home"


def serialized_checkpoint(torch: ModuleType, epoch: int) -> bytes:
    """A checkpoint dict in the shape of mbassale/computer-science
    book18-pytorch-step-by-step/ch2/train/v6.py (epoch, model and optimizer state, losses)."""
    torch.manual_seed(epoch)
    model = torch.nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    buffer = io.BytesIO()
    torch.save({"epoch": epoch, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": 0.3127,
                "validation_loss": 0.3391}, buffer)
    return buffer.getvalue()


def ssh_args(sshd: Any, folder: Path) -> list[str]:
    return ["--from", sshd.target(folder), "--identity", str(sshd.client_key),
            "--accept-new-host-key"]


def ssh_transport(sshd: Any, root: Path, tmp_path: Path, **kw: Any) -> SshTransport:
    return SshTransport(parse_target(sshd.target(root)), known_hosts=tmp_path / "kh",
                        accept_new=True, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_kh", use_agent=False, **kw)


def listed_entries(project: Path) -> list[dict[str, Any]]:
    """The entries of the latest pull.listed."""
    with Ledger.open(project) as ledger:
        listings = [r.body_dict() for r in ledger.records(kinds=("pull.listed",))]
    entries: list[dict[str, Any]] = listings[-1]["entries"]
    return entries


def gate(project: Path, instance: str = "box1") -> tuple[bool, list[str]]:
    with Ledger.open(project) as ledger:
        result = evaluate_gate(ledger, instance)
    return result.ok, result.unmet()


# -- over SSH, through the CLI ------------------------------------------------------------------
def test_a_checkpoint_still_being_saved_is_copied_not_verified_until_it_is_closed(
        capsys: pytest.CaptureFixture[str], home: Path, project: Path, tmp_path: Path,
        sshd: Any, on_box: Box, torch: ModuleType) -> None:
    box = tmp_path / "box"
    (box / "ckpt").mkdir(parents=True)
    (box / "train.csv").write_text("epoch,loss,val_loss\n0,0.9120,0.9533\n1,0.3127,0.3391\n")
    staged = tmp_path / "staged.pth"
    staged.write_bytes(serialized_checkpoint(torch, 1))
    saver = on_box.python(SLOW_SAVE, staged, box / "ckpt" / "checkpoint.pth")

    code, out, err = call(capsys, "pull", "--run", "r1", "--instance", "box1",
                          *ssh_args(sshd, box))
    assert code == 3, err
    assert (f"still being written: ckpt/checkpoint.pth: held open for writing on the box by "
            f"pid {saver.pid} (") in err
    assert "train.csv" not in err  # closed long ago: verified
    entries = {e["path"]: e for e in listed_entries(project)}
    [held] = entries["ckpt/checkpoint.pth"]["writers"]
    assert held["pid"] == saver.pid
    assert "python" in held["command"]
    assert "writers" not in entries["train.csv"]
    # The half was copied (its bytes may be needed) and matches the box's hash of it
    assert entries["ckpt/checkpoint.pth"]["size"] == staged.stat().st_size // 2

    ok, unmet = gate(project)
    assert not ok
    [gap] = [u for u in unmet if "ckpt/checkpoint.pth: still being written" in u]
    assert f"pid {saver.pid} (" in gap
    code, out, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    [row] = [line for line in out.splitlines() if "ckpt/checkpoint.pth" in line]
    assert "still being written" in row
    assert f"pid {saver.pid} (" in row

    on_box.finish(saver)  # the save completes and the file is closed (the process lives on)
    code, out, err = call(capsys, "pull", "--run", "r1", "--instance", "box1",
                          *ssh_args(sshd, box))
    assert code == 0, err
    assert "still being written" not in err
    assert all("writers" not in e for e in listed_entries(project))
    assert gate(project) == (True, [])
    code, out, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err


def test_a_log_kept_open_blocks_while_a_reader_does_not(
        capsys: pytest.CaptureFixture[str], home: Path, project: Path, tmp_path: Path,
        sshd: Any, on_box: Box) -> None:
    box = tmp_path / "box"
    box.mkdir()
    results = box / "results.csv"
    results.write_text("sample,psnr,ssim\nbaby,31.84,0.912\nbird,33.02,0.941\n")
    logger = on_box.python(KEPT_LOG, box / "train.log")
    follower = on_box.start(["tail", "-n", "1", "-f", str(results)])  # reads, never writes

    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--instance", "box1",
                          *ssh_args(sshd, box))
    assert code == 3, err
    files = {f["path"]: f for f in json.loads(out)["files"]}
    assert files["train.log"]["status"] == "pulled"
    assert [w["pid"] for w in files["train.log"]["writers"]] == [logger.pid]
    assert files["results.csv"]["writers"] == []
    assert f"pid {follower.pid}" not in err
    ok, unmet = gate(project)
    assert not ok
    [gap] = [u for u in unmet if "still being written" in u]
    assert gap.startswith("r1: train.log: ")
    assert f"pid {logger.pid} (" in gap

    on_box.finish(logger)
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--instance", "box1",
                          *ssh_args(sshd, box))
    assert code == 0, err
    assert all(f["writers"] == [] for f in json.loads(out)["files"])
    assert follower.poll() is None  # still following results.csv: no writer, no block
    assert gate(project) == (True, [])


# -- the box's hasher itself --------------------------------------------------------------------
def test_the_box_hasher_names_writers_in_one_pass_and_the_fallback_cannot(
        tmp_path: Path, sshd: Any, on_box: Box) -> None:
    box = tmp_path / "box"
    box.mkdir()
    for name in ("rewritten.bin", "appended.log", "read.bin", "idle.bin"):
        (box / name).write_bytes(name.encode())
    holder = on_box.python(HOLDER, box / "rewritten.bin", "r+b", box / "appended.log", "ab",
                           box / "read.bin", "rb")
    names = ["rewritten.bin", "appended.log", "read.bin", "idle.bin"]
    t = ssh_transport(sshd, box, tmp_path, hasher="python")
    try:
        hashes = t.hash_files(names)
    finally:
        t.close()
    written = {n: [w.pid for w in h.writers] for n, h in hashes.items()}
    assert written == {"rewritten.bin": [holder.pid], "appended.log": [holder.pid],
                       "read.bin": [], "idle.bin": []}
    [who] = hashes["rewritten.bin"].writers
    assert isinstance(who, BoxWriter)
    assert who.command.startswith(sys.executable)  # its command line: one line, shortened
    assert "\n" not in who.command
    assert len(who.command) <= 80

    # No python on the box: sha256sum cannot look in /proc; nothing is named (docs/pull.md)
    t = ssh_transport(sshd, box, tmp_path, hasher="coreutils")
    try:
        assert all(h.writers == () for h in t.hash_files(names).values())
    finally:
        t.close()


# -- from a folder here: the same rule --------------------------------------------------------
def test_from_a_folder_a_file_held_for_writing_is_not_verified(
        ledger: Ledger, tmp_path: Path, on_box: Box) -> None:
    box = tmp_path / "box"
    box.mkdir()
    (box / "metrics.json").write_text('{"psnr": 31.84}\n')
    logger = on_box.python(KEPT_LOG, box / "train.log")
    report = pull(ledger, LocalTransport(box), run="r1", instance="box1")
    assert not report.ok
    files = {f.path: f for f in report.files}
    assert files["train.log"].status == "pulled"
    assert [w["pid"] for w in files["train.log"].writers] == [logger.pid]
    assert files["metrics.json"].ok
    events = load_events(ledger)
    result = verify_run("r1", events, ObjectChecker(gate_store(ledger)), instance="box1")
    assert [g for g in result.gaps() if "still being written" in g][0].startswith(
        "r1: train.log: still being written on the box when it was listed: "
        f"pid {logger.pid} (")

    on_box.finish(logger)
    assert pull(ledger, LocalTransport(box), run="r1", instance="box1").ok
    assert evaluate_gate(ledger, "box1").ok
