"""`labledger pull` end to end: local directory and a real sshd, exit codes and manifests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME


def test_pull_from_dir_prints_the_table(capsys: pytest.CaptureFixture[str], box: Path) -> None:
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["files", "bytes", "size"]
    assert lines[2].split()[:2] == ["expected", "2"]
    assert lines[3].split()[:2] == ["pulled", "2"]
    assert lines[4].split()[:2] == ["verified", "1"]
    assert lines[5].split()[:3] == ["failed", "0", "0"]


def test_pull_json_summary(capsys: pytest.CaptureFixture[str], box: Path) -> None:
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box), "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["type"] == "summary"
    assert summary["ok"] is True
    assert summary["expected"]["files"] == 2
    assert summary["verified"]["files"] == 1


def test_missing_roster_entry_exits_3(capsys: pytest.CaptureFixture[str], box: Path,
                                      tmp_path: Path) -> None:
    roster = tmp_path / "roster.txt"
    roster.write_text("run.json\nckpt/best.pth\nbest_metrics.json\n")
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box),
                          "--roster", str(roster))
    assert code == 3
    assert "missing: best_metrics.json" in err
    assert out.splitlines()[5].split()[:2] == ["failed", "1"]


def test_export_then_import_the_pull_v1_manifest(capsys: pytest.CaptureFixture[str], box: Path,
                                                 tmp_path: Path) -> None:
    manifest = tmp_path / "PULL_MANIFEST.json"
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box),
                        "--export-manifest", str(manifest))
    assert code == 0, err
    doc = json.loads(manifest.read_text())
    assert doc["schema"] == "remote-gpu-trainer/PULL/v1"
    assert doc["run_id"] == "r1"
    assert doc["top_level_dirs"] == ["ckpt", "empty"]
    best = (box / "ckpt" / "best.pth").read_bytes()
    assert {"path": "ckpt/best.pth", "bytes": len(best),
            "sha256": hashlib.sha256(best).hexdigest()} in doc["files"]
    assert doc["totals"] == {"files": 2, "bytes": sum(f["bytes"] for f in doc["files"])}
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box),
                        "--import-manifest", str(manifest))
    assert code == 0, err
    (box / "extra.txt").write_text("surprise\n")
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box),
                        "--import-manifest", str(manifest))
    assert code == 3
    assert "unexpected: extra.txt" in err


def test_export_without_a_source_uses_the_latest_listing(
        capsys: pytest.CaptureFixture[str], box: Path, tmp_path: Path) -> None:
    assert call(capsys, "pull", "--run", "r1", "--from-dir", str(box))[0] == 0
    manifest = tmp_path / "m.json"
    code, _, err = call(capsys, "pull", "--run", "r1", "--export-manifest", str(manifest))
    assert code == 0, err
    assert json.loads(manifest.read_text())["totals"]["files"] == 2


def test_export_without_a_source_skips_a_later_partial_listing(
        capsys: pytest.CaptureFixture[str], box: Path, tmp_path: Path) -> None:
    assert call(capsys, "pull", "--run", "r1", "--from-dir", str(box))[0] == 0
    only = sorted(p.name for p in box.iterdir() if p.is_file())[0]
    assert call(capsys, "pull", "--run", "r1", "--from-dir", str(box), "--only", only)[0] == 0
    manifest = tmp_path / "m.json"
    code, _, err = call(capsys, "pull", "--run", "r1", "--export-manifest", str(manifest))
    assert code == 0, err
    assert json.loads(manifest.read_text())["totals"]["files"] == 2  # the full listing's


def test_import_of_a_non_pull_v1_file_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], box: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"files": []}')
    code, _, _ = call(capsys, "pull", "--run", "r1", "--from-dir", str(box),
                      "--import-manifest", str(bad))
    assert code == 2


def test_ssh_unknown_host_key_exits_1_then_pins_with_the_flag(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any) -> None:
    args = ["pull", "--run", "r1", "--from", sshd.target(box), "--identity",
            str(sshd.client_key)]
    code, _, err = call(capsys, *args)
    assert code == 1
    assert "is unknown" in err
    assert "--accept-new-host-key" in err
    assert [r.kind for r in Ledger.open(project).records()] == []
    code, out, err = call(capsys, *args, "--accept-new-host-key", "--json")
    assert code == 0, err
    assert json.loads(out)["ok"] is True
    known = (project / ".labledger" / "known_hosts").read_text()
    assert known == sshd.host_key_line
    code, _, err = call(capsys, *args)
    assert code == 0, err


def test_ssh_changed_host_key_exits_1_in_json(capsys: pytest.CaptureFixture[str], box: Path,
                                              project: Path, sshd: Any) -> None:
    kind, b64 = sshd.host_key_line.split()[1:3]
    forged = f"[127.0.0.1]:{sshd.port} {kind} {b64[:-8]}AAAAAAAA\n"
    (project / ".labledger" / "known_hosts").write_text(forged)
    code, _, err = call(capsys, "pull", "--run", "r1", "--from", sshd.target(box),
                        "--identity", str(sshd.client_key), "--accept-new-host-key", "--json")
    assert code == 1
    last = json.loads(err.splitlines()[-1])
    assert last["error"] == "HostKeyError"
    assert "does not match the pinned" in last["message"]


def test_a_large_pull_shows_a_progress_bar_on_a_terminal(box: Path, project: Path,
                                                         tmp_path: Path) -> None:
    """Over 256 MiB, with stderr on a terminal: a bar on stderr; stdout keeps only the table."""
    import os
    import pty
    import subprocess
    import sys

    with open(box / "big.dat", "wb") as fh:  # sparse: cheap to make, real bytes to pull
        fh.truncate(300 * 1024 * 1024)
    exe = Path(sys.executable).with_name("labledger")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([str(exe), "pull", "--run", "r1", "--from-dir", str(box),
                               "--no-verify"], cwd=project, stdout=subprocess.PIPE,
                              stderr=follower, timeout=120, check=False)
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    assert b"pulling" in seen
    assert b"pulling" not in done.stdout


# -- bad input: exit 2, nothing written; a box that misbehaves: exit 3 ----------------------------
def tree_sha256(folder: Path) -> str:
    """One SHA-256 over every path (folders included) and file's bytes under ``folder``."""
    digest = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        digest.update(str(p.relative_to(folder)).encode() + b"\0")
        if p.is_file():
            digest.update(hashlib.sha256(p.read_bytes()).digest())
    return digest.hexdigest()


