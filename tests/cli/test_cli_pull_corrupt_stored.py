"""`labledger pull` over a real sshd repairs a stored copy it finds corrupt (exit 0), and says so.

The box's python has no ``blake3`` here, so the stored copy is found by the SHA-256 its earlier
``artifact.pulled`` recorded, as on most rented boxes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME


def rot_stored(project: Path, path: str) -> tuple[str, Path]:
    """Flip a byte of the stored copy of the box file ``path``; its digest and object file."""
    with Ledger.open(project) as ledger:
        digest = [r.body_dict()["digest"] for r in ledger.records()
                  if r.kind == "artifact.pulled" and r.body_dict()["path"] == path][-1]
        obj = open_store(ledger).object_path(digest)
    obj.chmod(0o644)
    raw = bytearray(obj.read_bytes())
    raw[0] ^= 0xFF
    obj.write_bytes(bytes(raw))
    return digest, obj


def test_a_pull_repairs_a_corrupt_stored_copy_and_records_the_quarantine(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any) -> None:
    args = ["pull", "--run", "r1", "--instance", "box1", "--from", sshd.target(box),
            "--identity", str(sshd.client_key)]
    code, _, err = call(capsys, *args, "--accept-new-host-key")
    assert code == 0, err
    digest, obj = rot_stored(project, "run.json")

    code, out, err = call(capsys, *args, "--json")

    assert code == 0, err
    doc = json.loads(out)
    assert doc["ok"] is True
    (found,) = doc["quarantined"]
    assert (found["path"], found["digest"], found["repaired"]) == ("run.json", digest, True)
    assert Path(found["quarantine_path"]).parent == project / ".labledger" / "cas" / "quarantine"
    assert [(f["path"], f["status"]) for f in doc["files"]] == [("ckpt/best.pth", "present"),
                                                                ("run.json", "pulled")]
    assert doc["bytes_transferred"] == (box / "run.json").stat().st_size
    assert obj.read_bytes() == (box / "run.json").read_bytes()

    rot_stored(project, "run.json")
    code, _, err = call(capsys, *args)
    assert code == 0, err
    said = [line for line in err.splitlines() if line.startswith("repaired: run.json: ")]
    assert len(said) == 1, err
    assert f"its stored copy {digest} was corrupt" in said[0]
    assert "object.quarantined" in said[0]
    assert "sent again from the box" in said[0]
    # the store and the ledger agree again: nothing lost, the run pull-verified
    code, _, err = call(capsys, "check", "--deep")
    assert code == 0, err
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 0, err


def test_a_corrupt_object_the_box_cannot_repair_exits_3_and_says_why(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any,
        tmp_path: Path) -> None:
    # a file recorded here (never pulled) with the size of the box's run.json: the pull
    # compares it with run.json by its SHA-256, re-hashing its stored bytes, which rotted
    other = tmp_path / "notes.json"
    other.write_bytes(b"x" * (box / "run.json").stat().st_size)
    code, _, err = call(capsys, "emit", "artifact.recorded", "--run", "r0", "--attach",
                        str(other))
    assert code == 0, err
    with Ledger.open(project) as ledger:
        (digest,) = [r.body_dict()["digest"] for r in ledger.records()
                     if r.kind == "artifact.recorded"]
        obj = open_store(ledger).object_path(digest)
    obj.chmod(0o644)
    obj.write_bytes(b"y" + obj.read_bytes()[1:])

    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1", "--from",
                        sshd.target(box), "--identity", str(sshd.client_key),
                        "--accept-new-host-key")

    assert code == 3, err
    said = [line for line in err.splitlines() if line.startswith("corrupt: run.json: ")]
    assert len(said) == 1, err
    assert f"the stored object {digest} was corrupt" in said[0]
    assert "not repaired: the box's run.json is other bytes" in said[0]
    assert "labledger cas put" in said[0]
    with Ledger.open(project) as ledger:
        assert [r.body_dict()["digest"] for r in ledger.records()
                if r.kind == "object.quarantined"] == [digest]
