"""Defects found by using the content store as a researcher would (put, get, gc, check --deep).

* `cas get DIGEST -o DIR --force` replaced DIR whatever it held: run from a subfolder with
  ``-o ..`` (or the project's absolute path) it deleted the whole project, ``.labledger/`` with
  every event and object included, and exited 0; without --force, ``-o .labledger/ledger/...``
  planted a file among the segments.
* `cas gc --no-dry-run` reported objects as removed that it could not remove (a read-only
  store), and exited 0.
* an object (or a fan-out folder) labledger may not read made `check --deep` and `cas gc` end
  with a bare "[Errno 13] Permission denied" (exit 1) instead of `check` reporting it (exit 3)
  and gc saying why it removed nothing; gc could also stop half-way through removing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import SourceUnreadableError, Store, UnsafePathError
from labledger.cas.restore import DestinationOverlapsError
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.conftest import permissions_enforced


def _labledger(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("labledger")
    return subprocess.run(permissions_enforced([str(exe), *args]), capture_output=True,
                          text=True, cwd=project, timeout=120, check=False)


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


@pytest.fixture
def in_project(project: Path, ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    monkeypatch.chdir(project)
    return ledger


@pytest.fixture
def restorable(in_project: Ledger, project: Path) -> tuple[str, str]:
    """A file object and a tree object, stored; returns their digests."""
    store = Store(in_project.paths.cas)
    (project / "run").mkdir()
    (project / "run" / "a.txt").write_bytes(b"a")
    return store.put_bytes(b"restored bytes").digest, store.put_tree(project / "run").digest


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "cache" not in p.relative_to(folder).parts}


# --- cas get never replaces, or writes into, the ledger -----------------------------------------
@pytest.mark.parametrize("where", ["project", "dotdot", "home", "segments", "inside-store",
                                   "through-link"])
@pytest.mark.parametrize("force", [True, False])
def test_get_refuses_a_destination_overlapping_the_ledger(
        restorable: tuple[str, str], project: Path, where: str, force: bool,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    file_digest, tree_digest = restorable
    home = project / ".labledger"
    (project / "sub").mkdir()
    os.symlink(home, project / "sub" / "link")
    output = {"project": str(project), "dotdot": "..", "home": str(home),
              "segments": str(home / "ledger" / "test-writer" / "000000000099.jsonl"),
              "inside-store": str(home / "cas" / "objects" / "zz"),
              "through-link": "link/ledger/new"}[where]
    monkeypatch.chdir(project / "sub")
    before = _snapshot(project)
    for digest in (file_digest, tree_digest):
        code, _, err = call(capsys, "cas", "get", digest, "-o", output,
                            *(["--force"] if force else []))
        assert code == 2, err
        assert "refusing to restore to" in err
        assert str(home) in err
        assert "Traceback" not in err
    assert _snapshot(project) == before


def test_get_force_replaces_a_link_to_the_ledger_not_the_ledger(
        restorable: tuple[str, str], project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file_digest, _ = restorable
    os.symlink(project / ".labledger", project / "link")
    before = _snapshot(project / ".labledger")
    code, _, err = call(capsys, "cas", "get", file_digest, "-o", "link", "--force")
    assert code == 0, err
    assert not (project / "link").is_symlink()
    assert (project / "link").read_bytes() == b"restored bytes"
    assert _snapshot(project / ".labledger") == before


def test_get_still_restores_beside_the_ledger(restorable: tuple[str, str], project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    file_digest, tree_digest = restorable
    assert call(capsys, "cas", "get", file_digest, "-o", "out.bin")[0] == 0
    assert call(capsys, "cas", "get", tree_digest, "-o", "run", "--force")[0] == 0
    assert (project / "out.bin").read_bytes() == b"restored bytes"
    assert (project / "run" / "a.txt").read_bytes() == b"a"


def test_store_get_refuses_its_own_folder(tmp_path: Path) -> None:
    store = Store(tmp_path / "cas")
    digest = store.put_bytes(b"x").digest
    for dest in (tmp_path, tmp_path / "cas", tmp_path / "cas" / "objects" / "new"):
        with pytest.raises(UnsafePathError, match="refusing to restore") as info:
            store.get(digest, dest, force=True)
        assert isinstance(info.value, DestinationOverlapsError)
        assert info.value.to_json()["error"] == "DestinationOverlapsError"
    assert store.read_bytes(digest) == b"x"
    protected = tmp_path / "keep"
    protected.mkdir()
    with pytest.raises(UnsafePathError, match="lies inside"):
        store.get(digest, protected / "x", protect=[protected])
    store.get(digest, tmp_path / "elsewhere")
    assert (tmp_path / "elsewhere").read_bytes() == b"x"


# --- gc says only what it did -------------------------------------------------------------------
def test_gc_lists_what_it_could_not_remove(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "cas")
    stuck = store.put_bytes(b"stuck")
    gone = store.put_bytes(b"gone")
    for digest in (stuck.digest, gone.digest):
        _age(store.object_path(digest), 3600)
    real_unlink = os.unlink

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path) == store.object_path(stuck.digest):
            raise PermissionError(13, "Permission denied", str(path))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    report = store.gc(set(), grace_seconds=60, dry_run=False)
    assert [i.digest for i in report.removed] == [gone.digest]
    assert [i.digest for i in report.failed] == [stuck.digest]
    assert report.failed_because == (f"Permission denied ({store.object_path(stuck.digest)})",)
    assert store.exists(stuck.digest)
    assert not store.exists(gone.digest)
    assert report.to_json()["failed"][0]["digest"] == stuck.digest


def test_gc_command_exits_1_when_it_could_not_remove(
        in_project: Ledger, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(in_project.paths.cas)
    stuck = store.put_bytes(b"stuck")
    _age(store.object_path(stuck.digest), 3600)

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "unlink", unlink)
    code, out, err = call(capsys, "cas", "gc", "--grace", "60s", "--no-dry-run")
    assert code == 1
    assert f"could not remove {stuck.digest}" in out
    assert "removed 0 objects" in err
    assert "could not be removed: Permission denied" in err
    code, out, err = call(capsys, "--json", "cas", "gc", "--grace", "60s", "--no-dry-run")
    assert code == 1
    data = json.loads(out)
    assert data["removed"] == []
    assert data["failed"][0]["digest"] == stuck.digest
    assert json.loads(err.splitlines()[-1])["error"] == "StoreWriteError"


def test_gc_removes_nothing_when_a_folder_cannot_be_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "cas")
    objects = [store.put_bytes(bytes([i]) * 3) for i in range(40)]  # spread over fan folders
    for result in objects:
        _age(store.object_path(result.digest), 3600)
    last_fan = max(store.object_path(r.digest).parent for r in objects)
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == last_fan:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(SourceUnreadableError, match="gc removed nothing") as info:
        store.gc(set(), grace_seconds=60, dry_run=False)
    assert info.value.path == last_fan
    assert all(store.exists(r.digest) for r in objects)
    report = store.verify_all()
    assert report.unreadable == (last_fan,)
    assert not report.is_ok


# --- unreadable objects and folders, with real permissions --------------------------------------
@pytest.fixture
def tree_in_ledger(in_project: Ledger, project: Path) -> tuple[Store, str, str]:
    """A stored tree named by an event; returns the store, the tree and one of its files."""
    store = Store(in_project.paths.cas)
    (project / "run").mkdir()
    (project / "run" / "metrics.csv").write_bytes(b"step,loss\n1,0.5\n")
    tree = store.put_tree(project / "run")
    in_project.append("artifact.recorded", run="r1", path="run", digest=tree.digest,
                      size=tree.size, type="tree")
    (entry,) = tree.entries
    assert entry.digest is not None
    return store, tree.digest, entry.digest


def test_check_deep_reports_an_unreadable_object_and_gc_removes_nothing(
        tree_in_ledger: tuple[Store, str, str], project: Path) -> None:
    store, _, file_digest = tree_in_ledger
    junk = store.put_bytes(b"unreferenced")
    _age(store.object_path(junk.digest), 30 * 86400)
    path = store.object_path(file_digest)
    path.chmod(0)
    try:
        checked = _labledger(project, "check", "--deep")
        gc = _labledger(project, "cas", "gc", "--grace", "1d", "--no-dry-run")
    finally:
        path.chmod(0o444)
    assert checked.returncode == 3, checked.stderr
    assert f"corruption: object {file_digest}: content could not be read" in checked.stdout
    assert "Errno" not in checked.stderr
    assert "Traceback" not in checked.stderr
    assert gc.returncode == 1
    assert f"cannot read object {file_digest}" in gc.stderr
    assert "removed nothing" in gc.stderr
    assert "Traceback" not in gc.stderr
    assert store.exists(junk.digest)  # gc could not tell what the tree keeps: nothing removed
    assert path.exists()  # a permission is not corruption: left in place


def test_check_deep_reports_a_folder_it_cannot_list(
        tree_in_ledger: tuple[Store, str, str], project: Path) -> None:
    store, _, file_digest = tree_in_ledger
    fan = store.object_path(file_digest).parent
    fan.chmod(0)
    try:
        checked = _labledger(project, "--json", "check", "--deep")
        listed = _labledger(project, "check", "--deep")
    finally:
        fan.chmod(0o755)
    assert checked.returncode == 3, checked.stderr
    data = json.loads(checked.stdout)
    assert data["ok"] is False
    assert data["objects"]["unreadable"] == [str(fan)]
    assert listed.returncode == 3
    assert f"corruption: folder {fan} of the store cannot be listed" in listed.stdout
    assert "Traceback" not in listed.stderr
    assert "Errno" not in listed.stderr


def test_cas_put_refuses_the_ledgers_own_folder_and_what_holds_it(
    in_project: Ledger, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cas put .` at the project root stored .labledger/ (the ledger and every object) into
    the store again; now it is refused (exit 2, nothing stored), naming what to store."""
    from tests.conftest import cli_call

    (project / "runs").mkdir()
    (project / "runs" / "metrics.json").write_text('{"psnr": 31.4}')
    code, out, _ = cli_call(capsys, "cas", "put", "runs")
    assert code == 0
    assert out.startswith("blake3:")
    objects = project / ".labledger" / "cas"
    before = sorted(p for p in objects.rglob("*"))
    events = sorted(p.read_bytes() for p in (project / ".labledger" / "ledger").rglob("*.jsonl"))
    for args in (["cas", "put", "."], ["cas", "put", "runs", "."], ["cas", "put", ".labledger"],
                 ["cas", "put", ".labledger/config.toml"],
                 # emit --attach stores through the same call (the Python API's too)
                 ["emit", "note", "--set", "text=x", "--attach", "runs", "--attach", "."]):
        code, out, err = cli_call(capsys, *args)
        assert code == 2, (args, err)
        assert out == ""
        assert ".labledger" in err
        assert sorted(p for p in objects.rglob("*")) == before, args
    assert sorted(p.read_bytes()
                  for p in (project / ".labledger" / "ledger").rglob("*.jsonl")) == events
