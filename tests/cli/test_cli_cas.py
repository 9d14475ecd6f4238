"""`labledger cas …`, `emit --attach`, `check --deep` and the `artifacts` view, end to end.

These go through `main()` in-process (exit codes included) over a real ledger and a real store.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from blake3 import blake3

from labledger.ledger.cli import main
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def b3(data: bytes) -> str:
    return "blake3:" + blake3(data).hexdigest()


@pytest.fixture
def capsule(project: Path) -> Path:
    root = project / "capsule"
    (root / "test" / "t1").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "run.json").write_text('{"run": "r1"}')
    (root / "test" / "t1" / "metrics.json").write_text('{"psnr": 31.42}')
    return root


def test_put_prints_the_reference_blake3_and_dedups(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    data = os.urandom(300_000)
    (project / "a.bin").write_bytes(data)
    (project / "b.bin").write_bytes(data)
    code, out, _ = call(capsys, "cas", "put", "a.bin", "b.bin", "--sha256", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["digest"] for r in rows] == [b3(data), b3(data)]
    assert rows[0]["stored_new"] is True
    assert rows[1]["stored_new"] is False
    import hashlib

    assert rows[0]["sha256"] == hashlib.sha256(data).hexdigest()
    objects = [p for p in (project / ".labledger/cas/objects").rglob("*") if p.is_file()]
    assert len(objects) == 1


def test_tree_put_ls_get_round_trip(capsys: pytest.CaptureFixture[str], project: Path,
                                    capsule: Path) -> None:
    code, out, _ = call(capsys, "cas", "put", "capsule")
    assert code == 0
    digest = out.split()[0]
    code, out, _ = call(capsys, "cas", "ls", digest, "--json")
    assert code == 0
    paths = {e["path"]: e["kind"] for e in json.loads(out)}
    assert paths == {"empty": "dir", "run.json": "file", "test": "dir", "test/t1": "dir",
                     "test/t1/metrics.json": "file"}
    code, out, _ = call(capsys, "cas", "stat", digest, "--json")
    assert code == 0
    assert json.loads(out)["type"] == "tree"
    code, _, _ = call(capsys, "cas", "get", digest, "-o", "restored")
    assert code == 0
    assert (project / "restored/empty").is_dir()
    assert (project / "restored/test/t1/metrics.json").read_text() == '{"psnr": 31.42}'
    # an existing destination is refused without --force, replaced with it
    code, _, err = call(capsys, "cas", "get", digest, "-o", "restored")
    assert code == 1
    assert "restored" in err
    code, _, _ = call(capsys, "cas", "get", digest, "-o", "restored", "--force")
    assert code == 0


def test_cat_writes_the_exact_bytes(capfdbinary: pytest.CaptureFixture[bytes],
                                    project: Path) -> None:
    data = bytes(range(256)) * 10
    (project / "x.bin").write_bytes(data)
    with pytest.raises(SystemExit):
        main(["cas", "put", "x.bin"])
    capfdbinary.readouterr()
    with pytest.raises(SystemExit) as info:
        main(["cas", "cat", b3(data)])
    assert info.value.code == 0
    assert capfdbinary.readouterr().out == data


@pytest.mark.parametrize(("args", "code", "needle"), [
    (["cas", "cat", "blake3:nothex"], 2, "not a digest"),
    (["cas", "cat", "sha256:" + "a" * 64], 2, "not a digest"),
    (["cas", "stat", "blake3:" + "a" * 64], 1, "not in the store"),
    (["cas", "put", "missing.bin"], 2, "missing.bin"),
    (["cas", "get", "blake3:" + "b" * 64, "-o", "out"], 1, "not in the store"),
])
def test_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str], project: Path,
                                    snapshot: Snapshot, args: list[str], code: int,
                                    needle: str) -> None:
    before = snapshot(project / ".labledger")
    got, out, err = call(capsys, *args)
    assert got == code
    assert needle in err
    assert "Traceback" not in err
    assert out == ""
    assert snapshot(project / ".labledger") == before


def test_emit_attach_stores_bytes_then_records_the_artifact(
    capsys: pytest.CaptureFixture[str], project: Path, capsule: Path
) -> None:
    (project / "best.pth").write_bytes(b"weights" * 1000)
    code, out, _ = call(capsys, "emit", "note", "--run", "r1", "--set", "text=eval done",
                        "--attach", "best.pth", "--attach", "capsule", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "note"
    attached = {a["body"]["path"]: a["body"] for a in doc["attachments"]}
    assert attached["best.pth"]["digest"] == b3(b"weights" * 1000)
    assert attached["capsule"]["type"] == "tree"
    kinds = [r.kind for r in Ledger.open(project).records()]
    assert kinds == ["artifact.recorded", "artifact.recorded", "note"]
    # every referenced object is really in the store
    for body in attached.values():
        assert call(capsys, "cas", "stat", body["digest"])[0] == 0
    code, out, _ = call(capsys, "sql", "select digest, type, runs, paths from artifacts "
                                       "order by type", "--format", "json")
    rows = json.loads(out)
    assert {(r["type"], tuple(r["runs"]), tuple(r["paths"])) for r in rows} == {
        ("file", ("r1",), ("best.pth",)), ("tree", ("r1",), ("capsule",))}


def test_emit_attach_fills_an_artifact_recorded_body(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "m.json").write_text("{}")
    code, out, _ = call(capsys, "emit", "artifact.recorded", "--run", "r1", "--attach", "m.json",
                        "--set", "role=metrics", "--json")
    assert code == 0
    body = json.loads(out)["body"]
    # "type" is left out when it is the default, "file" (bodies omit defaults)
    assert body == {"path": "m.json", "digest": b3(b"{}"), "size": 2, "role": "metrics"}


def test_emit_attach_with_bad_input_writes_nothing(
    capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot
) -> None:
    (project / "ok.bin").write_bytes(b"ok")
    before = snapshot(project / ".labledger")
    # invalid body: nothing stored, nothing recorded
    code, _, err = call(capsys, "emit", "run.exited", "--set", "exit_code=x", "--attach", "ok.bin")
    assert code == 2
    assert "exit_code" in err
    # a missing attachment
    code, _, err = call(capsys, "emit", "note", "--set", "text=t", "--attach", "nope.bin")
    assert code == 2
    assert "nope.bin" in err
    assert snapshot(project / ".labledger") == before


def test_check_deep_quarantines_a_corrupt_object_and_records_it(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "w.pth").write_bytes(b"w" * 5000)
    assert call(capsys, "emit", "artifact.recorded", "--attach", "w.pth")[0] == 0
    assert call(capsys, "check", "--deep")[0] == 0
    digest = b3(b"w" * 5000)
    obj = project / ".labledger/cas/objects" / digest[7:9] / digest[9:]
    obj.chmod(0o644)
    raw = bytearray(obj.read_bytes())
    raw[1234] ^= 0x01
    obj.write_bytes(bytes(raw))
    code, out, _ = call(capsys, "check", "--deep")
    assert code == 3
    assert digest in out
    assert "quarantine" in out
    assert not obj.exists()
    kept = list((project / ".labledger/cas/quarantine").iterdir())
    assert len(kept) == 1
    assert kept[0].read_bytes() == bytes(raw)
    events = [r for r in Ledger.open(project).records() if r.kind == "object.quarantined"]
    assert len(events) == 1
    assert events[0].body_dict()["digest"] == digest
    # a second deep check quarantines nothing new, but the event still names lost bytes
    code, out, _ = call(capsys, "check", "--deep")
    assert code == 3
    assert f"object {digest} (named by artifact.recorded" in out
    assert "quarantined" in out
    events = [r for r in Ledger.open(project).records() if r.kind == "object.quarantined"]
    assert len(events) == 1
    # storing the original again settles it
    assert call(capsys, "cas", "put", "w.pth")[0] == 0
    assert call(capsys, "check", "--deep")[0] == 0


def test_gc_keeps_referenced_objects_and_defaults_to_dry_run(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "kept.bin").write_bytes(b"kept")
    (project / "loose.bin").write_bytes(b"loose")
    assert call(capsys, "emit", "artifact.recorded", "--attach", "kept.bin")[0] == 0
    assert call(capsys, "cas", "put", "loose.bin")[0] == 0
    loose = project / ".labledger/cas/objects" / b3(b"loose")[7:9] / b3(b"loose")[9:]
    old = time.time() - 30 * 86400
    os.utime(loose, (old, old))
    code, out, _ = call(capsys, "cas", "gc", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["dry_run"] is True
    assert [i["digest"] for i in report["removed"]] == [b3(b"loose")]
    assert loose.exists()
    code, _, _ = call(capsys, "cas", "gc", "--no-dry-run")
    assert code == 0
    assert not loose.exists()
    assert call(capsys, "cas", "stat", b3(b"kept"))[0] == 0
    # young unreferenced objects survive the grace period
    (project / "young.bin").write_bytes(b"young")
    assert call(capsys, "cas", "put", "young.bin")[0] == 0
    assert call(capsys, "cas", "gc", "--no-dry-run", "--grace", "1h")[0] == 0
    assert call(capsys, "cas", "stat", b3(b"young"))[0] == 0


def test_python_api_attach(project: Path) -> None:
    (project / "metrics.json").write_text('{"psnr": 31.4}')
    led = Ledger.open(project)
    record = led.attach(project / "metrics.json", run="r9", role="metrics")
    body = record.body_dict()
    assert body["digest"] == b3(b'{"psnr": 31.4}')
    assert body["role"] == "metrics"
    assert record.run == "r9"