@pytest.mark.parametrize(("option", "raw", "problem"), [
    ("--import-manifest", b"best.pth\n", "not a valid manifest: it is not valid JSON"),
    ("--import-manifest", b"\xff\xfe{}", "not a valid manifest: it is not UTF-8 text"),
    ("--roster", b'{"files":[{"path":"ckpt/best.pth","sha256":"zz"}]}',
     'files[0]: sha256 must be 64 hex digits, not "zz"'),
    ("--roster", b'{"files":[{"path":"ckpt/best.pth","bytes":"1620"}]}',
     'files[0]: bytes must be a non-negative integer, not "1620"'),
    ("--roster", b'{"files":[{"path":"ckpt/best.pth","bytes":true}]}',
     "files[0]: bytes must be a non-negative integer, not true"),
    ("--roster", b'["/etc/passwd"]', "files[0]: path '/etc/passwd' is absolute"),
    ("--roster", b'["../x"]', "files[0]: path '../x' leaves the pulled folder"),
    ("--roster", b"null", "it is the JSON value null"),
    ("--roster", b"", "it is empty"),
])
def test_a_bad_roster_or_manifest_exits_2_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, tmp_path: Path,
        option: str, raw: bytes, problem: str) -> None:
    bad = tmp_path / "bad-roster.json"
    bad.write_bytes(raw)
    before = tree_sha256(project / ".labledger")
    for extra in ([], ["--json"]):
        code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box), option,
                              str(bad), *extra)
        assert code == 2, err
        assert out == ""
        assert "Traceback" not in err
        message = json.loads(err.splitlines()[-1])["message"] if extra else err
        assert str(bad) in message
        assert problem in message
        assert "nothing was pulled or recorded" in message
    assert json.loads(err.splitlines()[-1])["error"] == "PullSourceError"
    assert tree_sha256(project / ".labledger") == before


def test_a_bom_json_roster_is_read_as_json(capsys: pytest.CaptureFixture[str], box: Path,
                                           tmp_path: Path) -> None:
    roster = tmp_path / "roster.json"
    roster.write_bytes(b"\xef\xbb\xbf" + json.dumps(["run.json", "ckpt/best.pth"]).encode())
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box), "--roster",
                        str(roster))
    assert code == 0, err


def test_a_file_vanishing_mid_pull_exits_3_and_the_rest_is_pulled(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from labledger.ingest.transport import LocalTransport

    (box / "ckpt" / "old.pth").write_bytes(b"rotated away")
    hash_files = LocalTransport.hash_files

    def rotate_then_hash(self: LocalTransport, rels: Any) -> Any:
        (box / "ckpt" / "old.pth").unlink()  # the training loop removes its oldest checkpoint
        return hash_files(self, rels)

    monkeypatch.setattr(LocalTransport, "hash_files", rotate_then_hash)
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 3, err
    assert "failed: ckpt/old.pth: vanished from the box after the listing" in err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert lines[3].split()[:2] == ["pulled", "2"]
    assert lines[4].split()[:2] == ["verified", "1"]
    assert lines[5].split()[:2] == ["failed", "1"]
    pulled = {r.body_dict()["path"]: r.body_dict()["ok"]
              for r in Ledger.open(project).records() if r.kind == "artifact.pulled"}
    assert pulled == {"ckpt/best.pth": True, "ckpt/old.pth": False, "run.json": True}


def test_a_name_that_is_not_utf8_exits_3_over_ssh(capsys: pytest.CaptureFixture[str], box: Path,
                                                  sshd: Any) -> None:
    with open(bytes(box) + b"/caf\xe9.txt", "wb") as fh:
        fh.write(b"x")
    code, out, err = call(capsys, "pull", "--run", "r1", "--from", sshd.target(box),
                          "--identity", str(sshd.client_key), "--accept-new-host-key")
    assert code == 3, err
    assert "refused: 'caf\\udce9.txt': unsafe name (is not valid UTF-8)" in err
    assert "Traceback" not in err
    assert out.splitlines()[3].split()[:2] == ["pulled", "2"]
