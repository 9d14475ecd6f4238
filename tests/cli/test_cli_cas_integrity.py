"""Corruption found by any reader is recorded, and `check --deep` names every lost object.

End to end through `main()` over a real ledger and store: `cas cat/get/ls` quarantine *and*
record; `cat` writes nothing before the object verifies; `check --deep` exits 3 for an object an
event says was stored and that is missing or quarantined, and ignores digests that never named a
stored object; `cas put` checks every argument before storing any; `cas gc` calls missing only
what was stored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.cli import main
from labledger.ledger.ledger import Ledger
from tests.cli.test_cli_cas import b3
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def obj_path(project: Path, digest: str) -> Path:
    return project / ".labledger/cas/objects" / digest[7:9] / digest[9:]


def tamper(project: Path, digest: str) -> None:
    path = obj_path(project, digest)
    path.chmod(0o644)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))


def quarantine_events(project: Path) -> list[dict[str, str]]:
    return [r.body_dict() for r in Ledger.open(project).records()
            if r.kind == "object.quarantined"]


def checkpoint(capsys: pytest.CaptureFixture[str], project: Path, data: bytes,
               *extra: str) -> str:
    (project / "w.pth").write_bytes(data)
    assert call(capsys, "checkpoint", "w.pth", "--run", "r1", "-q", *extra)[0] == 0
    return b3(data)


def run(capfd: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, bytes, bytes]:
    """`labledger ARGS` with stdout as the bytes a pipe would get."""
    capfd.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capfd.readouterr()
    assert isinstance(info.value.code, int)
    return info.value.code, out, err


def test_cat_of_a_corrupt_object_writes_nothing_and_records_the_quarantine(
    capfdbinary: pytest.CaptureFixture[bytes], project: Path
) -> None:
    data = os.urandom(3 << 20)  # large: the mmap hash path, and more than one read chunk
    (project / "w.pth").write_bytes(data)
    assert run(capfdbinary, "checkpoint", "w.pth", "--run", "r1", "-q")[0] == 0
    digest = b3(data)
    tamper(project, digest)
    code, out, err = run(capfdbinary, "cas", "cat", digest)
    assert code == 3
    assert out == b""  # not one corrupt byte reached stdout
    assert b"Traceback" not in err
    assert b"recorded object.quarantined" in err
    (event,) = quarantine_events(project)
    assert event["digest"] == digest
    assert not obj_path(project, digest).exists()
    code, out, _ = run(capfdbinary, "sql", "select in_store from checkpoints", "--format", "json")
    assert code == 0
    assert json.loads(out) == [{"in_store": False}]
    # check --deep no longer says the store is fine: the checkpoint's bytes are gone
    code, out, _ = run(capfdbinary, "check", "--deep")
    assert code == 3
    assert (f"corruption: object {digest} (named by checkpoint.saved (writer test-writer seq 0"
            .encode()) in out
    assert b"quarantined" in out
    assert len(quarantine_events(project)) == 1  # reported again, recorded once


def test_storing_the_original_again_restores_it_in_the_ledger(
    capfdbinary: pytest.CaptureFixture[bytes], project: Path
) -> None:
    # The quarantine's advice is "store the original again with `labledger cas put`": doing so
    # must make the ledger's in_store (and check --deep) whole again, recorded once.
    data = os.urandom(4096)
    (project / "w.pth").write_bytes(data)
    assert run(capfdbinary, "checkpoint", "w.pth", "--run", "r1", "-q")[0] == 0
    digest = b3(data)
    tamper(project, digest)
    assert run(capfdbinary, "cas", "cat", digest)[0] == 3
    code, _, err = run(capfdbinary, "cas", "put", "w.pth")
    assert code == 0
    assert b"restored 1 quarantined object" in err
    code, out, _ = run(capfdbinary, "sql", "select in_store from checkpoints", "--format", "json")
    assert json.loads(out) == [{"in_store": True}]
    assert run(capfdbinary, "check", "--deep")[0] == 0
    code, _, err = run(capfdbinary, "cas", "put", "w.pth")  # already restored: nothing more
    assert code == 0
    assert b"restored" not in err
    restored = [r for r in Ledger.open(project).records(kinds=("artifact.recorded",))]
    assert [json.loads(bytes(r.body)) for r in restored] == [
        {"path": "w.pth", "digest": digest, "size": 4096, "role": "restored"}]


def test_storing_the_folder_holding_the_original_restores_it_too(
    capfdbinary: pytest.CaptureFixture[bytes], project: Path
) -> None:
    data = os.urandom(2048)
    (project / "d").mkdir()
    (project / "d" / "f.pth").write_bytes(data)
    assert run(capfdbinary, "checkpoint", "d/f.pth", "--run", "r1", "-q")[0] == 0
    digest = b3(data)
    tamper(project, digest)
    assert run(capfdbinary, "check", "--deep")[0] == 3  # quarantined and recorded
    code, _, err = run(capfdbinary, "cas", "put", "d")
    assert code == 0
    assert b"restored 1 quarantined object" in err
    code, out, _ = run(capfdbinary, "sql", "select in_store from checkpoints", "--format", "json")
    assert json.loads(out) == [{"in_store": True}]
    assert run(capfdbinary, "check", "--deep")[0] == 0


def test_get_of_a_corrupt_file_records_it_and_leaves_no_output(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    digest = checkpoint(capsys, project, b"weights" * 1000)
    tamper(project, digest)
    code, out, err = call(capsys, "cas", "get", digest, "-o", "restored.pth")
    assert code == 3
    assert "does not match its digest" in err
    assert not (project / "restored.pth").exists()
    assert [p.name for p in project.iterdir() if p.name.startswith(".restored")] == []
    assert [e["digest"] for e in quarantine_events(project)] == [digest]


def test_get_and_ls_of_a_tree_record_a_corrupt_file_or_tree(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    run = project / "run"
    (run / "test").mkdir(parents=True)
    (run / "run.json").write_text('{"run": "r1"}')
    (run / "test" / "metrics.json").write_text('{"psnr": 31.42}' * 100)
    code, out, _ = call(capsys, "emit", "artifact.recorded", "--run", "r1", "--attach", "run",
                        "--json")
    assert code == 0
    tree = json.loads(out)["body"]["digest"]
    child = b3(b'{"psnr": 31.42}' * 100)
    tamper(project, child)
    code, _, err = call(capsys, "cas", "get", tree, "-o", "restored")
    assert code == 3
    assert child in err
    assert not (project / "restored").exists()
    assert [e["digest"] for e in quarantine_events(project)] == [child]
    code, out, _ = call(capsys, "check", "--deep")
    assert code == 3
    assert f"object {child} (a file of tree {tree}, named by artifact.recorded" in out
    # a corrupt tree object, found by ls
    tamper(project, tree)
    code, _, _ = call(capsys, "cas", "ls", tree)
    assert code == 3
    assert [e["digest"] for e in quarantine_events(project)] == [child, tree]


def test_check_deep_reports_a_deleted_object_with_its_event(
    capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot
) -> None:
    digest = checkpoint(capsys, project, b"weights" * 100)
    assert call(capsys, "check", "--deep")[0] == 0
    os.unlink(obj_path(project, digest))
    before = snapshot(project / ".labledger")
    code, out, _ = call(capsys, "check", "--deep", "--json")
    assert code == 3
    doc = json.loads(out)
    assert doc["ok"] is False
    (missing,) = doc["objects"]["missing"]
    assert missing["digest"] == digest
    assert missing["problem"] is True
    assert missing["quarantined"] == []
    assert [(r["kind"], r["writer"], r["seq"], r["field"]) for r in missing["references"]] == [
        ("checkpoint.saved", "test-writer", 0, "digest")]
    code, out, _ = call(capsys, "check", "--deep")
    assert code == 3
    assert f"{digest} (named by checkpoint.saved (writer test-writer seq 0, digest)): it is " \
           "missing from the store" in out
    assert snapshot(project / ".labledger") == before  # reporting a loss writes nothing


def test_digests_that_never_named_a_stored_object_are_not_missing(
    capsys: pytest.CaptureFixture[str], project: Path, ledger: Ledger
) -> None:
    checkpoint(capsys, project, b"kept on the box", "--digest-only")
    ledger.append("pull.listed", run="r1", source="dir:/box/run",
                  manifest_digest=b3(b"the listing"), roster_digest=b3(b"the roster"),
                  entries=[{"path": "best.pth", "size": 3, "blake3": b3(b"box")}])
    ledger.append("artifact.pulled", run="r1", path="best.pth", ok=False, error="mismatch")
    ledger.append("teardown.approved", instance="i1", approver="me",
                  state_digest=b3(b"gate state"))
    code, out, err = call(capsys, "check", "--deep")
    assert code == 0, out
    assert "ok" in err
    code, out, err = call(capsys, "cas", "gc")
    assert code == 0
    assert "missing" not in err
    code, out, _ = call(capsys, "cas", "gc", "--json")
    assert json.loads(out)["missing"] == []


def test_a_pull_leaves_no_phantom_missing_objects(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    box = tmp_path / "box" / "run"
    box.mkdir(parents=True)
    (box / "metrics.json").write_text('{"psnr": 30.1}')
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 0, err
    kinds = {r.kind for r in Ledger.open(project).records()}
    assert {"pull.listed", "artifact.pulled"} <= kinds
    code, out, err = call(capsys, "cas", "gc")
    assert code == 0
    assert "missing" not in err
    assert call(capsys, "check", "--deep")[0] == 0


def test_objects_named_only_by_another_writer_are_a_note(
    capsys: pytest.CaptureFixture[str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A box's segment, merged by a pull, names objects in the box's own store.
    monkeypatch.setenv("LABLEDGER_WRITER", "gpubox")
    box = Ledger.open(project)
    box.append("run.launched", run="r1", config_digest=b3(b"box config"))
    box.close()
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")
    code, out, err = call(capsys, "check", "--deep")
    assert code == 0
    assert "note:" not in out  # expected after any pull: counted, listed with -v
    assert "1 object named only by other writers' events" in err
    code, out, err = call(capsys, "check", "--deep", "-v")
    assert code == 0
    assert f"note: object {b3(b'box config')} (named by run.launched (writer gpubox" in out


def test_put_checks_every_path_before_storing_any(
    capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot, tmp_path: Path
) -> None:
    (project / "good.bin").write_bytes(b"good")
    secret = tmp_path / "secret"
    secret.write_bytes(b"not for the store")
    (project / "toplink").symlink_to(secret)
    os.mkfifo(project / "fifo")
    (project / "dir" / "sub").mkdir(parents=True)
    (project / "dir" / "ok.txt").write_text("ok")
    os.mkfifo(project / "dir" / "sub" / "pipe")
    before = snapshot(project / ".labledger")
    for bad, needle in [("nonexist", "no such file"), ("toplink", "never followed"),
                        ("fifo", "FIFO"), ("dir", "FIFO")]:
        code, out, err = call(capsys, "cas", "put", "good.bin", bad)
        assert code == 2, (bad, err)
        assert bad in err
        assert needle in err
        assert "Traceback" not in err
        assert out == ""
        assert snapshot(project / ".labledger") == before
    code, out, err = call(capsys, "cas", "put", "good.bin", "toplink", "--json")
    assert code == 2
    assert json.loads(err.strip().splitlines()[-1])["type"] == "exit_error"
    assert snapshot(project / ".labledger") == before
    # the same paths, the bad ones left out, store as before
    code, out, _ = call(capsys, "cas", "put", "good.bin", str(secret))
    assert code == 0
    assert out.split()[0] == b3(b"good")


def test_get_onto_an_existing_path_names_the_option(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "x.bin").write_bytes(b"x")
    assert call(capsys, "cas", "put", "x.bin")[0] == 0
    code, _, err = call(capsys, "cas", "get", b3(b"x"), "-o", "x.bin")
    assert code == 1
    assert "`--force`" in err


@pytest.mark.parametrize("seed", ["1", "2", "3", "4"])
def test_a_missing_file_shared_with_a_box_tree_is_a_problem_whatever_the_walk_order(
        ledger: Ledger, project: Path, seed: str) -> None:
    import os
    import subprocess
    import sys

    (project / "A").mkdir()
    (project / "B").mkdir()
    for folder, own in (("A", b"onlyA"), ("B", b"onlyB")):
        (project / folder / "shared").write_bytes(b"shared\n")
        (project / folder / "own").write_bytes(own)
    exe = str(Path(sys.executable).with_name("labledger"))

    def labledger(*args: str, writer: str = "test-writer") -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "LABLEDGER_WRITER": writer, "PYTHONHASHSEED": seed}
        return subprocess.run([exe, *args], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    local = labledger("emit", "artifact.recorded", "--run", "local1", "--attach", "A")
    assert local.returncode == 0
    assert labledger("emit", "artifact.recorded", "--run", "boxrun", "--attach", "B",
                     writer="box").returncode == 0
    shared = b3(b"shared\n").split(":", 1)[1]
    (project / ".labledger" / "cas" / "objects" / shared[:2] / shared[2:]).unlink()
    checked = labledger("check", "--deep")
    assert checked.returncode == 3, checked.stdout + checked.stderr
